/* SPDX-License-Identifier: MIT */
/*
 * Two threads through a pipe (bench/whatif-sync.sh, program "pipethreads"): a producer thread
 * computes records of RECORD bytes and writes each into a pipe(2); a consumer thread reads
 * them (looping until a whole record is in, as a read may return less) and computes on each.
 * The kernel's pipe buffer (64 KiB by default, 256 records) lets the producer run ahead: the
 * slower of the two sets the pace, and the faster one's speed does not matter.
 *
 * Per record: the producer PRODUCE units, the consumer CONSUME units, each times its scale
 * (ids: 0 the producer, 1 the consumer).
 *
 * Usage: dps-sync-pipethreads [--records N] [--work PRODUCE,CONSUME] [--scale ID=S]...
 *                             [--unit ITERATIONS]
 * Prints "sync-pipethreads: records=N check=HEX annot=none" and exits 0; 1 when the pipe or a
 * thread cannot be made or a record is lost, 2 on bad usage. Threads: producer, consumer. No
 * annotation describes a pipe: one variant only, without.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define RECORD_BYTES 256
#define WORDS (RECORD_BYTES / sizeof(uint64_t))

struct stream {
	struct sb_common common;
	unsigned long records;
	double work[2]; /* produce, consume: units per record */
	int fd[2];	/* the pipe: read end, write end */
	/* The consumer's, read by main after the join. */
	uint64_t check;
	unsigned long received;
};

static void *run_producer(void *arg)
{
	struct stream *s = arg;
	double units = s->work[0] * s->common.scale[0];
	uint64_t rec[WORDS];

	sb_name_thread("producer");
	for (unsigned long i = 0; i < s->records; i++) {
		sb_work(&s->common, units);
		for (size_t w = 0; w < WORDS; w++) {
			rec[w] = sb_mix(i, w, 0);
		}
		if (sb_write_all(s->fd[1], rec, sizeof(rec))) {
			perror("write");
			break;
		}
	}
	close(s->fd[1]);
	return NULL;
}

static void *run_consumer(void *arg)
{
	struct stream *s = arg;
	double units = s->work[1] * s->common.scale[1];
	uint64_t rec[WORDS];
	int got;

	sb_name_thread("consumer");
	while ((got = sb_read_record(s->fd[0], rec, sizeof(rec))) == 1) {
		sb_work(&s->common, units);
		for (size_t w = 0; w < WORDS; w++) {
			s->check = sb_mix(s->check, rec[w], w);
		}
		s->received++;
	}
	if (got < 0) {
		perror("read");
	}
	return NULL;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(
	    out,
	    "usage: %s [--records N] [--work PRODUCE,CONSUME] [--scale ID=S]...\n"
	    "          [--unit ITERATIONS]\n"
	    "  defaults: 400 records of %d bytes, 0.7 units to produce one and 1 to consume\n"
	    "  it, scale 1 (0: the producer, 1: the consumer), a unit of 1000000 loop iterations\n",
	    prog, RECORD_BYTES);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"records", required_argument, NULL, 'n'}, {"work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},   {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	struct stream s = {.records = 400, .work = {0.7, 1.0}};
	pthread_t producer, consumer;
	int opt;

	sb_common_init(&s.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, 100000000, &s.records)) {
				fprintf(stderr, "%s: --records wants a positive count\n",
					s.common.prog);
				return 2;
			}
			break;
		case 'w':
			if (sb_parse_list(optarg, s.work, 2) != 2) {
				fprintf(
				    stderr,
				    "%s: --work wants PRODUCE,CONSUME (units >= 0), not \"%s\"\n",
				    s.common.prog, optarg);
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&s.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, s.common.prog);
			return 0;
		default:
			usage(stderr, s.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, s.common.prog);
		return 2;
	}
	if (pipe(s.fd)) {
		perror("pipe");
		return 1;
	}
	if (pthread_create(&consumer, NULL, run_consumer, &s) ||
	    pthread_create(&producer, NULL, run_producer, &s)) {
		fprintf(stderr, "%s: cannot start a thread\n", s.common.prog);
		exit(1);
	}
	pthread_join(producer, NULL);
	pthread_join(consumer, NULL);
	close(s.fd[0]);
	if (s.received != s.records) {
		fprintf(stderr, "%s: %lu records of %lu received\n", s.common.prog, s.received,
			s.records);
		return 1;
	}
	printf("sync-pipethreads: records=%lu check=%016" PRIx64 " annot=%s\n", s.records, s.check,
	       SYNC_BENCH_ANNOT_NAME);
	return 0;
}
