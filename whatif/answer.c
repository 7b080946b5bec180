/* SPDX-License-Identifier: MIT */
/*
 * The study's answer in one sentence (doc/whatif.md, "The answer"): what the component's speed
 * does to the whole program, with the figure, the range where it holds and how sure the fit is,
 * in words a reader who has not read the paper follows. The terminal prints it first, the JSON
 * has it as "answer", every page shows it at the top. The paper's notation stays in the
 * conclusions ("method").
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include <glib.h>

#include "text-out.h"
#include "whatif-internal.h"

/* The signed change from b to a, "-10 %". */
static const char *pct(double a, double b, char *buf, size_t len)
{
	snprintf(buf, len, "%+.0f %%", b > 0 ? 100 * (a - b) / b : 0.0);
	return buf;
}

/* The busy point nearest to scale (its measured median), NULL without points. */
static const struct whatif_point *nearest(const struct whatif_result *r, double scale)
{
	const struct whatif_point *best = NULL;

	for (size_t i = 0; i < r->n_points; i++) {
		if (!best || fabs(r->points[i].scale - scale) < fabs(best->scale - scale)) {
			best = &r->points[i];
		}
	}
	return best;
}

/* "(fit within 1.2 % of the times, runs spread +-3.1 ms, 7 runs per point)" */
static void sureness(GString *g, const struct whatif_result *r)
{
	char a[32];

	g_string_append_printf(g,
			       " (the fit is within %.1f %% of the measured times, runs spread "
			       "+-%s ms, %u run%s per point",
			       100 * r->fit.rel_err, whatif_ms(r->fit.noise, a, sizeof(a)),
			       r->repeat, r->repeat == 1 ? "" : "s");
	if (r->n_loaded) {
		g_string_append_printf(g, "; %zu point%s under load", r->n_loaded,
				       r->n_loaded == 1 ? "" : "s");
	}
	g_string_append(g, ").");
}

char *whatif_answer(const struct whatif_result *r)
{
	const struct whatif_fit *f = &r->fit;
	GString *g = g_string_new(NULL);
	double one = whatif_point_sut(&r->original);
	bool misses = r->sweep == WHATIF_SWEEP_MISSES;
	char name[160], a[32], b[32], c[32];
	const struct whatif_point *p;

	dps_text_sanitize(r->component ? r->component : "", name, sizeof(name));
	if (r->n_doubts) {
		g_string_append_printf(g,
				       "Unclear: dps cannot say what the %s of %s %s to the "
				       "program. %s Way out: %s.",
				       misses ? "cache misses" : "speed", name,
				       misses ? "do" : "does", r->doubts[0].reason,
				       r->doubts[0].way_out);
		if (r->n_doubts > 1) {
			g_string_append_printf(g, " %zu more reason%s below.", r->n_doubts - 1,
					       r->n_doubts > 2 ? "s" : "");
		}
		return g_string_free(g, FALSE);
	}
	if (!r->n_points) {
		g_string_append_printf(g,
				       "No sweep of %s's speed was run (--stub without busy): "
				       "see the reference stubs' readings below.",
				       name);
		return g_string_free(g, FALSE);
	}
	/* sweeping the misses, the same readings in their words (doc/whatif.md) */
	switch (f->kind) {
	case WHATIF_KIND_TOTAL:
		p = misses ? &r->points[0] : nearest(r, 0.5);
		g_string_append_printf(
		    g,
		    misses ? "%s's cache misses hold the program up all the way: with %.2fx of "
			     "them the program takes %s ms instead of %s ms (%s); every miss taken "
			     "off comes off the whole, over the whole sweep, %.2fx to %.2fx"
			   : "%s is a total bottleneck: every ms taken off it comes off the whole "
			     "program. At %.2fx its CPU time the program takes %s ms instead of %s "
			     "ms (%s); this holds over the whole sweep, %.2fx to %.2fx",
		    name, p->scale, whatif_ms((double)p->median_ns, a, sizeof(a)),
		    whatif_ms(one, b, sizeof(b)), pct((double)p->median_ns, one, c, sizeof(c)),
		    r->points[0].scale, r->points[r->n_points - 1].scale);
		sureness(g, r);
		break;
	case WHATIF_KIND_LIMITED: {
		double knee = whatif_scale_at(r, f->t_limit);

		if (knee < 1) {
			g_string_append_printf(
			    g,
			    misses
				? "Cutting %s's cache misses pays down to %.2fx the recorded ones: "
				  "there the program takes %s ms instead of %s ms (%s); fewer than "
				  "that gain nothing more: another thread holds the program up"
				: "Making %s faster pays until it needs %.2fx its recorded CPU "
				  "time: there the program takes %s ms instead of %s ms (%s); "
				  "faster than that, nothing more is gained: another thread holds "
				  "the program up",
			    name, knee, whatif_ms(f->t_min, a, sizeof(a)),
			    whatif_ms(one, b, sizeof(b)), pct(f->t_min, one, c, sizeof(c)));
		} else {
			p = &r->points[r->n_points - 1];
			g_string_append_printf(
			    g,
			    misses
				? "%s's cache misses do not hold the program up as recorded: fewer "
				  "gain nothing (the program stays at %s ms); past %.2fx of them "
				  "it "
				  "becomes the bottleneck (at %.2fx the program takes %s ms, %s)"
				: "%s is not what holds the program up at its recorded speed: "
				  "making it faster gains nothing (the program stays at %s ms); it "
				  "becomes the bottleneck past %.2fx its CPU time (at %.2fx the "
				  "program takes %s ms, %s)",
			    name, whatif_ms(f->t_min, a, sizeof(a)), knee, p->scale,
			    whatif_ms((double)p->median_ns, b, sizeof(b)),
			    pct((double)p->median_ns, one, c, sizeof(c)));
		}
		sureness(g, r);
		break;
	}
	case WHATIF_KIND_NONE:
		g_string_append_printf(
		    g,
		    misses ? "%s's cache misses do not move the program: from %.2fx to %.2fx of "
			     "them the program takes %s ms throughout"
			   : "The speed of %s does not move the program: from %.2fx to %.2fx its "
			     "CPU time the program takes %s ms throughout; look for the bottleneck "
			     "elsewhere",
		    name, r->points[0].scale, r->points[r->n_points - 1].scale,
		    whatif_ms(f->t_min, a, sizeof(a)));
		sureness(g, r);
		break;
	default:
		size_t n_loaded = 0;

		for (size_t i = 0; i < r->n_points; i++) {
			n_loaded += r->points[i].loaded;
		}
		if (n_loaded) {
			g_string_append_printf(
			    g,
			    "Unclear: %zu of the %zu points ran under load, and the curve cannot "
			    "be "
			    "read through that noise: %s. Run the study again on a quiet machine "
			    "(--wait-quiet waits for one).",
			    n_loaded, r->n_points, f->reason);
		} else {
			g_string_append_printf(g,
					       "Unclear: the curve cannot be read (%s). More "
					       "repetitions (--repeat) or a quieter machine may "
					       "settle it.",
					       f->reason);
		}
		break;
	}
	return g_string_free(g, FALSE);
}

char *whatif_gap(const struct whatif_result *r)
{
	double one = whatif_point_sut(&r->original), rec = (double)r->recorded_sut_ns;
	char a[32], b[32], c[32];

	if (!r->recorded_sut_ns) {
		return NULL;
	}
	return g_strdup_printf("The recorded program took %s ms; the stub at 1x takes %s ms (%s).",
			       whatif_ms(rec, a, sizeof(a)), whatif_ms(one, b, sizeof(b)),
			       pct(one, rec, c, sizeof(c)));
}
