/* SPDX-License-Identifier: MIT */
/*
 * The player's blocking actions (player-sync.h has the state they share with player.c): join,
 * wait and wake, the timed and any-of waits, and format version 2's objects, played as what
 * they stand for: a mutex is a real pthread mutex (so contention costs what it costs), a queue
 * a count with a capacity and a barrier a cyclic count of arrivals, both under the player's
 * lock with a condition variable each. A `wait` is a counting dependency per (waker, sleeper)
 * pair, so a wake given before the wait is not lost.
 *
 * A thread blocked on any of them is accounted like one blocked on a wait or a join (the
 * mutex's owner is known), so the deadlock check below sees every kind of block: a lock
 * cycle, a take from a queue nobody will fill. A timed wait is never part of a deadlock (its
 * timeout ends it). An aborted play releases every blocked thread; one in a mutex's lock
 * notices within LOCK_POLL_NS.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lttng/ust-events.h>

#include "dps_tp.h"
#include "player-sync.h"
#include "runtime-internal.h"

/* How often a thread blocked in a mutex's lock looks whether the play was aborted. */
#define LOCK_POLL_NS (100 * 1000 * 1000)

/* The id the wait events give when no thread is the cause (a timeout, no block). */
#define NO_WAKER_ID UINT64_MAX

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

/* Under the lock: stops the play and releases everyone who waits. */
void dps__player_abort_locked(struct player *pl, int error)
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
		/* a waker that ended without giving the wake never gives it: a plain wait is then
		 * stuck (never_woken), a timed one waits out its timeout */
		return s->block_dep->wakes > 0;
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
	case BLOCK_RDLOCK:
		return o->owner == NO_SLOT;
	case BLOCK_WRLOCK:
		return o->owner == NO_SLOT && !o->readers;
	case BLOCK_NONE:
	default:
		return true;
	}
}

/* What a blocked thread waits for, for the deadlock message (describe_block adds where). */
static int describe_what(struct player *pl, const struct slot *s, char *buf, size_t len)
{
	const struct dps_program *prog = pl->prog;
	uint64_t id = prog->threads[s->idx].id;
	const struct obj *o = s->block_obj;

	switch (s->block) {
	case BLOCK_WAIT:
		return snprintf(buf, len,
				"thread %" PRIu64 " waits for a wake of thread %" PRIu64 "%s", id,
				prog->threads[s->block_dep->waker].id,
				is_done(pl->slots[s->block_dep->waker].state)
				    ? ", which ended without giving it"
				    : "");
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
	case BLOCK_RDLOCK:
		return snprintf(buf, len,
				"thread %" PRIu64 " read-locks rwlock %" PRIu64
				" held for writing by thread %" PRIu64,
				id, o->desc->id, prog->threads[o->owner].id);
	case BLOCK_WRLOCK:
		if (o->owner != NO_SLOT) {
			return snprintf(buf, len,
					"thread %" PRIu64 " write-locks rwlock %" PRIu64
					" held for writing by thread %" PRIu64,
					id, o->desc->id, prog->threads[o->owner].id);
		}
		return snprintf(buf, len,
				"thread %" PRIu64 " write-locks rwlock %" PRIu64 " held by %" PRIu64
				" readers",
				id, o->desc->id, o->readers);
	case BLOCK_NONE:
	default:
		return snprintf(buf, len, "thread %" PRIu64, id);
	}
}

/* The thread whose list holds action a: t, unless t plays another's action (a task queue's
 * item, played by whoever took it: player-tasks.c). Only for messages (a scan of the
 * threads). */
static size_t written_by(const struct player *pl, size_t t, const struct dps_action *a)
{
	const struct dps_program *prog = pl->prog;

	for (size_t k = 0; k < prog->n_threads; k++) {
		uintptr_t first = (uintptr_t)prog->threads[k].actions;

		if ((uintptr_t)a >= first &&
		    (uintptr_t)a < first + prog->threads[k].n_actions * sizeof(*a)) {
			return k;
		}
	}
	return t;
}

/* " (ID.act:LINE)": where action a, played by thread t, is written in its set (the action
 * files are named after their thread's id), or "" when a says no line (a program made by
 * hand). */
static const char *place_of(const struct player *pl, size_t t, const struct dps_action *a,
			    char *buf, size_t len)
{
	buf[0] = '\0';
	if (a && a->line) {
		snprintf(buf, len, " (%" PRIu64 ".act:%" PRIu32 ")",
			 pl->prog->threads[written_by(pl, t, a)].id, a->line);
	}
	return buf;
}

