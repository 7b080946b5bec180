/* SPDX-License-Identifier: MIT */
/*
 * libdps — the dynamic performance stubs runtime.
 *
 * The papers' performance simulation functions (PSF) for CPU (run, sleep), thread lifecycle
 * (create, join) and inter-thread dependencies (wait, wake), the calibration functions (CF)
 * they need, and an action player that generated programs call. Usable by hand as a "local
 * stub" dropped into real code (test-runtime-cli compiles and runs this example as written,
 * from the installed header):
 *
 * BEGIN EXAMPLE
 *	#include <stdio.h>
 *	#include <dps/dps.h>
 *
 *	int main(void)
 *	{
 *		char err[256];
 *
 *		// the calibration: DPS_CALIBRATION's file, else a quick measurement
 *		if (dps_init(NULL, err, sizeof(err)) != DPS_OK) {
 *			fprintf(stderr, "dps: %s\n", err);
 *			return 1;
 *		}
 *		dps_run_ns(2 * 1000 * 1000, DPS_RUN_CPU);	// 2 ms of CPU
 *		dps_sleep_ns(500 * 1000);			// 0.5 ms asleep
 *		return 0;
 *	}
 * END EXAMPLE
 *
 * Build: cc stub.c $(pkg-config --cflags --libs dps)
 *
 * Every call emits LTTng-UST events of the `dps` provider (doc/tracepoints.md); they cost
 * nothing measurable when no session is active.
 *
 * The full reference is doc/runtime.md.
 */
#ifndef DPS_DPS_H
#define DPS_DPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dps/dps-action.h>
#include <dps/dps-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Run modes of the system-influencing PSF. */
enum dps_run_mode {
	DPS_RUN_WORK = 0, /* calibrated fixed amount of work (the papers' busy loop) */
	DPS_RUN_CPU = 1,  /* until the calling thread has consumed that much CPU time */
	DPS_RUN_WALL = 2, /* until that much wall (monotonic) time has passed */
};

const char *dps_run_mode_name(enum dps_run_mode mode);
/* Returns 0 and sets *mode, or DPS_ERR_INVAL for an unknown name. */
int dps_run_mode_parse(const char *name, enum dps_run_mode *mode);

/*
 * Calibration
 *
 * Measured on the machine by dps_calibration_measure(), saved by dps calibrate as the cpu.*
 * section of the one versioned, human-readable calibration file (the memory stubs' is its
 * mem.* section), loaded by generated programs. Unknown keys in a file are an error naming the
 * file and line; missing keys keep their measured/default value and are reported; files of an
 * older format are refused with the version they have.
 */
#define DPS_CALIBRATION_FORMAT_VERSION 2
#define DPS_SLEEP_OVERSHOOT_POINTS 16

/*
 * dps's own CPU cost of each kind of action, measured by dps calibrate (the player playing
 * small sets: a sleeper woken, a mutex taken, a queue of one, a barrier of two, threads created
 * and joined) and saved as the file's cpu.action_cost_ns table (doc/runtime.md). A run's
 * entry and exit is action_overhead_ns. Two columns: without a tracing session, and with the
 * dps events recorded (dps calibrate under dps record measures that one).
 */
#define DPS_ACTION_COSTS(X)                                                                        \
	X(DPS_COST_SLEEP, "sleep")                                                                 \
	X(DPS_COST_CREATE, "create")                                                               \
	X(DPS_COST_JOIN, "join")                                                                   \
	X(DPS_COST_WAIT, "wait")                                                                   \
	X(DPS_COST_WAKE, "wake")                                                                   \
	X(DPS_COST_LOCK, "lock")                                                                   \
	X(DPS_COST_UNLOCK, "unlock")                                                               \
	X(DPS_COST_PUT, "put")                                                                     \
	X(DPS_COST_TAKE, "take")                                                                   \
	X(DPS_COST_ARRIVE, "arrive")

