/* SPDX-License-Identifier: MIT */
/*
 * The cache-memory PSF (<dps/cache.h>, doc/cache.md "The cache stub"): a run's data accesses,
 * D1 misses and last-level misses played over three regions, in slices spread over its CPU
 * time (the rest burnt between them). The model is exact under an LRU simulator such as
 * cachegrind's, approximate on real caches, and it is one file because the three regions only make
 * sense together: each is sized against the others' traffic.
 *
 * - hot: a few lines that stay in L1D, visited in turn, one independent load or store each time
 *   a hit is due. As few lines as the misses between two visits of one of them cannot push out
 *   of its L1D set (a quarter of the ways on average), so a run made mostly of misses keeps its
 *   hits hits.
 * - warm: a random cycle of lines (a pointer chase: the next line's address is in the line,
 *   so neither a prefetcher nor the simulator sees a stride), one step per D1 miss that hits
 *   the last level. Between two visits of one warm line about sqrt(L1D lines x LL lines)
 *   other lines miss L1D (the warm region's own and the cold ones): many times what an L1D
 *   set holds, a small share of what an LL set holds. So the warm region is that many lines
 *   when only warm misses are due, and fewer when cold misses crowd the sets already.
 * - cold: a random cycle over four times the last level: every step misses both levels.
 *
 * Each cycle is walked by CACHE_CURSORS chases spread along it, a step of each in turn, so
 * that their misses overlap as a real program's independent misses do. The kinds are
 * interleaved by blocks of CACHE_BLOCK accesses: two error accumulators (Bresenham's line)
 * give each block its share of cold accesses, and of warm ones among the rest, so a run's mix
 * is spread over it and the counts are exact; in a block the misses come first, then the
 * hits. Stores go to the hot lines (a store into a chased line would need a load first, an
 * access the target does not have): a run with more stores than hits plays as many as it
 * has hits (result->stores_played).
 *
 * Regions are per thread (a thread's data are its own in the real program too), allocated and
 * linked on the thread's first play (the warm one grown when a play's footprint needs more), freed
 * by dps_cache_free() or a pthread key's destructor when the thread exits. Each play walks the warm
 * lines its chases will visit (at least twice L1D's, at most the cycle) and the hot lines before
 * the kernel, so the kernel starts with those warm lines in the last level and the hot ones in
 * L1D; that set-up is dps's own cost, reported apart (result->setup_ns), not taken from the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dps/cache.h>
#include <dps/dps.h>

#include "clock.h"
#include "runtime-internal.h"

#define SYSFS_CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"

/* Independent chases through the warm and the cold cycle, taken in turn: their misses overlap
 * as a real program's independent misses do (memory-level parallelism). Eight: a streaming
 * kernel's misses, prefetched, took four chases 4.5 times its CPU time at 16 MiB, eight 2.3
 * (bench/results/cache-stub-cost.md). CACHE_CHASE names each of them. */
#define CACHE_CURSORS 8

/* A thread's regions. Every pointer is owned. */
struct cache_regions {
	struct dps_cache_geometry geom; /* what they were sized from */
	unsigned char *hot; /* hot_lines_max lines; a play visits the first hot_lines in turn */
	size_t hot_lines_max;
	size_t hot_lines;      /* in use (a power of two; 0: none yet) */
	uint64_t hot_off;      /* the next hot access's offset in hot */
	unsigned char *warm;   /* warm_lines_max lines; the cycle links the first warm_lines */
	size_t warm_lines_max; /* the most a play has needed (0: none allocated yet) */
	size_t warm_lines;     /* the cycle in place (0: none yet) */
	/* the chases' next lines, spread along the cycle, in the order of their turns */
	void **warm_cur[CACHE_CURSORS];
	unsigned char *cold;
	size_t cold_lines;
	void **cold_cur[CACHE_CURSORS];
	uint64_t rng; /* xorshift64 state: the same cycles on every run */
};

static __thread struct cache_regions *thread_regions; /* owned through regions_key */
static pthread_key_t regions_key;
static pthread_once_t regions_once = PTHREAD_ONCE_INIT;
static pthread_once_t geom_once = PTHREAD_ONCE_INIT;
static struct dps_cache_geometry detected_geom;
static int detected_status; /* DPS_ERR_INVAL: DPS_CACHE_GEOMETRY malformed */

/* ---- geometry ---- */

/* The capture's rule (cache/geometry.c): every figure known, a power-of-two number of sets. */
static int level_usable(const struct dps_cache_level *l)
{
	uint64_t sets;

	if (!l->size_bytes || !l->assoc || !l->line_bytes ||
	    (l->line_bytes & (l->line_bytes - 1)) ||
	    l->size_bytes % ((uint64_t)l->assoc * l->line_bytes)) {
		return 0;
	}
	sets = l->size_bytes / ((uint64_t)l->assoc * l->line_bytes);
	return sets && !(sets & (sets - 1));
}

