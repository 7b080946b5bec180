/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe: the condition variables of a program recorded with `dps record --sync`.
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
 * version first. A program's versioned reference binds to this library's unversioned
 * definitions (the dynamic loader accepts the global version for any version asked).
 *
 * When no session enables the events a wrapper costs one call through a pointer and a
 * predicted branch per event; the timeout is computed only when the event is enabled.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "dps_sync_tp.h"

#define DPS_PROBE_EXPORT __attribute__((visibility("default")))

typedef int (*wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*clockwait_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			    const struct timespec *);
typedef int (*signal_fn)(pthread_cond_t *);

/* The libc definitions, looked up on first use (idempotent: a race looks them up twice). */
static wait_fn real_wait;
static timedwait_fn real_timedwait;
static clockwait_fn real_clockwait;
static signal_fn real_signal, real_broadcast;

/* Set while this thread is inside one of the wrappers' tracepoints: a condition variable the
 * tracer itself would use is not the program's. Initial-exec: a preloaded library has room in
 * the static TLS block, and the general model's __tls_get_addr call would cost more than the
 * rest of a wrapper. Read only once an event is enabled. */
static __thread int in_probe __attribute__((tls_model("initial-exec")));

/* The next definition of name: the version programs link (x86-64), else the only one. */
static void *next_def(const char *name)
{
	void *f = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");

	return f ? f : dlsym(RTLD_NEXT, name);
}

#define RESOLVE(var, type, name)                                                                   \
	do {                                                                                       \
		if (!__atomic_load_n(&(var), __ATOMIC_ACQUIRE)) {                                  \
			__atomic_store_n(&(var), (type)next_def(name), __ATOMIC_RELEASE);          \
		}                                                                                  \
	} while (0)

/* The time left until abs on clock clk, in ns (0 when past; INT64_MAX beyond 100 years). */
static int64_t left_on(clockid_t clk, const struct timespec *abs)
{
	struct timespec now;
	int64_t sec;

	if (clock_gettime(clk, &now)) {
		return -1;
	}
	sec = (int64_t)abs->tv_sec - (int64_t)now.tv_sec;
	if (sec > 100LL * 365 * 86400) {
		return INT64_MAX;
	}
	if (sec < -100LL * 365 * 86400) {
		return 0;
	}
	sec = sec * 1000000000 + (abs->tv_nsec - now.tv_nsec);
	return sec > 0 ? sec : 0;
}

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
		return -1;
	}
	d_rt = a > rt.tv_sec ? a - rt.tv_sec : rt.tv_sec - a;
	d_mono = a > mono.tv_sec ? a - mono.tv_sec : mono.tv_sec - a;
	return left_on(d_rt <= d_mono ? CLOCK_REALTIME : CLOCK_MONOTONIC, abs);
}

static void wait_begin(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clk,
		       const struct timespec *abs)
{
	int64_t timeout = -1;

	if (!lttng_ust_tracepoint_enabled(dps_sync, cond_wait_begin) || in_probe) {
		return;
	}
	in_probe = 1;
	if (abs) {
		timeout = clk == (clockid_t)-1 ? timeout_of(abs) : left_on(clk, abs);
		timeout = timeout < 0 ? 0 : timeout;
	}
	lttng_ust_do_tracepoint(dps_sync, cond_wait_begin, (uint64_t)(uintptr_t)cond,
				(uint64_t)(uintptr_t)mutex, timeout);
	in_probe = 0;
}

static void wait_end(pthread_cond_t *cond, pthread_mutex_t *mutex, int result)
{
	if (!lttng_ust_tracepoint_enabled(dps_sync, cond_wait_end) || in_probe) {
		return;
	}
	in_probe = 1;
	lttng_ust_do_tracepoint(dps_sync, cond_wait_end, (uint64_t)(uintptr_t)cond,
				(uint64_t)(uintptr_t)mutex, (int32_t)result);
	in_probe = 0;
}

DPS_PROBE_EXPORT int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
	int saved, r;

	RESOLVE(real_wait, wait_fn, "pthread_cond_wait");
	if (!real_wait) {
		return ENOSYS;
	}
	saved = errno;
	wait_begin(cond, mutex, 0, NULL);
	errno = saved;
	r = real_wait(cond, mutex);
	saved = errno;
	wait_end(cond, mutex, r);
	errno = saved;
	return r;
}

DPS_PROBE_EXPORT int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
					    const struct timespec *abstime)
{
	int saved, r;

	RESOLVE(real_timedwait, timedwait_fn, "pthread_cond_timedwait");
	if (!real_timedwait) {
		return ENOSYS;
	}
	saved = errno;
	wait_begin(cond, mutex, (clockid_t)-1, abstime);
	errno = saved;
	r = real_timedwait(cond, mutex, abstime);
	saved = errno;
	wait_end(cond, mutex, r);
	errno = saved;
	return r;
}

DPS_PROBE_EXPORT int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
					    clockid_t clock, const struct timespec *abstime)
{
	int saved, r;

	RESOLVE(real_clockwait, clockwait_fn, "pthread_cond_clockwait");
	if (!real_clockwait) {
		return ENOSYS;
	}
	saved = errno;
	wait_begin(cond, mutex, clock, abstime);
	errno = saved;
	r = real_clockwait(cond, mutex, clock, abstime);
	saved = errno;
	wait_end(cond, mutex, r);
	errno = saved;
	return r;
}

/* The event after the call: a wake-up the call gave comes before it, so the analyzer reads
 * the wake as the program's own (a signal), not the exit path's. */
DPS_PROBE_EXPORT int pthread_cond_signal(pthread_cond_t *cond)
{
	int saved, r;

	RESOLVE(real_signal, signal_fn, "pthread_cond_signal");
	if (!real_signal) {
		return ENOSYS;
	}
	r = real_signal(cond);
	if (lttng_ust_tracepoint_enabled(dps_sync, cond_signal) && !in_probe) {
		saved = errno;
		in_probe = 1;
		lttng_ust_do_tracepoint(dps_sync, cond_signal, (uint64_t)(uintptr_t)cond);
		in_probe = 0;
		errno = saved;
	}
	return r;
}

DPS_PROBE_EXPORT int pthread_cond_broadcast(pthread_cond_t *cond)
{
	int saved, r;

	RESOLVE(real_broadcast, signal_fn, "pthread_cond_broadcast");
	if (!real_broadcast) {
		return ENOSYS;
	}
	r = real_broadcast(cond);
	if (lttng_ust_tracepoint_enabled(dps_sync, cond_broadcast) && !in_probe) {
		saved = errno;
		in_probe = 1;
		lttng_ust_do_tracepoint(dps_sync, cond_broadcast, (uint64_t)(uintptr_t)cond);
		in_probe = 0;
		errno = saved;
	}
	return r;
}
