/* SPDX-License-Identifier: MIT */
/*
 * The player's synchronization objects and waits of format versions 2 and 3 (issues 13, 24;
 * a rwlock, a put and take of many items are version 3's): a queue
 * with a capacity blocks a producer faster than its consumer, a barrier holds every party
 * until the last one, a mutex excludes, a timed wait times out or is woken (whichever first),
 * a wait on a set takes any member's wake, join any takes whichever member ended, and a lock
 * cycle is reported as a deadlock naming the threads and the mutexes, not hung, as is a join
 * cycle in every play and a wait whose waker ended without the wake (issue 26). Each check is
 * structural (what blocked, what timed out) or a lower bound that a causal chain of sleeps
 * guarantees, so a loaded machine cannot fail it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <dps/dps.h>

#define ACT(k, x)                                                                                  \
	{                                                                                          \
		.arg = (x), .kind = DPS_ACT_##k, .line = __LINE__                                  \
	}
#define ACT2(k, x, y)                                                                              \
	{                                                                                          \
		.arg = (x), .kind = DPS_ACT_##k, .line = __LINE__, .arg2 = (y)                     \
	}
#define THREAD(i, acts)                                                                            \
	{                                                                                          \
		.id = (i), .name = NULL, .actions = (acts),                                        \
		.n_actions = sizeof(acts) / sizeof((acts)[0])                                      \
	}
#define MS 1000000LL
#define US 1000LL

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

TestSuite(sync, .init = setup, .timeout = 60);

/*
 * A producer with nothing else to do puts 3 items into a queue of 2 while its consumer first
 * sleeps 300 ms: the third put must block until the first take (so the producer ends after
 * the consumer's sleep). With an unbounded queue the producer never blocks.
 */
static void play_producer_consumer(uint64_t capacity, struct dps_play_result *r)
{
	/* no join: only the puts can block it (the play still waits for the consumer) */
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT(PUT, 0), ACT(PUT, 0),
						 ACT(PUT, 0)};
	static const struct dps_action consumer[] = {ACT(SLEEP, 300 * MS), ACT(TAKE, 0),
						     ACT(TAKE, 0), ACT(TAKE, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, consumer)};
	struct dps_object q = {.id = 7, .kind = DPS_OBJ_QUEUE, .capacity = capacity};
	struct dps_program prog = {
	    .name = "pc", .threads = th, .n_threads = 2, .root = 0, .objects = &q, .n_objects = 1};

	cr_assert_eq(dps_play(&prog, &opts, r), DPS_OK);
	cr_assert_eq(r->threads[0].n_actions, 4);
	cr_assert_eq(r->threads[1].n_actions, 4);
}

Test(sync, a_producer_faster_than_its_consumer_blocks_on_a_full_queue)
{
	struct dps_play_result r;

	play_producer_consumer(2, &r);
	/* the third put */
	cr_assert_eq(r.threads[0].n_blocked, 1, "producer blocked %lu times",
		     (unsigned long)r.threads[0].n_blocked);
	/* its puts waited for the first take, after the consumer's sleep */
	cr_assert_geq(r.threads[0].end_ns - r.threads[1].start_ns, 300 * MS);
	dps_play_result_fini(&r);

	play_producer_consumer(0, &r);
	cr_assert_eq(r.threads[0].n_blocked, 0, "an unbounded queue blocks no put");
	dps_play_result_fini(&r);
}

/* A consumer faster than its producer blocks on the empty queue, once per item. */
Test(sync, a_consumer_blocks_on_an_empty_queue)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT(TAKE, 0), ACT(TAKE, 0),
						 ACT(JOIN, 1)};
	static const struct dps_action producer[] = {ACT(SLEEP, 100 * MS), ACT(PUT, 0),
						     ACT(SLEEP, 100 * MS), ACT(PUT, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, producer)};
	struct dps_object q = {.id = 7, .kind = DPS_OBJ_QUEUE, .capacity = 1};
	struct dps_program prog = {
	    .name = "cp", .threads = th, .n_threads = 2, .root = 0, .objects = &q, .n_objects = 1};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_assert_geq(r.threads[0].n_blocked, 2, "each take waits for its put");
	cr_assert_geq(r.makespan_ns, 200 * MS);
	dps_play_result_fini(&r);
}

