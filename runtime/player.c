/* SPDX-License-Identifier: MIT */
/*
 * The action player: plays a dps_program's per-thread action lists with the PSFs.
 *
 * Threads are slots indexed like prog->threads. The root plays on the calling thread; a
 * `create` starts a slot's pthread. One mutex guards the shared state (slot states and the
 * wait/wake counters); each slot has a condition variable for the state changes its joiners
 * wait on and one for the wakes it waits on. A `wait` is a counting dependency per
 * (waker, sleeper) pair, so a wake given before the wait is not lost.
 *
 * Format version 2's objects (the program's `objects`) are played as what they stand for: a
 * mutex is a real pthread mutex (so contention costs what it costs), a queue a count with a
 * capacity and a barrier a cyclic count of arrivals, both under the player's lock with a
 * condition variable each. A thread blocked on any of them is accounted like one blocked on a
 * wait or a join (the mutex's owner is known), so the deadlock check below sees every kind of
 * block: a lock cycle, a take from a queue nobody will fill. A timed wait is never part of a
 * deadlock (its timeout ends it).
 *
 * Termination is guaranteed on every path: when a pthread_create fails, or when every live
 * thread is blocked with nothing left to wake it (a set whose dependencies cannot be met), the
 * play is aborted: blocked threads are released (a thread in a mutex's lock notices within
 * LOCK_POLL_NS), every thread stops after its current action, and dps_play() joins every
 * thread it started before returning the error, whose detail names the blocked threads.
 *
 * Over 1000 lines: every kind of block (wait, join, the objects' lock, put, take, arrive, the
 * timed and any-of waits) shares the one lock, the one account of running threads and the
 * one deadlock check; split by kind, each file would reach into the others' state.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <lttng/ust-events.h>

#include "dps_tp.h"
#include "memory-internal.h"
#include "player-internal.h"
#include "runtime-internal.h"

enum slot_state {
	SLOT_IDLE = 0, /* not created (yet) */
	SLOT_STARTED,  /* playing */
	SLOT_ENDED,    /* played its last action */
	SLOT_FAILED,   /* pthread_create failed */
};

enum slot_block {
	BLOCK_NONE = 0,
	BLOCK_WAIT,	/* block_dep; with a deadline when timed */
	BLOCK_JOIN,	/* block_child */
	BLOCK_WAIT_ANY, /* block_action's members */
	BLOCK_JOIN_ANY, /* block_action's members */
	BLOCK_LOCK,	/* block_obj's owner */
	BLOCK_PUT,	/* block_obj full */
	BLOCK_TAKE,	/* block_obj empty */
	BLOCK_ARRIVE,	/* block_obj's round block_round not complete */
};

#define NO_SLOT SIZE_MAX
/* How often a thread blocked in a mutex's lock looks whether the play was aborted. */
#define LOCK_POLL_NS (100 * 1000 * 1000)

/* A synchronization object of the program (format version 2). */
struct obj {
	const struct dps_object *desc; /* borrowed: the program's */
	pthread_mutex_t mutex;	       /* a mutex's real mutex */
	size_t owner;		       /* a mutex's holder (NO_SLOT: free), under the lock */
	uint64_t count;		       /* a queue's items; a barrier's arrivals this round */
	uint64_t round;		       /* a barrier's completed rounds */
	size_t releaser;	       /* who last did what may unblock the others */
	pthread_cond_t cond;	       /* queue and barrier waiters */
	/* a task queue's items (player-tasks.c; owned, desc->n_order) and how many were taken,
	 * under the lock */
	struct dps__task_item *items;
	uint64_t taken;
};

/* One (waker, sleeper) dependency: wakes given and not yet consumed. */
struct dep {
	size_t sleeper;
	size_t waker;
	uint64_t wakes;
};

struct player;

struct slot {
	struct player *pl; /* borrowed: back pointer for the thread function */
	size_t idx;
	pthread_t pt;
	enum slot_state state;
	bool has_pt;		     /* pt is a started pthread not yet claimed for joining */
	bool joined;		     /* some thread has a join action on this one */
	enum slot_block block;	     /* what the thread is blocked on, for deadlock checks */
	const struct dep *block_dep; /* borrowed: the dep of a BLOCK_WAIT */
	size_t block_child;	     /* the joinee of a BLOCK_JOIN */
	bool block_timed;	     /* a BLOCK_WAIT with a timeout: never deadlocked */
	const struct dps_action *block_action; /* borrowed: a BLOCK_WAIT_ANY's, _JOIN_ANY's */
	struct obj *block_obj;		       /* borrowed: a BLOCK_LOCK's .. _ARRIVE's */
	uint64_t block_round;		       /* the barrier round a BLOCK_ARRIVE waits out */
	bool reaped;			       /* a join any took this thread */
	pthread_cond_t state_cond;	       /* joiners wait here for state changes */
	pthread_cond_t wake_cond;	       /* the thread itself waits here for wakes */
	struct dps_thread_result res;	       /* written by the thread, read after it ended */

	/* Per-thread play context (used only by the thread itself) */
	double run_scale, sleep_scale;
	bool run_idle; /* runs are played as sleeps of their length (the idle CPU stub) */
	struct dps__mem_thread *mem; /* owned while playing; NULL without memory actions */
	/* thread CPU clock at thread_begin; for the root from the process's start, its clock at
	 * the exec (its runs absorb what it used before it began) */
	int64_t cpu_base;
	uint64_t cpu_budget; /* sum of the runs requested so far (cpu mode budget) */
	/* the root from the process's start: CLOCK_MONOTONIC at the exec, until its first wait
	 * or join (0 after, and for every other thread); and the time its actions were
	 * recorded to take since then (runs and sleeps requested) */
	uint64_t lag_origin_ns;
	uint64_t played_ns;
};

