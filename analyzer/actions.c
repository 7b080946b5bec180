/* SPDX-License-Identifier: MIT */
/*
 * Action building: a tracked thread's timeline becomes its actions (run for time on CPU, sleep
 * for blocked time no traced thread ended, wait/wake, create, join, heap/stack at the points
 * where the curves change). A block shorter than --min-block does not become an action of
 * its own: its time is carried to the thread's next block that does (a sleep, or a sleep
 * before a wait or join once the carried time reaches --min-block, or a sleep at the
 * thread's end), so the runs on either side merge into one and a thread's run total stays
 * its CPU time. Run totals are scaled to sched_stat_runtime when the trace has it. Then the
 * set's threads, manifest and options are filled in.
 *
 * Over 1000 lines: one builder walks a thread's segments, marks, memory samples and
 * synchronization points together; the blocks it holds back, the mutexes it holds and the
 * condition wait it is in are one state that each of those steps reads and changes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"
#include "tasks.h"
#include "ticks.h"

/*
 * Where a thread's segments and memory samples come from: its result arrays, or (the streamed
 * path) the spill file through analyzer__seg_stream and a memory-sample reader, remapped as
 * analyzer__copy_timeline does. Marks are always the result's (they are few).
 */
struct tl_source {
	const struct analyzer_thread *rt;
	size_t seg_i, mem_i;
	struct analyzer_core *core; /* streamed: */
	struct athread *t;
	struct analyzer_seg_stream *segs;
	struct analyzer_tl_reader *mem;
	const struct analyzer_mem_sample *mem_next; /* read ahead */
	struct analyzer_segment seg_buf;
};

static void remap_seg(struct analyzer_core *core, const struct athread *t,
		      struct analyzer_segment *s);

static const struct analyzer_segment *src_seg(struct tl_source *src)
{
	const struct analyzer_segment *raw;

	if (!src->segs) {
		return src->seg_i < src->rt->n_segs ? &src->rt->segs[src->seg_i++] : NULL;
	}
	raw = analyzer__seg_stream_next(src->segs);
	if (!raw) {
		return NULL;
	}
	src->seg_buf = *raw;
	remap_seg(src->core, src->t, &src->seg_buf);
	return &src->seg_buf;
}

static const struct analyzer_mem_sample *src_mem_peek(struct tl_source *src)
{
	if (!src->mem) {
		return src->mem_i < src->rt->n_mem ? &src->rt->mem[src->mem_i] : NULL;
	}
	if (!src->mem_next) {
		src->mem_next = analyzer__tl_reader_next(src->mem);
	}
	return src->mem_next;
}

static void src_mem_pop(struct tl_source *src)
{
	if (!src->mem) {
		src->mem_i++;
	} else {
		src->mem_next = NULL;
	}
}

/* Builds one thread's actions from its segments, marks and memory samples. */
struct act_builder {
	struct analyzer_core *core;
	const struct analyzer_result *res;
	struct dps_actset *set;
	size_t t; /* index in the set */
	/* with an output directory: the thread's file is open in w, the actions from `written`
	 * on go to it every FLUSH_AT actions, and only creates and joins stay in the set */
	struct dps_actset_writer *w;
	struct dps_diag *diag;
	size_t written;
	uint64_t pending_run; /* ns */
	uint64_t carried;     /* ns of short blocks not yet given to a block action */
	double run_scale;
	int64_t heap, stack;
	int status;
	/* synchronization points (sync.c) of core thread ci (SIZE_MAX: none), the next one, the
	 * depth of each mutex this thread holds (owned, by object index), and when its last
	 * arrive was (the block right after it is the arrive's) */
	size_t ci;
	const GArray *sync;
	guint si;
	uint32_t *held;
	size_t n_held;
	uint64_t arrive_ts;
	/* the task queues' watch on this thread (tasks.h; NULL without sync points), and when
	 * the take being emitted happened */
	struct analyzer_tasks *tasks;
	struct analyzer_task_thread *tt;
	uint64_t take_ts;
	/* a block that may be the next take's, put's or lock's own: held back until that
	 * action (then dropped) or any other (then written before the run since) */
	uint32_t pend_kind; /* DPS_ACT_WAIT, _WAIT_TIMEOUT, _SLEEP, or 0: none */
	int64_t pend_arg;   /* the waker's id, or the sleep's ns */
	uint64_t pend_aux;  /* a timed wait's timeout, ns */
	uint32_t pend_obj;  /* the mutex a quiet condition wait released around it, or
			     * ANALYZER_SYNC_NO_OBJ */
	uint64_t pend_run;  /* the run before it, ns: merged with the one after when dropped */
	/* between a condition wait's begin and end points (the probe's, sync.c): its mutex (an
	 * object index), the depth the begin released (0: no unlock played, no lock to play at
	 * the end), its timeout (-1 untimed) and result (the end's; -1 unknown), whether a
	 * block was seen in it. Quiet: an annotated put or take follows the wait (nothing but
	 * other waits between), whose own release (cycle_held) plays the mutex's; its blocks
	 * are that action's (take_sync_block looks past the waits' points), and those that are
	 * not are played with the mutex released around them. */
	bool in_cond, cond_quiet, cond_blocked;
	uint32_t cond_obj, cond_depth;
	int64_t cond_timeout, cond_result;
	/* the role of each sync point in a loop of timed waits (ticks.h; NULL: no such loop),
	 * the role of the condition wait the thread is in, and the blocked time of the loop's
	 * timed-out waits so far (dropped when a traced thread ends the loop) */
	uint8_t *tick_roles;
	uint8_t cond_role;
	uint64_t tick_held;
	/* joins met while the thread held a mutex, played once it holds none (owned, ids) */
	GArray *late_joins;
};

/* A block followed by at most this much CPU time of the thread before a take, put or lock is
 * that action's own block (a condition variable's wait and its mutex's re-acquisition): the
 * action blocks in the replay, the recorded block is dropped. The program's code between (a
 * cond_wait's return, the copy of an item) takes microseconds. */
