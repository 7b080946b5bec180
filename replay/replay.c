/* SPDX-License-Identifier: MIT */
/*
 * dps replay's pipeline (replay.h). Steps, each through its library's C API:
 *
 *   0 check          the options, the paths given, the selection: before any work
 *   1 analyze        analyzer: analyzer_run writing the set (skipped with a set, which is
 *                    read and checked instead)
 *   2 calibrate      runtime: dps_calibration_measure + save (skipped with a calibration);
 *                    run from inside the analysis once its threads are known (on_threads):
 *                    the what-if knobs are checked against them first, and the set is then
 *                    written with the new calibration's --min-block
 *   3 build          simgen: simgen_build, the source kept beside the stub
 *   4 run recorded   record: dps_record_run of the stub with the calibration and the knobs
 *   5 compare        compare: compare_load of both runs, compare_run, the three writers
 *
 * Each step that runs prints "[k/n] what (its own duration)" when it ends (common/progress.h),
 * with a live line on a terminal while it runs.
 *
 * The simulated run is selected by the pid dps record saw (its record.info), never by name:
 * perf records the whole system, and other processes may share the stub's name.
 *
 * Every file goes into a temporary directory beside the output directory (common/atomic-out.h)
 * that replaces it whole once every step succeeded, so OUTDIR never mixes two replays. While
 * the steps run, the result's paths point into the temporary directory; they are switched to
 * OUTDIR (or to the kept temporary, after a failure) at the end. Paths that end up in the
 * outputs (the stub's source comment, the report's run names) are where the files will be once
 * the command has ended, relative to OUTDIR (an input given by an absolute path stays
 * absolute), so that a report names nothing that is gone and reads the same from anywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dps/dps.h>
#include <dps/knobs.h>
#include <glib.h>

#include "actset.h"
#include "analyzer.h"
#include "atomic-out.h"
#include "compare.h"
#include "machine-load.h"
#include "path.h"
#include "progress.h"
#include "replay.h"
#include "simgen.h"

#define REPLAY_STUB_NAME "dps-stub"
/* The file that marks a directory as dps replay's output, replaceable by the next replay. */
#define REPLAY_MARKER_NAME DPS_REPLAY_INFO_NAME

/* One replay under way. */
struct replay {
	const struct dps_replay_options *opts; /* borrowed */
	struct dps_replay_result *res;	       /* borrowed */
	struct dps_diag *diag;		       /* borrowed */
	const char *calibration;	       /* borrowed: res->calibration once made */
	struct dps_out_dir out;		       /* owned: OUTDIR and its temporary */
	int64_t root_tid;		       /* the edited set's original root, -1 */
	struct dps_steps steps;		       /* owned */
	bool build_begun;		       /* step 3 began inside the analysis */
	int64_t cal_min_block_ns;	       /* the measured calibration's --min-block */
	struct dps_quiet_wait wait;	       /* --wait-quiet */
};

void dps_replay_options_default(struct dps_replay_options *opts)
{
	*opts = (struct dps_replay_options){
	    .pid = -1,
	    .tid = -1,
	    .min_block_ns = -1,
	    .kernel = DPS_RECORD_KERNEL_AUTO,
	};
}

/* Whether dir is an earlier replay's output: its marker, or (before the marker) a set/. */
static bool is_replay_dir(const char *dir)
{
	char *marker = g_build_filename(dir, REPLAY_MARKER_NAME, NULL);
	char *manifest = g_build_filename(dir, "set", DPS_ACTSET_MANIFEST_NAME, NULL);
	bool ours = g_file_test(marker, G_FILE_TEST_IS_REGULAR) ||
		    g_file_test(manifest, G_FILE_TEST_IS_REGULAR);

	g_free(marker);
	g_free(manifest);
	return ours;
}

/* Points the result's paths into base (the temporary directory while the steps run). */
static void set_paths(struct dps_replay_result *r, const char *base)
{
	struct {
		char **path;
		const char *name;
	} const files[] = {
	    {&r->set, "set"},
	    {&r->stub, REPLAY_STUB_NAME},
	    {&r->stub_c, "stub.c"},
	    {&r->calibration, "calibration"},
	    {&r->sim_trace, "sim-trace"},
	    {&r->compare_txt, "compare.txt"},
	    {&r->compare_json, "compare.json"},
	    {&r->report, "report.html"},
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		g_free(*files[i].path);
		*files[i].path = g_build_filename(base, files[i].name, NULL);
	}
}

/* The output directory (./dps-replay-<trace name> by default, created with its parents): an
 * existing one must be empty, an earlier replay's output, or --force. The steps write into a
 * temporary directory beside it, marked as a replay's from the start. */