/* What a blocked thread waits for and where its action is, for the deadlock message. */
static int describe_block(struct player *pl, const struct slot *s, char *buf, size_t len)
{
	char at[64];
	int w = describe_what(pl, s, buf, len);

	if (w < 0 || (size_t)w >= len) {
		return w;
	}
	return w + snprintf(buf + w, len - (size_t)w, "%s",
			    place_of(pl, s->idx, s->block_action, at, sizeof(at)));
}

void dps__player_fail_at_locked(struct player *pl, size_t t, const struct dps_action *a, int error,
				const char *fmt, ...)
{
	char at[64];
	va_list ap;
	int w;

	if (pl->error) {
		return; /* the first error keeps its detail */
	}
	pl->error = error;
	w = snprintf(pl->detail, sizeof(pl->detail),
		     "thread %" PRIu64 "%s: ", pl->prog->threads[t].id,
		     place_of(pl, t, a, at, sizeof(at)));
	if (w < 0 || (size_t)w >= sizeof(pl->detail)) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(pl->detail + w, sizeof(pl->detail) - (size_t)w, fmt, ap);
	va_end(ap);
}

/* Under the lock, when no thread is running: aborts if no blocked thread can go on. */
void dps__player_check_deadlock_locked(struct player *pl)
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
		dps__player_abort_locked(pl, DPS_ERR_DEADLK);
	}
}

/* Under the lock: whether s waits (untimed) for a wake of a thread that ended without giving
 * it. Nothing else can give it: the set is inconsistent, and the thread would block for good. */
static bool never_woken(struct player *pl, const struct slot *s)
{
	return s->block == BLOCK_WAIT && !s->block_timed && !s->block_dep->wakes &&
	       is_done(pl->slots[s->block_dep->waker].state);
}

/* Under the lock: stops the play with DPS_ERR_DEADLK, its detail naming s, its wait and where
 * it is written (the first error keeps its own). */
static void fail_never_woken_locked(struct player *pl, const struct slot *s)
{
	if (!pl->error) {
		describe_block(pl, s, pl->detail, sizeof(pl->detail));
	}
	dps__player_abort_locked(pl, DPS_ERR_DEADLK);
}

/* Under the lock: blocks the caller on cond until it can continue, the play aborts, or the
 * CLOCK_MONOTONIC deadline_ns passes (0: none). Returns whether it can continue. A plain wait
 * whose waker ended without giving the wake aborts the play (fail_never_woken_locked): it is
 * reported where it is, not passed and not left to hang. */
