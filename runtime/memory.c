/* SPDX-License-Identifier: MIT */
/*
 * Main-memory stubs (memory-stub paper, Listings 1-3).
 *
 * Heap: one block per thread, resized with realloc; only the newly obtained memory is touched,
 * one write per page (the paper's distmemset with the total passed in), so the pages are really
 * backed and already-used ones cost nothing again.
 *
 * Stack: a rising edge is a recursive call that alloca's the rise and touches the new pages;
 * the points after it are played at that depth (constant stack, Listing 2) until a trailing
 * edge returns. Two things go beyond the paper's listing because real curves need them:
 * - compensation is live: a frame reads its own stack pointer after its prologue and alloca's
 *   only what is still missing to the desired depth, so the frame's own overhead (the paper's
 *   stack_overhead) and the stub's set-up (stack_offset) are not added on top of the curve;
 * - a fall does not have to mirror a rise: frames are left while the desired depth is below
 *   them, and a partial fall inside a frame either stays (error = what is left) or leaves and
 *   regrows a smaller frame, whichever the calibrated frame size says is closer.
 *
 * The same recursion serves the data-table stub (dps_mem_stub_play) and the action player
 * (dps__mem_stack_play): a "walk" gives it the points one by one.
 */
#include <alloca.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
/* From libasan (sanitizer/allocator_interface.h, not always installed). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#include "memory-internal.h"

struct mem_walk;
struct mem_level;

/* One allocation of the allocation-faithful heap mode. */
struct mem_block {
	char *p; /* owned */
	size_t size;
};

struct dps__mem_thread {
	char *heap;	  /* the heap stub's block (owned), NULL when empty */
	size_t heap_size; /* bytes the stub currently holds */
	/* allocation-faithful mode (DPS_HEAP_ALLOC): the live blocks, oldest first */
	bool alloc_mode;
	struct mem_block *blocks; /* owned, each block owned */
	size_t n_blocks, cap_blocks;
	int status;	  /* DPS_ERR_RANGE once a frame had to be capped */
	size_t capped_at; /* the first capped point (SIZE_MAX: none) */
	/* stack replay */
	int64_t target;	       /* desired depth, sum of the stack changes */
	uintptr_t root_sp;     /* stack pointer of depth 0 */
	uintptr_t stack_limit; /* lowest stack pointer a frame may reach */
	uintptr_t stack_low;   /* lowest stack address touched so far */
	uint64_t frames;
	dps__stack_done_fn notify;
	/* the player's walk */
	const struct dps_action *actions; /* borrowed: the list being played */
	dps__play_from_fn play_from;
	void *ctx;
};

/* A source of trace points for the recursion. */
struct mem_walk {
	struct dps__mem_thread *mem;
	const struct dps_mem_calibration *cal;
	size_t n;
	bool raw;			    /* paper's uncompensated stack (calibration) */
	struct dps__mem_point_times *times; /* NULL or n entries */
	struct mem_level *levels;	    /* the recursion's levels, [0] = root (mapped) */
	size_t levels_len;
	size_t level;	 /* current level */
	uint64_t t_mark; /* timing (calibration) */
	/* plays points from i until one that changes the stack; returns its index or n */
	size_t (*next)(struct mem_walk *w, size_t i);
	int64_t (*delta)(struct mem_walk *w, size_t i);
	/* point i is in effect at stack pointer sp */
	void (*done)(struct mem_walk *w, size_t i, uintptr_t sp);
};

static size_t get_page_size(void)
{
	static size_t size;

	if (!size) {
		long s = sysconf(_SC_PAGESIZE);

		size = s > 0 ? (size_t)s : 4096;
	}
	return size;
}

/*
 * The paper's distmemset: one write per page of [p + from, p + to), the part of the block that
 * is new; bytes before `from` were touched when they were obtained.
 */
static void distmemset(volatile char *p, size_t from, size_t to)
{
	size_t step = get_page_size();
	size_t off;

	if (from >= to) {
		return;
	}
	p[from] = 'a';
	off = (from / step + 1) * step;
	/* Page boundaries are relative to the block, which is close enough: one write per page
	 * of the new range is what matters, not which byte of it. */
	for (; off < to; off += step) {
		p[off] = 'a';
	}
}