static enum dps_status make_outdir(struct replay *rp)
{
	struct dps_replay_result *r = rp->res;
	const char *trace = rp->opts->trace;
	unsigned flags = DPS_OUT_PARENTS | (rp->opts->force ? DPS_OUT_FORCE : 0);
	char *marker;
	FILE *f;
	enum dps_status st;

	if (rp->opts->outdir) {
		r->outdir = g_strdup(rp->opts->outdir);
	} else {
		char *base = g_path_get_basename(trace);

		r->outdir = g_strdup_printf("dps-replay-%s", base);
		g_free(base);
	}
	st = dps_out_dir_begin(&rp->out, r->outdir, is_replay_dir,
			       "an earlier dps replay's output (no " REPLAY_MARKER_NAME ")", flags,
			       rp->diag);
	if (st) {
		return st;
	}
	set_paths(r, rp->out.tmp);
	marker = g_build_filename(rp->out.tmp, REPLAY_MARKER_NAME, NULL);
	f = fopen(marker, "w");
	if (f) {
		fprintf(f,
			"# dps replay output: the next dps replay -o here replaces this directory "
			"whole\ntrace %s\n",
			trace);
	}
	st = f ? dps_out_close(f, marker, rp->diag) : DPS_ERR_IO;
	if (!f) {
		dps_diag_setf(rp->diag, "cannot create \"%s\": errno=%d (%s)", marker, errno,
			      strerror(errno));
	}
	g_free(marker);
	return st;
}

/* What the messages call the file name inside OUTDIR (g_free): its final path. */
static char *final_path(const struct replay *rp, const char *name)
{
	return g_build_filename(rp->res->outdir, name, NULL);
}

/* Where path will be once the command has ended: in OUTDIR rather than its temporary, and
 * where the caller moves it (moved_from, moved_to). g_free. */
static char *final_location(const struct replay *rp, const char *path)
{
	char *in_outdir = dps_path_moved(path, rp->out.tmp, rp->res->outdir);
	char *moved = dps_path_moved(in_outdir, rp->opts->moved_from, rp->opts->moved_to);

	g_free(in_outdir);
	return moved;
}

/* How OUTDIR's files name an input (the trace, --set, --calibration): where it will be,
 * relative to OUTDIR; given absolute, absolute. g_free. */
static char *input_label(const struct replay *rp, const char *path)
{
	char *where = final_location(rp, path), *outdir, *rel;

	if (g_path_is_absolute(path)) {
		return where;
	}
	outdir = final_location(rp, rp->res->outdir);
	rel = dps_path_relative(outdir, where);
	g_free(outdir);
	g_free(where);
	return rel;
}

/* Copies the file from into to (in the temporary directory), synced. */
static enum dps_status copy_file(const char *from, const char *to, struct dps_diag *diag)
{
	GError *error = NULL;
	gchar *text = NULL;
	gsize len = 0;
	FILE *f;

	if (!g_file_get_contents(from, &text, &len, &error)) {
		dps_diag_setf(diag, "cannot read \"%s\": %s", from, error->message);
		g_error_free(error);
		return DPS_ERR_IO;
	}
	f = fopen(to, "w");
	if (!f) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", to, errno,
			      strerror(errno));
		g_free(text);
		return DPS_ERR_IO;
	}
	fwrite(text, 1, len, f);
	g_free(text);
	return dps_out_close(f, to, diag) ? DPS_ERR_IO : DPS_OK;
}

/* Copies the given set's files (manifest and .act, byte for byte: the user's comments stay)
 * into to, so OUTDIR holds everything the replay used, and a set inside OUTDIR survives its
 * replacement. */
static enum dps_status copy_set(const char *from, const char *to, struct dps_diag *diag)
{
	GDir *dir = g_dir_open(from, 0, NULL);
	enum dps_status st = DPS_OK;
	const char *name;

	if (!dir || mkdir(to, 0777)) {
		dps_diag_setf(diag, "cannot copy the set \"%s\" to \"%s\": errno=%d (%s)", from, to,
			      errno, strerror(errno));
		if (dir) {
			g_dir_close(dir);
		}
		return DPS_ERR_IO;
	}
	while (!st && (name = g_dir_read_name(dir))) {
		char *src = g_build_filename(from, name, NULL);
		char *dst = g_build_filename(to, name, NULL);

		if ((g_str_has_suffix(name, ".act") || !strcmp(name, DPS_ACTSET_MANIFEST_NAME)) &&
		    g_file_test(src, G_FILE_TEST_IS_REGULAR)) {
			st = copy_file(src, dst, diag);
		}
		g_free(src);
		g_free(dst);
	}
	g_dir_close(dir);
	return st;
}

