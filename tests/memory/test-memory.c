/* SPDX-License-Identifier: MIT */
/*
 * The main-memory stubs on the curve cases the memory-stub paper lists (rising and trailing
 * edges, constant stack between each pair of edge kinds, heap shrinking to zero, fast
 * alternations), each measured at every trace point: the heap with mallinfo2 (minus the
 * calibrated allocator overhead) must equal the desired value to the byte, the stack-pointer
 * depth (minus the calibrated stack_offset) must be within 64 bytes. Plus the calibration file
 * round trip and its errors, bad tables, a stack that does not fit, and the player's hook;
 * the player's stacks sized for their curves and a heap it cannot have named where it is.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <dps/dps-memory.h>

#include "dps-test.h"
#include "memory-internal.h"

#define MAX_POINTS 512

static struct dps_mem_sample samples[MAX_POINTS];

/* The stated bound, or half a frame when frames are bigger than 128 bytes (sanitizers). */
static int64_t stack_bound(const struct dps_mem_calibration *cal)
{
	int64_t half = cal->stack_overhead_bytes / 2 + (int64_t)cal->stack_align_bytes;

	return half > 64 ? half : 64;
}

/* Plays the table and checks every point: heap to the byte, stack within the bound. */
static void play_and_check(const struct dps_mem_alloc *tab, size_t n)
{
	const struct dps_mem_calibration *cal = dps_mem_calibration_borrow();
	struct dps_mem_stub_options opts;
	struct dps_mem_stub_result res;
	char err[256] = "";
	int64_t bound = stack_bound(cal);
	int ret;

	cr_assert(n <= MAX_POINTS);
	cr_assert(!cal->heap_tcache, "run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0");
	memset(samples, 0, sizeof(samples));
	dps_mem_stub_options_default(&opts);
	opts.samples = samples;
	ret = dps_mem_stub_play(tab, n, &opts, &res, err, sizeof(err));
	cr_assert_eq(ret, 0, "play: %d %s", ret, err);
	for (size_t i = 0; i < n; i++) {
		const struct dps_mem_sample *s = &samples[i];

		cr_expect_eq(s->heap_got, s->heap_want,
			     "point %zu: heap %lld bytes measured (raw %lld), %lld desired", i,
			     (long long)s->heap_got, (long long)s->heap_raw,
			     (long long)s->heap_want);
		cr_expect(llabs(s->stack_got - s->stack_want) <= bound,
			  "point %zu: stack %lld bytes measured, %lld desired (bound %lld)", i,
			  (long long)s->stack_got, (long long)s->stack_want, (long long)bound);
	}
}

static struct dps_mem_alloc pt(uint64_t us, int64_t stack, int64_t heap)
{
	return (struct dps_mem_alloc){
	    .time_ns = DPS_MEM_US(us), .stack_alloc = stack, .heap_alloc = heap};
}

Test(memory, paper_listing_1_table)
{
	const struct dps_mem_alloc tab[] = {
	    pt(129, 300, 0),
	    pt(223, 100, 200),
	    pt(384, -100, -40),
	    pt(112, -300, -160),
	};

	play_and_check(tab, 4);
}

Test(memory, rising_and_trailing_edges)
{
	struct dps_mem_alloc tab[40];
	size_t n = 0;

	/* steep and slow rises, then falls that do not mirror them */
	for (int k = 0; k < 10; k++) {
		tab[n++] = pt(0, 100 + 700 * k, 48 * k + 1);
	}
	for (int k = 0; k < 10; k++) {
		tab[n++] = pt(0, 16 + k, 3);
	}
	for (int k = 0; k < 13; k++) {
		tab[n++] = pt(0, -(1000 + 333 * k) > -4000 ? -(1000 + 333 * k) : -2500, -1);
	}
	play_and_check(tab, n);
}

