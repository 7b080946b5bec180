/* SPDX-License-Identifier: MIT */
/*
 * What a study found, for a reader (text) and for a script (JSON), and the paper's reading of
 * it in words (whatif.h). The conclusions compare medians with a tolerance made of the points'
 * own spread and 2 % of the original's time: two stubs whose times differ by less than that
 * are "equal", as the paper's cases need.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "machine-load.h"
#include "text-out.h"
#include "whatif-internal.h"

/* The share of the original's time under which two stubs' times count as equal. */
#define WHATIF_EQUAL_PCT 2.0
/* "Equal" (the idle stub's, the flat stub's "no gain") is a reading only when the spread stays
 * under this share of t^SUT. */
#define WHATIF_IDLE_NOISE_PCT 5.0

const char *whatif_ms(double ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f", ns / 1e6);
	return buf;
}

/* How far apart two points may be and still be equal. */
static double tolerance(const struct whatif_result *r, const struct whatif_point *a,
			const struct whatif_point *b)
{
	double t = WHATIF_EQUAL_PCT / 100 * whatif_point_sut(&r->original);
	double spread = a->noise_ns + b->noise_ns;

	return spread > t ? spread : t;
}

/* The busy sweep's reading when it turned the misses (g_free). */
static char *misses_conclusion(const struct whatif_result *r)
{
	const struct whatif_fit *f = &r->fit;
	double scale = f->knee ? whatif_scale_at(r, f->t_limit) : 0;
	char a[32], b[32];

	switch (f->kind) {
	case WHATIF_KIND_TOTAL:
		return g_strdup_printf("Busy stub over the misses: a total bottleneck: t_SUT rises "
				       "with the component's misses over the whole sweep (slope "
				       "%.2f of their CPU cost): every miss taken off it is time "
				       "taken off the whole.",
				       f->slope);
	case WHATIF_KIND_LIMITED:
		if (scale < 1) {
			return g_strdup_printf(
			    "Busy stub over the misses: a limited bottleneck: t_SUT stays at %s ms "
			    "while the component's misses are under %.2f times the recorded ones "
			    "(t_limit %s ms of its CPU) and rises with slope %.2f above: cutting "
			    "its misses pays down to that, not below.",
			    whatif_ms(f->t_min, a, 32), scale, whatif_ms(f->t_limit, b, 32),
			    f->slope);
		}
		return g_strdup_printf(
		    "Busy stub over the misses: a limited bottleneck with its knee beyond the "
		    "recorded misses: t_SUT stays at %s ms up to %.2f times them (t_limit %s ms of "
		    "the component's CPU): fewer misses buy nothing; more than that many would "
		    "slow the program.",
		    whatif_ms(f->t_min, a, 32), scale, whatif_ms(f->t_limit, b, 32));
	case WHATIF_KIND_NONE:
		return g_strdup_printf("Busy stub over the misses: no bottleneck in the sweep: "
				       "t_SUT stays at %s ms from %.2f to %.2f times the "
				       "component's misses.",
				       whatif_ms(f->t_min, a, 32), r->points[0].scale,
				       r->points[r->n_points - 1].scale);
	default:
		return g_strdup_printf("Busy stub over the misses: no reading: %s.", f->reason);
	}
}

