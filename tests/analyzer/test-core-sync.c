/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's core on synthetic event sequences (core-seq.h), synchronization: the
 * annotations' objects, mutexes and the pthread wrapper's lock events, task queues, the probe's
 * condition waits (timed and untimed) and critical sections around joins. Part of the
 * test-analyzer-core executable (test-core.c has the other rules of the core).
 */
#include "core-seq.h"

TestSuite(core_sync, .init = setup, .fini = teardown);

static void sync_ev(uint64_t ts, int cpu, int64_t tid, uint32_t kind, int64_t obj, int64_t param)
{
	struct analyzer_event ev = analyzer_event_init(kind, ts, cpu);

	ev.ctx_tid = tid;
	ev.ctx_pid = 100;
	ev.sync.obj = obj;
	ev.sync.param = param;
	feed(ev);
}

/*
 * Issue 13: a consumer blocked in its condition variable until the producer's put; the
 * annotations make the queue an object, the put and the take actions where they happened,
 * and the consumer's recorded wait its take's own block (dropped: the take blocks in the
 * replay). The mutex around them (the pthread wrapper's events) is released around the take,
 * as the condition variable's wait released it.
 */
Test(core_sync, annotations_become_objects_and_the_block_before_a_take_is_the_take)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sync_ev(US(5), 0, 100, ANALYZER_EV_SYNC_QUEUE_INIT, 0x1000, 1);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(90), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	sw(US(100), 1, 101, BLOCKED, 0); /* in pthread_cond_wait */
	sync_ev(US(280), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	sync_ev(US(290), 0, 100, ANALYZER_EV_SYNC_PRODUCE, 0x1000, 0);
	waking(US(300), 0, 101);
	sync_ev(US(302), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(310), 1, 0, 0, 101);
	sync_ev(US(312), 1, 101, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sync_ev(US(314), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 2);
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_QUEUE);
	cr_expect_eq(res->actset->objects[0].capacity, 1);
	cr_expect_eq(res->actset->objects[1].kind, DPS_OBJ_MUTEX);
	cr_expect_str_eq(actions(100), "run 10; create 101; run 270; lock 2; run 10; unlock 2; "
				       "put 1; lock 2; run 10; wake 101; run 2; unlock 2; run 198");
	cr_expect_str_eq(actions(101), "run 70; lock 2; run 12; unlock 2; take 1; lock 2; run 2; "
				       "unlock 2; run 86; sleep 100");
}

/*
 * Issue 13: a mutex taken by the producer while the wrapper's events say the consumer holds it
 * was released inside the consumer's condition wait, unseen. With no annotated take after it
 * (the consumer's next event is its own unlock, after the producer let go), the set cannot play
 * that release: the mutex is left out, not held across the wait (a deadlock in the replay).
 * The same order within the wrapper's unlock race (the holder's unlock event comes while the
 * other still holds it) is not a release: the mutex stays.
 */
Test(core_sync, a_mutex_released_inside_a_condition_wait_unseen_is_left_out)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(90), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	sw(US(100), 1, 101, BLOCKED, 0); /* in pthread_cond_wait: releases 0x2000 */
	sync_ev(US(280), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	waking(US(300), 0, 101);
	sync_ev(US(302), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(310), 1, 0, 0, 101);
	sync_ev(US(314), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(res->actset->n_objects, 0, "actions: %s / %s", actions(100), actions(101));
	cr_expect(!strstr(actions(101), "lock"), "%s", actions(101));
}

Test(core_sync, the_wrappers_unlock_race_is_no_release)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(90), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	sync_ev(US(280), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	sync_ev(US(281), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0); /* written after it let go */
	sync_ev(US(302), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1, "actions: %s / %s", actions(100), actions(101));
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_MUTEX);
}

/*
 * A worker that wakes its creator (a queue's "not full" signal) and then takes a lock before
 * it exits: that wake was the program's, not pthread_join's (the exit path runs no program
 * code). It stays a wait; the creator's later pthread_join is the join. Named a join, the
 * block sat inside the creator's critical section, and the replay deadlocked.
 */
