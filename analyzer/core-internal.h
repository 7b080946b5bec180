/* SPDX-License-Identifier: MIT */
/*
 * What the analyzer core's files share (not part of the analyzer's API): the thread and CPU
 * state, the core itself, and the functions one concern calls in another. Each group of
 * declarations below is defined in the file it names.
 *
 * The calls among the files that keep the threads point one way, from the top down: sched.c
 * (the scheduler's events) -> joins.c -> select.c (the selection) -> threads.c (the thread
 * table) -> spill.c (the spill store); readback.c (the timelines read back at the end) sits
 * above joins.c. A lower file never calls a higher one: a thread table that finds, stores or
 * retires a thread leaves the selection and the state to its caller. scripts/check-tree.sh
 * checks it.
 */
#ifndef DPS_ANALYZER_CORE_INTERNAL_H
#define DPS_ANALYZER_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * One thread of the trace. Its members are grouped by the concern that owns them: identity and
 * lifetime (threads.c, select.c, sched.c), scheduler state (sched.c), memory (memory.c), the
 * detailed timeline of a tracked thread (threads.c, spill.c; filled by all), and the
 * simulated-run window (dps-events.c).
 */
struct athread_sched {
	uint8_t state;	    /* enum th_state */
	int32_t cpu;	    /* last CPU it was seen on */
	uint64_t since;	    /* start of the current state */
	uint64_t run_since; /* last switch-in */
	bool in_syscall;
	bool has_runtime; /* sched_stat_runtime seen: runtime_ns is exact */
	uint64_t cpu_ns, runtime_ns, n_switches, n_inferred;
	uint64_t runtime_untracked_ns; /* of runtime_ns, reported while not tracked */
	uint64_t last_rt_ts;	       /* last sched_stat_runtime of this thread */
	/* the block that ended last: who woke it and its segment (for the join conversion) */
	size_t block_waker, block_seg;
	/* the last wake this thread gave, for the same */
	size_t wake_target, wake_mark;
	uint64_t wake_ts;
};

struct athread_memory {
	int64_t heap, stack;
	uint64_t sp_base;
	int64_t cyg_depth;
	uint64_t n_allocs, n_frees, n_free_null, n_free_unknown;
	int64_t heap_peak, stack_peak;
};

/* Only while tracked; `other` members hold internal indexes until finish. */
struct athread_timeline {
	struct analyzer_segment *segs; /* owned */
	size_t n_segs, cap_segs;
	struct analyzer_mark *marks; /* owned */
	size_t n_marks, cap_marks;
	bool marks_unsorted; /* analyzer__add_mark appended out of order: sort at the end */
	struct analyzer_mem_sample *mem; /* owned */
	size_t n_mem, cap_mem;
	/* spill.c: the oldest segments, samples and marks, in the core's spill file; segs[0] is
	 * segment segs_spilled of the timeline, mem[0] sample mem_spilled, marks[0] mark
	 * marks_spilled */
	GArray *spill; /* owned: struct spill_chunk, NULL when nothing is spilled */
	size_t segs_spilled, mem_spilled, marks_spilled;
	/* analyzer__add_pre_existing_creates: a sleep [pre_sleep_b, pre_sleep_e] comes first,
	 * put in front of the segments when they are read back (analyzer__prepare_timeline) */
	bool pre_sleep;
	uint64_t pre_sleep_b, pre_sleep_e;
};

/*
 * A simulated run's thread: the span between dps:thread_begin and dps:thread_end is the
 * replay; what comes before (process start, lttng-ust registration, calibration) and after
 * (summary, exit) is the stub's own. runtime_at_* is the sched_stat_runtime sum at those
 * instants, interpolated over the running time not reported yet.
 */
struct athread_sim {
	bool begun, ended;
	uint64_t begin_ts, end_ts;
	uint64_t runtime_at_begin, runtime_at_end;
	/* Between dps:join_begin and dps:join_end with kernel scheduling: the thread joined
	 * (NO_T otherwise), and whether its wake-up was seen. The stub's join blocks on a
	 * condition the child signals when its actions end, before it exits, so the kernel sees
	 * a wake-up by a live thread (a wait); that one is the join (sched.c). */
	size_t join_of;
	bool join_woken;
	/* a `join any` (join_begin names no child): the first member whose actions ended and
	 * that wakes it is join_of */
	bool join_any;
};

