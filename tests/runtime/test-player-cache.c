/* SPDX-License-Identifier: MIT */
/*
 * The player's runs with cache figures (format version 4, runtime/player-cache.c): the
 * accesses inside the run's CPU time, none for an idle thread, and figures the cache stub
 * cannot play refused before anything runs. Part of test-runtime-player (test-player.c has
 * the rest of the player's tests).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <dps/cache.h>
#include <dps/dps.h>

#include "player-internal.h"

#define MS 1000000LL
#define US 1000LL
#define THREAD(i, acts)                                                                            \
	{                                                                                          \
		.id = (i), .name = NULL, .actions = (acts),                                        \
		.n_actions = sizeof(acts) / sizeof((acts)[0])                                      \
	}
#define RUN(x)                                                                                     \
	{                                                                                          \
		.arg = (x), .kind = DPS_ACT_RUN, .line = __LINE__                                  \
	}

static struct dps_play_options opts;

static void setup(void)
{
	char err[256];

	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(dps_init(NULL, err, sizeof(err)), DPS_OK, "%s", err);
	dps_play_options_default(&opts);
	opts.mode = DPS_RUN_WALL;
	opts.summary = false;
}

TestSuite(player_cache, .init = setup, .timeout = 60);

/* A run with cache figures (format version 4): arg2 is 1 + the index of its figures. */
#define CACHE_RUN(x, k)                                                                            \
	{                                                                                          \
		.arg = (x), .kind = DPS_ACT_RUN, .line = __LINE__, .arg2 = (k)                     \
	}

/*
 * cpu mode: the accesses are inside the run's CPU time, not added to it. The CPU the thread
 * spent in its runs (its CPU less dps's own) stays the runs' requested time, although the
 * accesses took a good part of it; the stub's set-up is dps's own.
 */
Test(player_cache, a_runs_cache_accesses_are_inside_its_cpu_time, .timeout = 60)
{
	static const struct dps_action_cache caches[] = {
	    {.accesses = 1000, .stores = 100, .d1_misses = 10, .ll_misses = 1},
	    {.accesses = 2000000, .stores = 200000, .d1_misses = 100000, .ll_misses = 20000}};
	static const struct dps_action a0[] = {CACHE_RUN(1 * US, 1), CACHE_RUN(40 * MS, 2),
					       RUN(1 * MS)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0)};
	struct dps_program prog = {
	    .threads = th, .n_threads = 1, .root = 0, .caches = caches, .n_caches = 2};
	struct dps_play_result r;
	uint64_t in_runs;

	opts.mode = DPS_RUN_CPU;
	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK, "%s", r.detail);
	cr_assert_eq(r.threads[0].run_req_ns, 41 * MS + 1 * US);
	cr_assert_gt(r.threads[0].cache_cpu_ns, 0, "the accesses were not made");
	cr_assert_geq(r.threads[0].cpu_ns, 41 * MS);
	in_runs = r.threads[0].cpu_ns - r.threads[0].own_cpu_ns;
	cr_assert_leq(in_runs, 41 * MS + 1 * US + 1 * MS,
		      "%" PRIu64 " ns of CPU in the runs, %" PRIu64 " of them the accesses",
		      in_runs, r.threads[0].cache_cpu_ns);
	dps_play_result_fini(&r);
}

/* An idle thread sleeps its runs: without their accesses. */
Test(player_cache, an_idle_thread_makes_no_cache_access)
{
	static const struct dps_action_cache caches[] = {
	    {.accesses = 100000, .stores = 100, .d1_misses = 1000, .ll_misses = 100}};
	static const struct dps_action a0[] = {CACHE_RUN(1 * MS, 1)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0)};
	struct dps_program prog = {
	    .threads = th, .n_threads = 1, .root = 0, .caches = caches, .n_caches = 1};
	bool idle[1] = {true};
	struct dps_play_result r;

	opts.thread_run_idle = idle;
	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_assert_eq(r.threads[0].cache_cpu_ns, 0);
	cr_assert_eq(r.threads[0].sleep_req_ns, 1 * MS);
	dps_play_result_fini(&r);
}