/* D1 and the highest usable level of levels[0..n) into g; whether both were found. */
static int choose_levels(struct dps_cache_geometry *g, const struct dps_cache_level *levels,
			 size_t n)
{
	const struct dps_cache_level *d1 = NULL, *ll = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!level_usable(&levels[i])) {
			continue;
		}
		if (levels[i].level == 1) {
			d1 = &levels[i];
		} else if (!ll || levels[i].level > ll->level) {
			ll = &levels[i];
		}
	}
	if (!d1 || !ll || d1->line_bytes != ll->line_bytes) {
		return 0;
	}
	g->d1_bytes = d1->size_bytes;
	g->d1_assoc = d1->assoc;
	g->ll_bytes = ll->size_bytes;
	g->ll_assoc = ll->assoc;
	g->line_bytes = d1->line_bytes;
	return 1;
}

/* A sysfs file's first line into buf (len bytes); false when it cannot be read. */
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

/* A sysfs number: "48K", "1024K", "32M", "1G" or plain; 0 when malformed or unreadable. */
static uint64_t read_sysfs_u64(const char *dir, const char *name)
{
	char buf[64], *end;
	unsigned long long v;

	if (!read_sysfs(dir, name, buf, sizeof(buf))) {
		return 0;
	}
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf) {
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

size_t dps_cache_levels_sysfs(const char *dir, struct dps_cache_level *levels, size_t max)
{
	size_t n = 0;

	for (unsigned i = 0; i < 16 && n < max; i++) {
		char idx[512], type[32];
		struct dps_cache_level l;

		snprintf(idx, sizeof(idx), "%s/index%u", dir ? dir : SYSFS_CACHE_DIR, i);
		if (!read_sysfs(idx, "type", type, sizeof(type))) {
			continue;
		}
		if (strcmp(type, "Data") && strcmp(type, "Unified")) {
			continue; /* instruction caches */
		}
		l.level = (unsigned)read_sysfs_u64(idx, "level");
		l.size_bytes = read_sysfs_u64(idx, "size");
		l.assoc = (unsigned)read_sysfs_u64(idx, "ways_of_associativity");
		l.line_bytes = (unsigned)read_sysfs_u64(idx, "coherency_line_size");
		if (l.level) {
			levels[n++] = l;
		}
	}
	return n;
}

/* sysconf's value, 0 when unknown (-1 or 0). */
static uint64_t conf(int name)
{
	long v = sysconf(name);

	return v > 0 ? (uint64_t)v : 0;
}

size_t dps_cache_levels_sysconf(struct dps_cache_level *levels, size_t max)
{
	const struct dps_cache_level all[3] = {
	    {1, conf(_SC_LEVEL1_DCACHE_SIZE), (unsigned)conf(_SC_LEVEL1_DCACHE_ASSOC),
	     (unsigned)conf(_SC_LEVEL1_DCACHE_LINESIZE)},
	    {2, conf(_SC_LEVEL2_CACHE_SIZE), (unsigned)conf(_SC_LEVEL2_CACHE_ASSOC),
	     (unsigned)conf(_SC_LEVEL2_CACHE_LINESIZE)},
	    {3, conf(_SC_LEVEL3_CACHE_SIZE), (unsigned)conf(_SC_LEVEL3_CACHE_ASSOC),
	     (unsigned)conf(_SC_LEVEL3_CACHE_LINESIZE)},
	};
	size_t n = max < 3 ? max : 3;

	memcpy(levels, all, n * sizeof(*levels));
	return n;
}

/* DPS_CACHE_GEOMETRY's "SIZE,ASSOC,LINE SIZE,ASSOC,LINE" (D1, LL) into g; whether it was
 * well formed and both levels usable. */
static int geometry_from_env(struct dps_cache_geometry *g, const char *s)
{
	struct dps_cache_level l[2] = {{1, 0, 0, 0}, {2, 0, 0, 0}};
	unsigned long long d1, ll;
	int end = 0;

	if (sscanf(s, " %llu,%u,%u %llu,%u,%u %n", &d1, &l[0].assoc, &l[0].line_bytes, &ll,
		   &l[1].assoc, &l[1].line_bytes, &end) != 6 ||
	    s[end]) {
		return 0;
	}
	l[0].size_bytes = d1;
	l[1].size_bytes = ll;
	return level_usable(&l[0]) && level_usable(&l[1]) && choose_levels(g, l, 2);
}

int dps_cache_geometry_detect(struct dps_cache_geometry *g)
{
	const char *env = getenv("DPS_CACHE_GEOMETRY");
	int status = DPS_OK;
	struct dps_cache_level levels[8];
	size_t n;

	memset(g, 0, sizeof(*g));
	if (env && *env) {
		if (geometry_from_env(g, env)) {
			snprintf(g->source, sizeof(g->source), "env");
			return DPS_OK;
		}
		memset(g, 0, sizeof(*g));
		status = DPS_ERR_INVAL;
	}
	n = dps_cache_levels_sysfs(NULL, levels, 8);
	if (choose_levels(g, levels, n)) {
		snprintf(g->source, sizeof(g->source), "sysfs");
		return status;
	}
	n = dps_cache_levels_sysconf(levels, 8);
	if (choose_levels(g, levels, n)) {
		snprintf(g->source, sizeof(g->source), "sysconf");
	} else {
		*g = (struct dps_cache_geometry){32768, 8, 1048576, 16, 64, "default"};
	}
	return status;
}

static void detect_once(void)
{
	detected_status = dps_cache_geometry_detect(&detected_geom);
}

/* ---- regions ---- */

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Links the first n lines of base into one random cycle (Sattolo's shuffle: a single cycle
 * through all of them; n >= CACHE_CURSORS) and sets the CACHE_CURSORS chases of cur evenly
 * along it.
 * Writing the links touches the lines in the order the chases will (below), which is the touch
 * the kernel needs before it starts. DPS_ERR_NOMEM when out of memory.
 */
static int link_cycle(unsigned char *base, size_t n, unsigned line, uint64_t *rng, void ***cur)
{
	uint32_t *order = malloc(n * sizeof(*order));
	const unsigned k = CACHE_CURSORS;

	if (!order) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)i;
	}
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_random(rng) % i);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* Written in the chases' own order, a step of each in turn: the lines written last are
	 * the ones each chase reaches last, so none starts among lines still cached. */
	for (size_t step = 0; step <= n / k; step++) {
		for (unsigned j = 0; j < k; j++) {
			size_t i = j * n / k + step;

			if (i < (j + 1) * n / k) {
				*(void **)(base + (size_t)order[i] * line) =
				    base + (size_t)order[(i + 1) % n] * line;
			}
		}
	}
	for (unsigned j = 0; j < k; j++) {
		cur[j] = (void **)(base + (size_t)order[j * n / k] * line);
	}
	free(order);
	return DPS_OK;
}

