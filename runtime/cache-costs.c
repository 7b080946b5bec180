/* SPDX-License-Identifier: MIT */
/*
 * The cache stub's figures as time and as what-if (<dps/cache.h>): what each kind of access
 * costs the stub on a quiet cache (the outcome mode of a play, doc/cache.md "Outcome"), a
 * target's accesses at those costs, and a target's misses scaled (--cache-scale,
 * --thread-cache-scale; dps whatif --sweep misses computes its points' CPU from the same two).
 */
#include <stdint.h>

#include <dps/cache.h>
#include <dps/dps-status.h>

/* n misses scaled by x, rounded, at most cap. */
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

/* The least kernel CPU time of three plays of t, in ns an access. */
static int least_ns(const struct dps_cache_target *t, const struct dps_cache_geometry *geom,
		    double *ns, char *err, size_t err_len)
{
	struct dps_cache_result res;
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		int status = dps_cache_play(t, geom, &res, err, err_len);

		if (status) {
			return status;
		}
		best = res.kernel_cpu_ns < best ? res.kernel_cpu_ns : best;
	}
	*ns = (double)best / (double)t->accesses;
	return DPS_OK;
}

int dps_cache_measure_costs(uint64_t footprint_bytes, const struct dps_cache_geometry *geom,
			    struct dps_cache_costs *c, char *err, size_t err_len)
{
	const uint64_t hits = 100000, misses = 20000;
	struct dps_cache_target loads = {.accesses = hits, .footprint_bytes = footprint_bytes};
	struct dps_cache_target stores = loads, warm = loads, cold = loads;
	int status;

	stores.stores = hits;
	warm.accesses = warm.d1_misses = misses;
	cold.accesses = cold.d1_misses = cold.ll_misses = misses;
	*c = (struct dps_cache_costs){.footprint_bytes = footprint_bytes};
	if ((status = least_ns(&loads, geom, &c->load_ns, err, err_len)) ||
	    (status = least_ns(&stores, geom, &c->store_ns, err, err_len)) ||
	    (status = least_ns(&warm, geom, &c->warm_ns, err, err_len)) ||
	    (status = least_ns(&cold, geom, &c->cold_ns, err, err_len))) {
		return status;
	}
	return DPS_OK;
}

uint64_t dps_cache_quiet_ns(const struct dps_cache_target *t, const struct dps_cache_costs *c)
{
	uint64_t hot = t->accesses - t->d1_misses, warm = t->d1_misses - t->ll_misses;
	uint64_t stores = t->stores < hot ? t->stores : hot;
	double ns = (double)(hot - stores) * c->load_ns + (double)stores * c->store_ns +
		    (double)warm * c->warm_ns + (double)t->ll_misses * c->cold_ns;

	return ns > 0 ? (uint64_t)(ns + 0.5) : 0;
}

void dps_cache_target_scale_misses(struct dps_cache_target *t, double x)
{
	t->d1_misses = scale_misses(t->d1_misses, x, t->accesses);
	t->ll_misses = scale_misses(t->ll_misses, x, t->d1_misses);
}
