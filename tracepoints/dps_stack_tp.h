/* SPDX-License-Identifier: MIT */
/*
 * The `dps_stack` LTTng-UST provider: every function entry and exit of a program built with
 * -finstrument-functions, with the real stack pointer, so that a recording gives each thread's
 * exact stack depth over time (doc/memory.md). Emitted by libdps-stackprobe.so
 * (runtime/memprobe.c); the analyzer turns the per-thread sp into `stack ±bytes` actions.
 * Thread identity comes from the session's vtid/vpid contexts.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER dps_stack

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "dps_stack_tp.h"

#if !defined(DPS_TRACEPOINTS_DPS_STACK_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DPS_TRACEPOINTS_DPS_STACK_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

/* addr: the function entered or left; sp: the stack pointer of that function at the hook
 * (its caller's sp minus the return address; deeper calls have smaller sp). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_stack, func_class,
	LTTNG_UST_TP_ARGS(uint64_t, addr, uint64_t, sp),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, addr)
		lttng_ust_field_integer_hex(uint64_t, sp, sp)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_stack, func_class, dps_stack, func_entry,
	LTTNG_UST_TP_ARGS(uint64_t, addr, uint64_t, sp)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_stack, func_class, dps_stack, func_exit,
	LTTNG_UST_TP_ARGS(uint64_t, addr, uint64_t, sp)
)

#endif /* DPS_TRACEPOINTS_DPS_STACK_TP_H */

#include <lttng/tracepoint-event.h>
