/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's core on synthetic event sequences (core-seq.h), issue 24: the probe's
 * blocking calls (a barrier's wait, a semaphore's wait and post, a rwlock, a pipe's read and
 * write, OpenMP's pools) become objects and actions, a call's inside (its blocks, its spinning,
 * the wakes it gave) is its own; the kernel's futex words are read: a barrier whose last
 * arriver changes is re-enacted, a lock, a wake-all always from one thread and a barrier whose
 * waiters spin are named in the result's pins. Part of the test-analyzer-core executable.
 */
#include "core-seq.h"

TestSuite(core_probe, .init = setup, .fini = teardown);

/* One of the probe's events of thread tid: kind (OP_BEGIN, OP_END, OBJ_INIT, POOL_TAKE), op
 * (enum analyzer_sync_op), the object and the parameter. */
static void op_ev(uint64_t ts, int cpu, int64_t tid, uint32_t kind, uint32_t op, int64_t obj,
		  int64_t param)
{
	struct analyzer_event ev = analyzer_event_init(kind, ts, cpu);

	ev.ctx_tid = tid;
	ev.ctx_pid = 100;
	ev.sync.obj = obj;
	ev.sync.param = param;
	ev.sync.op = op;
	feed(ev);
}

/* A futex syscall's entry (uaddr, op, val) or exit (ret in uaddr's slot) of thread tid. */
static void futex_ev(uint64_t ts, int cpu, int64_t tid, bool entry, int64_t uaddr_or_ret,
		     int64_t op, int64_t val)
{
	struct analyzer_event ev =
	    analyzer_event_init(entry ? ANALYZER_EV_FUTEX_ENTRY : ANALYZER_EV_FUTEX_EXIT, ts, cpu);

	ev.ctx_tid = tid;
	ev.ctx_pid = 100;
	ev.futex.uaddr = uaddr_or_ret;
	ev.futex.op = op;
	ev.futex.val = val;
	feed(ev);
}

#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#define WAKE_ALL 2147483647

static const struct analyzer_pin *pin_of(int64_t waiter, int64_t waker)
{
	for (size_t i = 0; i < res->n_pins; i++) {
		if (res->threads[res->pins[i].waiter].tid == waiter &&
		    res->threads[res->pins[i].waker].tid == waker) {
			return &res->pins[i];
		}
	}
	return NULL;
}

/* main (100) starts two workers (101 on CPU 0, 102 on CPU 1) at 10 us */
static void two_workers(void)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	fork_ev(US(11), 0, 100, 102, 100, 100);
	sw(US(12), 0, 100, BLOCKED, 101);
	sw(US(13), 1, 0, 0, 102);
}

/* the end: both workers exit, main joins them */
static void two_workers_end(uint64_t at)
{
	waking(US(at), 0, 100);
	exit_ev(US(at + 1), 0, 101);
	sw(US(at + 2), 0, 101, BLOCKED, 100);
	exit_ev(US(at + 3), 1, 102);
	sw(US(at + 4), 1, 102, BLOCKED, 0);
	sw(US(at + 10), 0, 100, BLOCKED, 0);
}

/*
 * A barrier of 2 through the probe: 101 arrives first and waits (spinning 20 us, then
 * blocked until 102's wake), 102 arrives last and wakes it. Each gets an arrive where its
 * call began; 101's spinning and blocked time and 102's wake are the call's own.
 */
