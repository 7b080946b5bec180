/* SPDX-License-Identifier: MIT */
/*
 * The action player's hooks into the main-memory stubs (memory.c). The player (player.c) owns
 * the action loop; memory.c owns the heap block and the recursive stack of each thread.
 *
 * Stack replay needs the player to run *inside* the stub's recursion: a `stack +N` action
 * grows the stack by a recursive call with alloca, and the following actions must run at
 * that depth until a `stack -M` action unwinds. So the player hands memory.c a callback
 * that plays actions from an index and stops at the next stack action.
 */
#ifndef DPS_RUNTIME_MEMORY_INTERNAL_H
#define DPS_RUNTIME_MEMORY_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dps/dps-memory.h>
#include <dps/dps.h>

#include "clock.h"

struct dps__mem_thread;

/* Room left below the deepest frame of the stack stub for the player, tracepoints and
 * syscalls. */
#define DPS__STACK_RESERVE_BYTES (64 * 1024)

/*
 * Plays actions from index i until the end of the list (returns n) or until a DPS_ACT_STACK
 * action (returns its index, without playing it). ctx is the player's per-thread context.
 */
typedef size_t (*dps__play_from_fn)(void *ctx, size_t i);

/*
 * Optional: called when the stack action at index i is in effect (the recursion is at its
 * depth), with the desired depth after it and the real depth of the stub's stack pointer
 * below where dps__mem_stack_play() was entered. For the player's dps:stack event.
 */
typedef void (*dps__stack_done_fn)(void *ctx, size_t i, int64_t depth_bytes,
				   int64_t real_depth_bytes);

/* Per-thread memory stub state; begin returns NULL on allocation failure. */
struct dps__mem_thread *dps__mem_thread_begin(bool alloc_mode);
/* Releases the heap block; end accepts NULL. */
void dps__mem_thread_end(struct dps__mem_thread *mem);

/* `heap delta`: resize this thread's heap stub by delta bytes. Returns DPS_OK or
 * DPS_ERR_NOMEM (the block is kept as it was). A shrink below zero empties the block. */
int dps__mem_heap(struct dps__mem_thread *mem, int64_t delta);
/* Bytes the heap stub holds now. */
uint64_t dps__mem_heap_size(const struct dps__mem_thread *mem);
/* Desired stack depth now (sum of the stack actions played), bytes. */
int64_t dps__mem_stack_depth(const struct dps__mem_thread *mem);
/* DPS_OK, or DPS_ERR_RANGE once a stack action had to be capped to fit the thread's stack. */
int dps__mem_status(const struct dps__mem_thread *mem);
/* The index (in the list dps__mem_stack_play played) of the first stack action that had to be
 * capped, SIZE_MAX when none was; and the bytes the thread's stack held below the depth 0 of
 * its curve. For the message of a DPS_ERR_RANGE. */
size_t dps__mem_capped_at(const struct dps__mem_thread *mem);
uint64_t dps__mem_stack_room(const struct dps__mem_thread *mem);
void dps__mem_set_stack_notify(struct dps__mem_thread *mem, dps__stack_done_fn fn);

/*
 * Plays a whole action list that contains stack actions: starts at index i (a stack action),
 * applies it, and uses play_from to run the rest at the right depth. Returns the index where
 * the list ends (n). The notify callback, if set, gets ctx.
 */
size_t dps__mem_stack_play(struct dps__mem_thread *mem, const struct dps_action *actions, size_t n,
			   size_t i, dps__play_from_fn play_from, void *ctx);

/*
 * The stacks of the player's threads (player-stack.c): a thread whose stack actions go deeper
 * than a default thread stack holds gets one that holds them (the set's limit is
 * DPS_ACTION_MAX_STACK_BYTES), so a curve validation accepted plays uncapped.
 */
/* The stack thread t needs for its stack actions (its deepest depth, the recursion's frames,
 * the player's room below), or 0 when it has no stack action going below depth 0. */
size_t dps__stack_need(const struct dps_thread_desc *t);
/* pthread_create of fn(arg) for thread t: with a stack of dps__stack_need(t) when the
 * default one is smaller. Returns pthread_create's error (0 on success). */
int dps__stack_thread_create(pthread_t *pt, const struct dps_thread_desc *t, void *(*fn)(void *),
			     void *arg);
/* Whether the calling thread's stack, from here, holds thread t's curve. */
bool dps__stack_fits_here(const struct dps_thread_desc *t);

/*
 * For the calibration functions (memcal.c): the stub on a table with per-point timings, and
 * optionally the paper's uncompensated stack (alloca of exactly the asked bytes per rise).
 */
struct dps__mem_point_times {
	uint64_t heap_alloc_ns, heap_use_ns;   /* realloc; distmemset of the new heap */
	uint64_t stack_alloc_ns, stack_use_ns; /* alloca; distmemset of the new stack */
	int64_t alloca_bytes;		       /* stack pointer move of the alloca */
	uintptr_t sp;			       /* stack pointer when the point was done */
};

struct dps__mem_play_internal {
	bool raw_stack;			    /* paper's uncompensated recursion */
	struct dps__mem_point_times *times; /* NULL or n entries */
};

int dps__mem_stub_play_internal(const struct dps_mem_alloc *table, size_t n,
				const struct dps_mem_stub_options *opts,
				const struct dps__mem_play_internal *internal,
				struct dps_mem_stub_result *result, char *err, size_t errlen);

#endif /* DPS_RUNTIME_MEMORY_INTERNAL_H */
