/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's per-thread state machine on synthetic event sequences: every transition, the
 * sleep/wait/join classification, folding, missing switch-ins, sched_stat_runtime, tid reuse,
 * selection, memory, synchronization (annotations, mutexes, condition waits), waits for any
 * child, task queues. Times are in microseconds in the sequences (US()).
 *
 * Over 1000 lines: one short event sequence per rule of the core, all written with the same
 * helpers (sw, waking, fork_ev, exit_ev, wait_call, ...), which files split by concern would
 * each have to copy.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <string.h>

#include "core.h"

#define US(x) ((uint64_t)(x)*1000ULL)
#define BLOCKED 1
#define PREEMPTED 0

static struct analyzer_core *core;
static struct analyzer_options opts;
static struct analyzer_result *res;
static struct dps_diag diag;

static void setup(void)
{
	analyzer_options_default(&opts);
	opts.pid = 100;
	opts.min_block_ns = US(20);
	core = NULL;
	res = NULL;
}

static void teardown(void)
{
	analyzer_core_destroy(core);
	analyzer_result_destroy(res);
}

static void start(bool has_sched)
{
	core = analyzer_core_create(&opts, has_sched);
	cr_assert_not_null(core);
}

static void feed(struct analyzer_event ev)
{
	cr_assert_eq(analyzer_core_feed(core, &ev), DPS_OK);
}

static void sw(uint64_t ts, int cpu, int64_t prev, int64_t state, int64_t next)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_SWITCH, ts, cpu);

	ev.sw.prev_tid = prev;
	ev.sw.next_tid = next;
	ev.sw.prev_state = state;
	feed(ev);
}

static void waking(uint64_t ts, int cpu, int64_t tid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_WAKEUP, ts, cpu);

	ev.wakeup.tid = tid;
	ev.flags = ANALYZER_EVF_WAKING;
	feed(ev);
}

static void fork_ev(uint64_t ts, int cpu, int64_t parent, int64_t child, int64_t ppid, int64_t cpid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_FORK, ts, cpu);

	ev.fork.parent_tid = parent;
	ev.fork.child_tid = child;
	ev.fork.parent_pid = ppid;
	ev.fork.child_pid = cpid;
	ev.fork.child_comm = "app";
	feed(ev);
}

static void exit_ev(uint64_t ts, int cpu, int64_t tid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_EXIT, ts, cpu);

	ev.exit.tid = tid;
	feed(ev);
}

static void runtime_ev(uint64_t ts, int cpu, int64_t tid, uint64_t rt)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_STAT_RUNTIME, ts, cpu);

	ev.stat_runtime.tid = tid;
	ev.stat_runtime.runtime_ns = (int64_t)rt;
	feed(ev);
}

static void statedump(uint64_t ts, int64_t tid, int64_t pid, int64_t ppid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_STATEDUMP, ts, 0);

	ev.statedump.tid = tid;
	ev.statedump.pid = pid;
	ev.statedump.ppid = ppid;
	ev.statedump.name = "app";
	feed(ev);
}

/* wait4(pid) (idtype -1) or waitid(idtype, pid) entered by tid (perf's context), and left */
static void wait_call(uint64_t ts, int cpu, int64_t tid, int64_t pid, int64_t idtype)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_WAIT_ENTRY, ts, cpu);

	ev.ctx_tid = tid;
	ev.wait_call.pid = pid;
	ev.wait_call.idtype = idtype;
	feed(ev);
}

static void wait_ret(uint64_t ts, int cpu, int64_t tid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_WAIT_EXIT, ts, cpu);

	ev.ctx_tid = tid;
	feed(ev);
}

static int finish(void)
{
	res = analyzer_result_create();
	cr_assert_not_null(res);
	return analyzer_core_finish(core, false, res, &diag);
}

static void finish_ok(void)
{
	int status = finish();

	cr_assert_eq(status, DPS_OK, "finish: %d %s", status, diag.msg);
	cr_assert_not_null(res->actset);
}

static const struct analyzer_thread *thread(int64_t tid)
{
	for (size_t i = 0; i < res->n_threads; i++) {
		if (res->threads[i].tid == tid) {
			return &res->threads[i];
		}
	}
	cr_assert_fail("thread %" PRId64 " not in the result", tid);
	return NULL;
}

