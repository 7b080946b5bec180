/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's report of the OpenMP constructs it sees but does not describe: explicit
 * tasks, taskwait and taskgroup, taskloop, ordered (and its doacross form), the old parallel
 * ABI, teams, single's copyprivate, cancellation, task reductions of work-sharing loops. Each
 * is one `unmodelled` event, once per process and kind (the first time the program uses it
 * while a session records), then the plain call: the analyzer can say that the program's
 * synchronization is only partly known instead of replaying it as if it were whole.
 *
 * GOMP_doacross_wait and _ull_wait are variadic (one argument per loop of the nest): no
 * wrapper could forward them, so the doacross construct is reported by its posts (every
 * `ordered depend(source)`). The flags are cleared in a forked child, a process of its own.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "dps_sync_tp.h"
#include "omp.h"
#include "probe.h"

enum unmodelled {
	U_TASK,
	U_TASKWAIT,
	U_TASKGROUP,
	U_TASKLOOP,
	U_ORDERED,
	U_DOACROSS,
	U_OLD_PARALLEL,
	U_TEAMS,
	U_COPYPRIVATE,
	U_CANCEL,
	U_TASK_REDUCTION,
	U_COUNT
};

static const char *const what[U_COUNT] = {
    [U_TASK] = "omp task",
    [U_TASKWAIT] = "omp taskwait",
    [U_TASKGROUP] = "omp taskgroup",
    [U_TASKLOOP] = "omp taskloop",
    [U_ORDERED] = "omp ordered",
    [U_DOACROSS] = "omp ordered depend",
    [U_OLD_PARALLEL] = "omp parallel (GOMP_parallel_start)",
    [U_TEAMS] = "omp teams",
    [U_COPYPRIVATE] = "omp single copyprivate",
    [U_CANCEL] = "omp cancel",
    [U_TASK_REDUCTION] = "omp task reduction",
};

static int reported[U_COUNT];

static void forget_reports(void)
{
	for (int k = 0; k < U_COUNT; k++) {
		reported[k] = 0;
	}
}

__attribute__((constructor)) static void register_fork(void)
{
	pthread_atfork(NULL, NULL, forget_reports);
}

/* The first use of kind in this process while the event is enabled. */
static void report(enum unmodelled kind)
{
	if (!lttng_ust_tracepoint_enabled(dps_sync, unmodelled) ||
	    __atomic_load_n(&reported[kind], __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&reported[kind], 1, __ATOMIC_RELAXED)) {
		return;
	}
	SYNCPROBE_EMIT(unmodelled, what[kind]);
}

/* A wrapper that reports kind, then calls through (void or returning type). */
#define REPORT_VOID(name, kind, params, args)                                                      \
	void name params;                                                                          \
	DPS_PROBE_EXPORT void name params                                                          \
	{                                                                                          \
		static void(*real) params;                                                         \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		report(kind);                                                                      \
		real args;                                                                         \
	}

#define REPORT_RET(type, name, kind, params, args)                                                 \
	type name params;                                                                          \
	DPS_PROBE_EXPORT type name params                                                          \
	{                                                                                          \
		static type(*real) params;                                                         \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		report(kind);                                                                      \
		return real args;                                                                  \
	}

typedef void (*body_fn)(void *);
typedef void (*copy_fn)(void *, void *);
typedef unsigned long long ull;

/* GCC >= 11 passes detach (read by libgomp only with GOMP_TASK_FLAG_DETACH). */
REPORT_VOID(GOMP_task, U_TASK,
	    (body_fn fn, void *data, copy_fn cpyfn, long arg_size, long arg_align, bool if_clause,
	     unsigned flags, void **depend, int priority, void *detach),
	    (fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach))
REPORT_VOID(GOMP_taskwait, U_TASKWAIT, (void), ())
REPORT_VOID(GOMP_taskwait_depend, U_TASKWAIT, (void **depend), (depend))
REPORT_VOID(GOMP_taskgroup_start, U_TASKGROUP, (void), ())
REPORT_VOID(GOMP_taskloop, U_TASKLOOP,
	    (body_fn fn, void *data, copy_fn cpyfn, long arg_size, long arg_align, unsigned flags,
	     unsigned long num_tasks, int priority, long start, long end, long step),
	    (fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step))
REPORT_VOID(GOMP_taskloop_ull, U_TASKLOOP,
	    (body_fn fn, void *data, copy_fn cpyfn, long arg_size, long arg_align, unsigned flags,
	     unsigned long num_tasks, int priority, ull start, ull end, ull step),
	    (fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step))
REPORT_VOID(GOMP_ordered_start, U_ORDERED, (void), ())
REPORT_VOID(GOMP_doacross_post, U_DOACROSS, (long *counts), (counts))
REPORT_VOID(GOMP_doacross_ull_post, U_DOACROSS, (ull * counts), (counts))
REPORT_VOID(GOMP_parallel_start, U_OLD_PARALLEL, (body_fn fn, void *data, unsigned num_threads),
	    (fn, data, num_threads))
REPORT_VOID(GOMP_parallel_loop_static_start, U_OLD_PARALLEL,
	    (body_fn fn, void *data, unsigned num_threads, long start, long end, long incr,
	     long chunk_size),
	    (fn, data, num_threads, start, end, incr, chunk_size))
REPORT_VOID(GOMP_parallel_loop_dynamic_start, U_OLD_PARALLEL,
	    (body_fn fn, void *data, unsigned num_threads, long start, long end, long incr,
	     long chunk_size),
	    (fn, data, num_threads, start, end, incr, chunk_size))
REPORT_VOID(GOMP_parallel_loop_guided_start, U_OLD_PARALLEL,
	    (body_fn fn, void *data, unsigned num_threads, long start, long end, long incr,
	     long chunk_size),
	    (fn, data, num_threads, start, end, incr, chunk_size))
REPORT_VOID(GOMP_parallel_loop_runtime_start, U_OLD_PARALLEL,
	    (body_fn fn, void *data, unsigned num_threads, long start, long end, long incr),
	    (fn, data, num_threads, start, end, incr))
REPORT_VOID(GOMP_parallel_sections_start, U_OLD_PARALLEL,
	    (body_fn fn, void *data, unsigned num_threads, unsigned count),
	    (fn, data, num_threads, count))
REPORT_VOID(GOMP_teams_reg, U_TEAMS,
	    (body_fn fn, void *data, unsigned num_teams, unsigned thread_limit, unsigned flags),
	    (fn, data, num_teams, thread_limit, flags))
REPORT_VOID(GOMP_teams, U_TEAMS, (unsigned num_teams, unsigned thread_limit),
	    (num_teams, thread_limit))
REPORT_RET(bool, GOMP_teams4, U_TEAMS,
	   (unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit, bool first),
	   (num_teams_low, num_teams_high, thread_limit, first))
REPORT_RET(void *, GOMP_single_copy_start, U_COPYPRIVATE, (void), ())
REPORT_RET(bool, GOMP_cancel, U_CANCEL, (int which, bool do_cancel), (which, do_cancel))
REPORT_VOID(GOMP_workshare_task_reduction_unregister, U_TASK_REDUCTION, (bool cancelled),
	    (cancelled))
