/* SPDX-License-Identifier: MIT */
/*
 * Synchronization objects (format version 2, doc/sync.md): the annotation events
 * (dps:queue_init, produce, consume, barrier_init, arrive) and the LTTng-UST pthread wrapper's
 * mutex events become objects, and points in each thread's timeline where actions.c puts a
 * put, take, arrive, lock or unlock.
 *
 * An object is a (process, address) pair; its kind comes from its first event (an init, or a
 * lock). Each thread keeps its own list of points (few: one per annotated operation), apart
 * from the timeline's marks, whose `other` is a thread. At the end, analyzer__sync_declare
 * keeps the objects a replay can honour: a queue some kept thread puts into (or that holds
 * items before its first take: its initial count), a barrier whose kept threads' arrivals
 * fill whole rounds, every mutex that no condition variable's wait released unseen.
 *
 * The condition-variable probe's events (dps_sync, `dps record --sync`) say where a wait
 * released its mutex (its begin) and took it back (its end): the mutex is no longer held
 * across the wait, and the wait's begin and end are points too (actions.c plays the release
 * and the re-lock there, and makes a timed wait that a thread ended a `wait ID timeout D`).
 * Without them a release inside a wait is only guessed (suspect, below).
 *
 * Queues found without annotations (infer_queues): two condition variables on one mutex, one
 * signalled by the threads that wait on the other and the other way round (a bounded queue's
 * not_empty and not_full), whose signals, taken as puts and takes, never take from an empty
 * queue and leave it empty at the end, are a queue: each signal becomes the put or take an
 * annotation would have marked there. Other signals are no points.
 */
#include <stdlib.h>
#include <string.h>

#include "sync-internal.h"

struct sync_key {
	int64_t pid;
	uint64_t addr;
	uint32_t ns; /* enum sync_ns */
};

static guint hash_key(gconstpointer p)
{
	const struct sync_key *k = p;

	return g_int64_hash(&k->addr) ^ (guint)k->pid ^ k->ns;
}

static gboolean equal_key(gconstpointer a, gconstpointer b)
{
	const struct sync_key *x = a, *y = b;

	return x->pid == y->pid && x->addr == y->addr && x->ns == y->ns;
}

static void free_points(gpointer p)
{
	g_array_free(p, TRUE);
}

static void free_obj(gpointer p)
{
	struct sync_obj *o = p;

	if (o->signallers) {
		g_hash_table_destroy(o->signallers);
	}
	if (o->waiters) {
		g_hash_table_destroy(o->waiters);
	}
	if (o->arrivers) {
		g_hash_table_destroy(o->arrivers);
	}
	g_free(o);
}

static void ensure_tables(struct analyzer_core *core)
{
	if (!core->sync_objs) {
		core->sync_objs = g_hash_table_new_full(hash_key, equal_key, g_free, NULL);
		core->sync_list = g_ptr_array_new_with_free_func(free_obj);
		core->sync_points =
		    g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_points);
	}
}

struct sync_obj *analyzer__sync_obj(struct analyzer_core *core, int64_t pid, uint64_t addr,
				    uint32_t kind, enum sync_ns ns)
{
	struct sync_key key = {.pid = pid, .addr = addr, .ns = ns};
	gpointer v;
	struct sync_obj *o;
	struct sync_key *k;

	ensure_tables(core);
	v = g_hash_table_lookup(core->sync_objs, &key);
	if (v) {
		o = g_ptr_array_index(core->sync_list, GPOINTER_TO_SIZE(v) - 1);
		if (!o->kind) {
			o->kind = kind;
		}
		return o;
	}
	o = g_new0(struct sync_obj, 1);
	o->pid = pid;
	o->addr = addr;
	o->ns = ns;
	o->kind = kind;
	o->idx = core->sync_list->len;
	o->cond_mutex = ANALYZER_SYNC_NO_OBJ;
	g_ptr_array_add(core->sync_list, o);
	k = g_new(struct sync_key, 1);
	*k = key;
	g_hash_table_insert(core->sync_objs, k, GSIZE_TO_POINTER(core->sync_list->len));
	return o;
}

