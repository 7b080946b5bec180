/* SPDX-License-Identifier: MIT */
/*
 * dps whatif TRACE without a component (doc/whatif.md, "Which thread to study"): the traced
 * process analyzed (no set written, no calibration, nothing built) and its threads listed as
 * analyzer/rank.c ranks them, with the ids --thread takes.
 */
#include <inttypes.h>
#include <stdio.h>

#include <glib.h>

#include "analyzer.h"
#include "record.h"
#include "whatif.h"

enum dps_status whatif_candidates(const struct whatif_options *opts, FILE *out,
				  struct dps_diag *diag)
{
	struct analyzer_result *ares = NULL;
	struct analyzer_options a;
	enum dps_status st;

	analyzer_options_default(&a);
	a.traces = &opts->input;
	a.n_traces = 1;
	a.pid = opts->pid;
	a.tid = opts->tid;
	a.comm = opts->process_comm;
	if (a.pid < 0 && a.tid < 0 && !a.comm && !dps_record_info_pid(opts->input, &a.pid)) {
		dps_diag_setf(diag,
			      "no selection: which process of %s? (--pid, --tid or --process; "
			      "dps analyze %s lists them)",
			      opts->input, opts->input);
		return DPS_ERR_INVAL;
	}
	a.follow_children = opts->follow_children;
	a.strict = opts->strict;
	a.min_block_ns = opts->min_block_ns;
	a.progress = opts->progress;
	a.build_actset = false;
	a.keep_timelines = false;
	st = analyzer_run(&a, &ares, diag);
	if (st) {
		return st;
	}
	fprintf(out,
		"The threads of %s, by time on the recorded critical path (what a faster thread "
		"can shorten), then CPU:\n",
		opts->input);
	analyzer_rank_print(ares, 20, out);
	analyzer_result_destroy(ares);
	return DPS_OK;
}
