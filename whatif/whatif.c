/* SPDX-License-Identifier: MIT */
/*
 * dps whatif's study (whatif.h). Steps:
 *
 *   0 check         the range, the stubs, the output directory; a set's component
 *   1 set           analyzer: analyzer_run into the work directory (a trace), or the set
 *   2 calibrate     runtime: a quick measurement (or the given file), for the stub; with a
 *                   trace, from inside the analysis once its threads are known
 *                   (on_threads): the component is checked against them first, and the set
 *                   is then written with the new calibration's --min-block
 *   3 component     the ids and comms named, against the set; t_busy; the caveats
 *   4 build         simgen: the stub, once; every point is a knob on its command line
 *   5 sweep         sweep.c: every repetition of every point, in random order
 *   6 fit           fit.c on the busy points' medians
 *
 * Each step that takes time prints "[k/n] what (its own duration)" when it ends
 * (common/progress.h); on a terminal, the sweep's live line counts its runs.
 *
 * With OUTDIR everything goes into a temporary directory beside it (common/atomic-out.h) that
 * replaces it once the study succeeded; without, into a private temporary removed at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dps/dps.h>
#include <glib.h>

#include "actset.h"
#include "analyzer.h"
#include "atomic-out.h"
#include "guard.h"
#include "machine-load.h"
#include "progress.h"
#include "record.h"
#include "simgen.h"
#include "whatif-internal.h"

/* How soon after a component thread stopped running another thread's sleep must end to count
 * as woken by it: the kernel's wake-up latency on a loaded machine, with room. */
#define WHATIF_WOKEN_WINDOW_NS 200000u
/* The file that marks a directory as dps whatif's output, replaceable by the next study. */
#define WHATIF_MARKER_NAME "whatif.info"

/* One study under way. */
struct study {
	const struct whatif_options *opts;  /* borrowed */
	struct whatif_result *res;	    /* borrowed */
	struct dps_diag *diag;		    /* borrowed */
	struct dps_out_dir out;		    /* owned: OUTDIR and its temporary (with OUTDIR) */
	char *work;			    /* owned: where the files go (out.tmp or a temporary) */
	bool work_is_tmp;		    /* work is a private temporary, removed at the end */
	char *set_dir, *stub, *calibration; /* owned paths */
	struct dps_actset *set;		    /* owned */
	struct analyzer_result *ares;	    /* owned: a trace's analysis, its timelines kept */
	char *ssf_path, *regions;	    /* owned: in situ, the recording and "a,b" */
	struct dps_quiet_wait wait;	    /* --wait-quiet */
	double t0;
	struct dps_steps steps;	  /* owned */
	bool build_begun;	  /* step 4 began inside the analysis */
	int64_t cal_min_block_ns; /* the measured calibration's --min-block */
};