enum dps_action_cost {
#define DPS_ACTION_COST_ENUM_(e, kw) e,
	DPS_ACTION_COSTS(DPS_ACTION_COST_ENUM_)
#undef DPS_ACTION_COST_ENUM_
	    DPS_COST_N
};

/* The keyword of a cost class ("wait", ...), or NULL. */
const char *dps_action_cost_name(unsigned cost);
/* The cost class of an action kind (enum dps_action_kind), or DPS_COST_N for those that have
 * none of their own: a run (action_overhead_ns), heap and stack (the memory calibration). */
unsigned dps_action_cost_of(uint32_t kind);

struct dps_calibration {
	int format_version;
	char machine[128];	   /* uname nodename + machine + CPU model, informative */
	double work_loops_per_us;  /* busy-loop iterations per microsecond */
	double work_spread_pct;	   /* agreement across repeats (max-min)/median, % */
	double clock_read_ns;	   /* cost of one CLOCK_MONOTONIC read */
	double cputime_read_ns;	   /* cost of one CLOCK_THREAD_CPUTIME_ID read */
	double action_overhead_ns; /* fixed cost of a zero-length run (events silenced) */
	double thread_create_ns;   /* pthread_create + start */
	double thread_join_ns;	   /* pthread_join of an ended thread */
	uint64_t timer_slack_ns;   /* slack set with PR_SET_TIMERSLACK while sleeping */
	/* sleep overshoot as a function of the requested duration (piecewise linear) */
	size_t n_sleep_points;
	uint64_t sleep_req_ns[DPS_SLEEP_OVERSHOOT_POINTS];
	double sleep_overshoot_ns[DPS_SLEEP_OVERSHOOT_POINTS];
	uint64_t min_block_ns; /* analyzer default for --min-block */
	bool overridden;       /* values come from a file/override, not a measurement */
	/* CPU ns per action of each enum dps_action_cost, untraced and traced; 0 = not
	 * measured (a file of before the table, or a column dps calibrate could not measure) */
	double action_cost_ns[DPS_COST_N];
	double action_cost_traced_ns[DPS_COST_N];
};

/* dps's own CPU cost of one action of kind (enum dps_action_kind) by cal: the traced column
 * when traced and measured, else the untraced one; a run's is action_overhead_ns; 0 when
 * not measured. */
double dps_calibration_action_cost_ns(const struct dps_calibration *cal, uint32_t kind,
				      bool traced);

/* Measures this machine. quick = a few hundred ms (programs started without a file); otherwise
 * the thorough version of dps calibrate (seconds). Returns DPS_OK or a negative status. */
int dps_calibration_measure(struct dps_calibration *cal, bool quick);
/* Measures dps's own cost of each kind of action (the player playing small sets, a second
 * or so) into cal's untraced column, or its traced one when the dps events are being recorded
 * now; the rest of cal is left as it is. dps_calibration_measure(quick = false) calls it.
 * Returns DPS_OK or a negative status. */
int dps_calibration_measure_action_costs(struct dps_calibration *cal);
/* Loads a file written by dps_calibration_save(). On error returns DPS_ERR_INVAL/DPS_ERR_IO
 * and writes "file:line: what was expected" into err (errlen bytes). */
int dps_calibration_load(const char *path, struct dps_calibration *cal, char *err, size_t errlen);
int dps_calibration_save(const struct dps_calibration *cal, const char *path, char *err,
			 size_t errlen);
int dps_calibration_write(const struct dps_calibration *cal, FILE *out);
/* Deterministic values for tests (DPS_CALIBRATION=override or a file). */
void dps_calibration_default(struct dps_calibration *cal);
/* Expected overshoot of a sleep of req_ns, from the table. */
double dps_calibration_sleep_overshoot_ns(const struct dps_calibration *cal, uint64_t req_ns);

/*
 * Global runtime state
 */