struct player {
	const struct dps_program *prog; /* borrowed */
	struct dps_play_options opts;
	pthread_mutex_t lock;
	struct slot *slots; /* owned, prog->n_threads */
	struct dep *deps;   /* owned, sorted by (sleeper, waker) */
	size_t n_deps;
	size_t running;		  /* started, not ended, not blocked */
	size_t live;		  /* started (or being created) and not ended */
	pthread_cond_t all_ended; /* signalled when live drops to 0 */
	int aborted;		  /* read without the lock: atomics */
	int error;		  /* first error, under the lock */
	char detail[384];	  /* what the first error was, when more can be said */
	size_t n_created;	  /* pthread_create calls, under the lock (fault injection) */
	uint64_t t0;
	struct obj *objs;  /* owned, prog->n_objects */
	bool has_join_any; /* a thread's end signals the join any waiters */
};

/* The id the wait events give when no thread is the cause (a timeout, no block). */
#define NO_WAKER_ID UINT64_MAX

/* Fault injection for the tests of the failure paths: the Nth pthread_create (1-based) of
 * each dps_play() fails. 0 = off. */
static size_t fail_create_at;

void dps__player_fail_create_at(size_t n)
{
	fail_create_at = n;
}

static int compare_dep(const void *a, const void *b)
{
	const struct dep *x = a, *y = b;

	if (x->sleeper != y->sleeper) {
		return x->sleeper < y->sleeper ? -1 : 1;
	}
	return (x->waker > y->waker) - (x->waker < y->waker);
}

static struct dep *find_dep(struct player *pl, size_t sleeper, size_t waker)
{
	struct dep key = {.sleeper = sleeper, .waker = waker};

	return bsearch(&key, pl->deps, pl->n_deps, sizeof(key), compare_dep);
}

static bool is_aborted(struct player *pl)
{
	return __atomic_load_n(&pl->aborted, __ATOMIC_ACQUIRE);
}

/* Under the lock: stops the play and releases everyone who waits. */
static void abort_locked(struct player *pl, int error)
{
	if (!pl->error) {
		pl->error = error;
	}
	__atomic_store_n(&pl->aborted, 1, __ATOMIC_RELEASE);
	for (size_t i = 0; i < pl->prog->n_threads; i++) {
		pthread_cond_broadcast(&pl->slots[i].state_cond);
		pthread_cond_broadcast(&pl->slots[i].wake_cond);
	}
	for (size_t i = 0; pl->objs && i < pl->prog->n_objects; i++) {
		pthread_cond_broadcast(&pl->objs[i].cond);
	}
}

static bool is_done(enum slot_state s)
{
	return s == SLOT_ENDED || s == SLOT_FAILED;
}

/* The members of a wait any or join any. */
static const uint32_t *members_of(const struct player *pl, const struct dps_action *a)
{
	return pl->prog->members + a->arg;
}

/* Under the lock: the member of a wait any with a wake to consume (first in the set's order),
 * or NO_SLOT; *all_done says whether every member has ended. */
static size_t wake_of_any(struct player *pl, const struct slot *s, const struct dps_action *a,
			  bool *all_done)
{
	const uint32_t *m = members_of(pl, a);

	*all_done = true;
	for (int64_t i = 0; i < a->arg2; i++) {
		const struct dep *d = find_dep(pl, s->idx, m[i]);

		if (d && d->wakes) {
			return m[i];
		}
		*all_done &= is_done(pl->slots[m[i]].state);
	}
	return NO_SLOT;
}

/* Under the lock: the member of a join any that has ended and no join any took yet, or
 * NO_SLOT; *none_left says no member is left to take. */
static size_t ended_of_any(struct player *pl, const struct dps_action *a, bool *none_left)
{
	const uint32_t *m = members_of(pl, a);

	*none_left = true;
	for (int64_t i = 0; i < a->arg2; i++) {
		const struct slot *c = &pl->slots[m[i]];

		if (c->reaped) {
			continue;
		}
		*none_left = false;
		if (is_done(c->state)) {
			return m[i];
		}
	}
	return NO_SLOT;
}

/* Under the lock: would a thread blocked like s be able to go on? */
static bool can_continue(struct player *pl, const struct slot *s)
{
	const struct obj *o = s->block_obj;
	bool flag;

	switch (s->block) {
	case BLOCK_WAIT:
		return s->block_dep->wakes > 0 || is_done(pl->slots[s->block_dep->waker].state);
	case BLOCK_JOIN:
		return is_done(pl->slots[s->block_child].state);
	case BLOCK_WAIT_ANY:
		return wake_of_any(pl, s, s->block_action, &flag) != NO_SLOT || flag;
	case BLOCK_JOIN_ANY:
		return ended_of_any(pl, s->block_action, &flag) != NO_SLOT || flag;
	case BLOCK_LOCK:
		return o->owner == NO_SLOT;
	case BLOCK_PUT:
		return !o->desc->capacity || o->count < o->desc->capacity;
	case BLOCK_TAKE:
		return o->count > 0;
	case BLOCK_ARRIVE:
		return o->round != s->block_round;
	case BLOCK_NONE:
	default:
		return true;
	}
}

