/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's per-thread state machine on synthetic event sequences (core-seq.h): every
 * transition, the sleep/wait/join classification, folding, missing switch-ins,
 * sched_stat_runtime, tid reuse, selection, memory, simulated runs, waits for any child. The
 * synchronization cases (annotations, mutexes, task queues, condition waits) are
 * test-core-sync.c's, in the same executable.
 */
#include <glib.h>

#include "core-seq.h"

TestSuite(core, .init = setup, .fini = teardown);

/* The sleep lasts until the thread is back on CPU 0 (3100), not until its timer's wake-up
 * (3000): the replay's sleep ends running. The 100 us stay waiting time in the figures. */
Test(core, run_block_timer_wake_is_run_sleep_run)
{
	start(true);
	statedump(0, 100, 100, 1);
	sw(US(0), 0, 0, 0, 100);
	sw(US(1000), 0, 100, BLOCKED, 0);
	waking(US(3000), 1, 100); /* CPU 1 idle: a timer */
	sw(US(3100), 0, 0, 0, 100);
	sw(US(4000), 0, 100, BLOCKED, 0);
	sw(US(5000), 1, 0, 0, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 1000; sleep 2100; run 900; sleep 1000");
	cr_expect_eq(thread(100)->stats.busy_ns, US(1900));
	cr_expect_eq(thread(100)->stats.waiting_ns, US(100));
	cr_expect_eq(thread(100)->stats.blocked_ns, US(3000));
}

Test(core, preempted_time_is_waiting_not_sleep)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sw(US(500), 0, 100, PREEMPTED, 7);
	sw(US(800), 0, 7, BLOCKED, 100);
	sw(US(1000), 0, 100, 4096, 7); /* 2.10 preempted value */
	sw(US(1100), 0, 7, 1, 100);
	sw(US(1200), 0, 100, 2048, 7); /* 2.8 preempted value */
	sw(US(1300), 0, 7, 1, 100);
	sw(US(1400), 0, 100, 256, 0); /* >= 2.13 / perf 6.x preempted */
	finish_ok();
	cr_expect_str_eq(actions(100), "run 900");
	cr_expect_eq(thread(100)->stats.busy_ns, US(900));
	cr_expect_eq(thread(100)->stats.waiting_ns, US(500));
	cr_expect_eq(thread(100)->stats.n_sleeps, 0);
}

Test(core, blocked_states_of_every_version_block)
{
	int64_t states[] = {1, 2, 130, 258, 1026, -255};

	start(true);
	sw(US(0), 0, 0, 0, 100);
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		sw(US(100 + i * 200), 0, 100, states[i], 0);
		waking(US(200 + i * 200), 1, 100);
		sw(US(200 + i * 200), 0, 0, 0, 100);
	}
	finish_ok();
	cr_expect_eq(thread(100)->stats.n_sleeps, 6, "%s", actions(100));
}

Test(core, wake_by_traced_thread_is_wait_and_wake)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sw(US(100), 1, 101, BLOCKED, 0); /* 101 waits for 100 */
	waking(US(300), 0, 101);	 /* 100 runs on CPU 0: it wakes 101 */
	sw(US(310), 1, 0, 0, 101);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 10; create 101; run 290; wake 101; run 200");
	cr_expect_str_eq(actions(101), "run 80; wait 100; run 90; sleep 100");
	cr_expect_eq(thread(101)->stats.waiting_ns, US(10) + US(10));
}

/* --min-block 0 keeps every block: nothing is carried, so no "sleep 0" comes before a wait
 * (bench/folding.sh found thousands of them in a set). */
Test(core, no_block_folded_writes_no_empty_sleep)
{
	opts.min_block_ns = 0;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sw(US(100), 1, 101, BLOCKED, 0);
	waking(US(300), 0, 101);
	sw(US(310), 1, 0, 0, 101);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(101), "run 80; wait 100; run 90; sleep 100");
}

Test(core, waker_in_interrupt_or_outside_syscall_is_no_dependency)
{
	struct analyzer_event ev;

	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	ev = analyzer_event_init(ANALYZER_EV_SYSCALL_ENTRY, US(15), 0);
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_SYSCALL_EXIT, US(16), 0);
	feed(ev);
	sw(US(20), 1, 0, 0, 101);
	sw(US(100), 1, 101, BLOCKED, 0);
	waking(US(300), 0, 101); /* 100 is not in a syscall: a timer interrupt */
	sw(US(310), 1, 0, 0, 101);
	sw(US(400), 1, 101, BLOCKED, 0);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(101), "run 80; sleep 210; run 90; sleep 100");
}

Test(core, waker_that_exits_is_a_join)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sw(US(100), 0, 100, BLOCKED, 0); /* pthread_join */
	waking(US(400), 1, 100);	 /* 101's exit path wakes the joiner */
	exit_ev(US(401), 1, 101);
	sw(US(402), 1, 101, 64, 0); /* TASK_DEAD */
	sw(US(410), 0, 0, 0, 100);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 10; create 101; run 90; join 101; run 90");
	cr_expect_str_eq(actions(101), "run 382");
	cr_expect_eq(thread(100)->stats.n_joins, 1);
	cr_expect_eq(thread(101)->stats.n_wakes, 0);
}

