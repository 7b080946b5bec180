/* SPDX-License-Identifier: MIT */
/*
 * This machine's data-cache geometry, for cachegrind's --D1 and --LL: the simulation should
 * model the caches the program runs on. Linux describes them in
 * /sys/devices/system/cpu/cpu0/cache/index*; a virtual machine's kernel may have no such
 * directory, and then glibc's sysconf(_SC_LEVEL1_DCACHE_SIZE, ...) has what CPUID says.
 * Cachegrind simulates two data levels, so the last level is the highest whose geometry it can
 * take; one it cannot (a VM reporting an associativity of 0, a set count that is not a power of
 * two) is left out and named, so the result says what was simulated.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dps/dps-status.h>

#include "cache.h"

#define SYSFS_CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
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

void cache_level_format(const struct cache_level *l, char *buf, size_t len)
{
	uint64_t s = l->size_bytes;

	if (!s) {
		snprintf(buf, len, "chosen by cachegrind");
	} else if (s % (1024 * 1024) == 0) {
		snprintf(buf, len, "%" PRIu64 " MiB %u-way %u B", s / (1024 * 1024), l->assoc,
			 l->line_bytes);
	} else if (s % 1024 == 0) {
		snprintf(buf, len, "%" PRIu64 " KiB %u-way %u B", s / 1024, l->assoc,
			 l->line_bytes);
	} else {
		snprintf(buf, len, "%" PRIu64 " B %u-way %u B", s, l->assoc, l->line_bytes);
	}
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

/* A sysfs file's first line into buf; false when it cannot be read. */
static bool read_sysfs(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		return false;
	}
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok) {
		buf[strcspn(buf, "\n")] = '\0';
	}
	return ok;
}

/* "48K", "1024K", "32M", "65536" -> bytes; 0 when malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s) {
		return 0;
	}
	switch (*end) {
	case 'K':
		return (uint64_t)v << 10;
	case 'M':
		return (uint64_t)v << 20;
	case 'G':
		return (uint64_t)v << 30;
	case '\0':
		return v;
	default:
		return 0;
	}
}

int cache_geometry_from_sysfs(struct cache_geometry *g, const char *dir)
{
	struct cache_level levels[MAX_LEVELS];
	size_t n = 0;

	memset(g, 0, sizeof(*g));
	for (unsigned i = 0; i < 16 && n < MAX_LEVELS; i++) {
		char idx[512], buf[64];
		struct cache_level l = {0};

		snprintf(idx, sizeof(idx), "%s/index%u", dir, i);
		if (!read_sysfs(idx, "type", buf, sizeof(buf))) {
			continue;
		}
		if (strcmp(buf, "Data") && strcmp(buf, "Unified")) {
			continue; /* instruction caches */
		}
		if (read_sysfs(idx, "level", buf, sizeof(buf))) {
			l.level = (unsigned)strtoul(buf, NULL, 10);
		}
		if (read_sysfs(idx, "size", buf, sizeof(buf))) {
			l.size_bytes = parse_size(buf);
		}
		if (read_sysfs(idx, "ways_of_associativity", buf, sizeof(buf))) {
			l.assoc = (unsigned)strtoul(buf, NULL, 10);
		}
		if (read_sysfs(idx, "coherency_line_size", buf, sizeof(buf))) {
			l.line_bytes = (unsigned)strtoul(buf, NULL, 10);
		}
		if (l.level) {
			levels[n++] = l;
		}
	}
	if (!n) {
		return DPS_ERR_NOENT;
	}
	choose(g, levels, n);
	snprintf(g->source, sizeof(g->source), "sysfs");
	return DPS_OK;
}

/* sysconf's value, 0 when unknown (-1 or 0). */
static uint64_t conf(int name)
{
	long v = sysconf(name);

	return v > 0 ? (uint64_t)v : 0;
}

int cache_geometry_detect(struct cache_geometry *g)
{
	struct cache_level levels[3] = {
	    {1, conf(_SC_LEVEL1_DCACHE_SIZE), (unsigned)conf(_SC_LEVEL1_DCACHE_ASSOC),
	     (unsigned)conf(_SC_LEVEL1_DCACHE_LINESIZE)},
	    {2, conf(_SC_LEVEL2_CACHE_SIZE), (unsigned)conf(_SC_LEVEL2_CACHE_ASSOC),
	     (unsigned)conf(_SC_LEVEL2_CACHE_LINESIZE)},
	    {3, conf(_SC_LEVEL3_CACHE_SIZE), (unsigned)conf(_SC_LEVEL3_CACHE_ASSOC),
	     (unsigned)conf(_SC_LEVEL3_CACHE_LINESIZE)},
	};

	if (cache_geometry_from_sysfs(g, SYSFS_CACHE_DIR) == DPS_OK &&
	    (g->d1.size_bytes || g->ll.size_bytes)) {
		return DPS_OK;
	}
	memset(g, 0, sizeof(*g));
	choose(g, levels, 3);
	snprintf(g->source, sizeof(g->source), "%s",
		 g->d1.size_bytes || g->ll.size_bytes ? "sysconf" : "cachegrind");
	return DPS_OK;
}
