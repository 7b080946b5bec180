/* SPDX-License-Identifier: MIT */
/*
 * A pool of K slots under a counting semaphore (bench/whatif-sync.sh, program "sempool"): N
 * workers serve requests, each its own list of tasks: a worker waits for its next request (a
 * sleep of REQUEST ms stands for the network), then the main part of the task needs one of the
 * K slots (a database connection, a licence, a device: sem_wait before it, sem_post after it),
 * and a little bookkeeping follows outside the slot. With more workers than slots, a worker
 * that wants a slot sometimes waits while the others hold them all. While worker1 is fast, the
 * others' lists set the end; made slower, worker1 holds its slots longer (the others wait more
 * often) and then is the one the run waits for.
 *
 * Worker w's task j costs W_w × (0.5 + frac((w × T + j) × 0.618...)) units inside a slot (the
 * same uneven sequence in every run), plus OUTSIDE units after it, all times w's scale; the
 * request's wait is not work and stays.
 *
 * Annotated, the semaphore is a queue of K items that starts full (dps_queue_init(&slots, K)):
 * a sem_wait takes an item (dps_consume right after it), a sem_post puts one back. The put is
 * announced right *before* the sem_post: after it, the worker it wakes could take the slot and
 * say so before the poster's dps_produce, and the trace would show a take from an empty queue.
 *
 * Usage: dps-sync-sempool [--workers N] [--slots K] [--tasks T] [--task-work W0,W1,...]
 *                         [--outside-work W] [--request-ms MS] [--scale WORKER=S]...
 *                         [--unit ITERATIONS]
 * Prints "sync-sempool: workers=N slots=K tasks=M sum=S annot=dps|none" (M = N × T tasks, S the
 * sum of their numbers) and exits 0; 1 when a thread cannot start, 2 on bad usage. Workers are
 * named worker0, worker1...
 */
#include "annot.h"
#include "common.h"

#include <errno.h>
#include <getopt.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WORKERS 32

struct sempool {
	struct sb_common common;
	unsigned long workers;
	unsigned long tasks; /* per worker */
	double task_work[MAX_WORKERS];
	double outside_work; /* a task's work outside the slot */
	long request_ns;     /* the wait for a task's request, before it */
	sem_t slots;
};

struct worker {
	struct sempool *sp; /* borrowed */
	int id;		    /* 0..workers - 1, also the --scale id */
	pthread_t thread;
	unsigned long done; /* the numbers of its tasks, added up; main reads it after the join */
};

static void take_slot(struct sempool *sp)
{
	while (sem_wait(&sp->slots) == -1 && errno == EINTR) {
	}
	dps_consume(&sp->slots);
}

static void give_slot(struct sempool *sp)
{
	dps_produce(&sp->slots); /* before the post: see the head of the file */
	sem_post(&sp->slots);
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct sempool *sp = w->sp;
	double scale = sp->common.scale[w->id];
	struct timespec request = {.tv_sec = sp->request_ns / 1000000000L,
				   .tv_nsec = sp->request_ns % 1000000000L};
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w->id);
	sb_name_thread(name);
	for (unsigned long j = 0; j < sp->tasks; j++) {
		unsigned long task = (unsigned long)w->id * sp->tasks + j;

		nanosleep(&request, NULL);
		take_slot(sp);
		sb_work(&sp->common, sp->task_work[w->id] * (0.5 + sb_golden(task)) * scale);
		give_slot(sp);
		sb_work(&sp->common, sp->outside_work * scale);
		w->done += task;
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--workers N] [--slots K] [--tasks T] [--task-work W0,W1,...]\n"
		"          [--outside-work W] [--request-ms MS] [--scale WORKER=S]...\n"
		"          [--unit ITERATIONS]\n"
		"  defaults: 3 workers, 2 slots, 48 tasks per worker, 3,4,3 units per task in a\n"
		"  slot on average (one per worker; a shorter list repeats its last), 0.25 units\n"
		"  outside, requests 3 ms apart, scale 1, a unit of 1000000 loop iterations\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"workers", required_argument, NULL, 'n'},
	    {"slots", required_argument, NULL, 'k'},
	    {"tasks", required_argument, NULL, 't'},
	    {"task-work", required_argument, NULL, 'w'},
	    {"outside-work", required_argument, NULL, 'o'},
	    {"request-ms", required_argument, NULL, 'q'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sempool sp = {
	    .workers = 3,
	    .tasks = 48,
	    .task_work = {3.0, 4.0, 3.0},
	    .outside_work = 0.25,
	    .request_ns = 3000000L,
	};
	struct worker workers[MAX_WORKERS];
	unsigned long slots = 2;
	int n_work = 3;
	unsigned long sum = 0;
	unsigned long request_ms;
	int opt;

	sb_common_init(&sp.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, MAX_WORKERS, &sp.workers)) {
				fprintf(stderr, "%s: --workers wants 1 to %d\n", sp.common.prog,
					MAX_WORKERS);
				return 2;
			}
			break;
		case 'k':
			if (sb_parse_count(optarg, MAX_WORKERS, &slots)) {
				fprintf(stderr, "%s: --slots wants 1 to %d\n", sp.common.prog,
					MAX_WORKERS);
				return 2;
			}
			break;
		case 't':
			if (sb_parse_count(optarg, 1000000, &sp.tasks)) {
				fprintf(stderr, "%s: --tasks wants a positive count\n",
					sp.common.prog);
				return 2;
			}
			break;
		case 'w':
			n_work = sb_parse_list(optarg, sp.task_work, MAX_WORKERS);
			if (n_work < 1) {
				fprintf(
				    stderr,
				    "%s: --task-work wants W0,W1,... (units >= 0), not \"%s\"\n",
				    sp.common.prog, optarg);
				return 2;
			}
			break;
		case 'o':
			if (sb_parse_double(optarg, &sp.outside_work)) {
				fprintf(stderr, "%s: --outside-work wants units >= 0\n",
					sp.common.prog);
				return 2;
			}
			break;
		case 'q':
			if (!strcmp(optarg, "0")) {
				sp.request_ns = 0;
			} else if (sb_parse_count(optarg, 3600 * 1000, &request_ms)) {
				fprintf(stderr, "%s: --request-ms wants 0 to 3600000 ms\n",
					sp.common.prog);
				return 2;
			} else {
				sp.request_ns = (long)request_ms * 1000000L;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&sp.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, sp.common.prog);
			return 0;
		default:
			usage(stderr, sp.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, sp.common.prog);
		return 2;
	}
	for (unsigned long i = (unsigned long)n_work; i < sp.workers; i++) {
		sp.task_work[i] = sp.task_work[n_work - 1];
	}
	sem_init(&sp.slots, 0, (unsigned)slots);
	dps_queue_init(&sp.slots, (unsigned)slots);
	for (unsigned long i = 0; i < sp.workers; i++) {
		workers[i] = (struct worker){.sp = &sp, .id = (int)i};
		if (pthread_create(&workers[i].thread, NULL, run_worker, &workers[i])) {
			fprintf(stderr, "%s: cannot start worker %lu\n", sp.common.prog, i);
			exit(1);
		}
	}
	for (unsigned long i = 0; i < sp.workers; i++) {
		pthread_join(workers[i].thread, NULL);
		sum += workers[i].done;
	}
	printf("sync-sempool: workers=%lu slots=%lu tasks=%lu sum=%lu annot=%s\n", sp.workers,
	       slots, sp.workers * sp.tasks, sum, SYNC_BENCH_ANNOT_NAME);
	sem_destroy(&sp.slots);
	return 0;
}
