/* SPDX-License-Identifier: MIT */
/* Finding CTF traces in directories (find-traces.c): no babeltrace2 here. */
#ifndef DPS_ANALYZER_FIND_TRACES_H
#define DPS_ANALYZER_FIND_TRACES_H

#include <stddef.h>

#include <glib.h>

#include "diag.h"

/*
 * Appends to out (char *, g_free) every directory below paths that holds a `metadata` file,
 * sorted, and to skips (char *, g_free) one message per thing babeltrace2 would pass over
 * without a word: an empty stream file of a trace, a directory of CTF stream files without
 * metadata, a stream file missing or there twice (streams.h). left_out (may be NULL): the
 * paths (char *, g_free) of the stream files that must not be read, copies of others; a
 * reader that cannot leave them out must refuse the trace. Returns DPS_OK; DPS_ERR_NOENT (a
 * path that is not there), DPS_ERR_INVAL (not a directory, or no trace below it),
 * DPS_ERR_IO; diag says which path.
 */
int analyzer_find_traces(const char *const *paths, size_t n, GPtrArray *out, GPtrArray *skips,
			 GPtrArray *left_out, struct dps_diag *diag);

#endif /* DPS_ANALYZER_FIND_TRACES_H */
