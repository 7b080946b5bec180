/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for DPS_CACHE_COSTS's text (runtime/cache-costs.c, dps_cache_costs_parse):
 * any value parses or is refused, never a crash or undefined behaviour, and what parses
 * survives the writer: formatted, parsed again and formatted again it is the same text (a
 * difference traps). Run: tests/fuzz/run.sh SECONDS cache-costs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dps/cache.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* As many entries as the player takes (runtime/player-cache.c). */
#define MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dps_cache_costs a[MAX], b[MAX];
	char *text = malloc(size + 1), *one, *two;
	size_t n = 0, m = 0, len;

	if (!text) {
		return 0;
	}
	memcpy(text, data, size);
	text[size] = 0;
	if (dps_cache_costs_parse(text, a, MAX, &n)) {
		free(text);
		return 0;
	}
	len = dps_cache_costs_format(a, n, NULL, 0) + 1;
	one = malloc(len);
	if (!one) {
		free(text);
		return 0;
	}
	dps_cache_costs_format(a, n, one, len);
	if (dps_cache_costs_parse(one, b, MAX, &m) || m != n) {
		__builtin_trap(); /* the writer's text must parse, whole */
	}
	len = dps_cache_costs_format(b, m, NULL, 0) + 1;
	two = malloc(len);
	if (two) {
		dps_cache_costs_format(b, m, two, len);
		if (strcmp(one, two)) {
			__builtin_trap();
		}
		free(two);
	}
	free(one);
	free(text);
	return 0;
}
