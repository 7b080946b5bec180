/* SPDX-License-Identifier: MIT */
/*
 * The `dps` LTTng-UST provider: what libdps does, as events (doc/tracepoints.md lists every
 * event and field). Fields carry their unit in their name. Thread identity (vtid, vpid,
 * procname) comes from the session's contexts, not from the payload; `id` is the action-set
 * thread id (the <id>.act file name; 0 in hand-written stubs), so a trace can be matched to
 * its action set without the tid map.
 *
 * Begin/end pairs share an event class so both ends carry the same fields (the begin event
 * has act_ns = 0). `line` is the line of the action in its .act file (0 when unknown).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER dps

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "dps_tp.h"

#if !defined(DPS_TRACEPOINTS_DPS_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DPS_TRACEPOINTS_DPS_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

#include <dps/dps.h>
#include <dps/stub.h>

LTTNG_UST_TRACEPOINT_ENUM(dps, run_mode,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("work", DPS_RUN_WORK)
		lttng_ust_field_enum_value("cpu", DPS_RUN_CPU)
		lttng_ust_field_enum_value("wall", DPS_RUN_WALL)
	)
)

LTTNG_UST_TRACEPOINT_ENUM(dps, stub_mode,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("original", DPS_STUB_ORIGINAL)
		lttng_ust_field_enum_value("flat", DPS_STUB_FLAT)
		lttng_ust_field_enum_value("idle", DPS_STUB_IDLE)
		lttng_ust_field_enum_value("busy", DPS_STUB_BUSY)
		lttng_ust_field_enum_value("psf", DPS_STUB_PSF)
	)
)

/* A local CPU stub's region (dps/stub.h) begins: name is the region's. */
LTTNG_UST_TRACEPOINT_EVENT(dps, stub_begin,
	LTTNG_UST_TP_ARGS(const char *, name, int, mode),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, name)
		lttng_ust_field_enum(dps, stub_mode, int, mode, mode)
	)
)

/* ... and ends: cpu_ns is the CPU time of the region (from its begin: the region's own code
 * in original and psf modes, the restore in the others), psf_ns what the mode spent. */
LTTNG_UST_TRACEPOINT_EVENT(dps, stub_end,
	LTTNG_UST_TP_ARGS(const char *, name, int, mode, uint64_t, cpu_ns, uint64_t, psf_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, name)
		lttng_ust_field_enum(dps, stub_mode, int, mode, mode)
		lttng_ust_field_integer(uint64_t, cpu_ns, cpu_ns)
		lttng_ust_field_integer(uint64_t, psf_ns, psf_ns)
	)
)

/* A thread starts playing its actions; name is the recorded comm it was given. */
LTTNG_UST_TRACEPOINT_EVENT(dps, thread_begin,
	LTTNG_UST_TP_ARGS(uint64_t, id, const char *, name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_string(name, name)
	)
)

/* A thread ends: cpu_ns is the CPU time it consumed while playing (CLOCK_THREAD_CPUTIME_ID). */
LTTNG_UST_TRACEPOINT_EVENT(dps, thread_end,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, cpu_ns, cpu_ns)
	)
)

/* run: the system-influencing PSF. req_ns as asked (after scaling), act_ns wall time spent. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps, run_class,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, req_ns, uint64_t, act_ns, int, mode,
			  uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, req_ns, req_ns)
		lttng_ust_field_integer(uint64_t, act_ns, act_ns)
		lttng_ust_field_enum(dps, run_mode, int, mode, mode)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, run_class, dps, run_begin,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, req_ns, uint64_t, act_ns, int, mode,
			  uint32_t, line))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, run_class, dps, run_end,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, req_ns, uint64_t, act_ns, int, mode,
			  uint32_t, line))

/* A run's cache figures (format version 4): the accesses the cache stub makes before the rest
 * of the run. cpu_ns: the accesses' CPU time; setup_ns: the stub's set-up before them (dps's
 * own); both 0 in begin. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps, cache_class,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, accesses, uint64_t, stores, uint64_t, d1_misses,
			  uint64_t, ll_misses, uint64_t, cpu_ns, uint64_t, setup_ns, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, accesses, accesses)
		lttng_ust_field_integer(uint64_t, stores, stores)
		lttng_ust_field_integer(uint64_t, d1_misses, d1_misses)
		lttng_ust_field_integer(uint64_t, ll_misses, ll_misses)
		lttng_ust_field_integer(uint64_t, cpu_ns, cpu_ns)
		lttng_ust_field_integer(uint64_t, setup_ns, setup_ns)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, cache_class, dps, cache_begin,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, accesses, uint64_t, stores, uint64_t, d1_misses,
			  uint64_t, ll_misses, uint64_t, cpu_ns, uint64_t, setup_ns, uint32_t, line))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, cache_class, dps, cache_end,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, accesses, uint64_t, stores, uint64_t, d1_misses,
			  uint64_t, ll_misses, uint64_t, cpu_ns, uint64_t, setup_ns, uint32_t, line))

/* sleep: the system non-influencing PSF. act_ns is the wall time actually slept. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps, sleep_class,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, req_ns, uint64_t, act_ns, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, req_ns, req_ns)
		lttng_ust_field_integer(uint64_t, act_ns, act_ns)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, sleep_class, dps, sleep_begin,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, req_ns, uint64_t, act_ns, uint32_t, line))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, sleep_class, dps, sleep_end,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, req_ns, uint64_t, act_ns, uint32_t, line))

/* Thread-to-thread actions: peer_id is the other thread's action-set id. */
LTTNG_UST_TRACEPOINT_EVENT(dps, create,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, child_id, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, child_id, child_id)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps, join_class,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, child_id, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, child_id, child_id)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, join_class, dps, join_begin,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, child_id, uint32_t, line))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, join_class, dps, join_end,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, child_id, uint32_t, line))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps, wait_class,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, waker_id, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, waker_id, waker_id)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, wait_class, dps, wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, waker_id, uint32_t, line))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, wait_class, dps, wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, waker_id, uint32_t, line))

