/* SPDX-License-Identifier: MIT */
/*
 * The co-running victim (doc/cache.md, "Checked by a co-running victim"; issue 28's check (b)):
 * a thread that walks a fixed working set living in the last-level cache, and the two
 * co-runners bench/cache-victim.sh sets beside it besides the original kernels: the cache stub
 * playing a kernel's captured figures, and a register-only run of the same CPU time.
 *
 *	dps-bench-cache-victim victim --ws BYTES --seconds S [--cpu N] [--slots PID,...]
 *		[--turn-ns NS] [--passes N]
 *	dps-bench-cache-victim stub --seconds S [--cpu N] [--footprint BYTES] ACCESSES STORES
 *	                       D1_MISSES LL_MISSES CPU_NS
 *	dps-bench-cache-victim plain --seconds S [--cpu N] CPU_NS
 *
 * victim: a random cyclic pointer chase over ws bytes of 64-byte lines (neither a prefetcher
 * nor out-of-order execution hides its latency, so every line a co-runner pushed out of the
 * cache costs it a refill). Victim and co-runners take turns on one CPU, as threads
 * time-sharing it do, but turns the victim sets, so that the conditions compared are
 * interleaved turn by turn (the machine's other load then weighs on all of them alike): the
 * slots (a co-runner's pid, or 0 for a turn alone), each once a round in a new random order
 * (in a fixed order, a turn alone after another turn alone came out 8 % faster than one
 * after a register-only co-runner's turn, in the same seconds); in a turn
 * the slot's co-runner (the others stopped by SIGSTOP) runs for NS (1.5 ms, about a time slice
 * of this kernel's scheduler) while the victim sleeps, is stopped, and the victim walks its
 * set N times (8: a short turn, a fifth of the co-runner's, so that refilling what the co-runner
 * pushed out weighs on it), timed by the monotonic clock. Its figure, per slot, is the turns'
 * mean ns per access with the slowest and fastest tenth left out: another process on the CPU,
 * which spoils a few turns, does not move it, and the co-runner's turn is not in it, only what
 * the co-runner's accesses did to the caches the victim comes back to (the median and the
 * plain mean are printed too).
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
#include <signal.h>
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

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define MAX_SLOTS 8

/* A new random order of the slots for each round of turns (Fisher-Yates): a turn's cost must
 * not depend on which slot came before it. */
static void shuffle_slots(size_t *order, size_t n, uint64_t *seed)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = kernel_rand(seed) % (i + 1);
		size_t tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
}

/*
 * The victim's turns, every slot once a round, in a random order: a slot's co-runner (pids[i];
 * 0: none, the victim alone) is let run for turn_ns (SIGCONT, the victim asleep: on one CPU the
 * co-runner has it to itself), stopped (SIGSTOP), and the victim walks its whole set `passes`
 * times, timed; every other co-runner stays stopped. For seconds; prints per slot the turns'
 * ns per access: mean, median, and mean without the slowest and fastest tenth. Alone, the victim
 * sleeps the same turn_ns and the CPU idles.
 */