#define SYNC_RUN_NS (100 * 1000)
/* A block that starts at most this long after an arrive is the arrive's (the barrier's wait
 * right after the annotation). */
#define SYNC_GAP_NS (200 * 1000)

#define FLUSH_AT 4096

/* The actions from b->written on to the thread's file; then only its creates and joins
 * stay (the set's resolution needs nothing else; its check of the join anys, their joins). */
static void flush_actions(struct act_builder *b)
{
	struct dps_actset_thread *th = &b->set->threads[b->t];
	size_t n = b->written;

	b->status = dps_actset_writer_add_actions(b->w, b->set, b->t, b->written, b->diag);
	if (b->status) {
		b->w = NULL; /* the writer removed its temporary */
		return;
	}
	for (size_t a = b->written; a < th->n_actions; a++) {
		if (th->actions[a].kind == DPS_ACT_CREATE || th->actions[a].kind == DPS_ACT_JOIN ||
		    th->actions[a].kind == DPS_ACT_JOIN_ANY) {
			th->actions[n++] = th->actions[a];
		}
	}
	th->n_actions = n;
	b->written = n;
}

static void append2(struct act_builder *b, enum dps_action_kind kind, int64_t arg, uint64_t aux)
{
	if (b->tt) {
		analyzer_tasks_action(b->tt, kind, arg, kind == DPS_ACT_TAKE ? b->take_ts : 0);
	}
	if (!b->status && b->set) {
		b->status = dps_actset_append2(b->set, b->t, kind, arg, aux, 0);
		if (!b->status && b->w &&
		    b->set->threads[b->t].n_actions - b->written >= FLUSH_AT) {
			flush_actions(b);
		}
	}
}

static void append(struct act_builder *b, enum dps_action_kind kind, int64_t arg)
{
	append2(b, kind, arg, 0);
}

static void flush_run(struct act_builder *b, struct analyzer_thread_stats *st)
{
	if (b->pending_run) {
		append(b, DPS_ACT_RUN, (int64_t)b->pending_run);
		st->n_runs++;
		b->pending_run = 0;
	}
}

/* The set's id of the mutex (object index o) when this thread holds it, else 0. */
static uint64_t held_id(const struct act_builder *b, uint32_t o)
{
	return o < b->n_held && b->held[o] ? analyzer__sync_object_id(b->core, o) : 0;
}

/* The block held back by take_sync_block, written: it was not a synchronization action's. A
 * quiet condition wait's block is played with its mutex released, as the wait did. */
static void flush_pending(struct act_builder *b, struct analyzer_thread_stats *st)
{
	uint32_t k = b->pend_kind;
	uint64_t m;

	if (!k) {
		return;
	}
	b->pend_kind = 0;
	if (b->pend_run) {
		append(b, DPS_ACT_RUN, (int64_t)b->pend_run);
		st->n_runs++;
		b->pend_run = 0;
	}
	m = b->pend_obj != ANALYZER_SYNC_NO_OBJ ? held_id(b, b->pend_obj) : 0;
	if (m) {
		append(b, DPS_ACT_UNLOCK, (int64_t)m);
	}
	append2(b, k, b->pend_arg, b->pend_aux); /* before the run that followed it */
	if (m) {
		append(b, DPS_ACT_LOCK, (int64_t)m);
	}
	if (k == DPS_ACT_WAIT || k == DPS_ACT_WAIT_TIMEOUT) {
		st->n_waits++;
	} else {
		st->n_sleeps++;
	}
}

/* The held-back block was a synchronization action's own: gone, the runs around it merge. */
static void drop_pending(struct act_builder *b)
{
	b->pend_kind = 0;
	b->pending_run += b->pend_run;
	b->pend_run = 0;
}

static void emit2(struct act_builder *b, enum dps_action_kind kind, int64_t arg, uint64_t aux,
		  struct analyzer_thread_stats *st)
{
	flush_pending(b, st);
	flush_run(b, st);
	append2(b, kind, arg, aux);
	switch (kind) {
	case DPS_ACT_SLEEP:
		st->n_sleeps++;
		break;
	case DPS_ACT_WAIT:
	case DPS_ACT_WAIT_TIMEOUT:
		st->n_waits++;
		break;
	case DPS_ACT_WAKE:
		st->n_wakes++;
		break;
	case DPS_ACT_CREATE:
		st->n_creates++;
		break;
	case DPS_ACT_JOIN:
		st->n_joins++;
		break;
	default:
		break;
	}
}

/* A join of a child that a wait for any child reaped: the set's `join any` (joins.c). */
static void emit_join_any(struct act_builder *b, const struct analyzer_join_any *any,
			  struct analyzer_thread_stats *st)
{
	flush_pending(b, st);
	flush_run(b, st);
	append2(b, DPS_ACT_JOIN_ANY, (int64_t)any->first, any->n);
	st->n_joins++;
}

static void emit(struct act_builder *b, enum dps_action_kind kind, int64_t arg,
		 struct analyzer_thread_stats *st)
{
	emit2(b, kind, arg, 0, st);
}

static bool holds_a_mutex(const struct act_builder *b)
{
	for (size_t o = 0; o < b->n_held; o++) {
		if (b->held[o]) {
			return true;
		}
	}
	return false;
}

/*
 * A join (recorded, or put where the child ended: joins.c) while the thread holds a mutex
 * waits until it holds none. The child had ended by then in the recording, so the join only
 * moves later; played inside the critical section it would hold the mutex while the child,
 * later in a replay (a wake consumed early), still needs it: a deadlock.
 */
static void emit_join(struct act_builder *b, uint64_t id, struct analyzer_thread_stats *st)
{
	if (!holds_a_mutex(b)) {
		emit(b, DPS_ACT_JOIN, (int64_t)id, st);
		return;
	}
	if (!b->late_joins) {
		b->late_joins = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	}
	g_array_append_val(b->late_joins, id);
}

