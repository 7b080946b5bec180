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

/* "dir/name", malloc'd (NULL on ENOMEM). */
char *dps_actset__path_join(const char *dir, const char *name);

#endif /* DPS_COMMON_ACTSET_INTERNAL_H */
