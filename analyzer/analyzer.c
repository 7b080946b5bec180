/* SPDX-License-Identifier: MIT */
/* The analyzer's entry points: options -> babeltrace2 adapter -> core -> result. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps.h>
#include <glib.h>

#include "analyzer.h"
#include "bt-source.h"
#include "contain.h"
#include "core.h"
#include "record.h"

/* The default --min-block of the calibration file (dps calibrate), read by the runtime's one
 * reader of that file. */
int analyzer_read_min_block(const char *path, int64_t *out, struct dps_diag *diag)
{
	struct dps_calibration cal;
	char err[512];
	int status;

	status = dps_calibration_load(path, &cal, err, sizeof(err));
	if (status) {
		dps_diag_setf(diag, "%s", err);
		/* a file that is not there is a failure to read it, as for any other I/O */
		return status == DPS_ERR_NOENT ? DPS_ERR_IO : status;
	}
	*out = (int64_t)cal.min_block_ns;
	return DPS_OK;
}

/* What the decoder did not read, into the result: partial, with one reason per skip, and a
 * warning each. */
static int note_skips(const struct analyzer_contained *src, struct analyzer_result *res)
{
	size_t n = analyzer_contained_skip_count(src);
	GString *reason;

	if (!n) {
		return DPS_OK;
	}
	reason = g_string_new(res->partial_reason);
	for (size_t i = 0; i < n; i++) {
		g_string_append_printf(reason, "%s%s", reason->len ? "; " : "",
				       analyzer_contained_borrow_skip(src, i));
	}
	free(res->partial_reason);
	res->partial_reason = strdup(reason->str);
	g_string_free(reason, TRUE);
	res->partial = true;
	return res->partial_reason ? DPS_OK : DPS_ERR_NOMEM;
}

/* A dps record trace whose perf lost events (record.info's perf_lost): partial, saying so.
 * Nothing in the CTF trace perf wrote tells. */
static int note_perf_lost(const struct analyzer_options *opts, struct analyzer_result *res)
{
	char lost[512];

	for (size_t i = 0; i < opts->n_traces; i++) {
		char *both;

		if (!dps_record_info_lost(opts->traces[i], lost, sizeof(lost))) {
			continue;
		}
		both = g_strdup_printf("%s%sperf lost events while recording %s (%s)",
				       res->partial_reason ? res->partial_reason : "",
				       res->partial_reason ? "; " : "", opts->traces[i], lost);
		free(res->partial_reason);
		res->partial_reason = strdup(both);
		g_free(both);
		res->partial = true;
		if (!res->partial_reason) {
			return DPS_ERR_NOMEM;
		}
	}
	return DPS_OK;
}

/*
 * Reads every event of the traces into a core, in timestamp order, and finishes it. The
 * decoding runs in a child process (contain.c): a decoder that stalls or dies is an error
 * that names the trace and where it was.
 */
static int read_traces(const struct analyzer_options *opts, bool list_only,
		       struct analyzer_result *res, struct dps_diag *diag)
{
	struct analyzer_contained *src = NULL;
	struct analyzer_core *core = NULL;
	struct analyzer_event ev;
	int status;

	status = analyzer_contained_open(opts->traces, opts->n_traces, opts->decode_jobs,
					 opts->progress, opts->decode_timeout_ns, &src, diag);
	if (status) {
		return status;
	}
	core = analyzer_core_create(opts, analyzer_contained_has_sched(src));
	free(res->source);
	res->source = strdup(analyzer_contained_borrow_description(src));
	if (!core || !res->source) {
		status = DPS_ERR_NOMEM;
		goto end;
	}
	while ((status = analyzer_contained_next(src, &ev, diag)) == ANALYZER_SOURCE_EVENT) {
		status = analyzer_core_feed(core, &ev);
		if (status) {
			dps_diag_setf(diag, "%s", analyzer_core_borrow_error(core));
			goto end;
		}
	}
	if (status) {
		goto end;
	}
	/* before the core's step: the action set copies the partial mark */
	status = note_skips(src, res);
	status = status ? status : note_perf_lost(opts, res);
	if (status) {
		goto end;
	}
	status = analyzer_core_finish(core, list_only, res, diag);
	if (!status && opts->strict && res->partial) {
		dps_diag_setf(diag, "%s: incomplete input (%s): refused (--strict)", res->source,
			      res->partial_reason ? res->partial_reason : "events lost");
		status = DPS_ERROR;
	}
end:
	if (status == DPS_ERR_NOMEM && diag && !diag->msg[0]) {
		dps_diag_setf(diag, "out of memory");
	}
	analyzer_core_destroy(core);
	analyzer_contained_close(src);
	return status;
}

static int run(const struct analyzer_options *opts, bool list_only, struct analyzer_result **out,
	       struct dps_diag *diag)
{
	struct analyzer_options o = *opts;
	struct analyzer_result *res = NULL;
	int status;

	*out = NULL;
	dps_diag_clear(diag);
	if (o.min_block_ns < 0 && o.calibration_path) {
		status = analyzer_read_min_block(o.calibration_path, &o.min_block_ns, diag);
		if (status) {
			return status;
		}
	}
	res = analyzer_result_create();
	if (!res) {
		dps_diag_setf(diag, "out of memory");
		return DPS_ERR_NOMEM;
	}
	status = read_traces(&o, list_only, res, diag);
	if (status) {
		analyzer_result_destroy(res);
		return status;
	}
	*out = res;
	return DPS_OK;
}

enum dps_status analyzer_run(const struct analyzer_options *opts, struct analyzer_result **out,
			     struct dps_diag *diag)
{
	return run(opts, false, out, diag);
}

enum dps_status analyzer_list_processes(const struct analyzer_options *opts,
					struct analyzer_result **out, struct dps_diag *diag)
{
	return run(opts, true, out, diag);
}

bool analyzer_parse_duration(const char *s, int64_t *ns)
{
	char *end;
	double v, mult;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0) {
		return false;
	}
	if (!strcmp(end, "ns")) {
		mult = 1;
	} else if (!strcmp(end, "us") || !*end) {
		mult = 1e3;
	} else if (!strcmp(end, "ms")) {
		mult = 1e6;
	} else if (!strcmp(end, "s")) {
		mult = 1e9;
	} else {
		return false;
	}
	if (v * mult > 9e18) {
		return false;
	}
	*ns = (int64_t)llround(v * mult);
	return true;
}