Test(core, child_ended_before_join_is_joined_at_its_exit)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	exit_ev(US(200), 1, 101);
	sw(US(201), 1, 101, 64, 0);
	sw(US(1000), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 10; create 101; run 190; join 101; run 800");
	cr_expect_eq(thread(101)->parent, 0);
	/* the join hands the critical path over to the child up to its exit (rank.c) */
	cr_expect(thread(101)->stats.critical_ns >= US(180) &&
		      thread(101)->stats.critical_ns <= US(191),
		  "%" PRIu64, thread(101)->stats.critical_ns);
	cr_expect_eq(analyzer_rank_span(res), US(1000));
}

Test(core, short_blocks_are_folded_into_run)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sw(US(100), 0, 100, BLOCKED, 0);
	waking(US(110), 1, 100); /* 10 us < --min-block 20 us */
	sw(US(110), 0, 0, 0, 100);
	sw(US(200), 0, 100, BLOCKED, 0);
	waking(US(300), 1, 100); /* 100 us: kept */
	sw(US(300), 0, 0, 0, 100);
	sw(US(400), 0, 100, PREEMPTED, 0);
	finish_ok();
	/* the 10 us block folds: the runs around it merge (90 + 100 us of CPU, not 200: the
	 * folded time was once added to the run) and its time goes to the next sleep */
	cr_expect_str_eq(actions(100), "run 190; sleep 110; run 100");
	cr_expect_eq(thread(100)->stats.n_folded, 1);
}

/* Issue 10: a thread's run total is its CPU time, whatever is folded. Short blocks' time is
 * carried to the next block: a wait keeps its place and gets a sleep before it only once the
 * carried time is worth one; what is left becomes a sleep at the end. */
Test(core, folded_blocks_keep_their_time_as_blocked_time_not_cpu)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sw(US(100), 0, 100, BLOCKED, 0);
	waking(US(105), 1, 100); /* 5 us, folded */
	sw(US(105), 0, 0, 0, 100);
	sw(US(200), 0, 100, BLOCKED, 0);
	waking(US(208), 1, 100); /* 8 us, folded */
	sw(US(208), 0, 0, 0, 100);
	sw(US(300), 0, 100, PREEMPTED, 0);
	finish_ok();
	/* 100 + 95 + 92 us of CPU; 13 us of blocked time at the end */
	cr_expect_str_eq(actions(100), "run 287; sleep 13");
	cr_expect_eq(thread(100)->stats.n_folded, 2);
	cr_expect_eq(thread(100)->stats.busy_ns, US(287));
}

