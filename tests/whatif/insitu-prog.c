/* SPDX-License-Identifier: MIT */
/*
 * A real program with a local CPU stub (dps whatif --region long -- insitu-prog): main starts
 * two threads and joins them. "long" computes a result in a region that burns LONG_MS of CPU
 * (its own loop, not libdps's); "short" burns SHORT_MS. The result is saved with SSF in
 * record mode and restored when the region is stubbed, and main checks it: a stub that did
 * not restore it fails the run. Sweeping the region, the whole lasts max(LONG_MS x S,
 * SHORT_MS) plus the start: the knee is at S = SHORT_MS / LONG_MS.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dps/ssf.h>
#include <dps/stub.h>

#define LONG_MS 60
#define SHORT_MS 30

static const struct dps_ssf_type types[] = {
    {.kind = DPS_SSF_UINT, .name = "uint64_t", .size = 8},
};
static const struct dps_ssf_schema schema = {"insitu", 1, types};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The component's real work: ms of CPU, and a result that depends on it. */
static uint64_t compute(unsigned ms)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)ms * 1000000u, x = 1;

	while (thread_cpu_ns() < end) {
		for (int i = 0; i < 1000; i++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
		}
	}
	return 42 + (x & 0); /* the loop's value must not be optimized away, the result fixed */
}

static void *long_thread(void *arg)
{
	uint64_t *result = arg;
	void *dst = result;

	DPS_STUB_BEGIN("long")
	*result = compute(LONG_MS);
	if (dps_ssf_mode() == DPS_SSF_RECORD && dps_ssf_save(&schema, 0, "result", result)) {
		fprintf(stderr, "insitu-prog: save: %s\n", dps_ssf_last_error());
		exit(1);
	}
	DPS_STUB_ELSE
	if (dps_ssf_load(&schema, 0, "result", &dst)) {
		fprintf(stderr, "insitu-prog: restore: %s\n", dps_ssf_last_error());
		exit(1);
	}
	DPS_STUB_END("long")
	return NULL;
}

static void *short_thread(void *arg)
{
	(void)arg;
	compute(SHORT_MS);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	uint64_t result = 0;

	if (pthread_create(&a, NULL, long_thread, &result) ||
	    pthread_create(&b, NULL, short_thread, NULL)) {
		fprintf(stderr, "insitu-prog: cannot start the threads\n");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (result != 42) {
		fprintf(stderr, "insitu-prog: result %llu, want 42\n", (unsigned long long)result);
		return 1;
	}
	printf("result %llu\n", (unsigned long long)result);
	return 0;
}
