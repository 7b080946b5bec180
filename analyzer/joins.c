/* SPDX-License-Identifier: MIT */
/*
 * Join insertion: a thread that ended is joined by its creator. A recorded join (a wake-up
 * from the exiting thread that ended its creator's block) is kept where it happened; a thread
 * nobody joined gets an implicit join in its creator after the creator's last recorded action
 * before the thread's end, so that every created thread is joined exactly once and a replay
 * ends the way the recording did. The implicit joins are found at the end and put into each
 * creator's segments when its timeline is read back for its actions (readback.c).
 *
 * Waits for any child (make's wait4(-1), wait(), waitpid(-1)): a recorded join whose block was
 * inside a wait4/waitid for any child (the events dps record adds), or that such a wait
 * followed before the thread blocked again (make waits in pselect until a SIGCHLD, then reaps
 * with waitpid(-1, WNOHANG)), is one of a `join any` over the child processes alive when the
 * block began. The player's `join any` takes whichever member ends first in the replay, so one
 * set is written once per member (the validator's rule, doc/action-format.md): the sets of a
 * creator that share a child are merged, and every join of a member (recorded or implicit)
 * becomes that set's `join any`. A member must be joined exactly once by its creator, else it
 * is left out and keeps its plain join.
 *
 * Between the scheduler and the selection: sched.c and dps-events.c tell it of blocks, waits
 * and joins; it may call the selection (select.c), the thread table (threads.c) and the spill
 * store (spill.c) only (scripts/check-tree.sh checks it).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

/* Inserts zero-length JOIN segments (a join that did not block: the child had ended) at the
 * given instants, splitting a run that spans one. */
static int insert_joins(struct athread *p, const struct analyzer_join_ins *ins, size_t n_ins)
{
	struct analyzer_segment *out;
	size_t n_out = 0, j = 0;

	out = malloc((p->tl.n_segs + 2 * n_ins + 1) * sizeof(*out));
	if (!out) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < p->tl.n_segs; i++) {
		struct analyzer_segment s = p->tl.segs[i];

		while (j < n_ins && ins[j].ts <= s.begin_ns) {
			out[n_out++] = (struct analyzer_segment){
			    ins[j].ts < s.begin_ns ? s.begin_ns : ins[j].ts, 0, ANALYZER_SEG_JOIN,
			    (uint32_t)ins[j].child};
			out[n_out - 1].end_ns = out[n_out - 1].begin_ns;
			j++;
		}
		while (j < n_ins && s.kind == ANALYZER_SEG_RUN && ins[j].ts < s.end_ns) {
			struct analyzer_segment head = s;

			head.end_ns = ins[j].ts;
			if (head.end_ns > head.begin_ns) {
				out[n_out++] = head;
			}
			out[n_out++] = (struct analyzer_segment){
			    ins[j].ts, ins[j].ts, ANALYZER_SEG_JOIN, (uint32_t)ins[j].child};
			s.begin_ns = ins[j].ts;
			j++;
		}
		out[n_out++] = s;
	}
	for (; j < n_ins; j++) {
		uint64_t ts = p->tl.n_segs ? p->tl.segs[p->tl.n_segs - 1].end_ns : ins[j].ts;

		if (ins[j].ts > ts) {
			ts = ins[j].ts;
		}
		out[n_out++] =
		    (struct analyzer_segment){ts, ts, ANALYZER_SEG_JOIN, (uint32_t)ins[j].child};
	}
	free(p->tl.segs);
	p->tl.segs = out;
	p->tl.n_segs = n_out;
	p->tl.cap_segs = p->tl.n_segs + 2 * n_ins + 1;
	return DPS_OK;
}

