/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's neutral event: what the babeltrace2 adapter (bt-source.c) extracts from one
 * trace event, whatever the tracer and its naming (lttng-modules 2.0 ... 2.13, perf-CTF,
 * lttng-ust, dps's own provider). The core (core.c) only sees these, so it is tested on
 * synthetic sequences without any trace.
 */
#ifndef DPS_ANALYZER_EVENT_H
#define DPS_ANALYZER_EVENT_H

#include <stddef.h>
#include <stdint.h>

enum analyzer_ev_kind {
	ANALYZER_EV_OTHER = 0,	   /* any other event: only its context (current thread) */
	ANALYZER_EV_SWITCH,	   /* .sw */
	ANALYZER_EV_WAKEUP,	   /* .wakeup; flags WAKING / WAKEUP_NEW */
	ANALYZER_EV_FORK,	   /* .fork */
	ANALYZER_EV_EXIT,	   /* .exit */
	ANALYZER_EV_EXEC,	   /* .exec */
	ANALYZER_EV_STATEDUMP,	   /* .statedump */
	ANALYZER_EV_STAT_RUNTIME,  /* .stat_runtime */
	ANALYZER_EV_SYSCALL_ENTRY, /* current thread of the CPU enters a syscall */
	ANALYZER_EV_SYSCALL_EXIT,
	ANALYZER_EV_WAIT_ENTRY,	      /* .wait_call: wait4 or waitid entered (joins.c) */
	ANALYZER_EV_WAIT_EXIT,	      /* its return */
	ANALYZER_EV_ALLOC,	      /* .alloc (malloc, calloc, memalign, ...) */
	ANALYZER_EV_FREE,	      /* .free */
	ANALYZER_EV_REALLOC,	      /* .realloc */
	ANALYZER_EV_FUNC_ENTRY,	      /* .func (flag HAS_SP) */
	ANALYZER_EV_FUNC_EXIT,	      /* .func (flag HAS_SP) */
	ANALYZER_EV_DPS_THREAD_BEGIN, /* .dps: the thread's id */
	ANALYZER_EV_DPS_THREAD_END,   /* .dps: the thread's id */
	ANALYZER_EV_DPS_RUN_BEGIN,
	ANALYZER_EV_DPS_RUN_END,
	ANALYZER_EV_DPS_SLEEP_BEGIN,
	ANALYZER_EV_DPS_SLEEP_END,
	ANALYZER_EV_DPS_CREATE,	    /* .dps: the child's id */
	ANALYZER_EV_DPS_JOIN_BEGIN, /* .dps: the child's id */
	ANALYZER_EV_DPS_JOIN_END,   /* .dps: the child's id */
	ANALYZER_EV_DPS_WAIT_BEGIN, /* .dps: the waker's id */
	ANALYZER_EV_DPS_WAIT_END,   /* .dps: the waker's id */
	ANALYZER_EV_DPS_WAKE,	    /* .dps: the wakee's id */
	ANALYZER_EV_DPS_HEAP,	    /* .dps_mem */
	ANALYZER_EV_DPS_STACK,	    /* .dps_mem */
	ANALYZER_EV_DISCARDED, /* .discarded, ts = begin; flags PACKETS when packets were lost */
	/* synchronization (analyzer/sync.c): .sync; annotations (dps/annotate.h), the
	 * LTTng-UST pthread wrapper's mutex events and the condition-variable probe's
	 * (dps_sync, syncprobe/) */
	ANALYZER_EV_SYNC_QUEUE_INIT,   /* .sync: obj, param = capacity */
	ANALYZER_EV_SYNC_PRODUCE,      /* .sync: obj */
	ANALYZER_EV_SYNC_CONSUME,      /* .sync: obj */
	ANALYZER_EV_SYNC_BARRIER_INIT, /* .sync: obj, param = parties */
	ANALYZER_EV_SYNC_ARRIVE,       /* .sync: obj */
	ANALYZER_EV_SYNC_LOCK_ACQ,     /* .sync: obj (the mutex), param = status (0: acquired) */
	ANALYZER_EV_SYNC_UNLOCK,       /* .sync: obj */
	/* .sync: obj (the condition variable), mutex, param = the timeout in ns, -1 untimed */
	ANALYZER_EV_SYNC_COND_WAIT_BEGIN,
	/* .sync: obj, mutex, param = what the wait returned (0, ETIMEDOUT) */
	ANALYZER_EV_SYNC_COND_WAIT_END,
	ANALYZER_EV_SYNC_COND_SIGNAL, /* .sync: obj (a signal or a broadcast) */
	/* the probe's blocking calls (dps_sync: barriers, semaphores, rwlocks, pipes, OpenMP's
	 * locks), their begin and end: .sync: obj, op (enum analyzer_sync_op, from the event's
	 * name), param = the begin's argument (a timeout in ns, -1 untimed; a byte count) or
	 * the end's result (0 or an error number; bytes moved, -errno) */
	ANALYZER_EV_SYNC_OP_BEGIN,
	ANALYZER_EV_SYNC_OP_END,
	/* .sync: obj, op (the family: SYNC_OP_BARRIER_WAIT for a barrier, SYNC_OP_SEM_WAIT for
	 * a semaphore), param = its parties or its initial value */
	ANALYZER_EV_SYNC_OBJ_INIT,
	/* .sync: obj, param = got (1: an item, 0: the pool was empty); the annotation's
	 * (dps:pool_take, param -1: it does not say) and the probe's (OpenMP's loops) */
	ANALYZER_EV_SYNC_POOL_TAKE,
	ANALYZER_EV_SYNC_UNMODELLED, /* .unmodelled: what the probe saw and cannot describe */
	/* the futex syscall (analyzer/futex.c): .futex: uaddr, op, val at the entry; ret at the
	 * exit (the thread's last entry says which call) */
	ANALYZER_EV_FUTEX_ENTRY,
	ANALYZER_EV_FUTEX_EXIT,
	ANALYZER_EV_NR,
};

/* The probe's operations (ANALYZER_EV_SYNC_OP_BEGIN/END's .sync.op). */
enum analyzer_sync_op {
	SYNC_OP_NONE = 0,
	SYNC_OP_BARRIER_WAIT, /* pthread_barrier_wait, OpenMP's team barriers */
	SYNC_OP_SEM_WAIT,     /* sem_wait, sem_trywait, sem_timedwait, sem_clockwait */
	SYNC_OP_SEM_POST,
	SYNC_OP_RDLOCK, /* pthread_rwlock_rdlock and its try, timed and clock forms */
	SYNC_OP_WRLOCK,
	SYNC_OP_RWUNLOCK,
	SYNC_OP_PIPE_READ, /* read(2) of a pipe or FIFO: obj its inode */
	SYNC_OP_PIPE_WRITE,
	SYNC_OP_LOCK, /* OpenMP's critical and atomic constructs (dps_sync:lock_begin) */
	SYNC_OP_UNLOCK,
	SYNC_OP_NR,
};

enum analyzer_ev_flags {
	ANALYZER_EVF_WAKING = 1u << 0,	   /* sched_waking (runs in the waker) */
	ANALYZER_EVF_WAKEUP_NEW = 1u << 1, /* sched_wakeup_new */
	ANALYZER_EVF_IRQ = 1u << 2,	   /* emitted in interrupt context (perf flags) */
	ANALYZER_EVF_HAS_SP = 1u << 3,	   /* b holds a stack pointer */
	ANALYZER_EVF_PACKETS = 1u << 4,	   /* discarded packets, not events */
	ANALYZER_EVF_CYG = 1u << 5,	   /* func_entry/exit of lttng_ust_cyg_profile */
	/* discarded, between the decoder of a stream group and the merge only (contain.c): no
	 * time in the message, ts is the group's last event's; the merge sets the trace's */
	ANALYZER_EVF_TS_LAST = 1u << 6,
	/* discarded: a count no stream can lose in that time (a damaged packet context, not a
	 * loss: bt-reader.c, plausible_loss); s[0] names the stream file when known */
	ANALYZER_EVF_DAMAGED = 1u << 7,
};

/*
 * The fields of each kind of event, by name. Integers the tracer does not give are -1.
 * The event source fills them by position (the `raw` view: four integers, two strings, the
 * same slots in every kind), so each kind's struct lists its members in slot order; unused
 * slots are padding. Strings are borrowed from the source until the next event.
 */
#define ANALYZER_EV_INTS 4
#define ANALYZER_EV_STRS 2

struct analyzer_event {
	uint64_t ts;	      /* ns, CLOCK_MONOTONIC of the recording machine */
	int32_t cpu;	      /* -1 unknown */
	uint32_t kind;	      /* enum analyzer_ev_kind */
	uint32_t flags;	      /* enum analyzer_ev_flags */
	int64_t ctx_tid;      /* thread running the event per its context (vtid, perf_tid); -1 */
	int64_t ctx_pid;      /* its process (vpid, perf_pid); -1 */
	const char *ctx_comm; /* borrowed: procname context, NULL */
	union {
		struct {
			int64_t v[ANALYZER_EV_INTS];
			const char *s[ANALYZER_EV_STRS];
		} raw;
		struct {
			int64_t prev_tid, next_tid, prev_state, unused_;
			const char *prev_comm, *next_comm; /* next_comm may be NULL when known */
		} sw;
		struct {
			int64_t tid, target_cpu;
		} wakeup;
		struct {
			int64_t parent_tid, child_tid, parent_pid,
			    child_pid; /* pids: -1 if not given */
			const char *child_comm;
		} fork;
		struct {
			int64_t tid;
		} exit;
		struct {
			int64_t tid, unused_[ANALYZER_EV_INTS - 1];
			const char *filename;
		} exec;
		struct {
			int64_t tid, pid, ppid, unused_;
			const char *name;
		} statedump;
		struct {
			int64_t tid, runtime_ns;
		} stat_runtime;
		struct {
			int64_t ptr, size_bytes;
		} alloc;
		struct {
			int64_t ptr;
		} free;
		struct {
			int64_t in_ptr, size_bytes, ptr;
		} realloc;
		struct {
			int64_t addr, sp; /* sp valid with ANALYZER_EVF_HAS_SP */
		} func;
		struct {
			int64_t id;	/* an action-set thread id: see the kinds */
			int64_t cpu_ns; /* thread_end: the thread's CPU time, -1 unknown */
		} dps;
		struct {
			int64_t delta_bytes,
			    size_bytes; /* size: the heap size or stack depth, -1 unknown */
		} dps_mem;
		struct {
			int64_t count, end_ts; /* count 0: unknown */
			int64_t unused_[ANALYZER_EV_INTS - 2];
			const char *stream; /* DAMAGED: the stream file, NULL unknown */
		} discarded;
		struct {
			int64_t obj, param; /* the object's address; see the kinds */
			int64_t mutex;	    /* condition waits: the mutex's address */
			int64_t op;	    /* the probe's operations: enum analyzer_sync_op */
		} sync;
		struct {
			int64_t unused_[ANALYZER_EV_INTS];
			const char *what;
		} unmodelled;
		struct {
			/* entry: the word's address, the operation (FUTEX_WAIT ... with its
			 * flags) and its value argument; exit: ret in uaddr's slot */
			int64_t uaddr, op, val;
		} futex;
		struct {
			/* wait4's pid or waitid's id argument; waitid's idtype (P_ALL 0, P_PID 1,
			 * P_PGID 2, P_PIDFD 3), -1 for wait4. Syscall arguments: only their low
			 * 32 bits are the int the program passed. */
			int64_t pid, idtype;
		} wait_call;
	};
};

/* An event with every optional member unknown. */
static inline struct analyzer_event analyzer_event_init(uint32_t kind, uint64_t ts, int32_t cpu)
{
	struct analyzer_event ev = {
	    .ts = ts,
	    .cpu = cpu,
	    .kind = kind,
	    .ctx_tid = -1,
	    .ctx_pid = -1,
	    .raw.v = {-1, -1, -1, -1},
	};

	return ev;
}

/* The source fills the slots of `raw`: each kind's strings must sit in them. */
#define ANALYZER_EV_SLOT_(m, slot)                                                                 \
	_Static_assert(offsetof(struct analyzer_event, m) ==                                       \
			   offsetof(struct analyzer_event, slot),                                  \
		       #m " is not in slot " #slot)
ANALYZER_EV_SLOT_(sw.prev_comm, raw.s[0]);
ANALYZER_EV_SLOT_(sw.next_comm, raw.s[1]);
ANALYZER_EV_SLOT_(fork.child_comm, raw.s[0]);
ANALYZER_EV_SLOT_(exec.filename, raw.s[0]);
ANALYZER_EV_SLOT_(statedump.name, raw.s[0]);
ANALYZER_EV_SLOT_(unmodelled.what, raw.s[0]);
ANALYZER_EV_SLOT_(discarded.stream, raw.s[0]);

#endif /* DPS_ANALYZER_EVENT_H */
