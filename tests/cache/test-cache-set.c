/* SPDX-License-Identifier: MIT */
/*
 * A set's cache figures played by a generated program under the cache simulator (issue 28,
 * doc/cache.md "Cache figures in a set"): `dps build` makes a program of tests/cache/data/set/
 * (three runs with figures, on two threads, one at a time), `dps cache capture`'s code runs it
 * under the real cachegrind with the geometry it simulates given to libdps through
 * DPS_CACHE_GEOMETRY (play-set.c), and the cache stub's kernel (cache_play_kernel, summed over the
 * three runs) must make the set's accesses, D1 misses and LL misses within 5 % (plus 64 a run for
 * the few accesses around the loop). With --cache-scale 0.5, half the misses; with
 * --thread-cache-scale 2=0, none of thread 2's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

#include <dps/dps-status.h>

#include "actset.h"
#include "cache.h"
#include "diag.h"
#include "dps-test.h"
#include "play-set.h"

static char *dir; /* g_free: the test's directory (dps_test_mkdtemp) */

static void make_dir(void)
{
	dir = dps_test_mkdtemp("cache-set");
}

static void remove_dir(void)
{
	dps_test_rmtree(dir);
	g_free(dir);
	dir = NULL;
}

TestSuite(cache_set, .init = make_dir, .fini = remove_dir, .timeout = 300);

/* The set's runs with cache figures. */
#define RUNS 3

static void expect_near(const char *what, uint64_t got, uint64_t want)
{
	double bound = 0.05 * (double)want + 64.0 * RUNS;

	cr_expect_leq(got > want ? got - want : want - got, bound,
		      "%s: %" PRIu64 " played, %" PRIu64 " in the set (bound %.0f)", what, got,
		      want, bound);
	cr_log_info("%s: %" PRIu64 " played, %" PRIu64 " in the set (%+.2f %%)", what, got, want,
		    want ? 100.0 * ((double)got - (double)want) / (double)want : 0.0);
}

/* The set's figures summed, read by the set's own parser. */
static struct dps_action_cache set_figures(const char *set)
{
	struct dps_actset *s = NULL;
	struct dps_diag diag = {{0}};
	struct dps_action_cache want = {0};

	cr_assert_eq(dps_actset_load_dir(set, &s, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(s->n_caches, RUNS);
	for (size_t i = 0; i < s->n_caches; i++) {
		want.accesses += s->caches[i].accesses;
		want.stores += s->caches[i].stores;
		want.d1_misses += s->caches[i].d1_misses;
		want.ll_misses += s->caches[i].ll_misses;
	}
	dps_actset_destroy(s);
	return want;
}

/* The cache stub's kernel figures when the program dps build makes of set runs under
 * cachegrind with these extra options (a knob, or NULL). */
static struct cache_counts play_under_cachegrind(const char *set, const char *knob,
						 const char *value)
{
	char *prog = dps_test_strf("%s/set-stub", dir);
	struct cache_counts c = cache_test_play_set(set, prog, knob, value);

	g_free(prog);
	return c;
}

Test(cache_set, a_generated_program_plays_the_sets_misses_under_cachegrind)
{
	char *set = dps_test_strf("%s/tests/cache/data/set", dps_test_source_dir());
	struct dps_action_cache want = set_figures(set);
	struct cache_counts c = play_under_cachegrind(set, NULL, NULL);

	expect_near("accesses", c.loads + c.stores, want.accesses);
	expect_near("D1 misses", c.d1_misses, want.d1_misses);
	expect_near("LL misses", c.ll_misses, want.ll_misses);
	g_free(set);
}

/* --cache-scale 0.5: half the misses at both levels, the accesses as they were. */
Test(cache_set, cache_scale_halves_the_misses_under_cachegrind)
{
	char *set = dps_test_strf("%s/tests/cache/data/set", dps_test_source_dir());
	struct dps_action_cache want = set_figures(set);
	struct cache_counts c = play_under_cachegrind(set, "--cache-scale", "0.5");

	expect_near("accesses", c.loads + c.stores, want.accesses);
	expect_near("D1 misses", c.d1_misses, want.d1_misses / 2);
	expect_near("LL misses", c.ll_misses, want.ll_misses / 2);
	g_free(set);
}

/* --thread-cache-scale 2=0: the created thread's run plays no misses, the root's all of
 * theirs (the knob dps whatif --sweep misses turns). */
Test(cache_set, thread_cache_scale_scales_one_threads_misses_under_cachegrind)
{
	char *set = dps_test_strf("%s/tests/cache/data/set", dps_test_source_dir());
	struct dps_action_cache want = set_figures(set);
	struct cache_counts c = play_under_cachegrind(set, "--thread-cache-scale", "2=0");

	/* thread 2's run: cache 500000 50000 120000 30000 (tests/cache/data/set/2.act) */
	expect_near("accesses", c.loads + c.stores, want.accesses);
	expect_near("D1 misses", c.d1_misses, want.d1_misses - 120000);
	expect_near("LL misses", c.ll_misses, want.ll_misses - 30000);
	g_free(set);
}
