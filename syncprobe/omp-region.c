/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's OpenMP parallel regions and team barriers (GCC's libgomp). A region's
 * threads synchronize inside libgomp, through no pthread call the rest of the probe sees, so
 * the region's shape is told with the probe's barrier events on keys of its own (omp.h):
 *
 *   START[n]  every thread at the region's start: begin and end back to back, no real wait (in
 *             the trace a worker's may come before the master's); a replay starts the team
 *             together;
 *   END[n]    the region's implicit end barrier: begun by each thread when the region's
 *             function returns; ended on the master when GOMP_parallel returns, on a worker
 *             when it enters its next region (in between it waits in libgomp's dock) — a
 *             worker's last one stays open until the thread or the process ends;
 *   TEAM[n]   GOMP_barrier and the end barriers of loops and sections (begin and end around).
 *
 * Each is a barrier of n parties (barrier_init on every thread's entry, before any wait on it).
 *
 * How: GOMP_parallel and its combined forms (a loop or sections bound to the region) are
 * called with a trampoline and a closure on the master's stack, {the program's function, its
 * data (passed through unchanged), the region's number, whether its threads take from a pool
 * from their first instruction}; libgomp itself never reads the data, but for
 * GOMP_parallel_reductions (see there). The closure outlives the region: GOMP_parallel returns
 * after the whole team is done with it. The trampoline runs on every thread of the team, notes the
 * thread's place (struct omp_thread, read by the team barriers here and by omp-pool.c) and puts
 * back what the thread had before when the function returns, so a nested region leaves the
 * outer one's place as it was.
 *
 * Events are off for a region, which then runs exactly as the plain call would apart from
 * the trampoline's frame: when no session records (the plain call itself, unless this thread
 * is in a traced region, whose place a nested region must hide); for a team of one thread or
 * of more than OMP_MAX_TEAM; for a region nested in an active one (omp_get_active_level() >
 * 1), in a teams construct, or started while another traced region is open (another program
 * thread's): such teams would share the size-indexed keys with the traced one.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dps_sync_tp.h"
#include "omp.h"
#include "probe.h"

__thread struct omp_thread syncprobe_omp __attribute__((tls_model("initial-exec")));
char syncprobe_omp_keys[3][OMP_MAX_TEAM + 1];

typedef void (*region_fn)(void *);

/* The closure a traced region's trampoline gets instead of the program's data. */
struct closure {
	/* GOMP_parallel_reductions reads the first word of the data it is given (the program's
	 * task reductions' descriptor): a copy of the program's, first; NULL for the others */
	void *head;
	region_fn fn;	 /* borrowed: the program's function for the region */
	void *data;	 /* borrowed: its argument, passed through unchanged */
	uint64_t region; /* the region's number (from 1) when traced, else 0 */
	int combined;	 /* a combined loop or sections: its work-sharing construct is seq 1 */
	int pool;	 /* ... whose threads take from a pool from their first instruction */
	bool traced;	 /* its events are on (decided once, by the master) */
};

static uint64_t region_count; /* traced regions opened so far */
static int region_traced;     /* a traced region is open (one at a time) */

/* libgomp's API, looked up once (omp_get_num_teams and omp_get_schedule are optional). */
static int (*api_num_threads)(void);
static int (*api_active_level)(void);
static int (*api_num_teams)(void);
static void (*api_schedule)(int *kind, int *chunk);
static int api_state; /* 0 not looked up, 1 found, -1 not found */

/* name in libgomp: the next definition, else libgomp.so.1's when it is loaded locally. */
static void *lookup(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		void *gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);

		if (gomp) {
			f = dlsym(gomp, name);
			dlclose(gomp); /* NOLOAD took a reference: whoever loaded it keeps it */
		}
	}
	return f;
}

void *syncprobe_omp_next(const char *name)
{
	void *f = lookup(name);

	if (!f) {
		fprintf(stderr,
			"libdps-syncprobe: %s called, but libgomp's definition is not found\n",
			name);
		abort();
	}
	return f;
}

