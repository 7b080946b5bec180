/* SPDX-License-Identifier: MIT */
/* Stream groups for parallel decoding and their views (groups.c). */
#ifndef DPS_ANALYZER_GROUPS_H
#define DPS_ANALYZER_GROUPS_H

#include <stddef.h>

#include <glib.h>

#include "bt-source.h"
#include "diag.h"

/* What the decoders of stream groups read: the views, and the files behind them. */
struct analyzer_groups {
	char *root;			    /* owned: the temporary directory of the views */
	GPtrArray *traces;		    /* owned: char * (g_free), as found */
	GPtrArray *files;		    /* owned: per trace, a GPtrArray of its stream files */
	struct analyzer_source_view *views; /* owned: n_groups x traces->len, group-major */
	GPtrArray *strings;		    /* owned: the views' directories (g_free) */
	GPtrArray *infos;		    /* owned: the views' file infos (g_free) */
	size_t n_groups;
};

/*
 * Splits the streams of the traces below paths (borrowed) into up to jobs groups of similar
 * size in bytes, and makes each group's views, which leave out the stream files that are
 * copies of others (analyzer_find_traces's left_out). *out stays NULL when there is one group
 * (jobs 1, or fewer than 2 streams in all) and nothing to leave out, or the views cannot be
 * made (one decoder on the traces then); else what babeltrace2 would pass over
 * (analyzer_find_traces) is appended to skips (char *, g_free). Returns DPS_OK, the errors of
 * looking for the traces, as a decoder would say them, or DPS_ERROR when a copy must be left
 * out and no view can be made (diag names the copy).
 */
int analyzer_groups_plan(const char *const *paths, size_t n_paths, size_t jobs,
			 struct analyzer_groups **out, GPtrArray *skips, struct dps_diag *diag);

/* Removes the views and frees g; accepts NULL. */
void analyzer_groups_free(struct analyzer_groups *g);

#endif /* DPS_ANALYZER_GROUPS_H */
