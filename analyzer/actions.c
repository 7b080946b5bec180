/* SPDX-License-Identifier: MIT */
/*
 * Action building: a tracked thread's timeline becomes its actions (run for time on CPU, sleep
 * for blocked time no traced thread ended, wait/wake, create, join, heap/stack at the points
 * where the curves change). A block shorter than --min-block does not become an action of
 * its own: its time is carried to the thread's next block that does (a sleep, or a sleep
 * before a wait or join once the carried time reaches --min-block, or a sleep at the
 * thread's end), so the runs on either side merge into one and a thread's run total stays
 * its CPU time. Run totals are scaled to sched_stat_runtime when the trace has it. One
 * builder walks a thread's segments, marks, memory samples and synchronization points
 * together: the blocks it holds back, the mutexes it holds and the condition wait it is in
 * are one state that each of those steps reads and changes. The result's timelines and the
 * set's output around it are output.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "actions.h"
#include "ticks.h"

static const struct analyzer_segment *src_seg(struct tl_source *src)
{
	const struct analyzer_segment *raw;

	if (src->have_ahead) {
		src->have_ahead = false;
		src->seg_buf = src->ahead;
		return &src->seg_buf;
	}
	if (!src->segs) {
		return src->seg_i < src->rt->n_segs ? &src->rt->segs[src->seg_i++] : NULL;
	}
	raw = analyzer__seg_stream_next(src->segs);
	if (!raw) {
		return NULL;
	}
	src->seg_buf = *raw;
	analyzer__remap_seg(src->core, src->t, &src->seg_buf);
	return &src->seg_buf;
}

/* The most of the runnable time after a sleep that src_sleep_to_cpu gives the sleep: a wake-up
 * latency (tens of us on these VMs); beyond it the thread waited for a CPU another thread held,
 * contention the replay's own threads recreate, or another program's, not to be recreated. */
#define SLEEP_LATENCY_MAX_NS 100000

/*
 * A sleep lasts until its thread is back on a CPU, not until its wake-up: the replay's sleep
 * spins its last stretch to be running at its end (dps__sleep), so the latency between the
 * original's timer or outside waker and its next time on a CPU (once 34.5 us on average in a
 * ping-pong's lone sleeper) belongs to the sleep, up to SLEEP_LATENCY_MAX_NS. Dropped with the
 * other runnable time, it made a play of many sleeps end early. Returns that latency (0 for
 * anything but a sleep, the runnable segment after it consumed); whether a block is folded
 * stays a matter of the block alone (block()). A wait's is left out: the replay's waker pays
 * its own.
 */
