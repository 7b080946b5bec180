/* SPDX-License-Identifier: MIT */
/*
 * bench/memory-predict.sh's second program: a parser. It writes a random nested s-expression
 * of N atoms into a text buffer grown by doubling ("read"), parses it into a tree of nodes
 * whose child arrays grow by realloc, each atom's name copied ("parse"), gives every leaf its
 * path from the root ("paths": n log n bytes, the depth is logarithmic), then frees the text
 * and the paths, most of what it holds ("drop"), sums the tree ("walk") and frees it ("free").
 * Deterministic for a given N.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/memclass.h>

struct node {
	char *name; /* atoms */
	struct node **kids;
	uint32_t n_kids, cap_kids;
	struct node **path; /* leaves: root .. parent */
	uint32_t depth;
};

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char *text;
static size_t len, cap;

static void put(const char *s, size_t n)
{
	if (len + n + 1 > cap) {
		cap = cap ? cap * 2 : 4096;
		text = realloc(text, cap);
		if (!text) {
			exit(1);
		}
	}
	memcpy(text + len, s, n);
	len += n;
	text[len] = 0;
}

/* n atoms: one, or a list of 2 to 4 parts. */
static void gen(long n)
{
	char atom[24];

	if (n == 1) {
		int k = snprintf(atom, sizeof(atom), "a%llu ",
				 (unsigned long long)(next_rand() % 100000));

		put(atom, (size_t)k);
		return;
	}
	put("(", 1);
	{
		long parts = 2 + (long)(next_rand() % 3), left = n;

		parts = parts > n ? n : parts;
		for (long p = 0; p < parts; p++) {
			/* about an equal share, give or take a quarter: the depth stays ~log n */
			long share = left / (parts - p), take = share;

			if (p < parts - 1 && share >= 4) {
				take = share - share / 4 +
				       (long)(next_rand() % (uint64_t)(share / 2 + 1));
			}
			take = take < 1			       ? 1
			       : take > left - (parts - p - 1) ? left - (parts - p - 1)
							       : take;
			gen(take);
			left -= take;
		}
	}
	put(") ", 2);
}

static const char *at;

static struct node *new_node(void)
{
	struct node *x = calloc(1, sizeof(*x));

	if (!x) {
		exit(1);
	}
	return x;
}

static struct node *parse(void)
{
	struct node *x;

	while (*at == ' ') {
		at++;
	}
	x = new_node();
	if (*at == '(') {
		at++;
		for (;;) {
			while (*at == ' ') {
				at++;
			}
			if (*at == ')' || !*at) {
				at += !!*at;
				break;
			}
			if (x->n_kids == x->cap_kids) {
				x->cap_kids = x->cap_kids ? x->cap_kids * 2 : 2;
				x->kids = realloc(x->kids, x->cap_kids * sizeof(*x->kids));
				if (!x->kids) {
					exit(1);
				}
			}
			x->kids[x->n_kids++] = parse();
		}
		return x;
	}
	{
		size_t n = strcspn(at, " ()");

		x->name = malloc(n + 1);
		if (!x->name) {
			exit(1);
		}
		memcpy(x->name, at, n);
		x->name[n] = 0;
		at += n;
	}
	return x;
}

static struct node *stack[4096];

static void paths(struct node *x, uint32_t depth)
{
	if (!x->n_kids) {
		x->depth = depth;
		x->path = malloc((depth ? depth : 1) * sizeof(*x->path));
		if (!x->path) {
			exit(1);
		}
		memcpy(x->path, stack, depth * sizeof(*x->path));
		return;
	}
	stack[depth] = x;
	for (uint32_t i = 0; i < x->n_kids; i++) {
		paths(x->kids[i], depth + 1);
	}
}

static void drop_paths(struct node *x)
{
	free(x->path);
	x->path = NULL;
	for (uint32_t i = 0; i < x->n_kids; i++) {
		drop_paths(x->kids[i]);
	}
}

static uint64_t walk(const struct node *x)
{
	uint64_t s = x->name ? (uint64_t)strlen(x->name) : 1;

	for (uint32_t i = 0; i < x->n_kids; i++) {
		s += walk(x->kids[i]);
	}
	return s;
}

static void free_tree(struct node *x)
{
	for (uint32_t i = 0; i < x->n_kids; i++) {
		free_tree(x->kids[i]);
	}
	free(x->kids);
	free(x->name);
	free(x);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	struct node *root;
	uint64_t sum;

	dps_mem_size((uint64_t)n);
	dps_phase("read");
	gen(n);
	dps_phase("parse");
	at = text;
	root = parse();
	dps_phase("paths");
	paths(root, 0);
	dps_phase("drop");
	drop_paths(root);
	free(text);
	dps_phase("walk");
	sum = walk(root);
	dps_phase("free");
	free_tree(root);
	return sum == 1 ? 2 : 0;
}
