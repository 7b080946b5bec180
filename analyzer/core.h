/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's core: per-thread state machines fed with neutral events (event.h), and the
 * step that turns their timelines into an analyzer_result and an action set. No babeltrace2
 * here: tests feed it synthetic sequences.
 */
#ifndef DPS_ANALYZER_CORE_H
#define DPS_ANALYZER_CORE_H

#include <stdbool.h>

#include "analyzer.h"
#include "event.h"

struct analyzer_core;

/*
 * opts is copied (its strings stay borrowed and must outlive the core). has_sched: the input
 * holds kernel scheduling events (LTTng kernel or perf); without them (UST only) a thread is
 * taken as running from its first to its last event. Returns NULL on ENOMEM.
 */
struct analyzer_core *analyzer_core_create(const struct analyzer_options *opts, bool has_sched);
void analyzer_core_destroy(struct analyzer_core *core); /* accepts NULL */

/* Feeds one event, in timestamp order. Returns DPS_OK, DPS_ERR_NOMEM, or DPS_ERR_IO when the
 * spill file (spill.c) cannot be written: analyzer_core_borrow_error says why. */
enum dps_status analyzer_core_feed(struct analyzer_core *core, const struct analyzer_event *ev);

/* The message of a DPS_ERR_IO status ("" otherwise); borrowed, valid while core lives. */
const char *analyzer_core_borrow_error(const struct analyzer_core *core);

/*
 * Ends the timelines at the last event and fills res: the selected threads (with the action
 * set when opts->build_actset, or written into opts->out_dir), or with list_only the process
 * list. Returns DPS_OK, DPS_ERR_INVAL when the selection matches nothing or several processes
 * (diag lists the candidates), DPS_ERR_IO (the spill file or out_dir: diag says which),
 * DPS_ERR_NOMEM. Call once.
 */
enum dps_status analyzer_core_finish(struct analyzer_core *core, bool list_only,
				     struct analyzer_result *res, struct dps_diag *diag);

#endif /* DPS_ANALYZER_CORE_H */
