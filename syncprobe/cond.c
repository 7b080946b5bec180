/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's condition variables: a program recorded with `dps record --sync`.
 *
 * LTTng-UST's pthread wrapper sees the program's pthread_mutex_lock/unlock, but not the unlock
 * and re-lock that pthread_cond_wait does inside libc, nor the condition variables themselves.
 * Preloaded (LD_PRELOAD=libdps-syncprobe.so.0, next to the pthread wrapper), this library
 * defines pthread_cond_wait, pthread_cond_timedwait, pthread_cond_clockwait,
 * pthread_cond_signal and pthread_cond_broadcast: each calls the next definition (libc's) and
 * emits the dps_sync provider's events (tracepoints/dps_sync_tp.h): a wait's begin with its
 * mutex and its timeout, its end with its result, a signal or broadcast after it returned.
 *
 * glibc has two versions of pthread_cond_* on x86-64 (GLIBC_2.2.5, the old condition
 * variable kept for old binaries, and GLIBC_2.3.2, the one programs link): dlsym without a
 * version gives the oldest, whose layout differs, so the next definition is looked up by
 * version first (probe.c).
 *
 * When no session enables the events a wrapper costs one call through a pointer and a
 * predicted branch per event; the timeout is computed only when the event is enabled.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "dps_sync_tp.h"
#include "probe.h"

typedef int (*wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*clockwait_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			    const struct timespec *);
typedef int (*signal_fn)(pthread_cond_t *);

/* The libc definitions, looked up on first use. */
static wait_fn real_wait;
static timedwait_fn real_timedwait;
static clockwait_fn real_clockwait;
static signal_fn real_signal, real_broadcast;

/*
 * The timeout of a wait until abs. pthread_cond_timedwait's clock is the condition variable's
 * (its attributes, not visible here): of CLOCK_REALTIME and CLOCK_MONOTONIC, the one abs is
 * near. The two are decades apart (the epoch against the boot), so the nearer is the right one.
 */
static int64_t timeout_of(const struct timespec *abs)
{
	struct timespec rt, mono;
	int64_t a = (int64_t)abs->tv_sec, d_rt, d_mono;

	if (clock_gettime(CLOCK_REALTIME, &rt) || clock_gettime(CLOCK_MONOTONIC, &mono)) {
		return 0;
	}
	d_rt = a > rt.tv_sec ? a - rt.tv_sec : rt.tv_sec - a;
	d_mono = a > mono.tv_sec ? a - mono.tv_sec : mono.tv_sec - a;
	return syncprobe_left_ns(d_rt <= d_mono ? CLOCK_REALTIME : CLOCK_MONOTONIC, abs);
}

/* The timeout_ns of a wait's begin: -1 untimed, else the time left on clk ((clockid_t)-1: the
 * condition variable's, guessed). */
static int64_t wait_timeout(clockid_t clk, const struct timespec *abs)
{
	if (!abs) {
		return -1;
	}
	return clk == (clockid_t)-1 ? timeout_of(abs) : syncprobe_left_ns(clk, abs);
}

static void wait_begin(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clk,
		       const struct timespec *abs)
{
	SYNCPROBE_EMIT(cond_wait_begin, SYNCPROBE_ADDR(cond), SYNCPROBE_ADDR(mutex),
		       wait_timeout(clk, abs));
}

static void wait_end(pthread_cond_t *cond, pthread_mutex_t *mutex, int result)
{
	SYNCPROBE_EMIT(cond_wait_end, SYNCPROBE_ADDR(cond), SYNCPROBE_ADDR(mutex), (int32_t)result);
}

DPS_PROBE_EXPORT int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
	int r;

	SYNCPROBE_RESOLVE(real_wait, "pthread_cond_wait", SYNCPROBE_GLIBC_COND);
	if (!real_wait) {
		return ENOSYS;
	}
	wait_begin(cond, mutex, 0, NULL);
	r = real_wait(cond, mutex);
	wait_end(cond, mutex, r);
	return r;
}

DPS_PROBE_EXPORT int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
					    const struct timespec *abstime)
{
	int r;

	SYNCPROBE_RESOLVE(real_timedwait, "pthread_cond_timedwait", SYNCPROBE_GLIBC_COND);
	if (!real_timedwait) {
		return ENOSYS;
	}
	wait_begin(cond, mutex, (clockid_t)-1, abstime);
	r = real_timedwait(cond, mutex, abstime);
	wait_end(cond, mutex, r);
	return r;
}

DPS_PROBE_EXPORT int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
					    clockid_t clock, const struct timespec *abstime)
{
	int r;

	SYNCPROBE_RESOLVE(real_clockwait, "pthread_cond_clockwait", SYNCPROBE_GLIBC_COND);
	if (!real_clockwait) {
		return ENOSYS;
	}
	wait_begin(cond, mutex, clock, abstime);
	r = real_clockwait(cond, mutex, clock, abstime);
	wait_end(cond, mutex, r);
	return r;
}

/* The event after the call: a wake-up the call gave comes before it, so the analyzer reads
 * the wake as the program's own (a signal), not the exit path's. */
DPS_PROBE_EXPORT int pthread_cond_signal(pthread_cond_t *cond)
{
	int r;

	SYNCPROBE_RESOLVE(real_signal, "pthread_cond_signal", SYNCPROBE_GLIBC_COND);
	if (!real_signal) {
		return ENOSYS;
	}
	r = real_signal(cond);
	SYNCPROBE_EMIT(cond_signal, SYNCPROBE_ADDR(cond));
	return r;
}

DPS_PROBE_EXPORT int pthread_cond_broadcast(pthread_cond_t *cond)
{
	int r;

	SYNCPROBE_RESOLVE(real_broadcast, "pthread_cond_broadcast", SYNCPROBE_GLIBC_COND);
	if (!real_broadcast) {
		return ENOSYS;
	}
	r = real_broadcast(cond);
	SYNCPROBE_EMIT(cond_broadcast, SYNCPROBE_ADDR(cond));
	return r;
}