/* A run's figures out of the table, or ones the cache stub would refuse, are refused before
 * anything runs, as a set that loads never fails at run time for a number. */
Test(player_cache, cache_figures_the_stub_cannot_play_are_refused_before_anything_runs)
{
	static const struct dps_action_cache bad[] = {
	    {.accesses = 10, .d1_misses = 5, .ll_misses = 6}};
	static const struct dps_action_cache good[] = {{.accesses = 10, .d1_misses = 5}};
	static const struct dps_action a0[] = {CACHE_RUN(1 * US, 1)};
	static const struct dps_action a1[] = {CACHE_RUN(1 * US, 2)};
	static const struct dps_action a2[] = {CACHE_RUN(1 * US, -1)};
	static const struct dps_thread_desc t0[] = {THREAD(1, a0)};
	static const struct dps_thread_desc t1[] = {THREAD(1, a1)};
	static const struct dps_thread_desc t2[] = {THREAD(1, a2)};
	struct dps_program none = {.threads = t0, .n_threads = 1};
	struct dps_program refused = {.threads = t0, .n_threads = 1, .caches = bad, .n_caches = 1};
	struct dps_program beyond = {.threads = t1, .n_threads = 1, .caches = good, .n_caches = 1};
	struct dps_program negative = {
	    .threads = t2, .n_threads = 1, .caches = good, .n_caches = 1};
	struct dps_program fine = {.threads = t0, .n_threads = 1, .caches = good, .n_caches = 1};

	cr_assert_eq(dps_play(&none, &opts, NULL), DPS_ERR_INVAL);
	cr_assert_eq(dps_play(&refused, &opts, NULL), DPS_ERR_INVAL);
	cr_assert_eq(dps_play(&beyond, &opts, NULL), DPS_ERR_INVAL);
	cr_assert_eq(dps_play(&negative, &opts, NULL), DPS_ERR_INVAL);
	cr_assert_eq(dps_play(&fine, &opts, NULL), DPS_OK);
}

/* --cache-scale: the scaled misses are capped so that the stub still plays them (D1 misses at
 * most the accesses, LL misses at most the D1 misses), and 0 makes a run of hits. */
Test(player_cache, a_cache_scale_keeps_the_figures_playable)
{
	static const struct dps_action_cache caches[] = {
	    {.accesses = 100000, .stores = 1000, .d1_misses = 60000, .ll_misses = 30000}};
	static const struct dps_action a0[] = {CACHE_RUN(1 * US, 1)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0)};
	struct dps_program prog = {
	    .threads = th, .n_threads = 1, .root = 0, .caches = caches, .n_caches = 1};
	const double scales[] = {0.0, 0.5, 3.0, 1e30};
	struct dps_play_result r;

	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		opts.cache_scale = scales[i];
		cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK, "scale %g: %s", scales[i],
			     r.detail);
		cr_assert_gt(r.threads[0].cache_cpu_ns, 0, "scale %g", scales[i]);
		dps_play_result_fini(&r);
	}
}

/*
 * --cache-outcome: the runs with cache figures measure the quiet cache's costs before the
 * threads start, and a run lasts its time plus what its accesses took over them. Alone on its
 * cache the thread's CPU stays near the run's time (bounds that hold beside a busy core and
 * under ASan: the accesses are about a tenth of it; dps's own CPU, the regions' set-up, is
 * taken out of the run, so the thread's whole CPU is what is bounded); a play without figures
 * measures nothing.
 */
