/* SPDX-License-Identifier: MIT */
/*
 * The semaphore program of test-syncprobe-live: a producer thread posts ITEMS (argv[1],
 * default 20) units to a semaphore that starts at 0 and the main thread waits for each; then,
 * with the semaphore at 0, a sem_trywait that fails (EAGAIN), a sem_timedwait and a
 * sem_clockwait that time out (ETIMEDOUT, 20 ms), and after one post a sem_trywait and a
 * sem_timedwait with a past deadline that succeed. Prints the semaphore's address; checks
 * every result and errno (errno left alone by the successful calls) and exits 1 when one is
 * not the real call's. The events the test expects follow from this sequence alone.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static sem_t items;
static int n_items = 20;
static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "sem-prog: line %d: %s\n", __LINE__, #cond);               \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static void *produce(void *arg)
{
	(void)arg;
	for (int i = 0; i < n_items; i++) {
		if (sem_post(&items)) {
			__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* now + ms on clk */
static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_nsec += ms * 1000000L;
	t.tv_sec += t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

int main(int argc, char **argv)
{
	struct timespec until;
	pthread_t producer;

	n_items = argc > 1 ? atoi(argv[1]) : n_items;
	if (n_items < 0) {
		fprintf(stderr, "usage: %s [ITEMS]\n", argv[0]);
		return 2;
	}
	CHECK(sem_init(&items, 0, 0) == 0);
	printf("sem 0x%jx\n", (uintmax_t)(uintptr_t)&items);
	pthread_create(&producer, NULL, produce, NULL);
	for (int i = 0; i < n_items; i++) {
		errno = 4321;
		CHECK(sem_wait(&items) == 0);
		CHECK(errno == 4321);
	}
	pthread_join(producer, NULL);

	/* empty: a try fails, timed waits time out */
	errno = 0;
	CHECK(sem_trywait(&items) == -1 && errno == EAGAIN);
	until = in_ms(CLOCK_REALTIME, 20);
	errno = 0;
	CHECK(sem_timedwait(&items, &until) == -1 && errno == ETIMEDOUT);
	until = in_ms(CLOCK_MONOTONIC, 20);
	errno = 0;
	CHECK(sem_clockwait(&items, CLOCK_MONOTONIC, &until) == -1 && errno == ETIMEDOUT);

	/* one unit: a try takes it; another post, a timed wait past its deadline takes it */
	errno = 4321;
	CHECK(sem_post(&items) == 0 && errno == 4321);
	CHECK(sem_trywait(&items) == 0 && errno == 4321);
	CHECK(sem_post(&items) == 0);
	until = in_ms(CLOCK_REALTIME, 0);
	until.tv_sec--;
	CHECK(sem_timedwait(&items, &until) == 0 && errno == 4321);
	sem_destroy(&items);
	return failures ? 1 : 0;
}
