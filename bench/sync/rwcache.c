/* SPDX-License-Identifier: MIT */
/*
 * A cache under a read-write lock (bench/whatif-sync.sh, program "rwcache"): R reader threads
 * serve requests: each waits for its next request (a sleep of REQUEST ms stands for the
 * network), takes the read lock, looks an entry up (work inside the lock), lets the lock go
 * and builds the answer from what it found (work outside); one writer refreshes the cache
 * periodically: it sleeps PERIOD, computes a new entry outside the lock and installs it under
 * the write lock (work inside, the readers kept out), M times. The lock is glibc's default one
 * (readers preferred), as most code leaves it. The run ends when the readers have served their
 * requests and the writer has done its refreshes: while the writer's refreshes are quick, the
 * readers set the end (a slower writer only keeps them out a little longer); once M refreshes
 * with their sleeps take longer than the requests, the writer sets it.
 *
 * Per request: a sleep of REQUEST ms, LOOKUP units inside the read lock, USE units outside;
 * per refresh: a sleep of PERIOD ms, PREPARE units outside, INSTALL units inside the write
 * lock; the work times its thread's scale (the sleeps are not work: they stay). Scale ids:
 * 0 .. R - 1 the readers, R the writer (2 by default).
 *
 * Usage: dps-sync-rwcache [--readers R] [--lookups L] [--request-ms MS] [--refreshes M]
 *                         [--period-ms MS] [--read-work LOOKUP,USE]
 *                         [--write-work PREPARE,INSTALL] [--scale ID=S]... [--unit ITERATIONS]
 * Prints "sync-rwcache: readers=R lookups=N refreshes=M annot=none" (N lookups in all) and
 * exits 0; 1 when a thread cannot start, 2 on bad usage. Threads: reader0, reader1..., writer.
 * No annotation describes a read-write lock: one variant only, without.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_READERS 16
#define ENTRIES 64

struct cache {
	struct sb_common common;
	unsigned long readers;
	unsigned long lookups; /* per reader */
	long request_ns;       /* a reader's sleep before each lookup */
	unsigned long refreshes;
	long period_ns;	      /* the writer's sleep before each refresh */
	double read_work[2];  /* lookup (inside), use (outside) */
	double write_work[2]; /* prepare (outside), install (inside) */
	pthread_rwlock_t lock;
	uint64_t entry[ENTRIES]; /* under lock */
};

struct reader {
	struct cache *c; /* borrowed */
	int id;		 /* 0..readers - 1, also the --scale id */
	pthread_t thread;
	unsigned long found; /* lookups that found an entry written: depends on the timing */
};

