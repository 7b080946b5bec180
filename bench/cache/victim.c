/* SPDX-License-Identifier: MIT */
/*
 * The co-running victim (doc/cache.md, "Checked by a co-running victim"; issue 28's check (b)):
 * a thread that walks a fixed working set living in the last-level cache, and the two
 * co-runners bench/cache-victim.sh sets beside it besides the original kernels: the cache stub
 * playing a kernel's captured figures, and a register-only run of the same CPU time.
 *
 *	dps-bench-cache-victim victim --ws BYTES --seconds S [--cpu N]
 *	dps-bench-cache-victim stub --seconds S [--cpu N] ACCESSES STORES D1_MISSES LL_MISSES CPU_NS
 *	dps-bench-cache-victim plain --seconds S [--cpu N] CPU_NS
 *
 * victim: a random cyclic pointer chase over ws bytes of 64-byte lines (neither a prefetcher
 * nor out-of-order execution hides its latency, so every line a co-runner pushed out of the
 * cache costs it a refill), walked for S seconds of wall time; prints its accesses and the
 * thread's CPU time over them. The figure is ns of its own CPU time per access: where it shares
 * a CPU with a co-runner (time-sharing it), the time it waits for the CPU is not counted, only
 * what the co-runner's accesses did to the caches it comes back to.
 *
 * stub: dps_cache_play of one target (a kernel's figures for CPU_NS of its CPU time) again and
 * again for S seconds; plain: dps_run_ns(CPU_NS, DPS_RUN_CPU) again and again, what a plain
 * `run` of the action set plays. Both print their plays and the CPU they used; stub also how
 * many plays' accesses alone took longer than CPU_NS (the stub's floor, doc/cache.md).
 *
 * --cpu N pins the process to CPU N with sched_setaffinity before anything else (the kernels are
 * pinned by taskset). Exit 0, 1 when a play fails, 2 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dps/cache.h>
#include <dps/dps.h>

#include "kernel-args.h"

#define LINE_BYTES 64

struct line {
	struct line *next;
	char pad[LINE_BYTES - sizeof(struct line *)];
};

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		return 0;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "Cannot pin to CPU: cpu=%d, errno=%d\n", cpu, errno);
		return 1;
	}
	return 0;
}

/* n lines linked in one random cycle (Sattolo's shuffle of their order). Returns the first
 * line, or NULL when they cannot be allocated; the caller frees it. */
static struct line *make_cycle(size_t n)
{
	struct line *lines = aligned_alloc(LINE_BYTES, n * sizeof(*lines));
	size_t *order = malloc(n * sizeof(*order));
	uint64_t seed = 0x9e3779b97f4a7c15u;

	if (!lines || !order) {
		free(lines);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
	}
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = kernel_rand(&seed) % i;
		size_t tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (size_t i = 0; i < n; i++) {
		lines[order[i]].next = &lines[order[(i + 1) % n]];
	}
	free(order);
	return lines;
}

/* Steps of the chase from p; out of line and behind a barrier so the loop stays a chase. */
__attribute__((noinline)) static struct line *walk(struct line *p, uint64_t steps)
{
	for (uint64_t i = 0; i < steps; i++) {
		p = p->next;
	}
	__asm__ __volatile__("" : : "r"(p) : "memory");
	return p;
}

static int run_victim(uint64_t ws, double seconds)
{
	size_t n = ws / LINE_BYTES ? ws / LINE_BYTES : 1;
	struct line *lines = make_cycle(n);
	struct line *p;
	uint64_t accesses = 0, cpu0, wall0, end, chunk = 4096;

	if (!lines) {
		fprintf(stderr, "Cannot allocate the victim's working set: bytes=%" PRIu64 "\n",
			ws);
		return 1;
	}
	p = walk(lines, 4 * n); /* warm: the set in the cache before the clock starts */
	wall0 = now_ns(CLOCK_MONOTONIC);
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	end = wall0 + (uint64_t)(seconds * 1e9);
	while (now_ns(CLOCK_MONOTONIC) < end) {
		p = walk(p, chunk);
		accesses += chunk;
	}
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	wall0 = now_ns(CLOCK_MONOTONIC) - wall0;
	printf("victim ws %" PRIu64 " accesses %" PRIu64 " cpu_ns %" PRIu64 " wall_ns %" PRIu64
	       " ns_per_access %.4f\n",
	       ws, accesses, cpu0, wall0, (double)cpu0 / (double)accesses);
	free(lines);
	return 0;
}

