/* SPDX-License-Identifier: MIT */
/*
 * Calibration functions of the main-memory stubs (memory-stub paper, sections 4 and 5.2):
 * time_basic, time_heap (alloc, use), time_stack (alloc, use) with the page-fault model of
 * equations 4-8, heap_overhead, stack_offset and stack_overhead; their file; and the
 * compensation they feed.
 *
 * Each function runs the stub itself on the table the paper prescribes and fits the model to
 * what it measured, so the constants describe this build of the stub on this machine.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "calfile.h"
#include "memory-internal.h"

static int64_t round_up(int64_t v, int64_t align)
{
	return align > 1 ? (v + align - 1) / align * align : v;
}

uint64_t dps_mem_pagefaults(const struct dps_mem_calibration *cal, uint64_t x, uint64_t y)
{
	uint64_t ps = cal->page_size ? cal->page_size : 4096;

	return ((y % ps) + x) / ps;
}

double dps_mem_time_overhead_ns(const struct dps_mem_calibration *cal, int64_t heap_x,
				uint64_t heap_y, int64_t stack_x, uint64_t stack_y)
{
	double t = cal->time_basic_ns;

	if (heap_x > 0) {
		uint64_t pf = dps_mem_pagefaults(cal, (uint64_t)heap_x, heap_y);

		t += pf ? cal->heap_alloc_fault_ns : cal->heap_alloc_nofault_ns;
		t += cal->heap_use_iter_ns * (double)(pf + 1);
		t += pf > 1 ? cal->heap_use_fault_ns * (double)(pf - 1) : 0;
	} else if (heap_x < 0) {
		/* A shrink is a realloc that never faults. */
		t += cal->heap_alloc_nofault_ns;
	}
	if (stack_x > 0) {
		uint64_t pf = dps_mem_pagefaults(cal, (uint64_t)stack_x, stack_y);

		t += pf ? cal->stack_alloc_fault_ns : cal->stack_alloc_ns;
		t += cal->stack_use_base_ns;
		t += pf > 1 ? cal->stack_use_fault_ns * (double)(pf - 1) : 0;
	}
	return t;
}

static int64_t predict_chunk_size(const struct dps_mem_calibration *cal, uint64_t size)
{
	int64_t c = round_up((int64_t)(size + cal->heap_chunk_header_bytes),
			     (int64_t)cal->heap_chunk_align_bytes);

	return c < (int64_t)cal->heap_chunk_min_bytes ? (int64_t)cal->heap_chunk_min_bytes : c;
}

int64_t dps_mem_heap_overhead(const struct dps_mem_calibration *cal, uint64_t size, bool mmapped)
{
	int64_t c = size ? predict_chunk_size(cal, size) : 0;

	if (size && mmapped) {
		c = round_up(c + (int64_t)cal->heap_mmap_header_bytes, (int64_t)cal->page_size);
	}
	return c - (int64_t)size;
}

void dps_mem_compensate(const struct dps_mem_calibration *cal, const struct dps_mem_alloc *in,
			size_t n, struct dps_mem_alloc *out)
{
	uint64_t heap = 0, stack = 0;
	double debt = 0;

	for (size_t i = 0; i < n; i++) {
		struct dps_mem_alloc p = in[i];
		double t;

		debt += dps_mem_time_overhead_ns(cal, p.heap_alloc, heap, p.stack_alloc, stack);
		t = (double)p.time_ns - debt;
		if (t < 0) {
			/* The point cannot start early enough: carry the rest. */
			debt = -t;
			t = 0;
		} else {
			debt = 0;
		}
		heap = (int64_t)heap + p.heap_alloc > 0 ? heap + (uint64_t)p.heap_alloc : 0;
		stack = (int64_t)stack + p.stack_alloc > 0 ? stack + (uint64_t)p.stack_alloc : 0;
		p.time_ns = (uint64_t)t;
		out[i] = p;
	}
}

/*
 * heap_overhead: what mallinfo2 counts for one block beyond the bytes asked. Measured on fresh
 * blocks of every size up to 1100 bytes and around page boundaries of mmapped blocks, then
 * fitted as chunk(x) = max(min, round_up(x + header, align)), mmapped: round_up(chunk + hdr,
 * page). Blocks reused from a per-thread cache show no change and are retried.
 */
