/* SPDX-License-Identifier: MIT */
/*
 * The analyzer: recorded traces (LTTng kernel/UST, perf-CTF) -> per-thread timelines, statistics
 * and an action set (doc/analyzer.md).
 *
 * struct analyzer_result is also the model that compare/ works on: compare builds one from a
 * trace (analyzer_run) or from an action set (compare_model_from_actset) and matches threads by
 * their place in the creation tree (parent + create_rank), never by tid.
 */
#ifndef DPS_ANALYZER_ANALYZER_H
#define DPS_ANALYZER_ANALYZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "actset.h"
#include "diag.h"

#define ANALYZER_NO_THREAD SIZE_MAX

/* What a thread was doing during a segment of its timeline. */
enum analyzer_seg_kind {
	ANALYZER_SEG_RUN = 0,	    /* on CPU */
	ANALYZER_SEG_PREEMPTED = 1, /* runnable, not running (t_waiting) */
	ANALYZER_SEG_SLEEP = 2,	    /* blocked, ended by a timer/IO/untraced waker */
	ANALYZER_SEG_WAIT = 3,	    /* blocked until a traced thread woke it */
	ANALYZER_SEG_JOIN = 4,	    /* blocked until a traced thread it reaps exited */
};

struct analyzer_segment {
	uint64_t begin_ns; /* ns from the trace clock's origin */
	uint64_t end_ns;
	uint32_t kind;	/* enum analyzer_seg_kind */
	uint32_t other; /* WAIT/JOIN: index of the waker/joined thread; SLEEP: 0, or
			 * ANALYZER_OTHER_TRACER */
};

/* A sleep that the tracer's own thread ended (lttng-ust's listener, when the program waits in
 * its constructor for the session daemon's registration): the recording's cost, no action. */
#define ANALYZER_OTHER_TRACER UINT32_MAX

enum analyzer_mark_kind {
	ANALYZER_MARK_CREATE = 0, /* this thread created `other` */
	ANALYZER_MARK_JOIN = 1,	  /* this thread reaped `other` */
	ANALYZER_MARK_WAKE = 2,	  /* this thread woke `other` */
	ANALYZER_MARK_EXIT = 3,	  /* this thread exited */
};

struct analyzer_mark {
	uint64_t ts_ns;
	uint32_t kind;	/* enum analyzer_mark_kind */
	uint32_t other; /* thread index, or 0 */
};

/* One point of a thread's memory curve: the value after the change at ts_ns. */
struct analyzer_mem_sample {
	uint64_t ts_ns;
	int64_t heap_bytes;  /* heap in use by this thread */
	int64_t stack_bytes; /* stack depth */
};

struct analyzer_thread_stats {
	uint64_t busy_ns;    /* t_busy: on CPU */
	uint64_t blocked_ns; /* t_blocked: sleeping, waiting or joining */
	uint64_t waiting_ns; /* t_waiting: preempted, runnable */
	uint64_t n_runs, n_sleeps, n_waits, n_wakes, n_creates, n_joins;
	uint64_t n_switches; /* context switches out */
	uint64_t n_folded;   /* blocks shorter than --min-block folded into run */
	uint64_t n_ticks;    /* timed-out waits of a waiting loop a traced thread ended (ticks.h) */
	uint64_t n_tracer;   /* sleeps the tracer's own threads ended, dropped (its start-up) */
	/* the CPU time spent inside the probe's calls (libgomp spinning at a barrier before it
	 * sleeps): the calls' own, played by their objects, not as runs (sync-probe.c) */
	uint64_t call_cpu_ns;
	/* which thread to study (rank.c): its time on the recorded critical path, and the time
	 * the other kept threads were blocked in waits and joins it ended */
	uint64_t critical_ns, waited_on_ns;
	/* extensions (analyzer helper) */
	bool busy_exact; /* busy_ns is the sum of sched_stat_runtime */
	/* of busy_ns, what came before the thread's timeline began (a thread selected late,
	 * its name matched after exec): not in its segments, not played */
	uint64_t busy_untracked_ns;
	uint64_t n_inferred;	    /* switch-ins inferred (missing from the trace) */
	uint64_t n_allocs, n_frees; /* libc wrapper events of this thread */
	uint64_t n_free_null;	    /* free(NULL) */
	uint64_t n_free_unknown;    /* free of a pointer not allocated in the trace */
	int64_t heap_peak_bytes, stack_peak_bytes;
};

