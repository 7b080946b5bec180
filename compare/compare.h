/* SPDX-License-Identifier: MIT */
/*
 * compare: an original run against a simulated one (doc/compare.md).
 *
 * Both sides are struct analyzer_result models: from a trace (analyzer_run) or from an action
 * set played on an ideal machine (compare_model_from_actset). Threads are matched by their
 * place in the creation tree (root <-> root, then children by parent + create_rank), never by
 * tid. The result holds per-thread figures, the makespan, one fidelity figure and, when both
 * sides carry memory samples, the heap/stack curve errors; writers render it as a terminal
 * table, JSON (schema "dps-compare/1") or a self-contained HTML report.
 */
#ifndef DPS_COMPARE_COMPARE_H
#define DPS_COMPARE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "actset.h"
#include "analyzer.h"
#include "diag.h"
#include "machine-load.h"

struct dps_calibration;

#define COMPARE_NO_THREAD SIZE_MAX
/* A relative error on a base below this (|orig| of a time figure, ns) says little: a 1 us
 * thread that takes 450 us is "+44900 %". The outputs show the absolute difference there
 * instead (doc/compare.md, "Figures"). */
#define COMPARE_SMALL_BASE_NS 1000000
/* `dps compare --json` (doc/compare.md, "JSON"). */
#define COMPARE_JSON_SCHEMA "dps-compare/1"
/* The data the HTML report embeds for its script (doc/compare.md, "HTML report"): another
 * shape (arrays of segments per thread, for drawing), so another name. */
#define COMPARE_REPORT_DATA_SCHEMA "dps-compare-report-data/1"

/* Where a side's model came from. */
enum compare_input_kind {
	COMPARE_INPUT_TRACE = 0,
	COMPARE_INPUT_ACTSET = 1,
	COMPARE_INPUT_MODEL = 2, /* built by the caller (tests, other tools) */
};

enum compare_side {
	COMPARE_ORIG = 0,
	COMPARE_SIM = 1,
};

/* The per-thread figures, in this order in every output. */
enum compare_metric_id {
	COMPARE_M_CPU = 0,   /* ns on CPU (stats.busy_ns) */
	COMPARE_M_BLOCKED,   /* ns blocked: sleep + wait + join (stats.blocked_ns) */
	COMPARE_M_PREEMPTED, /* ns runnable but not running (stats.waiting_ns) */
	COMPARE_M_START,     /* ns from the run's root start to the thread's start */
	COMPARE_M_END,	     /* ns from the run's root start to the thread's end */
	COMPARE_M_RUNS,	     /* number of run actions */
	COMPARE_M_SLEEPS,    /* number of timed sleeps */
	COMPARE_M_COUNT,
};

/* Name used in JSON and tables ("cpu", "blocked", ...). */
const char *compare_metric_name(enum compare_metric_id m);
/* True for figures in ns, false for counts. */
bool compare_metric_is_time(enum compare_metric_id m);

/* One figure on both sides. has[] is false where the thread does not exist on that side. */
struct compare_value {
	int64_t v[2]; /* indexed by enum compare_side */
	bool has[2];
};

/* Memory curve error of one thread or of the whole run (bytes). */
struct compare_mem_error {
	size_t n_points[2]; /* [0] heap, [1] stack: compared points (0: no curve) */
	int64_t max_abs[2]; /* [0] heap, [1] stack: max |sim - orig| */
	double mean_abs[2]; /* [0] heap, [1] stack: mean |sim - orig| */
};

enum compare_match {
	COMPARE_MATCHED = 0,
	COMPARE_ORIG_ONLY = 1,
	COMPARE_SIM_ONLY = 2,
};

struct compare_thread {
	size_t idx[2]; /* thread index on each side, COMPARE_NO_THREAD if absent */
	enum compare_match match;
	char *path;   /* owned: place in the creation tree: "0", "0.2", "0.~0", "0.+3" */
	size_t depth; /* 0 for the root */
	struct compare_value m[COMPARE_M_COUNT];
	bool has_mem; /* both sides have memory samples for this thread */
	struct compare_mem_error mem;
};

