/* SPDX-License-Identifier: MIT */
/*
 * When dps whatif cannot back its answer (doc/whatif.md, "When the answer is unclear"). A
 * replay moves what the set re-enacts (runs, objects) and pins the rest as recorded: the
 * wake-ups kept as `wait`/`wake`, the work each thread was given. Where the real program
 * would move what the set pins as the component's speed changes, the curve is the replay's,
 * not the program's: the kind becomes `unclear`, with the evidence and a way out. Checked:
 *
 *   order        recorded waits between a component thread and another one on a lock, a
 *                barrier whose arrivals the trace does not all show, or a wake-all from one
 *                thread (futex.c's kinds), or waits in both directions between the two
 *                (whoever comes first waits), blocking at least WHATIF_ORDER_PCT of the
 *                recorded run: a faster or slower component changes who waits for whom;
 *   shared-work  a component thread and another one that both ran without waiting (at
 *                most WHATIF_FREE_PCT of their lives blocked), side by side, and ended within
 *                WHATIF_TOGETHER_PCT of the shorter life of each other (plus the time either
 *                was preempted: on a busy machine a worker ends later by it), with no
 *                barrier or task queue of the set
 *                to explain it: workers of a pool shared through memory (an atomic counter,
 *                OpenMP's dynamic loops without the probe), whose items a faster worker would
 *                take more of;
 *   unmodelled   what the probe saw and no action re-enacts (OpenMP tasks, ordered);
 *   original     the stub at scale 1 off the recorded program by more than
 *                WHATIF_ORIGINAL_PCT (and its own noise): the set does not reproduce it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dps/cache.h>
#include <glib.h>

#include "actset.h"
#include "analyzer.h"
#include "text-out.h"
#include "whatif-internal.h"

/* The recorded run's share the order-dependent waits of a pair must block to count. */
#define WHATIF_ORDER_PCT 2.0
/* Without timings (a set input): this many waits each way make a pair's order doubtful. */
#define WHATIF_ORDER_MIN_WAITS 3
/* A thread that blocked at most this share of its life ran without waiting. */
#define WHATIF_FREE_PCT 5.0
/* Two such threads that ended within this share of the shorter life (or 1 ms) ended
 * together (a scheduler's time slice or two on a busy machine stays within it). */
#define WHATIF_TOGETHER_PCT 5.0
#define WHATIF_TOGETHER_MIN_NS 1000000u
/* A thread shorter than this is no worker of a pool worth a doubt. */
#define WHATIF_WORKER_MIN_NS 5000000u
/* The stub at scale 1 may differ from the recorded program by this much. */
#define WHATIF_ORIGINAL_PCT 7.5

const char *whatif_doubt_kind_name(enum whatif_doubt_kind kind)
{
	switch (kind) {
	case WHATIF_DOUBT_ORDER:
		return "order";
	case WHATIF_DOUBT_SHARED_WORK:
		return "shared-work";
	case WHATIF_DOUBT_UNMODELLED:
		return "unmodelled";
	case WHATIF_DOUBT_ORIGINAL:
		return "original";
	case WHATIF_DOUBT_PARTIAL:
		return "partial";
	case WHATIF_DOUBT_MISS_COST:
		return "miss-cost";
	default:
		return "?";
	}
}

static void add_doubt(struct whatif_result *r, enum whatif_doubt_kind kind, char *reason,
		      char *way_out)
{
	r->doubts = g_renew(struct whatif_doubt, r->doubts, r->n_doubts + 1);
	r->doubts[r->n_doubts++] = (struct whatif_doubt){kind, reason, way_out};
}

void whatif_doubt_add(struct whatif_result *r, enum whatif_doubt_kind kind, char *reason,
		      char *way_out)
{
	add_doubt(r, kind, reason, way_out);
}

/* "12 (worker1)" for the set's thread t (g_free). */
static char *thread_name(const struct dps_actset *set, size_t t)
{
	char comm[64];

	if (!set->threads[t].comm) {
		return g_strdup_printf("%" PRIu64, set->threads[t].id);
	}
	dps_text_sanitize(set->threads[t].comm, comm, sizeof(comm));
	return g_strdup_printf("%" PRIu64 " (%s)", set->threads[t].id, comm);
}

static const char way_out_order[] =
    "record with `dps record --sync` (barriers, semaphores, rwlocks, mutexes, condition "
    "variables and OpenMP are then re-enacted, doc/sync.md), annotate the object "
    "(dps/annotate.h), or study the component in the real program: dps whatif --region NAME "
    "-- CMD";
