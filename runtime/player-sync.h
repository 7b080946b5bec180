/* SPDX-License-Identifier: MIT */
/*
 * The player's state, shared by its two files: player.c (setting up a play, creating threads,
 * playing each thread's list, the results) and player-sync.c (every action that blocks a
 * thread on another or on an object, the one account of blocked threads, the deadlock check).
 * Both work under the one lock, pl->lock, and read each other's slots: the state is one, the
 * files two only for their length. Not for the tests (player-internal.h is theirs).
 */
#ifndef DPS_RUNTIME_PLAYER_SYNC_H
#define DPS_RUNTIME_PLAYER_SYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dps/dps.h>

#include "memory-internal.h"
#include "player-internal.h"

enum slot_state {
	SLOT_IDLE = 0, /* not created (yet) */
	SLOT_STARTED,  /* playing */
	SLOT_ENDED,    /* played its last action */
	SLOT_FAILED,   /* pthread_create failed */
};

enum slot_block {
	BLOCK_NONE = 0,
	BLOCK_WAIT,	/* block_dep; with a deadline when timed */
	BLOCK_JOIN,	/* block_child */
	BLOCK_WAIT_ANY, /* block_action's members */
	BLOCK_JOIN_ANY, /* block_action's members */
	BLOCK_LOCK,	/* block_obj's owner */
	BLOCK_PUT,	/* block_obj full */
	BLOCK_TAKE,	/* block_obj empty */
	BLOCK_ARRIVE,	/* block_obj's round block_round not complete */
	BLOCK_RDLOCK,	/* block_obj, a rwlock, held for writing */
	BLOCK_WRLOCK,	/* block_obj, a rwlock, held at all */
};

#define NO_SLOT SIZE_MAX

/* How many ended threads nobody has joined yet stay joinable (player.c, keep_ended_locked). */
#define DPS_PLAYER_KEEP_ENDED 64

/* A synchronization object of the program (format version 2). */
struct obj {
	const struct dps_object *desc; /* borrowed: the program's */
	pthread_mutex_t mutex;	       /* a mutex's real mutex */
	size_t owner;		       /* a mutex's holder, a rwlock's writer (NO_SLOT: free),
					* under the lock */
	uint64_t readers;	       /* a rwlock's read holders, under the lock */
	uint64_t count;		       /* a queue's items; a barrier's arrivals this round */
	uint64_t round;		       /* a barrier's completed rounds */
	size_t releaser;	       /* who last did what may unblock the others */
	pthread_cond_t cond;	       /* queue and barrier waiters */
	/* a task queue's items (player-tasks.c; owned, desc->n_order) and how many were taken,
	 * under the lock */
	struct dps__task_item *items;
	uint64_t taken;
};

/* One (waker, sleeper) dependency: wakes given and not yet consumed. */
struct dep {
	size_t sleeper;
	size_t waker;
	uint64_t wakes;
};

struct player;

struct slot {
	struct player *pl; /* borrowed: back pointer for the thread function */
	size_t idx;
	pthread_t pt;
	enum slot_state state;
	bool has_pt; /* pt is a started pthread not yet claimed for joining */
	bool joined; /* some thread has a join action on this one */
	/* threads blocked in a join (or a join any) that may take this one, under the lock: one
	 * that ends with joiners stays joinable, and the first pthread_joins it, as the
	 * recorded join did; one that ends without is kept joinable among the last few such,
	 * then detached (its stack freed for the next thread, not held until a late join) */
	uint32_t joiners;
	enum slot_block block;	     /* what the thread is blocked on, for deadlock checks */
	const struct dep *block_dep; /* borrowed: the dep of a BLOCK_WAIT */
	size_t block_child;	     /* the joinee of a BLOCK_JOIN */
	bool block_timed;	     /* a BLOCK_WAIT with a timeout: never deadlocked */
	/* borrowed: the action the thread is blocked in (every kind: where the deadlock
	 * message says it is written); a BLOCK_WAIT_ANY's and _JOIN_ANY's members */
	const struct dps_action *block_action;
	struct obj *block_obj; /* borrowed: a BLOCK_LOCK's .. _ARRIVE's */
	uint64_t block_round;  /* the barrier round a BLOCK_ARRIVE waits out */
	/* set by its creator before it starts: CLOCK_MONOTONIC at which the recording created it,
	 * counted from the process's start (0: unknown; the thread's tp.lag_origin_ns) */
	uint64_t lag_origin_ns;
	bool reaped;		   /* a join any took this thread */
	pthread_cond_t state_cond; /* joiners wait here for state changes */
	pthread_cond_t wake_cond;  /* the thread itself waits here for wakes */
	/* borrowed: pl->results[idx], written by the thread, read after it ended (what only the
	 * playing thread needs, its scales, budget and memory stubs, is on its own stack:
	 * player.c's struct thread_play) */
	struct dps_thread_result *res;
};