#define HEAP_SWEEP 1100
#define HEAP_TRIES 16

/*
 * The heap model's blocks come from glibc's own entry points, not from the malloc an
 * LD_PRELOADed allocator wrapper replaces (LTTng-UST's libc wrapper, heaptrack): a memory
 * stub measures its byte model in its own process, and those 35 MB of short-lived blocks must
 * not show in the heap curve the witness records. glibc's allocator is the one measured
 * either way. Under ASan, malloc is ASan's and so is the stub's heap: measure that one.
 */
#if defined(__SANITIZE_ADDRESS__)
#define cal_malloc malloc
#define cal_calloc calloc
#define cal_free free
#else
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void __libc_free(void *p);
#define cal_malloc __libc_malloc
#define cal_calloc __libc_calloc
#define cal_free __libc_free
#endif

/* Blocks go through here so that the compiler cannot drop a malloc/free pair it sees. */
static void *volatile heap_sink;

static int measure_heap_model(struct dps_mem_calibration *cal)
{
	static const uint64_t aligns[] = {16, 8, 32, 1};
	static const uint64_t headers[] = {8, 0, 16};
	static const uint64_t mins[] = {32, 0, 16, 24, 48, 64};
	int64_t *delta = cal_calloc(HEAP_SWEEP + 1, sizeof(*delta));
	void **keep = cal_calloc((HEAP_SWEEP + 1) * HEAP_TRIES, sizeof(*keep));
	size_t n_keep = 0;
	struct dps_mem_heap_info a, b;
	uint64_t best_miss = UINT64_MAX;
	int ret = DPS_OK;
	void *p;

	if (!delta || !keep) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	/* tcache: a freed small chunk stays counted as in use. */
	p = cal_malloc(40);
	heap_sink = p;
	dps_mem_heap_info(&a);
	cal_free(p);
	dps_mem_heap_info(&b);
	cal->heap_tcache = p && a.in_use_bytes == b.in_use_bytes;
	/* The smallest of 3 fresh blocks: a free chunk handed out whole is up to one minimum
	 * chunk bigger (memory.c moves such blocks); a cached one shows no change. */
	for (uint64_t x = 1; x <= HEAP_SWEEP; x++) {
		int fresh = 0;

		delta[x] = INT64_MAX;
		for (int t = 0; t < HEAP_TRIES && fresh < 3; t++) {
			int64_t d;

			dps_mem_heap_info(&a);
			p = cal_malloc(x);
			heap_sink = p;
			dps_mem_heap_info(&b);
			if (!p) {
				ret = DPS_ERR_NOMEM;
				goto end;
			}
			keep[n_keep++] = p;
			d = b.in_use_bytes - a.in_use_bytes;
			if (d > 0) {
				fresh++;
				delta[x] = d < delta[x] ? d : delta[x];
			}
		}
	}
	for (size_t ia = 0; ia < sizeof(aligns) / sizeof(aligns[0]); ia++) {
		for (size_t ih = 0; ih < sizeof(headers) / sizeof(headers[0]); ih++) {
			for (size_t im = 0; im < sizeof(mins) / sizeof(mins[0]); im++) {
				struct dps_mem_calibration c = *cal;
				uint64_t miss = 0;

				c.heap_chunk_align_bytes = aligns[ia];
				c.heap_chunk_header_bytes = headers[ih];
				c.heap_chunk_min_bytes = mins[im];
				for (uint64_t x = 1; x <= HEAP_SWEEP; x++) {
					miss += predict_chunk_size(&c, x) != delta[x];
				}
				if (miss < best_miss) {
					best_miss = miss;
					cal->heap_chunk_align_bytes = aligns[ia];
					cal->heap_chunk_header_bytes = headers[ih];
					cal->heap_chunk_min_bytes = mins[im];
				}
			}
		}
	}
	cal->heap_model_misses = best_miss;
	/* Blocks above the largest dynamic mmap threshold (32 MiB) are always mmapped; sizes
	 * around page boundaries tell the header. */
	{
		int64_t mdelta[6] = {0};
		uint64_t msize[6];
		bool seen = true;

		for (int k = 0; k < 6; k++) {
			msize[k] = 33u * 1024 * 1024 + cal->page_size * (uint64_t)k -
				   (uint64_t)(8 * k + 8);
			dps_mem_heap_info(&a);
			p = cal_malloc(msize[k]);
			heap_sink = p;
			dps_mem_heap_info(&b);
			seen = seen && p && b.mmapped_blocks > a.mmapped_blocks;
			mdelta[k] = b.in_use_bytes - a.in_use_bytes;
			cal_free(p);
		}
		for (int64_t hdr = 0; seen && hdr <= 64; hdr += 8) {
			struct dps_mem_calibration c = *cal;
			bool ok = true;

			c.heap_mmap_header_bytes = (uint64_t)hdr;
			for (int k = 0; k < 6 && ok; k++) {
				ok =
				    (int64_t)msize[k] + dps_mem_heap_overhead(&c, msize[k], true) ==
				    mdelta[k];
			}
			if (ok) {
				cal->heap_mmap_header_bytes = (uint64_t)hdr;
				break;
			}
		}
	}
end:
	for (size_t i = 0; keep && i < n_keep; i++) {
		cal_free(keep[i]);
	}
	cal_free(keep);
	cal_free(delta);
	return ret;
}