Test(memory, constant_stack_between_each_pair_of_edges)
{
	const struct dps_mem_alloc tab[] = {
	    /* rising, constant, rising */
	    pt(10, 512, 100),
	    pt(10, 0, 100),
	    pt(10, 0, -50),
	    pt(10, 256, 0),
	    /* rising, constant, trailing */
	    pt(10, 1024, 0),
	    pt(10, 0, 4096),
	    pt(10, 0, 0),
	    pt(10, -1024, 0),
	    /* trailing, constant, trailing */
	    pt(10, -128, 0),
	    pt(10, 0, 7),
	    pt(10, 0, -7),
	    pt(10, -300, 1),
	    /* trailing, constant, rising */
	    pt(10, -200, 0),
	    pt(10, 0, 9000),
	    pt(10, 0, -9000),
	    pt(10, 777, 0),
	    pt(10, -917, -4246),
	};

	play_and_check(tab, sizeof(tab) / sizeof(tab[0]));
}

Test(memory, heap_shrinking_to_zero_and_back)
{
	const struct dps_mem_alloc tab[] = {
	    pt(0, 0, 1),  pt(0, 0, 200000), pt(0, 0, -150000),	  pt(0, 0, -50001),
	    pt(0, 64, 5), pt(0, 0, -5),	    pt(0, -64, 40 << 20), pt(0, 0, -(40 << 20)),
	    pt(0, 0, 24), pt(0, 0, -24),
	};

	play_and_check(tab, sizeof(tab) / sizeof(tab[0]));
}

Test(memory, fast_alternations)
{
	struct dps_mem_alloc tab[400];

	for (size_t i = 0; i < 400; i += 2) {
		int64_t s = 16 + (int64_t)(i % 37) * 24;
		int64_t h = 1 + (int64_t)(i % 53) * 97;

		tab[i] = pt(0, s, h);
		tab[i + 1] = pt(0, -s, -h);
	}
	play_and_check(tab, 400);
}

Test(memory, small_rises_accumulate)
{
	struct dps_mem_alloc tab[200];

	/* rises far below one frame: the stub must not drift by a frame per point */
	for (size_t i = 0; i < 100; i++) {
		tab[i] = pt(0, 8, 8);
	}
	for (size_t i = 100; i < 200; i++) {
		tab[i] = pt(0, -8, -8);
	}
	play_and_check(tab, 200);
}

