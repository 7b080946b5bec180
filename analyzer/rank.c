/* SPDX-License-Identifier: MIT */
/*
 * Which thread to study (doc/analyzer.md, "Which thread to study"): the threads ranked by what
 * a faster thread can change in the whole program. Two figures from the recorded timelines:
 *
 *   critical_ns   the thread's time on the recorded critical path. The path is walked back
 *                 from the end of the thread that ended last: the time a thread ran, was
 *                 preempted or slept on its own (a timer, I/O, an untraced waker) is its own;
 *                 at the end of a wait or join on another kept thread the walk goes on in that
 *                 thread (the one that woke it) from that instant, and at a thread's creation
 *                 in its creator. Making a thread off the path faster cannot shorten the
 *                 recorded run; making one on it faster can, by up to its share (until another
 *                 path takes over, which dps whatif measures).
 *   waited_on_ns  the time the other kept threads were blocked in waits and joins that this
 *                 thread ended.
 *
 * The walk needs only each thread's hand-offs (its waits and joins on kept threads, in time
 * order), which analyzer__output collects while it streams the timelines, so that it stays
 * within the analyzer's memory bound.
 */
#include <inttypes.h>
#include <stdlib.h>

#include <glib.h>

#include "analyzer.h"
#include "core-internal.h"
#include "text-out.h"

void analyzer__handoff_add(GArray *handoffs, const struct analyzer_segment *s, size_t n_threads)
{
	if ((s->kind == ANALYZER_SEG_WAIT || s->kind == ANALYZER_SEG_JOIN) &&
	    s->other < n_threads && s->end_ns > s->begin_ns) {
		g_array_append_val(handoffs, *s);
	}
}

/* The last hand-off of h that began before t, or -1. */
static ptrdiff_t last_before(const GArray *h, uint64_t t)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)h->len; /* the answer is below hi */

	while (lo < hi) {
		ptrdiff_t mid = lo + (hi - lo) / 2;

		if (g_array_index(h, struct analyzer_segment, mid).begin_ns < t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo - 1;
}

static gint by_begin(gconstpointer a, gconstpointer b)
{
	const struct analyzer_segment *x = a, *y = b;

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

void analyzer__rank(struct analyzer_result *res, GArray *const *handoffs)
{
	size_t n = res->n_threads, cur = ANALYZER_NO_THREAD, stalls = 0;
	uint64_t t = 0, origin = UINT64_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct analyzer_thread *th = &res->threads[i];
		const GArray *h = handoffs[i];

		res->threads[i].stats.critical_ns = 0;
		if (h) {
			g_array_sort(handoffs[i],
				     by_begin); /* the joins' come after the segments' */
		}
		for (size_t k = 0; h && k < h->len; k++) {
			const struct analyzer_segment *s =
			    &g_array_index(h, struct analyzer_segment, k);

			if (s->end_ns - s->begin_ns > 1) { /* a join's mark blocked no time */
				res->threads[s->other].stats.waited_on_ns +=
				    s->end_ns - s->begin_ns;
			}
		}
		if (th->start_ns < origin) {
			origin = th->start_ns;
		}
		if (cur == ANALYZER_NO_THREAD || th->end_ns > t) {
			cur = i;
			t = th->end_ns;
		}
	}
	/* Each step consumes time, or hands over at the same instant; a ring of hand-offs at
	 * one instant (clock granularity) is cut after n of them by taking the wait as the
	 * thread's own. */
	while (cur != ANALYZER_NO_THREAD && t > origin) {
		struct analyzer_thread *th = &res->threads[cur];
		const GArray *h = handoffs[cur];
		ptrdiff_t k = h ? last_before(h, t) : -1;
		const struct analyzer_segment *s =
		    k >= 0 ? &g_array_index(h, struct analyzer_segment, k) : NULL;
		uint64_t from;

		if (s && s->end_ns < th->start_ns) {
			s = NULL; /* a hand-off before the thread's recorded start: none */
		}
		if (!s) {
			from = th->start_ns > origin && th->start_ns < t ? th->start_ns : origin;
			th->stats.critical_ns += t - from;
			t = from;
			cur = th->parent;
			stalls = 0;
			continue;
		}
		if (s->end_ns < t) {
			th->stats.critical_ns += t - s->end_ns;
			t = s->end_ns;
			stalls = 0;
		}
		if (++stalls > n) {
			from = s->begin_ns > origin ? s->begin_ns : origin;
			th->stats.critical_ns += t - from;
			t = from;
			stalls = 0;
			continue;
		}
		if (res->threads[s->other].end_ns < t) {
			/* it ended before: the time since was this thread's, not its */
			from = res->threads[s->other].end_ns > origin
				   ? res->threads[s->other].end_ns
				   : origin;
			th->stats.critical_ns += t - from;
			t = from;
			stalls = 0;
		}
		cur = s->other;
	}
}

/* Critical path first, then CPU, then the id. */
static int by_rank(const void *a, const void *b, void *data)
{
	const struct analyzer_result *res = data;
	const struct analyzer_thread *x = &res->threads[*(const size_t *)a];
	const struct analyzer_thread *y = &res->threads[*(const size_t *)b];

	if (x->stats.critical_ns != y->stats.critical_ns) {
		return x->stats.critical_ns > y->stats.critical_ns ? -1 : 1;
	}
	if (x->stats.busy_ns != y->stats.busy_ns) {
		return x->stats.busy_ns > y->stats.busy_ns ? -1 : 1;
	}
	return x->id < y->id ? -1 : x->id > y->id;
}

size_t *analyzer_rank_order(const struct analyzer_result *res)
{
	size_t *order = g_new(size_t, res->n_threads ? res->n_threads : 1);

	for (size_t i = 0; i < res->n_threads; i++) {
		order[i] = i;
	}
	g_qsort_with_data(order, (gint)res->n_threads, sizeof(*order), by_rank, (void *)res);
	return order;
}

uint64_t analyzer_rank_span(const struct analyzer_result *res)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < res->n_threads; i++) {
		sum += res->threads[i].stats.critical_ns;
	}
	return sum;
}

void analyzer_rank_print(const struct analyzer_result *res, size_t limit, FILE *out)
{
	size_t *order = analyzer_rank_order(res);
	uint64_t span = analyzer_rank_span(res);
	char comm[64];

	fprintf(out, "%-12s %-8s %-16s %14s %7s %10s %16s\n", "id", "tid", "comm", "critical_ms",
		"share", "busy_ms", "others_waited_ms");
	for (size_t k = 0; k < res->n_threads && k < limit; k++) {
		const struct analyzer_thread *th = &res->threads[order[k]];

		dps_text_sanitize(th->comm ? th->comm : "", comm, sizeof(comm));
		fprintf(out, "%-12" PRIu64 " %-8" PRId64 " %-16.16s %14.3f %6.1f%% %10.3f %16.3f\n",
			th->id, th->tid, comm, th->stats.critical_ns / 1e6,
			span ? 100.0 * (double)th->stats.critical_ns / (double)span : 0.0,
			th->stats.busy_ns / 1e6, th->stats.waited_on_ns / 1e6);
	}
	if (res->n_threads > limit) {
		fprintf(out, "(%zu more, with less time on the critical path)\n",
			res->n_threads - limit);
	}
	g_free(order);
}
