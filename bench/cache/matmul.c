/* SPDX-License-Identifier: MIT */
/*
 * Cache kernel: a blocked matrix multiply C += A * B of three n x n doubles filling --ws bytes
 * (n = sqrt(ws / 24)), in 32 x 32 tiles. --reps is the number of C's tiles computed, in row
 * order and wrapping around (the whole product is (n/32)^2 tiles): a full product of a 64 MiB
 * working set is 10^10 multiply-adds, hours under a cache simulator, so a bench computes a
 * few tiles of it. Each tile reads a 32-row strip of A and a 32-column strip of B (the strip of
 * A is reused by the next tile of the row). The tiles are kernel_matmul.
 */
#include <math.h>

#include "kernel-args.h"

#define TILE 32

__attribute__((noinline)) static double kernel_matmul(const double *a, const double *b, double *c,
						      size_t n, uint64_t tiles)
{
	size_t per_row = (n + TILE - 1) / TILE;

	for (uint64_t t = 0; t < tiles; t++) {
		size_t i0 = (size_t)(t / per_row % per_row) * TILE;
		size_t j0 = (size_t)(t % per_row) * TILE;
		size_t i1 = i0 + TILE < n ? i0 + TILE : n;
		size_t j1 = j0 + TILE < n ? j0 + TILE : n;

		for (size_t k0 = 0; k0 < n; k0 += TILE) {
			size_t k1 = k0 + TILE < n ? k0 + TILE : n;

			for (size_t i = i0; i < i1; i++) {
				for (size_t k = k0; k < k1; k++) {
					double aik = a[i * n + k];

					for (size_t j = j0; j < j1; j++) {
						c[i * n + j] += aik * b[k * n + j];
					}
				}
			}
		}
	}
	return c[0] + c[n * n - 1];
}

int main(int argc, char **argv)
{
	struct kernel_args args;
	double *a, *b, *c, check;
	uint64_t cpu_ns;
	size_t n;
	int ret =
	    kernel_parse_args(argc, argv, "multiplies matrices in tiles (--reps tiles)", &args);

	if (ret) {
		return ret;
	}
	n = (size_t)sqrt((double)args.ws_bytes / (3 * sizeof(double)));
	n = n ? n : 1;
	a = malloc(n * n * sizeof(*a));
	b = malloc(n * n * sizeof(*b));
	c = calloc(n * n, sizeof(*c));
	if (!a || !b || !c) {
		fprintf(stderr, "%s: cannot allocate three %zu x %zu matrices\n", argv[0], n, n);
		free(a);
		free(b);
		free(c);
		return 1;
	}
	for (size_t i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7);
		b[i] = (double)(i % 5);
	}
	cpu_ns = kernel_cpu_ns();
	check = kernel_matmul(a, b, c, n, args.reps);
	cpu_ns = kernel_cpu_ns() - cpu_ns;
	printf("matmul ws=%" PRIu64 " n=%zu tiles=%" PRIu64 " check=%.0f cpu_ns=%" PRIu64 "\n",
	       args.ws_bytes, n, args.reps, check, cpu_ns);
	free(a);
	free(b);
	free(c);
	return 0;
}