/* Three parties, two rounds: nobody leaves a round before the last arrives (the slow one
 * sleeps 200 ms before each arrival), and the barrier is used again for the second. */
Test(sync, a_barrier_holds_every_party_until_the_last)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT(CREATE, 2), ACT(ARRIVE, 0),
						 ACT(ARRIVE, 0), ACT(JOIN, 1),	 ACT(JOIN, 2)};
	static const struct dps_action fast[] = {ACT(ARRIVE, 0), ACT(ARRIVE, 0)};
	static const struct dps_action slow[] = {ACT(SLEEP, 200 * MS), ACT(ARRIVE, 0),
						 ACT(SLEEP, 200 * MS), ACT(ARRIVE, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, fast),
						    THREAD(3, slow)};
	struct dps_object b = {.id = 5, .kind = DPS_OBJ_BARRIER, .capacity = 3};
	struct dps_program prog = {
	    .name = "bar", .threads = th, .n_threads = 3, .root = 0, .objects = &b, .n_objects = 1};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	/* the fast thread waits at both rounds for the slow one's 2 x 200 ms */
	cr_assert_eq(r.threads[1].n_blocked, 2);
	cr_assert_geq(r.threads[1].end_ns - r.threads[2].start_ns, 400 * MS);
	cr_assert_eq(r.threads[2].n_blocked, 0, "the last arriver never waits");
	dps_play_result_fini(&r);
}

/* Two threads hold one mutex for 150 ms each: one waits for the other. */
Test(sync, a_mutex_excludes)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT(LOCK, 0), ACT(SLEEP, 150 * MS),
						 ACT(UNLOCK, 0), ACT(JOIN, 1)};
	static const struct dps_action other[] = {ACT(LOCK, 0), ACT(SLEEP, 150 * MS),
						  ACT(UNLOCK, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, other)};
	struct dps_object m = {.id = 1, .kind = DPS_OBJ_MUTEX};
	struct dps_program prog = {
	    .name = "mx", .threads = th, .n_threads = 2, .root = 0, .objects = &m, .n_objects = 1};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	/* the second lock waits (and, when it is the other's, the root's join too) */
	cr_assert_geq(r.threads[0].n_blocked + r.threads[1].n_blocked, 1);
	cr_assert_geq(r.makespan_ns, 300 * MS, "the two critical sections ran one after another");
	dps_play_result_fini(&r);
}

/* A rwlock (version 3): two readers hold it together, a writer alone. Two readers that each
 * sleep 200 ms inside take it at once; a writer that comes 50 ms later waits for both. */
Test(sync, a_rwlock_lets_readers_share_and_writers_exclude)
{
	static const struct dps_action root[] = {
	    ACT(CREATE, 1), ACT(CREATE, 2), ACT(RDLOCK, 0), ACT(SLEEP, 200 * MS),
	    ACT(UNLOCK, 0), ACT(JOIN, 1),   ACT(JOIN, 2)};
	static const struct dps_action reader[] = {ACT(RDLOCK, 0), ACT(SLEEP, 200 * MS),
						   ACT(UNLOCK, 0)};
	static const struct dps_action writer[] = {ACT(SLEEP, 50 * MS), ACT(LOCK, 0),
						   ACT(SLEEP, 150 * MS), ACT(UNLOCK, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, reader),
						    THREAD(3, writer)};
	struct dps_object rw = {.id = 1, .kind = DPS_OBJ_RWLOCK};
	struct dps_program prog = {
	    .name = "rw", .threads = th, .n_threads = 3, .root = 0, .objects = &rw, .n_objects = 1};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	/* the writer came while both readers held it: it waited for them */
	cr_assert_eq(r.threads[2].n_blocked, 1, "writer blocked %lu times",
		     (unsigned long)r.threads[2].n_blocked);
	/* the readers ran side by side, the writer after them: 200 + 150 ms at least */
	cr_assert_geq(r.makespan_ns, 350 * MS);
	cr_assert_eq(r.threads[1].n_blocked, 0, "the second reader waited for the first");
	dps_play_result_fini(&r);
}

