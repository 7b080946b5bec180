/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's pthread barriers: pthread_barrier_init says how many threads a round
 * takes, pthread_barrier_wait where each thread arrived (its begin) and when the round let it go
 * (its end). The analyzer replays the barrier as an object: whoever arrives last in the replay
 * ends the round, which the recorded wake-ups alone cannot say.
 *
 * glibc 2.34 moved these into libc with a new version (GLIBC_2.34, the one programs link now;
 * the GLIBC_2.2.5 one is the same code): the next definition is looked up by that version
 * first, by name on an older glibc.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "dps_sync_tp.h"
#include "probe.h"

typedef int (*init_fn)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
typedef int (*wait_fn)(pthread_barrier_t *);

static init_fn real_init;
static wait_fn real_wait;

/* The event after a successful init: a barrier that failed to init is no object. */
DPS_PROBE_EXPORT int pthread_barrier_init(pthread_barrier_t *restrict barrier,
					  const pthread_barrierattr_t *restrict attr,
					  unsigned int count)
{
	int r;

	SYNCPROBE_RESOLVE(real_init, "pthread_barrier_init", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_init) {
		return ENOSYS;
	}
	r = real_init(barrier, attr, count);
	if (r == 0) {
		SYNCPROBE_EMIT(barrier_init, SYNCPROBE_ADDR(barrier), (uint32_t)count);
	}
	return r;
}

DPS_PROBE_EXPORT int pthread_barrier_wait(pthread_barrier_t *barrier)
{
	int r;

	SYNCPROBE_RESOLVE(real_wait, "pthread_barrier_wait", SYNCPROBE_GLIBC_PTHREAD);
	if (!real_wait) {
		return ENOSYS;
	}
	if (!lttng_ust_tracepoint_enabled(dps_sync, barrier_wait_begin)) {
		return real_wait(barrier); /* no session: the one check */
	}
	SYNCPROBE_EMIT(barrier_wait_begin, SYNCPROBE_ADDR(barrier));
	r = real_wait(barrier);
	SYNCPROBE_EMIT(barrier_wait_end, SYNCPROBE_ADDR(barrier), (int32_t)r);
	return r;
}
