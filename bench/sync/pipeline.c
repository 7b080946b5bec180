/* SPDX-License-Identifier: MIT */
/*
 * A three-stage pipeline with bounded queues (bench/whatif-sync.sh, program a): stage 1 makes
 * ITEMS items, stage 2 transforms them, stage 3 sums them; between two stages a FIFO of
 * CAPACITY items under a mutex with two condition variables (common.h). Each stage spends its
 * work per item (--work W1,W2,W3 units, times its --scale) before passing the item on, so the
 * slowest stage sets the pace, and a faster stage blocks on a full or an empty queue.
 *
 * Usage: dps-sync-pipeline [--items N] [--capacity C] [--work W1,W2,W3] [--scale STAGE=S]...
 *                          [--unit ITERATIONS]
 * Prints "sync-pipeline: items=N sum=S annot=dps|none" and exits 0; 1 when a thread cannot
 * start, 2 on bad usage. Threads are named stage1, stage2, stage3.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define STAGES 3
/* The item that tells the next stage there is nothing more: items are 0 .. ITEMS - 1. */
#define END_ITEM (-1L)

struct pipeline {
	struct sb_common common;
	unsigned long items;
	double work[STAGES + 1];	   /* units per item, by stage number 1..3 */
	struct sb_queue queue[STAGES - 1]; /* queue[0]: stage 1 → 2, queue[1]: stage 2 → 3 */
	long sum;			   /* stage 3's sum of the items */
};

struct stage {
	struct pipeline *p; /* borrowed */
	int number;	    /* 1..3, also the --scale id */
	pthread_t thread;
};

static void *run_stage(void *arg)
{
	struct stage *st = arg;
	struct pipeline *p = st->p;
	double units = p->work[st->number] * p->common.scale[st->number];
	char name[16];

	snprintf(name, sizeof(name), "stage%d", st->number);
	sb_name_thread(name);
	if (st->number == 1) {
		for (unsigned long i = 0; i < p->items; i++) {
			sb_work(&p->common, units);
			sb_queue_put(&p->queue[0], (long)i);
		}
		sb_queue_put(&p->queue[0], END_ITEM);
		return NULL;
	}
	for (;;) {
		long item = sb_queue_take(&p->queue[st->number - 2]);

		if (item == END_ITEM) {
			break;
		}
		sb_work(&p->common, units);
		if (st->number == 2) {
			sb_queue_put(&p->queue[1], item);
		} else {
			p->sum += item;
		}
	}
	if (st->number == 2) {
		sb_queue_put(&p->queue[1], END_ITEM);
	}
	return NULL;
}

/* Parses "W1,W2,W3" into p->work[1..3]; -1 when it is not three numbers. */
static int parse_work(struct pipeline *p, const char *arg)
{
	char copy[128];
	char *save = NULL;
	char *tok;
	int n = 0;

	if (strlen(arg) >= sizeof(copy)) {
		return -1;
	}
	strcpy(copy, arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == STAGES || sb_parse_double(tok, &p->work[n + 1])) {
			return -1;
		}
		n++;
	}
	return n == STAGES ? 0 : -1;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--items N] [--capacity C] [--work W1,W2,W3] [--scale STAGE=S]...\n"
		"          [--unit ITERATIONS]\n"
		"  defaults: 300 items, capacity 4, work 0.5,1,0.25 units per item, scale 1,\n"
		"  a unit of 1000000 loop iterations\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"items", required_argument, NULL, 'n'},
	    {"capacity", required_argument, NULL, 'c'},
	    {"work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pipeline p = {.items = 300, .work = {0, 0.5, 1.0, 0.25}};
	struct stage stages[STAGES];
	unsigned long capacity = 4;
	int status = 0;
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
		case 'c':
			if (sb_parse_count(optarg, 1000000, &capacity)) {
				fprintf(stderr, "%s: --capacity wants a positive count\n",
					p.common.prog);
				return 2;
			}
			break;
		case 'w':
			if (parse_work(&p, optarg)) {
				fprintf(stderr,
					"%s: --work wants W1,W2,W3 (units, >= 0), not \"%s\"\n",
					p.common.prog, optarg);
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
	for (int i = 0; i < STAGES - 1; i++) {
		if (sb_queue_init(&p.queue[i], (unsigned)capacity)) {
			fprintf(stderr, "%s: out of memory\n", p.common.prog);
			status = 1;
			goto destroy_queues;
		}
	}
	for (int i = 0; i < STAGES; i++) {
		stages[i] = (struct stage){.p = &p, .number = i + 1};
		if (pthread_create(&stages[i].thread, NULL, run_stage, &stages[i])) {
			/* The stages already started would block forever without the others. */
			fprintf(stderr, "%s: cannot start stage %d\n", p.common.prog, i + 1);
			exit(1);
		}
	}
	for (int i = 0; i < STAGES; i++) {
		pthread_join(stages[i].thread, NULL);
	}
	printf("sync-pipeline: items=%lu sum=%ld annot=%s\n", p.items, p.sum,
	       SYNC_BENCH_ANNOT_NAME);

destroy_queues:
	for (int i = 0; i < STAGES - 1; i++) {
		if (p.queue[i].items) {
			sb_queue_destroy(&p.queue[i]);
		}
	}
	return status;
}
