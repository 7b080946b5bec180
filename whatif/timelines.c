/* SPDX-License-Identifier: MIT */
/*
 * --timelines (doc/whatif.md, "Side-by-side timelines"): the chosen points replayed once more,
 * recorded the way the original was, and compared with it (replay.h: the same pipeline as dps
 * replay, with the study's set, stub knobs and calibration), each report kept in
 * OUTDIR/timelines/<point>/ and linked from the study's report. The sweep's times stay the
 * outside witness's: a recorded run is slower (the tracer), so it is not one of the points.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "progress.h"
#include "replay.h"
#include "whatif-internal.h"

/* A scale written in the list matches a point within this (the list is text, the points
 * from + k x step). */
#define SCALE_EPS 1e-6

/* Whether the list names the point: "all", or one of its comma-separated items ("flat",
 * "idle", "original" or a scale). */
static bool wanted(const char *list, const struct whatif_point *p)
{
	gchar **items;
	bool yes = false;

	if (!strcmp(list, "all")) {
		return true;
	}
	items = g_strsplit(list, ",", -1);
	for (size_t i = 0; items[i] && !yes; i++) {
		const char *it = g_strstrip(items[i]);
		char *end;
		double v;

		switch (p->kind) {
		case WHATIF_POINT_FLAT:
			yes = !strcmp(it, "flat");
			break;
		case WHATIF_POINT_IDLE:
			yes = !strcmp(it, "idle");
			break;
		case WHATIF_POINT_ORIGINAL:
			yes = !strcmp(it, "original");
			break;
		case WHATIF_POINT_BUSY:
			v = g_ascii_strtod(it, &end);
			yes = end != it && !*end && fabs(v - p->scale) < SCALE_EPS;
			break;
		}
	}
	g_strfreev(items);
	return yes;
}

int whatif_timelines_check(const char *list, double from, double to, double step, size_t n,
			   char **bad)
{
	gchar **items;
	int ret = 0;

	*bad = NULL;
	if (!strcmp(list, "all")) {
		return 0;
	}
	items = g_strsplit(list, ",", -1);
	for (size_t i = 0; items[i] && !ret; i++) {
		const char *it = g_strstrip(items[i]);
		char *end;
		double v, k;

		if (!strcmp(it, "flat") || !strcmp(it, "idle") || !strcmp(it, "original")) {
			continue;
		}
		v = g_ascii_strtod(it, &end);
		k = step > 0 ? (v - from) / step : -1;
		if (end == it || *end || !isfinite(v) || v < from - SCALE_EPS ||
		    v > to + SCALE_EPS || k >= (double)n + 0.5 ||
		    (fabs(k - round(k)) * step > SCALE_EPS && fabs(v - to) > SCALE_EPS)) {
			*bad = g_strdup(it);
			ret = -1;
		}
	}
	g_strfreev(items);
	return ret;
}

/* What point p changes, for its report's headline (replay.h: change): NULL for the original
 * and the scale 1, which change nothing (a faithful replay). g_free. */
static char *point_change(const struct whatif_result *r, const struct whatif_point *p)
{
	switch (p->kind) {
	case WHATIF_POINT_FLAT:
		return g_strdup_printf("%s flat (its runs take no time)", r->component);
	case WHATIF_POINT_IDLE:
		return g_strdup_printf("%s idle (it sleeps instead of running)", r->component);
	case WHATIF_POINT_BUSY:
		if (fabs(p->scale - 1) > SCALE_EPS) {
			return g_strdup_printf("%s at %.2fx", r->component, p->scale);
		}
		return NULL;
	default:
		return NULL;
	}
}

static char *point_name(const struct whatif_point *p)
{
	switch (p->kind) {
	case WHATIF_POINT_FLAT:
		return g_strdup("flat");
	case WHATIF_POINT_IDLE:
		return g_strdup("idle");
	case WHATIF_POINT_ORIGINAL:
		return g_strdup("original");
	default:
		return g_strdup_printf("scale-%.2f", p->scale);
	}
}

/* One point's replay into work/timelines/<name>; p->timelines set when it is there. */
static enum dps_status one(const struct whatif_timelines_job *job, struct whatif_point *p,
			   struct dps_diag *diag)
{
	struct dps_replay_options ro;
	struct dps_replay_result rr = {0};
	struct dps_knobs knobs;
	char **args = NULL;
	GPtrArray *cmd = g_ptr_array_new_with_free_func(g_free);
	char *name = point_name(p);
	char *rel = g_build_filename("timelines", name, NULL);
	char *dir = g_build_filename(job->work, rel, NULL);
	char *change = point_change(job->result, p);
	enum dps_status st;