void whatif_options_default(struct whatif_options *opts)
{
	*opts = (struct whatif_options){
	    .pid = -1,
	    .tid = -1,
	    .min_block_ns = -1,
	    .stubs = WHATIF_STUB_ALL,
	    .from = WHATIF_FROM_DEFAULT,
	    .to = WHATIF_TO_DEFAULT,
	    .step = WHATIF_STEP_DEFAULT,
	    .repeat = WHATIF_REPEAT_DEFAULT,
	};
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool whatif_is_output_dir(const char *dir)
{
	char *marker = g_build_filename(dir, WHATIF_MARKER_NAME, NULL);
	bool ours = g_file_test(marker, G_FILE_TEST_IS_REGULAR);

	g_free(marker);
	return ours;
}

bool whatif_window_is_run(const struct whatif_result *r)
{
	return r->window_from.kind == WHATIF_EDGE_RUN && r->window_to.kind == WHATIF_EDGE_RUN;
}

bool whatif_input_is_set(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;
	bool set = dps_actset_is_set_dir(dir);

	while (d && !set && (name = g_dir_read_name(d))) {
		set = g_str_has_suffix(name, ".act");
	}
	if (d) {
		g_dir_close(d);
	}
	return set;
}

/* 0. In situ: a command, its regions, nothing that only a replay has. */
static enum dps_status check_insitu(struct study *s)
{
	return whatif_insitu_check(s->opts, s->diag);
}

/* 0. What can be refused before any work. */
static enum dps_status check_options(struct study *s)
{
	const struct whatif_options *o = s->opts;
	size_t n = whatif_sweep_count(o);

	if (whatif_plan_check(o, s->diag)) {
		return DPS_ERR_INVAL;
	}
	if (o->command) {
		enum dps_status st = check_insitu(s);

		if (st) {
			return st;
		}
	} else if (!o->input) {
		dps_diag_setf(s->diag, "no input: give a trace or an action set directory");
		return DPS_ERR_INVAL;
	} else if (!g_file_test(o->input, G_FILE_TEST_EXISTS)) {
		dps_diag_setf(s->diag, "%s: no such trace or action set directory", o->input);
		return DPS_ERR_INVAL;
	} else if (!g_file_test(o->input, G_FILE_TEST_IS_DIR)) {
		dps_diag_setf(s->diag, "%s: not a directory (a trace or an action set)", o->input);
		return DPS_ERR_INVAL;
	} else if (o->n_regions) {
		dps_diag_setf(s->diag, "--region names a local stub region of a command: "
				       "dps whatif --region NAME -- CMD ARGS");
		return DPS_ERR_INVAL;
	}
	if (o->sweep == WHATIF_SWEEP_MISSES) {
		const char *why = NULL;

		if (o->command) {
			why = "a command's regions have no cache figures: give an action set";
		} else if (o->plan) {
			why = "not on a cluster yet (--plan): run the study here";
		} else if (!whatif_input_is_set(o->input)) {
			why =
			    "a trace's set has no cache figures: dps analyze it, put a capture's "
			    "figures on its runs (dps cache apply; doc/cache.md) and give that set";
		} else if (o->stubs & (WHATIF_STUB_FLAT | WHATIF_STUB_IDLE)) {
			why = "it sweeps the busy stub only (its scale 0 is the component without "
			      "misses): --stub busy";
		}
		if (why) {
			dps_diag_setf(s->diag, "--sweep misses: %s", why);
			return DPS_ERR_INVAL;
		}
	}
	if (!o->command && !o->n_thread_ids && !o->n_comms) {
		dps_diag_setf(s->diag, "no component: name its threads with --thread ID or "
				       "--thread-comm NAME (--comm NAME selects the process)");
		return DPS_ERR_INVAL;
	}
	if (!(o->stubs & WHATIF_STUB_ALL)) {
		dps_diag_setf(s->diag, "no stub to run");
		return DPS_ERR_INVAL;
	}
	if ((o->stubs & WHATIF_STUB_BUSY) && !n) {
		dps_diag_setf(s->diag,
			      "empty sweep: --from %g --to %g --step %g (from must be >= 0 and "
			      "<= to, step > 0)",
			      o->from, o->to, o->step);
		return DPS_ERR_INVAL;
	}
	if ((o->stubs & WHATIF_STUB_BUSY) && n > WHATIF_POINTS_MAX) {
		dps_diag_setf(s->diag, "the sweep has %zu points, more than %d: a larger --step", n,
			      WHATIF_POINTS_MAX);
		return DPS_ERR_INVAL;
	}
	if (o->repeat < 1) {
		dps_diag_setf(s->diag, "--repeat must be at least 1");
		return DPS_ERR_INVAL;
	}
	if ((o->window_from && whatif_edge_parse(o->window_from, false, &s->res->window_from)) ||
	    (o->window_to && whatif_edge_parse(o->window_to, true, &s->res->window_to))) {
		dps_diag_setf(s->diag,
			      "--window-from %s --window-to %s: expected exec (from), exit (to), "
			      "ID.start or ID.end",
			      o->window_from ? o->window_from : "exec",
			      o->window_to ? o->window_to : "exit");
		return DPS_ERR_INVAL;
	}
	if (o->mode) {
		enum dps_run_mode m;

		if (dps_run_mode_parse(o->mode, &m)) {
			dps_diag_setf(s->diag, "--mode: expected work, cpu or wall, got '%s'",
				      o->mode);
			return DPS_ERR_INVAL;
		}
	}
	if (o->timelines) {
		char *bad = NULL;

		if (!o->outdir) {
			dps_diag_setf(s->diag,
				      "--timelines: give -o DIR, where the reports are kept");
			return DPS_ERR_INVAL;
		}
		if (whatif_timelines_check(o->timelines, o->from, o->to, o->step,
					   (o->stubs & WHATIF_STUB_BUSY) ? n : 0, &bad)) {
			dps_diag_setf(
			    s->diag,
			    "--timelines: '%s' is not a point of the sweep (all, flat, idle, "
			    "original, or a scale from %g to %g by %g)",
			    bad, o->from, o->to, o->step);
			g_free(bad);
			return DPS_ERR_INVAL;
		}
	}
	if (o->calibration && !g_file_test(o->calibration, G_FILE_TEST_IS_REGULAR)) {
		dps_diag_setf(s->diag, "--calibration %s: no such file", o->calibration);
		return DPS_ERR_INVAL;
	}
	if (o->calibration) {
		/* what the stub would refuse at its first run, refused now */
		struct dps_calibration cal;
		char err[512] = "";

		if (dps_calibration_load(o->calibration, &cal, err, sizeof(err))) {
			dps_diag_setf(s->diag, "--calibration: %s", err);
			return DPS_ERR_INVAL;
		}
	}
	if (o->outdir) {
		return dps_out_dir_check(o->outdir, whatif_is_output_dir,
					 "an earlier dps whatif's output (no " WHATIF_MARKER_NAME
					 ")",
					 DPS_OUT_PARENTS | (o->force ? DPS_OUT_FORCE : 0), s->diag);
	}
	return DPS_OK;
}

/* The work directory: OUTDIR's temporary, or a private one. */
static enum dps_status make_workdir(struct study *s)
{
	const struct whatif_options *o = s->opts;
	char *marker;
	FILE *f;
	enum dps_status st;

	if (!o->outdir) {
		GError *error = NULL;
		s->work = dps_out_make_tmp_dir("dps-whatif-", &error);
		if (!s->work) {
			dps_diag_setf(s->diag, "cannot make a temporary directory: %s",
				      error->message);
			g_error_free(error);
			return DPS_ERR_IO;
		}
		s->work_is_tmp = true;
		return DPS_OK;
	}
	st = dps_out_dir_begin(&s->out, o->outdir, whatif_is_output_dir,
			       "an earlier dps whatif's output (no " WHATIF_MARKER_NAME ")",
			       DPS_OUT_PARENTS | (o->force ? DPS_OUT_FORCE : 0), s->diag);
	if (st) {
		return st;
	}
	s->work = g_strdup(s->out.tmp);
	marker = g_build_filename(s->work, WHATIF_MARKER_NAME, NULL);
	f = fopen(marker, "w");
	if (!f) {
		dps_diag_setf(s->diag, "cannot create \"%s\": errno=%d (%s)", marker, errno,
			      strerror(errno));
		g_free(marker);
		return DPS_ERR_IO;
	}
	fprintf(f,
		"# dps whatif output: the next dps whatif -o here replaces this directory "
		"whole\ninput %s\n",
		s->res->input);
	st = dps_out_close(f, marker, s->diag);
	g_free(marker);
	return st;
}

/* 1. The calibration the stub plays with. */
static enum dps_status calibrate(struct study *s)
{
	struct dps_load_sample before, after;
	struct dps_calibration cal;
	struct dps_load load;
	uint64_t cpu0;
	char err[512];
	enum dps_status st;

	s->calibration = g_build_filename(s->work, "calibration", NULL);
	if (s->opts->calibration) {
		gchar *text = NULL;
		gsize len = 0;

		if (!g_file_get_contents(s->opts->calibration, &text, &len, NULL) ||
		    !g_file_set_contents(s->calibration, text, (gssize)len, NULL)) {
			dps_diag_setf(s->diag, "cannot copy the calibration %s",
				      s->opts->calibration);
			g_free(text);
			return DPS_ERR_IO;
		}
		g_free(text);
		return DPS_OK;
	}
	/* --wait-quiet's wait is no part of a step: it says so itself */
	dps_steps_end(&s->steps);
	dps_load_wait_quiet(&s->wait, "calibrating", stderr, NULL);
	dps_steps_begin(&s->steps, true, "calibrating this machine quickly");
	before = dps_load_sample_take();
	cpu0 = dps_load_self_cpu_ns();
	st = dps_calibration_measure(&cal, true);
	after = dps_load_sample_take();
	load = dps_load_between(&before, &after, dps_load_self_cpu_ns() - cpu0);
	if (st) {
		dps_diag_setf(s->diag, "calibration failed: %s", dps_status_string(st));
		return DPS_ERROR;
	}
	if (dps_calibration_save(&cal, s->calibration, err, sizeof(err))) {
		dps_diag_setf(s->diag, "calibration: %s", err);
		return DPS_ERR_IO;
	}
	dps_steps_end(&s->steps);
	s->res->cal_spread_pct = cal.work_spread_pct;
	s->cal_min_block_ns = (int64_t)cal.min_block_ns;
	dps_load_warn_calibration(stderr, "dps whatif", cal.work_spread_pct, &load);
	return DPS_OK;
}

/*
 * Inside the analysis, once the selection's threads are known (analyzer_options.on_threads):
 * the threads the options name against them, then the calibration when the study measures
 * it, its --min-block for the set unless one was given.
 */
static enum dps_status on_threads(void *arg, const struct analyzer_result *res,
				  int64_t *min_block_ns, struct dps_diag *diag)
{
	struct study *s = arg;
	struct whatif_names nm = whatif_names_of_result(res);
	enum dps_status st = whatif_check_names(s->opts, s->res, &nm, s->opts->input, diag);

	whatif_names_fini(&nm);
	if (st || s->opts->calibration) {
		return st;
	}
	dps_steps_end(&s->steps);
	st = calibrate(s);
	if (st) {
		return st;
	}
	if (*min_block_ns < 0) {
		*min_block_ns = s->cal_min_block_ns;
	}
	/* what is left of the analysis, writing the set, is part of making the stub */
	dps_steps_begin(&s->steps, true, "generating and building the stub");
	s->build_begun = true;
	return DPS_OK;
}

/* 2. The set: the trace analyzed into the work directory, or the given set loaded. */
static enum dps_status load_set(struct study *s)
{
	const struct whatif_options *o = s->opts;
	struct analyzer_result *ares = NULL;
	struct analyzer_options a;
	enum dps_status st;

	if (!s->res->from_trace) {
		s->set_dir = g_strdup(o->input);
		return dps_actset_load_dir(o->input, &s->set, s->diag);
	}
	dps_steps_begin(&s->steps, false, "analyzing the trace");
	s->set_dir = g_build_filename(s->work, "set", NULL);
	analyzer_options_default(&a);
	a.traces = &o->input;
	a.n_traces = 1;
	a.pid = o->pid;
	a.tid = o->tid;
	a.comm = o->process_comm;
	if (a.pid < 0 && a.tid < 0 && !a.comm && !dps_record_info_pid(o->input, &a.pid)) {
		dps_diag_setf(s->diag,
			      "no selection: which process of %s? (--pid, --tid or --comm; "
			      "dps analyze %s lists them)",
			      o->input, o->input);
		return DPS_ERR_INVAL;
	}
	a.follow_children = o->follow_children;
	a.strict = o->strict;
	a.min_block_ns = o->min_block_ns;
	a.calibration_path = s->calibration;
	a.progress = o->progress;
	a.out_dir = s->set_dir;
	a.keep_timelines = true; /* the sleeps' ends, for the caveats */
	a.on_threads = on_threads;
	a.on_threads_arg = s;
	st = analyzer_run(&a, &ares, s->diag);
	if (!st && ares->partial) {
		dps_steps_clear(&s->steps);
		fprintf(stderr, "dps whatif: warning: the trace is incomplete (%s)\n",
			ares->partial_reason ? ares->partial_reason : "events lost");
	}
	if (st) {
		analyzer_result_destroy(ares);
		return st;
	}
	s->ares = ares;
	if (ares->process.known && ares->process.end_ns > ares->process.begin_ns) {
		s->res->recorded_sut_ns = ares->process.end_ns - ares->process.begin_ns;
	}
	return dps_actset_load_dir(s->set_dir, &s->set, s->diag);
}

/* 3. The component's thread indexes (in mark, n_threads flags) and the result's ids, name and
 * busy time; the threads the options name, checked against the set's. */
static enum dps_status resolve_component(struct study *s, bool *mark)
{
	const struct whatif_options *o = s->opts;
	const struct dps_actset *set = s->set;
	struct whatif_result *r = s->res;
	struct whatif_names nm = whatif_names_of_set(set);
	GString *name;
	enum dps_status st = whatif_check_names(o, r, &nm, s->set_dir, s->diag);

	whatif_names_fini(&nm);
	if (st) {
		return st;
	}
	for (size_t i = 0; i < o->n_thread_ids; i++) {
		mark[dps_actset_find(set, o->thread_ids[i])] = true;
	}
	for (size_t c = 0; c < o->n_comms; c++) {
		for (size_t t = 0; t < set->n_threads; t++) {
			if (set->threads[t].comm && !strcmp(set->threads[t].comm, o->comms[c])) {
				mark[t] = true;
			}
		}
	}
	name = g_string_new(NULL);
	r->ids = g_new0(uint64_t, set->n_threads);
	for (size_t t = 0; t < set->n_threads; t++) {
		if (!mark[t]) {
			continue;
		}
		r->ids[r->n_ids++] = set->threads[t].id;
		g_string_append_printf(name, "%s%" PRIu64 "%s%s%s", r->n_ids > 1 ? ", " : "",
				       set->threads[t].id, set->threads[t].comm ? " (" : "",
				       set->threads[t].comm ? set->threads[t].comm : "",
				       set->threads[t].comm ? ")" : "");
		for (size_t i = 0; i < set->threads[t].n_actions; i++) {
			const struct dps_actset_action *a = &set->threads[t].actions[i];

			if (a->kind == DPS_ACT_RUN && a->value > 0) {
				r->busy_ns += (uint64_t)a->value;
			}
		}
	}
	g_string_prepend(name, r->n_ids > 1 ? "threads " : "thread ");
	r->component = g_string_free(name, FALSE);
	r->n_threads = set->n_threads;
	if (!r->busy_ns) {
		dps_diag_setf(s->diag, "the component %s has no run actions: no CPU to sweep",
			      r->component);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

/*
 * What pins the answer, as far as the set shows it. A sleep of another thread is a fixed
 * duration: if, in the real program, it ended because a component thread woke it (a waker the
 * trace did not tie to it), a faster component would end it sooner, the stub will not. Waits
 * in a recorded order on several wakers, one of them in the component, keep that order even
 * when a faster component would now come first. The component's own waits on others keep
 * the others' recorded wake points.
 */
static void find_caveats(struct study *s, const bool *mark)
{
	const struct dps_actset *set = s->set;
	struct whatif_caveats *c = &s->res->caveats;

	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];
		size_t prev_waker = DPS_ACTSET_NO_THREAD;

		for (size_t i = 0; i < th->n_actions; i++) {
			const struct dps_actset_action *a = &th->actions[i];
			size_t w;

			if (a->kind == DPS_ACT_SLEEP && !mark[t] && a->value > 0) {
				c->n_fixed_sleeps++;
				c->fixed_sleep_ns += (uint64_t)a->value;
			}
			if (a->kind != DPS_ACT_WAIT) {
				/* a run or a wake between two waits makes them a sequence the
				 * program itself orders; only back-to-back waits are a choice */
				if (a->kind != DPS_ACT_SLEEP) {
					prev_waker = DPS_ACTSET_NO_THREAD;
				}
				continue;
			}
			w = dps_actset_target(set, a);
			if (w == DPS_ACTSET_NO_THREAD) {
				continue;
			}
			if (mark[t] && !mark[w]) {
				c->n_component_waits++;
			}
			if (prev_waker != DPS_ACTSET_NO_THREAD && prev_waker != w &&
			    (mark[w] || mark[prev_waker])) {
				c->n_ordered_waits++;
			}
			prev_waker = w;
		}
	}
}

static int compare_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * With a trace's timelines: the sleeps of other threads that ended within
 * WHATIF_WOKEN_WINDOW_NS after a component thread stopped running (a run's end: it blocked,
 * yielded or exited, which is when a thread wakes another). The trace did not tie them to a
 * waker (they would be waits), but the timing says the component most likely woke them.
 */
static void find_woken_sleeps(struct study *s, const bool *mark)
{
	const struct analyzer_result *ar = s->ares;
	struct whatif_caveats *c = &s->res->caveats;
	GArray *ends = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	bool *in = g_new0(bool, ar->n_threads);

	for (size_t t = 0; t < ar->n_threads; t++) {
		size_t k = dps_actset_find(s->set, ar->threads[t].id);

		in[t] = k != DPS_ACTSET_NO_THREAD && mark[k];
		for (size_t i = 0; in[t] && i < ar->threads[t].n_segs; i++) {
			if (ar->threads[t].segs[i].kind == ANALYZER_SEG_RUN) {
				g_array_append_val(ends, ar->threads[t].segs[i].end_ns);
			}
		}
	}
	g_array_sort(ends, compare_u64);
	for (size_t t = 0; t < ar->n_threads; t++) {
		for (size_t i = 0; !in[t] && i < ar->threads[t].n_segs; i++) {
			const struct analyzer_segment *g = &ar->threads[t].segs[i];
			size_t lo = 0, hi = ends->len;

			if (g->kind != ANALYZER_SEG_SLEEP) {
				continue;
			}
			/* the first run end at or after the window's start */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (g_array_index(ends, uint64_t, mid) + WHATIF_WOKEN_WINDOW_NS <
				    g->end_ns) {
					lo = mid + 1;
				} else {
					hi = mid;
				}
			}
			if (lo < ends->len && g_array_index(ends, uint64_t, lo) <= g->end_ns) {
				c->n_woken_sleeps++;
				c->woken_sleep_ns += g->end_ns - g->begin_ns;
			}
		}
	}
	c->timelines = true;
	g_free(in);
	g_array_free(ends, TRUE);
}

