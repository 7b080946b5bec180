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

#include <stddef.h>
#include <stdint.h>

#include <dps/dps.h>

struct dps__mem_thread;

/*
 * Plays actions from index i until the end of the list (returns n) or until a DPS_ACT_STACK
 * action (returns its index, without playing it). ctx is the player's per-thread context.
 */
typedef size_t (*dps__play_from_fn)(void *ctx, size_t i);

/* Per-thread memory stub state; begin returns NULL on allocation failure. */
struct dps__mem_thread *dps__mem_thread_begin(void);
/* Releases the heap block; end accepts NULL. */
void dps__mem_thread_end(struct dps__mem_thread *mem);

/* `heap delta`: resize this thread's heap stub by delta bytes. Returns DPS_OK or
 * DPS_ERR_NOMEM (the block is kept as it was). */
int dps__mem_heap(struct dps__mem_thread *mem, int64_t delta);

/*
 * Plays a whole action list that contains stack actions: starts at index i (a stack action),
 * applies it, and uses play_from to run the rest at the right depth. Returns the index where
 * the list ends (n).
 */
size_t dps__mem_stack_play(struct dps__mem_thread *mem, const struct dps_action *actions,
			   size_t n, size_t i, dps__play_from_fn play_from, void *ctx);

#endif /* DPS_RUNTIME_MEMORY_INTERNAL_H */
