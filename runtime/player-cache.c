/* SPDX-License-Identifier: MIT */
/*
 * The player's runs with cache figures (format version 4, doc/cache.md "Cache figures in a
 * set"): the run's data accesses, D1 and last-level misses played by the cache stub
 * (<dps/cache.h>, cache.c) on the playing thread: in cpu mode paced over the run up to its
 * end on the thread's budget (the stub's slices, the CPU burnt between them), in work and
 * wall modes before the rest of the run; player.c spends whatever of the run is left as any
 * run's. The figures are the program's (prog->caches, validated by check_program
 * in player.c with the validator's rule, dps_action_cache_problem), so a program that plays
 * never fails here for a number; what can fail is the machine's side: a malformed
 * DPS_CACHE_GEOMETRY, a last level under four times L1D, no memory for the regions.
 *
 * --cache-scale X (struct dps_play_options' cache_scale) multiplies every run's D1 and LL
 * misses by X: what if the component missed more often, or (X < 1) its data fitted better.
 * The misses are what it scales; a run's footprint stays. --thread-cache-scale ID=X
 * (thread_cache_scale) does it for one thread's runs, on top of the global one: the knob
 * dps whatif --sweep misses turns (doc/whatif.md).
 *
 * --cache-outcome (cache_outcome): before the threads start, the root measures what each kind
 * of access costs the stub on a quiet cache, once per footprint the figures have
 * (dps_cache_measure_costs). A run's recorded figures, unscaled, then count as their kinds'
 * quiet costs of its time, and what the accesses played took beyond it (the other threads'
 * data pushing the stub's out, or --cache-scale's misses) makes the run longer: an outcome of
 * the replay, as of the real program. (A correction of the sum by a play of each mix of
 * figures was tried and brought a thread alone no closer to its recorded CPU: doc/cache.md,
 * "Outcome".)
 *
 * The stub's regions are the thread's: made on its first run with figures, kept for its next
 * ones, freed by player.c when the thread's actions end (dps_cache_free). Their set-up is
 * dps's own CPU, reported apart (cache_end's setup_ns), not the run's.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <dps/cache.h>
#include <lttng/ust-events.h>

#include "dps_tp.h"
#include "player-internal.h"
#include "player-sync.h"
#include "runtime-internal.h"

/* The target of c's recorded figures, unscaled. */
static struct dps_cache_target target_of(const struct dps_action_cache *c)
{
	return (struct dps_cache_target){.accesses = c->accesses,
					 .stores = c->stores,
					 .d1_misses = c->d1_misses,
					 .ll_misses = c->ll_misses,
					 .footprint_bytes = c->footprint_bytes};
}

/* How many footprints DPS_CACHE_COSTS may give. */
#define CACHE_COSTS_GIVEN_MAX 64

uint64_t dps__player_cache_run_ns(uint64_t ns, uint64_t kernel, uint64_t quiet)
{
	if (kernel >= quiet) {
		return ns + (kernel - quiet);
	}
	return ns > quiet - kernel ? ns - (quiet - kernel) : 0;
}

int dps__player_cache_init(struct player *pl, struct dps_play_result *result)
{
	const struct dps_program *prog = pl->prog;
	struct dps_cache_costs *costs = NULL;
	size_t n = 0;
	char err[256];
	int status = DPS_OK;

	if (!pl->opts.cache_outcome || !prog->n_caches) {
		return DPS_OK;
	}
	/* the costs given (DPS_CACHE_COSTS: dps whatif's, the same for all its runs) */
	if (getenv("DPS_CACHE_COSTS")) {
		const char *v = getenv("DPS_CACHE_COSTS");

		costs = calloc(CACHE_COSTS_GIVEN_MAX, sizeof(*costs));
		if (!costs) {
			status = DPS_ERR_NOMEM;
		} else if (!dps_cache_costs_parse(v, costs, CACHE_COSTS_GIVEN_MAX, &n)) {
			pl->cache_costs_given = true;
		} else {
			snprintf(err, sizeof(err),
				 "Bad DPS_CACHE_COSTS: value=\"%.120s\", expected "
				 "\"FOOTPRINT:LOAD,STORE,WARM,COLD\" (bytes, then ns; ';' between "
				 "footprints, %d at most)",
				 v, CACHE_COSTS_GIVEN_MAX);
			status = DPS_ERR_INVAL;
			n = 0;
		}
	}
	/* the costs of each footprint once, then every figure's quiet cost: a run only reads it */
	for (size_t i = 0; i < prog->n_caches && !status; i++) {
		uint64_t f = prog->caches[i].footprint_bytes;
		struct dps_cache_costs *c;

		if (dps_cache_costs_find(costs, n, f)) {
			continue;
		}
		c = realloc(costs, (n + 1) * sizeof(*c));
		if (!c) {
			status = DPS_ERR_NOMEM;
			break;
		}
		costs = c;
		status = dps_cache_measure_costs(f, NULL, &costs[n], err, sizeof(err));
		n += !status;
	}
	if (!status && !(pl->cache_quiet_ns = malloc(prog->n_caches * sizeof(uint64_t)))) {
		status = DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < prog->n_caches && !status; i++) {
		struct dps_cache_target rec = target_of(&prog->caches[i]);

		pl->cache_quiet_ns[i] =
		    dps_cache_quiet_ns(&rec, dps_cache_costs_find(costs, n, rec.footprint_bytes));
	}
	pl->cache_costs = costs; /* for the scaled figures' quiet cost (dps__player_cache) */
	pl->n_cache_costs = n;
	if (status == DPS_ERR_NOMEM) {
		snprintf(err, sizeof(err), "out of memory");
	}
	if (status && result) {
		snprintf(result->detail, sizeof(result->detail),
			 "--cache-outcome: the quiet cache's costs: %s", err);
	}
	return status; /* the root's regions, made for the measure, kept for its runs */
}

