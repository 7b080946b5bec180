/* SPDX-License-Identifier: MIT */
/* Player internals the tests reach: fault injection for the thread-creation failure path. */
#ifndef DPS_RUNTIME_PLAYER_INTERNAL_H
#define DPS_RUNTIME_PLAYER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <dps/dps.h>

/* Makes the nth pthread_create (1-based, counted per dps_play) of later plays fail with
 * EAGAIN; 0 turns it off. Not thread-safe; for tests only. */
void dps__player_fail_create_at(size_t n);

/* One item of a task queue (player-tasks.c): the stretch of its recorded taker's actions that
 * is its work, [begin, end) in prog->threads[owner].actions; last: the taker's last take (its
 * share ended there). */
struct dps__task_item {
	uint32_t owner;
	bool last;
	size_t begin, end;
};

/* The items of prog's task queue o (objects[o].order), n_order of them, into *items (malloc'd,
 * the caller's). Returns DPS_OK; DPS_ERR_INVAL when the takers listed do not match the
 * threads' takes of the queue, or an item's stretch holds an action another thread cannot
 * play for its taker (one naming a thread, a memory action, a take of a task queue);
 * DPS_ERR_NOMEM. */
int dps__task_items(const struct dps_program *prog, size_t o, struct dps__task_item **items);

#endif /* DPS_RUNTIME_PLAYER_INTERNAL_H */
