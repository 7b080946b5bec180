/* SPDX-License-Identifier: MIT */
/*
 * OpenMP rounds with a critical section per item (bench/whatif-sync.sh, program "ompcrit",
 * held out: not used to tune anything): one parallel region of 2 threads runs R rounds of
 * `omp for schedule(static)` over N items; each item is computed, then merged into the round's
 * result in an `omp critical` section, so the two threads also contend for the section. The
 * loop's implicit barrier ends the round. Item i costs more the larger i is, so the static
 * schedule gives thread 1 (the second half) more work than thread 0, the main thread: made
 * slower, thread 0 is what the rounds wait for once its half takes longer than thread 1's.
 *
 * Item i of N costs ITEM_WORK × (2N + i) / (2N + (N - 1) / 2) units (ITEM_WORK on average), its
 * merge MERGE units in the critical section; each times the scale of the thread running it
 * (--scale 0=S: omp0, the main thread; --scale 1=S: omp1). Thread 1's half is about 1.2 times
 * thread 0's at the defaults.
 *
 * Usage: dps-sync-ompcrit [--rounds R] [--items N] [--item-work W] [--merge-work W]
 *                         [--scale THREAD=S]... [--unit ITERATIONS]
 * Prints "sync-ompcrit: rounds=R items=N check=HEX annot=none" and exits 0; 2 on bad usage.
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

struct study {
	struct sb_common common;
	unsigned long rounds;
	unsigned long items;
	double item_work;
	double merge_work;
};

static double item_units(const struct study *st, unsigned long i)
{
	double n = (double)st->items;

	return st->item_work * (2 * n + (double)i) / (2 * n + (n - 1) / 2);
}

/* The rounds, inside the parallel region. Returns the result of every round, folded. */
static uint64_t run_rounds(const struct study *st)
{
	uint64_t result = 1;

#pragma omp parallel num_threads(THREADS) shared(result)
	{
		int tid = omp_get_thread_num();
		double scale = st->common.scale[tid];
		char name[16];

		snprintf(name, sizeof(name), "omp%d", tid);
		sb_name_thread(name);
		for (unsigned long r = 0; r < st->rounds; r++) {
#pragma omp for schedule(static)
			for (unsigned long i = 0; i < st->items; i++) {
				uint64_t v;

				sb_work(&st->common, item_units(st, i) * scale);
				v = sb_mix(i, r, 3);
#pragma omp critical
				{
					sb_work(&st->common, st->merge_work * scale);
					result += v;
				}
			}
		}
	}
	return result;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--rounds R] [--items N] [--item-work W] [--merge-work W]\n"
		"          [--scale THREAD=S]... [--unit ITERATIONS]\n"
		"  defaults: 40 rounds of 16 items, 1 unit per item on average (growing with the\n"
		"  item's number), 0.2 units per merge, scale 1 (0: omp0, 1: omp1), a unit of\n"
		"  1000000 loop iterations\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"rounds", required_argument, NULL, 'r'},
	    {"items", required_argument, NULL, 'n'},
	    {"item-work", required_argument, NULL, 'w'},
	    {"merge-work", required_argument, NULL, 'm'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct study st = {.rounds = 40, .items = 16, .item_work = 1.0, .merge_work = 0.2};
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
			if (sb_parse_double(optarg, opt == 'w' ? &st.item_work : &st.merge_work)) {
				fprintf(stderr, "%s: --%s wants units >= 0\n", st.common.prog,
					opt == 'w' ? "item-work" : "merge-work");
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
	printf("sync-ompcrit: rounds=%lu items=%lu check=%016" PRIx64 " annot=%s\n", st.rounds,
	       st.items, check, SYNC_BENCH_ANNOT_NAME);
	return 0;
}