/*
 * stack_offset and stack_overhead (and the alloca granularity): the paper's uncompensated
 * recursion on rising stack points of 1..96 bytes; the depth at each point from the stack
 * pointer. Also heap_offset: the stub's own heap with no heap in the table.
 */
#define STACK_RISES 96

static int measure_stack_model(struct dps_mem_calibration *cal)
{
	struct dps_mem_alloc tab[2 * STACK_RISES + 1];
	struct dps__mem_point_times times[2 * STACK_RISES + 1];
	struct dps_mem_sample samples[2 * STACK_RISES + 1];
	struct dps__mem_play_internal internal = {.raw_stack = true, .times = times};
	struct dps_mem_stub_options opts;
	struct dps_mem_calibration c = *cal;
	static const int64_t aligns[] = {16, 8, 32, 64, 1};
	int64_t over_sum = 0, over_min = INT64_MAX, over_max = INT64_MIN;
	bool fitted = false;
	int ret;

	memset(tab, 0, sizeof(tab));
	memset(times, 0, sizeof(times));
	for (int k = 1; k <= STACK_RISES; k++) {
		tab[k].stack_alloc = k;
		tab[2 * STACK_RISES + 1 - k].stack_alloc = -k;
	}
	dps_mem_stub_options_default(&opts);
	opts.compensate = false;
	opts.samples = samples;
	c.stack_offset_bytes = 0;
	c.heap_offset_bytes = 0;
	opts.cal = &c;
	ret =
	    dps__mem_stub_play_internal(tab, 2 * STACK_RISES + 1, &opts, &internal, NULL, NULL, 0);
	if (ret) {
		goto end;
	}
	cal->stack_offset_bytes = samples[0].stack_raw;
	cal->heap_offset_bytes = samples[0].heap_raw;
	for (int k = 1; k <= STACK_RISES; k++) {
		int64_t frame = samples[k].stack_raw - samples[k - 1].stack_raw;
		int64_t over = frame - times[k].alloca_bytes;

		over_sum += over;
		over_min = over < over_min ? over : over_min;
		over_max = over > over_max ? over : over_max;
	}
	/* A constant per frame, as the paper found; if not, the largest keeps the bound. */
	cal->stack_overhead_bytes = over_max;
	(void)over_sum;
	(void)over_min;
	for (size_t ia = 0; ia < sizeof(aligns) / sizeof(aligns[0]) && !fitted; ia++) {
		for (int64_t extra = 0; extra <= 256 && !fitted; extra++) {
			bool ok = true;

			for (int k = 1; k <= STACK_RISES && ok; k++) {
				ok = round_up(k + extra, aligns[ia]) == times[k].alloca_bytes;
			}
			if (ok) {
				cal->stack_align_bytes = (uint64_t)aligns[ia];
				cal->stack_alloca_extra_bytes = extra;
				fitted = true;
			}
		}
	}
	if (!fitted) {
		int64_t worst = 0;

		for (int k = 1; k <= STACK_RISES; k++) {
			int64_t e = times[k].alloca_bytes - round_up(k, 16);

			worst = e > worst ? e : worst;
		}
		cal->stack_align_bytes = 16;
		cal->stack_alloca_extra_bytes = worst;
	}
end:
	return ret;
}

