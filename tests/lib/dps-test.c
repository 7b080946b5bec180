/* SPDX-License-Identifier: MIT */
/* The shared test helpers of dps-test.h, on GLib (spawning, files, temporary directories). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "dps-test.h"

static const char *env_or_fail(const char *name)
{
	const char *v = getenv(name);

	cr_assert(v && *v, "%s is not set (run the tests through ctest)", name);
	return v;
}

const char *dps_test_bin(void)
{
	return env_or_fail("DPS_BIN");
}

const char *dps_test_source_dir(void)
{
	return env_or_fail("DPS_SOURCE_DIR");
}

const char *dps_test_build_dir(void)
{
	return env_or_fail("DPS_BUILD_DIR");
}

const char *dps_test_data_dir(void)
{
	return env_or_fail("DPS_TEST_DATA");
}

char *dps_test_data_path(const char *rel)
{
	return g_build_filename(dps_test_data_dir(), rel, NULL);
}

char *dps_test_strf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *dps_test_mkdtemp(const char *what)
{
	char *path = g_strdup_printf("%s/dps-test-%s-XXXXXX", g_get_tmp_dir(), what);

	cr_assert_not_null(g_mkdtemp(path), "mkdtemp %s: %s", path, strerror(errno));
	return path;
}

char *dps_test_mkstemp(const char *what)
{
	char *path = g_strdup_printf("%s/dps-test-%s-XXXXXX", g_get_tmp_dir(), what);
	int fd = g_mkstemp(path);

	cr_assert_geq(fd, 0, "mkstemp %s: %s", path, strerror(errno));
	close(fd);
	return path;
}

/* Removes path and what is below it, without following symbolic links. */
static void remove_tree(const char *path)
{
	GDir *dir;

	if (!g_file_test(path, G_FILE_TEST_IS_DIR) || g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
		g_unlink(path);
		return;
	}
	dir = g_dir_open(path, 0, NULL);
	if (dir) {
		const char *name;

		while ((name = g_dir_read_name(dir))) {
			char *sub = g_build_filename(path, name, NULL);

			remove_tree(sub);
			g_free(sub);
		}
		g_dir_close(dir);
	}
	g_rmdir(path);
}

void dps_test_rmtree(const char *path)
{
	if (path && *path) {
		remove_tree(path);
	}
}

void dps_test_require_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (cond && getenv("CI")) {
		cr_assert_fail("%s:%d: %s (needed: %s); CI is set, where a test may not skip", file,
			       line, why, cond);
	}
#if !defined(__SANITIZE_ADDRESS__)
	/* a build's skip is for a sanitized build only: CI runs the test in its plain one,
	 * which must never skip it */
	if (!cond && getenv("CI")) {
		cr_assert_fail(
		    "%s:%d: %s; a skip for a sanitized build in a plain one, where CI is "
		    "set",
		    file, line, why);
	}
#else
	/* and in the sanitized one only once CI's plain pass ran it and passed: .ci/run says
	 * so (DPS_CI_PLAIN_PASSED) after that pass, whose failure stops it before this one */
	if (!cond && getenv("CI") && !getenv("DPS_CI_PLAIN_PASSED")) {
		cr_assert_fail("%s:%d: %s; CI is set and no plain pass ran this test before "
			       "(DPS_CI_PLAIN_PASSED is not set: .ci/run sets it)",
			       file, line, why);
	}
#endif
	cr_skip_test("%s:%d: %s", file, line, why);
}

char *dps_test_mount_tmpfs(unsigned size_kib, bool required)
{
	char *dir = dps_test_mkdtemp("tmpfs");
	char *opts = g_strdup_printf("size=%uk", size_kib);

	if (mount("tmpfs", dir, "tmpfs", 0, opts) != 0) {
		int err = errno;

		if (!required) {
			g_free(opts);
			return dir;
		}
		g_rmdir(dir);
		g_free(opts);
		/* Only a refusal is a reason to skip (not root, or a container without
		 * CAP_SYS_ADMIN); anything else is a broken machine. */
		cr_assert(err == EPERM || err == EACCES, "cannot mount a tmpfs on %s: %s", dir,
			  strerror(err));
		dps_test_require(err == 0, /* CI runs as root: a tmpfs must mount */
				 "mounting a tmpfs on %s is not permitted (%s): the full-disk "
				 "check needs root",
				 dir, strerror(err));
	}
	g_free(opts);
	return dir;
}

void dps_test_unmount(const char *dir)
{
	if (dir) {
		(void)umount2(dir, MNT_DETACH);
		dps_test_rmtree(dir);
	}
}

void dps_test_fill_fs(const char *dir)
{
	char *path = g_build_filename(dir, "filler", NULL);
	char block[4096] = {0};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0, "cannot create %s: %s", path, strerror(errno));
	while (write(fd, block, sizeof(block)) > 0) {
	}
	/* Then the last partial page, byte by byte. */
	while (write(fd, block, 1) > 0) {
	}
	cr_assert_eq(errno, ENOSPC, "filling %s: %s", dir, strerror(errno));
	close(fd);
	g_free(path);
}

char *dps_test_dot_files(const char *dir)
{
	GString *names = g_string_new("");
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	cr_assert_not_null(d, "cannot list %s", dir);
	while ((name = g_dir_read_name(d))) {
		if (name[0] == '.') {
			g_string_append_printf(names, "%s%s", names->len ? " " : "", name);
		}
	}
	g_dir_close(d);
	return g_string_free(names, FALSE);
}

char *dps_test_read_file(const char *path, size_t *len)
{
	char *text = NULL;
	gsize n = 0;

	if (!g_file_get_contents(path, &text, &n, NULL)) {
		return NULL;
	}
	if (len) {
		*len = n;
	}
	return text;
}

