/* SPDX-License-Identifier: MIT */
/*
 * A study's points and what follows their runs (whatif-internal.h): the points made from the
 * options, the points the busy sweep shares with the flat and original stubs copied once the
 * runs are in, the fit on the busy points, the outputs written into a directory. The local
 * study (whatif.c) and a planned one's collect step (collect.c) both go through these, so a
 * study run on a cluster reads exactly as the same study run here.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "atomic-out.h"
#include "whatif-internal.h"

size_t whatif_sweep_count(const struct whatif_options *o)
{
	if (!(o->step > 0) || !isfinite(o->from) || !isfinite(o->to) || o->from < 0 ||
	    o->to < o->from) {
		return 0;
	}
	return (size_t)floor((o->to - o->from) / o->step + 0.01) + 1;
}

void whatif_points_make(const struct whatif_options *o, struct whatif_result *r,
			struct whatif_point_list *pl)
{
	size_t n_busy = (o->stubs & WHATIF_STUB_BUSY) ? whatif_sweep_count(o) : 0;

	*pl = (struct whatif_point_list){.pts = g_new0(struct whatif_point *, n_busy + 3)};
	r->points = g_new0(struct whatif_point, n_busy ? n_busy : 1);
	r->n_points = n_busy;
	for (size_t i = 0; i < n_busy; i++) {
		struct whatif_point *p = &r->points[i];

		p->kind = WHATIF_POINT_BUSY;
		p->scale = o->from + o->step * (double)i;
		if (p->scale > o->to) {
			p->scale = o->to; /* the last one, within the rounding */
		}
		p->t_psf_ns = r->sweep == WHATIF_SWEEP_MISSES
				  ? whatif_misses_t_psf(r, p->scale)
				  : (uint64_t)llround(p->scale * (double)r->busy_ns);
		if (r->sweep == WHATIF_SWEEP_MISSES && i && p->t_psf_ns <= p[-1].t_psf_ns) {
			/* every run's misses at their accesses already: the same point again */
			r->misses.capped_scale = p->scale;
			r->n_points = i;
			break;
		}
		pl->at0 = fabs(p->scale) < 1e-9 ? p : pl->at0;
		/* in situ the busy stub at 1 spends the recorded time in place of the code: not
		 * the original, which runs the code */
		pl->at1 = fabs(p->scale - 1) < 1e-9 && !r->in_situ ? p : pl->at1;
		pl->pts[pl->n++] = p;
	}
	r->has_flat = o->stubs & WHATIF_STUB_FLAT;
	r->has_idle = o->stubs & WHATIF_STUB_IDLE;
	r->flat = (struct whatif_point){.kind = WHATIF_POINT_FLAT, .scale = 0};
	r->idle = (struct whatif_point){.kind = WHATIF_POINT_IDLE, .scale = 1};
	r->original = (struct whatif_point){
	    .kind = WHATIF_POINT_ORIGINAL, .scale = 1, .t_psf_ns = r->busy_ns};
	if (r->has_flat && !pl->at0) {
		pl->pts[pl->n++] = &r->flat;
	}
	if (r->has_idle) {
		pl->pts[pl->n++] = &r->idle;
	}
	if (!pl->at1) {
		pl->pts[pl->n++] = &r->original;
	}
}

void whatif_points_done(struct whatif_result *r, const struct whatif_point_list *pl)
{
	/* the shared points: copies with their own runs array */
	if (r->has_flat && pl->at0) {
		r->flat = *pl->at0;
		r->flat.kind = WHATIF_POINT_FLAT;
		r->flat.runs_ns = g_memdup2(pl->at0->runs_ns, pl->at0->n_runs * sizeof(uint64_t));
		r->flat.timelines = NULL;
	}
	if (pl->at1) {
		r->original = *pl->at1;
		r->original.kind = WHATIF_POINT_ORIGINAL;
		r->original.runs_ns =
		    g_memdup2(pl->at1->runs_ns, pl->at1->n_runs * sizeof(uint64_t));
		r->original.timelines = NULL;
	}
	r->n_loaded = 0;
	for (size_t i = 0; i < r->n_points; i++) {
		r->n_loaded += r->points[i].loaded;
	}
	r->n_loaded += r->has_flat && !pl->at0 && r->flat.loaded;
	r->n_loaded += r->has_idle && r->idle.loaded;
	r->n_loaded += !pl->at1 && r->original.loaded;
}

void whatif_point_list_fini(struct whatif_point_list *pl)
{
	g_free(pl->pts);
	*pl = (struct whatif_point_list){0};
}

void whatif_fit_result(struct whatif_result *r)
{
	size_t n = 0;
	double *x = g_new0(double, 3 * r->n_points + 1), *y = x + r->n_points,
	       *spread = y + r->n_points;
	bool *loaded = g_new0(bool, r->n_points + 1);

	/* a point without runs (a planned study's, collected partial) is no point of the curve */
	for (size_t i = 0; i < r->n_points; i++) {
		if (!r->points[i].n_runs) {
			continue;
		}
		x[n] = (double)r->points[i].t_psf_ns;
		y[n] = (double)r->points[i].median_ns;
		spread[n] = r->points[i].noise_ns;
		loaded[n] = r->points[i].loaded;
		n++;
	}
	if (!n) {
		memset(&r->fit, 0, sizeof(r->fit));
		snprintf(r->fit.reason, sizeof(r->fit.reason),
			 r->n_points ? "no busy point has a run" : "no busy sweep (--stub)");
	} else {
		whatif_fit_curve_loaded(x, y, r->repeat > 1 ? spread : NULL, loaded, n, &r->fit);
	}
	g_free(loaded);
	g_free(x);
}

enum dps_status whatif_write_outputs(const struct whatif_result *r, const char *dir,
				     struct dps_diag *diag)
{
	static const struct {
		const char *name;
		void (*write)(const struct whatif_result *r, FILE *out);
	} outs[] = {
	    {"whatif.txt", whatif_write_text},
	    {"whatif.json", whatif_write_json},
	    {"report.html", whatif_write_html_here},
	};
	enum dps_status st = DPS_OK;

	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]) && !st; i++) {
		char *path = g_build_filename(dir, outs[i].name, NULL);
		FILE *f = fopen(path, "w");

		if (!f) {
			dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", path, errno,
				      strerror(errno));
			st = DPS_ERR_IO;
		} else {
			outs[i].write(r, f);
			st = dps_out_close(f, path, diag);
		}
		g_free(path);
	}
	return st;
}
