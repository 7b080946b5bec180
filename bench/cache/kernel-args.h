/* SPDX-License-Identifier: MIT */
/*
 * The two knobs every cache kernel of bench/cache/ takes (doc/cache.md, "Kernels"):
 * --ws BYTES, the working set the kernel's data occupies, and --reps N, how many times it goes
 * over it. A header, not a library: each kernel is one self-contained program, run by
 * bench/cache.sh and the tests under Valgrind's cache simulator.
 */
#ifndef DPS_BENCH_CACHE_KERNEL_ARGS_H
#define DPS_BENCH_CACHE_KERNEL_ARGS_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct kernel_args {
	uint64_t ws_bytes; /* --ws: the working set */
	uint64_t reps;	   /* --reps: passes over it */
};

/* A whole number from 1 to max, or false. */
static inline int kernel_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9') {
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < 1 || v > max) {
		return 0;
	}
	*out = v;
	return 1;
}

/* Parses argv into *a (defaults: ws 65536, reps 1). Returns 0, or 2 (bad usage: said on stderr,
 * with the usage line). */
static inline int kernel_parse_args(int argc, char **argv, const char *what, struct kernel_args *a)
{
	a->ws_bytes = 65536;
	a->reps = 1;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--ws") &&
		    kernel_parse_u64(v, UINT64_C(1) << 34, &a->ws_bytes)) {
			i++;
		} else if (!strcmp(argv[i], "--reps") &&
			   kernel_parse_u64(v, UINT64_C(1) << 32, &a->reps)) {
			i++;
		} else {
			fprintf(stderr,
				"%s: bad argument '%s'\nUsage: %s [--ws BYTES] [--reps N]\n"
				"  %s\n  --ws BYTES  working set, 1 to 16 GiB (default 65536)\n"
				"  --reps N    passes over it (default 1)\n",
				argv[0], argv[i], argv[0], what);
			return 2;
		}
	}
	return 0;
}

/* The calling thread's CPU time in ns: each kernel prints its own as cpu_ns=, which
 * bench/cache-victim.sh reads to give the cache stub the kernel's CPU time per figure. */
static inline uint64_t kernel_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A small fast generator (xorshift64*) for the random orders: the same sequence every run, so
 * the simulated figures are the same every run. */
static inline uint64_t kernel_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

#endif /* DPS_BENCH_CACHE_KERNEL_ARGS_H */