struct analyzer_thread {
	uint64_t id;	    /* action-set id */
	int64_t tid;	    /* original tid, -1 if unknown */
	int64_t pid;	    /* original pid, -1 if unknown */
	char *comm;	    /* owned: last known name */
	size_t parent;	    /* index of the creator, ANALYZER_NO_THREAD for the root */
	size_t create_rank; /* position among the parent's creations, 0-based */
	bool pre_existing;  /* alive before the trace began */
	uint64_t start_ns;  /* first instant in the trace (creation or first event) */
	uint64_t end_ns;    /* exit, or last event */
	struct analyzer_thread_stats stats;
	struct analyzer_segment *segs; /* owned, time-ordered */
	size_t n_segs, cap_segs;
	struct analyzer_mark *marks; /* owned, time-ordered */
	size_t n_marks, cap_marks;
	struct analyzer_mem_sample *mem; /* owned, time-ordered, may be empty */
	size_t n_mem, cap_mem;
};

/*
 * The selected process as the kernel saw it, whole: what an outside witness measures. Every
 * thread of the root's process (and of the kept child processes), those left out of the set
 * included (lttng-ust's listener threads, a simulated run's start-up and exit), from the
 * root's exec (its start when the trace has no exec of it) to the end of the last of them.
 */
struct analyzer_process_figures {
	bool known;	   /* computed (a selection from a trace) */
	uint64_t cpu_ns;   /* their CPU time */
	bool cpu_exact;	   /* every thread's from sched_stat_runtime */
	uint64_t begin_ns; /* the root's exec, or its start */
	uint64_t end_ns;   /* the last of them ends */
	size_t n_threads;
};

/*
 * What a recorded wait the set keeps was on (futex.c): the kind of the futex word the waiter
 * slept on, when the trace has the futex syscall events. dps whatif reads them: a lock's or a
 * barrier's waits pin an order that a faster or slower thread may change.
 */
enum analyzer_pin_kind {
	ANALYZER_PIN_UNKNOWN = 0, /* the trace has no futex events */
	ANALYZER_PIN_NOT_FUTEX,	  /* the block was in no futex wait (a pipe, poll, a sleep) */
	ANALYZER_PIN_EVENT,	  /* a word one set of threads waits on, another wakes */
	ANALYZER_PIN_LOCK,	  /* a word the same threads wait on and wake: a lock */
	ANALYZER_PIN_BROADCAST,	  /* a word one thread always wakes all of: a barrier whose
				   * last arriver never changed, or a broadcast */
	ANALYZER_PIN_PARTIAL,	  /* a barrier whose waiters do not all sleep (they spin) */
	ANALYZER_PIN_BARRIER,	  /* a barrier re-enacted as an object (no wait is kept) */
	ANALYZER_PIN_TIMEOUT,	  /* a timed wait that timed out on a word another thread wakes:
				   * kept as a fixed sleep, which that thread would end sooner or
				   * later at another speed (waker: one of the word's wakers) */
	ANALYZER_PIN_NR,
};

/* "unknown", "not a futex", "event", "lock", "broadcast", "partial barrier", "barrier". */
const char *analyzer_pin_kind_name(uint32_t kind);

/* The recorded waits the set keeps of one thread (waiter) on another (waker), on one kind of
 * word: how many and how long they blocked in the recording. */
struct analyzer_pin {
	size_t waiter, waker; /* result thread indexes */
	uint32_t kind;	      /* enum analyzer_pin_kind */
	uint64_t n;
	uint64_t blocked_ns;
};

/* The futex words of the selection's threads (futex.c), by what they were found to be. */
struct analyzer_futex_figures {
	uint64_t n_words;     /* words both waited on and woken, the probe's excluded */
	uint64_t n_explained; /* words of the probe's calls or the wrapper's mutexes */
	uint64_t n_barrier, n_partial, n_broadcast, n_lock, n_event;
};

