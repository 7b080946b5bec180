/* SPDX-License-Identifier: MIT */
/*
 * The cache stub as a program (doc/cache.md, "The cache stub"): plays one target with
 * dps_cache_play on the geometry libdps detects (or DPS_CACHE_GEOMETRY), so that a run under
 * cachegrind gives the figures of the stub's kernel (cache_play_kernel) to compare with the
 * target: bench/cache.sh puts them beside each kernel's, tests/cache/test-cache-stub.c checks
 * them on two targets.
 *
 *	dps-bench-cache-stub ACCESSES STORES D1_MISSES LL_MISSES [CPU_NS [FOOTPRINT_BYTES]]
 *	dps-bench-cache-stub --geometry     prints D1_BYTES D1_ASSOC LL_BYTES LL_ASSOC LINE SOURCE
 *	dps-bench-cache-stub --costs [FOOTPRINT_BYTES]
 *	                                    prints the quiet cache's costs, ns an access: LOAD STORE
 *	                                    WARM COLD (dps_cache_measure_costs, --cache-outcome)
 *
 * Exit 0, 1 when the play fails (the message on stderr), 2 on bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/cache.h>

int main(int argc, char **argv)
{
	struct dps_cache_target t = {0};
	struct dps_cache_result res;
	char err[256];
	int status;

	if (argc == 2 && !strcmp(argv[1], "--geometry")) {
		struct dps_cache_geometry g;

		dps_cache_geometry_detect(&g);
		printf("%" PRIu64 " %u %" PRIu64 " %u %u %s\n", g.d1_bytes, g.d1_assoc, g.ll_bytes,
		       g.ll_assoc, g.line_bytes, g.source);
		return 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "--costs")) {
		struct dps_cache_costs c;

		if (dps_cache_measure_costs(argc == 3 ? strtoull(argv[2], NULL, 10) : 0, NULL, &c,
					    err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		printf("%.3f %.3f %.3f %.3f\n", c.load_ns, c.store_ns, c.warm_ns, c.cold_ns);
		return 0;
	}
	if (argc < 5 || argc > 7) {
		fprintf(
		    stderr,
		    "usage: %s ACCESSES STORES D1_MISSES LL_MISSES [CPU_NS [FOOTPRINT_BYTES]]\n",
		    argv[0]);
		return 2;
	}
	t.accesses = strtoull(argv[1], NULL, 10);
	t.stores = strtoull(argv[2], NULL, 10);
	t.d1_misses = strtoull(argv[3], NULL, 10);
	t.ll_misses = strtoull(argv[4], NULL, 10);
	t.cpu_ns = argc >= 6 ? strtoull(argv[5], NULL, 10) : 0;
	t.footprint_bytes = argc == 7 ? strtoull(argv[6], NULL, 10) : 0;
	status = dps_cache_play(&t, NULL, &res, err, sizeof(err));
	if (status) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	printf("kernel_cpu_ns %" PRIu64 " burn_ns %" PRIu64 " over %d stores_played %" PRIu64
	       " warm_lines %" PRIu64 " hot_lines %" PRIu64 "\n",
	       res.kernel_cpu_ns, res.burn_ns, res.over, res.stores_played, res.warm_lines,
	       res.hot_lines);
	dps_cache_free();
	return 0;
}