struct compare_side_info {
	const struct analyzer_result *model; /* borrowed */
	enum compare_input_kind kind;
	char *label;	      /* owned: what the user named (path) */
	uint64_t origin_ns;   /* the root thread's start: offsets are relative to it */
	uint64_t makespan_ns; /* last end - origin (earliest start if before origin) */
	uint64_t cpu_total_ns;
	/* The whole process as an outside witness sees it (analyzer_process_figures): its CPU
	 * (every thread, the ones not compared included) and its wall time from exec to the end
	 * of its last thread. For a set (no process) the model's own cpu_total and makespan. */
	bool process_known;
	uint64_t process_cpu_ns, process_wall_ns;
	bool has_mem;	/* some thread has memory samples */
	size_t *row_of; /* owned: thread index -> row in compare_result.threads,
			 * COMPARE_NO_THREAD for an excluded thread */
	bool *excluded; /* owned: per thread, dropped by compare_options */
	size_t n_excluded;
	/* How busy the machine was while the run was recorded (a dps record trace's
	 * record.info); load.known is false for sets and other traces. */
	struct dps_load load;
};

struct compare_result {
	struct compare_side_info side[2];
	struct compare_thread *threads; /* owned: rows, depth-first over the creation tree */
	size_t n_threads;
	size_t n_matched, n_orig_only, n_sim_only;

	int64_t makespan_err_ns; /* sim - orig */
	double makespan_err_pct; /* |sim - orig| / orig * 100 */
	uint64_t cpu_abs_err_ns; /* sum over rows of |cpu sim - cpu orig| */
	double cpu_err_pct;	 /* cpu_abs_err_ns / orig CPU total * 100 */
	double fidelity_err_pct; /* max(cpu_err_pct, makespan_err_pct): lower is better */
	/* The process-level errors (sim - orig, and |sim - orig| / orig * 100): what the stub's
	 * start-up and exit add, beyond the compared threads' windows. */
	int64_t process_cpu_err_ns, process_wall_err_ns;
	double process_cpu_err_pct, process_wall_err_pct;
	/* |cpu sim - cpu orig| / cpu orig * 100 over matched threads with CPU in orig */
	size_t n_thread_cpu; /* threads counted (0: median/max are 0) */
	double thread_cpu_err_median_pct;
	double thread_cpu_err_max_pct;

	bool has_mem;		      /* both sides carry memory samples */
	struct compare_mem_error mem; /* over every matched thread's points */
	/* A side was recorded under load (dps_load_is_under_load): its timings, and so the
	 * figures above, include what the others took. Said next to the headline figure. */
	bool under_load;
	/* What was run, for the outputs (compare_run_info); NULL: unknown, only the version is
	 * written. Set by the caller after compare_run, before writing. Borrowed. */
	const struct compare_run_info *run;
};

/* What to leave out of a comparison (compare_options_default: lttng-ust's threads), and where
 * the traces are. */
struct compare_options {
	const char *const *exclude_comm; /* borrowed: fnmatch(3) patterns of thread names
					  * dropped from both runs (never the root) */
	size_t n_exclude_comm;
	bool keep_tracer_threads; /* false: also drop lttng-ust's listener threads, named
				   * "<program>-ust", which every UST-traced process starts */
	/* borrowed: where each side's trace is now, indexed by enum compare_side, when its
	 * label names another place (dps replay labels its simulated trace by where it will be
	 * once its output directory is in place); record.info (the load while it was recorded)
	 * is read there. NULL: the label. */
	const char *trace_dir[2];
};

void compare_options_default(struct compare_options *opts);

/*
 * What produced a comparison (doc/compare.md, "Run parameters"): the JSON's "run" object and
 * the report's "Run parameters" section. Every pointer is borrowed and must outlive the
 * writers' calls; the dps version is the compare library's own (DPS_VERSION).
 */
