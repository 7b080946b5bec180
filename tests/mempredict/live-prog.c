/* SPDX-License-Identifier: MIT */
/*
 * The program test-mempredict-live records (built with -g -O0): argv[1] nodes of 64 bytes in a
 * list (one allocation site, the SITE line), an array of argv[1] pointers, and argv[1] 16-byte
 * names named by dps_mem_class; phases "build" and "teardown" (everything freed), its size
 * from dps_mem_size. No other allocation: no stdio.
 */
#include <stdlib.h>

#include <dps/memclass.h>

struct node {
	struct node *next;
	long key;
	char pad[48];
};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	struct node *head = NULL;
	char **names;

	dps_mem_size((uint64_t)n);
	dps_phase("build");
	for (long i = 0; i < n; i++) {
		struct node *x = malloc(sizeof(*x)); /* SITE: node */

		if (!x) {
			return 1;
		}
		x->next = head;
		x->key = i;
		head = x;
	}
	names = malloc((size_t)n * sizeof(*names));
	if (!names) {
		return 1;
	}
	for (long i = 0; i < n; i++) {
		names[i] = dps_mem_class(malloc(16), "name");
	}
	dps_phase("teardown");
	while (head) {
		struct node *next = head->next;

		free(head);
		head = next;
	}
	for (long i = 0; i < n; i++) {
		free(names[i]);
	}
	free(names);
	return 0;
}
