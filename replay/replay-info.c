/* SPDX-License-Identifier: MIT */
/*
 * Reading a replay's output directory back (replay.h, dps_replay_dir_read): dps export shows
 * the two runs of a replay side by side, and needs the trace the replay replayed, which only
 * the marker file names. The writer is make_outdir() in replay.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "replay.h"

/* The trace a relative path in the marker names: as the replay was run (the current
 * directory), else beside the output directory (the replay was run from OUTDIR's parent). */
static char *resolve_trace(const char *outdir, const char *trace)
{
	char *parent, *beside;

	if (g_path_is_absolute(trace) || g_file_test(trace, G_FILE_TEST_EXISTS)) {
		return g_strdup(trace);
	}
	parent = g_path_get_dirname(outdir);
	beside = g_build_filename(parent, trace, NULL);
	g_free(parent);
	if (g_file_test(beside, G_FILE_TEST_EXISTS)) {
		return beside;
	}
	g_free(beside);
	return g_strdup(trace);
}

enum dps_status dps_replay_dir_read(const char *outdir, struct dps_replay_dir *dir,
				    struct dps_diag *diag)
{
	char *marker = g_build_filename(outdir, DPS_REPLAY_INFO_NAME, NULL);
	gchar *text = NULL;
	gchar **lines = NULL;
	GError *err = NULL;
	enum dps_status st = DPS_OK;
	unsigned lineno = 0;

	*dir = (struct dps_replay_dir){0};
	if (!g_file_get_contents(marker, &text, NULL, &err)) {
		bool missing = g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
			       g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);

		dps_diag_setf(diag, "%s: %s", marker, err->message);
		st = missing ? DPS_ERR_NOENT : DPS_ERR_IO;
		goto free_marker;
	}
	lines = g_strsplit(text, "\n", -1);
	for (gchar **l = lines; *l && !dir->trace; l++) {
		lineno++;
		if (g_str_has_prefix(*l, "trace ") && (*l)[6]) {
			dir->trace = resolve_trace(outdir, *l + 6);
		}
	}
	if (!dir->trace) {
		dps_diag_set(diag, marker, lineno, 0,
			     "expected a line 'trace PATH' naming the replayed trace");
		st = DPS_ERR_INVAL;
		goto free_lines;
	}
	dir->sim_trace = g_build_filename(outdir, "sim-trace", NULL);
	dir->set = g_build_filename(outdir, "set", NULL);
	dir->calibration = g_build_filename(outdir, "calibration", NULL);
free_lines:
	g_strfreev(lines);
	g_free(text);
free_marker:
	g_clear_error(&err);
	g_free(marker);
	return st;
}

void dps_replay_dir_fini(struct dps_replay_dir *dir)
{
	if (!dir) {
		return;
	}
	g_free(dir->trace);
	g_free(dir->sim_trace);
	g_free(dir->set);
	g_free(dir->calibration);
	*dir = (struct dps_replay_dir){0};
}