/* Whether libgomp's API the trampoline needs is found. */
static bool api_found(void)
{
	int state = __atomic_load_n(&api_state, __ATOMIC_ACQUIRE);

	if (!state) {
		__atomic_store_n(&api_num_threads, (int (*)(void))lookup("omp_get_num_threads"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&api_active_level, (int (*)(void))lookup("omp_get_active_level"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&api_num_teams, (int (*)(void))lookup("omp_get_num_teams"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&api_schedule, (void (*)(int *, int *))lookup("omp_get_schedule"),
				 __ATOMIC_RELAXED);
		state = api_num_threads && api_active_level ? 1 : -1;
		__atomic_store_n(&api_state, state, __ATOMIC_RELEASE);
	}
	return state > 0;
}

int syncprobe_omp_runtime_is_pool(void)
{
	int kind = 0, chunk = 0;

	if (!api_found() || !api_schedule) {
		return 1;
	}
	api_schedule(&kind, &chunk);
	kind = (int)((unsigned)kind & ~0x80000000u); /* the monotonic modifier */
	return kind == 2 || kind == 3;		     /* dynamic, guided */
}

/* The size of the team this thread runs in when its events can be traced, else 0. */
static uint32_t traced_team_size(void)
{
	int n = api_num_threads();

	if (n <= 1 || n > OMP_MAX_TEAM || api_active_level() != 1) {
		return 0;
	}
	if (api_num_teams && api_num_teams() > 1) {
		return 0;
	}
	return (uint32_t)n;
}

/* This thread left the region-end barrier it waited at (a worker entering its next region,
 * the master once GOMP_parallel returned). */
static void close_end(void)
{
	const char *key = syncprobe_omp.open_end;

	if (key) {
		syncprobe_omp.open_end = NULL;
		SYNCPROBE_EMIT(barrier_wait_end, SYNCPROBE_ADDR(key), (int32_t)0);
	}
}

/* The region's function on each thread of the team (arg: the master's struct closure). */
static void trampoline(void *arg)
{
	const struct closure *c = arg;
	region_fn fn = c->fn;
	void *data = c->data;
	struct omp_thread outer;
	uint32_t n;

	close_end();
	outer = syncprobe_omp;
	n = c->traced ? traced_team_size() : 0;
	syncprobe_omp = (struct omp_thread){0};
	if (n) {
		syncprobe_omp = (struct omp_thread){
		    .region = c->region, .seq = (uint32_t)c->combined, .n = n, .pool = c->pool};
		SYNCPROBE_EMIT(barrier_init, OMP_KEY(OMP_KEY_START, n), n);
		SYNCPROBE_EMIT(barrier_init, OMP_KEY(OMP_KEY_END, n), n);
		SYNCPROBE_EMIT(barrier_init, OMP_KEY(OMP_KEY_TEAM, n), n);
		SYNCPROBE_EMIT(barrier_wait_begin, OMP_KEY(OMP_KEY_START, n));
		SYNCPROBE_EMIT(barrier_wait_end, OMP_KEY(OMP_KEY_START, n), (int32_t)0);
	}
	fn(data);
	/* c may be gone from here on (the master's frame, once the whole team is done) */
	syncprobe_omp = outer;
	if (n) {
		SYNCPROBE_EMIT(barrier_wait_begin, OMP_KEY(OMP_KEY_END, n));
		syncprobe_omp.open_end = &syncprobe_omp_keys[OMP_KEY_END][n];
	}
}

/*
 * Prepares c for a region of fn(data) (combined: a loop or sections bound to it, of pool's
 * kind). Returns false when the plain call is to be made: no session records and this thread
 * is in no traced region.
 */
static bool region_open(struct closure *c, region_fn fn, void *data, int combined,
			enum omp_pool_kind pool)
{
	bool enabled = lttng_ust_tracepoint_enabled(dps_sync, barrier_wait_begin);

	if (!enabled && !syncprobe_omp.n) {
		return false;
	}
	*c = (struct closure){.fn = fn, .data = data, .combined = combined};
	c->traced =
	    enabled && api_found() && !__atomic_exchange_n(&region_traced, 1, __ATOMIC_ACQ_REL);
	if (c->traced) {
		c->region = __atomic_add_fetch(&region_count, 1, __ATOMIC_RELAXED);
		c->pool = pool == OMP_RUNTIME ? syncprobe_omp_runtime_is_pool() : pool == OMP_POOL;
	}
	return true;
}

/* After the real call returned on the master: it left the end barrier; the next region may
 * be traced. */
static void region_close(const struct closure *c)
{
	if (c->traced) {
		close_end();
		__atomic_store_n(&region_traced, 0, __ATOMIC_RELEASE);
	}
}

void GOMP_parallel(region_fn fn, void *data, unsigned num_threads, unsigned flags);
unsigned GOMP_parallel_reductions(region_fn fn, void *data, unsigned num_threads, unsigned flags);
void GOMP_parallel_sections(region_fn fn, void *data, unsigned num_threads, unsigned count,
			    unsigned flags);

DPS_PROBE_EXPORT void GOMP_parallel(region_fn fn, void *data, unsigned num_threads, unsigned flags)
{
	static void (*real)(region_fn, void *, unsigned, unsigned);
	struct closure c;

	OMP_RESOLVE(real, "GOMP_parallel");
	if (!region_open(&c, fn, data, 0, OMP_NOT_POOL)) {
		real(fn, data, num_threads, flags);
		return;
	}
	real(trampoline, &c, num_threads, flags);
	region_close(&c);
}

/* A region with task reductions (`parallel reduction(task, ...)`): the same as GOMP_parallel,
 * but libgomp reads the data's first word (the reductions' descriptor) through the pointer it is
 * given, so the closure starts with a copy of it. */
_Static_assert(offsetof(struct closure, head) == 0, "the closure starts as the data does");

DPS_PROBE_EXPORT unsigned GOMP_parallel_reductions(region_fn fn, void *data, unsigned num_threads,
						   unsigned flags)
{
	static unsigned (*real)(region_fn, void *, unsigned, unsigned);
	struct closure c;
	unsigned r;

	OMP_RESOLVE(real, "GOMP_parallel_reductions");
	if (!region_open(&c, fn, data, 0, OMP_NOT_POOL)) {
		return real(fn, data, num_threads, flags);
	}
	c.head = *(void **)data;
	r = real(trampoline, &c, num_threads, flags);
	region_close(&c);
	return r;
}

DPS_PROBE_EXPORT void GOMP_parallel_sections(region_fn fn, void *data, unsigned num_threads,
					     unsigned count, unsigned flags)
{
	static void (*real)(region_fn, void *, unsigned, unsigned, unsigned);
	struct closure c;

	OMP_RESOLVE(real, "GOMP_parallel_sections");
	if (!region_open(&c, fn, data, 1, OMP_POOL)) {
		real(fn, data, num_threads, count, flags);
		return;
	}
	real(trampoline, &c, num_threads, count, flags);
	region_close(&c);
}

/* A combined parallel loop (`parallel for schedule(kind, chunk)`). */
#define PARALLEL_LOOP(name, kind)                                                                  \
	void name(region_fn fn, void *data, unsigned num_threads, long start, long end, long incr, \
		  long chunk_size, unsigned flags);                                                \
	DPS_PROBE_EXPORT void name(region_fn fn, void *data, unsigned num_threads, long start,     \
				   long end, long incr, long chunk_size, unsigned flags)           \
	{                                                                                          \
		static void (*real)(region_fn, void *, unsigned, long, long, long, long,           \
				    unsigned);                                                     \
		struct closure c;                                                                  \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		if (!region_open(&c, fn, data, 1, kind)) {                                         \
			real(fn, data, num_threads, start, end, incr, chunk_size, flags);          \
			return;                                                                    \
		}                                                                                  \
		real(trampoline, &c, num_threads, start, end, incr, chunk_size, flags);            \
		region_close(&c);                                                                  \
	}

/* A combined parallel loop of schedule(runtime): no chunk size. */
#define PARALLEL_LOOP_RUNTIME(name)                                                                \
	void name(region_fn fn, void *data, unsigned num_threads, long start, long end, long incr, \
		  unsigned flags);                                                                 \
	DPS_PROBE_EXPORT void name(region_fn fn, void *data, unsigned num_threads, long start,     \
				   long end, long incr, unsigned flags)                            \
	{                                                                                          \
		static void (*real)(region_fn, void *, unsigned, long, long, long, unsigned);      \
		struct closure c;                                                                  \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		if (!region_open(&c, fn, data, 1, OMP_RUNTIME)) {                                  \
			real(fn, data, num_threads, start, end, incr, flags);                      \
			return;                                                                    \
		}                                                                                  \
		real(trampoline, &c, num_threads, start, end, incr, flags);                        \
		region_close(&c);                                                                  \
	}

PARALLEL_LOOP(GOMP_parallel_loop_static, OMP_NOT_POOL)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, OMP_POOL)
PARALLEL_LOOP(GOMP_parallel_loop_guided, OMP_POOL)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, OMP_POOL)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, OMP_POOL)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* The team barriers: TEAM[n] of this thread's traced region around the real call. */
static uint32_t team_barrier_begin(void)
{
	uint32_t n = syncprobe_omp.n;

	if (n) {
		SYNCPROBE_EMIT(barrier_wait_begin, OMP_KEY(OMP_KEY_TEAM, n));
	}
	return n;
}

