/* SPDX-License-Identifier: MIT */
/*
 * Two neighbours sharing a cache (doc/cache.md, "Outcome"; bench/cache-neighbours.sh), a
 * two-stage pipeline as real code makes one: a thread "scanner" sums the next stretch of an
 * array of --scan-ws bytes, then hands over to a thread "lookup" (a POSIX semaphore), which
 * probes a hash table of --table-ws bytes with keys in random order, as an index in memory is
 * used, and hands back; --rounds times. Pinned to one CPU (taskset), every stretch the scanner
 * reads pushes part of the table out of the caches the lookups need: the lookup thread's CPU
 * time is what the scanner's working set costs it. The work is fixed (--scan-elems element
 * reads in all, --lookups probes), so --scan-ws changes the scanner's footprint only.
 *
 *	dps-bench-cache-neighbours [--scan-ws BYTES] [--scan-elems N] [--table-ws BYTES]
 *	                           [--lookups N] [--rounds N]
 *
 * Prints the checksum and each thread's CPU time (its own clock; the bench's witness is the
 * kernel's). Exit 0, 2 on bad usage.
 */
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel-args.h"

static uint64_t rounds = 2000;
static sem_t to_lookup, to_scanner;

struct scan {
	uint64_t ws, elems, sum, cpu_ns;
};

struct lookup {
	uint64_t ws, lookups, hits, cpu_ns;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One pass over a; a function of its own, so a capture names it. */
__attribute__((noinline)) static uint64_t scan_pass(const uint64_t *a, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++) {
		s += a[i];
	}
	return s;
}

static void *scanner(void *arg)
{
	struct scan *sc = arg;
	size_t n = sc->ws / sizeof(uint64_t);
	uint64_t *a = malloc(n * sizeof(*a)), t0;

	pthread_setname_np(pthread_self(), "scanner");
	if (!a) {
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		a[i] = i * 2654435761u;
	}
	t0 = thread_cpu_ns();
	for (uint64_t r = 0, at = 0; r < rounds; r++) {
		/* this round's share of the reads, from where the last one stopped */
		uint64_t want = sc->elems / rounds + (r < sc->elems % rounds);

		while (want) {
			uint64_t k = n - at < want ? n - at : want;

			sc->sum += scan_pass(a + at, k);
			at = at + k == n ? 0 : at + k;
			want -= k;
		}
		sem_post(&to_lookup);
		sem_wait(&to_scanner);
	}
	sc->cpu_ns = thread_cpu_ns() - t0;
	free(a);
	return NULL;
}

/* n probes of the open-addressing table t (mask + 1 slots) with keys from the xorshift x. */
__attribute__((noinline)) static uint64_t lookup_batch(const uint64_t *t, uint64_t mask, uint64_t n,
						       uint64_t *x)
{
	uint64_t hits = 0, s = *x;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t key, h;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		key = s & mask; /* half the keys are in the table */
		for (h = (key * 0x9e3779b97f4a7c15u) >> 20 & mask; t[h]; h = (h + 1) & mask) {
			if (t[h] == key + 1) {
				hits++;
				break;
			}
		}
	}
	*x = s;
	return hits;
}

static void *lookup(void *arg)
{
	struct lookup *lk = arg;
	uint64_t slots = 1, mask, *t, x = 88172645463325252u, t0;

	pthread_setname_np(pthread_self(), "lookup");
	while (slots * 2 * sizeof(uint64_t) <= lk->ws) {
		slots *= 2;
	}
	mask = slots - 1;
	t = calloc(slots, sizeof(*t));
	if (!t) {
		return NULL;
	}
	/* half full: the keys 0 .. slots/2 - 1, each stored as key + 1 */
	for (uint64_t k = 0; k < slots / 2; k++) {
		uint64_t h = (k * 0x9e3779b97f4a7c15u) >> 20 & mask;

		while (t[h]) {
			h = (h + 1) & mask;
		}
		t[h] = k + 1;
	}
	t0 = thread_cpu_ns();
	for (uint64_t r = 0; r < rounds; r++) {
		sem_wait(&to_lookup);
		lk->hits +=
		    lookup_batch(t, mask, lk->lookups / rounds + (r < lk->lookups % rounds), &x);
		sem_post(&to_scanner);
	}
	lk->cpu_ns = thread_cpu_ns() - t0;
	free(t);
	return NULL;
}

int main(int argc, char **argv)
{
	struct scan sc = {.ws = 16u << 20, .elems = 200000000};
	struct lookup lk = {.ws = 1u << 20, .lookups = 20000000};
	pthread_t ts, tl;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--scan-ws") &&
		    kernel_parse_u64(v, UINT64_C(1) << 34, &sc.ws) && sc.ws >= 64) {
			i++;
		} else if (!strcmp(argv[i], "--scan-elems") &&
			   kernel_parse_u64(v, UINT64_C(1) << 40, &sc.elems)) {
			i++;
		} else if (!strcmp(argv[i], "--table-ws") &&
			   kernel_parse_u64(v, UINT64_C(1) << 34, &lk.ws) && lk.ws >= 64) {
			i++;
		} else if (!strcmp(argv[i], "--lookups") &&
			   kernel_parse_u64(v, UINT64_C(1) << 40, &lk.lookups)) {
			i++;
		} else if (!strcmp(argv[i], "--rounds") && kernel_parse_u64(v, 1u << 30, &rounds) &&
			   rounds) {
			i++;
		} else {
			fprintf(stderr,
				"usage: %s [--scan-ws BYTES] [--scan-elems N] [--table-ws BYTES] "
				"[--lookups N] [--rounds N]\n",
				argv[0]);
			return 2;
		}
	}
	sem_init(&to_lookup, 0, 0);
	sem_init(&to_scanner, 0, 0);
	if (pthread_create(&ts, NULL, scanner, &sc) || pthread_create(&tl, NULL, lookup, &lk)) {
		fprintf(stderr, "%s: cannot create the threads\n", argv[0]);
		return 1;
	}
	pthread_join(ts, NULL);
	pthread_join(tl, NULL);
	printf("scan_ws=%" PRIu64 " sum=%" PRIu64 " scanner_cpu_ns=%" PRIu64 " hits=%" PRIu64
	       " lookup_cpu_ns=%" PRIu64 "\n",
	       sc.ws, sc.sum, sc.cpu_ns, lk.hits, lk.cpu_ns);
	return 0;
}
