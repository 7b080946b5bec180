/* SPDX-License-Identifier: MIT */
/*
 * Scheduler events: switch, wake-up, fork, exit, exec, the state dump, sched_stat_runtime and
 * syscalls, turned into each thread's state (running, runnable, blocked) and, for tracked
 * threads, timeline segments. The rules that need care (doc/analyzer.md):
 *
 * - A switch-out of a thread that no switch-in put on the CPU (this machine's kernel never
 *   emits the switch that leaves idle on CPU 1) infers the switch-in: at the thread's wake-up
 *   or when the CPU became free, at sched_stat_runtime's "runtime ago", or at the first event
 *   that shows the thread on that CPU; never earlier than the CPU's last known switch.
 * - sched_stat_runtime's per-thread sum, when the trace has it, is the exact CPU time: run
 *   actions are scaled to it.
 * - Blocked time ended by a wake-up from a selected thread is a wait/wake pair; if the waker
 *   exits right after waking (pthread_join's futex, wait4's SIGCHLD) it becomes a join, which
 *   joins.c makes a `join any` when the block was a wait for any child. A wake-up by the last
 *   thread of a child process whose main thread has exited (wait4 is woken when the whole
 *   process is gone: lttng-ust's threads outlive the main one) is a join of that main thread.
 *
 * A thread's lifetime as the scheduler sees it is here too: a thread whose tid a fork reuses is
 * retired (dead, off its CPU), and at the trace's end every live thread's state is closed
 * (analyzer__close_states: the last segment of a tracked one).
 *
 * The top of the core's event handling: it may call the joins (joins.c), the selection
 * (select.c), the thread table (threads.c) and the spill store (spill.c); none of them calls it
 * (scripts/check-tree.sh checks it).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

struct cpu_state *analyzer__get_cpu(struct analyzer_core *core, int32_t cpu, uint64_t ts)
{
	if (cpu < 0 || cpu > 65535) {
		return NULL;
	}
	if ((size_t)cpu >= core->n_cpus) {
		size_t n = (size_t)cpu + 1;
		struct cpu_state *c = realloc(core->cpus, n * sizeof(*c));

		if (!c) {
			analyzer__set_nomem(core);
			return NULL;
		}
		for (size_t i = core->n_cpus; i < n; i++) {
			c[i] = (struct cpu_state){.cur = NO_T};
		}
		core->cpus = c;
		core->n_cpus = n;
	}
	if (!core->cpus[cpu].seen) {
		core->cpus[cpu].seen = true;
		core->cpus[cpu].first_ts = ts;
		core->cpus[cpu].since = ts;
	}
	return &core->cpus[cpu];
}

/*
 * Closes the thread's current state at ts (a segment when tracked) and enters `state`.
 * block_kind/other say how a blocked state ended (SLEEP, WAIT, JOIN). Returns the index of
 * the segment written, or NO_T.
 */
size_t analyzer__set_state(struct analyzer_core *core, size_t idx, uint8_t state, uint64_t ts,
			   uint32_t block_kind, size_t other)
{
	struct athread *t = analyzer__thread_at(core, idx);
	size_t seg = NO_T;
	uint64_t b = t->sched.since;

	if (ts < b && t->sched.state != TS_UNKNOWN) {
		ts = b;
	}
	switch (t->sched.state) {
	case TS_RUNNING:
		t->sched.cpu_ns += ts - b;
		if (t->tracked) {
			seg = analyzer__add_seg(core, t, b, ts, ANALYZER_SEG_RUN, NO_T);
		}
		break;
	case TS_RUNNABLE:
		if (t->tracked && ts > b) {
			seg = analyzer__add_seg(core, t, b, ts, ANALYZER_SEG_PREEMPTED, NO_T);
		}
		break;
	case TS_BLOCKED:
		if (t->tracked) {
			seg = analyzer__add_seg(core, t, b, ts, block_kind, other);
		}
		break;
	default:
		break;
	}
	if (state == TS_RUNNING && t->sched.state != TS_RUNNING) {
		t->sched.run_since = ts;
	}
	t->sched.state = state;
	t->sched.since = ts;
	if (ts > t->last_ts) {
		t->last_ts = ts;
	}
	return seg;
}