Test(core_probe, a_barrier_wait_is_an_arrive_and_its_inside_is_its_own)
{
	two_workers();
	op_ev(US(20), 0, 101, ANALYZER_EV_SYNC_OBJ_INIT, SYNC_OP_BARRIER_WAIT, 0x5000, 2);
	op_ev(US(100), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_BARRIER_WAIT, 0x5000, -1);
	sw(US(120), 0, 101, BLOCKED, 0); /* spun 20 us, then slept */
	op_ev(US(300), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_BARRIER_WAIT, 0x5000, -1);
	waking(US(305), 1, 101);
	op_ev(US(310), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_BARRIER_WAIT, 0x5000, -1);
	sw(US(312), 0, 0, 0, 101);
	op_ev(US(315), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_BARRIER_WAIT, 0x5000, 0);
	two_workers_end(400);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_BARRIER);
	cr_expect_eq(res->actset->objects[0].capacity, 2);
	cr_expect_str_eq(actions(101), "run 88; arrive 1; run 87");
	cr_expect_str_eq(actions(102), "run 287; arrive 1; run 94");
	cr_expect_eq(thread(101)->stats.call_cpu_ns, US(20) + US(3), "its spinning");
}

/*
 * A semaphore of 1 permit through the probe: 101 takes it (no wait), then waits for a second
 * one, which 102's post gives; a trywait that found none and a timed wait that timed out make
 * no take. The queue starts with sem_init's permit.
 */
Test(core_probe, a_semaphores_waits_and_posts_are_takes_and_puts)
{
	two_workers();
	op_ev(US(15), 0, 101, ANALYZER_EV_SYNC_OBJ_INIT, SYNC_OP_SEM_WAIT, 0x6000, 1);
	op_ev(US(50), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_WAIT, 0x6000, -1);
	op_ev(US(52), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_WAIT, 0x6000, 0);
	op_ev(US(60), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_WAIT, 0x6000, 0);
	op_ev(US(61), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_WAIT, 0x6000, 11);
	op_ev(US(100), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_WAIT, 0x6000, -1);
	sw(US(101), 0, 101, BLOCKED, 0);
	op_ev(US(200), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_POST, 0x6000, -1);
	waking(US(201), 1, 101);
	op_ev(US(202), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_POST, 0x6000, 0);
	sw(US(205), 0, 0, 0, 101);
	op_ev(US(206), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_WAIT, 0x6000, 0);
	two_workers_end(300);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_QUEUE);
	cr_expect_eq(res->actset->objects[0].initial, 1, "sem_init's permit");
	cr_expect_str_eq(actions(101), "run 38; take 1; run 48; take 1; run 96");
	cr_expect_str_eq(actions(102), "run 187; put 1; run 102");
}

/* A rwlock (format version 3): the read side is rdlock, the write side lock. */
Test(core_probe, a_rwlocks_sides_are_rdlock_and_lock)
{
	two_workers();
	op_ev(US(50), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_RDLOCK, 0x7000, -1);
	op_ev(US(51), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_RDLOCK, 0x7000, 0);
	op_ev(US(60), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_WRLOCK, 0x7000, -1);
	sw(US(61), 1, 102, BLOCKED, 0);
	op_ev(US(150), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_RWUNLOCK, 0x7000, -1);
	waking(US(151), 0, 102);
	op_ev(US(152), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_RWUNLOCK, 0x7000, 0);
	sw(US(155), 1, 0, 0, 102);
	op_ev(US(156), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_WRLOCK, 0x7000, 0);
	op_ev(US(200), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_RWUNLOCK, 0x7000, -1);
	op_ev(US(201), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_RWUNLOCK, 0x7000, 0);
	two_workers_end(300);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_RWLOCK);
	cr_expect_eq(res->actset->format_version, 3);
	cr_expect_str_eq(actions(101), "run 38; rdlock 1; run 99; unlock 1; run 150");
	cr_expect_str_eq(actions(102), "run 47; lock 1; run 44; unlock 1; run 103");
}

/* A pipe between the two: its bytes a queue of 64 KiB (version 3), a write a put of its
 * bytes, a read that got some a take of them; the end of the pipe (0) no take. */
