/* SPDX-License-Identifier: MIT */
/*
 * Task queues (doc/sync.md, "Task queues"): the items of a queue whose consumers share its
 * work. In the recording, thread T took item k (the manifest's `tasks` line lists T for every
 * take, in take order) and then ran what follows that take in its action list, up to its next
 * take of the same queue: that stretch is item k's work. In the play, whoever takes item k
 * runs that stretch (at its own speed), so a consumer made faster takes more items, as the
 * real one would. T's last take ends its share: after it T ran its own epilogue, and in the
 * play the thread that takes that item ends its share the same way (it goes on after its own
 * last take).
 *
 * This file builds the item table from the program and refuses what a borrowed stretch cannot
 * hold: a wait, join or create (they are T's own business with other threads), memory actions
 * (the taker's stubs are its own), a take of another task queue. A wake stays T's: whoever
 * plays the item gives the wake in T's name, so the sleeper's `wait T` still counts it.
 */
#include <stdlib.h>

#include "player-internal.h"

/* Whether a stretch of a task queue's item may hold action a. */
static bool item_may_hold(const struct dps_program *prog, const struct dps_action *a)
{
	return dps_action_kind_fits_task(a->kind) &&
	       (a->kind != DPS_ACT_TAKE || !prog->objects[a->arg].order);
}

int dps__task_items(const struct dps_program *prog, size_t o, struct dps__task_item **out)
{
	const struct dps_object *obj = &prog->objects[o];
	size_t *seen = calloc(prog->n_threads ? prog->n_threads : 1, sizeof(*seen));
	size_t *pos = calloc(prog->n_threads ? prog->n_threads : 1, sizeof(*pos));
	struct dps__task_item *items = calloc(obj->n_order ? obj->n_order : 1, sizeof(*items));
	int ret = DPS_OK;

	*out = NULL;
	if (!seen || !pos || !items) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	/* pos[t]: where thread t's next take of the queue is looked for */
	for (uint64_t k = 0; k < obj->n_order && !ret; k++) {
		uint32_t t = obj->order[k];
		const struct dps_thread_desc *d;
		size_t i;

		if (t >= prog->n_threads) {
			ret = DPS_ERR_INVAL;
			break;
		}
		d = &prog->threads[t];
		for (i = pos[t]; i < d->n_actions; i++) {
			if (d->actions[i].kind == DPS_ACT_TAKE && (size_t)d->actions[i].arg == o) {
				break;
			}
		}
		if (i == d->n_actions) {
			ret = DPS_ERR_INVAL; /* listed more often than it takes */
			break;
		}
		items[k].owner = t;
		items[k].begin = i + 1;
		for (i++; i < d->n_actions; i++) {
			if (d->actions[i].kind == DPS_ACT_TAKE && (size_t)d->actions[i].arg == o) {
				break;
			}
		}
		items[k].end = i;
		items[k].last = i == d->n_actions;
		pos[t] = i;
		seen[t]++;
		for (size_t j = items[k].begin; !items[k].last && j < items[k].end; j++) {
			if (!item_may_hold(prog, &d->actions[j])) {
				ret = DPS_ERR_INVAL;
			}
		}
	}
	/* every take listed: a listed thread's last listed item is its last take; an unlisted
	 * thread takes nothing from the queue */
	for (size_t t = 0; t < prog->n_threads && !ret; t++) {
		const struct dps_thread_desc *d = &prog->threads[t];

		if (seen[t]) {
			ret = pos[t] == d->n_actions ? DPS_OK : DPS_ERR_INVAL;
			continue;
		}
		for (size_t i = 0; i < d->n_actions; i++) {
			if (d->actions[i].kind == DPS_ACT_TAKE && (size_t)d->actions[i].arg == o) {
				ret = DPS_ERR_INVAL;
			}
		}
	}
end:
	free(seen);
	free(pos);
	if (ret) {
		free(items);
		return ret;
	}
	*out = items;
	return DPS_OK;
}
