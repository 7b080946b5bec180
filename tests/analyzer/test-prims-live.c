/* SPDX-License-Identifier: MIT */
/*
 * Live (issue 24): the primitives real programs use, recorded with `dps record`, analyzed and
 * replayed with one thread's speed changed so that the other must now wait where the
 * recording never did (prims-prog.c, prims-omp.c say how each program is built for it):
 *
 *   a pthread barrier, with --sync (the probe) and without (the kernel's futex word), a ring
 *   under two POSIX semaphores, a rwlock, a pipe between two threads and between two
 *   processes, OpenMP's team barriers and dynamic loop (the probe's GOMP wrappers);
 *
 * and workers that share a pool through an atomic counter: dps whatif says unclear (shared
 * work) without the pool's annotation, and with dps_pool_take the set has a task queue in
 * which a slower worker takes fewer items. Each check is an object in the set and a lower
 * bound on a play that a causal chain guarantees, so a loaded machine cannot fail it.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "actset.h"
#include "dps-test.h"

static char *dir;

static void setup(void)
{
	dir = dps_test_mkdtemp("prims-live");
	setenv("DPS_CALIBRATION", "override", 1);
}

static void teardown(void)
{
	dps_test_rmtree(dir);
	g_free(dir);
}

TestSuite(prims_live, .init = setup, .fini = teardown, .timeout = 600);

/* prog (a program of the build's tests/analyzer) with args recorded (with flags: "--sync"
 * ...) and analyzed (with aflags) into dir/NAME-set; the set, loaded. */
static struct dps_actset *record(const char *name, const char *flags, const char *prog,
				 const char *args, const char *aflags)
{
	char *trace = dps_test_strf("%s/%s-trace", dir, name);
	char *setdir = dps_test_strf("%s/%s-set", dir, name);
	struct dps_actset *set = NULL;
	struct dps_diag diag = {""};
	struct dps_test_run r;

	cr_assert_eq(dps_test_sh("'%s' record -q %s -o '%s' -- '%s/tests/analyzer/%s' %s",
				 dps_test_bin(), flags, trace, dps_test_build_dir(), prog, args),
		     0, "dps record %s %s %s failed", flags, prog, args);
	r = dps_test_run_dps("analyze", trace, "-q", "-o", setdir, aflags, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);
	cr_assert_eq(dps_actset_load_dir(setdir, &set, &diag), DPS_OK, "%s", diag.msg);
	g_free(trace);
	g_free(setdir);
	return set;
}

static size_t count(const struct dps_actset_thread *t, uint32_t kind)
{
	size_t n = 0;

	for (size_t a = 0; a < t->n_actions; a++) {
		n += t->actions[a].kind == kind;
	}
	return n;
}

/* The first object of kind (the sets also have the libraries' own mutexes: lttng-ust's, libc's
 * internal locks the pthread wrapper sees). */
static const struct dps_actset_object *object_of(const struct dps_actset *set, uint32_t kind)
{
	for (size_t i = 0; i < set->n_objects; i++) {
		if (set->objects[i].kind == kind) {
			return &set->objects[i];
		}
	}
	cr_assert_fail("no %s object", dps_object_kind_name(kind));
	return NULL;
}

/* Actions of kind on object obj. */
static size_t count_on(const struct dps_actset_thread *t, uint32_t kind,
		       const struct dps_actset_object *obj)
{
	size_t n = 0;

	for (size_t a = 0; a < t->n_actions; a++) {
		n += t->actions[a].kind == kind && t->actions[a].id == obj->id;
	}
	return n;
}

static size_t objects_of_kind(const struct dps_actset *set, uint32_t kind)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n_objects; i++) {
		n += set->objects[i].kind == kind;
	}
	return n;
}

/* The thread named comm (one of them). */
static const struct dps_actset_thread *named(const struct dps_actset *set, const char *comm)
{
	for (size_t t = 0; t < set->n_threads; t++) {
		if (set->threads[t].comm && !strcmp(set->threads[t].comm, comm)) {
			return &set->threads[t];
		}
	}
	cr_assert_fail("no thread %s in the set", comm);
	return NULL;
}

/* A play of dir/NAME-set in mode (dps run --mode) with thread id at scale: its makespan (of 0),
 * or thread of's figure in the summary's column (0 start, 1 end, 2 cpu, 3 run_req, ms). */
