/* SPDX-License-Identifier: MIT */
/*
 * dps whatif --sweep misses (doc/whatif.md, "Sweeping the misses"): the busy sweep turns the
 * component's data-cache misses, not its CPU time. Each point plays the stub with
 * --cache-outcome (a run with cache figures lasts its time plus what its accesses took over
 * their quiet cost) and --thread-cache-scale ID=X for the component's threads (its runs' D1
 * and last-level misses X times the recorded ones, the accesses staying).
 *
 * The curve keeps the paper's axis: a point's t_PSF is the component's CPU time at its scale,
 * the recorded CPU plus what the scaled misses cost over the recorded ones at the cache
 * stub's quiet costs on this machine, measured here before the sweep as the stub measures
 * them (dps_cache_measure_costs, one per footprint) and summed run by run with the player's
 * own rounding and caps (dps_cache_target_scale_misses, dps_cache_quiet_ns). So the fit's
 * knee is a CPU time, and its scale the misses' scale that costs it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>

#include <dps/cache.h>
#include <glib.h>

#include "actset.h"
#include "whatif-internal.h"

const char *whatif_sweep_name(enum whatif_sweep sweep)
{
	return sweep == WHATIF_SWEEP_MISSES ? "misses" : "cpu";
}

/* The quiet cost of every run's accesses with its misses x times the recorded ones. */
static double quiet_at(const struct whatif_misses *m, double x)
{
	double ns = 0;

	for (size_t i = 0; i < m->n_runs; i++) {
		struct dps_cache_target t = m->targets[i];
		const struct dps_cache_costs *c =
		    dps_cache_costs_find(m->costs, m->n_costs, t.footprint_bytes);

		dps_cache_target_scale_misses(&t, x);
		ns += c ? (double)dps_cache_quiet_ns(&t, c) : 0;
	}
	return ns;
}

enum dps_status whatif_misses_prepare(struct whatif_result *r, const struct dps_actset *set,
				      const bool *mark, struct dps_diag *diag)
{
	struct whatif_misses *m = &r->misses;
	GArray *targets = g_array_new(FALSE, TRUE, sizeof(struct dps_cache_target));
	GArray *costs = g_array_new(FALSE, TRUE, sizeof(struct dps_cache_costs));
	enum dps_status st = DPS_OK;

	for (size_t t = 0; t < set->n_threads; t++) {
		for (size_t i = 0; mark[t] && i < set->threads[t].n_actions; i++) {
			const struct dps_actset_action *a = &set->threads[t].actions[i];
			const struct dps_action_cache *c;

			if (a->kind != DPS_ACT_RUN || !a->aux || a->aux > set->n_caches) {
				continue;
			}
			c = &set->caches[a->aux - 1];
			g_array_append_val(targets, ((struct dps_cache_target){
							.accesses = c->accesses,
							.stores = c->stores,
							.d1_misses = c->d1_misses,
							.ll_misses = c->ll_misses,
							.footprint_bytes = c->footprint_bytes}));
			m->accesses += c->accesses;
			m->d1_misses += c->d1_misses;
			m->ll_misses += c->ll_misses;
		}
	}
	m->n_runs = targets->len;
	m->targets = (struct dps_cache_target *)(void *)g_array_free(targets, FALSE);
	if (!m->n_runs) {
		dps_diag_setf(diag,
			      "--sweep misses: no run of the component %s has cache figures "
			      "(format version 4): put a capture's on them first (dps cache "
			      "capture -o CAPTURE -- CMD; dps cache apply SET CAPTURE --thread ID "
			      "-o SET2; doc/cache.md) and give SET2",
			      r->component ? r->component : "");
		g_array_free(costs, TRUE);
		return DPS_ERR_INVAL;
	}
	/* the quiet costs, once per footprint, here before the sweep as the stub does them */
	for (size_t i = 0; i < m->n_runs && !st; i++) {
		uint64_t fp = m->targets[i].footprint_bytes;
		struct dps_cache_costs c;
		char err[256] = "";

		if (dps_cache_costs_find((const struct dps_cache_costs *)(void *)costs->data,
					 costs->len, fp)) {
			continue;
		}
		if (dps_cache_measure_costs(fp, NULL, &c, err, sizeof(err))) {
			dps_diag_setf(diag, "--sweep misses: the cache stub's quiet costs: %s",
				      err);
			st = DPS_ERROR;
		} else {
			g_array_append_val(costs, c);
		}
	}
	dps_cache_free();
	m->n_costs = costs->len;
	m->costs = (struct dps_cache_costs *)(void *)g_array_free(costs, FALSE);
	if (!st) {
		double at0 = quiet_at(m, 0), at1 = quiet_at(m, 1);

		m->cost_ns = at1 > at0 ? (uint64_t)llround(at1 - at0) : 0;
	}
	return st;
}

char *whatif_misses_costs_text(const struct whatif_result *r)
{
	const struct whatif_misses *m = &r->misses;
	size_t len;
	char *text;

	if (r->sweep != WHATIF_SWEEP_MISSES || !m->n_costs) {
		return NULL;
	}
	len = dps_cache_costs_format(m->costs, m->n_costs, NULL, 0) + 1;
	text = g_malloc(len);
	dps_cache_costs_format(m->costs, m->n_costs, text, len);
	return text;
}

uint64_t whatif_misses_t_psf(const struct whatif_result *r, double x)
{
	const struct whatif_misses *m = &r->misses;
	double t = (double)r->busy_ns + quiet_at(m, x) - quiet_at(m, 1);

	return t > 0 ? (uint64_t)llround(t) : 0;
}

double whatif_scale_at(const struct whatif_result *r, double t_ns)
{
	if (r->sweep != WHATIF_SWEEP_MISSES) {
		return r->busy_ns ? t_ns / (double)r->busy_ns : 0;
	}
	if (!r->misses.cost_ns) {
		return 1;
	}
	return 1 + (t_ns - (double)r->busy_ns) / (double)r->misses.cost_ns;
}

void whatif_misses_fini(struct whatif_misses *m)
{
	g_free(m->targets);
	g_free(m->costs);
	*m = (struct whatif_misses){0};
}