/* The joins held back by emit_join, once the thread holds no mutex. */
static void flush_joins(struct act_builder *b, struct analyzer_thread_stats *st)
{
	if (!b->late_joins || !b->late_joins->len || holds_a_mutex(b)) {
		return;
	}
	for (guint i = 0; i < b->late_joins->len; i++) {
		emit(b, DPS_ACT_JOIN, (int64_t)g_array_index(b->late_joins, uint64_t, i), st);
	}
	g_array_set_size(b->late_joins, 0);
}

static const struct analyzer_sync_point *next_sync(const struct act_builder *b)
{
	return b->sync && b->si < b->sync->len
		   ? &g_array_index(b->sync, struct analyzer_sync_point, b->si)
		   : NULL;
}

static bool is_cond_point(const struct analyzer_sync_point *p)
{
	return p->kind == ANALYZER_EV_SYNC_COND_WAIT_BEGIN ||
	       p->kind == ANALYZER_EV_SYNC_COND_WAIT_END;
}

/* The next point that is not a condition wait's begin or end. */
static const struct analyzer_sync_point *next_op(const struct act_builder *b)
{
	for (guint i = b->si; b->sync && i < b->sync->len; i++) {
		const struct analyzer_sync_point *p =
		    &g_array_index(b->sync, struct analyzer_sync_point, i);

		if (!is_cond_point(p)) {
			return p;
		}
	}
	return NULL;
}

/* A block inside a condition wait: a quiet wait's (its mutex not released by an action) is
 * played with the mutex released around it, as the wait did. */
static void emit_block(struct act_builder *b, enum dps_action_kind kind, int64_t arg, uint64_t aux,
		       struct analyzer_thread_stats *st)
{
	uint64_t m = b->in_cond && b->cond_quiet ? held_id(b, b->cond_obj) : 0;

	if (m) {
		emit(b, DPS_ACT_UNLOCK, (int64_t)m, st);
	}
	emit2(b, kind, arg, aux, st);
	if (m) {
		emit(b, DPS_ACT_LOCK, (int64_t)m, st);
	}
}

/*
 * A condition wait's begin or end point (the probe's): the mutex the thread holds is
 * released at the begin (`unlock`) and taken back at the end (`lock`), as the wait did inside
 * libc, unless the wait is quiet (an annotated put or take follows: its own release plays
 * it, and the wait's block is the action's).
 */
static void cond_point(struct act_builder *b, const struct analyzer_sync_point *p,
		       struct analyzer_thread_stats *st)
{
	uint64_t id = held_id(b, p->obj);
	const struct analyzer_sync_point *op;

	if (p->kind == ANALYZER_EV_SYNC_COND_WAIT_END) {
		if (b->cond_role == ANALYZER_TICK_END && b->tick_held) {
			/* the loop's last wait did not block: what it waited for had come */
			emit(b, DPS_ACT_SLEEP, (int64_t)b->tick_held, st);
			b->tick_held = 0;
		}
		if (b->in_cond && b->cond_depth && b->cond_obj == p->obj) {
			if (!b->held[p->obj]) {
				emit(b, DPS_ACT_LOCK,
				     (int64_t)analyzer__sync_object_id(b->core, p->obj), st);
			}
			b->held[p->obj] += b->cond_depth;
		}
		b->in_cond = false;
		b->cond_depth = 0;
		b->cond_role = ANALYZER_TICK_NONE;
		return;
	}
	op = next_op(b);
	b->in_cond = true;
	b->cond_blocked = false;
	b->cond_obj = p->obj;
	b->cond_depth = 0;
	b->cond_timeout = p->arg;
	b->cond_role = b->tick_roles ? b->tick_roles[b->si - 1] : ANALYZER_TICK_NONE;
	b->cond_result = next_sync(b) && next_sync(b)->kind == ANALYZER_EV_SYNC_COND_WAIT_END
			     ? next_sync(b)->arg
			     : -1;
	b->cond_quiet =
	    id && op &&
	    (op->kind == ANALYZER_EV_SYNC_PRODUCE || op->kind == ANALYZER_EV_SYNC_CONSUME) &&
	    analyzer__sync_object_id(b->core, op->obj);
	if (id && !b->cond_quiet) {
		emit(b, DPS_ACT_UNLOCK, (int64_t)id, st);
		b->cond_depth = b->held[p->obj];
		b->held[p->obj] = 0;
		flush_joins(b, st);
	}
}

/* The mutexes this thread holds, unlocked (release) or locked again: around a put, take or
 * arrive, which the program did with them released (a condition variable's wait). */
static void cycle_held(struct act_builder *b, bool release, struct analyzer_thread_stats *st)
{
	for (size_t o = 0; o < b->n_held; o++) {
		if (b->held[o]) {
			emit(b, release ? DPS_ACT_UNLOCK : DPS_ACT_LOCK,
			     (int64_t)analyzer__sync_object_id(b->core, (uint32_t)o), st);
		}
	}
}

/* The action of synchronization point p (an object left out by sync.c has none). Locks are
 * counted per mutex: a recursive lock is one lock, an unlock of a mutex the thread does not
 * hold (locked before the trace began) is dropped. */
static void emit_sync(struct act_builder *b, const struct analyzer_sync_point *p,
		      struct analyzer_thread_stats *st)
{
	uint64_t id = analyzer__sync_object_id(b->core, p->obj);

