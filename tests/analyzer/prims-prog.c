/* SPDX-License-Identifier: MIT */
/*
 * The primitives of issue 24 for test-prims-live.c: one small program per primitive, each
 * with two threads of known speeds, so that a replay where one of them is made slower (or
 * faster) must make the other wait where the recording never did. Work is a spin of a given
 * number of milliseconds of CPU (spin.h).
 *
 *   barrier   A (2 and 6 ms in turn) and B (4 ms) meet at a pthread barrier, 10 rounds: the
 *             last to arrive changes every round. A made 4x slower must hold B back in
 *             every round (B waits for A's 8 and 24 ms).
 *   sem       a ring of 2 slots under two semaphores: the producer makes 20 items of 3 ms,
 *             the consumer eats each in 1 ms: the consumer always waits. The consumer made
 *             10x slower must hold the producer back on the full ring.
 *   rwlock    a reader holds the read lock for its first 2 ms, a writer takes the write lock
 *             after 10 ms of its own work from the reader's lock: it never waits. The
 *             reader made 10x slower holds it until 20 ms: the writer must wait for it.
 *   pipe      a writer computes 20 records (2 ms each) into a pipe, a reader computes on each
 *             (1 ms): the reader always waits. The reader made 10x slower must fill the pipe
 *             of 64 KiB with the writer's 8 KiB records and hold the writer back.
 *   pipe-procs  the same across a fork: the child reads.
 *   pool      two workers take 80 items of uneven cost (1-3 ms) from an atomic counter,
 *             never blocking; with DPS annotations (built with -DPRIMS_ANNOTATED, linked with
 *             libdps) every take is marked with dps_pool_take.
 *
 * Usage: analyzer-prims-prog MODE. Threads are named "a"/"b" (barrier), "producer"/
 * "consumer", "reader"/"writer", "worker0"/"worker1".
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef PRIMS_ANNOTATED
#include <dps/annotate.h>
#else
static void dps_pool_take(const void *obj)
{
	(void)obj;
}
#endif

#include "spin.h"

static void spin_ms(int ms)
{
	spin_us(1000L * ms);
}

#define ROUNDS 10
#define ITEMS 20
#define RECORD 8192
#define POOL_ITEMS 80

static void name(const char *n)
{
	pthread_setname_np(pthread_self(), n);
}

/* barrier */
static pthread_barrier_t barrier;

