/* SPDX-License-Identifier: MIT */
/*
 * The thread table: one light struct athread per thread of the trace, found by tid through a
 * flat map (tids below TID_MAP_MAX: one load per event, analyzer__find_thread in
 * core-internal.h) or a hash table, a new generation when a tid is reused, and the detailed
 * timeline (segments, marks) that the tracked threads append to. Nothing here grows with the
 * number of events, only with threads and the tracked threads' timelines.
 *
 * Below the concerns that fill it: it holds threads and decides nothing about them. Whether a
 * thread is tracked (select.c), what state it is in (sched.c), who joins it (joins.c) is for
 * the callers. It may call only the spill store (spill.c: a timeline past the spill limit goes
 * to the file, a freed thread's spilled records are forgotten); scripts/check-tree.sh checks it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

/*
 * Small growable arrays: the timelines'. Left hand-written on purpose while the rest of the
 * tools grow arrays with GLib (common/grow.h, GArray, GPtrArray): the timelines grow 1.5x once
 * long because their slack is most of the memory of an analysis that keeps them whole (compare;
 * dps analyze spills them, spill.c). New code should not copy it: use common/grow.h or a
 * GArray.
 */
bool analyzer__grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap) {
		return true;
	}
	/* Doubling while small; 1.5x for the long timelines, whose slack is most of the
	 * analyzer's memory. */
	ncap = *cap ? (*cap < 4096 ? *cap * 2 : *cap + *cap / 2) : 16;
	while (ncap < need) {
		ncap += ncap / 2;
	}
	p = realloc(*arr, ncap * elem);
	if (!p) {
		return false;
	}
	*arr = p;
	*cap = ncap;
	return true;
}

void analyzer__set_nomem(struct analyzer_core *core)
{
	core->status = DPS_ERR_NOMEM;
}

size_t analyzer__add_seg(struct analyzer_core *core, struct athread *t, uint64_t b, uint64_t e,
			 uint32_t kind, size_t other)
{
	struct analyzer_segment *s;

	if (!analyzer__grow((void **)&t->tl.segs, &t->tl.cap_segs, t->tl.n_segs + 1,
			    sizeof(*t->tl.segs))) {
		analyzer__set_nomem(core);
		return NO_T;
	}
	/* Merge with the previous one of the same kind when they touch (a preempted thread
	 * that is preempted again, a run split by an inferred event). */
	if (t->tl.n_segs && (kind == ANALYZER_SEG_RUN || kind == ANALYZER_SEG_PREEMPTED)) {
		s = &t->tl.segs[t->tl.n_segs - 1];
		if (s->kind == kind && s->end_ns == b) {
			s->end_ns = e;
			return t->tl.segs_spilled + t->tl.n_segs - 1;
		}
	}
	s = &t->tl.segs[t->tl.n_segs++];
	s->begin_ns = b;
	s->end_ns = e;
	s->kind = kind;
	s->other = other == NO_T ? 0 : (uint32_t)other;
	if (core->spill_on && t->tl.n_segs >= core->spill_at) {
		analyzer__spill_segs(core, t);
	}
	/* counted from the timeline's first segment, spilled ones included */
	return t->tl.segs_spilled + t->tl.n_segs - 1;
}

/* Appends a mark; a late one (dps create events, joins found at the end) marks the array for
 * one stable sort at the end rather than an insertion each time. */
size_t analyzer__add_mark(struct analyzer_core *core, struct athread *t, uint64_t ts, uint32_t kind,
			  size_t other)
{
	if (!analyzer__grow((void **)&t->tl.marks, &t->tl.cap_marks, t->tl.n_marks + 1,
			    sizeof(*t->tl.marks))) {
		analyzer__set_nomem(core);
		return NO_T;
	}
	if (t->tl.n_marks && t->tl.marks[t->tl.n_marks - 1].ts_ns > ts) {
		t->tl.marks_unsorted = true;
	}
	t->tl.marks[t->tl.n_marks++] = (struct analyzer_mark){
	    .ts_ns = ts, .kind = kind, .other = other == NO_T ? 0 : (uint32_t)other};
	if (core->spill_on && t->tl.n_marks >= core->spill_at) {
		analyzer__spill_marks(core, t);
	}
	/* counted from the timeline's first mark, spilled ones included */
	return t->tl.marks_spilled + t->tl.n_marks - 1;
}

gint analyzer__cmp_mark(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct analyzer_mark *x = a, *y = b;

	(void)data;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/*
 * Threads
 */
struct athread *analyzer__thread_at(struct analyzer_core *core, size_t i)
{
	return core->th[i];
}

size_t analyzer__new_thread(struct analyzer_core *core, int64_t tid, uint64_t ts, uint32_t gen)
{
	struct athread *t;
	size_t idx;

	if (!analyzer__grow((void **)&core->th, &core->cap_th, core->n_th + 1, sizeof(*core->th))) {
		analyzer__set_nomem(core);
		return NO_T;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		analyzer__set_nomem(core);
		return NO_T;
	}
	t->tid = tid;
	t->pid = -1;
	t->ppid = -1;
	t->gen = gen;
	t->sched.cpu = -1;
	t->first_ts = ts;
	t->last_ts = ts;
	t->sched.since = ts;
	t->creator = NO_T;
	t->sched.block_waker = NO_T;
	t->sched.block_seg = NO_T;
	t->sched.wake_target = NO_T;
	t->sched.wake_mark = NO_T;
	t->sim.join_of = NO_T;
	t->join.pending = NO_T;
	idx = core->n_th++;
	core->th[idx] = t;
	if (tid >= 0 && tid < TID_MAP_MAX && idx < UINT32_MAX) {
		if ((size_t)tid >= core->n_tid_map) {
			size_t n = core->n_tid_map ? core->n_tid_map : 4096;
			uint32_t *m;

			while (n <= (size_t)tid) {
				n *= 2;
			}
			m = realloc(core->tid_map, n * sizeof(*m));
			if (!m) {
				analyzer__set_nomem(core);
				return idx;
			}
			memset(m + core->n_tid_map, 0, (n - core->n_tid_map) * sizeof(*m));
			core->tid_map = m;
			core->n_tid_map = n;
		}
		core->tid_map[tid] = (uint32_t)(idx + 1);
	} else {
		g_hash_table_insert(core->by_tid, GINT_TO_POINTER((gint)tid),
				    GSIZE_TO_POINTER(idx + 1));
	}
	return idx;
}

void analyzer__free_athread(struct athread *t)
{
	if (!t) {
		return;
	}
	free(t->tl.segs);
	free(t->tl.marks);
	free(t->tl.mem);
	analyzer__drop_spill(t);
	if (t->join.children) {
		g_array_free(t->join.children, TRUE);
	}
	free(t);
}

uint64_t analyzer__thread_cpu_ns(const struct athread *t)
{
	return t->sched.has_runtime ? t->sched.runtime_ns : t->sched.cpu_ns;
}

uint64_t analyzer__thread_end(const struct analyzer_core *core, const struct athread *t)
{
	if (t->exited) {
		return t->end_ts > t->exit_ts ? t->end_ts : t->exit_ts;
	}
	return core->has_sched ? core->end_ts : t->last_ts;
}