struct analyzer_result {
	struct analyzer_thread *threads; /* owned array */
	size_t n_threads, cap_threads;
	size_t root;		   /* index of the root thread */
	uint64_t begin_ns, end_ns; /* span of the selection */
	uint64_t n_events;	   /* events read */
	bool partial;		   /* lost events or truncated input */
	char *partial_reason;	   /* owned, NULL when complete */
	struct dps_actset *actset; /* owned, NULL when not built */
	char *source;		   /* owned: trace path(s) or action-set dir */
	/* extensions (analyzer helper) */
	uint64_t n_discarded;		/* events reported lost by the tracer */
	struct analyzer_process *procs; /* owned: analyzer_list_processes() only */
	size_t n_procs;
	struct analyzer_process_figures process; /* analyzer_run() with a selection */
	/* synchronization (analyzer_run() with actions built): the recorded waits kept per
	 * pair and kind of word (owned), whether the trace had the futex events, its words,
	 * and what the probe saw and no action can re-enact (owned strings: "omp task") */
	struct analyzer_pin *pins;
	size_t n_pins;
	bool has_futex;
	struct analyzer_futex_figures futex;
	char **unmodelled;
	size_t n_unmodelled;
};

/* One process of a trace, for choosing a selection (dps analyze with no selection). */
struct analyzer_process {
	int64_t pid; /* pid, or its first thread's tid when pid_known is false */
	bool pid_known;
	char *comm; /* owned: name of its main (or first) thread */
	size_t n_threads;
	uint64_t cpu_ns;	   /* CPU time of all its threads */
	uint64_t begin_ns, end_ns; /* lifetime within the trace */
};

/* What to analyze and how (dps analyze's options). */
struct analyzer_options {
	const char *const *traces; /* borrowed: trace directories (CTF, or parents of several) */
	size_t n_traces;
	int64_t pid;		      /* selection: -1 = none */
	int64_t tid;		      /* selection: -1 = none */
	const char *comm;	      /* selection: NULL = none */
	bool follow_children;	      /* replay fork+exec children as threads */
	int64_t min_block_ns;	      /* -1: from the calibration file, else the default */
	const char *calibration_path; /* NULL: none */
	bool progress;		      /* show progress on stderr when it is a terminal */
	bool build_actset;	      /* also build result->actset (not with out_dir) */
	bool keep_timelines; /* the threads' segs, marks and mem in the result (default); false:
			      * each is dropped once its actions are built, so that memory does
			      * not grow with the selection's actions (dps analyze, replay) */
	/* Write the action set into this directory (dps_actset_writer: replaced whole, never
	 * half-written), each thread's file as soon as its actions are built; result->actset
	 * stays NULL. NULL: not written. */
	const char *out_dir;
	unsigned out_flags;	   /* enum dps_out_flags for out_dir */
	bool keep_tracer_threads;  /* keep lttng-ust's listener threads ("<name>-ust") */
	bool strict;		   /* an incomplete input (skips, lost events) is an error */
	int64_t decode_timeout_ns; /* decoder watchdog; <= 0: DPS_DECODE_TIMEOUT, else 10 s */
	int decode_jobs; /* decoders on stream groups: 1 one decoder, <= 0 one per online CPU */
	/*
	 * Called once the selection's threads are known, before any action is built (analyzer_run
	 * only; NULL: not called). res holds their identities only (id, tid, pid, comm, start
	 * and end; n_threads, root), as the set will have them. A status other than DPS_OK
	 * stops the analysis with it (the callback fills diag). *min_block_ns is the block
	 * threshold the actions will be built with, -1 when neither the option nor a
	 * calibration file gave one: the callback may set it. dps replay and dps whatif check
	 * the threads their options name there, then calibrate, so that bad input is refused
	 * before the slow work and the set still folds blocks by the new calibration.
	 */
	enum dps_status (*on_threads)(void *arg, const struct analyzer_result *res,
				      int64_t *min_block_ns, struct dps_diag *diag);
	void *on_threads_arg; /* borrowed: on_threads's */
};

void analyzer_options_default(struct analyzer_options *opts);