Test(core_probe, a_pipes_reads_and_writes_move_its_bytes)
{
	two_workers();
	op_ev(US(30), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_PIPE_READ, 777, 4096);
	sw(US(31), 1, 102, BLOCKED, 0);
	op_ev(US(100), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_PIPE_WRITE, 777, 6000);
	waking(US(101), 0, 102);
	op_ev(US(103), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_PIPE_WRITE, 777, 6000);
	sw(US(105), 1, 0, 0, 102);
	op_ev(US(106), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_PIPE_READ, 777, 4096);
	op_ev(US(110), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_PIPE_READ, 777, 4096);
	op_ev(US(111), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_PIPE_READ, 777, 1904);
	op_ev(US(120), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_PIPE_READ, 777, 4096);
	op_ev(US(121), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_PIPE_READ, 777, 0);
	two_workers_end(300);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_QUEUE);
	cr_expect_eq(res->actset->objects[0].capacity, 65536);
	cr_expect_eq(res->actset->format_version, 3);
	cr_expect_str_eq(actions(101), "run 88; put 1; run 199");
	cr_expect_str_eq(actions(102), "run 17; take 1; run 4; take 1; run 193");
	cr_expect_eq(res->actset->threads[dps_actset_find(res->actset, 101)].actions[1].aux, 6000);
	cr_expect_eq(res->actset->threads[dps_actset_find(res->actset, 102)].actions[1].aux, 4096);
	cr_expect_eq(res->actset->threads[dps_actset_find(res->actset, 102)].actions[3].aux, 1904);
}

/* An OpenMP dynamic loop's takes (the probe's pool_take): 3 chunks and each thread's empty
 * answer make a task queue that starts with all 5. */
Test(core_probe, a_pools_takes_make_a_task_queue)
{
	two_workers();
	op_ev(US(20), 0, 101, ANALYZER_EV_SYNC_POOL_TAKE, SYNC_OP_NONE, 0x9000, 1);
	op_ev(US(21), 1, 102, ANALYZER_EV_SYNC_POOL_TAKE, SYNC_OP_NONE, 0x9000, 1);
	op_ev(US(120), 0, 101, ANALYZER_EV_SYNC_POOL_TAKE, SYNC_OP_NONE, 0x9000, 1);
	op_ev(US(180), 1, 102, ANALYZER_EV_SYNC_POOL_TAKE, SYNC_OP_NONE, 0x9000, 0);
	op_ev(US(220), 0, 101, ANALYZER_EV_SYNC_POOL_TAKE, SYNC_OP_NONE, 0x9000, 0);
	two_workers_end(300);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect_eq(res->actset->objects[0].initial, 5);
	cr_assert_eq(res->actset->objects[0].n_order, 5);
	cr_expect_eq(res->actset->objects[0].order[0], 101);
	cr_expect_eq(res->actset->objects[0].order[3], 102);
}

/* what a futex barrier round looks like: waiter enters its wait at w, waker wakes all at k;
 * the waiter's block ends with the waker's wake-up */
static void futex_round(uint64_t w, int64_t waiter, int wcpu, uint64_t k, int64_t waker, int kcpu)
{
	futex_ev(US(w), wcpu, waiter, true, 0x8000, FUTEX_WAIT_PRIVATE, 0);
	sw(US(w + 1), wcpu, waiter, BLOCKED, 0);
	futex_ev(US(k), kcpu, waker, true, 0x8000, FUTEX_WAKE_PRIVATE, WAKE_ALL);
	waking(US(k + 1), kcpu, waiter);
	futex_ev(US(k + 2), kcpu, waker, false, 1, 0, 0);
	sw(US(k + 5), wcpu, 0, 0, waiter);
	futex_ev(US(k + 6), wcpu, waiter, false, 0, 0, 0);
}

/*
 * Without the probe (a recording without --sync, a static program, libgomp): the futex word
 * of a barrier, rounds of one wait and one wake-all. When the last arriver changes from
 * round to round, it is a barrier of 2, re-enacted: each arrival where its call began, and no
 * recorded wait stays.
 */
