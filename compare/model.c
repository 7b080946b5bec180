/* SPDX-License-Identifier: MIT */
/*
 * An action set played on an ideal machine: the timeline the set asks for when nothing
 * contends for a CPU. This is the "expected" side of a comparison when the user gives an
 * action set instead of a trace (doc/compare.md, "Action sets on an ideal machine").
 *
 * Each thread runs its actions in order on its own CPU. A thread that cannot proceed (join of
 * a live child, wait with no wake given yet) parks on the thread it depends on and is put
 * back on the work list when that thread ends or wakes it; since no thread's timing depends
 * on scheduling, the order in which ready threads are played does not change the result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "compare-internal.h"
#include "compare.h"
#include "grow.h"

enum play_state {
	PLAY_UNBORN = 0,
	PLAY_READY,
	PLAY_BLOCKED,
	PLAY_DONE,
};

struct play_thread {
	size_t pc;  /* next action */
	uint64_t t; /* the thread's clock, ns from the root's start */
	enum play_state state;
	int64_t heap, stack; /* current memory, bytes */
	size_t blocked_on;   /* thread index it waits for while PLAY_BLOCKED */
	size_t waiters;	     /* head of the list of threads parked on this one */
	size_t next_waiter;  /* link in the list it is parked in */
	bool reaped;	     /* a join any took it */
};

/* Wakes given by one thread to another and not consumed yet (times, FIFO). */
struct wake_queue {
	GArray *times; /* owned: uint64_t */
	size_t head;   /* the next one to consume */
};

struct play {
	const struct dps_actset *set;
	struct analyzer_result *res;
	struct play_thread *pt;
	size_t *work; /* stack of ready thread indexes */
	size_t n_work;
	GHashTable *wakes; /* (waker * n_threads + wakee) -> struct wake_queue */
	struct dps_diag *diag;
};

size_t compare_model_add_thread(struct analyzer_result *res, uint64_t id, const char *comm,
				size_t parent)
{
	struct analyzer_thread *threads, *th;
	size_t rank = 0;

	threads = dps_grow(res->threads, &res->cap_threads, res->n_threads + 1, sizeof(*threads));
	if (!threads) {
		return ANALYZER_NO_THREAD;
	}
	res->threads = threads;
	for (size_t i = 0; i < res->n_threads; i++) {
		rank += parent != ANALYZER_NO_THREAD && res->threads[i].parent == parent;
	}
	th = &res->threads[res->n_threads];
	*th = (struct analyzer_thread){
	    .id = id,
	    .tid = -1,
	    .pid = -1,
	    .parent = parent,
	    .create_rank = parent == ANALYZER_NO_THREAD ? 0 : rank,
	};
	th->comm = strdup(comm ? comm : "");
	if (!th->comm) {
		return ANALYZER_NO_THREAD;
	}
	if (parent == ANALYZER_NO_THREAD) {
		res->root = res->n_threads;
	}
	return res->n_threads++;
}

/* Appends a segment, extending the previous one when it continues it (run; heap; run). */
enum dps_status compare_model_add_segment(struct analyzer_thread *th, uint64_t begin, uint64_t end,
					  enum analyzer_seg_kind kind, uint32_t other)
{
	struct analyzer_segment *last, *segs;

	if (end <= begin) {
		return DPS_OK;
	}
	if (th->n_segs) {
		last = &th->segs[th->n_segs - 1];
		if (last->kind == (uint32_t)kind && last->other == other && last->end_ns == begin) {
			last->end_ns = end;
			return DPS_OK;
		}
	}
	segs = dps_grow(th->segs, &th->cap_segs, th->n_segs + 1, sizeof(*segs));
	if (!segs) {
		return DPS_ERR_NOMEM;
	}
	th->segs = segs;
	th->segs[th->n_segs++] = (struct analyzer_segment){
	    .begin_ns = begin,
	    .end_ns = end,
	    .kind = kind,
	    .other = other,
	};
	return DPS_OK;
}

enum dps_status compare_model_add_mark(struct analyzer_thread *th, uint64_t ts,
				       enum analyzer_mark_kind kind, uint32_t other)
{
	struct analyzer_mark *marks =
	    dps_grow(th->marks, &th->cap_marks, th->n_marks + 1, sizeof(*marks));