struct dps_config {
	const char *calibration_path; /* borrowed, read by dps_init() only; NULL: env
				       * DPS_CALIBRATION, else a quick measurement */
	enum dps_run_mode mode;	      /* default mode of dps_run_ns() from the player */
	double run_scale;	      /* global what-if factor on run durations (1.0) */
	double sleep_scale;	      /* global what-if factor on sleep durations (1.0) */
	bool quiet;		      /* no informational messages on stderr */
};

void dps_config_default(struct dps_config *cfg);
/* Loads or measures the calibration, sets timer slack, emits the calibration event. Safe to
 * call twice (the second call is a no-op returning DPS_OK). NULL cfg = defaults. Error text,
 * if any, goes to err. */
int dps_init(const struct dps_config *cfg, char *err, size_t errlen);
/* The calibration in force (after dps_init); borrowed: libdps's, valid for the process. */
const struct dps_calibration *dps_calibration_borrow(void);

/*
 * PSFs. ns = nanoseconds.
 */
/* System-influencing PSF: busy for ns in the given mode. Returns the actual ns (wall) spent. */
uint64_t dps_run_ns(uint64_t ns, enum dps_run_mode mode);
/* System non-influencing PSF: sleep ns, compensated for the calibrated overshoot. Returns the
 * actual ns slept. */
uint64_t dps_sleep_ns(uint64_t ns);
/* The raw calibrated busy loop: `loops` iterations, survives -O3 -ffast-math. */
void dps_work_loops(uint64_t loops);

/*
 * Action player: per-thread action lists in memory, played with the PSFs above. Generated
 * programs hold these as static tables; dps run builds them from an action set.
 */
/* A program for the player. Every pointer is borrowed: the player reads them during
 * dps_play() and keeps none (generated programs point at their static tables). */
struct dps_thread_desc {
	uint64_t id;	  /* the action-set id (the <id>.act file name) */
	const char *name; /* borrowed: recorded thread name (comm); NULL = "dps-<id>" */
	const struct dps_action *actions; /* borrowed: n_actions of them */
	size_t n_actions;
};

struct dps_program {
	const char *name;		       /* borrowed: program name, for the summary */
	const struct dps_thread_desc *threads; /* borrowed: n_threads of them */
	size_t n_threads;
	size_t root; /* index of the root thread */
	/* Format version 2: the synchronization objects lock .. arrive name by index, and the
	 * thread indexes of the sets of `wait A|B` and `join any A|B` (an action's arg is the
	 * index of its first member here, arg2 how many). NULL/0 when the program has none. */
	const struct dps_object *objects; /* borrowed: n_objects of them */
	size_t n_objects;
	const uint32_t *members; /* borrowed: n_members thread indexes */
	size_t n_members;
	/* Format version 4: the runs' cache figures (a run's arg2 is 1 + the index of its own
	 * here, 0 for a run without). NULL/0 when the program has none. */
	const struct dps_action_cache *caches; /* borrowed: n_caches of them */
	size_t n_caches;
};

/*
 * How a memory stub plays `heap` actions (doc/memory.md). CURVE: the memory-stub paper's one
 * block per thread, resized with realloc to the curve's level. ALLOC: allocation-faithful,
 * every `heap +N` a malloc(N) of its own and every `heap -N` frees a live block of that size
 * (the most recent; without one, the most recent blocks until N bytes are freed), so the
 * allocator sees the recorded sizes, not one growing block and its page faults.
 */
enum dps_heap_mode { DPS_HEAP_CURVE = 0, DPS_HEAP_ALLOC };