/* The conclusions, each a sentence (g_ptr_array_free(v, TRUE)). */
static GPtrArray *conclusions(const struct whatif_result *r)
{
	GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
	double orig = whatif_point_sut(&r->original), busy = (double)r->busy_ns;
	const struct whatif_fit *f = &r->fit;
	char a[32], b[32], c[32];

	if (r->has_flat) {
		double flat = whatif_point_sut(&r->flat), red = orig - flat;
		double tol = tolerance(r, &r->original, &r->flat);

		if (tol > busy / 4 || (red <= tol && tol > WHATIF_IDLE_NOISE_PCT / 100 * orig)) {
			/* "no gain" within a spread that large would hide the gain the
			 * reading is about */
			g_ptr_array_add(
			    v, g_strdup_printf("Flat stub: no reading: the runs spread by +-%s ms, "
					       "too much against the component's %s ms of CPU.",
					       whatif_ms(tol, a, 32), whatif_ms(busy, b, 32)));
		} else if (red >= busy - tol) {
			g_ptr_array_add(
			    v, g_strdup_printf(
				   "Flat stub: removing the component's %s ms of CPU shortens the "
				   "whole by %s ms (t_reduced^SUT = t_reduced^CUS): the program "
				   "waits on the component directly, every ms saved in it is saved "
				   "in the whole; optimize it as much as possible.",
				   whatif_ms(busy, a, 32), whatif_ms(red, b, 32)));
		} else if (red <= tol) {
			g_ptr_array_add(
			    v,
			    g_strdup_printf(
				"Flat stub: removing the component's %s ms of CPU leaves the "
				"whole at %s ms (t_reduced^SUT = %s ms, within the noise): it is "
				"not on the critical path, optimizing it gains nothing.",
				whatif_ms(busy, a, 32), whatif_ms(flat, b, 32),
				whatif_ms(red, c, 32)));
		} else {
			g_ptr_array_add(
			    v, g_strdup_printf(
				   "Flat stub: removing the component's %s ms of CPU shortens the "
				   "whole by only %s ms (%.0f %%): t_reduced^CUS > t_reduced^SUT, "
				   "other threads take over the critical path; %s ms is the most "
				   "any optimization of the component can save.",
				   whatif_ms(busy, a, 32), whatif_ms(red, b, 32), 100 * red / busy,
				   whatif_ms(red, c, 32)));
		}
	}
	if (r->has_idle) {
		double idle = whatif_point_sut(&r->idle);
		double tol = tolerance(r, &r->original, &r->idle);

		if (idle >= orig - tol && tol > WHATIF_IDLE_NOISE_PCT / 100 * orig) {
			/* "equal" within a spread that large would hide the difference the
			 * reading is about */
			g_ptr_array_add(
			    v,
			    g_strdup_printf("Idle stub: no reading: %s ms against %s ms, but the "
					    "runs spread by +-%s ms (over %.0f %% of t^SUT).",
					    whatif_ms(idle, a, 32), whatif_ms(orig, b, 32),
					    whatif_ms(tol, c, 32), WHATIF_IDLE_NOISE_PCT));
		} else if (idle >= orig - tol) {
			g_ptr_array_add(
			    v, g_strdup_printf(
				   "Idle stub: with its CPU time slept instead, the whole takes %s "
				   "ms against %s ms (t_idle^SUT = t^SUT): no other thread was "
				   "waiting for a CPU the component held, so more CPUs would not "
				   "make the program faster.%s",
				   whatif_ms(idle, a, 32), whatif_ms(orig, b, 32),
				   idle > orig + tol ? " (t_idle^SUT > t^SUT, a case the paper "
						       "excludes: sleeps overshooting, or a busy "
						       "machine.)"
						     : ""));
		} else {
			g_ptr_array_add(
			    v, g_strdup_printf(
				   "Idle stub: with its CPU time slept instead, the whole takes %s "
				   "ms against %s ms (t_idle^SUT < t^SUT): other threads were "
				   "ready and waiting for the CPU the component held; more CPUs "
				   "would save up to %s ms, as would a faster component.",
				   whatif_ms(idle, a, 32), whatif_ms(orig, b, 32),
				   whatif_ms(orig - idle, c, 32)));
		}
	}
	if (r->n_points && r->sweep == WHATIF_SWEEP_MISSES) {
		g_ptr_array_add(v, misses_conclusion(r));
	} else if (r->n_points) {
		double scale = f->knee ? f->t_limit / busy : 0;

		switch (f->kind) {
		case WHATIF_KIND_TOTAL:
			g_ptr_array_add(
			    v, g_strdup_printf("Busy stub: a total bottleneck: t_SUT rises with "
					       "t_PSF over the whole sweep (slope %.2f), so every "
					       "ms taken off the component is taken off the whole.",
					       f->slope));
			break;
		case WHATIF_KIND_LIMITED:
			if (scale < 1) {
				g_ptr_array_add(
				    v,
				    g_strdup_printf(
					"Busy stub: a limited bottleneck: t_SUT stays at t_min^SUT "
					"= %s ms up to t_limit = %s ms of component CPU (scale "
					"%.2f) and rises with slope %.2f after it. Speeding the "
					"component up pays until it needs %.0f %% less CPU than "
					"recorded; past the knee another path is critical and "
					"the whole stays at %s ms: a larger speed-up buys nothing.",
					whatif_ms(f->t_min, a, 32), whatif_ms(f->t_limit, b, 32),
					scale, f->slope, 100 * (1 - scale),
					whatif_ms(f->t_min, c, 32)));
			} else {
				g_ptr_array_add(
				    v,
				    g_strdup_printf(
					"Busy stub: a limited bottleneck with its knee beyond the "
					"recorded speed: t_SUT stays at %s ms up to t_limit = %s "
					"ms (scale %.2f). At its recorded speed the component "
					"is not the bottleneck (making it faster buys nothing); "
					"it becomes one if it needs more than %.2f times its CPU "
					"time.",
					whatif_ms(f->t_min, a, 32), whatif_ms(f->t_limit, b, 32),
					scale, scale));
			}
			break;
		case WHATIF_KIND_NONE:
			g_ptr_array_add(
			    v, g_strdup_printf(
				   "Busy stub: no bottleneck in the sweep: t_SUT stays at %s ms "
				   "from scale %.2f to %.2f; the component's speed does not move "
				   "the whole here (look for the bottleneck elsewhere).",
				   whatif_ms(f->t_min, a, 32), r->points[0].scale,
				   r->points[r->n_points - 1].scale));
			break;
		default:
			g_ptr_array_add(v,
					g_strdup_printf("Busy stub: no reading: %s.", f->reason));
			break;
		}
	}
	return v;
}