Test(core, missing_switch_in_after_idle_is_inferred_at_the_wakeup)
{
	start(true);
	sw(US(0), 1, 0, 0, 100);
	sw(US(1000), 1, 100, BLOCKED, 0); /* CPU 1 goes idle */
	waking(US(2000), 0, 100);
	/* no sched_switch from idle to 100 on CPU 1 (this machine's kernel) */
	sw(US(5000), 1, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(thread(100)->stats.busy_ns, US(4000));
	cr_expect_eq(thread(100)->stats.blocked_ns, US(1000));
	cr_expect_eq(thread(100)->stats.n_inferred, 1);
	cr_expect_str_eq(actions(100), "run 1000; sleep 1000; run 3000");
}

Test(core, missing_switch_in_never_turns_idle_time_into_run)
{
	start(true);
	sw(US(0), 1, 0, 0, 100);
	sw(US(1000), 1, 100, BLOCKED, 0);
	/* the wake-up is lost too: without evidence, run starts at the switch-out */
	sw(US(5000), 1, 100, BLOCKED, 0);
	sw(US(6000), 1, 0, 0, 0);
	finish_ok();
	cr_expect_eq(thread(100)->stats.busy_ns, US(1000));
	cr_expect_eq(thread(100)->stats.n_inferred, 1);
}

Test(core, sched_stat_runtime_places_the_switch_in_and_gives_cpu_time)
{
	start(true);
	sw(US(0), 1, 0, 0, 100);
	runtime_ev(US(1000), 1, 100, US(1000));
	sw(US(1000), 1, 100, BLOCKED, 0);
	waking(US(2000), 0, 100);
	runtime_ev(US(5000), 1, 100, US(2000)); /* started at 3000, not at the wake-up */
	sw(US(5000), 1, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(thread(100)->stats.busy_ns, US(3000));
	cr_expect(thread(100)->stats.busy_exact);
	cr_expect_eq(thread(100)->stats.waiting_ns, US(1000));
	/* the sleep takes 100 us of the 1000 us before the thread ran again: a wake-up latency
	 * is no longer, the rest is contention (SLEEP_LATENCY_MAX_NS) */
	cr_expect_str_eq(actions(100), "run 1000; sleep 1100; run 2000");
}

Test(core, run_actions_are_scaled_to_sched_stat_runtime)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	runtime_ev(US(1000), 0, 100, US(500)); /* only half of the slot was CPU time */
	sw(US(1000), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(thread(100)->stats.busy_ns, US(500));
	cr_expect_str_eq(actions(100), "run 500");
}

/*
 * The kernel's accounting can exceed the thread's switch segments: perf-recorded traces on this
 * project's VMs miss switch-ins, and a wake-up on another CPU reports the running task's time
 * from there. The runs are scaled up to it (a pigz thread with 40 % of its CPU in segments was
 * played at 40 %, issue 30).
 */
Test(core, run_actions_are_scaled_up_to_the_kernels_accounting)
{
	struct analyzer_event ev;

	start(true);
	ev = analyzer_event_init(ANALYZER_EV_OTHER, 0, 0);
	feed(ev);
	sw(US(2000), 0, 0, 0, 100);
	ev = analyzer_event_init(ANALYZER_EV_STAT_RUNTIME, US(2900), 1);
	ev.stat_runtime.tid = 100;
	ev.stat_runtime.runtime_ns = US(1500); /* from CPU 1, where thread 200 runs */
	ev.ctx_tid = 200;
	ev.ctx_pid = 200;
	feed(ev);
	runtime_ev(US(3000), 0, 100, US(1000));
	sw(US(3000), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(thread(100)->stats.busy_ns, US(2500));
	cr_expect_str_eq(actions(100), "run 2500");
}

Test(core, trace_starting_mid_run_counts_from_the_cpu_first_event)
{
	struct analyzer_event ev;

	start(true);
	sw(US(0), 0, 7, BLOCKED, 8);
	ev = analyzer_event_init(ANALYZER_EV_OTHER, US(100), 1); /* CPU 1's first event */
	feed(ev);
	sw(US(300), 0, 8, BLOCKED, 0);
	sw(US(700), 1, 100, BLOCKED, 0); /* 100 was running since CPU 1's first event */
	finish_ok();
	cr_expect_eq(thread(100)->stats.busy_ns, US(600));
	cr_expect(thread(100)->pre_existing);
}

Test(core, trace_ending_mid_run_or_mid_block_closes_at_the_end)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(100), 0, 100, BLOCKED, 101);
	sw(US(1000), 1, 0, 0, 0); /* end of trace at 1000 */
	finish_ok();
	cr_expect_eq(thread(101)->stats.busy_ns, US(900));
	cr_expect_eq(thread(100)->stats.blocked_ns, US(900));
	cr_expect_eq(thread(100)->end_ns, US(1000));
}

Test(core, reused_tid_gets_a_fresh_id)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	exit_ev(US(50), 1, 101);
	fork_ev(US(100), 0, 100, 101, 100, 100);
	sw(US(200), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->n_threads, 3);
	cr_expect_eq(res->threads[1].id, 101);
	cr_expect_eq(res->threads[2].id, 1000000101ULL);
	cr_expect_eq(res->threads[2].tid, 101);
}

Test(core, no_match_lists_candidates)
{
	opts.pid = 4242;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	sw(US(100), 0, 100, BLOCKED, 0);
	cr_assert_eq(finish(), DPS_ERR_INVAL);
	cr_expect(strstr(diag.msg, "matches no thread") != NULL, "%s", diag.msg);
	cr_expect(strstr(diag.msg, "100") != NULL, "%s", diag.msg);
}

Test(core, several_processes_matching_a_name_is_an_error)
{
	struct analyzer_event ev;

	opts.pid = -1;
	opts.comm = "app";
	start(true);
	statedump(0, 100, 100, 1);
	statedump(0, 200, 200, 1);
	ev = analyzer_event_init(ANALYZER_EV_OTHER, US(10), 0);
	feed(ev);
	cr_assert_eq(finish(), DPS_ERR_INVAL);
	cr_expect(strstr(diag.msg, "2 processes") != NULL, "%s", diag.msg);
}

