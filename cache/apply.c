/* SPDX-License-Identifier: MIT */
/*
 * dps cache apply: a capture's figures put on an action set's runs (doc/cache.md, "From a
 * capture to a set"). A trace has no cache figures and a capture has no runs: the capture says
 * what a function (or the whole program) did to the data cache over the whole run, the set
 * says when each thread was on the CPU. This file joins the two by one stated rule.
 *
 * - Which runs. Every run of the threads named (none named: every thread of the set). The
 *   analyzer records no mark of where a function begins and ends inside a thread (no region
 *   or SSF event becomes an action), so a function's figures cannot be narrowed to the runs
 *   that executed it; the thread is the finest unit there is.
 * - How much each. In proportion to the run's CPU time (its D), which is how a thread that
 *   does the same thing all along spreads its accesses. Cachegrind merges threads (one
 *   simulated cache for the process, a function's figures summed over every thread that ran
 *   it): the figures are the named threads' together, split between them the same way.
 * - Rounding. Each figure is divided by largest remainders (Hamilton's method), so the totals
 *   are the capture's exactly. The accesses are split over the runs' CPU time, then the stores
 *   and the D1 misses over each run's accesses, the LL misses over each run's D1 misses: a
 *   part is at most the ceiling of its exact share, which is at most the part it is split
 *   over, so every run's figures keep the stub's rules (dps_action_cache_problem) without a
 *   repair step.
 * - Room. The cache stub's kernel costs up to 4 instructions an access; a run whose accesses
 *   need more CPU than its D at the program's own pace (the capture's instructions over the
 *   set's CPU time) would be played longer than recorded: such runs are refused, listed, unless
 *   the caller allows them.
 *
 * Nothing is changed in the set until every check has passed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps-action.h>
#include <dps/dps-status.h>

#include "actset.h"
#include "cache.h"
#include "diag.h"

/* One run the figures go on. */
struct apply_run {
	size_t thread;
	size_t action;
	struct dps_action_cache c;
};

/*
 * Divides total into n parts in proportion to w[0..n) (their sum over 0): each part the floor
 * of its exact share total * w[i] / sum, then the units left one each to the parts with the
 * largest remainders (ties: the earlier). The parts sum to total; a part is at most the
 * ceiling of its share, and 0 where w[i] is 0. out[i] gets part i.
 */
static void split(uint64_t total, const uint64_t *w, size_t n, uint64_t *out)
{
	unsigned __int128 sum = 0;
	unsigned __int128 *rem = g_new(unsigned __int128, n);
	uint64_t given = 0;

	for (size_t i = 0; i < n; i++) {
		sum += w[i];
	}
	for (size_t i = 0; i < n; i++) {
		unsigned __int128 x = (unsigned __int128)total * w[i];

		out[i] = (uint64_t)(x / sum);
		rem[i] = x % sum;
		given += out[i];
	}
	/* fewer than n units are left: one pass per unit over the remainders */
	for (uint64_t left = total - given; left; left--) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < n; i++) {
			if (rem[i] && (best == SIZE_MAX || rem[i] > rem[best])) {
				best = i;
			}
		}
		if (best == SIZE_MAX) {
			break; /* cannot happen: the remainders sum to left * sum */
		}
		out[best]++;
		rem[best] = 0;
	}
	g_free(rem);
}

/* "1 (main), 2 (worker)": the set's threads, for a message about one it does not have
 * (g_free). */
static char *list_threads(const struct dps_actset *set)
{
	GString *g = g_string_new(NULL);

	for (size_t t = 0; t < set->n_threads && t < 40; t++) {
		g_string_append_printf(g, "%s%" PRIu64 " (%s)", t ? ", " : "", set->threads[t].id,
				       set->threads[t].comm ? set->threads[t].comm : "?");
	}
	if (set->n_threads > 40) {
		g_string_append(g, ", ...");
	}
	return g_string_free(g, FALSE);
}

