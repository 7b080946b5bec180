/* SPDX-License-Identifier: MIT */
/*
 * dps replay's pipeline (replay.h). Steps, each through its library's C API:
 *
 *   1 calibrate      runtime: dps_calibration_measure + save (skipped with a calibration)
 *   2 analyze        analyzer: analyzer_run + dps_actset_write_dir (skipped with a set)
 *   3 build          simgen: simgen_build, the source kept beside the stub
 *   4 run recorded   record: dps_record_run of the stub with the calibration and the knobs
 *   5 compare        compare: compare_load of both runs, compare_run, the three writers
 *
 * The simulated run is selected by the pid dps record saw (its record.info), never by name:
 * perf records the whole system, and other processes may share the stub's name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <dps/dps.h>
#include <glib.h>

#include "actset.h"
#include "analyzer.h"
#include "compare.h"
#include "replay.h"
#include "simgen.h"

#define REPLAY_STUB_NAME "dps-stub"

/* One replay under way. */
struct replay {
	const struct dps_replay_options *opts; /* borrowed */
	struct dps_replay_result *res;	       /* borrowed */
	struct dps_diag *diag;		       /* borrowed */
	const char *calibration;	       /* borrowed: the option's or res->calibration */
	int64_t root_tid;		       /* the edited set's original root, -1 */
	double t0;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void banner(const struct replay *rp, int step, const char *what)
{
	if (!rp->opts->quiet) {
		fprintf(stderr, "\n[%d/6] %s (%.1f s)\n", step, what, now_s() - rp->t0);
	}
}

void dps_replay_options_default(struct dps_replay_options *opts)
{
	*opts = (struct dps_replay_options){
	    .pid = -1,
	    .tid = -1,
	    .min_block_ns = -1,
	    .kernel = DPS_RECORD_KERNEL_AUTO,
	};
}

/* The output directory (./dps-replay-<trace name> by default, created with its parents) and
 * the paths inside it. */
static enum dps_status make_outdir(struct replay *rp)
{
	struct dps_replay_result *r = rp->res;
	const char *trace = rp->opts->trace;
	if (rp->opts->outdir) {
		r->outdir = g_strdup(rp->opts->outdir);
	} else {
		char *base = g_path_get_basename(trace);

		r->outdir = g_strdup_printf("dps-replay-%s", base);
		g_free(base);
	}
	if (g_mkdir_with_parents(r->outdir, 0777)) {
		dps_diag_setf(rp->diag, "cannot create %s: %s", r->outdir, strerror(errno));
		return DPS_ERR_IO;
	}
	r->set = g_build_filename(r->outdir, "set", NULL);
	r->stub = g_build_filename(r->outdir, REPLAY_STUB_NAME, NULL);
	r->stub_c = g_build_filename(r->outdir, "stub.c", NULL);
	r->calibration = g_build_filename(r->outdir, "calibration", NULL);
	r->sim_trace = g_build_filename(r->outdir, "sim-trace", NULL);
	r->compare_txt = g_build_filename(r->outdir, "compare.txt", NULL);
	r->compare_json = g_build_filename(r->outdir, "compare.json", NULL);
	r->report = g_build_filename(r->outdir, "report.html", NULL);
	return DPS_OK;
}

/* 1. The calibration, shared by the analysis (--min-block default) and the stub. */
static enum dps_status calibrate(struct replay *rp)
{
	struct dps_calibration cal;
	char err[512];
	enum dps_status st;

	if (rp->opts->calibration) {
		banner(rp, 1, "using the given calibration");
		rp->calibration = rp->opts->calibration;
		return DPS_OK;
	}
	banner(rp, 1, "calibrating this machine");
	st = dps_calibration_measure(&cal, false);
	if (!st) {
		st = dps_calibration_save(&cal, rp->res->calibration, err, sizeof(err));
		if (st) {
			dps_diag_setf(rp->diag, "calibration: %s", err);
		}
	} else {
		dps_diag_setf(rp->diag, "calibration failed: %s", dps_status_string(st));
	}
	if (!st && !rp->opts->quiet) {
		fprintf(stderr, "dps replay: %.3f loops/us (spread %.2f %%), wrote %s\n",
			cal.work_loops_per_us, cal.work_spread_pct, rp->res->calibration);
	}
	rp->calibration = rp->res->calibration;
	return st ? DPS_ERROR : DPS_OK;
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
	a->progress = !o->quiet;
}

/* 2. The action set: the analysis of the trace, or the user's (edited) set. */
static enum dps_status analyze(struct replay *rp)
{
	const struct dps_replay_options *o = rp->opts;
	struct analyzer_result *res = NULL;
	struct analyzer_options a;
	enum dps_status st;

