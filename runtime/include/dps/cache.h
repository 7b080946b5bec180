/* SPDX-License-Identifier: MIT */
/*
 * The cache-memory PSF (doc/cache.md, "The cache stub"): a run's data-cache figures played
 * back. A target is a run's data accesses, its level-1 data-cache misses, its last-level
 * misses and its CPU time; dps_cache_play() makes that many accesses over three regions sized
 * from the machine's cache geometry (hits in a hot region inside L1D, D1 misses that hit the
 * last level in a warm one, misses at both levels in a cold one several times the last level),
 * interleaved over the run; with a CPU time, in slices of 500 us of it, each slice's accesses
 * followed by the CPU burnt up to its share, so the misses are spread over the run.
 *
 *	struct dps_cache_target t = {.accesses = 2000000, .stores = 600000,
 *				     .d1_misses = 130000, .ll_misses = 40000, .cpu_ns = 5000000};
 *	char err[256];
 *
 *	if (dps_cache_play(&t, NULL, NULL, err, sizeof(err)) != DPS_OK)
 *		fprintf(stderr, "%s\n", err);
 *	...
 *	dps_cache_free();                       this thread's regions
 *
 * The regions are this thread's: allocated and touched on its first play (not counted in the
 * run), kept for its next ones, freed by dps_cache_free() or when the thread exits.
 */
#ifndef DPS_CACHE_H
#define DPS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dps/dps-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a run did to the data cache, and its CPU time. */
struct dps_cache_target {
	uint64_t accesses;  /* A: loads + stores, > 0 */
	uint64_t stores;    /* of them, stores (<= accesses) */
	uint64_t d1_misses; /* m1: accesses that missed the level-1 data cache (<= accesses) */
	uint64_t ll_misses; /* m2: of those, the ones that missed the last level too (<= m1) */
	uint64_t cpu_ns;    /* t: the run's CPU time; 0: the accesses only */
	/* the component's working set, the knee of its last-level miss curve (dps cache capture
	 * --footprint): the warm region is sized from it, at least twice L1D and at most half
	 * the last level; 0: not known, the warm region sized from the geometry alone */
	uint64_t footprint_bytes;
	/* when not 0, the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID, ns) at which the
	 * run ends: the accesses are paced up to it rather than over cpu_ns from the play's
	 * start (a replay's budget, which takes dps's own costs between runs out of them) */
	uint64_t cpu_until_ns;
};

/* The two cache levels the stub aims at. */
struct dps_cache_geometry {
	uint64_t d1_bytes; /* level 1's data cache */
	unsigned d1_assoc;
	uint64_t ll_bytes; /* the last level */
	unsigned ll_assoc;
	unsigned line_bytes;
	char source[16]; /* "env", "sysfs", "sysconf" or "default" */
};

/* What a play did. */
struct dps_cache_result {
	uint64_t kernel_cpu_ns; /* the accesses' CPU time (this thread's CPU clock) */
	uint64_t burn_ns;	/* the CPU burnt between and after them (about t - kernel, or 0) */
	uint64_t setup_ns;	/* this play's set-up: regions allocated, touched, linked */
	bool over;		/* the accesses alone took more than t: the run took longer */
	uint64_t stores_played; /* stores made: min(stores, hits), doc/cache.md */
	uint64_t warm_lines;	/* lines the warm region's chase went over in this play */
	uint64_t hot_lines;	/* lines of the hot region in use */
	uint64_t slices;	/* the slices the accesses went in (1: one go, no cpu_ns) */
};

/* One data or unified cache level as the machine describes it; 0: a figure it does not give. */
struct dps_cache_level {
	unsigned level; /* 1, 2, 3 ... */
	uint64_t size_bytes;
	unsigned assoc; /* ways */
	unsigned line_bytes;
};

/*
 * The machine's cache levels, read once for libdps and `dps cache capture` (which choose from
 * them by their own needs). dps_cache_levels_sysfs: the data and unified levels of the index*
 * directories of dir (NULL: /sys/devices/system/cpu/cpu0/cache; instruction caches and a level
 * whose `level` file cannot be read are skipped; a size is "48K", "1024K", "32M" or bytes).
 * dps_cache_levels_sysconf: levels 1 (data) to 3 as glibc's sysconf(_SC_LEVEL1_DCACHE_SIZE,
 * ...) gives them (its CPUID reading). Each writes at most max levels and returns how many (0:
 * no such directory).
 */
size_t dps_cache_levels_sysfs(const char *dir, struct dps_cache_level *levels, size_t max);
size_t dps_cache_levels_sysconf(struct dps_cache_level *levels, size_t max);