static struct timespec to_timespec(long ns)
{
	return (struct timespec){.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
}

/* Parses a count of ms (0 allowed) into *ns; -1 (nothing printed) when it is not one. */
static int parse_ms(const char *arg, long *ns)
{
	unsigned long ms;

	if (!strcmp(arg, "0")) {
		*ns = 0;
		return 0;
	}
	if (sb_parse_count(arg, 3600 * 1000, &ms)) {
		return -1;
	}
	*ns = (long)ms * 1000000L;
	return 0;
}

static void *run_reader(void *arg)
{
	struct reader *rd = arg;
	struct cache *c = rd->c;
	double scale = c->common.scale[rd->id];
	struct timespec request = to_timespec(c->request_ns);
	char name[16];

	snprintf(name, sizeof(name), "reader%d", rd->id);
	sb_name_thread(name);
	for (unsigned long i = 0; i < c->lookups; i++) {
		unsigned long key = (unsigned long)(sb_mix((uint64_t)rd->id, i, 0) % ENTRIES);
		uint64_t value;

		nanosleep(&request, NULL);
		pthread_rwlock_rdlock(&c->lock);
		value = c->entry[key];
		sb_work(&c->common, c->read_work[0] * scale);
		pthread_rwlock_unlock(&c->lock);
		sb_work(&c->common, c->read_work[1] * scale);
		rd->found += value != 0;
	}
	return NULL;
}

static void *run_writer(void *arg)
{
	struct cache *c = arg;
	double scale = c->common.scale[c->readers];
	struct timespec period = to_timespec(c->period_ns);

	sb_name_thread("writer");
	for (unsigned long u = 0; u < c->refreshes; u++) {
		uint64_t value = sb_mix(u, 0x5eed, 1) | 1;

		nanosleep(&period, NULL);
		sb_work(&c->common, c->write_work[0] * scale);
		pthread_rwlock_wrlock(&c->lock);
		c->entry[u % ENTRIES] = value;
		sb_work(&c->common, c->write_work[1] * scale);
		pthread_rwlock_unlock(&c->lock);
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(
	    out,
	    "usage: %s [--readers R] [--lookups L] [--request-ms MS] [--refreshes M]\n"
	    "          [--period-ms MS] [--read-work LOOKUP,USE]\n"
	    "          [--write-work PREPARE,INSTALL] [--scale ID=S]... [--unit ITERATIONS]\n"
	    "  defaults: 2 readers of 200 requests each, 1 ms apart, 0.4 units inside the read\n"
	    "  lock and 0.6 outside per lookup; one writer of 40 refreshes, each after a sleep\n"
	    "  of 4 ms, 7 units outside and 1 inside the write lock; scale 1 (ids: the readers\n"
	    "  0..R-1, the writer R), a unit of 1000000 loop iterations\n",
	    prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"readers", required_argument, NULL, 'n'},
	    {"lookups", required_argument, NULL, 'l'},
	    {"request-ms", required_argument, NULL, 'q'},
	    {"refreshes", required_argument, NULL, 'm'},
	    {"period-ms", required_argument, NULL, 'p'},
	    {"read-work", required_argument, NULL, 'r'},
	    {"write-work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct cache c = {.readers = 2,
			  .lookups = 200,
			  .request_ns = 1000000L,
			  .refreshes = 40,
			  .period_ns = 4000000L,
			  .read_work = {0.4, 0.6},
			  .write_work = {7.0, 1.0}};
	struct reader readers[MAX_READERS];
	pthread_t writer;
	int opt;

	sb_common_init(&c.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, MAX_READERS, &c.readers)) {
				fprintf(stderr, "%s: --readers wants 1 to %d\n", c.common.prog,
					MAX_READERS);
				return 2;
			}
			break;
		case 'l':
			if (sb_parse_count(optarg, 100000000, &c.lookups)) {
				fprintf(stderr, "%s: --lookups wants a positive count\n",
					c.common.prog);
				return 2;
			}
			break;
		case 'm':
			if (sb_parse_count(optarg, 100000000, &c.refreshes)) {
				fprintf(stderr, "%s: --refreshes wants a positive count\n",
					c.common.prog);
				return 2;
			}
			break;
		case 'p':
		case 'q':
			if (parse_ms(optarg, opt == 'p' ? &c.period_ns : &c.request_ns)) {
				fprintf(stderr, "%s: --%s wants 0 to 3600000 ms\n", c.common.prog,
					opt == 'p' ? "period-ms" : "request-ms");
				return 2;
			}
			break;
		case 'r':
		case 'w':
			if (sb_parse_list(optarg, opt == 'r' ? c.read_work : c.write_work, 2) !=
			    2) {
				fprintf(stderr,
					"%s: --%s wants two numbers of units >= 0, not \"%s\"\n",
					c.common.prog, opt == 'r' ? "read-work" : "write-work",
					optarg);
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&c.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, c.common.prog);
			return 0;
		default:
			usage(stderr, c.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, c.common.prog);
		return 2;
	}
	pthread_rwlock_init(&c.lock, NULL);
	for (unsigned long i = 0; i < c.readers; i++) {
		readers[i] = (struct reader){.c = &c, .id = (int)i};
		if (pthread_create(&readers[i].thread, NULL, run_reader, &readers[i])) {
			fprintf(stderr, "%s: cannot start reader %lu\n", c.common.prog, i);
			exit(1);
		}
	}
	if (pthread_create(&writer, NULL, run_writer, &c)) {
		fprintf(stderr, "%s: cannot start the writer\n", c.common.prog);
		exit(1);
	}
	for (unsigned long i = 0; i < c.readers; i++) {
		pthread_join(readers[i].thread, NULL);
	}
	pthread_join(writer, NULL);
	printf("sync-rwcache: readers=%lu lookups=%lu refreshes=%lu annot=%s\n", c.readers,
	       c.readers * c.lookups, c.refreshes, SYNC_BENCH_ANNOT_NAME);
	pthread_rwlock_destroy(&c.lock);
	return 0;
}