static void team_barrier_end(uint32_t n)
{
	if (n) {
		SYNCPROBE_EMIT(barrier_wait_end, OMP_KEY(OMP_KEY_TEAM, n), (int32_t)0);
	}
}

#define TEAM_BARRIER(name)                                                                         \
	void name(void);                                                                           \
	DPS_PROBE_EXPORT void name(void)                                                           \
	{                                                                                          \
		static void (*real)(void);                                                         \
		uint32_t n;                                                                        \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		n = team_barrier_begin();                                                          \
		real();                                                                            \
		team_barrier_end(n);                                                               \
	}

/* The cancellable forms return whether the region was cancelled (the barrier then lets the
 * threads go early). */
#define TEAM_BARRIER_CANCEL(name)                                                                  \
	bool name(void);                                                                           \
	DPS_PROBE_EXPORT bool name(void)                                                           \
	{                                                                                          \
		static bool (*real)(void);                                                         \
		uint32_t n;                                                                        \
		bool r;                                                                            \
                                                                                                   \
		OMP_RESOLVE(real, #name);                                                          \
		n = team_barrier_begin();                                                          \
		r = real();                                                                        \
		team_barrier_end(n);                                                               \
		return r;                                                                          \
	}

TEAM_BARRIER(GOMP_barrier)
TEAM_BARRIER(GOMP_loop_end)
TEAM_BARRIER(GOMP_sections_end)
TEAM_BARRIER_CANCEL(GOMP_barrier_cancel)
TEAM_BARRIER_CANCEL(GOMP_loop_end_cancel)
TEAM_BARRIER_CANCEL(GOMP_sections_end_cancel)
