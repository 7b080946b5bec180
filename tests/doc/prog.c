/* SPDX-License-Identifier: MIT */
/*
 * The program the docs call ./myprog (README.md) and prog.c (doc/memory.md):
 * tests/doc/doc-commands.sh puts it into each page's directory. Two threads with some CPU work,
 * heap blocks and calls deep enough to show a stack curve; a few tens of milliseconds in all.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

/* Burns CPU with a call depth of depth, touching a frame at each level. */
static unsigned long work(int depth, unsigned long n)
{
	char frame[256];
	unsigned long acc = 0;

	memset(frame, depth, sizeof(frame));
	if (depth > 0) {
		acc = work(depth - 1, n);
	}
	for (unsigned long i = 0; i < n; i++) {
		acc += i ^ (unsigned long)frame[i % sizeof(frame)];
	}
	return acc;
}

static void *worker(void *arg)
{
	unsigned long n = (unsigned long)arg;

	for (int round = 0; round < 5; round++) {
		char *block = malloc(64 * 1024);

		if (!block) {
			return NULL;
		}
		memset(block, round, 64 * 1024);
		sink += work(8, n) + (unsigned long)block[round];
		free(block);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, (void *)2000000UL)) {
		perror("pthread_create");
		return 1;
	}
	worker((void *)1000000UL);
	pthread_join(t, NULL);
	printf("prog: done\n");
	return 0;
}
