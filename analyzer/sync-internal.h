/* SPDX-License-Identifier: MIT */
/*
 * What the synchronization files of the analyzer core share (not the rest of the core's): the
 * objects they make and the points they add to the threads. sync.c owns both tables and the
 * declaration of the set's objects; sync-probe.c turns the probe's blocking calls into points
 * (barriers, semaphores, rwlocks, pipes, OpenMP), futex.c infers objects from the kernel's
 * futex events.
 */
#ifndef DPS_ANALYZER_SYNC_INTERNAL_H
#define DPS_ANALYZER_SYNC_INTERNAL_H

#include "core-internal.h"

/* A condition variable's object (not an enum dps_object_kind: never declared). */
#define SYNC_COND 0x100u

/* The namespaces an address lives in: a mutex, a condition variable and an annotated object
 * may share an address (a queue struct whose first member is its mutex), a found queue is
 * named by its put's condition variable, the probe's objects by the program's addresses
 * (those an annotation also names are the annotation's), a pipe by its inode (the same in
 * every process), a pool by the probe's key, a futex word by its address. */
enum sync_ns {
	NS_ANNOTATED,
	NS_MUTEX,
	NS_COND,
	NS_FOUND,
	NS_PROBE,
	NS_PIPE,
	NS_POOL,
	NS_FUTEX,
};

struct sync_obj {
	int64_t pid;
	uint64_t addr;
	uint32_t ns;	   /* enum sync_ns */
	uint32_t kind;	   /* enum dps_object_kind or SYNC_COND, 0 until known */
	uint64_t capacity; /* queue: its capacity; barrier: parties */
	int64_t level;	   /* produces minus consumes so far (all threads) */
	int64_t low;	   /* its lowest: the items there before the first take */
	uint64_t id;	   /* the set's object id, 0 when not declared */
	uint32_t idx;	   /* its index in core->sync_list */
	/* the probe's and futex.c's objects: their points are calls whose inside is theirs
	 * (windows), they release no mutex around them; a semaphore's value at sem_init */
	bool probe;
	bool has_initial;
	uint64_t initial;
	/* a barrier whose init was not seen: its parties are the threads that arrive */
	GHashTable *arrivers;
	/* mutex: who holds it by the wrapper's events, and whether another thread took it while
	 * that one held it: a condition variable's wait released it, which the wrapper does not
	 * see (pthread_cond_wait unlocks inside libc); its lock/unlock pairs would then hold it
	 * across the wait in the replay, a deadlock, so such a mutex is not declared */
	size_t holder;
	bool held, released_unseen;
	/* taken by another thread while `suspect_ctx` held it: explained when that thread's next
	 * event is an annotated put, take or arrive (a condition wait inside it, which the set
	 * plays as unlock, action, lock), unexplained when it is anything else */
	bool suspect;
	size_t suspect_ctx;
	/* that thread's next event was its unlock of it, after the other had let go too: the
	 * wrapper's late unlock event (preempted between its unlock and its event) when the
	 * probe sees the condition waits, a re-lock nobody saw otherwise */
	bool late_unlock;
	/* condition variable: the mutex its waits use (ANALYZER_SYNC_NO_OBJ: none seen, or
	 * more than one), the threads that signal it and that wait on it (ctx + 1 sets), the
	 * queue it was found to be part of */
	uint32_t cond_mutex;
	bool cond_mutexes;
	GHashTable *signallers, *waiters;
	bool paired;
};

/* The object at (pid, addr) in namespace ns, made on first sight with kind (0: not known
 * yet); NULL only on ENOMEM (core->status says). */
struct sync_obj *analyzer__sync_obj(struct analyzer_core *core, int64_t pid, uint64_t addr,
				    uint32_t kind, enum sync_ns ns);
/* The object at (pid, addr) in ns when there is one, else NULL. */
struct sync_obj *analyzer__sync_find(struct analyzer_core *core, int64_t pid, uint64_t addr,
				     enum sync_ns ns);
/* Appends a point to thread ctx's list (kept in time order: a point earlier than the last is
 * put in its place). Returns it, to fill the optional members; NULL on ENOMEM. */
struct analyzer_sync_point *analyzer__sync_point(struct analyzer_core *core, size_t ctx,
						 uint64_t ts, uint32_t kind,
						 const struct sync_obj *o, int64_t arg,
						 const struct sync_obj *cond);

/* sync-probe.c: the probe's blocking calls, begin and end (ANALYZER_EV_SYNC_OP_BEGIN, _END,
 * _OBJ_INIT, _POOL_TAKE, _UNMODELLED) */
void analyzer__on_sync_probe(struct analyzer_core *core, const struct analyzer_event *ev,
			     size_t ctx);
/* At the trace's end: the calls still open (an OpenMP worker's region end, which lasts until
 * the thread's end) become their points. */
void analyzer__sync_probe_close(struct analyzer_core *core);
/* Whether thread ctx is inside a call of the probe's (a window, a condition wait). */
bool analyzer__sync_in_call(const struct analyzer_core *core, size_t ctx);

#endif /* DPS_ANALYZER_SYNC_INTERNAL_H */
