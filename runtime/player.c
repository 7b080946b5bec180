/* SPDX-License-Identifier: MIT */
/*
 * The action player: plays a dps_program's per-thread action lists with the PSFs.
 *
 * Threads are slots indexed like prog->threads. The root plays on the calling thread (on a
 * thread of its own when its stack curve needs a deeper stack: player-stack.c); a `create`
 * starts a slot's pthread. One mutex guards the shared state (slot states and the
 * wait/wake counters); each slot has a condition variable for the state changes its joiners
 * wait on and one for the wakes it waits on. This file sets a play up, creates the threads and
 * plays each one's list; the actions that block (joins, waits, the objects), the account of
 * blocked threads and the deadlock check are player-sync.c's, on the state both share
 * (player-sync.h).
 *
 * Memory follows the threads alive at once, but for about 300 bytes per thread of the set. A
 * thread that ends while nobody is blocked joining it stays joinable only among the last 64
 * such (keep_ended_locked): older ones are detached, their stacks back in the C library's cache
 * for the next thread, and a late join finds them ended; a join that comes soon, or one waiting,
 * reaps the thread with pthread_join, as the recorded join did. What a thread needs only while
 * it plays is on its own stack (struct thread_play). When a creation fails, player-limits.c
 * says how many threads the set can have alive at once and which system limit that crosses.
 *
 * Termination is guaranteed on every path: when a pthread_create fails, or when every live
 * thread is blocked with nothing left to wake it (a set whose dependencies cannot be met), the
 * play is aborted: blocked threads are released, every thread stops after its current action,
 * and dps_play() joins every thread it started before returning the error, naming them.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/cache.h>
#include <lttng/ust-events.h>

#include "dps_tp.h"
#include "memory-internal.h"
#include "player-internal.h"
#include "player-sync.h"
#include "runtime-internal.h"

/* Fault injection for the tests of the failure paths: the Nth pthread_create (1-based) of
 * each dps_play() fails. 0 = off. */
static size_t fail_create_at;

void dps__player_fail_create_at(size_t n)
{
	fail_create_at = n;
}

static uint64_t scale_ns(int64_t ns, double scale)
{
	double v;

	if (ns <= 0) {
		return 0;
	}
	if (scale == 1.0) {
		return (uint64_t)ns;
	}
	v = (double)ns * scale;
	if (!(v > 0)) {
		return 0;
	}
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)(v + 0.5);
}

static void *thread_main(void *arg);

/*
 * What only the playing thread reads and writes, on its own stack while it plays (not in its
 * slot: a play of 100,000 threads keeps this for the few alive at once, not for 100,000).
 */
struct thread_play {
	struct slot *slot; /* borrowed: the thread's slot */
	double run_scale, sleep_scale;
	bool run_idle; /* runs are played as sleeps of their length (the idle CPU stub) */
	struct dps__mem_thread *mem; /* owned while playing; NULL without memory actions */
	/* thread CPU clock at thread_begin; for the root from the process's start, that less
	 * its CPU from the exec to main (its runs absorb the process's start-up) */
	int64_t cpu_base;
	uint64_t cpu_budget; /* sum of the runs requested so far (cpu mode budget) */
	/* the root from the process's start: CLOCK_MONOTONIC at thread_begin less the time
	 * from the exec to main, until its first wait or join (0 after, and for every other
	 * thread); and the time its actions were recorded to take since then (runs and sleeps
	 * requested) */
	uint64_t lag_origin_ns;
	uint64_t played_ns;
	/* what its sleeps may still skip: how far behind it was at its begin. A bound, so a
	 * thread that never waits catches up its start, not every delay after it (a replay's
	 * preemption, or a what-if's slower neighbour, which the real thread would also pay) */
	uint64_t lag_left_ns;
	/* dps's own costs (doc/runtime.md, "Own costs"). cpu mode: the CPU spent inside its runs
	 * (the rest of its clock is dps's own). work and wall modes: the calibration's cost of
	 * the actions played since the last run, still to be taken out of the next runs. */
	uint64_t run_cpu_ns;
	uint64_t debt_ns;
	/* cpu mode: what its sleeps learned, their CPU cost and the kernel's lateness. The cost
	 * is measured with the runs' own clock reads: the CPU clock at the last run's end (its
	 * target; 0: unknown) and the sleeps since (-1: another action since), so that a run
	 * after exactly one sleep gives one sample. */
	struct dps__sleep_learned sleep;
	uint64_t cpu_run_end;
	int sleeps_since_run;
	bool traced; /* the dps events are recorded: the calibration's traced costs apply */
};

/*
 * Under the lock: s has ended, joinable, and nobody is joining it now: its join comes later,
 * or never. It stays joinable among the last DPS_PLAYER_KEEP_ENDED such threads, so that a join
 * that comes soon (a thread created, then joined) still waits for its exit with pthread_join,
 * as the recorded join did, and the next thread is not created while it is still exiting; the
 * oldest beyond them is detached, which gives its stack back to the C library's cache for the
 * next thread, and its join, when it comes, finds it ended and returns at once. A recording of
 * 100,000 short threads joined at the end then holds the stacks of the threads alive at once
 * and of 64 more, not 100,000 until the joins.
 */
