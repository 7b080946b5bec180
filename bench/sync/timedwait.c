/* SPDX-License-Identifier: MIT */
/*
 * A main thread on a timed condition wait (bench/whatif-sync.sh, program d, held out: not
 * used to tune anything). Like xz's main thread, main waits for its workers' output with
 * pthread_cond_timedwait and a 300 ms timeout: the workers signal it each time they finish a
 * chunk; main then writes the chunks out (some work per chunk); when nothing came for 300 ms it
 * wakes anyway and updates its progress (some work). How often the timeout fires depends on how
 * fast the workers are: with the default sizes, once worker 0 is done worker 1's chunks come
 * about 180 ms apart, and at twice its work (--scale 1=2) they come 360 ms apart.
 *
 * With a shorter timeout (--timeout-ms 40), main's waits time out several times per chunk of
 * worker 1: the recording holds loops of timed-out waits that a signal ends (xz's own shape;
 * the bench's program "ticks").
 *
 * Usage: dps-sync-timedwait [--chunks N0,N1,...] [--chunk-work W0,W1,...] [--scale WORKER=S]...
 *                           [--unit ITERATIONS] [--timeout-ms MS]
 * One worker per entry of the lists (the same number in both). Prints
 * "sync-timedwait: chunks=N annot=dps|none timeouts=K" and exits 0; 1 when a thread cannot
 * start, 2 on bad usage. Workers are named worker0, worker1...
 */
#include "annot.h"
#include "common.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WORKERS 32
#define TIMEOUT_MS 300
/* main's work per chunk written out, and per progress update after a timeout, in units */
#define OUTPUT_UNITS 1.0
#define PROGRESS_UNITS 0.2

struct timedwait {
	struct sb_common common;
	unsigned long workers;
	unsigned long chunks[MAX_WORKERS];
	double chunk_work[MAX_WORKERS];
	pthread_mutex_t mutex;
	pthread_cond_t progress; /* signalled by a worker after each chunk; on CLOCK_MONOTONIC */
	unsigned long done;	 /* under mutex: chunks finished, all workers together */
	long timeout_ns;	 /* of main's waits */
};

struct worker {
	struct timedwait *tw; /* borrowed */
	int id;		      /* 0..workers - 1, also the --scale id */
	pthread_t thread;
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct timedwait *tw = w->tw;
	double units = tw->chunk_work[w->id] * tw->common.scale[w->id];
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w->id);
	sb_name_thread(name);
	for (unsigned long c = 0; c < tw->chunks[w->id]; c++) {
		sb_work(&tw->common, units);
		pthread_mutex_lock(&tw->mutex);
		tw->done++;
		dps_produce(&tw->done);
		pthread_cond_signal(&tw->progress);
		pthread_mutex_unlock(&tw->mutex);
	}
	return NULL;
}

/*
 * main's loop: writes every finished chunk out, waiting up to the timeout (300 ms) at a time
 * for the next.
 * Returns how many waits timed out.
 */
static unsigned long write_output(struct timedwait *tw, unsigned long total)
{
	unsigned long taken = 0;
	unsigned long timeouts = 0;

	pthread_mutex_lock(&tw->mutex);
	while (taken < total) {
		unsigned long ready = tw->done - taken;
		struct timespec deadline;

		if (ready) {
			for (unsigned long i = 0; i < ready; i++) {
				dps_consume(&tw->done);
			}
			taken += ready;
			pthread_mutex_unlock(&tw->mutex);
			sb_work(&tw->common, OUTPUT_UNITS * (double)ready);
			pthread_mutex_lock(&tw->mutex);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += tw->timeout_ns / 1000000000L;
		deadline.tv_nsec += tw->timeout_ns % 1000000000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&tw->progress, &tw->mutex, &deadline) == ETIMEDOUT &&
		    tw->done == taken) {
			timeouts++;
			pthread_mutex_unlock(&tw->mutex);
			sb_work(&tw->common, PROGRESS_UNITS);
			pthread_mutex_lock(&tw->mutex);
		}
	}
	pthread_mutex_unlock(&tw->mutex);
	return timeouts;
}