/* Plays target (or, when plain, a run of its CPU time) again and again for seconds. */
static int run_corunner(const struct dps_cache_target *t, int plain, double seconds)
{
	struct dps_cache_result res;
	uint64_t plays = 0, over = 0, kernel_ns = 0, cpu0, end;
	char err[256];
	struct dps_config cfg;

	dps_config_default(&cfg);
	cfg.quiet = true;
	if (dps_init(&cfg, err, sizeof(err)) != DPS_OK) {
		fprintf(stderr, "dps: %s\n", err);
		return 1;
	}
	cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	while (now_ns(CLOCK_MONOTONIC) < end) {
		if (plain) {
			dps_run_ns(t->cpu_ns, DPS_RUN_CPU);
		} else {
			if (dps_cache_play(t, NULL, &res, err, sizeof(err)) != DPS_OK) {
				fprintf(stderr, "%s\n", err);
				return 1;
			}
			over += res.over;
			kernel_ns += res.kernel_cpu_ns;
		}
		plays++;
	}
	printf("%s plays %" PRIu64 " cpu_ns %" PRIu64 " over %" PRIu64 " kernel_cpu_ns %" PRIu64
	       "\n",
	       plain ? "plain" : "stub", plays, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0, over,
	       kernel_ns);
	dps_cache_free();
	return 0;
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s victim --ws BYTES --seconds S [--cpu N]\n"
		"       %s stub --seconds S [--cpu N] ACCESSES STORES D1_MISSES LL_MISSES CPU_NS\n"
		"       %s plain --seconds S [--cpu N] CPU_NS\n",
		argv0, argv0, argv0);
	return 2;
}

int main(int argc, char **argv)
{
	struct dps_cache_target t = {0};
	uint64_t ws = 0, nums[5];
	double seconds = 0;
	int cpu = -1, n_nums = 0, i;
	const char *mode = argc > 1 ? argv[1] : "";

	for (i = 2; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--ws") && kernel_parse_u64(v, UINT64_C(1) << 34, &ws)) {
			i++;
		} else if (!strcmp(argv[i], "--seconds") && v && (seconds = atof(v)) > 0) {
			i++;
		} else if (!strcmp(argv[i], "--cpu") && v && *v >= '0' && *v <= '9') {
			cpu = atoi(v);
			i++;
		} else if (n_nums < 5 && *argv[i] >= '0' && *argv[i] <= '9') {
			nums[n_nums++] = strtoull(argv[i], NULL, 10);
		} else {
			return usage(argv[0]);
		}
	}
	if (seconds <= 0) {
		return usage(argv[0]);
	}
	if (!strcmp(mode, "victim") && ws && !n_nums) {
		return pin_to_cpu(cpu) ? 1 : run_victim(ws, seconds);
	}
	if (!strcmp(mode, "stub") && n_nums == 5) {
		t = (struct dps_cache_target){.accesses = nums[0],
					      .stores = nums[1],
					      .d1_misses = nums[2],
					      .ll_misses = nums[3],
					      .cpu_ns = nums[4]};
		return pin_to_cpu(cpu) ? 1 : run_corunner(&t, 0, seconds);
	}
	if (!strcmp(mode, "plain") && n_nums == 1 && nums[0]) {
		t.cpu_ns = nums[0];
		return pin_to_cpu(cpu) ? 1 : run_corunner(&t, 1, seconds);
	}
	return usage(argv[0]);
}
