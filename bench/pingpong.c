/* SPDX-License-Identifier: MIT */
/*
 * bench/analyzer.sh's action-dense workload: PAIRS pairs of threads pass a one-byte token back
 * and forth through two pipes, ROUNDS round trips per pair. Every round trip is two wake-ups
 * and two blocks, so a perf sched recording of it has about as many actions as scheduler
 * events, and the number of both is set on the command line (issue 10: a 10 M-event trace with
 * at least 5 M actions).
 *
 * Pipes, not a condition variable: a blocking read is one wake-up by the writer and no
 * spinning in user space, the same pattern as `perf bench sched pipe` but with many pairs at
 * once, so the scheduler switches between threads of the same process (no idle in between)
 * and the blocks stay long enough not to be folded into runs.
 *
 * Usage: dps-bench-pingpong [-p PAIRS] [-r ROUNDS]   (default 64 pairs, 10000 rounds)
 * Exit status: 0 done, 1 a system call failed, 2 bad usage.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pair {
	int to_pong[2]; /* owned: pipe ping → pong (read end [0], write end [1]) */
	int to_ping[2]; /* owned: pipe pong → ping */
	long rounds;
	pthread_t ping, pong;
	int failed; /* errno of the first failed read/write, 0 if none */
};

/* Both sides start together, so the pairs overlap and compete for the CPUs. */
static pthread_barrier_t start;

/* Passes the token ROUNDS times: write then read (ping) or read then write (pong). */
static int pass_token(int in, int out, long rounds, int writes_first)
{
	char token = 't';

	for (long i = 0; i < rounds; i++) {
		if (writes_first && write(out, &token, 1) != 1) {
			return errno ? errno : EIO;
		}
		if (read(in, &token, 1) != 1) {
			return errno ? errno : EIO;
		}
		if (!writes_first && write(out, &token, 1) != 1) {
			return errno ? errno : EIO;
		}
	}
	return 0;
}

static void *run_ping(void *arg)
{
	struct pair *p = arg;
	int err;

	pthread_barrier_wait(&start);
	err = pass_token(p->to_ping[0], p->to_pong[1], p->rounds, 1);
	if (err) {
		p->failed = err;
	}
	return NULL;
}

static void *run_pong(void *arg)
{
	struct pair *p = arg;
	int err;

	pthread_barrier_wait(&start);
	err = pass_token(p->to_pong[0], p->to_ping[1], p->rounds, 0);
	if (err) {
		p->failed = err;
	}
	return NULL;
}

/* A positive long from ARG, or -1 if ARG is not one. */
static long parse_count(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1) {
		return -1;
	}
	return v;
}

static void close_pipes(struct pair *pairs, long n)
{
	for (long i = 0; i < n; i++) {
		close(pairs[i].to_pong[0]);
		close(pairs[i].to_pong[1]);
		close(pairs[i].to_ping[0]);
		close(pairs[i].to_ping[1]);
	}
}

int main(int argc, char **argv)
{
	long n_pairs = 64, rounds = 10000;
	long opened = 0, started = 0;
	struct pair *pairs = NULL;
	int opt, ret = 1;

	while ((opt = getopt(argc, argv, "p:r:h")) != -1) {
		switch (opt) {
		case 'p':
			n_pairs = parse_count(optarg);
			break;
		case 'r':
			rounds = parse_count(optarg);
			break;
		default:
			n_pairs = -1;
			break;
		}
		if (n_pairs < 0 || rounds < 0) {
			break;
		}
	}
	if (n_pairs < 0 || rounds < 0 || optind != argc || n_pairs > 100000) {
		fprintf(stderr, "usage: dps-bench-pingpong [-p PAIRS] [-r ROUNDS]\n"
				"  PAIRS thread pairs (1..100000, default 64) pass a token through "
				"pipes ROUNDS times (default 10000)\n");
		return 2;
	}
	pairs = calloc((size_t)n_pairs, sizeof(*pairs));
	if (!pairs) {
		fprintf(stderr, "dps-bench-pingpong: out of memory for %ld pairs\n", n_pairs);
		return 1;
	}
	for (; opened < n_pairs; opened++) {
		struct pair *p = &pairs[opened];

		if (pipe(p->to_pong)) {
			break;
		}
		if (pipe(p->to_ping)) {
			close(p->to_pong[0]);
			close(p->to_pong[1]);
			break;
		}
		p->rounds = rounds;
	}
	if (opened < n_pairs) {
		fprintf(stderr, "dps-bench-pingpong: cannot create pipes for pair %ld: %s\n",
			opened, strerror(errno));
		goto close_pipes;
	}
	if (pthread_barrier_init(&start, NULL, (unsigned)(2 * n_pairs))) {
		fprintf(stderr, "dps-bench-pingpong: cannot create the start barrier\n");
		goto close_pipes;
	}
	for (; started < n_pairs; started++) {
		struct pair *p = &pairs[started];
		int err = pthread_create(&p->ping, NULL, run_ping, p);

		if (err) {
			fprintf(stderr, "dps-bench-pingpong: cannot create thread: %s\n",
				strerror(err));
			break;
		}
		err = pthread_create(&p->pong, NULL, run_pong, p);
		if (err) {
			fprintf(stderr, "dps-bench-pingpong: cannot create thread: %s\n",
				strerror(err));
			break;
		}
	}
	if (started < n_pairs) {
		/* The started threads wait at the barrier forever: leaving main ends them. */
		goto close_pipes;
	}
	ret = 0;
	for (long i = 0; i < n_pairs; i++) {
		pthread_join(pairs[i].ping, NULL);
		pthread_join(pairs[i].pong, NULL);
		if (pairs[i].failed) {
			fprintf(stderr, "dps-bench-pingpong: pair %ld: %s\n", i,
				strerror(pairs[i].failed));
			ret = 1;
		}
	}
	pthread_barrier_destroy(&start);
	if (!ret) {
		printf("%ld pairs, %ld round trips each\n", n_pairs, rounds);
	}
close_pipes:
	close_pipes(pairs, opened);
	free(pairs);
	return ret;
}
