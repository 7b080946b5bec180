/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's neutral event: what the babeltrace2 adapter (bt-source.c) extracts from one
 * trace event, whatever the tracer and its naming (lttng-modules 2.0 ... 2.13, perf-CTF,
 * lttng-ust, dps's own provider). The core (core.c) only sees these, so it is tested on
 * synthetic sequences without any trace.
 */
#ifndef DPS_ANALYZER_EVENT_H
#define DPS_ANALYZER_EVENT_H

#include <stdint.h>

enum analyzer_ev_kind {
	ANALYZER_EV_OTHER = 0,	   /* any other event: only its context (current thread) */
	ANALYZER_EV_SWITCH,	   /* a=prev_tid b=next_tid c=prev_state str=prev_comm
				    * str2=next_comm */
	ANALYZER_EV_WAKEUP,	   /* a=tid b=target_cpu; flags WAKING / WAKEUP_NEW */
	ANALYZER_EV_FORK,	   /* a=parent_tid b=child_tid c=parent_pid d=child_pid
				    * (pids -1 when the tracer does not give them)
				    * str=child_comm */
	ANALYZER_EV_EXIT,	   /* a=tid */
	ANALYZER_EV_EXEC,	   /* a=tid str=filename */
	ANALYZER_EV_STATEDUMP,	   /* a=tid b=pid c=ppid str=name */
	ANALYZER_EV_STAT_RUNTIME,  /* a=tid b=runtime_ns */
	ANALYZER_EV_SYSCALL_ENTRY, /* current thread of the CPU enters a syscall */
	ANALYZER_EV_SYSCALL_EXIT,
	ANALYZER_EV_ALLOC,	      /* a=ptr b=size_bytes (malloc, calloc, memalign, ...) */
	ANALYZER_EV_FREE,	      /* a=ptr */
	ANALYZER_EV_REALLOC,	      /* a=in_ptr b=size_bytes c=ptr */
	ANALYZER_EV_FUNC_ENTRY,	      /* a=addr b=sp (flag HAS_SP) */
	ANALYZER_EV_FUNC_EXIT,	      /* a=addr b=sp (flag HAS_SP) */
	ANALYZER_EV_DPS_THREAD_BEGIN, /* a=id */
	ANALYZER_EV_DPS_THREAD_END,   /* a=id */
	ANALYZER_EV_DPS_RUN_BEGIN,
	ANALYZER_EV_DPS_RUN_END,
	ANALYZER_EV_DPS_SLEEP_BEGIN,
	ANALYZER_EV_DPS_SLEEP_END,
	ANALYZER_EV_DPS_CREATE,	    /* a=child_id */
	ANALYZER_EV_DPS_JOIN_BEGIN, /* a=child_id */
	ANALYZER_EV_DPS_JOIN_END,   /* a=child_id */
	ANALYZER_EV_DPS_WAIT_BEGIN, /* a=waker_id */
	ANALYZER_EV_DPS_WAIT_END,   /* a=waker_id */
	ANALYZER_EV_DPS_WAKE,	    /* a=wakee_id */
	ANALYZER_EV_DPS_HEAP,	    /* a=delta_bytes b=size_bytes */
	ANALYZER_EV_DPS_STACK,	    /* a=delta_bytes b=depth_bytes */
	ANALYZER_EV_DISCARDED,	    /* a=count (0 = unknown) ts=begin b=end_ts;
				     * flags PACKETS when packets were lost */
	ANALYZER_EV_NR,
};

enum analyzer_ev_flags {
	ANALYZER_EVF_WAKING = 1u << 0,	   /* sched_waking (runs in the waker) */
	ANALYZER_EVF_WAKEUP_NEW = 1u << 1, /* sched_wakeup_new */
	ANALYZER_EVF_IRQ = 1u << 2,	   /* emitted in interrupt context (perf flags) */
	ANALYZER_EVF_HAS_SP = 1u << 3,	   /* b holds a stack pointer */
	ANALYZER_EVF_PACKETS = 1u << 4,	   /* discarded packets, not events */
	ANALYZER_EVF_CYG = 1u << 5,	   /* func_entry/exit of lttng_ust_cyg_profile */
};

struct analyzer_event {
	uint64_t ts;	      /* ns, CLOCK_MONOTONIC of the recording machine */
	int32_t cpu;	      /* -1 unknown */
	uint32_t kind;	      /* enum analyzer_ev_kind */
	uint32_t flags;	      /* enum analyzer_ev_flags */
	int64_t ctx_tid;      /* thread running the event per its context (vtid, perf_tid); -1 */
	int64_t ctx_pid;      /* its process (vpid, perf_pid); -1 */
	const char *ctx_comm; /* borrowed: procname context, NULL */
	int64_t a, b, c, d;
	const char *str;  /* borrowed, NULL */
	const char *str2; /* borrowed, NULL */
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
	    .a = -1,
	    .b = -1,
	    .c = -1,
	    .d = -1,
	};

	return ev;
}

#endif /* DPS_ANALYZER_EVENT_H */
