/* SPDX-License-Identifier: MIT */
/*
 * Two workers in rounds on a barrier (bench/whatif-sync.sh, program "barrier2", held out: not
 * used to tune anything): main creates the two workers and joins them, nothing more; the
 * workers run R rounds, each ended by pthread_barrier_wait. worker0's work is the same every
 * round; worker1's depends on the values both computed in the round before (the data), so
 * which of the two arrives last changes from round to round, and with worker1's work factor
 * (--scale 1=S).
 *
 * Per round: worker0 W0 units; worker1 W1 × (0.75 + 0.5 u) units, u in [0, 1) from the last
 * round's values (the same sequence in every run, whatever the speeds); each times its scale
 * (ids: 0 worker0, 1 worker1).
 *
 * Usage: dps-sync-barrier2 [--rounds R] [--work W0,W1] [--scale ID=S]... [--unit ITERATIONS]
 * Prints "sync-barrier2: rounds=R check=HEX annot=dps|none" and exits 0; 1 when a thread
 * cannot start, 2 on bad usage. Workers: worker0, worker1.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#define WORKERS 2

struct rounds {
	struct sb_common common;
	unsigned long rounds;
	double work[WORKERS];
	pthread_barrier_t barrier;
	/* value[r % 2][t]: worker t's value after round r - 1; round r writes value[(r + 1) % 2] */
	uint64_t value[2][WORKERS];
};

struct worker {
	struct rounds *rd; /* borrowed */
	int id;		   /* 0 or 1, also the --scale id */
	pthread_t thread;
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct rounds *rd = w->rd;
	double scale = rd->common.scale[w->id];
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w->id);
	sb_name_thread(name);
	for (unsigned long r = 0; r < rd->rounds; r++) {
		const uint64_t *in = rd->value[r % 2];
		uint64_t next = sb_mix(in[w->id], in[1 - w->id], r);
		double units = rd->work[w->id];

		if (w->id == 1) {
			units *= 0.75 + 0.5 * sb_fraction(sb_mix(in[0], in[1], r));
		}
		sb_work(&rd->common, units * scale);
		rd->value[(r + 1) % 2][w->id] = next;
		dps_arrive(&rd->barrier);
		pthread_barrier_wait(&rd->barrier);
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--rounds R] [--work W0,W1] [--scale ID=S]... [--unit ITERATIONS]\n"
		"  defaults: 70 rounds, worker0 5 units a round, worker1 4 on average (3 to 5),\n"
		"  scale 1 (0: worker0, 1: worker1), a unit of 1000000 loop iterations\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"rounds", required_argument, NULL, 'r'}, {"work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},  {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	struct rounds rd = {.rounds = 70, .work = {5.0, 4.0}, .value = {{1, 2}}};
	struct worker workers[WORKERS];
	uint64_t check;
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
	pthread_barrier_init(&rd.barrier, NULL, WORKERS);
	dps_barrier_init(&rd.barrier, WORKERS);
	for (int t = 0; t < WORKERS; t++) {
		workers[t] = (struct worker){.rd = &rd, .id = t};
		if (pthread_create(&workers[t].thread, NULL, run_worker, &workers[t])) {
			/* The worker already started would wait at the barrier forever. */
			fprintf(stderr, "%s: cannot start worker %d\n", rd.common.prog, t);
			exit(1);
		}
	}
	for (int t = 0; t < WORKERS; t++) {
		pthread_join(workers[t].thread, NULL);
	}
	check = rd.value[rd.rounds % 2][0] ^ rd.value[rd.rounds % 2][1];
	printf("sync-barrier2: rounds=%lu check=%016" PRIx64 " annot=%s\n", rd.rounds, check,
	       SYNC_BENCH_ANNOT_NAME);
	pthread_barrier_destroy(&rd.barrier);
	return 0;
}
