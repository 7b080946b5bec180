/* SPDX-License-Identifier: MIT */
/*
 * What the OpenMP files of libdps-syncprobe share (GCC's libgomp, its GOMP_* entry points):
 * each thread's place in a traced parallel region, the probe's own keys for the team barriers,
 * and finding libgomp's definitions. omp-region.c opens and closes the regions and wraps the
 * team barriers; omp-pool.c the loops and sections that hand out work; omp-lock.c the critical
 * and atomic constructs; omp-unmodelled.c what the probe reports without describing.
 *
 * Internal declarations, grouped by the file that defines them.
 */
#ifndef DPS_SYNCPROBE_OMP_H
#define DPS_SYNCPROBE_OMP_H

#include <stdint.h>

/* The largest team whose barriers are traced: the keys below have one element per size. */
#define OMP_MAX_TEAM 1024

/*
 * A thread's place in the traced region it runs (omp-region.c's trampoline sets it on every
 * thread of the team, the master included, and puts back what the thread had before when the
 * region's function returns). All zero outside a traced region, and in a region whose events
 * are off (team of 1, nested or concurrent region, too many threads).
 */
struct omp_thread {
	uint64_t region;      /* the region's number, the same on every thread of its team */
	uint32_t seq;	      /* the work-sharing constructs met so far that may be pools */
	uint32_t n;	      /* the team's size when its events are traced, else 0 */
	int pool;	      /* the current loop or sections hands out work (pool_take events) */
	const char *open_end; /* borrowed: the key of the region-end barrier this thread arrived
			       * at and has not left (a worker until its next region), or NULL */
};

/* omp-region.c */
extern __thread struct omp_thread syncprobe_omp __attribute__((tls_model("initial-exec")));

/* The team barriers' keys: [OMP_KEY_START][n] the start of a region of n threads, [END][n] its
 * implicit end barrier, [TEAM][n] the barriers inside it. Addresses of the probe, so distinct,
 * stable, and never a program's object. */
enum omp_key { OMP_KEY_START, OMP_KEY_END, OMP_KEY_TEAM };
extern char syncprobe_omp_keys[3][OMP_MAX_TEAM + 1];
#define OMP_KEY(kind, n) ((uint64_t)(uintptr_t)&syncprobe_omp_keys[kind][n])

/* The next definition of libgomp's name: RTLD_NEXT, else libgomp.so.1 if it is loaded (a
 * library that links libgomp, dlopened with RTLD_LOCAL). Aborts with a message when there is
 * none: only a program that libgomp serves calls a GOMP_* function, and there is no plain call
 * to fall back to. */
void *syncprobe_omp_next(const char *name);

/* Looks var up as libgomp's name on first use (a race looks it up twice, finding the same). */
#define OMP_RESOLVE(var, name)                                                                     \
	do {                                                                                       \
		if (!__atomic_load_n(&(var), __ATOMIC_ACQUIRE)) {                                  \
			__atomic_store_n(&(var), (__typeof__(var))syncprobe_omp_next(name),        \
					 __ATOMIC_RELEASE);                                        \
		}                                                                                  \
	} while (0)

/* Whether a loop or sections hands out work to whichever thread asks (a pool: dynamic and
 * guided schedules, sections), gives each thread fixed iterations (static), or does what the
 * run-sched-var ICV says (schedule(runtime): omp_get_schedule, read when the loop starts). */
enum omp_pool_kind { OMP_NOT_POOL, OMP_POOL, OMP_RUNTIME };

/* Whether a loop of runtime schedule is a pool now: the ICV is dynamic or guided (static and
 * auto give each thread fixed chunks); a pool when libgomp's omp_get_schedule is not found. */
int syncprobe_omp_runtime_is_pool(void);

#endif /* DPS_SYNCPROBE_OMP_H */