LTTNG_UST_TRACEPOINT_EVENT(dps, wake,
	LTTNG_UST_TP_ARGS(uint64_t, id, uint64_t, wakee_id, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(uint64_t, wakee_id, wakee_id)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)

/* Annotations (dps/annotate.h): what the program's synchronization is. obj is the object's
 * address; the analyzer makes it an object of format version 2. */
LTTNG_UST_TRACEPOINT_EVENT(dps, queue_init,
	LTTNG_UST_TP_ARGS(uintptr_t, obj, unsigned, capacity),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uintptr_t, obj, obj)
		lttng_ust_field_integer(uint32_t, capacity, capacity)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps, obj_class,
	LTTNG_UST_TP_ARGS(uintptr_t, obj),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uintptr_t, obj, obj)
	)
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, obj_class, dps, produce,
	LTTNG_UST_TP_ARGS(uintptr_t, obj))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, obj_class, dps, consume,
	LTTNG_UST_TP_ARGS(uintptr_t, obj))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, obj_class, dps, arrive,
	LTTNG_UST_TP_ARGS(uintptr_t, obj))
/* A take from a pool of work shared through memory (dps_pool_take): also the attempt that
 * found it empty. */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps, obj_class, dps, pool_take,
	LTTNG_UST_TP_ARGS(uintptr_t, obj))

LTTNG_UST_TRACEPOINT_EVENT(dps, barrier_init,
	LTTNG_UST_TP_ARGS(uintptr_t, obj, unsigned, parties),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uintptr_t, obj, obj)
		lttng_ust_field_integer(uint32_t, parties, parties)
	)
)

/* Memory stubs: the change as asked and the resulting size of the heap stub / stack depth. */
LTTNG_UST_TRACEPOINT_EVENT(dps, heap,
	LTTNG_UST_TP_ARGS(uint64_t, id, int64_t, delta_bytes, uint64_t, size_bytes, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(int64_t, delta_bytes, delta_bytes)
		lttng_ust_field_integer(uint64_t, size_bytes, size_bytes)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)

/* depth_bytes: the depth the actions ask for; real_depth_bytes: how far the stub's stack
 * pointer really is below where the player entered the stack stub. */
LTTNG_UST_TRACEPOINT_EVENT(dps, stack,
	LTTNG_UST_TP_ARGS(uint64_t, id, int64_t, delta_bytes, uint64_t, depth_bytes,
			  uint64_t, real_depth_bytes, uint32_t, line),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(int64_t, delta_bytes, delta_bytes)
		lttng_ust_field_integer(uint64_t, depth_bytes, depth_bytes)
		lttng_ust_field_integer(uint64_t, real_depth_bytes, real_depth_bytes)
		lttng_ust_field_integer(uint32_t, line, line)
	)
)

/* The calibration in force, emitted once by dps_init(). The sleep table is two sequences of
 * equal length: requested durations and the overshoot subtracted for them. */
LTTNG_UST_TRACEPOINT_EVENT(dps, calibration,
	LTTNG_UST_TP_ARGS(const struct dps_calibration *, cal, const uint64_t *, overshoot_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int32_t, format_version, cal->format_version)
		lttng_ust_field_string(machine, cal->machine)
		lttng_ust_field_float(double, work_loops_per_us, cal->work_loops_per_us)
		lttng_ust_field_float(double, work_spread_pct, cal->work_spread_pct)
		lttng_ust_field_float(double, clock_read_ns, cal->clock_read_ns)
		lttng_ust_field_float(double, cputime_read_ns, cal->cputime_read_ns)
		lttng_ust_field_float(double, action_overhead_ns, cal->action_overhead_ns)
		lttng_ust_field_float(double, thread_create_ns, cal->thread_create_ns)
		lttng_ust_field_float(double, thread_join_ns, cal->thread_join_ns)
		lttng_ust_field_integer(uint64_t, timer_slack_ns, cal->timer_slack_ns)
		lttng_ust_field_integer(uint64_t, min_block_ns, cal->min_block_ns)
		lttng_ust_field_integer(uint8_t, overridden, cal->overridden)
		lttng_ust_field_sequence(uint64_t, sleep_req_ns, cal->sleep_req_ns, uint32_t,
					 cal->n_sleep_points)
		lttng_ust_field_sequence(uint64_t, sleep_overshoot_ns, overshoot_ns, uint32_t,
					 cal->n_sleep_points)
	)
)

/* Memory prediction (dps/memclass.h, doc/memory-predict.md). The allocation at ptr belongs to
 * the named class: dps memory profile counts it there instead of at its allocation site. */
LTTNG_UST_TRACEPOINT_EVENT(dps, mem_class,
	LTTNG_UST_TP_ARGS(const void *, ptr, const char *, name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, ptr, (uint64_t)(uintptr_t)ptr)
		lttng_ust_field_string(name, name)
	)
)

/* A phase of the program begins (and the previous one ends). */
LTTNG_UST_TRACEPOINT_EVENT(dps, phase,
	LTTNG_UST_TP_ARGS(const char *, name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, name)
	)
)

/* The size of this run's input, in the program's own unit (words, lines, bytes). */
LTTNG_UST_TRACEPOINT_EVENT(dps, mem_size,
	LTTNG_UST_TP_ARGS(uint64_t, size),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, size, size)
	)
)

#endif /* DPS_TRACEPOINTS_DPS_TP_H */

#include <lttng/tracepoint-event.h>