Test(core, pre_existing_threads_attach_to_the_root)
{
	start(true);
	statedump(0, 100, 100, 1);
	statedump(0, 102, 100, 1);
	sw(US(10), 0, 0, 0, 100);
	sw(US(20), 1, 0, 0, 102);
	sw(US(50), 1, 102, BLOCKED, 0);
	sw(US(100), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_assert_eq(res->n_threads, 2);
	cr_expect_eq(res->threads[0].tid, 100);
	cr_expect(thread(102)->pre_existing);
	cr_expect_eq(thread(102)->parent, 0);
	cr_expect_str_eq(actions(100), "create 102; run 90");
}

Test(core, child_processes_only_with_follow_children)
{
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 300, 100, 300); /* a new process */
	sw(US(20), 1, 0, 0, 300);
	exit_ev(US(60), 1, 300);
	sw(US(61), 1, 300, 64, 0);
	sw(US(100), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(res->n_threads, 1);
	cr_expect_str_eq(actions(100), "run 100");
}

Test(core, child_processes_followed)
{
	opts.follow_children = true;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 300, 100, 300);
	sw(US(20), 1, 0, 0, 300);
	exit_ev(US(60), 1, 300);
	sw(US(61), 1, 300, 64, 0);
	sw(US(100), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(res->n_threads, 2);
	cr_expect_str_eq(actions(100), "run 10; create 300; run 50; join 300; run 40");
}

Test(core, heap_from_libc_events_with_null_and_unknown_frees)
{
	struct analyzer_event ev;

	start(false);
	ev = analyzer_event_init(ANALYZER_EV_ALLOC, US(0), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	ev.alloc.ptr = 0x1000;
	ev.alloc.size_bytes = 64;
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_REALLOC, US(10), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	ev.realloc.in_ptr = 0x1000;
	ev.realloc.size_bytes = 256;
	ev.realloc.ptr = 0x2000;
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_FREE, US(20), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	ev.free.ptr = 0;
	feed(ev);
	ev.ts = US(25);
	ev.free.ptr = 0x9999;
	feed(ev);
	ev.ts = US(30);
	ev.free.ptr = 0x2000;
	feed(ev);
	finish_ok();
	cr_expect_str_eq(actions(100), "heap +64; run 10; heap +192; run 20; heap -256");
	cr_expect_eq(thread(100)->stats.n_free_null, 1);
	cr_expect_eq(thread(100)->stats.n_free_unknown, 1);
	cr_expect_eq(thread(100)->stats.heap_peak_bytes, 256);
}

Test(core, stack_depth_from_sp)
{
	struct analyzer_event ev;

	start(false);
	ev = analyzer_event_init(ANALYZER_EV_FUNC_ENTRY, US(0), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	ev.flags = ANALYZER_EVF_HAS_SP;
	ev.func.sp = 0x7000;
	feed(ev);
	ev.ts = US(5);
	ev.func.sp = 0x7000 - 512;
	feed(ev);
	ev.kind = ANALYZER_EV_FUNC_EXIT;
	ev.ts = US(9);
	ev.func.sp = 0x7000;
	feed(ev);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 5; stack +512; run 4; stack -512");
	cr_expect_eq(thread(100)->stats.stack_peak_bytes, 512);
}

Test(core, dps_events_alone_give_the_timeline)
{
	struct analyzer_event ev;

	opts.pid = 100;
	start(false);
	ev = analyzer_event_init(ANALYZER_EV_DPS_THREAD_BEGIN, US(0), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	ev.dps.id = 1;
	feed(ev);
	ev.kind = ANALYZER_EV_DPS_CREATE;
	ev.ts = US(10);
	ev.dps.id = 2;
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_DPS_THREAD_BEGIN, US(12), 1);
	ev.ctx_tid = 101;
	ev.ctx_pid = 100;
	ev.dps.id = 2;
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_DPS_SLEEP_BEGIN, US(20), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	feed(ev);
	ev.kind = ANALYZER_EV_DPS_SLEEP_END;
	ev.ts = US(120);
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_DPS_JOIN_BEGIN, US(130), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	ev.dps.id = 2;
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_DPS_THREAD_END, US(150), 1);
	ev.ctx_tid = 101;
	ev.ctx_pid = 100;
	ev.dps.id = 2;
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_DPS_JOIN_END, US(160), 0);
	ev.ctx_tid = 100;
	ev.ctx_pid = 100;
	ev.dps.id = 2;
	feed(ev);
	ev.kind = ANALYZER_EV_DPS_THREAD_END;
	ev.ts = US(170);
	ev.dps.id = 1;
	feed(ev);
	finish_ok();
	cr_assert_eq(res->n_threads, 2);
	cr_expect_str_eq(actions(100), "run 12; create 101; run 8; sleep 100; run 10; join 101; "
				       "run 10");
}

static void dps_ev(uint32_t kind, uint64_t ts, int cpu, int64_t tid, int64_t pid, int64_t id)
{
	struct analyzer_event ev = analyzer_event_init(kind, ts, cpu);

	ev.ctx_tid = tid;
	ev.ctx_pid = pid;
	ev.dps.id = id;
	feed(ev);
}

/*
 * A simulated run is what lies between each thread's dps:thread_begin and dps:thread_end: the
 * stub's process start (loader, lttng-ust registration, calibration) and exit, and threads
 * that never play actions (lttng-ust's, calibration probes), are the stub's own.
 */
Test(core, a_simulated_run_is_cut_to_its_dps_thread_window)
{
	opts.pid = 100;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(100), 0, 100, 101, 100, 100); /* a probe thread of the stub */
	runtime_ev(US(1000), 0, 100, US(1000));
	dps_ev(ANALYZER_EV_DPS_THREAD_BEGIN, US(2000), 0, 100, 100, 1);
	runtime_ev(US(5000), 0, 100, US(4000));
	dps_ev(ANALYZER_EV_DPS_THREAD_END, US(5000), 0, 100, 100, 1);
	runtime_ev(US(6000), 0, 100, US(1000)); /* summary and exit */
	exit_ev(US(6000), 0, 100);
	sw(US(6000), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(res->n_threads, 1, "the probe thread is not part of the simulation");
	/* CPU from 2000 us (1000 reported + 1000 running unreported) to 5000 us. */
	cr_expect_eq(thread(100)->stats.busy_ns, US(3000));
	cr_expect_eq(thread(100)->start_ns, US(2000));
	cr_expect_eq(thread(100)->end_ns, US(5000));
	cr_expect_str_eq(actions(100), "run 3000");
}

Test(core, discarded_events_mark_the_result_partial)
{
	struct analyzer_event ev;

	start(true);
	sw(US(0), 0, 0, 0, 100);
	ev = analyzer_event_init(ANALYZER_EV_DISCARDED, US(50), -1);
	ev.discarded.count = 12;
	ev.discarded.end_ts = (int64_t)US(80);
	feed(ev);
	sw(US(100), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect(res->partial);
	cr_expect(strstr(res->partial_reason, "12 events discarded") != NULL, "%s",
		  res->partial_reason);
	cr_expect(res->actset->partial);
}

Test(core, a_damaged_count_of_lost_events_is_said_as_damage_not_counted)
{
	/* "1369094286720630784 events discarded" was a packet context's damaged byte: the
	 * reader flags such a count (bt-reader.c, plausible_loss) and the core names it */
	struct analyzer_event ev;

	start(true);
	sw(US(0), 0, 0, 0, 100);
	ev = analyzer_event_init(ANALYZER_EV_DISCARDED, US(50), -1);
	ev.discarded.count = 1369094286720630784;
	ev.discarded.end_ts = (int64_t)US(80);
	ev.flags = ANALYZER_EVF_DAMAGED;
	ev.discarded.stream = "TRACE/chan_1";
	feed(ev);
	ev = analyzer_event_init(ANALYZER_EV_DISCARDED, US(60), -1);
	ev.discarded.count = 7;
	ev.discarded.end_ts = (int64_t)US(90);
	feed(ev);
	sw(US(100), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect(res->partial);
	cr_expect_eq(res->n_discarded, 7, "the damaged count is not a loss");
	cr_expect(strstr(res->partial_reason, "7 events discarded between") != NULL, "%s",
		  res->partial_reason);
	cr_expect(strstr(res->partial_reason,
			 "the stream of TRACE/chan_1: a damaged packet context: it counts "
			 "1369094286720630784 events lost") != NULL,
		  "%s", res->partial_reason);
	cr_expect(res->actset->partial);
}

Test(core, events_discarded_without_a_count_are_not_said_to_be_none)
{
	/* babeltrace2 gives no count for a stream's first packet: it used to read "0 events
	 * discarded" */
	struct analyzer_event ev;

	start(true);
	sw(US(0), 0, 0, 0, 100);
	ev = analyzer_event_init(ANALYZER_EV_DISCARDED, US(50), -1);
	ev.discarded.end_ts = (int64_t)US(80);
	feed(ev);
	sw(US(100), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect(res->partial);
	cr_expect(strstr(res->partial_reason, "an unknown number of events discarded") != NULL,
		  "%s", res->partial_reason);
}

Test(core, ust_without_vtid_is_one_pseudo_thread_per_process)
{
	struct analyzer_event ev;

	start(false);
	ev = analyzer_event_init(ANALYZER_EV_ALLOC, US(0), 0);
	ev.ctx_pid = 100; /* per-PID buffers: vpid from the trace environment, no vtid */
	ev.alloc.ptr = 0x1000;
	ev.alloc.size_bytes = 128;
	feed(ev);
	ev.kind = ANALYZER_EV_FREE;
	ev.ts = US(50);
	feed(ev);
	finish_ok();
	cr_assert_eq(res->n_threads, 1);
	cr_expect_eq(res->threads[0].id, 900000000000ULL + 100);
	cr_expect_eq(res->threads[0].tid, -1);
	cr_expect_eq(res->threads[0].pid, 100);
	cr_expect_eq(res->actset->threads[0].n_actions, 3); /* heap +128; run 50; heap -128 */
}

/*
 * A stub's join with kernel scheduling: the child signals its joiner when its actions end and
 * exits later (the player's condition, then pthread_join reaping it). The block is named a
 * join, as the original's was (make reaping cc, a pthread_join), not a wait on a live thread;
 * pthread_join's short block after it is no second dependency.
 */
Test(core, a_stub_join_is_a_join_not_a_wait_on_the_child)
{
	opts.pid = 100;
	opts.min_block_ns = US(20);
	start(true);
	sw(US(0), 0, 0, 0, 100);
	dps_ev(ANALYZER_EV_DPS_THREAD_BEGIN, US(1), 0, 100, 100, 1);
	dps_ev(ANALYZER_EV_DPS_CREATE, US(10), 0, 100, 100, 2);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	dps_ev(ANALYZER_EV_DPS_THREAD_BEGIN, US(21), 1, 101, 100, 2);
	dps_ev(ANALYZER_EV_DPS_JOIN_BEGIN, US(100), 0, 100, 100, 2);
	sw(US(101), 0, 100, BLOCKED, 0); /* the player's condition wait */
	waking(US(400), 1, 100);	 /* the child's actions ended: it signals */
	dps_ev(ANALYZER_EV_DPS_THREAD_END, US(401), 1, 101, 100, 2);
	sw(US(410), 0, 0, 0, 100);
	sw(US(420), 0, 100, BLOCKED, 0); /* pthread_join: the child has not exited yet */
	waking(US(430), 1, 100);	 /* its exit path wakes the joiner */
	exit_ev(US(431), 1, 101);
	sw(US(432), 1, 101, 64, 0);
	sw(US(440), 0, 0, 0, 100);
	dps_ev(ANALYZER_EV_DPS_JOIN_END, US(450), 0, 100, 100, 2);
	dps_ev(ANALYZER_EV_DPS_THREAD_END, US(500), 0, 100, 100, 1);
	sw(US(510), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(thread(100)->stats.n_joins, 1, "actions: %s", actions(100));
	cr_expect_eq(thread(100)->stats.n_waits, 0, "actions: %s", actions(100));
	cr_expect_eq(thread(101)->stats.n_wakes, 0, "actions: %s", actions(101));
	cr_expect_str_eq(actions(100), "run 9; create 101; run 91; join 101; run 70; sleep 10");
}

/*
 * make's wait for any child (issue 13): process 100 forks 101, 102 and 103, then blocks three
 * times in wait4(pid) (with_calls: the events dps record adds; else a trace without them).
 * Each child's exit wakes it (the SIGCHLD after sched_process_exit). pids[i]: the pid argument
 * of the i-th wait.
 */
static void three_children_reaped(bool with_calls, const int64_t pids[3])
{
	opts.follow_children = true;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 101);
	fork_ev(US(20), 0, 100, 102, 100, 102);
	fork_ev(US(30), 0, 100, 103, 100, 103);
	sw(US(40), 1, 0, 0, 101);
	if (with_calls) {
		wait_call(US(50), 0, 100, pids[0], -1);
	}
	sw(US(60), 0, 100, BLOCKED, 102);
	exit_ev(US(200), 1, 101);
	waking(US(201), 1, 100);
	sw(US(202), 1, 101, 64, 100); /* TASK_DEAD */
	if (with_calls) {
		wait_ret(US(210), 1, 100);
		wait_call(US(220), 1, 100, pids[1], -1);
	}
	sw(US(230), 1, 100, BLOCKED, 103);
	exit_ev(US(400), 0, 102);
	waking(US(401), 0, 100);
	sw(US(402), 0, 102, 64, 100);
	if (with_calls) {
		wait_ret(US(410), 0, 100);
		wait_call(US(420), 0, 100, pids[2], -1);
	}
	sw(US(430), 0, 100, BLOCKED, 0);
	exit_ev(US(600), 1, 103);
	waking(US(601), 1, 100);
	sw(US(602), 1, 103, 64, 100);
	if (with_calls) {
		wait_ret(US(610), 1, 100);
	}
	sw(US(700), 1, 100, BLOCKED, 0);
	finish_ok();
}

/* Each wait for any child is one of a `join any` of the children alive when it blocked. The
 * player's `join any` takes whichever member ends first in the replay and the validator wants
 * one set written once per member: the three sets {101,102,103}, {102,103}, {103} share
 * children, so the three joins are one set's, three times (doc/sync.md). */
Test(core, a_wait_for_any_child_is_a_join_any_of_the_children_alive)
{
	static const int64_t any[3] = {-1, -1, -1};

	three_children_reaped(true, any);
	cr_expect_str_eq(actions(100),
			 "run 10; create 101; run 10; create 102; run 10; create 103; "
			 "run 30; join any 101|102|103; run 28; join any "
			 "101|102|103; run 28; join any 101|102|103; run 98");
	cr_expect_eq(dps_actset_thread_version(res->actset, 0), 2);
	cr_expect_eq(thread(100)->stats.n_joins, 3);
	cr_expect_str_eq(actions(101), "run 162");
}

/* A trace without the wait calls (an older recording): the joins of the recorded order. */
Test(core, without_the_wait_calls_the_joins_keep_the_recorded_order)
{
	static const int64_t any[3] = {-1, -1, -1};

	three_children_reaped(false, any);
	cr_expect_str_eq(actions(100),
			 "run 10; create 101; run 10; create 102; run 10; create 103; "
			 "run 30; join 101; run 28; join 102; run 28; join 103; run 98");
	cr_expect_eq(dps_actset_thread_version(res->actset, 0), 1);
}

/* waitpid(102) waits for that child: a plain join, left out of the set of the others; 0 (any
 * child of the process group) is a wait for any. */
Test(core, a_wait_for_one_child_stays_a_join_of_it)
{
	static const int64_t pids[3] = {0, 102, -1};

	three_children_reaped(true, pids);
	cr_expect_str_eq(actions(100),
			 "run 10; create 101; run 10; create 102; run 10; create 103; "
			 "run 30; join any 101|103; run 28; join 102; run 28; join any "
			 "101|103; run 98");
}

/* waitid: P_PID (1) is one child, P_ALL (0) any; the pid argument is the low 32 bits of the
 * register (perf gives it unsigned, 64-bit). */
Test(core, waitid_p_pid_is_one_child_p_all_any)
{
	opts.follow_children = true;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 101);
	fork_ev(US(20), 0, 100, 102, 100, 102);
	sw(US(30), 1, 0, 0, 101);
	wait_call(US(50), 0, 100, 101, 1); /* waitid(P_PID, 101) */
	sw(US(60), 0, 100, BLOCKED, 102);
	exit_ev(US(200), 1, 101);
	waking(US(201), 1, 100);
	sw(US(202), 1, 101, 64, 100);
	wait_ret(US(210), 1, 100);
	wait_call(US(220), 1, 100, (int64_t)0xffffffffffffffffULL, 0); /* waitid(P_ALL) */
	sw(US(230), 1, 100, BLOCKED, 0);
	exit_ev(US(400), 0, 102);
	waking(US(401), 0, 100);
	sw(US(402), 0, 102, 64, 100);
	wait_ret(US(410), 0, 100);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	/* 102, the only child alive at the second wait: a set of one is a plain join */
	cr_expect_str_eq(actions(100), "run 10; create 101; run 10; create 102; run 40; join 101; "
				       "run 28; join 102; run 98");
}

/*
 * GNU make with a jobserver waits in pselect until a SIGCHLD, then reaps with waitpid(-1,
 * WNOHANG): the block is in no wait call, the wait for any child that follows it before the
 * next block makes its join one of a join any. A child that ended before its creator waited
 * (104, reaped without blocking) keeps its plain join at its exit.
 */
Test(core, a_block_ended_by_a_child_then_a_wait_for_any_is_a_join_any)
{
	opts.follow_children = true;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 104, 100, 104);
	fork_ev(US(20), 0, 100, 101, 100, 101);
	fork_ev(US(30), 0, 100, 102, 100, 102);
	sw(US(31), 1, 0, 0, 104);
	exit_ev(US(40), 1, 104);
	sw(US(41), 1, 104, 64, 101);
	wait_call(US(50), 0, 100, -1, -1); /* reaps 104 */
	wait_ret(US(51), 0, 100);
	sw(US(60), 0, 100, BLOCKED, 102); /* pselect */
	exit_ev(US(200), 1, 101);
	waking(US(201), 1, 100); /* SIGCHLD */
	sw(US(202), 1, 101, 64, 100);
	wait_call(US(210), 1, 100, -1, -1); /* waitpid(-1, WNOHANG) */
	wait_ret(US(211), 1, 100);
	wait_call(US(212), 1, 100, -1, -1); /* nothing more */
	wait_ret(US(213), 1, 100);
	sw(US(230), 1, 100, BLOCKED, 0); /* pselect */
	exit_ev(US(400), 0, 102);
	waking(US(401), 0, 100);
	sw(US(402), 0, 102, 64, 100);
	wait_call(US(410), 0, 100, -1, -1);
	wait_ret(US(411), 0, 100);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100),
			 "run 10; create 104; run 10; create 101; run 10; create 102; "
			 "run 10; join 104; run 20; join any 101|102; run 28; join any "
			 "101|102; run 98");
}