/*
 * Joins (joins.c). As a creator: its tracked children not joined yet and the wait4/waitid it is
 * in. As a child: how its creator's recorded join of it came about. A join ended by a wait for
 * any child becomes a `join any` of the children that were alive when the wait blocked.
 */
enum join_call {
	JOIN_CALL_NONE = 0, /* not in a wait call (or the trace has none) */
	JOIN_CALL_ONE,	    /* wait4/waitid for one given child */
	JOIN_CALL_ANY,	    /* for any child (pid -1, 0, < -1; P_ALL, P_PGID) */
};

enum join_how {
	JOIN_HOW_NONE = 0, /* no recorded join (an implicit one, or none) */
	JOIN_HOW_ONE,	   /* a plain join: one child waited for, or no wait call */
	JOIN_HOW_ANY,	   /* inside a wait for any child: set_first, set_n */
	JOIN_HOW_PENDING,  /* its creator was in no wait call: its next one says */
};

struct athread_join {
	GArray *children;	 /* owned, NULL when none: size_t indexes */
	uint8_t call;		 /* enum join_call */
	size_t pending;		 /* the child whose join is JOIN_HOW_PENDING, or NO_T */
	uint8_t how;		 /* enum join_how */
	uint32_t n_recorded;	 /* recorded joins of it (more than one: never a join any) */
	size_t set_first, set_n; /* its siblings alive then, itself included, in core->join_sets */
};

/*
 * The synchronization call a thread is in (sync-probe.c: the probe's begin, until its end)
 * and the futex syscall it is in (futex.c: the entry, until the exit).
 */
struct athread_calls {
	uint32_t op; /* enum analyzer_sync_op, SYNC_OP_NONE when in none */
	uint64_t obj;
	uint64_t ts;
	int64_t arg;
	bool in_cond; /* between a condition wait's begin and end (the probe's) */
	bool in_futex;
	bool futex_explained; /* the futex call is inside one of the above */
	uint64_t futex_ts;
	uint64_t futex_uaddr;
	int32_t futex_op;
	uint32_t futex_val;
	/* the thread's last futex wait that blocked outside any call, for sync.c: inside
	 * pthread_cond_signal (glibc's signal waits for the old group's waiters to leave), a
	 * condition variable's own */
	uint64_t last_wait_from, last_wait_to, last_wait_uaddr;
};

struct athread {
	/* identity and lifetime */
	int64_t tid, pid, ppid;
	uint32_t gen;
	char comm[32];
	bool created; /* fork seen */
	bool exited;
	bool joined; /* some thread joined it */
	bool pid_from_fork;
	uint64_t first_ts, last_ts, create_ts, exit_ts, end_ts;
	uint64_t exec_ts;	  /* its first exec, 0 when none was seen */
	uint64_t exec_runtime_ns; /* its sched_stat_runtime sum at exec_ts */
	uint64_t sync_ts;	  /* its last synchronization event (sync.c), 0 when none */
	size_t creator;

	/* selection (select.c) */
	bool tracked;  /* detailed timeline recorded */
	bool matched;  /* matches the selection itself (not only as a descendant) */
	bool attached; /* no selected creator: created by the root (finish) */
	bool kept;     /* in the result (finish) */
	size_t res_idx;