Test(core_sync, a_wake_followed_by_a_lock_before_the_exit_is_no_join)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sw(US(100), 0, 100, BLOCKED, 0); /* a condition wait: the queue is full */
	waking(US(300), 1, 100);	 /* 101 takes an item and signals */
	sync_ev(US(320), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x3000, 0);
	sync_ev(US(330), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x3000, 0);
	exit_ev(US(340), 1, 101);
	sw(US(341), 1, 101, 64, 0); /* TASK_DEAD */
	sw(US(350), 0, 0, 0, 100);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect(strstr(actions(100), "wait 101") != NULL, "%s", actions(100));
	cr_expect(strstr(actions(101), "wake 100") != NULL, "%s", actions(101));
	cr_expect_eq(thread(100)->stats.n_joins, 1, "%s", actions(100));
}

/*
 * A task queue (doc/sync.md, "Task queues"): two workers take from one annotated queue, each
 * running work between its takes; the manifest gets who took each item, in take order. A
 * third thread's queue with one consumer stays a plain queue.
 */
Test(core_sync, a_queue_two_workers_share_becomes_a_task_queue)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sync_ev(US(1), 0, 100, ANALYZER_EV_SYNC_QUEUE_INIT, 0x1000, 0);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	fork_ev(US(12), 0, 100, 102, 100, 100);
	for (int k = 0; k < 4; k++) {
		sync_ev(US(20 + k), 0, 100, ANALYZER_EV_SYNC_PRODUCE, 0x1000, 0);
	}
	sw(US(30), 0, 100, BLOCKED, 0);
	sw(US(31), 0, 0, 0, 101);
	sw(US(32), 1, 0, 0, 102);
	sync_ev(US(40), 0, 101, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sync_ev(US(41), 1, 102, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sync_ev(US(240), 1, 102, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sync_ev(US(340), 0, 101, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sw(US(400), 0, 101, BLOCKED, 0);
	sw(US(401), 1, 102, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_assert_eq(res->actset->objects[0].n_order, 4, "%s / %s", actions(101), actions(102));
	cr_expect_eq(res->actset->objects[0].order[0], 101);
	cr_expect_eq(res->actset->objects[0].order[1], 102);
	cr_expect_eq(res->actset->objects[0].order[2], 102);
	cr_expect_eq(res->actset->objects[0].order[3], 101);
}

/* A stretch between two takes that waits for a thread is its taker's own business: the queue
 * stays a plain one. */
Test(core_sync, a_worker_that_waits_between_takes_keeps_its_items)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sync_ev(US(1), 0, 100, ANALYZER_EV_SYNC_QUEUE_INIT, 0x1000, 0);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	fork_ev(US(12), 0, 100, 102, 100, 100);
	for (int k = 0; k < 4; k++) {
		sync_ev(US(20 + k), 0, 100, ANALYZER_EV_SYNC_PRODUCE, 0x1000, 0);
	}
	sw(US(31), 0, 100, 0, 101);
	sw(US(32), 1, 0, 0, 102);
	sync_ev(US(40), 0, 101, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sync_ev(US(41), 1, 102, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sw(US(100), 1, 102, BLOCKED, 0); /* waits for thread 100 */
	sw(US(101), 1, 0, 0, 100);
	waking(US(200), 1, 102);
	sw(US(201), 1, 100, BLOCKED, 0);
	sw(US(202), 1, 0, 0, 102);
	sync_ev(US(450), 1, 102, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0); /* ran 250 us since */
	sync_ev(US(500), 0, 101, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sw(US(600), 0, 101, BLOCKED, 0);
	sw(US(601), 1, 102, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect(strstr(actions(102), "wait 100") != NULL, "%s", actions(102));
	cr_expect_null(res->actset->objects[0].order, "%s", actions(102));
}

/* A condition wait's begin or end by the probe (dps_sync): cond 0x3000 on mutex 0x2000;
 * param: the timeout in ns (-1 untimed) at the begin, the result at the end. */
static void cond_ev(uint64_t ts, int cpu, int64_t tid, uint32_t kind, int64_t param)
{
	struct analyzer_event ev = analyzer_event_init(kind, ts, cpu);

	ev.ctx_tid = tid;
	ev.ctx_pid = 100;
	ev.sync.obj = 0x3000;
	ev.sync.mutex = 0x2000;
	ev.sync.param = param;
	feed(ev);
}

/*
 * Issue 13, xz's pattern: a timed condition wait (300 ms) that the worker ended early by its
 * signal. The probe's begin and end say where the wait released the mutex and took it back:
 * `unlock`, `wait 101 timeout 300ms` (the worker's wake kept), `lock`; the mutex stays in the
 * set though the worker took it while the waiter's lock events say it held it.
 */
Test(core_sync, a_timed_condition_wait_a_thread_ended_is_a_wait_with_its_timeout)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(50), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	cond_ev(US(60), 0, 100, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, 300000000);
	sw(US(100), 0, 100, BLOCKED, 0);
	sync_ev(US(280), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	waking(US(300), 1, 100); /* pthread_cond_signal */
	sync_ev(US(302), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(310), 0, 0, 0, 100);
	cond_ev(US(312), 0, 100, ANALYZER_EV_SYNC_COND_WAIT_END, 0);
	sync_ev(US(314), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1, "actions: %s", actions(100));
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_MUTEX);
	cr_expect_str_eq(actions(100), "run 10; create 101; run 40; lock 1; run 10; unlock 1; "
				       "run 40; wait 101 timeout 300000; run 2; lock 1; run 2; "
				       "unlock 1; run 186");
	cr_expect_str_eq(actions(101), "run 260; lock 1; run 20; wake 100; run 2; unlock 1; "
				       "run 98; sleep 100");
}

/* A timed condition wait that timed out: no thread ended it, it stays the sleep it was,
 * between the release and the re-acquisition of its mutex. */
Test(core_sync, a_timed_condition_wait_that_timed_out_stays_a_sleep)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sync_ev(US(50), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	cond_ev(US(60), 0, 100, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, 300000);
	sw(US(100), 0, 100, BLOCKED, 0);
	waking(US(360), 1, 100); /* CPU 1 idle: the timer */
	sw(US(370), 0, 0, 0, 100);
	cond_ev(US(372), 0, 100, ANALYZER_EV_SYNC_COND_WAIT_END, 110 /* ETIMEDOUT */);
	sync_ev(US(374), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 50; lock 1; run 10; unlock 1; run 40; sleep 270; "
				       "run 2; lock 1; run 2; unlock 1; run 26");
}

/* An untimed condition wait stays the recorded wake-up, now with its mutex released around
 * it (without the probe the mutex is left out: a_mutex_released_inside_...). */
Test(core_sync, an_untimed_condition_wait_is_a_wait_between_unlock_and_lock)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(90), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	cond_ev(US(95), 1, 101, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, -1);
	sw(US(100), 1, 101, BLOCKED, 0);
	sync_ev(US(280), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	waking(US(300), 0, 101);
	sync_ev(US(302), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(310), 1, 0, 0, 101);
	cond_ev(US(312), 1, 101, ANALYZER_EV_SYNC_COND_WAIT_END, 0);
	sync_ev(US(314), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1, "actions: %s / %s", actions(100), actions(101));
	cr_expect_str_eq(actions(101), "run 70; lock 1; run 5; unlock 1; run 5; wait 100; run 2; "
				       "lock 1; run 2; unlock 1; run 86; sleep 100");
}

/*
 * With the probe's events around the consumer's wait, an annotated queue reads as before: the
 * wait is the take's own block (dropped), and the take's release of the mutex is the one
 * played (no unlock/lock of the wait besides it).
 */
Test(core_sync, a_condition_wait_before_an_annotated_take_is_the_takes_block)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sync_ev(US(5), 0, 100, ANALYZER_EV_SYNC_QUEUE_INIT, 0x1000, 1);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(90), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	cond_ev(US(95), 1, 101, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, -1);
	sw(US(100), 1, 101, BLOCKED, 0);
	sync_ev(US(280), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	sync_ev(US(290), 0, 100, ANALYZER_EV_SYNC_PRODUCE, 0x1000, 0);
	waking(US(300), 0, 101);
	sync_ev(US(302), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(310), 1, 0, 0, 101);
	cond_ev(US(311), 1, 101, ANALYZER_EV_SYNC_COND_WAIT_END, 0);
	sync_ev(US(312), 1, 101, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sync_ev(US(314), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(101), "run 70; lock 2; run 12; unlock 2; take 1; lock 2; run 2; "
				       "unlock 2; run 86; sleep 100");
}

/*
 * A timed condition wait whose block is not the later take's own (the thread ran long after
 * it): it is played with the mutex released around it, else the replay would hold the mutex
 * across the wait (bench/sync's held-out `timedwait` program deadlocked so).
 */
Test(core_sync, a_wait_before_a_take_that_is_not_its_own_releases_the_mutex)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sync_ev(US(5), 0, 100, ANALYZER_EV_SYNC_QUEUE_INIT, 0x1000, 0);
	sync_ev(US(6), 0, 100, ANALYZER_EV_SYNC_PRODUCE, 0x1000, 0);
	sync_ev(US(50), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	cond_ev(US(60), 0, 100, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, 300000);
	sw(US(100), 0, 100, BLOCKED, 0);
	waking(US(360), 1, 100); /* the timer */
	sw(US(370), 0, 0, 0, 100);
	cond_ev(US(372), 0, 100, ANALYZER_EV_SYNC_COND_WAIT_END, 110);
	sync_ev(US(900), 0, 100, ANALYZER_EV_SYNC_CONSUME, 0x1000, 0);
	sync_ev(US(910), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(1000), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100),
			 "run 6; put 1; run 44; lock 2; run 50; unlock 2; sleep 270; "
			 "lock 2; run 530; unlock 2; take 1; lock 2; run 10; unlock 2; "
			 "run 90");
}

/*
 * The wrapper writes an unlock event after the real unlock: a signaller preempted between
 * the two lets the waiter return from its wait (taking the mutex) and wait again (releasing
 * it) before its unlock event. With the probe's events that late unlock is the wrapper's
 * order, not a release inside an unseen wait: the mutex stays.
 */
Test(core_sync, a_late_unlock_event_after_the_waiters_next_wait_keeps_the_mutex)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(50), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	cond_ev(US(60), 0, 100, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, -1);
	sw(US(100), 0, 100, BLOCKED, 0);
	sync_ev(US(280), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	waking(US(300), 1, 100);
	sw(US(305), 1, 101, PREEMPTED, 100); /* after its real unlock, before its event */
	cond_ev(US(310), 1, 100, ANALYZER_EV_SYNC_COND_WAIT_END, 0);
	cond_ev(US(320), 1, 100, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, -1);
	sw(US(330), 1, 100, BLOCKED, 101);
	sync_ev(US(331), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 0, 0, 0);
	finish_ok();
	cr_expect_eq(res->actset->n_objects, 1, "actions: %s / %s", actions(100), actions(101));
	cr_expect_str_eq(actions(101), "run 260; lock 1; run 20; wake 100; run 6; unlock 1; "
				       "run 69; sleep 100");
	cr_expect_str_eq(actions(100), "run 10; create 101; run 40; lock 1; run 10; unlock 1; "
				       "run 40; wait 101; run 5; lock 1; run 10; unlock 1; run 10; "
				       "sleep 170");
}

/*
 * A child that ends while its creator holds a mutex: the join put there (joins.c) is played
 * after the creator's unlock. Inside the critical section, a replay where the child comes
 * later (a wake consumed early) would have the creator hold the mutex while it joins a child
 * that still needs it: bench/sync's `timedwait` deadlocked so.
 */
Test(core_sync, a_join_inside_a_critical_section_waits_for_the_unlock)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sync_ev(US(50), 1, 101, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	sync_ev(US(60), 1, 101, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sync_ev(US(200), 0, 100, ANALYZER_EV_SYNC_LOCK_ACQ, 0x2000, 0);
	exit_ev(US(300), 1, 101);
	sw(US(301), 1, 101, 64, 0);
	sync_ev(US(400), 0, 100, ANALYZER_EV_SYNC_UNLOCK, 0x2000, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 10; create 101; run 190; lock 1; run 200; unlock 1; "
				       "join 101; run 100");
}