static int run_victim(uint64_t ws, double seconds, const pid_t *pids, size_t n_slots,
		      uint64_t turn_ns, uint64_t passes)
{
	size_t n = ws / LINE_BYTES ? ws / LINE_BYTES : 1, max_turns, n_turns[MAX_SLOTS] = {0};
	struct line *lines = make_cycle(n);
	struct line *p;
	struct timespec turn = {.tv_sec = (time_t)(turn_ns / 1000000000u),
				.tv_nsec = (long)(turn_ns % 1000000000u)};
	uint64_t end, steps = passes * n;
	double *per_access[MAX_SLOTS] = {0}, sum[MAX_SLOTS] = {0};
	size_t order[MAX_SLOTS];
	uint64_t seed = 0x2545f4914f6cdd1du;
	int ret = 1;

	max_turns = (size_t)(seconds * 1e9 / (double)turn_ns) / n_slots + 2;
	for (size_t i = 0; i < n_slots; i++) {
		per_access[i] = malloc(max_turns * sizeof(double));
		if (!per_access[i]) {
			goto free_turns;
		}
		if (pids[i] > 0 && kill(pids[i], SIGSTOP)) {
			fprintf(stderr, "Cannot stop the co-runner: pid=%d, errno=%d\n",
				(int)pids[i], errno);
			goto free_turns;
		}
	}
	if (!lines) {
		fprintf(stderr, "Cannot allocate the victim's working set: bytes=%" PRIu64 "\n",
			ws);
		goto free_turns;
	}
	for (size_t i = 0; i < n_slots; i++) {
		order[i] = i;
	}
	p = walk(lines, 4 * n); /* warm: the set in the cache before the first turn */
	end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	for (size_t t = 0; now_ns(CLOCK_MONOTONIC) < end; t++) {
		size_t slot;
		uint64_t t0;

		if (t % n_slots == 0) {
			shuffle_slots(order, n_slots, &seed);
		}
		slot = order[t % n_slots];
		if (n_turns[slot] == max_turns) {
			break;
		}
		if (pids[slot] > 0) {
			kill(pids[slot], SIGCONT);
		}
		nanosleep(&turn, NULL);
		if (pids[slot] > 0) {
			kill(pids[slot], SIGSTOP);
		}
		t0 = now_ns(CLOCK_MONOTONIC);
		p = walk(p, steps);
		per_access[slot][n_turns[slot]] =
		    (double)(now_ns(CLOCK_MONOTONIC) - t0) / (double)steps;
		sum[slot] += per_access[slot][n_turns[slot]++];
	}
	printf("victim ws %" PRIu64 " turn_ns %" PRIu64 " passes %" PRIu64, ws, turn_ns, passes);
	for (size_t i = 0; i < n_slots; i++) {
		size_t cut = n_turns[i] / 10, kept = n_turns[i] - 2 * cut;
		double trimmed = 0;

		qsort(per_access[i], n_turns[i], sizeof(double), compare_double);
		for (size_t j = cut; j < n_turns[i] - cut; j++) {
			trimmed += per_access[i][j];
		}
		printf(" slot%zu turns %zu mean %.4f median %.4f trimmed %.4f", i, n_turns[i],
		       n_turns[i] ? sum[i] / (double)n_turns[i] : 0.0,
		       n_turns[i] ? per_access[i][n_turns[i] / 2] : 0.0,
		       kept ? trimmed / (double)kept : 0.0);
	}
	printf("\n");
	ret = 0;
free_turns:
	for (size_t i = 0; i < n_slots; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGCONT); /* left running: the caller ends them */
		}
		free(per_access[i]);
	}
	free(lines);
	return ret;
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
		"usage: %s victim --ws BYTES --seconds S [--cpu N] [--slots PID,...] [--turn-ns NS]"
		" [--passes N]\n"
		"       %s stub --seconds S [--cpu N] [--footprint BYTES] ACCESSES STORES "
		"D1_MISSES LL_MISSES CPU_NS\n"
		"       %s plain --seconds S [--cpu N] CPU_NS\n",
		argv0, argv0, argv0);
	return 2;
}

int main(int argc, char **argv)
{
	struct dps_cache_target t = {0};
	uint64_t ws = 0, nums[5], turn_ns = 1500000, passes = 8, footprint = 0;
	pid_t pids[MAX_SLOTS];
	size_t n_slots = 0;
	char *end;
	double seconds = 0;
	int cpu = -1, n_nums = 0, i;
	const char *mode = argc > 1 ? argv[1] : "";

	for (i = 2; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--ws") && kernel_parse_u64(v, UINT64_C(1) << 34, &ws)) {
			i++;
		} else if (!strcmp(argv[i], "--seconds") && v && (seconds = atof(v)) > 0) {
			i++;
		} else if (!strcmp(argv[i], "--slots") && v && !n_slots) {
			/* PID,PID,...: 0 for a turn alone */
			for (const char *c = v; n_slots < MAX_SLOTS; c = end + 1) {
				long pid = strtol(c, &end, 10);

				if (end == c || pid < 0 || (*end && *end != ',')) {
					return usage(argv[0]);
				}
				pids[n_slots++] = (pid_t)pid;
				if (!*end) {
					break;
				}
			}
			i++;
		} else if (!strcmp(argv[i], "--turn-ns") &&
			   kernel_parse_u64(v, UINT64_C(1000000000), &turn_ns)) {
			i++;
		} else if (!strcmp(argv[i], "--passes") && kernel_parse_u64(v, 100000, &passes)) {
			i++;
		} else if (!strcmp(argv[i], "--footprint") &&
			   kernel_parse_u64(v, UINT64_C(1) << 40, &footprint)) {
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
	if (!n_slots) {
		pids[n_slots++] = 0;
	}
	if (!strcmp(mode, "victim") && ws && !n_nums) {
		return pin_to_cpu(cpu) ? 1
				       : run_victim(ws, seconds, pids, n_slots, turn_ns, passes);
	}
	if (!strcmp(mode, "stub") && n_nums == 5) {
		t = (struct dps_cache_target){.accesses = nums[0],
					      .stores = nums[1],
					      .d1_misses = nums[2],
					      .ll_misses = nums[3],
					      .cpu_ns = nums[4],
					      .footprint_bytes = footprint};
		return pin_to_cpu(cpu) ? 1 : run_corunner(&t, 0, seconds);
	}
	if (!strcmp(mode, "plain") && n_nums == 1 && nums[0]) {
		t.cpu_ns = nums[0];
		return pin_to_cpu(cpu) ? 1 : run_corunner(&t, 1, seconds);
	}
	return usage(argv[0]);
}
