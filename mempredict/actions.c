/* SPDX-License-Identifier: MIT */
/*
 * The predicted heap curve as an action set (dps memory predict --actions, doc/memory-predict.md):
 * one thread whose `heap` and `sleep` actions the memory stubs replay (doc/memory.md), so a
 * what-if runs without the real input. Each phase is a rise from its predicted start level S to
 * its peak P in r1, a plateau at P, and a fall to its end level E in r2, over its predicted
 * time D, both ramps of the same slope: r1 = k (P - S), r2 = k (P - E). The area under that
 * curve is D P - k ((P - S)^2 + (P - E)^2) / 2, so
 *     k = 2 D (P - A) / ((P - S)^2 + (P - E)^2)
 * gives the predicted average A; k is kept within [0, D / (2P - S - E)] (an average below what
 * the ramps can reach in D, or above the plateau, cannot be drawn: the nearest curve is). A
 * step between one phase's end and the next one's start (separate fits) is one jump.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "actset.h"
#include "atomic-out.h"
#include "mempredict.h"
#include "text-out.h"

#define RAMP_STEPS 16

struct curve_out {
	FILE *f;
	double level;	 /* bytes the actions have reached, unrounded */
	int64_t written; /* bytes the actions have reached, as written */
};

/* heap to the level `to` (rounded so that the written deltas add up to it). */
static void heap_to(struct curve_out *c, double to)
{
	int64_t want = (int64_t)llround(to > 0 ? to : 0);

	if (want != c->written) {
		fprintf(c->f, "heap %+" PRId64 "\n", want - c->written);
		c->written = want;
	}
	c->level = to;
}

static void sleep_ns(struct curve_out *c, double ns)
{
	if (ns >= 1) {
		fprintf(c->f, "sleep %.0fns\n", ns);
	}
}

/* A straight ramp to `to` over ns, in RAMP_STEPS steps: each interval held at the ramp's value
 * at its middle, so the steps have the ramp's area (its average), then `to`. */
static void ramp(struct curve_out *c, double to, double ns)
{
	double from = c->level, dt = ns / RAMP_STEPS;

	if (fabs(to - from) < 1) {
		sleep_ns(c, ns);
		heap_to(c, to);
		return;
	}
	for (int i = 1; i <= RAMP_STEPS; i++) {
		heap_to(c, from + (to - from) * (i - 0.5) / RAMP_STEPS);
		sleep_ns(c, dt);
	}
	heap_to(c, to);
}

static void write_phase(struct curve_out *c, const struct mp_phase_prediction *ph)
{
	double s = ph->start_bytes, e = ph->end_bytes, p = ph->peak_bytes, a = ph->avg_bytes;
	double d = ph->curve_ns > 0 ? ph->curve_ns : 0, k = 0, squares, sum;
	char name[256];

	p = p > s ? p : s;
	p = p > e ? p : e;
	squares = (p - s) * (p - s) + (p - e) * (p - e);
	sum = 2 * p - s - e;
	if (squares > 0) {
		k = 2 * d * (p - a) / squares;
		k = k < 0 ? 0 : k > d / sum ? d / sum : k;
	}
	dps_text_sanitize(ph->name, name, sizeof(name));
	fprintf(c->f,
		"# phase %s: start %.0f B, peak %.0f B, end %.0f B, average %.0f B, %.0f ns\n",
		name, s, p, e, a, d);
	heap_to(c, s);
	ramp(c, p, k * (p - s));
	sleep_ns(c, d - k * sum);
	ramp(c, e, k * (p - e));
}

int mp_prediction_write_actions(const struct mp_prediction *pr, const char *dir,
				struct dps_diag *diag)
{
	struct dps_out_dir od = {0};
	struct curve_out c = {0};
	char *path = NULL, basis[256];
	int rc;

	rc = dps_out_dir_begin(&od, dir, dps_actset_is_set_dir, "an action set", DPS_OUT_PARENTS,
			       diag);
	if (rc) {
		return rc;
	}
	path = g_strdup_printf("%s/1.act", od.tmp);
	c.f = fopen(path, "w");
	if (!c.f) {
		dps_diag_setf(diag, "cannot create %s: %s", path, strerror(errno));
		rc = DPS_ERR_IO;
		goto abort_dir;
	}
	dps_text_sanitize(pr->basis, basis, sizeof(basis));
	fprintf(c.f,
		"dps-actions 1\n# dps memory predict: basis \"%s\" x %g (doc/memory-predict.md)\n",
		basis, pr->count);
	for (size_t i = 0; i < pr->n_phases; i++) {
		write_phase(&c, &pr->phases[i]);
	}
	rc = dps_out_close(c.f, path, diag);
	if (rc) {
		goto abort_dir;
	}
	/* the manifest makes it a set dps may replace the next time */
	g_free(path);
	path = g_strdup_printf("%s/manifest", od.tmp);
	c.f = fopen(path, "w");
	if (!c.f) {
		dps_diag_setf(diag, "cannot create %s: %s", path, strerror(errno));
		rc = DPS_ERR_IO;
		goto abort_dir;
	}
	fprintf(c.f, "dps-manifest 1\nroot 1\nthread 1 comm \"predicted\" start 0\n");
	rc = dps_out_close(c.f, path, diag);
	if (rc) {
		goto abort_dir;
	}
	g_free(path);
	return dps_out_dir_commit(&od, diag);
abort_dir:
	g_free(path);
	dps_out_dir_abort(&od);
	return rc;
}