/* The same when the recording already had dps's probe: --sync again would change nothing. */
static const char way_out_order_probed[] =
    "annotate the object (dps/annotate.h; the recording already has dps's synchronization "
    "probe, and these waits are on something it does not re-enact), or study the component "
    "in the real program: dps whatif --region NAME -- CMD";

/* What a pair's order-dependent waits went through, in words. */
static const char *through(uint32_t kind)
{
	switch (kind) {
	case ANALYZER_PIN_LOCK:
		return "a lock (a futex both wait on and wake: whoever comes first holds it)";
	case ANALYZER_PIN_PARTIAL:
		return "a barrier whose waiters spin before they sleep (libgomp's): the trace "
		       "does not show every arrival";
	case ANALYZER_PIN_TIMEOUT:
		return "timed waits that timed out (fixed sleeps in the set: a faster or slower "
		       "waker would have ended them sooner or let them time out again)";
	case ANALYZER_PIN_BROADCAST:
		return "a wake-all always from the same thread (a barrier whose last arriver "
		       "never changed, or a broadcast): a barrier's last arriver changes with the "
		       "speeds";
	default:
		return "wake-ups in both directions (whoever comes first waits for the other)";
	}
}

/* One pair (component thread c, other thread o) of the set, and what its waits were. */
struct pair {
	size_t c, o;
	uint64_t n_c_on_o, n_o_on_c; /* waits kept each way */
	uint64_t ordered_n, ordered_ns, both_ns;
	uint32_t ordered_kind; /* the kind of the ordered waits with the most time */
	uint64_t kind_ns;
	bool unknown; /* some of its waits' words are unknown (no futex events) */
};

static struct pair *pair_of(GArray *pairs, size_t c, size_t o)
{
	struct pair p = {.c = c, .o = o};

	for (guint i = 0; i < pairs->len; i++) {
		struct pair *q = &g_array_index(pairs, struct pair, i);

		if (q->c == c && q->o == o) {
			return q;
		}
	}
	g_array_append_val(pairs, p);
	return &g_array_index(pairs, struct pair, pairs->len - 1);
}

static bool ordered(uint32_t kind)
{
	return kind == ANALYZER_PIN_LOCK || kind == ANALYZER_PIN_PARTIAL ||
	       kind == ANALYZER_PIN_BROADCAST || kind == ANALYZER_PIN_TIMEOUT;
}

/* The pairs' waits from the trace's pins (ares), or from the set's own waits. */
static GArray *collect_pairs(const struct dps_actset *set, const struct analyzer_result *ares,
			     const bool *mark)
{
	GArray *pairs = g_array_new(FALSE, FALSE, sizeof(struct pair));

	if (ares) {
		for (size_t i = 0; i < ares->n_pins; i++) {
			const struct analyzer_pin *pin = &ares->pins[i];
			size_t w = dps_actset_find(set, ares->threads[pin->waiter].id);
			size_t k = dps_actset_find(set, ares->threads[pin->waker].id);
			struct pair *p;

			if (w == DPS_ACTSET_NO_THREAD || k == DPS_ACTSET_NO_THREAD ||
			    mark[w] == mark[k]) {
				continue;
			}
			p = mark[w] ? pair_of(pairs, w, k) : pair_of(pairs, k, w);
			*(mark[w] ? &p->n_c_on_o : &p->n_o_on_c) += pin->n;
			p->both_ns += pin->blocked_ns;
			p->unknown |= pin->kind == ANALYZER_PIN_UNKNOWN;
			if (ordered(pin->kind)) {
				p->ordered_n += pin->n;
				p->ordered_ns += pin->blocked_ns;
				if (pin->blocked_ns >= p->kind_ns) {
					p->kind_ns = pin->blocked_ns;
					p->ordered_kind = pin->kind;
				}
			}
		}
		return pairs;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		for (size_t a = 0; a < th->n_actions; a++) {
			size_t w;
			struct pair *p;

			if (th->actions[a].kind != DPS_ACT_WAIT &&
			    th->actions[a].kind != DPS_ACT_WAIT_TIMEOUT) {
				continue;
			}
			w = dps_actset_target(set, &th->actions[a]);
			if (w == DPS_ACTSET_NO_THREAD || mark[t] == mark[w]) {
				continue;
			}
			p = mark[t] ? pair_of(pairs, t, w) : pair_of(pairs, w, t);
			(*(mark[t] ? &p->n_c_on_o : &p->n_o_on_c))++;
			p->unknown = true;
		}
	}
	return pairs;
}

