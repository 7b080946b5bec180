/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's OpenMP work pools: loops of dynamic, guided or runtime schedule and
 * sections hand their chunks to whichever thread of the team asks first, so a thread made
 * faster in a replay should take more of them. Each call that asks (a *_start, a *_next,
 * GOMP_sections_start/next) is followed by pool_take: got 1 when it returned work, 0 when the
 * pool was empty (the call that ends this thread's share). Static schedules are not pools (each
 * thread's iterations are fixed): GCC inlines them, and GOMP_loop_start with a static schedule,
 * or a runtime schedule that the ICV makes static or auto, gives no event.
 *
 * The pool's key must be the same on every thread of the team without them talking: OpenMP
 * requires every thread to meet the same work-sharing constructs in the same order, so each
 * thread counts the loop and sections starts it met in the region (omp_thread.seq; a combined
 * loop or sections region starts at 1, its threads asking the pool from their first
 * instruction) and the key is (1 << 63) | (region << 32) | seq. libgomp's own calls between
 * these functions are internal (not through the PLT): no event is counted twice.
 *
 * Outside a traced region (omp_thread.n == 0: no session, a team of one, a nested region) the
 * wrappers only call through. Ordered and doacross loops (GOMP_loop_ordered_*, _doacross_*)
 * are not wrapped: their chunks are handed out in order, not to whoever asks
 * (omp-unmodelled.c reports the construct).
 */
#include <stdbool.h>
#include <stdint.h>

#include "dps_sync_tp.h"
#include "omp.h"
#include "probe.h"

typedef unsigned long long ull;

/* The key of this thread's current loop or sections. */
static uint64_t pool_key(void)
{
	return 1ULL << 63 | (syncprobe_omp.region & 0x7fffffffULL) << 32 | syncprobe_omp.seq;
}

/* A new loop or sections of kind starts on this thread. */
static void pool_start(enum omp_pool_kind kind)
{
	if (!syncprobe_omp.n) {
		return;
	}
	syncprobe_omp.seq++;
	syncprobe_omp.pool =
	    kind == OMP_RUNTIME ? syncprobe_omp_runtime_is_pool() : kind == OMP_POOL;
}

/* A call that asked the current pool for work returned got. */
static void pool_take(bool got)
{
	if (syncprobe_omp.n && syncprobe_omp.pool) {
		SYNCPROBE_EMIT(pool_take, pool_key(), (int32_t)got);
	}
}

/* The kind of GOMP_loop_start's loop: its sched is libgomp's enum gomp_schedule_type (0 runtime,
 * 1 static, 2 dynamic, 3 guided, 4 auto: runtime with the nonmonotonic modifier) with the
 * monotonic bit; istart NULL asks for no iterations (a static loop with reductions). */
static enum omp_pool_kind sched_kind(long sched, const void *istart)
{
	if (!istart) {
		return OMP_NOT_POOL;
	}
	switch (sched & ~(long)0x80000000L) {
	case 1:
		return OMP_NOT_POOL;
	case 2:
	case 3:
		return OMP_POOL;
	default:
		return OMP_RUNTIME;
	}
}

/* A loop's first call on this thread: begins the loop instance, then asks for work. */
#define LOOP_START(name, kind, params, args)                                                       \
	bool name params;                                                                          \
	DPS_PROBE_EXPORT bool name params                                                          \
	{                                                                                          \
		static bool(*real) params;                                                         \
		bool got;                                                                          \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		pool_start(kind);                                                                  \
		got = real args;                                                                   \
		pool_take(got);                                                                    \
		return got;                                                                        \
	}

/* The next chunk of the current loop. */
#define LOOP_NEXT(name, type)                                                                      \
	bool name(type *istart, type *iend);                                                       \
	DPS_PROBE_EXPORT bool name(type *istart, type *iend)                                       \
	{                                                                                          \
		static bool (*real)(type *, type *);                                               \
		bool got;                                                                          \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		got = real(istart, iend);                                                          \
		pool_take(got);                                                                    \
		return got;                                                                        \
	}

#define LONG_CHUNKED (long start, long end, long incr, long chunk_size, long *istart, long *iend)
#define LONG_CHUNKED_ARGS (start, end, incr, chunk_size, istart, iend)
#define LONG_RUNTIME (long start, long end, long incr, long *istart, long *iend)
#define LONG_RUNTIME_ARGS (start, end, incr, istart, iend)
#define ULL_CHUNKED (bool up, ull start, ull end, ull incr, ull chunk_size, ull *istart, ull *iend)
#define ULL_CHUNKED_ARGS (up, start, end, incr, chunk_size, istart, iend)
#define ULL_RUNTIME (bool up, ull start, ull end, ull incr, ull *istart, ull *iend)
#define ULL_RUNTIME_ARGS (up, start, end, incr, istart, iend)

LOOP_START(GOMP_loop_dynamic_start, OMP_POOL, LONG_CHUNKED, LONG_CHUNKED_ARGS)
LOOP_START(GOMP_loop_guided_start, OMP_POOL, LONG_CHUNKED, LONG_CHUNKED_ARGS)
LOOP_START(GOMP_loop_nonmonotonic_dynamic_start, OMP_POOL, LONG_CHUNKED, LONG_CHUNKED_ARGS)
LOOP_START(GOMP_loop_nonmonotonic_guided_start, OMP_POOL, LONG_CHUNKED, LONG_CHUNKED_ARGS)
LOOP_START(GOMP_loop_runtime_start, OMP_RUNTIME, LONG_RUNTIME, LONG_RUNTIME_ARGS)
LOOP_START(GOMP_loop_nonmonotonic_runtime_start, OMP_RUNTIME, LONG_RUNTIME, LONG_RUNTIME_ARGS)
LOOP_START(GOMP_loop_maybe_nonmonotonic_runtime_start, OMP_RUNTIME, LONG_RUNTIME, LONG_RUNTIME_ARGS)
LOOP_START(GOMP_loop_start, sched_kind(sched, istart),
	   (long start, long end, long incr, long sched, long chunk_size, long *istart, long *iend,
	    uintptr_t *reductions, void **mem),
	   (start, end, incr, sched, chunk_size, istart, iend, reductions, mem))

LOOP_START(GOMP_loop_ull_dynamic_start, OMP_POOL, ULL_CHUNKED, ULL_CHUNKED_ARGS)
LOOP_START(GOMP_loop_ull_guided_start, OMP_POOL, ULL_CHUNKED, ULL_CHUNKED_ARGS)
LOOP_START(GOMP_loop_ull_nonmonotonic_dynamic_start, OMP_POOL, ULL_CHUNKED, ULL_CHUNKED_ARGS)
LOOP_START(GOMP_loop_ull_nonmonotonic_guided_start, OMP_POOL, ULL_CHUNKED, ULL_CHUNKED_ARGS)
LOOP_START(GOMP_loop_ull_runtime_start, OMP_RUNTIME, ULL_RUNTIME, ULL_RUNTIME_ARGS)
LOOP_START(GOMP_loop_ull_nonmonotonic_runtime_start, OMP_RUNTIME, ULL_RUNTIME, ULL_RUNTIME_ARGS)
LOOP_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, OMP_RUNTIME, ULL_RUNTIME,
	   ULL_RUNTIME_ARGS)
