/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's pthread rwlocks: each read or write acquisition (untimed, a try, timed
 * with the time left) with what it returned, and each unlock. LTTng-UST's pthread wrapper sees
 * only mutexes: without these a thread blocked on a writer shows only as a futex wait.
 *
 * The calls return their error number (EBUSY for a failed try, ETIMEDOUT, EDEADLK); the events
 * carry it as result. Versions: as pthread_barrier_* (barrier.c), GLIBC_2.34 first.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "dps_sync_tp.h"
#include "probe.h"

typedef int (*op_fn)(pthread_rwlock_t *);
typedef int (*timed_fn)(pthread_rwlock_t *, const struct timespec *);
typedef int (*clock_fn)(pthread_rwlock_t *, clockid_t, const struct timespec *);

static op_fn real_rdlock, real_tryrdlock, real_wrlock, real_trywrlock, real_unlock;
static timed_fn real_timedrdlock, real_timedwrlock;
static clock_fn real_clockrdlock, real_clockwrlock;

/* The timeout_ns of an acquisition: the time left until abs on clk when abs is not NULL,
 * else untimed_ns (-1 untimed, 0 a try). */
#define TIMEOUT_NS(clk, abs, untimed_ns) ((abs) ? syncprobe_left_ns(clk, abs) : (untimed_ns))

/* Whether a session records the begin of a read (write false) or write acquisition: with no
 * session this check is all a wrapper adds to the call. */
static bool traced(bool write)
{
	return write ? lttng_ust_tracepoint_enabled(dps_sync, rwlock_wrlock_begin)
		     : lttng_ust_tracepoint_enabled(dps_sync, rwlock_rdlock_begin);
}

/* The begin of a read (write false) or write acquisition (timeout: TIMEOUT_NS's arguments). */
static void lock_begin(pthread_rwlock_t *rwlock, bool write, clockid_t clk,
		       const struct timespec *abs, int64_t untimed_ns)
{
	if (write) {
		SYNCPROBE_EMIT(rwlock_wrlock_begin, SYNCPROBE_ADDR(rwlock),
			       TIMEOUT_NS(clk, abs, untimed_ns));
	} else {
		SYNCPROBE_EMIT(rwlock_rdlock_begin, SYNCPROBE_ADDR(rwlock),
			       TIMEOUT_NS(clk, abs, untimed_ns));
	}
}

static void lock_end(pthread_rwlock_t *rwlock, bool write, int result)
{
	if (write) {
		SYNCPROBE_EMIT(rwlock_wrlock_end, SYNCPROBE_ADDR(rwlock), (int32_t)result);
	} else {
		SYNCPROBE_EMIT(rwlock_rdlock_end, SYNCPROBE_ADDR(rwlock), (int32_t)result);
	}
}

/* An untimed (timeout_ns -1) or try (0) acquisition through *real, looked up as name. */
static int acquire(op_fn *real, const char *name, pthread_rwlock_t *rwlock, bool write,
		   int64_t timeout_ns)
{
	int r;

	SYNCPROBE_RESOLVE(*real, name, SYNCPROBE_GLIBC_PTHREAD);
	if (!*real) {
		return ENOSYS;
	}
	if (!traced(write)) {
		return (*real)(rwlock);
	}
	lock_begin(rwlock, write, CLOCK_REALTIME, NULL, timeout_ns);
	r = (*real)(rwlock);
	lock_end(rwlock, write, r);
	return r;
}

DPS_PROBE_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock)
{
	return acquire(&real_rdlock, "pthread_rwlock_rdlock", rwlock, false, -1);
}

DPS_PROBE_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock)
{
	return acquire(&real_tryrdlock, "pthread_rwlock_tryrdlock", rwlock, false, 0);
}

DPS_PROBE_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
	return acquire(&real_wrlock, "pthread_rwlock_wrlock", rwlock, true, -1);
}

DPS_PROBE_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
	return acquire(&real_trywrlock, "pthread_rwlock_trywrlock", rwlock, true, 0);
}

/* A timed acquisition until abstime on CLOCK_REALTIME (POSIX). */
static int acquire_timed(timed_fn *real, const char *name, pthread_rwlock_t *rwlock, bool write,
			 const struct timespec *abstime)
{
	int r;

	SYNCPROBE_RESOLVE(*real, name, SYNCPROBE_GLIBC_PTHREAD);
	if (!*real) {
		return ENOSYS;
	}
	if (!traced(write)) {
		return (*real)(rwlock, abstime);
	}
	lock_begin(rwlock, write, CLOCK_REALTIME, abstime, -1);
	r = (*real)(rwlock, abstime);
	lock_end(rwlock, write, r);
	return r;
}

DPS_PROBE_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict rwlock,
						const struct timespec *restrict abstime)
{
	return acquire_timed(&real_timedrdlock, "pthread_rwlock_timedrdlock", rwlock, false,
			     abstime);
}

DPS_PROBE_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict rwlock,
						const struct timespec *restrict abstime)
{
	return acquire_timed(&real_timedwrlock, "pthread_rwlock_timedwrlock", rwlock, true,
			     abstime);
}

/* A timed acquisition until abstime on clock. */
static int acquire_clock(clock_fn *real, const char *name, pthread_rwlock_t *rwlock, bool write,
			 clockid_t clock, const struct timespec *abstime)
{
	int r;

	SYNCPROBE_RESOLVE(*real, name, SYNCPROBE_GLIBC_PTHREAD);
	if (!*real) {
		return ENOSYS;
	}
	if (!traced(write)) {
		return (*real)(rwlock, clock, abstime);
	}
	lock_begin(rwlock, write, clock, abstime, -1);
	r = (*real)(rwlock, clock, abstime);
	lock_end(rwlock, write, r);
	return r;
}

DPS_PROBE_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict rwlock, clockid_t clock,
						const struct timespec *restrict abstime)
{
	return acquire_clock(&real_clockrdlock, "pthread_rwlock_clockrdlock", rwlock, false, clock,
			     abstime);
}

DPS_PROBE_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict rwlock, clockid_t clock,
						const struct timespec *restrict abstime)
{
	return acquire_clock(&real_clockwrlock, "pthread_rwlock_clockwrlock", rwlock, true, clock,
			     abstime);
}

DPS_PROBE_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
{
	int r;

	SYNCPROBE_RESOLVE(real_unlock, "pthread_rwlock_unlock", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_unlock) {
		return ENOSYS;
	}
	if (!lttng_ust_tracepoint_enabled(dps_sync, rwlock_unlock_begin)) {
		return real_unlock(rwlock);
	}
	SYNCPROBE_EMIT(rwlock_unlock_begin, SYNCPROBE_ADDR(rwlock));
	r = real_unlock(rwlock);
	SYNCPROBE_EMIT(rwlock_unlock_end, SYNCPROBE_ADDR(rwlock), (int32_t)r);
	return r;
}