static int cmp_join_parent(const void *a, const void *b, void *arg)
{
	const struct analyzer_core *core = arg;
	const struct analyzer_join_ins *x = a, *y = b;
	size_t px = core->th[x->child]->creator, py = core->th[y->child]->creator;

	if (px != py) {
		return px < py ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->child < y->child ? -1 : x->child > y->child;
}

/* A child that exited and was never joined while its creator lived on is joined by the
 * creator at the child's exit: the replay must not let the creator end first. */
int analyzer__add_implicit_joins(struct analyzer_core *core)
{
	struct analyzer_join_ins *all = NULL;
	size_t n = 0;
	int status = DPS_ERR_NOMEM;

	all = malloc((core->n_th ? core->n_th : 1) * sizeof(*all));
	if (!all) {
		goto end;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *c = analyzer__thread_at(core, i);
		struct athread *p;

		if (!c->kept || !c->exited || c->joined || !analyzer__is_kept_creator(core, c) ||
		    !c->created) {
			continue;
		}
		p = analyzer__thread_at(core, c->creator);
		if (analyzer__thread_end(core, p) < c->exit_ts ||
		    (p->exited && p->exit_ts < c->exit_ts)) {
			continue;
		}
		all[n++] = (struct analyzer_join_ins){c->exit_ts, i};
	}
	qsort_r(all, n, sizeof(*all), cmp_join_parent, core);
	for (size_t k = 0; k < n; k++) {
		size_t parent = analyzer__thread_at(core, all[k].child)->creator;

		analyzer__thread_at(core, all[k].child)->joined = true;
		analyzer__add_mark(core, analyzer__thread_at(core, parent), all[k].ts,
				   ANALYZER_MARK_JOIN, all[k].child);
	}
	free(core->joins);
	core->joins = all;
	core->n_joins = n;
	return core->status;
end:
	free(all);
	return status;
}

/* The implicit joins of one creator into its segments (analyzer__prepare_timeline: its
 * timeline is whole in memory then). */
const struct analyzer_join_ins *analyzer__joins_of(struct analyzer_core *core, size_t parent,
						   size_t *n)
{
	size_t lo = 0, hi = core->n_joins, j;

	/* the first join of this parent (the list is sorted by creator, then time) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (analyzer__thread_at(core, core->joins[mid].child)->creator < parent) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (j = lo; j < core->n_joins &&
		     analyzer__thread_at(core, core->joins[j].child)->creator == parent;
	     j++) {
	}
	*n = j - lo;
	return j == lo ? NULL : &core->joins[lo];
}

int analyzer__insert_joins(struct analyzer_core *core, size_t parent)
{
	size_t n;
	const struct analyzer_join_ins *ins = analyzer__joins_of(core, parent, &n);

	return n ? insert_joins(analyzer__thread_at(core, parent), ins, n) : DPS_OK;
}

/* Whether c is a child process of p (what a wait4 reaps; not a thread): pids known, different. */
static bool child_process(const struct athread *p, const struct athread *c)
{
	return p->pid >= 0 && c->pid >= 0 && p->pid != c->pid;
}

void analyzer__join_note_child(struct analyzer_core *core, size_t p, size_t c)
{
	struct athread *pt = analyzer__thread_at(core, p);

	if (!pt->join.children) {
		pt->join.children = g_array_new(FALSE, FALSE, sizeof(size_t));
	}
	g_array_append_val(pt->join.children, c);
}

/* p's pending join (its last block ended by a child's exit outside any wait call) is `how`. */
static void settle(struct analyzer_core *core, struct athread *pt, uint8_t how)
{
	if (pt->join.pending != NO_T) {
		analyzer__thread_at(core, pt->join.pending)->join.how = how;
		pt->join.pending = NO_T;
	}
}

void analyzer__join_wait_call(struct analyzer_core *core, size_t p, uint8_t call)
{
	struct athread *pt = analyzer__thread_at(core, p);

	pt->join.call = call;
	if (call != JOIN_CALL_NONE) {
		/* the wait that reaps the child whose exit ended the last block */
		settle(core, pt, call == JOIN_CALL_ANY ? JOIN_HOW_ANY : JOIN_HOW_ONE);
	}
}

void analyzer__join_block(struct analyzer_core *core, size_t p)
{
	settle(core, analyzer__thread_at(core, p), JOIN_HOW_ONE);
}

static void forget_child(struct athread *pt, size_t c)
{
	GArray *kids = pt->join.children;

	for (guint k = 0; kids && k < kids->len; k++) {
		if (g_array_index(kids, size_t, k) == c) {
			g_array_remove_index_fast(kids, k);
			return;
		}
	}
}

void analyzer__join_recorded(struct analyzer_core *core, size_t p, size_t c, uint64_t block_start,
			     bool waited)
{
	struct athread *pt = analyzer__thread_at(core, p);
	struct athread *ct = analyzer__thread_at(core, c);
	GArray *kids = pt->join.children;
	size_t first;
	guint k = 0;

	settle(core, pt, JOIN_HOW_ONE); /* an older one whose wait never came */
	ct->join.n_recorded++;
	if (!waited || ct->join.n_recorded > 1 || pt->join.call == JOIN_CALL_ONE ||
	    !child_process(pt, ct)) {
		ct->join.how = JOIN_HOW_ONE;
		forget_child(pt, c);
		return;
	}
	/* the set: c, and p's other child processes alive when the block began */
	if (!core->join_sets) {
		core->join_sets = g_array_new(FALSE, FALSE, sizeof(size_t));
	}
	first = core->join_sets->len;
	g_array_append_val(core->join_sets, c);
	while (kids && k < kids->len) {
		size_t m = g_array_index(kids, size_t, k);
		struct athread *mt = analyzer__thread_at(core, m);

		/* joined, gone before this block (so before any later one), or a thread */
		if (mt->joined || (mt->exited && mt->exit_ts < block_start) ||
		    (mt->pid >= 0 && mt->pid == pt->pid)) {
			g_array_remove_index_fast(kids, k);
			continue;
		}
		if (mt->create_ts <= block_start && child_process(pt, mt)) {
			g_array_append_val(core->join_sets, m);
		}
		k++;
	}
	ct->join.set_first = first;
	ct->join.set_n = core->join_sets->len - first;
	if (pt->join.call == JOIN_CALL_ANY) {
		ct->join.how = JOIN_HOW_ANY;
	} else {
		ct->join.how = JOIN_HOW_PENDING;
		pt->join.pending = c;
	}
}

/* Whether m can be a member of the join any that c's join is one of: a kept child process of
 * the same kept creator (not a simulated run's thread, whose segments are cut to its window),
 * joined by it exactly once, in a wait for any child or implicitly. */
static bool any_member(const struct analyzer_core *core, const struct athread *c,
		       const struct athread *m)
{
	const struct athread *p;

	if (c->creator == NO_T || m->creator != c->creator || !m->kept || !m->res_idx ||
	    !m->created || !m->joined) {
		return false;
	}
	p = core->th[c->creator];
	if (!p->kept || p->sim.begun) {
		return false;
	}
	return (m->join.how == JOIN_HOW_ANY && m->join.n_recorded == 1) ||
	       (m->join.how == JOIN_HOW_NONE && !m->join.n_recorded);
}

static size_t uf_find(size_t *up, size_t i)
{
	while (up[i] != i) {
		up[i] = up[up[i]];
		i = up[i];
	}
	return i;
}

int analyzer__join_any_declare(struct analyzer_core *core, const size_t *order, size_t n,
			       struct dps_actset *set)
{
	size_t *up = NULL, *size = NULL, *at = NULL;
	uint64_t *ids = NULL;
	bool any = false;
	int status = DPS_ERR_NOMEM;

	free(core->join_any);
	core->join_any = NULL;
	for (size_t i = 0; i < n && !any; i++) {
		any = analyzer__thread_at(core, order[i])->join.how == JOIN_HOW_ANY;
	}
	if (!any || !set) {
		return DPS_OK;
	}
	up = malloc(n * sizeof(*up));
	size = calloc(n, sizeof(*size));
	at = malloc(n * sizeof(*at));
	ids = malloc(n * sizeof(*ids));
	core->join_any = calloc(n, sizeof(*core->join_any));
	if (!up || !size || !at || !ids || !core->join_any) {
		goto free_arrays;
	}
	for (size_t i = 0; i < n; i++) {
		up[i] = i;
	}
	/* a creator's sets that share a member are one */
	for (size_t i = 0; i < n; i++) {
		const struct athread *c = analyzer__thread_at(core, order[i]);

		if (c->join.how != JOIN_HOW_ANY || !any_member(core, c, c)) {
			continue;
		}
		for (size_t k = 0; k < c->join.set_n; k++) {
			size_t mi = g_array_index(core->join_sets, size_t, c->join.set_first + k);
			const struct athread *m = analyzer__thread_at(core, mi);

			if (any_member(core, c, m)) {
				up[uf_find(up, m->res_idx)] = uf_find(up, i);
			}
		}
	}
	/* each set of two or more: its members in result order, into set->members */
	for (size_t i = 0; i < n; i++) {
		up[i] = uf_find(up, i); /* from here on, up[i] is i's root */
		size[up[i]]++;
	}
	for (size_t i = 0, next = 0; i < n; i++) {
		if (up[i] == i) {
			at[i] = next;
			next += size[i];
		}
	}
	for (size_t i = 0; i < n; i++) {
		size_t r = up[i];

		ids[at[r]++] = set->threads[i].id;
	}
	for (size_t i = 0; i < n; i++) {
		size_t r = up[i], first;

		if (size[r] < 2) {
			continue;
		}
		if (r == i) {
			first = dps_actset_add_members(set, ids + at[r] - size[r], size[r]);
			if (first == SIZE_MAX) {
				goto free_arrays;
			}
			core->join_any[r].first = first;
			core->join_any[r].n = size[r];
		}
	}
	for (size_t i = 0; i < n; i++) {
		core->join_any[i] = core->join_any[up[i]];
	}
	status = DPS_OK;
free_arrays:
	free(up);
	free(size);
	free(at);
	free(ids);
	if (status) {
		free(core->join_any);
		core->join_any = NULL;
	}
	return status;
}

const struct analyzer_join_any *analyzer__join_any_of(const struct analyzer_core *core, size_t ri)
{
	return core->join_any && core->join_any[ri].n >= 2 ? &core->join_any[ri] : NULL;
}