	if (!marks) {
		return DPS_ERR_NOMEM;
	}
	th->marks = marks;
	th->marks[th->n_marks++] =
	    (struct analyzer_mark){.ts_ns = ts, .kind = kind, .other = other};
	return DPS_OK;
}

enum dps_status compare_model_add_mem(struct analyzer_thread *th, uint64_t ts, int64_t heap,
				      int64_t stack)
{
	struct analyzer_mem_sample *mem =
	    dps_grow(th->mem, &th->cap_mem, th->n_mem + 1, sizeof(*mem));

	if (!mem) {
		return DPS_ERR_NOMEM;
	}
	th->mem = mem;
	th->mem[th->n_mem++] = (struct analyzer_mem_sample){
	    .ts_ns = ts,
	    .heap_bytes = heap,
	    .stack_bytes = stack,
	};
	return DPS_OK;
}

static void free_wake_queue(gpointer p)
{
	struct wake_queue *q = p;

	g_array_free(q->times, TRUE);
	g_free(q);
}

static struct wake_queue *get_wake_queue(struct play *pl, size_t waker, size_t wakee, bool create)
{
	guint64 key = (guint64)waker * pl->set->n_threads + wakee;
	struct wake_queue *q;
	guint64 *k;

	q = g_hash_table_lookup(pl->wakes, &key);
	if (q || !create) {
		return q;
	}
	q = g_new0(struct wake_queue, 1);
	q->times = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	k = g_new(guint64, 1);
	*k = key;
	g_hash_table_insert(pl->wakes, k, q);
	return q;
}

/* The keyword of an action (dps-action.h's one table). */
static const char *action_keyword(uint32_t kind)
{
	const char *kw = dps_action_kind_name(kind);

	return kw ? kw : "?";
}

static void push_ready(struct play *pl, size_t t)
{
	pl->pt[t].state = PLAY_READY;
	pl->work[pl->n_work++] = t;
}

/* Parks thread t on thread on: it is retried when `on` wakes someone or ends. */
static void park(struct play *pl, size_t t, size_t on)
{
	pl->pt[t].state = PLAY_BLOCKED;
	pl->pt[t].blocked_on = on;
	pl->pt[t].next_waiter = pl->pt[on].waiters;
	pl->pt[on].waiters = t;
}

/* Puts back on the work list every thread parked on `on` (they retry their action). */
static void release_waiters(struct play *pl, size_t on)
{
	size_t w = pl->pt[on].waiters;

	pl->pt[on].waiters = COMPARE_NO_THREAD;
	while (w != COMPARE_NO_THREAD) {
		size_t next = pl->pt[w].next_waiter;

		push_ready(pl, w);
		w = next;
	}
}