Test(player_cache, the_outcome_mode_keeps_a_quiet_run_near_its_time, .timeout = 60)
{
	static const struct dps_action_cache caches[] = {
	    {.accesses = 2000000, .stores = 200000, .d1_misses = 100000, .ll_misses = 20000}};
	static const struct dps_action a0[] = {CACHE_RUN(40 * MS, 1)};
	static const struct dps_action plain[] = {RUN(1 * MS)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0)}, th2[] = {THREAD(1, plain)};
	struct dps_program prog = {
	    .threads = th, .n_threads = 1, .root = 0, .caches = caches, .n_caches = 1};
	struct dps_program none = {.threads = th2, .n_threads = 1, .root = 0};
	struct dps_play_result r;
	uint64_t in_runs;

	opts.mode = DPS_RUN_CPU;
	opts.cache_outcome = true;
	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK, "%s", r.detail);
	cr_assert_gt(r.threads[0].cache_cpu_ns, 0, "the accesses were not made");
	in_runs = r.threads[0].cpu_ns - r.threads[0].own_cpu_ns;
	cr_expect_geq(r.threads[0].cpu_ns, 30 * MS, "%" PRIu64 " ns of CPU, %" PRIu64 " in the run",
		      r.threads[0].cpu_ns, in_runs);
	cr_expect_leq(r.threads[0].cpu_ns, 70 * MS,
		      "%" PRIu64 " ns of CPU, %" PRIu64 " in the run, %" PRIu64 " the accesses",
		      r.threads[0].cpu_ns, in_runs, r.threads[0].cache_cpu_ns);
	dps_play_result_fini(&r);
	cr_assert_eq(dps_play(&none, &opts, &r), DPS_OK, "%s", r.detail);
	dps_play_result_fini(&r);
	opts.cache_outcome = false;
}

/* The cpu-mode run's length under --cache-outcome: its time and what the accesses took over
 * the quiet cache's, less what they took under it, never below 0. */
Test(player_cache, an_outcome_run_is_its_time_and_the_accesses_slowdown)
{
	cr_expect_eq(dps__player_cache_run_ns(1000, 300, 100), 1200);
	cr_expect_eq(dps__player_cache_run_ns(1000, 100, 300), 800);
	cr_expect_eq(dps__player_cache_run_ns(1000, 100, 100), 1000);
	cr_expect_eq(dps__player_cache_run_ns(100, 0, 5000), 0);
}

/* --cache-outcome's figures are not backed by a check that holds: a player is told so before
 * the play, and only when the option meets cache figures. */
Test(player_cache, the_outcome_mode_is_said_to_be_a_direction)
{
	static const struct dps_action_cache caches[] = {
	    {.accesses = 1000, .stores = 0, .d1_misses = 10, .ll_misses = 1}};
	static const struct dps_action a0[] = {CACHE_RUN(1 * US, 1)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0)};
	struct dps_program prog = {
	    .threads = th, .n_threads = 1, .root = 0, .caches = caches, .n_caches = 1};
	struct dps_program none = {.threads = th, .n_threads = 1, .root = 0};
	const char *note;

	opts.cache_outcome = false;
	cr_expect_null(dps_main_options_note(&prog, &opts));
	opts.cache_outcome = true;
	cr_expect_null(dps_main_options_note(&none, &opts));
	note = dps_main_options_note(&prog, &opts);
	cr_assert_not_null(note);
	cr_expect(strstr(note, "a direction, not a figure"), "%s", note);
	opts.cache_outcome = false;
}

/*
 * --thread-cache-scale under --cache-outcome, cpu mode (what dps whatif --sweep misses plays):
 * a run whose misses are scaled down ends sooner by what they cost on the quiet cache, here
 * given by DPS_CACHE_COSTS (the same for both plays): 400,000 misses to memory at 100 ns are
 * 40 ms of the run's 60 ms, so at scale 0 the thread's CPU is about 20 ms, at 1 about 60 ms.
 * Bounds that hold beside a busy core and under ASan (the hits' real cost, the regions'
 * set-up, which is taken out of the run).
 */
