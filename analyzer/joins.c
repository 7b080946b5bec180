/* SPDX-License-Identifier: MIT */
/*
 * Join insertion: a thread that ended is joined by its creator. A recorded join (a wake-up
 * from the exiting thread that ended its creator's block) is kept where it happened; a thread
 * nobody joined gets an implicit join in its creator after the creator's last recorded action
 * before the thread's end, so that every created thread is joined exactly once and a replay
 * ends the way the recording did. The implicit joins are found at the end and put into each
 * creator's segments when its timeline is read back for its actions (spill.c).
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