/* 4. The stub, built once; its C kept beside it with OUTDIR. */
static enum dps_status build(struct study *s)
{
	char *src = g_build_filename(s->work, "stub.c", NULL);
	struct simgen_build_options b = {.keep_source = s->work_is_tmp ? NULL : src};
	/* the stub's source names its set where it will be: beside it in OUTDIR when analyzed */
	struct simgen_options g = {.source_label = s->res->from_trace ? "set" : s->set_dir,
				   .program_name = "dps-whatif-stub"};
	enum dps_status st = DPS_OK;

	if (!s->build_begun) {
		dps_steps_begin(&s->steps, true, "generating and building the stub");
	}
	s->stub = g_build_filename(s->work, "dps-stub", NULL);
	if (simgen_build(s->set, &g, &b, s->stub, s->diag)) {
		st = DPS_ERROR;
	}
	g_free(src);
	return st;
}

/* 5. The points: the busy sweep, the flat, idle and original stubs (the busy points at 0 and 1
 * are the flat and original ones: measured once). */
static enum dps_status sweep(struct study *s)
{
	const struct whatif_options *o = s->opts;
	struct whatif_result *r = s->res;
	struct whatif_point_list pl;
	struct whatif_runner run = {
	    .stub = s->stub,
	    .calibration = s->calibration,
	    .mode = o->mode,
	    .ids = r->ids,
	    .n_ids = r->n_ids,
	    .repeat = o->repeat,
	    .seed = r->seed,
	    .wait = &s->wait,
	    .sweep = r->sweep,
	};
	char *err_path = g_build_filename(s->work, "stub.err", NULL);
	char *times_path = NULL, *costs = whatif_misses_costs_text(r);
	struct dps_load load;
	enum dps_status st;