static double play_column(const char *name, const char *mode, uint64_t id, const char *scale,
			  uint64_t of, int column)
{
	char *setdir = dps_test_strf("%s/%s-set", dir, name);
	char *arg = dps_test_strf("%" PRIu64 "=%s", id, scale);
	struct dps_test_run r =
	    dps_test_run_dps("run", setdir, "--mode", mode, "--thread-scale", arg, NULL);
	const char *p;
	double ms = -1;

	cr_assert_eq(r.status, 0, "dps run %s --thread-scale %s: %s", setdir, arg, r.err);
	if (!of) {
		p = strstr(r.err, "makespan ");
		ms = p ? strtod(p + 9, NULL) : -1;
	} else {
		char *row = dps_test_strf("\n%" PRIu64 " ", of);

		p = strstr(r.err, row);
		if (p) {
			double v[4];

			/* id, name (may be empty), start_ms, end_ms, cpu_ms, run_req_ms, ... */
			p += strlen(row);
			while (*p == ' ') {
				p++;
			}
			if (sscanf(p, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]) == 4 ||
			    sscanf(p, "%*s %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]) == 4) {
				ms = v[column];
			}
		}
		g_free(row);
	}
	cr_assert_gt(ms, 0, "no time of thread %" PRIu64 " in: %s", of, r.err);
	dps_test_run_fini(&r);
	g_free(arg);
	g_free(setdir);
	return ms;
}

static double play(const char *name, uint64_t id, const char *scale, uint64_t of)
{
	return play_column(name, "cpu", id, scale, of, 1);
}

/* The barrier: A (2 and 6 ms a round in turn) and B (4 ms), 10 rounds. A at 4x takes 8 and
 * 24 ms a round: B, whose runs stay 4 ms, must wait for A in every round. */
static void barrier(const char *name, const char *flags)
{
	struct dps_actset *set = record(name, flags, "analyzer-prims-prog", "barrier", NULL);
	const struct dps_actset_thread *a = named(set, "a"), *b = named(set, "b");
	double b_end;

	cr_assert_eq(objects_of_kind(set, DPS_OBJ_BARRIER), 1, "no barrier object");
	cr_expect_eq(count(a, DPS_ACT_ARRIVE), 10);
	cr_expect_eq(count(b, DPS_ACT_ARRIVE), 10);
	cr_expect_eq(count(a, DPS_ACT_WAIT) + count(b, DPS_ACT_WAIT), 0,
		     "a recorded wait stayed between the two");
	b_end = play(name, a->id, "4", b->id);
	cr_assert_geq(b_end, 0.9 * 5 * (8 + 24), "B ended at %.3f ms", b_end);
	dps_actset_destroy(set);
}

Test(prims_live, a_pthread_barrier_through_the_probe)
{
	barrier("barrier-sync", "--sync");
}

Test(prims_live, a_pthread_barrier_from_its_futex_word)
{
	barrier("barrier-kernel", "");
}

/* The ring of 2 under two semaphores: the consumer at 10x eats an item in 10 ms; the producer
 * (3 ms an item), which never waited in the recording, must wait for the ring's slots: it
 * cannot end before the consumer ate 17 items, ten times its recorded work on them (not 17
 * times the 10 ms the program asks for: a recording under load measured 152.7 ms of a bound
 * of 153 so in CI's rehearsal, as the pipe's did, 137393e). */
Test(prims_live, a_ring_under_two_semaphores)
{
	struct dps_actset *set = record("sem", "--sync", "analyzer-prims-prog", "sem", NULL);
	const struct dps_actset_thread *p = named(set, "producer"), *c = named(set, "consumer");
	double p_end, work_ms = 0;
	unsigned takes = 0;

	cr_assert_eq(objects_of_kind(set, DPS_OBJ_QUEUE), 2, "two semaphores");
	cr_expect_eq(count(p, DPS_ACT_TAKE), 20, "the producer's waits for a slot");
	cr_expect_eq(count(p, DPS_ACT_PUT), 20);
	cr_expect_eq(count(c, DPS_ACT_TAKE), 20);
	cr_expect_eq(count(c, DPS_ACT_PUT), 20);
	for (size_t a = 0; a < c->n_actions && takes <= 17; a++) {
		if (c->actions[a].kind == DPS_ACT_TAKE) {
			takes++;
		} else if (c->actions[a].kind == DPS_ACT_RUN && takes) {
			work_ms += c->actions[a].value / 1e6;
		}
	}
	cr_assert_gt(work_ms, 8.5, "the consumer's work on 17 items: %.3f ms", work_ms);
	p_end = play("sem", c->id, "10", p->id);
	cr_assert_geq(p_end, 0.9 * 10 * work_ms,
		      "the producer ended at %.3f ms, the consumer worked %.3f ms on 17 items",
		      p_end, work_ms);
	dps_actset_destroy(set);
}

