/* SPDX-License-Identifier: MIT */
/*
 * The charts of dps's HTML pages drawn in C (dps whatif's curve, dps memory's live bytes and
 * peak-versus-size charts): one frame, one mapping from data to pixels, one set of axes with
 * round ticks, so the pages look alike and a change to the axes is made once. Inline SVG, no
 * script: what is drawn inside the frame (points, lines, areas) stays with each page. The
 * comparison's page draws its timelines in the browser (compare/report.js) instead.
 *
 * The elements keep the classes the pages' CSS and tests use: `axes` (the group), `tick`
 * (an x tick), `grid` (a y grid line), `xt`/`yt` (tick labels), `xl`/`yl` (axis titles).
 */
#ifndef DPS_COMMON_SVG_CHART_H
#define DPS_COMMON_SVG_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A tick's label: v in the axis's unit written into buf (len bytes); returns buf. */
typedef const char *(*svg_tick_label_fn)(double v, char *buf, size_t len);

struct svg_axis {
	double lo, hi; /* the data at the axis's ends */
	int n_ticks;   /* about this many ticks (a round step: 1, 2 or 5 times a power of ten) */
	double unit;   /* labels show v / unit with %g (when label is NULL) */
	svg_tick_label_fn label; /* NULL: %g of v / unit */
	bool skip_lo;		 /* no tick at lo itself (a y axis from 0 whose 0 is the x axis) */
	const char *title;	 /* plain text, escaped here; NULL: none */
};

/* A page's chart frame: the SVG's size and the margins around the plot area, px. */
struct svg_frame {
	double w, h;
	double ml, mr, mt, mb;
};

struct svg_chart {
	struct svg_frame f;
	struct svg_axis x, y;
};

/* The pixel of a data value on each axis. */
double svg_chart_x(const struct svg_chart *c, double v);
double svg_chart_y(const struct svg_chart *c, double v);
/* A round step for about n ticks over range: 1, 2 or 5 times a power of ten. */
double svg_chart_tick_step(double range, int n);
/* The axes group: both axis lines, each axis's ticks and labels, the titles. */
void svg_chart_axes(const struct svg_chart *c, FILE *out);

#endif /* DPS_COMMON_SVG_CHART_H */