Test(player_cache, a_threads_misses_scaled_down_end_its_run_sooner_by_their_cost, .timeout = 60)
{
	static const struct dps_action_cache caches[] = {
	    {.accesses = 500000, .d1_misses = 400000, .ll_misses = 400000}};
	static const struct dps_action a0[] = {CACHE_RUN(60 * MS, 1)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0)};
	struct dps_program prog = {
	    .threads = th, .n_threads = 1, .root = 0, .caches = caches, .n_caches = 1};
	const double scale0 = 0.0, scale1 = 1.0;
	struct dps_play_result r;
	uint64_t cpu0, cpu1;

	setenv("DPS_CACHE_COSTS", "0:0,0,100,100", 1);
	opts.mode = DPS_RUN_CPU;
	opts.cache_outcome = true;
	opts.thread_cache_scale = &scale0;
	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK, "%s", r.detail);
	cpu0 = r.threads[0].cpu_ns;
	dps_play_result_fini(&r);
	opts.thread_cache_scale = &scale1;
	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK, "%s", r.detail);
	cpu1 = r.threads[0].cpu_ns;
	dps_play_result_fini(&r);
	opts.thread_cache_scale = NULL;
	opts.cache_outcome = false;
	unsetenv("DPS_CACHE_COSTS");
	cr_expect_leq(cpu0, 35 * MS, "scale 0: %" PRIu64 " ns of CPU, want about 20 ms", cpu0);
	cr_expect_geq(cpu1, 50 * MS, "scale 1: %" PRIu64 " ns of CPU, want about 60 ms", cpu1);
}

/* DPS_CACHE_COSTS: what dps whatif writes parses back to the same text; a malformed value
 * fails the play before its threads start, naming the variable, its value and the form. */
Test(player_cache, cache_costs_given_in_the_environment_are_read_or_refused)
{
	static const struct dps_action_cache caches[] = {{.accesses = 1000, .d1_misses = 10}};
	static const struct dps_action a0[] = {CACHE_RUN(1 * MS, 1)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0)};
	struct dps_program prog = {
	    .threads = th, .n_threads = 1, .root = 0, .caches = caches, .n_caches = 1};
	const struct dps_cache_costs two[] = {{0, 0.35, 0.33, 1.04, 24.9},
					      {524288, 0.4, 0.3, 2.5, 30}};
	const char *bad[] = {"",
			     "x",
			     "0:1,2,3",
			     "0:1,2,3,-4",
			     "0:1,2,3,nan",
			     "0:1,2,3,4;",
			     "0:1,2,3,4 junk",
			     "-5:1,2,3,4"};
	struct dps_cache_costs back[4];
	struct dps_play_result r;
	char text[256];
	size_t n = 0;

	cr_assert_lt(dps_cache_costs_format(two, 2, text, sizeof(text)), sizeof(text));
	cr_expect_str_eq(text, "0:0.35,0.33,1.04,24.9;524288:0.4,0.3,2.5,30");
	cr_assert_eq(dps_cache_costs_parse(text, back, 4, &n), 0, "%s", text);
	cr_expect_eq(n, 2);
	cr_expect_eq(back[1].footprint_bytes, 524288);
	cr_expect_eq(back[1].cold_ns, 30);
	cr_expect_neq(dps_cache_costs_parse(text, back, 1, &n), 0, "two entries into room for one");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_neq(dps_cache_costs_parse(bad[i], back, 4, &n), 0, "'%s' parsed", bad[i]);
	}
	setenv("DPS_CACHE_COSTS", "0:1,2,3", 1);
	opts.mode = DPS_RUN_CPU;
	opts.cache_outcome = true;
	cr_expect_neq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_expect(strstr(r.detail, "Bad DPS_CACHE_COSTS: value=\"0:1,2,3\""), "%s", r.detail);
	cr_expect(strstr(r.detail, "FOOTPRINT:LOAD,STORE,WARM,COLD"), "%s", r.detail);
	dps_play_result_fini(&r);
	opts.cache_outcome = false;
	unsetenv("DPS_CACHE_COSTS");
}
