/* SPDX-License-Identifier: MIT */
/* The C-drawn charts' frame, mapping and axes (svg-chart.h). */
#include <math.h>

#include "svg-chart.h"
#include "text-out.h"

double svg_chart_x(const struct svg_chart *c, double v)
{
	return c->f.ml + (v - c->x.lo) / (c->x.hi - c->x.lo) * (c->f.w - c->f.ml - c->f.mr);
}

double svg_chart_y(const struct svg_chart *c, double v)
{
	return c->f.h - c->f.mb -
	       (v - c->y.lo) / (c->y.hi - c->y.lo) * (c->f.h - c->f.mt - c->f.mb);
}

double svg_chart_tick_step(double range, int n)
{
	double raw = range / (n > 0 ? n : 5), p = pow(10, floor(log10(raw))), m = raw / p;

	return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static const char *label(const struct svg_axis *a, double v, char *buf, size_t len)
{
	if (a->label) {
		return a->label(v, buf, len);
	}
	snprintf(buf, len, "%g", v / (a->unit > 0 ? a->unit : 1));
	return buf;
}

/* The first tick of an axis: the first multiple of step at or above lo (above with skip_lo). */
static double first_tick(const struct svg_axis *a, double step)
{
	double v = ceil(a->lo / step) * step;

	return a->skip_lo && v <= a->lo + step / 1e6 ? v + step : v;
}

/* One axis's ticks: on x a tick mark under the axis, on y a grid line across the plot. */
static void ticks(const struct svg_chart *c, FILE *out, bool is_x)
{
	const struct svg_axis *a = is_x ? &c->x : &c->y;
	double step = svg_chart_tick_step(a->hi - a->lo, a->n_ticks);
	double bottom = c->f.h - c->f.mb;
	char buf[48];

	if (!isfinite(step) || step <= 0) {
		return;
	}
	for (double v = first_tick(a, step); v <= a->hi + step / 1e6; v += step) {
		double p = is_x ? svg_chart_x(c, v) : svg_chart_y(c, v);

		if (is_x) {
			fprintf(
			    out,
			    "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">",
			    p, bottom, p, bottom + 5, p, bottom + 17);
		} else {
			fprintf(
			    out,
			    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">",
			    c->f.ml, p, c->f.w - c->f.mr, p, c->f.ml - 6, p + 4);
		}
		dps_html_escape(out, label(a, v, buf, sizeof(buf)));
		fputs("</text>\n", out);
	}
}

void svg_chart_axes(const struct svg_chart *c, FILE *out)
{
	double bottom = c->f.h - c->f.mb, right = c->f.w - c->f.mr;

	fprintf(out,
		"<g class=\"axes\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		c->f.ml, bottom, right, bottom, c->f.ml, c->f.mt, c->f.ml, bottom);
	ticks(c, out, true);
	ticks(c, out, false);
	if (c->x.title) {
		fprintf(out, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", (c->f.ml + right) / 2,
			c->f.h - c->f.mb / 4);
		dps_html_escape(out, c->x.title);
		fputs("</text>", out);
	}
	if (c->y.title) {
		fprintf(out, "<text class=\"yl\" transform=\"translate(16 %.1f) rotate(-90)\">",
			(c->f.mt + bottom) / 2);
		dps_html_escape(out, c->y.title);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}