static int check_target(struct play *pl, size_t t, const struct dps_actset_action *a)
{
	const struct dps_actset_thread *st = &pl->set->threads[t];

	size_t o = dps_actset_target(pl->set, a);

	if (o >= pl->set->n_threads || o == t) {
		dps_diag_set(pl->diag, st->path ? st->path : "(set)", a->line, 0,
			     "%s names no other thread of the set (thread %llu)",
			     action_keyword(a->kind), (unsigned long long)a->id);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

/* Thread t blocked from its clock to e on thread o (segment kind), as a wait or a join. */
static int block_until(struct play *pl, size_t t, uint64_t e, enum analyzer_seg_kind kind, size_t o)
{
	struct play_thread *p = &pl->pt[t];
	struct analyzer_thread *th = &pl->res->threads[t];
	int ret = DPS_OK;

	if (e > p->t) {
		ret = compare_model_add_segment(th, p->t, e, kind, (uint32_t)o);
		th->stats.blocked_ns += e - p->t;
		th->stats.n_switches++;
		p->t = e;
	}
	return ret;
}

/* wait ID timeout D: the first wake of o if it comes by the deadline, else the deadline. */
static int play_timed_wait(struct play *pl, size_t t, const struct dps_actset_action *a, size_t o,
			   bool *parked)
{
	struct play_thread *p = &pl->pt[t];
	struct wake_queue *q = get_wake_queue(pl, o, t, false);
	uint64_t deadline = p->t + a->aux;

	if (q && q->head < q->times->len) {
		uint64_t d = g_array_index(q->times, uint64_t, q->head);

		if (d <= deadline) {
			q->head++;
			pl->res->threads[t].stats.n_waits++;
			return block_until(pl, t, d, ANALYZER_SEG_WAIT, o);
		}
	} else if (pl->pt[o].state != PLAY_DONE && pl->pt[o].t <= deadline) {
		/* o may still wake it in time */
		park(pl, t, o);
		*parked = true;
		return DPS_OK;
	}
	return block_until(pl, t, deadline, ANALYZER_SEG_SLEEP, o);
}

/* wait A|B: the earliest queued wake of a member; join any A|B: the member not taken yet that
 * ended first. Parks on a member still running when nothing is there yet. */
static int play_any(struct play *pl, size_t t, const struct dps_actset_action *a, bool *parked)
{
	bool join = a->kind == DPS_ACT_JOIN_ANY;
	size_t best = COMPARE_NO_THREAD, running = COMPARE_NO_THREAD;
	uint64_t best_t = UINT64_MAX;
	struct wake_queue *q;

	for (uint64_t i = 0; i < a->aux; i++) {
		size_t m = dps_actset_member_target(pl->set, a->first + i);
		uint64_t at;

		if (m >= pl->set->n_threads) {
			dps_diag_set(pl->diag, pl->set->threads[t].path, a->line, 0,
				     "a member names no thread of the set");
			return DPS_ERR_INVAL;
		}
		if (join ? pl->pt[m].reaped : false) {
			continue;
		}
		q = join ? NULL : get_wake_queue(pl, m, t, false);
		if (join ? pl->pt[m].state == PLAY_DONE : q && q->head < q->times->len) {
			at = join ? pl->res->threads[m].end_ns
				  : g_array_index(q->times, uint64_t, q->head);
			if (at < best_t) {
				best_t = at;
				best = m;
			}
		} else if (pl->pt[m].state != PLAY_DONE && running == COMPARE_NO_THREAD) {
			running = m;
		}
	}
	if (best == COMPARE_NO_THREAD && running != COMPARE_NO_THREAD) {
		park(pl, t, running);
		*parked = true;
		return DPS_OK;
	}
	if (best == COMPARE_NO_THREAD) {
		return DPS_OK; /* every member ended without a wake, or all were taken */
	}
	if (join) {
		pl->pt[best].reaped = true;
		pl->res->threads[t].stats.n_joins++;
		return block_until(pl, t, best_t, ANALYZER_SEG_JOIN, best);
	}
	get_wake_queue(pl, best, t, false)->head++;
	pl->res->threads[t].stats.n_waits++;
	return block_until(pl, t, best_t, ANALYZER_SEG_WAIT, best);
}

/* Plays one action of thread t. Sets *parked when the thread must wait (pc not advanced). */
static int play_action(struct play *pl, size_t t, const struct dps_actset_action *a, bool *parked)
{
	struct play_thread *p = &pl->pt[t];
	struct analyzer_thread *th = &pl->res->threads[t];
	struct wake_queue *q;
	size_t o = dps_actset_target(pl->set, a);
	uint64_t d = (uint64_t)a->value;
	int ret = DPS_OK;

	switch (a->kind) {
	case DPS_ACT_RUN:
		ret = compare_model_add_segment(th, p->t, p->t + d, ANALYZER_SEG_RUN, 0);
		p->t += d;
		th->stats.busy_ns += d;
		th->stats.n_runs++;
		break;
	case DPS_ACT_SLEEP:
		ret = compare_model_add_segment(th, p->t, p->t + d, ANALYZER_SEG_SLEEP, 0);
		p->t += d;
		th->stats.blocked_ns += d;
		th->stats.n_sleeps++;
		th->stats.n_switches += d > 0;
		break;
	case DPS_ACT_CREATE:
		ret = check_target(pl, t, a);
		if (ret) {
			break;
		}
		if (pl->pt[o].state != PLAY_UNBORN) {
			dps_diag_set(pl->diag, pl->set->threads[t].path, a->line, 0,
				     "thread %llu is created a second time",
				     (unsigned long long)pl->set->threads[o].id);
			ret = DPS_ERR_INVAL;
			break;
		}
		ret = compare_model_add_mark(th, p->t, ANALYZER_MARK_CREATE, (uint32_t)o);
		pl->pt[o].t = p->t;
		pl->res->threads[o].start_ns = p->t;
		th->stats.n_creates++;
		push_ready(pl, o);
		break;
	case DPS_ACT_JOIN:
		ret = check_target(pl, t, a);
		if (ret) {
			break;
		}
		if (pl->pt[o].state != PLAY_DONE) {
			park(pl, t, o);
			*parked = true;
			break;
		}
		if (pl->res->threads[o].end_ns > p->t) {
			uint64_t e = pl->res->threads[o].end_ns;

			ret =
			    compare_model_add_segment(th, p->t, e, ANALYZER_SEG_JOIN, (uint32_t)o);
			th->stats.blocked_ns += e - p->t;
			th->stats.n_switches++;
			p->t = e;
		}
		if (!ret) {
			ret = compare_model_add_mark(th, p->t, ANALYZER_MARK_JOIN, (uint32_t)o);
		}
		th->stats.n_joins++;
		break;
	case DPS_ACT_WAIT:
		ret = check_target(pl, t, a);
		if (ret) {
			break;
		}
		q = get_wake_queue(pl, o, t, false);
		if (!q || q->head == q->times->len) {
			park(pl, t, o);
			*parked = true;
			break;
		}
		d = g_array_index(q->times, uint64_t, q->head++);
		if (d > p->t) {
			ret =
			    compare_model_add_segment(th, p->t, d, ANALYZER_SEG_WAIT, (uint32_t)o);
			th->stats.blocked_ns += d - p->t;
			th->stats.n_switches++;
			p->t = d;
		}
		th->stats.n_waits++;
		break;
	case DPS_ACT_WAKE:
		ret = check_target(pl, t, a);
		if (ret) {
			break;
		}
		q = get_wake_queue(pl, t, o, true);
		g_array_append_val(q->times, p->t);
		ret = compare_model_add_mark(th, p->t, ANALYZER_MARK_WAKE, (uint32_t)o);
		th->stats.n_wakes++;
		if (pl->pt[o].state == PLAY_BLOCKED && pl->pt[o].blocked_on == t) {
			/* Only o can be parked waiting on t's wake, but also joiners of t are
			 * listed here: retrying them is harmless, they park again. */
			release_waiters(pl, t);
		}
		break;
	case DPS_ACT_WAIT_TIMEOUT:
		ret = check_target(pl, t, a);
		if (!ret) {
			ret = play_timed_wait(pl, t, a, o, parked);
		}
		break;
	case DPS_ACT_WAIT_ANY:
	case DPS_ACT_JOIN_ANY:
		ret = play_any(pl, t, a, parked);
		break;
	case DPS_ACT_LOCK:
	case DPS_ACT_RDLOCK:
	case DPS_ACT_UNLOCK:
	case DPS_ACT_PUT:
	case DPS_ACT_TAKE:
	case DPS_ACT_ARRIVE:
		/* The set's model is the recording's timeline: an object costs no time of its
		 * own here (its blocks are the player's, seen in a trace of the stub). */
		break;
	case DPS_ACT_HEAP:
		p->heap += a->value;
		ret = compare_model_add_mem(th, p->t, p->heap, p->stack);
		break;
	case DPS_ACT_STACK:
		p->stack += a->value;
		ret = compare_model_add_mem(th, p->t, p->heap, p->stack);
		break;
	default:
		dps_diag_set(pl->diag, pl->set->threads[t].path, a->line, 0,
			     "unknown action kind %u", a->kind);
		ret = DPS_ERR_INVAL;
		break;
	}
	return ret;
}

/* Plays thread t until it parks or ends. */
static int play_thread_run(struct play *pl, size_t t)
{
	const struct dps_actset_thread *st = &pl->set->threads[t];
	struct play_thread *p = &pl->pt[t];
	struct analyzer_thread *th = &pl->res->threads[t];
	int ret = DPS_OK;

	while (p->pc < st->n_actions) {
		bool parked = false;

		ret = play_action(pl, t, &st->actions[p->pc], &parked);
		if (ret || parked) {
			goto end;
		}
		p->pc++;
	}
	p->state = PLAY_DONE;
	th->end_ns = p->t;
	ret = compare_model_add_mark(th, p->t, ANALYZER_MARK_EXIT, 0);
	release_waiters(pl, t);
end:
	return ret;
}

static int copy_thread_meta(const struct dps_actset *set, struct analyzer_result *res)
{
	for (size_t i = 0; i < set->n_threads; i++) {
		const struct dps_actset_thread *st = &set->threads[i];
		struct analyzer_thread *th = &res->threads[i];

		th->id = st->id;
		th->tid = st->tid;
		th->pid = st->pid;
		th->parent = st->parent == DPS_ACTSET_NO_THREAD ? ANALYZER_NO_THREAD : st->parent;
		th->create_rank = st->create_rank;
		th->pre_existing = st->pre_existing;
		/* Without a recorded name, the name the runtime gives the thread (dps.h). */
		if (st->comm) {
			th->comm = strdup(st->comm);
		} else if (asprintf(&th->comm, "dps-%llu", (unsigned long long)st->id) < 0) {
			th->comm = NULL;
		}
		if (!th->comm) {
			return DPS_ERR_NOMEM;
		}
	}
	return DPS_OK;
}

/* Names the first thread left blocked, for the deadlock diagnostic. */
static void describe_deadlock(struct play *pl)
{
	const struct dps_actset *set = pl->set;

	for (size_t i = 0; i < set->n_threads; i++) {
		const struct dps_actset_thread *st = &set->threads[i];
		const struct dps_actset_action *a;

		if (pl->pt[i].state != PLAY_BLOCKED) {
			continue;
		}
		a = &st->actions[pl->pt[i].pc];
		dps_diag_set(pl->diag, st->path ? st->path : "(set)", a->line, 0,
			     "the set deadlocks: thread %llu blocks forever in '%s %llu'",
			     (unsigned long long)st->id, action_keyword(a->kind),
			     (unsigned long long)set->threads[pl->pt[i].blocked_on].id);
		return;
	}
	dps_diag_setf(pl->diag, "the set deadlocks: some threads are never created");
}

enum dps_status compare_model_from_actset(const struct dps_actset *set,
					  struct analyzer_result **out, struct dps_diag *diag)
{
	struct play pl = {.set = set, .diag = diag};
	struct analyzer_result *res = NULL;
	size_t n;
	int ret = DPS_OK;

	*out = NULL;
	if (!set || !set->resolved || !set->n_threads || set->root >= set->n_threads) {
		dps_diag_setf(diag, "the action set is empty or not resolved (no root thread)");
		ret = DPS_ERR_INVAL;
		goto end;
	}
	n = set->n_threads;
	res = analyzer_result_create();
	pl.pt = calloc(n, sizeof(*pl.pt));
	pl.work = malloc(n * sizeof(*pl.work));
	pl.wakes = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, free_wake_queue);
	if (!res || !pl.pt || !pl.work || !pl.wakes) {
		ret = DPS_ERR_NOMEM;
		goto error;
	}
	res->threads = calloc(n, sizeof(*res->threads));
	if (!res->threads) {
		ret = DPS_ERR_NOMEM;
		goto error;
	}
	res->n_threads = res->cap_threads = n;
	res->root = set->root;
	pl.res = res;
	ret = copy_thread_meta(set, res);
	if (ret) {
		goto error;
	}
	if (set->dir) {
		res->source = strdup(set->dir);
		if (!res->source) {
			ret = DPS_ERR_NOMEM;
			goto error;
		}
	}
	res->partial = set->partial;
	if (set->partial_reason) {
		res->partial_reason = strdup(set->partial_reason);
		if (!res->partial_reason) {
			ret = DPS_ERR_NOMEM;
			goto error;
		}
	}
	for (size_t i = 0; i < n; i++) {
		pl.pt[i].waiters = COMPARE_NO_THREAD;
		pl.pt[i].next_waiter = COMPARE_NO_THREAD;
	}
	/* Every thread is pushed at most once per release, and a parked thread is in exactly
	 * one waiter list, so the work stack never holds more than n entries. */
	push_ready(&pl, set->root);
	while (pl.n_work) {
		ret = play_thread_run(&pl, pl.work[--pl.n_work]);
		if (ret) {
			goto error;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (pl.pt[i].state != PLAY_DONE) {
			describe_deadlock(&pl);
			ret = DPS_ERR_INVAL;
			goto error;
		}
		if (res->threads[i].end_ns > res->end_ns) {
			res->end_ns = res->threads[i].end_ns;
		}
	}
	goto end;
error:
	analyzer_result_destroy(res);
	res = NULL;
end:
	if (pl.wakes) {
		g_hash_table_destroy(pl.wakes);
	}
	free(pl.pt);
	free(pl.work);
	*out = res;
	return ret;
}
