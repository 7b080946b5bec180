/* SPDX-License-Identifier: MIT */
/*
 * The player's runs with cache figures (format version 4, doc/cache.md "Cache figures in a
 * set"): the run's data accesses, D1 and last-level misses played by the cache stub
 * (<dps/cache.h>, cache.c) on the playing thread, before the rest of the run, which player.c
 * spends as any run's. The figures are the program's (prog->caches, validated by check_program
 * in player.c with the validator's rule, dps_action_cache_problem), so a program that plays
 * never fails here for a number; what can fail is the machine's side: a malformed
 * DPS_CACHE_GEOMETRY, a last level under four times L1D, no memory for the regions.
 *
 * --cache-scale X (struct dps_play_options' cache_scale) multiplies every run's D1 and LL
 * misses by X: what if the component missed more often, or (X < 1) its data fitted better.
 * The stub has counts, not a working set, so the misses are what it scales.
 *
 * The stub's regions are the thread's: made on its first run with figures, kept for its next
 * ones, freed by player.c when the thread's actions end (dps_cache_free). Their set-up is
 * dps's own CPU, reported apart (cache_end's setup_ns), not the run's.
 */
#include <inttypes.h>
#include <pthread.h>

#include <dps/cache.h>
#include <lttng/ust-events.h>

#include "dps_tp.h"
#include "player-internal.h"
#include "player-sync.h"
#include "runtime-internal.h"

/* n misses scaled by x (--cache-scale), rounded, at most cap. */
static uint64_t scale_misses(uint64_t n, double x, uint64_t cap)
{
	double v;

	if (x == 1.0) {
		return n < cap ? n : cap;
	}
	v = (double)n * x + 0.5;
	if (!(v > 0)) {
		return 0;
	}
	return v >= (double)cap ? cap : (uint64_t)v;
}

uint64_t dps__player_cache(struct player *pl, struct slot *self, const struct dps_action *a)
{
	const struct dps_action_cache *c = &pl->prog->caches[a->arg2 - 1];
	double x = pl->opts.cache_scale;
	struct dps_cache_target t = {
	    .accesses = c->accesses, .stores = c->stores, .footprint_bytes = c->footprint_bytes};
	struct dps_cache_result res = {0};
	char err[256];
	int status;

	/* --cache-scale: the misses, the accesses staying, capped so the stub plays them (D1
	 * misses at most the accesses, LL misses at most the D1 misses) */
	t.d1_misses = scale_misses(c->d1_misses, x, t.accesses);
	t.ll_misses = scale_misses(c->ll_misses, x, t.d1_misses);
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
	return res.kernel_cpu_ns;
}