static bool block_until_locked(struct player *pl, struct slot *self, pthread_cond_t *cond,
			       uint64_t deadline_ns)
{
	bool ok, counted = false;

	self->block_timed = deadline_ns != 0;
	while (!(ok = can_continue(pl, self)) && !is_aborted(pl)) {
		int rc = 0;

		if (never_woken(pl, self)) {
			fail_never_woken_locked(pl, self);
			break;
		}
		if (!counted) {
			self->res->n_blocked++;
			counted = true;
		}
		pl->running--;
		dps__player_check_deadlock_locked(pl);
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

void dps__player_join(struct player *pl, struct slot *self, const struct dps_action *a)
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
	self->block_action = a;
	child->joiners++;
	block_locked(pl, self, &child->state_cond);
	child->joiners--;
	/* Only a child that ended is reaped here: after an abort the child may be one that
	 * joins this thread (a join cycle), and two threads in pthread_join of each other would
	 * hang for good; dps_play reaps it once every thread has stopped. */
	if (child->has_pt && is_done(child->state)) {
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

void dps__player_wait(struct player *pl, struct slot *self, const struct dps_action *a)
{
	size_t w = (size_t)a->arg;
	uint64_t wid = pl->prog->threads[w].id;
	struct dep *d = find_dep(pl, self->idx, w);

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, wid, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_WAIT;
	self->block_dep = d;
	self->block_action = a;
	block_locked(pl, self, &self->wake_cond);
	if (d->wakes) {
		d->wakes--;
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, wid, a->line);
}

/* wake: one wake from waker (the thread whose action it is: the player's own, or a task
 * queue item's recorded taker, for whoever plays the item) to the sleeper. */
void dps__player_wake(struct player *pl, size_t waker, const struct dps_action *a)
{
	size_t s = (size_t)a->arg;
	struct dep *d = find_dep(pl, s, waker);

	/* the event before the wake it stands for: the sleeper's wait_end always comes after it
	 * (after the unlock, a preempted waker's event came after the sleeper's) */
	lttng_ust_tracepoint(dps, wake, dps__tls_id, pl->prog->threads[s].id, a->line);
	pthread_mutex_lock(&pl->lock);
	d->wakes++;
	pthread_mutex_unlock(&pl->lock);
	/* After the unlock: a sleeper woken under it would find the lock taken and block once
	 * more on it, two more system calls and switches per wake (doc/runtime.md, "Own costs").
	 * It cannot miss the wake: it reads the count under the lock before it blocks. */
	pthread_cond_signal(&pl->slots[s].wake_cond);
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
void dps__player_wait_timeout(struct player *pl, struct slot *self, const struct dps_action *a)
{
	size_t w = (size_t)a->arg;
	uint64_t wid = pl->prog->threads[w].id;
	struct dep *d = find_dep(pl, self->idx, w);
	bool ok;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, wid, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_WAIT;
	self->block_dep = d;
	self->block_action = a;
	ok = block_until_locked(pl, self, &self->wake_cond,
				deadline_after(a->arg2 > 0 ? (uint64_t)a->arg2 : 0));
	if (ok && d->wakes) {
		d->wakes--;
	}
	if (!ok) {
		self->res->n_timeouts++;
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, ok ? wid : NO_WAKER_ID, a->line);
}

/* wait A|B|...: one wake from any of them (the first in the set's order that has one). */
void dps__player_wait_any(struct player *pl, struct slot *self, const struct dps_action *a)
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

/* Under the lock: a join any's members have one joiner more (delta 1) or less (-1). */
static void count_joiners_locked(struct player *pl, const struct dps_action *a, int delta)
{
	const uint32_t *m = members_of(pl, a);

	for (int64_t i = 0; i < a->arg2; i++) {
		pl->slots[m[i]].joiners += (uint32_t)delta;
	}
}

/* join any A|B|...: the first member (in the set's order) that has ended and that no join any
 * took yet; reaped as a join reaps. Its join_begin names no child (NO_WAKER_ID: any), its
 * join_end the member joined, so a reader of the trace ties the join to that one. */
void dps__player_join_any(struct player *pl, struct slot *self, const struct dps_action *a)
{
	size_t c;
	bool none_left, claim = false;
	pthread_t pt;

	lttng_ust_tracepoint(dps, join_begin, dps__tls_id, NO_WAKER_ID, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = BLOCK_JOIN_ANY;
	self->block_action = a;
	count_joiners_locked(pl, a, 1);
	block_locked(pl, self, &self->wake_cond);
	count_joiners_locked(pl, a, -1);
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
void dps__player_lock(struct player *pl, struct slot *self, const struct dps_action *a)
{
	struct obj *o = &pl->objs[a->arg];
	size_t releaser = NO_SLOT;
	bool got = true;

	if (o->desc->kind == DPS_OBJ_RWLOCK) {
		dps__player_rwlock(pl, self, a);
		return;
	}
	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, NO_WAKER_ID, a->line);
	if (pthread_mutex_trylock(&o->mutex)) {
		pthread_mutex_lock(&pl->lock);
		self->block = BLOCK_LOCK;
		self->block_obj = o;
		self->block_action = a;
		self->res->n_blocked++;
		pl->running--;
		dps__player_check_deadlock_locked(pl);
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

/*
 * rdlock and a rwlock's lock: a count of readers and a writer under the player's lock, the
 * waiters on the object's condition variable. Readers go first, as glibc's default rwlock
 * (PTHREAD_RWLOCK_PREFER_READER_NP) lets them: a reader takes it whenever no writer holds it,
 * even while a writer waits. The end event names the thread whose unlock let a blocked one
 * go on.
 */
void dps__player_rwlock(struct player *pl, struct slot *self, const struct dps_action *a)
{
	struct obj *o = &pl->objs[a->arg];
	bool read = a->kind == DPS_ACT_RDLOCK;
	size_t releaser = NO_SLOT;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, NO_WAKER_ID, a->line);
	pthread_mutex_lock(&pl->lock);
	self->block = read ? BLOCK_RDLOCK : BLOCK_WRLOCK;
	self->block_obj = o;
	self->block_action = a;
	if (!can_continue(pl, self)) {
		block_locked(pl, self, &o->cond);
		releaser = o->releaser;
	}
	self->block = BLOCK_NONE;
	if (!is_aborted(pl)) {
		if (read) {
			o->readers++;
		} else {
			o->owner = self->idx;
		}
	}
	pthread_mutex_unlock(&pl->lock);
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, id_of(pl, releaser), a->line);
}

/* A rwlock's unlock: the writer's, or one reader's (the validator paired them). */
static void rw_unlock(struct player *pl, struct slot *self, struct obj *o)
{
	pthread_mutex_lock(&pl->lock);
	if (o->owner == self->idx) {
		o->owner = NO_SLOT;
	} else if (o->readers) {
		o->readers--;
	}
	o->releaser = self->idx;
	pthread_mutex_unlock(&pl->lock);
	pthread_cond_broadcast(&o->cond); /* after the unlock, as a wake's */
}

void dps__player_unlock(struct player *pl, struct slot *self, const struct dps_action *a)
{
	struct obj *o = &pl->objs[a->arg];
	bool held;

	if (o->desc->kind == DPS_OBJ_RWLOCK) {
		rw_unlock(pl, self, o);
		return;
	}
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

/*
 * put, take: items in or out of the queue (arg2 of them, at least one), blocked while it is
 * full (empty). Several items move as many at a time as there is room for (as there are),
 * as a pipe's write and read of many bytes do: a put of more than the capacity never blocks
 * for good. The end event names the thread whose take (put) let a blocked one go on. Returns
 * the index of the (first) item a take got (its place among the queue's takes), UINT64_MAX
 * for a put.
 */
uint64_t dps__player_put_take(struct player *pl, struct slot *self, const struct dps_action *a)
{
	uint64_t item = UINT64_MAX;
	struct obj *o = &pl->objs[a->arg];
	bool put = a->kind == DPS_ACT_PUT;
	uint64_t left = a->arg2 > 1 ? (uint64_t)a->arg2 : 1;
	size_t releaser = NO_SLOT;
	bool moved = false;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, NO_WAKER_ID, a->line);
	pthread_mutex_lock(&pl->lock);
	while (left && !is_aborted(pl)) {
		uint64_t n;

		self->block = put ? BLOCK_PUT : BLOCK_TAKE;
		self->block_obj = o;
		self->block_action = a;
		if (!can_continue(pl, self)) {
			block_locked(pl, self, &o->cond);
			releaser = o->releaser;
		}
		self->block = BLOCK_NONE;
		if (is_aborted(pl)) {
			break;
		}
		if (put) {
			n = !o->desc->capacity			  ? left
			    : o->desc->capacity - o->count < left ? o->desc->capacity - o->count
								  : left;
			o->count += n;
		} else {
			n = o->count < left ? o->count : left;
			o->count -= n;
			if (item == UINT64_MAX) {
				item = o->taken;
			}
			o->taken += n;
		}
		left -= n;
		o->releaser = self->idx;
		if (left) {
			/* it blocks again: the others must see the items moved so far */
			pthread_cond_broadcast(&o->cond);
		} else {
			moved = true;
		}
	}
	pthread_mutex_unlock(&pl->lock);
	if (moved) {
		pthread_cond_broadcast(&o->cond); /* after the unlock, as a wake's */
	}
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, id_of(pl, releaser), a->line);
	return item;
}

/* arrive: blocks until the barrier's parties have arrived (cyclic); the end event names the
 * last arriver. */
void dps__player_arrive(struct player *pl, struct slot *self, const struct dps_action *a)
{
	struct obj *o = &pl->objs[a->arg];
	size_t releaser = NO_SLOT;
	bool last = false;

	lttng_ust_tracepoint(dps, wait_begin, dps__tls_id, NO_WAKER_ID, a->line);
	pthread_mutex_lock(&pl->lock);
	if (++o->count >= o->desc->capacity) {
		o->count = 0;
		o->round++;
		o->releaser = self->idx;
		last = true;
	} else {
		self->block = BLOCK_ARRIVE;
		self->block_obj = o;
		self->block_action = a;
		self->block_round = o->round;
		block_locked(pl, self, &o->cond);
		releaser = o->releaser;
	}
	pthread_mutex_unlock(&pl->lock);
	if (last) {
		pthread_cond_broadcast(&o->cond); /* after the unlock, as a wake's */
	}
	lttng_ust_tracepoint(dps, wait_end, dps__tls_id, id_of(pl, releaser), a->line);
}

/* Appends the pair (sleeper, waker) to pl->deps unless stamp[key] says this thread added it
 * already; grows the array as needed. */
static int add_dep(struct player *pl, size_t *cap, uint32_t *stamp, size_t key, uint32_t mark,
		   size_t sleeper, size_t waker)
{
	if (stamp[key] == mark) {
		return DPS_OK;
	}
	stamp[key] = mark;
	if (pl->n_deps == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct dep *grown = realloc(pl->deps, ncap * sizeof(*grown));

		if (!grown) {
			return DPS_ERR_NOMEM;
		}
		pl->deps = grown;
		*cap = ncap;
	}
	pl->deps[pl->n_deps++] = (struct dep){.sleeper = sleeper, .waker = waker};
	return DPS_OK;
}

/*
 * Collects the distinct (sleeper, waker) pairs of the program, sorted, and marks the threads
 * some thread joins (in the same pass over the actions). A pair is taken once per thread
 * that names it (stamps of the thread being read, one per other thread as waker and as
 * sleeper), so the array holds at most twice the distinct pairs, not one entry per wait and
 * wake: a set of 40,000 hand-offs was 700 KB sorted before the first action, 10-15 ms of the
 * process's start (doc/fidelity.md).
 */
int dps__player_build_deps(struct player *pl)
{
	const struct dps_program *prog = pl->prog;
	size_t n_threads = prog->n_threads, cap = 0, n;
	uint32_t *as_waker = calloc(n_threads ? n_threads : 1, sizeof(*as_waker));
	uint32_t *as_sleeper = calloc(n_threads ? n_threads : 1, sizeof(*as_sleeper));
	int ret = DPS_OK;

	pl->deps = NULL;
	pl->n_deps = 0;
	if (!as_waker || !as_sleeper) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	for (size_t t = 0; t < n_threads && !ret; t++) {
		const struct dps_thread_desc *d = &prog->threads[t];
		uint32_t mark = (uint32_t)t + 1;

		for (size_t i = 0; i < d->n_actions && !ret; i++) {
			const struct dps_action *a = &d->actions[i];

			if (a->kind == DPS_ACT_JOIN) {
				pl->slots[a->arg].joined = true; /* the others are detached */
			} else if (a->kind == DPS_ACT_JOIN_ANY) {
				for (int64_t k = 0; k < a->arg2; k++) {
					pl->slots[prog->members[a->arg + k]].joined = true;
				}
				pl->has_join_any = true;
			} else if (a->kind == DPS_ACT_WAIT_ANY) {
				for (int64_t k = 0; k < a->arg2 && !ret; k++) {
					size_t w = prog->members[a->arg + k];

					ret = add_dep(pl, &cap, as_waker, w, mark, t, w);
				}
			} else if (a->kind == DPS_ACT_WAIT || a->kind == DPS_ACT_WAIT_TIMEOUT) {
				ret = add_dep(pl, &cap, as_waker, (size_t)a->arg, mark, t,
					      (size_t)a->arg);
			} else if (a->kind == DPS_ACT_WAKE) {
				ret = add_dep(pl, &cap, as_sleeper, (size_t)a->arg, mark,
					      (size_t)a->arg, t);
			}
		}
	}
	if (ret) {
		goto end;
	}
	/* a pair named by both its threads (a wait and the matching wake) is there twice; no
	 * pair: no array (qsort's base may not be NULL) */
	if (pl->n_deps > 1) {
		qsort(pl->deps, pl->n_deps, sizeof(*pl->deps), compare_dep);
	}
	n = pl->n_deps;
	pl->n_deps = 0;
	for (size_t i = 0; i < n; i++) {
		if (!pl->n_deps || compare_dep(&pl->deps[pl->n_deps - 1], &pl->deps[i])) {
			pl->deps[pl->n_deps++] = pl->deps[i];
		}
	}
	if (!pl->deps) {
		/* no pair: an empty array the rest can search and free as before */
		pl->deps = calloc(1, sizeof(*pl->deps));
		ret = pl->deps ? DPS_OK : DPS_ERR_NOMEM;
	}
end:
	free(as_waker);
	free(as_sleeper);
	return ret;
}

void dps__player_release_ended_locked(struct player *pl, struct slot *self)
{
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
}
