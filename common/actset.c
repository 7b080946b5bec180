/* SPDX-License-Identifier: MIT */
/*
 * Action sets in memory: building one (the analyzer, tests), and resolving it: validating the
 * creation graph (doc/action-format.md) and giving every reference to a thread its index.
 * Parsing is actset-parse.c (with actset-manifest.c and actset-lex.c), writing actset-write.c.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actset-internal.h"
#include "grow.h"

struct dps_actset *dps_actset_create(void)
{
	struct dps_actset *set = calloc(1, sizeof(*set));

	if (set) {
		set->root = DPS_ACTSET_NO_THREAD;
	}
	return set;
}

void dps_actset_destroy(struct dps_actset *set)
{
	if (!set) {
		return;
	}
	for (size_t i = 0; i < set->n_threads; i++) {
		struct dps_actset_thread *t = &set->threads[i];

		free(t->path);
		free(t->actions);
		free(t->comm);
	}
	free(set->threads);
	free(set->dir);
	free(set->source_trace);
	free(set->options);
	free(set->partial_reason);
	free(set->ids);
	for (size_t i = 0; i < set->n_objects; i++) {
		free(set->objects[i].order);
	}
	free(set->objects);
	free(set->members);
	free(set->caches);
	free(set);
}

int dps_actset_set_str(char **member, const char *value)
{
	char *copy = NULL;

	if (value) {
		copy = strdup(value);
		if (!copy) {
			return DPS_ERR_NOMEM;
		}
	}
	free(*member);
	*member = copy;
	return DPS_OK;
}

size_t dps_actset_add_thread(struct dps_actset *set, uint64_t id)
{
	struct dps_actset_thread *threads, *t;

	threads = dps_grow(set->threads, &set->cap_threads, set->n_threads + 1, sizeof(*threads));
	if (!threads) {
		return DPS_ACTSET_NO_THREAD;
	}
	set->threads = threads;
	t = &set->threads[set->n_threads];
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->tid = -1;
	t->pid = -1;
	t->parent = DPS_ACTSET_NO_THREAD;
	set->resolved = false;
	return set->n_threads++;
}

bool dps_actset_kind_names_thread(uint32_t kind)
{
	return kind == DPS_ACT_CREATE || kind == DPS_ACT_JOIN || kind == DPS_ACT_WAIT ||
	       kind == DPS_ACT_WAKE || kind == DPS_ACT_WAIT_TIMEOUT;
}

bool dps_actset_kind_names_object(uint32_t kind)
{
	return (kind >= DPS_ACT_LOCK && kind <= DPS_ACT_ARRIVE) || kind == DPS_ACT_RDLOCK;
}

bool dps_actset_kind_names_members(uint32_t kind)
{
	return kind == DPS_ACT_WAIT_ANY || kind == DPS_ACT_JOIN_ANY;
}

int dps_actset_append(struct dps_actset *set, size_t t, enum dps_action_kind kind, int64_t arg,
		      uint32_t line)
{
	return dps_actset_append2(set, t, kind, arg, 0, line);
}

size_t dps_actset_add_members(struct dps_actset *set, const uint64_t *ids, size_t n)
{
	uint64_t *m = dps_grow(set->members, &set->cap_members, set->n_members + n, sizeof(*m));
	size_t first = set->n_members;

	if (!m) {
		return SIZE_MAX;
	}
	set->members = m;
	memcpy(m + first, ids, n * sizeof(*ids));
	set->n_members += n;
	return first;
}

size_t dps_actset_add_cache(struct dps_actset *set, const struct dps_action_cache *c)
{
	struct dps_action_cache *m =
	    dps_grow(set->caches, &set->cap_caches, set->n_caches + 1, sizeof(*m));

	if (!m) {
		return SIZE_MAX;
	}
	set->caches = m;
	m[set->n_caches] = *c;
	return set->n_caches++;
}

int dps_actset_add_object(struct dps_actset *set, uint64_t id, uint32_t kind, uint64_t capacity,
			  uint64_t initial, uint32_t line)
{
	struct dps_actset_object *o =
	    dps_grow(set->objects, &set->cap_objects, set->n_objects + 1, sizeof(*o));

	if (!o) {
		return DPS_ERR_NOMEM;
	}
	set->objects = o;
	o[set->n_objects++] = (struct dps_actset_object){
	    .id = id, .kind = kind, .line = line, .capacity = capacity, .initial = initial};
	set->resolved = false;
	return DPS_OK;
}

static int cmp_object(const void *a, const void *b)
{
	const struct dps_actset_object *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

size_t dps_actset_find_object(const struct dps_actset *set, uint64_t id)
{
	struct dps_actset_object key = {.id = id};
	const struct dps_actset_object *hit;

	if (!set->resolved) {
		for (size_t i = 0; i < set->n_objects; i++) {
			if (set->objects[i].id == id) {
				return i;
			}
		}
		return DPS_ACTSET_NO_OBJECT;
	}
	hit = set->n_objects ? bsearch(&key, set->objects, set->n_objects, sizeof(key), cmp_object)
			     : NULL;
	return hit ? (size_t)(hit - set->objects) : DPS_ACTSET_NO_OBJECT;
}

/* The version an action of set needs. */
static int action_version(const struct dps_actset *set, const struct dps_actset_action *a)
{
	if (a->kind == DPS_ACT_RUN && a->aux) {
		return a->aux <= set->n_caches && set->caches[a->aux - 1].footprint_bytes
			   ? DPS_ACTSET_FORMAT_V5
			   : DPS_ACTSET_FORMAT_V4;
	}
	if (a->kind > DPS_ACT_MAX_V2 ||
	    ((a->kind == DPS_ACT_PUT || a->kind == DPS_ACT_TAKE) && a->aux > 1)) {
		return DPS_ACTSET_FORMAT_V3;
	}
	return a->kind > DPS_ACT_MAX_V1 ? DPS_ACTSET_FORMAT_V2 : DPS_ACTSET_FORMAT_V1;
}

