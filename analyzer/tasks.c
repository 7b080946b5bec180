/* SPDX-License-Identifier: MIT */
/*
 * Task queues (tasks.h). While a thread's actions are made, each take of a queue opens a
 * stretch that the thread's next take of the same queue closes; a closed stretch that holds an
 * action naming a thread (create, join, wait), a memory action, or an unlock of a mutex
 * locked before it, or that ends holding a lock, marks its queue as one whose work cannot move
 * between threads; so does a put back into the queue itself (the thread returns what it took:
 * a semaphore's slot, a resource, not a task). The stretch after a thread's last take is its
 * epilogue, its own: never checked. At the end the queues taken from by two threads or more and
 * never marked get the takers of their items in take order.
 */
#include <stdlib.h>

#include <glib.h>

#include "tasks.h"

struct take {
	uint64_t ts;
	uint64_t queue; /* object id */
	uint64_t thread;
};

struct analyzer_tasks {
	GArray *takes;	  /* struct take, in the order the threads were made */
	GHashTable *bad;  /* object ids whose stretches cannot move */
	GHashTable *seen; /* object id -> first taker id + 1, or 0 once two threads took */
};

struct open_stretch {
	uint64_t queue;
	int64_t depth; /* locks taken in the stretch and not released */
	bool bad;
};

struct analyzer_task_thread {
	struct analyzer_tasks *tk;
	uint64_t id;
	GArray *open; /* struct open_stretch */
};

struct analyzer_tasks *analyzer_tasks_create(void)
{
	struct analyzer_tasks *tk = g_new0(struct analyzer_tasks, 1);

	tk->takes = g_array_new(FALSE, FALSE, sizeof(struct take));
	tk->bad = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	tk->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	return tk;
}

void analyzer_tasks_destroy(struct analyzer_tasks *tk)
{
	if (!tk) {
		return;
	}
	g_array_free(tk->takes, TRUE);
	g_hash_table_destroy(tk->bad);
	g_hash_table_destroy(tk->seen);
	g_free(tk);
}

static void mark_bad(struct analyzer_tasks *tk, uint64_t queue)
{
	uint64_t *key = NULL;

	if (!g_hash_table_contains(tk->bad, &queue)) {
		key = g_new(uint64_t, 1);
		*key = queue;
		g_hash_table_add(tk->bad, key);
	}
}

struct analyzer_task_thread *analyzer_tasks_thread_begin(struct analyzer_tasks *tk, uint64_t id)
{
	struct analyzer_task_thread *tt = g_new0(struct analyzer_task_thread, 1);

	tt->tk = tk;
	tt->id = id;
	tt->open = g_array_new(FALSE, FALSE, sizeof(struct open_stretch));
	return tt;
}

static void note_taker(struct analyzer_tasks *tk, uint64_t queue, uint64_t thread)
{
	uint64_t *v = g_hash_table_lookup(tk->seen, &queue);

	if (!v) {
		uint64_t *k = g_new(uint64_t, 1);

		*k = queue;
		v = g_new(uint64_t, 1);
		*v = thread + 1;
		g_hash_table_insert(tk->seen, k, v);
	} else if (*v && *v != thread + 1) {
		*v = 0; /* two takers or more */
	}
}

void analyzer_tasks_action(struct analyzer_task_thread *tt, uint32_t kind, int64_t arg, uint64_t ts)
{
	GArray *open = tt->open;

	switch (kind) {
	case DPS_ACT_TAKE:
		/* closes the queue's own stretch; in another queue's, a take makes it one that
		 * cannot move: which queues become task queues is known only at the end, and the
		 * player does not nest them (stricter than the validator, which knows) */
		for (guint i = 0; i < open->len;) {
			struct open_stretch *s = &g_array_index(open, struct open_stretch, i);

			if (s->queue != (uint64_t)arg) {
				s->bad = true;
				i++;
				continue;
			}
			if (s->bad || s->depth) {
				mark_bad(tt->tk, s->queue);
			}
			g_array_remove_index_fast(open, i);
		}
		g_array_append_val(open, ((struct open_stretch){.queue = (uint64_t)arg}));
		g_array_append_val(
		    tt->tk->takes,
		    ((struct take){.ts = ts, .queue = (uint64_t)arg, .thread = tt->id}));
		note_taker(tt->tk, (uint64_t)arg, tt->id);
		return;
	case DPS_ACT_PUT:
		/* a put back into the queue it took from: the item is a resource the thread
		 * holds and returns (a semaphore's slot), not work another thread could do */
		for (guint i = 0; i < open->len; i++) {
			if (g_array_index(open, struct open_stretch, i).queue == (uint64_t)arg) {
				mark_bad(tt->tk, (uint64_t)arg);
			}
		}
		return;
	default:
		break;
	}
	if (dps_action_kind_fits_task(kind) && kind != DPS_ACT_LOCK && kind != DPS_ACT_UNLOCK) {
		return;
	}
	for (guint i = 0; i < open->len; i++) {
		struct open_stretch *s = &g_array_index(open, struct open_stretch, i);

		if (kind == DPS_ACT_LOCK) {
			s->depth++;
		} else if (kind == DPS_ACT_UNLOCK && s->depth > 0) {
			s->depth--;
		} else {
			s->bad = true;
		}
	}
}

void analyzer_tasks_thread_end(struct analyzer_task_thread *tt)
{
	if (!tt) {
		return;
	}
	/* the open stretches are the epilogues: the threads' own */
	g_array_free(tt->open, TRUE);
	g_free(tt);
}

static int cmp_take(const void *a, const void *b)
{
	const struct take *x = a, *y = b;

	if (x->queue != y->queue) {
		return x->queue < y->queue ? -1 : 1;
	}
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

int analyzer_tasks_declare(struct analyzer_tasks *tk, struct dps_actset *set)
{
	GArray *takes = tk->takes;
	guint i = 0;

	g_array_sort(takes, cmp_take);
	while (i < takes->len) {
		uint64_t queue = g_array_index(takes, struct take, i).queue;
		const uint64_t *taker = g_hash_table_lookup(tk->seen, &queue);
		size_t o = dps_actset_find_object(set, queue);
		guint j = i;

		while (j < takes->len && g_array_index(takes, struct take, j).queue == queue) {
			j++;
		}
		if (taker && *taker == 0 && !g_hash_table_contains(tk->bad, &queue) &&
		    o != DPS_ACTSET_NO_OBJECT && set->objects[o].kind == DPS_OBJ_QUEUE) {
			struct dps_actset_object *obj = &set->objects[o];

			obj->order = malloc((j - i) * sizeof(*obj->order));
			if (!obj->order) {
				return DPS_ERR_NOMEM;
			}
			obj->n_order = j - i;
			for (guint k = i; k < j; k++) {
				obj->order[k - i] = g_array_index(takes, struct take, k).thread;
			}
		}
		i = j;
	}
	return DPS_OK;
}