	if (o->set) {
		struct dps_actset *set = NULL;

		banner(rp, 2, "using the given action set");
		g_free(rp->res->set);
		rp->res->set = g_strdup(o->set);
		st = dps_actset_load_dir(o->set, &set, rp->diag);
		if (st) {
			return st;
		}
		rp->root_tid = set->threads[set->root].tid;
		dps_actset_destroy(set);
		if (o->pid < 0 && o->tid < 0 && !o->comm && rp->root_tid < 0) {
			dps_diag_setf(
			    rp->diag,
			    "%s has no manifest naming the original root's tid; select the "
			    "original process with --pid, --tid or --comm",
			    o->set);
			return DPS_ERR_INVAL;
		}
		return DPS_OK;
	}
	banner(rp, 2, "analyzing the original trace");
	original_selection(rp, &a);
	a.traces = &o->trace;
	a.n_traces = 1;
	a.build_actset = true;
	if (a.pid < 0 && a.tid < 0 && !a.comm) {
		dps_diag_setf(rp->diag, "no selection: which process of %s should be replayed?",
			      o->trace);
		return DPS_ERR_INVAL;
	}
	st = analyzer_run(&a, &res, rp->diag);
	if (!st && res->partial) {
		fprintf(stderr, "dps replay: warning: the trace is incomplete (%s)\n",
			res->partial_reason ? res->partial_reason : "events lost");
	}
	if (!st) {
		st = dps_actset_write_dir(res->actset, rp->res->set, rp->diag);
	}
	analyzer_result_destroy(res);
	return st;
}

/* 3. The stub, built from the set on disk (what the user would edit), its C kept. */
static enum dps_status build(struct replay *rp)
{
	struct simgen_build_options b = {.keep_source = rp->res->stub_c};
	struct simgen_options g = {.source_label = rp->res->set};
	struct dps_actset *set = NULL;
	enum dps_status st;

	banner(rp, 3, "generating and building the stub");
	st = dps_actset_load_dir(rp->res->set, &set, rp->diag);
	if (st) {
		return st;
	}
	if (simgen_build(set, &g, &b, rp->res->stub, rp->diag)) {
		st = DPS_ERROR;
	}
	dps_actset_destroy(set);
	return st;
}

/* 4. The stub, run recorded the way dps record records: its failure is the replay's. */
static enum dps_status run_stub(struct replay *rp)
{
	const struct dps_replay_options *o = rp->opts;
	GPtrArray *cmd = g_ptr_array_new();
	struct dps_record_options ro;
	struct dps_record_result rr = {0};
	enum dps_status st;

	banner(rp, 4, "running the stub under dps record");
	g_ptr_array_add(cmd, rp->res->stub);
	g_ptr_array_add(cmd, (gpointer) "--calibration");
	g_ptr_array_add(cmd, (gpointer)rp->calibration);
	if (o->mode) {
		g_ptr_array_add(cmd, (gpointer) "--mode");
		g_ptr_array_add(cmd, (gpointer)o->mode);
	}
	for (size_t i = 0; o->stub_args && o->stub_args[i]; i++) {
		g_ptr_array_add(cmd, (gpointer)o->stub_args[i]);
	}
	g_ptr_array_add(cmd, NULL);
	dps_record_options_default(&ro);
	ro.out = rp->res->sim_trace;
	ro.kernel = o->kernel;
	ro.quiet = o->quiet;
	ro.cmd = (char *const *)cmd->pdata;
	st = dps_record_run(&ro, &rr, rp->diag);
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
	dps_record_result_fini(&rr);
	g_ptr_array_free(cmd, TRUE);
	return st;
}

/* Writes one output of the comparison to path. */
static enum dps_status write_output(struct replay *rp, const struct compare_result *cmp,
				    const char *path, char kind)
{
	struct compare_html_options ho = {.title = rp->opts->trace};
	enum dps_status st;
	FILE *f = fopen(path, "w");

	if (!f) {
		dps_diag_setf(rp->diag, "cannot create %s: %s", path, strerror(errno));
		return DPS_ERR_IO;
	}
	st = kind == 'h'   ? compare_write_html(cmp, &ho, f)
	     : kind == 'j' ? compare_write_json(cmp, f)
			   : compare_write_text(cmp, f, false);
	if (fclose(f) || st) {
		dps_diag_setf(rp->diag, "writing %s failed", path);
		return DPS_ERR_IO;
	}
	return DPS_OK;
}

/* 5. The comparison, once, into the table, the JSON and the report. */
static enum dps_status compare(struct replay *rp)
{
	struct analyzer_result *models[2] = {NULL, NULL};
	enum compare_input_kind kinds[2];
	struct analyzer_options sel[2];
	struct compare_result *cmp = NULL;
	const char *paths[2] = {rp->opts->trace, rp->res->sim_trace};
	enum dps_status st = DPS_OK;

	banner(rp, 5, "comparing the original and the simulated run");
	original_selection(rp, &sel[0]);
	analyzer_options_default(&sel[1]);
	sel[1].follow_children = rp->opts->follow_children;
	sel[1].min_block_ns = rp->opts->min_block_ns;
	sel[1].calibration_path = rp->calibration;
	sel[1].progress = !rp->opts->quiet;
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
		st = compare_run(models[0], kinds[0], paths[0], models[1], kinds[1], paths[1], NULL,
				 &cmp, rp->diag);
	}
	if (!st) {
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
	return st;
}

enum dps_status dps_replay_run(const struct dps_replay_options *opts,
			       struct dps_replay_result *result, struct dps_diag *diag)
{
	struct replay rp = {
	    .opts = opts, .res = result, .diag = diag, .root_tid = -1, .t0 = now_s()};
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
	st = make_outdir(&rp);
	st = st ? st : calibrate(&rp);
	st = st ? st : analyze(&rp);
	st = st ? st : build(&rp);
	st = st ? st : run_stub(&rp);
	st = st ? st : compare(&rp);
	if (!st) {
		banner(&rp, 6, "done");
	}
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