/* What a blocked thread waits for, for the deadlock message. */
static int describe_block(struct player *pl, const struct slot *s, char *buf, size_t len)
{
	const struct dps_program *prog = pl->prog;
	uint64_t id = prog->threads[s->idx].id;
	const struct obj *o = s->block_obj;

	switch (s->block) {
	case BLOCK_WAIT:
		return snprintf(buf, len, "thread %" PRIu64 " waits for a wake of thread %" PRIu64,
				id, prog->threads[s->block_dep->waker].id);
	case BLOCK_JOIN:
		return snprintf(buf, len, "thread %" PRIu64 " joins thread %" PRIu64, id,
				prog->threads[s->block_child].id);
	case BLOCK_WAIT_ANY:
		return snprintf(buf, len,
				"thread %" PRIu64 " waits for a wake of %" PRId64 " threads", id,
				s->block_action->arg2);
	case BLOCK_JOIN_ANY:
		return snprintf(buf, len, "thread %" PRIu64 " joins any of %" PRId64 " threads", id,
				s->block_action->arg2);
	case BLOCK_LOCK:
		return snprintf(
		    buf, len, "thread %" PRIu64 " locks mutex %" PRIu64 " held by thread %" PRIu64,
		    id, o->desc->id, prog->threads[o->owner].id);
	case BLOCK_PUT:
		return snprintf(buf, len, "thread %" PRIu64 " puts into full queue %" PRIu64, id,
				o->desc->id);
	case BLOCK_TAKE:
		return snprintf(buf, len, "thread %" PRIu64 " takes from empty queue %" PRIu64, id,
				o->desc->id);
	case BLOCK_ARRIVE:
		return snprintf(buf, len,
				"thread %" PRIu64 " at barrier %" PRIu64 " (%" PRIu64 " of %" PRIu64
				" arrived)",
				id, o->desc->id, o->count, o->desc->capacity);
	case BLOCK_NONE:
	default:
		return snprintf(buf, len, "thread %" PRIu64, id);
	}
}

/* Under the lock, when no thread is running: aborts if no blocked thread can go on. */
static void check_deadlock_locked(struct player *pl)
{
	bool blocked = false;

	if (pl->running) {
		return;
	}
	for (size_t i = 0; i < pl->prog->n_threads; i++) {
		const struct slot *s = &pl->slots[i];

		if (s->state != SLOT_STARTED || s->block == BLOCK_NONE) {
			continue;
		}
		if (s->block_timed || can_continue(pl, s)) {
			return;
		}
		blocked = true;
	}
	if (blocked) {
		size_t n = 0;

		/* the first error keeps its detail */
		for (size_t i = 0; !pl->error && i < pl->prog->n_threads; i++) {
			const struct slot *s = &pl->slots[i];
			int w;

			if (s->state != SLOT_STARTED || s->block == BLOCK_NONE ||
			    n + 8 >= sizeof(pl->detail)) {
				continue;
			}
			w = describe_block(pl, s, pl->detail + n, sizeof(pl->detail) - n - 4);
			n += w > 0 ? (size_t)w : 0;
			n = n < sizeof(pl->detail) - 4 ? n : sizeof(pl->detail) - 4;
			n += (size_t)snprintf(pl->detail + n, sizeof(pl->detail) - n, "; ");
		}
		if (n >= 2) {
			pl->detail[n - 2] = '\0';
		}
		abort_locked(pl, DPS_ERR_DEADLK);
	}
}

/* Under the lock: blocks the caller on cond until it can continue, the play aborts, or the
 * CLOCK_MONOTONIC deadline_ns passes (0: none). Returns whether it can continue. */
static bool block_until_locked(struct player *pl, struct slot *self, pthread_cond_t *cond,
			       uint64_t deadline_ns)
{
	bool ok, counted = false;

	self->block_timed = deadline_ns != 0;
	while (!(ok = can_continue(pl, self)) && !is_aborted(pl)) {
		int rc = 0;

		if (!counted) {
			self->res.n_blocked++;
			counted = true;
		}
		pl->running--;
		check_deadlock_locked(pl);
		if (!is_aborted(pl)) {
			if (deadline_ns) {
				struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000),
						      .tv_nsec = (long)(deadline_ns % 1000000000)};

				rc = pthread_cond_timedwait(cond, &pl->lock, &ts);
			} else {
				pthread_cond_wait(cond, &pl->lock);
			}
		}
		pl->running++;
		if (rc == ETIMEDOUT) {
			ok = can_continue(pl, self);
			break;
		}
	}
	self->block = BLOCK_NONE;
	self->block_timed = false;
	return ok;
}

static void block_locked(struct player *pl, struct slot *self, pthread_cond_t *cond)
{
	block_until_locked(pl, self, cond, 0);
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

/* A number from a /proc/sys file, or -1. */
static long read_proc_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1) {
			v = -1;
		}
		fclose(f);
	}
	return v;
}

/* The memory mappings of this process (lines of /proc/self/maps), or -1. */
static long count_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;

	if (!f) {
		return -1;
	}
	while ((c = getc(f)) != EOF) {
		n += c == '\n';
	}
	fclose(f);
	return n;
}

/*
 * Why thread id could not be started, with the limits that stop thread creation and where
 * the process stood against them: each thread costs a task (kernel.threads-max, the user's
 * RLIMIT_NPROC) and two mappings, its stack and guard (vm.max_map_count).
 */
static void describe_create_failure(char *buf, size_t len, uint64_t id, int err, size_t alive)
{
	struct rlimit nproc = {0};
	long maps = count_mappings();
	char nproc_s[32] = "unlimited";

	getrlimit(RLIMIT_NPROC, &nproc);
	if (nproc.rlim_cur != RLIM_INFINITY) {
		snprintf(nproc_s, sizeof(nproc_s), "%llu", (unsigned long long)nproc.rlim_cur);
	}
	snprintf(buf, len,
		 "thread %" PRIu64 " could not be started (pthread_create: %s) with %zu threads "
		 "of the play alive; limits: vm.max_map_count %ld (%ld mappings in use, 2 per "
		 "thread), kernel.threads-max %ld, RLIMIT_NPROC %s (ulimit -u)",
		 id, strerror(err), alive, read_proc_long("/proc/sys/vm/max_map_count"), maps,
		 read_proc_long("/proc/sys/kernel/threads-max"), nproc_s);
}