/* The caveats, each a sentence (g_ptr_array_free(v, TRUE)). */
static GPtrArray *caveats(const struct whatif_result *r)
{
	const struct whatif_caveats *c = &r->caveats;
	GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
	char a[32];

	if (c->n_fixed_sleeps && c->timelines && !c->n_woken_sleeps) {
		g_ptr_array_add(
		    v, g_strdup_printf(
			   "%zu sleep%s of other threads (%s ms) %s; none of them "
			   "ended right after a component thread stopped running in the "
			   "trace (within 0.2 ms), so none looks woken by the component.",
			   c->n_fixed_sleeps, c->n_fixed_sleeps > 1 ? "s" : "",
			   whatif_ms((double)c->fixed_sleep_ns, a, 32),
			   c->n_fixed_sleeps > 1 ? "are fixed durations" : "is a fixed duration"));
	} else if (c->n_fixed_sleeps) {
		g_ptr_array_add(
		    v, g_strdup_printf(
			   "%zu sleep%s of other threads (%s ms) %s: one that "
			   "ended in the real program because a component thread woke it (a wake "
			   "the trace did not tie to it) ends at the same time in every point, "
			   "which pins the answer.",
			   c->n_fixed_sleeps, c->n_fixed_sleeps > 1 ? "s" : "",
			   whatif_ms((double)c->fixed_sleep_ns, a, 32),
			   c->n_fixed_sleeps > 1 ? "are fixed durations" : "is a fixed duration"));
	}
	if (c->timelines && c->n_woken_sleeps) {
		g_ptr_array_add(
		    v, g_strdup_printf("In the trace, %zu of the other threads' sleeps (%s ms) "
				       "ended within 0.2 ms after a component thread stopped "
				       "running: most likely woken by it, they are the ones that "
				       "pin the answer.",
				       c->n_woken_sleeps,
				       whatif_ms((double)c->woken_sleep_ns, a, 32)));
	}
	if (c->n_ordered_waits) {
		g_ptr_array_add(
		    v, g_strdup_printf("%zu wait%s take%s wake-ups from the component and "
				       "another thread in their recorded order: a faster "
				       "component would be waited for after the other "
				       "still, where the real program might reorder them.",
				       c->n_ordered_waits, c->n_ordered_waits > 1 ? "s" : "",
				       c->n_ordered_waits > 1 ? "" : "s"));
	}
	if (c->n_component_waits) {
		g_ptr_array_add(v, g_strdup_printf("The component waits for other threads' "
						   "wake-ups (%zu wait%s): however fast it gets, "
						   "it cannot pass them.",
						   c->n_component_waits,
						   c->n_component_waits > 1 ? "s" : ""));
	}
	return v;
}

