/* SPDX-License-Identifier: MIT */
/*
 * A fork-join over rounds with a barrier (bench/whatif-sync.sh, program c): THREADS threads
 * run ROUNDS rounds; in each, every thread works an amount that depends on the values it and
 * its neighbour computed in the round before, writes its new value, and waits at a
 * pthread barrier for the others. A round lasts as long as its slowest thread: which thread
 * arrives last changes from round to round, and with the work factor of one thread
 * (--scale ID=S), so the real program's waits move with S.
 *
 * Thread t's work in a round is ROUND_WORK × (0.25 + 1.5 × u) units, u in [0, 1) from the
 * values (the same sequence in every run, whatever the scale), times its scale.
 *
 * Usage: dps-sync-forkjoin [--threads T] [--rounds R] [--round-work W] [--scale THREAD=S]...
 *                          [--unit ITERATIONS]
 * Prints "sync-forkjoin: threads=T rounds=R check=HEX annot=dps|none" and exits 0; 1 when a
 * thread cannot start, 2 on bad usage. Threads are named part0, part1...
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_THREADS 32

struct forkjoin {
	struct sb_common common;
	unsigned long threads;
	unsigned long rounds;
	double round_work;
	pthread_barrier_t barrier;
	/* value[r % 2][t]: thread t's value after round r - 1; round r writes value[(r + 1) % 2] */
	uint64_t value[2][MAX_THREADS];
};

struct part {
	struct forkjoin *fj; /* borrowed */
	int id;		     /* 0..threads - 1, also the --scale id */
	pthread_t thread;
};

/* splitmix64's finalizer: a well-mixed value from the two inputs and the round. */
static uint64_t mix(uint64_t a, uint64_t b, uint64_t round)
{
	uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b ^ (round + 1));

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *run_part(void *arg)
{
	struct part *pt = arg;
	struct forkjoin *fj = pt->fj;
	unsigned long t = (unsigned long)pt->id;
	double scale = fj->common.scale[pt->id];
	char name[16];

	snprintf(name, sizeof(name), "part%d", pt->id);
	sb_name_thread(name);
	for (unsigned long r = 0; r < fj->rounds; r++) {
		const uint64_t *in = fj->value[r % 2];
		uint64_t next = mix(in[t], in[(t + 1) % fj->threads], r);
		double u = (double)(next >> 11) / 9007199254740992.0;

		sb_work(&fj->common, fj->round_work * (0.25 + 1.5 * u) * scale);
		fj->value[(r + 1) % 2][t] = next;
		dps_arrive(&fj->barrier);
		pthread_barrier_wait(&fj->barrier);
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(
	    out,
	    "usage: %s [--threads T] [--rounds R] [--round-work W] [--scale THREAD=S]...\n"
	    "          [--unit ITERATIONS]\n"
	    "  defaults: 2 threads, 60 rounds, 5 units per thread and round on average, scale 1,\n"
	    "  a unit of 1000000 loop iterations\n",
	    prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"threads", required_argument, NULL, 'n'},
	    {"rounds", required_argument, NULL, 'r'},
	    {"round-work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct forkjoin fj = {.threads = 2, .rounds = 60, .round_work = 5.0};
	struct part parts[MAX_THREADS];
	uint64_t check = 0;
	int opt;

	sb_common_init(&fj.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, MAX_THREADS, &fj.threads)) {
				fprintf(stderr, "%s: --threads wants 1 to %d\n", fj.common.prog,
					MAX_THREADS);
				return 2;
			}
			break;
		case 'r':
			if (sb_parse_count(optarg, 100000000, &fj.rounds)) {
				fprintf(stderr, "%s: --rounds wants a positive count\n",
					fj.common.prog);
				return 2;
			}
			break;
		case 'w':
			if (sb_parse_double(optarg, &fj.round_work)) {
				fprintf(stderr, "%s: --round-work wants units >= 0\n",
					fj.common.prog);
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&fj.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, fj.common.prog);
			return 0;
		default:
			usage(stderr, fj.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, fj.common.prog);
		return 2;
	}
	for (unsigned long t = 0; t < fj.threads; t++) {
		fj.value[0][t] = t + 1;
	}
	pthread_barrier_init(&fj.barrier, NULL, (unsigned)fj.threads);
	dps_barrier_init(&fj.barrier, (unsigned)fj.threads);
	for (unsigned long t = 0; t < fj.threads; t++) {
		parts[t] = (struct part){.fj = &fj, .id = (int)t};
		if (pthread_create(&parts[t].thread, NULL, run_part, &parts[t])) {
			/* The threads already started would wait at the barrier forever. */
			fprintf(stderr, "%s: cannot start thread %lu\n", fj.common.prog, t);
			exit(1);
		}
	}
	for (unsigned long t = 0; t < fj.threads; t++) {
		pthread_join(parts[t].thread, NULL);
	}
	for (unsigned long t = 0; t < fj.threads; t++) {
		check ^= fj.value[fj.rounds % 2][t];
	}
	printf("sync-forkjoin: threads=%lu rounds=%lu check=%016" PRIx64 " annot=%s\n", fj.threads,
	       fj.rounds, check, SYNC_BENCH_ANNOT_NAME);
	pthread_barrier_destroy(&fj.barrier);
	return 0;
}
