/* SPDX-License-Identifier: MIT */
/*
 * A command run under Valgrind's cache simulator:
 *
 *   valgrind --tool=cachegrind --cache-sim=yes --D1=SIZE,ASSOC,LINE --LL=SIZE,ASSOC,LINE
 *            --cachegrind-out-file=TMP/cachegrind.out --log-file=TMP/valgrind.log COMMAND...
 *
 * with this machine's geometry (geometry.c), then its output file read (cg-parse.c). The
 * command's own output goes where ours goes; Valgrind's messages go to the log, read only to
 * explain a run that wrote no output. Cachegrind follows the command's process alone (not its
 * children: --trace-children stays off), and simulates one cache hierarchy for all its
 * threads. The temporary directory is removed whatever happens.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"
#include "subprocess.h"

/* "--D1=49152,12,64" for a known level, NULL for one cachegrind chooses. */
static char *level_option(const char *name, const struct cache_level *l)
{
	if (!l->size_bytes) {
		return NULL;
	}
	return g_strdup_printf("--%s=%" PRIu64 ",%u,%u", name, l->size_bytes, l->assoc,
			       l->line_bytes);
}

char **cache_capture_argv(const struct cache_capture_options *opts, const char *out_file,
			  const char *log_file)
{
	GPtrArray *v = g_ptr_array_new();
	char *opt;

	g_ptr_array_add(v, g_strdup(opts->valgrind ? opts->valgrind : "valgrind"));
	g_ptr_array_add(v, g_strdup("--tool=cachegrind"));
	g_ptr_array_add(v, g_strdup("--cache-sim=yes"));
	if (opts->geom && (opt = level_option("D1", &opts->geom->d1))) {
		g_ptr_array_add(v, opt);
	}
	if (opts->geom && (opt = level_option("LL", &opts->geom->ll))) {
		g_ptr_array_add(v, opt);
	}
	g_ptr_array_add(v, g_strdup_printf("--cachegrind-out-file=%s", out_file));
	g_ptr_array_add(v, g_strdup_printf("--log-file=%s", log_file));
	for (char *const *a = opts->argv; *a; a++) {
		g_ptr_array_add(v, g_strdup(*a));
	}
	g_ptr_array_add(v, NULL);
	return (char **)g_ptr_array_free(v, FALSE);
}

/* The last non-empty line of Valgrind's log, for a message; "(no message)" when none. */
static char *log_last_line(const char *log_file)
{
	char *text = NULL, *line;

	if (!g_file_get_contents(log_file, &text, NULL, NULL)) {
		return g_strdup("(no log)");
	}
	line = g_strdup(dps_subprocess_last_line(text));
	g_free(text);
	return line;
}

int cache_capture_run(const struct cache_capture_options *opts, struct cache_profile **out,
		      int *exit_status, struct dps_diag *diag)
{
	const char *valgrind = opts->valgrind ? opts->valgrind : "valgrind";
	char *dir = NULL, *out_file = NULL, *log_file = NULL, **argv = NULL;
	GError *error = NULL;
	int ret, status;

	*out = NULL;
	*exit_status = -1;
	if (!dps_subprocess_runnable(valgrind, diag)) {
		dps_diag_setf(diag,
			      "%s: command not found; the cache capture needs Valgrind (Debian's "
			      "valgrind package; scripts/setup.sh installs it)",
			      valgrind);
		return DPS_ERROR;
	}
	if (!opts->argv || !opts->argv[0]) {
		dps_diag_setf(diag, "no command to capture");
		return DPS_ERR_INVAL;
	}
	if (!dps_subprocess_runnable(opts->argv[0], diag)) {
		return DPS_ERR_NOENT;
	}
	dir = g_dir_make_tmp("dps-cache-XXXXXX", &error);
	if (!dir) {
		dps_diag_setf(diag, "cannot make a temporary directory: %s", error->message);
		g_error_free(error);
		return DPS_ERR_IO;
	}
	out_file = g_build_filename(dir, "cachegrind.out", NULL);
	log_file = g_build_filename(dir, "valgrind.log", NULL);
	argv = cache_capture_argv(opts, out_file, log_file);
	if (opts->quiet) {
		struct dps_subprocess_options so = {.quiet_stderr = true};
		char *discard = NULL;

		status = dps_subprocess_run(argv, &so, &discard);
		g_free(discard);
	} else {
		status = dps_subprocess_run(argv, NULL, NULL);
	}
	if (status < 0) {
		dps_diag_setf(diag, "%s: cannot run it", valgrind);
		ret = DPS_ERROR;
		goto remove_dir;
	}
	if (!g_file_test(out_file, G_FILE_TEST_EXISTS)) {
		char *last = log_last_line(log_file);

		dps_diag_setf(diag, "%s wrote no cachegrind output (exit status %d): %s", valgrind,
			      status, last);
		g_free(last);
		ret = DPS_ERROR;
		goto remove_dir;
	}
	*exit_status = status;
	ret = cache_profile_read(out_file, out, diag);
remove_dir:
	g_remove(out_file);
	g_remove(log_file);
	g_rmdir(dir);
	g_strfreev(argv);
	g_free(out_file);
	g_free(log_file);
	g_free(dir);
	return ret;
}
