/* SPDX-License-Identifier: MIT */
/*
 * OpenMP rounds with a dynamic schedule (bench/whatif-sync.sh, program "omp-dynamic"): R
 * rounds; in each, the main thread prepares the round alone (serial code between two parallel
 * regions), then `#pragma omp parallel for schedule(dynamic, 1) num_threads(2)` shares the
 * round's N items of uneven sizes: each thread takes the next item whenever it is free, so a
 * thread made slower (--scale 1=S) takes fewer of them and the other the rest. The round ends
 * with the loop's implicit barrier; its results are summed with a reduction.
 *
 * Item i of round r costs ITEM_WORK × (0.25 + 1.5 × frac((r × N + i) × 0.618...)) units (the
 * same uneven sequence in every run), times the scale of the thread that runs it; the serial
 * part SERIAL units a round, times thread 0's scale (--scale 0=S: omp0, the main thread;
 * --scale 1=S: omp1, libgomp's worker, the same thread in every region).
 *
 * Usage: dps-sync-omp-dynamic [--rounds R] [--items N] [--item-work W] [--serial-work W]
 *                             [--scale THREAD=S]... [--unit ITERATIONS]
 * Prints "sync-omp-dynamic: rounds=R items=N check=HEX annot=none" and exits 0; 2 on bad usage.
 * The threads name themselves omp0 and omp1 by their OpenMP thread number. No annotation
 * describes OpenMP's constructs: one variant only, without.
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
	double serial_work;
};

/* Names the calling thread once: libgomp keeps its worker from one region to the next. */
static void name_thread_once(int tid)
{
	static _Thread_local int named;
	char name[16];

	if (!named) {
		snprintf(name, sizeof(name), "omp%d", tid);
		sb_name_thread(name);
		named = 1;
	}
}

static uint64_t run_rounds(const struct study *st)
{
	uint64_t check = 1;

	name_thread_once(0);
	for (unsigned long r = 0; r < st->rounds; r++) {
		uint64_t input;
		uint64_t sum = 0;

		sb_work(&st->common, st->serial_work * st->common.scale[0]);
		input = sb_mix(check, r, r);
#pragma omp parallel for schedule(dynamic, 1) num_threads(THREADS) reduction(+ : sum)
		for (unsigned long i = 0; i < st->items; i++) {
			int tid = omp_get_thread_num();

			name_thread_once(tid);
			sb_work(&st->common, st->item_work *
						 (0.25 + 1.5 * sb_golden(r * st->items + i)) *
						 st->common.scale[tid]);
			sum += sb_mix(input, i, r);
		}
		check ^= sum;
	}
	return check;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--rounds R] [--items N] [--item-work W] [--serial-work W]\n"
		"          [--scale THREAD=S]... [--unit ITERATIONS]\n"
		"  defaults: 40 rounds of 12 items, 1.5 units per item on average, 1 unit of\n"
		"  serial work a round, scale 1 (0: omp0, 1: omp1), a unit of 1000000 loop\n"
		"  iterations\n",
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
	struct study st = {.rounds = 40, .items = 12, .item_work = 1.5, .serial_work = 1.0};
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
	printf("sync-omp-dynamic: rounds=%lu items=%lu check=%016" PRIx64 " annot=%s\n", st.rounds,
	       st.items, check, SYNC_BENCH_ANNOT_NAME);
	return 0;
}