	if (is_cond_point(p)) {
		cond_point(b, p, st);
		return;
	}
	if (!id || p->obj >= b->n_held) {
		return;
	}
	if (b->pend_kind && b->pending_run <= SYNC_RUN_NS &&
	    (p->kind == ANALYZER_EV_SYNC_PRODUCE || p->kind == ANALYZER_EV_SYNC_CONSUME ||
	     p->kind == ANALYZER_EV_SYNC_LOCK_ACQ)) {
		drop_pending(b); /* the block was this action's: it blocks in the replay */
	}
	switch (p->kind) {
	case ANALYZER_EV_SYNC_PRODUCE:
	case ANALYZER_EV_SYNC_CONSUME:
	case ANALYZER_EV_SYNC_ARRIVE:
		b->cond_quiet = false;
		cycle_held(b, true, st);
		b->take_ts = p->ts_ns;
		emit(b,
		     p->kind == ANALYZER_EV_SYNC_PRODUCE   ? DPS_ACT_PUT
		     : p->kind == ANALYZER_EV_SYNC_CONSUME ? DPS_ACT_TAKE
							   : DPS_ACT_ARRIVE,
		     (int64_t)id, st);
		cycle_held(b, false, st);
		b->arrive_ts = p->kind == ANALYZER_EV_SYNC_ARRIVE ? p->ts_ns : 0;
		break;
	case ANALYZER_EV_SYNC_LOCK_ACQ:
		if (!b->held[p->obj]++) {
			emit(b, DPS_ACT_LOCK, (int64_t)id, st);
		}
		break;
	case ANALYZER_EV_SYNC_UNLOCK:
		if (b->held[p->obj] && !--b->held[p->obj]) {
			emit(b, DPS_ACT_UNLOCK, (int64_t)id, st);
			flush_joins(b, st);
		}
		break;
	default:
		break;
	}
}

/*
 * Whether the block seg (kind: the action it would be, arg and aux: its arguments) is a
 * synchronization action's own: right after an arrive (dropped here), or before a take, put or
 * lock with no mark between (held back: emit_sync drops it when little CPU time separates
 * them, emit writes it otherwise). In a quiet condition wait the take or put is looked for
 * past the waits' points. Returns true when seg needs no action now.
 */
static bool take_sync_block(struct act_builder *b, const struct analyzer_segment *seg,
			    const struct analyzer_thread *rt, size_t mi, uint32_t kind, int64_t arg,
			    uint64_t aux, struct analyzer_thread_stats *st)
{
	const struct analyzer_sync_point *p = b->cond_quiet ? next_op(b) : next_sync(b);

	if (b->arrive_ts && seg->begin_ns >= b->arrive_ts &&
	    seg->begin_ns - b->arrive_ts <= SYNC_GAP_NS) {
		b->arrive_ts = 0;
		return true;
	}
	if (!p || p->ts_ns < seg->end_ns ||
	    (p->kind != ANALYZER_EV_SYNC_CONSUME && p->kind != ANALYZER_EV_SYNC_PRODUCE &&
	     p->kind != ANALYZER_EV_SYNC_LOCK_ACQ) ||
	    !analyzer__sync_object_id(b->core, p->obj) ||
	    (mi < rt->n_marks && rt->marks[mi].ts_ns <= p->ts_ns)) {
		return false;
	}
	if (b->pend_kind && b->pending_run <= SYNC_RUN_NS) {
		drop_pending(b); /* two blocks before one take: a cond_wait and its re-lock */
	}
	flush_pending(b, st); /* the older one, before its run */
	b->pend_run = b->pending_run;
	b->pending_run = 0;
	b->pend_kind = kind;
	b->pend_arg = arg;
	b->pend_aux = aux;
	b->pend_obj = b->in_cond && b->cond_quiet ? b->cond_obj : ANALYZER_SYNC_NO_OBJ;
	return true;
}

/*
 * A sleep or a wait segment sg. A sleep shorter than min_block is folded: the runs around it
 * merge, its time is carried (it was once added to the run: CPU the thread never used) to the
 * next block that is written. The first block of a timed condition wait that a traced thread
 * ended (the wait returned 0) is `wait ID timeout D`, D the timeout the program asked for:
 * in the replay a faster waker ends it earlier. A timed wait that timed out stays the sleep
 * it was: no thread is there to wait for. A sleep the tracer's thread ended is the recording's
 * (lttng-ust's registration, in the program's constructors): no action, its time gone; the
 * runs around it merge.
 */
static void block(struct act_builder *b, const struct analyzer_segment *sg,
		  const struct analyzer_thread *rt, size_t mi, uint64_t min_block,
		  struct analyzer_thread_stats *st)
{
	uint64_t dur = sg->end_ns - sg->begin_ns, aux = 0;
	enum dps_action_kind kind = DPS_ACT_SLEEP;
	int64_t arg = (int64_t)(dur + b->carried);

	if (sg->kind == ANALYZER_SEG_SLEEP && sg->other == ANALYZER_OTHER_TRACER) {
		st->n_tracer++;
		return;
	}
	if (b->in_cond && b->cond_role == ANALYZER_TICK_TIMEOUT) {
		b->tick_held += dur; /* a tick of a waiting loop (ticks.h): dropped when it ends */
		return;
	}
	if (sg->kind == ANALYZER_SEG_SLEEP && dur < min_block) {
		b->carried += dur;
		st->n_folded++;
		return;
	}
	if (sg->kind == ANALYZER_SEG_WAIT) {
		kind = DPS_ACT_WAIT;
		arg = (int64_t)b->res->threads[sg->other].id;
		if (b->in_cond && !b->cond_blocked && b->cond_timeout >= 0 && b->cond_result == 0 &&
		    b->cond_role != ANALYZER_TICK_END) {
			kind = DPS_ACT_WAIT_TIMEOUT;
			aux = (uint64_t)b->cond_timeout;
		}
		b->tick_held = 0; /* the loop's waits are this one */
	} else if (b->tick_held) {
		arg += (int64_t)b->tick_held; /* no traced thread ended the loop: its time stays */
		b->tick_held = 0;
	}
	b->cond_blocked |= b->in_cond;
	if (take_sync_block(b, sg, rt, mi, kind, arg, aux, st)) {
		if (kind == DPS_ACT_SLEEP) {
			b->carried = 0;
		}
		return; /* the take's, put's, lock's or arrive's own block, maybe */
	}
	if (kind == DPS_ACT_SLEEP) {
		b->carried = 0;
	} else if (b->carried && b->carried >= min_block) {
		emit(b, DPS_ACT_SLEEP, (int64_t)b->carried, st);
		b->carried = 0;
	}
	emit_block(b, kind, arg, aux, st);
}