/* The same block ended by a child's exit, but the thread blocks again before any wait call:
 * nothing says the child was reaped by a wait for any, the join stays plain. */
Test(core, a_block_ended_by_a_child_and_no_wait_after_is_a_plain_join)
{
	opts.follow_children = true;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 101);
	fork_ev(US(20), 0, 100, 102, 100, 102);
	sw(US(30), 1, 0, 0, 101);
	sw(US(60), 0, 100, BLOCKED, 102);
	exit_ev(US(200), 1, 101);
	waking(US(201), 1, 100);
	sw(US(202), 1, 101, 64, 100);
	sw(US(230), 1, 100, BLOCKED, 0); /* a read */
	waking(US(300), 1, 100);	 /* from idle: a timer, a device */
	sw(US(301), 1, 0, 0, 100);
	wait_call(US(310), 1, 100, -1, -1); /* too late: another block came between */
	sw(US(350), 1, 100, BLOCKED, 0);
	exit_ev(US(400), 0, 102);
	waking(US(401), 0, 100);
	sw(US(402), 0, 102, 64, 100);
	wait_ret(US(410), 0, 100);
	sw(US(500), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 10; create 101; run 10; create 102; run 40; join 101; "
				       "run 28; sleep 71; run 49; join 102; run 98");
}