static double measure_tsc_rate(void)
{
	double rate = 0;
#if defined(__x86_64__)
	uint64_t t0 = dps__now_ns(), c0 = __builtin_ia32_rdtsc();
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
	uint64_t t1, c1;

	nanosleep(&ts, NULL);
	t1 = dps__now_ns();
	c1 = __builtin_ia32_rdtsc();
	rate = t1 > t0 ? (double)(c1 - c0) / (double)(t1 - t0) : 0;
#endif
	return rate;
}

/* Cost of one clock read, subtracted from the per-operation timings. */
static double measure_clock_cost(void)
{
	uint64_t t0 = dps__now_ns();
	uint64_t t = t0;

	for (int i = 0; i < 1000; i++) {
		t = dps__now_ns();
	}
	return (double)(t - t0) / 1000;
}

/*
 * y = a * u + b * v, v = the faults beyond the first. The two terms are nearly collinear and a
 * busy machine adds outliers, so each is a median: a from the points without extra faults
 * (y / u), then b from the others ((y - a * u) / v). stack: u is 1 (eq. 8's constant term).
 */
static void fit_use(const double *u, const double *v, const double *y, size_t n, double *a,
		    double *b)
{
	double *r = calloc(n ? n : 1, sizeof(double));
	size_t k = 0;

	*a = 0;
	*b = 0;
	if (!r) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i] == 0 && u[i] > 0) {
			r[k++] = y[i] / u[i];
		}
	}
	*a = dps__median(r, k);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] > 0) {
			r[k++] = (y[i] - *a * u[i]) / v[i];
		}
	}
	*b = dps__median(r, k);
	free(r);
}

/* time_basic (eq. 1): the whole algorithm per point, zero delay, 1-byte stack, no heap. */
#define BASIC_POINTS 1000
#define BASIC_RUNS 15

static int measure_time_basic(struct dps_mem_calibration *cal)
{
	static struct dps_mem_alloc tab[BASIC_POINTS];
	struct dps__mem_play_internal internal = {.raw_stack = true};
	struct dps_mem_stub_options opts;
	struct dps_mem_stub_result res;
	double per[BASIC_RUNS];
	double mean = 0, var = 0;
	int ret = DPS_OK;

	for (size_t i = 0; i < BASIC_POINTS; i++) {
		tab[i] = (struct dps_mem_alloc){.time_ns = 0, .stack_alloc = 1, .heap_alloc = 0};
	}
	dps_mem_stub_options_default(&opts);
	opts.compensate = false;
	opts.cal = cal;
	for (int r = 0; r < BASIC_RUNS; r++) {
		ret =
		    dps__mem_stub_play_internal(tab, BASIC_POINTS, &opts, &internal, &res, NULL, 0);
		if (ret) {
			goto end;
		}
		per[r] = (double)res.actual_ns / BASIC_POINTS;
		mean += per[r] / BASIC_RUNS;
	}
	for (int r = 0; r < BASIC_RUNS; r++) {
		var += (per[r] - mean) * (per[r] - mean) / BASIC_RUNS;
	}
	cal->time_basic_scv = mean > 0 ? var / (mean * mean) : 0;
	cal->time_basic_ns = dps__median(per, BASIC_RUNS);
end:
	return ret;
}

/* time_heap (eqs. 5-6): rising heap, each step timed; steps chosen to cover 0..12 faults. */
#define HEAP_POINTS 240