/* A deadlock on a rwlock: a reader that waits for a writer that waits for it is named. */
Test(sync, a_writer_waiting_for_a_reader_that_waits_for_it_is_a_deadlock)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT(RDLOCK, 0), ACT(WAIT, 1),
						 ACT(UNLOCK, 0), ACT(JOIN, 1)};
	static const struct dps_action writer[] = {ACT(SLEEP, 20 * MS), ACT(LOCK, 0),
						   ACT(UNLOCK, 0), ACT(WAKE, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, writer)};
	struct dps_object rw = {.id = 5, .kind = DPS_OBJ_RWLOCK};
	struct dps_program prog = {.name = "rwd",
				   .threads = th,
				   .n_threads = 2,
				   .root = 0,
				   .objects = &rw,
				   .n_objects = 1};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_ERR_DEADLK);
	cr_assert_not_null(strstr(r.detail, "thread 2 write-locks rwlock 5 held by 1 readers"),
			   "%s", r.detail);
	dps_play_result_fini(&r);
}

/*
 * A put and a take of many items (a pipe's bytes, version 3): a writer puts 10,000 bytes into
 * a queue of 4,096 whose reader sleeps 200 ms first: the put moves what fits and waits for the
 * reader's takes, so the writer ends after the reader's sleep; the reader's two takes add up
 * to the bytes put.
 */
Test(sync, a_put_of_more_items_than_fit_waits_for_the_takes)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT2(PUT, 0, 10000)};
	static const struct dps_action reader[] = {ACT(SLEEP, 200 * MS), ACT2(TAKE, 0, 6000),
						   ACT2(TAKE, 0, 4000)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, reader)};
	struct dps_object q = {.id = 3, .kind = DPS_OBJ_QUEUE, .capacity = 4096};
	struct dps_program prog = {.name = "pipe",
				   .threads = th,
				   .n_threads = 2,
				   .root = 0,
				   .objects = &q,
				   .n_objects = 1};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_assert_geq(r.threads[0].n_blocked, 1, "the writer never waited");
	cr_assert_geq(r.threads[0].end_ns, 200 * MS, "the writer ended before the reader took");
	dps_play_result_fini(&r);
}

/* wait 2 timeout 50ms, thread 2 wakes only after 1 s: the timeout ends the wait. */
Test(sync, a_timed_wait_times_out)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT2(WAIT_TIMEOUT, 1, 50 * MS),
						 ACT(JOIN, 1)};
	static const struct dps_action waker[] = {ACT(SLEEP, 1000 * MS), ACT(WAKE, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, waker)};
	struct dps_program prog = {.name = "to", .threads = th, .n_threads = 2, .root = 0};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_assert_eq(r.threads[0].n_timeouts, 1);
	dps_play_result_fini(&r);
}

/* wait 2 timeout 20s, thread 2 wakes at once: the wake ends the wait, long before 20 s. */
Test(sync, a_timed_wait_is_woken_before_its_timeout)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT2(WAIT_TIMEOUT, 1, 20000 * MS),
						 ACT(JOIN, 1)};
	static const struct dps_action waker[] = {ACT(SLEEP, 50 * MS), ACT(WAKE, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, waker)};
	struct dps_program prog = {.name = "tw", .threads = th, .n_threads = 2, .root = 0};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_assert_eq(r.threads[0].n_timeouts, 0);
	cr_assert_lt(r.makespan_ns, 15000 * MS);
	dps_play_result_fini(&r);
}

/*
 * wait 2|3: thread 3 wakes at once, thread 2 only after 1 s; thread 4, created right after
 * the wait, starts before thread 2's wake. Then join any 2|3 twice: the first returns with
 * thread 3 (ended) while 2 sleeps, so thread 5, created after it, starts before 2 ends.
 */