Test(core_probe, a_futex_barrier_whose_last_arriver_changes_is_re_enacted)
{
	two_workers();
	futex_round(100, 101, 0, 200, 102, 1);
	futex_round(300, 102, 1, 400, 101, 0);
	futex_round(500, 101, 0, 600, 102, 1);
	two_workers_end(700);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect_eq(res->actset->objects[0].kind, DPS_OBJ_BARRIER);
	cr_expect_eq(res->actset->objects[0].capacity, 2);
	cr_expect_eq(res->futex.n_barrier, 1);
	cr_expect_null(strstr(actions(101), "wait"), "%s", actions(101));
	cr_expect_null(strstr(actions(102), "wait"), "%s", actions(102));
	cr_expect_null(strstr(actions(101), "wake"), "%s", actions(101));
	cr_expect_eq(thread(101)->stats.n_waits, 0);
}

/* The same rounds always ended by one thread: a barrier whose last arriver never changed, or
 * a broadcast; kept as recorded waits, and named in the pins. */
Test(core_probe, a_futex_wake_all_always_from_one_thread_is_a_broadcast_pin)
{
	two_workers();
	futex_round(100, 101, 0, 200, 102, 1);
	futex_round(300, 101, 0, 400, 102, 1);
	futex_round(500, 101, 0, 600, 102, 1);
	two_workers_end(700);
	finish_ok();
	cr_expect_eq(res->actset->n_objects, 0);
	cr_expect_eq(res->futex.n_broadcast, 1);
	cr_assert_not_null(pin_of(101, 102));
	cr_expect_eq(pin_of(101, 102)->kind, ANALYZER_PIN_BROADCAST);
	cr_expect_eq(pin_of(101, 102)->n, 3);
}

/* A word the same threads wait on and wake one at a time: a lock. */
Test(core_probe, a_futex_both_wait_on_and_wake_is_a_lock_pin)
{
	two_workers();
	futex_ev(US(100), 0, 101, true, 0x8100, FUTEX_WAIT_PRIVATE, 2);
	sw(US(101), 0, 101, BLOCKED, 0);
	futex_ev(US(150), 1, 102, true, 0x8100, FUTEX_WAKE_PRIVATE, 1);
	waking(US(151), 1, 101);
	futex_ev(US(152), 1, 102, false, 1, 0, 0);
	sw(US(155), 0, 0, 0, 101);
	futex_ev(US(156), 0, 101, false, 0, 0, 0);
	futex_ev(US(200), 1, 102, true, 0x8100, FUTEX_WAIT_PRIVATE, 2);
	sw(US(201), 1, 102, BLOCKED, 0);
	futex_ev(US(250), 0, 101, true, 0x8100, FUTEX_WAKE_PRIVATE, 1);
	waking(US(251), 0, 102);
	futex_ev(US(252), 0, 101, false, 1, 0, 0);
	sw(US(255), 1, 0, 0, 102);
	futex_ev(US(256), 1, 102, false, 0, 0, 0);
	two_workers_end(400);
	finish_ok();
	cr_expect_eq(res->futex.n_lock, 1);
	cr_assert_not_null(pin_of(101, 102));
	cr_expect_eq(pin_of(101, 102)->kind, ANALYZER_PIN_LOCK);
	cr_expect_eq(pin_of(102, 101)->kind, ANALYZER_PIN_LOCK);
}

/* A barrier whose waiter sometimes never sleeps (libgomp spins first): its arrival in that
 * round is not seen, the word a partial barrier. */
Test(core_probe, a_futex_barrier_with_a_round_without_its_wait_is_partial)
{
	two_workers();
	futex_round(100, 101, 0, 200, 102, 1);
	futex_ev(US(400), 0, 101, true, 0x8000, FUTEX_WAKE_PRIVATE, WAKE_ALL); /* 102 spun */
	futex_ev(US(401), 0, 101, false, 0, 0, 0);
	futex_round(500, 101, 0, 600, 102, 1);
	two_workers_end(700);
	finish_ok();
	cr_expect_eq(res->actset->n_objects, 0);
	cr_expect_eq(res->futex.n_partial, 1);
	cr_expect_eq(pin_of(101, 102)->kind, ANALYZER_PIN_PARTIAL);
}