/* The points run under load, "scale 0.30, idle" (g_free), NULL when none. */
static char *loaded_points(const struct whatif_result *r)
{
	GString *g = g_string_new(NULL);

	for (size_t i = 0; i < r->n_points; i++) {
		if (r->points[i].loaded) {
			g_string_append_printf(g, "%sscale %.2f", g->len ? ", " : "",
					       r->points[i].scale);
		}
	}
	if (r->has_flat && r->flat.loaded) {
		g_string_append_printf(g, "%sflat", g->len ? ", " : "");
	}
	if (r->has_idle && r->idle.loaded) {
		g_string_append_printf(g, "%sidle", g->len ? ", " : "");
	}
	if (r->original.loaded) {
		g_string_append_printf(g, "%soriginal", g->len ? ", " : "");
	}
	if (!g->len) {
		g_string_free(g, TRUE);
		return NULL;
	}
	return g_string_free(g, FALSE);
}

void whatif_write_conclusions(const struct whatif_result *r, FILE *out)
{
	GPtrArray *v = conclusions(r);

	for (size_t i = 0; i < v->len; i++) {
		fprintf(out, "- %s\n", (const char *)v->pdata[i]);
	}
	g_ptr_array_free(v, TRUE);
}

static void text_point(FILE *out, const char *what, const struct whatif_point *p)
{
	char a[32], b[32], c[32], d[32];

	fprintf(out, "%-9s %6.2f %10s %10s %10s %10s %8.0f%s\n", what, p->scale,
		p->kind == WHATIF_POINT_IDLE ? "(slept)" : whatif_ms((double)p->t_psf_ns, a, 32),
		whatif_ms((double)p->median_ns, b, 32), whatif_ms((double)p->min_ns, c, 32),
		whatif_ms((double)p->max_ns, d, 32), p->others_pct,
		p->loaded ? "  under load" : "");
}