static struct sync_obj *get_obj(struct analyzer_core *core, int64_t pid, uint64_t addr,
				uint32_t kind)
{
	return analyzer__sync_obj(core, pid, addr, kind,
				  kind == DPS_OBJ_MUTEX ? NS_MUTEX
				  : kind == SYNC_COND	? NS_COND
							: NS_ANNOTATED);
}

struct sync_obj *analyzer__sync_find(struct analyzer_core *core, int64_t pid, uint64_t addr,
				     enum sync_ns ns)
{
	struct sync_key key = {.pid = pid, .addr = addr, .ns = ns};
	gpointer v;

	if (!core->sync_objs) {
		return NULL;
	}
	v = g_hash_table_lookup(core->sync_objs, &key);
	return v ? g_ptr_array_index(core->sync_list, GPOINTER_TO_SIZE(v) - 1) : NULL;
}

/* The mutex at (pid, addr) when one was seen locked (condition waits make none). */
static struct sync_obj *find_mutex(struct analyzer_core *core, int64_t pid, uint64_t addr)
{
	return analyzer__sync_find(core, pid, addr, NS_MUTEX);
}

struct analyzer_sync_point *analyzer__sync_point(struct analyzer_core *core, size_t ctx,
						 uint64_t ts, uint32_t kind,
						 const struct sync_obj *o, int64_t arg,
						 const struct sync_obj *cond)
{
	GArray *pts;
	struct analyzer_sync_point p = {.ts_ns = ts,
					.kind = kind,
					.obj = o ? o->idx : ANALYZER_SYNC_NO_OBJ,
					.arg = arg,
					.cond = cond ? cond->idx : ANALYZER_SYNC_NO_OBJ};
	guint at;

	ensure_tables(core);
	pts = g_hash_table_lookup(core->sync_points, GSIZE_TO_POINTER(ctx + 1));

	if (!pts) {
		pts = g_array_new(FALSE, FALSE, sizeof(struct analyzer_sync_point));
		g_hash_table_insert(core->sync_points, GSIZE_TO_POINTER(ctx + 1), pts);
	}
	/* a call's point is made at its end with its begin's time: before any point the thread
	 * made since (none, but a futex word's, whose points come at the trace's end) */
	at = pts->len;
	while (at && g_array_index(pts, struct analyzer_sync_point, at - 1).ts_ns > ts) {
		at--;
	}
	g_array_insert_val(pts, at, p);
	return &g_array_index(pts, struct analyzer_sync_point, at);
}

static void add_point(struct analyzer_core *core, size_t ctx, uint64_t ts, uint32_t kind,
		      const struct sync_obj *o, int64_t arg, const struct sync_obj *cond)
{
	analyzer__sync_point(core, ctx, ts, kind, o, arg, cond);
}

/*
 * Thread ctx's event of kind (on object ev_obj) settles the suspicions on the mutexes it held
 * (see suspect). Its own unlock of such a mutex while the other thread still holds it is the
 * wrapper's order, not a release: the unlock event is written after the real unlock returned,
 * so the other's lock can come first. After the other let go, it was a re-lock nobody saw.
 */
static void settle_suspects(struct analyzer_core *core, size_t ctx, uint32_t kind,
			    const struct sync_obj *ev_obj)
{
	bool annotated = kind == ANALYZER_EV_SYNC_PRODUCE || kind == ANALYZER_EV_SYNC_CONSUME ||
			 kind == ANALYZER_EV_SYNC_ARRIVE;

	for (guint i = 0; i < core->sync_list->len && core->sync_suspects; i++) {
		struct sync_obj *o = g_ptr_array_index(core->sync_list, i);
		bool own_unlock = kind == ANALYZER_EV_SYNC_UNLOCK && o == ev_obj;

		if (!o->suspect || o->suspect_ctx != ctx) {
			continue;
		}
		o->suspect = false;
		core->sync_suspects--;
		if (annotated || (own_unlock && o->held && o->holder != ctx)) {
			continue; /* explained */
		}
		if (own_unlock) {
			o->late_unlock = true; /* decided at the end (analyzer__sync_declare) */
		} else {
			o->released_unseen = true;
		}
	}
}