static int measure_time_heap(struct dps_mem_calibration *cal, double clock_ns)
{
	static const int64_t steps[] = {48, 1000, 4096, 5000, 12288, 200, 20000, 50000};
	static struct dps_mem_alloc tab[HEAP_POINTS];
	static struct dps__mem_point_times times[HEAP_POINTS];
	struct dps__mem_play_internal internal = {.raw_stack = true, .times = times};
	struct dps_mem_stub_options opts;
	double *u = calloc(HEAP_POINTS * 4, sizeof(double));
	double *fault = calloc(HEAP_POINTS, sizeof(double));
	double *nofault = calloc(HEAP_POINTS, sizeof(double));
	size_t n_fault = 0, n_nofault = 0, m = 0;
	double *v, *y;
	uint64_t heap = 0;
	int ret;

	if (!u || !fault || !nofault) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	v = u + HEAP_POINTS;
	y = v + HEAP_POINTS;
	for (size_t i = 0; i < HEAP_POINTS; i++) {
		tab[i] = (struct dps_mem_alloc){
		    .time_ns = 0,
		    .stack_alloc = 1,
		    .heap_alloc = steps[i % (sizeof(steps) / sizeof(steps[0]))],
		};
	}
	memset(times, 0, sizeof(times));
	dps_mem_stub_options_default(&opts);
	opts.compensate = false;
	opts.cal = cal;
	/* Give the free heap pages back so that the new ones fault as they would the first
	 * time. */
	malloc_trim(0);
	ret = dps__mem_stub_play_internal(tab, HEAP_POINTS, &opts, &internal, NULL, NULL, 0);
	if (ret) {
		goto end;
	}
	for (size_t i = 0; i < HEAP_POINTS; i++) {
		uint64_t pf = dps_mem_pagefaults(cal, (uint64_t)tab[i].heap_alloc, heap);
		double alloc = (double)times[i].heap_alloc_ns - clock_ns;
		double use = (double)times[i].heap_use_ns - clock_ns;

		heap += (uint64_t)tab[i].heap_alloc;
		if (pf) {
			fault[n_fault++] = alloc;
		} else {
			nofault[n_nofault++] = alloc;
		}
		u[m] = (double)(pf + 1);
		v[m] = pf > 1 ? (double)(pf - 1) : 0;
		y[m] = use;
		m++;
	}
	cal->heap_alloc_fault_ns = dps__median(fault, n_fault);
	cal->heap_alloc_nofault_ns = dps__median(nofault, n_nofault);
	fit_use(u, v, y, m, &cal->heap_use_iter_ns, &cal->heap_use_fault_ns);
end:
	free(nofault);
	free(fault);
	free(u);
	return ret;
}

/* time_stack (eqs. 7-8): rising stack in a thread whose stack was never touched. */
#define STACK_POINTS 160
#define FRESH_STACK_BYTES (16u * 1024 * 1024)

struct stack_job {
	struct dps_mem_calibration *cal;
	struct dps_mem_alloc *tab;
	struct dps__mem_point_times *times;
	struct dps_mem_sample *samples;
	int ret;
};

static void *run_stack_job(void *arg)
{
	struct stack_job *job = arg;
	struct dps__mem_play_internal internal = {.raw_stack = true, .times = job->times};
	struct dps_mem_stub_options opts;

	dps_mem_stub_options_default(&opts);
	opts.compensate = false;
	opts.cal = job->cal;
	opts.samples = job->samples;
	job->ret =
	    dps__mem_stub_play_internal(job->tab, STACK_POINTS, &opts, &internal, NULL, NULL, 0);
	return NULL;
}

static int measure_time_stack(struct dps_mem_calibration *cal, double clock_ns)
{
	static const int64_t steps[] = {64, 1000, 4096, 200, 9000, 16, 3000, 20000};
	static struct dps_mem_alloc tab[STACK_POINTS];
	static struct dps__mem_point_times times[STACK_POINTS];
	static struct dps_mem_sample samples[STACK_POINTS];
	struct stack_job job = {.cal = cal, .tab = tab, .times = times, .samples = samples};
	double fault[STACK_POINTS], nofault[STACK_POINTS];
	double u[STACK_POINTS], v[STACK_POINTS], y[STACK_POINTS];
	size_t n_fault = 0, n_nofault = 0;
	pthread_attr_t attr;
	pthread_t tid;
	void *stack;
	int ret = DPS_OK;

	for (size_t i = 0; i < STACK_POINTS; i++) {
		tab[i] = (struct dps_mem_alloc){
		    .stack_alloc = steps[i % (sizeof(steps) / sizeof(steps[0]))],
		};
	}
	memset(times, 0, sizeof(times));
	/* A fresh mapping: the thread stack cache would hand back pages already faulted. */
	stack = mmap(NULL, FRESH_STACK_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (stack == MAP_FAILED) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, FRESH_STACK_BYTES);
	if (pthread_create(&tid, &attr, run_stack_job, &job)) {
		ret = DPS_ERROR;
		goto destroy_thread_stack;
	}
	pthread_join(tid, NULL);
	ret = job.ret;
	if (ret) {
		goto destroy_thread_stack;
	}
	for (size_t i = 0; i < STACK_POINTS; i++) {
		/* y: depth before this frame's alloca; the new pages are below it. */
		uint64_t before = (uint64_t)(samples[i].stack_raw - times[i].alloca_bytes);
		uint64_t pf = dps_mem_pagefaults(cal, (uint64_t)times[i].alloca_bytes, before);

		double alloc = (double)times[i].stack_alloc_ns - clock_ns;

		if (pf) {
			fault[n_fault++] = alloc;
		} else {
			nofault[n_nofault++] = alloc;
		}
		u[i] = 1;
		v[i] = pf > 1 ? (double)(pf - 1) : 0;
		y[i] = (double)times[i].stack_use_ns - clock_ns;
	}
	fit_use(u, v, y, STACK_POINTS, &cal->stack_use_base_ns, &cal->stack_use_fault_ns);
	cal->stack_alloc_ns = dps__median(nofault, n_nofault);
	cal->stack_alloc_fault_ns = dps__median(fault, n_fault);
destroy_thread_stack:
	pthread_attr_destroy(&attr);
	munmap(stack, FRESH_STACK_BYTES);
end:
	return ret;
}