static void emit_point(struct act_builder *b, struct tl_source *src, size_t *mi, uint64_t upto,
		       bool inclusive, struct analyzer_thread_stats *st)
{
	const struct analyzer_thread *rt = src->rt;

	/* Marks and memory samples up to `upto`, in time order. */
	for (;;) {
		const struct analyzer_mem_sample *ms = src_mem_peek(src);
		bool have_m = *mi < rt->n_marks && (inclusive ? rt->marks[*mi].ts_ns <= upto
							      : rt->marks[*mi].ts_ns < upto);
		bool have_s = ms && (inclusive ? ms->ts_ns <= upto : ms->ts_ns < upto);

		const struct analyzer_sync_point *p = next_sync(b);
		bool have_p = p && (inclusive ? p->ts_ns <= upto : p->ts_ns < upto);

		if (have_p && (!have_m || p->ts_ns < rt->marks[*mi].ts_ns) &&
		    (!have_s || p->ts_ns < ms->ts_ns)) {
			b->si++;
			emit_sync(b, p, st);
			continue;
		}
		if (!have_m && !have_s) {
			return;
		}
		if (have_m && (!have_s || rt->marks[*mi].ts_ns <= ms->ts_ns)) {
			const struct analyzer_mark *m = &rt->marks[(*mi)++];

			if (m->kind == ANALYZER_MARK_CREATE) {
				emit(b, DPS_ACT_CREATE, (int64_t)b->res->threads[m->other].id, st);
			} else if (m->kind == ANALYZER_MARK_WAKE) {
				emit(b, DPS_ACT_WAKE, (int64_t)b->res->threads[m->other].id, st);
			}
		} else {
			int64_t heap = ms->heap_bytes, stack = ms->stack_bytes;

			src_mem_pop(src);
			if (heap != b->heap) {
				emit(b, DPS_ACT_HEAP, heap - b->heap, st);
				b->heap = heap;
			}
			if (stack != b->stack) {
				emit(b, DPS_ACT_STACK, stack - b->stack, st);
				b->stack = stack;
			}
		}
	}
}

/*
 * rt's marks/segments already hold result indexes; create/wake/join args are set ids. run_sum:
 * the thread's run segments' total (to scale the runs to its CPU time).
 */
static int build_actions(struct act_builder *b, struct tl_source *src, uint64_t run_sum,
			 uint64_t min_block)
{
	const struct analyzer_thread *rt = src->rt;
	struct analyzer_thread_stats *st = (struct analyzer_thread_stats *)&rt->stats;
	const struct analyzer_result *res = b->res;
	const struct analyzer_segment *s;
	size_t mi = 0;
	uint64_t cur;

	if (st->busy_exact && run_sum) {
		b->run_scale = (double)st->busy_ns / (double)run_sum;
		/* A thread selected late (its name matched after exec) has CPU time from before
		 * its timeline: do not stretch its runs by that. */
		if (b->run_scale > 2.0 || b->run_scale < 0.5) {
			b->run_scale = 1.0;
		}
	}
	b->sync = b->core && b->set ? analyzer__sync_points(b->core, b->ci) : NULL;
	b->si = 0;
	b->arrive_ts = 0;
	if (b->sync) {
		long n = analyzer_ticks_find(b->sync, rt->marks, rt->n_marks, &b->tick_roles);

		if (n < 0) {
			b->status = DPS_ERR_NOMEM;
		} else {
			st->n_ticks += (uint64_t)n;
		}
	}
	if (b->sync) {
		b->n_held = b->core->sync_list->len;
		b->held = calloc(b->n_held, sizeof(*b->held));
		if (!b->held) {
			b->sync = NULL;
			b->n_held = 0;
			b->status = DPS_ERR_NOMEM;
		}
		if (b->tasks) {
			b->tt = analyzer_tasks_thread_begin(b->tasks, b->set->threads[b->t].id);
		}
	}
	/* Marks are stored with result indexes; actions name set ids. */
	while (!b->status && (s = src_seg(src))) {
		struct analyzer_segment sg = *s;

		emit_point(b, src, &mi, sg.begin_ns, sg.kind != ANALYZER_SEG_RUN, st);
		switch (sg.kind) {
		case ANALYZER_SEG_RUN:
			cur = sg.begin_ns;
			while (!b->status) {
				const struct analyzer_mem_sample *ms = src_mem_peek(src);
				uint64_t next = sg.end_ns;

				if (mi < rt->n_marks && rt->marks[mi].ts_ns < next) {
					next = rt->marks[mi].ts_ns;
				}
				if (ms && ms->ts_ns < next) {
					next = ms->ts_ns;
				}
				if (next_sync(b) && next_sync(b)->ts_ns < next) {
					next = next_sync(b)->ts_ns;
				}
				if (next < cur) {
					next = cur;
				}
				b->pending_run +=
				    (uint64_t)((double)(next - cur) * b->run_scale + 0.5);
				cur = next;
				if (next >= sg.end_ns) {
					break;
				}
				emit_point(b, src, &mi, next, true, st);
			}
			break;
		case ANALYZER_SEG_SLEEP:
		case ANALYZER_SEG_WAIT:
			block(b, &sg, rt, mi, min_block, st);
			break;
		case ANALYZER_SEG_JOIN:
			if (b->carried && b->carried >= min_block) {
				emit(b, DPS_ACT_SLEEP, (int64_t)b->carried, st);
				b->carried = 0;
			}
			if (b->core && analyzer__join_any_of(b->core, sg.other)) {
				emit_join_any(b, analyzer__join_any_of(b->core, sg.other), st);
				break;
			}
			emit_join(b, res->threads[sg.other].id, st);
			break;
		default:
			break;
		}
	}
	if (src->core && src->core->status && !b->status) {
		b->status = src->core->status; /* the spill file could not be read */
	}
	emit_point(b, src, &mi, UINT64_MAX, true, st);
	/* a mutex still held at the thread's end (its unlock after the trace): released */
	for (size_t o = 0; o < b->n_held; o++) {
		if (b->held[o]) {
			b->held[o] = 0;
			emit(b, DPS_ACT_UNLOCK,
			     (int64_t)analyzer__sync_object_id(b->core, (uint32_t)o), st);
		}
	}
	flush_joins(b, st);
	if (b->late_joins) {
		g_array_free(b->late_joins, TRUE);
		b->late_joins = NULL;
	}
	if (b->carried) {
		/* what is left of the short blocks: the thread ends that much later */
		emit(b, DPS_ACT_SLEEP, (int64_t)b->carried, st);
	}
	flush_pending(b, st);
	flush_run(b, st);
	if (b->tick_held) {
		emit(b, DPS_ACT_SLEEP, (int64_t)b->tick_held,
		     st); /* a loop cut by the trace's end */
		b->tick_held = 0;
	}
	free(b->held);
	b->held = NULL;
	b->n_held = 0;
	free(b->tick_roles);
	b->tick_roles = NULL;
	analyzer_tasks_thread_end(b->tt);
	b->tt = NULL;
	return b->status;
}