void dps_mem_heap_info(struct dps_mem_heap_info *info)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's allocator replaces glibc's, whose mallinfo2 would then never move. */
	info->in_use_bytes = (int64_t)__sanitizer_get_current_allocated_bytes();
	info->mmapped_blocks = 0;
#else
	struct mallinfo2 mi = mallinfo2();

	info->in_use_bytes = (int64_t)(mi.uordblks + mi.hblkhd);
	info->mmapped_blocks = (int64_t)mi.hblks;
#endif
}

struct dps__mem_thread *dps__mem_thread_begin(bool alloc_mode)
{
	struct dps__mem_thread *mem;

	/* The first memory thread measures the byte and stack model (a few ms) here, at its
	 * start, rather than in the middle of its curve. */
	dps_mem_calibration_borrow();
	mem = calloc(1, sizeof(*mem));
	if (mem) {
		mem->alloc_mode = alloc_mode;
		mem->capped_at = SIZE_MAX;
	}
	return mem;
}

void dps__mem_thread_end(struct dps__mem_thread *mem)
{
	if (!mem) {
		return;
	}
	free(mem->heap);
	for (size_t i = 0; i < mem->n_blocks; i++) {
		free(mem->blocks[i].p);
	}
	free(mem->blocks);
	free(mem);
}

uint64_t dps__mem_heap_size(const struct dps__mem_thread *mem)
{
	return mem->heap_size;
}

int64_t dps__mem_stack_depth(const struct dps__mem_thread *mem)
{
	return mem->target;
}

int dps__mem_status(const struct dps__mem_thread *mem)
{
	return mem->status;
}

size_t dps__mem_capped_at(const struct dps__mem_thread *mem)
{
	return mem->capped_at;
}

uint64_t dps__mem_stack_room(const struct dps__mem_thread *mem)
{
	return mem->root_sp > mem->stack_limit ? mem->root_sp - mem->stack_limit : 0;
}

void dps__mem_set_stack_notify(struct dps__mem_thread *mem, dps__stack_done_fn fn)
{
	mem->notify = fn;
}

/*
 * glibc hands out a free chunk whole when what would be left of it is too small to be a chunk,
 * and realloc keeps such a tail: the block is then up to one minimum chunk bigger than the
 * calibrated heap_overhead says, depending on the heap's history. Moving the block to a chunk
 * of the calibrated size keeps the heap in use exact. The misfits are held until a fit is
 * found so that they are not handed out again. Returns the block (maybe moved).
 */
#define FIT_TRIES 4

static char *fit_block(const struct dps_mem_calibration *cal, char *block, size_t size)
{
	size_t want =
	    (size_t)dps_mem_heap_overhead(cal, size, false) + size - cal->heap_chunk_header_bytes;
	char *misfit[FIT_TRIES];
	size_t n = 0;

	/* header 0: an allocator with no chunk slack (ASan) */
	while (cal->heap_chunk_header_bytes && n < FIT_TRIES) {
		size_t have = malloc_usable_size(block);
		char *fresh;

		if (have <= want || have >= want + cal->heap_chunk_min_bytes) {
			/* exact, or not the whole-chunk case (an mmapped block) */
			break;
		}
		fresh = malloc(size);
		if (!fresh) {
			break;
		}
		memcpy(fresh, block, size);
		misfit[n++] = block;
		block = fresh;
	}
	for (size_t i = 0; i < n; i++) {
		free(misfit[i]);
	}
	return block;
}