/* What the probe saw and no action re-enacts is in the result, once each. */
Test(core_probe, what_the_probe_cannot_describe_is_reported)
{
	struct analyzer_event ev;

	two_workers();
	for (int i = 0; i < 2; i++) {
		ev = analyzer_event_init(ANALYZER_EV_SYNC_UNMODELLED, US(50 + i), 0);
		ev.ctx_tid = 101;
		ev.ctx_pid = 100;
		ev.unmodelled.what = "omp task";
		feed(ev);
	}
	two_workers_end(300);
	finish_ok();
	cr_assert_eq(res->n_unmodelled, 1);
	cr_expect_str_eq(res->unmodelled[0], "omp task");
}

/* A semaphore of slots that both workers take and put back (a resource pool, not a pool of
 * work): no task queue; each worker keeps its own work. */
Test(core_probe, a_semaphore_whose_takers_put_back_is_no_task_queue)
{
	two_workers();
	op_ev(US(15), 0, 101, ANALYZER_EV_SYNC_OBJ_INIT, SYNC_OP_SEM_WAIT, 0x6000, 1);
	for (int k = 0; k < 2; k++) {
		uint64_t at = 20 + 100 * (uint64_t)k;

		op_ev(US(at), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_WAIT, 0x6000, -1);
		op_ev(US(at + 1), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_WAIT, 0x6000, 0);
		op_ev(US(at + 30), 0, 101, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_POST, 0x6000, -1);
		op_ev(US(at + 31), 0, 101, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_POST, 0x6000, 0);
		op_ev(US(at + 40), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_WAIT, 0x6000, -1);
		op_ev(US(at + 41), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_WAIT, 0x6000, 0);
		op_ev(US(at + 70), 1, 102, ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_POST, 0x6000, -1);
		op_ev(US(at + 71), 1, 102, ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_POST, 0x6000, 0);
	}
	two_workers_end(300);
	finish_ok();
	cr_assert_eq(res->actset->n_objects, 1);
	cr_expect_null(res->actset->objects[0].order, "a resource made a task queue");
}

/* A timed wait that timed out on a word the other thread wakes (a condition variable's loop of
 * timed waits, recorded without --sync): a fixed sleep the waker's speed would move, named in
 * the pins as a timeout. */
Test(core_probe, a_timed_out_wait_on_a_word_another_thread_wakes_is_a_timeout_pin)
{
	two_workers();
	futex_ev(US(100), 0, 101, true, 0x8200, 393 /* WAIT_BITSET|PRIVATE|CLOCK_REALTIME */, 0);
	sw(US(101), 0, 101, BLOCKED, 0);
	sw(US(160), 0, 0, 0, 101); /* the timer */
	futex_ev(US(161), 0, 101, false, -110, 0, 0);
	futex_ev(US(170), 0, 101, true, 0x8200, 393, 0);
	sw(US(171), 0, 101, BLOCKED, 0);
	futex_ev(US(200), 1, 102, true, 0x8200, FUTEX_WAKE_PRIVATE, 1);
	waking(US(201), 1, 101);
	futex_ev(US(202), 1, 102, false, 1, 0, 0);
	sw(US(205), 0, 0, 0, 101);
	futex_ev(US(206), 0, 101, false, 0, 0, 0);
	two_workers_end(300);
	finish_ok();
	cr_expect_eq(res->futex.n_event, 1);
	for (size_t i = 0; i < res->n_pins; i++) {
		if (res->pins[i].kind == ANALYZER_PIN_TIMEOUT) {
			cr_expect_eq(res->threads[res->pins[i].waiter].tid, 101);
			cr_expect_eq(res->threads[res->pins[i].waker].tid, 102);
			cr_expect_eq(res->pins[i].blocked_ns, US(61));
			return;
		}
	}
	cr_assert_fail("no timeout pin");
}