int dps_actset_thread_version(const struct dps_actset *set, size_t t)
{
	/* at least what the set says (a producer that writes a thread at a time says so), but
	 * for versions 4 and 5: its cache figures are a run's own, so only the files that have them
	 * need it, and a header of 4 raises neither the other files nor the manifest */
	int v = set->format_version > DPS_ACTSET_FORMAT_V1 &&
			set->format_version <= DPS_ACTSET_FORMAT_V3
		    ? set->format_version
		    : DPS_ACTSET_FORMAT_V1;

	/* what every file of the set shares: its objects and member sets */
	if (v < DPS_ACTSET_FORMAT_V2 && (set->n_objects || set->n_members)) {
		v = DPS_ACTSET_FORMAT_V2;
	}
	for (size_t i = 0; i < set->n_objects && v < DPS_ACTSET_FORMAT_V3; i++) {
		if (set->objects[i].kind > DPS_OBJ_MAX_V2) {
			v = DPS_ACTSET_FORMAT_V3;
		}
	}
	/* and what this thread's actions use */
	if (t < set->n_threads) {
		const struct dps_actset_thread *th = &set->threads[t];

		for (size_t i = 0; i < th->n_actions && v < DPS_ACTSET_FORMAT_VERSION; i++) {
			int need = action_version(set, &th->actions[i]);

			v = need > v ? need : v;
		}
	}
	return v;
}

int dps_actset_append2(struct dps_actset *set, size_t t, enum dps_action_kind kind, int64_t arg,
		       uint64_t aux, uint32_t line)
{
	struct dps_actset_thread *th = &set->threads[t];
	/* 16 bytes an action (struct dps_actset_action), plus the doubling's slack */
	struct dps_actset_action *actions =
	    dps_grow(th->actions, &th->cap_actions, th->n_actions + 1, sizeof(*actions));

	if (!actions) {
		return DPS_ERR_NOMEM;
	}
	th->actions = actions;
	th->actions[th->n_actions] =
	    (struct dps_actset_action){.kind = kind, .line = line, .aux = aux};
	if (dps_actset_kind_names_thread(kind) || dps_actset_kind_names_object(kind) ||
	    dps_actset_kind_names_members(kind)) {
		th->actions[th->n_actions].id = (uint64_t)arg;
	} else {
		th->actions[th->n_actions].value = arg;
	}
	th->n_actions++;
	set->resolved = false;
	return DPS_OK;
}

static size_t find_in_index(const struct dps_actset_id_index *ix, size_t n, uint64_t id);