void dps_test_write_file(const char *path, const char *text)
{
	GError *error = NULL;

	cr_assert(g_file_set_contents(path, text, -1, &error), "cannot write %s: %s", path,
		  error ? error->message : "?");
}

struct dps_test_run dps_test_run(const char *cwd, const char *const *argv, const char *const *env)
{
	struct dps_test_run run = {.status = -1};
	char **envp = g_get_environ();
	GError *error = NULL;
	int wait_status = 0;
	bool ok;

	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name;

		cr_assert_not_null(eq, "environment entry without '=': %s", env[i]);
		name = g_strndup(env[i], (gsize)(eq - env[i]));
		envp = g_environ_setenv(envp, name, eq + 1, TRUE);
		g_free(name);
	}
	ok = g_spawn_sync(cwd, (char **)argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &run.out,
			  &run.err, &wait_status, &error);
	g_strfreev(envp);
	cr_assert(ok, "cannot run %s: %s", argv[0], error ? error->message : "?");
	if (WIFEXITED(wait_status)) {
		run.status = WEXITSTATUS(wait_status);
	}
	cr_assert_null(strstr(run.err, "Sanitizer"), "%s: %s", argv[0], run.err);
	cr_assert_null(strstr(run.err, "runtime error:"), "%s: %s", argv[0], run.err);
	return run;
}

struct dps_test_run dps_test_run_sh(const char *fmt, ...)
{
	struct dps_test_run run;
	va_list ap;
	char *cmd;

	va_start(ap, fmt);
	cmd = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	run = dps_test_run(NULL, (const char *const[]){"/bin/sh", "-c", cmd, NULL}, NULL);
	g_free(cmd);
	return run;
}

struct dps_test_run dps_test_run_dps(const char *first, ...)
{
	GPtrArray *argv = g_ptr_array_new();
	struct dps_test_run run;
	const char *arg;
	va_list ap;

	g_ptr_array_add(argv, (gpointer)dps_test_bin());
	va_start(ap, first);
	for (arg = first; arg; arg = va_arg(ap, const char *)) {
		g_ptr_array_add(argv, (gpointer)arg);
	}
	va_end(ap);
	g_ptr_array_add(argv, NULL);
	run = dps_test_run(NULL, (const char *const *)argv->pdata, NULL);
	g_ptr_array_free(argv, TRUE);
	return run;
}

void dps_test_run_fini(struct dps_test_run *run)
{
	g_free(run->out);
	g_free(run->err);
	run->out = run->err = NULL;
}

int dps_test_run_through(const char *cwd, const char *const *argv)
{
	GError *error = NULL;
	int wait_status = 0;

	cr_assert(g_spawn_sync(cwd, (char **)argv, NULL,
			       G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL,
			       NULL, &wait_status, &error),
		  "cannot run %s: %s", argv[0], error ? error->message : "?");
	return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

int dps_test_sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int status;

	va_start(ap, fmt);
	cmd = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	status = dps_test_run_through(NULL, (const char *const[]){"/bin/sh", "-c", cmd, NULL});
	g_free(cmd);
	return status;
}

size_t dps_test_check_links(const char *page)
{
	static const char *const attrs[] = {" href=\"", " src=\""};
	static const char *const remote[] = {"#", "http:", "https:", "data:", "mailto:"};
	char *text = dps_test_read_file(page, NULL);
	char *dir = g_path_get_dirname(page);
	size_t n = 0;

	cr_assert_not_null(text, "cannot read %s", page);
	for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
		for (const char *p = strstr(text, attrs[a]); p; p = strstr(p, attrs[a])) {
			const char *v = p + strlen(attrs[a]), *end = strchr(v, '"');
			char *link, *path;
			bool skip = false;

			cr_assert_not_null(end, "%s: an unterminated attribute", page);
			link = g_strndup(v, (gsize)(end - v));
			p = end;
			for (size_t r = 0; r < sizeof(remote) / sizeof(remote[0]); r++) {
				skip = skip || g_str_has_prefix(link, remote[r]);
			}
			if (skip) {
				g_free(link);
				continue;
			}
			link[strcspn(link, "?#")] = '\0';
			n++;
			cr_expect(!g_path_is_absolute(link) && !g_str_has_prefix(link, "file:"),
				  "%s links %s: not relative to the page", page, link);
			path = g_build_filename(dir, link, NULL);
			cr_expect(g_file_test(path, G_FILE_TEST_EXISTS), "%s links %s: no %s", page,
				  link, path);
			g_free(path);
			g_free(link);
		}
	}
	g_free(dir);
	g_free(text);
	return n;
}

void dps_test_hog_start(struct dps_test_hog *hog)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	hog->n = cpus > 0 ? (size_t)cpus : 1;
	hog->pids = g_new0(int, hog->n);
	for (size_t i = 0; i < hog->n; i++) {
		pid_t pid = fork();

		cr_assert_geq(pid, 0, "fork: errno=%d", errno);
		if (!pid) {
			volatile unsigned long spin = 0;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;) {
				spin++;
			}
		}
		hog->pids[i] = pid;
	}
}

void dps_test_hog_stop(struct dps_test_hog *hog)
{
	for (size_t i = 0; i < hog->n; i++) {
		kill(hog->pids[i], SIGKILL);
		waitpid(hog->pids[i], NULL, 0);
	}
	g_free(hog->pids);
	*hog = (struct dps_test_hog){0};
}

bool dps_test_has_program(const char *name)
{
	char *path = g_find_program_in_path(name);
	bool found = path != NULL;

	g_free(path);
	return found;
}
