/* SPDX-License-Identifier: MIT */
/*
 * OpenMP rounds over a triangular loop (bench/whatif-sync.sh, program "omp-static"): one
 * parallel region of 2 threads runs R rounds; in each, the master prepares the round alone
 * (`omp master`, then a barrier), the two threads share the round's N items with
 * `omp for schedule(static)` (thread 0 the first half, thread 1 the second) and each adds its
 * partial result to the round's total in an `omp critical` section; a barrier ends the round.
 * Item i costs more the larger i is (a triangular loop, as a matrix's rows below the
 * diagonal), so the static schedule gives thread 1 more work than thread 0: while thread 1
 * is faster than that, thread 0 sets the pace and thread 1's speed does not matter.
 *
 * Item i of N costs ITEM_WORK × (N + i) / (N + (N - 1) / 2) units (ITEM_WORK on average); the
 * master's round SERIAL units, a critical section MERGE units; each times the scale of the
 * thread running it (--scale 0=S: the master, omp0; --scale 1=S: omp1). Thread 1 gets about
 * 1.4 times thread 0's share at the defaults.
 *
 * Usage: dps-sync-omp-static [--rounds R] [--items N] [--item-work W] [--serial-work W]
 *                            [--scale THREAD=S]... [--unit ITERATIONS]
 * Prints "sync-omp-static: rounds=R items=N check=HEX annot=none" and exits 0; 2 on bad usage.
 * The threads name themselves omp0 (the main thread) and omp1 by their OpenMP thread number.
 * No annotation describes OpenMP's constructs: one variant only, without.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <inttypes.h>
#include <omp.h>
#include <stdint.h>

#define THREADS 2
/* A critical section's work, in units. */
#define MERGE_UNITS 0.2

struct study {
	struct sb_common common;
	unsigned long rounds;
	unsigned long items;
	double item_work;
	double serial_work;
};

static double item_units(const struct study *st, unsigned long i)
{
	double n = (double)st->items;

	return st->item_work * (n + (double)i) / (n + (n - 1) / 2);
}

/* The rounds, inside the parallel region. Returns the last round's total. */
static uint64_t run_rounds(const struct study *st)
{
	uint64_t input = 1;
	uint64_t total = 0;

#pragma omp parallel num_threads(THREADS) shared(input, total)
	{
		int tid = omp_get_thread_num();
		double scale = st->common.scale[tid];
		char name[16];

		snprintf(name, sizeof(name), "omp%d", tid);
		sb_name_thread(name);
		for (unsigned long r = 0; r < st->rounds; r++) {
			uint64_t part = 0;

#pragma omp master
			{
				sb_work(&st->common, st->serial_work * scale);
				input = sb_mix(input, total, r);
				total = 0;
			}
#pragma omp barrier
#pragma omp for schedule(static) nowait
			for (unsigned long i = 0; i < st->items; i++) {
				sb_work(&st->common, item_units(st, i) * scale);
				part += sb_mix(input, i, r);
			}
#pragma omp critical
			{
				sb_work(&st->common, MERGE_UNITS * scale);
				total += part;
			}
#pragma omp barrier
		}
	}
	return total;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--rounds R] [--items N] [--item-work W] [--serial-work W]\n"
		"          [--scale THREAD=S]... [--unit ITERATIONS]\n"
		"  defaults: 40 rounds of 16 items, 1 unit per item on average (growing with the\n"
		"  item's number), 1 unit of the master's serial work a round, scale 1 (0: omp0,\n"
		"  1: omp1), a unit of 1000000 loop iterations\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"rounds", required_argument, NULL, 'r'},
	    {"items", required_argument, NULL, 'n'},
	    {"item-work", required_argument, NULL, 'w'},
	    {"serial-work", required_argument, NULL, 'm'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct study st = {.rounds = 40, .items = 16, .item_work = 1.0, .serial_work = 1.0};
	uint64_t check;
	int opt;

	sb_common_init(&st.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (sb_parse_count(optarg, 100000000, &st.rounds)) {
				fprintf(stderr, "%s: --rounds wants a positive count\n",
					st.common.prog);
				return 2;
			}
			break;
		case 'n':
			if (sb_parse_count(optarg, 1000000, &st.items)) {
				fprintf(stderr, "%s: --items wants a positive count\n",
					st.common.prog);
				return 2;
			}
			break;
		case 'w':
		case 'm':
			if (sb_parse_double(optarg, opt == 'w' ? &st.item_work : &st.serial_work)) {
				fprintf(stderr, "%s: --%s wants units >= 0\n", st.common.prog,
					opt == 'w' ? "item-work" : "serial-work");
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&st.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, st.common.prog);
			return 0;
		default:
			usage(stderr, st.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, st.common.prog);
		return 2;
	}
	check = run_rounds(&st);
	printf("sync-omp-static: rounds=%lu items=%lu check=%016" PRIx64 " annot=%s\n", st.rounds,
	       st.items, check, SYNC_BENCH_ANNOT_NAME);
	return 0;
}
