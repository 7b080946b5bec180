/* SPDX-License-Identifier: MIT */
/*
 * Action sets: the analyzer's output, simgen's and dps run's input (doc/action-format.md).
 *
 * A set is a directory with one `<id>.act` file per thread and an optional `manifest`. The
 * paper's four keywords (run, sleep, create, join; N in microseconds) are a valid set on their
 * own; the extensions are wait/wake, heap/stack, unit suffixes and the manifest.
 */
#ifndef DPS_COMMON_ACTSET_H
#define DPS_COMMON_ACTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dps/dps-action.h>
#include <dps/dps-status.h>

#include "atomic-out.h"
#include "diag.h"

/* The newest format this dps reads and writes; older sets stay valid (doc/action-format.md) and
 * a set is written in the oldest version that holds what it uses: 1 without objects, 2 with
 * the objects of version 2, 3 with a rwlock or a put/take of several items, 4 with a run's
 * cache figures, 5 with a footprint among them. */
#define DPS_ACTSET_FORMAT_VERSION 5
#define DPS_ACTSET_FORMAT_V1 1
#define DPS_ACTSET_FORMAT_V2 2
#define DPS_ACTSET_FORMAT_V3 3
#define DPS_ACTSET_FORMAT_V4 4
#define DPS_ACTSET_FORMAT_V5 5
#define DPS_ACTSET_MANIFEST_NAME "manifest"
#define DPS_ACTSET_NO_THREAD SIZE_MAX
#define DPS_ACTSET_NO_OBJECT SIZE_MAX

/*
 * One action as the set holds it: its value, or the other thread's id as written. A thread's
 * index in the set is never stored in an action: dps_actset_target() finds it in the set's id
 * index (made by dps_actset_resolve()), so an id and an index never share a member. The
 * runtime's struct dps_action (an index in `arg`) is made from this only where a set becomes
 * a program (simgen's tables, dps run).
 */
struct dps_actset_action {
	union {
		int64_t value;	/* run, sleep: ns; heap, stack: signed bytes */
		uint64_t id;	/* create, join, wait, wake, timed wait: the other thread's id;
				 * lock .. arrive: the object's id */
		uint64_t first; /* wait any, join any: index of the first member in set->members */
	};
	uint64_t aux;  /* timed wait: the timeout, ns; wait any, join any: how many members;
			* put, take: how many items (0 and 1: one; more: version 3); run: 1 +
			* the index of its cache figures in set->caches (0: none; version 4) */
	uint32_t kind; /* enum dps_action_kind: which member holds */
	uint32_t line; /* line in its .act file (0: built in memory) */
};

/* Whether an action of this kind names another thread (create, join, wait, wake, timed
 * wait). */
bool dps_actset_kind_names_thread(uint32_t kind);
/* Whether an action of this kind names an object (lock, unlock, put, take, arrive, rdlock). */
bool dps_actset_kind_names_object(uint32_t kind);
/* Whether an action of this kind names a set of threads (wait any, join any). */
bool dps_actset_kind_names_members(uint32_t kind);

/* A synchronization object of format version 2, declared in the manifest. */
struct dps_actset_object {
	uint64_t id;	   /* its own namespace, apart from thread ids */
	uint32_t kind;	   /* enum dps_object_kind */
	uint32_t line;	   /* line of its declaration in the manifest (0: built in memory) */
	uint32_t col;	   /* column of its id there, for messages */
	uint64_t capacity; /* queue: capacity (0 = unbounded); barrier: parties */
	uint64_t initial;  /* queue: items at the start */
	/* a task queue (manifest `tasks ID TAKER...`): the thread id that took each item, in
	 * take order (owned; NULL otherwise), and the line of that statement */
	uint64_t *order;
	size_t n_order;
	uint32_t order_line;
};

struct dps_actset;
/* The index of the thread a create, join, wait or wake names, in a resolved set;
 * DPS_ACTSET_NO_THREAD for other kinds or an id not in the set. */
size_t dps_actset_target(const struct dps_actset *set, const struct dps_actset_action *a);

struct dps_actset_thread {
	uint64_t id; /* from the file name <id>.act */
	char *path;  /* owned: the file it came from (NULL if built in memory) */
	struct dps_actset_action *actions; /* owned */
	size_t n_actions;
	size_t cap_actions;

	/* From the manifest (defaults when there is none) */
	char *comm;		  /* owned: recorded thread name, NULL if unknown */
	int64_t tid;		  /* original tid, -1 if unknown */
	int64_t pid;		  /* original pid, -1 if unknown */
	uint64_t start_offset_ns; /* start relative to the root's start */
	bool pre_existing;	  /* alive before the trace began (parent guessed) */

	/* Derived by dps_actset_resolve() */
	size_t parent;	    /* index of the creator, DPS_ACTSET_NO_THREAD for root */
	size_t create_rank; /* position among the parent's creates (0-based) */
};