/*
 * pthread_create runs outside the lock: it costs tens of µs (a fresh stack mapping), and
 * holding the lock meanwhile would delay every wake, wait, join and thread end of the replay.
 * The slot is claimed (STARTED, counted running) first, so the child may even end before its
 * pthread_t is stored; it is reaped then by a later joiner or by dps_play().
 */
static void do_create(struct player *pl, struct slot *self, const struct dps_action *a)
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
		claimed = true;
	}
	pthread_mutex_unlock(&pl->lock);
	if (!claimed) {
		goto end;
	}
	/* EAGAIN is what a thread limit gives; injected for the tests of this path */
	rc = inject ? EAGAIN : pthread_create(&pt, NULL, thread_main, child);
	pthread_mutex_lock(&pl->lock);
	if (rc) {
		child->state = SLOT_FAILED;
		pl->running--;
		if (!pl->error) {
			describe_create_failure(pl->detail, sizeof(pl->detail),
						pl->prog->threads[c].id, rc, pl->live - 1);
		}
		if (!--pl->live) {
			pthread_cond_broadcast(&pl->all_ended);
		}
		abort_locked(pl, DPS_ERR_AGAIN);
	} else if (!child->joined) {
		/* Nobody joins it: detached, the system reaps it as it ends (100,000 short
		 * threads no longer keep 100,000 stacks mapped until the play ends). dps_play
		 * still waits for its end through `live`. */
		pthread_detach(pt);
	} else {
		child->pt = pt;
		child->has_pt = true;
	}
	pthread_cond_broadcast(&child->state_cond);
	pthread_mutex_unlock(&pl->lock);
end:
	(void)self;
}

static void do_join(struct player *pl, struct slot *self, const struct dps_action *a)
{
	size_t c = (size_t)a->arg;
	struct slot *child = &pl->slots[c];
	uint64_t cid = pl->prog->threads[c].id;
	bool claim = false;
	pthread_t pt;

	lttng_ust_tracepoint(dps, join_begin, dps__tls_id, cid, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_JOIN;
	self->block_child = c;
	block_locked(pl, self, &child->state_cond);
	if (child->has_pt) {
		/* First joiner reaps the pthread; later joiners only waited for the end. */
		child->has_pt = false;
		pt = child->pt;
		claim = true;
	}
	pthread_mutex_unlock(&pl->lock);
	if (claim) {
		pthread_join(pt, NULL);
	}
	lttng_ust_tracepoint(dps, join_end, dps__tls_id, cid, a->line);
}

static void do_wait(struct player *pl, struct slot *self, const struct dps_action *a)
{
	size_t w = (size_t)a->arg;
	uint64_t wid = pl->prog->threads[w].id;
	struct dep *d = find_dep(pl, self->idx, w);

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, wid, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_WAIT;
	self->block_dep = d;
	block_locked(pl, self, &self->wake_cond);
	if (d->wakes) {
		d->wakes--;
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, wid, a->line);
}

/* wake: one wake from waker (the thread whose action it is: the player's own, or a task
 * queue item's recorded taker, for whoever plays the item) to the sleeper. */
static void do_wake(struct player *pl, size_t waker, const struct dps_action *a)
{
	size_t s = (size_t)a->arg;
	struct dep *d = find_dep(pl, s, waker);

	pthread_mutex_lock(&pl->lock);
	d->wakes++;
	pthread_cond_signal(&pl->slots[s].wake_cond);
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wake, dps__tls_id, pl->prog->threads[s].id, a->line);
}

/* The id of slot i for the events, or NO_WAKER_ID. */
static uint64_t id_of(const struct player *pl, size_t i)
{
	return i < pl->prog->n_threads ? pl->prog->threads[i].id : NO_WAKER_ID;
}

/* A CLOCK_MONOTONIC deadline ns from now. */
static uint64_t deadline_after(uint64_t ns)
{
	uint64_t now = dps__now_ns();

	return ns > UINT64_MAX - now ? UINT64_MAX : now + ns;
}

/* wait ID timeout D: the wait above, given up at its deadline; the end event names the waker
 * when a wake (or the waker's end) ended it, nobody when the timeout did. */
static void do_wait_timeout(struct player *pl, struct slot *self, const struct dps_action *a)
{
	size_t w = (size_t)a->arg;
	uint64_t wid = pl->prog->threads[w].id;
	struct dep *d = find_dep(pl, self->idx, w);
	bool ok;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, wid, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_WAIT;
	self->block_dep = d;
	ok = block_until_locked(pl, self, &self->wake_cond,
				deadline_after(a->arg2 > 0 ? (uint64_t)a->arg2 : 0));
	if (ok && d->wakes) {
		d->wakes--;
	}
	if (!ok) {
		self->res.n_timeouts++;
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, ok ? wid : NO_WAKER_ID, a->line);
}

/* wait A|B|...: one wake from any of them (the first in the set's order that has one). */
static void do_wait_any(struct player *pl, struct slot *self, const struct dps_action *a)
{
	const uint32_t *m = members_of(pl, a);
	size_t w;
	bool all_done;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, pl->prog->threads[m[0]].id, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_WAIT_ANY;
	self->block_action = a;
	block_locked(pl, self, &self->wake_cond);
	w = wake_of_any(pl, self, a, &all_done);
	if (w != NO_SLOT) {
		find_dep(pl, self->idx, w)->wakes--;
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, id_of(pl, w), a->line);
}

/* join any A|B|...: the first member (in the set's order) that has ended and that no join any
 * took yet; reaped as a join reaps. Its join_begin names no child (NO_WAKER_ID: any), its
 * join_end the member joined, so a reader of the trace ties the join to that one. */