/* Thread ctx has mutex o: a lock's acquisition, or a condition wait's return. Another holder
 * by the events makes the previous one a suspect (settle_suspects). */
static void acquired(struct analyzer_core *core, struct sync_obj *o, size_t ctx)
{
	if (o->held && o->holder != ctx && !o->suspect) {
		o->suspect = true;
		o->suspect_ctx = o->holder;
		core->sync_suspects++;
	}
	o->held = true;
	o->holder = ctx;
}

/* A condition wait's begin or end (the probe's events): the mutex is released at the begin
 * (the wait unlocks it inside libc) and held again at the end. */
static void on_cond_wait(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx,
			 int64_t pid)
{
	struct sync_obj *o =
	    ev->sync.mutex > 0 ? find_mutex(core, pid, (uint64_t)ev->sync.mutex) : NULL;

	struct sync_obj *c = get_obj(core, pid, (uint64_t)ev->sync.obj, SYNC_COND);

	core->sync_cond_seen = true;
	analyzer__thread_at(core, ctx)->calls.in_cond =
	    ev->kind == ANALYZER_EV_SYNC_COND_WAIT_BEGIN;
	if (c->kind == SYNC_COND && ev->kind == ANALYZER_EV_SYNC_COND_WAIT_BEGIN) {
		/* who waits on it, with which mutex (infer_queues) */
		if (!c->waiters) {
			c->waiters = g_hash_table_new(g_direct_hash, g_direct_equal);
		}
		g_hash_table_add(c->waiters, GSIZE_TO_POINTER(ctx + 1));
		if (!o || (c->cond_mutex != ANALYZER_SYNC_NO_OBJ && c->cond_mutex != o->idx)) {
			c->cond_mutexes = true;
		}
		c->cond_mutex = o ? o->idx : ANALYZER_SYNC_NO_OBJ;
	}
	if (core->sync_suspects) {
		settle_suspects(core, ctx, ev->kind, o);
	}
	if (o && ev->kind == ANALYZER_EV_SYNC_COND_WAIT_BEGIN) {
		if (o->held && o->holder == ctx) {
			o->held = false;
		}
	} else if (o) {
		acquired(core, o, ctx);
	}
	add_point(core, ctx, ev->ts, ev->kind, o, ev->sync.param, c->kind == SYNC_COND ? c : NULL);
}

/* glibc's pthread_cond_t: its futex words lie within these bytes of its address. */
#define COND_BYTES 48

/*
 * A signal or broadcast: a point, in case the condition variable is a found queue's. glibc's
 * signal may block (it waits for the waiters of the condition variable's old group to leave,
 * on a futex word of the condition variable itself): such a block, the thread's last futex
 * wait before the signal returned, is the signal's own, a call with no action (its block is
 * dropped: played inside a critical section it would hold the mutex the waker needs).
 */