/* The functions of p with a data access, for a message about one it does not have. */
static char *list_functions(const struct cache_profile *p)
{
	GString *g = g_string_new(NULL);
	guint shown = 0;

	for (guint i = 0; i < p->functions->len && shown < 20; i++) {
		const struct cache_function *f = g_ptr_array_index(p->functions, i);

		if (f->counts.loads || f->counts.stores) {
			g_string_append_printf(g, "%s%s", shown++ ? ", " : "", f->name);
		}
	}
	if (!shown) {
		g_string_append(g, "none");
	} else if (shown < p->functions->len) {
		g_string_append(g, ", ...");
	}
	return g_string_free(g, FALSE);
}

/* The footprint to put: the whole program's, or the largest of the functions named. */
static void choose_footprint(const struct cache_profile *p, const struct cache_apply_options *o,
			     struct cache_footprint *fp)
{
	*fp = (struct cache_footprint){.kind = p->total_footprint.kind,
				       .bytes = p->total_footprint.bytes};
	if (!o->n_functions) {
		return;
	}
	*fp = (struct cache_footprint){0};
	for (size_t i = 0; i < o->n_functions; i++) {
		const struct cache_function *f = cache_profile_borrow_function(p, o->functions[i]);

		if (f && f->footprint.kind != CACHE_FOOTPRINT_NONE &&
		    (fp->kind == CACHE_FOOTPRINT_NONE || f->footprint.bytes > fp->bytes)) {
			fp->kind = f->footprint.kind;
			fp->bytes = f->footprint.bytes;
		}
	}
}

