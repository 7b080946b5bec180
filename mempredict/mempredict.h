/* SPDX-License-Identifier: MIT */
/*
 * Memory-use prediction (doc/memory-predict.md): per-phase, per-class heap profiles from
 * recordings (the Murphy & Saenko paper's data sets, ../shared/seeds/002_…), and predictions
 * of a phase's peak and average heap for an input the program has not run on.
 *
 * The profile (profile.c) is pure C: it is fed neutral heap events (struct mp_event) and
 * knows nothing of babeltrace2; bt-read.c turns a recording into those events. fit.c and
 * predict.c work on a loaded profile only. Every function returns a status of
 * enum dps_status (0 ok, negative error) and fills diag on error.
 */
#ifndef DPS_MEMPREDICT_H
#define DPS_MEMPREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dps/dps-status.h>

#include "diag.h"

/* One class in one data set (a run's phase). Counts are objects, sizes bytes. */
struct mp_class_stats {
	char *name;		     /* owned */
	uint64_t allocated;	     /* objects allocated during the phase */
	uint64_t max_active;	     /* the paper's: live at the phase's start + allocated in it */
	uint64_t end_active;	     /* live at the phase's end */
	uint64_t live_max;	     /* the most live at once (frees counted) */
	double avg_active;	     /* time-weighted average of live objects */
	uint64_t bytes;		     /* bytes allocated during the phase */
	uint64_t peak_live_bytes;    /* the class's own most live bytes */
	double avg_live_bytes;	     /* time-weighted average of its live bytes */
	uint64_t live_at_peak_bytes; /* its live bytes when the phase's total peaked */
	double avg_size;	     /* of the objects allocated (or live at start) */
	uint64_t max_size;
};

/*
 * A data set's live bytes over time, for the HTML view: sampled at most every so often (the
 * interval doubles as the phase goes on), so a phase keeps MP_SERIES_MAX / 2 to MP_SERIES_MAX
 * points; the MP_SERIES_CLASSES biggest classes by their own peak, the others summed.
 */
#define MP_SERIES_MAX 400
#define MP_SERIES_CLASSES 8

struct mp_series {
	size_t n_points;
	uint64_t *t_ns; /* owned, n_points: from the phase's start */
	size_t n_rows;
	char **names;	 /* owned, n_rows (each owned): the classes; NULL for the others summed */
	uint64_t *bytes; /* owned, n_rows x n_points, one row after the other */
};

/* A data set: one phase of one run. */
struct mp_dataset {
	char *run;     /* owned: the trace's path */
	char *command; /* owned: the command recorded (its record.info), NULL when unknown */
	char *phase;   /* owned */
	double size;   /* the run's input size; < 0 when unknown */
	uint64_t duration_ns;
	uint64_t peak_bytes;		/* total live heap at its peak in the phase */
	double avg_bytes;		/* time-weighted average total live heap */
	uint64_t start_bytes;		/* total live heap at the phase's start */
	uint64_t end_bytes;		/* ... and at its end */
	struct mp_class_stats *classes; /* owned, n_classes */
	size_t n_classes;
	struct mp_series series; /* empty in a profile written before it existed */
};

struct mp_profile {
	struct mp_dataset *sets; /* owned */
	size_t n_sets;
};

void mp_profile_fini(struct mp_profile *p);
/* The class named name in a data set, or NULL. */
const struct mp_class_stats *mp_dataset_find_class(const struct mp_dataset *d, const char *name);

/*
 * Building a profile from one run's events, in time order (profile.c).
 */
enum mp_event_kind {
	MP_EV_ALLOC,   /* ptr, size, class */
	MP_EV_FREE,    /* ptr */
	MP_EV_REALLOC, /* old_ptr -> ptr, size, class (used when old_ptr is NULL) */
	MP_EV_CLASS,   /* the live allocation at ptr is of class `class` */
	MP_EV_PHASE,   /* a phase named `class` begins */
	MP_EV_SIZE,    /* the run's input size is `size` */
};

struct mp_event {
	enum mp_event_kind kind;
	uint64_t ts_ns;
	uint64_t pid; /* live allocations are keyed by (pid, ptr) */
	uint64_t ptr, old_ptr, size;
	const char *class; /* borrowed for the call */
};

struct mp_run;
/* A run named run (copied) whose input size is size (< 0: unknown, from a MP_EV_SIZE). NULL
 * when out of memory. */