static void on_cond_signal(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx,
			   int64_t pid)
{
	struct sync_obj *c = get_obj(core, pid, (uint64_t)ev->sync.obj, SYNC_COND);
	struct athread_calls *calls = &analyzer__thread_at(core, ctx)->calls;

	if (calls->last_wait_to && calls->last_wait_uaddr >= (uint64_t)ev->sync.obj &&
	    calls->last_wait_uaddr < (uint64_t)ev->sync.obj + COND_BYTES) {
		struct analyzer_sync_point *p = analyzer__sync_point(
		    core, ctx, calls->last_wait_from, ANALYZER_EV_SYNC_OP_BEGIN, NULL, 0, NULL);

		if (p) {
			p->end_ns = calls->last_wait_to;
			p->probe = true;
		}
	}
	calls->last_wait_to = 0;

	if (c->kind != SYNC_COND) {
		return;
	}
	if (!c->signallers) {
		c->signallers = g_hash_table_new(g_direct_hash, g_direct_equal);
	}
	g_hash_table_add(c->signallers, GSIZE_TO_POINTER(ctx + 1));
	add_point(core, ctx, ev->ts, ev->kind, c, 0, c);
}

void analyzer__on_sync(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	struct athread *t = analyzer__thread_at(core, ctx);
	uint64_t addr = (uint64_t)ev->sync.obj;
	struct sync_obj *o;

	switch (ev->kind) {
	case ANALYZER_EV_SYNC_OP_BEGIN:
	case ANALYZER_EV_SYNC_OP_END:
	case ANALYZER_EV_SYNC_OBJ_INIT:
	case ANALYZER_EV_SYNC_POOL_TAKE:
	case ANALYZER_EV_SYNC_UNMODELLED:
		analyzer__on_sync_probe(core, ev, ctx);
		return;
	default:
		break;
	}
	if (ev->sync.obj <= 0) {
		return;
	}
	switch (ev->kind) {
	case ANALYZER_EV_SYNC_COND_WAIT_BEGIN:
	case ANALYZER_EV_SYNC_COND_WAIT_END:
		on_cond_wait(core, ev, ctx, t->pid);
		return;
	case ANALYZER_EV_SYNC_COND_SIGNAL:
		on_cond_signal(core, ev, ctx, t->pid);
		return;
	case ANALYZER_EV_SYNC_QUEUE_INIT:
	case ANALYZER_EV_SYNC_BARRIER_INIT:
		o = get_obj(core, t->pid, addr,
			    ev->kind == ANALYZER_EV_SYNC_QUEUE_INIT ? DPS_OBJ_QUEUE
								    : DPS_OBJ_BARRIER);
		o->capacity = ev->sync.param > 0 ? (uint64_t)ev->sync.param : 0;
		return;
	case ANALYZER_EV_SYNC_PRODUCE:
	case ANALYZER_EV_SYNC_CONSUME:
		core->sync_annotated = true;
		o = get_obj(core, t->pid, addr, DPS_OBJ_QUEUE);
		if (o->kind != DPS_OBJ_QUEUE) {
			return;
		}
		if (core->sync_suspects) {
			settle_suspects(core, ctx, ev->kind, o);
		}
		o->level += ev->kind == ANALYZER_EV_SYNC_PRODUCE ? 1 : -1;
		o->low = o->level < o->low ? o->level : o->low;
		break;
	case ANALYZER_EV_SYNC_ARRIVE:
		o = get_obj(core, t->pid, addr, DPS_OBJ_BARRIER);
		if (o->kind != DPS_OBJ_BARRIER) {
			return;
		}
		if (core->sync_suspects) {
			settle_suspects(core, ctx, ev->kind, o);
		}
		break;
	case ANALYZER_EV_SYNC_LOCK_ACQ:
		if (ev->sync.param > 0) {
			return; /* a trylock that failed, or an error */
		}
		/* fall through */
	case ANALYZER_EV_SYNC_UNLOCK:
		o = get_obj(core, t->pid, addr, DPS_OBJ_MUTEX);
		if (o->kind != DPS_OBJ_MUTEX) {
			return;
		}
		if (core->sync_suspects) {
			settle_suspects(core, ctx, ev->kind, o);
		}
		if (ev->kind == ANALYZER_EV_SYNC_LOCK_ACQ) {
			acquired(core, o, ctx);
		} else if (o->held && o->holder == ctx) {
			o->held = false;
		}
		break;
	default:
		return;
	}
	add_point(core, ctx, ev->ts, ev->kind, o, 0, NULL);
}

