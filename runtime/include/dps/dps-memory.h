/* SPDX-License-Identifier: MIT */
/*
 * libdps main-memory stubs: replay a heap and stack curve over time (memory-stub paper,
 * Trapp/Meyer/Facchi 2011, Listings 1-3), with its calibration functions (section 4) and the
 * compensation of the stub's own time, heap and stack overhead.
 *
 * A standalone stub is driven by a data table, the paper's `memAlloc` array (Listing 1): one
 * entry per trace point with the delay since the previous point and the changes of the stack
 * depth and of the heap in use.
 *
 *	#include <dps/dps-memory.h>
 *	static const struct dps_mem_alloc mem_use[] = {
 *		{ .time_ns = DPS_MEM_US(129), .stack_alloc = 300,  .heap_alloc = 0 },
 *		{ .time_ns = DPS_MEM_US(223), .stack_alloc = 100,  .heap_alloc = 200 },
 *		{ .time_ns = DPS_MEM_US(384), .stack_alloc = -100, .heap_alloc = -40 },
 *		{ .time_ns = DPS_MEM_US(112), .stack_alloc = -300, .heap_alloc = -160 },
 *	};
 *	dps_mem_stub_play(mem_use, 4, NULL, NULL, NULL, 0);
 *
 * The same algorithm plays `heap` and `stack` actions in generated programs. The reference,
 * with this machine's calibration constants next to the paper's, is doc/memory.md.
 */
#ifndef DPS_DPS_MEMORY_H
#define DPS_DPS_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DPS_MEM_US(us) ((uint64_t)(us)*1000u)

/* One trace point (the paper's struct memAlloc). */
struct dps_mem_alloc {
	uint64_t time_ns;    /* delay since the previous point (the paper's `time`, in ns) */
	int64_t stack_alloc; /* change of the stack depth at this point, bytes */
	int64_t heap_alloc;  /* change of the heap in use at this point, bytes */
};

/*
 * Calibration (paper section 4, constants of section 5.2). Times are nanoseconds; the paper's
 * figures are cycles, `cycles_per_ns` converts. dps_mem_calibration_save() ("dps calibrate
 * --memory") writes the mem.* section of the one calibration file, keeping its cpu.* section.
 */
#define DPS_MEM_CALIBRATION_FORMAT_VERSION 2 /* the calibration file's (dps.h) */

struct dps_mem_calibration {
	int format_version;
	bool measured; /* false: defaults, not this machine */
	uint64_t page_size;
	double cycles_per_ns; /* TSC rate, to state the constants in cycles */
	/* eq. 1: time spent per trace point by the algorithm itself (zero delay, 1-byte stack) */
	double time_basic_ns;
	double time_basic_scv;	   /* its squared coefficient of variation (paper 0.009) */
	double sleep_overshoot_ns; /* median lateness of an absolute-time sleep (the delays
				    * wake this much early) */
	/* eq. 5: realloc of the heap block, with / without a page fault (paper: 3722 / 94 cy) */
	double heap_alloc_fault_ns;
	double heap_alloc_nofault_ns;
	/* eq. 6: distmemset of new heap memory: iter * (pf + 1) + fault * (pf - 1) (69 / 3252 cy)
	 */
	double heap_use_iter_ns;
	double heap_use_fault_ns;
	/*
	 * eq. 7-8: alloca (paper: 48 cy), and distmemset of the new stack: base + fault * pf
	 * (61 / 3358 cy). Here the first call made on the new stack region (the frame's helper)
	 * takes the first page fault, like realloc does for the heap in eq. 5: alloc costs
	 * stack_alloc_fault_ns when pf > 0 and use counts pf - 1 faults.
	 */
	double stack_alloc_ns;
	double stack_alloc_fault_ns;
	double stack_use_base_ns;
	double stack_use_fault_ns;
	/* heap_overhead: what mallinfo2 counts beyond the bytes asked for (allocator chunks) */
	int64_t heap_offset_bytes; /* fixed cost of the stub itself with no heap (paper 32) */
	uint64_t heap_chunk_header_bytes; /* per-block header (glibc x86-64: 8) */
	uint64_t heap_chunk_align_bytes;  /* chunk size granularity (16) */
	uint64_t heap_chunk_min_bytes;	  /* smallest chunk (32) */
	uint64_t heap_mmap_header_bytes;  /* extra bytes of an mmapped block before paging */
	uint64_t heap_model_misses;	  /* sizes of the calibration sweep the model got wrong */
	bool heap_tcache;		  /* freed small chunks stay counted (glibc tcache on) */
	/* stack_offset / stack_overhead: the stub's own stack (paper 216 / 64 bytes) */
	int64_t stack_offset_bytes;	  /* depth of the stub's frames at stack level 0 */
	int64_t stack_overhead_bytes;	  /* per recursion frame, beyond the alloca'd bytes */
	uint64_t stack_align_bytes;	  /* alloca granularity */
	int64_t stack_alloca_extra_bytes; /* alloca(a) moves the stack by
					   * align_up(a + extra, align) */
};

/* Deterministic values for tests, the paper's constants converted at 2.4 GHz. */
void dps_mem_calibration_default(struct dps_mem_calibration *cal);
/*
 * The calibration functions: runs the stub on the paper's calibration tables (zero delay;
 * 1-byte stack for time_basic; rising heap; rising stack in fresh threads so pages fault) and
 * fits the models. quick = the byte and stack model only (milliseconds; the time model is then
 * zero: no time compensation); otherwise about a second.
 * Returns 0 or a negative dps_status.
 */