struct mp_run *mp_run_create(const char *run, double size);
void mp_run_destroy(struct mp_run *r);
/*
 * Phases by time: a phase named names[i] begins at offsets_ns[i] after the run's first event
 * (as if a mark were there), for the n given in any order. Both arrays are borrowed until
 * mp_run_finish. Call before the first event.
 */
void mp_run_set_phase_times(struct mp_run *r, const char *const *names, const uint64_t *offsets_ns,
			    size_t n);
/* Feeds one event; DPS_ERR_NOMEM is the only error. */
int mp_run_feed(struct mp_run *r, const struct mp_event *ev);
/* The number of heap events fed (allocations, frees, reallocs). */
uint64_t mp_run_heap_events(const struct mp_run *r);
/* Ends the run at end_ns and appends its data sets (one per phase, classes sorted by name) to
 * p. */
int mp_run_finish(struct mp_run *r, uint64_t end_ns, struct mp_profile *p);

/*
 * Reading a recording (bt-read.c): every lttng_ust_libc event and the dps:mem_class, dps:phase
 * and dps:mem_size marks of the trace(s) under path (of the process record.info names, when it
 * does, unless all_processes), allocation sites resolved through
 * babeltrace2's debug-info filter and the binaries' DWARF; the data sets name the command
 * record.info names. DPS_ERR_INVAL for a recording
 * without a libc wrapper event (recorded without --memory), DPS_ERR_NOENT for no trace.
 */
struct mp_read_options {
	/* phases also begin at every entry into these functions (lttng_ust_cyg_profile events of
	 * a program built with -finstrument-functions), named after them */
	const char *const *phase_funcs; /* borrowed */
	size_t n_phase_funcs;
	/* phases by time: phase_at_names[i] begins phase_at_ns[i] after the process's first heap
	 * event or mark (mp_run_set_phase_times) */
	const char *const *phase_at_names; /* borrowed */
	const uint64_t *phase_at_ns;	   /* borrowed */
	size_t n_phase_at;
	/* allocation wrappers: an allocation made inside one of these functions is of its
	 * caller's site (from the lttng_ust_cyg_profile func_entry events' call_site, a program
	 * built with -finstrument-functions) */
	const char *const *wrappers; /* borrowed */
	size_t n_wrappers;
	bool raw_ip;	    /* classes by raw caller address, no resolution */
	bool all_processes; /* not only the recorded command's process (record.info's pid) */
};
int mp_read_trace(const char *path, double size, const struct mp_read_options *o,
		  struct mp_profile *p, struct dps_diag *diag);

/*
 * The profile file (profile-io.c): JSON, written whole or not at all; the text table.
 */
int mp_profile_save(const struct mp_profile *p, const char *path, struct dps_diag *diag);
/* DPS_ERR_INVAL for a file that is not a profile (diag says where), DPS_ERR_NOENT. */
int mp_profile_load(const char *path, struct mp_profile *p, struct dps_diag *diag);
void mp_profile_print(const struct mp_profile *p, FILE *out);
/* bytes as "12.3 MB" in buf (decimal units, like heaptrack); returns buf. */
const char *mp_human_bytes(double b, char *buf, size_t len);

/*
 * The HTML views (html.c): one self-contained page each (inline SVG and CSS, no script, no
 * outside resource); every name from a trace is escaped.
 *  - the profile: per data set, its classes' live bytes over time as a stacked area chart (the
 *    biggest classes and the others summed) and the class table (the paper's annotated class
 *    diagram): sizes, the multiplicity relative to the basis class (NULL: the class with the
 *    most objects potentially active in a data set), objects, live bytes;
 *  - the prediction: what it was made from (the program, the profile, the runs and their
 *    sizes), the peak against the basis count (the runs' measured peaks, the fitted curve of
 *    mp_prediction_add_curve, the predicted point and its range), then per phase each class's
 *    predicted peak and average as bars, the range as a whisker, the paper's figure as a tick.
 * The _save forms write the file whole or not at all (DPS_ERR_IO, diag names it).
 */
void mp_profile_write_html(const struct mp_profile *p, const char *basis, FILE *out);
int mp_profile_save_html(const struct mp_profile *p, const char *basis, const char *path,
			 struct dps_diag *diag);

/*
 * Prediction (predict.c).
 */
struct mp_predict_options {
	const char *basis;  /* the basis class; NULL with by_size */
	double count;	    /* the number of basis objects expected, or the input size (> 0) */
	bool by_size;	    /* against the runs' input sizes instead of a basis class */
	const char *source; /* borrowed: the profile's path, named by the outputs; NULL: none */
};

