/* SPDX-License-Identifier: MIT */
/*
 * This machine's data-cache geometry, for cachegrind's --D1 and --LL: the simulation should
 * model the caches the program runs on. Linux describes them in
 * /sys/devices/system/cpu/cpu0/cache/index*; a virtual machine's kernel may have no such
 * directory, and then glibc's sysconf(_SC_LEVEL1_DCACHE_SIZE, ...) has what CPUID says.
 * The levels are read by libdps (dps_cache_levels_sysfs, _sysconf: the cache stub aims at the
 * same machine); what is the capture's own is the choice. Cachegrind simulates two data levels,
 * so the last level is the highest whose geometry it can take; one it cannot (a VM reporting an
 * associativity of 0, a set count that is not a power of two) is left out and named, so the
 * result says what was simulated; a level neither source gives is left to cachegrind.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <dps/cache.h>
#include <dps/dps-status.h>

#include "cache.h"

#define MAX_LEVELS 8

bool cache_level_simulable(const struct cache_level *l)
{
	uint64_t sets;

	if (!l->size_bytes || !l->assoc || !l->line_bytes ||
	    (l->line_bytes & (l->line_bytes - 1))) {
		return false;
	}
	if (l->size_bytes % ((uint64_t)l->assoc * l->line_bytes)) {
		return false;
	}
	sets = l->size_bytes / ((uint64_t)l->assoc * l->line_bytes);
	return sets && !(sets & (sets - 1));
}

void cache_size_format(uint64_t s, char *buf, size_t len)
{
	if (s >= 1024 * 1024 && s % (1024 * 1024) == 0) {
		snprintf(buf, len, "%" PRIu64 " MiB", s / (1024 * 1024));
	} else if (s >= 1024 && s % 1024 == 0) {
		snprintf(buf, len, "%" PRIu64 " KiB", s / 1024);
	} else {
		snprintf(buf, len, "%" PRIu64 " B", s);
	}
}

void cache_level_format(const struct cache_level *l, char *buf, size_t len)
{
	char size[32];

	if (!l->size_bytes) {
		snprintf(buf, len, "chosen by cachegrind");
		return;
	}
	cache_size_format(l->size_bytes, size, sizeof(size));
	snprintf(buf, len, "%s %u-way %u B", size, l->assoc, l->line_bytes);
}

/* Picks D1 (level 1's data cache) and LL (the highest simulable level) of levels[0..n). */
static void choose(struct cache_geometry *g, const struct cache_level *levels, size_t n)
{
	const struct cache_level *ll = NULL;
	size_t used = 0;

	g->note[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct cache_level *l = &levels[i];
		char what[96];

		if (!cache_level_simulable(l)) {
			if (l->size_bytes) {
				snprintf(what, sizeof(what), "%" PRIu64 " B, %u-way, %u B lines",
					 l->size_bytes, l->assoc, l->line_bytes);
				used += (size_t)snprintf(
				    g->note + used, sizeof(g->note) - used,
				    "%sL%u (%s) left out: cachegrind cannot simulate it",
				    used ? "; " : "", l->level, what);
				used = used < sizeof(g->note) ? used : sizeof(g->note) - 1;
			}
			continue;
		}
		if (l->level == 1) {
			g->d1 = *l;
		} else if (!ll || l->level > ll->level) {
			ll = l;
		}
	}
	if (ll) {
		g->ll = *ll;
	}
}

/* libdps's levels (<dps/cache.h>, which reads the machine's once for the stub and the capture)
 * as the capture's */
static size_t to_capture_levels(const struct dps_cache_level *in, size_t n, struct cache_level *out)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = (struct cache_level){.level = in[i].level,
					      .size_bytes = in[i].size_bytes,
					      .assoc = in[i].assoc,
					      .line_bytes = in[i].line_bytes};
	}
	return n;
}

int cache_geometry_from_sysfs(struct cache_geometry *g, const char *dir)
{
	struct dps_cache_level found[MAX_LEVELS];
	struct cache_level levels[MAX_LEVELS];
	size_t n = to_capture_levels(found, dps_cache_levels_sysfs(dir, found, MAX_LEVELS), levels);

	memset(g, 0, sizeof(*g));
	if (!n) {
		return DPS_ERR_NOENT;
	}
	choose(g, levels, n);
	snprintf(g->source, sizeof(g->source), "sysfs");
	return DPS_OK;
}

int cache_geometry_detect(struct cache_geometry *g)
{
	struct dps_cache_level found[MAX_LEVELS];
	struct cache_level levels[MAX_LEVELS];
	size_t n;

	if (cache_geometry_from_sysfs(g, NULL) == DPS_OK &&
	    (g->d1.size_bytes || g->ll.size_bytes)) {
		return DPS_OK;
	}
	memset(g, 0, sizeof(*g));
	n = to_capture_levels(found, dps_cache_levels_sysconf(found, MAX_LEVELS), levels);
	choose(g, levels, n);
	snprintf(g->source, sizeof(g->source), "%s",
		 g->d1.size_bytes || g->ll.size_bytes ? "sysconf" : "cachegrind");
	return DPS_OK;
}