/* Order: the component's recorded waits (either way) whose order its speed may change. */
static void check_order(struct whatif_result *r, const struct dps_actset *set,
			const struct analyzer_result *ares, const bool *mark)
{
	GArray *pairs = collect_pairs(set, ares, mark);
	double run_ns = r->recorded_sut_ns ? (double)r->recorded_sut_ns : (double)r->busy_ns;
	double min_ns = WHATIF_ORDER_PCT / 100 * run_ns;

	for (guint i = 0; i < pairs->len; i++) {
		const struct pair *p = &g_array_index(pairs, struct pair, i);
		bool both = p->n_c_on_o && p->n_o_on_c;
		char *c, *o, a[32];
		uint64_t n;
		uint32_t kind;
		double ns;

		if (ares) {
			/* timed: the waits on a lock's or a barrier's words, else all of them
			 * when they go both ways, whichever blocked long enough */
			if (p->ordered_n && (double)p->ordered_ns >= min_ns) {
				kind = p->ordered_kind;
				n = p->ordered_n;
				ns = (double)p->ordered_ns;
			} else if (both && (double)p->both_ns >= min_ns) {
				kind = ANALYZER_PIN_NR;
				n = p->n_c_on_o + p->n_o_on_c;
				ns = (double)p->both_ns;
			} else {
				continue;
			}
		} else {
			if (!both || p->n_c_on_o < WHATIF_ORDER_MIN_WAITS ||
			    p->n_o_on_c < WHATIF_ORDER_MIN_WAITS) {
				continue;
			}
			kind = ANALYZER_PIN_NR;
			n = p->n_c_on_o + p->n_o_on_c;
			ns = -1;
		}
		c = thread_name(set, p->c);
		o = thread_name(set, p->o);
		add_doubt(
		    r, WHATIF_DOUBT_ORDER,
		    g_strdup_printf(
			"Thread %s of the component and thread %s wait for each other through "
			"%s: %" PRIu64
			" recorded waits%s%s%s. The set keeps who waited for whom; with the "
			"component faster or slower, the real program would change that "
			"order.%s",
			c, o, through(kind), n, ns >= 0 ? ", " : "",
			ns >= 0 ? whatif_ms(ns, a, sizeof(a)) : "",
			ns >= 0 ? " ms blocked in the recording" : "",
			p->unknown ? " (The trace has no futex events to say what they "
				     "were on: recorded before dps recorded them, or by "
				     "another tool.)"
				   : ""),
		    g_strdup(ares && ares->futex.n_explained ? way_out_order_probed
							     : way_out_order));
		g_free(c);
		g_free(o);
	}
	g_array_free(pairs, TRUE);
}

/* The barriers each thread arrives at and the task queues it takes from (object ids), to
 * explain threads that end together. */
static bool share_an_object(const struct dps_actset *set, size_t x, size_t y)
{
	const struct dps_actset_thread *tx = &set->threads[x], *ty = &set->threads[y];

	for (size_t a = 0; a < tx->n_actions; a++) {
		const struct dps_actset_action *ax = &tx->actions[a];
		size_t o;

		if (ax->kind != DPS_ACT_ARRIVE && ax->kind != DPS_ACT_TAKE) {
			continue;
		}
		o = dps_actset_find_object(set, ax->id);
		if (ax->kind == DPS_ACT_TAKE &&
		    (o == DPS_ACTSET_NO_OBJECT || !set->objects[o].order)) {
			continue; /* a plain queue's take says nothing of their ends */
		}
		for (size_t b = 0; b < ty->n_actions; b++) {
			if (ty->actions[b].kind == ax->kind && ty->actions[b].id == ax->id) {
				return true;
			}
		}
	}
	return false;
}

/* A thread's life and how much of it it spent blocked (ns), from the trace or the set. */
struct life {
	uint64_t start, end, blocked;
	uint64_t preempted; /* runnable, not running: a busy machine's share of its life */
	bool known;
};