/* The rwlock: the reader at 10x holds its read lock until 20 ms; the writer, which took the
 * write lock at 10 ms without waiting in the recording, must wait for it (unmoved, it ends at
 * 11 ms). */
Test(prims_live, a_rwlock)
{
	struct dps_actset *set = record("rw", "--sync", "analyzer-prims-prog", "rwlock", NULL);
	const struct dps_actset_thread *rd = named(set, "reader"), *wr = named(set, "writer");
	double w_end;

	const struct dps_actset_object *o = object_of(set, DPS_OBJ_RWLOCK);

	cr_expect_eq(count_on(rd, DPS_ACT_RDLOCK, o), 1);
	cr_expect_eq(count_on(wr, DPS_ACT_LOCK, o), 1);
	cr_expect_eq(set->format_version, 3);
	w_end = play("rw", rd->id, "10", wr->id);
	cr_assert_geq(w_end, 0.9 * 20, "the writer ended at %.3f ms", w_end);
	dps_actset_destroy(set);
}

/* The pipe: the writer's 20 records of 8 KiB fill the 64 KiB pipe: its last write waits for
 * the reader's 12th read, which follows the reader's work on 11 records. At 10x that work is
 * ten times its recorded runs (about 110 ms); unmoved, the writer ends at 40 ms. The bound is
 * the recorded runs' sum, not the 1 ms a record the program asks for: a sanitized build's
 * recording made 80 ms of it once (and the play ended there, 8.4 ms later than the bound). */
static void pipe_case(const char *name, const char *mode, const char *aflags)
{
	struct dps_actset *set = record(name, "--sync", "analyzer-prims-prog", mode, aflags);
	/* across the fork the writer is the parent, named after the program */
	const struct dps_actset_thread *w =
	    strcmp(mode, "pipe-procs") ? named(set, "writer") : &set->threads[set->root];
	const struct dps_actset_thread *rd = named(set, "reader");
	uint64_t bytes = 0;
	double w_end, work_ms = 0;

	cr_assert_eq(objects_of_kind(set, DPS_OBJ_QUEUE), 1, "no pipe object");
	cr_expect_eq(object_of(set, DPS_OBJ_QUEUE)->capacity, 65536);
	for (size_t a = 0; a < rd->n_actions; a++) {
		if (rd->actions[a].kind == DPS_ACT_TAKE) {
			bytes += rd->actions[a].aux > 1 ? rd->actions[a].aux : 1;
		}
	}
	cr_expect_eq(bytes, 20 * 8192, "the reader took %" PRIu64 " bytes", bytes);
	bytes = 0;
	for (size_t a = 0; a < rd->n_actions && bytes <= 11 * 8192; a++) {
		if (rd->actions[a].kind == DPS_ACT_TAKE) {
			bytes += rd->actions[a].aux > 1 ? rd->actions[a].aux : 1;
		} else if (rd->actions[a].kind == DPS_ACT_RUN && bytes) {
			work_ms += rd->actions[a].value / 1e6;
		}
	}
	cr_assert_gt(work_ms, 4.0, "the reader's work on 11 records: %.3f ms", work_ms);
	w_end = play(name, rd->id, "10", w->id);
	cr_assert_geq(w_end, 0.95 * 10 * work_ms,
		      "the writer ended at %.3f ms, the reader worked %.3f ms on 11 records", w_end,
		      work_ms);
	dps_actset_destroy(set);
}

Test(prims_live, a_pipe_between_two_threads)
{
	pipe_case("pipe", "pipe", NULL);
}

Test(prims_live, a_pipe_between_two_processes)
{
	pipe_case("pipe-procs", "pipe-procs", "--follow-children");
}

/* OpenMP (prims-omp.c): 8 rounds of a static loop where omp0 works 2 ms and omp1 4 ms, then a
 * dynamic loop. omp0 at 4x (8 ms a round) holds omp1 at every round's barrier; the dynamic
 * loop is a task queue. */