struct mp_class_prediction {
	char *phase; /* owned */
	char *name;  /* owned */
	double peak_bytes, avg_bytes;
	double peak_lo, peak_hi;
	double paper_peak_bytes, paper_avg_bytes;
	const char *model; /* static: "constant", "linear", ..., or "ratio" (too few sizes) */
	double cv_error;   /* the model's leave-one-out relative error (-1: none) */
	double share;	   /* of the phase's predicted peak */
};

struct mp_phase_prediction {
	char *name; /* owned */
	double peak_bytes, avg_bytes, peak_lo, peak_hi, avg_lo, avg_hi;
	double paper_peak_bytes, paper_avg_bytes;
	double duration_share; /* of a run's time, mean over the runs */
	double duration_ns;    /* predicted at the new size; < 0 without a fit */
	/* the predicted curve (--actions): live heap at the start and the end, and the time
	 * (the fitted duration, else the data sets' scaled linearly) */
	double start_bytes, end_bytes, curve_ns;
	size_t n_sets, n_sizes;
	bool fitted; /* >= 3 distinct basis counts: models fitted; else the paper's ratios */
};

/* A run the prediction was made from: its basis count (or input size) and its measured peak,
 * the highest of its phases'. */
struct mp_run_peak {
	char *run;     /* owned: the trace's path */
	char *command; /* owned: the command recorded, NULL when unknown */
	double x;
	double peak_bytes;
};

/* How many basis counts mp_prediction_add_curve evaluates, besides the runs' and the count. */
#define MP_CURVE_POINTS 64

struct mp_prediction {
	char *basis;  /* owned */
	char *source; /* owned: the profile's path (mp_predict_options), NULL: not given */
	double count;
	double peak_bytes, avg_bytes, peak_lo, peak_hi, avg_lo, avg_hi;
	double paper_peak_bytes, paper_avg_bytes;
	struct mp_phase_prediction *phases; /* owned, n_phases */
	size_t n_phases;
	struct mp_class_prediction *classes; /* owned, n_classes, by phase then bytes */
	size_t n_classes;
	struct mp_run_peak *runs; /* owned, n_runs: the profile's runs by basis count */
	size_t n_runs;
	/* the predicted peak against the basis count (mp_prediction_add_curve; empty without):
	 * owned, n_curve points by count, the last at or past the count and every run's */
	double *curve_x, *curve_peak;
	size_t n_curve;
};

/* DPS_ERR_INVAL: an unknown basis class (diag lists some known), a count <= 0, an empty
 * profile, by_size with a run of unknown size. *out is filled; free it with mp_prediction_fini. */
int mp_predict(const struct mp_profile *p, const struct mp_predict_options *o,
	       struct mp_prediction *out, struct dps_diag *diag);
void mp_prediction_fini(struct mp_prediction *pr);
/*
 * The predicted peak at MP_CURVE_POINTS basis counts from 0 to past the largest of the count and
 * the runs', and at the runs' and the count itself, into pr->curve_*: the same models (the
 * chosen fit of every class, summed per phase, the highest phase) as pr's, evaluated there. p
 * and o are what pr was predicted from. The HTML page draws it. DPS_OK, DPS_ERR_NOMEM.
 */
int mp_prediction_add_curve(struct mp_prediction *pr, const struct mp_profile *p,
			    const struct mp_predict_options *o, struct dps_diag *diag);
void mp_prediction_print(const struct mp_prediction *pr, FILE *out);
/* JSON on out; DPS_ERR_IO when it cannot be written. */
int mp_prediction_write_json(const struct mp_prediction *pr, FILE *out);
/* The prediction's HTML view (html.c, see mp_profile_write_html). */
void mp_prediction_write_html(const struct mp_prediction *pr, FILE *out);
int mp_prediction_save_html(const struct mp_prediction *pr, const char *path,
			    struct dps_diag *diag);
/*
 * The predicted heap curve as an action set in dir (actions.c): one thread, each phase a rise
 * from its start to its peak, a plateau and a fall to its end, shaped so that its average is
 * the predicted one, in the predicted time. Written whole or not at all; dir may be an
 * existing action set (replaced). DPS_ERR_INVAL for a dir that is something else.
 */
int mp_prediction_write_actions(const struct mp_prediction *pr, const char *dir,
				struct dps_diag *diag);

#endif /* DPS_MEMPREDICT_H */
