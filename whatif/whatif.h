/* SPDX-License-Identifier: MIT */
/*
 * dps whatif (doc/whatif.md): the CPU stub methodology of the CPU stub paper (section III.B,
 * steps 4-6, Figures 4-5) on a replay. A component (one thread or a group of threads of an
 * action set) becomes a flat CPU stub (its runs removed), an idle CPU stub (its runs slept
 * instead) and a busy CPU stub whose CPU time t_PSF is swept; each point plays the generated
 * stub as a child process several times, the SUT time being the child's wall time from exec to
 * exit as the parent sees it. The sweep is fitted with the two-segment model of fit.h and read
 * the way the paper reads it.
 *
 * whatif_run: the options are checked (range, component, output directory) before any work;
 * then the input is analyzed (a trace) or loaded (a set), the stub built once (simgen), the
 * points run in random order, the curve fitted. The writers print what a run found.
 */
#ifndef DPS_WHATIF_WHATIF_H
#define DPS_WHATIF_WHATIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dps/dps-status.h>

#include "diag.h"
#include "fit.h"

/* The stubs to run (--stub): bits. The original (the set as recorded) always runs. */
enum whatif_stubs {
	WHATIF_STUB_BUSY = 1 << 0,
	WHATIF_STUB_IDLE = 1 << 1,
	WHATIF_STUB_FLAT = 1 << 2,
	WHATIF_STUB_ALL = 7,
};

/*
 * What the busy sweep turns (--sweep): the component's CPU time (the paper's t_PSF), or its
 * runs' data-cache misses (doc/whatif.md, "Sweeping the misses": a set whose component runs
 * carry cache figures, played with --cache-outcome and --thread-cache-scale ID=X).
 */
enum whatif_sweep {
	WHATIF_SWEEP_CPU = 0,
	WHATIF_SWEEP_MISSES = 1,
};

/* "cpu", "misses". */
const char *whatif_sweep_name(enum whatif_sweep sweep);

/* The sweep's defaults: the paper's 10 % steps, and beyond for slow-downs. */
#define WHATIF_FROM_DEFAULT 0.0
#define WHATIF_TO_DEFAULT 1.5
#define WHATIF_STEP_DEFAULT 0.1
#define WHATIF_REPEAT_DEFAULT 5
/* More points than this is a typo, not a sweep. */
#define WHATIF_POINTS_MAX 1000

/*
 * An end of the SUT time's window (--window-from, --window-to): the stub's exec or exit as
 * the parent sees them (the default, from outside), or a thread's start or end as the stub's
 * player saw it (CLOCK_MONOTONIC, the parent's clock too).
 */
enum whatif_edge_kind {
	WHATIF_EDGE_RUN = 0,   /* the stub's exec (a window's start) or exit (its end) */
	WHATIF_EDGE_START = 1, /* thread id's first action */
	WHATIF_EDGE_END = 2,   /* thread id's end */
};

struct whatif_edge {
	enum whatif_edge_kind kind;
	uint64_t id; /* START, END: the action-set id */
};

/* "exec" (from; to: "exit"), "ID.start" or "ID.end" into *edge; 0, or -1 when text is none of
 * them. */
int whatif_edge_parse(const char *text, bool to, struct whatif_edge *edge);
/* The edge as the user writes it, into buf (32 bytes or more). */
const char *whatif_edge_str(const struct whatif_edge *edge, bool to, char *buf, size_t len);