static struct life life_of(const struct dps_actset *set, const struct analyzer_result *ares,
			   size_t t)
{
	const struct dps_actset_thread *th = &set->threads[t];
	struct life l = {.start = th->start_offset_ns};
	uint64_t span = 0;

	if (ares) {
		for (size_t i = 0; i < ares->n_threads; i++) {
			const struct analyzer_thread *at = &ares->threads[i];

			if (at->id == th->id && at->end_ns > at->start_ns) {
				l.start = at->start_ns;
				l.end = at->end_ns;
				l.blocked = at->stats.blocked_ns;
				l.preempted = at->stats.waiting_ns;
				l.known = true;
			}
		}
		return l;
	}
	/* a set: a thread that never blocks on another lasts its runs and sleeps */
	for (size_t a = 0; a < th->n_actions; a++) {
		switch (th->actions[a].kind) {
		case DPS_ACT_RUN:
			span += (uint64_t)th->actions[a].value;
			break;
		case DPS_ACT_SLEEP:
			span += (uint64_t)th->actions[a].value;
			l.blocked += (uint64_t)th->actions[a].value;
			break;
		case DPS_ACT_CREATE:
		case DPS_ACT_WAKE:
		case DPS_ACT_HEAP:
		case DPS_ACT_STACK:
			break;
		default:
			return l; /* it waits for another: its end is not its own */
		}
	}
	l.end = l.start + span;
	l.known = span > 0;
	return l;
}

/* Shared work: a component thread and another that ran side by side without waiting and
 * ended together, with nothing in the set that makes them end together. */
static void check_shared_work(struct whatif_result *r, const struct dps_actset *set,
			      const struct analyzer_result *ares, const bool *mark)
{
	struct life *lives = g_new0(struct life, set->n_threads);

	for (size_t t = 0; t < set->n_threads; t++) {
		lives[t] = life_of(set, ares, t);
	}
	for (size_t c = 0; c < set->n_threads; c++) {
		const struct life *lc = &lives[c];

		if (!mark[c] || !lc->known || lc->end - lc->start < WHATIF_WORKER_MIN_NS ||
		    (double)lc->blocked > WHATIF_FREE_PCT / 100 * (double)(lc->end - lc->start)) {
			continue;
		}
		for (size_t o = 0; o < set->n_threads; o++) {
			const struct life *lo = &lives[o];
			uint64_t shorter, overlap, gap;
			char *cn, *on, a[32], b[32];

			if (mark[o] || !lo->known || lo->end - lo->start < WHATIF_WORKER_MIN_NS ||
			    (double)lo->blocked >
				WHATIF_FREE_PCT / 100 * (double)(lo->end - lo->start)) {
				continue;
			}
			shorter = MIN(lc->end - lc->start, lo->end - lo->start);
			overlap = MIN(lc->end, lo->end) > MAX(lc->start, lo->start)
				      ? MIN(lc->end, lo->end) - MAX(lc->start, lo->start)
				      : 0;
			gap = lc->end > lo->end ? lc->end - lo->end : lo->end - lc->end;
			/* a worker preempted near its end ends later by as much: workers of
			 * one pool end within an item of each other plus that */
			if (overlap * 2 < shorter ||
			    (double)gap > MAX(WHATIF_TOGETHER_MIN_NS,
					      WHATIF_TOGETHER_PCT / 100 * (double)shorter) +
					      (double)MAX(lc->preempted, lo->preempted) ||
			    share_an_object(set, c, o)) {
				continue;
			}
			cn = thread_name(set, c);
			on = thread_name(set, o);
			add_doubt(
			    r, WHATIF_DOUBT_SHARED_WORK,
			    g_strdup_printf(
				"Thread %s of the component and thread %s ran side by side without "
				"waiting for each other (blocked %.1f %% and %.1f %% of their "
				"lives) and ended "
				"%s ms apart after %s ms: they look like workers sharing a pool of "
				"work through memory (an atomic counter, a work index, OpenMP's "
				"dynamic loops), whose items a faster worker would take more of. "
				"The "
				"set gives each the work it did in the recording.",
				cn, on, 100.0 * (double)lc->blocked / (double)(lc->end - lc->start),
				100.0 * (double)lo->blocked / (double)(lo->end - lo->start),
				whatif_ms((double)gap, a, sizeof(a)),
				whatif_ms((double)shorter, b, sizeof(b))),
			    g_strdup("mark the pool's takes with dps_pool_take (dps/annotate.h, "
				     "doc/sync.md), record an OpenMP program with `dps record "
				     "--sync`, or study the component in the real program: dps "
				     "whatif --region NAME -- CMD"));
			g_free(cn);
			g_free(on);
			break; /* one doubt per component thread is enough */
		}
	}
	g_free(lives);
}

