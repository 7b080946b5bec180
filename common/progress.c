/* SPDX-License-Identifier: MIT */
/*
 * Steps and their live line (progress.h). The ticker thread and the caller share the live
 * line's state under s->lock; the step lines themselves are printed by the caller only, once
 * the ticker has ended, so a step line never interleaves with a live line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/* How often the ticker redraws, and how long a step runs before it shows. */
#define TICK_MS 500
#define SHOW_AFTER_S 1.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *dps_steps_format_left(double s, char *buf, size_t len)
{
	if (s < 90) {
		snprintf(buf, len, "about %.0f s left", s < 1 ? 1 : s);
	} else {
		snprintf(buf, len, "about %.0f min left", s / 60);
	}
	return buf;
}

/* The terminal's width, 80 when it cannot say. */
static size_t columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20) {
		return 80;
	}
	return ws.ws_col;
}

/* The live line, under s->lock: cut to the terminal's width (a line that wraps cannot be
 * drawn over), ending with a carriage return. */
static void draw_locked(struct dps_steps *s)
{
	double now = now_s(), el = now - s->t0_s;
	char line[256], left[48];
	size_t width = columns() - 1;

	if (!s->live || !s->running || el < SHOW_AFTER_S) {
		return;
	}
	if (s->total && s->done >= s->total) {
		snprintf(line, sizeof(line), "[%u/%u] %s: %zu/%zu", s->k, s->n, s->what, s->done,
			 s->total);
	} else if (s->total && s->done) {
		/* the pace so far, at the last count: the rest at the same pace, less what has
		 * passed since */
		double rest = (s->count_s - s->t0_s) / (double)s->done * (double)s->total - el;

		snprintf(line, sizeof(line), "[%u/%u] %s: %zu/%zu, %s", s->k, s->n, s->what,
			 s->done, s->total,
			 dps_steps_format_left(rest > 0 ? rest : 0, left, sizeof(left)));
	} else if (s->total) {
		snprintf(line, sizeof(line), "[%u/%u] %s: 0/%zu, %.0f s", s->k, s->n, s->what,
			 s->total, el);
	} else {
		snprintf(line, sizeof(line), "[%u/%u] %s: %.0f s", s->k, s->n, s->what, el);
	}
	if (strlen(line) > width && width < sizeof(line)) {
		line[width] = '\0';
	}
	fprintf(stderr, "\r\033[K%s\r", line);
	s->drawn = true;
}

static gpointer tick(gpointer arg)
{
	struct dps_steps *s = arg;

	g_mutex_lock(&s->lock);
	while (!s->stop) {
		gint64 until = g_get_monotonic_time() + TICK_MS * G_TIME_SPAN_MILLISECOND;

		draw_locked(s);
		while (!s->stop && g_cond_wait_until(&s->wake, &s->lock, until)) {
		}
	}
	g_mutex_unlock(&s->lock);
	return NULL;
}

void dps_steps_init(struct dps_steps *s, unsigned n, bool quiet, bool live)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->quiet = quiet;
	s->live = live && !quiet;
	g_mutex_init(&s->lock);
	g_cond_init(&s->wake);
}

static void stop_ticker(struct dps_steps *s)
{
	if (!s->ticker) {
		return;
	}
	g_mutex_lock(&s->lock);
	s->stop = true;
	g_cond_signal(&s->wake);
	g_mutex_unlock(&s->lock);
	g_thread_join(s->ticker);
	s->ticker = NULL;
	s->stop = false;
}

void dps_steps_clear(struct dps_steps *s)
{
	g_mutex_lock(&s->lock);
	if (s->drawn) {
		fputs("\r\033[K", stderr);
		s->drawn = false;
	}
	g_mutex_unlock(&s->lock);
}

void dps_steps_abort(struct dps_steps *s)
{
	stop_ticker(s);
	dps_steps_clear(s);
	s->running = false;
}

void dps_steps_end(struct dps_steps *s)
{
	double el;

	if (!s->running) {
		return;
	}
	stop_ticker(s);
	el = now_s() - s->t0_s;
	dps_steps_clear(s);
	s->running = false;
	if (!s->quiet) {
		fprintf(stderr, "[%u/%u] %s (%.1f s)\n", s->k, s->n, s->what, el);
	}
}

void dps_steps_begin(struct dps_steps *s, bool tick_it, const char *fmt, ...)
{
	va_list ap;

	dps_steps_end(s);
	va_start(ap, fmt);
	vsnprintf(s->what, sizeof(s->what), fmt, ap);
	va_end(ap);
	s->k++;
	s->t0_s = now_s();
	s->done = s->total = 0;
	s->running = true;
	if (s->live && tick_it) {
		s->ticker = g_thread_new("dps-progress", tick, s);
	}
}

void dps_steps_count(struct dps_steps *s, size_t done, size_t total)
{
	g_mutex_lock(&s->lock);
	s->done = done;
	s->total = total;
	s->count_s = now_s();
	draw_locked(s);
	g_mutex_unlock(&s->lock);
}

void dps_steps_fini(struct dps_steps *s)
{
	if (!s) {
		return;
	}
	dps_steps_abort(s);
	g_cond_clear(&s->wake);
	g_mutex_clear(&s->lock);
}
