/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's core: one light state machine per thread of the trace (state, since when,
 * CPU time), a detailed timeline (segments, marks, memory samples) only for the threads of
 * the selection, and the final step that turns those timelines into an analyzer_result and
 * an action set. The rules are in doc/analyzer.md; the ones that need care:
 *
 * - A switch-out of a thread that no switch-in put on the CPU (this machine's kernel never
 *   emits the switch that leaves idle on CPU 1) infers the switch-in: at the thread's wake-up
 *   or when the CPU became free, at sched_stat_runtime's "runtime ago", or at the first event
 *   that shows the thread on that CPU; never earlier than the CPU's last known switch.
 * - sched_stat_runtime's per-thread sum, when the trace has it, is the exact CPU time: run
 *   actions are scaled to it.
 * - Blocked time ended by a wake-up from a selected thread is a wait/wake pair; if the waker
 *   exits right after waking (pthread_join's futex, wait4's SIGCHLD) it becomes a join.
 *
 * Memory: per thread of the trace, a fixed struct; per selected thread, its timeline. Nothing
 * grows with the number of events.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core.h"

#define NO_T SIZE_MAX
#define IDLE_T (SIZE_MAX - 1)
#define MARK_DELETED 0xffffffffu
/* tids below this (the kernel's pid_max limit) are looked up in a flat array: one load per
 * event instead of a hash lookup. */
#define TID_MAP_MAX (1u << 22)
/* A reused tid gets id tid + generation * this (tids never reach it: pid_max <= 2^22). */
#define ANALYZER_TID_REUSE_STRIDE 1000000000ULL

enum th_state {
	TS_UNKNOWN = 0,
	TS_RUNNING,
	TS_RUNNABLE,
	TS_BLOCKED,
	TS_DEAD,
};

struct athread {
	int64_t tid, pid, ppid;
	uint32_t gen;
	char comm[32];
	uint8_t state;
	bool tracked; /* detailed timeline recorded */
	bool matched; /* matches the selection itself (not only as a descendant) */
	bool created; /* fork seen */
	bool exited;
	bool in_syscall;
	bool has_runtime;
	bool joined; /* some thread joined it */
	bool pid_from_fork;
	bool marks_unsorted; /* add_mark appended out of order: sort at the end */
	bool attached;	     /* no selected creator: created by the root (finish) */
	int32_t cpu;
	uint64_t since; /* start of the current state */
	uint64_t first_ts, last_ts, create_ts, exit_ts, end_ts;
	uint64_t run_since; /* last switch-in */
	size_t creator;
	uint64_t cpu_ns, runtime_ns, n_switches, n_inferred;

	/* the block that ended last: who woke it and its segment (for the join conversion) */
	size_t block_waker, block_seg;
	/* the last wake this thread gave, for the same */
	size_t wake_target, wake_mark;
	uint64_t wake_ts;

	/* memory */
	int64_t heap, stack;
	uint64_t sp_base;
	int64_t cyg_depth;
	uint64_t n_allocs, n_frees, n_free_null, n_free_unknown;
	int64_t heap_peak, stack_peak;

	/* detail, only when tracked; `other` members hold internal indexes until finish */
	struct analyzer_segment *segs;
	size_t n_segs, cap_segs;
	struct analyzer_mark *marks;
	size_t n_marks, cap_marks;
	struct analyzer_mem_sample *mem;
	size_t n_mem, cap_mem;

	/* A simulated run's thread: the span between dps:thread_begin and dps:thread_end is the
	 * replay; what comes before (process start, lttng-ust registration, calibration) and
	 * after (summary, exit) is the stub's own. runtime_at_* is the sched_stat_runtime sum
	 * at those instants, interpolated over the running time not reported yet. */
	bool dps_begun, dps_ended;
	uint64_t dps_begin_ts, dps_end_ts;
	uint64_t runtime_at_begin, runtime_at_end;
	uint64_t last_rt_ts; /* last sched_stat_runtime of this thread */

	/* finish */
	bool kept;
	size_t res_idx;
};

struct cpu_state {
	size_t cur;	/* thread index, IDLE_T, or NO_T (unknown) */
	uint64_t since; /* when cur got the CPU (or the CPU's first event) */
	uint64_t first_ts;
	bool seen;
};

struct alloc_info {
	uint64_t size;
};

struct analyzer_core {
	struct analyzer_options opts;
	bool has_sched;
	struct athread **th;
	size_t n_th, cap_th;
	GHashTable *by_tid; /* tid -> index + 1 (latest thread of that tid), big tids */
	uint32_t *tid_map;  /* same for tids below TID_MAP_MAX: index + 1, 0 = none */
	size_t n_tid_map;
	struct cpu_state *cpus;
	size_t n_cpus;
	GHashTable *allocs;	 /* ptr -> struct alloc_info* */
	GHashTable *dps_ids;	 /* dps thread id -> index + 1 */
	GHashTable *dps_creates; /* dps child id -> (parent index + 1) */
	uint64_t begin_ts, end_ts, n_events;
	bool any_event;
	bool seen_waking, seen_syscalls, seen_dps_heap, seen_dps_stack;
	uint64_t n_discarded, n_discarded_packets, disc_begin, disc_end;
	bool partial;
	int status; /* sticky ENOMEM */
};

/*
 * Small growable arrays.
 */
static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap) {
		return true;
	}
	/* Doubling while small; 1.5x for the long timelines, whose slack is most of the
	 * analyzer's memory. */
	ncap = *cap ? (*cap < 4096 ? *cap * 2 : *cap + *cap / 2) : 16;
	while (ncap < need) {
		ncap += ncap / 2;
	}
	p = realloc(*arr, ncap * elem);
	if (!p) {
		return false;
	}
	*arr = p;
	*cap = ncap;
	return true;
}

static void set_nomem(struct analyzer_core *core)
{
	core->status = DPS_ERR_NOMEM;
}

static size_t add_seg(struct analyzer_core *core, struct athread *t, uint64_t b, uint64_t e,
		      uint32_t kind, size_t other)
{
	struct analyzer_segment *s;

	if (!grow((void **)&t->segs, &t->cap_segs, t->n_segs + 1, sizeof(*t->segs))) {
		set_nomem(core);
		return NO_T;
	}
	/* Merge with the previous one of the same kind when they touch (a preempted thread
	 * that is preempted again, a run split by an inferred event). */
	if (t->n_segs && (kind == ANALYZER_SEG_RUN || kind == ANALYZER_SEG_PREEMPTED)) {
		s = &t->segs[t->n_segs - 1];
		if (s->kind == kind && s->end_ns == b) {
			s->end_ns = e;
			return t->n_segs - 1;
		}
	}
	s = &t->segs[t->n_segs++];
	s->begin_ns = b;
	s->end_ns = e;
	s->kind = kind;
	s->other = other == NO_T ? 0 : (uint32_t)other;
	return t->n_segs - 1;
}

/* Appends a mark; a late one (dps create events, joins found at the end) marks the array for
 * one stable sort at the end rather than an insertion each time. */
static size_t add_mark(struct analyzer_core *core, struct athread *t, uint64_t ts, uint32_t kind,
		       size_t other)
{
	if (!grow((void **)&t->marks, &t->cap_marks, t->n_marks + 1, sizeof(*t->marks))) {
		set_nomem(core);
		return NO_T;
	}
	if (t->n_marks && t->marks[t->n_marks - 1].ts_ns > ts) {
		t->marks_unsorted = true;
	}
	t->marks[t->n_marks] = (struct analyzer_mark){
	    .ts_ns = ts, .kind = kind, .other = other == NO_T ? 0 : (uint32_t)other};
	return t->n_marks++;
}

