/* SPDX-License-Identifier: MIT */
/*
 * Cache kernel: pointer chasing through a linked list whose nodes (one 64-byte line each) are
 * linked in a random cyclic order (Sattolo's shuffle), --reps walks around the whole cycle of
 * --ws bytes. One load per step, each depending on the last: no prefetch helps, and once the
 * list is larger than a cache level nearly every step misses it. The walk is kernel_chase.
 */
#include "kernel-args.h"

struct node {
	struct node *next;
	uint64_t pad[7]; /* one node per 64-byte line */
};

__attribute__((noinline)) static struct node *kernel_chase(struct node *p, uint64_t steps)
{
	for (uint64_t s = 0; s < steps; s++) {
		p = p->next;
	}
	return p;
}

int main(int argc, char **argv)
{
	struct kernel_args args;
	struct node *nodes, *end;
	size_t *order;
	size_t n;
	uint64_t rng = 0x9e3779b97f4a7c15u, cpu_ns;
	int ret = kernel_parse_args(argc, argv, "chases pointers in a random order", &args);

	if (ret) {
		return ret;
	}
	n = args.ws_bytes / sizeof(struct node);
	n = n ? n : 1;
	nodes = aligned_alloc(64, n * sizeof(*nodes));
	order = malloc(n * sizeof(*order));
	if (!nodes || !order) {
		fprintf(stderr, "%s: cannot allocate %zu nodes\n", argv[0], n);
		free(nodes);
		free(order);
		return 1;
	}
	/* Sattolo: a random permutation that is one cycle through every node */
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
	}
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = kernel_rand(&rng) % i, t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++) {
		nodes[i].next = &nodes[order[i]];
		nodes[i].pad[0] = i;
	}
	free(order);
	cpu_ns = kernel_cpu_ns();
	end = kernel_chase(&nodes[0], args.reps * n);
	cpu_ns = kernel_cpu_ns() - cpu_ns;
	printf("chase ws=%" PRIu64 " reps=%" PRIu64 " check=%" PRIu64 " cpu_ns=%" PRIu64 "\n",
	       args.ws_bytes, args.reps, end->pad[0], cpu_ns);
	free(nodes);
	return 0;
}