Test(prims_live, openmp_team_barriers_and_a_dynamic_loop)
{
	struct dps_actset *set = record("omp", "--sync", "analyzer-prims-omp", "", NULL);
	const struct dps_actset_thread *t0 = named(set, "omp0"), *t1 = named(set, "omp1");
	size_t tasks = 0;
	double end;

	cr_assert_geq(objects_of_kind(set, DPS_OBJ_BARRIER), 1, "no barrier object");
	cr_expect_geq(count(t1, DPS_ACT_ARRIVE), 8);
	for (size_t i = 0; i < set->n_objects; i++) {
		tasks += set->objects[i].order != NULL;
	}
	cr_expect_eq(tasks, 1, "the dynamic loop is no task queue");
	end = play("omp", t0->id, "4", t1->id);
	cr_assert_geq(end, 0.9 * 8 * 8, "omp1 ended at %.3f ms", end);
	dps_actset_destroy(set);
}

/* Two workers on an atomic counter, no annotation: dps whatif must not answer. */
Test(prims_live, workers_sharing_an_atomic_counter_make_whatif_unclear)
{
	char *trace = dps_test_strf("%s/pool-trace", dir);
	struct dps_test_run r;

	cr_assert_eq(dps_test_sh("'%s' record -q --sync -o '%s' -- "
				 "'%s/tests/analyzer/analyzer-prims-prog-plain' pool",
				 dps_test_bin(), trace, dps_test_build_dir()),
		     0);
	r = dps_test_run_dps("whatif", trace, "--thread-comm", "worker1", "--stub", "busy",
			     "--from", "0.5", "--to", "1.5", "--step", "0.5", "--repeat", "1",
			     "--mode", "wall", "--json", "-q", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "\"kind\": \"unclear\""), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\"check\": \"shared-work\""), "%s", r.out);
	dps_test_run_fini(&r);
	g_free(trace);
}

/* The same with dps_pool_take: a task queue, in which worker1 at 4x takes fewer items, so it
 * is asked for less than 4 times what it is asked for at 1x (where the play shares the items
 * out afresh). A static split asks for exactly 4 times, in every play. Not against the
 * recording: a busy machine that starved worker1 while it was recorded leaves it few items
 * (once 44.6 of 160 ms), and 4 times those is close to what the task queue gives it at 4x
 * (about 4/5 of the 160 ms). */
Test(prims_live, an_annotated_pool_is_a_task_queue)
{
	struct dps_actset *set = record("pool", "--sync", "analyzer-prims-prog", "pool", NULL);
	const struct dps_actset_thread *w1 = named(set, "worker1");
	const struct dps_actset_object *q = NULL;
	double at1 = 0, at4 = 0;
	int tries = 0;

	/* (mutexes too: the libraries' own, lttng-ust's registration) */
	for (size_t i = 0; i < set->n_objects; i++) {
		q = set->objects[i].order ? &set->objects[i] : q;
	}
	cr_assert_not_null(q, "no task queue");
	cr_expect_eq(q->n_order, 82, "80 items and each worker's empty take");
	/* the run time worker1 was asked for, not the wall time: a busy machine stretches the
	 * play (once 481.6 ms beside other tests against a wall bound of 289.4 ms). In wall mode:
	 * in cpu mode a busy core that starves worker0 for a while hands worker1 more items
	 * (beside a CPU hog worker1 at 4x was asked for 96 to 253 ms; in wall mode 100 to 153 ms;
	 * 128 ms on a quiet machine in both modes). A busy core can starve worker1 at 1x and
	 * worker0 at 4x in the same pair of plays (60.4 and 193.6 ms: 0.80 of 4 times, CI's
	 * rehearsal beside a busy loop), so up to three pairs are played, and one pair well
	 * under 4 times is the answer: a static split gives 4 times in each. */
	do {
		at1 = play_column("pool", "wall", w1->id, "1", w1->id, 3);
		at4 = play_column("pool", "wall", w1->id, "4", w1->id, 3);
	} while (at4 >= 0.9 * 4 * at1 && ++tries < 3);
	cr_assert_lt(at4, 0.9 * 4 * at1,
		     "worker1 was asked for %.3f ms at 4x, %.3f ms at 1x (the last of 3 pairs)",
		     at4, at1);
	dps_actset_destroy(set);
}