/* The actions of result thread rt, whose timeline is in memory. */
static int build_actions_of(struct act_builder *b, const struct analyzer_thread *rt,
			    uint64_t min_block)
{
	struct tl_source src = {.rt = rt};
	uint64_t run_sum = 0;

	for (size_t i = 0; i < rt->n_segs; i++) {
		if (rt->segs[i].kind == ANALYZER_SEG_RUN) {
			run_sum += rt->segs[i].end_ns - rt->segs[i].begin_ns;
		}
	}
	return build_actions(b, &src, run_sum, min_block);
}

int analyzer__build_actions(struct analyzer_core *core, struct analyzer_result *res, size_t ri,
			    struct dps_actset *set, uint64_t min_block)
{
	struct act_builder b = {
	    .core = core, .res = res, .set = set, .t = ri, .run_scale = 1.0, .ci = SIZE_MAX};

	return build_actions_of(&b, &res->threads[ri], min_block);
}

int analyzer__copy_identity(struct analyzer_core *core, size_t ci, struct analyzer_thread *rt)
{
	struct athread *t = analyzer__thread_at(core, ci);

	rt->id = analyzer__thread_id(t);
	rt->tid = t->tid > 0 ? t->tid : -1;
	rt->pid = t->pid;
	rt->comm = strdup(t->comm);
	rt->pre_existing = !t->created;
	rt->start_ns = t->created ? t->create_ts : t->first_ts;
	rt->end_ns = analyzer__thread_end(core, t);
	rt->parent = ANALYZER_NO_THREAD;
	if (t->sim.begun) {
		analyzer__sim_window(t, rt);
	}
	return rt->comm ? DPS_OK : DPS_ERR_NOMEM;
}

/* Segment s of t as the result has it: `other` a result index, a wait or join on a thread
 * not kept (or the root, never joined) a sleep; one that lttng-ust's listener thread ended
 * (the program's constructor waiting for the session daemon) marked the tracer's. */
static void remap_seg(struct analyzer_core *core, const struct athread *t,
		      struct analyzer_segment *s)
{
	if (s->kind == ANALYZER_SEG_WAIT || s->kind == ANALYZER_SEG_JOIN) {
		struct athread *o = analyzer__thread_at(core, s->other);

		if (!o->kept || o == t || (s->kind == ANALYZER_SEG_JOIN && o->res_idx == 0)) {
			/* Not selected, or the root (never created, so never joined: the
			 * process exiting woke its other threads). */
			s->kind = ANALYZER_SEG_SLEEP;
			s->other =
			    !o->kept && o->pid == t->pid && analyzer__is_tracer_thread(core, o)
				? ANALYZER_OTHER_TRACER
				: 0;
		} else {
			s->other = (uint32_t)o->res_idx;
		}
	}
}

static void count_seg(const struct analyzer_segment *s, struct analyzer_thread_stats *st,
		      uint64_t *run_sum)
{
	uint64_t d = s->end_ns - s->begin_ns;

	switch (s->kind) {
	case ANALYZER_SEG_RUN:
		st->busy_ns += d;
		*run_sum += d;
		break;
	case ANALYZER_SEG_PREEMPTED:
		st->waiting_ns += d;
		break;
	default:
		st->blocked_ns += d;
		break;
	}
}

/* Everything but the segments: the statistics the kernel kept, the marks, the samples (moved
 * into rt unless streamed). */
static int copy_rest(struct analyzer_core *core, struct athread *t, struct analyzer_thread *rt,
		     bool streamed)
{
	struct analyzer_thread_stats *st = &rt->stats;
	size_t n = 0;

	if (t->sched.has_runtime && core->has_sched) {
		st->busy_ns = t->sched.runtime_ns;
		if (t->sim.begun) {
			st->busy_ns = (t->sim.ended ? t->sim.runtime_at_end : t->sched.runtime_ns) -
				      t->sim.runtime_at_begin;
		}
		st->busy_exact = true;
	}
	st->n_switches = t->sched.n_switches;
	st->n_inferred = t->sched.n_inferred;
	st->n_allocs = t->memory.n_allocs;
	st->n_frees = t->memory.n_frees;
	st->n_free_null = t->memory.n_free_null;
	st->n_free_unknown = t->memory.n_free_unknown;
	st->heap_peak_bytes = t->memory.heap_peak;
	st->stack_peak_bytes = t->memory.stack_peak;
	/* Marks (stable: a create and a wake at the same instant keep their order) */
	if (t->tl.marks_unsorted) {
		g_qsort_with_data(t->tl.marks, (gint)t->tl.n_marks, sizeof(*t->tl.marks),
				  analyzer__cmp_mark, NULL);
	}
	rt->marks = malloc((t->tl.n_marks ? t->tl.n_marks : 1) * sizeof(*rt->marks));
	if (!rt->marks) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < t->tl.n_marks; i++) {
		struct analyzer_mark m = t->tl.marks[i];

		if (m.kind == MARK_DELETED) {
			continue;
		}
		if (m.kind != ANALYZER_MARK_EXIT) {
			struct athread *o = analyzer__thread_at(core, m.other);

			if (!o->kept || o == t ||
			    (m.kind == ANALYZER_MARK_JOIN && o->res_idx == 0)) {
				continue;
			}
			m.other = (uint32_t)o->res_idx;
		}
		rt->marks[n++] = m;
	}
	rt->n_marks = n;
	rt->cap_marks = t->tl.n_marks ? t->tl.n_marks : 1;
	if (!streamed) {
		rt->mem = t->tl.mem;
		rt->n_mem = t->tl.n_mem;
		rt->cap_mem = t->tl.cap_mem;
		t->tl.mem = NULL;
		t->tl.n_mem = t->tl.cap_mem = 0;
	}
	return DPS_OK;
}