/* The figures to put: the functions named, summed, or the whole program's. */
static int choose_figures(const struct cache_profile *p, const struct cache_apply_options *o,
			  struct cache_counts *c, struct dps_diag *diag)
{
	*c = o->n_functions ? (struct cache_counts){0} : p->total;
	for (size_t i = 0; i < o->n_functions; i++) {
		const struct cache_function *f = cache_profile_borrow_function(p, o->functions[i]);

		if (!f) {
			char *have = list_functions(p);

			dps_diag_setf(
			    diag,
			    "%s: function '%s' is not in the capture (it has: %s); capture "
			    "it with --function '%s' (never run, or inlined: mark it "
			    "noinline)",
			    o->capture, o->functions[i], have, o->functions[i]);
			g_free(have);
			return DPS_ERR_NOENT;
		}
		c->instructions += f->counts.instructions;
		c->loads += f->counts.loads;
		c->stores += f->counts.stores;
		c->d1_misses += f->counts.d1_misses;
		c->ll_misses += f->counts.ll_misses;
	}
	if (!c->loads && !c->stores) {
		dps_diag_setf(diag,
			      "%s: %s made no data access in the capture; nothing to put on the "
			      "runs",
			      o->capture, o->n_functions ? "the functions named" : "the program");
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

static void add_thread(GArray *threads, size_t t)
{
	for (guint i = 0; i < threads->len; i++) {
		if (g_array_index(threads, size_t, i) == t) {
			return;
		}
	}
	g_array_append_val(threads, t);
}

/* The threads named (by id, then by name), or every thread, into rep->threads. */
static int choose_threads(const struct dps_actset *set, const struct cache_apply_options *o,
			  struct cache_apply_report *rep, struct dps_diag *diag)
{
	const char *dir = set->dir ? set->dir : "the set";

	for (size_t i = 0; i < o->n_ids; i++) {
		size_t t = dps_actset_find(set, o->ids[i]);

		if (t == DPS_ACTSET_NO_THREAD) {
			char *have = list_threads(set);

			dps_diag_setf(diag,
				      "%s: no thread with id %" PRIu64 " (--thread); it has %s",
				      dir, o->ids[i], have);
			g_free(have);
			return DPS_ERR_NOENT;
		}
		add_thread(rep->threads, t);
	}
	for (size_t i = 0; i < o->n_comms; i++) {
		bool found = false;

		for (size_t t = 0; t < set->n_threads; t++) {
			if (set->threads[t].comm && !strcmp(set->threads[t].comm, o->comms[i])) {
				add_thread(rep->threads, t);
				found = true;
			}
		}
		if (!found) {
			char *have = list_threads(set);

			dps_diag_setf(diag, "%s: no thread named '%s' (--thread-comm); it has %s",
				      dir, o->comms[i], have);
			g_free(have);
			return DPS_ERR_NOENT;
		}
	}
	rep->all_threads = !o->n_ids && !o->n_comms;
	for (size_t t = 0; rep->all_threads && t < set->n_threads; t++) {
		g_array_append_val(rep->threads, t);
	}
	return DPS_OK;
}

/* The chosen threads' runs into runs, their CPU time into rep. */
static void collect_runs(const struct dps_actset *set, struct cache_apply_report *rep, GArray *runs)
{
	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		for (size_t a = 0; a < th->n_actions; a++) {
			if (th->actions[a].kind == DPS_ACT_RUN && th->actions[a].value > 0) {
				rep->set_cpu_ns += (uint64_t)th->actions[a].value;
			}
		}
	}
	for (guint i = 0; i < rep->threads->len; i++) {
		size_t t = g_array_index(rep->threads, size_t, i);
		const struct dps_actset_thread *th = &set->threads[t];

		for (size_t a = 0; a < th->n_actions; a++) {
			struct apply_run r = {.thread = t, .action = a};

			if (th->actions[a].kind != DPS_ACT_RUN || th->actions[a].value <= 0) {
				continue;
			}
			g_array_append_val(runs, r);
			rep->cpu_ns += (uint64_t)th->actions[a].value;
		}
	}
	rep->runs = runs->len;
}

/* The figures of every run: the accesses over the CPU time, the rest over them; the
 * footprint (0: none) on each. */
static void split_figures(const struct dps_actset *set, const struct cache_counts *c,
			  uint64_t footprint, GArray *runs)
{
	size_t n = runs->len;
	uint64_t *w = g_new(uint64_t, n), *part = g_new(uint64_t, n);
	struct apply_run *r = (struct apply_run *)(void *)runs->data;

	for (size_t i = 0; i < n; i++) {
		w[i] = (uint64_t)set->threads[r[i].thread].actions[r[i].action].value;
	}
	split(c->loads + c->stores, w, n, part);
	for (size_t i = 0; i < n; i++) {
		r[i].c.accesses = w[i] = part[i];
	}
	split(c->stores, w, n, part);
	for (size_t i = 0; i < n; i++) {
		r[i].c.stores = part[i];
	}
	for (size_t i = 0; i < n; i++) {
		r[i].c.footprint_bytes = footprint;
	}
	split(c->d1_misses, w, n, part);
	for (size_t i = 0; i < n; i++) {
		r[i].c.d1_misses = w[i] = part[i];
	}
	/* no D1 miss at all: the LL misses (0, as they are at most the D1 misses) stay 0 */
	if (c->d1_misses) {
		split(c->ll_misses, w, n, part);
	}
	for (size_t i = 0; i < n; i++) {
		r[i].c.ll_misses = c->d1_misses ? part[i] : 0;
	}
	g_free(w);
	g_free(part);
}

/* The runs too short for their accesses into rep->over. */
static void find_over(const struct dps_actset *set, const struct cache_counts *total, GArray *runs,
		      struct cache_apply_report *rep)
{
	rep->instructions_per_ns =
	    rep->set_cpu_ns ? (double)total->instructions / (double)rep->set_cpu_ns : 0;
	if (!(rep->instructions_per_ns > 0)) {
		return; /* no pace to judge by (a capture of no instruction) */
	}
	for (guint i = 0; i < runs->len; i++) {
		const struct apply_run *r = &g_array_index(runs, struct apply_run, i);
		const struct dps_actset_action *a = &set->threads[r->thread].actions[r->action];
		double need = (double)r->c.accesses * CACHE_APPLY_STUB_INSTRUCTIONS /
			      rep->instructions_per_ns;

		if (need > (double)a->value) {
			struct cache_apply_over ov = {r->thread, a->line, (uint64_t)a->value,
						      (uint64_t)need, r->c.accesses};

			g_array_append_val(rep->over, ov);
		}
	}
}

/* Says which run is first over, and how many are. */
static void say_over(const struct dps_actset *set, const struct cache_apply_report *rep,
		     struct dps_diag *diag)
{
	const struct cache_apply_over *ov = &g_array_index(rep->over, struct cache_apply_over, 0);
	const struct dps_actset_thread *th = &set->threads[ov->thread];
	char run[32], need[32];