size_t dps_actset_find(const struct dps_actset *set, uint64_t id)
{
	if (set->resolved && set->ids) {
		return find_in_index(set->ids, set->n_threads, id);
	}
	for (size_t i = 0; i < set->n_threads; i++) {
		if (set->threads[i].id == id) {
			return i;
		}
	}
	return DPS_ACTSET_NO_THREAD;
}

/*
 * Resolution: the creation graph.
 */

/* id -> thread index, sorted by id, so that resolving n threads is O(n log n), not O(n^2)
 * (8,001 threads in many-threads); kept by the set for dps_actset_target/find. */
struct dps_actset_id_index {
	uint64_t id;
	size_t idx;
};

static int cmp_id_index(const void *a, const void *b)
{
	const struct dps_actset_id_index *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct dps_actset_id_index *build_id_index(const struct dps_actset *set)
{
	struct dps_actset_id_index *ix =
	    malloc((set->n_threads ? set->n_threads : 1) * sizeof(*ix));

	if (!ix) {
		return NULL;
	}
	for (size_t i = 0; i < set->n_threads; i++) {
		ix[i] = (struct dps_actset_id_index){.id = set->threads[i].id, .idx = i};
	}
	qsort(ix, set->n_threads, sizeof(*ix), cmp_id_index);
	return ix;
}

size_t dps_actset__find_in_index(const struct dps_actset_id_index *ix, size_t n, uint64_t id)
{
	return find_in_index(ix, n, id);
}

static size_t find_in_index(const struct dps_actset_id_index *ix, size_t n, uint64_t id)
{
	struct dps_actset_id_index key = {.id = id};
	const struct dps_actset_id_index *hit = bsearch(&key, ix, n, sizeof(*ix), cmp_id_index);

	return hit ? hit->idx : DPS_ACTSET_NO_THREAD;
}
void dps_actset__describe_action(const struct dps_actset *set, size_t t, size_t a,
				 GArray *const *cols, const char **file, unsigned *line,
				 unsigned *col)
{
	const struct dps_actset_thread *th = &set->threads[t];

	*file = th->path;
	*line = th->actions[a].line;
	*col = cols && a < cols[t]->len ? g_array_index(cols[t], uint32_t, a) : 0;
}

int dps_actset__resolve(struct dps_actset *set, GArray *const *cols, struct dps_diag *diag)
{
	size_t n = set->n_threads;
	size_t *creator_act = NULL; /* per thread: action index of its create, in parent */
	size_t *stack = NULL;
	bool *reached = NULL;
	struct dps_actset_id_index *ix = NULL;
	size_t root = DPS_ACTSET_NO_THREAD;
	int status = DPS_ERR_INVAL;
	char thread_name[64];

	if (!n) {
		dps_diag_set(diag, set->dir ? set->dir : "action set", 0, 0,
			     "no thread: expected at least one <id>.act file");
		return DPS_ERR_INVAL;
	}
	creator_act = malloc(n * sizeof(*creator_act));
	stack = malloc(n * sizeof(*stack));
	reached = calloc(n, sizeof(*reached));
	ix = build_id_index(set);
	if (!creator_act || !stack || !reached || !ix) {
		dps_diag_setf(diag, "out of memory resolving the action set");
		status = DPS_ERR_NOMEM;
		goto end;
	}
	for (size_t i = 0; i < n; i++) {
		set->threads[i].parent = DPS_ACTSET_NO_THREAD;
		set->threads[i].create_rank = 0;
		creator_act[i] = SIZE_MAX;
	}

	/* Pass 0: a run's cache figures, for a set built in memory (the parser checked its own) */
	for (size_t t = 0; t < n; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		for (size_t a = 0; a < th->n_actions; a++) {
			const struct dps_actset_action *act = &th->actions[a];
			const char *file, *problem;
			unsigned line, col;

			if (act->kind != DPS_ACT_RUN || !act->aux) {
				continue;
			}
			problem = act->aux <= set->n_caches
				      ? dps_action_cache_problem(&set->caches[act->aux - 1])
				      : "no such cache figures in the set";
			if (problem) {
				dps_actset__describe_action(set, t, a, cols, &file, &line, &col);
				dps_diag_set(diag, file, line, col, "run's cache figures: %s",
					     problem);
				goto end;
			}
		}
	}

	/* Pass 1: creates. */
	for (size_t t = 0; t < n; t++) {
		struct dps_actset_thread *th = &set->threads[t];
		size_t rank = 0;

		for (size_t a = 0; a < th->n_actions; a++) {
			struct dps_actset_action *act = &th->actions[a];
			const char *file;
			unsigned line, col;
			size_t child;

			if (act->kind != DPS_ACT_CREATE) {
				continue;
			}
			dps_actset__describe_action(set, t, a, cols, &file, &line, &col);
			child = find_in_index(ix, n, act->id);
			if (child == DPS_ACTSET_NO_THREAD) {
				dps_diag_set(diag, file, line, col,
					     "create of thread %" PRIu64
					     " which has no action file: expected %" PRIu64
					     ".act in the set",
					     act->id, act->id);
				goto end;
			}
			if (child == t) {
				dps_diag_set(diag, file, line, col,
					     "thread %" PRIu64 " creates itself", th->id);
				goto end;
			}
			if (set->threads[child].parent != DPS_ACTSET_NO_THREAD) {
				const char *f0;
				unsigned l0, c0;

				dps_actset__describe_action(set, set->threads[child].parent,
							    creator_act[child], cols, &f0, &l0,
							    &c0);
				dps_diag_set(diag, file, line, col,
					     "thread %" PRIu64
					     " is created twice (first at %s:%u); expected one "
					     "create per thread",
					     act->id, f0 ? f0 : "?", l0);
				goto end;
			}
			set->threads[child].parent = t;
			set->threads[child].create_rank = rank++;
			creator_act[child] = a;
		}
	}

	/* Roots. */
	for (size_t t = 0; t < n; t++) {
		if (set->threads[t].parent != DPS_ACTSET_NO_THREAD) {
			continue;
		}
		if (root != DPS_ACTSET_NO_THREAD) {
			/* Point at the second root's first line: that file is the one no create
			 * names, where a fix (or a missing create elsewhere) is looked for. */
			dps_diag_set(diag,
				     set->threads[t].path ? set->threads[t].path : "action set",
				     set->threads[t].path ? 1 : 0, set->threads[t].path ? 1 : 0,
				     "several root threads (%" PRIu64 " and %" PRIu64
				     " are created by no thread); expected exactly one",
				     set->threads[root].id, set->threads[t].id);
			goto end;
		}
		root = t;
	}
	if (root == DPS_ACTSET_NO_THREAD) {
		const char *file;
		unsigned line, col;

		/* Every thread has a creator, so thread 0's create exists: name it. */
		dps_actset__describe_action(set, set->threads[0].parent, creator_act[0], cols,
					    &file, &line, &col);
		dps_diag_set(diag, file ? file : (set->dir ? set->dir : "action set"), line, col,
			     "no root thread: every thread is created by another (a create "
			     "cycle through thread %" PRIu64
			     "); expected exactly one thread that no file creates",
			     set->threads[0].id);
		goto end;
	}

	/* Reachability from the root: an unreached thread is in a create cycle. */
	{
		size_t sp = 0;

		stack[sp++] = root;
		reached[root] = true;
		while (sp) {
			size_t t = stack[--sp];
			const struct dps_actset_thread *th = &set->threads[t];

			for (size_t a = 0; a < th->n_actions; a++) {
				size_t c;

				if (th->actions[a].kind != DPS_ACT_CREATE) {
					continue;
				}
				c = find_in_index(ix, n, th->actions[a].id);
				if (!reached[c]) {
					reached[c] = true;
					stack[sp++] = c;
				}
			}
		}
		for (size_t t = 0; t < n; t++) {
			const char *file;
			unsigned line, col;

			if (reached[t]) {
				continue;
			}
			dps_actset__describe_action(set, set->threads[t].parent, creator_act[t],
						    cols, &file, &line, &col);
			dps_diag_set(diag, file, line, col,
				     "create cycle: thread %" PRIu64
				     " is created by a thread that the root never starts",
				     set->threads[t].id);
			goto end;
		}
	}

	/* Pass 2: every thread reference names another thread of the set. */
	for (size_t t = 0; t < n; t++) {
		struct dps_actset_thread *th = &set->threads[t];

		for (size_t a = 0; a < th->n_actions; a++) {
			struct dps_actset_action *act = &th->actions[a];
			const char *file;
			unsigned line, col;
			size_t other;

			if (!dps_actset_kind_names_thread(act->kind)) {
				continue;
			}
			dps_actset__describe_action(set, t, a, cols, &file, &line, &col);
			other = find_in_index(ix, n, act->id);
			if (act->kind != DPS_ACT_CREATE) {
				snprintf(thread_name, sizeof(thread_name), "%" PRIu64, act->id);
				if (other == DPS_ACTSET_NO_THREAD) {
					dps_diag_set(diag, file, line, col,
						     "%s of thread %s which is never created: "
						     "expected the id of a thread in the set",
						     dps_actset__kind_word(act->kind), thread_name);
					goto end;
				}
				if (other == t) {
					dps_diag_set(diag, file, line, col,
						     "%s of the thread itself: expected another "
						     "thread's id",
						     dps_actset__kind_word(act->kind));
					goto end;
				}
				if (act->kind == DPS_ACT_JOIN && other == root) {
					dps_diag_set(diag, file, line, col,
						     "join of the root thread %s, which is never "
						     "created: expected a created thread",
						     thread_name);
					goto end;
				}
			}
		}
	}
	status = dps_actset__check_order(set, ix, cols, diag);
	if (status) {
		goto end;
	}
	status = dps_actset__check_sync(set, ix, root, cols, diag);
	if (status) {
		goto end;
	}
	set->root = root;
	set->resolved = true;
	free(set->ids);
	set->ids = ix;
	ix = NULL;
	status = DPS_OK;
end:
	free(creator_act);
	free(stack);
	free(reached);
	free(ix);
	return status;
}

size_t dps_actset_member_target(const struct dps_actset *set, size_t i)
{
	if (i >= set->n_members || !set->resolved || !set->ids) {
		return DPS_ACTSET_NO_THREAD;
	}
	return find_in_index(set->ids, set->n_threads, set->members[i]);
}

struct dps_action dps_actset_played_action(const struct dps_actset *set,
					   const struct dps_actset_action *a)
{
	struct dps_action p = {.kind = a->kind, .line = a->line, .arg = a->value};

	if (dps_actset_kind_names_thread(a->kind)) {
		p.arg = (int64_t)dps_actset_target(set, a);
	} else if (dps_actset_kind_names_object(a->kind)) {
		p.arg = (int64_t)dps_actset_find_object(set, a->id);
	} else if (dps_actset_kind_names_members(a->kind)) {
		p.arg = (int64_t)a->first;
	}
	p.arg2 = (int64_t)a->aux;
	return p;
}

int dps_actset_program_tables(const struct dps_actset *set, struct dps_object **objects,
			      uint32_t **members)
{
	size_t n = set->n_members, k = set->n_members;

	for (size_t i = 0; i < set->n_objects; i++) {
		n += set->objects[i].n_order;
	}
	*objects = calloc(set->n_objects ? set->n_objects : 1, sizeof(**objects));
	*members = calloc(n ? n : 1, sizeof(**members));
	if (!*objects || !*members) {
		free(*objects);
		free(*members);
		*objects = NULL;
		*members = NULL;
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < set->n_members; i++) {
		(*members)[i] = (uint32_t)dps_actset_member_target(set, i);
	}
	for (size_t i = 0; i < set->n_objects; i++) {
		const struct dps_actset_object *o = &set->objects[i];

		(*objects)[i] = (struct dps_object){.id = o->id,
						    .kind = o->kind,
						    .line = o->line,
						    .capacity = o->capacity,
						    .initial = o->initial};
		/* a task queue's takers follow the member sets in the same table */
		if (o->order) {
			(*objects)[i].order = *members + k;
			(*objects)[i].n_order = o->n_order;
			for (size_t j = 0; j < o->n_order; j++) {
				(*members)[k++] = (uint32_t)dps_actset_find(set, o->order[j]);
			}
		}
	}
	return DPS_OK;
}

size_t dps_actset_target(const struct dps_actset *set, const struct dps_actset_action *a)
{
	if (!dps_actset_kind_names_thread(a->kind) || !set->resolved || !set->ids) {
		return DPS_ACTSET_NO_THREAD;
	}
	return find_in_index(set->ids, set->n_threads, a->id);
}

int dps_actset_resolve(struct dps_actset *set, struct dps_diag *diag)
{
	if (set->resolved) {
		return DPS_OK;
	}
	return dps_actset__resolve(set, NULL, diag);
}

char *dps_actset__path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (p) {
		memcpy(p, dir, a);
		p[a] = '/';
		memcpy(p + a + 1, name, b + 1);
	}
	return p;
}