static void do_join_any(struct player *pl, struct slot *self, const struct dps_action *a)
{
	size_t c;
	bool none_left, claim = false;
	pthread_t pt;

	lttng_ust_tracepoint(dps, join_begin, dps__tls_id, NO_WAKER_ID, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_JOIN_ANY;
	self->block_action = a;
	block_locked(pl, self, &self->wake_cond);
	c = ended_of_any(pl, a, &none_left);
	if (c != NO_SLOT) {
		pl->slots[c].reaped = true;
		if (pl->slots[c].has_pt) {
			pl->slots[c].has_pt = false;
			pt = pl->slots[c].pt;
			claim = true;
		}
	}
	pthread_mutex_unlock(&pl->lock);
	if (claim) {
		pthread_join(pt, NULL);
	}
	lttng_ust_tracepoint(dps, join_end, dps__tls_id, id_of(pl, c), a->line);
}

/*
 * lock: the object's real mutex. Uncontended, one trylock; contended, the thread is accounted
 * as blocked on the owner (the deadlock check sees lock cycles) while it waits in
 * pthread_mutex_clocklock, LOCK_POLL_NS at a time to notice an aborted play (then it goes on
 * without the mutex, and stops before its next action).
 */
static void do_lock(struct player *pl, struct slot *self, const struct dps_action *a)
{
	struct obj *o = &pl->objs[a->arg];
	size_t releaser = NO_SLOT;
	bool got = true;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, NO_WAKER_ID, a->line);
	if (pthread_mutex_trylock(&o->mutex)) {
		pthread_mutex_lock(&pl->lock);
		self->block = BLOCK_LOCK;
		self->block_obj = o;
		self->res.n_blocked++;
		pl->running--;
		check_deadlock_locked(pl);
		pthread_mutex_unlock(&pl->lock);
		for (;;) {
			uint64_t until = deadline_after(LOCK_POLL_NS);
			struct timespec ts = {.tv_sec = (time_t)(until / 1000000000),
					      .tv_nsec = (long)(until % 1000000000)};

			if (!pthread_mutex_clocklock(&o->mutex, CLOCK_MONOTONIC, &ts)) {
				break;
			}
			if (is_aborted(pl)) {
				got = false;
				break;
			}
		}
		pthread_mutex_lock(&pl->lock);
		pl->running++;
		self->block = BLOCK_NONE;
		releaser = o->releaser;
	} else {
		pthread_mutex_lock(&pl->lock);
	}
	if (got) {
		o->owner = self->idx;
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, id_of(pl, releaser), a->line);
}

static void do_unlock(struct player *pl, struct slot *self, const struct dps_action *a)
{
	struct obj *o = &pl->objs[a->arg];
	bool held;

	pthread_mutex_lock(&pl->lock);
	held = o->owner == self->idx;
	if (held) {
		o->owner = NO_SLOT;
		o->releaser = self->idx;
	}
	pthread_mutex_unlock(&pl->lock);
	/* not held: the play was aborted while this thread waited for it */
	if (held) {
		pthread_mutex_unlock(&o->mutex);
	}
}

/* put, take: one item in or out of the queue, blocked while it is full (empty); the end event
 * names the thread whose take (put) let a blocked one go on. Returns the index of the item a
 * take got (its place among the queue's takes), UINT64_MAX for a put. */
static uint64_t do_put_take(struct player *pl, struct slot *self, const struct dps_action *a)
{
	uint64_t item = UINT64_MAX;
	struct obj *o = &pl->objs[a->arg];
	bool put = a->kind == DPS_ACT_PUT;
	size_t releaser = NO_SLOT;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, NO_WAKER_ID, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = put ? BLOCK_PUT : BLOCK_TAKE;
	self->block_obj = o;
	if (!can_continue(pl, self)) {
		block_locked(pl, self, &o->cond);
		releaser = o->releaser;
	}
	self->block = BLOCK_NONE;
	if (!is_aborted(pl)) {
		if (put) {
			o->count++;
		} else if (o->count) {
			o->count--;
		}
		if (!put) {
			item = o->taken++;
		}
		o->releaser = self->idx;
		pthread_cond_broadcast(&o->cond);
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, id_of(pl, releaser), a->line);
	return item;
}

/* arrive: blocks until the barrier's parties have arrived (cyclic); the end event names the
 * last arriver. */
static void do_arrive(struct player *pl, struct slot *self, const struct dps_action *a)
{
	struct obj *o = &pl->objs[a->arg];
	size_t releaser = NO_SLOT;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, NO_WAKER_ID, a->line);
	pthread_mutex_lock(&pl->lock);
	if (++o->count >= o->desc->capacity) {
		o->count = 0;
		o->round++;
		o->releaser = self->idx;
		pthread_cond_broadcast(&o->cond);
	} else {
		self->block = BLOCK_ARRIVE;
		self->block_obj = o;
		self->block_round = o->round;
		block_locked(pl, self, &o->cond);
		releaser = o->releaser;
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, id_of(pl, releaser), a->line);
}

static void do_heap(struct player *pl, struct slot *self, const struct dps_action *a)
{
	if (!self->mem || dps__mem_heap(self->mem, a->arg)) {
		pthread_mutex_lock(&pl->lock);
		if (!pl->error) {
			pl->error = DPS_ERR_NOMEM;
		}
		pthread_mutex_unlock(&pl->lock);
		return;
	}
	lttng_ust_tracepoint(dps, heap, dps__tls_id, a->arg, dps__mem_heap_size(self->mem),
			     a->line);
}

/* dps__stack_done_fn: the stack action at index i is in effect; its event, at its depth. */
static void stack_done(void *ctx, size_t i, int64_t depth_bytes, int64_t real_depth_bytes)
{
	struct slot *self = ctx;
	const struct dps_action *a = &self->pl->prog->threads[self->idx].actions[i];

	lttng_ust_tracepoint(dps, stack, dps__tls_id, a->arg,
			     depth_bytes > 0 ? (uint64_t)depth_bytes : 0,
			     real_depth_bytes > 0 ? (uint64_t)real_depth_bytes : 0, a->line);
	self->res.n_actions++;
}