/*
 * The geometry to aim at. DPS_CACHE_GEOMETRY, when set, gives it as "SIZE,ASSOC,LINE
 * SIZE,ASSOC,LINE" (L1D then the last level, in bytes, as cachegrind's --D1 and --LL): under
 * Valgrind a program reads Valgrind's CPUID, not the machine's, so a stub run under the cache
 * simulator is told the geometry simulated. Else this machine's, chosen as `dps cache capture`
 * chooses the one it simulates: /sys/devices/system/cpu/cpu0/cache/index* (L1 data; the
 * highest level with every figure known and a power-of-two number of sets), else sysconf's
 * (CPUID), else a default of a 32 KiB 8-way L1D and a 1 MiB 16-way last level, 64-byte lines.
 * g->source says which ("env", "sysfs", "sysconf", "default"). Returns DPS_OK, or
 * DPS_ERR_INVAL when DPS_CACHE_GEOMETRY is malformed (g: the machine's, as without it).
 */
int dps_cache_geometry_detect(struct dps_cache_geometry *g);

/*
 * Plays target on the calling thread over regions sized from geom (NULL: detected once per
 * process). result may be NULL. Returns DPS_OK; DPS_ERR_INVAL for a bad target (no access,
 * stores > accesses, d1_misses > accesses, ll_misses > d1_misses) or geometry (the last level
 * not at least 4 times L1D, a line size that is not a power of two), with a message in err
 * (may be NULL; also for a malformed DPS_CACHE_GEOMETRY when geom is NULL); DPS_ERR_NOMEM when the
 * regions cannot be allocated. Not async-signal-safe.
 */
int dps_cache_play(const struct dps_cache_target *target, const struct dps_cache_geometry *geom,
		   struct dps_cache_result *result, char *err, size_t err_len);

/* What each kind of access costs the stub on a quiet cache, for a footprint (the warm
 * region's size changes where its misses are served). */
struct dps_cache_costs {
	uint64_t footprint_bytes; /* what they were measured for */
	double load_ns;		  /* a hit, a load */
	double store_ns;	  /* a hit, a store */
	double warm_ns;		  /* a D1 miss that hits the last level */
	double cold_ns;		  /* a miss at both levels */
};

/*
 * Measures c on the calling thread (its regions) for geom (NULL: detected) and footprint:
 * targets of one kind each (200,000 hits of each kind, 50,000 warm and 50,000 cold misses)
 * played five times, the median of each kept; about 20 ms. Call it where nothing else runs
 * (before a play's threads start): what it measures is the quiet cache. Returns
 * dps_cache_play's statuses.
 */
int dps_cache_measure_costs(uint64_t footprint_bytes, const struct dps_cache_geometry *geom,
			    struct dps_cache_costs *c, char *err, size_t err_len);
/* What t's accesses cost at c: its loads, stores, warm and cold misses at their costs, in ns
 * (the stores played: at most the hits). */
uint64_t dps_cache_quiet_ns(const struct dps_cache_target *t, const struct dps_cache_costs *c);

/* The entry of costs[0..n) measured for footprint_bytes, or NULL. */
const struct dps_cache_costs *dps_cache_costs_find(const struct dps_cache_costs *costs, size_t n,
						   uint64_t footprint_bytes);

/*
 * Costs as text, one entry per footprint: "FOOTPRINT:LOAD,STORE,WARM,COLD[;...]" (bytes, then
 * ns an access; DPS_CACHE_COSTS, which dps whatif --sweep misses gives every run so that all
 * its points count the accesses at the same costs). parse: at most max entries into costs,
 * *n of them; 0, or -1 when text is not that (empty, a negative or non-finite cost, more than
 * max). format: into buf (len bytes, NUL-terminated when len > 0), returns the length the
 * whole text needs (as snprintf).
 */
int dps_cache_costs_parse(const char *text, struct dps_cache_costs *costs, size_t max, size_t *n);
size_t dps_cache_costs_format(const struct dps_cache_costs *c, size_t n, char *buf, size_t len);

/* t's D1 and last-level misses times x, rounded, its accesses staying; capped so the stub
 * plays them: D1 misses at most the accesses, LL misses at most the D1 misses
 * (--cache-scale, --thread-cache-scale). */
void dps_cache_target_scale_misses(struct dps_cache_target *t, double x);

/* Frees the calling thread's regions (none: nothing happens); the next play makes them anew. */
void dps_cache_free(void);

#ifdef __cplusplus
}
#endif

#endif /* DPS_CACHE_H */
