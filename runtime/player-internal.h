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

/*
 * How many threads of prog can be alive at once, from its creates and joins alone (no timing):
 * a thread counts from its create until its creator's join of it, or until the end of the play
 * when its creator does not join it (a join by another thread, a join any: not counted as an
 * end). An upper bound: threads that end before their join count until it. 0 when prog has no
 * thread or there is no memory for the count. Linear in the actions (player-limits.c).
 */
size_t dps__program_max_alive(const struct dps_program *prog);

/*
 * Why thread prog->threads[idx] could not be started (pthread_create's err) with alive threads
 * of the play alive, into buf (len bytes, NUL-terminated): the set's dps__program_max_alive, and
 * each system limit (vm.max_map_count, kernel.threads-max, RLIMIT_NPROC, the cgroup's pids.max)
 * that so many threads would cross, or that none would.
 */
void dps__player_describe_create_failure(char *buf, size_t len, const struct dps_program *prog,
					 size_t idx, int err, size_t alive);

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

struct player;
struct slot;
/*
 * The accesses of self's run a when it has cache figures (a->arg2 > 0, format version 4,
 * player-cache.c; else 0, *quiet 0): made on the calling thread by the cache stub, in cpu mode
 * spread over the run up to until, the thread's CPU clock at its end on the budget (the stub's
 * slices, the CPU burnt between them), else before the rest of the run. Returns the CPU time they
 * and the burn between them took, part of the run's; 0 when the stub refused them (the play is then
 * failed at a, with the stub's message). *quiet gets what the accesses cost on a quiet cache with
 * opts.cache_outcome (the run lasts their CPU time over it longer), else their CPU time; the burn's
 * added to it.
 */
uint64_t dps__player_cache(struct player *pl, struct slot *self, const struct dps_action *a,
			   uint64_t until, uint64_t *quiet);
/* With pl->opts.cache_outcome and cache figures in the program: the quiet cache's costs of
 * each footprint they have, measured on the calling thread before any other starts. Returns
 * DPS_OK or the cache stub's status (result->detail says why; result may be NULL). Its end:
 * dps__player_cache_fini. */
int dps__player_cache_init(struct player *pl, struct dps_play_result *result);
/* A cpu-mode run of ns whose accesses took kernel and would take quiet on a quiet cache: ns
 * and what they took over quiet (less what they took under it, down to 0). */
uint64_t dps__player_cache_run_ns(uint64_t ns, uint64_t kernel, uint64_t quiet);
void dps__player_cache_fini(struct player *pl);

#endif /* DPS_RUNTIME_PLAYER_INTERNAL_H */