/*
 * Reads the traces through libbabeltrace2 and builds the result for the selection.
 * Returns DPS_OK; DPS_ERR_INVAL when the selection matches nothing or several processes
 * (diag lists the candidates) or an option is bad; DPS_ERROR when babeltrace2 refuses a trace
 * (diag holds its error causes as one message), crashes or stalls in it (diag: the trace,
 * stream and offset), or with opts->strict when the result would be partial; DPS_ERR_NOMEM.
 * *out is NULL on error.
 * With no selection at all, returns DPS_ERR_INVAL and the process list in diag.
 */
enum dps_status analyzer_run(const struct analyzer_options *opts, struct analyzer_result **out,
			     struct dps_diag *diag);

/*
 * Reads the traces and lists their processes (result->procs, sorted by CPU time, largest
 * first); no thread is built. Errors as analyzer_run.
 */
enum dps_status analyzer_list_processes(const struct analyzer_options *opts,
					struct analyzer_result **out, struct dps_diag *diag);

/* A duration as --min-block takes it: a number of µs, or with a unit (850ns, 20us, 0.5ms, 1s).
 * Returns false (and leaves *ns) when s is not one. dps's options and sink.dps.actions's
 * min-block parameter read it so. */
bool analyzer_parse_duration(const char *s, int64_t *ns);

/* The min_block_ns of a dps calibrate file into *ns. Returns DPS_OK; DPS_ERR_IO when it cannot
 * be read, DPS_ERR_INVAL when it is malformed (diag says where). */
int analyzer_read_min_block(const char *path, int64_t *ns, struct dps_diag *diag);

/* Default --min-block when neither the option nor a calibration file gives one. */
#define ANALYZER_DEFAULT_MIN_BLOCK_NS 20000

/* Bytes per call level when only lttng_ust_cyg_profile events give the stack (no sp). */
#define ANALYZER_CYG_FRAME_BYTES 128

/* Writes the statistics as a terminal table / as JSON (dps analyze, --json; doc/analyzer.md). */
#define ANALYZER_JSON_SCHEMA "dps-analyze/1"
void analyzer_result_print_table(const struct analyzer_result *res, FILE *out);
void analyzer_result_print_json(const struct analyzer_result *res, FILE *out);
void analyzer_processes_print(const struct analyzer_result *res, FILE *out);

/*
 * Which thread to study (rank.c, doc/analyzer.md): the result's thread indexes ranked by their
 * time on the recorded critical path, then CPU time (g_free); the path's length (the sum of
 * the threads' critical_ns); the first limit of them as a table.
 */
size_t *analyzer_rank_order(const struct analyzer_result *res);
uint64_t analyzer_rank_span(const struct analyzer_result *res);
void analyzer_rank_print(const struct analyzer_result *res, size_t limit, FILE *out);

/*
 * Makes a `dps record` trace one trace for babeltrace2: the perf part's clock (CLOCK_MONOTONIC
 * like LTTng's, but written without an origin) gets the UST part's offset from the epoch and
 * is marked absolute, so babeltrace2's muxer puts both parts on one time line (analyzer/clocks.c).
 * The raw timestamps dps reads do not change. Nothing to do without both parts. Returns DPS_OK,
 * or DPS_ERROR / DPS_ERR_IO with diag naming the file (the trace is still usable by dps).
 */
int analyzer_unify_clocks(const char *trace_dir, struct dps_diag *diag);

struct dps_record_options;
struct dps_record_result;
/*
 * dps record as one call, for every command that records: dps_record_run, then, when it
 * succeeded, analyzer_unify_clocks on the trace. Returns dps_record_run's status (diag, res as
 * it fills them). Clocks left apart are no failure (dps reads the parts apart; only babeltrace2
 * on the whole directory is affected): clocks->msg says why, empty when they are one.
 */
enum dps_status analyzer_record(const struct dps_record_options *opts,
				struct dps_record_result *res, struct dps_diag *diag,
				struct dps_diag *clocks);

struct analyzer_result *analyzer_result_create(void);
void analyzer_result_destroy(struct analyzer_result *res); /* accepts NULL */

#endif /* DPS_ANALYZER_ANALYZER_H */