Test(sync, wait_any_and_join_any_take_whichever_came_first)
{
	static const uint32_t members[] = {1, 2};
	static const struct dps_action root[] = {
	    ACT(CREATE, 1),	  ACT(CREATE, 2),	ACT2(WAIT_ANY, 0, 2),
	    ACT(CREATE, 3),	  ACT2(JOIN_ANY, 0, 2), ACT(CREATE, 4),
	    ACT2(JOIN_ANY, 0, 2), ACT(JOIN, 3),		ACT(JOIN, 4)};
	static const struct dps_action slow[] = {ACT(SLEEP, 1000 * MS), ACT(WAKE, 0)};
	static const struct dps_action quick[] = {ACT(WAKE, 0)};
	static const struct dps_action marker[] = {ACT(RUN, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, slow),
						    THREAD(3, quick), THREAD(4, marker),
						    THREAD(5, marker)};
	struct dps_program prog = {.name = "any",
				   .threads = th,
				   .n_threads = 5,
				   .root = 0,
				   .members = members,
				   .n_members = 2};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_assert_lt(r.threads[3].start_ns, r.threads[1].end_ns,
		     "the wait on 2|3 took 3's wake, not 2's");
	cr_assert_lt(r.threads[4].start_ns, r.threads[1].end_ns,
		     "the first join any took 3, which had ended, not 2");
	cr_assert_eq(r.threads[0].n_actions, 9);
	dps_play_result_fini(&r);
}

/* Two threads lock two mutexes in opposite orders: reported, naming both, not hung. */
Test(sync, a_lock_cycle_is_a_deadlock_naming_threads_and_mutexes)
{
	static const struct dps_action root[] = {
	    ACT(CREATE, 1), ACT(LOCK, 0),   ACT(SLEEP, 100 * MS), ACT(LOCK, 1),
	    ACT(UNLOCK, 1), ACT(UNLOCK, 0), ACT(JOIN, 1)};
	static const struct dps_action other[] = {ACT(LOCK, 1), ACT(SLEEP, 100 * MS), ACT(LOCK, 0),
						  ACT(UNLOCK, 0), ACT(UNLOCK, 1)};
	static const struct dps_thread_desc th[] = {THREAD(11, root), THREAD(12, other)};
	static const struct dps_object m[] = {{.id = 101, .kind = DPS_OBJ_MUTEX},
					      {.id = 102, .kind = DPS_OBJ_MUTEX}};
	struct dps_program prog = {
	    .name = "dl", .threads = th, .n_threads = 2, .root = 0, .objects = m, .n_objects = 2};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_ERR_DEADLK);
	cr_assert_not_null(strstr(r.detail, "thread 11 locks mutex 102 held by thread 12"), "%s",
			   r.detail);
	cr_assert_not_null(strstr(r.detail, "thread 12 locks mutex 101 held by thread 11"), "%s",
			   r.detail);
	dps_play_result_fini(&r);
}

/* A take from a queue whose only producer ended is a deadlock too, named. */
Test(sync, a_take_nobody_can_satisfy_is_a_deadlock)
{
	static const struct dps_action root[] = {ACT(CREATE, 1), ACT(TAKE, 0), ACT(TAKE, 0),
						 ACT(JOIN, 1)};
	static const struct dps_action producer[] = {ACT(PUT, 0)};
	static const struct dps_thread_desc th[] = {THREAD(1, root), THREAD(2, producer)};
	struct dps_object q = {.id = 9, .kind = DPS_OBJ_QUEUE, .capacity = 0};
	struct dps_program prog = {
	    .name = "q", .threads = th, .n_threads = 2, .root = 0, .objects = &q, .n_objects = 1};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_ERR_DEADLK);
	cr_assert_not_null(strstr(r.detail, "thread 1 takes from empty queue 9"), "%s", r.detail);
	dps_play_result_fini(&r);
}

/* Objects and members out of range or of the wrong kind are refused before anything runs. */
Test(sync, bad_object_references_are_refused)
{
	static const struct dps_action lock_queue[] = {ACT(LOCK, 0), ACT(UNLOCK, 0)};
	static const struct dps_action no_object[] = {ACT(PUT, 3)};
	static const struct dps_action bad_members[] = {ACT2(JOIN_ANY, 1, 2)};
	static const struct dps_thread_desc a[] = {THREAD(1, lock_queue)};
	static const struct dps_thread_desc b[] = {THREAD(1, no_object)};
	static const struct dps_thread_desc c[] = {THREAD(1, bad_members)};
	static const uint32_t members[] = {0, 0};
	struct dps_object q = {.id = 9, .kind = DPS_OBJ_QUEUE};
	struct dps_program prog = {.name = "bad", .n_threads = 1, .objects = &q, .n_objects = 1};

	prog.threads = a;
	cr_assert_eq(dps_play(&prog, &opts, NULL), DPS_ERR_INVAL);
	prog.threads = b;
	cr_assert_eq(dps_play(&prog, &opts, NULL), DPS_ERR_INVAL);
	prog.threads = c;
	prog.members = members;
	prog.n_members = 2;
	cr_assert_eq(dps_play(&prog, &opts, NULL), DPS_ERR_INVAL);
}

