/* SPDX-License-Identifier: MIT */
/*
 * A hand-written main-memory stub: the memory-stub paper's Listing 1 data table played by
 * libdps (dps_mem_stub_play), measured at every trace point with mallinfo2 and the stack
 * pointer, and printed next to the desired curve.
 *
 * Usage: memory-stub        (run it with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 for a
 *                            byte-exact heap, see doc/memory.md)
 */
#include <stdio.h>

#include <dps/dps-memory.h>

/* Listing 1: time since the previous point (us), stack and heap changes (bytes). */
static const struct dps_mem_alloc mem_use[] = {
    {.time_ns = DPS_MEM_US(129), .stack_alloc = 300, .heap_alloc = 0},
    {.time_ns = DPS_MEM_US(223), .stack_alloc = 100, .heap_alloc = 200},
    {.time_ns = DPS_MEM_US(384), .stack_alloc = -100, .heap_alloc = -40},
    {.time_ns = DPS_MEM_US(112), .stack_alloc = -300, .heap_alloc = -160},
};
#define NUMDATA (sizeof(mem_use) / sizeof(mem_use[0]))

int main(void)
{
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
	}
	printf("total %.1f us desired, %.1f us replayed\n", res.want_ns / 1e3, res.actual_ns / 1e3);
	return 0;
}