/* Heap change with the two parts of time_heap timed separately when asked (calibration). */
static int resize_heap(struct dps__mem_thread *mem, const struct dps_mem_calibration *cal,
		       int64_t delta, struct dps__mem_point_times *tm)
{
	size_t old = mem->heap_size;
	size_t new_size;
	uint64_t t0 = 0;
	int ret = DPS_OK;
	char *block;

	if (delta == 0) {
		goto end;
	}
	if (delta < 0 && (uint64_t)-delta >= old) {
		free(mem->heap);
		mem->heap = NULL;
		mem->heap_size = 0;
		goto end;
	}
	new_size = old + (size_t)delta;
	if (tm) {
		t0 = dps__now_ns();
	}
	block = realloc(mem->heap, new_size);
	if (!block) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	block = fit_block(cal, block, new_size);
	if (tm) {
		uint64_t t1 = dps__now_ns();

		tm->heap_alloc_ns = t1 - t0;
		t0 = t1;
	}
	if (new_size > old) {
		distmemset(block, old, new_size);
	}
	if (tm) {
		tm->heap_use_ns = dps__now_ns() - t0;
	}
	mem->heap = block;
	mem->heap_size = new_size;
end:
	return ret;
}

/* DPS_HEAP_ALLOC, heap +size: a block of its own, its pages touched as the curve's are. */
static int alloc_block(struct dps__mem_thread *mem, size_t size)
{
	char *p;

	if (mem->n_blocks == mem->cap_blocks) {
		size_t cap = mem->cap_blocks ? 2 * mem->cap_blocks : 64;
		struct mem_block *b = realloc(mem->blocks, cap * sizeof(*b));

		if (!b) {
			return DPS_ERR_NOMEM;
		}
		mem->blocks = b;
		mem->cap_blocks = cap;
	}
	p = malloc(size);
	if (!p) {
		return DPS_ERR_NOMEM;
	}
	distmemset(p, 0, size);
	mem->blocks[mem->n_blocks++] = (struct mem_block){.p = p, .size = size};
	mem->heap_size += size;
	return DPS_OK;
}

/*
 * DPS_HEAP_ALLOC, heap -size: the most recent live block of exactly that size (a free of a
 * recorded allocation); without one (the set's deltas came from a realloc), the most recent
 * blocks until size bytes are gone, the last of them shrunk with realloc if it is bigger.
 */
static int free_blocks(struct dps__mem_thread *mem, size_t size)
{
	size_t i = mem->n_blocks;

	while (i > 0 && mem->blocks[i - 1].size != size) {
		i--;
	}
	if (i > 0) {
		free(mem->blocks[i - 1].p);
		memmove(&mem->blocks[i - 1], &mem->blocks[i],
			(mem->n_blocks - i) * sizeof(mem->blocks[0]));
		mem->n_blocks--;
		mem->heap_size -= size;
		return DPS_OK;
	}
	while (size && mem->n_blocks) {
		struct mem_block *b = &mem->blocks[mem->n_blocks - 1];

		if (b->size <= size) {
			size -= b->size;
			mem->heap_size -= b->size;
			free(b->p);
			mem->n_blocks--;
		} else {
			char *p = realloc(b->p, b->size - size);

			if (!p) {
				return DPS_ERR_NOMEM;
			}
			b->p = p;
			b->size -= size;
			mem->heap_size -= size;
			size = 0;
		}
	}
	return DPS_OK;
}

int dps__mem_heap(struct dps__mem_thread *mem, int64_t delta)
{
	if (mem->alloc_mode) {
		if (delta > 0) {
			return alloc_block(mem, (size_t)delta);
		}
		return delta < 0 ? free_blocks(mem, (size_t)-delta) : DPS_OK;
	}
	return resize_heap(mem, dps_mem_calibration_borrow(), delta, NULL);
}

/* Bytes the stack pointer moves for alloca(a), a > 0 (calibrated granularity). */
static int64_t predict_alloca_bytes(const struct dps_mem_calibration *cal, int64_t a)
{
	int64_t align = cal->stack_align_bytes ? (int64_t)cal->stack_align_bytes : 16;

	return (a + cal->stack_alloca_extra_bytes + align - 1) / align * align;
}