/*
 * A task queue (doc/sync.md, "Task queues"): two workers each took 4 of 8 items in the
 * recording (the last a stop item), 50 ms of work after each other take. With worker 2 ten
 * times slower, worker 1 takes the work worker 2 cannot: it plays at least 4 items' work in
 * the time worker 2 plays its first (wall mode: a run lasts its wall time, load or not). The
 * same program without the order keeps each worker to its own 3.
 */
static const struct dps_action pool_root[] = {
    ACT(CREATE, 1), ACT(CREATE, 2), ACT(PUT, 0), ACT(PUT, 0), ACT(PUT, 0),  ACT(PUT, 0),
    ACT(PUT, 0),    ACT(PUT, 0),    ACT(PUT, 0), ACT(PUT, 0), ACT(JOIN, 1), ACT(JOIN, 2)};
static const struct dps_action pool_worker[] = {
    ACT(TAKE, 0), ACT(RUN, 50 * MS), ACT(TAKE, 0), ACT(RUN, 50 * MS),
    ACT(TAKE, 0), ACT(RUN, 50 * MS), ACT(TAKE, 0), ACT(RUN, 1 * MS)};
static const struct dps_thread_desc pool_th[] = {THREAD(1, pool_root), THREAD(2, pool_worker),
						 THREAD(3, pool_worker)};
static const uint32_t pool_order[] = {1, 2, 1, 2, 1, 2, 1, 2};

static void play_pool(bool tasks, struct dps_play_result *r)
{
	static const double scale[] = {1.0, 1.0, 10.0};
	struct dps_object q = {.id = 5, .kind = DPS_OBJ_QUEUE, .capacity = 0};
	struct dps_program prog = {
	    .name = "pool", .threads = pool_th, .n_threads = 3, .objects = &q, .n_objects = 1};
	struct dps_play_options o = opts;

	if (tasks) {
		q.order = pool_order;
		q.n_order = 8;
	}
	o.thread_run_scale = scale;
	cr_assert_eq(dps_play(&prog, &o, r), DPS_OK);
}

Test(sync, a_task_queue_gives_the_slow_workers_items_to_the_fast_one)
{
	struct dps_play_result r;

	play_pool(true, &r);
	cr_expect_geq(r.threads[1].run_req_ns, 4 * 50 * MS, "worker 1 ran %" PRIu64 " ns",
		      r.threads[1].run_req_ns);
	cr_expect_leq(r.threads[2].run_req_ns, 2 * 500 * MS + 10 * MS,
		      "worker 2 ran %" PRIu64 " ns", r.threads[2].run_req_ns);
	dps_play_result_fini(&r);
	play_pool(false, &r);
	cr_expect_eq(r.threads[1].run_req_ns, 3 * 50 * MS + 1 * MS);
	cr_expect_eq(r.threads[2].run_req_ns, 10 * (3 * 50 * MS + 1 * MS));
	dps_play_result_fini(&r);
}

/* An order that does not match the takes (a worker listed 3 times, taking 4) is refused. */
Test(sync, a_task_order_that_does_not_match_the_takes_is_refused)
{
	static const uint32_t short_order[] = {1, 2, 1, 2, 1, 2, 2};
	struct dps_object q = {.id = 5, .kind = DPS_OBJ_QUEUE, .order = short_order, .n_order = 7};
	struct dps_program prog = {
	    .name = "pool", .threads = pool_th, .n_threads = 3, .objects = &q, .n_objects = 1};

	cr_assert_eq(dps_play(&prog, &opts, NULL), DPS_ERR_INVAL);
}