/* The thread CPU clock a run must end at (cpu mode): never 0, which means "no budget". */
static uint64_t budget_target(const struct slot *self)
{
	int64_t target = self->cpu_base + (int64_t)self->cpu_budget;

	return target > 0 ? (uint64_t)target : 1;
}

/*
 * How much of a sleep of ns the root skips: the time it is behind the recording since the
 * exec (the stub's loading and tracer start-up, what its runs did not absorb), at most ns.
 */
static uint64_t start_lag(const struct slot *self, uint64_t ns)
{
	uint64_t now, due;

	if (!self->lag_origin_ns) {
		return 0;
	}
	now = dps__now_ns();
	due = self->lag_origin_ns + self->played_ns;
	if (now <= due) {
		return 0;
	}
	return now - due < ns ? now - due : ns;
}

static void play_one(struct player *pl, struct slot *self, const struct dps_action *a)
{
	uint64_t ns, act;

	switch (a->kind) {
	case DPS_ACT_RUN:
		ns = scale_ns(a->arg, self->run_scale);
		if (self->run_idle) {
			/* The time passes, the CPU is handed to the others: accounted as the
			 * sleep it is, so the summary's run totals stay the CPU asked for. */
			act = dps__sleep(ns, a->line);
			self->res.sleep_req_ns += ns;
			self->res.sleep_act_ns += act;
			break;
		}
		self->cpu_budget += ns;
		self->played_ns += ns;
		act = dps__run_budget(ns, pl->opts.mode, budget_target(self), a->line);
		self->res.run_req_ns += ns;
		self->res.run_act_ns += act;
		break;
	case DPS_ACT_SLEEP:
		ns = scale_ns(a->arg, self->sleep_scale);
		act = dps__sleep(ns - start_lag(self, ns), a->line);
		self->played_ns += ns;
		self->res.sleep_req_ns += ns;
		self->res.sleep_act_ns += act;
		break;
	case DPS_ACT_CREATE:
		do_create(pl, self, a);
		break;
	case DPS_ACT_JOIN:
		do_join(pl, self, a);
		self->lag_origin_ns = 0; /* in step with the others from here */
		break;
	case DPS_ACT_WAIT:
		do_wait(pl, self, a);
		self->lag_origin_ns = 0;
		break;
	case DPS_ACT_WAKE:
		do_wake(pl, self->idx, a);
		break;
	case DPS_ACT_HEAP:
		do_heap(pl, self, a);
		break;
	case DPS_ACT_WAIT_TIMEOUT:
		do_wait_timeout(pl, self, a);
		self->lag_origin_ns = 0;
		break;
	case DPS_ACT_WAIT_ANY:
		do_wait_any(pl, self, a);
		self->lag_origin_ns = 0;
		break;
	case DPS_ACT_JOIN_ANY:
		do_join_any(pl, self, a);
		self->lag_origin_ns = 0;
		break;
	case DPS_ACT_LOCK:
		do_lock(pl, self, a);
		self->lag_origin_ns = 0;
		break;
	case DPS_ACT_UNLOCK:
		do_unlock(pl, self, a);
		break;
	case DPS_ACT_PUT:
	case DPS_ACT_TAKE:
		(void)do_put_take(pl, self, a);
		self->lag_origin_ns = 0;
		break;
	case DPS_ACT_ARRIVE:
		do_arrive(pl, self, a);
		self->lag_origin_ns = 0;
		break;
	default:
		break;
	}
	self->res.n_actions++;
}

/*
 * A take of a task queue at the thread's own action i (player-tasks.c): the thread takes an
 * item and plays its recorded taker's stretch, takes the next and so on, until it takes an
 * item that was its taker's last take. Returns the index of the thread's own last take of the
 * queue: it goes on after it, with its own epilogue.
 */
static size_t serve(struct player *pl, struct slot *self, size_t i)
{
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
	k = do_put_take(pl, self, take);
	self->lag_origin_ns = 0;
	self->res.n_actions++;
	while (!is_aborted(pl) && k < o->desc->n_order && !o->items[k].last) {
		const struct dps__task_item *it = &o->items[k];
		const struct dps_thread_desc *src = &pl->prog->threads[it->owner];

		for (size_t j = it->begin; j < it->end && !is_aborted(pl); j++) {
			if (src->actions[j].kind == DPS_ACT_WAKE) {
				/* its recorded taker's wake: the sleeper waits for that thread */
				do_wake(pl, it->owner, &src->actions[j]);
				self->res.n_actions++;
				continue;
			}
			play_one(pl, self, &src->actions[j]);
		}
		k = do_put_take(pl, self, &src->actions[it->end]);
		self->res.n_actions++;
	}
	return last;
}

/* dps__play_from_fn: plays from i up to (not including) the next stack action, which
 * memory.c applies (and reports through stack_done). */