/* The alloca argument that brings the depth closest to `gap` bytes deeper (0 = none). */
static int64_t choose_alloca(const struct dps_mem_calibration *cal, int64_t gap)
{
	int64_t align = cal->stack_align_bytes ? (int64_t)cal->stack_align_bytes : 16;
	int64_t a = 0;

	if (gap <= 0) {
		goto end;
	}
	a = (gap + align / 2) / align * align - cal->stack_alloca_extra_bytes;
	if (a < 1) {
		a = 1;
	}
	while (a > align && predict_alloca_bytes(cal, a) > gap + align / 2) {
		a -= align;
	}
	if (llabs(predict_alloca_bytes(cal, a) - gap) >= gap) {
		a = 0; /* no alloca is closer */
	}
end:
	return a;
}

/* Depth error of a new frame started `gap` bytes below the current level. */
static int64_t predict_child_error(const struct dps_mem_calibration *cal, int64_t gap)
{
	int64_t over = cal->stack_overhead_bytes;
	int64_t a = gap > over ? choose_alloca(cal, gap - over) : 0;

	return llabs(over + (a ? predict_alloca_bytes(cal, a) : 0) - gap);
}

/* One level of the recursion; kept out of the frames so that a frame is as small as it can be
 * (its size is the paper's stack_overhead, the smallest rise the stub can draw). */
struct mem_level {
	int64_t base; /* depth of the level below (INT64_MIN at the root) */
	int64_t top;  /* depth of this level */
	uintptr_t sp; /* its stack pointer */
};

enum mem_step { STEP_STAY, STEP_RISE, STEP_LEAVE };

/*
 * What point j (already added to mem->target) asks of the current level: stay and be done
 * here, rise into a new frame, or leave to the level below. In raw mode depths are desired
 * depths (the paper's algorithm), otherwise real stack-pointer depths and the choice is the
 * one with the smallest error.
 */
static __attribute__((noinline)) enum mem_step decide(struct mem_walk *w, size_t j)
{
	const struct mem_level *lv = &w->levels[w->level];
	int64_t t = w->mem->target;
	int64_t stay = llabs(t - lv->top);
	bool above_root = lv->base != INT64_MIN;
	enum mem_step step = STEP_STAY;

	if (w->raw) {
		if (w->delta(w, j) > 0 && t > lv->top) {
			step = STEP_RISE;
		} else if (t < lv->top && above_root) {
			step = STEP_LEAVE;
		}
	} else if (t > lv->top) {
		if (predict_child_error(w->cal, t - lv->top) < stay) {
			step = STEP_RISE;
		}
	} else if (t < lv->top && above_root) {
		int64_t up = t - lv->base;

		if (up <= 0) {
			step = STEP_LEAVE;
		} else {
			int64_t regrow = predict_child_error(w->cal, up);

			if ((up < regrow ? up : regrow) < stay) {
				step = STEP_LEAVE;
			}
		}
	}
	return step;
}

static size_t grow_stack_frame(struct mem_walk *w, size_t j);

/*
 * Plays points from i at the current level (Listing 3's loop, with Listing 2's constant-stack
 * points inside w->next). Returns n at the end, or the index of a point, already added to
 * mem->target but not done, whose depth lies below this level: the level below resolves it.
 */
static inline __attribute__((always_inline)) size_t walk_level(struct mem_walk *w, size_t i)
{
	/* Returns from inside the loops on purpose: this is inlined into every recursion frame,
	 * and a result variable kept across the calls costs a register, i.e. 16 bytes of every
	 * frame, which is the smallest rise the stub can draw. */
	for (;;) {
		size_t j = w->next(w, i);

		if (j >= w->n) {
			return w->n;
		}
		w->mem->target += w->delta(w, j);
		for (;;) {
			enum mem_step step = decide(w, j);

			if (step == STEP_RISE) {
				j = grow_stack_frame(w, j);
				if (j >= w->n) {
					return w->n;
				}
				continue;
			}
			if (step == STEP_LEAVE) {
				return j;
			}
			w->done(w, j, w->levels[w->level].sp);
			break;
		}
		i = j + 1;
	}
}

