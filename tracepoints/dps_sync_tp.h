/* SPDX-License-Identifier: MIT */
/*
 * The `dps_sync` LTTng-UST provider: the synchronization of a program recorded with
 * `dps record --sync`, emitted by libdps-syncprobe.so (syncprobe/), which wraps libc's
 * condition variables, barriers, semaphores, rwlocks, reads and writes on pipes, and libgomp's
 * GOMP_* entry points (GCC's OpenMP). With the LTTng-UST pthread wrapper's mutex events they
 * say where a thread blocked on what (analyzer/sync.c, doc/sync.md, doc/tracepoints.md).
 *
 * Every blocking operation has a begin (before the real call) and an end (after it returned,
 * with its result): the time between is the operation's own. Objects are named by u64 hex
 * fields (an address, a pipe's inode); timeout_ns is the time left until a deadline (-1 for
 * none, 0 for a try); result is what the call returned (for sem_*: 0 or the errno it set).
 * Thread identity comes from the session's vtid/vpid contexts.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER dps_sync

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "dps_sync_tp.h"

#if !defined(DPS_TRACEPOINTS_DPS_SYNC_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define DPS_TRACEPOINTS_DPS_SYNC_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

/* Condition variables (syncprobe/cond.c). */

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

/*
 * pthread barriers (syncprobe/barrier.c); OpenMP's team barriers use the same events on keys
 * of the probe (syncprobe/omp-region.c).
 */

/* After pthread_barrier_init returned 0: parties is its count. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, barrier_init,
	LTTNG_UST_TP_ARGS(uint64_t, barrier, uint32_t, parties),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, barrier, barrier)
		lttng_ust_field_integer(uint32_t, parties, parties)
	)
)

/* Before pthread_barrier_wait. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, barrier_wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, barrier),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, barrier, barrier)
	)
)

/* After pthread_barrier_wait returned: result is 0, PTHREAD_BARRIER_SERIAL_THREAD (-1, one
 * thread per round) or an error number. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, barrier_wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, barrier, int32_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, barrier, barrier)
		lttng_ust_field_integer(int32_t, result, result)
	)
)

/* POSIX semaphores (syncprobe/sem.c). */

/* After sem_init returned 0: value is the initial count. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, sem_init,
	LTTNG_UST_TP_ARGS(uint64_t, sem, uint32_t, value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, sem, sem)
		lttng_ust_field_integer(uint32_t, value, value)
	)
)

/* Before sem_wait (timeout_ns -1), sem_timedwait or sem_clockwait (the time left), sem_trywait
 * (0). */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, sem_wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, sem, int64_t, timeout_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, sem, sem)
		lttng_ust_field_integer(int64_t, timeout_ns, timeout_ns)
	)
)

/* After the call returned: result 0 (a unit taken) or the errno it set (EAGAIN = 11 for a
 * failed try, ETIMEDOUT = 110, EINTR = 4, ...). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_sync, sem_result_class,
	LTTNG_UST_TP_ARGS(uint64_t, sem, int32_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, sem, sem)
		lttng_ust_field_integer(int32_t, result, result)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, sem_result_class, dps_sync, sem_wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, sem, int32_t, result)
)

/* Before sem_post. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, sem_post_begin,
	LTTNG_UST_TP_ARGS(uint64_t, sem),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, sem, sem)
	)
)

/* After sem_post returned: result 0 or its errno (EOVERFLOW). */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, sem_result_class, dps_sync, sem_post_end,
	LTTNG_UST_TP_ARGS(uint64_t, sem, int32_t, result)
)

/* pthread rwlocks (syncprobe/rwlock.c). */