int analyzer__copy_timeline(struct analyzer_core *core, size_t ci, struct analyzer_thread *rt)
{
	struct athread *t = analyzer__thread_at(core, ci);
	uint64_t run_sum = 0;

	if (t->sim.begun) {
		analyzer__clip_to_window(t, rt);
	}
	/* Segments: remap `other`, drop references to threads not kept. */
	rt->segs = t->tl.segs;
	rt->n_segs = t->tl.n_segs;
	rt->cap_segs = t->tl.cap_segs;
	t->tl.segs = NULL;
	t->tl.n_segs = t->tl.cap_segs = 0;
	for (size_t i = 0; i < rt->n_segs; i++) {
		remap_seg(core, t, &rt->segs[i]);
		count_seg(&rt->segs[i], &rt->stats, &run_sum);
	}
	return copy_rest(core, t, rt, false);
}

/*
 * The streamed path of one thread (an output directory, no timelines kept, not a simulated
 * run's thread): its marks in memory, its segments and samples read from the spill file twice
 * (the statistics and the runs' total first, then the actions), its file written every
 * FLUSH_AT actions. Memory: a spill chunk of each kind and FLUSH_AT actions, whatever the
 * thread's length.
 */
static int output_streamed(struct analyzer_core *core, struct analyzer_result *res, size_t ri,
			   size_t ci, struct act_builder *b, uint64_t min_block)
{
	struct athread *t = analyzer__thread_at(core, ci);
	struct analyzer_thread *rt = &res->threads[ri];
	struct analyzer_seg_stream segs;
	struct analyzer_tl_reader mem;
	struct tl_source src = {.rt = rt, .core = core, .t = t};
	const struct analyzer_segment *s;
	uint64_t run_sum = 0;
	int status;

	status = analyzer__prepare_marks(core, ci);
	status = status ? status : analyzer__seg_stream_open(core, ci, &segs);
	if (status) {
		return status;
	}
	while ((s = analyzer__seg_stream_next(&segs))) {
		struct analyzer_segment sg = *s;

		remap_seg(core, t, &sg);
		count_seg(&sg, &rt->stats, &run_sum);
	}
	analyzer__seg_stream_close(&segs);
	status = core->status ? core->status : copy_rest(core, t, rt, true);
	status = status ? status : analyzer__seg_stream_open(core, ci, &segs);
	if (status) {
		return status;
	}
	status = analyzer__tl_reader_open(core, t, true, &mem);
	if (!status) {
		src.segs = &segs;
		src.mem = &mem;
		status = build_actions(b, &src, run_sum, min_block);
		analyzer__tl_reader_close(&mem);
	}
	analyzer__seg_stream_close(&segs);
	/* what was left in memory goes as the result's timeline would */
	free(t->tl.segs);
	free(t->tl.mem);
	t->tl.segs = NULL;
	t->tl.mem = NULL;
	t->tl.n_segs = t->tl.cap_segs = t->tl.n_mem = t->tl.cap_mem = 0;
	analyzer__drop_spill(t);
	return status;
}

static char *format_options(const struct analyzer_options *o, uint64_t min_block)
{
	char buf[512];
	char mb[32];
	size_t len = 0;

	buf[0] = '\0';
	if (o->pid >= 0) {
		len += snprintf(buf + len, sizeof(buf) - len, "--pid %" PRId64 " ", o->pid);
	}
	if (o->tid >= 0 && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--tid %" PRId64 " ", o->tid);
	}
	if (o->comm && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--comm %s ", o->comm);
	}
	if (o->follow_children && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--follow-children ");
	}
	if (len < sizeof(buf)) {
		snprintf(buf + len, sizeof(buf) - len, "--min-block %sus",
			 dps_actset_format_us(min_block, mb, sizeof(mb)));
	}
	return strdup(buf);
}

/* The set with its threads' metadata, options and source, no actions yet. */
static struct dps_actset *new_actset(struct analyzer_core *core, const struct analyzer_result *res,
				     uint64_t min_block)
{
	struct dps_actset *set = dps_actset_create();

	if (!set) {
		return NULL;
	}
	for (size_t i = 0; i < res->n_threads; i++) {
		const struct analyzer_thread *rt = &res->threads[i];
		size_t t = dps_actset_add_thread(set, rt->id);
		struct dps_actset_thread *at;

		if (t == DPS_ACTSET_NO_THREAD) {
			goto error;
		}
		at = &set->threads[t];
		at->tid = rt->tid;
		at->pid = rt->pid;
		at->pre_existing = rt->pre_existing && i != res->root;
		at->start_offset_ns = rt->start_ns > res->threads[res->root].start_ns
					  ? rt->start_ns - res->threads[res->root].start_ns
					  : 0;
		if (rt->comm && rt->comm[0] && dps_actset_set_str(&at->comm, rt->comm)) {
			goto error;
		}
	}
	set->format_version = DPS_ACTSET_FORMAT_V1;
	set->options = format_options(&core->opts, min_block);
	if (!set->options || dps_actset_set_str(&set->source_trace, res->source)) {
		goto error;
	}
	set->partial = res->partial;
	if (res->partial && dps_actset_set_str(&set->partial_reason, res->partial_reason)) {
		goto error;
	}
	return set;
error:
	dps_actset_destroy(set);
	return NULL;
}