/* The alloca argument of a new frame whose prologue left the stack pointer at sp. */
static __attribute__((noinline)) int64_t compute_frame_alloca(struct mem_walk *w, size_t j,
							      uintptr_t sp)
{
	struct dps__mem_thread *mem = w->mem;
	int64_t a;

	if (w->raw) {
		a = w->delta(w, j);
	} else {
		a = choose_alloca(w->cal, mem->target - (int64_t)(mem->root_sp - sp));
	}
	/* Compared as the room left (sp is above the limit): sp minus a frame larger than the
	 * address would wrap and pass a "below the limit" test. */
	if (a > 0 && (a > INT64_MAX / 4 || (uint64_t)predict_alloca_bytes(w->cal, a) >=
					       (uint64_t)(sp - mem->stack_limit))) {
		/* The thread's stack cannot hold the curve: cap it rather than crash. */
		mem->status = DPS_ERR_RANGE;
		mem->capped_at = mem->capped_at == SIZE_MAX ? j : mem->capped_at;
		a = 0;
	}
	if (w->times) {
		w->times[j].alloca_bytes = (int64_t)sp;
		w->t_mark = dps__now_ns();
	}
	return a;
}

/* A new frame is in place: touch its new pages, push its level, and do point j there. */
static __attribute__((noinline)) void enter_frame(struct mem_walk *w, size_t j, volatile char *area,
						  int64_t a, uintptr_t sp)
{
	struct dps__mem_thread *mem = w->mem;
	struct dps__mem_point_times *tm = w->times ? &w->times[j] : NULL;
	const struct mem_level *below = &w->levels[w->level];
	struct mem_level *lv;
	uint64_t t0 = 0;

	if (tm) {
		t0 = dps__now_ns();
		tm->stack_alloc_ns = t0 - w->t_mark;
		/* the stack pointer's move, which is what the depth sees */
		tm->alloca_bytes = area ? tm->alloca_bytes - (int64_t)sp : 0;
	}
	if (area && (uintptr_t)area < mem->stack_low) {
		size_t fresh = mem->stack_low - (uintptr_t)area;

		/* Only the part below what earlier frames touched is new. */
		distmemset(area, 0, fresh < (size_t)a ? fresh : (size_t)a);
		mem->stack_low = (uintptr_t)area;
	}
	if (tm) {
		tm->stack_use_ns = dps__now_ns() - t0;
	}
	mem->frames++;
	lv = &w->levels[++w->level];
	lv->base = below->top;
	lv->top = w->raw ? mem->target : (int64_t)(mem->root_sp - sp);
	lv->sp = sp;
	w->done(w, j, sp);
}

/*
 * One rising edge (Listing 3, allocate()): alloca what is missing to the desired depth and play
 * on at this depth. Returns like walk_level(). Everything but the alloca happens in helpers so
 * that this frame stays small.
 */
static __attribute__((noinline)) size_t grow_stack_frame(struct mem_walk *w, size_t j)
{
	int64_t a = compute_frame_alloca(w, j, dps_mem_stack_pointer());
	volatile char *area = NULL;
	size_t r;

	if (a > 0) {
		area = alloca((size_t)a);
	}
	enter_frame(w, j, area, a, dps_mem_stack_pointer());
	r = walk_level(w, j + 1);
	w->level--;
	return r;
}

static void find_stack_limits(struct dps__mem_thread *mem, uintptr_t sp)
{
	pthread_attr_t attr;
	void *addr = NULL;
	size_t size = 0;

	mem->stack_limit = 0;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			mem->stack_limit = (uintptr_t)addr + DPS__STACK_RESERVE_BYTES;
		}
		pthread_attr_destroy(&attr);
	}
	if (!mem->stack_limit || mem->stack_limit >= sp) {
		/* Unknown bounds: allow 1 MiB, less than any default thread stack. */
		mem->stack_limit = sp - 1024 * 1024;
	}
}

/*
 * Before the clock starts: the levels live in an anonymous mapping, not the heap, so that they
 * never show in the heap curve being replayed; the stack bounds cost a /proc read on the main
 * thread. Returns DPS_OK or DPS_ERR_NOMEM.
 */
static int walk_prepare(struct mem_walk *w, size_t max_frames)
{
	size_t len = (max_frames + 2) * sizeof(struct mem_level);
	int ret = DPS_OK;
	void *map;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (map == MAP_FAILED) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	w->levels = map;
	w->levels_len = len;
	find_stack_limits(w->mem, dps_mem_stack_pointer());
end:
	return ret;
}