static gint cmp_mark(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct analyzer_mark *x = a, *y = b;

	(void)data;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

static void add_mem_sample(struct analyzer_core *core, struct athread *t, uint64_t ts)
{
	struct analyzer_mem_sample *m;

	if (t->heap > t->heap_peak) {
		t->heap_peak = t->heap;
	}
	if (t->stack > t->stack_peak) {
		t->stack_peak = t->stack;
	}
	if (!t->tracked) {
		return;
	}
	if (t->n_mem && t->mem[t->n_mem - 1].ts_ns == ts) {
		m = &t->mem[t->n_mem - 1];
	} else {
		if (!grow((void **)&t->mem, &t->cap_mem, t->n_mem + 1, sizeof(*t->mem))) {
			set_nomem(core);
			return;
		}
		m = &t->mem[t->n_mem++];
	}
	m->ts_ns = ts;
	m->heap_bytes = t->heap;
	m->stack_bytes = t->stack;
}

/*
 * Threads
 */
static struct athread *T(struct analyzer_core *core, size_t i)
{
	return core->th[i];
}

static bool comm_matches(const struct analyzer_core *core, const struct athread *t)
{
	return core->opts.comm && !strcmp(t->comm, core->opts.comm);
}

static bool matches_selection(const struct analyzer_core *core, const struct athread *t)
{
	const struct analyzer_options *o = &core->opts;

	if (o->tid >= 0 && t->tid == o->tid) {
		return true;
	}
	if (o->pid >= 0 && (t->pid == o->pid || t->tid == o->pid)) {
		return true;
	}
	return comm_matches(core, t);
}

static void start_tracking(struct athread *t)
{
	t->tracked = true;
}

/* Called whenever what identifies a thread (pid, comm) changes. */
static void maybe_track(struct analyzer_core *core, struct athread *t)
{
	if (t->matched) {
		return;
	}
	if (matches_selection(core, t)) {
		t->matched = true;
		start_tracking(t);
	}
}

static void set_comm(struct analyzer_core *core, struct athread *t, const char *comm)
{
	if (!comm || !comm[0] || !strncmp(t->comm, comm, sizeof(t->comm) - 1)) {
		return;
	}
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	maybe_track(core, t);
}

/* A child process that will not be replayed (no --follow-children): forget its timeline now
 * rather than at the end, so memory follows the selection only. */
static void untrack_child_process(struct analyzer_core *core, struct athread *t)
{
	struct athread *p;

	if (!t->tracked || t->matched || core->opts.follow_children || t->creator == NO_T) {
		return;
	}
	p = core->th[t->creator];
	if (!p->tracked || p->pid < 0 || t->pid < 0 || p->pid == t->pid) {
		return;
	}
	for (size_t i = 0; i < p->n_marks; i++) {
		if (p->marks[i].kind == ANALYZER_MARK_CREATE && core->th[p->marks[i].other] == t) {
			p->marks[i].kind = MARK_DELETED;
		}
	}
	free(t->segs);
	free(t->marks);
	free(t->mem);
	t->segs = NULL;
	t->marks = NULL;
	t->mem = NULL;
	t->n_segs = t->cap_segs = t->n_marks = t->cap_marks = t->n_mem = t->cap_mem = 0;
	t->tracked = false;
}

static void set_pid(struct analyzer_core *core, struct athread *t, int64_t pid)
{
	if (pid < 0 || t->pid == pid) {
		return;
	}
	t->pid = pid;
	maybe_track(core, t);
	untrack_child_process(core, t);
}

static size_t new_thread(struct analyzer_core *core, int64_t tid, uint64_t ts, uint32_t gen)
{
	struct athread *t;
	size_t idx;

	if (!grow((void **)&core->th, &core->cap_th, core->n_th + 1, sizeof(*core->th))) {
		set_nomem(core);
		return NO_T;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		set_nomem(core);
		return NO_T;
	}
	t->tid = tid;
	t->pid = -1;
	t->ppid = -1;
	t->gen = gen;
	t->cpu = -1;
	t->first_ts = ts;
	t->last_ts = ts;
	t->since = ts;
	t->creator = NO_T;
	t->block_waker = NO_T;
	t->block_seg = NO_T;
	t->wake_target = NO_T;
	t->wake_mark = NO_T;
	idx = core->n_th++;
	core->th[idx] = t;
	if (tid >= 0 && tid < TID_MAP_MAX && idx < UINT32_MAX) {
		if ((size_t)tid >= core->n_tid_map) {
			size_t n = core->n_tid_map ? core->n_tid_map : 4096;
			uint32_t *m;

			while (n <= (size_t)tid) {
				n *= 2;
			}
			m = realloc(core->tid_map, n * sizeof(*m));
			if (!m) {
				set_nomem(core);
				return idx;
			}
			memset(m + core->n_tid_map, 0, (n - core->n_tid_map) * sizeof(*m));
			core->tid_map = m;
			core->n_tid_map = n;
		}
		core->tid_map[tid] = (uint32_t)(idx + 1);
	} else {
		g_hash_table_insert(core->by_tid, GINT_TO_POINTER((gint)tid),
				    GSIZE_TO_POINTER(idx + 1));
	}
	return idx;
}

static size_t find_thread(struct analyzer_core *core, int64_t tid)
{
	gpointer v;

	if (tid >= 0 && tid < TID_MAP_MAX) {
		return (size_t)tid < core->n_tid_map && core->tid_map[tid]
			   ? (size_t)core->tid_map[tid] - 1
			   : NO_T;
	}
	v = g_hash_table_lookup(core->by_tid, GINT_TO_POINTER((gint)tid));
	return v ? GPOINTER_TO_SIZE(v) - 1 : NO_T;
}

/* The thread of this tid, created on first sight. tid 0 (idle) is never a thread. */
static size_t get_thread(struct analyzer_core *core, int64_t tid, uint64_t ts)
{
	size_t idx = find_thread(core, tid);

	if (idx == NO_T) {
		idx = new_thread(core, tid, ts, 0);
		if (idx != NO_T) {
			maybe_track(core, T(core, idx));
		}
	}
	if (idx != NO_T) {
		T(core, idx)->last_ts = ts;
	}
	return idx;
}

static struct cpu_state *get_cpu(struct analyzer_core *core, int32_t cpu, uint64_t ts)
{
	if (cpu < 0 || cpu > 65535) {
		return NULL;
	}
	if ((size_t)cpu >= core->n_cpus) {
		size_t n = (size_t)cpu + 1;
		struct cpu_state *c = realloc(core->cpus, n * sizeof(*c));

		if (!c) {
			set_nomem(core);
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
static size_t set_state(struct analyzer_core *core, size_t idx, uint8_t state, uint64_t ts,
			uint32_t block_kind, size_t other)
{
	struct athread *t = T(core, idx);
	size_t seg = NO_T;
	uint64_t b = t->since;

	if (ts < b && t->state != TS_UNKNOWN) {
		ts = b;
	}
	switch (t->state) {
	case TS_RUNNING:
		t->cpu_ns += ts - b;
		if (t->tracked) {
			seg = add_seg(core, t, b, ts, ANALYZER_SEG_RUN, NO_T);
		}
		break;
	case TS_RUNNABLE:
		if (t->tracked && ts > b) {
			seg = add_seg(core, t, b, ts, ANALYZER_SEG_PREEMPTED, NO_T);
		}
		break;
	case TS_BLOCKED:
		if (t->tracked) {
			seg = add_seg(core, t, b, ts, block_kind, other);
		}
		break;
	default:
		break;
	}
	if (state == TS_RUNNING && t->state != TS_RUNNING) {
		t->run_since = ts;
	}
	t->state = state;
	t->since = ts;
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
static void note_running(struct analyzer_core *core, int32_t cpu, size_t idx, uint64_t ts,
			 uint64_t hint)
{
	struct cpu_state *cs;
	struct athread *t = T(core, idx);
	uint64_t lower, t_in;

	if (!core->has_sched) {
		if (t->state == TS_UNKNOWN) {
			set_state(core, idx, TS_RUNNING, ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		return;
	}
	cs = get_cpu(core, cpu, ts);
	if (!cs) {
		return;
	}
	if (cs->cur == idx) {
		return;
	}
	if (t->state == TS_RUNNING && t->cpu != cpu && t->cpu >= 0 &&
	    (size_t)t->cpu < core->n_cpus && core->cpus[t->cpu].cur == idx) {
		/* Its switch-out on the other CPU is missing: that CPU is unknown now. */
		core->cpus[t->cpu].cur = NO_T;
		core->cpus[t->cpu].since = ts;
	}
	lower = cs->since;
	if (t->state == TS_RUNNABLE || t->state == TS_BLOCKED) {
		if (t->since > lower) {
			lower = t->since;
		}
	}
	if (lower > ts) {
		lower = ts;
	}
	if (hint != UINT64_MAX && hint <= ts) {
		t_in = hint < lower ? lower : hint;
	} else if (t->state == TS_RUNNABLE || (t->state == TS_UNKNOWN && cs->cur == NO_T)) {
		/* Woken, or running since before the CPU's first event. */
		t_in = lower;
	} else if (t->state == TS_RUNNING) {
		t_in = t->since;
	} else {
		/* Blocked with its wake-up lost: do not turn the gap into run time. */
		t_in = ts;
	}
	if (cs->cur != NO_T && cs->cur != IDLE_T) {
		struct athread *p = T(core, cs->cur);

		if (p->state == TS_RUNNING && p->cpu == cpu) {
			set_state(core, cs->cur, TS_RUNNABLE, t_in, ANALYZER_SEG_SLEEP, NO_T);
		}
	}
	if (t->state != TS_RUNNING) {
		if (cs->cur != NO_T || t->state != TS_UNKNOWN) {
			t->n_inferred++;
		}
		set_state(core, idx, TS_RUNNING, t_in, ANALYZER_SEG_SLEEP, NO_T);
	}
	t->cpu = cpu;
	cs->cur = idx;
	cs->since = t_in;
}

/* The thread the event's context names (perf_tid, vtid), or NO_T. */
static size_t ctx_thread(struct analyzer_core *core, const struct analyzer_event *ev)
{
	size_t idx;

	if (ev->ctx_tid <= 0) {
		return NO_T;
	}
	idx = get_thread(core, ev->ctx_tid, ev->ts);
	if (idx == NO_T) {
		return NO_T;
	}
	set_pid(core, T(core, idx), ev->ctx_pid);
	if (ev->ctx_comm) {
		set_comm(core, T(core, idx), ev->ctx_comm);
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
static void on_switch(struct analyzer_core *core, const struct analyzer_event *ev)
{
	struct cpu_state *cs = get_cpu(core, ev->cpu, ev->ts);
	size_t prev = NO_T, next = NO_T;

	if (!cs) {
		return;
	}
	if (ev->a > 0) {
		prev = get_thread(core, ev->a, ev->ts);
		if (prev == NO_T) {
			return;
		}
		set_comm(core, T(core, prev), ev->str);
		note_running(core, ev->cpu, prev, ev->ts, UINT64_MAX);
	} else if (cs->cur != NO_T && cs->cur != IDLE_T) {
		/* Idle switches out while a thread was thought to run: that one left unseen. */
		struct athread *p = T(core, cs->cur);

		if (p->state == TS_RUNNING && p->cpu == ev->cpu) {
			set_state(core, cs->cur, TS_RUNNABLE, cs->since, ANALYZER_SEG_SLEEP, NO_T);
		}
	}
	if (prev != NO_T) {
		struct athread *p = T(core, prev);
		uint8_t st;

		if ((ev->c & 0xff) == 0) {
			st = TS_RUNNABLE;
		} else {
			st = p->exited ? TS_DEAD : TS_BLOCKED;
		}
		p->n_switches++;
		set_state(core, prev, st, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		if (st == TS_DEAD) {
			p->end_ts = ev->ts;
		}
	}
	if (ev->b > 0) {
		next = get_thread(core, ev->b, ev->ts);
		if (next == NO_T) {
			return;
		}
		set_comm(core, T(core, next), ev->str2);
		if (T(core, next)->state == TS_RUNNING && T(core, next)->cpu != ev->cpu) {
			note_running(core, ev->cpu, next, ev->ts, UINT64_MAX);
		} else {
			set_state(core, next, TS_RUNNING, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		T(core, next)->cpu = ev->cpu;
		cs->cur = next;
	} else {
		cs->cur = IDLE_T;
	}
	cs->since = ev->ts;
}

/* Who woke: the context's thread (perf), else the CPU's current thread; not an interrupt,
 * not idle, and when the trace has syscalls, only a thread inside one (a futex wake, a
 * write to a pipe), not a timer interrupt landing on whoever ran. */
static size_t find_waker(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
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
	if (core->seen_syscalls && !T(core, w)->in_syscall) {
		return NO_T;
	}
	return w;
}

static void on_wakeup(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t s, w;
	struct athread *st;
	uint32_t kind = ANALYZER_SEG_SLEEP;
	size_t other = NO_T;
	size_t seg;

	if (ev->flags & ANALYZER_EVF_WAKING) {
		core->seen_waking = true;
	}
	if (ev->a <= 0) {
		return;
	}
	s = get_thread(core, ev->a, ev->ts);
	if (s == NO_T) {
		return;
	}
	st = T(core, s);
	if (ev->flags & ANALYZER_EVF_WAKEUP_NEW) {
		if (st->state == TS_UNKNOWN || st->state == TS_BLOCKED) {
			set_state(core, s, TS_RUNNABLE, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		return;
	}
	if (st->state == TS_UNKNOWN) {
		set_state(core, s, TS_RUNNABLE, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		return;
	}
	if (st->state != TS_BLOCKED) {
		return;
	}
	w = find_waker(core, ev, ctx);
	if (w != NO_T && w != s && st->tracked && T(core, w)->tracked) {
		other = w;
		/* A dead waker reaped by its creator (wait4 after the exit) is a join. */
		kind = T(core, w)->exited && T(core, w)->creator == s ? ANALYZER_SEG_JOIN
								      : ANALYZER_SEG_WAIT;
	}
	seg = set_state(core, s, TS_RUNNABLE, ev->ts, kind, other);
	st->block_waker = other;
	st->block_seg = seg;
	if (kind == ANALYZER_SEG_WAIT) {
		struct athread *wt = T(core, w);

		wt->wake_target = s;
		wt->wake_ts = ev->ts;
		wt->wake_mark = add_mark(core, wt, ev->ts, ANALYZER_MARK_WAKE, s);
	} else if (kind == ANALYZER_SEG_JOIN) {
		T(core, w)->joined = true;
		add_mark(core, st, ev->ts, ANALYZER_MARK_JOIN, w);
	}
}

/* The waker exits right after its last wake: that wake was the end of a join (the futex of
 * pthread_join is woken in the exit path, before sched_process_exit). */
static void convert_wake_to_join(struct analyzer_core *core, size_t x)
{
	struct athread *xt = T(core, x);
	struct athread *st;
	struct analyzer_segment *seg;

	if (xt->wake_target == NO_T || xt->state != TS_RUNNING || xt->wake_ts < xt->run_since) {
		return;
	}
	st = T(core, xt->wake_target);
	/* Only its creator reaps it (pthread_join, wait4): another thread woken just before
	 * the exit was woken by something else, such as a mutex unlock. */
	if (xt->creator != xt->wake_target || st->block_waker != x || st->block_seg == NO_T ||
	    st->block_seg >= st->n_segs) {
		return;
	}
	seg = &st->segs[st->block_seg];
	if (seg->kind != ANALYZER_SEG_WAIT || seg->other != (uint32_t)x) {
		return;
	}
	seg->kind = ANALYZER_SEG_JOIN;
	if (xt->wake_mark != NO_T && xt->wake_mark < xt->n_marks) {
		xt->marks[xt->wake_mark].kind = MARK_DELETED;
	}
	xt->joined = true;
	add_mark(core, st, seg->end_ns, ANALYZER_MARK_JOIN, x);
	xt->wake_target = NO_T;
}

static void retire_thread(struct analyzer_core *core, size_t idx, uint64_t ts)
{
	struct athread *t = T(core, idx);

	/* Its exit was not seen; it is gone since a new thread has its tid. */
	if (t->state == TS_RUNNING && t->cpu >= 0 && (size_t)t->cpu < core->n_cpus &&
	    core->cpus[t->cpu].cur == idx) {
		core->cpus[t->cpu].cur = NO_T;
	}
	if (t->state != TS_DEAD) {
		uint64_t end = t->last_ts < ts ? t->last_ts : ts;

		set_state(core, idx, TS_DEAD, end, ANALYZER_SEG_SLEEP, NO_T);
		t->end_ts = end;
		if (!t->exited) {
			t->exited = true;
			t->exit_ts = end;
		}
	}
}

static void on_fork(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t p, c, old;
	struct athread *pt, *ct;
	uint32_t gen = 0;

	if (ev->a < 0 || ev->b <= 0) {
		return;
	}
	p = ev->a > 0 ? get_thread(core, ev->a, ev->ts) : NO_T;
	if (p != NO_T) {
		pt = T(core, p);
		if (ctx == NO_T || ctx == p) {
			note_running(core, ev->cpu, p, ev->ts, UINT64_MAX);
		}
		set_pid(core, pt, ev->c);
	}
	old = find_thread(core, ev->b);
	if (old != NO_T) {
		retire_thread(core, old, ev->ts);
		gen = T(core, old)->gen + 1;
	}
	c = new_thread(core, ev->b, ev->ts, gen);
	if (c == NO_T) {
		return;
	}
	ct = T(core, c);
	ct->created = true;
	ct->create_ts = ev->ts;
	ct->creator = p;
	ct->state = TS_RUNNABLE;
	ct->since = ev->ts;
	if (ev->str) {
		snprintf(ct->comm, sizeof(ct->comm), "%s", ev->str);
	} else if (p != NO_T) {
		memcpy(ct->comm, T(core, p)->comm, sizeof(ct->comm));
	}
	if (ev->d >= 0) {
		ct->pid = ev->d;
		ct->pid_from_fork = true;
	}
	if (p != NO_T && T(core, p)->tracked) {
		start_tracking(ct);
		add_mark(core, T(core, p), ev->ts, ANALYZER_MARK_CREATE, c);
	}
	maybe_track(core, ct);
	untrack_child_process(core, ct);
}

static void on_exit_ev(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t x;
	struct athread *xt;

	if (ev->a <= 0) {
		return;
	}
	x = get_thread(core, ev->a, ev->ts);
	if (x == NO_T) {
		return;
	}
	xt = T(core, x);
	if (ctx == NO_T || ctx == x) {
		note_running(core, ev->cpu, x, ev->ts, UINT64_MAX);
	}
	convert_wake_to_join(core, x);
	xt->exited = true;
	xt->exit_ts = ev->ts;
	if (xt->tracked) {
		add_mark(core, xt, ev->ts, ANALYZER_MARK_EXIT, NO_T);
	}
}

static void on_exec(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t x;
	const char *base;
	char comm[16];

	if (ev->a <= 0) {
		return;
	}
	x = get_thread(core, ev->a, ev->ts);
	if (x == NO_T) {
		return;
	}
	if (ctx == NO_T || ctx == x) {
		note_running(core, ev->cpu, x, ev->ts, UINT64_MAX);
	}
	if (ev->str) {
		/* The kernel names the task after the file's base name, 15 characters. */
		base = strrchr(ev->str, '/');
		base = base ? base + 1 : ev->str;
		snprintf(comm, sizeof(comm), "%s", base);
		set_comm(core, T(core, x), comm);
	}
}

static void on_statedump(struct analyzer_core *core, const struct analyzer_event *ev)
{
	size_t x;
	struct athread *t;

	if (ev->a <= 0) {
		return;
	}
	x = get_thread(core, ev->a, ev->ts);
	if (x == NO_T) {
		return;
	}
	t = T(core, x);
	if (ev->c >= 0) {
		t->ppid = ev->c;
	}
	set_comm(core, t, ev->str);
	set_pid(core, t, ev->b);
}

static void on_stat_runtime(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	size_t x;
	struct athread *t;
	uint64_t rt, hint = UINT64_MAX;

	if (ev->a <= 0 || ev->b < 0) {
		return;
	}
	x = get_thread(core, ev->a, ev->ts);
	if (x == NO_T) {
		return;
	}
	t = T(core, x);
	rt = (uint64_t)ev->b;
	/* The first sample may count time from before the trace. */
	if (rt > ev->ts - core->begin_ts) {
		rt = ev->ts - core->begin_ts;
	}
	t->runtime_ns += rt;
	t->has_runtime = true;
	t->last_rt_ts = ev->ts;
	/* Remote updates (clock_gettime of another thread's CPU clock) say nothing about who
	 * runs here; perf tells them apart by the context. */
	if (ctx != NO_T && ctx != x) {
		return;
	}
	if ((uint64_t)ev->b <= ev->ts) {
		hint = ev->ts - (uint64_t)ev->b;
	}
	note_running(core, ev->cpu, x, ev->ts, hint);
}

static void on_syscall(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx,
		       bool entry)
{
	size_t x = ctx != NO_T ? ctx : cpu_current(core, ev->cpu);

	core->seen_syscalls = true;
	if (x != NO_T && x != IDLE_T) {
		T(core, x)->in_syscall = entry;
	}
}

/*
 * Memory: heap in use per thread from the libc wrapper, stack depth from dps_stack's sp or
 * lttng_ust_cyg_profile's call depth.
 */
static void heap_add(struct analyzer_core *core, struct athread *t, uint64_t ptr, uint64_t size,
		     uint64_t ts)
{
	struct alloc_info *ai;

	if (!ptr) {
		return;
	}
	ai = g_hash_table_lookup(core->allocs, GSIZE_TO_POINTER(ptr));
	if (ai) {
		/* Reused without a free we saw: replace it. */
		t->heap -= (int64_t)ai->size;
		ai->size = size;
	} else {
		ai = malloc(sizeof(*ai));
		if (!ai) {
			set_nomem(core);
			return;
		}
		ai->size = size;
		g_hash_table_insert(core->allocs, GSIZE_TO_POINTER(ptr), ai);
	}
	t->heap += (int64_t)size;
	t->n_allocs++;
	add_mem_sample(core, t, ts);
}

static void heap_free(struct analyzer_core *core, struct athread *t, uint64_t ptr, uint64_t ts,
		      bool count)
{
	struct alloc_info *ai;

	if (count) {
		t->n_frees++;
	}
	if (!ptr) {
		t->n_free_null++;
		return;
	}
	ai = g_hash_table_lookup(core->allocs, GSIZE_TO_POINTER(ptr));
	if (!ai) {
		t->n_free_unknown++;
		return;
	}
	t->heap -= (int64_t)ai->size;
	g_hash_table_remove(core->allocs, GSIZE_TO_POINTER(ptr));
	add_mem_sample(core, t, ts);
}

static void on_memory(struct analyzer_core *core, const struct analyzer_event *ev, size_t x)
{
	struct athread *t = T(core, x);
	uint64_t sp;

	switch (ev->kind) {
	case ANALYZER_EV_ALLOC:
		if (core->seen_dps_heap) {
			return;
		}
		heap_add(core, t, (uint64_t)ev->a, (uint64_t)ev->b, ev->ts);
		break;
	case ANALYZER_EV_FREE:
		if (core->seen_dps_heap) {
			return;
		}
		heap_free(core, t, (uint64_t)ev->a, ev->ts, true);
		break;
	case ANALYZER_EV_REALLOC:
		if (core->seen_dps_heap) {
			return;
		}
		if (ev->a) {
			heap_free(core, t, (uint64_t)ev->a, ev->ts, false);
		}
		if (ev->c) {
			heap_add(core, t, (uint64_t)ev->c, (uint64_t)ev->b, ev->ts);
		}
		break;
	case ANALYZER_EV_FUNC_ENTRY:
	case ANALYZER_EV_FUNC_EXIT:
		if (core->seen_dps_stack) {
			return;
		}
		if (ev->flags & ANALYZER_EVF_HAS_SP) {
			sp = (uint64_t)ev->b;
			if (sp > t->sp_base) {
				/* The first sp is the shallowest we know; a higher one moves the
				 * base (depth measured from it). */
				t->sp_base = sp;
			}
			t->stack = (int64_t)(t->sp_base - sp);
		} else {
			t->cyg_depth += ev->kind == ANALYZER_EV_FUNC_ENTRY ? 1 : -1;
			if (t->cyg_depth < 0) {
				t->cyg_depth = 0;
			}
			t->stack = t->cyg_depth * ANALYZER_CYG_FRAME_BYTES;
		}
		add_mem_sample(core, t, ev->ts);
		break;
	default:
		break;
	}
}

/*
 * dps's own events (a simulated run). With kernel scheduling in the trace they only name
 * threads and give memory; UST only, they are the timeline.
 */
static size_t dps_thread(struct analyzer_core *core, int64_t id)
{
	gpointer v = g_hash_table_lookup(core->dps_ids, GSIZE_TO_POINTER((gsize)id));

	return v ? GPOINTER_TO_SIZE(v) - 1 : NO_T;
}

/* Whether a is b or one of b's creators (a creation link b -> a would make a cycle). */
static bool is_ancestor(const struct analyzer_core *core, size_t a, size_t b)
{
	for (size_t n = 0; b != NO_T && n <= core->n_th; n++) {
		if (b == a) {
			return true;
		}
		b = core->th[b]->creator;
	}
	return false;
}

/* The thread's sched_stat_runtime sum at ts, counting the time it has been running since
 * the last report (the kernel reports at ticks and switch-outs). */
static uint64_t runtime_at(const struct athread *t, uint64_t ts)
{
	uint64_t since = t->last_rt_ts > t->run_since ? t->last_rt_ts : t->run_since;

	if (t->state == TS_RUNNING && ts > since) {
		return t->runtime_ns + (ts - since);
	}
	return t->runtime_ns;
}

static void on_dps(struct analyzer_core *core, const struct analyzer_event *ev, size_t x)
{
	struct athread *t = T(core, x);
	size_t o;
	bool timeline = !core->has_sched;

	switch (ev->kind) {
	case ANALYZER_EV_DPS_THREAD_BEGIN: {
		gpointer pv;

		if (!t->dps_begun) {
			t->dps_begun = true;
			t->dps_begin_ts = ev->ts;
			t->runtime_at_begin = runtime_at(t, ev->ts);
		}

		g_hash_table_insert(core->dps_ids, GSIZE_TO_POINTER((gsize)ev->a),
				    GSIZE_TO_POINTER(x + 1));
		pv = g_hash_table_lookup(core->dps_creates, GSIZE_TO_POINTER((gsize)ev->a));
		if (pv && t->creator == NO_T && !is_ancestor(core, x, GPOINTER_TO_SIZE(pv) - 1)) {
			size_t p = GPOINTER_TO_SIZE(pv) - 1;

			t->creator = p;
			t->created = true;
			t->create_ts = ev->ts;
			if (T(core, p)->tracked) {
				start_tracking(t);
				add_mark(core, T(core, p), ev->ts, ANALYZER_MARK_CREATE, x);
			}
		}
		break;
	}
	case ANALYZER_EV_DPS_THREAD_END:
		if (t->dps_begun && !t->dps_ended) {
			t->dps_ended = true;
			t->dps_end_ts = ev->ts;
			t->runtime_at_end = runtime_at(t, ev->ts);
		}
		if (timeline) {
			set_state(core, x, TS_DEAD, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
			t->exited = true;
			t->exit_ts = ev->ts;
			t->end_ts = ev->ts;
			if (t->tracked) {
				add_mark(core, t, ev->ts, ANALYZER_MARK_EXIT, NO_T);
			}
		}
		break;
	case ANALYZER_EV_DPS_CREATE:
		g_hash_table_insert(core->dps_creates, GSIZE_TO_POINTER((gsize)ev->a),
				    GSIZE_TO_POINTER(x + 1));
		break;
	case ANALYZER_EV_DPS_SLEEP_BEGIN:
	case ANALYZER_EV_DPS_WAIT_BEGIN:
	case ANALYZER_EV_DPS_JOIN_BEGIN:
		if (timeline) {
			set_state(core, x, TS_BLOCKED, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		break;
	case ANALYZER_EV_DPS_SLEEP_END:
		if (timeline && t->state == TS_BLOCKED) {
			set_state(core, x, TS_RUNNING, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		break;
	case ANALYZER_EV_DPS_WAIT_END:
		if (timeline && t->state == TS_BLOCKED) {
			o = dps_thread(core, ev->a);
			set_state(core, x, TS_RUNNING, ev->ts,
				  o == NO_T ? ANALYZER_SEG_SLEEP : ANALYZER_SEG_WAIT, o);
		}
		break;
	case ANALYZER_EV_DPS_JOIN_END:
		if (timeline && t->state == TS_BLOCKED) {
			o = dps_thread(core, ev->a);
			set_state(core, x, TS_RUNNING, ev->ts,
				  o == NO_T ? ANALYZER_SEG_SLEEP : ANALYZER_SEG_JOIN, o);
			if (o != NO_T) {
				T(core, o)->joined = true;
				if (t->tracked) {
					add_mark(core, t, ev->ts, ANALYZER_MARK_JOIN, o);
				}
			}
		}
		break;
	case ANALYZER_EV_DPS_WAKE:
		o = dps_thread(core, ev->a);
		if (timeline && o != NO_T && t->tracked) {
			add_mark(core, t, ev->ts, ANALYZER_MARK_WAKE, o);
		}
		break;
	case ANALYZER_EV_DPS_HEAP:
		core->seen_dps_heap = true;
		t->heap = ev->b >= 0 ? ev->b : t->heap + ev->a;
		add_mem_sample(core, t, ev->ts);
		break;
	case ANALYZER_EV_DPS_STACK:
		core->seen_dps_stack = true;
		t->stack = ev->b >= 0 ? ev->b : t->stack + ev->a;
		add_mem_sample(core, t, ev->ts);
		break;
	default:
		break;
	}
}

static void on_discarded(struct analyzer_core *core, const struct analyzer_event *ev)
{
	uint64_t b = ev->ts, e = ev->b >= 0 ? (uint64_t)ev->b : ev->ts;

	if (!core->partial || b < core->disc_begin) {
		core->disc_begin = b;
	}
	if (!core->partial || e > core->disc_end) {
		core->disc_end = e;
	}
	core->partial = true;
	if (ev->flags & ANALYZER_EVF_PACKETS) {
		core->n_discarded_packets += ev->a > 0 ? (uint64_t)ev->a : 1;
	} else {
		core->n_discarded += ev->a > 0 ? (uint64_t)ev->a : 0;
	}
}

int analyzer_core_feed(struct analyzer_core *core, const struct analyzer_event *ev)
{
	size_t ctx;

	if (core->status) {
		return core->status;
	}
	if (ev->kind == ANALYZER_EV_DISCARDED) {
		on_discarded(core, ev);
		return core->status;
	}
	if (!core->any_event) {
		core->any_event = true;
		core->begin_ts = ev->ts;
	}
	if (ev->ts > core->end_ts) {
		core->end_ts = ev->ts;
	}
	core->n_events++;
	if (core->has_sched && ev->cpu >= 0) {
		get_cpu(core, ev->cpu, ev->ts);
	}
	ctx = ctx_thread(core, ev);
	if (ctx == NO_T && ev->kind >= ANALYZER_EV_ALLOC && ev->kind <= ANALYZER_EV_DPS_STACK) {
		/* UST without a vtid context: one pseudo-thread per process (or for all). */
		ctx = get_thread(core, ev->ctx_pid > 0 ? -ev->ctx_pid : -1, ev->ts);
		if (ctx != NO_T) {
			set_pid(core, T(core, ctx), ev->ctx_pid);
			set_comm(core, T(core, ctx), ev->ctx_comm);
		}
	}
	/* An event run by a thread (perf's context, UST) shows it on its CPU. Scheduler
	 * events are handled below with their own rules. */
	if (ctx != NO_T && ev->kind != ANALYZER_EV_SWITCH && ev->kind != ANALYZER_EV_STAT_RUNTIME &&
	    ev->kind != ANALYZER_EV_FORK && ev->kind != ANALYZER_EV_EXIT &&
	    ev->kind != ANALYZER_EV_EXEC && !(ev->flags & ANALYZER_EVF_IRQ)) {
		note_running(core, ev->cpu, ctx, ev->ts, UINT64_MAX);
	}
	switch (ev->kind) {
	case ANALYZER_EV_SWITCH:
		on_switch(core, ev);
		break;
	case ANALYZER_EV_WAKEUP:
		on_wakeup(core, ev, ctx);
		break;
	case ANALYZER_EV_FORK:
		on_fork(core, ev, ctx);
		break;
	case ANALYZER_EV_EXIT:
		on_exit_ev(core, ev, ctx);
		break;
	case ANALYZER_EV_EXEC:
		on_exec(core, ev, ctx);
		break;
	case ANALYZER_EV_STATEDUMP:
		on_statedump(core, ev);
		break;
	case ANALYZER_EV_STAT_RUNTIME:
		on_stat_runtime(core, ev, ctx);
		break;
	case ANALYZER_EV_SYSCALL_ENTRY:
	case ANALYZER_EV_SYSCALL_EXIT:
		on_syscall(core, ev, ctx, ev->kind == ANALYZER_EV_SYSCALL_ENTRY);
		break;
	case ANALYZER_EV_ALLOC:
	case ANALYZER_EV_FREE:
	case ANALYZER_EV_REALLOC:
	case ANALYZER_EV_FUNC_ENTRY:
	case ANALYZER_EV_FUNC_EXIT:
		if (ctx != NO_T) {
			on_memory(core, ev, ctx);
		}
		break;
	default:
		if (ev->kind >= ANALYZER_EV_DPS_THREAD_BEGIN && ev->kind <= ANALYZER_EV_DPS_STACK &&
		    ctx != NO_T) {
			on_dps(core, ev, ctx);
		}
		break;
	}
	return core->status;
}

bool analyzer_core_knows_pid(const struct analyzer_core *core, int64_t tid)
{
	size_t idx = find_thread((struct analyzer_core *)core, tid);

	return idx != NO_T && core->th[idx]->pid >= 0;
}

bool analyzer_core_knows_comm(const struct analyzer_core *core, int64_t tid)
{
	size_t idx = find_thread((struct analyzer_core *)core, tid);

	return idx != NO_T && core->th[idx]->comm[0];
}

/*
 * Creation and destruction
 */
struct analyzer_core *analyzer_core_create(const struct analyzer_options *opts, bool has_sched)
{
	struct analyzer_core *core = calloc(1, sizeof(*core));

	if (!core) {
		return NULL;
	}
	core->opts = *opts;
	core->has_sched = has_sched;
	core->by_tid = g_hash_table_new(g_direct_hash, g_direct_equal);
	core->allocs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free);
	core->dps_ids = g_hash_table_new(g_direct_hash, g_direct_equal);
	core->dps_creates = g_hash_table_new(g_direct_hash, g_direct_equal);
	return core;
}

static void free_athread(struct athread *t)
{
	if (!t) {
		return;
	}
	free(t->segs);
	free(t->marks);
	free(t->mem);
	free(t);
}

void analyzer_core_destroy(struct analyzer_core *core)
{
	if (!core) {
		return;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		free_athread(core->th[i]);
	}
	free(core->th);
	free(core->cpus);
	g_hash_table_destroy(core->by_tid);
	free(core->tid_map);
	g_hash_table_destroy(core->allocs);
	g_hash_table_destroy(core->dps_ids);
	g_hash_table_destroy(core->dps_creates);
	free(core);
}

/*
 * Finish: process list
 */
struct proc_acc {
	int64_t key;
	bool pid_known;
	size_t main; /* thread index giving the name */
	size_t n_threads;
	uint64_t cpu_ns, begin, end;
};

static uint64_t thread_cpu_ns(const struct athread *t)
{
	return t->has_runtime ? t->runtime_ns : t->cpu_ns;
}

static uint64_t thread_end(const struct analyzer_core *core, const struct athread *t)
{
	if (t->exited) {
		return t->end_ts > t->exit_ts ? t->end_ts : t->exit_ts;
	}
	return core->has_sched ? core->end_ts : t->last_ts;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct analyzer_process *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns) {
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	}
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int build_process_list(struct analyzer_core *core, struct analyzer_result *res)
{
	GHashTable *by_key = g_hash_table_new(g_direct_hash, g_direct_equal);
	struct proc_acc *acc = NULL;
	size_t n = 0;
	int status = DPS_ERR_NOMEM;

	acc = calloc(core->n_th ? core->n_th : 1, sizeof(*acc));
	if (!acc) {
		goto end;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = T(core, i);
		int64_t key = t->pid >= 0 ? t->pid : t->tid;
		gpointer v = g_hash_table_lookup(by_key, GINT_TO_POINTER((gint)key));
		struct proc_acc *a;
		uint64_t end = thread_end(core, t);

		if (t->tid < 0 && t->pid < 0) {
			key = -1;
		}
		if (v) {
			a = &acc[GPOINTER_TO_SIZE(v) - 1];
		} else {
			a = &acc[n++];
			a->key = key;
			a->pid_known = t->pid >= 0;
			a->main = i;
			a->begin = t->first_ts;
			a->end = end;
			g_hash_table_insert(by_key, GINT_TO_POINTER((gint)key),
					    GSIZE_TO_POINTER(n));
		}
		a->n_threads++;
		a->cpu_ns += thread_cpu_ns(t);
		if (t->tid == key) {
			a->main = i;
		}
		if (t->first_ts < a->begin) {
			a->begin = t->first_ts;
		}
		if (end > a->end) {
			a->end = end;
		}
	}
	res->procs = calloc(n ? n : 1, sizeof(*res->procs));
	if (!res->procs) {
		goto end;
	}
	for (size_t i = 0; i < n; i++) {
		struct analyzer_process *p = &res->procs[i];

		p->pid = acc[i].key;
		p->pid_known = acc[i].pid_known;
		p->comm = strdup(T(core, acc[i].main)->comm);
		p->n_threads = acc[i].n_threads;
		p->cpu_ns = acc[i].cpu_ns;
		p->begin_ns = acc[i].begin;
		p->end_ns = acc[i].end;
		res->n_procs++;
		if (!p->comm) {
			goto end;
		}
	}
	qsort(res->procs, res->n_procs, sizeof(*res->procs), cmp_proc);
	status = DPS_OK;
end:
	free(acc);
	g_hash_table_destroy(by_key);
	return status;
}

static void list_candidates(struct analyzer_core *core, struct analyzer_result *tmp,
			    const char *what, struct dps_diag *diag)
{
	size_t len;

	dps_diag_setf(diag, "%s; processes in the trace (pid comm threads cpu-ms):", what);
	if (build_process_list(core, tmp)) {
		return;
	}
	for (size_t i = 0; i < tmp->n_procs && i < 20; i++) {
		const struct analyzer_process *p = &tmp->procs[i];

		len = strlen(diag->msg);
		snprintf(diag->msg + len, sizeof(diag->msg) - len, " %s%" PRId64 " %s %zu %.1f;",
			 p->pid_known ? "" : "~", p->pid, p->comm, p->n_threads, p->cpu_ns / 1e6);
	}
	if (tmp->n_procs > 20) {
		len = strlen(diag->msg);
		snprintf(diag->msg + len, sizeof(diag->msg) - len, " ... (%zu in all)",
			 tmp->n_procs);
	}
}

/*
 * Finish: the selection's threads
 */
static void close_timelines(struct analyzer_core *core)
{
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = T(core, i);
		uint64_t end = core->has_sched ? core->end_ts : t->last_ts;

		if (t->state == TS_DEAD || t->state == TS_UNKNOWN) {
			continue;
		}
		if (t->exited && t->exit_ts > t->since) {
			end = t->exit_ts;
		}
		set_state(core, i, TS_UNKNOWN, end, ANALYZER_SEG_SLEEP, NO_T);
		t->end_ts = end;
	}
}

static int64_t proc_of(const struct athread *t)
{
	return t->pid >= 0 ? t->pid : t->tid;
}

/* Is t a new process relative to its creator (fork+exec child) rather than a thread? */
static bool is_child_process(const struct analyzer_core *core, const struct athread *t)
{
	const struct athread *p;

	if (t->creator == NO_T) {
		return false;
	}
	p = core->th[t->creator];
	if (t->pid >= 0 && t->pid == t->tid) {
		return true;
	}
	return t->pid >= 0 && p->pid >= 0 && t->pid != p->pid;
}

static bool is_kept_creator(const struct analyzer_core *core, const struct athread *t)
{
	return t->creator != NO_T && core->th[t->creator]->kept;
}

struct join_ins {
	uint64_t ts;
	size_t child;
};

static int cmp_join_ins(const void *a, const void *b)
{
	const struct join_ins *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Inserts zero-length JOIN segments (a join that did not block: the child had ended) at the
 * given instants, splitting a run that spans one. */
static int insert_joins(struct athread *p, struct join_ins *ins, size_t n_ins)
{
	struct analyzer_segment *out;
	size_t n_out = 0, j = 0;

	qsort(ins, n_ins, sizeof(*ins), cmp_join_ins);
	out = malloc((p->n_segs + 2 * n_ins + 1) * sizeof(*out));
	if (!out) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < p->n_segs; i++) {
		struct analyzer_segment s = p->segs[i];

		while (j < n_ins && ins[j].ts <= s.begin_ns) {
			out[n_out++] = (struct analyzer_segment){
			    ins[j].ts < s.begin_ns ? s.begin_ns : ins[j].ts, 0, ANALYZER_SEG_JOIN,
			    (uint32_t)ins[j].child};
			out[n_out - 1].end_ns = out[n_out - 1].begin_ns;
			j++;
		}
		while (j < n_ins && s.kind == ANALYZER_SEG_RUN && ins[j].ts < s.end_ns) {
			struct analyzer_segment head = s;

			head.end_ns = ins[j].ts;
			if (head.end_ns > head.begin_ns) {
				out[n_out++] = head;
			}
			out[n_out++] = (struct analyzer_segment){
			    ins[j].ts, ins[j].ts, ANALYZER_SEG_JOIN, (uint32_t)ins[j].child};
			s.begin_ns = ins[j].ts;
			j++;
		}
		out[n_out++] = s;
	}
	for (; j < n_ins; j++) {
		uint64_t ts = p->n_segs ? p->segs[p->n_segs - 1].end_ns : ins[j].ts;

		if (ins[j].ts > ts) {
			ts = ins[j].ts;
		}
		out[n_out++] =
		    (struct analyzer_segment){ts, ts, ANALYZER_SEG_JOIN, (uint32_t)ins[j].child};
	}
	free(p->segs);
	p->segs = out;
	p->n_segs = n_out;
	p->cap_segs = p->n_segs + 2 * n_ins + 1;
	return DPS_OK;
}

static int cmp_join_parent(const void *a, const void *b, void *arg)
{
	const struct analyzer_core *core = arg;
	const struct join_ins *x = a, *y = b;
	size_t px = core->th[x->child]->creator, py = core->th[y->child]->creator;

	if (px != py) {
		return px < py ? -1 : 1;
	}
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* A child that exited and was never joined while its creator lived on is joined by the
 * creator at the child's exit: the replay must not let the creator end first. */
static int add_implicit_joins(struct analyzer_core *core)
{
	struct join_ins *all = NULL;
	size_t n = 0;
	int status = DPS_ERR_NOMEM;

	all = malloc((core->n_th ? core->n_th : 1) * sizeof(*all));
	if (!all) {
		goto end;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *c = T(core, i);
		struct athread *p;

		if (!c->kept || !c->exited || c->joined || !is_kept_creator(core, c) ||
		    !c->created) {
			continue;
		}
		p = T(core, c->creator);
		if (thread_end(core, p) < c->exit_ts || (p->exited && p->exit_ts < c->exit_ts)) {
			continue;
		}
		all[n++] = (struct join_ins){c->exit_ts, i};
	}
	qsort_r(all, n, sizeof(*all), cmp_join_parent, core);
	status = DPS_OK;
	for (size_t i = 0; i < n && !status;) {
		size_t parent = T(core, all[i].child)->creator;
		size_t j = i;

		while (j < n && T(core, all[j].child)->creator == parent) {
			j++;
		}
		status = insert_joins(T(core, parent), &all[i], j - i);
		for (size_t k = i; k < j && !status; k++) {
			T(core, all[k].child)->joined = true;
			add_mark(core, T(core, parent), all[k].ts, ANALYZER_MARK_JOIN,
				 all[k].child);
		}
		i = j;
	}
end:
	free(all);
	return status ? status : core->status;
}

/* Order of the result: root first, then by start, then tid. */
static int cmp_kept(const void *a, const void *b, void *arg)
{
	const struct analyzer_core *core = arg;
	const struct athread *x = core->th[*(const size_t *)a];
	const struct athread *y = core->th[*(const size_t *)b];
	uint64_t xs = x->created ? x->create_ts : x->first_ts;
	uint64_t ys = y->created ? y->create_ts : y->first_ts;

	if (xs != ys) {
		return xs < ys ? -1 : 1;
	}
	if (x->tid != y->tid) {
		return x->tid < y->tid ? -1 : 1;
	}
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* The action-set id: the tid; a reused tid's later threads tid + n x 10^9; the pseudo-thread
 * of a UST trace without vtid (tid unknown) 900 x 10^9 + pid, apart from every real tid. */
static uint64_t thread_id(const struct athread *t)
{
	uint64_t base = t->tid > 0
			    ? (uint64_t)t->tid
			    : 900 * ANALYZER_TID_REUSE_STRIDE + (t->pid > 0 ? (uint64_t)t->pid : 0);

	return base + (uint64_t)t->gen * ANALYZER_TID_REUSE_STRIDE;
}

/* Selects the threads to keep and picks the root. Returns DPS_OK, or DPS_ERR_INVAL with the
 * candidates in diag. */
static int select_threads(struct analyzer_core *core, size_t *root_out, struct dps_diag *diag)
{
	struct analyzer_result tmp = {0};
	size_t root = NO_T;
	size_t n_roots = 0;
	char procs[256] = "";
	int status = DPS_OK;

	/* Keep the tracked threads; without --follow-children, drop child processes and
	 * everything below them. Creators come before their children in index order. */
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = T(core, i);

		if (!t->tracked) {
			continue;
		}
		t->kept = true;
		if (t->creator != NO_T && T(core, t->creator)->tracked &&
		    !T(core, t->creator)->kept) {
			t->kept = false;
		}
		if (t->kept && !core->opts.follow_children && is_kept_creator(core, t) &&
		    is_child_process(core, t) && !t->matched) {
			t->kept = false;
		}
	}
	/* Roots: kept threads without a kept creator. Several threads of one process (alive
	 * before the trace) attach to its main thread; processes with a kept parent process
	 * (state dump ppid) attach to it. */
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < core->n_th; i++) {
			struct athread *t = T(core, i);

			if (!t->kept || is_kept_creator(core, t)) {
				continue;
			}
			if (pass == 0 && t->tid == proc_of(t)) {
				if (root == NO_T || cmp_kept(&i, &root, core) < 0) {
					root = i;
				}
			} else if (pass == 1 && root == NO_T) {
				root = i;
			}
		}
	}
	/* lttng-ust's listener threads ("<name>-ust") are the tracer's, not the program's: a
	 * replay linked with lttng-ust gets its own. */
	for (size_t i = 0; i < core->n_th && root != NO_T && !core->opts.keep_tracer_threads; i++) {
		struct athread *t = T(core, i);
		size_t len = strlen(t->comm);

		if (t->kept && i != root && t->tid != core->opts.tid && len > 4 &&
		    !strcmp(t->comm + len - 4, "-ust")) {
			t->kept = false;
		}
	}
	/* A simulated run (its root played actions): only the threads that played actions are
	 * the simulation; the others (lttng-ust's, a start-up calibration's probes) are the
	 * stub's own and would shift the creation ranks compare matches on. */
	for (size_t i = 0; i < core->n_th && root != NO_T && T(core, root)->dps_begun; i++) {
		struct athread *t = T(core, i);

		if (t->kept && !t->dps_begun && proc_of(t) == proc_of(T(core, root))) {
			t->kept = false;
		}
	}
	for (size_t i = 0; i < core->n_th && root != NO_T; i++) {
		struct athread *t = T(core, i);

		if (t->kept && t->creator != NO_T && T(core, t->creator)->tracked &&
		    !T(core, t->creator)->kept) {
			t->kept = false;
		}
	}
	if (root == NO_T) {
		list_candidates(core, &tmp,
				core->opts.pid >= 0 || core->opts.tid >= 0 || core->opts.comm
				    ? "the selection matches no thread"
				    : "no selection (--pid, --tid or --comm)",
				diag);
		status = DPS_ERR_INVAL;
		goto end;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = T(core, i);
		size_t len;

		if (!t->kept || is_kept_creator(core, t) || i == root) {
			continue;
		}
		if (proc_of(t) == proc_of(T(core, root)) ||
		    (core->opts.follow_children && t->ppid >= 0 &&
		     t->ppid == proc_of(T(core, root)))) {
			t->creator = root;
			t->attached = true;
			continue;
		}
		n_roots++;
		len = strlen(procs);
		if (len < sizeof(procs) - 40) {
			snprintf(procs + len, sizeof(procs) - len, " %" PRId64 " (%s)", proc_of(t),
				 t->comm);
		}
	}
	if (n_roots) {
		dps_diag_setf(diag,
			      "the selection matches %zu processes: %" PRId64 " (%s)%s; expected "
			      "one: narrow it with --pid or --tid",
			      n_roots + 1, proc_of(T(core, root)), T(core, root)->comm, procs);
		status = DPS_ERR_INVAL;
		goto end;
	}
	*root_out = root;
end:
	for (size_t i = 0; i < tmp.n_procs; i++) {
		free(tmp.procs[i].comm);
	}
	free(tmp.procs);
	return status;
}

/* Builds one thread's actions from its segments, marks and memory samples. */
struct act_builder {
	struct analyzer_core *core;
	const struct analyzer_result *res;
	struct dps_actset *set;
	size_t t;	      /* index in the set */
	uint64_t pending_run; /* ns */
	double run_scale;
	int64_t heap, stack;
	int status;
};

static void append(struct act_builder *b, enum dps_action_kind kind, int64_t arg)
{
	if (!b->status && b->set) {
		b->status = dps_actset_append(b->set, b->t, kind, arg, 0);
	}
}

static void flush_run(struct act_builder *b, struct analyzer_thread_stats *st)
{
	if (b->pending_run) {
		append(b, DPS_ACT_RUN, (int64_t)b->pending_run);
		st->n_runs++;
		b->pending_run = 0;
	}
}

static void emit(struct act_builder *b, enum dps_action_kind kind, int64_t arg,
		 struct analyzer_thread_stats *st)
{
	flush_run(b, st);
	append(b, kind, arg);
	switch (kind) {
	case DPS_ACT_SLEEP:
		st->n_sleeps++;
		break;
	case DPS_ACT_WAIT:
		st->n_waits++;
		break;
	case DPS_ACT_WAKE:
		st->n_wakes++;
		break;
	case DPS_ACT_CREATE:
		st->n_creates++;
		break;
	case DPS_ACT_JOIN:
		st->n_joins++;
		break;
	default:
		break;
	}
}

static void emit_point(struct act_builder *b, const struct analyzer_thread *rt, size_t *mi,
		       size_t *si, uint64_t upto, bool inclusive, struct analyzer_thread_stats *st)
{
	/* Marks and memory samples up to `upto`, in time order. */
	for (;;) {
		bool have_m = *mi < rt->n_marks && (inclusive ? rt->marks[*mi].ts_ns <= upto
							      : rt->marks[*mi].ts_ns < upto);
		bool have_s = *si < rt->n_mem &&
			      (inclusive ? rt->mem[*si].ts_ns <= upto : rt->mem[*si].ts_ns < upto);

		if (!have_m && !have_s) {
			return;
		}
		if (have_m && (!have_s || rt->marks[*mi].ts_ns <= rt->mem[*si].ts_ns)) {
			const struct analyzer_mark *m = &rt->marks[(*mi)++];

			if (m->kind == ANALYZER_MARK_CREATE) {
				emit(b, DPS_ACT_CREATE, (int64_t)b->res->threads[m->other].id, st);
			} else if (m->kind == ANALYZER_MARK_WAKE) {
				emit(b, DPS_ACT_WAKE, (int64_t)b->res->threads[m->other].id, st);
			}
		} else {
			const struct analyzer_mem_sample *s = &rt->mem[(*si)++];

			if (s->heap_bytes != b->heap) {
				emit(b, DPS_ACT_HEAP, s->heap_bytes - b->heap, st);
				b->heap = s->heap_bytes;
			}
			if (s->stack_bytes != b->stack) {
				emit(b, DPS_ACT_STACK, s->stack_bytes - b->stack, st);
				b->stack = s->stack_bytes;
			}
		}
	}
}

/* rt's marks/segments already hold result indexes; create/wake/join args are set ids. */
static int build_actions(struct analyzer_core *core, struct analyzer_result *res, size_t ri,
			 struct dps_actset *set, uint64_t min_block)
{
	struct analyzer_thread *rt = &res->threads[ri];
	struct analyzer_thread_stats *st = &rt->stats;
	struct act_builder b = {.core = core, .res = res, .set = set, .t = ri, .run_scale = 1.0};
	size_t mi = 0, si = 0;
	uint64_t run_sum = 0, cur;

	for (size_t i = 0; i < rt->n_segs; i++) {
		if (rt->segs[i].kind == ANALYZER_SEG_RUN) {
			run_sum += rt->segs[i].end_ns - rt->segs[i].begin_ns;
		}
	}
	if (st->busy_exact && run_sum) {
		b.run_scale = (double)st->busy_ns / (double)run_sum;
		/* A thread selected late (its name matched after exec) has CPU time from before
		 * its timeline: do not stretch its runs by that. */
		if (b.run_scale > 2.0 || b.run_scale < 0.5) {
			b.run_scale = 1.0;
		}
	}
	/* Marks are stored with result indexes; actions name set ids. */
	for (size_t i = 0; i < rt->n_segs && !b.status; i++) {
		const struct analyzer_segment *s = &rt->segs[i];
		uint64_t dur = s->end_ns - s->begin_ns;

		emit_point(&b, rt, &mi, &si, s->begin_ns, s->kind != ANALYZER_SEG_RUN, st);
		switch (s->kind) {
		case ANALYZER_SEG_RUN:
			cur = s->begin_ns;
			while (!b.status) {
				uint64_t next = s->end_ns;

				if (mi < rt->n_marks && rt->marks[mi].ts_ns < next) {
					next = rt->marks[mi].ts_ns;
				}
				if (si < rt->n_mem && rt->mem[si].ts_ns < next) {
					next = rt->mem[si].ts_ns;
				}
				if (next < cur) {
					next = cur;
				}
				b.pending_run +=
				    (uint64_t)((double)(next - cur) * b.run_scale + 0.5);
				cur = next;
				if (next >= s->end_ns) {
					break;
				}
				emit_point(&b, rt, &mi, &si, next, true, st);
			}
			break;
		case ANALYZER_SEG_SLEEP:
			if (dur < min_block) {
				b.pending_run += dur;
				st->n_folded++;
			} else {
				emit(&b, DPS_ACT_SLEEP, (int64_t)dur, st);
			}
			break;
		case ANALYZER_SEG_WAIT:
			emit(&b, DPS_ACT_WAIT, (int64_t)res->threads[s->other].id, st);
			break;
		case ANALYZER_SEG_JOIN:
			emit(&b, DPS_ACT_JOIN, (int64_t)res->threads[s->other].id, st);
			break;
		default:
			break;
		}
	}
	emit_point(&b, rt, &mi, &si, UINT64_MAX, true, st);
	flush_run(&b, st);
	return b.status;
}

/*
 * Keeps only the replay of a simulated run's thread: segments and marks are cut to
 * [dps:thread_begin, dps:thread_end], and the thread starts and ends there.
 */
static void clip_to_window(struct athread *t, struct analyzer_thread *rt)
{
	uint64_t b = t->dps_begin_ts;
	uint64_t e = t->dps_ended ? t->dps_end_ts : rt->end_ns;
	size_t n = 0;

	if (e < b) {
		e = b;
	}
	for (size_t i = 0; i < t->n_segs; i++) {
		struct analyzer_segment sg = t->segs[i];

		if (sg.end_ns <= b || sg.begin_ns >= e) {
			continue;
		}
		sg.begin_ns = sg.begin_ns < b ? b : sg.begin_ns;
		sg.end_ns = sg.end_ns > e ? e : sg.end_ns;
		t->segs[n++] = sg;
	}
	t->n_segs = n;
	for (size_t i = 0; i < t->n_marks; i++) {
		struct analyzer_mark *m = &t->marks[i];

		m->ts_ns = m->ts_ns < b ? b : m->ts_ns > e ? e : m->ts_ns;
	}
	rt->start_ns = b;
	rt->end_ns = e;
}

static int copy_thread(struct analyzer_core *core, size_t ci, struct analyzer_thread *rt)
{
	struct athread *t = T(core, ci);
	struct analyzer_thread_stats *st = &rt->stats;
	size_t n = 0;

	rt->id = thread_id(t);
	rt->tid = t->tid > 0 ? t->tid : -1;
	rt->pid = t->pid;
	rt->comm = strdup(t->comm);
	rt->pre_existing = !t->created;
	rt->start_ns = t->created ? t->create_ts : t->first_ts;
	rt->end_ns = thread_end(core, t);
	if (!rt->comm) {
		return DPS_ERR_NOMEM;
	}
	if (t->dps_begun) {
		clip_to_window(t, rt);
	}
	/* Segments: remap `other`, drop references to threads not kept. */
	rt->segs = t->segs;
	rt->n_segs = t->n_segs;
	rt->cap_segs = t->cap_segs;
	t->segs = NULL;
	t->n_segs = t->cap_segs = 0;
	for (size_t i = 0; i < rt->n_segs; i++) {
		struct analyzer_segment *s = &rt->segs[i];
		uint64_t d = s->end_ns - s->begin_ns;

		if (s->kind == ANALYZER_SEG_WAIT || s->kind == ANALYZER_SEG_JOIN) {
			struct athread *o = T(core, s->other);

			if (!o->kept || o == t ||
			    (s->kind == ANALYZER_SEG_JOIN && o->res_idx == 0)) {
				/* Not selected, or the root (never created, so never joined: the
				 * process exiting woke its other threads). */
				s->kind = ANALYZER_SEG_SLEEP;
				s->other = 0;
			} else {
				s->other = (uint32_t)o->res_idx;
			}
		}
		switch (s->kind) {
		case ANALYZER_SEG_RUN:
			st->busy_ns += d;
			break;
		case ANALYZER_SEG_PREEMPTED:
			st->waiting_ns += d;
			break;
		default:
			st->blocked_ns += d;
			break;
		}
	}
	if (t->has_runtime && core->has_sched) {
		st->busy_ns = t->runtime_ns;
		if (t->dps_begun) {
			st->busy_ns = (t->dps_ended ? t->runtime_at_end : t->runtime_ns) -
				      t->runtime_at_begin;
		}
		st->busy_exact = true;
	}
	st->n_switches = t->n_switches;
	st->n_inferred = t->n_inferred;
	st->n_allocs = t->n_allocs;
	st->n_frees = t->n_frees;
	st->n_free_null = t->n_free_null;
	st->n_free_unknown = t->n_free_unknown;
	st->heap_peak_bytes = t->heap_peak;
	st->stack_peak_bytes = t->stack_peak;
	/* Marks (stable: a create and a wake at the same instant keep their order) */
	if (t->marks_unsorted) {
		g_qsort_with_data(t->marks, (gint)t->n_marks, sizeof(*t->marks), cmp_mark, NULL);
	}
	rt->marks = malloc((t->n_marks ? t->n_marks : 1) * sizeof(*rt->marks));
	if (!rt->marks) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < t->n_marks; i++) {
		struct analyzer_mark m = t->marks[i];

		if (m.kind == MARK_DELETED) {
			continue;
		}
		if (m.kind != ANALYZER_MARK_EXIT) {
			struct athread *o = T(core, m.other);

			if (!o->kept || o == t ||
			    (m.kind == ANALYZER_MARK_JOIN && o->res_idx == 0)) {
				continue;
			}
			m.other = (uint32_t)o->res_idx;
		}
		rt->marks[n++] = m;
	}
	rt->n_marks = n;
	rt->cap_marks = t->n_marks ? t->n_marks : 1;
	rt->mem = t->mem;
	rt->n_mem = t->n_mem;
	rt->cap_mem = t->cap_mem;
	t->mem = NULL;
	t->n_mem = t->cap_mem = 0;
	return DPS_OK;
}

static char *format_options(const struct analyzer_options *o, uint64_t min_block)
{
	char buf[512];
	char mb[32];
	size_t len = 0;

	buf[0] = '\0';
	if (o->pid >= 0) {
		len += snprintf(buf + len, sizeof(buf) - len, "--pid %" PRId64 " ", o->pid);
	}
	if (o->tid >= 0 && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--tid %" PRId64 " ", o->tid);
	}
	if (o->comm && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--comm %s ", o->comm);
	}
	if (o->follow_children && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--follow-children ");
	}
	if (len < sizeof(buf)) {
		snprintf(buf + len, sizeof(buf) - len, "--min-block %sus",
			 dps_actset_format_us(min_block, mb, sizeof(mb)));
	}
	return strdup(buf);
}

static int build_actset(struct analyzer_core *core, struct analyzer_result *res, uint64_t min_block,
			struct dps_diag *diag)
{
	struct dps_actset *set = dps_actset_create();
	int status = DPS_ERR_NOMEM;

	if (!set) {
		goto error;
	}
	for (size_t i = 0; i < res->n_threads; i++) {
		const struct analyzer_thread *rt = &res->threads[i];
		size_t t = dps_actset_add_thread(set, rt->id);
		struct dps_actset_thread *at;

		if (t == DPS_ACTSET_NO_THREAD) {
			goto error;
		}
		at = &set->threads[t];
		at->tid = rt->tid;
		at->pid = rt->pid;
		at->pre_existing = rt->pre_existing && i != res->root;
		at->start_offset_ns = rt->start_ns > res->threads[res->root].start_ns
					  ? rt->start_ns - res->threads[res->root].start_ns
					  : 0;
		if (rt->comm && rt->comm[0] && dps_actset_set_str(&at->comm, rt->comm)) {
			goto error;
		}
	}
	for (size_t i = 0; i < res->n_threads; i++) {
		status = build_actions(core, res, i, set, min_block);
		if (status) {
			goto error;
		}
	}
	status = DPS_ERR_NOMEM;
	set->format_version = DPS_ACTSET_FORMAT_VERSION;
	set->options = format_options(&core->opts, min_block);
	if (!set->options || dps_actset_set_str(&set->source_trace, res->source)) {
		goto error;
	}
	set->partial = res->partial;
	if (res->partial && dps_actset_set_str(&set->partial_reason, res->partial_reason)) {
		goto error;
	}
	status = dps_actset_resolve(set, diag);
	if (status) {
		/* An analyzer bug, not bad input: say so. */
		char msg[DPS_DIAG_MSG_LEN];

		snprintf(msg, sizeof(msg), "%.900s", diag ? diag->msg : "");
		dps_diag_setf(diag, "internal error, the action set built is invalid: %s", msg);
		status = DPS_ERROR;
		goto error;
	}
	res->actset = set;
	return DPS_OK;
error:
	if (status == DPS_ERR_NOMEM) {
		dps_diag_setf(diag, "out of memory building the action set");
	}
	dps_actset_destroy(set);
	return status;
}

/* The root's pre-existing companions (attached by select_threads) are created by the root at
 * its first instant; a thread that appears later than its creation sleeps until then. */
static void add_pre_existing_creates(struct analyzer_core *core, size_t root)
{
	struct athread *r = T(core, root);
	uint64_t r_start = r->created ? r->create_ts : r->first_ts;

	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = T(core, i);
		uint64_t at;

		if (!t->kept || i == root || !t->attached) {
			continue;
		}
		/* A thread whose creator is not selected (a reused tid, a fork the trace missed
		 * the creator of) is created by the root when it appeared. */
		at = t->created ? t->create_ts : r_start;
		if (at < r_start) {
			at = r_start;
		}
		add_mark(core, r, at, ANALYZER_MARK_CREATE, i);
		if (!t->created && t->first_ts > at) {
			/* Unknown before its first event: keep its timing with a sleep. */
			if (grow((void **)&t->segs, &t->cap_segs, t->n_segs + 1,
				 sizeof(*t->segs))) {
				memmove(&t->segs[1], &t->segs[0], t->n_segs * sizeof(*t->segs));
				t->segs[0] = (struct analyzer_segment){at, t->first_ts,
								       ANALYZER_SEG_SLEEP, 0};
				t->n_segs++;
			} else {
				set_nomem(core);
			}
		}
		t->create_ts = at;
	}
}

/* Every kept thread with a kept creator is created exactly once by it: add the create a late
 * tracking missed, drop duplicates. */
static int ensure_create_marks(struct analyzer_core *core)
{
	uint8_t *seen = calloc(core->n_th ? core->n_th : 1, 1);

	if (!seen) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *p = T(core, i);

		if (!p->kept) {
			continue;
		}
		for (size_t m = 0; m < p->n_marks; m++) {
			struct analyzer_mark *mk = &p->marks[m];

			if (mk->kind != ANALYZER_MARK_CREATE) {
				continue;
			}
			if (seen[mk->other] || T(core, mk->other)->creator != i) {
				mk->kind = MARK_DELETED;
			} else {
				seen[mk->other] = 1;
			}
		}
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = T(core, i);

		if (t->kept && !seen[i] && is_kept_creator(core, t)) {
			struct athread *p = T(core, t->creator);
			uint64_t at = t->created ? t->create_ts : p->first_ts;

			add_mark(core, p, at, ANALYZER_MARK_CREATE, i);
		}
	}
	free(seen);
	return core->status;
}

static void fill_partial(struct analyzer_core *core, struct analyzer_result *res)
{
	char buf[256];

	res->n_discarded = core->n_discarded;
	if (!core->partial) {
		return;
	}
	res->partial = true;
	if (core->n_discarded_packets) {
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " events and %" PRIu64 " packets discarded between "
			 "%.6f s and %.6f s",
			 core->n_discarded, core->n_discarded_packets, core->disc_begin / 1e9,
			 core->disc_end / 1e9);
	} else {
		snprintf(buf, sizeof(buf), "%" PRIu64 " events discarded between %.6f s and %.6f s",
			 core->n_discarded, core->disc_begin / 1e9, core->disc_end / 1e9);
	}
	free(res->partial_reason);
	res->partial_reason = strdup(buf);
}

int analyzer_core_finish(struct analyzer_core *core, bool list_only, struct analyzer_result *res,
			 struct dps_diag *diag)
{
	size_t root = NO_T;
	size_t *order = NULL;
	size_t n_kept = 0;
	uint64_t min_block;
	int status;

	if (core->status) {
		dps_diag_setf(diag, "out of memory while analyzing");
		return core->status;
	}
	res->begin_ns = core->begin_ts;
	res->end_ns = core->end_ts;
	res->n_events = core->n_events;
	fill_partial(core, res);
	close_timelines(core);
	if (list_only) {
		status = build_process_list(core, res);
		if (status) {
			dps_diag_setf(diag, "out of memory listing processes");
		}
		return status;
	}
	status = select_threads(core, &root, diag);
	if (status) {
		return status;
	}
	add_pre_existing_creates(core, root);
	status = ensure_create_marks(core);
	status = status ? status : add_implicit_joins(core);
	if (status) {
		goto nomem;
	}
	order = malloc(core->n_th * sizeof(*order));
	if (!order) {
		goto nomem;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		if (T(core, i)->kept) {
			order[n_kept++] = i;
		}
	}
	qsort_r(order, n_kept, sizeof(*order), cmp_kept, core);
	/* Root first. */
	for (size_t i = 0; i < n_kept; i++) {
		if (order[i] == root) {
			memmove(&order[1], &order[0], i * sizeof(*order));
			order[0] = root;
			break;
		}
	}
	res->threads = calloc(n_kept ? n_kept : 1, sizeof(*res->threads));
	if (!res->threads) {
		goto nomem;
	}
	res->cap_threads = n_kept;
	res->root = 0;
	for (size_t i = 0; i < n_kept; i++) {
		T(core, order[i])->res_idx = i;
	}
	for (size_t i = 0; i < n_kept; i++) {
		res->n_threads++;
		status = copy_thread(core, order[i], &res->threads[i]);
		if (status) {
			goto nomem;
		}
	}
	/* Parents and creation ranks from the create marks. */
	for (size_t i = 0; i < n_kept; i++) {
		res->threads[i].parent = ANALYZER_NO_THREAD;
	}
	for (size_t i = 0; i < n_kept; i++) {
		struct analyzer_thread *rt = &res->threads[i];
		size_t rank = 0;

		for (size_t m = 0; m < rt->n_marks; m++) {
			if (rt->marks[m].kind == ANALYZER_MARK_CREATE) {
				res->threads[rt->marks[m].other].parent = i;
				res->threads[rt->marks[m].other].create_rank = rank++;
			}
		}
	}
	min_block = core->opts.min_block_ns >= 0 ? (uint64_t)core->opts.min_block_ns
						 : ANALYZER_DEFAULT_MIN_BLOCK_NS;
	if (core->opts.build_actset) {
		status = build_actset(core, res, min_block, diag);
		if (status) {
			goto end;
		}
	} else {
		/* Counts only. */
		for (size_t i = 0; i < res->n_threads && !status; i++) {
			status = build_actions(core, res, i, NULL, min_block);
		}
		if (status) {
			goto end;
		}
	}
	status = DPS_OK;
	goto end;
nomem:
	dps_diag_setf(diag, "out of memory building the result");
	status = DPS_ERR_NOMEM;
end:
	free(order);
	return status;
}