	dps_diag_set(diag, th->path ? th->path : "(thread)", ov->line, 0,
		     "thread %" PRIu64 "'s run of %s us cannot hold its %" PRIu64
		     " accesses: at %d instructions an access and the program's %.2f "
		     "instructions a ns they need %s us (%u of %zu runs so; --allow-over writes "
		     "them all the same, and they then last as long as their accesses)",
		     th->id, dps_actset_format_us(ov->run_ns, run, sizeof(run)), ov->accesses,
		     CACHE_APPLY_STUB_INSTRUCTIONS, rep->instructions_per_ns,
		     dps_actset_format_us(ov->need_ns, need, sizeof(need)), rep->over->len,
		     rep->runs);
}

/* The figures into the set: a run's figures of before replaced in place, a run whose share is
 * no access left without (or with its figures of before removed). */
static int put_figures(struct dps_actset *set, GArray *runs, struct cache_apply_report *rep,
		       struct dps_diag *diag)
{
	for (guint i = 0; i < runs->len; i++) {
		const struct apply_run *r = &g_array_index(runs, struct apply_run, i);
		struct dps_actset_action *a = &set->threads[r->thread].actions[r->action];

		if (a->aux) {
			rep->replaced++;
		}
		if (!r->c.accesses) {
			a->aux = 0;
			continue;
		}
		rep->runs_with++;
		if (a->aux && a->aux <= set->n_caches) {
			set->caches[a->aux - 1] = r->c;
		} else {
			size_t k = dps_actset_add_cache(set, &r->c);

			if (k == SIZE_MAX) {
				dps_diag_setf(diag, "out of memory");
				return DPS_ERR_NOMEM;
			}
			a->aux = k + 1;
		}
	}
	return DPS_OK;
}

int cache_apply(struct dps_actset *set, const struct cache_profile *p,
		const struct cache_apply_options *o, struct cache_apply_report *rep,
		struct dps_diag *diag)
{
	GArray *runs = g_array_new(FALSE, TRUE, sizeof(struct apply_run));
	int ret;

	*rep = (struct cache_apply_report){0};
	rep->threads = g_array_new(FALSE, FALSE, sizeof(size_t));
	rep->over = g_array_new(FALSE, FALSE, sizeof(struct cache_apply_over));
	if ((ret = choose_figures(p, o, &rep->figures, diag)) ||
	    (ret = choose_threads(set, o, rep, diag))) {
		goto free_runs;
	}
	choose_footprint(p, o, &rep->footprint);
	collect_runs(set, rep, runs);
	if (!runs->len) {
		dps_diag_setf(diag, "%s: the threads named have no run to carry the figures",
			      set->dir ? set->dir : "the set");
		ret = DPS_ERR_INVAL;
		goto free_runs;
	}
	split_figures(set, &rep->figures, rep->footprint.bytes, runs);
	find_over(set, &p->total, runs, rep);
	if (rep->over->len && !o->allow_over) {
		say_over(set, rep, diag);
		ret = DPS_ERR_INVAL;
		goto free_runs;
	}
	ret = put_figures(set, runs, rep, diag);
free_runs:
	g_array_free(runs, TRUE);
	return ret;
}

void cache_apply_report_fini(struct cache_apply_report *rep)
{
	if (rep->threads) {
		g_array_free(rep->threads, TRUE);
	}
	if (rep->over) {
		g_array_free(rep->over, TRUE);
	}
	rep->threads = NULL;
	rep->over = NULL;
}
