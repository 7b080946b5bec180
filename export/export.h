/* SPDX-License-Identifier: MIT */
/*
 * export: runs as other tools show them (doc/export.md). The input is a trace, an action set
 * or a replay's output directory; each run in it becomes a struct analyzer_result model (the
 * analyzer's per-thread timelines, through compare_load: every trace is read through
 * libbabeltrace2 by the analyzer), and a writer turns the models into a file another tool
 * opens: today the Chrome/Perfetto JSON trace-event format, for ui.perfetto.dev and
 * chrome://tracing.
 */
#ifndef DPS_EXPORT_EXPORT_H
#define DPS_EXPORT_EXPORT_H

#include <stdio.h>

#include <dps/dps-status.h>

#include "analyzer.h"
#include "compare.h"
#include "diag.h"

enum dps_export_format {
	DPS_EXPORT_PERFETTO = 0, /* Chrome/Perfetto JSON trace-event format */
};

/* "perfetto" (also "chrome", "json": the same format) -> *format. False for any other name. */
bool dps_export_format_parse(const char *name, enum dps_export_format *format);

/* One run of the input: one process in the exported file. */
struct dps_export_run {
	struct analyzer_result *model; /* owned */
	enum compare_input_kind kind;  /* a trace or an action set (played on an ideal machine) */
	char *role;		       /* owned: "original", "simulated", or NULL for a lone run */
	char *source;		       /* owned: the path it was read from */
};

/* What dps_export_load found: one run (a trace, a set) or two (a replay's, side by side). */
struct dps_export_input {
	struct dps_export_run runs[2];
	size_t n_runs;
};

/*
 * Loads path:
 * - a replay's output directory (replay.h: its replay.info): the replayed trace, selected by
 *   sel's selection, else by the root tid of OUTDIR/set's manifest, else by the trace's
 *   record.info; and OUTDIR/sim-trace, selected by its record.info. Both analyzed with sel's
 *   other options, the calibration defaulting to OUTDIR/calibration;
 * - a trace: analyzed with sel (no selection: the trace's record.info, as dps analyze);
 * - an action set: played on an ideal machine (compare_model_from_actset).
 * sel's traces are ignored. Returns DPS_OK; DPS_ERR_NOENT for a path that is not there;
 * DPS_ERR_INVAL for bad input (no selection, a selection matching nothing, a bad set, a
 * replay directory whose trace is gone) with diag naming it; DPS_ERROR when babeltrace2
 * refuses a trace; DPS_ERR_NOMEM. *out is NULL on error; destroy it with
 * dps_export_input_destroy.
 */
enum dps_status dps_export_load(const char *path, const struct analyzer_options *sel,
				struct dps_export_input **out, struct dps_diag *diag);
void dps_export_input_destroy(struct dps_export_input *in); /* accepts NULL */

/*
 * Writes the runs in the Chrome/Perfetto JSON trace-event format (doc/export.md, "What is in
 * the file"): a process per run, a track per thread, slices for run, preempted and blocked, a
 * flow arrow from each wake-up to the woken thread and from each exit to its joiner, a heap
 * counter when the run has memory samples. Times are in us from each run's first instant, so
 * two runs start together. Returns DPS_OK, or DPS_ERR_IO when a write fails (errno set).
 */
enum dps_status dps_export_write_perfetto(const struct dps_export_input *in, FILE *out);

#endif /* DPS_EXPORT_EXPORT_H */
