/* SPDX-License-Identifier: MIT */
/*
 * libdps internals shared by its files: clocks, the global state set by dps_init(), the
 * per-thread identity the events carry, and the PSFs with their event context.
 */
#ifndef DPS_RUNTIME_RUNTIME_INTERNAL_H
#define DPS_RUNTIME_RUNTIME_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <dps/dps.h>

#include "clock.h"

/* The action-set id of the calling thread for events (0 outside the player). */
extern __thread uint64_t dps__tls_id;
/* Set while this thread calibrates: its PSF calls fire no events (they would land in the
 * trace of the program being recorded as thousands of anonymous runs). */
extern __thread bool dps__tls_silent;
/* CLOCK_MONOTONIC at the start and the end of the thread's last dps__run_budget (read by it
 * anyway: no clock read more) */
extern __thread uint64_t dps__tls_run_t0_ns, dps__tls_run_t1_ns;

/* Makes sure dps_init() ran (with defaults when the caller never called it). */
void dps__ensure_init(void);

/* Sets the calling thread's timer slack to the calibrated value, once per thread. */
void dps__thread_prepare(void);

/* The PSFs with the action's source line for the events. */
uint64_t dps__run(uint64_t ns, enum dps_run_mode mode, uint32_t line);
/*
 * As dps__run, but in cpu mode against a per-thread budget: when cpu_target_ns is not 0, burn
 * until the thread's CPU clock reads cpu_target_ns (the player passes the thread's CPU at its
 * start plus every run requested so far). The replay's own costs between runs — wait/wake
 * system calls and context switches, tracepoints, thread start — then come out of the next run
 * instead of adding to the thread's CPU time, so a thread's total CPU matches the recording
 * even when it has thousands of short runs between synchronizations. Other modes ignore it.
 * With a target, *cpu_ns (when not NULL) gets the CPU the run burned, as the budget asked it
 * (target less the clock at its start; no clock read more).
 */
uint64_t dps__run_budget(uint64_t ns, enum dps_run_mode mode, uint64_t cpu_target_ns, uint32_t line,
			 uint64_t *cpu_ns);
uint64_t dps__sleep(uint64_t ns, uint32_t line);
/* Burns the thread's CPU until its clock reads cpu_target_ns (nothing when it is there
 * already); no tracepoint: a part of a run (the cache stub's pace, runtime/cache.c). */
void dps__run_cpu_until(uint64_t cpu_target_ns);
/* Burns about ns of CPU at the thread's last measured rate of the work loop (the
 * calibration's before its first run), reading no clock: a read costs a syscall, and under
 * perf's sched_stat_runtime an event (the cache stub's pace, which corrects at its next read). */
void dps__run_cpu_rate(uint64_t ns);
/* What a thread's cpu-mode sleeps learn as they go (zero before the first). */
struct dps__sleep_learned {
	uint64_t cost_ns;   /* the CPU a sleep costs, a running mean (the player's) */
	double late_adj_ns; /* the kernel's lateness now less the calibration's median */
	/* The sleep right after a run: the player sets run_end_ns to that run's end
	 * (CLOCK_MONOTONIC; 0: the sleep follows another action), and the sleep sets due_ns to
	 * when the next run should begin (0: nothing to learn from), which the player compares
	 * with that run's start (dps__sleep_learn_gap). */
	uint64_t run_end_ns;
	uint64_t due_ns;
};
/*
 * cpu mode's sleep: keeps the thread off the CPU for ns, its wall time less the CPU it spent
 * (doc/runtime.md, "Sleeps in cpu mode"). Right after a run (l->run_end_ns set), the time from
 * that run's end to the next run's start is ns plus the CPU the sleep costs (l->cost_ns): the
 * sleep wakes that much after the run's end, less the lateness expected (the calibrated
 * median, corrected by *l), and spins nothing; what it learns comes at the next run
 * (dps__sleep_learn_gap). After another action it counts from its own start, and updates
 * l->late_adj_ns with its own lateness. Returns the wall ns slept.
 */
uint64_t dps__sleep_off_cpu(uint64_t ns, uint32_t line, struct dps__sleep_learned *l);
/*
 * The run after a cpu-mode sleep began at run_t0_ns (CLOCK_MONOTONIC): moves l->late_adj_ns by
 * an eighth of how late it began against l->due_ns (each sample capped at 100 us, so one
 * preempted wake-up cannot set it: a mean, since the cycles' wall time adds up their means).
 * Clears l->due_ns.
 */
void dps__sleep_learn_gap(struct dps__sleep_learned *l, uint64_t run_t0_ns);
/* The margin the calibration's sleep table adds to the median overshoot of a request of
 * req_ns (5 us and 0.05 %): what dps__sleep spins when the kernel wakes it at its median. */
double dps__sleep_margin_ns(uint64_t req_ns);

/* Spins on CLOCK_MONOTONIC until deadline_ns. */
void dps__spin_until(uint64_t deadline_ns);

/* The calibration in force, or the deterministic defaults before dps_init(). */
extern struct dps_calibration dps__calibration;
/* The calling thread forgets the loop rate its cpu-mode runs measured (as a new thread
 * starts); for tests. */
void dps__forget_thread_rate(void);

#endif /* DPS_RUNTIME_RUNTIME_INTERNAL_H */
