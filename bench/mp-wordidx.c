/* SPDX-License-Identifier: MIT */
/*
 * bench/memory-predict.sh's first program: an inverted index of a text of N words. The words
 * come from a vocabulary that grows like Heaps' law (about 8 N^0.6 distinct words, drawn with a
 * Zipf-like skew), deterministic for a given N. A chained hash table of entries (the word, its
 * posting list of word positions grown by doubling realloc), rehashed into twice the buckets
 * when it is full. Phases: "index" builds it, "query" looks up N/20 words and copies their
 * postings into short-lived result arrays, "free" frees everything.
 *
 * Memory grows in different ways: postings linearly in N (with the doublings' slack), entries
 * and words like the vocabulary (sublinearly), the bucket array by steps of two.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/memclass.h>

struct entry {
	char *word;
	uint32_t *post;
	uint32_t n, cap;
	struct entry *next;
};

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* The text of word id: letters from its digits in base 26, 3 to 12 of them. */
static size_t word_of(uint64_t id, char *buf)
{
	size_t len = 3 + (size_t)(id * 2654435761u % 10);

	for (size_t i = 0; i < len; i++) {
		buf[i] = (char)('a' + (id + i * 7) % 26);
		id = id / 26 + i;
	}
	buf[len] = 0;
	return len;
}

static uint64_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	}
	return h;
}

static struct entry **table;
static size_t n_buckets, n_entries;

static void rehash(void)
{
	size_t nb = n_buckets ? n_buckets * 2 : 1024;
	struct entry **t = calloc(nb, sizeof(*t));

	if (!t) {
		exit(1);
	}
	for (size_t b = 0; b < n_buckets; b++) {
		struct entry *e = table[b], *next;

		for (; e; e = next) {
			size_t h = hash_of(e->word) & (nb - 1);

			next = e->next;
			e->next = t[h];
			t[h] = e;
		}
	}
	free(table);
	table = t;
	n_buckets = nb;
}

static struct entry *find(const char *w)
{
	struct entry *e = table[hash_of(w) & (n_buckets - 1)];

	while (e && strcmp(e->word, w)) {
		e = e->next;
	}
	return e;
}

static void add(const char *w, size_t len, uint32_t pos)
{
	struct entry *e = find(w);

	if (!e) {
		size_t h;

		if (n_entries >= n_buckets) {
			rehash();
		}
		h = hash_of(w) & (n_buckets - 1);
		e = calloc(1, sizeof(*e));
		if (!e) {
			exit(1);
		}
		e->word = malloc(len + 1);
		if (!e->word) {
			exit(1);
		}
		memcpy(e->word, w, len + 1);
		e->next = table[h];
		table[h] = e;
		n_entries++;
	}
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 2;
		e->post = realloc(e->post, e->cap * sizeof(*e->post));
		if (!e->post) {
			exit(1);
		}
	}
	e->post[e->n++] = pos;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	char buf[32];
	uint64_t found = 0;

	dps_mem_size((uint64_t)n);
	dps_phase("index");
	rehash();
	for (long i = 0; i < n; i++) {
		double vocab = 8 * pow((double)i + 1, 0.6);
		uint64_t id = (uint64_t)(vocab * pow(uniform(), 2.0));
		size_t len = word_of(id, buf);

		add(buf, len, (uint32_t)i);
	}
	dps_phase("query");
	for (long q = 0; q < n / 20; q++) {
		struct entry *e;

		word_of((uint64_t)(8 * pow((double)n, 0.6) * uniform()), buf);
		e = find(buf);
		if (e) {
			uint32_t *res = malloc(e->n * sizeof(*res));

			if (!res) {
				return 1;
			}
			memcpy(res, e->post, e->n * sizeof(*res));
			found += res[e->n - 1] % 7;
			free(res);
		}
	}
	dps_phase("free");
	for (size_t b = 0; b < n_buckets; b++) {
		struct entry *e = table[b], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->post);
			free(e->word);
			free(e);
		}
	}
	free(table);
	return found == 1 ? 2 : 0; /* found is used: the queries are not optimised away */
}