const GArray *analyzer__sync_points(struct analyzer_core *core, size_t ci)
{
	if (!core->sync_points || ci == SIZE_MAX) {
		return NULL;
	}
	return g_hash_table_lookup(core->sync_points, GSIZE_TO_POINTER(ci + 1));
}

uint64_t analyzer__sync_object_id(struct analyzer_core *core, uint32_t obj)
{
	if (!core->sync_list || obj >= core->sync_list->len) {
		return 0;
	}
	return ((struct sync_obj *)g_ptr_array_index(core->sync_list, obj))->id;
}

/* The signal points no queue took: gone, so that what reads the points sees only actions. */
static void drop_signals(struct analyzer_core *core)
{
	GHashTableIter it;
	gpointer pv;

	g_hash_table_iter_init(&it, core->sync_points);
	while (g_hash_table_iter_next(&it, NULL, &pv)) {
		GArray *pts = pv;
		guint w = 0;

		for (guint k = 0; k < pts->len; k++) {
			if (g_array_index(pts, struct analyzer_sync_point, k).kind !=
			    ANALYZER_EV_SYNC_COND_SIGNAL) {
				g_array_index(pts, struct analyzer_sync_point, w++) =
				    g_array_index(pts, struct analyzer_sync_point, k);
			}
		}
		g_array_set_size(pts, w);
	}
}

/* Whether every key of a (a set, NULL: empty) is in b. */
static bool subset(GHashTable *a, GHashTable *b)
{
	GHashTableIter it;
	gpointer k;

	if (!a) {
		return true;
	}
	g_hash_table_iter_init(&it, a);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		if (!b || !g_hash_table_contains(b, k)) {
			return false;
		}
	}
	return true;
}

static bool disjoint(GHashTable *a, GHashTable *b)
{
	GHashTableIter it;
	gpointer k;

	g_hash_table_iter_init(&it, a);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		if (g_hash_table_contains(b, k)) {
			return false;
		}
	}
	return true;
}

/* Whether x and y are waited on with one mutex: both, or one never waited on (a queue that
 * never filled, or never emptied, in the recording: its mutex is its partner's). */
static bool same_mutex(const struct sync_obj *x, const struct sync_obj *y)
{
	if (x->cond_mutex == ANALYZER_SYNC_NO_OBJ) {
		return !x->waiters && y->cond_mutex != ANALYZER_SYNC_NO_OBJ;
	}
	return x->cond_mutex == y->cond_mutex ||
	       (!y->waiters && y->cond_mutex == ANALYZER_SYNC_NO_OBJ);
}

struct signal_at {
	uint64_t ts;
	int step; /* +1: a signal of x, -1: of y */
};

static gint by_ts(gconstpointer a, gconstpointer b)
{
	const struct signal_at *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Whether condition variables x and y make a queue, x's signals its puts and y's its takes (or
 * the other way round: *swap); *capacity: the most items it held when a putter waited on the
 * takes' condition variable (it was full), else 0 (unbounded). Returns false when the signals
 * as puts and takes would take from an empty queue, or leave items at the end.
 */
static bool signals_pair(struct analyzer_core *core, const struct sync_obj *x,
			 const struct sync_obj *y, bool *swap, uint64_t *capacity)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct signal_at));
	GHashTableIter it;
	gpointer pv;
	int64_t level = 0, low = 0, high = 0;

	g_hash_table_iter_init(&it, core->sync_points);
	while (g_hash_table_iter_next(&it, NULL, &pv)) {
		GArray *pts = pv;

		for (guint k = 0; k < pts->len; k++) {
			const struct analyzer_sync_point *p =
			    &g_array_index(pts, struct analyzer_sync_point, k);
			struct signal_at s = {.ts = p->ts_ns, .step = p->cond == x->idx ? 1 : -1};

			if (p->kind == ANALYZER_EV_SYNC_COND_SIGNAL &&
			    (p->cond == x->idx || p->cond == y->idx)) {
				g_array_append_val(all, s);
			}
		}
	}
	g_array_sort(all, by_ts);
	for (guint k = 0; k < all->len; k++) {
		level += g_array_index(all, struct signal_at, k).step;
		low = level < low ? level : low;
		high = level > high ? level : high;
	}
	g_array_free(all, TRUE);
	if (level != 0 || (low < 0 && high > 0) || (low == 0 && high == 0)) {
		return false;
	}
	*swap = low < 0;
	/* a putter waited on the takes' condition variable (its waiters are putters, checked
	 * by the caller): the queue was full then */
	*capacity = (*swap ? x : y)->waiters ? (uint64_t)(*swap ? -low : high) : 0;
	return true;
}

