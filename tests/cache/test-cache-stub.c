/* SPDX-License-Identifier: MIT */
/*
 * The cache stub (<dps/cache.h>, doc/cache.md "The cache stub") under the cache simulator it
 * must satisfy: bench/cache/stub.c plays a target, `dps cache capture`'s code
 * (cache_capture_run, with the geometry cache_geometry_detect gives it) runs it under the real
 * cachegrind, and the kernel function's D1 and LL misses must be the target's within 5 %, plus
 * 64 for the few accesses around the loop. Two targets: one mostly L1-resident, one with most
 * of its accesses missing the last level. The geometry libdps sizes its regions from must be the
 * one the capture simulates. And, in process: bad targets refused, the rest of the CPU time
 * burnt, and a kernel longer than the CPU time said so.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <glib.h>

#include <dps/cache.h>
#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"
#include "dps-test.h"

static char *prog(void)
{
	return dps_test_strf("%s/bench/dps-bench-cache-stub", dps_test_build_dir());
}

Test(cache_stub, the_runtime_sizes_its_regions_from_the_geometry_the_capture_simulates)
{
	char *p = prog();
	const char *argv[] = {p, "--geometry", NULL};
	struct dps_test_run run = dps_test_run(NULL, argv, NULL);
	struct cache_geometry g;
	unsigned long long d1, ll;
	unsigned d1a, lla, line;

	unsetenv("DPS_CACHE_GEOMETRY");
	cache_geometry_detect(&g);
	cr_assert_eq(run.status, 0, "%s", run.err);
	cr_assert_eq(sscanf(run.out, "%llu %u %llu %u %u", &d1, &d1a, &ll, &lla, &line), 5, "%s",
		     run.out);
	cr_assert_eq(d1, g.d1.size_bytes, "libdps D1 %llu B, the capture's %" PRIu64, d1,
		     g.d1.size_bytes);
	cr_assert_eq(d1a, g.d1.assoc);
	cr_assert_eq(ll, g.ll.size_bytes, "libdps LL %llu B, the capture's %" PRIu64, ll,
		     g.ll.size_bytes);
	cr_assert_eq(lla, g.ll.assoc);
	cr_assert_eq(line, g.d1.line_bytes);
	dps_test_run_fini(&run);
	g_free(p);
}

/* The stub program's kernel figures for a target, captured as dps cache capture does. */
static struct cache_counts capture_stub(uint64_t a, uint64_t st, uint64_t m1, uint64_t m2,
					uint64_t cpu_ns)
{
	char *p = prog();
	char *args[5] = {dps_test_strf("%" PRIu64, a), dps_test_strf("%" PRIu64, st),
			 dps_test_strf("%" PRIu64, m1), dps_test_strf("%" PRIu64, m2),
			 dps_test_strf("%" PRIu64, cpu_ns)};
	char *argv[] = {p, args[0], args[1], args[2], args[3], args[4], NULL};
	struct cache_geometry geom;
	struct cache_capture_options opts = {.argv = argv, .geom = &geom};
	struct cache_profile *prof = NULL;
	struct dps_diag diag = {{0}};
	const struct cache_function *k;
	struct cache_counts c;
	char *geom_env;
	int status;

#if defined(__SANITIZE_ADDRESS__)
	/* an instrumented program cannot run under Valgrind (its runtime must load first) */
	dps_test_skip_build("the kernels of a sanitized build cannot run under Valgrind");
#endif
	dps_test_require(dps_test_has_program("valgrind"), "valgrind is not installed");
	cache_geometry_detect(&geom);
	/* Under Valgrind the program's CPUID is Valgrind's: it is told what the capture simulates
	 */
	geom_env = dps_test_strf("%" PRIu64 ",%u,%u %" PRIu64 ",%u,%u", geom.d1.size_bytes,
				 geom.d1.assoc, geom.d1.line_bytes, geom.ll.size_bytes,
				 geom.ll.assoc, geom.ll.line_bytes);
	setenv("DPS_CACHE_GEOMETRY", geom_env, 1);
	cr_assert_eq(cache_capture_run(&opts, &prof, &status, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(status, 0);
	k = cache_profile_borrow_function(prof, "cache_play_kernel");
	cr_assert_not_null(k, "no cache_play_kernel in the capture");
	c = k->counts;
	cache_profile_destroy(prof);
	unsetenv("DPS_CACHE_GEOMETRY");
	g_free(geom_env);
	for (int i = 0; i < 5; i++) {
		g_free(args[i]);
	}
	g_free(p);
	return c;
}

static void expect_near(const char *what, uint64_t got, uint64_t want)
{
	double bound = 0.05 * (double)want + 64;

	cr_expect_leq(got > want ? got - want : want - got, bound,
		      "%s: %" PRIu64 " played, %" PRIu64 " asked (bound %.0f)", what, got, want,
		      bound);
}

/* The mostly-L1 target (2,000,000 accesses, 600,000 stores, 40,000 D1 and 4,000 LL misses)
 * played under cachegrind, over cpu_ns of CPU (0: in one go), checked figure by figure. */
static void expect_mostly_l1_target(uint64_t cpu_ns)
{
	struct cache_counts c = capture_stub(2000000, 600000, 40000, 4000, cpu_ns);

	expect_near("accesses", c.loads + c.stores, 2000000);
	expect_near("stores", c.stores, 600000);
	expect_near("D1 misses", c.d1_misses, 40000);
	expect_near("LL misses", c.ll_misses, 4000);
}

Test(cache_stub, a_mostly_l1_resident_target_keeps_its_misses_under_cachegrind, .timeout = 180)
{
	expect_mostly_l1_target(0);
}

Test(cache_stub, a_target_missing_the_last_level_keeps_its_misses_under_cachegrind, .timeout = 180)
{
	struct cache_counts c = capture_stub(1000000, 100000, 700000, 500000, 0);

	expect_near("accesses", c.loads + c.stores, 1000000);
	expect_near("D1 misses", c.d1_misses, 700000);
	expect_near("LL misses", c.ll_misses, 500000);
}

/* The same figures as the first, paced over 10 ms of CPU: 20 slices, each its share, the
 * warm and hot lines kept from one slice to the next. */
Test(cache_stub, a_paced_play_keeps_its_misses_under_cachegrind, .timeout = 180)
{
	expect_mostly_l1_target(10000000);
}

static void expect_refused(struct dps_cache_target t, const char *want)
{
	char err[256] = "";

	cr_expect_eq(dps_cache_play(&t, NULL, NULL, err, sizeof(err)), DPS_ERR_INVAL,
		     "target %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 " accepted", t.accesses,
		     t.stores, t.d1_misses, t.ll_misses);
	cr_expect(strstr(err, want), "message '%s' lacks '%s'", err, want);
}

Test(cache_stub, bad_targets_are_refused_with_what_is_wrong)
{
	expect_refused((struct dps_cache_target){0}, "accesses=0");
	expect_refused((struct dps_cache_target){.accesses = 10, .d1_misses = 11},
		       "d1_misses=11 > accesses=10");
	expect_refused((struct dps_cache_target){.accesses = 10, .d1_misses = 5, .ll_misses = 6},
		       "ll_misses=6 > d1_misses=5");
	expect_refused((struct dps_cache_target){.accesses = 10, .stores = 11},
		       "stores=11 > accesses=10");
	dps_cache_free();
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

Test(cache_stub, the_rest_of_the_cpu_time_is_burnt_after_the_accesses, .timeout = 60)
{
	struct dps_cache_target t = {
	    .accesses = 10000, .d1_misses = 1000, .ll_misses = 100, .cpu_ns = 50000000};
	struct dps_cache_result res;
	uint64_t before, used;
	char err[256];

	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s",
		     err); /* regions made */
	before = thread_cpu_ns();
	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s", err);
	used = thread_cpu_ns() - before;
	cr_expect_not(res.over);
	cr_expect_eq(res.slices, 1, "10,000 accesses are one block: one slice");
	cr_expect_geq(res.kernel_cpu_ns + res.burn_ns, t.cpu_ns);
	cr_expect_geq(used, t.cpu_ns, "%" PRIu64 " ns of CPU for a 50 ms target", used);
	cr_expect_leq(used, t.cpu_ns + res.setup_ns + 5000000, "%" PRIu64 " ns of CPU", used);
	dps_cache_free();
}

/* 2 million accesses over 20 ms: 40 slices of 500 us (50,000 accesses each, more than a
 * block), every figure played whole, the run its CPU time. */
Test(cache_stub, a_play_with_a_cpu_time_spreads_its_accesses_in_slices, .timeout = 60)
{
	struct dps_cache_target t = {.accesses = 2000000,
				     .stores = 600000,
				     .d1_misses = 40000,
				     .ll_misses = 4000,
				     .cpu_ns = 20000000};
	struct dps_cache_result res;
	uint64_t before, used;
	char err[256];

	before = thread_cpu_ns();
	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s", err);
	used = thread_cpu_ns() - before;
	cr_expect_eq(res.slices, 40);
	cr_expect_eq(res.stores_played, 600000);
	cr_expect_geq(res.kernel_cpu_ns + res.burn_ns, t.cpu_ns);
	cr_expect_geq(used, t.cpu_ns, "%" PRIu64 " ns of CPU for a 20 ms target", used);
	if (!res.over) {
		cr_expect_gt(res.burn_ns, 0);
	}
	t.cpu_ns = 0;
	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s", err);
	cr_expect_eq(res.slices, 1, "no CPU time: the accesses in one go");
	cr_expect_eq(res.burn_ns, 0);
	dps_cache_free();
}

/* A replay's budget: the run ends where the thread's CPU clock reaches cpu_until_ns (cpu_ns
 * unused), and a run already past it plays its accesses in one go, nothing burnt. */
Test(cache_stub, a_play_to_a_cpu_clock_deadline_ends_there, .timeout = 60)
{
	struct dps_cache_target t = {
	    .accesses = 400000, .d1_misses = 4000, .ll_misses = 400, .cpu_ns = 1000000};
	struct dps_cache_result res;
	uint64_t end;
	char err[256];

	/* regions made, and libdps's calibration loaded (measured where there is no file:
	 * tens of ms, which would have eaten the deadline below) */
	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s", err);
	t.cpu_ns = 0;
	t.cpu_until_ns = thread_cpu_ns() + 10000000;
	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s", err);
	end = thread_cpu_ns();
	cr_expect_geq(end, t.cpu_until_ns, "ended %" PRIu64 " ns before the deadline",
		      t.cpu_until_ns - end);
	cr_expect_gt(res.slices, 1);
	cr_expect_gt(res.burn_ns, 0);
	t.cpu_until_ns = 1; /* long past */
	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s", err);
	cr_expect_eq(res.slices, 1);
	cr_expect_eq(res.burn_ns, 0);
	cr_expect(res.over);
	dps_cache_free();
}

Test(cache_stub, a_kernel_longer_than_the_cpu_time_says_so, .timeout = 60)
{
	struct dps_cache_target t = {
	    .accesses = 2000000, .d1_misses = 1000000, .ll_misses = 500000, .cpu_ns = 1000};
	struct dps_cache_result res;
	char err[256];

	cr_assert_eq(dps_cache_play(&t, NULL, &res, err, sizeof(err)), DPS_OK, "%s", err);
	cr_expect(res.over);
	cr_expect_eq(res.burn_ns, 0);
	cr_expect_gt(res.kernel_cpu_ns, t.cpu_ns);
	dps_cache_free();
}

Test(cache_stub, a_malformed_geometry_in_the_environment_is_refused)
{
	char *p = prog();
	const char *argv[] = {p, "1000", "0", "10", "1", NULL};
	const char *env[] = {"DPS_CACHE_GEOMETRY=48K,12,64", NULL};
	struct dps_test_run run = dps_test_run(NULL, argv, env);

	cr_expect_eq(run.status, 1, "exit %d", run.status);
	cr_expect(strstr(run.err, "Bad DPS_CACHE_GEOMETRY: value=\"48K,12,64\""), "%s", run.err);
	dps_test_run_fini(&run);
	g_free(p);
}

/* The warm region's size (doc/cache.md, "The footprint"): the geometry's sqrt(L1D x LL lines)
 * without a footprint, else the footprint's lines, at least twice L1D and at most half the last
 * level; on a geometry given, so that the lines are known: 512 lines of L1D, 16,384 of LL. */
Test(cache_stub, a_footprint_sizes_the_warm_region_within_its_bounds)
{
	static const struct {
		const char *footprint;
		const char *warm_lines;
	} cases[] = {{"0", "warm_lines 2896 "},		/* sqrt(512 x 16384) */
		     {"4096", "warm_lines 1024 "},	/* below twice L1D: 2 x 512 */
		     {"262144", "warm_lines 4096 "},	/* 256 KiB: its own lines */
		     {"67108864", "warm_lines 8192 "}}; /* 64 MiB: half the last level */
	char *p = prog();
	const char *env[] = {"DPS_CACHE_GEOMETRY=32768,8,64 1048576,16,64", NULL};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *argv[] = {p, "1000", "0", "10", "0", "0", cases[i].footprint, NULL};
		struct dps_test_run run = dps_test_run(NULL, argv, env);

		cr_expect_eq(run.status, 0, "footprint %s: exit %d: %s", cases[i].footprint,
			     run.status, run.err);
		cr_expect(strstr(run.out, cases[i].warm_lines), "footprint %s: want %s, got %s",
			  cases[i].footprint, cases[i].warm_lines, run.out);
		dps_test_run_fini(&run);
	}
	g_free(p);
}

/* The quiet cache's costs (--cache-outcome): each kind measured, a miss to memory dearer than
 * a hit by far (a bound that holds beside a busy core: about 100 times here), and a target's
 * cost their sum over its accesses. */
Test(cache_stub, the_quiet_costs_are_measured_per_kind_and_summed, .timeout = 60)
{
	struct dps_cache_costs c,
	    hand = {.load_ns = 0.5, .store_ns = 1, .warm_ns = 4, .cold_ns = 80};
	struct dps_cache_target t = {
	    .accesses = 1000, .stores = 300, .d1_misses = 100, .ll_misses = 10};
	char err[256];

	cr_assert_eq(dps_cache_measure_costs(0, NULL, &c, err, sizeof(err)), DPS_OK, "%s", err);
	cr_expect_gt(c.load_ns, 0);
	cr_expect_gt(c.store_ns, 0);
	cr_expect_gt(c.warm_ns, 0);
	/* a warm miss is dearer than a hit natively (1.7 against 0.24 ns), not under ASan's
	 * checks of every load (2.9 against 3.1): only the miss to memory is compared */
	cr_expect_gt(c.cold_ns, 2 * c.load_ns, "cold %.2f, load %.2f ns", c.cold_ns, c.load_ns);
	cr_expect_gt(c.cold_ns, c.warm_ns, "cold %.2f, warm %.2f ns", c.cold_ns, c.warm_ns);
	/* 600 loads, 300 stores, 90 warm and 10 cold misses */
	cr_expect_eq(dps_cache_quiet_ns(&t, &hand), 300 + 300 + 360 + 800);
	/* more stores than hits: the hits are all stores */
	t.stores = 1000;
	cr_expect_eq(dps_cache_quiet_ns(&t, &hand), 900 + 360 + 800);
	dps_cache_free();
}