/* Once a thread's file is written, only its create and join actions stay: the set's
 * resolution (the creation graph, the manifest's root and parents) needs nothing else. */
static void thin_thread(struct dps_actset_thread *th)
{
	size_t n = 0;

	for (size_t a = 0; a < th->n_actions; a++) {
		if (th->actions[a].kind == DPS_ACT_CREATE || th->actions[a].kind == DPS_ACT_JOIN ||
		    th->actions[a].kind == DPS_ACT_JOIN_ANY) {
			th->actions[n++] = th->actions[a];
		}
	}
	th->n_actions = n;
	/* and give the rest back: the arrays of every thread would otherwise stay as large as
	 * they were */
	if (!n) {
		free(th->actions);
		th->actions = NULL;
		th->cap_actions = 0;
	} else {
		struct dps_actset_action *a = realloc(th->actions, n * sizeof(*a));

		if (a) {
			th->actions = a;
			th->cap_actions = n;
		}
	}
}

static void drop_timeline(struct analyzer_thread *rt)
{
	free(rt->segs);
	free(rt->marks);
	free(rt->mem);
	rt->segs = NULL;
	rt->marks = NULL;
	rt->mem = NULL;
	rt->n_segs = rt->cap_segs = rt->n_marks = rt->cap_marks = rt->n_mem = rt->cap_mem = 0;
}

/*
 * The kept threads' timelines, parents, statistics and actions, one thread at a time (order[i]
 * is the core's thread for result thread i, whose identity is filled in). With opts.out_dir,
 * each thread's file is written as soon as its actions are built, and only its create and join
 * actions are kept; without opts.keep_timelines its timeline is dropped then too, so that the
 * whole set is never held twice (doc/analyzer.md, "Memory"). With build_actset (and no
 * out_dir) the set is res->actset; else only the counts are made.
 */
int analyzer__output(struct analyzer_core *core, struct analyzer_result *res, const size_t *order,
		     uint64_t min_block, struct dps_diag *diag)
{
	const char *out_dir = core->opts.out_dir;
	struct dps_actset_writer w = {0};
	struct dps_actset *set = NULL;
	struct analyzer_tasks *tasks = NULL;
	int status = DPS_ERR_NOMEM;

	if (out_dir || core->opts.build_actset) {
		set = new_actset(core, res, min_block);
		if (!set || analyzer__sync_declare(core, order, res->n_threads, set) ||
		    analyzer__join_any_declare(core, order, res->n_threads, set)) {
			goto nomem;
		}
		tasks = set->n_objects ? analyzer_tasks_create() : NULL;
	}
	if (out_dir) {
		status = dps_actset_writer_begin(&w, out_dir, core->opts.out_flags, diag);
		if (status) {
			goto destroy_set;
		}
	}
	for (size_t i = 0; i < res->n_threads; i++) {
		struct analyzer_thread *rt = &res->threads[i];
		struct act_builder b = {.core = core,
					.res = res,
					.set = set,
					.t = i,
					.run_scale = 1.0,
					.w = out_dir ? &w : NULL,
					.diag = diag,
					.ci = order[i],
					.tasks = tasks};
		bool streamed = out_dir && !core->opts.keep_timelines &&
				!analyzer__thread_at(core, order[i])->sim.begun;
		size_t rank = 0;

		if (out_dir) {
			status = dps_actset_writer_open_thread(&w, set, i, diag);
			if (status) {
				goto destroy_set; /* the writer removed its temporary */
			}
		}
		if (streamed) {
			status = output_streamed(core, res, i, order[i], &b, min_block);
		} else {
			status = analyzer__prepare_timeline(core, order[i]);
			status = status ? status : analyzer__copy_timeline(core, order[i], rt);
			status = status ? status : build_actions_of(&b, rt, min_block);
		}
		if (status && out_dir && !b.w) {
			goto destroy_set; /* a write failed: the writer removed its temporary */
		}
		if (status == DPS_ERR_IO) {
			dps_diag_setf(diag, "%s", core->err);
			goto abort_writer;
		}
		if (status) {
			goto nomem;
		}
		/* Parents and creation ranks from the create marks. */
		for (size_t m = 0; m < rt->n_marks; m++) {
			if (rt->marks[m].kind == ANALYZER_MARK_CREATE) {
				res->threads[rt->marks[m].other].parent = i;
				res->threads[rt->marks[m].other].create_rank = rank++;
			}
		}
		if (out_dir) {
			status = dps_actset_writer_add_actions(&w, set, i, b.written, diag);
			status = status ? status : dps_actset_writer_close_thread(&w, diag);
			if (status) {
				goto destroy_set; /* the writer removed its temporary */
			}
			thin_thread(&set->threads[i]);
		}
		if (!core->opts.keep_timelines) {
			drop_timeline(rt);
		}
	}
	if (set) {
		status = dps_actset_resolve(set, diag);
		if (status) {
			/* An analyzer bug, not bad input: say so. */
			char msg[DPS_DIAG_MSG_LEN];

			snprintf(msg, sizeof(msg), "%.900s", diag ? diag->msg : "");
			dps_diag_setf(diag, "internal error, the action set built is invalid: %s",
				      msg);
			status = DPS_ERROR;
			goto abort_writer;
		}
		if (tasks && analyzer_tasks_declare(tasks, set)) {
			goto nomem;
		}
	}
	analyzer_tasks_destroy(tasks);
	tasks = NULL;
	if (out_dir) {
		status = dps_actset_writer_commit(&w, set, diag);
		goto destroy_set;
	}
	res->actset = set;
	return DPS_OK;

nomem:
	status = DPS_ERR_NOMEM;
	dps_diag_setf(diag, "out of memory building the action set");
abort_writer:
	dps_actset_writer_abort(&w);
destroy_set:
	analyzer_tasks_destroy(tasks);
	dps_actset_destroy(set);
	return status;
}
