/* SPDX-License-Identifier: MIT */
/* What the action-set files share (not part of actset.h's API). */
#ifndef DPS_COMMON_ACTSET_INTERNAL_H
#define DPS_COMMON_ACTSET_INTERNAL_H

#include <glib.h>

#include "actset.h"

/* The keyword of a kind, for messages ("?" for no kind). */
static inline const char *dps_actset__kind_word(uint32_t kind)
{
	const char *kw = dps_action_kind_name(kind);

	return kw ? kw : "?";
}

/* Resolves set (actset.c). cols (may be NULL), index-parallel to set->threads, holds each
 * thread's parse positions apart from the public struct: a GArray of uint32_t, the column of
 * each action's argument, for resolve-time messages. */
int dps_actset__resolve(struct dps_actset *set, GArray *const *cols, struct dps_diag *diag);

struct dps_actset_id_index;
/* The index of thread id in ix (n entries, made by resolve), or DPS_ACTSET_NO_THREAD. */
size_t dps_actset__find_in_index(const struct dps_actset_id_index *ix, size_t n, uint64_t id);
/* Where action a of thread t is: its file, line and the column of its argument (0 without
 * cols). */
void dps_actset__describe_action(const struct dps_actset *set, size_t t, size_t a,
				 GArray *const *cols, const char **file, unsigned *line,
				 unsigned *col);
/*
 * Resolve's checks of format version 2 (actset-sync.c): the objects (sorted by id here, no id
 * twice), every object reference (declared, of the right kind), the member sets (threads of
 * the set, not the thread itself, each once), each thread's locks (no unlock of a mutex it
 * does not hold, none held at its end), every take (some thread puts into its queue, or the
 * queue starts with items), and each thread's `join any` sets (every member joined in the
 * end). Returns DPS_OK, DPS_ERR_INVAL (diag: file:line:column) or DPS_ERR_NOMEM.
 */
int dps_actset__check_sync(struct dps_actset *set, const struct dps_actset_id_index *ix,
			   size_t root, GArray *const *cols, struct dps_diag *diag);

/*
 * Resolve's check of the order creates and joins impose (actset-cycles.c): no `join` can wait,
 * through joins and creates, for its own thread's end (2 joins 3 and 3 joins 2; 1 joins 2
 * before it creates 3, which 2 joins). Needs the creates and joins resolved (every one names a
 * thread of the set). Returns DPS_OK, DPS_ERR_INVAL (diag: the file:line:column of a join of
 * the cycle, and the cycle) or DPS_ERR_NOMEM.
 */
int dps_actset__check_order(const struct dps_actset *set, const struct dps_actset_id_index *ix,
			    GArray *const *cols, struct dps_diag *diag);

/* "dir/name", malloc'd (NULL on ENOMEM). */
char *dps_actset__path_join(const char *dir, const char *name);

#endif /* DPS_COMMON_ACTSET_INTERNAL_H */