/*
 * A shell's pipeline, `sh -c 'sed ... | gzip'`, recorded with lttng-ust preloaded (perf's
 * events): every child process has the tracer's listener threads, which outlive its main
 * thread. The kernel wakes the shell's wait4 when the last of them exits, after that thread's
 * sched_process_exit, and perf names no thread then (perf_tid -1: its pid is released), only
 * the process. The shell created the child's main thread, not the thread that woke it: its
 * blocks were fixed sleeps with the child's join after them, which held the replay to the
 * recorded time whatever the children's speed. They are the joins (a wait for any child).
 */
Test(core, a_child_process_whose_last_thread_wakes_its_parent_is_joined)
{
	opts.follow_children = true;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 300, 100, 300); /* sed */
	fork_ev(US(20), 0, 100, 400, 100, 400); /* gzip */
	sw(US(30), 1, 0, 0, 300);
	fork_named(US(40), 1, 300, 301, 300, 300, "app-ust");
	wait_call(US(50), 0, 100, -1, -1);
	sw(US(60), 0, 100, BLOCKED, 400);
	fork_named(US(70), 0, 400, 401, 400, 400, "app-ust");
	exit_ev(US(1000), 1, 300);
	sw(US(1001), 1, 300, 32, 301); /* EXIT_ZOMBIE: the process lives on */
	exit_ev(US(1010), 1, 301);
	waking_ctx(US(1020), 1, 100, -1, 300); /* the process is gone: the parent is told */
	sw(US(1021), 1, 301, 16, 100);	       /* EXIT_DEAD */
	wait_ret(US(1030), 1, 100);
	wait_call(US(1040), 1, 100, -1, -1);
	sw(US(1050), 1, 100, BLOCKED, 0);
	exit_ev(US(2000), 0, 400);
	sw(US(2001), 0, 400, 32, 401);
	exit_ev(US(2010), 0, 401);
	waking_ctx(US(2020), 0, 100, -1, 400);
	sw(US(2021), 0, 401, 16, 0);
	sw(US(2030), 1, 0, 0, 100);
	wait_ret(US(2040), 1, 100);
	sw(US(2100), 1, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_eq(res->n_threads, 3, "the listener threads are the tracer's");
	cr_expect_str_eq(actions(100), "run 10; create 300; run 10; create 400; run 40; join any "
				       "300|400; run 29; join any 300|400; run 70");
	cr_expect_eq(thread(100)->stats.n_joins, 2);
	cr_expect_eq(thread(100)->stats.n_sleeps, 0);
	/* the shell's second join waited on gzip up to its end */
	cr_expect_geq(thread(400)->stats.waited_on_ns, US(960), "%" PRIu64,
		      thread(400)->stats.waited_on_ns);
}