/* Two threads that join each other (a set's validation refuses it; a program made by hand
 * is not validated): the deadlock is reported and the play ends, every time. Before issue 26
 * each of the two, released by the abort, went into pthread_join of the other, and the play
 * hung in most runs. */
Test(sync, a_join_cycle_is_reported_in_every_play, .timeout = 60)
{
	static const struct dps_action a0[] = {ACT(CREATE, 1), ACT(CREATE, 2), ACT(JOIN, 1),
					       ACT(JOIN, 2)};
	static const struct dps_action a1[] = {ACT(RUN, 100 * US), ACT(JOIN, 2)};
	static const struct dps_action a2[] = {ACT(RUN, 100 * US), ACT(JOIN, 1)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0), THREAD(2, a1), THREAD(3, a2)};
	struct dps_program prog = {.threads = th, .n_threads = 3, .root = 0};

	for (int i = 0; i < 20; i++) {
		struct dps_play_result r;

		cr_assert_eq(dps_play(&prog, &opts, &r), DPS_ERR_DEADLK, "play %d", i);
		cr_assert_not_null(strstr(r.detail, "thread 2 joins thread 3 (2.act:"),
				   "play %d: %s", i, r.detail);
		dps_play_result_fini(&r);
	}
}

/* A wait whose waker ended without giving the wake can never return: reported (issue 26),
 * naming the thread, its action file and line, whether the waker ended before the wait began
 * or while it waited; not passed as if woken. */
Test(sync, a_wait_for_a_waker_that_ended_without_waking_is_an_error_where_it_is)
{
	static const struct dps_action a0[] = {ACT(CREATE, 1), ACT(CREATE, 2), ACT(JOIN, 1),
					       ACT(JOIN, 2)};
	/* the waker (3) ends at once; 2 waits after 20 ms, then before */
	static const struct dps_action late[] = {ACT(SLEEP, 20 * MS), ACT(WAIT, 2)};
	static const struct dps_action early[] = {ACT(WAIT, 2)};
	static const struct dps_action a2[] = {ACT(RUN, 1 * MS)};
	static const struct dps_action slow[] = {ACT(SLEEP, 20 * MS)};
	const struct dps_thread_desc th[][3] = {
	    {THREAD(1, a0), THREAD(2, late), THREAD(3, a2)},
	    {THREAD(1, a0), THREAD(2, early), THREAD(3, slow)},
	};

	for (size_t k = 0; k < 2; k++) {
		struct dps_program prog = {.threads = th[k], .n_threads = 3, .root = 0};
		struct dps_play_result r;
		char want[128];

		cr_assert_eq(dps_play(&prog, &opts, &r), DPS_ERR_DEADLK, "case %zu", k);
		snprintf(want, sizeof(want),
			 "thread 2 waits for a wake of thread 3, which ended without giving it "
			 "(2.act:%u)",
			 k ? early[0].line : late[1].line);
		cr_assert_not_null(strstr(r.detail, want), "case %zu: %s", k, r.detail);
		dps_play_result_fini(&r);
	}
}

/* A timed wait whose waker ended without waking it waits out its timeout, as the program's
 * would: the wake cannot come. */
Test(sync, a_timed_wait_for_a_waker_that_ended_waits_out_its_timeout)
{
	static const struct dps_action a0[] = {ACT(CREATE, 1), ACT(CREATE, 2), ACT(JOIN, 1),
					       ACT(JOIN, 2)};
	static const struct dps_action a1[] = {
	    {.kind = DPS_ACT_SLEEP, .arg = 10 * MS},
	    {.kind = DPS_ACT_WAIT_TIMEOUT, .arg = 2, .arg2 = 30 * MS}};
	static const struct dps_action a2[] = {ACT(RUN, 1 * MS)};
	static const struct dps_thread_desc th[] = {THREAD(1, a0), THREAD(2, a1), THREAD(3, a2)};
	struct dps_program prog = {.threads = th, .n_threads = 3, .root = 0};
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK);
	cr_assert_eq(r.threads[1].n_timeouts, 1);
	cr_assert_geq(r.threads[1].end_ns - r.threads[1].start_ns, 40 * MS);
	dps_play_result_fini(&r);
}
