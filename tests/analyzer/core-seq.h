/* SPDX-License-Identifier: MIT */
/*
 * Synthetic event sequences for the analyzer's core (test-core.c, test-core-sync.c, one
 * executable): the fixture (setup, teardown), one helper per event kind (sw, waking, fork_ev,
 * exit_ev, wait_call, ...), the end of a sequence (finish, finish_ok) and what it gave (thread,
 * actions). Times are in microseconds in the sequences (US()). The state is static: each file
 * has its own, set up by its suite's own setup, and Criterion runs every test in a process of
 * its own.
 */
#ifndef DPS_TESTS_ANALYZER_CORE_SEQ_H
#define DPS_TESTS_ANALYZER_CORE_SEQ_H

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

#define US(x) ((uint64_t)(x)*1000ULL)
#define BLOCKED 1
#define PREEMPTED 0

static struct analyzer_core *core;
static struct analyzer_options opts;
static struct analyzer_result *res;
static struct dps_diag diag;

static inline void setup(void)
{
	analyzer_options_default(&opts);
	opts.pid = 100;
	opts.min_block_ns = US(20);
	core = NULL;
	res = NULL;
}

static inline void teardown(void)
{
	analyzer_core_destroy(core);
	analyzer_result_destroy(res);
}

static inline void start(bool has_sched)
{
	core = analyzer_core_create(&opts, has_sched);
	cr_assert_not_null(core);
}

static inline void feed(struct analyzer_event ev)
{
	cr_assert_eq(analyzer_core_feed(core, &ev), DPS_OK);
}

static inline void sw(uint64_t ts, int cpu, int64_t prev, int64_t state, int64_t next)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_SWITCH, ts, cpu);

	ev.sw.prev_tid = prev;
	ev.sw.next_tid = next;
	ev.sw.prev_state = state;
	feed(ev);
}

static inline void waking(uint64_t ts, int cpu, int64_t tid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_WAKEUP, ts, cpu);

	ev.wakeup.tid = tid;
	ev.flags = ANALYZER_EVF_WAKING;
	feed(ev);
}

/* a sched_waking whose context (perf's perf_tid, perf_pid) names ctx_tid and ctx_pid: perf
 * gives perf_tid -1 and the process for a task whose pid is released (an exiting thread) */
static inline void waking_ctx(uint64_t ts, int cpu, int64_t tid, int64_t ctx_tid, int64_t ctx_pid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_WAKEUP, ts, cpu);

	ev.wakeup.tid = tid;
	ev.flags = ANALYZER_EVF_WAKING;
	ev.ctx_tid = ctx_tid;
	ev.ctx_pid = ctx_pid;
	feed(ev);
}

/* a fork whose child is named comm (lttng-ust's listener threads: "NAME-ust") */
static inline void fork_named(uint64_t ts, int cpu, int64_t parent, int64_t child, int64_t ppid,
			      int64_t cpid, const char *comm)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_FORK, ts, cpu);

	ev.fork.parent_tid = parent;
	ev.fork.child_tid = child;
	ev.fork.parent_pid = ppid;
	ev.fork.child_pid = cpid;
	ev.fork.child_comm = comm;
	feed(ev);
}

static inline void fork_ev(uint64_t ts, int cpu, int64_t parent, int64_t child, int64_t ppid,
			   int64_t cpid)
{
	fork_named(ts, cpu, parent, child, ppid, cpid, "app");
}

static inline void exit_ev(uint64_t ts, int cpu, int64_t tid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_EXIT, ts, cpu);

	ev.exit.tid = tid;
	feed(ev);
}

static inline void runtime_ev(uint64_t ts, int cpu, int64_t tid, uint64_t rt)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_STAT_RUNTIME, ts, cpu);

	ev.stat_runtime.tid = tid;
	ev.stat_runtime.runtime_ns = (int64_t)rt;
	feed(ev);
}

static inline void statedump(uint64_t ts, int64_t tid, int64_t pid, int64_t ppid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_STATEDUMP, ts, 0);

	ev.statedump.tid = tid;
	ev.statedump.pid = pid;
	ev.statedump.ppid = ppid;
	ev.statedump.name = "app";
	feed(ev);
}

/* wait4(pid) (idtype -1) or waitid(idtype, pid) entered by tid (perf's context), and left */
static inline void wait_call(uint64_t ts, int cpu, int64_t tid, int64_t pid, int64_t idtype)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_WAIT_ENTRY, ts, cpu);

	ev.ctx_tid = tid;
	ev.wait_call.pid = pid;
	ev.wait_call.idtype = idtype;
	feed(ev);
}

static inline void wait_ret(uint64_t ts, int cpu, int64_t tid)
{
	struct analyzer_event ev = analyzer_event_init(ANALYZER_EV_WAIT_EXIT, ts, cpu);

	ev.ctx_tid = tid;
	feed(ev);
}

static inline int finish(void)
{
	res = analyzer_result_create();
	cr_assert_not_null(res);
	return analyzer_core_finish(core, false, res, &diag);
}

static inline void finish_ok(void)
{
	int status = finish();

	cr_assert_eq(status, DPS_OK, "finish: %d %s", status, diag.msg);
	cr_assert_not_null(res->actset);
}

static inline const struct analyzer_thread *thread(int64_t tid)
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
static inline const char *actions(int64_t tid)
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

#endif /* DPS_TESTS_ANALYZER_CORE_SEQ_H */