/* The given calibration: a copy in OUTDIR, used from there (the given file may be in the
 * OUTDIR this replay replaces: --calibration out/calibration -o out). */
static enum dps_status use_given_calibration(struct replay *rp)
{
	rp->calibration = rp->res->calibration;
	return copy_file(rp->opts->calibration, rp->res->calibration, rp->diag);
}

/* 2. The calibration measured, shared by the analysis (--min-block default) and the stub. */
static enum dps_status calibrate(struct replay *rp)
{
	struct dps_calibration cal;
	struct dps_load_sample before, after;
	struct dps_load load;
	uint64_t cpu0;
	char err[512];
	enum dps_status st;

	/* --wait-quiet's wait is no part of a step: it says so itself */
	dps_steps_end(&rp->steps);
	dps_load_wait_quiet(&rp->wait, "calibrating", stderr, NULL);
	dps_steps_begin(&rp->steps, true, "calibrating this machine");
	before = dps_load_sample_take();
	cpu0 = dps_load_self_cpu_ns();
	st = dps_calibration_measure(&cal, false);
	after = dps_load_sample_take();
	load = dps_load_between(&before, &after, dps_load_self_cpu_ns() - cpu0);
	if (!st) {
		st = dps_calibration_save(&cal, rp->res->calibration, err, sizeof(err));
		if (st) {
			dps_diag_setf(rp->diag, "calibration: %s", err);
		}
	} else {
		dps_diag_setf(rp->diag, "calibration failed: %s", dps_status_string(st));
	}
	if (st) {
		dps_steps_abort(&rp->steps);
		return DPS_ERROR;
	}
	dps_steps_end(&rp->steps);
	rp->cal_min_block_ns = (int64_t)cal.min_block_ns;
	if (!rp->opts->quiet) {
		char *shown = final_path(rp, "calibration");

		fprintf(stderr, "dps replay: %.3f loops/us (spread %.2f %%), wrote %s\n",
			cal.work_loops_per_us, cal.work_spread_pct, shown);
		g_free(shown);
	}
	dps_load_warn_calibration(stderr, "dps replay", cal.work_spread_pct, &load);
	rp->calibration = rp->res->calibration;
	return DPS_OK;
}

/* The original's selection, as analyze and compare take it. */
static void original_selection(const struct replay *rp, struct analyzer_options *a)
{
	const struct dps_replay_options *o = rp->opts;

	analyzer_options_default(a);
	a->pid = o->pid;
	a->tid = o->tid;
	a->comm = o->comm;
	if (a->pid < 0 && a->tid < 0 && !a->comm && rp->root_tid >= 0) {
		a->tid = rp->root_tid; /* an edited set's manifest names the original root */
	} else if (a->pid < 0 && a->tid < 0 && !a->comm) {
		dps_record_info_pid(o->trace, &a->pid);
	}
	a->follow_children = o->follow_children;
	a->strict = o->strict;
	a->min_block_ns = o->min_block_ns;
	a->calibration_path = rp->calibration;
	a->progress = o->progress;
}

/*
 * The stub's knobs, checked as the stub checks them (dps_knobs_check) so the replay refuses
 * what the stub would refuse, before it is built and run: against the n thread ids of the set
 * to be (of a given set, or of the analysis's threads) in ids; before (ids NULL), only their
 * values. DPS_ERR_INVAL when the stub would say no (diag says why).
 */
static enum dps_status check_knobs(struct replay *rp, const uint64_t *ids, size_t n)
{
	GArray *threads = g_array_new(FALSE, TRUE, sizeof(struct dps_thread_desc));
	struct dps_program prog = {0};
	enum dps_status st = DPS_OK;
	char err[256];

	for (size_t t = 0; ids && t < n; t++) {
		struct dps_thread_desc d = {.id = ids[t]};

		g_array_append_val(threads, d);
	}
	prog.threads = (const struct dps_thread_desc *)threads->data;
	prog.n_threads = threads->len;
	if (rp->opts->knobs &&
	    dps_knobs_check(rp->opts->knobs, ids ? &prog : NULL, err, sizeof(err))) {
		dps_diag_setf(rp->diag, "a what-if option is not valid for %s: %s",
			      ids ? "this action set" : "a stub", err);
		st = DPS_ERR_INVAL;
	}
	g_array_free(threads, TRUE);
	return st;
}

/* The knobs dps replay passes on to the stub (knobs.def's DPS_KNOB_REPLAY ones) whose flags
 * include all of all_of, as its arguments (dps_knobs_argv_free); NULL when none. */
