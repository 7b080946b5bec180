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
#include "whatif-internal.h"

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
			      "no selection: which process of %s? (--pid, --tid or --comm; "
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

void whatif_fill_candidates(struct whatif_result *r, const struct analyzer_result *ares)
{
	size_t *order = analyzer_rank_order(ares);

	r->critical_span_ns = analyzer_rank_span(ares);
	r->candidates = g_new0(struct whatif_candidate, ares->n_threads ? ares->n_threads : 1);
	for (size_t k = 0; k < ares->n_threads; k++) {
		const struct analyzer_thread *th = &ares->threads[order[k]];
		bool in = false;

		for (size_t i = 0; i < r->n_ids; i++) {
			in = in || r->ids[i] == th->id;
		}
		if (k >= WHATIF_CANDIDATES_MAX && !in) {
			continue;
		}
		r->candidates[r->n_candidates++] = (struct whatif_candidate){
		    .id = th->id,
		    .comm = g_strdup(th->comm),
		    .critical_ns = th->stats.critical_ns,
		    .busy_ns = th->stats.busy_ns,
		    .waited_on_ns = th->stats.waited_on_ns,
		    .in_component = in,
		};
	}
	g_free(order);
}

char *whatif_critical_line(const struct whatif_result *r)
{
	uint64_t share = 0;
	size_t best = SIZE_MAX;

	if (!r->critical_span_ns || !r->n_candidates) {
		return NULL;
	}
	for (size_t k = 0; k < r->n_candidates; k++) {
		if (r->candidates[k].in_component) {
			share += r->candidates[k].critical_ns;
			best = best == SIZE_MAX ? k : best;
		}
	}
	return g_strdup_printf(
	    "The component was on %.1f %% of the recorded critical path (its first thread ranks "
	    "%zu of the threads by it)%s.",
	    100.0 * (double)share / (double)r->critical_span_ns, best + 1,
	    share * 20 < r->critical_span_ns ? ": a faster component cannot shorten the recorded "
					       "run unless the work moves to it"
					     : "");
}