	struct athread_sched sched;
	struct athread_memory memory;
	struct athread_timeline tl;
	struct athread_sim sim;
	struct athread_join join;
	struct athread_calls calls;
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
	uint64_t n_uncounted; /* discarded-events messages without a count */
	/* discarded counts that are damage (ANALYZER_EVF_DAMAGED): how many, and the first's
	 * count, times and stream file (owned, NULL unknown) */
	uint64_t n_damaged, damaged_count, damaged_begin, damaged_end;
	bool damaged_packets;
	char *damaged_stream;
	bool lost;     /* events or packets discarded (not damage) */
	int status;    /* sticky: DPS_ERR_NOMEM, or DPS_ERR_IO (err says what) */
	char err[256]; /* the message of a DPS_ERR_IO status */
	/* spill.c: the spill file (-1 until the first spill), its size, when a thread's arrays
	 * spill and how many records stay in memory; spill_on when the result keeps no timelines */
	int spill_fd;
	uint64_t spill_off;
	size_t spill_at, spill_keep;
	bool spill_on;
	/* joins.c: the implicit joins found at the end, by creator then time, inserted into each
	 * creator's segments when its timeline is read back */
	struct analyzer_join_ins *joins; /* owned */
	size_t n_joins;
	/* joins.c: the sets of the joins inside a wait for any child (thread indexes, each
	 * child's set_first/set_n), and once the set is made, each result thread's join any
	 * (by result index; NULL when there is none) */
	GArray *join_sets;		    /* owned: size_t, NULL until the first */
	struct analyzer_join_any *join_any; /* owned */
	/* select.c: per thread, a create mark of it was kept (analyzer__dedup_creates) */
	uint8_t *create_kept; /* owned, n_th bytes, made at the end */
	/* sync.c: the synchronization objects and each thread's points on them (NULL until
	 * the first such event) */
	GHashTable *sync_objs;	 /* (pid, address) -> index + 1 in sync_list */
	GPtrArray *sync_list;	 /* owned: struct sync_obj */
	GHashTable *sync_points; /* thread index + 1 -> GArray of struct analyzer_sync_point */
	unsigned sync_suspects;	 /* mutexes taken while another thread held them (sync.c) */
	bool sync_cond_seen;	 /* the condition-variable probe's events are in the trace */
	bool sync_annotated;	 /* an annotated queue's events are in the trace */
	/* futex.c: the futex calls of tracked threads (struct futex_call, until the words are
	 * read), then each thread's waits with their word's kind (thread index + 1 -> GArray),
	 * and the words' figures */
	GArray *futex_calls;
	GHashTable *futex_waits;
	bool seen_futex;
	struct analyzer_futex_figures futex_fig;
	/* actions.c: the recorded waits kept, per (waiter, waker, kind) (struct analyzer_pin,
	 * with result indexes) */
	GArray *pins;
	/* sync-probe.c: what the probe saw and could not describe (owned strings, NULL until the
	 * first) */
	GPtrArray *unmodelled;
};

/* A thread's operation on a synchronization object (sync.c), where actions.c puts it. */
struct analyzer_sync_point {
	uint64_t ts_ns;
	uint32_t kind; /* ANALYZER_EV_SYNC_PRODUCE, _CONSUME, _ARRIVE, _LOCK_ACQ, _UNLOCK,
			* _COND_WAIT_BEGIN, _COND_WAIT_END */
	uint32_t obj;  /* index in core->sync_list; a condition wait's: its mutex's, or
			* ANALYZER_SYNC_NO_OBJ when the mutex was never seen locked */
	int64_t arg;   /* condition wait begin: the timeout in ns (-1 untimed); end: the result */
	uint32_t cond; /* a condition wait's or signal's condition variable (an index in
			* core->sync_list, never declared), else ANALYZER_SYNC_NO_OBJ */
	/* a call's point (the probe's, futex.c's): everything the thread did until end_ns is
	 * the call's own (its blocks and the CPU it spun), 0 for an instant */
	uint64_t end_ns;
	uint64_t count; /* a put or take of several items (a pipe's bytes); 0 and 1: one */
	bool shared;	/* a LOCK_ACQ of a rwlock's read side */
	bool probe;	/* the probe's or futex.c's: no release of the mutexes held around it */
};
#define ANALYZER_SYNC_NO_OBJ UINT32_MAX

/* sync.c */
void analyzer__on_sync(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx);
/* Thread ci's points in time order (borrowed), or NULL (ci SIZE_MAX: none). */
const GArray *analyzer__sync_points(struct analyzer_core *core, size_t ci);
/* The set's id of object obj, 0 when analyzer__sync_declare left it out. */
uint64_t analyzer__sync_object_id(struct analyzer_core *core, uint32_t obj);
/* At the trace's end, before any thread's actions: the probe's calls still open closed, the
 * futex words read (futex.c). Returns DPS_OK or the core's status. */
int analyzer__sync_prepare(struct analyzer_core *core, const size_t *order, size_t n);
/* Declares in set the objects a replay of the kept threads (order[0..n)) can honour, and
 * marks the set version 2 when there is any. Returns DPS_OK or DPS_ERR_NOMEM. */
int analyzer__sync_declare(struct analyzer_core *core, const size_t *order, size_t n,
			   struct dps_actset *set);
void analyzer__sync_destroy(struct analyzer_core *core);

/* futex.c */
void analyzer__on_futex(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx);
/* Reads every futex word's protocol (at the end, before the objects are declared): barriers
 * become objects and their threads' points. Returns DPS_OK or the core's status. */
