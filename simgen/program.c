/* SPDX-License-Identifier: MIT */
/*
 * An action set as the player's tables in memory (simgen.h, simgen_program_make): what the
 * generated C program holds in its static tables (simgen.c), built at run time instead, so
 * that dps run plays a set without generating code and both play the same tables.
 */
#include <stdlib.h>

#include "simgen.h"

int simgen_program_make(const struct dps_actset *set, const char *name, struct simgen_program *p)
{
	size_t total = 0, k = 0;

	*p = (struct simgen_program){0};
	if (dps_actset_program_tables(set, &p->objects, &p->members)) {
		goto error;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		total += set->threads[t].n_actions;
	}
	p->threads = calloc(set->n_threads ? set->n_threads : 1, sizeof(*p->threads));
	p->actions = calloc(total ? total : 1, sizeof(*p->actions));
	if (!p->threads || !p->actions) {
		goto error;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		p->threads[t] = (struct dps_thread_desc){
		    .id = th->id,
		    .name = th->comm,
		    .actions = p->actions + k,
		    .n_actions = th->n_actions,
		};
		for (size_t a = 0; a < th->n_actions; a++) {
			p->actions[k++] = dps_actset_played_action(set, &th->actions[a]);
		}
	}
	p->prog = (struct dps_program){
	    .name = name,
	    .threads = p->threads,
	    .n_threads = set->n_threads,
	    .root = set->root,
	    .objects = p->objects,
	    .n_objects = set->n_objects,
	    .members = p->members,
	    .n_members = set->n_members,
	    .caches = set->caches, /* borrowed: the set outlives the play */
	    .n_caches = set->n_caches,
	};
	return DPS_OK;
error:
	simgen_program_fini(p);
	return DPS_ERR_NOMEM;
}

void simgen_program_fini(struct simgen_program *p)
{
	if (!p) {
		return;
	}
	free(p->threads);
	free(p->actions);
	free(p->objects);
	free(p->members);
	*p = (struct simgen_program){0};
}
