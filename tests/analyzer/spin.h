/* SPDX-License-Identifier: MIT */
/*
 * The live test programs' CPU work (cond-prog.c, sync-prog.c): spin until the calling thread
 * has used `us` microseconds of CPU, so a unit of work is the same CPU time whatever the
 * machine's load.
 */
#ifndef DPS_TESTS_ANALYZER_SPIN_H
#define DPS_TESTS_ANALYZER_SPIN_H

#include <time.h>

static inline void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

#endif /* DPS_TESTS_ANALYZER_SPIN_H */