struct whatif_options {
	const char *input; /* borrowed: a trace directory or an action set directory */
	/* selection of the traced process (as dps analyze): -1 / NULL: record.info's pid */
	int64_t pid, tid;
	const char *process_comm; /* borrowed */
	bool follow_children;
	int64_t min_block_ns; /* -1: the calibration's */
	bool strict;
	/* the component: these action-set ids and every thread with one of these comms */
	const uint64_t *thread_ids; /* borrowed, n_thread_ids */
	size_t n_thread_ids;
	const char *const *comms; /* borrowed, n_comms */
	size_t n_comms;
	unsigned stubs;		 /* enum whatif_stubs */
	enum whatif_sweep sweep; /* what the busy sweep's scales multiply */
	double from, to, step;
	unsigned repeat;
	const char *calibration; /* borrowed: NULL: a quick measurement into the work directory */
	const char *mode;	 /* borrowed: the stub's --mode, NULL: its default (cpu) */
	const char *outdir;	 /* borrowed: keep set, stub, results here; NULL: a temporary */
	bool force;		 /* replace OUTDIR whatever it holds */
	uint64_t seed;		 /* the order of the runs; 0: from the clock */
	bool progress;		 /* a progress line on stderr (the caller checks it is a tty) */
	bool quiet;		 /* no step messages */
	/* the SUT time's window, as whatif_edge_parse reads them: NULL: exec, exit */
	const char *window_from, *window_to; /* borrowed */
	/* the points whose timelines are recorded and compared with the original (a trace
	 * only): "all", or a comma-separated list of scales and "flat", "idle"; NULL: none */
	const char *timelines; /* borrowed */
	/* --wait-quiet: > 0: before the calibration, the sweep's runs (each run after one
	 * under load, and the first) and each timelines' recording, wait this long at most for
	 * a quiet machine (common/machine-load.h); once a wait ran out, no more waiting */
	double wait_quiet_s;
	/* in situ (doc/whatif.md, "In the real program"): run this command, NULL-terminated,
	 * instead of a replay (input NULL); the component is its local stub regions */
	const char *const *command; /* borrowed */
	const char *const *regions; /* borrowed, n_regions */
	size_t n_regions;
	/* --plan (doc/cluster.md): everything up to the runs, written into outdir as a plan
	 * instead of running them; the SLURM wrapper's partition and constraint (borrowed, NULL:
	 * none), and shared: no --exclusive */
	bool plan;
	const char *slurm_partition, *slurm_constraint;
	bool slurm_shared;
};

void whatif_options_default(struct whatif_options *opts);

/*
 * A trace's threads ranked as candidates for the component (candidates.c): the process
 * opts selects analyzed (nothing written, no calibration) and analyzer_rank_print's table
 * written to out. Returns DPS_OK, or analyzer_run's error with diag.
 */
#define WHATIF_CANDIDATES_MAX 10
bool whatif_input_is_set(const char *dir); /* a manifest, or .act files: not a trace */
enum dps_status whatif_candidates(const struct whatif_options *opts, FILE *out,
				  struct dps_diag *diag);

enum whatif_point_kind {
	WHATIF_POINT_BUSY = 0,
	WHATIF_POINT_FLAT = 1,
	WHATIF_POINT_IDLE = 2,
	WHATIF_POINT_ORIGINAL = 3,
};

/* One configuration of the stub and its repetitions. */
struct whatif_point {
	enum whatif_point_kind kind;
	double scale;	   /* the component's run scale (flat 0, idle and original 1) */
	uint64_t t_psf_ns; /* the component's CPU time asked for: scale x t_busy (idle: 0) */
	uint64_t *runs_ns; /* owned: the SUT times of the n_runs repetitions, in run order */
	size_t n_runs;
	uint64_t median_ns, min_ns, max_ns;
	/* The runs' spread, robust to one slow run: 1.4826 x the median absolute deviation from
	 * the median (a standard deviation for normal noise); (max - min) / 2 under 3 runs. */
	double noise_ns;
	/* The machine while its runs ran (common/machine-load.h): others' share of the CPUs
	 * and the hypervisor's steal, %; loaded when they say the times are the machine's as
	 * much as the program's (a point's own runs shorter than half a second must agree with
	 * the whole sweep's figure: the kernel's 10 ms ticks are too coarse for less). */
	double others_pct, steal_pct;
	bool loaded; /* under load */
	/* owned: the side-by-side report of this point against the original, relative to the
	 * output directory ("timelines/<point>/report.html"); NULL: not asked for */
	char *timelines;
};

/* What the set holds that pins the answer (whatif_run counts them; doc/whatif.md). */
struct whatif_caveats {
	size_t n_fixed_sleeps;	  /* sleeps of threads outside the component */
	uint64_t fixed_sleep_ns;  /* their total */
	bool timelines;		  /* the trace's timelines were read (a trace input) */
	size_t n_woken_sleeps;	  /* of the trace's sleeps outside the component, those that */
	uint64_t woken_sleep_ns;  /*   ended just after a component thread stopped running */
	size_t n_ordered_waits;	  /* waits on the component in a recorded order across wakers */
	size_t n_component_waits; /* waits of the component on others (their wakes fixed) */
};

