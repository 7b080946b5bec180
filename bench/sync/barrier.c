/* SPDX-License-Identifier: MIT */
/*
 * Rounds of a main thread and two workers on one barrier (bench/whatif-sync.sh, program
 * "barrier"): three parties on one pthread barrier, crossed twice a round. In each round main
 * prepares the round's input alone (serial work) while the workers wait at the barrier; all
 * three cross it; the two workers process the input while main waits at the barrier; all three
 * cross it again, and main folds the workers' results into the next round's input. worker0's
 * work is about the same every round; worker1's depends on the input, so which worker arrives
 * last changes from round to round, and with worker1's work factor (--scale 1=S): made faster,
 * worker1 stops mattering once worker0 is last in every round.
 *
 * Per round: main SERIAL units; worker0 W0 × (0.9 + 0.2 u0) units; worker1 W1 × (0.6 + 0.8 u1)
 * units, u0 and u1 in [0, 1) from the round's input (the same sequence in every run, whatever
 * the speeds); each times its thread's scale. Scale ids: 0 worker0, 1 worker1, 2 main.
 *
 * Usage: dps-sync-barrier [--rounds R] [--serial-work W] [--work W0,W1] [--scale ID=S]...
 *                         [--unit ITERATIONS]
 * Prints "sync-barrier: rounds=R check=HEX annot=dps|none" and exits 0; 1 when a thread cannot
 * start, 2 on bad usage. Threads: main (the program's name), worker0, worker1.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#define WORKERS 2
#define PARTIES (WORKERS + 1)
#define MAIN_ID 2

struct rounds {
	struct sb_common common;
	unsigned long rounds;
	double serial_work;
	double work[WORKERS];
	pthread_barrier_t barrier;
	/* Written by main before the first crossing of a round, read by the workers after it. */
	uint64_t input;
	/* Written by worker t before the second crossing, read by main after it. */
	uint64_t result[WORKERS];
};

struct worker {
	struct rounds *rd; /* borrowed */
	int id;		   /* 0 or 1, also the --scale id */
	pthread_t thread;
};

/* The barrier, as both sides cross it: the annotation right before the real wait. */
static void cross(struct rounds *rd)
{
	dps_arrive(&rd->barrier);
	pthread_barrier_wait(&rd->barrier);
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct rounds *rd = w->rd;
	double scale = rd->common.scale[w->id];
	/* worker0's work hardly varies; worker1's spans 0.6 to 1.4 times its mean. */
	double low = w->id == 0 ? 0.9 : 0.6;
	double span = w->id == 0 ? 0.2 : 0.8;
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w->id);
	sb_name_thread(name);
	for (unsigned long r = 0; r < rd->rounds; r++) {
		uint64_t v;

		cross(rd); /* the round's input is ready */
		v = sb_mix(rd->input, (uint64_t)w->id, r);
		sb_work(&rd->common, rd->work[w->id] * (low + span * sb_fraction(v)) * scale);
		rd->result[w->id] = sb_mix(v, rd->input, r + 1);
		cross(rd); /* main may read the results */
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--rounds R] [--serial-work W] [--work W0,W1] [--scale ID=S]...\n"
		"          [--unit ITERATIONS]\n"
		"  defaults: 50 rounds, main's serial work 2 units a round, workers 4,5 units a\n"
		"  round on average, scale 1 (ids: 0 worker0, 1 worker1, 2 main), a unit of\n"
		"  1000000 loop iterations\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"rounds", required_argument, NULL, 'r'},
	    {"serial-work", required_argument, NULL, 'm'},
	    {"work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct rounds rd = {.rounds = 50, .serial_work = 2.0, .work = {4.0, 5.0}, .input = 1};
	struct worker workers[WORKERS];
	uint64_t check = 0;
	int opt;

	sb_common_init(&rd.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (sb_parse_count(optarg, 100000000, &rd.rounds)) {
				fprintf(stderr, "%s: --rounds wants a positive count\n",
					rd.common.prog);
				return 2;
			}
			break;
		case 'm':
			if (sb_parse_double(optarg, &rd.serial_work)) {
				fprintf(stderr, "%s: --serial-work wants units >= 0\n",
					rd.common.prog);
				return 2;
			}
			break;
		case 'w':
			if (sb_parse_list(optarg, rd.work, WORKERS) != WORKERS) {
				fprintf(stderr, "%s: --work wants W0,W1 (units >= 0), not \"%s\"\n",
					rd.common.prog, optarg);
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&rd.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, rd.common.prog);
			return 0;
		default:
			usage(stderr, rd.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, rd.common.prog);
		return 2;
	}
	pthread_barrier_init(&rd.barrier, NULL, PARTIES);
	dps_barrier_init(&rd.barrier, PARTIES);
	for (int t = 0; t < WORKERS; t++) {
		workers[t] = (struct worker){.rd = &rd, .id = t};
		if (pthread_create(&workers[t].thread, NULL, run_worker, &workers[t])) {
			/* The worker already started would wait at the barrier forever. */
			fprintf(stderr, "%s: cannot start worker %d\n", rd.common.prog, t);
			exit(1);
		}
	}
	for (unsigned long r = 0; r < rd.rounds; r++) {
		sb_work(&rd.common, rd.serial_work * rd.common.scale[MAIN_ID]);
		rd.input = sb_mix(rd.input, check, r);
		cross(&rd); /* the workers start */
		cross(&rd); /* both have written their results */
		check ^= rd.result[0] + 3 * rd.result[1];
		rd.input ^= rd.result[0] ^ rd.result[1];
	}
	for (int t = 0; t < WORKERS; t++) {
		pthread_join(workers[t].thread, NULL);
	}
	printf("sync-barrier: rounds=%lu check=%016" PRIx64 " annot=%s\n", rd.rounds, check,
	       SYNC_BENCH_ANNOT_NAME);
	pthread_barrier_destroy(&rd.barrier);
	return 0;
}