static char **stub_knobs(const struct replay *rp, unsigned all_of)
{
	if (!rp->opts->knobs) {
		return NULL;
	}
	return dps_knobs_to_argv(rp->opts->knobs, DPS_KNOB_REPLAY | all_of, NULL);
}

/* The user's (edited) set instead of an analysis: read, checked, copied into OUTDIR. */
static enum dps_status use_given_set(struct replay *rp)
{
	const struct dps_replay_options *o = rp->opts;
	struct dps_actset *set = NULL;
	uint64_t *ids;
	enum dps_status st;

	st = dps_actset_load_dir(o->set, &set, rp->diag);
	if (st) {
		return st;
	}
	/* Built from a copy in OUTDIR: the given set may be inside the OUTDIR this
	 * replay replaces (--set out/set -o out). */
	st = copy_set(o->set, rp->res->set, rp->diag);
	if (st) {
		dps_actset_destroy(set);
		return st;
	}
	rp->root_tid = set->threads[set->root].tid;
	ids = g_new0(uint64_t, set->n_threads + 1);
	for (size_t t = 0; t < set->n_threads; t++) {
		ids[t] = set->threads[t].id;
	}
	st = check_knobs(rp, ids, set->n_threads);
	g_free(ids);
	dps_actset_destroy(set);
	if (st) {
		return st;
	}
	if (o->pid < 0 && o->tid < 0 && !o->comm && rp->root_tid < 0) {
		dps_diag_setf(rp->diag,
			      "%s has no manifest naming the original root's tid; select the "
			      "original process with --pid, --tid or --comm",
			      o->set);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

/*
 * Inside the analysis, once the selection's threads are known (analyzer_options.on_threads):
 * the knobs against their ids, then the calibration when this replay measures it, its
 * --min-block for the set unless one was given.
 */
static enum dps_status on_threads(void *arg, const struct analyzer_result *res,
				  int64_t *min_block_ns, struct dps_diag *diag)
{
	struct replay *rp = arg;
	uint64_t *ids = g_new0(uint64_t, res->n_threads + 1);
	enum dps_status st;

	(void)diag; /* rp->diag, the analysis's */
	for (size_t t = 0; t < res->n_threads; t++) {
		ids[t] = res->threads[t].id;
	}
	st = check_knobs(rp, ids, res->n_threads);
	g_free(ids);
	if (st || rp->opts->calibration) {
		return st;
	}
	dps_steps_end(&rp->steps);
	st = calibrate(rp);
	if (st) {
		return st;
	}
	if (*min_block_ns < 0) {
		*min_block_ns = rp->cal_min_block_ns;
	}
	/* what is left of the analysis, writing the set, is part of making the stub */
	dps_steps_begin(&rp->steps, true, "generating and building the stub");
	rp->build_begun = true;
	return DPS_OK;
}

/* 1. The action set: the analysis of the trace. */
static enum dps_status analyze(struct replay *rp)
{
	const struct dps_replay_options *o = rp->opts;
	struct analyzer_result *res = NULL;
	struct analyzer_options a;
	enum dps_status st;

	dps_steps_begin(&rp->steps, false, "analyzing the original trace");
	original_selection(rp, &a);
	a.traces = &o->trace;
	a.n_traces = 1;
	a.out_dir = rp->res->set;
	a.keep_timelines = false;
	a.on_threads = on_threads;
	a.on_threads_arg = rp;
	if (a.pid < 0 && a.tid < 0 && !a.comm) {
		dps_diag_setf(rp->diag, "no selection: which process of %s should be replayed?",
			      o->trace);
		return DPS_ERR_INVAL;
	}
	st = analyzer_run(&a, &res, rp->diag);
	if (!st && res->partial) {
		dps_steps_clear(&rp->steps);
		fprintf(stderr, "dps replay: warning: the trace is incomplete (%s)\n",
			res->partial_reason ? res->partial_reason : "events lost");
	}
	analyzer_result_destroy(res);
	return st;
}

/* 3. The stub, built from the set on disk (what the user would edit), its C kept. */
static enum dps_status build(struct replay *rp)
{
	char *label = rp->opts->set ? input_label(rp, rp->opts->set) : g_strdup("set");
	struct simgen_build_options b = {.keep_source = rp->res->stub_c};
	struct simgen_options g = {.source_label = label};
	struct dps_actset *set = NULL;
	enum dps_status st;

	if (!rp->build_begun) {
		dps_steps_begin(&rp->steps, true, "generating and building the stub");
	}
	/* the knobs were checked against the set's threads when it was read or analyzed */
	st = dps_actset_load_dir(rp->res->set, &set, rp->diag);
	if (st) {
		goto end;
	}
	if (simgen_build(set, &g, &b, rp->res->stub, rp->diag)) {
		st = DPS_ERROR;
	}
end:
	dps_actset_destroy(set);
	g_free(label);
	return st;
}

/* 4. The stub, run recorded the way dps record records: its failure is the replay's. */
static enum dps_status run_stub(struct replay *rp)
{
	const struct dps_replay_options *o = rp->opts;
	GPtrArray *cmd = g_ptr_array_new();
	char **knobs = stub_knobs(rp, 0);
	struct dps_record_options ro;
	struct dps_record_result rr = {0};
	struct dps_diag clocks = {{0}};
	enum dps_status st;

	/* --wait-quiet's wait is no part of a step: it says so itself */
	dps_steps_end(&rp->steps);
	dps_load_wait_quiet(&rp->wait, "recording the stub", stderr, NULL);
	dps_steps_begin(&rp->steps, true, "running the stub under dps record");
	g_ptr_array_add(cmd, rp->res->stub);
	g_ptr_array_add(cmd, (gpointer) "--calibration");
	g_ptr_array_add(cmd, (gpointer)rp->calibration);
	if (!o->verbose) {
		/* its per-thread table: the comparison's says it better */
		g_ptr_array_add(cmd, (gpointer) "--no-summary");
	}
	if (o->mode) {
		g_ptr_array_add(cmd, (gpointer) "--mode");
		g_ptr_array_add(cmd, (gpointer)o->mode);
	}
	/* the knobs as the stub takes them, made into arguments only here */
	for (size_t i = 0; knobs && knobs[i]; i++) {
		g_ptr_array_add(cmd, knobs[i]);
	}
	g_ptr_array_add(cmd, NULL);
	dps_record_options_default(&ro);
	ro.out = rp->res->sim_trace;
	ro.kernel = o->kernel;
	ro.quiet = o->quiet || !o->verbose;
	ro.no_load_note = true; /* the comparison says it, next to its headline */
	ro.cmd = (char *const *)cmd->pdata;
	st = analyzer_record(&ro, &rr, rp->diag, &clocks);
	if (!st && !(WIFEXITED(rr.wait_status) && WEXITSTATUS(rr.wait_status) == 0)) {
		dps_diag_setf(rp->diag,
			      "the stub failed (%s %d): its messages are above; the recording is "
			      "in %s",
			      WIFEXITED(rr.wait_status) ? "exit status" : "signal",
			      WIFEXITED(rr.wait_status) ? WEXITSTATUS(rr.wait_status)
							: WTERMSIG(rr.wait_status),
			      rp->res->sim_trace);
		st = DPS_ERROR;
	}
	if (!st && clocks.msg[0]) {
		dps_steps_clear(&rp->steps);
		fprintf(stderr,
			"dps replay: warning: the simulated run's kernel and UST parts keep "
			"separate clocks: %s\n",
			clocks.msg);
	}
	dps_record_result_fini(&rr);
	g_ptr_array_free(cmd, TRUE);
	dps_knobs_argv_free(knobs);
	return st;
}

/* Writes one output of the comparison to path (in the temporary directory), synced. */
static enum dps_status write_output(struct replay *rp, const struct compare_result *cmp,
				    const char *path, char kind)
{
	struct compare_html_options ho = {.title = cmp->side[0].label};
	enum dps_status st;
	FILE *f = fopen(path, "w");

	if (!f) {
		dps_diag_setf(rp->diag, "cannot create \"%s\": errno=%d (%s)", path, errno,
			      strerror(errno));
		return DPS_ERR_IO;
	}
	st = kind == 'h'   ? compare_write_html(cmp, &ho, f)
	     : kind == 'j' ? compare_write_json(cmp, f)
			   : compare_write_text(cmp, f, false);
	if (dps_out_close(f, path, rp->diag) || st) {
		if (st) {
			dps_diag_setf(rp->diag, "writing \"%s\" failed", path);
		}
		return DPS_ERR_IO;
	}
	return DPS_OK;
}

/* The what-if knobs as the outputs record them (name, value pairs into knobs, g_free): the
 * stub's knobs given, and the defaults of the ones not given, so that a report says the whole
 * of what the stub was asked to do. */
static void collect_knobs(const struct replay *rp, GPtrArray *knobs, const char *set_label)
{
	const struct dps_replay_options *o = rp->opts;
	char **k = stub_knobs(rp, 0);
	uint32_t given = o->knobs ? o->knobs->given : 0;

	for (size_t i = 0; k && k[i]; i++) {
		int id = dps_knobs_find(k[i]);

		g_ptr_array_add(knobs, g_strdup(k[i]));
		if (id >= 0 && dps_knobs_table[id].shape == DPS_KNOB_SHAPE_FLAG) {
			g_ptr_array_add(knobs, g_strdup("on"));
		} else {
			g_ptr_array_add(knobs, g_strdup(k[++i]));
		}
	}
	dps_knobs_argv_free(k);
	for (int id = 0; id < DPS_KNOB_COUNT; id++) {
		const struct dps_knob_info *info = &dps_knobs_table[id];

		if ((info->flags & DPS_KNOB_REPLAY) && info->deflt && !(given & (1u << id))) {
			g_ptr_array_add(knobs, g_strdup_printf("--%s", info->name));
			g_ptr_array_add(knobs, g_strdup(info->deflt));
		}
	}
	g_ptr_array_add(knobs, g_strdup("--mode"));
	g_ptr_array_add(knobs, g_strdup(o->mode ? o->mode : "the stub's default"));
	g_ptr_array_add(knobs, g_strdup("--set"));
	g_ptr_array_add(knobs, g_strdup(set_label ? set_label : "analyzed from the trace"));
}

/* Whether a knob's value changes nothing: a scale of 1 ("1", "ID=1"). */
static bool knob_is_identity(const char *name, const char *value)
{
	int id = dps_knobs_find(name);
	const char *v = strchr(value, '=');
	char *end;
	double x;

	if (id < 0 || (dps_knobs_table[id].shape != DPS_KNOB_SHAPE_SCALE &&
		       dps_knobs_table[id].shape != DPS_KNOB_SHAPE_THREAD_SCALE)) {
		return false;
	}
	v = v ? v + 1 : value;
	x = g_ascii_strtod(v, &end);
	return end != v && !*end && x == 1.0;
}

/* The what-if knobs given ("--thread-scale 2=0.5"; knobs.def's DPS_KNOB_WHATIF ones), what a
 * replay changes on purpose when the caller names no change; NULL without one, or when every
 * one is a scale of 1 (a faithful replay). g_free. */
static char *knobs_change(const struct replay *rp)
{
	char **k = stub_knobs(rp, DPS_KNOB_WHATIF);
	GString *t = g_string_new(NULL);

	for (size_t i = 0; k && k[i]; i++) {
		int id = dps_knobs_find(k[i]);
		const char *value = NULL;

		if (id >= 0 && dps_knobs_table[id].shape != DPS_KNOB_SHAPE_FLAG) {
			value = k[++i];
		}
		if (!value) {
			g_string_append_printf(t, "%s%s", t->len ? " " : "", k[i]);
		} else if (!knob_is_identity(k[i - 1], value)) {
			g_string_append_printf(t, "%s%s %s", t->len ? " " : "", k[i - 1], value);
		}
	}
	dps_knobs_argv_free(k);
	return g_string_free(t, !t->len);
}

/* 5. The comparison, once, into the table, the JSON and the report. */
static enum dps_status compare(struct replay *rp)
{
	struct compare_run_info run = {.command = "replay"};
	GPtrArray *knobs = g_ptr_array_new_with_free_func(g_free);
	char *cal_source = NULL;
	struct dps_calibration cal;
	char calerr[256];
	struct analyzer_result *models[2] = {NULL, NULL};
	enum compare_input_kind kinds[2];
	struct analyzer_options sel[2];
	struct compare_result *cmp = NULL;
	struct compare_options co;
	const char *paths[2] = {rp->opts->trace, rp->res->sim_trace};
	char *orig_label = input_label(rp, rp->opts->trace);
	char *set_label = rp->opts->set ? input_label(rp, rp->opts->set) : NULL;
	char *cal_given = rp->opts->calibration ? input_label(rp, rp->opts->calibration) : NULL;
	char *change = rp->opts->change ? g_strdup(rp->opts->change) : knobs_change(rp);
	enum dps_status st = DPS_OK;

	dps_steps_begin(&rp->steps, true, "comparing the original and the simulated run");
	original_selection(rp, &sel[0]);
	sel[0].progress = false; /* the step's live line */
	analyzer_options_default(&sel[1]);
	sel[1].follow_children = rp->opts->follow_children;
	sel[1].min_block_ns = rp->opts->min_block_ns;
	sel[1].calibration_path = rp->calibration;
	for (int s = 0; s < 2 && !st; s++) {
		st = compare_load(paths[s], &sel[s], &models[s], &kinds[s], rp->diag);
		if (st) {
			char *msg = g_strdup(rp->diag->msg);

			dps_diag_setf(rp->diag, "%s: %s",
				      s ? "the simulated run" : "the original run", msg);
			g_free(msg);
		}
	}
	if (!st) {
		/* the labels are the outputs' names; the traces' record.info is read where they
		 * are now */
		compare_options_default(&co);
		co.trace_dir[COMPARE_ORIG] = paths[0];
		co.trace_dir[COMPARE_SIM] = paths[1];
		st = compare_run(models[0], kinds[0], orig_label, models[1], kinds[1], "sim-trace",
				 &co, &cmp, rp->diag);
	}
	if (!st) {
		collect_knobs(rp, knobs, set_label);
		run.args = rp->opts->args;
		run.n_args = rp->opts->n_args;
		run.calibration = "calibration";
		cal_source = cal_given ? g_strdup_printf("a copy of --calibration %s", cal_given)
				       : g_strdup("measured by this replay");
		run.calibration_source = cal_source;
		if (!dps_calibration_load(rp->calibration, &cal, calerr, sizeof(calerr))) {
			run.cal = &cal;
		}
		run.sel[0] = &sel[0];
		run.sel[1] = &sel[1];
		run.knobs = (const char *const *)knobs->pdata;
		run.n_knobs = knobs->len / 2;
		run.change = change;
		cmp->run = &run;
		rp->res->fidelity_err_pct = cmp->fidelity_err_pct;
		st = write_output(rp, cmp, rp->res->compare_txt, 't');
	}
	if (!st) {
		st = write_output(rp, cmp, rp->res->compare_json, 'j');
	}
	if (!st) {
		st = write_output(rp, cmp, rp->res->report, 'h');
	}
	compare_result_destroy(cmp);
	analyzer_result_destroy(models[0]);
	analyzer_result_destroy(models[1]);
	g_free(orig_label);
	g_free(set_label);
	g_free(cal_given);
	g_free(change);
	g_free(cal_source);
	g_ptr_array_free(knobs, TRUE);
	return st;
}

/* Replaces every from by to in the file at path (best effort: a label, not data). */
static void replace_in_file(const char *path, const char *from, const char *to)
{
	gchar *text = NULL;
	gchar **parts;
	gchar *joined;

	if (!g_file_get_contents(path, &text, NULL, NULL)) {
		return;
	}
	parts = g_strsplit(text, from, -1);
	joined = g_strjoinv(to, parts);
	if (strcmp(joined, text)) {
		(void)g_file_set_contents(path, joined, -1, NULL);
	}
	g_strfreev(parts);
	g_free(joined);
	g_free(text);
}

/* dir as an absolute path, for a directory that may not exist yet: its parent resolved
 * (g_free; NULL when the parent is not there either). */
static char *absolute_dir(const char *dir)
{
	char *parent = g_path_get_dirname(dir), *base = g_path_get_basename(dir);
	char *abs_parent = realpath(parent, NULL);
	char *abs = abs_parent ? g_build_filename(abs_parent, base, NULL) : NULL;

	free(abs_parent);
	g_free(parent);
	g_free(base);
	return abs;
}

/* Replaces from by to in the file at path, from's absolute form by to's first. */
static void relabel_file(const char *path, const char *from, const char *to)
{
	char *abs_from = absolute_dir(from), *abs_to = absolute_dir(to);

	if (abs_from && abs_to) {
		replace_in_file(path, abs_from, abs_to);
	}
	replace_in_file(path, from, to);
	g_free(abs_from);
	g_free(abs_to);
}

/* record.info and perf's log name the stub, its calibration and the trace where they were
 * made, in the temporary directory: name them where they will be, in OUTDIR, and where the
 * caller moves it. */
static void relabel_record_info(const struct replay *rp)
{
	static const char *const names[] = {"record.info", "perf.log"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = g_build_filename(rp->res->sim_trace, names[i], NULL);

		relabel_file(path, rp->out.tmp, rp->res->outdir);
		if (rp->opts->moved_from && rp->opts->moved_to) {
			relabel_file(path, rp->opts->moved_from, rp->opts->moved_to);
		}
		g_free(path);
	}
}

/* The end: on success the temporary directory replaces OUTDIR whole. After bad input nothing
 * is kept; after a failed step the files written so far stay in the temporary directory,
 * named in the message, to inspect (OUTDIR unchanged either way). */
static enum dps_status finish_outdir(struct replay *rp, enum dps_status st)
{
	if (!rp->out.tmp) {
		return st;
	}
	if (!st) {
		relabel_record_info(rp);
		st = dps_out_dir_commit(&rp->out, rp->diag);
		set_paths(rp->res, rp->res->outdir);
	} else if (st == DPS_ERR_INVAL || st == DPS_ERR_NOENT) {
		dps_out_dir_abort(&rp->out);
	} else {
		char *kept = dps_out_dir_keep(&rp->out);
		char *msg = g_strdup(rp->diag->msg);

		dps_diag_setf(rp->diag,
			      "%s\n(%s is unchanged; this run's files are in %s, %.1f MiB: delete "
			      "it when done)",
			      msg, rp->res->outdir, kept,
			      (double)dps_out_tree_bytes(kept) / (1024.0 * 1024.0));
		set_paths(rp->res, kept);
		g_free(msg);
		free(kept);
	}
	return st;
}

/* The paths given, before anything is made: each names what is missing. */
static enum dps_status check_paths(const struct dps_replay_options *o, struct dps_diag *diag)
{
	struct dps_calibration cal;
	char err[512] = "";

	if (!g_file_test(o->trace, G_FILE_TEST_EXISTS)) {
		dps_diag_setf(diag, "%s: no such trace directory", o->trace);
		return DPS_ERR_INVAL;
	}
	if (!g_file_test(o->trace, G_FILE_TEST_IS_DIR)) {
		dps_diag_setf(diag, "%s: not a directory (a trace)", o->trace);
		return DPS_ERR_INVAL;
	}
	if (o->set && !g_file_test(o->set, G_FILE_TEST_IS_DIR)) {
		dps_diag_setf(diag, "--set %s: no such action set directory", o->set);
		return DPS_ERR_INVAL;
	}
	if (o->calibration && !g_file_test(o->calibration, G_FILE_TEST_IS_REGULAR)) {
		dps_diag_setf(diag, "--calibration %s: no such file", o->calibration);
		return DPS_ERR_INVAL;
	}
	/* what the stub would refuse at its run, refused now */
	if (o->calibration && dps_calibration_load(o->calibration, &cal, err, sizeof(err))) {
		dps_diag_setf(diag, "--calibration: %s", err);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

enum dps_status dps_replay_run(const struct dps_replay_options *opts,
			       struct dps_replay_result *result, struct dps_diag *diag)
{
	struct replay rp = {
	    .opts = opts,
	    .res = result,
	    .diag = diag,
	    .root_tid = -1,
	    .wait = {.max_s = opts->wait_quiet_s, .who = "dps replay", .quiet = opts->quiet}};
	enum dps_status st;

	*result = (struct dps_replay_result){0};
	dps_diag_clear(diag);
	if (opts->mode) {
		enum dps_run_mode m;

		if (dps_run_mode_parse(opts->mode, &m)) {
			dps_diag_setf(diag, "--mode: expected work, cpu or wall, got '%s'",
				      opts->mode);
			return DPS_ERR_INVAL;
		}
	}
	st = check_knobs(&rp, NULL, 0);
	st = st ? st : check_paths(opts, diag);
	if (st) {
		return st;
	}
	/* A trace not made by dps record needs a selection: said before any work. */
	if (!opts->set && opts->pid < 0 && opts->tid < 0 && !opts->comm) {
		int64_t pid;

		st = dps_record_info_read(opts->trace, &pid, diag);
		if (st == DPS_ERR_NOENT) {
			dps_diag_setf(diag, "no selection: which process of %s should be replayed?",
				      opts->trace);
			return DPS_ERR_INVAL;
		}
		if (st) {
			return st;
		}
	}
	/* the steps: the analysis, the calibration, the stub built, run and compared */
	dps_steps_init(&rp.steps, 3 + !opts->set + !opts->calibration, opts->quiet, opts->progress);
	st = make_outdir(&rp);
	if (!st && opts->calibration) {
		st = use_given_calibration(&rp);
	}
	if (opts->set) {
		st = st ? st : use_given_set(&rp);
		if (!st && !opts->calibration) {
			st = calibrate(&rp);
		}
	} else {
		st = st ? st : analyze(&rp); /* calibrates inside */
	}
	st = st ? st : build(&rp);
	st = st ? st : run_stub(&rp);
	st = st ? st : compare(&rp);
	if (!st) {
		dps_steps_end(&rp.steps);
	}
	dps_steps_fini(&rp.steps);
	st = finish_outdir(&rp, st);
	result->wait_gave_up = rp.wait.gave_up;
	return st;
}

void dps_replay_result_fini(struct dps_replay_result *r)
{
	if (!r) {
		return;
	}
	g_free(r->outdir);
	g_free(r->set);
	g_free(r->stub);
	g_free(r->stub_c);
	g_free(r->calibration);
	g_free(r->sim_trace);
	g_free(r->compare_txt);
	g_free(r->compare_json);
	g_free(r->report);
	*r = (struct dps_replay_result){0};
}
