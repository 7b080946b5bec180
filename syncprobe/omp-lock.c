/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's OpenMP critical and atomic constructs, as locks: lock_begin before the
 * acquisition, lock_end after it, unlock_begin and unlock_end around the release. libgomp
 * takes its own futex-based locks, which LTTng-UST's pthread wrapper does not see.
 *
 * The lock's key: an unnamed critical is one lock for the whole program (a static of the
 * probe); a named one (`critical(name)`) is GCC's per-name pointer the program passes; the
 * atomic constructs GCC cannot do with an instruction share another of the probe's statics.
 * These events fire in every thread whenever a session records, inside a traced region or not:
 * the lock is the whole process's, whatever team the thread is in.
 */
#include <stdint.h>

#include "dps_sync_tp.h"
#include "omp.h"
#include "probe.h"

static char critical_key, atomic_key;

void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

/* With no session the enabled check is all a wrapper adds to the call. */
static void acquire(uint64_t key, void (*real)(void))
{
	if (!lttng_ust_tracepoint_enabled(dps_sync, lock_begin)) {
		real();
		return;
	}
	SYNCPROBE_EMIT(lock_begin, key);
	real();
	SYNCPROBE_EMIT(lock_end, key, (int32_t)0);
}

static void release(uint64_t key, void (*real)(void))
{
	if (!lttng_ust_tracepoint_enabled(dps_sync, unlock_begin)) {
		real();
		return;
	}
	SYNCPROBE_EMIT(unlock_begin, key);
	real();
	SYNCPROBE_EMIT(unlock_end, key);
}

DPS_PROBE_EXPORT void GOMP_critical_start(void)
{
	static void (*real)(void);

	OMP_RESOLVE(real, "GOMP_critical_start");
	acquire(SYNCPROBE_ADDR(&critical_key), real);
}

DPS_PROBE_EXPORT void GOMP_critical_end(void)
{
	static void (*real)(void);

	OMP_RESOLVE(real, "GOMP_critical_end");
	release(SYNCPROBE_ADDR(&critical_key), real);
}

DPS_PROBE_EXPORT void GOMP_critical_name_start(void **pptr)
{
	static void (*real)(void **);

	OMP_RESOLVE(real, "GOMP_critical_name_start");
	if (!lttng_ust_tracepoint_enabled(dps_sync, lock_begin)) {
		real(pptr);
		return;
	}
	SYNCPROBE_EMIT(lock_begin, SYNCPROBE_ADDR(pptr));
	real(pptr);
	SYNCPROBE_EMIT(lock_end, SYNCPROBE_ADDR(pptr), (int32_t)0);
}

DPS_PROBE_EXPORT void GOMP_critical_name_end(void **pptr)
{
	static void (*real)(void **);

	OMP_RESOLVE(real, "GOMP_critical_name_end");
	if (!lttng_ust_tracepoint_enabled(dps_sync, unlock_begin)) {
		real(pptr);
		return;
	}
	SYNCPROBE_EMIT(unlock_begin, SYNCPROBE_ADDR(pptr));
	real(pptr);
	SYNCPROBE_EMIT(unlock_end, SYNCPROBE_ADDR(pptr));
}

DPS_PROBE_EXPORT void GOMP_atomic_start(void)
{
	static void (*real)(void);

	OMP_RESOLVE(real, "GOMP_atomic_start");
	acquire(SYNCPROBE_ADDR(&atomic_key), real);
}

DPS_PROBE_EXPORT void GOMP_atomic_end(void)
{
	static void (*real)(void);

	OMP_RESOLVE(real, "GOMP_atomic_end");
	release(SYNCPROBE_ADDR(&atomic_key), real);
}
