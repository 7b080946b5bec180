/* SPDX-License-Identifier: MIT */
/*
 * Live (issue 13): `dps record --sync` of sync-prog.c, an annotated producer and consumer on a
 * bounded queue under a mutex and two condition variables, ending at a barrier; `dps analyze`
 * must give the set's objects (the queue of 2, the barrier of 2, the mutex) and each thread's
 * put/take/arrive/lock/unlock, the recorded condition-variable waits before the takes
 * dropped (the takes block in the replay); the set plays, and when the consumer is made 3x
 * slower the producer's puts must wait for it: the play lasts at least the consumer's runs.
 * The same program without annotations must give the same queue, found from its condition
 * variables' signals, and the barrier, from the probe's barrier events (issue 24).
 *
 * And cond-prog.c, xz's pattern: a main thread in a loop of 300 ms timed condition waits that
 * a worker ends early after each unit of work. The condition-variable probe says where the
 * waits released the mutex and that a thread ended them: the set has `wait W timeout 300ms`
 * between an unlock and a lock of the mutex, and a replay with the worker 4x faster ends much
 * earlier (with fixed sleeps it would not move). With a 20 ms timeout and 60 ms units, main's
 * waits time out twice per unit before the worker's signal ends one: the loop of ticks plays
 * as that one wait (`wait W`, untimed, no sleeps left of the timeouts), so the worker made 4x
 * faster ends it 4x earlier.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "actset.h"
#include "dps-test.h"

#define ITEMS 20
/* the loop of ticks: units of 60 ms, main's waits time out after 20 ms */
#define TICK_UNITS 6
#define TICK_UNIT_MS 60
#define TICK_TIMEOUT_MS 20

static size_t count(const struct dps_actset_thread *t, uint32_t kind)
{
	size_t n = 0;

	for (size_t a = 0; a < t->n_actions; a++) {
		n += t->actions[a].kind == kind;
	}
	return n;
}

static size_t count_objects(const struct dps_actset *set, uint32_t kind)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n_objects; i++) {
		n += set->objects[i].kind == kind;
	}
	return n;
}

static const struct dps_actset_object *object_of_kind(const struct dps_actset *set, uint32_t kind)
{
	for (size_t i = 0; i < set->n_objects; i++) {
		if (set->objects[i].kind == kind) {
			return &set->objects[i];
		}
	}
	return NULL;
}

/* The makespan in ms from a play's summary, or -1. */
static double makespan_ms(const char *err)
{
	const char *p = err ? strstr(err, "makespan ") : NULL;

	return p ? strtod(p + 9, NULL) : -1;
}