struct dps_actset {
	int format_version;		   /* 0 when no header/manifest said it */
	char *dir;			   /* owned: where it was loaded from, NULL if in memory */
	char *source_trace;		   /* owned, manifest only */
	char *options;			   /* owned, manifest only: analysis options */
	bool partial;			   /* manifest: events were lost, result incomplete */
	char *partial_reason;		   /* owned, NULL if not partial */
	struct dps_actset_thread *threads; /* owned array */
	size_t n_threads;
	size_t cap_threads;
	size_t root;			   /* index, valid after dps_actset_resolve() */
	struct dps_actset_object *objects; /* owned array, sorted by id once resolved */
	size_t n_objects;
	size_t cap_objects;
	uint64_t *members; /* owned: the thread ids of the wait any / join any sets, in a row */
	size_t n_members;
	size_t cap_members;
	/* owned: the runs' cache figures (version 4), a run's aux is 1 + its index here; the
	 * player's program takes them as they are (struct dps_program's caches) */
	struct dps_action_cache *caches;
	size_t n_caches;
	size_t cap_caches;
	/* owned: the thread ids sorted, for lookups by id (dps_actset_target, _find); made by
	 * dps_actset_resolve() */
	struct dps_actset_id_index *ids;
	bool resolved;
};

/* Creates an empty set (for writers such as the analyzer). Returns NULL on ENOMEM. */
struct dps_actset *dps_actset_create(void);
/* Destroys a set; accepts NULL. */
void dps_actset_destroy(struct dps_actset *set);

/* Adds a thread with this id; returns its index or DPS_ACTSET_NO_THREAD on ENOMEM. */
size_t dps_actset_add_thread(struct dps_actset *set, uint64_t id);
/* Appends an action to thread index t: arg is the other thread's id for create, join, wait
 * and wake, the value (ns, bytes) otherwise. Returns DPS_OK or DPS_ERR_NOMEM. */
int dps_actset_append(struct dps_actset *set, size_t t, enum dps_action_kind kind, int64_t arg,
		      uint32_t line);
/* The same with the aux member (timed wait: the timeout; wait any, join any: how many
 * members, arg being the first's index from dps_actset_add_members). */
int dps_actset_append2(struct dps_actset *set, size_t t, enum dps_action_kind kind, int64_t arg,
		       uint64_t aux, uint32_t line);
/* Appends n thread ids to set->members; returns the index of the first, or SIZE_MAX on
 * ENOMEM. */
size_t dps_actset_add_members(struct dps_actset *set, const uint64_t *ids, size_t n);
/* Appends a run's cache figures to set->caches; returns their index (a run's aux is 1 + it), or
 * SIZE_MAX on ENOMEM. The figures are checked by the parser and by resolve, not here. */
size_t dps_actset_add_cache(struct dps_actset *set, const struct dps_action_cache *c);
/* (the rules the figures follow: dps_action_cache_problem, <dps/dps-action.h>) */
/* Declares an object (kind: enum dps_object_kind). Returns DPS_OK or DPS_ERR_NOMEM. */
int dps_actset_add_object(struct dps_actset *set, uint64_t id, uint32_t kind, uint64_t capacity,
			  uint64_t initial, uint32_t line);
/* Index of the object with this id, or DPS_ACTSET_NO_OBJECT (O(log n) once resolved). */
size_t dps_actset_find_object(const struct dps_actset *set, uint64_t id);
/* The format version a writer gives thread t's file (t = DPS_ACTSET_NO_THREAD: the manifest):
 * the oldest that holds what the set uses (set->format_version at the least): 4 for a run with
 * cache figures, 3 for a rwlock or a put or take of several items, 2 for anything else of
 * version 2, else 1. */
int dps_actset_thread_version(const struct dps_actset *set, size_t t);
/* Action a of a resolved set as the player plays it: thread, object and member references
 * become indexes (members: arg is the first's index in set->members, as in the set). */
struct dps_action dps_actset_played_action(const struct dps_actset *set,
					   const struct dps_actset_action *a);
/* The objects and member sets of a resolved set as the player takes them (struct
 * dps_program's objects and members): *objects (set->n_objects) and *members
 * (set->n_members, then the task queues' takers their objects point to) are malloc'd, the caller's
 * to free, also on error (then NULL). Returns DPS_OK or DPS_ERR_NOMEM. */
int dps_actset_program_tables(const struct dps_actset *set, struct dps_object **objects,
			      uint32_t **members);
