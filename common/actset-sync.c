/* SPDX-License-Identifier: MIT */
/*
 * Resolve's checks of format version 2 (doc/action-format.md, "Validation"): the objects of
 * the manifest, the references to them, the member sets of `wait A|B` and `join any A|B`, and
 * the rules that keep a played set from blocking for good by construction (a lock released
 * before its thread ends, a take some put can satisfy, every member of a `join any` joined).
 * What no static check can rule out (two threads that lock two mutexes in opposite orders)
 * the player detects as it plays (runtime/player-sync.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "actset-internal.h"

/* What the checks keep per object. */
struct obj_use {
	bool put;	   /* some thread puts into this queue */
	size_t take_t;	   /* the first take: thread and action (SIZE_MAX: none) */
	size_t take_a;	   /* (a take with no put is reported there) */
	size_t holder_a;   /* the current thread's lock of this mutex (SIZE_MAX: not held) */
	size_t holder_gen; /* which thread's walk holder_a belongs to */
};

static int cmp_object_id(const void *a, const void *b)
{
	const struct dps_actset_object *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static const char *manifest_name(const struct dps_actset *set, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", set->dir ? set->dir : ".", DPS_ACTSET_MANIFEST_NAME);
	return buf;
}

/* Sorts the objects by id and refuses an id declared twice or a kind's bad parameters. */
static int check_objects(struct dps_actset *set, struct dps_diag *diag)
{
	char path[4096];

	if (set->n_objects) {
		qsort(set->objects, set->n_objects, sizeof(*set->objects), cmp_object_id);
	}
	for (size_t i = 0; i < set->n_objects; i++) {
		const struct dps_actset_object *o = &set->objects[i];

		if (i && o->id == set->objects[i - 1].id) {
			dps_diag_set(diag, manifest_name(set, path, sizeof(path)), o->line, o->col,
				     "object %" PRIu64 " declared twice (first on line %u): "
				     "expected one declaration per object",
				     o->id, set->objects[i - 1].line);
			return DPS_ERR_INVAL;
		}
		if (!dps_object_kind_name(o->kind)) {
			dps_diag_set(diag, manifest_name(set, path, sizeof(path)), o->line, o->col,
				     "object %" PRIu64 " has no known kind", o->id);
			return DPS_ERR_INVAL;
		}
		if (o->kind == DPS_OBJ_BARRIER && !o->capacity) {
			dps_diag_set(diag, manifest_name(set, path, sizeof(path)), o->line, o->col,
				     "barrier %" PRIu64 " of 0 parties: expected at least 1",
				     o->id);
			return DPS_ERR_INVAL;
		}
		if (o->kind == DPS_OBJ_QUEUE && o->capacity && o->initial > o->capacity) {
			dps_diag_set(diag, manifest_name(set, path, sizeof(path)), o->line, o->col,
				     "queue %" PRIu64 " starts with %" PRIu64
				     " items but holds at most %" PRIu64,
				     o->id, o->initial, o->capacity);
			return DPS_ERR_INVAL;
		}
	}
	return DPS_OK;
}

static size_t find_object(const struct dps_actset *set, uint64_t id)
{
	struct dps_actset_object key = {.id = id};
	const struct dps_actset_object *hit =
	    set->n_objects ? bsearch(&key, set->objects, set->n_objects, sizeof(key), cmp_object_id)
			   : NULL;

	return hit ? (size_t)(hit - set->objects) : DPS_ACTSET_NO_OBJECT;
}

static uint32_t kind_wanted(uint32_t action)
{
	return action == DPS_ACT_LOCK || action == DPS_ACT_UNLOCK ? DPS_OBJ_MUTEX
	       : action == DPS_ACT_RDLOCK			  ? DPS_OBJ_RWLOCK
	       : action == DPS_ACT_ARRIVE			  ? DPS_OBJ_BARRIER
								  : DPS_OBJ_QUEUE;
}

/* Whether an action of this kind may name an object of kind obj: lock and unlock a mutex or
 * a rwlock (its write side, or either side's release), the others their one kind. */
static bool kind_fits(uint32_t action, uint32_t obj)
{
	if ((action == DPS_ACT_LOCK || action == DPS_ACT_UNLOCK) && obj == DPS_OBJ_RWLOCK) {
		return true;
	}
	return obj == kind_wanted(action);
}

/* An action naming an object: declared, of the kind the action needs; locks and unlocks
 * paired within the thread. */
static int check_object_ref(const struct dps_actset *set, struct obj_use *use, size_t t, size_t a,
			    GArray *const *cols, struct dps_diag *diag)
{
	const struct dps_actset_action *act = &set->threads[t].actions[a];
	const char *kw = dps_actset__kind_word(act->kind);
	size_t o = find_object(set, act->id);
	const char *file;
	unsigned line, col;
	uint32_t want = kind_wanted(act->kind);

	dps_actset__describe_action(set, t, a, cols, &file, &line, &col);
	if (o == DPS_ACTSET_NO_OBJECT) {
		dps_diag_set(diag, file, line, col,
			     "%s of object %" PRIu64 " which is not declared: expected an "
			     "'object %" PRIu64 " %s' line in the manifest",
			     kw, act->id, act->id, dps_object_kind_name(want));
		return DPS_ERR_INVAL;
	}
	if (!kind_fits(act->kind, set->objects[o].kind)) {
		dps_diag_set(diag, file, line, col,
			     "%s of object %" PRIu64 ", a %s: expected a %s%s", kw, act->id,
			     dps_object_kind_name(set->objects[o].kind), dps_object_kind_name(want),
			     want == DPS_OBJ_MUTEX ? " or a rwlock" : "");
		return DPS_ERR_INVAL;
	}
	switch (act->kind) {
	case DPS_ACT_LOCK:
	case DPS_ACT_RDLOCK:
		if (use[o].holder_gen == t && use[o].holder_a != SIZE_MAX) {
			dps_diag_set(diag, file, line, col,
				     "%s of %s %" PRIu64
				     " which this thread already holds (since line %u): "
				     "expected an unlock first",
				     kw, dps_object_kind_name(set->objects[o].kind), act->id,
				     set->threads[t].actions[use[o].holder_a].line);
			return DPS_ERR_INVAL;
		}
		use[o].holder_gen = t;
		use[o].holder_a = a;
		break;
	case DPS_ACT_UNLOCK:
		if (use[o].holder_gen != t || use[o].holder_a == SIZE_MAX) {
			dps_diag_set(diag, file, line, col,
				     "unlock of %s %" PRIu64 " which this thread does not hold: "
				     "expected a lock %" PRIu64 " before it",
				     dps_object_kind_name(set->objects[o].kind), act->id, act->id);
			return DPS_ERR_INVAL;
		}
		use[o].holder_a = SIZE_MAX;
		break;
	case DPS_ACT_PUT:
		use[o].put = true;
		break;
	case DPS_ACT_TAKE:
		if (use[o].take_t == SIZE_MAX) {
			use[o].take_t = t;
			use[o].take_a = a;
		}
		break;
	default:
		break;
	}
	return DPS_OK;
}

/* A member set: threads of the set, not the thread itself, each once; a `join any` does not
 * name the root. */
static int check_members(const struct dps_actset *set, const struct dps_actset_id_index *ix,
			 size_t root, size_t t, size_t a, GArray *const *cols,
			 struct dps_diag *diag)
{
	const struct dps_actset_action *act = &set->threads[t].actions[a];
	const char *kw = act->kind == DPS_ACT_JOIN_ANY ? "join any" : "wait";
	const char *file;
	unsigned line, col;

	dps_actset__describe_action(set, t, a, cols, &file, &line, &col);
	if (!act->aux || act->first + act->aux > set->n_members) {
		dps_diag_set(diag, file, line, col, "%s of no thread: expected ID|ID|...", kw);
		return DPS_ERR_INVAL;
	}
	for (uint64_t i = 0; i < act->aux; i++) {
		uint64_t id = set->members[act->first + i];
		size_t other = dps_actset__find_in_index(ix, set->n_threads, id);

		if (other == DPS_ACTSET_NO_THREAD) {
			dps_diag_set(diag, file, line, col,
				     "%s of thread %" PRIu64 " which is never created: expected "
				     "the id of a thread in the set",
				     kw, id);
			return DPS_ERR_INVAL;
		}
		if (other == t) {
			dps_diag_set(diag, file, line, col,
				     "%s of the thread itself: expected other threads' ids", kw);
			return DPS_ERR_INVAL;
		}
		if (act->kind == DPS_ACT_JOIN_ANY && other == root) {
			dps_diag_set(diag, file, line, col,
				     "join any of the root thread %" PRIu64
				     ", which is never created: expected created threads",
				     id);
			return DPS_ERR_INVAL;
		}
		for (uint64_t k = 0; k < i; k++) {
			if (set->members[act->first + k] == id) {
				dps_diag_set(diag, file, line, col,
					     "%s names thread %" PRIu64
					     " twice: expected each thread once",
					     kw, id);
				return DPS_ERR_INVAL;
			}
		}
	}
	return DPS_OK;
}

/* The sorted member ids of a join any, for comparing sets written in any order. */
static uint64_t *sorted_members(const struct dps_actset *set, const struct dps_actset_action *act)
{
	uint64_t *m = malloc(act->aux * sizeof(*m));

	if (m) {
		memcpy(m, set->members + act->first, act->aux * sizeof(*m));
		qsort(m, act->aux, sizeof(*m), cmp_u64);
	}
	return m;
}

/*
 * Thread t's `join any` sets: each set written n times for its n members (each one joins a
 * member not yet joined, so all are joined in the end), no member in two different sets or in
 * a plain join of the thread too.
 */
static int check_join_any(const struct dps_actset *set, size_t t, GArray *const *cols,
			  struct dps_diag *diag)
{
	const struct dps_actset_thread *th = &set->threads[t];
	int status = DPS_OK;

	for (size_t a = 0; a < th->n_actions && !status; a++) {
		const struct dps_actset_action *act = &th->actions[a];
		uint64_t *mine;
		size_t same = 0;
		const char *file;
		unsigned line, col;

		if (act->kind != DPS_ACT_JOIN_ANY) {
			continue;
		}
		dps_actset__describe_action(set, t, a, cols, &file, &line, &col);
		mine = sorted_members(set, act);
		if (!mine) {
			dps_diag_setf(diag, "out of memory checking the action set");
			return DPS_ERR_NOMEM;
		}
		for (size_t b = 0; b < th->n_actions && !status; b++) {
			const struct dps_actset_action *other = &th->actions[b];

			if (other->kind == DPS_ACT_JOIN) {
				if (bsearch(&other->id, mine, act->aux, sizeof(*mine), cmp_u64)) {
					dps_diag_set(diag, file, line, col,
						     "join any of thread %" PRIu64
						     " which line %u joins too: expected each "
						     "thread joined once",
						     other->id, other->line);
					status = DPS_ERR_INVAL;
				}
				continue;
			}
			if (other->kind != DPS_ACT_JOIN_ANY) {
				continue;
			}
			if (other->aux == act->aux) {
				uint64_t *theirs = sorted_members(set, other);

				if (!theirs) {
					status = DPS_ERR_NOMEM;
					break;
				}
				if (!memcmp(theirs, mine, act->aux * sizeof(*mine))) {
					same++;
					free(theirs);
					continue;
				}
				free(theirs);
			}
			for (uint64_t i = 0; i < other->aux; i++) {
				if (bsearch(&set->members[other->first + i], mine, act->aux,
					    sizeof(*mine), cmp_u64)) {
					dps_diag_set(diag, file, line, col,
						     "join any sets of line %u and line %u share "
						     "thread %" PRIu64
						     ": expected the same set or disjoint ones",
						     act->line, other->line,
						     set->members[other->first + i]);
					status = DPS_ERR_INVAL;
					break;
				}
			}
		}
		if (!status && same != act->aux) {
			dps_diag_set(diag, file, line, col,
				     "join any of %" PRIu64 " threads written %zu time%s: expected "
				     "one per member, so that every member is joined in the end",
				     act->aux, same, same == 1 ? "" : "s");
			status = DPS_ERR_INVAL;
		}
		free(mine);
	}
	if (status == DPS_ERR_NOMEM) {
		dps_diag_setf(diag, "out of memory checking the action set");
	}
	return status;
}

/*
 * Thread t's stretches between two of its takes of task queue obj: work any taker can play
 * for it (runs, sleeps, locks it releases in the stretch, puts, arrives, wakes given in its
 * name; no take of another task queue). The stretch after its last take is its own.
 */
static int check_task_stretches(const struct dps_actset *set, size_t t,
				const struct dps_actset_object *obj, GArray *const *cols,
				struct dps_diag *diag)
{
	const struct dps_actset_thread *th = &set->threads[t];
	size_t last = th->n_actions, bad = SIZE_MAX;
	int64_t depth = 0;
	bool open = false;

	while (last-- > 0) {
		if (th->actions[last].kind == DPS_ACT_TAKE && th->actions[last].id == obj->id) {
			break;
		}
	}
	for (size_t a = 0; a < last && bad == SIZE_MAX; a++) {
		const struct dps_actset_action *act = &th->actions[a];
		size_t o;

		if (act->kind == DPS_ACT_TAKE && act->id == obj->id) {
			if ((open && depth) || act->aux > 1) {
				bad = a;
			}
			open = true;
			depth = 0;
			continue;
		}
		if (!open) {
			continue;
		}
		if (!dps_action_kind_fits_task(act->kind)) {
			bad = a;
		} else if (act->kind == DPS_ACT_LOCK || act->kind == DPS_ACT_RDLOCK) {
			depth++;
		} else if (act->kind == DPS_ACT_UNLOCK) {
			bad = depth-- > 0 ? bad : a;
		} else if (act->kind == DPS_ACT_TAKE) {
			o = dps_actset_find_object(set, act->id);
			bad = o != DPS_ACTSET_NO_OBJECT && set->objects[o].order ? a : bad;
		}
	}
	if (bad == SIZE_MAX) {
		return DPS_OK;
	}
	{
		const char *file;
		unsigned line, col;

		dps_actset__describe_action(set, t, bad, cols, &file, &line, &col);
		dps_diag_set(diag, file, line, col,
			     "in an item of task queue %" PRIu64 " (between two of the thread's "
			     "takes): expected work another thread can play for it (run, sleep, "
			     "lock and unlock in pairs, put, arrive, wake; a take of one item)",
			     obj->id);
	}
	return DPS_ERR_INVAL;
}

/*
 * A task queue's order: each taker a thread of the set, listed once per take it makes of the
 * queue (the player hands item k's recorded work to whoever takes it: doc/sync.md, "Task
 * queues"). Named at the manifest's `tasks` line.
 */
static int check_tasks(const struct dps_actset *set, const struct dps_actset_id_index *ix, size_t o,
		       GArray *const *cols, struct dps_diag *diag)
{
	const struct dps_actset_object *obj = &set->objects[o];
	size_t *listed = calloc(set->n_threads ? set->n_threads : 1, sizeof(*listed));
	char path[4096];
	int status = DPS_OK;

	if (!listed) {
		dps_diag_setf(diag, "out of memory checking the action set");
		return DPS_ERR_NOMEM;
	}
	manifest_name(set, path, sizeof(path));
	for (size_t k = 0; k < obj->n_order && !status; k++) {
		size_t t = dps_actset__find_in_index(ix, set->n_threads, obj->order[k]);

		if (t == DPS_ACTSET_NO_THREAD) {
			dps_diag_set(diag, path, obj->order_line, 0,
				     "tasks %" PRIu64 ": item %zu's taker %" PRIu64
				     " is no thread of the set",
				     obj->id, k + 1, obj->order[k]);
			status = DPS_ERR_INVAL;
		} else {
			listed[t]++;
		}
	}
	for (size_t t = 0; t < set->n_threads && !status; t++) {
		const struct dps_actset_thread *th = &set->threads[t];
		size_t takes = 0;

		for (size_t a = 0; a < th->n_actions; a++) {
			takes +=
			    th->actions[a].kind == DPS_ACT_TAKE && th->actions[a].id == obj->id;
		}
		if (takes && takes == listed[t]) {
			status = check_task_stretches(set, t, obj, cols, diag);
		}
		if (status) {
			break;
		}
		if (takes != listed[t]) {
			dps_diag_set(diag, path, obj->order_line, 0,
				     "tasks %" PRIu64 " lists thread %" PRIu64 " %zu times, but it "
				     "takes from queue %" PRIu64
				     " %zu times: expected one entry per take",
				     obj->id, th->id, listed[t], obj->id, takes);
			status = DPS_ERR_INVAL;
		}
	}
	free(listed);
	return status;
}

int dps_actset__check_sync(struct dps_actset *set, const struct dps_actset_id_index *ix,
			   size_t root, GArray *const *cols, struct dps_diag *diag)
{
	struct obj_use *use = NULL;
	int status;

	status = check_objects(set, diag);
	if (status) {
		return status;
	}
	use = calloc(set->n_objects ? set->n_objects : 1, sizeof(*use));
	if (!use) {
		dps_diag_setf(diag, "out of memory checking the action set");
		return DPS_ERR_NOMEM;
	}
	for (size_t o = 0; o < set->n_objects; o++) {
		use[o].take_t = SIZE_MAX;
		use[o].holder_a = SIZE_MAX;
		use[o].holder_gen = SIZE_MAX;
	}
	for (size_t t = 0; t < set->n_threads && !status; t++) {
		const struct dps_actset_thread *th = &set->threads[t];
		bool any_join = false;

		for (size_t a = 0; a < th->n_actions && !status; a++) {
			uint32_t kind = th->actions[a].kind;

			if (dps_actset_kind_names_object(kind)) {
				status = check_object_ref(set, use, t, a, cols, diag);
			} else if (dps_actset_kind_names_members(kind)) {
				status = check_members(set, ix, root, t, a, cols, diag);
				any_join |= kind == DPS_ACT_JOIN_ANY;
			}
		}
		/* a mutex still held at the thread's end: named at its lock */
		for (size_t o = 0; o < set->n_objects && !status; o++) {
			const char *file;
			unsigned line, col;

			if (use[o].holder_gen != t || use[o].holder_a == SIZE_MAX) {
				continue;
			}
			dps_actset__describe_action(set, t, use[o].holder_a, cols, &file, &line,
						    &col);
			dps_diag_set(diag, file, line, col,
				     "lock of %s %" PRIu64 " never unlocked by the thread's "
				     "end: expected an unlock %" PRIu64 " after it",
				     dps_object_kind_name(set->objects[o].kind), set->objects[o].id,
				     set->objects[o].id);
			status = DPS_ERR_INVAL;
		}
		if (!status && any_join) {
			status = check_join_any(set, t, cols, diag);
		}
	}
	for (size_t o = 0; o < set->n_objects && !status; o++) {
		const char *file;
		unsigned line, col;

		if (use[o].take_t == SIZE_MAX || use[o].put || set->objects[o].initial) {
			continue;
		}
		dps_actset__describe_action(set, use[o].take_t, use[o].take_a, cols, &file, &line,
					    &col);
		dps_diag_set(diag, file, line, col,
			     "take from queue %" PRIu64 " which no thread puts into and which "
			     "starts empty: expected a put %" PRIu64 " in some thread",
			     set->objects[o].id, set->objects[o].id);
		status = DPS_ERR_INVAL;
	}
	for (size_t o = 0; o < set->n_objects && !status; o++) {
		if (set->objects[o].order) {
			status = check_tasks(set, ix, o, cols, diag);
		}
	}
	free(use);
	return status;
}