	whatif_points_make(o, r, &pl);
	run.err_path = err_path;
	run.cache_costs = costs;
	run.command = o->command;
	run.regions = s->regions;
	run.ssf_path = s->ssf_path;
	run.from = r->window_from;
	run.to = r->window_to;
	if (!whatif_window_is_run(r)) {
		times_path = g_build_filename(s->work, "thread-times", NULL);
		run.times_path = times_path;
	}
	dps_steps_begin(&s->steps, true, "running %zu points x %u repetitions", pl.n, o->repeat);
	run.steps = &s->steps;
	st = whatif_sweep_run(&run, pl.pts, pl.n, &load, s->diag);
	r->others_pct = load.others_pct;
	r->steal_pct = load.steal_pct;
	if (!st) {
		whatif_points_done(r, &pl);
	}
	g_free(times_path);
	g_free(costs);
	g_free(err_path);
	whatif_point_list_fini(&pl);
	return st;
}

/* 5. --plan: the runs written as a plan instead of run (plan.c) */
static enum dps_status plan(struct study *s)
{
	struct whatif_plan_job job = {.opts = s->opts,
				      .result = s->res,
				      .work = s->work,
				      .set = s->res->from_trace ? NULL : s->set};

	dps_steps_begin(&s->steps, false, "writing the plan");
	return whatif_plan_write(&job, s->diag);
}

