/* SPDX-License-Identifier: MIT */
/*
 * The classic bounded buffer on two POSIX semaphores (bench/whatif-sync.sh, program "semring",
 * held out: not used to tune anything): a producer and a consumer share a ring of SLOTS slots;
 * `empty` counts the free slots (starts at SLOTS), `full` the items (starts at 0). The
 * producer computes an item, waits for a free slot, stores the item, posts `full`; the
 * consumer waits for an item, takes it, posts `empty`, computes on it. The slower of the two
 * sets the pace; the faster blocks on an empty or a full ring.
 *
 * Per item: the producer PRODUCE units, the consumer CONSUME units, each times its scale (ids:
 * 0 the producer, 1 the consumer).
 *
 * Annotated, the ring is a queue of SLOTS items (dps_queue_init(ring, SLOTS)): dps_produce
 * once the item is stored, dps_consume once it is taken, each right *before* the sem_post that
 * lets the other side go on: after it, the other thread could run and say so first, and the
 * trace would show a take from an empty ring, or a put into a full one.
 *
 * Usage: dps-sync-semring [--items N] [--slots C] [--work PRODUCE,CONSUME] [--scale ID=S]...
 *                         [--unit ITERATIONS]
 * Prints "sync-semring: items=N sum=S annot=dps|none" and exits 0; 1 when a thread cannot
 * start or the ring cannot be allocated, 2 on bad usage. Threads: producer, consumer.
 */
#include "annot.h"
#include "common.h"

#include <errno.h>
#include <getopt.h>
#include <semaphore.h>
#include <stdlib.h>

#define MAX_SLOTS 1000000

struct ring {
	struct sb_common common;
	unsigned long items;
	unsigned long slots;
	double work[2]; /* produce, consume: units per item */
	sem_t empty;	/* free slots */
	sem_t full;	/* items stored */
	long *slot;	/* owned: the ring, SLOTS of them */
	long sum;	/* the consumer's, read by main after the join */
};

static void wait_sem(sem_t *sem)
{
	while (sem_wait(sem) == -1 && errno == EINTR) {
	}
}

static void *run_producer(void *arg)
{
	struct ring *rg = arg;
	double units = rg->work[0] * rg->common.scale[0];
	unsigned long in = 0;

	sb_name_thread("producer");
	for (unsigned long i = 0; i < rg->items; i++) {
		sb_work(&rg->common, units);
		wait_sem(&rg->empty);
		rg->slot[in] = (long)i;
		in = (in + 1) % rg->slots;
		dps_produce(rg->slot);
		sem_post(&rg->full);
	}
	return NULL;
}

static void *run_consumer(void *arg)
{
	struct ring *rg = arg;
	double units = rg->work[1] * rg->common.scale[1];
	unsigned long out = 0;

	sb_name_thread("consumer");
	for (unsigned long i = 0; i < rg->items; i++) {
		long item;

		wait_sem(&rg->full);
		item = rg->slot[out];
		out = (out + 1) % rg->slots;
		dps_consume(rg->slot);
		sem_post(&rg->empty);
		sb_work(&rg->common, units);
		rg->sum += item;
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(
	    out,
	    "usage: %s [--items N] [--slots C] [--work PRODUCE,CONSUME] [--scale ID=S]...\n"
	    "          [--unit ITERATIONS]\n"
	    "  defaults: 400 items, 8 slots, 0.6 units to produce an item and 1 to consume it,\n"
	    "  scale 1 (0: the producer, 1: the consumer), a unit of 1000000 loop iterations\n",
	    prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"items", required_argument, NULL, 'n'},
	    {"slots", required_argument, NULL, 'c'},
	    {"work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct ring rg = {.items = 400, .slots = 8, .work = {0.6, 1.0}};
	pthread_t producer, consumer;
	int opt;

	sb_common_init(&rg.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, 100000000, &rg.items)) {
				fprintf(stderr, "%s: --items wants a positive count\n",
					rg.common.prog);
				return 2;
			}
			break;
		case 'c':
			if (sb_parse_count(optarg, MAX_SLOTS, &rg.slots)) {
				fprintf(stderr, "%s: --slots wants 1 to %d\n", rg.common.prog,
					MAX_SLOTS);
				return 2;
			}
			break;
		case 'w':
			if (sb_parse_list(optarg, rg.work, 2) != 2) {
				fprintf(
				    stderr,
				    "%s: --work wants PRODUCE,CONSUME (units >= 0), not \"%s\"\n",
				    rg.common.prog, optarg);
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&rg.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, rg.common.prog);
			return 0;
		default:
			usage(stderr, rg.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, rg.common.prog);
		return 2;
	}
	rg.slot = calloc(rg.slots, sizeof(*rg.slot));
	if (!rg.slot) {
		fprintf(stderr, "%s: out of memory\n", rg.common.prog);
		return 1;
	}
	sem_init(&rg.empty, 0, (unsigned)rg.slots);
	sem_init(&rg.full, 0, 0);
	dps_queue_init(rg.slot, (unsigned)rg.slots);
	if (pthread_create(&consumer, NULL, run_consumer, &rg) ||
	    pthread_create(&producer, NULL, run_producer, &rg)) {
		fprintf(stderr, "%s: cannot start a thread\n", rg.common.prog);
		exit(1);
	}
	pthread_join(producer, NULL);
	pthread_join(consumer, NULL);
	printf("sync-semring: items=%lu sum=%ld annot=%s\n", rg.items, rg.sum,
	       SYNC_BENCH_ANNOT_NAME);
	sem_destroy(&rg.full);
	sem_destroy(&rg.empty);
	free(rg.slot);
	return 0;
}
