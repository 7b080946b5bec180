/* SPDX-License-Identifier: MIT */
/*
 * Main-memory stubs (memory-stub paper, Listings 1-3): the heap stub keeps one block per thread
 * and resizes it with realloc, touching newly obtained pages so that they are really used; the
 * stack stub grows by recursion with alloca and runs the following actions at that depth.
 */
#include <alloca.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memory-internal.h"

struct dps__mem_thread {
	char *heap;		/* the heap stub's block (owned), NULL when empty */
	size_t heap_size;	/* bytes the stub currently holds */
	const struct dps_action *actions;	/* borrowed: the list being played */
	size_t n;
	dps__play_from_fn play_from;
	void *ctx;
};

static size_t page_size(void)
{
	static size_t size;

	if (!size) {
		long s = sysconf(_SC_PAGESIZE);

		size = s > 0 ? (size_t)s : 4096;
	}
	return size;
}

/* Writes one byte per page of [p, p + len) so the kernel really backs it (the paper's distmemset). */
static void touch_pages(volatile char *p, size_t len)
{
	size_t step = page_size();

	for (size_t off = 0; off < len; off += step) {
		p[off] = 1;
	}
	if (len) {
		p[len - 1] = 1;
	}
}

struct dps__mem_thread *dps__mem_thread_begin(void)
{
	return calloc(1, sizeof(struct dps__mem_thread));
}

void dps__mem_thread_end(struct dps__mem_thread *mem)
{
	if (!mem) {
		return;
	}
	free(mem->heap);
	free(mem);
}

int dps__mem_heap(struct dps__mem_thread *mem, int64_t delta)
{
	size_t new_size;
	char *block;

	if (delta < 0 && (uint64_t)-delta >= mem->heap_size) {
		free(mem->heap);
		mem->heap = NULL;
		mem->heap_size = 0;
		return DPS_OK;
	}
	new_size = mem->heap_size + (size_t)delta;
	block = realloc(mem->heap, new_size);
	if (!block) {
		return DPS_ERR_NOMEM;
	}
	if (new_size > mem->heap_size) {
		touch_pages(block + mem->heap_size, new_size - mem->heap_size);
	}
	mem->heap = block;
	mem->heap_size = new_size;
	return DPS_OK;
}

/*
 * One stack frame of `bytes`. Plays actions from i at this depth. A growth starts a child
 * frame; a shrink returns to the caller with *carry = shrink + bytes: negative means the caller
 * must shrink too, positive means the caller must grow a new, smaller child (partial shrink),
 * zero means the caller continues at its own depth. Returns the next index to play.
 */
static size_t stack_frame(struct dps__mem_thread *mem, size_t bytes, size_t i, int64_t *carry)
{
	volatile char *area = alloca(bytes ? bytes : 1);

	touch_pages(area, bytes);
	for (;;) {
		size_t j = mem->play_from(mem->ctx, i);
		int64_t d;

		if (j >= mem->n) {
			*carry = 0;
			return mem->n;
		}
		d = mem->actions[j].arg;
		i = j + 1;
		while (d > 0) {
			i = stack_frame(mem, (size_t)d, i, &d);
			if (i >= mem->n) {
				*carry = 0;
				return mem->n;
			}
		}
		if (d < 0) {
			*carry = d + (int64_t)bytes;
			/* Keep the area alive until here so the compiler cannot drop it. */
			area[0] = 0;
			return i;
		}
	}
}

size_t dps__mem_stack_play(struct dps__mem_thread *mem, const struct dps_action *actions,
			   size_t n, size_t i, dps__play_from_fn play_from, void *ctx)
{
	mem->actions = actions;
	mem->n = n;
	mem->play_from = play_from;
	mem->ctx = ctx;
	while (i < n) {
		int64_t d = actions[i].arg;

		i++;
		while (d > 0 && i < n) {
			i = stack_frame(mem, (size_t)d, i, &d);
		}
		/* d < 0 here: a shrink below the depth where replay started; nothing to unwind. */
		if (i < n) {
			i = play_from(ctx, i);
		}
	}
	return n;
}