/*
 * Why an answer cannot be backed (doubts.c, doc/whatif.md "When the answer is unclear"): the
 * set holds fixed something the component's speed would move in the real program. Any doubt
 * makes the study's kind `unclear`, whatever the curve's fit says.
 */
enum whatif_doubt_kind {
	WHATIF_DOUBT_ORDER = 1,	  /* recorded wake-ups whose order the speed may change */
	WHATIF_DOUBT_SHARED_WORK, /* threads that look like they share work through memory */
	WHATIF_DOUBT_UNMODELLED,  /* synchronization the probe saw and no action re-enacts */
	WHATIF_DOUBT_ORIGINAL,	  /* the stub at scale 1 is off the recorded program */
	WHATIF_DOUBT_PARTIAL,	  /* a planned study collected with runs missing (collect.c) */
	WHATIF_DOUBT_MISS_COST,	  /* sweeping the misses: a miss's time is the stub's */
};

/* "order", "shared-work", "unmodelled", "original", "partial", "miss-cost". */
const char *whatif_doubt_kind_name(enum whatif_doubt_kind kind);

struct whatif_doubt {
	enum whatif_doubt_kind kind;
	char *reason;  /* owned: one sentence with its evidence */
	char *way_out; /* owned: what would let dps answer */
};

/* A thread of the recorded process as a candidate component (candidates.c): its time on the
 * recorded critical path, its CPU, the time others waited on it (analyzer/rank.c). */
struct whatif_candidate {
	uint64_t id;
	char *comm; /* owned, may be NULL */
	uint64_t critical_ns, busy_ns, waited_on_ns;
	bool in_component;
};

struct dps_cache_target;
struct dps_cache_costs;

/*
 * --sweep misses: the component's runs with cache figures and what their accesses cost the
 * cache stub on this machine's quiet cache (measured before the sweep, as the stub measures
 * them under --cache-outcome). A point's t_PSF is the component's recorded CPU plus what its
 * misses at the point's scale cost over the recorded ones (misses.c).
 */
struct whatif_misses {
	size_t n_runs;				 /* the component's runs with figures */
	uint64_t accesses, d1_misses, ll_misses; /* their figures, summed */
	uint64_t cost_ns;			 /* the misses' cost: t_PSF at 1 less at 0 */
	/* the first scale of the sweep left out: every run's misses at their accesses below
	 * it already (0: none left out) */
	double capped_scale;
	struct dps_cache_target *targets; /* owned: n_runs */
	struct dps_cache_costs *costs;	  /* owned: n_costs, one per footprint */
	size_t n_costs;
};

struct whatif_result {
	char *input;		     /* owned */
	bool from_trace;	     /* the input was a trace (analyzed), else a set or a command */
	bool in_situ;		     /* the input was a command run with its regions stubbed */
	uint64_t n_region_runs;	     /* in situ: how often the regions ran in the recording */
	char *workdir;		     /* owned: OUTDIR, or NULL when nothing is kept */
	char *component;	     /* owned: "101 (worker-1), 102 (worker-2)" */
	uint64_t *ids;		     /* owned: the component's action-set ids */
	size_t n_ids;		     /* ... */
	uint64_t busy_ns;	     /* t_busy^CUS: the component's recorded runs, summed */
	enum whatif_sweep sweep;     /* what the busy points' scales multiply */
	struct whatif_misses misses; /* --sweep misses: the component's figures and costs */
	uint64_t recorded_sut_ns;    /* a trace's process from exec to its last thread's end (the
				      * kernel's witness of the real run), 0: unknown or a set */
	size_t n_threads;	     /* of the set */
	unsigned repeat;	     /* repetitions per point */
	uint64_t seed;		     /* the order of the runs */
	const char *mode;	     /* static: the stub's mode */
	double cal_spread_pct; /* the calibration's loop rate spread (0: given, not measured) */
	struct whatif_edge window_from, window_to; /* the SUT time's window (exec, exit) */
	/* the busy sweep, by scale ascending (owned), and the reference stubs */
	struct whatif_point *points;
	size_t n_points;
	struct whatif_point flat, idle, original;
	bool has_flat, has_idle; /* original is always there */
	struct whatif_fit fit;	 /* on (t_psf_ns, median) of the busy points; UNCLEAR without */
	/* the answer: the fit's kind, or UNCLEAR when a doubt stands (owned, n_doubts) */
	enum whatif_kind kind;
	struct whatif_doubt *doubts;
	size_t n_doubts;
	struct whatif_caveats caveats;
	/* a trace's threads ranked (owned): the first WHATIF_CANDIDATES_MAX and every component
	 * thread; critical_span_ns the recorded critical path's length (0: no trace) */
	struct whatif_candidate *candidates;
	size_t n_candidates;
	uint64_t critical_span_ns;
	size_t n_loaded;	      /* points run under load */
	double others_pct, steal_pct; /* the machine over the whole sweep, % */
	double wall_s;		      /* the whole study (collected: its runs' time summed) */
	/* owned: a planned study's collect in one sentence (the plan, the runs used, the nodes,
	 * the files left out); NULL: the study ran here */
	char *collected;
};