static void regions_destroy(void *p)
{
	struct cache_regions *r = p;

	if (!r) {
		return;
	}
	free(r->hot);
	free(r->warm);
	free(r->cold);
	free(r);
}

static void make_key(void)
{
	pthread_key_create(&regions_key, regions_destroy);
}

/* The largest power of two <= n (n >= 1). */
static uint64_t floor_pow2(uint64_t n)
{
	while (n & (n - 1)) {
		n &= n - 1;
	}
	return n;
}

/* lines lines of line bytes at a multiple of align (a power of two; a page at least), touched. */
static void *alloc_lines(size_t lines, unsigned line, size_t align)
{
	size_t bytes = lines * line;
	void *p;

	align = align < 4096 ? 4096 : align;
	bytes = (bytes + align - 1) / align * align;
	p = aligned_alloc(align, bytes);
	if (p) {
		memset(p, 0, bytes); /* first touch: the page faults happen here, not in a run */
	}
	return p;
}

/*
 * The warm cycle's most lines for a target of footprint bytes: sqrt(L1D x LL lines) (the file's
 * head) when it is not known (0), else its lines, at least twice L1D (a cycle L1D holds would
 * not miss it) and at most half the last level (the cold region's misses need the rest): a
 * component's warm data evict as much of its neighbours' as its working set, not the geometry's
 * (doc/cache.md, "The footprint").
 */
static size_t warm_lines_for(const struct dps_cache_geometry *g, uint64_t footprint)
{
	uint64_t d1_lines = g->d1_bytes / g->line_bytes, ll_lines = g->ll_bytes / g->line_bytes;
	uint64_t n;

	if (!footprint) {
		return (size_t)sqrt((double)d1_lines * (double)ll_lines);
	}
	n = footprint / g->line_bytes;
	n = n < 2 * d1_lines ? 2 * d1_lines : n;
	return (size_t)(n > ll_lines / 2 ? ll_lines / 2 : n);
}

/* The calling thread's regions for geometry g, made on first use. NULL when out of memory. */
static struct cache_regions *regions_get(const struct dps_cache_geometry *g)
{
	struct cache_regions *r = thread_regions;
	uint64_t d1_lines = g->d1_bytes / g->line_bytes, ll_lines = g->ll_bytes / g->line_bytes;

	if (r && r->geom.d1_bytes == g->d1_bytes && r->geom.ll_bytes == g->ll_bytes &&
	    r->geom.line_bytes == g->line_bytes && r->geom.d1_assoc == g->d1_assoc) {
		return r;
	}
	dps_cache_free();
	pthread_once(&regions_once, make_key);
	r = calloc(1, sizeof(*r));
	if (!r) {
		return NULL;
	}
	r->geom = *g;
	r->rng = 0x9e3779b97f4a7c15ull;
	/* a power of two, at twice its size: the kernel's wrap (CACHE_HITS) */
	r->hot_lines_max = floor_pow2(d1_lines / 4 ? d1_lines / 4 : 1);
	r->cold_lines = 4 * ll_lines;
	r->hot = alloc_lines(r->hot_lines_max, g->line_bytes, 2 * r->hot_lines_max * g->line_bytes);
	r->cold = alloc_lines(r->cold_lines, g->line_bytes, 0);
	if (!r->hot || !r->cold) {
		goto error;
	}
	if (link_cycle(r->cold, r->cold_lines, g->line_bytes, &r->rng, r->cold_cur)) {
		goto error;
	}
	thread_regions = r;
	pthread_setspecific(regions_key, r);
	return r;
error:
	regions_destroy(r);
	return NULL;
}