/* The end: OUTDIR replaced by the work directory, or the private temporary removed. */
static enum dps_status finish(struct study *s, enum dps_status st)
{
	if (s->work_is_tmp) {
		dps_out_remove_tree(s->work);
		dps_out_unregister_temp(s->work);
		return st;
	}
	if (!s->out.tmp) {
		return st;
	}
	if (!st) {
		st = dps_out_dir_commit(&s->out, s->diag);
		s->res->workdir = g_strdup(s->opts->outdir);
	} else if (st == DPS_ERR_INVAL || st == DPS_ERR_NOENT) {
		dps_out_dir_abort(&s->out);
	} else {
		char *kept = dps_out_dir_keep(&s->out);
		char *msg = g_strdup(s->diag->msg);

		dps_diag_setf(s->diag, "%s\n(%s is unchanged; this study's files are in %s)", msg,
			      s->opts->outdir, kept);
		g_free(msg);
		free(kept);
	}
	return st;
}

/* In situ, instead of 1-4: the command run once recording, its regions' CPU time. */
static enum dps_status record_insitu(struct study *s)
{
	const struct whatif_options *o = s->opts;
	struct whatif_result *r = s->res;
	char *regions = whatif_insitu_regions(o);
	enum dps_status st;
	struct whatif_insitu in = {
	    .command = o->command,
	    .regions = regions,
	    .work = s->work,
	};

