/* SPDX-License-Identifier: MIT */
/*
 * Cache kernel: random lookups in an open-addressing hash table (linear probing, 16-byte slots
 * of key and value) of --ws bytes, half full; --reps rounds of as many lookups as it has keys,
 * the keys looked up in a random order, every other one absent. Each lookup lands on a random
 * line of the table: once it is larger than a cache level, nearly every lookup misses it. The
 * lookups are kernel_hash.
 */
#include "kernel-args.h"

struct slot {
	uint64_t key; /* 0: empty */
	uint64_t value;
};

/* Where a key's probe starts (a multiplicative hash: the keys below are consecutive). */
static inline size_t slot_of(uint64_t key, size_t mask)
{
	return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 17) & mask;
}

__attribute__((noinline)) static uint64_t kernel_hash(const struct slot *t, size_t mask,
						      uint64_t keys, uint64_t lookups)
{
	uint64_t rng = 12345, sum = 0;

	for (uint64_t l = 0; l < lookups; l++) {
		/* keys 1..2*keys: the odd ones are in the table */
		uint64_t key = kernel_rand(&rng) % (2 * keys) + 1;

		for (size_t s = slot_of(key, mask); t[s].key; s = (s + 1) & mask) {
			if (t[s].key == key) {
				sum += t[s].value;
				break;
			}
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	struct kernel_args args;
	struct slot *t;
	size_t slots = 1, mask;
	uint64_t keys, check, cpu_ns;
	int ret = kernel_parse_args(argc, argv, "looks up random keys in a hash table", &args);

	if (ret) {
		return ret;
	}
	/* the largest power of two that fits: the mask needs one */
	while (slots * 2 * sizeof(struct slot) <= args.ws_bytes) {
		slots *= 2;
	}
	mask = slots - 1;
	t = calloc(slots, sizeof(*t));
	if (!t) {
		fprintf(stderr, "%s: cannot allocate %zu slots\n", argv[0], slots);
		return 1;
	}
	keys = slots / 2 ? slots / 2 : 1;
	for (uint64_t k = 0; k < keys && k < slots - 1; k++) {
		uint64_t key = 2 * k + 1;
		size_t s = slot_of(key, mask);

		while (t[s].key) {
			s = (s + 1) & mask;
		}
		t[s].key = key;
		t[s].value = k;
	}
	cpu_ns = kernel_cpu_ns();
	check = kernel_hash(t, mask, keys, args.reps * keys);
	cpu_ns = kernel_cpu_ns() - cpu_ns;
	printf("hash ws=%" PRIu64 " slots=%zu reps=%" PRIu64 " check=%" PRIu64 " cpu_ns=%" PRIu64
	       "\n",
	       args.ws_bytes, slots, args.reps, check, cpu_ns);
	free(t);
	return 0;
}