void dps_cache_free(void)
{
	if (!thread_regions) {
		return;
	}
	regions_destroy(thread_regions);
	thread_regions = NULL;
	pthread_setspecific(regions_key, NULL);
}

/* ---- the kernel ---- */

/*
 * The region accesses a block of the kernel spreads its misses over. Each block's count of each
 * kind is exact (error accumulators), their order in it fixed: the misses first, the chases in
 * turn, so that they overlap each other and the hits after them. 2,048 accesses are about a
 * microsecond of a run: the misses are still spread over it.
 */
#define CACHE_BLOCK 8192

struct kernel_args {
	uint64_t cold, warm, hot, stores; /* region accesses; stores: of the hot ones */
	unsigned char *hot_base;	  /* a multiple of 2 x hot_bytes */
	uint64_t hot_bytes;		  /* a power of two */
	uint64_t hot_off;		  /* in and out */
	uint64_t sink;			  /* out: what the hot loads read */
	/* in and out, in the order of their next turns */
	void **warm_cur[CACHE_CURSORS], **cold_cur[CACHE_CURSORS];
};

/* Neither inlined nor cloned (GCC's .isra/.constprop copies rename it), so a capture finds it. */
#if defined(__clang__)
#define DPS_CACHE_KERNEL_ATTR __attribute__((noinline))
#else
#define DPS_CACHE_KERNEL_ATTR __attribute__((noinline, noclone))
#endif

/*
 * n steps of the CACHE_CURSORS chases of cur, one of each in turn from cur[0], the chases in
 * registers, and after each round of them (and after the last, shorter one) the statement
 * `hits`: loads of the hot lines in turn (CACHE_ROUND_LINES, CACHE_ROUND_WORDS). The hits
 * between the misses keep the hot lines the most recent in L1D, as the misses of a block would
 * otherwise push them all out (a block's 1,200 misses over the 64 sets of a 48 KiB L1D: +5.3 %
 * of D1 misses for the hash kernel at 4 MiB). The chases' next turns go from cur[start] round
 * cur; start is moved past the ones that took a step more than the others (cur is not
 * rotated: that was eight more stores a call). 2 x CACHE_CURSORS accesses of cur (hits), n of
 * the region, and the hits'. A macro: the kernel's accesses are counted under its own name.
 */
#define CACHE_CHASE(cur, start, n, hits)                                                           \
	do {                                                                                       \
		void **c0 = (cur)[(start) % 8], **c1 = (cur)[((start) + 1) % 8];                   \
		void **c2 = (cur)[((start) + 2) % 8], **c3 = (cur)[((start) + 3) % 8];             \
		void **c4 = (cur)[((start) + 4) % 8], **c5 = (cur)[((start) + 5) % 8];             \
		void **c6 = (cur)[((start) + 6) % 8], **c7 = (cur)[((start) + 7) % 8];             \
		uint64_t rounds_ = (n) / CACHE_CURSORS;                                            \
		volatile uint64_t r_ = (n) % CACHE_CURSORS; /* no register during the rounds */    \
		uint64_t r;                                                                        \
                                                                                                   \
		for (; rounds_; rounds_--) {                                                       \
			CACHE_STEP(c0), CACHE_STEP(c1), CACHE_STEP(c2), CACHE_STEP(c3);            \
			CACHE_STEP(c4), CACHE_STEP(c5), CACHE_STEP(c6), CACHE_STEP(c7);            \
			hits;                                                                      \
		}                                                                                  \
		r = r_;                                                                            \
		if (r) {                                                                           \
			CACHE_STEP(c0);                                                            \
			r > 1 ? CACHE_STEP(c1) : c1;                                               \
			r > 2 ? CACHE_STEP(c2) : c2;                                               \
			r > 3 ? CACHE_STEP(c3) : c3;                                               \
			r > 4 ? CACHE_STEP(c4) : c4;                                               \
			r > 5 ? CACHE_STEP(c5) : c5;                                               \
			r > 6 ? CACHE_STEP(c6) : c6;                                               \
			hits;                                                                      \
		}                                                                                  \
		(cur)[(start) % 8] = c0, (cur)[((start) + 1) % 8] = c1;                            \
		(cur)[((start) + 2) % 8] = c2, (cur)[((start) + 3) % 8] = c3;                      \
		(cur)[((start) + 4) % 8] = c4, (cur)[((start) + 5) % 8] = c5;                      \
		(cur)[((start) + 6) % 8] = c6, (cur)[((start) + 7) % 8] = c7;                      \
		(start) = ((start) + r) % 8;                                                       \
	} while (0)

/*
 * A round's hits: `lines` lines of eight words from q (a multiple of 64), or `words` words
 * from q. One count each, nothing else: with the eight chases, q, wrap, sink, the rounds and
 * a word loaded they fill x86-64's fifteen registers (a count copied for a line loop's
 * remainder was spilled: an access of its own a round under cachegrind; and the hits one word
 * at a time, an add and a mask in a chain, took two cycles each: a hit-heavy run such as a
 * blocked multiply took three times its CPU time).
 */
