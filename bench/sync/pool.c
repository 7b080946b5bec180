/* SPDX-License-Identifier: MIT */
/*
 * A thread pool with a shared work queue (bench/whatif-sync.sh, program b): the main thread
 * prepares TASKS tasks of uneven sizes and puts them into one bounded FIFO under a mutex
 * (common.h); WORKERS workers take the next task whenever they are free. Which worker runs
 * which task is decided at run time: a worker made slower (--scale ID=S) takes fewer of them,
 * and the others take the rest.
 *
 * Task i costs TASK_WORK × (0.25 + 1.5 × frac(i × 0.618...)) units (between a quarter and
 * 1.75 times TASK_WORK, the same sequence in every run), times its worker's scale.
 *
 * Usage: dps-sync-pool [--workers N] [--tasks M] [--capacity C] [--task-work W]
 *                      [--scale WORKER=S]... [--unit ITERATIONS]
 * Prints "sync-pool: tasks=M sum=S annot=dps|none" (S: the sum of the task numbers done) and
 * exits 0; 1 when a thread cannot start, 2 on bad usage. Workers are named worker0, worker1...
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <stdlib.h>

#define MAX_WORKERS 32
/* The item that stops a worker: tasks are 0 .. TASKS - 1. */
#define STOP_ITEM (-1L)
/* The main thread's own work to prepare one task, in units. */
#define PREPARE_UNITS 0.05

struct pool {
	struct sb_common common;
	unsigned long workers;
	unsigned long tasks;
	double task_work;
	struct sb_queue queue;
	pthread_mutex_t sum_mutex;
	long sum; /* under sum_mutex: the task numbers done, added up */
};

struct worker {
	struct pool *pool; /* borrowed */
	int id;		   /* 0..workers - 1, also the --scale id */
	pthread_t thread;
};

/* Task I's size relative to the mean: a low-discrepancy sequence, uneven but spread out. */
static double task_size(unsigned long i)
{
	double x = (double)i * 0.6180339887498949;

	return 0.25 + 1.5 * (x - (double)(unsigned long)x);
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	double scale = p->common.scale[w->id];
	long done = 0;
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w->id);
	sb_name_thread(name);
	for (;;) {
		long task = sb_queue_take(&p->queue);

		if (task == STOP_ITEM) {
			break;
		}
		sb_work(&p->common, p->task_work * task_size((unsigned long)task) * scale);
		done += task;
	}
	pthread_mutex_lock(&p->sum_mutex);
	p->sum += done;
	pthread_mutex_unlock(&p->sum_mutex);
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(
	    out,
	    "usage: %s [--workers N] [--tasks M] [--capacity C] [--task-work W]\n"
	    "          [--scale WORKER=S]... [--unit ITERATIONS]\n"
	    "  defaults: 2 workers, 64 tasks, capacity 4, 8 units per task on average, scale 1,\n"
	    "  a unit of 1000000 loop iterations\n",
	    prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"workers", required_argument, NULL, 'n'},	{"tasks", required_argument, NULL, 'm'},
	    {"capacity", required_argument, NULL, 'c'}, {"task-work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},	{"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},		{NULL, 0, NULL, 0},
	};
	struct pool p = {.workers = 2, .tasks = 64, .task_work = 8.0};
	struct worker workers[MAX_WORKERS];
	unsigned long capacity = 4;
	int opt;

	sb_common_init(&p.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, MAX_WORKERS, &p.workers)) {
				fprintf(stderr, "%s: --workers wants 1 to %d\n", p.common.prog,
					MAX_WORKERS);
				return 2;
			}
			break;
		case 'm':
			if (sb_parse_count(optarg, 100000000, &p.tasks)) {
				fprintf(stderr, "%s: --tasks wants a positive count\n",
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
			if (sb_parse_double(optarg, &p.task_work)) {
				fprintf(stderr, "%s: --task-work wants units >= 0\n",
					p.common.prog);
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
	if (sb_queue_init(&p.queue, (unsigned)capacity)) {
		fprintf(stderr, "%s: out of memory\n", p.common.prog);
		return 1;
	}
	pthread_mutex_init(&p.sum_mutex, NULL);
	for (unsigned long i = 0; i < p.workers; i++) {
		workers[i] = (struct worker){.pool = &p, .id = (int)i};
		if (pthread_create(&workers[i].thread, NULL, run_worker, &workers[i])) {
			/* The workers already started would wait for tasks forever. */
			fprintf(stderr, "%s: cannot start worker %lu\n", p.common.prog, i);
			exit(1);
		}
	}
	for (unsigned long i = 0; i < p.tasks; i++) {
		sb_work(&p.common, PREPARE_UNITS);
		sb_queue_put(&p.queue, (long)i);
	}
	for (unsigned long i = 0; i < p.workers; i++) {
		sb_queue_put(&p.queue, STOP_ITEM);
	}
	for (unsigned long i = 0; i < p.workers; i++) {
		pthread_join(workers[i].thread, NULL);
	}
	printf("sync-pool: tasks=%lu sum=%ld annot=%s\n", p.tasks, p.sum, SYNC_BENCH_ANNOT_NAME);
	pthread_mutex_destroy(&p.sum_mutex);
	sb_queue_destroy(&p.queue);
	return 0;
}