/* The actions of thread tid as text, e.g. "run 1000; sleep 2000; run 900". */
static const char *actions(int64_t tid)
{
	static char buf[4096];
	const struct dps_actset_thread *t = NULL;
	size_t len = 0;
	char num[64];

	for (size_t i = 0; i < res->actset->n_threads; i++) {
		if (res->actset->threads[i].tid == tid) {
			t = &res->actset->threads[i];
		}
	}
	cr_assert_not_null(t, "thread %" PRId64 " not in the action set", tid);
	buf[0] = '\0';
	for (size_t a = 0; a < t->n_actions; a++) {
		const struct dps_actset_action *act = &t->actions[a];
		const char *kw = dps_action_kind_name(act->kind);

		switch (act->kind) {
		case DPS_ACT_RUN:
		case DPS_ACT_SLEEP:
			dps_actset_format_us((uint64_t)act->value, num, sizeof(num));
			break;
		case DPS_ACT_HEAP:
		case DPS_ACT_STACK:
			snprintf(num, sizeof(num), "%+" PRId64, act->value);
			break;
		case DPS_ACT_JOIN_ANY: {
			size_t n = 0;

			kw = "join any";
			for (uint64_t m = 0; m < act->aux; m++) {
				n += (size_t)snprintf(num + n, sizeof(num) - n, "%s%" PRIu64,
						      m ? "|" : "",
						      res->actset->members[act->first + m]);
			}
			break;
		}
		case DPS_ACT_WAIT_TIMEOUT: {
			char us[24];

			dps_actset_format_us(act->aux, us, sizeof(us));
			snprintf(num, sizeof(num), "%" PRIu64 " timeout %s", act->id, us);
			break;
		}
		default:
			snprintf(num, sizeof(num), "%" PRIu64, act->id);
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %s", a ? "; " : "", kw,
					num);
	}
	return buf;
}

TestSuite(core, .init = setup, .fini = teardown);

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
	cr_expect_str_eq(actions(100), "run 1000; sleep 2000; run 900; sleep 1000");
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
	cr_expect_str_eq(actions(101), "run 80; sleep 200; run 90; sleep 100");
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
	cr_expect_str_eq(actions(100), "run 1000; sleep 1000; run 2000");
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
Test(core, annotations_become_objects_and_the_block_before_a_take_is_the_take)
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
Test(core, a_mutex_released_inside_a_condition_wait_unseen_is_left_out)
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

Test(core, the_wrappers_unlock_race_is_no_release)
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
Test(core, a_wake_followed_by_a_lock_before_the_exit_is_no_join)
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
Test(core, a_queue_two_workers_share_becomes_a_task_queue)
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
Test(core, a_worker_that_waits_between_takes_keeps_its_items)
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
				       "run 28; sleep 70; run 49; join 102; run 98");
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
Test(core, a_timed_condition_wait_a_thread_ended_is_a_wait_with_its_timeout)
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
Test(core, a_timed_condition_wait_that_timed_out_stays_a_sleep)
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
	cr_expect_str_eq(actions(100), "run 50; lock 1; run 10; unlock 1; run 40; sleep 260; "
				       "run 2; lock 1; run 2; unlock 1; run 26");
}

/* An untimed condition wait stays the recorded wake-up, now with its mutex released around
 * it (without the probe the mutex is left out: a_mutex_released_inside_...). */
Test(core, an_untimed_condition_wait_is_a_wait_between_unlock_and_lock)
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
Test(core, a_condition_wait_before_an_annotated_take_is_the_takes_block)
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
Test(core, a_wait_before_a_take_that_is_not_its_own_releases_the_mutex)
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
			 "run 6; put 1; run 44; lock 2; run 50; unlock 2; sleep 260; "
			 "lock 2; run 530; unlock 2; take 1; lock 2; run 10; unlock 2; "
			 "run 90");
}

/*
 * The wrapper writes an unlock event after the real unlock: a signaller preempted between
 * the two lets the waiter return from its wait (taking the mutex) and wait again (releasing
 * it) before its unlock event. With the probe's events that late unlock is the wrapper's
 * order, not a release inside an unseen wait: the mutex stays.
 */
Test(core, a_late_unlock_event_after_the_waiters_next_wait_keeps_the_mutex)
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
Test(core, a_join_inside_a_critical_section_waits_for_the_unlock)
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