/* The found queue of put condition variable put (take's its takes): its signals become the
 * put and take points an annotation would have made. */
static void make_queue(struct analyzer_core *core, struct sync_obj *put, struct sync_obj *take,
		       uint64_t capacity)
{
	struct sync_obj *q = analyzer__sync_obj(core, put->pid, put->addr, DPS_OBJ_QUEUE, NS_FOUND);
	GHashTableIter it;
	gpointer pv;

	q->capacity = capacity;
	put->paired = take->paired = true;
	g_hash_table_iter_init(&it, core->sync_points);
	while (g_hash_table_iter_next(&it, NULL, &pv)) {
		GArray *pts = pv;

		for (guint k = 0; k < pts->len; k++) {
			struct analyzer_sync_point *p =
			    &g_array_index(pts, struct analyzer_sync_point, k);

			if (p->kind != ANALYZER_EV_SYNC_COND_SIGNAL ||
			    (p->cond != put->idx && p->cond != take->idx)) {
				continue;
			}
			p->kind = p->cond == put->idx ? ANALYZER_EV_SYNC_PRODUCE
						      : ANALYZER_EV_SYNC_CONSUME;
			p->obj = q->idx;
		}
	}
}

/*
 * Queues without annotations (the file's comment): pairs of condition variables on one mutex
 * whose signallers each wait only on the other's, as a bounded queue's producers wait on
 * not_full and signal not_empty. Not when the program annotates its queues (they are
 * there). Then the signals that are no queue's are dropped: points for nothing.
 */
static void infer_queues(struct analyzer_core *core)
{
	guint n = core->sync_list->len;

	for (guint i = 0; i < n && !core->sync_annotated; i++) {
		struct sync_obj *x = g_ptr_array_index(core->sync_list, i);

		for (guint j = i + 1; j < n && x->kind == SYNC_COND && !x->paired; j++) {
			struct sync_obj *y = g_ptr_array_index(core->sync_list, j);
			uint64_t capacity;
			bool swap;

			if (y->kind != SYNC_COND || y->paired || !x->signallers || !y->signallers ||
			    x->cond_mutexes || y->cond_mutexes || x->pid != y->pid ||
			    !same_mutex(x, y) || !disjoint(x->signallers, y->signallers) ||
			    !subset(x->waiters, y->signallers) ||
			    !subset(y->waiters, x->signallers) ||
			    !signals_pair(core, x, y, &swap, &capacity)) {
				continue;
			}
			make_queue(core, swap ? y : x, swap ? x : y, capacity);
		}
	}
	drop_signals(core);
}

/* Whether o, the probe's, names an object the program also annotated (its address, the same
 * kind): the annotation says what it is, the probe's points of it are dropped. */
static bool annotated_twin(struct analyzer_core *core, const struct sync_obj *o)
{
	const struct sync_obj *a =
	    o->ns == NS_PROBE ? analyzer__sync_find(core, o->pid, o->addr, NS_ANNOTATED) : NULL;

	return a && a->kind == o->kind;
}

