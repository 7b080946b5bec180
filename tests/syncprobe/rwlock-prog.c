/* SPDX-License-Identifier: MIT */
/*
 * The rwlock program of test-syncprobe-live: READERS threads (2) take the read side ROUNDS
 * times (argv[1], default 10) while the main thread takes the write side as often; then, with
 * the main thread holding the write side, a helper thread's tryrdlock and trywrlock fail
 * (EBUSY) and its timedrdlock and clockwrlock time out (ETIMEDOUT, 20 ms); once main unlocked,
 * main's tryrdlock succeeds. Prints the rwlock's address; checks every result and exits 1 when
 * one is not the real call's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define READERS 2

static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static int rounds = 10;
static int failures;
static long shared;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "rwlock-prog: line %d: %s\n", __LINE__, #cond);            \
			__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                        \
		}                                                                                  \
	} while (0)

static void *reader(void *arg)
{
	long seen = 0;

	(void)arg;
	for (int i = 0; i < rounds; i++) {
		CHECK(pthread_rwlock_rdlock(&rwlock) == 0);
		seen += shared;
		CHECK(pthread_rwlock_unlock(&rwlock) == 0);
	}
	return (void *)seen;
}

static struct timespec in_20ms(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_nsec += 20 * 1000000L;
	t.tv_sec += t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

/* While main holds the write side. */
static void *blocked(void *arg)
{
	struct timespec until;

	(void)arg;
	CHECK(pthread_rwlock_tryrdlock(&rwlock) == EBUSY);
	CHECK(pthread_rwlock_trywrlock(&rwlock) == EBUSY);
	until = in_20ms(CLOCK_REALTIME);
	CHECK(pthread_rwlock_timedrdlock(&rwlock, &until) == ETIMEDOUT);
	until = in_20ms(CLOCK_MONOTONIC);
	CHECK(pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &until) == ETIMEDOUT);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[READERS], helper;

	rounds = argc > 1 ? atoi(argv[1]) : rounds;
	if (rounds < 0) {
		fprintf(stderr, "usage: %s [ROUNDS]\n", argv[0]);
		return 2;
	}
	printf("rwlock 0x%jx\n", (uintmax_t)(uintptr_t)&rwlock);
	for (int i = 0; i < READERS; i++) {
		pthread_create(&t[i], NULL, reader, NULL);
	}
	for (int i = 0; i < rounds; i++) {
		errno = 4321;
		CHECK(pthread_rwlock_wrlock(&rwlock) == 0);
		shared++;
		CHECK(pthread_rwlock_unlock(&rwlock) == 0);
		CHECK(errno == 4321);
	}
	for (int i = 0; i < READERS; i++) {
		pthread_join(t[i], NULL);
	}

	CHECK(pthread_rwlock_wrlock(&rwlock) == 0);
	pthread_create(&helper, NULL, blocked, NULL);
	pthread_join(helper, NULL);
	CHECK(pthread_rwlock_unlock(&rwlock) == 0);
	CHECK(pthread_rwlock_tryrdlock(&rwlock) == 0);
	CHECK(pthread_rwlock_unlock(&rwlock) == 0);
	return failures ? 1 : 0;
}