static void walk_finish(struct mem_walk *w)
{
	if (w->levels) {
		munmap(w->levels, w->levels_len);
		w->levels = NULL;
	}
}

/* The root level: depth 0 is this function's stack pointer. */
static __attribute__((noinline)) void walk_root(struct mem_walk *w, size_t i)
{
	uintptr_t sp = dps_mem_stack_pointer();

	w->mem->root_sp = sp;
	w->mem->stack_low = sp;
	w->level = 0;
	w->levels[0] = (struct mem_level){.base = INT64_MIN, .top = 0, .sp = sp};
	walk_level(w, i);
}

/*
 * The player's walk: its actions between stack actions are played by its own callback.
 */
static size_t play_player_next(struct mem_walk *w, size_t i)
{
	return w->mem->play_from(w->mem->ctx, i);
}

/* A stack change from the player's actions, held to the set's limit (the validator refuses a
 * larger one): the running depth target stays far from int64 overflow whatever a hand-made
 * table holds. */
static int64_t get_player_delta(struct mem_walk *w, size_t i)
{
	const int64_t max = DPS_ACTION_MAX_STACK_BYTES;
	int64_t d = w->mem->actions[i].arg;

	return d > max ? max : d < -max ? -max : d;
}

static void finish_player_point(struct mem_walk *w, size_t i, uintptr_t sp)
{
	struct dps__mem_thread *mem = w->mem;

	if (mem->notify) {
		mem->notify(mem->ctx, i, mem->target, (int64_t)(mem->root_sp - sp));
	}
}

size_t dps__mem_stack_play(struct dps__mem_thread *mem, const struct dps_action *actions, size_t n,
			   size_t i, dps__play_from_fn play_from, void *ctx)
{
	struct mem_walk w = {
	    .mem = mem,
	    .cal = dps_mem_calibration_borrow(),
	    .n = n,
	    .next = play_player_next,
	    .delta = get_player_delta,
	    .done = finish_player_point,
	};
	size_t max_frames = 0;

	mem->actions = actions;
	mem->play_from = play_from;
	mem->ctx = ctx;
	mem->target = 0;
	for (size_t k = i; k < n; k++) {
		max_frames += actions[k].kind == DPS_ACT_STACK && actions[k].arg;
	}
	if (walk_prepare(&w, max_frames) == DPS_OK) {
		walk_root(&w, i);
		walk_finish(&w);
	} else {
		/* No room for the levels: play the rest flat rather than not at all. */
		mem->status = DPS_ERR_NOMEM;
		for (size_t k = i; k < n; k = play_from(ctx, k + 1)) {
		}
	}
	return n;
}

/*
 * The data-table stub (Listing 1 tables).
 */
struct table_walk {
	struct mem_walk w; /* first: the callbacks get it */
	const struct dps_mem_alloc *tab;
	const struct dps_mem_stub_options *opts;
	uint64_t t0;
	uint64_t want_ns; /* desired time of the current point */
	uint64_t last_ns; /* time the last point was done */
	int64_t heap_want;
	uintptr_t user_sp;
	struct dps_mem_heap_info heap0;
	int status;
	struct dps_mem_stub_result res;
};

/*
 * Waits until the absolute deadline: sleeping, then spinning for the last spin_ns. Without
 * spinning the sleep ends `early` ns before the deadline, the calibrated median lateness of a
 * wake-up, so that the points land on time on average.
 */
static void wait_until(uint64_t deadline, uint64_t spin_ns, uint64_t early)
{
	uint64_t now = dps__now_ns();

	if (now >= deadline) {
		return;
	}
	if (!spin_ns) {
		deadline = deadline - now > early ? deadline - early : now;
	}
	if (deadline - now > spin_ns) {
		uint64_t wake = deadline - spin_ns;
		struct timespec ts = {
		    .tv_sec = (time_t)(wake / 1000000000u),
		    .tv_nsec = (long)(wake % 1000000000u),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
		}
	}
	while (dps__now_ns() < deadline) {
		__asm__ volatile("" ::: "memory");
	}
}