void whatif_write_text(const struct whatif_result *r, FILE *out)
{
	const struct whatif_fit *f = &r->fit;
	GPtrArray *cv = caveats(r);
	char *loaded = loaded_points(r);
	char name[256], input[256], a[32], b[32], c[32];

	dps_text_sanitize(r->component ? r->component : "", name, sizeof(name));
	dps_text_sanitize(r->input ? r->input : "", input, sizeof(input));
	fprintf(out,
		r->sweep == WHATIF_SWEEP_MISSES ? "What if %s missed the cache less or more? (%s)\n"
						: "What if %s ran faster or slower? (%s)\n",
		name, input);
	{
		char *answer = whatif_answer(r), *gap = whatif_gap(r);

		char *critical = whatif_critical_line(r);

		fprintf(out, "\nAnswer: %s\n", answer);
		if (gap) {
			fprintf(out, "%s\n", gap);
		}
		if (critical) {
			fprintf(out, "%s\n", critical);
		}
		g_free(critical);
		fputc('\n', out);
		g_free(answer);
		g_free(gap);
	}
	if (r->in_situ) {
		fprintf(out,
			"In the real program: t_busy^CUS %s ms (the regions' CPU time over %" PRIu64
			" run%s, recorded); %u repetitions per point, seed %" PRIu64 ", %.1f s\n\n",
			whatif_ms((double)r->busy_ns, a, 32), r->n_region_runs,
			r->n_region_runs == 1 ? "" : "s", r->repeat, r->seed, r->wall_s);
	} else {
		fprintf(out,
			"t_busy^CUS %s ms (the component's recorded runs); %zu threads; %u "
			"repetitions per point, mode %s, seed %" PRIu64 ", %.1f s\n\n",
			whatif_ms((double)r->busy_ns, a, 32), r->n_threads, r->repeat, r->mode,
			r->seed, r->wall_s);
	}
	if (r->sweep == WHATIF_SWEEP_MISSES) {
		const struct whatif_misses *m = &r->misses;

		fprintf(
		    out,
		    "Sweeping the misses: the scale multiplies the D1 and LL misses of the "
		    "component's %zu runs with cache figures (%" PRIu64 " accesses, %" PRIu64
		    " D1 and %" PRIu64 " LL misses), played with --cache-outcome; t_PSF is its "
		    "CPU at that scale, the recorded %s ms plus what the scaled misses cost over "
		    "the recorded ones at the cache stub's quiet costs here (all of them: %s "
		    "ms).\n\n",
		    m->n_runs, m->accesses, m->d1_misses, m->ll_misses,
		    whatif_ms((double)r->busy_ns, a, 32), whatif_ms((double)m->cost_ns, b, 32));
		if (m->capped_scale > 0) {
			fprintf(out,
				"The sweep stops before scale %.2f: there every run's misses are "
				"its accesses already (the same point again).\n\n",
				m->capped_scale);
		}
	}
	if (r->collected) {
		fprintf(out, "%s\n\n", r->collected);
	}
	if (!whatif_window_is_run(r)) {
		fprintf(out, "t_SUT is the window from %s to %s (the stub's thread times)\n\n",
			whatif_edge_str(&r->window_from, false, a, sizeof(a)),
			whatif_edge_str(&r->window_to, true, b, sizeof(b)));
	}
	fprintf(out, "%-9s %6s %10s %10s %10s %10s %8s\n", "stub", "scale", "t_PSF ms", "t_SUT ms",
		"min", "max", "others%");
	for (size_t i = 0; i < r->n_points; i++) {
		text_point(out, "busy", &r->points[i]);
	}
	if (r->has_flat) {
		text_point(out, "flat", &r->flat);
	}
	if (r->has_idle) {
		text_point(out, "idle", &r->idle);
	}
	text_point(out, "stub 1x", &r->original);
	if (r->recorded_sut_ns) {
		fprintf(out,
			"%-9s %6.2f %10s %10s   (the program as recorded, exec to its last "
			"thread's end)\n",
			"recorded", 1.0, whatif_ms((double)r->busy_ns, b, 32),
			whatif_ms((double)r->recorded_sut_ns, a, 32));
	}
	if (r->n_points) {
		fprintf(out, "\nFit: %s; ", whatif_kind_name(f->kind));
		if (f->kind == WHATIF_KIND_LIMITED) {
			fprintf(out,
				"t_min^SUT %s ms, t_limit %s ms (scale %.2f, placed within "
				"%.2f-%.2f), slope %.2f",
				whatif_ms(f->t_min, a, 32), whatif_ms(f->t_limit, b, 32),
				whatif_scale_at(r, f->t_limit), whatif_scale_at(r, f->t_limit_lo),
				whatif_scale_at(r, f->t_limit_hi), f->slope);
		} else if (f->kind == WHATIF_KIND_TOTAL) {
			fprintf(out, "t_SUT %s ms at t_PSF %s ms, slope %.2f",
				whatif_ms(f->t_min, a, 32), whatif_ms(f->x0, b, 32), f->slope);
		} else if (f->kind == WHATIF_KIND_NONE) {
			fprintf(out, "t_min^SUT %s ms, slope %.3f", whatif_ms(f->t_min, a, 32),
				f->slope);
		}
		fprintf(out, "%sfit error %s ms rms (%.1f %%), noise %s ms\n  %s\n",
			f->kind == WHATIF_KIND_UNCLEAR ? "" : "; ", whatif_ms(f->rms, c, 32),
			100 * f->rel_err, whatif_ms(f->noise, b, 32), f->reason);
	}
	if (r->n_doubts) {
		fprintf(out, "\nWhy unclear: dps cannot back the curve above as the real "
			     "program's:\n");
		for (size_t i = 0; i < r->n_doubts; i++) {
			fprintf(out, "- %s\n  Way out: %s.\n", r->doubts[i].reason,
				r->doubts[i].way_out);
		}
		fprintf(out, "\nMethod: the replay's own reading, not backed (see above):\n");
	} else {
		fprintf(out, "\nMethod: the paper's reading of the stubs:\n");
	}
	whatif_write_conclusions(r, out);
	if (cv->len) {
		fprintf(out, "\nCaveats (what the replay cannot move):\n");
		for (size_t i = 0; i < cv->len; i++) {
			fprintf(out, "- %s\n", (const char *)cv->pdata[i]);
		}
	}
	fprintf(out,
		"\nThe machine over the sweep: others used %.0f %% of the CPUs, steal %.1f %%.\n",
		r->others_pct, r->steal_pct);
	if (loaded) {
		fprintf(out,
			"Warning: under load (others over %.0f %% of the CPUs or steal over "
			"%.0f %%) during runs of: %s. Their times measure the machine as much as "
			"the program; rerun on a quiet machine (--wait-quiet waits for one).\n",
			DPS_LOAD_OTHERS_PCT_MAX, DPS_LOAD_STEAL_PCT_MAX, loaded);
	}
	g_free(loaded);
	g_ptr_array_free(cv, TRUE);
}