/* The same end of a child process in a trace without contexts and with syscalls (LTTng's
 * kernel events): the waker is the CPU's thread, past its exit and out of its last syscall
 * (its futex wait cut by the group's exit), a thread of the child the program made. Its wake
 * is its exit path's, not a timer's: a join of the child, not a wait on that thread, and no
 * wake of it. */
Test(core, a_child_process_ended_by_another_of_its_threads_is_joined_without_contexts)
{
	struct analyzer_event ev;

	opts.follow_children = true;
	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 300, 100, 300);
	sw(US(20), 1, 0, 0, 300);
	fork_ev(US(30), 1, 300, 301, 300, 300);
	ev = analyzer_event_init(ANALYZER_EV_SYSCALL_ENTRY, US(35), 0); /* 100's waitpid */
	feed(ev);
	sw(US(40), 0, 100, BLOCKED, 0);
	exit_ev(US(500), 1, 300);
	sw(US(501), 1, 300, 32, 301);
	ev = analyzer_event_init(ANALYZER_EV_SYSCALL_EXIT, US(505), 1);
	feed(ev);
	exit_ev(US(600), 1, 301);
	waking(US(610), 1, 100);
	sw(US(611), 1, 301, 16, 0);
	sw(US(620), 0, 0, 0, 100);
	sw(US(700), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_expect_str_eq(actions(100), "run 10; create 300; run 30; join 300; run 80");
	cr_expect_eq(thread(301)->stats.n_wakes, 0);
}