void dps__player_cache_fini(struct player *pl)
{
	free(pl->cache_quiet_ns);
	free(pl->cache_costs);
	pl->cache_quiet_ns = NULL;
	pl->cache_costs = NULL;
	pl->n_cache_costs = 0;
}

uint64_t dps__player_cache(struct player *pl, struct slot *self, const struct dps_action *a,
			   uint64_t until, uint64_t *quiet)
{
	const struct dps_action_cache *c;
	double x = pl->opts.cache_scale *
		   (pl->opts.thread_cache_scale ? pl->opts.thread_cache_scale[self->idx] : 1.0);
	struct dps_cache_target t;
	struct dps_cache_result res = {0};
	uint64_t rec = 0, now = 0; /* the recorded and the scaled figures' quiet costs */
	char err[256];
	int status;

	*quiet = 0;
	if (a->arg2 <= 0) {
		return 0; /* a run without figures */
	}
	c = &pl->prog->caches[a->arg2 - 1];
	t = target_of(c);
	/* --cache-scale: the misses, the accesses staying, capped so the stub plays them */
	dps_cache_target_scale_misses(&t, x);
	/* in cpu mode the accesses are spread over the run, up to its end on the budget; with
	 * --cache-outcome, the end the scaled figures' quiet cost gives it (what they cost over
	 * or under the recorded ones': a run whose misses were scaled down ends sooner) */
	if (pl->cache_quiet_ns) {
		const struct dps_cache_costs *costs =
		    dps_cache_costs_find(pl->cache_costs, pl->n_cache_costs, t.footprint_bytes);

		rec = pl->cache_quiet_ns[a->arg2 - 1];
		now = costs ? dps_cache_quiet_ns(&t, costs) : rec;
	}
	if (pl->opts.mode == DPS_RUN_CPU && pl->cache_quiet_ns) {
		until = now >= rec	    ? until + (now - rec)
			: until > rec - now ? until - (rec - now)
					    : 0;
	}
	t.cpu_until_ns = pl->opts.mode == DPS_RUN_CPU ? until : 0;
	if (!dps__tls_silent) {
		lttng_ust_tracepoint(dps, cache_begin, dps__tls_id, t.accesses, t.stores,
				     t.d1_misses, t.ll_misses, 0, 0, a->line);
	}
	status = dps_cache_play(&t, NULL, &res, err, sizeof(err));
	if (!dps__tls_silent) {
		lttng_ust_tracepoint(dps, cache_end, dps__tls_id, t.accesses, t.stores, t.d1_misses,
				     t.ll_misses, res.kernel_cpu_ns, res.setup_ns, a->line);
	}
	if (status) {
		pthread_mutex_lock(&pl->lock);
		dps__player_fail_at_locked(pl, self->idx, a, status, "run's cache figures: %s",
					   err);
		pthread_mutex_unlock(&pl->lock);
		return 0;
	}
	self->res->cache_cpu_ns += res.kernel_cpu_ns;
	/* --cache-outcome: the recorded figures' quiet cost, unscaled (--cache-scale's misses
	 * are the run's change), measured before the play; else the accesses are the run's.
	 * The CPU burnt between the slices is the run's in both: it is added to the quiet cost
	 * as to the returned time, so that the run lasts ns plus what the accesses took over
	 * their quiet cost (dps__player_cache_run_ns) */
	*quiet = (pl->cache_quiet_ns ? pl->cache_quiet_ns[a->arg2 - 1] : res.kernel_cpu_ns) +
		 res.burn_ns;
	if (pl->cache_costs_given) {
		/* DPS_CACHE_COSTS: the accesses count at the costs given, not at what they took,
		 * so that every run of a study counts them alike whatever this VM's memory does
		 * meanwhile: the run lasts ns plus what its scaled figures cost over the recorded
		 * ones at them */
		uint64_t at = res.kernel_cpu_ns + res.burn_ns + rec;

		*quiet = at > now ? at - now : 0;
	}
	return res.kernel_cpu_ns + res.burn_ns;
}