static void *barrier_a(void *arg)
{
	(void)arg;
	name("a");
	for (int r = 0; r < ROUNDS; r++) {
		spin_ms(r % 2 ? 6 : 2);
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static void *barrier_b(void *arg)
{
	(void)arg;
	name("b");
	for (int r = 0; r < ROUNDS; r++) {
		spin_ms(4);
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

/* sem: a ring of 2 */
static sem_t empty, full;
static long ring[2];

static void *producer(void *arg)
{
	(void)arg;
	name("producer");
	for (long i = 0; i < ITEMS; i++) {
		spin_ms(3);
		while (sem_wait(&empty) && errno == EINTR) {
		}
		ring[i % 2] = i;
		sem_post(&full);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long sum = 0;

	(void)arg;
	name("consumer");
	for (long i = 0; i < ITEMS; i++) {
		while (sem_wait(&full) && errno == EINTR) {
		}
		sum += ring[i % 2];
		sem_post(&empty);
		spin_ms(1);
	}
	return (void *)sum;
}

/* rwlock */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
/* Set once the reader holds the read lock. The writer spins on it before its 10 ms, so the
 * recording has the reader first even when a busy machine starts the reader late. Without
 * it a reader started late lets the writer lock first, and the replay's writer has
 * nothing to wait for (the likely cause of one CI failure: the writer ended at 10.5 ms).
 * A plain atomic load: no call a probe or the kernel sees. */
static atomic_int reader_in;

static void *reader(void *arg)
{
	(void)arg;
	name("reader");
	pthread_rwlock_rdlock(&rw);
	atomic_store(&reader_in, 1);
	spin_ms(2);
	pthread_rwlock_unlock(&rw);
	spin_ms(10);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	name("writer");
	while (!atomic_load(&reader_in)) {
		/* the reader has not started yet */
	}
	/* 10 ms, not 5: the reader's run before its lock (0.3-0.6 ms recorded: the thread's
	 * start) is 3-6 ms at 10x, and a replayed writer that locked first had nothing to wait
	 * for (the writer ended at 8 ms, once in five runs) */
	spin_ms(10);
	pthread_rwlock_wrlock(&rw);
	spin_ms(1);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

/* pipe */
static int fds[2];

static void write_records(void)
{
	char rec[RECORD];

	memset(rec, 'x', sizeof(rec));
	for (int i = 0; i < ITEMS; i++) {
		size_t done = 0;

		spin_ms(2);
		while (done < sizeof(rec)) {
			ssize_t n = write(fds[1], rec + done, sizeof(rec) - done);

			if (n < 0 && errno != EINTR) {
				perror("write");
				exit(1);
			}
			done += n > 0 ? (size_t)n : 0;
		}
	}
	close(fds[1]);
}

static long read_records(void)
{
	char rec[RECORD];
	long got = 0;

	for (;;) {
		size_t done = 0;

		while (done < sizeof(rec)) {
			ssize_t n = read(fds[0], rec + done, sizeof(rec) - done);

			if (n == 0) {
				return got;
			}
			if (n < 0 && errno != EINTR) {
				perror("read");
				exit(1);
			}
			done += n > 0 ? (size_t)n : 0;
		}
		got++;
		spin_ms(1);
	}
}

static void *pipe_writer(void *arg)
{
	(void)arg;
	name("writer");
	write_records();
	return NULL;
}

static void *pipe_reader(void *arg)
{
	(void)arg;
	name("reader");
	return (void *)read_records();
}

/* pool: an atomic counter */
static atomic_long next_item;

static void *pool_worker(void *arg)
{
	char n[16];

	snprintf(n, sizeof(n), "worker%ld", (long)(intptr_t)arg);
	name(n);
	for (;;) {
		long i = atomic_fetch_add(&next_item, 1);

		dps_pool_take(&next_item);
		if (i >= POOL_ITEMS) {
			break;
		}
		spin_ms(1 + (int)(i % 3));
	}
	return NULL;
}

static int two(void *(*a)(void *), void *(*b)(void *))
{
	pthread_t ta, tb;

	if (pthread_create(&ta, NULL, a, (void *)0) || pthread_create(&tb, NULL, b, (void *)1)) {
		return 1;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "barrier")) {
		pthread_barrier_init(&barrier, NULL, 2);
		return two(barrier_a, barrier_b);
	}
	if (!strcmp(mode, "sem")) {
		sem_init(&empty, 0, 2);
		sem_init(&full, 0, 0);
		return two(producer, consumer);
	}
	if (!strcmp(mode, "rwlock")) {
		return two(reader, writer);
	}
	if (!strcmp(mode, "pipe")) {
		if (pipe(fds)) {
			return 1;
		}
		return two(pipe_writer, pipe_reader);
	}
	if (!strcmp(mode, "pipe-procs")) {
		pid_t child;
		int status;

		if (pipe(fds)) {
			return 1;
		}
		child = fork();
		if (child < 0) {
			return 1;
		}
		if (child == 0) {
			prctl(PR_SET_NAME, "reader");
			close(fds[1]);
			read_records();
			_exit(0);
		}
		close(fds[0]);
		write_records();
		while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
		}
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	if (!strcmp(mode, "pool")) {
		return two(pool_worker, pool_worker);
	}
	fprintf(stderr, "usage: analyzer-prims-prog barrier|sem|rwlock|pipe|pipe-procs|pool\n");
	return 2;
}
