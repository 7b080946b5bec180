/* SPDX-License-Identifier: MIT */
/* The libbabeltrace2 adapter (bt-source.c): traces -> neutral events -> core. */
#ifndef DPS_ANALYZER_BT_SOURCE_H
#define DPS_ANALYZER_BT_SOURCE_H

#include <stdbool.h>

#include "analyzer.h"

/*
 * Finds the CTF traces below opts->traces, reads them all in timestamp order into a core and
 * finishes it into res (list_only: the process list). Returns DPS_OK, DPS_ERROR when
 * babeltrace2 refuses a trace (diag: its causes on one line), DPS_ERR_INVAL/DPS_ERR_NOENT for
 * a path that holds no trace or a selection problem, DPS_ERR_NOMEM.
 */
int analyzer_source_read(const struct analyzer_options *opts, bool list_only,
			 struct analyzer_result *res, struct dps_diag *diag);

#endif /* DPS_ANALYZER_BT_SOURCE_H */
