/* SPDX-License-Identifier: MIT */
/*
 * The program test-mempredict-live profiles with --wrapper xmalloc (built with -g -O0
 * -finstrument-functions, linked with liblttng-ust-cyg-profile): every allocation goes through
 * xmalloc, from two call sites: make_lists() allocates argv[1] list cells of 32 bytes,
 * make_names() argv[1] / 2 names of 64 bytes. No dps marks.
 */
#include <stdio.h>
#include <stdlib.h>

static void *xmalloc(size_t n)
{
	void *p = malloc(n); /* SITE: wrapper */

	if (!p) {
		fputs("out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static void **cells, **names;

static void make_lists(long n)
{
	cells = xmalloc((size_t)n * sizeof(*cells));
	for (long i = 0; i < n; i++) {
		cells[i] = xmalloc(32); /* SITE: cells */
	}
}

static void make_names(long n)
{
	names = xmalloc((size_t)n * sizeof(*names));
	for (long i = 0; i < n; i++) {
		names[i] = xmalloc(64); /* SITE: names */
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;

	make_lists(n);
	make_names(n / 2);
	for (long i = 0; i < n; i++) {
		free(cells[i]);
	}
	for (long i = 0; i < n / 2; i++) {
		free(names[i]);
	}
	free(cells);
	free(names);
	return 0;
}
