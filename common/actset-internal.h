/* SPDX-License-Identifier: MIT */
/* What the action-set files share (not part of actset.h's API). */
#ifndef DPS_COMMON_ACTSET_INTERNAL_H
#define DPS_COMMON_ACTSET_INTERNAL_H

#include "actset.h"

/* Per-thread parse positions kept apart from the public struct: the column of each action's
 * argument, for resolve-time errors. Index-parallel to set->threads. */
struct actset_cols {
	uint32_t *cols;
	size_t n;
};

/* The keyword of a kind, for messages ("?" for no kind). */
static inline const char *dps_actset__kind_word(uint32_t kind)
{
	const char *kw = dps_action_kind_name(kind);

	return kw ? kw : "?";
}

/* Resolves set (actset.c); cols (per thread, may be NULL) gives the columns of the actions'
 * arguments for messages. */
int dps_actset__resolve(struct dps_actset *set, const struct actset_cols *cols,
			struct dps_diag *diag);

/* "dir/name", malloc'd (NULL on ENOMEM). */
char *dps_actset__path_join(const char *dir, const char *name);

#endif /* DPS_COMMON_ACTSET_INTERNAL_H */