struct compare_run_info {
	const char *command;	 /* the subcommand: "compare", "replay" */
	const char *const *args; /* its arguments as given (after the subcommand), n_args */
	size_t n_args;
	const char *calibration;	   /* the calibration file used; NULL: none */
	const char *calibration_source;	   /* where it came from ("given", "measured"), or NULL */
	const struct dps_calibration *cal; /* its figures; NULL: not read */
	const struct analyzer_options *sel[2]; /* each side's selection (trace inputs); NULL */
	const char *const *knobs;	       /* what-if knobs and options that change the outputs:
						* name, value pairs ("--scale", "2"; value NULL for a flag),
						* n_knobs pairs */
	size_t n_knobs;
	/* What the simulated run changes on purpose, e.g. "thread 23703 at 0.50x" (dps whatif's
	 * timelines of a point, dps replay with a what-if knob); NULL: the simulated run is meant
	 * to reproduce the original. With a change, the outputs headline its effect (the
	 * program's time against the original's), not a fidelity error: the difference is the
	 * answer. */
	const char *change;
};

/* Options of the HTML writer. */
struct compare_html_options {
	const char *title; /* NULL: "dps compare" */
};

/*
 * Builds a model from a resolved action set by playing it on an ideal machine: each thread is
 * sequential, run and sleep last exactly as written, create starts the child at that instant,
 * join blocks until the child has ended, wait until the matching wake was given; nothing is
 * ever preempted. Times start at 0 (the root's start). Returns DPS_OK; DPS_ERR_INVAL when the
 * set is not resolved or deadlocks (diag names a blocked thread and what it waits for);
 * DPS_ERR_NOMEM. *out is NULL on error; the caller destroys it with analyzer_result_destroy().
 */
enum dps_status compare_model_from_actset(const struct dps_actset *set,
					  struct analyzer_result **out, struct dps_diag *diag);

/* True when path is a directory that holds an action set (<id>.act files or a manifest). */
bool compare_path_is_actset(const char *path);

/*
 * Loads one side: an action set directory (-> compare_model_from_actset) or a trace
 * (-> analyzer_run with opts, whose traces/n_traces are replaced by path). *kind says which.
 * Returns DPS_OK or the loader's status with diag filled; *out is NULL on error.
 */
enum dps_status compare_load(const char *path, const struct analyzer_options *opts,
			     struct analyzer_result **out, enum compare_input_kind *kind,
			     struct dps_diag *diag);

/*
 * Compares two models (borrowed: they must outlive the result). labels name the inputs in
 * the outputs (NULL: the model's source); a trace side's record.info is read from
 * opts->trace_dir, else its label. opts NULL means compare_options_default. Returns
 * DPS_OK, DPS_ERR_INVAL when a model has no thread or no valid root, DPS_ERR_NOMEM. *out is
 * NULL on error.
 */
enum dps_status compare_run(const struct analyzer_result *orig, enum compare_input_kind orig_kind,
			    const char *orig_label, const struct analyzer_result *sim,
			    enum compare_input_kind sim_kind, const char *sim_label,
			    const struct compare_options *opts, struct compare_result **out,
			    struct dps_diag *diag);

void compare_result_destroy(struct compare_result *res); /* accepts NULL */

/* The relative error |sim - orig| / orig * 100 of a figure; 0 when both are 0, 100 when only
 * orig is 0 (something appeared from nothing), and for absent sides. */
double compare_value_err_pct(const struct compare_value *val);

/* Writers. Return DPS_OK or DPS_ERR_IO (write failed) / DPS_ERR_NOMEM. */
enum dps_status compare_write_text(const struct compare_result *res, FILE *out, bool all_rows);
enum dps_status compare_write_json(const struct compare_result *res, FILE *out);
enum dps_status compare_write_html(const struct compare_result *res,
				   const struct compare_html_options *opts, FILE *out);

/* True when a figure's relative error is not shown (a time figure on a base under
 * COMPARE_SMALL_BASE_NS, both sides present): the outputs give the absolute difference. */
bool compare_value_small_base(const struct compare_value *val, enum compare_metric_id m);

/* Humanized figures for tables: "12.3 ms", "850 ns", "64.0 KiB". buf holds >= 32 bytes. */
const char *compare_format_ns(int64_t ns, bool sign, char *buf, size_t len);
const char *compare_format_bytes(double bytes, char *buf, size_t len);

#endif /* DPS_COMPARE_COMPARE_H */