static void keep_ended_locked(struct player *pl, struct slot *s)
{
	if (pl->n_kept == DPS_PLAYER_KEEP_ENDED) {
		struct slot *old = &pl->slots[pl->kept[pl->kept_head]];

		pl->kept_head = (pl->kept_head + 1) % DPS_PLAYER_KEEP_ENDED;
		pl->n_kept--;
		if (old->has_pt) { /* else a joiner reaped it since */
			old->has_pt = false;
			pthread_detach(old->pt);
		}
	}
	pl->kept[(pl->kept_head + pl->n_kept) % DPS_PLAYER_KEEP_ENDED] = s->idx;
	pl->n_kept++;
}

/*
 * pthread_create runs outside the lock: it costs tens of µs (a fresh stack mapping), and
 * holding the lock meanwhile would delay every wake, wait, join and thread end of the replay.
 * The slot is claimed (STARTED, counted running) first, so the child may even end before its
 * pthread_t is stored; it is reaped then by a later joiner or by dps_play().
 */
static void do_create(struct player *pl, struct slot *self, const struct dps_action *a,
		      uint64_t lag_origin_ns)
{
	size_t c = (size_t)a->arg;
	struct slot *child = &pl->slots[c];
	bool claimed = false, inject = false;
	pthread_t pt;
	int rc = 0;

	lttng_ust_tracepoint(dps, create, dps__tls_id, pl->prog->threads[c].id, a->line);
	pthread_mutex_lock(&pl->lock);
	if (child->state != SLOT_IDLE) {
		/* Created twice: validation rejects such sets; never start a slot twice. */
		if (!pl->error) {
			pl->error = DPS_ERR_INVAL;
		}
	} else {
		child->state = SLOT_STARTED;
		pl->running++;
		pl->live++;
		pl->n_created++;
		inject = fail_create_at && pl->n_created == fail_create_at;
		child->lag_origin_ns = lag_origin_ns;
		claimed = true;
	}
	pthread_mutex_unlock(&pl->lock);
	if (!claimed) {
		goto end;
	}
	/* EAGAIN is what a thread limit gives; injected for the tests of this path. A thread
	 * whose stack curve needs more than a default stack gets one that holds it. */
	rc = inject ? EAGAIN
		    : dps__stack_thread_create(&pt, &pl->prog->threads[c], thread_main, child);
	pthread_mutex_lock(&pl->lock);
	if (rc) {
		child->state = SLOT_FAILED;
		pl->running--;
		if (!pl->error) {
			dps__player_describe_create_failure(pl->detail, sizeof(pl->detail),
							    pl->prog, c, rc, pl->live - 1);
		}
		if (!--pl->live) {
			pthread_cond_broadcast(&pl->all_ended);
		}
		dps__player_abort_locked(pl, DPS_ERR_AGAIN);
	} else if (!child->joined) {
		/* Nobody joins it: detached, the system reaps it as it ends (100,000 short
		 * threads no longer keep 100,000 stacks mapped until the play ends). dps_play
		 * still waits for its end through `live`. */
		pthread_detach(pt);
	} else {
		child->pt = pt;
		child->has_pt = true;
		if (child->state == SLOT_ENDED && !child->joiners) {
			/* it ended before its pthread_t was stored: kept as it would have kept
			 * itself */
			keep_ended_locked(pl, child);
		}
	}
	pthread_cond_broadcast(&child->state_cond);
	pthread_mutex_unlock(&pl->lock);
end:
	(void)self;
}

static void do_heap(struct player *pl, struct thread_play *tp, const struct dps_action *a)
{
	if (!tp->mem || dps__mem_heap(tp->mem, a->arg)) {
		pthread_mutex_lock(&pl->lock);
		dps__player_fail_at_locked(
		    pl, tp->slot->idx, a, DPS_ERR_NOMEM,
		    "heap %+" PRId64 ": the machine gave no memory for it (the thread's heap held "
		    "%" PRIu64 " bytes)",
		    a->arg, tp->mem ? dps__mem_heap_size(tp->mem) : 0);
		pthread_mutex_unlock(&pl->lock);
		return;
	}
	lttng_ust_tracepoint(dps, heap, dps__tls_id, a->arg, dps__mem_heap_size(tp->mem), a->line);
}

/* dps__stack_done_fn: the stack action at index i is in effect; its event, at its depth. */
static void stack_done(void *ctx, size_t i, int64_t depth_bytes, int64_t real_depth_bytes)
{
	struct slot *self = ((struct thread_play *)ctx)->slot;
	const struct dps_action *a = &self->pl->prog->threads[self->idx].actions[i];

	lttng_ust_tracepoint(dps, stack, dps__tls_id, a->arg,
			     depth_bytes > 0 ? (uint64_t)depth_bytes : 0,
			     real_depth_bytes > 0 ? (uint64_t)real_depth_bytes : 0, a->line);
	self->res->n_actions++;
}