int dps_mem_calibration_measure(struct dps_mem_calibration *cal, bool quick);
/* Byte overheads only, measured once per process (thread-safe); used by the stubs. */
const struct dps_mem_calibration *dps_mem_calibration_borrow(void);
int dps_mem_calibration_write(const struct dps_mem_calibration *cal, FILE *out);
int dps_mem_calibration_save(const struct dps_mem_calibration *cal, const char *path, char *err,
			     size_t errlen);
/* Unknown keys and bad numbers are errors naming "file:line: what was expected". */
int dps_mem_calibration_load(const char *path, struct dps_mem_calibration *cal, char *err,
			     size_t errlen);

/* eq. 4: page faults when x new bytes follow y bytes already in the segment. */
uint64_t dps_mem_pagefaults(const struct dps_mem_calibration *cal, uint64_t x, uint64_t y);
/* eq. 1-3 (+5-8): predicted time the stub spends at a point that grows the heap block from
 * heap_y by heap_x and the stack from stack_y by stack_x bytes (negative changes cost 0). */
double dps_mem_time_overhead_ns(const struct dps_mem_calibration *cal, int64_t heap_x,
				uint64_t heap_y, int64_t stack_x, uint64_t stack_y);
/* heap_overhead: bytes mallinfo2 counts for one block of `size` bytes beyond `size`. */
int64_t dps_mem_heap_overhead(const struct dps_mem_calibration *cal, uint64_t size, bool mmapped);

/*
 * Compensation for a table meant for a player whose delays are plain sleeps: every delay is
 * shortened by the predicted overhead of the point it precedes (eqs. 1-8), a shortfall is
 * carried to the next delays. out may equal in. dps_mem_stub_play() does the same on its
 * absolute schedule when opts->compensate is set.
 */
void dps_mem_compensate(const struct dps_mem_calibration *cal, const struct dps_mem_alloc *in,
			size_t n, struct dps_mem_alloc *out);

/*
 * Measurement (the paper's PMF): the stack pointer read inline, and the heap in use as the
 * allocator counts it (mallinfo2 uordblks + hblkhd; under ASan, its allocated-bytes counter).
 */
static inline uintptr_t dps_mem_stack_pointer(void)
{
	uintptr_t sp;

#if defined(__x86_64__)
	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
	__asm__ volatile("mov %0, sp" : "=r"(sp));
#else
	sp = (uintptr_t)__builtin_frame_address(0);
#endif
	return sp;
}

struct dps_mem_heap_info {
	int64_t in_use_bytes;	/* uordblks + hblkhd */
	int64_t mmapped_blocks; /* hblks */
};
void dps_mem_heap_info(struct dps_mem_heap_info *info);

/* One trace point as replayed, filled when dps_mem_stub_options.samples is set. */
struct dps_mem_sample {
	uint64_t want_ns, t_ns;	       /* desired / actual time of the point since the start */
	int64_t heap_want, heap_raw;   /* desired heap; mallinfo2 change since the start */
	int64_t heap_got;	       /* heap_raw minus the calibrated heap_overhead */
	int64_t stack_want, stack_raw; /* desired depth; stack-pointer depth since the start */
	int64_t stack_got;	       /* stack_raw minus the calibrated stack_offset */
};

struct dps_mem_stub_options {
	const struct dps_mem_calibration *cal; /* NULL: dps_mem_calibration_borrow() */
	bool compensate;		       /* shift points by their predicted time overhead */
	uint64_t spin_ns;		/* busy-wait the last spin_ns of every delay (0: sleep) */
	struct dps_mem_sample *samples; /* NULL or n entries: measure at every point */
	/* called at every point once its changes are in effect; sp = the stub's stack pointer */
	void (*probe)(void *arg, size_t i, uintptr_t sp);
	void *probe_arg;
};

struct dps_mem_stub_result {
	uint64_t want_ns;	       /* sum of the delays */
	uint64_t actual_ns;	       /* start to the last point done */
	int64_t heap_peak, stack_peak; /* desired peaks, bytes */
	uint64_t frames;	       /* recursion frames created */
};

void dps_mem_stub_options_default(struct dps_mem_stub_options *opts);
/* Checks a table: the heap and the stack never go below zero, no overflow. Returns 0 or
 * DPS_ERR_INVAL with "point N: what" in err. */
int dps_mem_table_check(const struct dps_mem_alloc *table, size_t n, char *err, size_t errlen);
/*
 * Plays the table on the calling thread (Listing 3): delays on an absolute schedule, the heap
 * in one realloc'd block with new pages touched, the stack by recursion with alloca. The heap
 * block is freed at the end. opts and result may be NULL. Returns 0, DPS_ERR_INVAL (bad table),
 * DPS_ERR_RANGE (the stack would not fit the thread's stack) or DPS_ERR_NOMEM.
 */
int dps_mem_stub_play(const struct dps_mem_alloc *table, size_t n,
		      const struct dps_mem_stub_options *opts, struct dps_mem_stub_result *result,
		      char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* DPS_DPS_MEMORY_H */