static size_t play_from(void *ctx, size_t i)
{
	struct slot *self = ctx;
	struct player *pl = self->pl;
	const struct dps_thread_desc *t = &pl->prog->threads[self->idx];

	for (; i < t->n_actions; i++) {
		const struct dps_action *a = &t->actions[i];

		if (is_aborted(pl)) {
			return t->n_actions;
		}
		if (a->kind == DPS_ACT_STACK) {
			return i;
		}
		if (a->kind == DPS_ACT_TAKE && pl->objs[a->arg].items) {
			i = serve(pl, self, i);
			continue;
		}
		play_one(pl, self, a);
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

/* Plays one slot's list on the calling thread, from thread_begin to thread_end. */
static void play_thread(struct slot *self)
{
	struct player *pl = self->pl;
	const struct dps_thread_desc *t = &pl->prog->threads[self->idx];
	uint64_t cpu0;
	size_t i = 0;

	dps__tls_id = t->id;
	dps__thread_prepare();
	name_thread(t);
	self->res.id = t->id;
	self->res.start_ns = dps__now_ns() - pl->t0;
	cpu0 = dps__cputime_ns();
	self->cpu_base = (int64_t)cpu0;
	self->cpu_budget = 0;
	self->played_ns = 0;
	self->lag_origin_ns = 0;
	if (pl->opts.from_process_start && self->idx == pl->prog->root) {
		/* The root's clock counts from the fork that led to the exec: its CPU time since
		 * the exec is its clock less the process's clock then (one thread then). Only its
		 * own: lttng-ust's listener threads are threads of their own to an outside witness
		 * (and the recorded program had them too when it was traced with UST). */
		self->cpu_base = (int64_t)pl->opts.exec_cpu_ns;
		self->lag_origin_ns = pl->opts.exec_mono_ns;
	}
	lttng_ust_tracepoint(dps, thread_begin, t->id, t->name ? t->name : "");
	if (has_memory_actions(t)) {
		self->mem = dps__mem_thread_begin(pl->opts.heap_mode == DPS_HEAP_ALLOC);
		if (self->mem) {
			dps__mem_set_stack_notify(self->mem, stack_done);
		} else {
			pthread_mutex_lock(&pl->lock);
			if (!pl->error) {
				pl->error = DPS_ERR_NOMEM;
			}
			pthread_mutex_unlock(&pl->lock);
		}
	}
	while (i < t->n_actions && !is_aborted(pl)) {
		i = play_from(self, i);
		if (i >= t->n_actions) {
			break;
		}
		if (!self->mem) {
			i++; /* no stack stub (allocation failed): skip, error recorded */
			continue;
		}
		i = dps__mem_stack_play(self->mem, t->actions, t->n_actions, i, play_from, self);
	}
	if (self->mem && dps__mem_status(self->mem)) {
		/* a stack action had to be capped to fit the thread's stack */
		pthread_mutex_lock(&pl->lock);
		if (!pl->error) {
			pl->error = dps__mem_status(self->mem);
		}
		pthread_mutex_unlock(&pl->lock);
	}
	dps__mem_thread_end(self->mem);
	self->mem = NULL;
	self->res.cpu_ns = dps__cputime_ns() - cpu0;
	self->res.end_ns = dps__now_ns() - pl->t0;
	lttng_ust_tracepoint(dps, thread_end, t->id, self->res.cpu_ns);

	pthread_mutex_lock(&pl->lock);
	self->state = SLOT_ENDED;
	pthread_cond_broadcast(&self->state_cond);
	for (size_t k = 0; k < pl->n_deps; k++) {
		if (pl->deps[k].waker == self->idx) {
			pthread_cond_signal(&pl->slots[pl->deps[k].sleeper].wake_cond);
		}
	}
	for (size_t k = 0; pl->has_join_any && k < pl->prog->n_threads; k++) {
		if (pl->slots[k].block == BLOCK_JOIN_ANY) {
			pthread_cond_signal(&pl->slots[k].wake_cond);
		}
	}
	pl->running--;
	if (!--pl->live) {
		pthread_cond_broadcast(&pl->all_ended);
	}
	check_deadlock_locked(pl);
	pthread_mutex_unlock(&pl->lock);
}

static void *thread_main(void *arg)
{
	play_thread(arg);
	return NULL;
}

void dps_play_options_default(struct dps_play_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->mode = DPS_RUN_CPU;
	opts->run_scale = 1.0;
	opts->sleep_scale = 1.0;
	opts->thread_run_scale = NULL;
	opts->thread_sleep_scale = NULL;
	opts->thread_run_idle = NULL;
	opts->summary = true;
}

/* The object kind an action needs. */
static uint32_t object_kind_for(uint32_t kind)
{
	return kind == DPS_ACT_LOCK || kind == DPS_ACT_UNLOCK ? DPS_OBJ_MUTEX
	       : kind == DPS_ACT_ARRIVE			      ? DPS_OBJ_BARRIER
							      : DPS_OBJ_QUEUE;
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
	case DPS_ACT_UNLOCK:
	case DPS_ACT_PUT:
	case DPS_ACT_TAKE:
	case DPS_ACT_ARRIVE:
		return prog->objects && a->arg >= 0 && (uint64_t)a->arg < prog->n_objects &&
		       prog->objects[a->arg].kind == object_kind_for(a->kind) &&
		       (a->kind != DPS_ACT_ARRIVE || prog->objects[a->arg].capacity);
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
	case DPS_ACT_SLEEP:
	case DPS_ACT_HEAP:
	case DPS_ACT_STACK:
		return true;
	default:
		return false;
	}
}

/* Checks what the player relies on (indexes in range, known kinds) and counts the wait/wake
 * actions. Returns DPS_OK or DPS_ERR_INVAL. */
static int check_program(const struct dps_program *prog, size_t *n_deps)
{
	int ret = DPS_OK;

	*n_deps = 0;
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
			} else if (a->kind == DPS_ACT_WAIT || a->kind == DPS_ACT_WAKE ||
				   a->kind == DPS_ACT_WAIT_TIMEOUT) {
				(*n_deps)++;
			} else if (a->kind == DPS_ACT_WAIT_ANY) {
				*n_deps += (size_t)a->arg2;
			}
		}
	}
	return ret;
}

/* Collects the distinct (sleeper, waker) pairs of the program, sorted, and marks the threads
 * some thread joins (in the same pass over the actions). */