void whatif_doubts_before(struct whatif_result *r, const struct dps_actset *set,
			  const struct analyzer_result *ares, const bool *mark)
{
	check_order(r, set, ares, mark);
	check_shared_work(r, set, ares, mark);
	if (ares && ares->n_unmodelled) {
		GString *what = g_string_new(NULL);

		for (size_t i = 0; i < ares->n_unmodelled; i++) {
			char w[96];

			dps_text_sanitize(ares->unmodelled[i], w, sizeof(w));
			g_string_append_printf(what, "%s%s", i ? ", " : "", w);
		}
		add_doubt(r, WHATIF_DOUBT_UNMODELLED,
			  g_strdup_printf("The program uses %s, which the probe saw and no action "
					  "of the set re-enacts: the work and the waits around it "
					  "are the recording's.",
					  what->str),
			  g_strdup("study the component in the real program: dps whatif --region "
				   "NAME -- CMD"));
		g_string_free(what, TRUE);
	}
}

void whatif_doubts_after(struct whatif_result *r)
{
	double orig = (double)r->original.median_ns, rec = (double)r->recorded_sut_ns;
	double off, limit;
	char a[32], b[32];

	if (r->recorded_sut_ns && r->original.n_runs && !r->in_situ && whatif_window_is_run(r)) {
		off = (orig - rec) / rec * 100;
		limit = MAX(WHATIF_ORIGINAL_PCT, 300 * r->original.noise_ns / orig);
		if (fabs(off) > limit && r->original.loaded) {
			/* the stub's own runs were under load: the machine, not the set */
			add_doubt(
			    r, WHATIF_DOUBT_ORIGINAL,
			    g_strdup_printf(
				"The stub at scale 1 takes %s ms where the recorded program "
				"took %s ms (%+.1f %%, more than %.1f %%), and its runs ran "
				"under load (others used %.0f %% of the CPUs, steal %.1f %%): "
				"the machine moved the times, not only the program.",
				whatif_ms(orig, a, sizeof(a)), whatif_ms(rec, b, sizeof(b)), off,
				limit, r->original.others_pct, r->original.steal_pct),
			    g_strdup("run the study again on a quiet machine (--wait-quiet "
				     "waits for one)"));
		} else if (fabs(off) > limit) {
			add_doubt(r, WHATIF_DOUBT_ORIGINAL,
				  g_strdup_printf(
				      "The stub at scale 1 takes %s ms where the recorded program "
				      "took %s ms (%+.1f %%, more than %.1f %%): the set does not "
				      "reproduce the program, so its curve does not predict it.",
				      whatif_ms(orig, a, sizeof(a)), whatif_ms(rec, b, sizeof(b)),
				      off, limit),
				  g_strdup("record on a quiet machine (dps record says when others "
					   "used the CPUs), and see which threads differ with dps "
					   "replay TRACE (its report compares them)"));
		}
	}
	if (r->sweep == WHATIF_SWEEP_MISSES && r->misses.n_costs) {
		/* the curve's size is the stub's cost of a miss: the figures are the committed
		 * bench's (bench/results/whatif-misses.md, 2026-11-30 17:49 UTC) */
		add_doubt(
		    r, WHATIF_DOUBT_MISS_COST,
		    g_strdup_printf(
			"A miss's time here is the cache stub's own on a quiet cache (%.1f ns a "
			"miss to memory, %.1f ns one served by the last level), not the program's, "
			"which its overlap with other misses and work and its page walks make. "
			"Checked against a real program changed the same way "
			"(bench/results/whatif-misses.md: a lookup thread whose queries miss a "
			"64 MiB table), the stub's changes were 0.36 to 1.28 times the real ones: "
			"the curve's direction holds, its size does not.",
			r->misses.costs[0].cold_ns, r->misses.costs[0].warm_ns),
		    g_strdup("time the component in the real program at one other miss rate (a "
			     "smaller data set, another input) and scale the curve's changes by "
			     "the real change over the stub's"));
	}
	r->kind = r->n_doubts ? WHATIF_KIND_UNCLEAR : r->fit.kind;
}

void whatif_doubts_fini(struct whatif_result *r)
{
	for (size_t i = 0; i < r->n_doubts; i++) {
		g_free(r->doubts[i].reason);
		g_free(r->doubts[i].way_out);
	}
	g_free(r->doubts);
	r->doubts = NULL;
	r->n_doubts = 0;
}
