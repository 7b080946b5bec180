/* SPDX-License-Identifier: MIT */
/*
 * A two-thread program for dps cache apply's test (tests/cache/test-cache-apply.c): the main
 * thread computes in registers while a thread named "streamer" passes three times over a 2 MiB
 * array (twice cachegrind's 1 MiB last level here: one D1 and one LL miss per 64-byte line),
 * reading and writing back every element after a chain of multiplications, so that its accesses are
 * spread over its CPU time at about 68 instructions an access (more than the cache stub's 7),
 * and sleeping 1 ms between passes (its time is three runs).
 * Its trace, recorded once by dps record, is tests/data/traces/cache-two-threads; the test
 * captures it again under cachegrind and puts stream_kernel's figures on the streamer's runs.
 *
 * The kernels are noinline so a capture has their figures apart from main's.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORDS (2u * 1024 * 1024 / 8)
#define PASSES 3
#define ROUNDS 32

static uint64_t *data;
/* volatile: read at run time, so the compiler makes no copy of a kernel for a constant (a
 * capture would name it stream_kernel.constprop.0) */
static volatile size_t words = WORDS;
static volatile uint64_t loops = 4u * 1000 * 1000;

/* Each word read, mixed by ROUNDS multiplications (a chain: its latency spreads the accesses),
 * and written back. */
__attribute__((noinline)) static uint64_t stream_kernel(uint64_t *a, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = a[i];

		for (int r = 0; r < ROUNDS; r++) {
			v = v * 6364136223846793005u + 1442695040888963407u;
		}
		a[i] = v;
		sum += v;
	}
	return sum;
}

/* Registers only: no data access in the loop. */
__attribute__((noinline)) static uint64_t compute_kernel(uint64_t n)
{
	uint64_t v = n;

	for (uint64_t i = 0; i < n; i++) {
		v = v * 2862933555777941757u + 3037000493u;
		__asm__ volatile("" : "+r"(v));
	}
	return v;
}

static void *streamer(void *arg)
{
	uint64_t sum = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "streamer");
	for (int p = 0; p < PASSES; p++) {
		struct timespec pause = {0, 1000 * 1000};

		sum += stream_kernel(data, words);
		/* 1 ms asleep between passes: the streamer's time is several runs */
		if (p + 1 < PASSES) {
			nanosleep(&pause, NULL);
		}
	}
	return (void *)(uintptr_t)(sum & 1);
}

int main(void)
{
	pthread_t t;
	uint64_t v;

	data = malloc(WORDS * sizeof(*data));
	if (!data) {
		return 1;
	}
	for (size_t i = 0; i < WORDS; i++) {
		data[i] = i;
	}
	if (pthread_create(&t, NULL, streamer, NULL)) {
		return 1;
	}
	v = compute_kernel(loops);
	pthread_join(t, NULL);
	free(data);
	printf("%llu\n", (unsigned long long)(v & 0xff));
	return 0;
}
