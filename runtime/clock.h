/* SPDX-License-Identifier: MIT */
/*
 * libdps's clock reads and small statistics, once for every file of the runtime (the PSFs,
 * the player, the CPU and memory calibrations, the memory stub).
 */
#ifndef DPS_RUNTIME_CLOCK_H
#define DPS_RUNTIME_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define DPS_NS_PER_US 1000ULL
#define DPS_NS_PER_S 1000000000ULL

static inline uint64_t dps__clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * DPS_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static inline uint64_t dps__now_ns(void)
{
	return dps__clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t dps__cputime_ns(void)
{
	return dps__clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Sorts v in place and returns its q-quantile (0..1), nearest rank; 0 for n = 0 (stats.c). */
double dps__quantile(double *v, size_t n, double q);
/* Sorts v in place and returns its median (the mean of the middle two for even n); 0 for
 * n = 0. */
double dps__median(double *v, size_t n);

#endif /* DPS_RUNTIME_CLOCK_H */