struct player {
	const struct dps_program *prog; /* borrowed */
	struct dps_play_options opts;
	pthread_mutex_t lock;
	struct slot *slots; /* owned, prog->n_threads */
	/* owned until dps_play hands it to its result, prog->n_threads: each thread's figures */
	struct dps_thread_result *results;
	struct dep *deps; /* owned, sorted by (sleeper, waker) */
	size_t n_deps;
	size_t running;		  /* started, not ended, not blocked */
	size_t live;		  /* started (or being created) and not ended */
	pthread_cond_t all_ended; /* signalled when live drops to 0 */
	int aborted;		  /* read without the lock: atomics */
	int error;		  /* first error, under the lock */
	char detail[384];	  /* what the first error was, when more can be said */
	size_t n_created;	  /* pthread_create calls, under the lock (fault injection) */
	uint64_t t0;
	struct obj *objs;  /* owned, prog->n_objects */
	bool has_join_any; /* a thread's end signals the join any waiters */
	/* the last threads that ended joinable with nobody joining them yet, oldest first from
	 * kept_head (a ring; an entry a joiner reaped since is passed over), under the lock:
	 * player.c's keep_ended_locked */
	size_t kept[DPS_PLAYER_KEEP_ENDED];
	size_t kept_head, n_kept;
	/* opts.cache_outcome: the quiet cache's cost of each of the program's cache figures
	 * (prog->n_caches, player-cache.c), owned; NULL without; and the costs they were
	 * computed from, one per footprint (n_cache_costs), owned, for the scaled figures' */
	uint64_t *cache_quiet_ns;
	struct dps_cache_costs *cache_costs;
	size_t n_cache_costs;
	/* DPS_CACHE_COSTS gave them: the accesses count at them, not at what they took */
	bool cache_costs_given;
};

static inline bool is_aborted(struct player *pl)
{
	return __atomic_load_n(&pl->aborted, __ATOMIC_ACQUIRE);
}

/* Under the lock: stops the play with error (the first error is kept) and releases everyone
 * who waits. */
void dps__player_abort_locked(struct player *pl, int error);

/* Under the lock: records error as the play's (the first error is kept, with its detail),
 * its detail naming thread t, where its action a is written (ID.act:LINE; a may be NULL) and
 * what went wrong (printf's fmt). The play goes on: abort it where it cannot. */
__attribute__((format(printf, 5, 6))) void dps__player_fail_at_locked(struct player *pl, size_t t,
								      const struct dps_action *a,
								      int error, const char *fmt,
								      ...);

/* Under the lock, when no thread is running: aborts with DPS_ERR_DEADLK, its detail naming
 * each blocked thread, what it waits for and where that action is written, if no blocked
 * thread can go on. */
void dps__player_check_deadlock_locked(struct player *pl);

/* Under the lock: thread self has ended (its state is SLOT_ENDED); wakes whoever its end may
 * release (its joiners, the sleepers it was to wake, the join any waiters). */
void dps__player_release_ended_locked(struct player *pl, struct slot *self);

/* Collects the distinct (sleeper, waker) pairs of the program into pl->deps (sorted, in time
 * linear in the actions) and marks the threads some thread joins. Returns DPS_OK or
 * DPS_ERR_NOMEM. */
int dps__player_build_deps(struct player *pl);

/* The blocking actions, played by thread self (each fires its begin and end events and takes
 * the lock itself). */
void dps__player_join(struct player *pl, struct slot *self, const struct dps_action *a);
void dps__player_join_any(struct player *pl, struct slot *self, const struct dps_action *a);
void dps__player_wait(struct player *pl, struct slot *self, const struct dps_action *a);
void dps__player_wait_timeout(struct player *pl, struct slot *self, const struct dps_action *a);
void dps__player_wait_any(struct player *pl, struct slot *self, const struct dps_action *a);
/* One wake of a->arg from waker: the player's own slot, or a task queue item's recorded taker
 * for whoever plays the item. */
void dps__player_wake(struct player *pl, size_t waker, const struct dps_action *a);
void dps__player_lock(struct player *pl, struct slot *self, const struct dps_action *a);
/* rdlock, and lock or unlock of a rwlock (dps__player_lock and _unlock call these for one). */
void dps__player_rwlock(struct player *pl, struct slot *self, const struct dps_action *a);
void dps__player_unlock(struct player *pl, struct slot *self, const struct dps_action *a);
/* Returns the index of the item a take got (its place among the queue's takes; a take of
 * several items: its first's), UINT64_MAX for a put. */
uint64_t dps__player_put_take(struct player *pl, struct slot *self, const struct dps_action *a);
void dps__player_arrive(struct player *pl, struct slot *self, const struct dps_action *a);

#endif /* DPS_RUNTIME_PLAYER_SYNC_H */
