/* SPDX-License-Identifier: MIT */
/*
 * Two processes through a pipe (bench/whatif-sync.sh, program "pipeprocs"): the parent forks a
 * child (fork, no exec), computes records of RECORD bytes and writes each into a pipe(2); the
 * child reads them (looping until a whole record is in), checks and computes on each, and exits
 * 0 when every record came in right. The parent waits for the child. The kernel's pipe buffer
 * (64 KiB, 256 records) lets the parent run ahead: the slower of the two sets the pace.
 *
 * Per record: the parent PRODUCE units, the child CONSUME units, each times its scale (ids:
 * 0 the parent, 1 the child). The processes name themselves (prctl PR_SET_NAME) producer and
 * consumer: `dps whatif --follow-children --thread-comm consumer` selects the child.
 *
 * Usage: dps-sync-pipeprocs [--records N] [--work PRODUCE,CONSUME] [--scale ID=S]...
 *                           [--unit ITERATIONS]
 * Prints "sync-pipeprocs: records=N child=ok annot=none" and exits 0; 1 when the pipe or the
 * child cannot be made or the child saw a record missing or wrong, 2 on bad usage. No
 * annotation describes a pipe: one variant only, without.
 */
#include "annot.h"
#include "common.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORD_BYTES 256
#define WORDS (RECORD_BYTES / sizeof(uint64_t))

struct stream {
	struct sb_common common;
	unsigned long records;
	double work[2]; /* produce, consume: units per record */
};

/* Record I's contents, the same on both sides. */
static void fill_record(uint64_t *rec, unsigned long i)
{
	for (size_t w = 0; w < WORDS; w++) {
		rec[w] = sb_mix(i, w, 0);
	}
}

/* The child: consumes every record from FD. Returns its exit status: 0 when all came in right. */
static int consume(const struct stream *s, int fd)
{
	double units = s->work[1] * s->common.scale[1];
	uint64_t rec[WORDS], want[WORDS];
	unsigned long received = 0;
	int bad = 0;
	int got;

	prctl(PR_SET_NAME, "consumer", 0, 0, 0);
	while ((got = sb_read_record(fd, rec, sizeof(rec))) == 1) {
		sb_work(&s->common, units);
		fill_record(want, received);
		for (size_t w = 0; w < WORDS; w++) {
			bad |= rec[w] != want[w];
		}
		received++;
	}
	if (got < 0) {
		perror("read");
	}
	return got < 0 || bad || received != s->records;
}

/* The parent: produces every record into FD, then closes it. Returns 0, or -1 on an error. */
static int produce(const struct stream *s, int fd)
{
	double units = s->work[0] * s->common.scale[0];
	uint64_t rec[WORDS];
	int status = 0;

	prctl(PR_SET_NAME, "producer", 0, 0, 0);
	for (unsigned long i = 0; i < s->records; i++) {
		sb_work(&s->common, units);
		fill_record(rec, i);
		if (sb_write_all(fd, rec, sizeof(rec))) {
			perror("write");
			status = -1;
			break;
		}
	}
	close(fd);
	return status;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(
	    out,
	    "usage: %s [--records N] [--work PRODUCE,CONSUME] [--scale ID=S]...\n"
	    "          [--unit ITERATIONS]\n"
	    "  defaults: 400 records of %d bytes, 1 unit to produce one and 0.8 to consume it,\n"
	    "  scale 1 (0: the parent, 1: the child), a unit of 1000000 loop iterations\n",
	    prog, RECORD_BYTES);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"records", required_argument, NULL, 'n'}, {"work", required_argument, NULL, 'w'},
	    {"scale", required_argument, NULL, 's'},   {"unit", required_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	struct stream s = {.records = 400, .work = {1.0, 0.8}};
	int fd[2];
	int wstatus;
	pid_t child;
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
	if (pipe(fd)) {
		perror("pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		close(fd[1]);
		_exit(consume(&s, fd[0]));
	}
	close(fd[0]);
	if (produce(&s, fd[1])) {
		/* The child sees the stream end early and fails: wait for it all the same. */
		waitpid(child, NULL, 0);
		return 1;
	}
	while (waitpid(child, &wstatus, 0) < 0) {
		if (errno != EINTR) {
			perror("waitpid");
			return 1;
		}
	}
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
		fprintf(stderr, "%s: the consumer failed (wait status %d)\n", s.common.prog,
			wstatus);
		return 1;
	}
	printf("sync-pipeprocs: records=%lu child=ok annot=%s\n", s.records, SYNC_BENCH_ANNOT_NAME);
	return 0;
}
