/* SPDX-License-Identifier: MIT */
/*
 * Two workers sharing items through one atomic counter (bench/whatif-sync.sh, program
 * "atomicpool", held out: not used to tune anything): the next item's number is an
 * atomic_fetch_add away, so a worker never blocks, and a faster worker simply takes more of the
 * items (dynamic scheduling without a lock or a queue). worker0 first builds its own index
 * (INDEX units, work of its own) before it joins in; until it does, worker1 takes every item:
 * when worker1 is fast enough to finish them all by then, the index is what the run waits for.
 *
 * Item i costs ITEM_WORK × (0.25 + 1.5 × frac(i × 0.618...)) units (uneven, the same sequence
 * in every run), times the scale of the worker that takes it (ids: 0 worker0, 1 worker1; the
 * index is worker0's, times its scale).
 *
 * Annotated, the counter is a pool (dps_pool_take(&next) right after each take, the one that
 * finds it empty too), so that a replay can give a faster worker more of the items.
 *
 * Usage: dps-sync-atomicpool [--items N] [--item-work W] [--index-work W] [--scale ID=S]...
 *                            [--unit ITERATIONS]
 * Prints "sync-atomicpool: items=N sum=S annot=dps|none" (S: the sum of the items' numbers)
 * and exits 0; 1 when a thread cannot start, 2 on bad usage. Workers: worker0, worker1.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <stdatomic.h>
#include <stdlib.h>

#define WORKERS 2

struct pool {
	struct sb_common common;
	unsigned long items;
	double item_work;
	double index_work;
	atomic_ulong next; /* the next item to take */
};

struct worker {
	struct pool *p; /* borrowed */
	int id;		/* 0 or 1, also the --scale id */
	pthread_t thread;
	unsigned long done; /* the numbers of the items it took, added up; read after the join */
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->p;
	double scale = p->common.scale[w->id];
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w->id);
	sb_name_thread(name);
	if (w->id == 0) {
		sb_work(&p->common, p->index_work * scale);
	}
	for (;;) {
		unsigned long i = atomic_fetch_add(&p->next, 1);

		dps_pool_take(&p->next); /* also the take that finds the pool empty */
		if (i >= p->items) {
			break;
		}
		sb_work(&p->common, p->item_work * (0.25 + 1.5 * sb_golden(i)) * scale);
		w->done += i;
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--items N] [--item-work W] [--index-work W] [--scale ID=S]...\n"
		"          [--unit ITERATIONS]\n"
		"  defaults: 80 items of 5 units on average, worker0's index 240 units, scale 1\n"
		"  (0: worker0, 1: worker1), a unit of 1000000 loop iterations\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"items", required_argument, NULL, 'n'},
	    {"item-work", required_argument, NULL, 'w'},
	    {"index-work", required_argument, NULL, 'x'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pool p = {.items = 80, .item_work = 5.0, .index_work = 240.0};
	struct worker workers[WORKERS];
	unsigned long sum = 0;
	int opt;

	sb_common_init(&p.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, 100000000, &p.items)) {
				fprintf(stderr, "%s: --items wants a positive count\n",
					p.common.prog);
				return 2;
			}
			break;
		case 'w':
		case 'x':
			if (sb_parse_double(optarg, opt == 'w' ? &p.item_work : &p.index_work)) {
				fprintf(stderr, "%s: --%s wants units >= 0\n", p.common.prog,
					opt == 'w' ? "item-work" : "index-work");
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&p.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, p.common.prog);
			return 0;
		default:
			usage(stderr, p.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, p.common.prog);
		return 2;
	}
	atomic_init(&p.next, 0);
	for (int t = 0; t < WORKERS; t++) {
		workers[t] = (struct worker){.p = &p, .id = t};
		if (pthread_create(&workers[t].thread, NULL, run_worker, &workers[t])) {
			fprintf(stderr, "%s: cannot start worker %d\n", p.common.prog, t);
			exit(1);
		}
	}
	for (int t = 0; t < WORKERS; t++) {
		pthread_join(workers[t].thread, NULL);
		sum += workers[t].done;
	}
	printf("sync-atomicpool: items=%lu sum=%lu annot=%s\n", p.items, sum,
	       SYNC_BENCH_ANNOT_NAME);
	return 0;
}
