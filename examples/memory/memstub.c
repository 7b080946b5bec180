/* SPDX-License-Identifier: MIT */
/*
 * A hand-written main-memory stub: the memory-stub paper's Listing 1 data table played by
 * libdps (dps_mem_stub_play), measured at every trace point with mallinfo2 and the stack
 * pointer, and printed next to the desired curve.
 *
 * Usage: memory-stub [--check]
 * Run it with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 for a byte-exact heap (doc/memory.md).
 * --check: exit 1 unless every point's heap is the desired one to the byte and its stack within
 * 64 bytes (the memory-stub targets of ../shared/design.md); the test suite runs it so.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps-memory.h>

/* Listing 1: time since the previous point (us), stack and heap changes (bytes). */
static const struct dps_mem_alloc mem_use[] = {
    {.time_ns = DPS_MEM_US(129), .stack_alloc = 300, .heap_alloc = 0},
    {.time_ns = DPS_MEM_US(223), .stack_alloc = 100, .heap_alloc = 200},
    {.time_ns = DPS_MEM_US(384), .stack_alloc = -100, .heap_alloc = -40},
    {.time_ns = DPS_MEM_US(112), .stack_alloc = -300, .heap_alloc = -160},
};
#define NUMDATA (sizeof(mem_use) / sizeof(mem_use[0]))

/* The design's bounds: heap equal to the byte, stack within this many bytes. */
#define STACK_TOLERANCE_BYTES 64

int main(int argc, char **argv)
{
	bool check = argc > 1 && !strcmp(argv[1], "--check");
	int bad = 0;
	struct dps_mem_sample samples[NUMDATA];
	struct dps_mem_stub_options opts;
	struct dps_mem_stub_result res;
	char err[256] = "";
	int ret;

	dps_mem_stub_options_default(&opts);
	opts.samples = samples;
	ret = dps_mem_stub_play(mem_use, NUMDATA, &opts, &res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "memory-stub: %s\n", err);
		return 1;
	}
	printf("point   time us (want/got)   heap bytes (want/got)   stack bytes (want/got)\n");
	for (size_t i = 0; i < NUMDATA; i++) {
		printf("%5zu %10.1f %10.1f %11lld %11lld %11lld %11lld\n", i,
		       samples[i].want_ns / 1e3, samples[i].t_ns / 1e3,
		       (long long)samples[i].heap_want, (long long)samples[i].heap_got,
		       (long long)samples[i].stack_want, (long long)samples[i].stack_got);
		if (samples[i].heap_got != samples[i].heap_want ||
		    llabs(samples[i].stack_got - samples[i].stack_want) > STACK_TOLERANCE_BYTES) {
			bad++;
		}
	}
	printf("total %.1f us desired, %.1f us replayed\n", res.want_ns / 1e3, res.actual_ns / 1e3);
	if (check && bad) {
		fprintf(stderr,
			"memory-stub: %d of %zu points off the desired curve (heap must match to "
			"the byte, stack within %d bytes)\n",
			bad, NUMDATA, STACK_TOLERANCE_BYTES);
		return 1;
	}
	return 0;
}