LOOP_START(GOMP_loop_ull_start, sched_kind(sched, istart),
	   (bool up, ull start, ull end, ull incr, long sched, ull chunk_size, ull *istart,
	    ull *iend, uintptr_t *reductions, void **mem),
	   (up, start, end, incr, sched, chunk_size, istart, iend, reductions, mem))

LOOP_NEXT(GOMP_loop_dynamic_next, long)
LOOP_NEXT(GOMP_loop_guided_next, long)
LOOP_NEXT(GOMP_loop_runtime_next, long)
LOOP_NEXT(GOMP_loop_nonmonotonic_dynamic_next, long)
LOOP_NEXT(GOMP_loop_nonmonotonic_guided_next, long)
LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next, long)
LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next, long)
LOOP_NEXT(GOMP_loop_ull_dynamic_next, ull)
LOOP_NEXT(GOMP_loop_ull_guided_next, ull)
LOOP_NEXT(GOMP_loop_ull_runtime_next, ull)
LOOP_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next, ull)
LOOP_NEXT(GOMP_loop_ull_nonmonotonic_guided_next, ull)
LOOP_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next, ull)
LOOP_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, ull)

/* Sections: the number of the section to run (from 1), 0 when none is left. GOMP_sections2_start
 * is GOMP_sections_start with task reductions or lastprivate(conditional:) (GCC >= 9). */
unsigned GOMP_sections_start(unsigned count);
unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem);
unsigned GOMP_sections_next(void);

DPS_PROBE_EXPORT unsigned GOMP_sections_start(unsigned count)
{
	static unsigned (*real)(unsigned);
	unsigned r;

	OMP_RESOLVE(real, "GOMP_sections_start");
	pool_start(OMP_POOL);
	r = real(count);
	pool_take(r != 0);
	return r;
}

DPS_PROBE_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
	static unsigned (*real)(unsigned, uintptr_t *, void **);
	unsigned r;

	OMP_RESOLVE(real, "GOMP_sections2_start");
	pool_start(OMP_POOL);
	r = real(count, reductions, mem);
	pool_take(r != 0);
	return r;
}

DPS_PROBE_EXPORT unsigned GOMP_sections_next(void)
{
	static unsigned (*real)(void);
	unsigned r;

	OMP_RESOLVE(real, "GOMP_sections_next");
	r = real();
	pool_take(r != 0);
	return r;
}