/*
 * Delay before point i, on an absolute schedule so that the stub's own time never adds up
 * over the points; with compensation the point starts early by its predicted overhead.
 */
static void wait_table_delay(struct table_walk *tw, size_t i)
{
	const struct dps_mem_alloc *p = &tw->tab[i];
	uint64_t deadline;

	tw->want_ns += p->time_ns;
	if (!p->time_ns && !tw->opts->compensate) {
		return;
	}
	deadline = tw->t0 + tw->want_ns;
	if (tw->opts->compensate) {
		double over = dps_mem_time_overhead_ns(
		    tw->w.cal, p->heap_alloc, tw->w.mem->heap_size, p->stack_alloc,
		    (uint64_t)(tw->w.mem->target > 0 ? tw->w.mem->target : 0));
		uint64_t early = over > 0 ? (uint64_t)over : 0;

		deadline = deadline > early ? deadline - early : 0;
	}
	wait_until(deadline, tw->opts->spin_ns,
		   tw->opts->compensate && tw->w.cal->sleep_overshoot_ns > 0
		       ? (uint64_t)tw->w.cal->sleep_overshoot_ns
		       : 0);
}

static void finish_table_point(struct mem_walk *w, size_t i, uintptr_t sp)
{
	struct table_walk *tw = (struct table_walk *)w;
	const struct dps_mem_alloc *p = &tw->tab[i];
	struct dps__mem_point_times *tm = w->times ? &w->times[i] : NULL;
	struct dps_mem_sample *s;
	int ret;

	ret = resize_heap(w->mem, w->cal, p->heap_alloc, tm);
	if (ret && !tw->status) {
		tw->status = ret;
	}
	tw->heap_want += p->heap_alloc;
	if (tw->heap_want < 0) {
		tw->heap_want = 0;
	}
	tw->last_ns = dps__now_ns();
	if (tm) {
		tm->sp = sp;
	}
	if (tw->heap_want > tw->res.heap_peak) {
		tw->res.heap_peak = tw->heap_want;
	}
	if (w->mem->target > tw->res.stack_peak) {
		tw->res.stack_peak = w->mem->target;
	}
	s = tw->opts->samples ? &tw->opts->samples[i] : NULL;
	if (s) {
		struct dps_mem_heap_info hi;
		bool mmapped;

		dps_mem_heap_info(&hi);
		mmapped = hi.mmapped_blocks > tw->heap0.mmapped_blocks;
		s->want_ns = tw->want_ns;
		s->t_ns = tw->last_ns - tw->t0;
		s->heap_want = tw->heap_want;
		s->heap_raw = hi.in_use_bytes - tw->heap0.in_use_bytes;
		s->heap_got = s->heap_raw - w->cal->heap_offset_bytes -
			      dps_mem_heap_overhead(w->cal, (uint64_t)tw->heap_want, mmapped);
		s->stack_want = w->mem->target;
		s->stack_raw = (int64_t)(tw->user_sp - sp);
		s->stack_got = s->stack_raw - w->cal->stack_offset_bytes;
	}
	if (tw->opts->probe) {
		tw->opts->probe(tw->opts->probe_arg, i, sp);
	}
}

/* Listing 2 (constantStack): points that leave the stack alone are played at this level. */
static size_t play_table_next(struct mem_walk *w, size_t i)
{
	struct table_walk *tw = (struct table_walk *)w;

	for (; i < w->n; i++) {
		wait_table_delay(tw, i);
		if (tw->tab[i].stack_alloc) {
			break;
		}
		finish_table_point(w, i, w->levels[w->level].sp);
	}
	return i;
}

static int64_t get_table_delta(struct mem_walk *w, size_t i)
{
	return ((struct table_walk *)w)->tab[i].stack_alloc;
}

void dps_mem_stub_options_default(struct dps_mem_stub_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->compensate = true;
}

