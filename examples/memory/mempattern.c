/* SPDX-License-Identifier: MIT */
/*
 * A real program with a known heap and stack pattern, for recording with dps record --memory
 * (build: -finstrument-functions, linked with libdps-stackprobe.so). The main thread and one
 * worker each allocate, recurse with a known frame size, reallocate and free, with pauses
 * between the steps so that the curves have a shape in time. bench/memory.sh records it,
 * analyzes it and replays the curves; tests/memory checks the analyzer's reconstruction
 * against the sizes below.
 *
 * Usage: memory-pattern [pause_us]   (default 2000)
 */
#include <alloca.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned pause_us = 2000;

/* Heap sizes of the main thread, allocated in this order and freed in reverse. */
static const size_t main_sizes[] = {1000, 24000, 200000, 64, 4096};
#define N_MAIN (sizeof(main_sizes) / sizeof(main_sizes[0]))

static void *volatile sink;

static void pause_a_little(void)
{
	usleep(pause_us);
}

/* depth levels of `bytes` each (plus the frame), a pause at the bottom, and on the way back. */
static __attribute__((noinline)) unsigned descend(unsigned depth, size_t bytes)
{
	volatile char *area = alloca(bytes);
	unsigned sum;

	memset((char *)area, (int)depth, bytes);
	if (depth <= 1) {
		pause_a_little();
		return area[0];
	}
	sum = descend(depth - 1, bytes) + area[bytes - 1];
	usleep(pause_us / 4);
	return sum;
}

static __attribute__((noinline)) void grow_by_realloc(void)
{
	char *p = NULL;

	for (size_t k = 1; k <= 6; k++) {
		char *q = realloc(p, k * 8192);

		if (!q) {
			break;
		}
		p = q;
		memset(p, 1, k * 8192);
		pause_a_little();
	}
	sink = p;
	free(p);
}

static void *worker(void *arg)
{
	char *block = malloc(5000);

	(void)arg;
	if (block) {
		memset(block, 2, 5000);
	}
	sink = block; /* else the compiler may drop the malloc/free pair */
	pause_a_little();
	descend(6, 1024);
	free(block);
	pause_a_little();
	return NULL;
}

int main(int argc, char **argv)
{
	void *blocks[N_MAIN] = {0};
	pthread_t tid;
	void *zeroed;

	if (argc > 1) {
		pause_us = (unsigned)strtoul(argv[1], NULL, 10);
	}
	pause_a_little();
	for (size_t i = 0; i < N_MAIN; i++) {
		blocks[i] = malloc(main_sizes[i]);
		if (blocks[i]) {
			memset(blocks[i], 3, main_sizes[i]);
		}
		pause_a_little();
	}
	descend(12, 512);
	pause_a_little();
	grow_by_realloc();
	zeroed = calloc(100, 40);
	sink = zeroed;
	free(NULL);
	pause_a_little();
	if (pthread_create(&tid, NULL, worker, NULL) == 0) {
		pthread_join(tid, NULL);
	}
	free(zeroed);
	for (size_t i = N_MAIN; i-- > 0;) {
		free(blocks[i]);
		pause_a_little();
	}
	return 0;
}