int analyzer__sync_prepare(struct analyzer_core *core, const size_t *order, size_t n)
{
	analyzer__sync_probe_close(core);
	return analyzer__futex_infer(core, order, n);
}

int analyzer__sync_declare(struct analyzer_core *core, const size_t *order, size_t n,
			   struct dps_actset *set)
{
	uint64_t *puts, *arrives;
	uint64_t next_id = 1;
	bool counts = false, v3 = false;
	int status = DPS_OK;

	if (!core->sync_list || !core->sync_list->len) {
		return DPS_OK;
	}
	infer_queues(core);
	puts = calloc(core->sync_list->len, sizeof(*puts));
	arrives = calloc(core->sync_list->len, sizeof(*arrives));
	if (!puts || !arrives) {
		status = DPS_ERR_NOMEM;
		goto end;
	}
	/* what the kept threads do to each object */
	for (size_t i = 0; i < n; i++) {
		const GArray *pts = analyzer__sync_points(core, order[i]);

		for (guint k = 0; pts && k < pts->len; k++) {
			const struct analyzer_sync_point *p =
			    &g_array_index(pts, struct analyzer_sync_point, k);

			if (p->kind == ANALYZER_EV_SYNC_PRODUCE) {
				puts[p->obj]++;
			} else if (p->kind == ANALYZER_EV_SYNC_ARRIVE) {
				arrives[p->obj]++;
			}
			counts |= p->count > 1;
		}
	}
	for (guint i = 0; i < core->sync_list->len && !status; i++) {
		struct sync_obj *o = g_ptr_array_index(core->sync_list, i);
		uint64_t initial = o->low < 0 ? (uint64_t)-o->low : 0;
		bool keep;

		if (o->has_initial && o->initial > initial) {
			initial = o->initial; /* a semaphore's value at sem_init */
		}
		if (o->kind == DPS_OBJ_BARRIER && !o->capacity && o->arrivers) {
			/* no init seen: every thread that arrives is a party */
			o->capacity = g_hash_table_size(o->arrivers);
		}
		switch (o->kind) {
		case DPS_OBJ_QUEUE:
			keep = puts[i] || initial;
			if (o->capacity && o->capacity < initial) {
				o->capacity = initial;
			}
			break;
		case DPS_OBJ_BARRIER:
			keep = o->capacity && arrives[i] && arrives[i] % o->capacity == 0;
			break;
		case DPS_OBJ_MUTEX:
			/* a late unlock event is the wrapper's race when no condition wait
			 * releases a mutex unseen (the probe was there) */
			keep = o->probe || (!o->released_unseen && !o->suspect &&
					    (!o->late_unlock || core->sync_cond_seen));
			break;
		case DPS_OBJ_RWLOCK:
			keep = true;
			break;
		default:
			keep = false;
			break;
		}
		if (!keep || annotated_twin(core, o)) {
			continue;
		}
		o->id = next_id++;
		v3 |= o->kind > DPS_OBJ_MAX_V2 || (o->ns == NS_PIPE && counts);
		status = dps_actset_add_object(set, o->id, o->kind, o->capacity, initial, 0);
	}
	if (!status && next_id > 1) {
		set->format_version = v3 ? DPS_ACTSET_FORMAT_V3 : DPS_ACTSET_FORMAT_V2;
	}
end:
	free(puts);
	free(arrives);
	return status;
}

void analyzer__sync_destroy(struct analyzer_core *core)
{
	if (core->unmodelled) {
		g_ptr_array_free(core->unmodelled, TRUE);
		core->unmodelled = NULL;
	}
	if (core->sync_objs) {
		g_hash_table_destroy(core->sync_objs);
		g_ptr_array_free(core->sync_list, TRUE);
		g_hash_table_destroy(core->sync_points);
	}
	core->sync_objs = NULL;
	core->sync_list = NULL;
	core->sync_points = NULL;
}