int analyzer__futex_infer(struct analyzer_core *core, const size_t *order, size_t n);
/* The kind of word (enum analyzer_pin_kind) thread ctx slept on from begin_ns to end_ns. */
uint32_t analyzer__futex_kind_at(const struct analyzer_core *core, size_t ctx, uint64_t begin_ns,
				 uint64_t end_ns);
void analyzer__futex_destroy(struct analyzer_core *core);

/* threads.c: the thread table and the timelines' appends */
bool analyzer__grow(void **arr, size_t *cap, size_t need, size_t elem);
void analyzer__set_nomem(struct analyzer_core *core);
size_t analyzer__add_seg(struct analyzer_core *core, struct athread *t, uint64_t b, uint64_t e,
			 uint32_t kind, size_t other);
size_t analyzer__add_mark(struct analyzer_core *core, struct athread *t, uint64_t ts, uint32_t kind,
			  size_t other);
gint analyzer__cmp_mark(gconstpointer a, gconstpointer b, gpointer data);
struct athread *analyzer__thread_at(struct analyzer_core *core, size_t i);
/* A new thread of tid (generation gen, first seen at ts), the latest of its tid from now on: its
 * index, or NO_T out of memory. Only the table's: whether it is tracked is the caller's. */
size_t analyzer__new_thread(struct analyzer_core *core, int64_t tid, uint64_t ts, uint32_t gen);
void analyzer__free_athread(struct athread *t);
uint64_t analyzer__thread_cpu_ns(const struct athread *t);
uint64_t analyzer__thread_end(const struct analyzer_core *core, const struct athread *t);

/* The latest thread of tid, or NO_T. The table's lookup, inline: every event makes one. */
static inline size_t analyzer__find_thread(struct analyzer_core *core, int64_t tid)
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

/* sched.c */
struct cpu_state *analyzer__get_cpu(struct analyzer_core *core, int32_t cpu, uint64_t ts);
size_t analyzer__set_state(struct analyzer_core *core, size_t idx, uint8_t state, uint64_t ts,
			   uint32_t block_kind, size_t other);
void analyzer__note_running(struct analyzer_core *core, int32_t cpu, size_t idx, uint64_t ts,
			    uint64_t hint);
size_t analyzer__ctx_thread(struct analyzer_core *core, const struct analyzer_event *ev);
void analyzer__on_switch(struct analyzer_core *core, const struct analyzer_event *ev);
void analyzer__on_wakeup(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx);
void analyzer__on_fork(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx);
void analyzer__on_exit_ev(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx);
void analyzer__on_exec(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx);
void analyzer__on_statedump(struct analyzer_core *core, const struct analyzer_event *ev);
void analyzer__on_stat_runtime(struct analyzer_core *core, const struct analyzer_event *ev,
			       size_t ctx);
void analyzer__on_syscall(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx,
			  bool entry);
/* The thread a syscall's event is of: its context's (ctx), else the thread running on its CPU
 * (LTTng's kernel events name none); NO_T when unknown. */
size_t analyzer__syscall_thread(struct analyzer_core *core, const struct analyzer_event *ev,
				size_t ctx);
void analyzer__on_wait_call(struct analyzer_core *core, const struct analyzer_event *ev,
			    size_t ctx);
/* At the trace's end: every live thread's state closed (a tracked one's last segment). */
void analyzer__close_states(struct analyzer_core *core);

/* memory.c */
void analyzer__add_mem_sample(struct analyzer_core *core, struct athread *t, uint64_t ts);
void analyzer__on_memory(struct analyzer_core *core, const struct analyzer_event *ev, size_t x);

/* dps-events.c */
void analyzer__on_dps(struct analyzer_core *core, const struct analyzer_event *ev, size_t x);
void analyzer__sim_window(const struct athread *t, struct analyzer_thread *rt);
/* The thread's sched_stat_runtime sum at ts, counting the time it has been running since the
 * last report (the kernel reports at ticks and switch-outs). */
uint64_t analyzer__runtime_at(const struct athread *t, uint64_t ts);
/* Whether kept thread t, the result's root, starts at its first exec: what ran before it in
 * the process (the fork's child of a launcher: dps record, a shell) is the launcher's, and
 * the outside witness times the program from its exec (doc/analyzer.md, "The root starts at
 * its exec"), unless another kept thread began before that exec. A simulated run's thread
 * has its own window. */