/* Index of the thread set->members[i] names, in a resolved set, or DPS_ACTSET_NO_THREAD. */
size_t dps_actset_member_target(const struct dps_actset *set, size_t i);
/* Index of the thread with this id, or DPS_ACTSET_NO_THREAD (O(log n) once resolved). */
size_t dps_actset_find(const struct dps_actset *set, uint64_t id);
/* Sets an owned string member from a borrowed one (copy); returns DPS_OK or DPS_ERR_NOMEM. */
int dps_actset_set_str(char **member, const char *value);

/*
 * Loads a directory. On bad input returns DPS_ERR_INVAL with diag filled with
 * "file:line:column: what was expected"; on I/O trouble DPS_ERR_IO/DPS_ERR_NOENT. On success
 * the set is also resolved (dps_actset_resolve). *out is NULL on error.
 */
int dps_actset_load_dir(const char *dir, struct dps_actset **out, struct dps_diag *diag);

/* Parses one action file's text into thread index t (ids unresolved). name is for messages. */
int dps_actset_parse_actions(struct dps_actset *set, size_t t, const char *name, const char *text,
			     size_t len, struct dps_diag *diag);

/*
 * Validates the creation graph and turns create/join/wait/wake ids into thread indexes:
 * create of a thread with no file, join/wait/wake of a thread never created, a thread created
 * twice, a create cycle, a join that can never return (a cycle of joins and creates), no root
 * or several roots are errors with a file:line:column.
 */
int dps_actset_resolve(struct dps_actset *set, struct dps_diag *diag);

/*
 * Writes the set as the directory dir: <id>.act files with a header line and a manifest, all
 * written into a temporary directory beside dir that then takes dir's place whole
 * (common/atomic-out.h), so dir holds the old set or the new one, never a mix. An existing dir
 * must be empty or an action set (dps_actset_is_set_dir), or flags has DPS_OUT_FORCE.
 * Returns DPS_OK; DPS_ERR_INVAL when dir may not be replaced (diag says why); DPS_ERR_IO
 * (diag names the file and errno, dir unchanged); DPS_ERR_NOMEM.
 */
int dps_actset_write_dir(const struct dps_actset *set, const char *dir, unsigned flags,
			 struct dps_diag *diag);
/*
 * The same written one thread at a time, for a producer that does not hold the whole set (the
 * analyzer writes each thread's file as soon as its actions are built, then drops them):
 * begin, put each thread (its actions must be in the set then), commit with the set's
 * metadata (the manifest needs a resolved set for root and parents). Every file goes into the
 * temporary directory; only commit puts the set in place. On an error of put or commit the
 * temporary is removed (the writer is then empty, nothing to abort) and diag names the set and
 * the file; abort is for the producer's own errors. Statuses as dps_actset_write_dir.
 */
struct dps_actset_writer {
	struct dps_out_dir out;
	FILE *thread;	   /* the thread file being written (open_thread .. close_thread) */
	char *thread_path; /* owned, its path */
};
int dps_actset_writer_begin(struct dps_actset_writer *w, const char *dir, unsigned flags,
			    struct dps_diag *diag);
int dps_actset_writer_put_thread(struct dps_actset_writer *w, const struct dps_actset *set,
				 size_t t, struct dps_diag *diag);
/*
 * put_thread in pieces, for a thread whose actions are produced a part at a time: open its
 * file, add the actions from index `from` on (as often as needed: the producer may drop what
 * was added, the file has it), close it. One thread file is open at a time. Errors as
 * put_thread (the temporary is removed).
 */
int dps_actset_writer_open_thread(struct dps_actset_writer *w, const struct dps_actset *set,
				  size_t t, struct dps_diag *diag);
int dps_actset_writer_add_actions(struct dps_actset_writer *w, const struct dps_actset *set,
				  size_t t, size_t from, struct dps_diag *diag);
int dps_actset_writer_close_thread(struct dps_actset_writer *w, struct dps_diag *diag);
int dps_actset_writer_commit(struct dps_actset_writer *w, const struct dps_actset *set,
			     struct dps_diag *diag);
/* Removes the temporary directory; accepts an empty writer. */
void dps_actset_writer_abort(struct dps_actset_writer *w);
/* Whether dir holds an action set written by dps (its manifest). */
bool dps_actset_is_set_dir(const char *dir);
/* Whether dps_actset_write_dir would refuse dir, checked before any work: DPS_OK, or
 * DPS_ERR_INVAL with diag saying why. */
int dps_actset_check_out_dir(const char *dir, unsigned flags, struct dps_diag *diag);
/* Writes one thread's actions in the text format (ids, not indexes). */
int dps_actset_write_thread(const struct dps_actset *set, size_t t, FILE *out);

/* Formats a duration in ns the way action files write it ("54", "0.85", "12.5"): integer µs
 * when exact, else a µs fraction with ns precision. buf must hold 32 bytes. */
const char *dps_actset_format_us(uint64_t ns, char *buf, size_t len);

#endif /* DPS_COMMON_ACTSET_H */