/* Parses a comma list of numbers into OUT (counts when COUNTS); returns how many, -1 if bad. */
static int parse_list(const char *arg, int counts, unsigned long *count_out, double *units_out)
{
	char copy[512];
	char *save = NULL;
	char *tok;
	int n = 0;

	if (strlen(arg) >= sizeof(copy)) {
		return -1;
	}
	strcpy(copy, arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_WORKERS) {
			return -1;
		}
		if (counts ? sb_parse_count(tok, 1000000, &count_out[n])
			   : sb_parse_double(tok, &units_out[n])) {
			return -1;
		}
		n++;
	}
	return n;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--chunks N0,N1,...] [--chunk-work W0,W1,...] [--scale WORKER=S]...\n"
		"          [--unit ITERATIONS] [--timeout-ms MS]\n"
		"  defaults: chunks 6,3, chunk work 40,140 units, scale 1,\n"
		"  a unit of 1000000 loop iterations, main's waits time out after %d ms\n",
		prog, TIMEOUT_MS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"chunks", required_argument, NULL, 'n'},
	    {"chunk-work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"timeout-ms", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct timedwait tw = {.workers = 2,
			       .chunks = {6, 3},
			       .chunk_work = {40, 140},
			       .timeout_ns = TIMEOUT_MS * 1000000L};
	unsigned long timeout_ms;
	struct worker workers[MAX_WORKERS];
	int n_chunks = 2;
	int n_work = 2;
	unsigned long total = 0;
	unsigned long timeouts;
	pthread_condattr_t attr;
	int opt;

	sb_common_init(&tw.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			n_chunks = parse_list(optarg, 1, tw.chunks, NULL);
			if (n_chunks < 1) {
				fprintf(stderr, "%s: --chunks wants N0,N1,... (positive counts)\n",
					tw.common.prog);
				return 2;
			}
			break;
		case 'w':
			n_work = parse_list(optarg, 0, NULL, tw.chunk_work);
			if (n_work < 1) {
				fprintf(stderr, "%s: --chunk-work wants W0,W1,... (units, >= 0)\n",
					tw.common.prog);
				return 2;
			}
			break;
		case 't':
			if (sb_parse_count(optarg, 3600 * 1000, &timeout_ms) || !timeout_ms) {
				fprintf(stderr,
					"%s: --timeout-ms wants a count of ms (1 to 3600000)\n",
					tw.common.prog);
				return 2;
			}
			tw.timeout_ns = (long)timeout_ms * 1000000L;
			break;
		case 's':
		case 'u':
			if (sb_common_option(&tw.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, tw.common.prog);
			return 0;
		default:
			usage(stderr, tw.common.prog);
			return 2;
		}
	}
	if (optind != argc || n_chunks != n_work) {
		if (n_chunks != n_work) {
			fprintf(stderr, "%s: --chunks and --chunk-work must list as many workers\n",
				tw.common.prog);
		}
		usage(stderr, tw.common.prog);
		return 2;
	}
	tw.workers = (unsigned long)n_chunks;
	for (unsigned long i = 0; i < tw.workers; i++) {
		total += tw.chunks[i];
	}
	pthread_mutex_init(&tw.mutex, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&tw.progress, &attr);
	pthread_condattr_destroy(&attr);
	/* The finished chunks are a queue with no bound: workers produce, main consumes. */
	dps_queue_init(&tw.done, 0);
	for (unsigned long i = 0; i < tw.workers; i++) {
		workers[i] = (struct worker){.tw = &tw, .id = (int)i};
		if (pthread_create(&workers[i].thread, NULL, run_worker, &workers[i])) {
			fprintf(stderr, "%s: cannot start worker %lu\n", tw.common.prog, i);
			exit(1);
		}
	}
	timeouts = write_output(&tw, total);
	for (unsigned long i = 0; i < tw.workers; i++) {
		pthread_join(workers[i].thread, NULL);
	}
	printf("sync-timedwait: chunks=%lu annot=%s timeouts=%lu\n", total, SYNC_BENCH_ANNOT_NAME,
	       timeouts);
	pthread_cond_destroy(&tw.progress);
	pthread_mutex_destroy(&tw.mutex);
	return 0;
}