Test(memory, delays_keep_total_time, .timeout = 30)
{
	struct dps_mem_alloc tab[50];
	struct dps_mem_stub_result res;
	char err[256] = "";

	for (size_t i = 0; i < 50; i++) {
		tab[i] = pt(1000, i < 25 ? 100 : -100, i < 25 ? 1000 : -1000);
	}
	cr_assert_eq(dps_mem_stub_play(tab, 50, NULL, &res, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(res.want_ns, 50u * 1000 * 1000);
	/* absolute schedule: never early at the end, and no gross drift even on a loaded CI
	 * machine (the accuracy is measured by bench/memory.sh) */
	cr_expect_geq(res.actual_ns + 2 * 1000 * 1000, res.want_ns, "%llu",
		      (unsigned long long)res.actual_ns);
	cr_expect_lt(res.actual_ns, res.want_ns + 200u * 1000 * 1000, "%llu",
		     (unsigned long long)res.actual_ns);
	cr_expect_eq(res.heap_peak, 25000);
	cr_expect_eq(res.stack_peak, 2500);
}

Test(memory, bad_tables_are_refused_with_the_point)
{
	const struct dps_mem_alloc below[] = {pt(0, 100, 10), pt(0, -101, 0)};
	const struct dps_mem_alloc heap_below[] = {pt(0, 0, 10), pt(0, 0, 5), pt(0, 0, -16)};
	char err[256] = "";

	cr_assert_eq(dps_mem_stub_play(below, 2, NULL, NULL, err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect(strstr(err, "point 1") && strstr(err, "stack"), "%s", err);
	cr_assert_eq(dps_mem_table_check(heap_below, 3, err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect(strstr(err, "point 2") && strstr(err, "heap"), "%s", err);
	cr_assert_eq(dps_mem_table_check(NULL, 0, err, sizeof(err)), 0);
}

struct small_stack_job {
	int ret;
	char err[256];
	struct dps_mem_stub_result res;
};

static void *play_deep(void *arg)
{
	struct small_stack_job *job = arg;
	const struct dps_mem_alloc tab[] = {pt(0, 4 << 20, 0), pt(0, 0, 0), pt(0, -(4 << 20), 0)};

	job->ret = dps_mem_stub_play(tab, 3, NULL, &job->res, job->err, sizeof(job->err));
	return NULL;
}

Test(memory, stack_too_deep_for_the_thread_is_capped)
{
	struct small_stack_job job = {0};
	pthread_attr_t attr;
	pthread_t tid;

	dps_mem_calibration_borrow();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 512 * 1024);
	cr_assert_eq(pthread_create(&tid, &attr, play_deep, &job), 0);
	pthread_join(tid, NULL);
	pthread_attr_destroy(&attr);
	cr_expect_eq(job.ret, DPS_ERR_RANGE, "%d %s", job.ret, job.err);
	cr_expect(strstr(job.err, "does not fit"), "%s", job.err);
}

Test(memory, heap_overhead_model_matches_the_allocator)
{
	const struct dps_mem_calibration *cal = dps_mem_calibration_borrow();

	cr_expect_eq(cal->heap_model_misses, 0, "%llu sizes",
		     (unsigned long long)cal->heap_model_misses);
	cr_expect_eq(dps_mem_heap_overhead(cal, 0, false), 0);
	cr_expect_geq(dps_mem_heap_overhead(cal, 1, false), 0);
}

Test(memory, page_fault_model_is_equation_4)
{
	struct dps_mem_calibration cal;

	dps_mem_calibration_default(&cal);
	cr_expect_eq(dps_mem_pagefaults(&cal, 100, 0), 0);
	cr_expect_eq(dps_mem_pagefaults(&cal, 100, 4000), 1);
	cr_expect_eq(dps_mem_pagefaults(&cal, 8192, 4096), 2);
	cr_expect_eq(dps_mem_pagefaults(&cal, 4095, 1), 1);
	/* eq. 5 + 6 with one fault: alloc with fault + 2 iterations */
	cr_expect_float_eq(dps_mem_time_overhead_ns(&cal, 4096, 0, 0, 0),
			   cal.time_basic_ns + cal.heap_alloc_fault_ns + 2 * cal.heap_use_iter_ns,
			   1e-9);
	cr_expect_float_eq(dps_mem_time_overhead_ns(&cal, 0, 0, -5, 100), cal.time_basic_ns, 1e-9);
}

Test(memory, compensation_shortens_delays_and_carries)
{
	struct dps_mem_calibration cal;
	struct dps_mem_alloc tab[3] = {pt(0, 4096, 4096), pt(1000, 0, 0), pt(1000, 0, 0)};
	double o0, o1, o2;

	dps_mem_calibration_default(&cal);
	o0 = dps_mem_time_overhead_ns(&cal, 4096, 0, 4096, 0);
	o1 = dps_mem_time_overhead_ns(&cal, 0, 4096, 0, 4096);
	o2 = o1;
	dps_mem_compensate(&cal, tab, 3, tab);
	cr_expect_eq(tab[0].time_ns, 0);
	/* the first point cannot start early: its overhead is carried into the next delay */
	cr_expect_eq(tab[1].time_ns, (uint64_t)(1000000 - o0 - o1));
	cr_expect_eq(tab[2].time_ns, (uint64_t)(1000000 - o2));
}

Test(memory, calibration_file_round_trip)
{
	struct dps_mem_calibration a, b;
	char *path = dps_test_mkstemp("memcal");
	char err[256] = "";

	cr_assert_eq(dps_mem_calibration_measure(&a, true), 0);
	cr_assert_eq(dps_mem_calibration_save(&a, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dps_mem_calibration_load(path, &b, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(memcmp(&a, &b, sizeof(a)), 0, "loaded calibration differs");
	dps_test_rmtree(path);
	g_free(path);
}

static void load_text(const char *text, int want, const char *needle)
{
	struct dps_mem_calibration c;
	char *path = dps_test_mkstemp("memcal");
	char err[256] = "";

	dps_test_write_file(path, text);
	cr_expect_eq(dps_mem_calibration_load(path, &c, err, sizeof(err)), want, "%s", err);
	cr_expect(strstr(err, needle), "'%s' not in '%s'", needle, err);
	dps_test_rmtree(path);
	g_free(path);
}

/* dps calibrate and dps calibrate --memory write one file: each keeps the other's part. */
Test(memory, one_file_holds_both_calibrations)
{
	struct dps_mem_calibration m, m2;
	struct dps_calibration c, c2;
	char *path = dps_test_mkstemp("memcal");
	char err[256] = "";

	dps_calibration_default(&c);
	c.work_loops_per_us = 321.5;
	dps_mem_calibration_default(&m);
	m.stack_offset_bytes = 216;
	cr_assert_eq(dps_calibration_save(&c, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dps_mem_calibration_save(&m, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dps_calibration_load(path, &c2, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dps_mem_calibration_load(path, &m2, err, sizeof(err)), 0, "%s", err);
	cr_expect_float_eq(c2.work_loops_per_us, 321.5, 1e-9);
	cr_expect_eq(m2.stack_offset_bytes, 216);
	/* and the CPU part saved again keeps the memory part */
	c.work_loops_per_us = 99;
	cr_assert_eq(dps_calibration_save(&c, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(dps_mem_calibration_load(path, &m2, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(m2.stack_offset_bytes, 216);
	dps_test_rmtree(path);
	g_free(path);
}

Test(memory, calibration_file_errors_name_the_line)
{
	struct dps_mem_calibration c;
	char err[256] = "";

	load_text("dps-calibration 2\n# c\nmem.no_such_key 3\n", DPS_ERR_INVAL, ":3: unknown key");
	load_text("dps-calibration 2\nmem.stack_offset_bytes 12x\n", DPS_ERR_INVAL,
		  ":2: mem.stack_offset_bytes: expected an integer");
	load_text("dps-calibration 2\nmem.heap_tcache 2\n", DPS_ERR_INVAL, "from 0 to 1");
	load_text("dps-calibration 2\nmem.page_size 1000\n", DPS_ERR_INVAL, "power of two");
	/* the older formats say their version */
	load_text("format_version = 1\npage_size = 4096\n", DPS_ERR_INVAL,
		  ":1: a memory calibration of the older \"key = value\" format");
	load_text("dps-calibration 1\nwork_loops_per_us 3\n", DPS_ERR_INVAL,
		  "format version 1, expected 2");
	/* a CPU-only file has no memory part */
	load_text("dps-calibration 2\ncpu.work_loops_per_us 3\n", DPS_ERR_INVAL,
		  "no memory calibration in this file");
	cr_expect_eq(dps_mem_calibration_load("/nonexistent/x.cal", &c, err, sizeof(err)),
		     DPS_ERR_NOENT);
	cr_expect(strstr(err, "/nonexistent/x.cal"), "%s", err);
}

/*
 * The player's hook: a list with stack actions played through dps__mem_stack_play, each run of
 * non-stack actions checked at the depth memory.c put it.
 */
struct player_ctx {
	const struct dps_action *actions;
	size_t n;
	int64_t heap_target;
	struct dps__mem_thread *mem;
	size_t n_done;
	int64_t worst;
};

static size_t fake_play_from(void *arg, size_t i)
{
	struct player_ctx *ctx = arg;

	for (; i < ctx->n; i++) {
		if (ctx->actions[i].kind == DPS_ACT_STACK) {
			return i;
		}
		if (ctx->actions[i].kind == DPS_ACT_HEAP) {
			cr_assert_eq(dps__mem_heap(ctx->mem, ctx->actions[i].arg), 0);
			ctx->heap_target += ctx->actions[i].arg;
			cr_expect_eq((int64_t)dps__mem_heap_size(ctx->mem), ctx->heap_target);
		}
	}
	return ctx->n;
}

static void stack_done(void *arg, size_t i, int64_t depth, int64_t real)
{
	struct player_ctx *ctx = arg;
	int64_t want = 0;

	for (size_t k = 0; k <= i; k++) {
		want += ctx->actions[k].kind == DPS_ACT_STACK ? ctx->actions[k].arg : 0;
	}
	cr_expect_eq(depth, want, "action %zu", i);
	if (llabs(real - want) > ctx->worst) {
		ctx->worst = llabs(real - want);
	}
	ctx->n_done++;
}

Test(memory, player_hook_replays_stack_actions_at_depth)
{
	const struct dps_action acts[] = {
	    {.kind = DPS_ACT_STACK, .arg = 4000},  {.kind = DPS_ACT_HEAP, .arg = 1000},
	    {.kind = DPS_ACT_RUN, .arg = 0},	   {.kind = DPS_ACT_STACK, .arg = 300},
	    {.kind = DPS_ACT_STACK, .arg = -1500}, {.kind = DPS_ACT_HEAP, .arg = -600},
	    {.kind = DPS_ACT_STACK, .arg = 20},	   {.kind = DPS_ACT_STACK, .arg = -2820},
	    {.kind = DPS_ACT_HEAP, .arg = -400},
	};
	struct player_ctx ctx = {.actions = acts, .n = sizeof(acts) / sizeof(acts[0])};
	const struct dps_mem_calibration *cal = dps_mem_calibration_borrow();

	ctx.mem = dps__mem_thread_begin(false);
	cr_assert(ctx.mem);
	dps__mem_set_stack_notify(ctx.mem, stack_done);
	cr_expect_eq(dps__mem_stack_play(ctx.mem, acts, ctx.n, 0, fake_play_from, &ctx), ctx.n);
	cr_expect_eq(ctx.n_done, 5);
	cr_expect_eq(dps__mem_stack_depth(ctx.mem), 0);
	cr_expect_eq(dps__mem_heap_size(ctx.mem), 0);
	cr_expect_eq(dps__mem_status(ctx.mem), 0);
	cr_expect(ctx.worst <= stack_bound(cal), "worst stack error %lld", (long long)ctx.worst);
	dps__mem_thread_end(ctx.mem);
	dps__mem_thread_end(NULL);
}

static void count_done(void *arg, size_t i, int64_t depth, int64_t real)
{
	struct player_ctx *ctx = arg;

	(void)i;
	(void)depth;
	(void)real;
	ctx->n_done++;
}

/* Regression (issue 16): a stack change bigger than the address below the stack pointer
 * wrapped the room-left computation, passed the limit check and crashed in alloca. A table
 * given through the API (not the parser, which refuses it) must be capped and reported. */
Test(memory, a_stack_change_beyond_the_address_space_is_capped_not_played)
{
	const struct dps_action acts[] = {
	    {.kind = DPS_ACT_STACK, .arg = (int64_t)1 << 47},
	    {.kind = DPS_ACT_RUN, .arg = 0},
	    {.kind = DPS_ACT_STACK, .arg = INT64_MAX},
	};
	struct player_ctx ctx = {.actions = acts, .n = sizeof(acts) / sizeof(acts[0])};

	dps_mem_calibration_borrow();
	ctx.mem = dps__mem_thread_begin(false);
	cr_assert(ctx.mem);
	/* no depth check: the point is that nothing is played at such a depth */
	dps__mem_set_stack_notify(ctx.mem, count_done);
	cr_expect_eq(dps__mem_stack_play(ctx.mem, acts, ctx.n, 0, fake_play_from, &ctx), ctx.n);
	cr_expect_eq(dps__mem_status(ctx.mem), DPS_ERR_RANGE);
	dps__mem_thread_end(ctx.mem);
}

Test(memory, heap_that_cannot_grow_is_reported)
{
	/* 32 TiB: refused by any allocator here; the stub keeps its block and says so */
	const struct dps_mem_alloc tab[] = {pt(0, 0, 100), pt(0, 0, (int64_t)1 << 45), pt(0, 0, 0)};
	char err[256] = "";

	cr_assert_eq(dps_mem_stub_play(tab, 3, NULL, NULL, err, sizeof(err)), DPS_ERR_NOMEM);
	cr_expect(strstr(err, "cannot grow the heap stub"), "%s", err);
}

Test(memory, player_heap_hook_keeps_the_block_when_it_cannot_grow)
{
	struct dps__mem_thread *mem = dps__mem_thread_begin(false);

	cr_assert(mem);
	cr_assert_eq(dps__mem_heap(mem, 4096), 0);
	cr_expect_eq(dps__mem_heap(mem, (int64_t)1 << 45), DPS_ERR_NOMEM);
	cr_expect_eq(dps__mem_heap_size(mem), 4096);
	cr_expect_eq(dps__mem_heap(mem, -10000), 0);
	cr_expect_eq(dps__mem_heap_size(mem), 0);
	dps__mem_thread_end(mem);
}

Test(memory, full_calibration_fits_the_page_fault_model, .timeout = 60)
{
	struct dps_mem_calibration cal;

	cr_assert_eq(dps_mem_calibration_measure(&cal, false), 0);
	cr_expect(cal.measured);
	cr_expect_gt(cal.time_basic_ns, 0);
#ifndef DPS_TEST_SANITIZE
	/* a page fault costs far more than a realloc that finds room (eq. 5); not under ASan,
	 * whose allocator makes both about the same (1.017 vs 1.025 ms seen) */
	cr_expect_gt(cal.heap_alloc_fault_ns, cal.heap_alloc_nofault_ns, "%f vs %f",
		     cal.heap_alloc_fault_ns, cal.heap_alloc_nofault_ns);
#endif
	cr_expect_gt(cal.heap_use_fault_ns, cal.heap_use_iter_ns);
	cr_expect_gt(cal.stack_use_fault_ns, 0);
	cr_expect_gt(cal.stack_overhead_bytes, 0);
	cr_expect_geq(cal.stack_offset_bytes, 0);
}

/* DPS_HEAP_ALLOC: the recorded sizes are allocated and freed, the sum is the curve's. */
Test(memory, allocation_faithful_heap_frees_the_recorded_blocks)
{
	struct dps__mem_thread *mem = dps__mem_thread_begin(true);
	struct dps_mem_heap_info a, b;

	cr_assert(mem);
	dps_mem_heap_info(&a);
	cr_assert_eq(dps__mem_heap(mem, 100), 0);
	cr_assert_eq(dps__mem_heap(mem, 5000), 0);
	cr_assert_eq(dps__mem_heap(mem, 100), 0);
	cr_expect_eq(dps__mem_heap_size(mem), 5200);
	dps_mem_heap_info(&b);
	/* three chunks, not one block of 5200: at least their headers more */
	cr_expect_geq(b.in_use_bytes - a.in_use_bytes, 5200);
	/* the free of the 5000-byte allocation, out of order */
	cr_assert_eq(dps__mem_heap(mem, -5000), 0);
	cr_expect_eq(dps__mem_heap_size(mem), 200);
	/* a size no block has (a realloc's delta): the most recent blocks, the last shrunk */
	cr_assert_eq(dps__mem_heap(mem, -150), 0);
	cr_expect_eq(dps__mem_heap_size(mem), 50);
	cr_assert_eq(dps__mem_heap(mem, -1000), 0);
	cr_expect_eq(dps__mem_heap_size(mem), 0);
	cr_expect_eq(dps__mem_heap(mem, (int64_t)1 << 45), DPS_ERR_NOMEM);
	cr_expect_eq(dps__mem_heap_size(mem), 0);
	dps__mem_thread_end(mem);
}

/*
 * The player's stacks and heaps through dps_play (issue 26): what the set's validation
 * accepts plays, and what the machine cannot give is named with its place.
 */
#define PLAY_ACT(k, x)                                                                             \
	{                                                                                          \
		.arg = (x), .kind = DPS_ACT_##k, .line = __LINE__                                  \
	}
#define PLAY_THREAD(i, acts)                                                                       \
	{                                                                                          \
		.id = (i), .actions = (acts), .n_actions = sizeof(acts) / sizeof((acts)[0])        \
	}

/* Options for a play of a program made here: the deterministic calibration, wall mode. */
static struct dps_play_options play_options(void)
{
	struct dps_play_options opts;
	char err[256];

	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(dps_init(NULL, err, sizeof(err)), DPS_OK, "%s", err);
	dps_play_options_default(&opts);
	opts.mode = DPS_RUN_WALL;
	opts.summary = false;
	return opts;
}

/* A stack curve deeper than a default thread stack (8 MiB) and within the set's limit plays
 * uncapped, in a created thread and in the root (validation accepted it, the player capped it
 * and failed with "number out of range"). */
Test(memory, a_stack_deeper_than_a_default_thread_stack_plays, .timeout = 120)
{
	static const struct dps_action root[] = {
	    PLAY_ACT(CREATE, 1), PLAY_ACT(JOIN, 1), PLAY_ACT(STACK, 48 * 1024 * 1024),
	    PLAY_ACT(RUN, 100000), PLAY_ACT(STACK, -48 * 1024 * 1024)};
	static const struct dps_action child[] = {
	    PLAY_ACT(STACK, 32 * 1024 * 1024), PLAY_ACT(RUN, 100000),
	    PLAY_ACT(STACK, 32 * 1024 * 1024), PLAY_ACT(STACK, -64 * 1024 * 1024)};
	static const struct dps_thread_desc th[] = {PLAY_THREAD(1, root), PLAY_THREAD(2, child)};
	struct dps_program prog = {.threads = th, .n_threads = 2, .root = 0};
	struct dps_play_options opts = play_options();
	struct dps_play_result r;

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_OK, "%s", r.detail);
	cr_assert_eq(r.threads[0].n_actions, 5);
	cr_assert_eq(r.threads[1].n_actions, 4);
	dps_play_result_fini(&r);
}

/* A heap the machine cannot give fails naming the thread, its action file and line (it said
 * "replay failed: out of memory", nothing more). 4 EiB: refused by any allocator (under ASan
 * too: allocator_may_return_null, CMakeLists.txt). */
Test(memory, a_heap_the_machine_cannot_give_is_named_where_it_is)
{
	static const struct dps_action a0[] = {PLAY_ACT(CREATE, 1), PLAY_ACT(JOIN, 1)};
	static const struct dps_action a1[] = {
	    PLAY_ACT(HEAP, 4096), PLAY_ACT(HEAP, INT64_C(1) << 62), PLAY_ACT(HEAP, -4096)};
	static const struct dps_thread_desc th[] = {PLAY_THREAD(1, a0), PLAY_THREAD(2, a1)};
	struct dps_program prog = {.threads = th, .n_threads = 2, .root = 0};
	struct dps_play_options opts = play_options();
	struct dps_play_result r;
	char want[160];

	cr_assert_eq(dps_play(&prog, &opts, &r), DPS_ERR_NOMEM);
	snprintf(want, sizeof(want),
		 "thread 2 (2.act:%u): heap +4611686018427387904: the machine gave no memory for "
		 "it (the thread's heap held 4096 bytes)",
		 a1[1].line);
	cr_assert_str_eq(r.detail, want);
	dps_play_result_fini(&r);
}
