/* SPDX-License-Identifier: MIT */
/*
 * What dps export reads (export.h, dps_export_load): a trace, an action set, or a replay's
 * output directory, each run turned into a model by compare_load, the way dps compare reads
 * its two inputs, so that the exported timelines are the ones the comparison measured.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "actset.h"
#include "export.h"
#include "replay.h"

bool dps_export_format_parse(const char *name, enum dps_export_format *format)
{
	if (!strcmp(name, "perfetto") || !strcmp(name, "chrome") || !strcmp(name, "json")) {
		*format = DPS_EXPORT_PERFETTO;
		return true;
	}
	return false;
}

void dps_export_input_destroy(struct dps_export_input *in)
{
	if (!in) {
		return;
	}
	for (size_t i = 0; i < in->n_runs; i++) {
		analyzer_result_destroy(in->runs[i].model);
		g_free(in->runs[i].role);
		g_free(in->runs[i].source);
	}
	g_free(in);
}

static bool has_selection(const struct analyzer_options *o)
{
	return o->pid >= 0 || o->tid >= 0 || o->comm;
}

/* Loads one run into in->runs[in->n_runs]; on error diag says which run when role is set. */
static enum dps_status load_run(struct dps_export_input *in, const char *path, const char *role,
				const struct analyzer_options *opts, struct dps_diag *diag)
{
	struct dps_export_run *run = &in->runs[in->n_runs];
	enum dps_status st;

	st = compare_load(path, opts, &run->model, &run->kind, diag);
	if (st) {
		if (role) {
			char *msg = g_strdup(diag->msg);

			dps_diag_setf(diag, "the %s run (%s): %s", role, path, msg);
			g_free(msg);
		}
		return st;
	}
	run->role = g_strdup(role);
	run->source = g_strdup(path);
	in->n_runs++;
	return DPS_OK;
}

/* The original's selection in a replay directory: the user's, else the root that the set's
 * manifest names (the replay analyzed that process), else the trace's record.info (in
 * compare_load). */
static void replay_original_selection(const struct dps_replay_dir *dir, struct analyzer_options *o)
{
	struct dps_actset *set = NULL;
	struct dps_diag ignored;

	if (has_selection(o)) {
		return;
	}
	if (!dps_actset_load_dir(dir->set, &set, &ignored) && set->threads[set->root].tid >= 0) {
		o->tid = set->threads[set->root].tid;
	}
	dps_actset_destroy(set);
}

static enum dps_status load_replay(struct dps_export_input *in, const struct dps_replay_dir *dir,
				   const struct analyzer_options *sel, struct dps_diag *diag)
{
	struct analyzer_options orig = *sel, sim = *sel;
	enum dps_status st;

	if (!g_file_test(dir->trace, G_FILE_TEST_IS_DIR)) {
		dps_diag_setf(diag,
			      "the replayed trace %s (named by the replay's " DPS_REPLAY_INFO_NAME
			      ") is not there",
			      dir->trace);
		return DPS_ERR_INVAL;
	}
	if (!sel->calibration_path && g_file_test(dir->calibration, G_FILE_TEST_IS_REGULAR)) {
		orig.calibration_path = sim.calibration_path = dir->calibration;
	}
	replay_original_selection(dir, &orig);
	/* The simulated run: the pid dps record saw (its record.info), as dps replay compares
	 * it; never the original's selection. */
	sim.pid = sim.tid = -1;
	sim.comm = NULL;
	st = load_run(in, dir->trace, "original", &orig, diag);
	if (!st) {
		st = load_run(in, dir->sim_trace, "simulated", &sim, diag);
	}
	return st;
}

enum dps_status dps_export_load(const char *path, const struct analyzer_options *sel,
				struct dps_export_input **out, struct dps_diag *diag)
{
	struct dps_export_input *in = g_new0(struct dps_export_input, 1);
	struct dps_replay_dir dir;
	struct stat sb;
	enum dps_status st;

	*out = NULL;
	if (stat(path, &sb)) {
		int err = errno;

		dps_diag_setf(diag, "Cannot open input: path=\"%s\", errno=%d (%s)", path, err,
			      strerror(err));
		st = err == ENOENT || err == ENOTDIR ? DPS_ERR_NOENT : DPS_ERR_IO;
		goto free_input;
	}
	st = dps_replay_dir_read(path, &dir, diag);
	if (st == DPS_OK) {
		st = load_replay(in, &dir, sel, diag);
	} else if (st == DPS_ERR_NOENT) {
		st = load_run(in, path, NULL, sel, diag);
	}
	dps_replay_dir_fini(&dir);
	if (st) {
		goto free_input;
	}
	*out = in;
	return DPS_OK;
free_input:
	dps_export_input_destroy(in);
	return st;
}
