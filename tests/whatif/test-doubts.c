/* SPDX-License-Identifier: MIT */
/*
 * When dps whatif says `unclear` (whatif/doubts.c, issue 24) on made-up sets and analyses: a
 * lock's or a partial barrier's recorded waits between the component and another thread
 * that blocked long enough, waits both ways in a set without timings, two workers that ran
 * side by side without waiting and ended together (unless a barrier they share explains it),
 * what the probe could not describe, a stub at scale 1 off its recording. And what is not a
 * doubt: a one-way dependency, a lock's few microseconds, a stub within its recording.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "actset.h"
#include "analyzer.h"
#include "whatif-internal.h"

#define MS 1000000ULL

static struct dps_actset *set;
static struct analyzer_result *ares;
static struct whatif_result r;
static bool mark[3];

/* main (1) creates workers 2 and 3 and joins them; each worker runs 100 ms. */
static void setup(void)
{
	set = dps_actset_create();
	cr_assert_not_null(set);
	for (uint64_t id = 1; id <= 3; id++) {
		cr_assert_neq(dps_actset_add_thread(set, id), DPS_ACTSET_NO_THREAD);
	}
	dps_actset_append(set, 0, DPS_ACT_CREATE, 2, 0);
	dps_actset_append(set, 0, DPS_ACT_CREATE, 3, 0);
	dps_actset_append(set, 0, DPS_ACT_JOIN, 2, 0);
	dps_actset_append(set, 0, DPS_ACT_JOIN, 3, 0);
	dps_actset_append(set, 1, DPS_ACT_RUN, 100 * MS, 0);
	dps_actset_append(set, 2, DPS_ACT_RUN, 100 * MS, 0);
	ares = analyzer_result_create();
	cr_assert_not_null(ares);
	ares->threads = calloc(3, sizeof(*ares->threads));
	ares->n_threads = ares->cap_threads = 3;
	for (size_t i = 0; i < 3; i++) {
		ares->threads[i].id = i + 1;
		ares->threads[i].start_ns = 0;
		ares->threads[i].end_ns = 100 * MS;
		ares->threads[i].stats.blocked_ns = 50 * MS; /* waiting: no pool worker */
	}
	memset(&r, 0, sizeof(r));
	r.recorded_sut_ns = 100 * MS;
	r.busy_ns = 100 * MS;
	memset(mark, 0, sizeof(mark));
	mark[1] = true; /* thread 2 is the component */
}

static void teardown(void)
{
	whatif_doubts_fini(&r);
	analyzer_result_destroy(ares);
	dps_actset_destroy(set);
}

TestSuite(doubts, .init = setup, .fini = teardown);

static void pin(size_t waiter, size_t waker, uint32_t kind, uint64_t n, uint64_t ns)
{
	ares->pins = realloc(ares->pins, (ares->n_pins + 1) * sizeof(*ares->pins));
	ares->pins[ares->n_pins++] = (struct analyzer_pin){
	    .waiter = waiter, .waker = waker, .kind = kind, .n = n, .blocked_ns = ns};
}

static void decide(void)
{
	cr_assert_eq(dps_actset_resolve(set, NULL), DPS_OK);
	whatif_doubts_before(&r, set, ares, mark);
	r.fit.kind = WHATIF_KIND_NONE;
	whatif_doubts_after(&r);
}

Test(doubts, a_locks_waits_between_the_component_and_another_thread_are_a_doubt)
{
	pin(1, 2, ANALYZER_PIN_LOCK, 40, 12 * MS);
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_eq(r.doubts[0].kind, WHATIF_DOUBT_ORDER);
	cr_expect_not_null(strstr(r.doubts[0].reason, "a lock"), "%s", r.doubts[0].reason);
	cr_expect_not_null(strstr(r.doubts[0].reason, "40 recorded waits"), "%s",
			   r.doubts[0].reason);
	cr_expect_not_null(strstr(r.doubts[0].way_out, "--sync"), "%s", r.doubts[0].way_out);
	cr_expect_eq(r.kind, WHATIF_KIND_UNCLEAR, "the fit said none");
}

/* A recording made with the probe: recording again with --sync is no way out. */
Test(doubts, a_recording_with_the_probe_is_not_told_to_record_with_it)
{
	ares->futex.n_explained = 3;
	pin(1, 2, ANALYZER_PIN_LOCK, 40, 12 * MS);
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_null(strstr(r.doubts[0].way_out, "dps record --sync"), "%s", r.doubts[0].way_out);
	cr_expect_not_null(strstr(r.doubts[0].way_out, "already has dps's synchronization probe"),
			   "%s", r.doubts[0].way_out);
}

Test(doubts, a_partial_barrier_is_a_doubt_a_few_microseconds_of_lock_are_not)
{
	pin(2, 1, ANALYZER_PIN_LOCK, 3, 30000); /* 30 us: under 2 % of 100 ms */
	decide();
	cr_expect_eq(r.n_doubts, 0, "%s", r.n_doubts ? r.doubts[0].reason : "");
	cr_expect_eq(r.kind, WHATIF_KIND_NONE);
	whatif_doubts_fini(&r);
	pin(1, 2, ANALYZER_PIN_PARTIAL, 10, 20 * MS);
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_not_null(strstr(r.doubts[0].reason, "spin"), "%s", r.doubts[0].reason);
}

/* A one-way dependency (the other thread waits for the component's items) is what a replay
 * plays right; waits both ways through events (two semaphores of a ring) are not. */