/* The thread CPU clock a run must end at (cpu mode): never 0, which means "no budget". */
static uint64_t budget_target(const struct thread_play *tp)
{
	int64_t target = tp->cpu_base + (int64_t)tp->cpu_budget;

	return target > 0 ? (uint64_t)target : 1;
}

/*
 * How much of a sleep of ns the thread skips: the time it is behind the recording since the
 * exec (the stub's loading and tracer start-up, what its runs did not absorb; for a thread the
 * root created before its first wait or join, as much as its creator was then), at most ns and
 * at most what is left of its lag at its begin.
 */
static uint64_t start_lag(struct thread_play *tp, uint64_t ns)
{
	uint64_t now, due, skip;

	if (!tp->lag_origin_ns) {
		return 0;
	}
	now = dps__now_ns();
	due = tp->lag_origin_ns + tp->played_ns;
	if (now <= due) {
		return 0;
	}
	skip = now - due < ns ? now - due : ns;
	skip = skip < tp->lag_left_ns ? skip : tp->lag_left_ns;
	tp->lag_left_ns -= skip;
	if (!tp->lag_left_ns) {
		tp->lag_origin_ns = 0; /* caught up */
	}
	return skip;
}

/* At the thread's begin: what its sleeps may skip (tp->lag_left_ns). */
static void start_lag_begin(struct thread_play *tp)
{
	uint64_t now = dps__now_ns();

	tp->lag_left_ns =
	    tp->lag_origin_ns && now > tp->lag_origin_ns ? now - tp->lag_origin_ns : 0;
	tp->lag_origin_ns = tp->lag_left_ns ? tp->lag_origin_ns : 0;
}

/*
 * work and wall modes: the calibration's cost of an action of kind played by the thread is time
 * the recording did not spend (its own waits and creates are inside its runs), owed to its next
 * runs; cpu mode measures the cost on the thread's clock instead. Not a sleep's: its last
 * stretch, spun, is inside its duration.
 */
static void owe(struct thread_play *tp, uint32_t kind)
{
	double c = dps_calibration_action_cost_ns(&dps__calibration, kind, tp->traced);

	if (kind == DPS_ACT_SLEEP) {
		return;
	}
	if (c > 0) {
		tp->debt_ns += (uint64_t)c;
		tp->slot->res->own_cpu_ns += (uint64_t)c;
	}
}

/*
 * cpu mode, after a run that burned in_run of the budget: the CPU clock read at its start was
 * its target less in_run, so when exactly one sleep came between it and the run before, the
 * sleep's cost (with the runs' exit and entry) is that reading less the last run's end. A mean
 * over the last few: one preempted wake-up does not set it. A run skipped (in_run 0) read a
 * clock past its target, unknown here: no sample, and none from the next.
 */
static void learn_sleep_cost(struct thread_play *tp, uint64_t in_run)
{
	uint64_t target = budget_target(tp), start = target - in_run;

	if (in_run && tp->cpu_run_end && tp->sleeps_since_run == 1 && start > tp->cpu_run_end) {
		uint64_t cost = start - tp->cpu_run_end;

		tp->sleep.cost_ns = tp->sleep.cost_ns ? (tp->sleep.cost_ns * 7 + cost) / 8 : cost;
	}
	tp->cpu_run_end = in_run ? target : 0;
	tp->sleeps_since_run = 0;
}