static int build_deps(struct player *pl, size_t max)
{
	const struct dps_program *prog = pl->prog;
	size_t n = 0;

	pl->deps = calloc(max ? max : 1, sizeof(*pl->deps));
	if (!pl->deps) {
		return DPS_ERR_NOMEM;
	}
	for (size_t t = 0; t < prog->n_threads; t++) {
		const struct dps_thread_desc *d = &prog->threads[t];

		for (size_t i = 0; i < d->n_actions; i++) {
			const struct dps_action *a = &d->actions[i];

			if (a->kind == DPS_ACT_JOIN) {
				pl->slots[a->arg].joined = true; /* the others are detached */
			} else if (a->kind == DPS_ACT_JOIN_ANY) {
				for (int64_t k = 0; k < a->arg2; k++) {
					pl->slots[prog->members[a->arg + k]].joined = true;
				}
				pl->has_join_any = true;
			} else if (a->kind == DPS_ACT_WAIT_ANY) {
				for (int64_t k = 0; k < a->arg2; k++) {
					pl->deps[n++] = (struct dep){
					    .sleeper = t, .waker = prog->members[a->arg + k]};
				}
			} else if (a->kind == DPS_ACT_WAIT || a->kind == DPS_ACT_WAIT_TIMEOUT) {
				pl->deps[n++] = (struct dep){.sleeper = t, .waker = (size_t)a->arg};
			} else if (a->kind == DPS_ACT_WAKE) {
				pl->deps[n++] = (struct dep){.sleeper = (size_t)a->arg, .waker = t};
			}
		}
	}
	qsort(pl->deps, n, sizeof(*pl->deps), compare_dep);
	pl->n_deps = 0;
	for (size_t i = 0; i < n; i++) {
		if (!pl->n_deps || compare_dep(&pl->deps[pl->n_deps - 1], &pl->deps[i])) {
			pl->deps[pl->n_deps++] = pl->deps[i];
		}
	}
	return DPS_OK;
}

static void fill_result(struct player *pl, struct dps_play_result *result, uint64_t end_ns)
{
	size_t n = pl->prog->n_threads;

	result->makespan_ns = end_ns;
	result->origin_mono_ns = pl->t0;
	result->n_threads = n;
	snprintf(result->detail, sizeof(result->detail), "%s", pl->detail);
	result->threads = calloc(n, sizeof(*result->threads));
	if (!result->threads) {
		result->n_threads = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		result->threads[i] = pl->slots[i].res;
		result->threads[i].id = pl->prog->threads[i].id;
	}
}

int dps_play(const struct dps_program *prog, const struct dps_play_options *opts,
	     struct dps_play_result *result)
{
	struct dps_play_options defaults;
	struct player pl;
	char old_name[16] = "";
	size_t max_deps;
	size_t n_conds = 0, n_objs = 0;
	pthread_condattr_t mono;
	uint64_t end_ns;
	int ret;

	memset(&pl, 0, sizeof(pl));
	if (result) {
		memset(result, 0, sizeof(*result));
	}
	ret = check_program(prog, &max_deps);
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
	if (!pl.slots) {
		ret = DPS_ERR_NOMEM;
		goto end_lock;
	}
	ret = build_deps(&pl, max_deps);
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
		s->run_scale = opts->run_scale *
			       (opts->thread_run_scale ? opts->thread_run_scale[n_conds] : 1.0);
		s->sleep_scale =
		    opts->sleep_scale *
		    (opts->thread_sleep_scale ? opts->thread_sleep_scale[n_conds] : 1.0);
		s->run_idle = opts->thread_run_idle && opts->thread_run_idle[n_conds];
		pthread_cond_init(&s->state_cond, NULL);
		pthread_cond_init(&s->wake_cond, &mono);
	}

	pthread_getname_np(pthread_self(), old_name, sizeof(old_name));
	pl.t0 = dps__now_ns();
	pl.slots[prog->root].state = SLOT_STARTED;
	pl.running = 1;
	pl.live = 1;
	play_thread(&pl.slots[prog->root]);
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
		if (!r->threads && !ret) {
			ret = DPS_ERR_NOMEM;
		}
		/* a failed play has no makespan to show: its status says what happened */
		if (opts->summary && r->threads && !ret) {
			dps_play_result_print(prog, r, stderr);
		}
		if (!result) {
			dps_play_result_fini(&local);
		}
	}
end_deps:
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

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* name as shown on a terminal: control characters (an escape sequence in a thread name
 * from a trace or a manifest) become '?', so a summary cannot drive the terminal. */
static const char *printable(const char *name, char *buf, size_t len)
{
	size_t i = 0;

	for (; name[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)name[i];

		buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[i] = '\0';
	return buf;
}

void dps_play_result_print(const struct dps_program *prog, const struct dps_play_result *result,
			   FILE *out)
{
	char shown[256];

	fprintf(out, "dps: %s: %zu threads, makespan %.3f ms\n",
		printable(prog && prog->name ? prog->name : "program", shown, sizeof(shown)),
		result->n_threads, ms(result->makespan_ns));
	/* every duration column names its unit: a bare "run_req" was read as us by some */
	fprintf(out, "%-10s %-15s %10s %10s %10s %12s %12s %12s %12s %8s\n", "id", "name",
		"start_ms", "end_ms", "cpu_ms", "run_req_ms", "run_act_ms", "sleep_req_ms",
		"sleep_act_ms", "actions");
	for (size_t i = 0; i < result->n_threads; i++) {
		const struct dps_thread_result *r = &result->threads[i];
		const char *name = prog && i < prog->n_threads && prog->threads[i].name
				       ? prog->threads[i].name
				       : "";

		fprintf(out,
			"%-10" PRIu64 " %-15.15s %10.3f %10.3f %10.3f %12.3f %12.3f %12.3f %12.3f "
			"%8" PRIu64 "\n",
			r->id, printable(name, shown, sizeof(shown)), ms(r->start_ns),
			ms(r->end_ns), ms(r->cpu_ns), ms(r->run_req_ns), ms(r->run_act_ns),
			ms(r->sleep_req_ns), ms(r->sleep_act_ns), r->n_actions);
	}
}