Test(doubts, one_way_events_are_no_doubt_both_ways_are)
{
	pin(2, 1, ANALYZER_PIN_EVENT, 50, 30 * MS);
	decide();
	cr_expect_eq(r.n_doubts, 0, "%s", r.n_doubts ? r.doubts[0].reason : "");
	whatif_doubts_fini(&r);
	pin(1, 2, ANALYZER_PIN_EVENT, 50, 10 * MS);
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_not_null(strstr(r.doubts[0].reason, "both directions"), "%s", r.doubts[0].reason);
}

/* A set alone (no timings): three waits or more each way between the two. */
Test(doubts, a_set_with_waits_both_ways_is_a_doubt)
{
	for (int i = 0; i < 3; i++) {
		dps_actset_append(set, 1, DPS_ACT_WAIT, 3, 0);
		dps_actset_append(set, 1, DPS_ACT_WAKE, 3, 0);
		dps_actset_append(set, 2, DPS_ACT_WAKE, 2, 0);
		dps_actset_append(set, 2, DPS_ACT_WAIT, 2, 0);
	}
	cr_assert_eq(dps_actset_resolve(set, NULL), DPS_OK);
	whatif_doubts_before(&r, set, NULL, mark);
	whatif_doubts_after(&r);
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_eq(r.doubts[0].kind, WHATIF_DOUBT_ORDER);
}

/* Two workers that never waited and ended 0.2 ms apart share their work, as far as a trace
 * can tell; the same two arriving at one barrier end together because of it. */
Test(doubts, workers_that_never_wait_and_end_together_share_work)
{
	for (size_t i = 1; i < 3; i++) {
		ares->threads[i].stats.blocked_ns = MS / 2;
		ares->threads[i].end_ns = 100 * MS + i * 100000;
	}
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_eq(r.doubts[0].kind, WHATIF_DOUBT_SHARED_WORK);
	cr_expect_not_null(strstr(r.doubts[0].way_out, "dps_pool_take"), "%s", r.doubts[0].way_out);
}

Test(doubts, workers_that_end_together_at_a_barrier_share_nothing)
{
	for (size_t i = 1; i < 3; i++) {
		ares->threads[i].stats.blocked_ns = MS / 2;
		dps_actset_append(set, i, DPS_ACT_ARRIVE, 1, 0);
	}
	cr_assert_eq(dps_actset_add_object(set, 1, DPS_OBJ_BARRIER, 2, 0, 0), DPS_OK);
	decide();
	cr_expect_eq(r.n_doubts, 0, "%s", r.n_doubts ? r.doubts[0].reason : "");
}

Test(doubts, what_the_probe_cannot_describe_is_a_doubt)
{
	ares->unmodelled = calloc(1, sizeof(char *));
	ares->unmodelled[0] = strdup("omp task");
	ares->n_unmodelled = 1;
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_eq(r.doubts[0].kind, WHATIF_DOUBT_UNMODELLED);
	cr_expect_not_null(strstr(r.doubts[0].reason, "omp task"), "%s", r.doubts[0].reason);
}

/* The stub at scale 1 against the recorded program: 10 % off is a doubt, 3 % is not. */
Test(doubts, a_stub_off_its_recording_is_a_doubt)
{
	r.original.n_runs = 3;
	r.original.median_ns = 110 * MS;
	r.original.noise_ns = MS;
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_eq(r.doubts[0].kind, WHATIF_DOUBT_ORIGINAL);
	cr_expect_not_null(strstr(r.doubts[0].reason, "+10.0 %"), "%s", r.doubts[0].reason);
	cr_expect_not_null(strstr(r.doubts[0].way_out, "record on a quiet machine"), "%s",
			   r.doubts[0].way_out);
	whatif_doubts_fini(&r);
	/* the stub's own runs under load: the machine is named, and the way out is a quiet
	 * machine for the study, not a new recording */
	r.original.loaded = true;
	r.original.others_pct = 48;
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_not_null(strstr(r.doubts[0].reason, "under load (others used 48 %"), "%s",
			   r.doubts[0].reason);
	cr_expect_not_null(strstr(r.doubts[0].way_out, "--wait-quiet"), "%s", r.doubts[0].way_out);
	whatif_doubts_fini(&r);
	r.original.loaded = false;
	r.original.median_ns = 103 * MS;
	decide();
	cr_expect_eq(r.n_doubts, 0);
}

/* A pair with a few microseconds on a lock but a long dependency both ways (a bounded queue
 * recorded without --sync): the both-ways waits count. */
Test(doubts, a_short_lock_does_not_hide_long_waits_both_ways)
{
	pin(1, 2, ANALYZER_PIN_LOCK, 1, 3000);
	pin(1, 2, ANALYZER_PIN_EVENT, 2, 700000);
	pin(2, 1, ANALYZER_PIN_EVENT, 282, 150 * MS);
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_not_null(strstr(r.doubts[0].reason, "both directions"), "%s", r.doubts[0].reason);
}

/* The timed-out waits of another thread on a word the component wakes are a doubt. */
Test(doubts, timeouts_the_component_would_end_are_a_doubt)
{
	pin(2, 1, ANALYZER_PIN_TIMEOUT, 12, 40 * MS);
	decide();
	cr_assert_eq(r.n_doubts, 1);
	cr_expect_not_null(strstr(r.doubts[0].reason, "timed out"), "%s", r.doubts[0].reason);
}