/* Before pthread_rwlock_rdlock / _wrlock (timeout_ns -1), _tryrdlock / _trywrlock (0),
 * _timedrdlock / _timedwrlock / _clockrdlock / _clockwrlock (the time left). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_sync, rwlock_lock_class,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock, int64_t, timeout_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, rwlock, rwlock)
		lttng_ust_field_integer(int64_t, timeout_ns, timeout_ns)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, rwlock_lock_class, dps_sync, rwlock_rdlock_begin,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock, int64_t, timeout_ns)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, rwlock_lock_class, dps_sync, rwlock_wrlock_begin,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock, int64_t, timeout_ns)
)

/* After the lock or unlock returned: result is what it returned (0 = acquired or released,
 * EBUSY = 16 for a failed try, ETIMEDOUT = 110, EDEADLK = 35, ...). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_sync, rwlock_result_class,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock, int32_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, rwlock, rwlock)
		lttng_ust_field_integer(int32_t, result, result)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, rwlock_result_class, dps_sync, rwlock_rdlock_end,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock, int32_t, result)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, rwlock_result_class, dps_sync, rwlock_wrlock_end,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock, int32_t, result)
)

/* Before pthread_rwlock_unlock. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, rwlock_unlock_begin,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, rwlock, rwlock)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, rwlock_result_class, dps_sync, rwlock_unlock_end,
	LTTNG_UST_TP_ARGS(uint64_t, rwlock, int32_t, result)
)

/*
 * Pipes and FIFOs (syncprobe/pipe.c): read, __read_chk and write on a descriptor fstat says is
 * one. pipe is its inode (st_ino, the same for both ends and in every process), fd the
 * descriptor, count the bytes asked for.
 */

/* Before read / __read_chk (pipe_read_begin) or write (pipe_write_begin). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_sync, pipe_begin_class,
	LTTNG_UST_TP_ARGS(uint64_t, pipe, int32_t, fd, uint64_t, count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, pipe, pipe)
		lttng_ust_field_integer(int32_t, fd, fd)
		lttng_ust_field_integer(uint64_t, count, count)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, pipe_begin_class, dps_sync, pipe_read_begin,
	LTTNG_UST_TP_ARGS(uint64_t, pipe, int32_t, fd, uint64_t, count)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, pipe_begin_class, dps_sync, pipe_write_begin,
	LTTNG_UST_TP_ARGS(uint64_t, pipe, int32_t, fd, uint64_t, count)
)

/* After it returned: result is the bytes read or written, 0 at the end of file, -errno on an
 * error (-EAGAIN = -11 on an empty non-blocking pipe, -EPIPE = -32, -EINTR = -4). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_sync, pipe_end_class,
	LTTNG_UST_TP_ARGS(uint64_t, pipe, int32_t, fd, int64_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, pipe, pipe)
		lttng_ust_field_integer(int32_t, fd, fd)
		lttng_ust_field_integer(int64_t, result, result)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, pipe_end_class, dps_sync, pipe_read_end,
	LTTNG_UST_TP_ARGS(uint64_t, pipe, int32_t, fd, int64_t, result)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, pipe_end_class, dps_sync, pipe_write_end,
	LTTNG_UST_TP_ARGS(uint64_t, pipe, int32_t, fd, int64_t, result)
)

/*
 * Generic locks: OpenMP's critical and atomic constructs (syncprobe/omp-lock.c). lock is a key
 * of the probe (unnamed critical, atomic) or the program's (a named critical's lock pointer).
 */

/* Before acquiring (lock_begin), before releasing (unlock_begin), after the release
 * (unlock_end). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(dps_sync, lock_class,
	LTTNG_UST_TP_ARGS(uint64_t, lock),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, lock, lock)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, lock_class, dps_sync, lock_begin,
	LTTNG_UST_TP_ARGS(uint64_t, lock)
)

/* After acquiring: result 0 = acquired. */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, lock_end,
	LTTNG_UST_TP_ARGS(uint64_t, lock, int32_t, result),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, lock, lock)
		lttng_ust_field_integer(int32_t, result, result)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, lock_class, dps_sync, unlock_begin,
	LTTNG_UST_TP_ARGS(uint64_t, lock)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(dps_sync, lock_class, dps_sync, unlock_end,
	LTTNG_UST_TP_ARGS(uint64_t, lock)
)

/* After a call that asked a work pool for an item returned (OpenMP's dynamic, guided and
 * runtime loops and its sections: syncprobe/omp-pool.c; the same meaning as dps_pool_take of
 * dps/annotate.h): got 1 = it got one, 0 = the pool was empty (the call that ends this
 * thread's share of it). */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, pool_take,
	LTTNG_UST_TP_ARGS(uint64_t, pool, int32_t, got),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, pool, pool)
		lttng_ust_field_integer(int32_t, got, got)
	)
)

/* Once per process and kind, the first time the program used a construct the probe sees but
 * does not describe ("omp task", "omp ordered", ...: syncprobe/omp-unmodelled.c). */
LTTNG_UST_TRACEPOINT_EVENT(dps_sync, unmodelled,
	LTTNG_UST_TP_ARGS(const char *, what),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(what, what)
	)
)

#endif /* DPS_TRACEPOINTS_DPS_SYNC_TP_H */

#include <lttng/tracepoint-event.h>
