/* SPDX-License-Identifier: MIT */
/*
 * The cache stub's figures as time and as what-if (<dps/cache.h>): what each kind of access
 * costs the stub on a quiet cache (the outcome mode of a play, doc/cache.md "Outcome"), a
 * target's accesses at those costs, and a target's misses scaled (--cache-scale,
 * --thread-cache-scale; dps whatif --sweep misses computes its points' CPU from the same two).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

/* How many plays of each kind the costs are the median of: the typical cost, as a run's
 * accesses meet it. The least of three was a good moment's: 19.7 ns a cold miss in one
 * process where plays of 1.6 million cold misses took 22 to 25 ns in others by hand, and
 * --cache-outcome counted the difference as the neighbours' doing. */
#define COSTS_PLAYS 5

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median kernel CPU time of COSTS_PLAYS plays of t, in ns an access. */
static int median_ns(const struct dps_cache_target *t, const struct dps_cache_geometry *geom,
		     double *ns, char *err, size_t err_len)
{
	struct dps_cache_result res;
	uint64_t v[COSTS_PLAYS];

	for (int i = 0; i < COSTS_PLAYS; i++) {
		int status = dps_cache_play(t, geom, &res, err, err_len);

		if (status) {
			return status;
		}
		v[i] = res.kernel_cpu_ns;
	}
	qsort(v, COSTS_PLAYS, sizeof(v[0]), compare_u64);
	*ns = (double)v[COSTS_PLAYS / 2] / (double)t->accesses;
	return DPS_OK;
}

int dps_cache_measure_costs(uint64_t footprint_bytes, const struct dps_cache_geometry *geom,
			    struct dps_cache_costs *c, char *err, size_t err_len)
{
	const uint64_t hits = 200000, misses = 50000;
	struct dps_cache_target loads = {.accesses = hits, .footprint_bytes = footprint_bytes};
	struct dps_cache_target stores = loads, warm = loads, cold = loads;
	int status;

	stores.stores = hits;
	warm.accesses = warm.d1_misses = misses;
	cold.accesses = cold.d1_misses = cold.ll_misses = misses;
	*c = (struct dps_cache_costs){.footprint_bytes = footprint_bytes};
	if ((status = median_ns(&loads, geom, &c->load_ns, err, err_len)) ||
	    (status = median_ns(&stores, geom, &c->store_ns, err, err_len)) ||
	    (status = median_ns(&warm, geom, &c->warm_ns, err, err_len)) ||
	    (status = median_ns(&cold, geom, &c->cold_ns, err, err_len))) {
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

int dps_cache_costs_parse(const char *text, struct dps_cache_costs *costs, size_t max, size_t *n)
{
	const char *p = text;

	*n = 0;
	while (p && *p) {
		struct dps_cache_costs c = {0};
		char *end;
		double *v[4] = {&c.load_ns, &c.store_ns, &c.warm_ns, &c.cold_ns};

		if (*n == max || *p < '0' || *p > '9') {
			return -1;
		}
		errno = 0;
		c.footprint_bytes = strtoull(p, &end, 10);
		if (errno || *end != ':') {
			return -1;
		}
		p = end + 1;
		for (int k = 0; k < 4; k++) {
			if (k && *p++ != ',') {
				return -1;
			}
			*v[k] = strtod(p, &end);
			if (end == p || !isfinite(*v[k]) || *v[k] < 0) {
				return -1;
			}
			p = end;
		}
		if (*p && *p != ';') {
			return -1;
		}
		if (*p == ';' && !*++p) {
			return -1; /* a ';' ends nothing */
		}
		costs[(*n)++] = c;
	}
	return *n ? 0 : -1;
}

size_t dps_cache_costs_format(const struct dps_cache_costs *c, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	if (len) {
		buf[0] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				 "%s%" PRIu64 ":%.6g,%.6g,%.6g,%.6g", i ? ";" : "",
				 c[i].footprint_bytes, c[i].load_ns, c[i].store_ns, c[i].warm_ns,
				 c[i].cold_ns);

		used += w > 0 ? (size_t)w : 0;
	}
	return used;
}

const struct dps_cache_costs *dps_cache_costs_find(const struct dps_cache_costs *costs, size_t n,
						   uint64_t footprint_bytes)
{
	for (size_t i = 0; i < n; i++) {
		if (costs[i].footprint_bytes == footprint_bytes) {
			return &costs[i];
		}
	}
	return NULL;
}