struct dps_play_options {
	enum dps_run_mode mode;
	double run_scale;   /* global speed knob: every run lasts run_scale x */
	double sleep_scale; /* every sleep lasts sleep_scale x */
	/* runs with cache figures (format version 4) have cache_scale times their D1 and
	 * last-level misses, their accesses, stores and time unchanged (1.0; doc/cache.md) */
	double cache_scale;
	/* a run with cache figures lasts its accesses as played plus the rest of its time less
	 * what they cost on a quiet cache (measured before the threads start): the accesses'
	 * slowdown by the other threads' data is an outcome, not taken out of the run (false:
	 * the run lasts its time whatever the accesses took; doc/cache.md, "Outcome") */
	bool cache_outcome;
	/* NULL or n_threads factors (what-if per thread), read by dps_play(). Set by hand they stay
	 * the caller's; dps_main_parse_args() allocates them, and then dps_main_args_fini() frees
	 * them (call it only on options that function filled). */
	const double *thread_run_scale;
	const double *thread_sleep_scale;
	/* NULL or n_threads flags, owned as the tables above: a flagged thread spends each run
	 * asleep for as long as the run would have lasted (scales applied), the CPU stub paper's
	 * idle CPU stub; its sleeps stay sleeps. */
	const bool *thread_run_idle;
	bool summary; /* print a short summary on stderr at the end */
	/*
	 * For a program's main (dps_main sets it), not for a stub inside a real program: the
	 * process's start-up is the root's, as the recorded program's own start-up is inside
	 * its root's first runs. The root counts the CPU time its thread used from the exec to
	 * main (loading, constructors) against its runs (cpu mode), and the wall time from the
	 * exec to main against its sleeps before its first wait or join, so that a replay seen
	 * from outside (the kernel's accounting of the process, its wall time from exec to exit)
	 * costs what the recording says, not that plus the stub's loading. What the thread does
	 * from main to the root's first action (the calibration measured at start, loading the
	 * set, setting the play up) is dps's own and is charged to nothing.
	 * exec_mono_ns and exec_cpu_ns say when the exec was (CLOCK_MONOTONIC, and the process's
	 * CPU clock then): 0 when unknown, then the CPU counts from the process's start (its
	 * fork) and the sleeps are played in full. main_mono_ns and main_cpu_ns say when main
	 * began (CLOCK_MONOTONIC, and the CPU clock of the thread that then plays the root;
	 * dps_main_parse_args and dps_play_options_mark_main set them): 0 when unknown, then the
	 * root's first action counts as main and everything before it is start-up.
	 */
	bool from_process_start;
	uint64_t exec_mono_ns, exec_cpu_ns;
	uint64_t main_mono_ns, main_cpu_ns;
	enum dps_heap_mode heap_mode;
	/* NULL or n_threads factors, owned as thread_run_scale: a thread's runs with cache
	 * figures have this times their misses, on top of cache_scale (doc/cache.md) */
	const double *thread_cache_scale;
};

struct dps_thread_result {
	uint64_t id;
	uint64_t start_ns, end_ns; /* monotonic, relative to the program start */
	uint64_t cpu_ns;	   /* CPU time consumed by the thread */
	uint64_t run_req_ns, run_act_ns;
	uint64_t sleep_req_ns, sleep_act_ns;
	uint64_t n_actions;
	uint64_t n_blocked;  /* waits, joins, locks, puts, takes, arrivals that had to block */
	uint64_t n_timeouts; /* timed waits that ended by their timeout */
	/* from_process_start (the root only; 0 for the others): the CPU time from the exec (or
	 * the fork) to main charged to its runs (cpu mode; 0 in the others, whose runs have no
	 * budget), and the CPU time from main to its first action, dps's own (the calibration,
	 * the set, the play's set-up), charged to nothing */
	uint64_t startup_cpu_ns;
	uint64_t setup_cpu_ns;
	/* dps's own costs (doc/runtime.md, "Own costs"): the CPU the thread spent outside its runs
	 * on dps's own work (waits, wakes, locks, puts, takes, arrivals, creates, joins, the last
	 * stretch of its sleeps, its start and end) and how much of it was taken out of its runs.
	 * cpu mode: measured by the thread's CPU clock, the runs' budget absorbing it; work and
	 * wall modes: the calibration's cost of each action (dps_calibration_action_cost_ns),
	 * taken out of the runs that follow. own - compensated is CPU the recording never spent
	 * (runs shorter than dps's costs). */
	uint64_t own_cpu_ns;
	uint64_t compensated_ns;
	/* of the runs' time, the CPU their cache figures' accesses took (format version 4) */
	uint64_t cache_cpu_ns;
};

