/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's POSIX semaphores: sem_init's initial count, every wait (untimed, timed
 * with the time left, a try) with what it returned, every post. A semaphore is a queue without
 * items: the analyzer replays its posts as puts and its successful waits as takes, so a faster
 * producer blocks on it, or a consumer waits longer, as the program would.
 *
 * The sem_* calls return -1 and set errno on failure; the events' result is 0 or that errno.
 * errno itself is left as the real call set it. liblttng-ust waits on a semaphore of its own
 * while it registers (again in a forked child, while the program's events are already on):
 * calls from its code fire nothing (syncprobe_from_tracer). Named semaphores (sem_open) are waited
 * on and posted through the same calls: their waits and posts are seen, their initial count is not.
 * Versions: as pthread_barrier_* (barrier.c), GLIBC_2.34 first.
 */
#include <errno.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

#include "dps_sync_tp.h"
#include "probe.h"

typedef int (*init_fn)(sem_t *, int, unsigned);
typedef int (*op_fn)(sem_t *);
typedef int (*timedwait_fn)(sem_t *, const struct timespec *);
typedef int (*clockwait_fn)(sem_t *, clockid_t, const struct timespec *);

static init_fn real_init;
static op_fn real_wait, real_trywait, real_post;
static timedwait_fn real_timedwait;
static clockwait_fn real_clockwait;

/* Whether a call from caller fires its events: a session records its begin, and the caller is
 * the program, not the tracer. The enabled check first: with no session it is all a call
 * costs. */
#define TRACED(begin, caller)                                                                      \
	(lttng_ust_tracepoint_enabled(dps_sync, begin) && !syncprobe_from_tracer(caller))

/* The end of a call that returned r: 0, or the errno it set. */
static void emit_wait_end(sem_t *sem, int r)
{
	SYNCPROBE_EMIT(sem_wait_end, SYNCPROBE_ADDR(sem), (int32_t)(r == 0 ? 0 : errno));
}

DPS_PROBE_EXPORT int sem_init(sem_t *sem, int pshared, unsigned int value)
{
	int r;

	SYNCPROBE_RESOLVE(real_init, "sem_init", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_init) {
		errno = ENOSYS;
		return -1;
	}
	r = real_init(sem, pshared, value);
	if (r == 0 && lttng_ust_tracepoint_enabled(dps_sync, sem_init) &&
	    !syncprobe_from_tracer(__builtin_return_address(0))) {
		SYNCPROBE_EMIT(sem_init, SYNCPROBE_ADDR(sem), (uint32_t)value);
	}
	return r;
}

DPS_PROBE_EXPORT int sem_wait(sem_t *sem)
{
	int r;

	SYNCPROBE_RESOLVE(real_wait, "sem_wait", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_wait) {
		errno = ENOSYS;
		return -1;
	}
	if (!TRACED(sem_wait_begin, __builtin_return_address(0))) {
		return real_wait(sem);
	}
	SYNCPROBE_EMIT(sem_wait_begin, SYNCPROBE_ADDR(sem), (int64_t)-1);
	r = real_wait(sem);
	emit_wait_end(sem, r);
	return r;
}

DPS_PROBE_EXPORT int sem_trywait(sem_t *sem)
{
	int r;

	SYNCPROBE_RESOLVE(real_trywait, "sem_trywait", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_trywait) {
		errno = ENOSYS;
		return -1;
	}
	if (!TRACED(sem_wait_begin, __builtin_return_address(0))) {
		return real_trywait(sem);
	}
	SYNCPROBE_EMIT(sem_wait_begin, SYNCPROBE_ADDR(sem), (int64_t)0);
	r = real_trywait(sem);
	emit_wait_end(sem, r);
	return r;
}

/* sem_timedwait's deadline is on CLOCK_REALTIME (POSIX). */
DPS_PROBE_EXPORT int sem_timedwait(sem_t *restrict sem, const struct timespec *restrict abstime)
{
	int r;

	SYNCPROBE_RESOLVE(real_timedwait, "sem_timedwait", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_timedwait) {
		errno = ENOSYS;
		return -1;
	}
	if (!TRACED(sem_wait_begin, __builtin_return_address(0))) {
		return real_timedwait(sem, abstime);
	}
	SYNCPROBE_EMIT(sem_wait_begin, SYNCPROBE_ADDR(sem),
		       syncprobe_left_ns(CLOCK_REALTIME, abstime));
	r = real_timedwait(sem, abstime);
	emit_wait_end(sem, r);
	return r;
}

DPS_PROBE_EXPORT int sem_clockwait(sem_t *restrict sem, clockid_t clock,
				   const struct timespec *restrict abstime)
{
	int r;

	SYNCPROBE_RESOLVE(real_clockwait, "sem_clockwait", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_clockwait) {
		errno = ENOSYS;
		return -1;
	}
	if (!TRACED(sem_wait_begin, __builtin_return_address(0))) {
		return real_clockwait(sem, clock, abstime);
	}
	SYNCPROBE_EMIT(sem_wait_begin, SYNCPROBE_ADDR(sem), syncprobe_left_ns(clock, abstime));
	r = real_clockwait(sem, clock, abstime);
	emit_wait_end(sem, r);
	return r;
}

DPS_PROBE_EXPORT int sem_post(sem_t *sem)
{
	int r;

	SYNCPROBE_RESOLVE(real_post, "sem_post", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_post) {
		errno = ENOSYS;
		return -1;
	}
	if (!TRACED(sem_post_begin, __builtin_return_address(0))) {
		return real_post(sem);
	}
	SYNCPROBE_EMIT(sem_post_begin, SYNCPROBE_ADDR(sem));
	r = real_post(sem);
	SYNCPROBE_EMIT(sem_post_end, SYNCPROBE_ADDR(sem), (int32_t)(r == 0 ? 0 : errno));
	return r;
}