static void json_point(FILE *out, const struct whatif_point *p)
{
	fprintf(out,
		"{\"scale\": %.6g, \"t_psf_ns\": %" PRIu64 ", \"t_sut_ns\": {\"median\": %" PRIu64
		", \"min\": %" PRIu64 ", \"max\": %" PRIu64 "}, \"runs_ns\": [",
		p->scale, p->kind == WHATIF_POINT_IDLE ? 0 : p->t_psf_ns, p->median_ns, p->min_ns,
		p->max_ns);
	for (size_t i = 0; i < p->n_runs; i++) {
		fprintf(out, "%s%" PRIu64, i ? ", " : "", p->runs_ns[i]);
	}
	fprintf(out,
		"], \"noise_ns\": %.0f, \"others_pct\": %.1f, \"steal_pct\": %.1f, \"loaded\": "
		"%s, \"timelines\": ",
		p->noise_ns, p->others_pct, p->steal_pct, p->loaded ? "true" : "false");
	if (p->timelines) {
		dps_json_string(out, p->timelines, false);
	} else {
		fputs("null", out);
	}
	fputc('}', out);
}

/* A duration as an integer of ns (JSON readers keep it exact), null when there is none. */
static void json_ns(FILE *out, double ns)
{
	if (isfinite(ns)) {
		fprintf(out, "%.0f", ns);
	} else {
		fputs("null", out);
	}
}

static void json_strings(FILE *out, const char *key, GPtrArray *v)
{
	fprintf(out, "  \"%s\": [", key);
	for (size_t i = 0; i < v->len; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		dps_json_string(out, v->pdata[i], false);
	}
	fputs(v->len ? "\n  ],\n" : "],\n", out);
}