struct dps_play_result {
	uint64_t makespan_ns;
	uint64_t origin_mono_ns; /* CLOCK_MONOTONIC when the play began: the threads' start_ns
				  * and end_ns count from it */
	size_t n_threads;
	struct dps_thread_result *threads; /* owned by the result; free with dps_play_result_fini */
	/* When dps_play failed for a reason it can say more about (a thread that could not be
	 * started: which limit of the system, and how many threads were alive), what; else "". */
	char detail[384];
};

void dps_play_options_default(struct dps_play_options *opts);
/* Sets opts->main_mono_ns and opts->main_cpu_ns to now (CLOCK_MONOTONIC and the calling
 * thread's CPU clock): where the process's start-up ends and dps's own set-up begins, for
 * from_process_start. dps_main_parse_args calls it first; a main that does dps's work before
 * (dps run loads the set) calls it itself, first, on the thread that will play the root. */
void dps_play_options_mark_main(struct dps_play_options *opts);
/* Plays prog: starts the root, which creates the others as its actions say; returns when every
 * thread has ended and been joined (a thread that no `join` names is detached when it starts,
 * so its stack is unmapped as it ends, not when the play ends). The program must be valid (see
 * common/actset.h validation); result may be NULL. Returns DPS_OK or a negative status (thread
 * creation failure: every thread already started is still joined). */
int dps_play(const struct dps_program *prog, const struct dps_play_options *opts,
	     struct dps_play_result *result);
void dps_play_result_fini(struct dps_play_result *result);
void dps_play_result_print(const struct dps_program *prog, const struct dps_play_result *result,
			   FILE *out);

/* Prints the options dps_main_parse_args() accepts, one per line (for a --help text). */
void dps_main_print_options(FILE *out);
/* Standard option parsing for generated programs: --calibration FILE, --mode M, --scale X,
 * --sleep-scale X, --thread-scale ID=X, --thread-sleep-scale ID=X, --thread-idle ID,
 * --heap-mode curve|alloc, --from-main, --no-summary, --quiet, --help. cfg and opts are first
 * set to their defaults, with from_process_start on (the exec's time from $DPS_EXEC_AT,
 * which is then removed from the environment, and main's from the call: call it first in
 * main, on the thread that plays the root); cfg's strings are borrowed from argv.
 * Returns 0 to continue, 1 when --help was printed, 2 on bad usage (message printed; nothing
 * left to free). On 0/1, release opts with dps_main_args_fini(). */
int dps_main_parse_args(int argc, char **argv, const struct dps_program *prog,
			struct dps_config *cfg, struct dps_play_options *opts);
/* Frees what dps_main_parse_args() allocated in opts (per-thread tables); NULL ok. */
void dps_main_args_fini(struct dps_play_options *opts);
/* What a player of prog with opts should be told before it plays (an option whose figures no
 * check has backed: --cache-outcome with cache figures), or NULL. A static string. */
const char *dps_main_options_note(const struct dps_program *prog,
				  const struct dps_play_options *opts);
/* The whole main() of a generated program: parse, init, play, summary. Returns an exit code. */
int dps_main(int argc, char **argv, const struct dps_program *prog);
/*
 * Ends a generated program with code: flushes stdio and leaves at once (_exit), without the
 * destructors of the libraries it loaded. lttng-ust's unregisters from the session daemon and
 * joins its listener threads: wall time after the last action that the
 * recorded program did not spend; the events are already in the tracer's shared buffers.
 */
void dps_exit(int code) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif /* DPS_DPS_H */
