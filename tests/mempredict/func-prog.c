/* SPDX-License-Identifier: MIT */
/*
 * The program test-mempredict-live profiles with --phase-func (built with -g -O0
 * -finstrument-functions, linked with liblttng-ust-cyg-profile): build() allocates argv[1]
 * blocks of 100 bytes, pausing 0.4 s halfway (so a phase split by time at 0.2 s falls between
 * the halves even on a busy machine), teardown() frees them. No dps marks.
 */
#include <stdlib.h>
#include <time.h>

static void **blocks;

static void build(long n)
{
	blocks = malloc((size_t)n * sizeof(*blocks));
	for (long i = 0; blocks && i < n; i++) {
		if (i == n / 2) {
			nanosleep(&(struct timespec){.tv_nsec = 400000000}, NULL);
		}
		blocks[i] = malloc(100); /* SITE: block */
	}
}

static void teardown(long n)
{
	for (long i = 0; blocks && i < n; i++) {
		free(blocks[i]);
	}
	free(blocks);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;

	build(n);
	teardown(n);
	return 0;
}
