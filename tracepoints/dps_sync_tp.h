/* SPDX-License-Identifier: MIT */
/*
 * The `dps_sync` LTTng-UST provider: the condition-variable calls of a program recorded with
 * `dps record --sync`, emitted by libdps-syncprobe.so (syncprobe/), which wraps
 * pthread_cond_wait, pthread_cond_timedwait, pthread_cond_clockwait, pthread_cond_signal and
 * pthread_cond_broadcast. With the LTTng-UST pthread wrapper's mutex events they say where a
 * condition variable's wait released its mutex and took it back (analyzer/sync.c,
 * doc/sync.md). Thread identity comes from the session's vtid/vpid contexts.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER dps_sync

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "dps_sync_tp.h"

#if !defined(DPS_TRACEPOINTS_DPS_SYNC_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DPS_TRACEPOINTS_DPS_SYNC_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

/* Before the wait (the mutex still held): cond and mutex are the call's arguments,
 * timeout_ns the time left until the timed wait's deadline (0 when it is already past), -1
 * for an untimed wait. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, cond_wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, cond, uint64_t, mutex, int64_t, timeout_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, cond)
		lttng_ust_field_integer_hex(uint64_t, mutex, mutex)
		lttng_ust_field_integer(int64_t, timeout_ns, timeout_ns)
	)
)

/* After the wait returned (the mutex held again): result is what it returned, 0 or
 * ETIMEDOUT (110 on Linux). */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, cond_wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, cond, uint64_t, mutex, int32_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, cond)
		lttng_ust_field_integer_hex(uint64_t, mutex, mutex)
		lttng_ust_field_integer(int32_t, result, result)
	)
)

/* After pthread_cond_signal or pthread_cond_broadcast returned. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_sync, cond_class,
	LTTNG_UST_TP_ARGS(uint64_t, cond),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, cond)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, cond_class, dps_sync, cond_signal,
	LTTNG_UST_TP_ARGS(uint64_t, cond)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, cond_class, dps_sync, cond_broadcast,
	LTTNG_UST_TP_ARGS(uint64_t, cond)
)

#endif /* DPS_TRACEPOINTS_DPS_SYNC_TP_H */

#include <lttng/tracepoint-event.h>