	dps_knobs_default(&knobs);
	st =
	    whatif_point_knobs(job->result->ids, job->result->n_ids, job->result->sweep, p, &knobs);
	/* the report's command line: the knobs as dps replay takes them */
	args = st ? NULL : dps_knobs_to_argv(&knobs, DPS_KNOB_REPLAY, NULL);
	if (!args) {
		dps_diag_setf(diag, "out of memory");
		st = DPS_ERR_NOMEM;
		goto end;
	}
	dps_replay_options_default(&ro);
	ro.trace = job->trace;
	ro.outdir = dir;
	ro.set = job->set_dir;
	ro.pid = job->pid;
	ro.tid = job->tid;
	ro.comm = job->comm;
	ro.follow_children = job->follow_children;
	ro.min_block_ns = job->min_block_ns;
	ro.strict = job->strict;
	ro.calibration = job->calibration;
	ro.mode = job->mode;
	ro.knobs = &knobs;
	/* the report's command line: the dps replay that makes the same report again */
	g_ptr_array_add(cmd, g_strdup(job->trace));
	g_ptr_array_add(cmd, g_strdup("--set"));
	g_ptr_array_add(cmd, g_build_filename(job->outdir, "set", NULL));
	for (size_t i = 0; args[i]; i++) {
		g_ptr_array_add(cmd, g_strdup(args[i]));
	}
	ro.args = (const char *const *)cmd->pdata;
	ro.n_args = cmd->len;
	ro.quiet = true;
	ro.change = change;
	ro.wait_quiet_s = job->wait && !job->wait->gave_up ? job->wait->max_s : 0;
	/* the work directory becomes OUTDIR at the end: the report names what is there then */
	ro.moved_from = job->work;
	ro.moved_to = job->outdir;
	st = dps_replay_run(&ro, &rr, diag);
	if (job->wait && rr.wait_gave_up) {
		job->wait->gave_up = true;
	}
	if (st) {
		char *msg = g_strdup(diag->msg);

		dps_diag_setf(diag, "the timelines of %s: %s", name, msg);
		g_free(msg);
	} else {
		p->timelines = g_build_filename(rel, "report.html", NULL);
	}
	dps_replay_result_fini(&rr);
end:
	g_free(dir);
	g_free(rel);
	g_free(name);
	g_free(change);
	g_ptr_array_free(cmd, TRUE);
	dps_knobs_argv_free(args);
	dps_knobs_fini(&knobs);
	return st;
}

enum dps_status whatif_timelines_run(const struct whatif_timelines_job *job, struct dps_diag *diag)
{
	struct whatif_result *r = job->result;
	struct whatif_point *refs[] = {r->has_flat ? &r->flat : NULL, r->has_idle ? &r->idle : NULL,
				       &r->original};
	GPtrArray *todo = g_ptr_array_new();
	char *top = g_build_filename(job->work, "timelines", NULL);
	enum dps_status st = DPS_OK;

	for (size_t i = 0; i < r->n_points; i++) {
		if (wanted(job->list, &r->points[i])) {
			g_ptr_array_add(todo, &r->points[i]);
		}
	}
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		struct whatif_point *p = refs[i];
		bool shared = false;

		if (!p || !wanted(job->list, p)) {
			continue;
		}
		/* the flat and original stubs that are sweep points link the point's report */
		for (size_t k = 0; k < r->n_points; k++) {
			const struct whatif_point *b = &r->points[k];

			if (fabs(b->scale - (p->kind == WHATIF_POINT_FLAT ? 0 : 1)) < SCALE_EPS &&
			    p->kind != WHATIF_POINT_IDLE) {
				shared = true;
				if (!b->timelines) {
					g_ptr_array_add(todo, (gpointer)b);
				}
			}
		}
		if (!shared) {
			g_ptr_array_add(todo, p);
		}
	}
	if (todo->len && g_mkdir_with_parents(top, 0755)) {
		dps_diag_setf(diag, "cannot create %s", top);
		st = DPS_ERR_IO;
	}
	for (size_t i = 0; i < todo->len && !st; i++) {
		struct whatif_point *p = todo->pdata[i];

		if (p->timelines) {
			continue; /* listed twice */
		}
		if (job->steps) {
			dps_steps_count(job->steps, i, todo->len);
		}
		st = one(job, p, diag);
	}
	/* the reference stubs shared with sweep points link the same report */
	for (size_t i = 0; !st && i < sizeof(refs) / sizeof(refs[0]); i++) {
		for (size_t k = 0; refs[i] && !refs[i]->timelines && k < r->n_points; k++) {
			const struct whatif_point *b = &r->points[k];

			if (b->timelines && refs[i]->kind != WHATIF_POINT_IDLE &&
			    fabs(b->scale - (refs[i]->kind == WHATIF_POINT_FLAT ? 0 : 1)) <
				SCALE_EPS &&
			    wanted(job->list, refs[i])) {
				refs[i]->timelines = g_strdup(b->timelines);
			}
		}
	}
	g_free(top);
	g_ptr_array_free(todo, TRUE);
	return st;
}
