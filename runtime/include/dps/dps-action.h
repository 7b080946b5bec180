/* SPDX-License-Identifier: MIT */
/*
 * The actions of a thread (doc/action-format.md), as libdps plays them (dependency-free: the
 * tools' common code and the tracepoint provider include this, not dps.h). The keywords are
 * one table, DPS_ACTION_KINDS, that the parser, the writer, simgen and the runtime all use.
 */
#ifndef DPS_DPS_ACTION_H
#define DPS_DPS_ACTION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(enumerator, value, keyword, what arg is in a played struct dps_action) */
#define DPS_ACTION_KINDS(X)                                                                        \
	X(DPS_ACT_RUN, 1, "run", "ns of run")                                                      \
	X(DPS_ACT_SLEEP, 2, "sleep", "ns of sleep")                                                \
	X(DPS_ACT_CREATE, 3, "create", "index of the thread to start")                             \
	X(DPS_ACT_JOIN, 4, "join", "index of the thread to wait for")                              \
	X(DPS_ACT_WAIT, 5, "wait", "index of the waker; consumes one wake from it")                \
	X(DPS_ACT_WAKE, 6, "wake", "index of the sleeper; gives it one wake")                      \
	X(DPS_ACT_HEAP, 7, "heap", "signed change of the heap in use, bytes")                      \
	X(DPS_ACT_STACK, 8, "stack", "signed change of the stack depth, bytes")                    \
	X(DPS_ACT_LOCK, 9, "lock", "index of the mutex in the program's objects")                  \
	X(DPS_ACT_UNLOCK, 10, "unlock", "index of the mutex in the program's objects")             \
	X(DPS_ACT_PUT, 11, "put", "index of the queue in the program's objects")                   \
	X(DPS_ACT_TAKE, 12, "take", "index of the queue in the program's objects")                 \
	X(DPS_ACT_ARRIVE, 13, "arrive", "index of the barrier in the program's objects")           \
	X(DPS_ACT_WAIT_TIMEOUT, 14, "wait", "index of the waker; arg2: the timeout, ns")           \
	X(DPS_ACT_WAIT_ANY, 15, "wait", "first of arg2 wakers in the program's members")           \
	X(DPS_ACT_JOIN_ANY, 16, "join", "first of arg2 joinees in the program's members")          \
	X(DPS_ACT_RDLOCK, 17, "rdlock", "index of the rwlock in the program's objects")

enum dps_action_kind {
#define DPS_ACTION_KIND_ENUM_(e, v, kw, what) e = v,
	DPS_ACTION_KINDS(DPS_ACTION_KIND_ENUM_)
#undef DPS_ACTION_KIND_ENUM_
};

/* The highest kind value (kinds are 1 .. DPS_ACT_MAX). */
#define DPS_ACT_MAX 17
/* The highest kind of format version 1 (the later ones need `dps-actions 2`). */
#define DPS_ACT_MAX_V1 8
/* The highest kind of format version 2 (rdlock needs `dps-actions 3`). */
#define DPS_ACT_MAX_V2 16

/* The keyword of a kind ("run", ...), or NULL for a value that is no kind. Inline, so the
 * tools that do not link libdps use the same table. */
static inline const char *dps_action_kind_name(uint32_t kind)
{
	switch (kind) {
#define DPS_ACTION_KIND_NAME_(e, v, kw, what)                                                      \
	case e:                                                                                    \
		return kw;
		DPS_ACTION_KINDS(DPS_ACTION_KIND_NAME_)
#undef DPS_ACTION_KIND_NAME_
	default:
		return (const char *)0;
	}
}

/*
 * The limits of an action set (doc/action-format.md, "Limits"), one definition for the
 * validator (common/actset*), which refuses what lies beyond them at its file:line:column,
 * and the player (runtime/), which plays everything within them: a set that loads never fails
 * at run time for a number. The _TEXT forms are what the messages say.
 */
/* The longest duration (run, sleep, a timed wait's timeout, a manifest's start offset): a
 * played arg is an int64_t of ns. About 292 years. */
#define DPS_ACTION_MAX_NS INT64_MAX
#define DPS_ACTION_MAX_NS_TEXT "2^63-1 ns"
/* The largest heap or stack change, bytes either way: a played arg is an int64_t. */
#define DPS_ACTION_MAX_BYTES INT64_MAX
#define DPS_ACTION_MAX_BYTES_TEXT "2^63-1"
/* The deepest stack a thread's stack actions reach, and the largest single change (1 GiB):
 * no real thread's stack comes near, and the player gives a thread whose curve goes beyond
 * its default stack a stack that holds it. */
#define DPS_ACTION_MAX_STACK_BYTES (INT64_C(1) << 30)
#define DPS_ACTION_MAX_STACK_TEXT "1 GiB"
/* The most items one put or take moves: a played arg2 is an int64_t. */
#define DPS_ACTION_MAX_ITEMS INT64_MAX
#define DPS_ACTION_MAX_ITEMS_TEXT "2^63-1"
/* The most threads one `wait A|B|...` or `join any A|B|...` names. */
#define DPS_ACTION_MAX_MEMBERS 64