/* The delays' own lateness: absolute sleeps of 200 us, median overshoot. */
#define SLEEP_SAMPLES 41

static double measure_sleep_overshoot(void)
{
	double late[SLEEP_SAMPLES];

	for (int i = 0; i < SLEEP_SAMPLES; i++) {
		uint64_t deadline = dps__now_ns() + 200 * 1000;
		struct timespec ts = {
		    .tv_sec = (time_t)(deadline / 1000000000u),
		    .tv_nsec = (long)(deadline % 1000000000u),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
		}
		late[i] = (double)(dps__now_ns() - deadline);
	}
	return dps__median(late, SLEEP_SAMPLES);
}

/* Median of each time constant over repeated calibrations: one page-fault storm from another
 * process must not decide them. */
#define TIME_REPEATS 5

int dps_mem_calibration_measure(struct dps_mem_calibration *cal, bool quick)
{
	double v[9][TIME_REPEATS];
	double clock_ns;
	long ps = sysconf(_SC_PAGESIZE);
	int ret;

	dps_mem_calibration_default(cal);
	cal->page_size = ps > 0 ? (uint64_t)ps : 4096;
	ret = measure_heap_model(cal);
	if (ret) {
		goto end;
	}
	ret = measure_stack_model(cal);
	if (ret) {
		goto end;
	}
	if (quick) {
		/* No time model without the full measurement: the paper's cycles belong to another
		 * machine, and compensating with them would move every point early. */
		cal->time_basic_ns = 0;
		cal->heap_alloc_fault_ns = cal->heap_alloc_nofault_ns = 0;
		cal->heap_use_iter_ns = cal->heap_use_fault_ns = 0;
		cal->stack_alloc_ns = cal->stack_alloc_fault_ns = 0;
		cal->stack_use_base_ns = cal->stack_use_fault_ns = 0;
		cal->sleep_overshoot_ns = 0;
		goto end;
	}
	cal->cycles_per_ns = measure_tsc_rate();
	clock_ns = measure_clock_cost();
	{
		/* Measured with the stub's own timer slack (1 ns), restored after. */
		int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
		cal->sleep_overshoot_ns = measure_sleep_overshoot();
		if (slack > 0) {
			prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
		}
	}
	for (int r = 0; r < TIME_REPEATS; r++) {
		ret = measure_time_basic(cal);
		if (!ret) {
			ret = measure_time_heap(cal, clock_ns);
		}
		if (!ret) {
			ret = measure_time_stack(cal, clock_ns);
		}
		if (ret) {
			goto end;
		}
		v[0][r] = cal->time_basic_ns;
		v[1][r] = cal->heap_alloc_fault_ns;
		v[2][r] = cal->heap_alloc_nofault_ns;
		v[3][r] = cal->heap_use_iter_ns;
		v[4][r] = cal->heap_use_fault_ns;
		v[5][r] = cal->stack_alloc_ns;
		v[6][r] = cal->stack_use_base_ns;
		v[7][r] = cal->stack_use_fault_ns;
		v[8][r] = cal->stack_alloc_fault_ns;
	}
	cal->time_basic_ns = dps__median(v[0], TIME_REPEATS);
	cal->heap_alloc_fault_ns = dps__median(v[1], TIME_REPEATS);
	cal->heap_alloc_nofault_ns = dps__median(v[2], TIME_REPEATS);
	cal->heap_use_iter_ns = dps__median(v[3], TIME_REPEATS);
	cal->heap_use_fault_ns = dps__median(v[4], TIME_REPEATS);
	cal->stack_alloc_ns = dps__median(v[5], TIME_REPEATS);
	cal->stack_use_base_ns = dps__median(v[6], TIME_REPEATS);
	cal->stack_use_fault_ns = dps__median(v[7], TIME_REPEATS);
	cal->stack_alloc_fault_ns = dps__median(v[8], TIME_REPEATS);
	cal->measured = true;
end:
	return ret;
}