/* A round's most lines: the rest of a block's hits go after its chases, two loads a cycle
 * (CACHE_LOAD_EIGHT) rather than one (a blocked multiply's hits, 250 a miss, took 1.7 times
 * its CPU time in the rounds). Four lines a round of eight misses visit the hot lines often
 * enough for them to stay. */
#define CACHE_ROUND_LINES_MAX 4
#define CACHE_ROUND_LINES(lines)                                                                   \
	for (uint64_t i_ = (lines); i_; i_--) {                                                    \
		CACHE_LOAD_CHAIN;                                                                  \
		q = (q + 64) & wrap;                                                               \
	}
#define CACHE_ROUND_WORDS(words)                                                                   \
	for (uint64_t i_ = (words); i_; i_--) {                                                    \
		CACHE_LOAD_ONE;                                                                    \
		q = (q + 8) & wrap;                                                                \
	}

/* One step of a chase: the line's first word is the next line's address. */
#define CACHE_STEP(c) ((c) = *(void **volatile *)(c))

/*
 * n accesses of the hot lines' words in turn from the address q, each `one` (its word at q), q
 * moved past them: eight at a time from an address that is a multiple of 64 bytes, `eight`
 * reaching them at constant displacements from q, no wrap inside them. The hot lines in use are
 * a power of two of lines, S bytes, at an address that is a multiple of 2 S (prepare), so a
 * step past the last one clears bit S only and lands on the first: one mask, `wrap` (~S),
 * keeps q in them, and no base or offset takes a register. Nothing waits for an access but the
 * loop. A macro, as CACHE_CHASE.
 */
#define CACHE_HITS(n, one, eight)                                                                  \
	do {                                                                                       \
		uint64_t left_ = (n);                                                              \
                                                                                                   \
		for (; left_ && (q & 63); left_--) {                                               \
			one;                                                                       \
			q = (q + 8) & wrap;                                                        \
		}                                                                                  \
		for (; left_ >= 8; left_ -= 8) {                                                   \
			eight;                                                                     \
			q = (q + 64) & wrap;                                                       \
		}                                                                                  \
		for (; left_; left_--) {                                                           \
			one;                                                                       \
			q = (q + 8) & wrap;                                                        \
		}                                                                                  \
	} while (0)

#define CACHE_LOAD(d) (*(volatile uint64_t *)(q + (d)))
#define CACHE_STORE(d, v) (*(volatile uint64_t *)(q + (d)) = (v))
/*
 * A hit: its word added to sink; eight: a line's words. Each word read is used (Valgrind drops
 * a load whose value nothing reads, and cachegrind does not count it). In the chases' rounds
 * (CACHE_LOAD_CHAIN) the eight go into sink one after the other, one register for them all:
 * the eight chases, q, wrap, sink and the counts take the others (a spilled one was an access
 * of its own a round under cachegrind); after the chases, in two halves that do not wait for
 * each other (CACHE_LOAD_EIGHT: two loads a cycle).
 */
#define CACHE_LOAD_ONE (sink += CACHE_LOAD(0))
#define CACHE_LOAD_CHAIN                                                                           \
	(sink += CACHE_LOAD(0), sink ^= CACHE_LOAD(8), sink += CACHE_LOAD(16),                     \
	 sink ^= CACHE_LOAD(24), sink += CACHE_LOAD(32), sink ^= CACHE_LOAD(40),                   \
	 sink += CACHE_LOAD(48), sink ^= CACHE_LOAD(56))
#define CACHE_LOAD_EIGHT                                                                           \
	(sink += ((CACHE_LOAD(0) ^ CACHE_LOAD(8)) + (CACHE_LOAD(16) ^ CACHE_LOAD(24))) ^           \
		 ((CACHE_LOAD(32) ^ CACHE_LOAD(40)) + (CACHE_LOAD(48) ^ CACHE_LOAD(56))))

/*
 * The measured part: a->cold + a->warm + a->hot region accesses, each one load or store, and a
 * few of its own a block (the chases' cursors read and written back, the block's counts the
 * compiler keeps on the stack: about 1 % of the accesses, hits), and the reads of *a at the
 * start and the end. Not inlined, so a capture finds it by name (cache_play_kernel) and the
 * test compares its figures alone.
 *
 * The hits are independent loads (and stores) over the hot lines in turn, not a chase: nothing
 * waits for them but the loop. The misses are CACHE_CURSORS chases of the warm or the cold cycle,
 * one step of each in turn: each step waits for its own chase's last one only.
 */