/*
 * Runs the study. Returns DPS_OK; DPS_ERR_INVAL for bad options or input, found before any
 * stub runs (diag says which: an empty range, an unknown thread or comm, a component with no
 * runs, an OUTDIR that is not a whatif's without force); DPS_ERROR when a step fails (the
 * analysis, the build, a stub run: diag names it); DPS_ERR_NOMEM, DPS_ERR_IO. result is filled
 * as far as the study got; free it always with whatif_result_fini.
 */
enum dps_status whatif_run(const struct whatif_options *opts, struct whatif_result *result,
			   struct dps_diag *diag);
void whatif_result_fini(struct whatif_result *result); /* accepts NULL */

/*
 * A planned study (doc/cluster.md, plan.c): runs entry index of the plan in dir once, measured
 * as the local sweep measures a repetition, and writes its result file into dir/results (a
 * failed run too, as failed). Returns DPS_OK; DPS_ERR_INVAL for a missing or bad plan or an
 * index out of it (diag: file:line and what was expected); DPS_ERROR when the stub failed
 * (diag: its status and last message); DPS_ERR_IO.
 */
enum dps_status whatif_plan_run(const char *dir, size_t index, bool quiet, struct dps_diag *diag);

/* What dps whatif --collect does (collect.c). */
struct whatif_collect_options {
	const char *dir;    /* borrowed: the plan's directory */
	const char *outdir; /* borrowed: whatif.txt, whatif.json, report.html here; NULL: none */
	bool force;	    /* replace outdir whatever it holds */
	bool mixed_nodes;   /* collect nodes whose calibrations disagree */
	FILE *notes;	    /* borrowed: what collect found (missing, failed, duplicates, nodes) */
};

/*
 * Merges the results of the plan in o->dir into result, the same result a local study gives:
 * points with runs missing, failed or unreadable make the answer unclear (a "partial" doubt
 * that names them); each finding is also written to o->notes. Returns DPS_OK; DPS_ERR_INVAL
 * for a bad plan, or nodes whose calibrations disagree without mixed_nodes (diag names them);
 * DPS_ERR_IO. Free result with whatif_result_fini.
 */
enum dps_status whatif_collect(const struct whatif_collect_options *o, struct whatif_result *result,
			       struct dps_diag *diag);

/* Whether the SUT time's window is the default one, exec to exit. */
bool whatif_window_is_run(const struct whatif_result *r);

/* The point's t_SUT the conclusions use (the median). */
static inline double whatif_point_sut(const struct whatif_point *p)
{
	return (double)p->median_ns;
}

/* The table, the fit, the conclusions and the caveats, for a reader. */
void whatif_write_text(const struct whatif_result *r, FILE *out);
/* One JSON object (doc/whatif.md, "JSON"). */
void whatif_write_json(const struct whatif_result *r, FILE *out);
/* The self-contained HTML report: t_SUT against t_PSF (Figures 4-5) and the tables. The
 * points' timelines are linked relative to OUTDIR, or under link_base when it is not NULL
 * (the report written elsewhere). */
void whatif_write_html(const struct whatif_result *r, FILE *out, const char *link_base);
/* whatif_write_html with relative links, for the writers' table (whatif.c). */
void whatif_write_html_here(const struct whatif_result *r, FILE *out);

/* The paper's conclusions in words, one per stub run, into out (each line "- ..."). */
void whatif_write_conclusions(const struct whatif_result *r, FILE *out);

#endif /* DPS_WHATIF_WHATIF_H */