int dps_mem_table_check(const struct dps_mem_alloc *table, size_t n, char *err, size_t errlen)
{
	const int64_t limit = (int64_t)1 << 46; /* 64 TiB: far beyond any real curve */
	int64_t heap = 0, stack = 0;
	int ret = DPS_OK;

	if (n && !table) {
		snprintf(err, errlen, "no table for %zu points", n);
		ret = DPS_ERR_INVAL;
		n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dps_mem_alloc *p = &table[i];

		if (llabs(p->heap_alloc) > limit || llabs(p->stack_alloc) > limit ||
		    p->time_ns > (uint64_t)limit) {
			snprintf(err, errlen, "point %zu: change or delay out of range (max %lld)",
				 i, (long long)limit);
			ret = DPS_ERR_INVAL;
			break;
		}
		heap += p->heap_alloc;
		stack += p->stack_alloc;
		if (heap < 0 || stack < 0) {
			snprintf(
			    err, errlen,
			    "point %zu: the %s goes below zero (%lld bytes); expected a curve that "
			    "starts at 0 and stays >= 0",
			    i, heap < 0 ? "heap" : "stack", (long long)(heap < 0 ? heap : stack));
			ret = DPS_ERR_INVAL;
			break;
		}
	}
	return ret;
}

int dps__mem_stub_play_internal(const struct dps_mem_alloc *table, size_t n,
				const struct dps_mem_stub_options *opts,
				const struct dps__mem_play_internal *internal,
				struct dps_mem_stub_result *result, char *err, size_t errlen)
{
	struct dps_mem_stub_options defaults;
	struct dps__mem_thread mem = {.capped_at = SIZE_MAX};
	struct table_walk tw = {0};
	size_t max_frames = 0;
	int slack = -1;
	void *warm;
	int ret;

	ret = dps_mem_table_check(table, n, err, errlen);
	if (ret) {
		goto end;
	}
	if (!opts) {
		dps_mem_stub_options_default(&defaults);
		opts = &defaults;
	}
	tw.w.mem = &mem;
	tw.w.cal = opts->cal ? opts->cal : dps_mem_calibration_borrow();
	tw.w.n = n;
	tw.w.raw = internal && internal->raw_stack;
	tw.w.times = internal ? internal->times : NULL;
	tw.w.next = play_table_next;
	tw.w.delta = get_table_delta;
	tw.w.done = finish_table_point;
	tw.tab = table;
	tw.opts = opts;
	/* The thread's first malloc sets up its allocator state: not part of the curve. */
	warm = malloc(1);
	free(warm);
	/* Nanosecond timer slack for the delays; the thread's own value comes back after. */
	slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (size_t k = 0; k < n; k++) {
		max_frames += table[k].stack_alloc != 0;
	}
	ret = walk_prepare(&tw.w, max_frames);
	if (ret) {
		snprintf(err, errlen, "no memory for %zu recursion levels", max_frames);
		goto restore_slack;
	}
	tw.user_sp = dps_mem_stack_pointer();
	dps_mem_heap_info(&tw.heap0);
	tw.t0 = dps__now_ns();
	tw.last_ns = tw.t0;
	walk_root(&tw.w, 0);
	walk_finish(&tw.w);
	tw.res.want_ns = tw.want_ns;
	tw.res.actual_ns = tw.last_ns - tw.t0;
	tw.res.frames = mem.frames;
	free(mem.heap);
	ret = tw.status;
	if (!ret && mem.status) {
		ret = mem.status;
		snprintf(err, errlen,
			 "the stack curve (peak %lld bytes) does not fit the thread's "
			 "stack: capped",
			 (long long)tw.res.stack_peak);
	} else if (ret) {
		snprintf(err, errlen, "cannot grow the heap stub to %lld bytes",
			 (long long)tw.res.heap_peak);
	}
	if (result) {
		*result = tw.res;
	}
restore_slack:
	if (slack > 0) {
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	}
end:
	return ret;
}

int dps_mem_stub_play(const struct dps_mem_alloc *table, size_t n,
		      const struct dps_mem_stub_options *opts, struct dps_mem_stub_result *result,
		      char *err, size_t errlen)
{
	return dps__mem_stub_play_internal(table, n, opts, NULL, result, err, errlen);
}