DPS_CACHE_KERNEL_ATTR static void cache_play_kernel(struct kernel_args *a)
{
	void **volatile wc[CACHE_CURSORS], **volatile cc[CACHE_CURSORS];
	const uint64_t cold = a->cold, warm = a->warm, hot = a->hot, stores = a->stores;
	const uint64_t total = cold + warm + hot, rest = warm + hot;
	const uintptr_t wrap = ~(uintptr_t)a->hot_bytes;
	uintptr_t q = (uintptr_t)a->hot_base + a->hot_off;
	uint64_t sink = 0, acc_c = 0, acc_w = 0, acc_s = 0;
	unsigned cstart = 0, wstart = 0; /* the chases' next turns in cc and wc */

	for (unsigned j = 0; j < CACHE_CURSORS; j++) {
		wc[j] = a->warm_cur[j];
		cc[j] = a->cold_cur[j];
	}
	for (uint64_t left = total; left;) {
		const uint64_t b = left < CACHE_BLOCK ? left : CACHE_BLOCK;
		uint64_t nc, nw, nh, ns, rounds, per;

		left -= b;
		acc_c += cold * b;
		nc = acc_c / total;
		acc_c -= nc * total;
		acc_w += warm * (b - nc);
		nw = rest ? acc_w / rest : 0;
		acc_w -= nw * rest;
		nh = b - nc - nw;
		acc_s += stores * nh;
		ns = hot ? acc_s / hot : 0;
		acc_s -= ns * hot;
		/* the loads spread over the chases' rounds, whole lines when there are eight a
		 * round (q first brought to a line), the rest of the hits after them */
		rounds = (nc + CACHE_CURSORS - 1) / CACHE_CURSORS +
			 (nw + CACHE_CURSORS - 1) / CACHE_CURSORS;
		per = rounds ? (nh - ns) / rounds : 0;
		if (per >= 16) {
			uint64_t align = ((64 - (q & 63)) & 63) / 8;

			CACHE_ROUND_WORDS(align);
			per = (nh - ns - align) / rounds / 8;
			per = per > CACHE_ROUND_LINES_MAX ? CACHE_ROUND_LINES_MAX : per;
			nh -= align + 8 * per * rounds;
			if (nc) {
				CACHE_CHASE(cc, cstart, nc, CACHE_ROUND_LINES(per));
			}
			if (nw) {
				CACHE_CHASE(wc, wstart, nw, CACHE_ROUND_LINES(per));
			}
		} else {
			nh -= per * rounds;
			if (nc) {
				CACHE_CHASE(cc, cstart, nc, CACHE_ROUND_WORDS(per));
			}
			if (nw) {
				CACHE_CHASE(wc, wstart, nw, CACHE_ROUND_WORDS(per));
			}
		}
		/* the hits: the stores, then the loads, each over the hot lines in turn */
		nh -= ns;
		CACHE_HITS(ns, CACHE_STORE(0, ns),
			   (CACHE_STORE(0, ns), CACHE_STORE(8, ns), CACHE_STORE(16, ns),
			    CACHE_STORE(24, ns), CACHE_STORE(32, ns), CACHE_STORE(40, ns),
			    CACHE_STORE(48, ns), CACHE_STORE(56, ns)));
		CACHE_HITS(nh, CACHE_LOAD_ONE, CACHE_LOAD_EIGHT);
	}
	for (unsigned j = 0; j < CACHE_CURSORS; j++) {
		a->warm_cur[j] = wc[(wstart + j) % CACHE_CURSORS];
		a->cold_cur[j] = cc[(cstart + j) % CACHE_CURSORS];
	}
	a->hot_off = q - (uintptr_t)a->hot_base;
	a->sink = sink;
}

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t len, int status,
						      const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return status;
}

static int check(const struct dps_cache_target *t, const struct dps_cache_geometry *g, char *err,
		 size_t len)
{
	if (!t->accesses) {
		return fail(err, len, DPS_ERR_INVAL,
			    "Bad cache target: accesses=0, expected at least 1");
	}
	if (t->stores > t->accesses) {
		return fail(err, len, DPS_ERR_INVAL,
			    "Bad cache target: stores=%" PRIu64 " > accesses=%" PRIu64, t->stores,
			    t->accesses);
	}
	if (t->d1_misses > t->accesses) {
		return fail(err, len, DPS_ERR_INVAL,
			    "Bad cache target: d1_misses=%" PRIu64 " > accesses=%" PRIu64,
			    t->d1_misses, t->accesses);
	}
	if (t->ll_misses > t->d1_misses) {
		return fail(err, len, DPS_ERR_INVAL,
			    "Bad cache target: ll_misses=%" PRIu64 " > d1_misses=%" PRIu64,
			    t->ll_misses, t->d1_misses);
	}
	if (!g->line_bytes || (g->line_bytes & (g->line_bytes - 1)) || g->line_bytes < 16 ||
	    !g->d1_assoc || g->d1_bytes < (uint64_t)g->d1_assoc * g->line_bytes) {
		return fail(err, len, DPS_ERR_INVAL,
			    "Bad cache geometry: d1_bytes=%" PRIu64 ", line_bytes=%u", g->d1_bytes,
			    g->line_bytes);
	}
	if (g->ll_bytes < 4 * g->d1_bytes) {
		return fail(err, len, DPS_ERR_INVAL,
			    "Bad cache geometry: ll_bytes=%" PRIu64
			    ", expected at least 4 x d1_bytes=%" PRIu64,
			    g->ll_bytes, g->d1_bytes);
	}
	return DPS_OK;
}