/* rank.c: the critical path walks back from the last end through the wake that ended a wait,
 * then through the creation; the time others waited on a thread is its waiters'. */
Test(core, critical_path_goes_through_the_waker_and_the_creator)
{
	size_t *order;

	start(true);
	sw(US(0), 0, 0, 0, 100);
	fork_ev(US(10), 0, 100, 101, 100, 100);
	sw(US(20), 1, 0, 0, 101);
	sw(US(100), 0, 100, BLOCKED, 0); /* 100 waits for 101 */
	waking(US(1000), 1, 100);	 /* 101 runs on CPU 1: it wakes 100 */
	sw(US(1010), 0, 0, 0, 100);
	sw(US(1100), 1, 101, BLOCKED, 0);
	sw(US(1200), 0, 100, BLOCKED, 0);
	finish_ok();
	cr_assert_str_eq(actions(100), "run 10; create 101; run 90; wait 101; run 190");
	/* 100: 0-10 and 1000-1200 (its wait handed over to 101); 101: 10-1000 */
	cr_expect_eq(thread(101)->stats.critical_ns, US(990), "%" PRIu64,
		     thread(101)->stats.critical_ns);
	cr_expect_eq(thread(100)->stats.critical_ns, US(210), "%" PRIu64,
		     thread(100)->stats.critical_ns);
	cr_expect_eq(thread(101)->stats.waited_on_ns, US(900), "%" PRIu64,
		     thread(101)->stats.waited_on_ns);
	cr_expect_eq(thread(100)->stats.waited_on_ns, 0);
	cr_expect_eq(analyzer_rank_span(res), US(1200));
	order = analyzer_rank_order(res);
	cr_expect_eq(res->threads[order[0]].id, 101, "the waker first");
	g_free(order);
}
