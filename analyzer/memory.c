/* SPDX-License-Identifier: MIT */
/*
 * Memory events: heap (lttng_ust_libc malloc/calloc/realloc/memalign/free, by pointer, with
 * the sizes of live allocations in a hash table) and stack (lttng_ust_cyg_profile function
 * entry/exit, with the stack pointer when the probe gives it, else a fixed frame size per call
 * level), turned into per-thread heap and stack curves (memory samples of the timeline).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

void analyzer__add_mem_sample(struct analyzer_core *core, struct athread *t, uint64_t ts)
{
	struct analyzer_mem_sample *m;

	if (t->memory.heap > t->memory.heap_peak) {
		t->memory.heap_peak = t->memory.heap;
	}
	if (t->memory.stack > t->memory.stack_peak) {
		t->memory.stack_peak = t->memory.stack;
	}
	if (!t->tracked) {
		return;
	}
	if (t->tl.n_mem && t->tl.mem[t->tl.n_mem - 1].ts_ns == ts) {
		m = &t->tl.mem[t->tl.n_mem - 1];
	} else {
		if (!analyzer__grow((void **)&t->tl.mem, &t->tl.cap_mem, t->tl.n_mem + 1,
				    sizeof(*t->tl.mem))) {
			analyzer__set_nomem(core);
			return;
		}
		m = &t->tl.mem[t->tl.n_mem++];
	}
	m->ts_ns = ts;
	m->heap_bytes = t->memory.heap;
	m->stack_bytes = t->memory.stack;
	if (core->spill_on && t->tl.n_mem >= core->spill_at) {
		analyzer__spill_mem(core, t);
	}
}

/*
 * Memory: heap in use per thread from the libc wrapper, stack depth from dps_stack's sp or
 * lttng_ust_cyg_profile's call depth.
 */
static void heap_add(struct analyzer_core *core, struct athread *t, uint64_t ptr, uint64_t size,
		     uint64_t ts)
{
	struct alloc_info *ai;

	if (!ptr) {
		return;
	}
	ai = g_hash_table_lookup(core->allocs, GSIZE_TO_POINTER(ptr));
	if (ai) {
		/* Reused without a free we saw: replace it. */
		t->memory.heap -= (int64_t)ai->size;
		ai->size = size;
	} else {
		ai = malloc(sizeof(*ai));
		if (!ai) {
			analyzer__set_nomem(core);
			return;
		}
		ai->size = size;
		g_hash_table_insert(core->allocs, GSIZE_TO_POINTER(ptr), ai);
	}
	t->memory.heap += (int64_t)size;
	t->memory.n_allocs++;
	analyzer__add_mem_sample(core, t, ts);
}

static void heap_free(struct analyzer_core *core, struct athread *t, uint64_t ptr, uint64_t ts,
		      bool count)
{
	struct alloc_info *ai;

	if (count) {
		t->memory.n_frees++;
	}
	if (!ptr) {
		t->memory.n_free_null++;
		return;
	}
	ai = g_hash_table_lookup(core->allocs, GSIZE_TO_POINTER(ptr));
	if (!ai) {
		t->memory.n_free_unknown++;
		return;
	}
	t->memory.heap -= (int64_t)ai->size;
	g_hash_table_remove(core->allocs, GSIZE_TO_POINTER(ptr));
	analyzer__add_mem_sample(core, t, ts);
}

void analyzer__on_memory(struct analyzer_core *core, const struct analyzer_event *ev, size_t x)
{
	struct athread *t = analyzer__thread_at(core, x);
	uint64_t sp;

	switch (ev->kind) {
	case ANALYZER_EV_ALLOC:
		if (core->seen_dps_heap) {
			return;
		}
		heap_add(core, t, (uint64_t)ev->alloc.ptr, (uint64_t)ev->alloc.size_bytes, ev->ts);
		break;
	case ANALYZER_EV_FREE:
		if (core->seen_dps_heap) {
			return;
		}
		heap_free(core, t, (uint64_t)ev->free.ptr, ev->ts, true);
		break;
	case ANALYZER_EV_REALLOC:
		if (core->seen_dps_heap) {
			return;
		}
		if (ev->realloc.in_ptr) {
			heap_free(core, t, (uint64_t)ev->realloc.in_ptr, ev->ts, false);
		}
		if (ev->realloc.ptr) {
			heap_add(core, t, (uint64_t)ev->realloc.ptr,
				 (uint64_t)ev->realloc.size_bytes, ev->ts);
		}
		break;
	case ANALYZER_EV_FUNC_ENTRY:
	case ANALYZER_EV_FUNC_EXIT:
		if (core->seen_dps_stack) {
			return;
		}
		if (ev->flags & ANALYZER_EVF_HAS_SP) {
			sp = (uint64_t)ev->func.sp;
			if (sp > t->memory.sp_base) {
				/* The first sp is the shallowest we know; a higher one moves the
				 * base (depth measured from it). */
				t->memory.sp_base = sp;
			}
			t->memory.stack = (int64_t)(t->memory.sp_base - sp);
		} else {
			t->memory.cyg_depth += ev->kind == ANALYZER_EV_FUNC_ENTRY ? 1 : -1;
			if (t->memory.cyg_depth < 0) {
				t->memory.cyg_depth = 0;
			}
			t->memory.stack = t->memory.cyg_depth * ANALYZER_CYG_FRAME_BYTES;
		}
		analyzer__add_mem_sample(core, t, ev->ts);
		break;
	default:
		break;
	}
}