/*
 * A run's data-cache figures (format version 4: `run D cache A S M1 M2`, version 5 with
 * `footprint BYTES` after them, doc/cache.md): its
 * loads and stores, of them the stores, the accesses that missed the level-1 data cache, and
 * of those the ones that missed the last level too. The validator refuses a run whose figures
 * the cache stub (<dps/cache.h>) would refuse: no access, more stores or D1 misses than
 * accesses, more last-level misses than D1 misses. A played run's arg2 is 1 + the index of its
 * figures in the program's caches (0: a run without figures).
 */
struct dps_action_cache {
	uint64_t accesses;
	uint64_t stores;
	uint64_t d1_misses;
	uint64_t ll_misses;
	/* version 5 (`... footprint BYTES`): the component's working set, the knee of its
	 * last-level miss curve (dps cache capture --footprint); 0: not known */
	uint64_t footprint_bytes;
};

/* Why the cache stub would refuse these figures, or NULL when it plays them: one rule for the
 * validator, which names it at the figure, and the player's check of a program. */
static inline const char *dps_action_cache_problem(const struct dps_action_cache *c)
{
	if (!c->accesses) {
		return "no access: expected 1 or more accesses";
	}
	if (c->stores > c->accesses) {
		return "more stores than accesses: expected STORES <= ACCESSES";
	}
	if (c->d1_misses > c->accesses) {
		return "more D1 misses than accesses: expected D1_MISSES <= ACCESSES";
	}
	if (c->ll_misses > c->d1_misses) {
		return "more LL misses than D1 misses: expected LL_MISSES <= D1_MISSES";
	}
	return (const char *)0;
}

/*
 * One action as the player plays it. arg2 comes last so that a table written as
 * {arg, kind, line} (every kind of format version 1) still initializes it (to 0).
 */
struct dps_action {
	int64_t arg;   /* see DPS_ACTION_KINDS: ns, bytes, another thread's or an object's index */
	uint32_t kind; /* enum dps_action_kind */
	uint32_t line; /* line in the source .act file (0 = unknown), for events */
	int64_t arg2;  /* timed wait: the timeout in ns; wait any, join any: how many members;
			* put, take: how many items (0 and 1: one); run: 1 + the index of its
			* cache figures in the program's caches (0: none) */
};

/*
 * Whether an action of this kind may stand in a task queue's item (doc/sync.md, "Task
 * queues"): work another thread can play for the item's recorded taker. A take also needs
 * its queue not to be a task queue itself (the caller knows the queues); locks must pair up
 * within the item. One rule for the analyzer, the validator and the player.
 */
static inline int dps_action_kind_fits_task(uint32_t kind)
{
	switch (kind) {
	case DPS_ACT_RUN:
	case DPS_ACT_SLEEP:
	case DPS_ACT_LOCK:
	case DPS_ACT_RDLOCK:
	case DPS_ACT_UNLOCK:
	case DPS_ACT_PUT:
	case DPS_ACT_TAKE:
	case DPS_ACT_ARRIVE:
	case DPS_ACT_WAKE: /* given in the recorded taker's name */
		return 1;
	default:
		return 0;
	}
}

/* The synchronization objects of format version 2 (the manifest's `object` lines). */
#define DPS_OBJECT_KINDS(X)                                                                        \
	X(DPS_OBJ_MUTEX, 1, "mutex")                                                               \
	X(DPS_OBJ_QUEUE, 2, "queue")                                                               \
	X(DPS_OBJ_BARRIER, 3, "barrier")                                                           \
	X(DPS_OBJ_RWLOCK, 4, "rwlock")

enum dps_object_kind {
#define DPS_OBJECT_KIND_ENUM_(e, v, kw) e = v,
	DPS_OBJECT_KINDS(DPS_OBJECT_KIND_ENUM_)
#undef DPS_OBJECT_KIND_ENUM_
};

#define DPS_OBJ_MAX 4
/* The highest object kind of format version 2 (a rwlock needs version 3). */
#define DPS_OBJ_MAX_V2 3

/* The keyword of an object kind ("mutex", ...), or NULL. */
static inline const char *dps_object_kind_name(uint32_t kind)
{
	switch (kind) {
#define DPS_OBJECT_KIND_NAME_(e, v, kw)                                                            \
	case e:                                                                                    \
		return kw;
		DPS_OBJECT_KINDS(DPS_OBJECT_KIND_NAME_)
#undef DPS_OBJECT_KIND_NAME_
	default:
		return (const char *)0;
	}
}

/* One object as the player creates it. */
struct dps_object {
	uint64_t id;	   /* the set's object id, for events and messages */
	uint32_t kind;	   /* enum dps_object_kind */
	uint32_t line;	   /* line of its declaration in the manifest (0 = unknown) */
	uint64_t capacity; /* queue: items it holds at most (0 = unbounded); barrier: parties */
	uint64_t initial;  /* queue: items at the start */
	/* A task queue (the manifest's `tasks` line): the thread index that took each item in
	 * the recording, in the order the items were taken. Whoever takes item k in the play
	 * runs what its recorded taker ran after that take (doc/sync.md, "Task queues").
	 * NULL/0 for any other object. */
	const uint32_t *order;
	uint64_t n_order;
};

#ifdef __cplusplus
}
#endif

#endif /* DPS_DPS_ACTION_H */
