/* SPDX-License-Identifier: MIT */
/*
 * The pthread barrier program of test-syncprobe-live: THREADS threads (argv[1], default 3) meet
 * ROUNDS times (argv[2], default 5) at one barrier. Prints the barrier's address (the object
 * the events must name) and checks what the calls returned: exactly one
 * PTHREAD_BARRIER_SERIAL_THREAD per round, 0 for the others. Exit 1 when the probe changed a
 * result. Plain pthreads, no sanitizer: libdps-syncprobe is preloaded into it.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t barrier;
static int rounds = 5;
static int serial, bad;

static void *meet(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		int r = pthread_barrier_wait(&barrier);

		if (r == PTHREAD_BARRIER_SERIAL_THREAD) {
			__atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
		} else if (r != 0) {
			__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[64];

	rounds = argc > 2 ? atoi(argv[2]) : rounds;
	if (threads < 1 || threads > 64 || rounds < 1) {
		fprintf(stderr, "usage: %s [THREADS (1-64) [ROUNDS]]\n", argv[0]);
		return 2;
	}
	if (pthread_barrier_init(&barrier, NULL, (unsigned)threads)) {
		perror("pthread_barrier_init");
		return 1;
	}
	printf("barrier 0x%jx\n", (uintmax_t)(uintptr_t)&barrier);
	for (int i = 0; i < threads; i++) {
		pthread_create(&t[i], NULL, meet, NULL);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
	}
	pthread_barrier_destroy(&barrier);
	if (serial != rounds || bad) {
		fprintf(stderr, "barrier: %d serial results for %d rounds, %d errors\n", serial,
			rounds, bad);
		return 1;
	}
	return 0;
}