static void play_one(struct player *pl, struct thread_play *tp, const struct dps_action *a)
{
	struct slot *self = tp->slot;
	uint64_t ns, act, kernel, quiet = 0;

	if (a->kind == DPS_ACT_SLEEP && tp->sleeps_since_run >= 0) {
		tp->sleeps_since_run++;
	} else if (a->kind != DPS_ACT_RUN || tp->run_idle) {
		tp->sleeps_since_run = -1;
	}
	/* a sleep counts from the run just before it, and learns at the run just after it */
	if (a->kind != DPS_ACT_RUN || tp->run_idle) {
		tp->sleep.due_ns = 0;
	}
	if (a->kind != DPS_ACT_SLEEP || tp->sleeps_since_run != 1) {
		tp->sleep.run_end_ns = 0;
	}

	switch (a->kind) {
	case DPS_ACT_RUN:
		ns = scale_ns(a->arg, tp->run_scale);
		if (tp->run_idle) {
			/* The time passes, the CPU is handed to the others: accounted as the
			 * sleep it is, so the summary's run totals stay the CPU asked for. */
			act = dps__sleep(ns, a->line);
			self->res->sleep_req_ns += ns;
			self->res->sleep_act_ns += act;
			break;
		}
		tp->played_ns += ns;
		self->res->run_req_ns += ns;
		/* a run's cache figures: its accesses, inside its time (player-cache.c) */
		kernel = dps__player_cache(pl, self, a, budget_target(tp) + ns, &quiet);
		if (pl->opts.mode == DPS_RUN_CPU) {
			uint64_t in_run = 0;

			/* the budget takes the run whole: the burn stops where the thread's CPU
			 * clock reaches it, the accesses' CPU included */
			tp->cpu_budget += dps__player_cache_run_ns(ns, kernel, quiet);
			act =
			    dps__run_budget(ns, pl->opts.mode, budget_target(tp), a->line, &in_run);
			tp->run_cpu_ns += in_run + kernel;
			if (a->arg2 > 0) {
				tp->sleeps_since_run = -1; /* no sample: the accesses came first */
				tp->sleep.due_ns = 0;
			}
			learn_sleep_cost(tp, in_run);
			dps__sleep_learn_gap(&tp->sleep, dps__tls_run_t0_ns);
			tp->sleep.run_end_ns = dps__tls_run_t1_ns;
		} else {
			/* the costs of the actions since the last run, out of this one */
			uint64_t owed = tp->debt_ns < ns ? tp->debt_ns : ns;
			uint64_t rest = ns - owed;

			tp->debt_ns -= owed;
			self->res->compensated_ns += owed;
			rest = rest > quiet ? rest - quiet : 0;
			act = dps__run_budget(rest, pl->opts.mode, 0, a->line, NULL);
		}
		self->res->run_act_ns += act + kernel;
		break;
	case DPS_ACT_SLEEP:
		ns = scale_ns(a->arg, tp->sleep_scale);
		if (pl->opts.mode == DPS_RUN_CPU) {
			act = dps__sleep_off_cpu(ns - start_lag(tp, ns), a->line, &tp->sleep);
		} else {
			act = dps__sleep(ns - start_lag(tp, ns), a->line);
		}
		tp->played_ns += ns;
		self->res->sleep_req_ns += ns;
		self->res->sleep_act_ns += act;
		break;
	case DPS_ACT_CREATE:
		/* a thread created while its creator is behind the recording since the process's
		 * start is behind by as much: its sleeps before its first wait or join catch up */
		do_create(pl, self, a, tp->lag_origin_ns ? tp->lag_origin_ns + tp->played_ns : 0);
		break;
	case DPS_ACT_JOIN:
		dps__player_join(pl, self, a);
		tp->lag_origin_ns = 0; /* in step with the others from here */
		break;
	case DPS_ACT_WAIT:
		dps__player_wait(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	case DPS_ACT_WAKE:
		dps__player_wake(pl, self->idx, a);
		break;
	case DPS_ACT_HEAP:
		do_heap(pl, tp, a);
		break;
	case DPS_ACT_WAIT_TIMEOUT:
		dps__player_wait_timeout(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	case DPS_ACT_WAIT_ANY:
		dps__player_wait_any(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	case DPS_ACT_JOIN_ANY:
		dps__player_join_any(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	case DPS_ACT_LOCK:
		dps__player_lock(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	case DPS_ACT_RDLOCK:
		dps__player_rwlock(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	case DPS_ACT_UNLOCK:
		dps__player_unlock(pl, self, a);
		break;
	case DPS_ACT_PUT:
	case DPS_ACT_TAKE:
		(void)dps__player_put_take(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	case DPS_ACT_ARRIVE:
		dps__player_arrive(pl, self, a);
		tp->lag_origin_ns = 0;
		break;
	default:
		break;
	}
	if (pl->opts.mode != DPS_RUN_CPU && a->kind != DPS_ACT_RUN) {
		owe(tp, a->kind);
	}
	self->res->n_actions++;
}

/*
 * A take of a task queue at the thread's own action i (player-tasks.c): the thread takes an
 * item and plays its recorded taker's stretch, takes the next and so on, until it takes an
 * item that was its taker's last take. Returns the index of the thread's own last take of the
 * queue: it goes on after it, with its own epilogue.
 */
static size_t serve(struct player *pl, struct thread_play *tp, size_t i)
{
	struct slot *self = tp->slot;
	const struct dps_thread_desc *own = &pl->prog->threads[self->idx];
	const struct dps_action *take = &own->actions[i];
	struct obj *o = &pl->objs[take->arg];
	size_t last = own->n_actions;
	uint64_t k;

	while (last-- > i) {
		if (own->actions[last].kind == DPS_ACT_TAKE &&
		    own->actions[last].arg == take->arg) {
			break;
		}
	}
	k = dps__player_put_take(pl, self, take);
	tp->lag_origin_ns = 0;
	self->res->n_actions++;
	while (!is_aborted(pl) && k < o->desc->n_order && !o->items[k].last) {
		const struct dps__task_item *it = &o->items[k];
		const struct dps_thread_desc *src = &pl->prog->threads[it->owner];

		for (size_t j = it->begin; j < it->end && !is_aborted(pl); j++) {
			if (src->actions[j].kind == DPS_ACT_WAKE) {
				/* its recorded taker's wake: the sleeper waits for that thread */
				dps__player_wake(pl, it->owner, &src->actions[j]);
				if (pl->opts.mode != DPS_RUN_CPU) {
					owe(tp, DPS_ACT_WAKE);
				}
				self->res->n_actions++;
				continue;
			}
			play_one(pl, tp, &src->actions[j]);
		}
		k = dps__player_put_take(pl, self, &src->actions[it->end]);
		self->res->n_actions++;
	}
	return last;
}

/* dps__play_from_fn: plays from i up to (not including) the next stack action, which
 * memory.c applies (and reports through stack_done). */
static size_t play_from(void *ctx, size_t i)
{
	struct thread_play *tp = ctx;
	struct player *pl = tp->slot->pl;
	const struct dps_thread_desc *t = &pl->prog->threads[tp->slot->idx];

	for (; i < t->n_actions; i++) {
		const struct dps_action *a = &t->actions[i];

		if (is_aborted(pl)) {
			return t->n_actions;
		}
		if (a->kind == DPS_ACT_STACK) {
			return i;
		}
		if (a->kind == DPS_ACT_TAKE && pl->objs[a->arg].items) {
			i = serve(pl, tp, i);
			continue;
		}
		play_one(pl, tp, a);
	}
	return t->n_actions;
}

static bool has_memory_actions(const struct dps_thread_desc *t)
{
	for (size_t i = 0; i < t->n_actions; i++) {
		if (t->actions[i].kind == DPS_ACT_HEAP || t->actions[i].kind == DPS_ACT_STACK) {
			return true;
		}
	}
	return false;
}

static void name_thread(const struct dps_thread_desc *t)
{
	char name[16];

	if (t->name && *t->name) {
		snprintf(name, sizeof(name), "%s", t->name);
	} else {
		snprintf(name, sizeof(name), "dps-%" PRIu64, t->id);
	}
	pthread_setname_np(pthread_self(), name);
	/* LTTng-UST caches the procname context per thread; the root plays on the caller, which
	 * may have fired events (calibration) under its old name. */
	lttng_ust_context_procname_reset();
}

/*
 * The root of a program's main (from_process_start), as it begins at cpu0 (its CPU clock):
 * the process's start-up, from the exec to main, is charged to its runs and its first
 * sleeps; what its thread did from main until now is dps's own (the calibration measured at
 * start, the set, the play's set-up) and is charged to nothing, or a stub without a
 * calibration file would spend its first runs on that measurement. The root's clock counts
 * from the fork that led to the exec: its CPU time since the exec is its clock less the
 * process's clock then (one thread then). Only its own: lttng-ust's listener threads are
 * threads of their own to an outside witness (and the recorded program had them too when it
 * was traced with UST).
 */
static void charge_start_up(struct player *pl, struct thread_play *tp, uint64_t cpu0)
{
	const struct dps_play_options *o = &pl->opts;
	/* main unknown (options set by hand): everything before the first action is start-up */
	uint64_t main_cpu = o->main_cpu_ns ? o->main_cpu_ns : cpu0;
	uint64_t now = dps__now_ns();
	uint64_t main_mono = o->main_mono_ns && o->main_mono_ns <= now ? o->main_mono_ns : now;
	/* the difference of two readings, whichever way round; a later exec is none */
	int64_t since_exec = (int64_t)(main_cpu - o->exec_cpu_ns);
	uint64_t startup = since_exec > 0 ? (uint64_t)since_exec : 0;

	/* the root may play on another thread than main's: then its clock says nothing of
	 * dps's set-up, and only the start-up is known */
	tp->slot->res->setup_cpu_ns = cpu0 > main_cpu ? cpu0 - main_cpu : 0;
	if (o->mode == DPS_RUN_CPU) {
		tp->slot->res->startup_cpu_ns = startup;
		tp->cpu_base = (int64_t)cpu0 - (int64_t)startup;
	}
	/* behind the recording by the time from the exec to main, not by dps's set-up since */
	if (o->exec_mono_ns && o->exec_mono_ns <= main_mono) {
		tp->lag_origin_ns = now - (main_mono - o->exec_mono_ns);
	}
}

/*
 * cpu mode: the thread's CPU outside its runs, from its begin to now, is dps's own (its
 * blocking actions, the last stretch of its sleeps, its start), and its runs took out of
 * themselves what they did not spend of their budget (the root's start-up charged to them
 * aside); the rest the recording never spent.
 */
static void account_own_cpu(struct thread_play *tp)
{
	struct dps_thread_result *r = tp->slot->res;
	uint64_t outside = r->cpu_ns > tp->run_cpu_ns ? r->cpu_ns - tp->run_cpu_ns : 0;
	int64_t given = (int64_t)r->run_req_ns - (int64_t)tp->run_cpu_ns;

	given -= (int64_t)r->startup_cpu_ns;
	r->own_cpu_ns = outside;
	r->compensated_ns = given > 0 ? (uint64_t)given : 0;
	if (r->compensated_ns > r->own_cpu_ns) {
		r->compensated_ns = r->own_cpu_ns;
	}
}

/* Plays one slot's list on the calling thread, from thread_begin to thread_end. */
static void play_thread(struct slot *self)
{
	struct player *pl = self->pl;
	const struct dps_thread_desc *t = &pl->prog->threads[self->idx];
	const struct dps_play_options *o = &pl->opts;
	struct thread_play tp = {
	    .slot = self,
	    .run_scale =
		o->run_scale * (o->thread_run_scale ? o->thread_run_scale[self->idx] : 1.0),
	    .sleep_scale =
		o->sleep_scale * (o->thread_sleep_scale ? o->thread_sleep_scale[self->idx] : 1.0),
	    .run_idle = o->thread_run_idle && o->thread_run_idle[self->idx],
	};
	uint64_t cpu0;
	size_t i = 0;

	dps__tls_id = t->id;
	dps__thread_prepare();
	name_thread(t);
	self->res->id = t->id;
	self->res->start_ns = dps__now_ns() - pl->t0;
	cpu0 = dps__cputime_ns();
	tp.cpu_base = (int64_t)cpu0;
	tp.traced = lttng_ust_tracepoint_enabled(dps, wait_begin);
	if (pl->opts.from_process_start && self->idx == pl->prog->root) {
		charge_start_up(pl, &tp, cpu0);
	} else {
		tp.lag_origin_ns = self->lag_origin_ns;
	}
	start_lag_begin(&tp);
	lttng_ust_tracepoint(dps, thread_begin, t->id, t->name ? t->name : "");
	if (has_memory_actions(t)) {
		tp.mem = dps__mem_thread_begin(pl->opts.heap_mode == DPS_HEAP_ALLOC);
		if (tp.mem) {
			dps__mem_set_stack_notify(tp.mem, stack_done);
		} else {
			pthread_mutex_lock(&pl->lock);
			if (!pl->error) {
				pl->error = DPS_ERR_NOMEM;
			}
			pthread_mutex_unlock(&pl->lock);
		}
	}
	while (i < t->n_actions && !is_aborted(pl)) {
		i = play_from(&tp, i);
		if (i >= t->n_actions) {
			break;
		}
		if (!tp.mem) {
			i++; /* no stack stub (allocation failed): skip, error recorded */
			continue;
		}
		i = dps__mem_stack_play(tp.mem, t->actions, t->n_actions, i, play_from, &tp);
	}
	if (tp.mem && dps__mem_status(tp.mem)) {
		/* a stack action had to be capped to fit the thread's stack */
		size_t at = dps__mem_capped_at(tp.mem);
		const struct dps_action *a = at < t->n_actions ? &t->actions[at] : NULL;

		pthread_mutex_lock(&pl->lock);
		dps__player_fail_at_locked(
		    pl, self->idx, a, dps__mem_status(tp.mem),
		    "stack %+" PRId64 ": deeper than the thread's stack holds (%" PRIu64
		    " bytes from the curve's start): the curve was capped there",
		    a ? a->arg : 0, dps__mem_stack_room(tp.mem));
		pthread_mutex_unlock(&pl->lock);
	}
	dps__mem_thread_end(tp.mem);
	tp.mem = NULL;
	dps_cache_free(); /* the cache stub's regions, if its runs had figures (none: nothing) */
	self->res->cpu_ns = dps__cputime_ns() - cpu0;
	self->res->end_ns = dps__now_ns() - pl->t0;
	if (o->mode == DPS_RUN_CPU) {
		account_own_cpu(&tp);
	}
	lttng_ust_tracepoint(dps, thread_end, t->id, self->res->cpu_ns);

	pthread_mutex_lock(&pl->lock);
	self->state = SLOT_ENDED;
	if (self->has_pt && !self->joiners) {
		keep_ended_locked(pl, self);
	}
	dps__player_release_ended_locked(pl, self);
	pl->running--;
	if (!--pl->live) {
		pthread_cond_broadcast(&pl->all_ended);
	}
	dps__player_check_deadlock_locked(pl);
	pthread_mutex_unlock(&pl->lock);
}

static void *thread_main(void *arg)
{
	play_thread(arg);
	return NULL;
}

/* The root plays on the caller, unless its stack curve needs a deeper stack than the caller
 * has left (player-stack.c): then on a thread of its own that holds it, the caller waiting. */
static void play_root(struct player *pl)
{
	struct slot *root = &pl->slots[pl->prog->root];
	pthread_t pt;

	if (dps__stack_fits_here(&pl->prog->threads[root->idx]) ||
	    dps__stack_thread_create(&pt, &pl->prog->threads[root->idx], thread_main, root)) {
		play_thread(root); /* a curve that does not fit is capped and reported */
		return;
	}
	pthread_join(pt, NULL);
}

void dps_play_options_default(struct dps_play_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->mode = DPS_RUN_CPU;
	opts->run_scale = 1.0;
	opts->sleep_scale = 1.0;
	opts->cache_scale = 1.0;
	opts->thread_run_scale = NULL;
	opts->thread_sleep_scale = NULL;
	opts->thread_run_idle = NULL;
	opts->summary = true;
}

void dps_play_options_mark_main(struct dps_play_options *opts)
{
	opts->main_mono_ns = dps__now_ns();
	opts->main_cpu_ns = dps__cputime_ns();
}

/* Whether an action of this kind may name an object of kind obj (lock and unlock: a mutex or
 * a rwlock's write side and release). */
static bool object_fits(uint32_t kind, uint32_t obj)
{
	switch (kind) {
	case DPS_ACT_LOCK:
	case DPS_ACT_UNLOCK:
		return obj == DPS_OBJ_MUTEX || obj == DPS_OBJ_RWLOCK;
	case DPS_ACT_RDLOCK:
		return obj == DPS_OBJ_RWLOCK;
	case DPS_ACT_ARRIVE:
		return obj == DPS_OBJ_BARRIER;
	default:
		return obj == DPS_OBJ_QUEUE;
	}
}

/* Is action a of thread t well-formed for prog (a reference names another thread, an object
 * of the right kind or members in range, the kind is known)? */
static bool is_valid_action(const struct dps_program *prog, const struct dps_action *a, size_t t)
{
	size_t n = prog->n_threads;

	switch (a->kind) {
	case DPS_ACT_CREATE:
	case DPS_ACT_JOIN:
	case DPS_ACT_WAIT:
	case DPS_ACT_WAKE:
		return a->arg >= 0 && (uint64_t)a->arg < n && (size_t)a->arg != t;
	case DPS_ACT_WAIT_TIMEOUT:
		return a->arg >= 0 && (uint64_t)a->arg < n && (size_t)a->arg != t && a->arg2 >= 0;
	case DPS_ACT_LOCK:
	case DPS_ACT_RDLOCK:
	case DPS_ACT_UNLOCK:
	case DPS_ACT_PUT:
	case DPS_ACT_TAKE:
	case DPS_ACT_ARRIVE:
		return prog->objects && a->arg >= 0 && (uint64_t)a->arg < prog->n_objects &&
		       object_fits(a->kind, prog->objects[a->arg].kind) &&
		       (a->kind != DPS_ACT_ARRIVE || prog->objects[a->arg].capacity) &&
		       a->arg2 >= 0;
	case DPS_ACT_WAIT_ANY:
	case DPS_ACT_JOIN_ANY:
		if (!prog->members || a->arg < 0 || a->arg2 < 1 ||
		    (uint64_t)a->arg > prog->n_members ||
		    (uint64_t)a->arg2 > prog->n_members - (uint64_t)a->arg) {
			return false;
		}
		for (int64_t i = 0; i < a->arg2; i++) {
			uint32_t m = prog->members[a->arg + i];

			if (m >= n || m == t) {
				return false;
			}
		}
		return true;
	case DPS_ACT_RUN:
		/* its cache figures, when it has some: in the table, playable */
		return !a->arg2 ||
		       (prog->caches && a->arg2 > 0 && (uint64_t)a->arg2 <= prog->n_caches &&
			!dps_action_cache_problem(&prog->caches[a->arg2 - 1]));
	case DPS_ACT_SLEEP:
	case DPS_ACT_HEAP:
	case DPS_ACT_STACK:
		return true;
	default:
		return false;
	}
}

/* Checks what the player relies on (indexes in range, known kinds). Returns DPS_OK or
 * DPS_ERR_INVAL. */
static int check_program(const struct dps_program *prog)
{
	int ret = DPS_OK;

	if (!prog || !prog->n_threads || prog->root >= prog->n_threads || !prog->threads) {
		ret = DPS_ERR_INVAL;
	}
	for (size_t t = 0; !ret && t < prog->n_threads; t++) {
		const struct dps_thread_desc *d = &prog->threads[t];

		if (d->n_actions && !d->actions) {
			ret = DPS_ERR_INVAL;
		}
		for (size_t i = 0; !ret && i < d->n_actions; i++) {
			const struct dps_action *a = &d->actions[i];

			if (!is_valid_action(prog, a, t)) {
				ret = DPS_ERR_INVAL;
			}
		}
	}
	return ret;
}

/* The result of the play: the threads' figures are handed over (pl->results is NULL after),
 * not copied, so a play of many threads holds them once. */
static void fill_result(struct player *pl, struct dps_play_result *result, uint64_t end_ns)
{
	result->makespan_ns = end_ns;
	result->origin_mono_ns = pl->t0;
	result->n_threads = pl->prog->n_threads;
	snprintf(result->detail, sizeof(result->detail), "%s", pl->detail);
	result->threads = pl->results;
	pl->results = NULL;
}

int dps_play(const struct dps_program *prog, const struct dps_play_options *opts,
	     struct dps_play_result *result)
{
	struct dps_play_options defaults;
	struct player pl;
	char old_name[16] = "";
	size_t n_conds = 0, n_objs = 0;
	pthread_condattr_t mono;
	uint64_t end_ns;
	int ret;

	memset(&pl, 0, sizeof(pl));
	if (result) {
		memset(result, 0, sizeof(*result));
	}
	ret = check_program(prog);
	if (ret) {
		goto end;
	}
	if (!opts) {
		dps_play_options_default(&defaults);
		opts = &defaults;
	}
	dps__ensure_init();
	pl.prog = prog;
	pl.opts = *opts;
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.all_ended, NULL);
	pl.slots = calloc(prog->n_threads, sizeof(*pl.slots));
	pl.results = calloc(prog->n_threads, sizeof(*pl.results));
	if (!pl.slots || !pl.results) {
		ret = DPS_ERR_NOMEM;
		goto end_lock;
	}
	ret = dps__player_build_deps(&pl);
	if (ret) {
		goto end_slots;
	}
	pthread_condattr_init(&mono);
	/* timed waits count on CLOCK_MONOTONIC, as every clock of the player */
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	pl.objs = calloc(prog->n_objects ? prog->n_objects : 1, sizeof(*pl.objs));
	if (!pl.objs) {
		ret = DPS_ERR_NOMEM;
		goto end_deps;
	}
	for (; n_objs < prog->n_objects; n_objs++) {
		struct obj *o = &pl.objs[n_objs];

		o->desc = &prog->objects[n_objs];
		o->owner = NO_SLOT;
		o->releaser = NO_SLOT;
		o->count = o->desc->kind == DPS_OBJ_QUEUE ? o->desc->initial : 0;
		pthread_mutex_init(&o->mutex, NULL);
		pthread_cond_init(&o->cond, &mono);
		if (o->desc->kind == DPS_OBJ_QUEUE && o->desc->order) {
			ret = dps__task_items(prog, n_objs, &o->items);
			if (ret) {
				n_objs++;
				goto end_deps;
			}
		}
	}
	for (; n_conds < prog->n_threads; n_conds++) {
		struct slot *s = &pl.slots[n_conds];

		s->pl = &pl;
		s->idx = n_conds;
		s->res = &pl.results[n_conds];
		s->res->id = prog->threads[n_conds].id;
		pthread_cond_init(&s->state_cond, NULL);
		pthread_cond_init(&s->wake_cond, &mono);
	}

	if ((ret = dps__player_cache_init(&pl, result))) { /* before any thread of the play */
		goto end_deps;
	}
	pthread_getname_np(pthread_self(), old_name, sizeof(old_name));
	pl.t0 = dps__now_ns();
	pl.slots[prog->root].state = SLOT_STARTED;
	pl.running = 1;
	pl.live = 1;
	play_root(&pl);
	pthread_setname_np(pthread_self(), old_name);
	dps__tls_id = 0;
	lttng_ust_context_procname_reset();

	/* Every thread must have ended first: one may still be creating a thread with a lower
	 * index than its own, which a single pass would already have passed. Then reap every
	 * pthread no joiner claimed (claimed ones are joined before their joiner ends). */
	pthread_mutex_lock(&pl.lock);
	while (pl.live) {
		pthread_cond_wait(&pl.all_ended, &pl.lock);
	}
	pthread_mutex_unlock(&pl.lock);
	for (size_t i = 0; i < prog->n_threads; i++) {
		struct slot *s = &pl.slots[i];
		bool claim;

		pthread_mutex_lock(&pl.lock);
		claim = s->has_pt;
		s->has_pt = false;
		pthread_mutex_unlock(&pl.lock);
		if (claim) {
			pthread_join(s->pt, NULL);
		}
	}
	end_ns = dps__now_ns() - pl.t0;
	ret = pl.error;
	if (result || opts->summary) {
		/* the summary needs a result even when the caller did not ask for one */
		struct dps_play_result local;
		struct dps_play_result *r = result ? result : &local;

		fill_result(&pl, r, end_ns);
		/* a failed play has no makespan to show: its status says what happened */
		if (opts->summary && r->threads && !ret) {
			dps_play_result_print(prog, r, stderr);
		}
		if (!result) {
			dps_play_result_fini(&local);
		}
	}
end_deps:
	dps__player_cache_fini(&pl);
	for (size_t i = 0; i < n_objs; i++) {
		/* a mutex still held (an aborted play) is left as it is: destroying it is
		 * undefined */
		if (pl.objs[i].owner == NO_SLOT) {
			pthread_mutex_destroy(&pl.objs[i].mutex);
		}
		pthread_cond_destroy(&pl.objs[i].cond);
		free(pl.objs[i].items);
	}
	free(pl.objs);
	pthread_condattr_destroy(&mono);
	free(pl.deps);
end_slots:
	for (size_t i = 0; i < n_conds; i++) {
		pthread_cond_destroy(&pl.slots[i].state_cond);
		pthread_cond_destroy(&pl.slots[i].wake_cond);
	}
	free(pl.slots);
	free(pl.results);
end_lock:
	pthread_cond_destroy(&pl.all_ended);
	pthread_mutex_destroy(&pl.lock);
end:
	return ret;
}

void dps_play_result_fini(struct dps_play_result *result)
{
	if (!result) {
		return;
	}
	free(result->threads);
	result->threads = NULL;
	result->n_threads = 0;
}