/* n steps of the chases of cur (not moved), a step of each in turn from cur[0]. */
static void walk_chases(void **const *cur, size_t n)
{
	void **c[CACHE_CURSORS];
	unsigned j = 0;

	memcpy(c, cur, sizeof(c));
	for (size_t i = 0; i < n; i++) {
		c[j] = *(void **volatile *)c[j];
		j = j + 1 == CACHE_CURSORS ? 0 : j + 1;
	}
}

/*
 * Sizes the hot and warm parts for t, links the warm cycle if its length changed and walks it
 * and the hot lines once (into the LL and L1D). Fills a. DPS_ERR_NOMEM when out of memory.
 */
static int prepare(struct cache_regions *r, const struct dps_cache_target *t, struct kernel_args *a)
{
	const struct dps_cache_geometry *g = &r->geom;
	uint64_t d1_lines = g->d1_bytes / g->line_bytes;
	uint64_t hot = t->accesses - t->d1_misses, warm = t->d1_misses - t->ll_misses;
	double per_hit = hot ? (double)t->d1_misses / (double)hot : 0;
	double cold_per_warm = warm ? (double)t->ll_misses / (double)warm : 0;
	/* each visit of a hot line is its eight words in turn: eight times fewer lines keep the
	 * misses between two visits of one of them what they were with one word a visit */
	uint64_t hot_lines =
	    (uint64_t)((double)d1_lines / (4 * (1 + per_hit)) / (double)(g->line_bytes / 8));
	size_t warm_max = warm_lines_for(g, t->footprint_bytes);
	size_t warm_lines = (size_t)((double)warm_max / (1 + cold_per_warm));

	if (hot_lines < 1) {
		hot_lines = 1;
	} else if (hot_lines > r->hot_lines_max) {
		hot_lines = r->hot_lines_max;
	}
	hot_lines = floor_pow2(hot_lines); /* the kernel's turn over them is a mask */
	warm_lines = warm_lines < CACHE_CURSORS ? CACHE_CURSORS : warm_lines;
	/* a cycle within an eighth of the one in place is kept: a thread's runs share a
	 * component's mix, rounded apart, and relinking a cycle of thousands of lines at every
	 * play cost a run of a few hundred misses ten times its accesses */
	if (r->warm_lines &&
	    (warm_lines > r->warm_lines ? warm_lines - r->warm_lines : r->warm_lines - warm_lines) *
		    8 <=
		r->warm_lines) {
		warm_lines = r->warm_lines;
	}
	if (warm_lines > r->warm_lines_max) {
		/* a larger footprint than this thread's plays had: a larger region, first touched
		 * here (the play's set-up, not its run) */
		free(r->warm);
		r->warm = alloc_lines(warm_lines, g->line_bytes, 0);
		r->warm_lines_max = r->warm ? warm_lines : 0;
		r->warm_lines = 0;
		if (!r->warm) {
			return DPS_ERR_NOMEM;
		}
	}
	if (hot_lines != r->hot_lines) {
		r->hot_lines = hot_lines;
		r->hot_off = 0;
	}
	if (warm_lines != r->warm_lines) {
		if (link_cycle(r->warm, warm_lines, g->line_bytes, &r->rng, r->warm_cur)) {
			return DPS_ERR_NOMEM;
		}
		r->warm_lines = warm_lines;
	}
	/* The lines the chases will visit, in their order, on copies of the cursors: the oldest
	 * line is each chase's next. At least twice L1D's lines, so that the first ones walked
	 * have left L1D when the kernel comes to them, and at most a whole turn of the cycle: a
	 * play's set-up is its own accesses' size, not the region's (a short run of a large
	 * footprint walked 16,384 lines for its few hundred misses). Then the hot lines, so
	 * that they are in L1D when the kernel starts. */
	{
		uint64_t walk =
		    warm + CACHE_CURSORS < 2 * d1_lines ? 2 * d1_lines : warm + CACHE_CURSORS;

		walk_chases(r->warm_cur, walk < warm_lines ? walk : warm_lines);
	}
	for (uint64_t i = 0; i < hot_lines; i++) {
		(void)*(volatile uint64_t *)(r->hot + i * g->line_bytes);
	}
	*a = (struct kernel_args){
	    .cold = t->ll_misses,
	    .warm = warm,
	    .hot = hot,
	    .stores = t->stores < hot ? t->stores : hot,
	    .hot_base = r->hot,
	    .hot_bytes = hot_lines * g->line_bytes,
	    .hot_off = r->hot_off,
	};
	memcpy(a->warm_cur, r->warm_cur, sizeof(a->warm_cur));
	memcpy(a->cold_cur, r->cold_cur, sizeof(a->cold_cur));
	return DPS_OK;
}

/*
 * A paced play's slices: CACHE_SLICE_NS of its CPU time each, at least a block of accesses
 * each (a slice's call of the kernel reads and writes the chases' positions). A run of 20 ms
 * with a few million accesses is 40 slices. Each slice reads the thread's CPU clock once
 * (its burn goes by the work loop's rate, the last slice's to the clock): with 100 us slices
 * and a clock read per chunk of burn, each read an event of perf's sched_stat_runtime, a
 * witnessed replay of xz's workers took 9.2 s of wall time against the plain set's 6.1 (an
 * aborted run of bench/cache-real.sh); paced so, about as many events as the plain set's.
 */