	s->ssf_path = g_build_filename(s->work, "cus.ssf", NULL);
	in.ssf_path = s->ssf_path;
	dps_steps_begin(&s->steps, true,
			"recording the command once (its regions' CPU time and results)");
	st = whatif_insitu_record(&in, &r->busy_ns, &r->n_region_runs, s->diag);
	if (!st) {
		dps_steps_end(&s->steps);
		r->component =
		    g_strdup_printf("region%s %s", strchr(regions, ',') ? "s" : "", regions);
		if (!o->quiet) {
			fprintf(stderr,
				"dps whatif: the regions ran %" PRIu64 " time%s, %.3f ms of CPU\n",
				r->n_region_runs, r->n_region_runs == 1 ? "" : "s",
				(double)r->busy_ns / 1e6);
		}
		s->regions = regions;
		regions = NULL;
	}
	g_free(regions);
	return st;
}

/* 7. --timelines: the chosen points replayed recorded and compared with the original. */
static enum dps_status timelines(struct study *s)
{
	const struct whatif_options *o = s->opts;
	struct whatif_timelines_job job = {
	    .result = s->res,
	    .list = o->timelines,
	    .work = s->work,
	    .outdir = o->outdir,
	    .trace = o->input,
	    .set_dir = s->set_dir,
	    .calibration = s->calibration,
	    .mode = o->mode,
	    .comm = o->process_comm,
	    .pid = o->pid,
	    .tid = o->tid,
	    .min_block_ns = o->min_block_ns,
	    .follow_children = o->follow_children,
	    .strict = o->strict,
	    .steps = &s->steps,
	    .wait = &s->wait,
	};