static pthread_once_t quick_once = PTHREAD_ONCE_INIT;
static struct dps_mem_calibration quick_cal;

/*
 * The byte and stack model is always measured here, in this process: it belongs to this build
 * of the stub (an ASan build has other frames). The time model comes from the file named by
 * DPS_MEM_CALIBRATION (dps calibrate --memory), else it stays the paper's.
 */
static void measure_quick(void)
{
	const char *path = getenv("DPS_MEM_CALIBRATION");
	struct dps_mem_calibration c, file;
	char err[256];

	if (dps_mem_calibration_measure(&c, true) != DPS_OK) {
		dps_mem_calibration_default(&c);
	}
	if (path && *path && dps_mem_calibration_load(path, &file, err, sizeof(err)) == DPS_OK) {
		c.measured = file.measured;
		c.cycles_per_ns = file.cycles_per_ns;
		c.time_basic_ns = file.time_basic_ns;
		c.time_basic_scv = file.time_basic_scv;
		c.sleep_overshoot_ns = file.sleep_overshoot_ns;
		c.heap_alloc_fault_ns = file.heap_alloc_fault_ns;
		c.heap_alloc_nofault_ns = file.heap_alloc_nofault_ns;
		c.heap_use_iter_ns = file.heap_use_iter_ns;
		c.heap_use_fault_ns = file.heap_use_fault_ns;
		c.stack_alloc_ns = file.stack_alloc_ns;
		c.stack_alloc_fault_ns = file.stack_alloc_fault_ns;
		c.stack_use_base_ns = file.stack_use_base_ns;
		c.stack_use_fault_ns = file.stack_use_fault_ns;
	}
	quick_cal = c;
}

const struct dps_mem_calibration *dps_mem_calibration_borrow(void)
{
	pthread_once(&quick_once, measure_quick);
	return &quick_cal;
}

/* The file's mem.* section (calfile.c; doc/memory.md lists the keys). */
int dps_mem_calibration_write(const struct dps_mem_calibration *cal, FILE *out)
{
	return dps_calfile_write(out, NULL, cal);
}

int dps_mem_calibration_save(const struct dps_mem_calibration *cal, const char *path, char *err,
			     size_t errlen)
{
	return dps_calfile_save(path, NULL, cal, err, errlen);
}

int dps_mem_calibration_load(const char *path, struct dps_mem_calibration *cal, char *err,
			     size_t errlen)
{
	struct dps_mem_calibration c;
	unsigned sections = 0;
	char buf[512];
	int ret;

	dps_mem_calibration_default(&c);
	ret = dps_calfile_read(path, NULL, &c, &sections, buf, sizeof(buf));
	if (!ret && !(sections & DPS_CALFILE_MEM)) {
		snprintf(buf, sizeof(buf),
			 "%s: no memory calibration in this file (mem.* keys): run dps calibrate "
			 "--memory -o %s",
			 path, path);
		ret = DPS_ERR_INVAL;
	}
	if (!ret && (c.page_size & (c.page_size - 1))) {
		snprintf(buf, sizeof(buf), "%s: mem.page_size %" PRIu64 " is not a power of two",
			 path, c.page_size);
		ret = DPS_ERR_INVAL;
	}
	if (err && errlen) {
		snprintf(err, errlen, "%s", ret ? buf : "");
	}
	if (!ret) {
		*cal = c;
	}
	return ret;
}