/*
 * Evidence that thread idx runs on CPU c at ts (its switch-out, its own event, a
 * sched_stat_runtime). If the CPU did not know it, the switch-in is missing: infer it.
 * hint: the instant sched_stat_runtime says it started running, or UINT64_MAX.
 */
void analyzer__note_running(struct analyzer_core *core, int32_t cpu, size_t idx, uint64_t ts,
			    uint64_t hint)
{
	struct cpu_state *cs;
	struct athread *t = analyzer__thread_at(core, idx);
	uint64_t lower, t_in;

	if (!core->has_sched) {
		if (t->sched.state == TS_UNKNOWN) {
			analyzer__set_state(core, idx, TS_RUNNING, ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		return;
	}
	cs = analyzer__get_cpu(core, cpu, ts);
	if (!cs) {
		return;
	}
	if (cs->cur == idx) {
		return;
	}
	if (t->sched.state == TS_RUNNING && t->sched.cpu != cpu && t->sched.cpu >= 0 &&
	    (size_t)t->sched.cpu < core->n_cpus && core->cpus[t->sched.cpu].cur == idx) {
		/* Its switch-out on the other CPU is missing: that CPU is unknown now. */
		core->cpus[t->sched.cpu].cur = NO_T;
		core->cpus[t->sched.cpu].since = ts;
	}
	lower = cs->since;
	if (t->sched.state == TS_RUNNABLE || t->sched.state == TS_BLOCKED) {
		if (t->sched.since > lower) {
			lower = t->sched.since;
		}
	}
	if (lower > ts) {
		lower = ts;
	}
	if (hint != UINT64_MAX && hint <= ts) {
		t_in = hint < lower ? lower : hint;
	} else if (t->sched.state == TS_RUNNABLE ||
		   (t->sched.state == TS_UNKNOWN && cs->cur == NO_T)) {
		/* Woken, or running since before the CPU's first event. */
		t_in = lower;
	} else if (t->sched.state == TS_RUNNING) {
		t_in = t->sched.since;
	} else {
		/* Blocked with its wake-up lost: do not turn the gap into run time. */
		t_in = ts;
	}
	if (cs->cur != NO_T && cs->cur != IDLE_T) {
		struct athread *p = analyzer__thread_at(core, cs->cur);

		if (p->sched.state == TS_RUNNING && p->sched.cpu == cpu) {
			analyzer__set_state(core, cs->cur, TS_RUNNABLE, t_in, ANALYZER_SEG_SLEEP,
					    NO_T);
		}
	}
	if (t->sched.state != TS_RUNNING) {
		if (cs->cur != NO_T || t->sched.state != TS_UNKNOWN) {
			t->sched.n_inferred++;
		}
		analyzer__set_state(core, idx, TS_RUNNING, t_in, ANALYZER_SEG_SLEEP, NO_T);
	}
	t->sched.cpu = cpu;
	cs->cur = idx;
	cs->since = t_in;
}

/* The thread the event's context names (perf_tid, vtid), or NO_T. */
size_t analyzer__ctx_thread(struct analyzer_core *core, const struct analyzer_event *ev)
{
	struct athread *t;
	size_t idx;

	if (ev->ctx_tid <= 0) {
		return NO_T;
	}
	idx = analyzer__thread_seen(core, ev->ctx_tid, ev->ts);
	if (idx == NO_T) {
		return NO_T;
	}
	t = analyzer__thread_at(core, idx);
	/* A thread's process does not change, and its renames show in its own events' names
	 * (prev_comm, exec): the context's pid and name count only until the pid is known. The
	 * event source may leave them out for a thread it has seen before. */
	if (t->pid < 0) {
		analyzer__pid_seen(core, t, ev->ctx_pid);
		if (ev->ctx_comm) {
			analyzer__comm_seen(core, t, ev->ctx_comm);
		}
	}
	return idx;
}

static size_t cpu_current(struct analyzer_core *core, int32_t cpu)
{
	if (cpu < 0 || (size_t)cpu >= core->n_cpus) {
		return NO_T;
	}
	return core->cpus[cpu].cur;
}

/*
 * Event handlers
 */
void analyzer__on_switch(struct analyzer_core *core, const struct analyzer_event *ev)
{
	struct cpu_state *cs = analyzer__get_cpu(core, ev->cpu, ev->ts);
	size_t prev = NO_T, next = NO_T;

	if (!cs) {
		return;
	}
	if (ev->sw.prev_tid > 0) {
		prev = analyzer__thread_seen(core, ev->sw.prev_tid, ev->ts);
		if (prev == NO_T) {
			return;
		}
		analyzer__comm_seen(core, analyzer__thread_at(core, prev), ev->sw.prev_comm);
		analyzer__note_running(core, ev->cpu, prev, ev->ts, UINT64_MAX);
	} else if (cs->cur != NO_T && cs->cur != IDLE_T) {
		/* Idle switches out while a thread was thought to run: that one left unseen. */
		struct athread *p = analyzer__thread_at(core, cs->cur);

		if (p->sched.state == TS_RUNNING && p->sched.cpu == ev->cpu) {
			analyzer__set_state(core, cs->cur, TS_RUNNABLE, cs->since,
					    ANALYZER_SEG_SLEEP, NO_T);
		}
	}
	if (prev != NO_T) {
		struct athread *p = analyzer__thread_at(core, prev);
		uint8_t st;

		if ((ev->sw.prev_state & 0xff) == 0) {
			st = TS_RUNNABLE;
		} else {
			st = p->exited ? TS_DEAD : TS_BLOCKED;
		}
		p->sched.n_switches++;
		analyzer__set_state(core, prev, st, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		if (st == TS_BLOCKED) {
			analyzer__join_block(core, prev);
		}
		if (st == TS_DEAD) {
			p->end_ts = ev->ts;
		}
	}
	if (ev->sw.next_tid > 0) {
		next = analyzer__thread_seen(core, ev->sw.next_tid, ev->ts);
		if (next == NO_T) {
			return;
		}
		/* next_comm names a thread not named yet; its renames show in its prev_comm. */
		if (!analyzer__thread_at(core, next)->comm[0]) {
			analyzer__comm_seen(core, analyzer__thread_at(core, next),
					    ev->sw.next_comm);
		}
		if (analyzer__thread_at(core, next)->sched.state == TS_RUNNING &&
		    analyzer__thread_at(core, next)->sched.cpu != ev->cpu) {
			analyzer__note_running(core, ev->cpu, next, ev->ts, UINT64_MAX);
		} else {
			analyzer__set_state(core, next, TS_RUNNING, ev->ts, ANALYZER_SEG_SLEEP,
					    NO_T);
		}
		analyzer__thread_at(core, next)->sched.cpu = ev->cpu;
		cs->cur = next;
	} else {
		cs->cur = IDLE_T;
	}
	cs->since = ev->ts;
}

/* Who woke: the context's thread (perf), else the CPU's current thread; not an interrupt,
 * not idle, and when the trace has syscalls, only a thread inside one (a futex wake, a
 * write to a pipe) or past its exit (the exit path's wakes: its parent's wait4), not a timer
 * interrupt landing on whoever ran. */
static size_t find_waker(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	struct athread *wt;
	size_t w;

	if (ev->flags & ANALYZER_EVF_IRQ) {
		return NO_T;
	}
	if (ctx != NO_T) {
		return ctx;
	}
	if (!(ev->flags & ANALYZER_EVF_WAKING) && core->seen_waking) {
		return NO_T;
	}
	w = cpu_current(core, ev->cpu);
	if (w == NO_T || w == IDLE_T) {
		return NO_T;
	}
	wt = analyzer__thread_at(core, w);
	if (core->seen_syscalls && !wt->sched.in_syscall && !wt->exited) {
		return NO_T;
	}
	return w;
}

/*
 * The child process whose exit ended s's block (its main thread, the thread s created), or
 * NO_T. The kernel wakes a wait4 (and sends SIGCHLD) when the last of the child's threads
 * exits, after that thread's sched_process_exit. A child of one thread is its own waker (the
 * rule of the exited waker in analyzer__on_wakeup); a child whose main thread ended first is
 * ended by another of its threads (lttng-ust's listener threads outlive the main thread of
 * every traced process), which s did not create. perf names no thread then (perf_tid -1: the
 * task's pid is released before its parent is told), so the waker w is the CPU's thread. The
 * child is w's process's main thread (tid = pid) when w has exited and s created that main
 * thread, which has exited and is not joined yet.
 */
static size_t exited_child_process(struct analyzer_core *core, size_t s, size_t w)
{
	const struct athread *wt, *ct;
	size_t c;

	if (w == NO_T) {
		return NO_T;
	}
	wt = analyzer__thread_at(core, w);
	if (!wt->exited || wt->pid <= 0 || wt->pid == analyzer__thread_at(core, s)->pid) {
		return NO_T;
	}
	c = analyzer__find_thread(core, wt->pid);
	if (c == NO_T || c == s) {
		return NO_T;
	}
	ct = analyzer__thread_at(core, c);
	if (ct->pid != wt->pid || ct->creator != s || !ct->exited || ct->joined || !ct->tracked) {
		return NO_T;
	}
	return c;
}

void analyzer__on_wakeup(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t s, w, c;
	struct athread *st;
	uint32_t kind = ANALYZER_SEG_SLEEP;
	size_t other = NO_T;
	size_t seg;
	uint64_t block_start;
	bool stub_join = false;

	if (ev->flags & ANALYZER_EVF_WAKING) {
		core->seen_waking = true;
	}
	if (ev->wakeup.tid <= 0) {
		return;
	}
	s = analyzer__thread_seen(core, ev->wakeup.tid, ev->ts);
	if (s == NO_T) {
		return;
	}
	st = analyzer__thread_at(core, s);
	if (ev->flags & ANALYZER_EVF_WAKEUP_NEW) {
		if (st->sched.state == TS_UNKNOWN || st->sched.state == TS_BLOCKED) {
			analyzer__set_state(core, s, TS_RUNNABLE, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		return;
	}
	if (st->sched.state == TS_UNKNOWN) {
		analyzer__set_state(core, s, TS_RUNNABLE, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		return;
	}
	if (st->sched.state != TS_BLOCKED) {
		return;
	}
	w = find_waker(core, ev, ctx);
	block_start = st->sched.since;
	c = st->tracked ? exited_child_process(core, s, w) : NO_T;
	if (c != NO_T) {
		/* wait4 woken by the end of the child process: a join of it */
		kind = ANALYZER_SEG_JOIN;
		other = c;
	} else if (w != NO_T && w != s && st->tracked && analyzer__thread_at(core, w)->tracked) {
		other = w;
		/* A dead waker reaped by its creator (wait4 after the exit) is a join. */
		kind = analyzer__thread_at(core, w)->exited &&
			       analyzer__thread_at(core, w)->creator == s
			   ? ANALYZER_SEG_JOIN
			   : ANALYZER_SEG_WAIT;
		if (st->sim.join_any && st->sim.join_of == NO_T) {
			/* A stub's `join any`: the first member whose actions ended is the one
			 * joined; a wake by a thread still playing is the player's (its threads
			 * share a condition variable), no dependency. */
			if (analyzer__thread_at(core, w)->sim.ended) {
				st->sim.join_of = w;
			} else {
				kind = ANALYZER_SEG_SLEEP;
				other = NO_T;
			}
		}
		if (st->sim.join_of == w) {
			/* A stub's join (dps:join_begin seen): the child's signal at the end of
			 * its actions is the join, named as the original's join was; a later
			 * wake-up by it (pthread_join reaping the ended thread) is no second
			 * dependency. */
			kind = st->sim.join_woken ? ANALYZER_SEG_SLEEP : ANALYZER_SEG_JOIN;
			other = st->sim.join_woken ? NO_T : w;
			st->sim.join_woken = true;
			stub_join = true;
		}
	}
	seg = analyzer__set_state(core, s, TS_RUNNABLE, ev->ts, kind, other);
	st->sched.block_waker = other;
	st->sched.block_seg = seg;
	if (kind == ANALYZER_SEG_WAIT) {
		struct athread *wt = analyzer__thread_at(core, w);

		wt->sched.wake_target = s;
		wt->sched.wake_ts = ev->ts;
		wt->sched.wake_mark = analyzer__add_mark(core, wt, ev->ts, ANALYZER_MARK_WAKE, s);
	} else if (kind == ANALYZER_SEG_JOIN) {
		analyzer__thread_at(core, other)->joined = true;
		analyzer__add_mark(core, st, ev->ts, ANALYZER_MARK_JOIN, other);
		analyzer__join_recorded(core, s, other, block_start, !stub_join);
	}
}

/* The waker exits right after its last wake: that wake was the end of a join (the futex of
 * pthread_join is woken in the exit path, before sched_process_exit). */
static void convert_wake_to_join(struct analyzer_core *core, size_t x)
{
	struct athread *xt = analyzer__thread_at(core, x);
	struct athread *st;
	struct analyzer_segment *seg, copy;

	if (xt->sched.wake_target == NO_T || xt->sched.state != TS_RUNNING ||
	    xt->sched.wake_ts < xt->sched.run_since) {
		return;
	}
	/* The exit path runs no program code: a lock or a queue operation after the wake says
	 * the wake was the program's own (a worker signalling its creator before taking a last
	 * lock), not pthread_join's. */
	if (xt->sync_ts > xt->sched.wake_ts) {
		return;
	}
	st = analyzer__thread_at(core, xt->sched.wake_target);
	/* Only its creator reaps it (pthread_join, wait4): another thread woken just before
	 * the exit was woken by something else, such as a mutex unlock. */
	if (xt->creator != xt->sched.wake_target || st->sched.block_waker != x ||
	    st->sched.block_seg == NO_T) {
		return;
	}
	/* the block may be spilled already (spill.c): then this is a copy, written back */
	seg = analyzer__seg_at(core, st, st->sched.block_seg, &copy);
	if (!seg || seg->kind != ANALYZER_SEG_WAIT || seg->other != (uint32_t)x) {
		return;
	}
	seg->kind = ANALYZER_SEG_JOIN;
	analyzer__seg_put(core, st, st->sched.block_seg, seg);
	if (xt->sched.wake_mark != NO_T) {
		analyzer__mark_delete(core, xt, xt->sched.wake_mark);
	}
	xt->joined = true;
	analyzer__add_mark(core, st, seg->end_ns, ANALYZER_MARK_JOIN, x);
	analyzer__join_recorded(core, xt->sched.wake_target, x, seg->begin_ns, true);
	xt->sched.wake_target = NO_T;
}

/* A thread whose tid a new thread takes: its exit was not seen; it is gone since then. */
static void retire_thread(struct analyzer_core *core, size_t idx, uint64_t ts)
{
	struct athread *t = analyzer__thread_at(core, idx);

	if (t->sched.state == TS_RUNNING && t->sched.cpu >= 0 &&
	    (size_t)t->sched.cpu < core->n_cpus && core->cpus[t->sched.cpu].cur == idx) {
		core->cpus[t->sched.cpu].cur = NO_T;
	}
	if (t->sched.state != TS_DEAD) {
		uint64_t end = t->last_ts < ts ? t->last_ts : ts;

		analyzer__set_state(core, idx, TS_DEAD, end, ANALYZER_SEG_SLEEP, NO_T);
		t->end_ts = end;
		if (!t->exited) {
			t->exited = true;
			t->exit_ts = end;
		}
	}
}

void analyzer__on_fork(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t p, c, old;
	struct athread *pt, *ct;
	uint32_t gen = 0;

	if (ev->fork.parent_tid < 0 || ev->fork.child_tid <= 0) {
		return;
	}
	p = ev->fork.parent_tid > 0 ? analyzer__thread_seen(core, ev->fork.parent_tid, ev->ts)
				    : NO_T;
	if (p != NO_T) {
		pt = analyzer__thread_at(core, p);
		if (ctx == NO_T || ctx == p) {
			analyzer__note_running(core, ev->cpu, p, ev->ts, UINT64_MAX);
		}
		analyzer__pid_seen(core, pt, ev->fork.parent_pid);
	}
	old = analyzer__find_thread(core, ev->fork.child_tid);
	if (old != NO_T) {
		retire_thread(core, old, ev->ts);
		gen = analyzer__thread_at(core, old)->gen + 1;
	}
	c = analyzer__new_thread(core, ev->fork.child_tid, ev->ts, gen);
	if (c == NO_T) {
		return;
	}
	ct = analyzer__thread_at(core, c);
	ct->created = true;
	ct->create_ts = ev->ts;
	ct->creator = p;
	ct->sched.state = TS_RUNNABLE;
	ct->sched.since = ev->ts;
	if (ev->fork.child_comm) {
		snprintf(ct->comm, sizeof(ct->comm), "%s", ev->fork.child_comm);
	} else if (p != NO_T) {
		memcpy(ct->comm, analyzer__thread_at(core, p)->comm, sizeof(ct->comm));
	}
	if (ev->fork.child_pid >= 0) {
		ct->pid = ev->fork.child_pid;
		ct->pid_from_fork = true;
	}
	if (p != NO_T && analyzer__thread_at(core, p)->tracked) {
		analyzer__start_tracking(ct);
		analyzer__add_mark(core, analyzer__thread_at(core, p), ev->ts, ANALYZER_MARK_CREATE,
				   c);
	}
	analyzer__maybe_track(core, ct);
	analyzer__untrack_child_process(core, ct);
	if (p != NO_T && analyzer__thread_at(core, p)->tracked && ct->tracked) {
		analyzer__join_note_child(core, p, c);
	}
}

void analyzer__on_exit_ev(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t x;
	struct athread *xt;

	if (ev->exit.tid <= 0) {
		return;
	}
	x = analyzer__thread_seen(core, ev->exit.tid, ev->ts);
	if (x == NO_T) {
		return;
	}
	xt = analyzer__thread_at(core, x);
	if (ctx == NO_T || ctx == x) {
		analyzer__note_running(core, ev->cpu, x, ev->ts, UINT64_MAX);
	}
	convert_wake_to_join(core, x);
	xt->exited = true;
	xt->exit_ts = ev->ts;
	if (xt->tracked) {
		analyzer__add_mark(core, xt, ev->ts, ANALYZER_MARK_EXIT, NO_T);
	}
}

uint64_t analyzer__runtime_at(const struct athread *t, uint64_t ts)
{
	uint64_t since =
	    t->sched.last_rt_ts > t->sched.run_since ? t->sched.last_rt_ts : t->sched.run_since;

	if (t->sched.state == TS_RUNNING && ts > since) {
		return t->sched.runtime_ns + (ts - since);
	}
	return t->sched.runtime_ns;
}

void analyzer__on_exec(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t x;
	const char *base;
	char comm[16];

	if (ev->exec.tid <= 0) {
		return;
	}
	x = analyzer__thread_seen(core, ev->exec.tid, ev->ts);
	if (x == NO_T) {
		return;
	}
	if (ctx == NO_T || ctx == x) {
		analyzer__note_running(core, ev->cpu, x, ev->ts, UINT64_MAX);
	}
	/* The first exec: what an outside witness times is the command that was started, a
	 * shim that execs the real program (pyenv's python3: bash, pyenv, then python) included. */
	if (!analyzer__thread_at(core, x)->exec_ts) {
		analyzer__thread_at(core, x)->exec_ts = ev->ts;
		analyzer__thread_at(core, x)->exec_runtime_ns =
		    analyzer__runtime_at(analyzer__thread_at(core, x), ev->ts);
	}
	if (ev->exec.filename) {
		/* The kernel names the task after the file's base name, 15 characters. */
		base = strrchr(ev->exec.filename, '/');
		base = base ? base + 1 : ev->exec.filename;
		snprintf(comm, sizeof(comm), "%s", base);
		analyzer__comm_seen(core, analyzer__thread_at(core, x), comm);
	}
}

void analyzer__on_statedump(struct analyzer_core *core, const struct analyzer_event *ev)
{
	size_t x;
	struct athread *t;

	if (ev->statedump.tid <= 0) {
		return;
	}
	x = analyzer__thread_seen(core, ev->statedump.tid, ev->ts);
	if (x == NO_T) {
		return;
	}
	t = analyzer__thread_at(core, x);
	if (ev->statedump.ppid >= 0) {
		t->ppid = ev->statedump.ppid;
	}
	analyzer__comm_seen(core, t, ev->statedump.name);
	analyzer__pid_seen(core, t, ev->statedump.pid);
}

void analyzer__on_stat_runtime(struct analyzer_core *core, const struct analyzer_event *ev,
			       size_t ctx)
{
	size_t x;
	struct athread *t;
	uint64_t rt, hint = UINT64_MAX;

	if (ev->stat_runtime.tid <= 0 || ev->stat_runtime.runtime_ns < 0) {
		return;
	}
	x = analyzer__thread_seen(core, ev->stat_runtime.tid, ev->ts);
	if (x == NO_T) {
		return;
	}
	t = analyzer__thread_at(core, x);
	rt = (uint64_t)ev->stat_runtime.runtime_ns;
	/* The first sample may count time from before the trace. */
	if (rt > ev->ts - core->begin_ts) {
		rt = ev->ts - core->begin_ts;
	}
	t->sched.runtime_ns += rt;
	if (!t->tracked) {
		t->sched.runtime_untracked_ns += rt;
	}
	t->sched.has_runtime = true;
	t->sched.last_rt_ts = ev->ts;
	/* Remote updates (clock_gettime of another thread's CPU clock) say nothing about who
	 * runs here; perf tells them apart by the context. */
	if (ctx != NO_T && ctx != x) {
		return;
	}
	if ((uint64_t)ev->stat_runtime.runtime_ns <= ev->ts) {
		hint = ev->ts - (uint64_t)ev->stat_runtime.runtime_ns;
	}
	analyzer__note_running(core, ev->cpu, x, ev->ts, hint);
}

size_t analyzer__syscall_thread(struct analyzer_core *core, const struct analyzer_event *ev,
				size_t ctx)
{
	size_t x = ctx != NO_T ? ctx : cpu_current(core, ev->cpu);

	return x == IDLE_T ? NO_T : x;
}

void analyzer__on_syscall(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx,
			  bool entry)
{
	size_t x = ctx != NO_T ? ctx : cpu_current(core, ev->cpu);

	core->seen_syscalls = true;
	if (x != NO_T && x != IDLE_T) {
		analyzer__thread_at(core, x)->sched.in_syscall = entry;
	}
}

/* wait4/waitid (the events dps record adds): whether the thread waits for one given child or
 * for any (doc/sync.md). Its own syscall state too, without making the trace one "with
 * syscalls": find_waker's rule needs them all. */
void analyzer__on_wait_call(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t x = ctx != NO_T ? ctx : cpu_current(core, ev->cpu);
	uint8_t call = JOIN_CALL_NONE;

	if (x == NO_T || x == IDLE_T) {
		return;
	}
	analyzer__thread_at(core, x)->sched.in_syscall = ev->kind == ANALYZER_EV_WAIT_ENTRY;
	if (ev->kind == ANALYZER_EV_WAIT_ENTRY) {
		/* the int the program passed: the low 32 bits of the register */
		int32_t pid = (int32_t)(uint32_t)ev->wait_call.pid;
		int64_t idtype = ev->wait_call.idtype;

		if (idtype < 0) {
			/* wait4: pid > 0 is that child; -1 any, 0 and < -1 any of a group */
			call = pid > 0 ? JOIN_CALL_ONE : JOIN_CALL_ANY;
		} else {
			/* waitid: P_ALL (0) and P_PGID (2) any; P_PID (1), P_PIDFD (3) one */
			call = (int32_t)(uint32_t)idtype == 0 || (int32_t)(uint32_t)idtype == 2
				   ? JOIN_CALL_ANY
				   : JOIN_CALL_ONE;
		}
	}
	analyzer__join_wait_call(core, x, call);
}

/* At the trace's end: every thread still alive (not dead, its state known) closes its state
 * there, or at its exit; a tracked one's last segment is written. */
void analyzer__close_states(struct analyzer_core *core)
{
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = analyzer__thread_at(core, i);
		uint64_t end = core->has_sched ? core->end_ts : t->last_ts;

		if (t->sched.state == TS_DEAD || t->sched.state == TS_UNKNOWN) {
			continue;
		}
		if (t->exited && t->exit_ts > t->sched.since) {
			end = t->exit_ts;
		}
		analyzer__set_state(core, i, TS_UNKNOWN, end, ANALYZER_SEG_SLEEP, NO_T);
		t->end_ts = end;
	}
}