static uint64_t src_sleep_to_cpu(struct tl_source *src, const struct analyzer_segment *sg)
{
	const struct analyzer_segment *n;

	if (sg->kind != ANALYZER_SEG_SLEEP || sg->other == ANALYZER_OTHER_TRACER) {
		return 0;
	}
	n = src_seg(src);
	if (!n) {
		return 0;
	}
	if (n->kind == ANALYZER_SEG_PREEMPTED && n->begin_ns == sg->end_ns) {
		uint64_t late = n->end_ns - n->begin_ns;

		return late < SLEEP_LATENCY_MAX_NS ? late : SLEEP_LATENCY_MAX_NS;
	}
	src->ahead = *n;
	src->have_ahead = true;
	return 0;
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

/* A recorded wait the set keeps, of this thread on result thread waker, that blocked from
 * begin_ns to end_ns: counted per pair and kind of futex word (the result's pins). */
static void note_wait(struct act_builder *b, size_t waker, uint64_t begin_ns, uint64_t end_ns)
{
	struct analyzer_core *core = b->core;
	uint32_t kind;
	struct analyzer_pin pin = {.waiter = b->t, .waker = waker, .n = 1};

	if (!core || b->ci == SIZE_MAX) {
		return;
	}
	kind = analyzer__futex_kind_at(core, b->ci, begin_ns, end_ns);
	pin.kind = kind;
	pin.blocked_ns = end_ns > begin_ns ? end_ns - begin_ns : 0;
	if (!core->pins) {
		core->pins = g_array_new(FALSE, FALSE, sizeof(struct analyzer_pin));
	}
	for (guint i = 0; i < core->pins->len; i++) {
		struct analyzer_pin *p = &g_array_index(core->pins, struct analyzer_pin, i);

		if (p->waiter == pin.waiter && p->waker == waker && p->kind == kind) {
			p->n++;
			p->blocked_ns += pin.blocked_ns;
			return;
		}
	}
	g_array_append_val(core->pins, pin);
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
		note_wait(b, b->pend_waker, b->pend_b, b->pend_e);
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

/* A call with no action of its own (a condition variable's signal that blocked, sync.c): its
 * inside is dropped, nothing is played. */
static bool is_bare_call(const struct analyzer_sync_point *p)
{
	return p->kind == ANALYZER_EV_SYNC_OP_BEGIN;
}

/* The next point that is not a condition wait's begin or end, nor a bare call. */
static const struct analyzer_sync_point *next_op(const struct act_builder *b)
{
	for (guint i = b->si; b->sync && i < b->sync->len; i++) {
		const struct analyzer_sync_point *p =
		    &g_array_index(b->sync, struct analyzer_sync_point, i);

		if (!is_cond_point(p) && !is_bare_call(p)) {
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
	if (is_bare_call(p)) {
		b->call_from = p->ts_ns;
		b->call_to =
		    p->end_ns > b->call_to || b->call_to <= p->ts_ns ? p->end_ns : b->call_to;
		return;
	}
	if (!id || p->obj >= b->n_held) {
		return;
	}
	if (b->pend_kind && b->pending_run <= SYNC_RUN_NS && !p->probe &&
	    (p->kind == ANALYZER_EV_SYNC_PRODUCE || p->kind == ANALYZER_EV_SYNC_CONSUME ||
	     p->kind == ANALYZER_EV_SYNC_LOCK_ACQ)) {
		drop_pending(b); /* the block was this action's: it blocks in the replay */
	}
	if (p->end_ns > p->ts_ns) {
		/* the call's inside is its own (sync-probe.c) */
		b->call_from = p->ts_ns;
		b->call_to =
		    p->end_ns > b->call_to || b->call_to <= p->ts_ns ? p->end_ns : b->call_to;
	}
	switch (p->kind) {
	case ANALYZER_EV_SYNC_PRODUCE:
	case ANALYZER_EV_SYNC_CONSUME:
	case ANALYZER_EV_SYNC_ARRIVE:
		b->cond_quiet = false;
		if (!p->probe) {
			cycle_held(b, true, st);
		}
		b->take_ts = p->ts_ns;
		emit2(b,
		      p->kind == ANALYZER_EV_SYNC_PRODUCE   ? DPS_ACT_PUT
		      : p->kind == ANALYZER_EV_SYNC_CONSUME ? DPS_ACT_TAKE
							    : DPS_ACT_ARRIVE,
		      (int64_t)id, p->count > 1 ? p->count : 0, st);
		if (!p->probe) {
			cycle_held(b, false, st);
		}
		b->arrive_ts = p->kind == ANALYZER_EV_SYNC_ARRIVE && !p->probe ? p->ts_ns : 0;
		break;
	case ANALYZER_EV_SYNC_LOCK_ACQ:
		if (!b->held[p->obj]++) {
			emit(b, p->shared ? DPS_ACT_RDLOCK : DPS_ACT_LOCK, (int64_t)id, st);
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
	b->pend_b = seg->begin_ns;
	b->pend_e = seg->end_ns;
	b->pend_waker = seg->other;
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
 * runs around it merge. late: the wake-up latency after a sleep (src_sleep_to_cpu), added to
 * a sleep that is written, not counted to decide the folding.
 */
static void block(struct act_builder *b, const struct analyzer_segment *sg, uint64_t late,
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
	if (sg->begin_ns >= b->call_from && sg->begin_ns < b->call_to) {
		return; /* inside the probe's call: the object blocks in the replay */
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
	if (kind == DPS_ACT_SLEEP) {
		arg += (int64_t)late; /* until back on a CPU (src_sleep_to_cpu) */
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
	if (kind != DPS_ACT_SLEEP) {
		note_wait(b, sg->other, sg->begin_ns, sg->end_ns);
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
			} else if (m->kind == ANALYZER_MARK_WAKE &&
				   !(m->ts_ns >= b->call_from && m->ts_ns < b->call_to)) {
				/* (a wake inside a call is the call's: its waiter's block,
				 * inside the waiter's call, is gone too) */
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

/* The run time of [from, to) that is the thread's own, scaled: what lies in the probe's call
 * it is in is the call's (counted in call_cpu_ns, not played as a run). */
static uint64_t call_excluded(struct act_builder *b, uint64_t from, uint64_t to,
			      struct analyzer_thread_stats *st)
{
	uint64_t in = 0, lo, hi;

	if (b->call_to > b->call_from) {
		lo = from > b->call_from ? from : b->call_from;
		hi = to < b->call_to ? to : b->call_to;
		in = hi > lo ? hi - lo : 0;
		st->call_cpu_ns += in;
	}
	return (uint64_t)((double)(to - from - in) * b->run_scale + 0.5);
}

/*
 * rt's marks/segments already hold result indexes; create/wake/join args are set ids. run_sum:
 * the thread's run segments' total (to scale the runs to its CPU time).
 */
int analyzer__actions_build(struct act_builder *b, struct tl_source *src, uint64_t run_sum,
			    uint64_t min_block)
{
	const struct analyzer_thread *rt = src->rt;
	struct analyzer_thread_stats *st = (struct analyzer_thread_stats *)&rt->stats;
	const struct analyzer_result *res = b->res;
	const struct analyzer_segment *s;
	size_t mi = 0;
	uint64_t cur;

	if (st->busy_exact && run_sum) {
		/* A thread selected late (its name matched after exec) has CPU time from before
		 * its timeline: its runs are not stretched by that. What is left can be far from
		 * the segments' total: perf-recorded traces on this project's VMs miss switch-ins,
		 * and a pigz thread waking 2,000 times had 40 % of its 62 ms of CPU in segments
		 * (played as 25 ms, issue 30). Outside [0.25, 4] the segments are kept as they are:
		 * the accounting itself is then in doubt. */
		uint64_t untracked =
		    st->busy_untracked_ns < st->busy_ns ? st->busy_untracked_ns : st->busy_ns;

		b->run_scale = (double)(st->busy_ns - untracked) / (double)run_sum;
		if (b->run_scale > 4.0 || b->run_scale < 0.25) {
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
		uint64_t late = src_sleep_to_cpu(src, &sg);

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
				b->pending_run += call_excluded(b, cur, next, st);
				cur = next;
				if (next >= sg.end_ns) {
					break;
				}
				emit_point(b, src, &mi, next, true, st);
			}
			break;
		case ANALYZER_SEG_SLEEP:
		case ANALYZER_SEG_WAIT:
			block(b, &sg, late, rt, mi, min_block, st);
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
int analyzer__actions_build_of(struct act_builder *b, const struct analyzer_thread *rt,
			       uint64_t min_block)
{
	struct tl_source src = {.rt = rt};
	uint64_t run_sum = 0;

	for (size_t i = 0; i < rt->n_segs; i++) {
		if (rt->segs[i].kind == ANALYZER_SEG_RUN) {
			run_sum += rt->segs[i].end_ns - rt->segs[i].begin_ns;
		}
	}
	return analyzer__actions_build(b, &src, run_sum, min_block);
}

int analyzer__build_actions(struct analyzer_core *core, struct analyzer_result *res, size_t ri,
			    struct dps_actset *set, uint64_t min_block)
{
	struct act_builder b = {
	    .core = core, .res = res, .set = set, .t = ri, .run_scale = 1.0, .ci = SIZE_MAX};

	return analyzer__actions_build_of(&b, &res->threads[ri], min_block);
}
