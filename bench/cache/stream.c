/* SPDX-License-Identifier: MIT */
/*
 * Cache kernel: streaming over an array, each 8-byte element read and written back (a[i] =
 * a[i] * 3 + 1), --reps passes over --ws bytes. Per pass: ws/8 loads and ws/8 stores; once the
 * array is larger than D1, about ws/64 D1 misses (one per line, the store then hits), none
 * when it fits. The pass is kernel_stream, kept out of line so a capture names it.
 */
#include "kernel-args.h"

__attribute__((noinline)) static uint64_t kernel_stream(uint64_t *a, size_t n, uint64_t reps)
{
	for (uint64_t r = 0; r < reps; r++) {
		for (size_t i = 0; i < n; i++) {
			a[i] = a[i] * 3 + 1;
		}
		/* the compiler must not merge the passes */
		__asm__ __volatile__("" : : "r"(a) : "memory");
	}
	return a[n / 2];
}

int main(int argc, char **argv)
{
	struct kernel_args args;
	uint64_t *a;
	size_t n;
	uint64_t check, cpu_ns;
	int ret = kernel_parse_args(argc, argv, "streams over an array (read and write)", &args);

	if (ret) {
		return ret;
	}
	n = args.ws_bytes / sizeof(*a);
	n = n ? n : 1;
	a = malloc(n * sizeof(*a));
	if (!a) {
		fprintf(stderr, "%s: cannot allocate %zu bytes\n", argv[0], n * sizeof(*a));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		a[i] = i;
	}
	cpu_ns = kernel_cpu_ns();
	check = kernel_stream(a, n, args.reps);
	cpu_ns = kernel_cpu_ns() - cpu_ns;
	printf("stream ws=%" PRIu64 " reps=%" PRIu64 " check=%" PRIu64 " cpu_ns=%" PRIu64 "\n",
	       args.ws_bytes, args.reps, check, cpu_ns);
	free(a);
	return 0;
}