	dps_steps_begin(&s->steps, true, "recording the timelines of the points asked for");
	return whatif_timelines_run(&job, s->diag);
}

enum dps_status whatif_run(const struct whatif_options *opts, struct whatif_result *result,
			   struct dps_diag *diag)
{
	struct study s = {
	    .opts = opts,
	    .res = result,
	    .diag = diag,
	    .wait = {.max_s = opts->wait_quiet_s, .who = "dps whatif", .quiet = opts->quiet},
	    .t0 = now_s()};
	bool *mark = NULL;
	enum dps_status st;

	*result = (struct whatif_result){0};
	dps_diag_clear(diag);
	result->in_situ = opts->command != NULL;
	result->input =
	    opts->command ? g_strjoinv(" ", (gchar **)opts->command) : g_strdup(opts->input);
	result->repeat = opts->repeat;
	result->seed = opts->seed ? opts->seed : (uint64_t)g_get_real_time();
	result->mode = opts->mode ? opts->mode : "cpu";
	result->sweep = opts->sweep;
	st = check_options(&s);
	if (st) {
		return st;
	}
	if (result->in_situ) {
		/* the steps: the calibration, the recording, the sweep */
		dps_steps_init(&s.steps, 2 + !opts->calibration, opts->quiet, opts->progress);
		st = make_workdir(&s);
		st = st ? st : calibrate(&s);
		st = st ? st : record_insitu(&s);
		goto study;
	}
	result->from_trace = !whatif_input_is_set(opts->input);
	/* the steps: the analysis, the calibration, the stub, the sweep, the timelines */
	dps_steps_init(&s.steps, 2 + result->from_trace + !opts->calibration + !!opts->timelines,
		       opts->quiet, opts->progress);
	if (opts->timelines && !result->from_trace) {
		dps_diag_setf(diag,
			      "--timelines: %s is an action set; the original's timelines come "
			      "from a trace (give the trace)",
			      opts->input);
		return DPS_ERR_INVAL;
	}
	if (result->from_trace && opts->pid < 0 && opts->tid < 0 && !opts->process_comm) {
		int64_t pid;

		if (!dps_record_info_pid(opts->input, &pid)) {
			dps_diag_setf(diag,
				      "no selection: which process of %s? (--pid, --tid or "
				      "--comm; dps analyze %s lists them)",
				      opts->input, opts->input);
			return DPS_ERR_INVAL;
		}
	}
	/* A set's component is checked before anything is made or run. */
	if (!result->from_trace) {
		st = load_set(&s);
		if (!st) {
			mark = g_new0(bool, s.set->n_threads);
			st = resolve_component(&s, mark);
		}
		if (!st && opts->sweep == WHATIF_SWEEP_MISSES) {
			st = whatif_misses_prepare(result, s.set, mark, diag);
		}
		if (st) {
			goto end;
		}
	}
	st = make_workdir(&s);
	/* a trace's analysis measures the calibration once its threads are checked */
	if (!st && (!result->from_trace || opts->calibration)) {
		st = calibrate(&s);
	}
	if (!st && result->from_trace) {
		st = load_set(&s);
		if (!st) {
			mark = g_new0(bool, s.set->n_threads);
			st = resolve_component(&s, mark);
		}
	}
	if (!st) {
		find_caveats(&s, mark);
		if (s.ares) {
			find_woken_sleeps(&s, mark);
		}
		whatif_doubts_before(result, s.set, s.ares, mark);
		if (s.ares) {
			whatif_fill_candidates(result, s.ares);
		}
		analyzer_result_destroy(s.ares);
		s.ares = NULL;
	}
	st = st ? st : build(&s);
	if (opts->plan) {
		st = st ? st : plan(&s);
		goto planned;
	}
study:
	st = st ? st : sweep(&s);
	if (!st) {
		whatif_fit_result(result);
		whatif_doubts_after(result);
		st = opts->timelines ? timelines(&s) : DPS_OK;
	}
	if (!st) {
		result->wall_s = now_s() - s.t0;
		if (s.opts->outdir) {
			st = whatif_write_outputs(result, s.work, diag);
		}
	}
planned:
	if (!st) {
		dps_steps_end(&s.steps);
	}
	st = finish(&s, st);
end:
	dps_steps_fini(&s.steps);
	g_free(mark);
	analyzer_result_destroy(s.ares);
	dps_actset_destroy(s.set);
	g_free(s.set_dir);
	g_free(s.ssf_path);
	g_free(s.regions);
	g_free(s.stub);
	g_free(s.calibration);
	g_free(s.work);
	return st;
}

static void point_fini(struct whatif_point *p)
{
	g_free(p->runs_ns);
	g_free(p->timelines);
	p->runs_ns = NULL;
	p->timelines = NULL;
}

void whatif_result_fini(struct whatif_result *r)
{
	if (!r) {
		return;
	}
	for (size_t i = 0; i < r->n_points; i++) {
		point_fini(&r->points[i]);
	}
	point_fini(&r->flat);
	point_fini(&r->idle);
	point_fini(&r->original);
	g_free(r->points);
	g_free(r->input);
	g_free(r->workdir);
	g_free(r->component);
	g_free(r->collected);
	g_free(r->ids);
	whatif_misses_fini(&r->misses);
	whatif_doubts_fini(r);
	for (size_t i = 0; i < r->n_candidates; i++) {
		g_free(r->candidates[i].comm);
	}
	g_free(r->candidates);
	*r = (struct whatif_result){0};
}