#define CACHE_SLICE_NS 500000

static uint64_t paced_slices(uint64_t cpu_ns, uint64_t accesses)
{
	uint64_t by_time = cpu_ns / CACHE_SLICE_NS, by_count = accesses / CACHE_BLOCK;
	uint64_t n = by_time < by_count ? by_time : by_count;

	return n ? n : 1;
}

/*
 * a's accesses over cpu_ns of the thread's CPU from its clock reading t0, in n slices: each
 * slice its share of each kind (the first ones one more of a kind that does not divide), then
 * the CPU burnt up to the slice's share of cpu_ns, so the misses are spread over the run as a
 * component's are rather than all before its computing (a neighbour given the CPU for a part
 * of the run sees that part's misses). A slice whose accesses run past its share burns
 * nothing; the run then ends late by what they took over (res->over). Fills res's
 * kernel_cpu_ns (every slice's accesses, timed by a clock read either side: a burn by the
 * rate ends where the rate says, and its error must not land in the accesses' time, which
 * --cache-outcome makes a run's), burn_ns and stores_played.
 */
static void play_paced(struct kernel_args *a, uint64_t cpu_ns, uint64_t n, uint64_t t0,
		       struct dps_cache_result *res)
{
	const uint64_t cold = a->cold, warm = a->warm, hot = a->hot, stores = a->stores;
	uint64_t carry = 0, now = t0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t t, due = t0 + (uint64_t)((double)cpu_ns * (double)(i + 1) / (double)n);

		a->cold = cold / n + (i < cold % n);
		a->warm = warm / n + (i < warm % n);
		a->hot = hot / n + (i < hot % n);
		/* a slice's stores are at most its hits: the rest go to the next ones */
		a->stores = stores / n + (i < stores % n) + carry;
		carry = a->stores > a->hot ? a->stores - a->hot : 0;
		a->stores -= carry;
		cache_play_kernel(a);
		t = dps__cputime_ns();
		res->kernel_cpu_ns += t - now;
		now = t;
		if (due > t && i + 1 < n) {
			dps__run_cpu_rate(due - t); /* by the rate, timed by the next read */
			now = dps__cputime_ns();
			res->burn_ns += now - t;
		} else if (due > t) {
			dps__run_cpu_until(due); /* the last: to the clock */
			res->burn_ns += dps__cputime_ns() - t;
		}
	}
	res->stores_played = stores - carry;
	res->slices = n;
}

int dps_cache_play(const struct dps_cache_target *target, const struct dps_cache_geometry *geom,
		   struct dps_cache_result *result, char *err, size_t err_len)
{
	struct dps_cache_result res = {0};
	struct cache_regions *r;
	struct kernel_args a;
	uint64_t t0, t1, t2;
	int status;

	if (!geom) {
		pthread_once(&geom_once, detect_once);
		geom = &detected_geom;
		if (detected_status) {
			return fail(
			    err, err_len, detected_status,
			    "Bad DPS_CACHE_GEOMETRY: value=\"%s\", expected \"SIZE,ASSOC,LINE "
			    "SIZE,ASSOC,LINE\" (D1, LL; a power-of-two number of sets)",
			    getenv("DPS_CACHE_GEOMETRY"));
		}
	}
	status = check(target, geom, err, err_len);
	if (status) {
		return status;
	}
	if (target->cpu_ns || target->cpu_until_ns) {
		dps__ensure_init(); /* the burn's rate: the calibration, loaded once a process */
	}
	t0 = dps__cputime_ns();
	r = regions_get(geom);
	if (!r) {
		return fail(err, err_len, DPS_ERR_NOMEM,
			    "Cannot allocate the cache stub's regions: cold_bytes=%" PRIu64,
			    4 * geom->ll_bytes);
	}
	status = prepare(r, target, &a);
	if (status) {
		return fail(err, err_len, status,
			    "Cannot allocate or link the warm region: footprint_bytes=%" PRIu64,
			    target->footprint_bytes);
	}
	t1 = dps__cputime_ns();
	if (target->cpu_ns || target->cpu_until_ns) {
		/* the run's CPU from here: to its end on the thread's clock, or its time */
		uint64_t span = !target->cpu_until_ns	    ? target->cpu_ns
				: target->cpu_until_ns > t1 ? target->cpu_until_ns - t1
							    : 0;

		play_paced(&a, span, paced_slices(span, target->accesses), t1, &res);
		res.over = res.kernel_cpu_ns > span;
	} else {
		cache_play_kernel(&a);
		t2 = dps__cputime_ns();
		res.kernel_cpu_ns = t2 - t1;
		res.stores_played = a.stores;
		res.slices = 1;
	}
	r->hot_off = a.hot_off;
	memcpy(r->warm_cur, a.warm_cur, sizeof(r->warm_cur));
	memcpy(r->cold_cur, a.cold_cur, sizeof(r->cold_cur));
	res.setup_ns = t1 - t0;
	res.warm_lines = r->warm_lines;
	res.hot_lines = r->hot_lines;
	if (result) {
		*result = res;
	}
	return DPS_OK;
}