bool analyzer__starts_at_exec(struct analyzer_core *core, const struct athread *t);
void analyzer__clip_to_window(struct athread *t, const struct analyzer_thread *rt);

/* select.c */
void analyzer__start_tracking(struct athread *t);
void analyzer__maybe_track(struct analyzer_core *core, struct athread *t);
void analyzer__untrack_child_process(struct analyzer_core *core, struct athread *t);
/* What an event says of a thread, learnt with the selection looking again: the thread of tid
 * (made on first sight), its name, its process. */
size_t analyzer__thread_seen(struct analyzer_core *core, int64_t tid, uint64_t ts);
void analyzer__comm_seen(struct analyzer_core *core, struct athread *t, const char *comm);
void analyzer__pid_seen(struct analyzer_core *core, struct athread *t, int64_t pid);
int analyzer__build_process_list(struct analyzer_core *core, struct analyzer_result *res);
bool analyzer__is_kept_creator(const struct analyzer_core *core, const struct athread *t);
/* Whether t is lttng-ust's listener thread ("<name>-ust"), left out of the selection. */
bool analyzer__is_tracer_thread(const struct analyzer_core *core, const struct athread *t);
int analyzer__cmp_kept(const void *a, const void *b, void *arg);
uint64_t analyzer__thread_id(const struct athread *t);
int analyzer__select_threads(struct analyzer_core *core, size_t *root_out, struct dps_diag *diag);
void analyzer__process_figures(struct analyzer_core *core, size_t root,
			       struct analyzer_process_figures *out);
void analyzer__add_pre_existing_creates(struct analyzer_core *core, size_t root);
int analyzer__ensure_create_marks(struct analyzer_core *core);
int analyzer__dedup_creates(struct analyzer_core *core, size_t ci);

/* joins.c */
struct analyzer_join_ins {
	uint64_t ts;
	size_t child;
};
/* The members of a result thread's join any: set->members[first .. first + n), n >= 2. */
struct analyzer_join_any {
	uint64_t first;
	uint64_t n;
};
int analyzer__add_implicit_joins(struct analyzer_core *core);
/* Thread p forked c (both tracked): c is one of the children a wait for any may reap. */
void analyzer__join_note_child(struct analyzer_core *core, size_t p, size_t c);
/* Thread p entered a wait4/waitid (call: enum join_call) or left it (JOIN_CALL_NONE). */
void analyzer__join_wait_call(struct analyzer_core *core, size_t p, uint8_t call);
/* Thread p blocks: a join left pending by its last block is a plain one. */
void analyzer__join_block(struct analyzer_core *core, size_t p);
/* p's block that began at block_start ended in a join of its child c, recorded (sched.c,
 * dps-events.c); waited: a kernel block that a wait call may explain (false: a stub's join). */
void analyzer__join_recorded(struct analyzer_core *core, size_t p, size_t c, uint64_t block_start,
			     bool waited);
/* The join anys of the kept threads (order[0..n)): their members added to set (which makes
 * it version 2), core->join_any filled. Returns DPS_OK or DPS_ERR_NOMEM. */
int analyzer__join_any_declare(struct analyzer_core *core, const size_t *order, size_t n,
			       struct dps_actset *set);
/* Result thread ri's join any, or NULL when its joins are plain. */
const struct analyzer_join_any *analyzer__join_any_of(const struct analyzer_core *core, size_t ri);
int analyzer__insert_joins(struct analyzer_core *core, size_t parent);
/* The implicit joins of one creator, in time order (*n of them; NULL when none). */
const struct analyzer_join_ins *analyzer__joins_of(struct analyzer_core *core, size_t parent,
						   size_t *n);

/* spill.c */
void analyzer__spill_init(struct analyzer_core *core);
void analyzer__spill_fini(struct analyzer_core *core);
void analyzer__spill_segs(struct analyzer_core *core, struct athread *t);
void analyzer__spill_mem(struct analyzer_core *core, struct athread *t);
void analyzer__spill_marks(struct analyzer_core *core, struct athread *t);
/* Marks mark idx of t's timeline (spilled or not) deleted. */
void analyzer__mark_delete(struct analyzer_core *core, struct athread *t, size_t idx);
/* Calls fn on every mark of t, spilled ones first, in the order they were added. */
int analyzer__each_mark(struct analyzer_core *core, struct athread *t,
			void (*fn)(const struct analyzer_mark *m, void *data), void *data);