/* sync-prog recorded with --sync, annotated or not (its queue then found from the signals) */
static void producer_consumer(bool annotated)
{
	char *dir = dps_test_mkdtemp("sync-live");
	char *trace = dps_test_strf("%s/trace", dir);
	char *setdir = dps_test_strf("%s/set", dir);
	char *scale;
	struct dps_actset *set = NULL;
	struct dps_diag diag = {""};
	const struct dps_actset_thread *prod = NULL, *cons = NULL;
	const struct dps_actset_object *q, *b;
	struct dps_test_run r;
	double slow, fast;

	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(dps_test_sh("'%s' record -q --sync -o '%s' -- "
				 "'%s/tests/analyzer/analyzer-sync-prog%s' %d",
				 dps_test_bin(), trace, dps_test_build_dir(),
				 annotated ? "" : "-plain", ITEMS),
		     0, "dps record --sync failed");
	r = dps_test_run_dps("analyze", trace, "-q", "-o", setdir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);
	cr_assert_eq(dps_actset_load_dir(setdir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->n_threads, 2);
	cr_assert_eq(set->format_version, 2);

	q = object_of_kind(set, DPS_OBJ_QUEUE);
	b = object_of_kind(set, DPS_OBJ_BARRIER);
	cr_assert_not_null(q, "no queue object");
	cr_assert_eq(q->capacity, 2);
	/* the barrier: annotated, or seen by the probe (issue 24); once, not twice */
	cr_assert_not_null(b, "no barrier object");
	cr_assert_eq(b->capacity, 2);
	cr_assert_eq(count_objects(set, DPS_OBJ_BARRIER), 1, "the annotated barrier twice");
	cr_assert_not_null(object_of_kind(set, DPS_OBJ_MUTEX), "no mutex object");

	prod = &set->threads[set->root];
	cons = &set->threads[set->root == 0 ? 1 : 0];
	cr_assert_eq(count(prod, DPS_ACT_PUT), ITEMS);
	cr_assert_eq(count(cons, DPS_ACT_TAKE), ITEMS);
	cr_assert_eq(count(prod, DPS_ACT_TAKE) + count(cons, DPS_ACT_PUT), 0);
	cr_assert_eq(count(prod, DPS_ACT_ARRIVE), 1);
	cr_assert_eq(count(cons, DPS_ACT_ARRIVE), 1);
	/* the queue's mutex: around every take, at least */
	cr_assert_geq(count(cons, DPS_ACT_LOCK), ITEMS);
	cr_assert_eq(count(cons, DPS_ACT_LOCK), count(cons, DPS_ACT_UNLOCK));
	/* the consumer's condition-variable waits became its takes' blocks, the barrier's wait
	 * its arrive's. One exception seen on a loaded machine (3 runs in a row under ASan): a
	 * condition wait woken without its item (the consumer then waits again, and that wait is
	 * the take's) stays a recorded wait; a few of those, not one per item. */
	cr_assert_leq(count(cons, DPS_ACT_WAIT), 2, "recorded waits stayed before the takes");

	/* it plays, and a 3x slower consumer holds the producer back */
	r = dps_test_run_dps("run", setdir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);
	scale = dps_test_strf("%" PRIu64 "=3", cons->id);
	r = dps_test_run_dps("run", setdir, "--thread-scale", scale, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	slow = makespan_ms(r.err);
	dps_test_run_fini(&r);
	g_free(scale);
	scale = dps_test_strf("%" PRIu64 "=0.1", cons->id);
	r = dps_test_run_dps("run", setdir, "--thread-scale", scale, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	fast = makespan_ms(r.err);
	dps_test_run_fini(&r);
	/* the consumer spins 2 ms per item: 3x is 120 ms of its runs at the least */
	cr_assert_geq(slow, 3 * 2.0 * ITEMS * 0.9, "slow play: %.3f ms", slow);
	cr_assert_lt(fast, slow, "fast %.3f ms, slow %.3f ms", fast, slow);

	g_free(scale);
	dps_actset_destroy(set);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(trace);
	g_free(setdir);
}

Test(sync_live, record_sync_analyze_and_replay_an_annotated_pipeline, .timeout = 300)
{
	producer_consumer(true);
}

Test(sync_live, a_queue_without_annotations_is_found_from_its_condition_variables, .timeout = 300)
{
	producer_consumer(false);
}

#define UNITS 20
#define UNIT_US 8000

/* The replay's makespan in ms with the worker's runs scaled by scale. */
static double play_ms(const char *setdir, uint64_t worker, const char *scale)
{
	char *arg = dps_test_strf("%" PRIu64 "=%s", worker, scale);
	struct dps_test_run r = dps_test_run_dps("run", setdir, "--thread-scale", arg, NULL);
	double ms;

	cr_assert_eq(r.status, 0, "%s", r.err);
	ms = makespan_ms(r.err);
	cr_assert_gt(ms, 0, "no makespan in: %s", r.err);
	dps_test_run_fini(&r);
	g_free(arg);
	return ms;
}

/*
 * cond-prog (units of unit_us, main's timeout timeout_ms) recorded with --sync into dir/trace,
 * analyzed into dir/set, loaded (2 threads). The analysis's JSON statistics in *json (owned,
 * g_free) when json is not NULL.
 */
static struct dps_actset *record_cond_prog(const char *dir, int units, long unit_us, int timeout_ms,
					   char **json)
{
	char *trace = dps_test_strf("%s/trace", dir);
	char *setdir = dps_test_strf("%s/set", dir);
	struct dps_actset *set = NULL;
	struct dps_diag diag = {""};
	struct dps_test_run r;

	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(dps_test_sh("'%s' record -q --sync -o '%s' -- "
				 "'%s/tests/analyzer/analyzer-cond-prog' %d %ld %d",
				 dps_test_bin(), trace, dps_test_build_dir(), units, unit_us,
				 timeout_ms),
		     0, "dps record --sync failed");
	r = dps_test_run_dps("analyze", trace, "-q", "-o", setdir, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	if (json) {
		*json = g_strdup(r.out ? r.out : "");
	}
	dps_test_run_fini(&r);
	cr_assert_eq(dps_actset_load_dir(setdir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->n_threads, 2);
	g_free(trace);
	g_free(setdir);
	return set;
}

Test(sync_live, a_timed_condition_wait_ended_by_a_worker_moves_with_it, .timeout = 600)
{
	char *dir = dps_test_mkdtemp("cond-live");
	char *setdir = dps_test_strf("%s/set", dir);
	struct dps_actset *set = record_cond_prog(dir, UNITS, UNIT_US, 300, NULL);
	const struct dps_actset_thread *main_t, *worker;
	size_t timed = 0, framed = 0;
	char unframed[256] = "";
	double full, fast;

	cr_assert_not_null(object_of_kind(set, DPS_OBJ_MUTEX), "the cond's mutex was left out");
	/* one condition variable, signalled by one thread, waited on by the other: no queue */
	cr_assert_null(object_of_kind(set, DPS_OBJ_QUEUE), "a queue found in a lone signal");
	main_t = &set->threads[set->root];
	worker = &set->threads[set->root == 0 ? 1 : 0];

	/* every timed wait ended by the worker: `wait W timeout D`, D the program's 300 ms,
	 * the mutex released before it and taken back after it */
	for (size_t a = 0; a < main_t->n_actions; a++) {
		const struct dps_actset_action *act = &main_t->actions[a];
		size_t before = a, after = a + 1;

		if (act->kind != DPS_ACT_WAIT_TIMEOUT) {
			continue;
		}
		timed++;
		cr_expect_eq(act->id, worker->id);
		cr_expect(act->aux > 290 * 1000000ULL && act->aux <= 300 * 1000000ULL,
			  "timeout %" PRIu64 " ns", act->aux);
		/* runs, and the short blocks carried before it (a sleep) */
		while (before > 0 && (main_t->actions[before - 1].kind == DPS_ACT_RUN ||
				      main_t->actions[before - 1].kind == DPS_ACT_SLEEP)) {
			before--;
		}
		/* the mutex's re-acquisition may block too (a wait; a sleep where the wake-up
		 * came from no traced thread, as a sleep before it may), and the worker's end
		 * may come before the last wait's return (its implicit join). Once in CI 1 of
		 * 20 was not framed by these rules, not seen in 85 runs since (60 quiet, 25
		 * beside a busy core): the message shows what stood around it. */
		while (after < main_t->n_actions && (main_t->actions[after].kind == DPS_ACT_RUN ||
						     main_t->actions[after].kind == DPS_ACT_SLEEP ||
						     main_t->actions[after].kind == DPS_ACT_WAIT ||
						     main_t->actions[after].kind == DPS_ACT_JOIN)) {
			after++;
		}
		if (before > 0 && main_t->actions[before - 1].kind == DPS_ACT_UNLOCK &&
		    after < main_t->n_actions && main_t->actions[after].kind == DPS_ACT_LOCK) {
			framed++;
		} else if (!*unframed) {
			/* what stood around the first one that is not, for the message */
			for (size_t k = a >= 4 ? a - 4 : 0; k < main_t->n_actions && k <= a + 4;
			     k++) {
				size_t len = strlen(unframed);

				g_snprintf(unframed + len, sizeof(unframed) - len, "%s%s%s",
					   k == a ? "[" : " ",
					   dps_action_kind_name(main_t->actions[k].kind),
					   k == a ? "]" : "");
			}
		}
	}
	cr_assert_geq(timed, UNITS / 2, "%zu timed waits", timed);
	cr_assert_eq(framed, timed,
		     "%zu of %zu timed waits between an unlock and a lock; around one: %s", framed,
		     timed, unframed);
	cr_assert_eq(count(main_t, DPS_ACT_LOCK), count(main_t, DPS_ACT_UNLOCK));

	/* the worker's runs at a quarter: the waits end a quarter as late */
	full = play_ms(setdir, worker->id, "1");
	fast = play_ms(setdir, worker->id, "0.25");
	cr_assert_lt(fast, 0.8 * full, "worker at 0.25: %.3f ms, at 1: %.3f ms", fast, full);

	dps_actset_destroy(set);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(setdir);
}

Test(sync_live, a_loop_of_timed_out_waits_plays_as_the_wait_a_worker_ends, .timeout = 600)
{
	char *dir = dps_test_mkdtemp("ticks-live");
	char *setdir = dps_test_strf("%s/set", dir);
	char *json = NULL;
	struct dps_actset *set =
	    record_cond_prog(dir, TICK_UNITS, TICK_UNIT_MS * 1000L, TICK_TIMEOUT_MS, &json);
	const struct dps_actset_thread *main_t, *worker;
	uint64_t slept = 0;
	double full, fast;

	/* the timed-out waits were counted as the loop's ticks */
	cr_expect(strstr(json, "\"n_ticks\": ") &&
		      strtol(strstr(json, "\"n_ticks\": ") + 11, NULL, 10) >= TICK_UNITS,
		  "no ticks counted in: %.300s", json);
	g_free(json);
	main_t = &set->threads[set->root];
	worker = &set->threads[set->root == 0 ? 1 : 0];
	for (size_t a = 0; a < main_t->n_actions; a++) {
		if (main_t->actions[a].kind == DPS_ACT_SLEEP) {
			slept += (uint64_t)main_t->actions[a].value;
		}
	}
	/* 2 timeouts of 20 ms per unit recorded (some 240 ms as sleeps without the ticks): under
	 * 2 units' worth left. A loop whose worker signalled while main was between two waits
	 * (preempted after a timeout, on a busy machine) ends on the program's own check, not
	 * on a signal: that chain keeps its recorded time, as it should (seen: 79 ms, once in 4
	 * runs on a quiet machine) */
	cr_expect_lt(slept, 2 * TICK_UNIT_MS * 1000000ULL, "main sleeps %" PRIu64 " ns", slept);
	cr_expect_geq(count(main_t, DPS_ACT_WAIT), TICK_UNITS / 2);
	cr_expect_eq(count(main_t, DPS_ACT_LOCK), count(main_t, DPS_ACT_UNLOCK));

	/* the worker at a quarter: the loop ends a quarter as late (fixed ticks: 2/3 as late) */
	full = play_ms(setdir, worker->id, "1");
	fast = play_ms(setdir, worker->id, "0.25");
	cr_assert_lt(fast, 0.55 * full, "worker at 0.25: %.3f ms, at 1: %.3f ms", fast, full);

	dps_actset_destroy(set);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(setdir);
}