void whatif_write_json(const struct whatif_result *r, FILE *out)
{
	const struct whatif_fit *f = &r->fit;
	GPtrArray *cl = conclusions(r), *cv = caveats(r);
	char from[32], to[32];

	fputs("{\n  \"answer\": ", out);
	{
		char *answer = whatif_answer(r);

		dps_json_string(out, answer, false);
		g_free(answer);
	}
	fputs(",\n  \"input\": ", out);
	dps_json_string(out, r->input, false);
	fprintf(out, ",\n  \"input_kind\": \"%s\",\n  \"component\": {\"ids\": [",
		r->in_situ	? "command"
		: r->from_trace ? "trace"
				: "set");
	for (size_t i = 0; i < r->n_ids; i++) {
		fprintf(out, "%s%" PRIu64, i ? ", " : "", r->ids[i]);
	}
	fputs("], \"label\": ", out);
	dps_json_string(out, r->component, false);
	fprintf(out,
		"},\n  \"busy_ns\": %" PRIu64 ",\n  \"threads\": %zu,\n  \"repeat\": %u,\n  "
		"\"mode\": \"%s\",\n  \"seed\": %" PRIu64 ",\n  \"wall_s\": %.3f,\n"
		"  \"machine\": {\"others_pct\": %.1f, \"steal_pct\": %.1f, "
		"\"calibration_spread_pct\": %.2f},\n",
		r->busy_ns, r->n_threads, r->repeat, r->mode, r->seed, r->wall_s, r->others_pct,
		r->steal_pct, r->cal_spread_pct);
	fprintf(out, "  \"sweep\": \"%s\",\n  \"misses\": ", whatif_sweep_name(r->sweep));
	if (r->sweep == WHATIF_SWEEP_MISSES) {
		const struct whatif_misses *m = &r->misses;

		fprintf(out,
			"{\"runs\": %zu, \"accesses\": %" PRIu64 ", \"d1_misses\": %" PRIu64
			", \"ll_misses\": %" PRIu64 ", \"cost_ns\": %" PRIu64 "},\n",
			m->n_runs, m->accesses, m->d1_misses, m->ll_misses, m->cost_ns);
	} else {
		fputs("null,\n", out);
	}
	fputs("  \"collected\": ", out);
	if (r->collected) {
		dps_json_string(out, r->collected, false);
	} else {
		fputs("null", out);
	}
	fputs(",\n", out);
	fprintf(out, "  \"window\": {\"from\": \"%s\", \"to\": \"%s\"},\n",
		whatif_edge_str(&r->window_from, false, from, sizeof(from)),
		whatif_edge_str(&r->window_to, true, to, sizeof(to)));
	fputs("  \"points\": [", out);
	for (size_t i = 0; i < r->n_points; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_point(out, &r->points[i]);
	}
	fputs(r->n_points ? "\n  ],\n" : "],\n", out);
	fputs("  \"flat\": ", out);
	if (r->has_flat) {
		json_point(out, &r->flat);
	} else {
		fputs("null", out);
	}
	fputs(",\n  \"idle\": ", out);
	if (r->has_idle) {
		json_point(out, &r->idle);
	} else {
		fputs("null", out);
	}
	fputs(",\n  \"original\": ", out);
	json_point(out, &r->original);
	fprintf(out, ",\n  \"original_sut_ns\": %" PRIu64 ",\n", r->original.median_ns);
	if (r->recorded_sut_ns) {
		fprintf(out, "  \"recorded_sut_ns\": %" PRIu64 ",\n  \"gap_pct\": %.2f,\n",
			r->recorded_sut_ns,
			100 * ((double)r->original.median_ns - (double)r->recorded_sut_ns) /
			    (double)r->recorded_sut_ns);
	} else {
		fputs("  \"recorded_sut_ns\": null,\n  \"gap_pct\": null,\n", out);
	}
	fprintf(out,
		"  \"pins\": {\"fixed_sleeps\": %zu, \"fixed_sleep_ns\": %" PRIu64
		", \"woken_sleeps\": ",
		r->caveats.n_fixed_sleeps, r->caveats.fixed_sleep_ns);
	if (r->caveats.timelines) {
		fprintf(out, "%zu, \"woken_sleep_ns\": %" PRIu64, r->caveats.n_woken_sleeps,
			r->caveats.woken_sleep_ns);
	} else {
		fputs("null, \"woken_sleep_ns\": null", out);
	}
	fprintf(out, ", \"ordered_waits\": %zu, \"component_waits\": %zu},\n",
		r->caveats.n_ordered_waits, r->caveats.n_component_waits);
	if (r->has_flat) {
		fprintf(out,
			"  \"flat_sut_ns\": %" PRIu64 ",\n  \"t_reduced_cus_ns\": %" PRIu64
			",\n  \"t_reduced_sut_ns\": %" PRId64 ",\n",
			r->flat.median_ns, r->busy_ns,
			(int64_t)r->original.median_ns - (int64_t)r->flat.median_ns);
	} else {
		fputs("  \"flat_sut_ns\": null,\n  \"t_reduced_cus_ns\": null,\n"
		      "  \"t_reduced_sut_ns\": null,\n",
		      out);
	}
	if (r->has_idle) {
		fprintf(out, "  \"idle_sut_ns\": %" PRIu64 ",\n", r->idle.median_ns);
	} else {
		fputs("  \"idle_sut_ns\": null,\n", out);
	}
	fprintf(out, "  \"kind\": \"%s\",\n  \"fit_kind\": \"%s\",\n  \"unclear\": [",
		r->n_points ? whatif_kind_name(r->kind) : "unclear",
		r->n_points ? whatif_kind_name(f->kind) : "unclear");
	for (size_t i = 0; i < r->n_doubts; i++) {
		fprintf(out, "%s{\"check\": \"%s\", \"reason\": ", i ? ",\n    " : "\n    ",
			whatif_doubt_kind_name(r->doubts[i].kind));
		dps_json_string(out, r->doubts[i].reason, false);
		fputs(", \"way_out\": ", out);
		dps_json_string(out, r->doubts[i].way_out, false);
		fputc('}', out);
	}
	fputs(r->n_doubts ? "\n  ],\n  \"t_min_sut_ns\": " : "],\n  \"t_min_sut_ns\": ", out);
	json_ns(out, f->kind == WHATIF_KIND_UNCLEAR ? NAN : f->t_min);
	fputs(",\n  \"t_limit_ns\": ", out);
	json_ns(out, f->knee ? f->t_limit : NAN);
	fputs(",\n  \"t_limit_scale\": ", out);
	dps_json_double(out, f->knee ? whatif_scale_at(r, f->t_limit) : NAN);
	fputs(",\n  \"t_limit_range_ns\": ", out);
	if (f->knee) {
		fprintf(out, "[%.0f, %.0f]", f->t_limit_lo, f->t_limit_hi);
	} else {
		fputs("null", out);
	}
	fputs(",\n  \"slope\": ", out);
	dps_json_double(out, f->kind == WHATIF_KIND_UNCLEAR ? NAN : f->slope);
	fputs(",\n  \"fit_error\": {\"rms_ns\": ", out);
	json_ns(out, f->rms);
	fputs(", \"relative\": ", out);
	dps_json_double(out, f->rel_err);
	fputs(", \"noise_ns\": ", out);
	json_ns(out, f->noise);
	fputs("},\n  \"fit_reason\": ", out);
	dps_json_string(out, f->reason, false);
	fputs(",\n", out);
	json_strings(out, "conclusions", cl);
	json_strings(out, "caveats", cv);
	fputs("  \"loaded_points\": [", out);
	{
		bool first = true;

		for (size_t i = 0; i < r->n_points; i++) {
			if (r->points[i].loaded) {
				fprintf(out, "%s%.6g", first ? "" : ", ", r->points[i].scale);
				first = false;
			}
		}
	}
	fputs("],\n  \"candidates\": [", out);
	for (size_t k = 0; k < r->n_candidates; k++) {
		const struct whatif_candidate *c = &r->candidates[k];

		fprintf(out, "%s{\"id\": %" PRIu64 ", \"comm\": ", k ? ", " : "", c->id);
		dps_json_string(out, c->comm ? c->comm : "", false);
		fprintf(out,
			", \"critical_ns\": %" PRIu64 ", \"busy_ns\": %" PRIu64
			", \"waited_on_ns\": %" PRIu64 ", \"in_component\": %s}",
			c->critical_ns, c->busy_ns, c->waited_on_ns,
			c->in_component ? "true" : "false");
	}
	fprintf(out, "],\n  \"critical_span_ns\": %" PRIu64 ",\n  \"loaded_references\": [",
		r->critical_span_ns);
	{
		const struct {
			bool loaded;
			const char *name;
		} refs[] = {
		    {r->has_flat && r->flat.loaded, "flat"},
		    {r->has_idle && r->idle.loaded, "idle"},
		    {r->original.loaded, "original"},
		};
		bool first = true;

		for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
			if (refs[i].loaded) {
				fprintf(out, "%s\"%s\"", first ? "" : ", ", refs[i].name);
				first = false;
			}
		}
	}
	fputs("]\n}\n", out);
	g_ptr_array_free(cl, TRUE);
	g_ptr_array_free(cv, TRUE);
}

GPtrArray *whatif_conclusions(const struct whatif_result *r)
{
	return conclusions(r);
}

GPtrArray *whatif_caveats(const struct whatif_result *r)
{
	return caveats(r);
}

char *whatif_loaded_points(const struct whatif_result *r)
{
	return loaded_points(r);
}