/* Segment idx of t's timeline (spilled or not): a pointer to it in memory, or a copy read into
 * buf; NULL when idx is out of range or the file cannot be read (core->status says). */
struct analyzer_segment *analyzer__seg_at(struct analyzer_core *core, struct athread *t, size_t idx,
					  struct analyzer_segment *buf);
/* Writes back a copy analyzer__seg_at made (nothing to do for one in memory). */
void analyzer__seg_put(struct analyzer_core *core, struct athread *t, size_t idx,
		       const struct analyzer_segment *buf);
int analyzer__reload_timeline(struct analyzer_core *core, struct athread *t);
/* Only t's spilled marks read back in front of those in memory (its segments and samples stay
 * in the file). Returns DPS_OK or the core's status. */
int analyzer__reload_marks(struct analyzer_core *core, struct athread *t);
void analyzer__drop_spill(struct athread *t);

/*
 * A kept thread's segments or memory samples in timeline order, read without holding them all
 * (analyzer__output's streamed path): the spilled ones a chunk at a time, then those in
 * memory. next returns NULL at the end and on a read error (core->status says).
 */
struct analyzer_tl_reader {
	struct analyzer_core *core;
	struct athread *t;
	uint32_t what;
	size_t elem;
	unsigned chunk; /* next spill chunk to look at */
	char *buf;	/* owned: one chunk */
	size_t n_buf, pos;
	size_t mem_pos; /* in the thread's array in memory, once the chunks are read */
	bool spilled_done;
};
int analyzer__tl_reader_open(struct analyzer_core *core, struct athread *t, bool mem,
			     struct analyzer_tl_reader *r);
const void *analyzer__tl_reader_next(struct analyzer_tl_reader *r);
void analyzer__tl_reader_close(struct analyzer_tl_reader *r);

/* readback.c */
/* Thread ci's timeline whole in memory, with what the final step left for this moment: its
 * duplicate creates dropped, the sleep before a pre-existing thread's first event, the implicit
 * joins. */
int analyzer__prepare_timeline(struct analyzer_core *core, size_t ci);
/*
 * A kept thread's segments as analyzer__prepare_timeline would leave them (the sleep before a
 * pre-existing thread's first event in front, its implicit joins put in), streamed.
 */
struct analyzer_seg_stream {
	struct analyzer_tl_reader rd;
	bool pre; /* the pre-existing sleep is still to come */
	struct analyzer_segment pre_seg;
	const struct analyzer_join_ins *ins; /* borrowed: the core's */
	size_t n_ins, j;
	struct analyzer_segment *q; /* owned: what one segment became */
	size_t q_n, q_pos;
	uint64_t last_end;
	bool any, raw_done, tail_done;
	uint64_t from_ns; /* segments before it left out, one across it cut (0: none) */
};
int analyzer__seg_stream_open(struct analyzer_core *core, size_t ci, struct analyzer_seg_stream *s);
const struct analyzer_segment *analyzer__seg_stream_next(struct analyzer_seg_stream *s);
void analyzer__seg_stream_close(struct analyzer_seg_stream *s);
/* Only the marks of thread ci read back (its segments and samples stay spilled), its
 * duplicate creates dropped: what the streamed path needs in memory. */
int analyzer__prepare_marks(struct analyzer_core *core, size_t ci);

/* actions.c */
int analyzer__build_actions(struct analyzer_core *core, struct analyzer_result *res, size_t ri,
			    struct dps_actset *set, uint64_t min_block);
int analyzer__copy_identity(struct analyzer_core *core, size_t ci, struct analyzer_thread *rt);
int analyzer__copy_timeline(struct analyzer_core *core, size_t ci, struct analyzer_thread *rt);
int analyzer__output(struct analyzer_core *core, struct analyzer_result *res, const size_t *order,
		     uint64_t min_block, struct dps_diag *diag);

/* rank.c: a thread's hand-offs (its waits and joins on kept threads, result indexes, in time
 * order) appended to handoffs; from all of them, each thread's critical_ns and waited_on_ns. */
void analyzer__handoff_add(GArray *handoffs, const struct analyzer_segment *s, size_t n_threads);
void analyzer__rank(struct analyzer_result *res, GArray *const *handoffs);

#endif /* DPS_ANALYZER_CORE_INTERNAL_H */
