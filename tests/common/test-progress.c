/* SPDX-License-Identifier: MIT */
/*
 * A command's steps (common/progress.h): each step's line says its own duration, not the time
 * since the first began (issue 25: "[1/6] calibrating (0.0 s)" read as a duration); on a
 * terminal a live line shows a blocking step's time and a counted step's "done/total, about T
 * left"; quiet prints nothing. stderr is swapped for a file or a pseudo-terminal while the
 * steps run, and read back.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "dps-test.h"
#include "progress.h"

/* Where stderr goes while steps run, and how to read it back. */
struct capture {
	int saved;  /* our stderr */
	int master; /* a pseudo-terminal's master side, or -1 */
	char *path; /* a file, or NULL */
};

static struct capture capture_to_file(void)
{
	struct capture c = {.master = -1, .path = dps_test_mkstemp("progress")};
	int fd = open(c.path, O_WRONLY | O_TRUNC);

	cr_assert(fd >= 0);
	fflush(stderr);
	c.saved = dup(STDERR_FILENO);
	cr_assert(c.saved >= 0 && dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	close(fd);
	return c;
}

static struct capture capture_to_pty(void)
{
	struct capture c = {.master = posix_openpt(O_RDWR | O_NOCTTY)};
	int slave;

	cr_assert(c.master >= 0, "no pseudo-terminal");
	cr_assert(!grantpt(c.master) && !unlockpt(c.master));
	slave = open(ptsname(c.master), O_RDWR | O_NOCTTY);
	cr_assert(slave >= 0);
	fflush(stderr);
	c.saved = dup(STDERR_FILENO);
	cr_assert(c.saved >= 0 && dup2(slave, STDERR_FILENO) == STDERR_FILENO);
	close(slave);
	cr_assert(isatty(STDERR_FILENO));
	return c;
}

/* stderr back, and what was written to it (g_free). */
static char *release(struct capture *c)
{
	GString *text = g_string_new(NULL);

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	if (c->path) {
		char *file = dps_test_read_file(c->path, NULL);

		g_string_append(text, file);
		g_free(file);
		dps_test_rmtree(c->path);
		g_free(c->path);
	} else {
		char buf[4096];
		ssize_t n;

		/* the slave is closed: the master reads what is left, then fails (EIO) */
		fcntl(c->master, F_SETFL, O_NONBLOCK);
		while ((n = read(c->master, buf, sizeof(buf))) > 0) {
			g_string_append_len(text, buf, n);
		}
		close(c->master);
	}
	return g_string_free(text, FALSE);
}

/* The duration of step k's line "[k/n] what (X s)" in text; fails the test without one. */
static double step_duration(const char *text, unsigned k, unsigned n, const char *what)
{
	char *head = dps_test_strf("[%u/%u] %s (", k, n, what);
	const char *at = strstr(text, head);
	double s;

	cr_assert(at, "no line '%s...' in:\n%s", head, text);
	s = strtod(at + strlen(head), NULL);
	g_free(head);
	return s;
}

Test(progress, each_step_line_says_its_own_duration)
{
	struct capture c = capture_to_file();
	struct dps_steps s;
	char *text;
	double first, second;

	dps_steps_init(&s, 2, false, false);
	dps_steps_begin(&s, true, "a long step");
	g_usleep(1000000);
	dps_steps_begin(&s, true, "a short one"); /* ends the first */
	g_usleep(100000);
	dps_steps_end(&s);
	dps_steps_fini(&s);
	text = release(&c);
	first = step_duration(text, 1, 2, "a long step");
	second = step_duration(text, 2, 2, "a short one");
	cr_expect(first >= 0.95, "the first step took a second: %.1f s", first);
	/* since the first began it would be 1.1 s or more; its own, 0.1 s and some load */
	cr_expect(second < 0.9, "the second step's line says %.1f s: not its own duration", second);
	cr_expect_null(strstr(text, "\r"), "no live line off a terminal:\n%s", text);
	g_free(text);
}

Test(progress, a_terminal_sees_the_step_live_its_count_and_the_time_left)
{
	struct capture c = capture_to_pty();
	struct dps_steps s;
	char *text;

	dps_steps_init(&s, 3, false, true);
	dps_steps_begin(&s, true, "calibrating");
	g_usleep(1300000); /* the ticker draws after a second */
	dps_steps_begin(&s, true, "running 4 points");
	dps_steps_count(&s, 0, 4);
	g_usleep(1100000);
	dps_steps_count(&s, 2, 4);
	dps_steps_end(&s);
	dps_steps_begin(&s, true, "a quick one"); /* under a second: no live line */
	dps_steps_end(&s);
	dps_steps_fini(&s);
	text = release(&c);
	cr_expect(strstr(text, "[1/3] calibrating: 1 s"), "the blocking step's time:\n%s", text);
	cr_expect(strstr(text, "[2/3] running 4 points: 2/4, about "), "the count:\n%s", text);
	cr_expect(strstr(text, " s left"), "the time left:\n%s", text);
	cr_expect(strstr(text, "\r\033[K[2/3] running 4 points ("), "the live line cleared:\n%s",
		  text);
	cr_expect(strstr(text, "[3/3] a quick one ("), "%s", text);
	cr_expect_null(strstr(text, "[3/3] a quick one:"), "a live line for a quick step:\n%s",
		       text);
	g_free(text);
}

Test(progress, quiet_prints_nothing_even_on_a_terminal)
{
	struct capture c = capture_to_pty();
	struct dps_steps s;
	char *text;

	dps_steps_init(&s, 1, true, true);
	dps_steps_begin(&s, true, "something");
	g_usleep(1200000);
	dps_steps_count(&s, 1, 2);
	dps_steps_end(&s);
	dps_steps_fini(&s);
	text = release(&c);
	cr_expect_str_eq(text, "", "quiet wrote:\n%s", text);
	g_free(text);
}
