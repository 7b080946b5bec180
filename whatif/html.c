/* SPDX-License-Identifier: MIT */
/*
 * The HTML report of a study (whatif.h): one self-contained page, no script, no outside asset.
 * The chart is the paper's Figures 4-5 drawn as inline SVG: t_SUT against t_PSF, each busy
 * point its median with a bar from its fastest to its slowest run, the fitted segments, the
 * knee t_limit marked with the band of knees the data allow, the flat stub at t_PSF 0, the
 * original at t_busy, the idle stub as a dashed level. Elements carry classes (pt, bar, seg-flat,
 * seg-rise, knee, ref) so a test can count what was drawn.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg-chart.h"
#include "text-out.h"
#include "whatif-internal.h"

#define W 760.0
#define H 440.0
#define ML 78.0
#define MR 24.0
#define MT 24.0
#define MB 56.0

static void widen(struct svg_chart *c, const struct whatif_point *p)
{
	c->y.lo = fmin(c->y.lo, (double)p->min_ns);
	c->y.hi = fmax(c->y.hi, (double)p->max_ns);
}

static void segment(const struct svg_chart *c, FILE *out, const char *cls, double xa, double ya,
		    double xb, double yb)
{
	fprintf(out, "<line class=\"seg %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		cls, svg_chart_x(c, xa), svg_chart_y(c, ya), svg_chart_x(c, xb),
		svg_chart_y(c, yb));
}

static void fitted(const struct svg_chart *c, const struct whatif_result *r, FILE *out)
{
	const struct whatif_fit *f = &r->fit;
	double xa = (double)r->points[0].t_psf_ns, xb = (double)r->points[r->n_points - 1].t_psf_ns;

	switch (f->kind) {
	case WHATIF_KIND_LIMITED: {
		/* the label on the knee's left where its right would leave the chart */
		bool left = svg_chart_x(c, f->t_limit) > ML + 0.6 * (W - ML - MR);

		fprintf(out,
			"<rect class=\"knee-band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"/>\n",
			svg_chart_x(c, f->t_limit_lo), MT,
			fmax(1, svg_chart_x(c, f->t_limit_hi) - svg_chart_x(c, f->t_limit_lo)),
			H - MT - MB);
		segment(c, out, "seg-flat", xa, f->t_min, f->t_limit, f->t_min);
		segment(c, out, "seg-rise", f->t_limit, f->t_min, xb, whatif_fit_eval(f, xb));
		fprintf(out,
			"<line class=\"knee\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<circle class=\"knee-pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/>"
			"<text class=\"knee-label\" x=\"%.1f\" y=\"%.1f\"%s>t_limit = %.3f ms "
			"(%s %.2f)</text>\n",
			svg_chart_x(c, f->t_limit), MT, svg_chart_x(c, f->t_limit), H - MB,
			svg_chart_x(c, f->t_limit), svg_chart_y(c, f->t_min),
			svg_chart_x(c, f->t_limit) + (left ? -8 : 8), svg_chart_y(c, f->t_min) - 12,
			left ? " text-anchor=\"end\"" : "", f->t_limit / 1e6,
			r->sweep == WHATIF_SWEEP_MISSES ? "misses x" : "scale",
			whatif_scale_at(r, f->t_limit));
		break;
	}
	case WHATIF_KIND_TOTAL:
		segment(c, out, "seg-rise", xa, whatif_fit_eval(f, xa), xb, whatif_fit_eval(f, xb));
		break;
	case WHATIF_KIND_NONE:
		segment(c, out, "seg-flat", xa, f->t_min, xb, f->t_min);
		break;
	default:
		break;
	}
}

/* The reference stubs: flat at t_PSF 0, idle and original at t_busy. */
static void references(const struct svg_chart *c, const struct whatif_result *r, FILE *out)
{
	if (r->has_flat) {
		double x = svg_chart_x(c, 0), y = svg_chart_y(c, whatif_point_sut(&r->flat));

		fprintf(out,
			"<rect class=\"ref flat\" x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\">"
			"<title>flat stub: %.3f ms</title></rect>\n",
			x - 5.5, y - 5.5, whatif_point_sut(&r->flat) / 1e6);
	}
	if (r->has_idle) {
		/* a level across the chart: the idle stub spends no CPU, and a mark at t_busy
		 * would hide under the original's */
		double y = svg_chart_y(c, whatif_point_sut(&r->idle));

		fprintf(out,
			"<line class=\"ref idle\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
			"<title>idle stub: %.3f ms</title></line><text class=\"idle-label\" "
			"x=\"%.1f\" y=\"%.1f\">idle stub</text>\n",
			ML, y, W - MR, y, whatif_point_sut(&r->idle) / 1e6, W - MR - 4, y - 5);
	}
	{
		double x = svg_chart_x(c, (double)r->busy_ns),
		       y = svg_chart_y(c, whatif_point_sut(&r->original));

		fprintf(
		    out,
		    "<path class=\"ref original\" d=\"M%.1f %.1fl7 12h-14z\"><title>the stub at "
		    "1x: %.3f ms</title></path>\n",
		    x, y - 7, whatif_point_sut(&r->original) / 1e6);
	}
	if (r->recorded_sut_ns) {
		/* the real program's own time: the reference the stub at 1x must meet */
		double y = svg_chart_y(c, (double)r->recorded_sut_ns);

		fprintf(out,
			"<line class=\"ref recorded\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\"><title>the recorded program: %.3f ms</title></line><text "
			"class=\"recorded-label\" x=\"%.1f\" y=\"%.1f\">recorded program</text>\n",
			ML, y, W - MR, y, (double)r->recorded_sut_ns / 1e6, ML + 6, y - 5);
	}
}

static void chart(const struct whatif_result *r, FILE *out)
{
	struct svg_chart c = {
	    .f = {W, H, ML, MR, MT, MB},
	    .x = {.lo = 0,
		  .hi = (double)r->busy_ns,
		  .n_ticks = 6,
		  .unit = 1e6,
		  .title = r->sweep == WHATIF_SWEEP_MISSES
			       ? "t_PSF (ms): the component's CPU time at each scale of its misses"
			       : "t_PSF (ms): the component's CPU time"},
	    .y = {.lo = INFINITY,
		  .hi = -INFINITY,
		  .n_ticks = 6,
		  .unit = 1e6,
		  .title = "t_SUT (ms): the whole program"},
	};
	double pad;

	for (size_t i = 0; i < r->n_points; i++) {
		c.x.hi = fmax(c.x.hi, (double)r->points[i].t_psf_ns);
		widen(&c, &r->points[i]);
	}
	if (r->has_flat) {
		widen(&c, &r->flat);
	}
	if (r->has_idle) {
		widen(&c, &r->idle);
	}
	widen(&c, &r->original);
	if (r->recorded_sut_ns) {
		c.y.lo = fmin(c.y.lo, (double)r->recorded_sut_ns);
		c.y.hi = fmax(c.y.hi, (double)r->recorded_sut_ns);
	}
	pad = fmax((c.y.hi - c.y.lo) * 0.12, c.y.hi * 0.02 + 1);
	c.y.lo = fmax(0, c.y.lo - pad);
	c.y.hi += pad;
	c.x.hi = c.x.hi > 0 ? c.x.hi * 1.03 : 1;
	fprintf(out,
		"<svg id=\"curve\" viewBox=\"0 0 %.0f %.0f\" "
		"width=\"%.0f\" height=\"%.0f\" data-kind=\"%s\" data-points=\"%zu\" "
		"data-answer=\"%s\">\n",
		W, H, W, H, r->n_points ? whatif_kind_name(r->fit.kind) : "unclear", r->n_points,
		r->n_points ? whatif_kind_name(r->kind) : "unclear");
	svg_chart_axes(&c, out);
	if (r->n_points) {
		fitted(&c, r, out);
	}
	for (size_t i = 0; i < r->n_points; i++) {
		const struct whatif_point *p = &r->points[i];
		double x = svg_chart_x(&c, (double)p->t_psf_ns);

		fprintf(
		    out,
		    "<line class=\"bar\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<circle class=\"pt%s\" data-scale=\"%.6g\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\">"
		    "<title>scale %.2f: t_PSF %.3f ms, t_SUT %.3f ms (%.3f-%.3f)</title>"
		    "</circle>\n",
		    x, svg_chart_y(&c, (double)p->min_ns), x, svg_chart_y(&c, (double)p->max_ns),
		    p->loaded ? " loaded" : "", p->scale, x, svg_chart_y(&c, (double)p->median_ns),
		    p->scale, (double)p->t_psf_ns / 1e6, (double)p->median_ns / 1e6,
		    (double)p->min_ns / 1e6, (double)p->max_ns / 1e6);
	}
	references(&c, r, out);
	fputs("</svg>\n", out);
}

static const char CSS[] =
    "body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
    "table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;"
    "text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}"
    ".axes line{stroke:#444}.axes .grid{stroke:#e6e6e6}.axes text{font-size:12px;fill:#444}"
    ".xt{text-anchor:middle}.yt{text-anchor:end}.xl,.yl{text-anchor:middle;font-size:13px}"
    ".bar{stroke:#4a6fa5;stroke-width:1.5}.pt{fill:#4a6fa5}.pt.loaded{fill:#e08a00}"
    ".seg{stroke-width:2.5}.seg-flat{stroke:#2e8b57}.seg-rise{stroke:#c0392b}"
    ".knee{stroke:#555;stroke-dasharray:5 4}.knee-pt{fill:none;stroke:#111;stroke-width:2}"
    ".knee-band{fill:#999;opacity:.15}.knee-label{font-size:12px;font-weight:600}"
    ".ref.flat{fill:#7b3fa0}.ref.idle{stroke:#1a9fb0;stroke-width:1.5;stroke-dasharray:2 3}"
    ".idle-label{fill:#1a9fb0;font-size:12px;text-anchor:end}.ref.original{fill:#111}"
    ".ref.recorded{stroke:#111;stroke-width:1.5;stroke-dasharray:8 4}"
    ".recorded-label{font-size:12px;fill:#111}"
    ".answer{font-size:16px;background:#eef5ee;padding:10px 12px;border-left:4px solid "
    "#2e8b57}.answer.unclear-answer{background:#fdecea;border-left-color:#c0392b}"
    "#gap{margin-top:-6px}tr.component td{font-weight:600;background:#eef5ee}"
    ".legend span{margin-right:18px}.sw{display:inline-block;width:12px;height:12px;"
    "margin-right:4px;vertical-align:-1px}.warn{background:#fff4e0;padding:8px;"
    "border-left:4px solid #e08a00}code{font-size:12px}"
    ".unclear{background:#fdecea;padding:4px 12px;border-left:4px solid #c0392b}"
    ".unclear h2{margin-top:8px}.unclear li{margin-bottom:6px}";

static void table_row(FILE *out, const char *stub, const struct whatif_point *p,
		      const char *link_base)
{
	char psf[32];

	snprintf(psf, sizeof(psf), "%.3f", (double)p->t_psf_ns / 1e6);
	fprintf(out,
		"<tr%s><td class=\"l\">%s</td><td>%.2f</td><td>%s</td><td>%.3f</td><td>%.3f</td>"
		"<td>%.3f</td><td>%zu</td><td class=\"l\">",
		p->loaded ? " class=\"loaded\"" : "", stub, p->scale,
		p->kind == WHATIF_POINT_IDLE ? "(slept)" : psf, (double)p->median_ns / 1e6,
		(double)p->min_ns / 1e6, (double)p->max_ns / 1e6, p->n_runs);
	if (p->timelines) {
		fputs("<a class=\"timelines\" href=\"", out);
		if (link_base) {
			dps_html_escape(out, link_base);
			fputc('/', out);
		}
		dps_html_escape(out, p->timelines);
		fputs("\">timelines</a>", out);
	}
	fputs("</td></tr>\n", out);
}

static void points_table(const struct whatif_result *r, FILE *out, const char *link_base)
{
	fputs("<table id=\"points\"><tr><th class=\"l\">stub</th><th>scale</th><th>t_PSF ms</th>"
	      "<th>t_SUT ms (median)</th><th>min</th><th>max</th><th>runs</th><th "
	      "class=\"l\">vs the original</th></tr>\n",
	      out);
	for (size_t i = 0; i < r->n_points; i++) {
		table_row(out, "busy", &r->points[i], link_base);
	}
	if (r->has_flat) {
		table_row(out, "flat", &r->flat, link_base);
	}
	if (r->has_idle) {
		table_row(out, "idle", &r->idle, link_base);
	}
	table_row(out, "stub at 1x", &r->original, link_base);
	if (r->recorded_sut_ns) {
		fprintf(out,
			"<tr class=\"recorded\"><td class=\"l\">recorded program</td><td>1.00</td>"
			"<td>%.3f</td><td>%.3f</td><td></td><td></td><td>1</td><td "
			"class=\"l\">the reference</td></tr>\n",
			(double)r->busy_ns / 1e6, (double)r->recorded_sut_ns / 1e6);
	}
	fputs("</table>\n", out);
}

/* The recorded process's threads ranked by their time on the critical path: the component's
 * rows marked, so a reader sees whether another thread was the one to study. */
static void candidates_table(const struct whatif_result *r, FILE *out)
{
	char *line = whatif_critical_line(r);

	if (!line) {
		return;
	}
	fputs("<h2>Which thread to study</h2><p id=\"critical\">", out);
	dps_html_escape(out, line);
	fputs(" The recorded process's threads by their time on its critical path (walked back "
	      "from the last end through the threads that woke or created each other, "
	      "doc/analyzer.md):</p>\n<table id=\"candidates\"><tr><th>id</th><th "
	      "class=\"l\">name</th><th>critical path ms</th><th>share</th><th>CPU ms</th><th>"
	      "others waited on it, ms</th><th class=\"l\"></th></tr>\n",
	      out);
	for (size_t k = 0; k < r->n_candidates; k++) {
		const struct whatif_candidate *c = &r->candidates[k];

		fprintf(out, "<tr%s><td>%" PRIu64 "</td><td class=\"l\">",
			c->in_component ? " class=\"component\"" : "", c->id);
		dps_html_escape(out, c->comm ? c->comm : "");
		fprintf(out,
			"</td><td>%.3f</td><td>%.1f %%</td><td>%.3f</td><td>%.3f</td><td "
			"class=\"l\">%s</td></tr>\n",
			(double)c->critical_ns / 1e6,
			100.0 * (double)c->critical_ns / (double)r->critical_span_ns,
			(double)c->busy_ns / 1e6, (double)c->waited_on_ns / 1e6,
			c->in_component ? "the component" : "");
	}
	fputs("</table>\n", out);
	g_free(line);
}

/* " --thread-scale ID=SCALE" for each thread of the component (sweeping the misses:
 * " --cache-outcome --thread-cache-scale ID=SCALE"): the knobs (knobs.def) a reader
 * replays one point with. */
static void thread_scale_knobs(const struct whatif_result *r, FILE *out)
{
	if (r->sweep == WHATIF_SWEEP_MISSES) {
		fprintf(out, " --%s", dps_knobs_table[DPS_KNOB_ID_cache_outcome].name);
	}
	for (size_t i = 0; i < r->n_ids; i++) {
		fprintf(
		    out, " --%s %" PRIu64 "=SCALE",
		    dps_knobs_table[r->sweep == WHATIF_SWEEP_MISSES ? DPS_KNOB_ID_thread_cache_scale
								    : DPS_KNOB_ID_thread_scale]
			.name,
		    r->ids[i]);
	}
}

static void sentences(FILE *out, const char *title, GPtrArray *v, const char *id)
{
	if (!v->len) {
		return;
	}
	fprintf(out, "<h2>%s</h2><ul id=\"%s\">\n", title, id);
	for (size_t i = 0; i < v->len; i++) {
		fputs("<li>", out);
		dps_html_escape(out, v->pdata[i]);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

void whatif_write_html_here(const struct whatif_result *r, FILE *out)
{
	whatif_write_html(r, out, NULL);
}

void whatif_write_html(const struct whatif_result *r, FILE *out, const char *link_base)
{
	const struct whatif_fit *f = &r->fit;
	GPtrArray *cl = whatif_conclusions(r), *cv = whatif_caveats(r);
	char *loaded = whatif_loaded_points(r);

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>dps whatif: ", out);
	dps_html_escape(out, r->component);
	fprintf(out, "</title><style>%s</style></head>\n<body>\n<h1>What if ", CSS);
	dps_html_escape(out, r->component);
	fputs(r->sweep == WHATIF_SWEEP_MISSES ? " missed the cache less or more?</h1>\n"
					      : " ran faster or slower?</h1>\n",
	      out);
	{
		char *answer = whatif_answer(r), *gap = whatif_gap(r);

		fprintf(out, "<p class=\"answer%s\" id=\"answer\">",
			r->kind == WHATIF_KIND_UNCLEAR || !r->n_points ? " unclear-answer" : "");
		dps_html_escape(out, answer);
		fputs("</p>\n", out);
		if (gap) {
			fputs("<p id=\"gap\">", out);
			dps_html_escape(out, gap);
			fputs("</p>\n", out);
		}
		g_free(answer);
		g_free(gap);
	}
	fputs("<p>Input <code>", out);
	dps_html_escape(out, r->input);
	fprintf(out,
		"</code>; t_busy<sup>CUS</sup> %.3f ms (the component's recorded runs); %u "
		"repetitions per point, mode %s, seed %" PRIu64 ".</p>\n",
		(double)r->busy_ns / 1e6, r->repeat, r->mode, r->seed);
	if (r->sweep == WHATIF_SWEEP_MISSES) {
		const struct whatif_misses *m = &r->misses;

		fprintf(
		    out,
		    "<p id=\"misses\">Sweeping the misses: a point's scale multiplies the D1 "
		    "and LL misses of the component's %zu runs with cache figures (%" PRIu64
		    " accesses, %" PRIu64 " D1 and %" PRIu64 " LL misses), played with "
		    "<code>--cache-outcome</code>; its t<sub>PSF</sub> is the component's CPU "
		    "at that scale: the recorded time plus what the scaled misses cost over the "
		    "recorded ones at the cache stub's quiet costs on this machine (all of "
		    "them: %.3f ms).</p>\n",
		    m->n_runs, m->accesses, m->d1_misses, m->ll_misses, (double)m->cost_ns / 1e6);
	}
	if (r->collected) {
		fputs("<p id=\"collected\">", out);
		dps_html_escape(out, r->collected);
		fputs("</p>\n", out);
	}
	if (!whatif_window_is_run(r)) {
		char a[32], b[32];

		fprintf(out,
			"<p id=\"window\">t_SUT is the window from %s to %s (the stub's thread "
			"times), not the run from exec to exit.</p>\n",
			whatif_edge_str(&r->window_from, false, a, sizeof(a)),
			whatif_edge_str(&r->window_to, true, b, sizeof(b)));
	}
	if (loaded) {
		fputs("<p class=\"warn\">Under load during runs of: ", out);
		dps_html_escape(out, loaded);
		fputs(" (orange). Their times measure the machine as much as the program; rerun "
		      "on a quiet machine (--wait-quiet waits for one).</p>\n",
		      out);
	}
	if (r->n_doubts) {
		/* the answer first: the curve below is the replay's, not backed */
		fputs("<div class=\"unclear\" id=\"unclear\"><h2>Why the answer is "
		      "unclear</h2><p>dps cannot "
		      "back the curve below as the real program's:</p><ul>",
		      out);
		for (size_t i = 0; i < r->n_doubts; i++) {
			fprintf(out, "<li data-check=\"%s\">",
				whatif_doubt_kind_name(r->doubts[i].kind));
			dps_html_escape(out, r->doubts[i].reason);
			fputs("<br><b>Way out:</b> ", out);
			dps_html_escape(out, r->doubts[i].way_out);
			fputs(".</li>", out);
		}
		fputs("</ul></div>\n", out);
	}
	chart(r, out);
	fputs("<p class=\"legend\"><span><i class=\"sw\" style=\"background:#4a6fa5\"></i>busy "
	      "stub: median, bar min-max</span><span><i class=\"sw\" "
	      "style=\"background:#2e8b57\"></i>flat segment t_min</span><span><i class=\"sw\" "
	      "style=\"background:#c0392b\"></i>rising segment</span><span><i class=\"sw\" "
	      "style=\"background:#7b3fa0\"></i>flat stub</span><span><i class=\"sw\" "
	      "style=\"background:#1a9fb0\"></i>idle stub</span><span><i class=\"sw\" "
	      "style=\"background:#111\"></i>stub at 1x</span><span><i class=\"sw\" "
	      "style=\"background:repeating-linear-gradient(90deg,#111 0 6px,#fff 6px 9px);"
	      "height:3px;vertical-align:3px\"></i>recorded program</span><span><i class=\"sw\" "
	      "style=\"background:#e08a00\"></i>run under load</span></p>\n",
	      out);
	fprintf(out, "<h2>Fit: <span id=\"kind\">%s</span>",
		r->n_points ? whatif_kind_name(r->kind) : "unclear");
	if (r->n_doubts) {
		fprintf(
		    out,
		    " <small>(the replay's curve alone reads as <span id=\"fit-kind\">%s</span>)"
		    "</small>",
		    r->n_points ? whatif_kind_name(f->kind) : "unclear");
	}
	fputs("</h2><p>", out);
	if (f->knee) {
		fprintf(out,
			"t<sub>min</sub><sup>SUT</sup> %.3f ms, t<sub>limit</sub> %.3f ms (scale "
			"%.2f, placed within %.3f-%.3f ms), slope %.2f. ",
			f->t_min / 1e6, f->t_limit / 1e6, whatif_scale_at(r, f->t_limit),
			f->t_limit_lo / 1e6, f->t_limit_hi / 1e6, f->slope);
	}
	fprintf(out, "Fit error %.3f ms rms (%.1f %%), noise %.3f ms. ", f->rms / 1e6,
		100 * f->rel_err, f->noise / 1e6);
	dps_html_escape(out, f->reason);
	fputs(".</p>\n", out);
	sentences(out,
		  r->n_doubts ? "Method: the replay's reading, not backed (see above)"
			      : "Method: the paper's reading of the stubs",
		  cl, "conclusions");
	sentences(out, "Caveats: what the replay cannot move", cv, "caveats");
	candidates_table(r, out);
	fputs("<h2>Points</h2>\n", out);
	points_table(r, out, link_base);
	if (r->in_situ) {
		fputs("<h2>In the real program</h2><p>Every point ran the command itself, its "
		      "regions stubbed (dps/stub.h) and their results restored; record one point "
		      "with <code>DPS_STUB_MODE=busy DPS_STUB_BUSY=50% DPS_SSF_MODE=restore "
		      "dps record -- CMD</code> to see its timelines.</p>\n</body></html>\n",
		      out);
		goto end;
	}
	fputs("<h2>Side-by-side timelines</h2><p>Any point against the original: ", out);
	if (r->from_trace && r->workdir) {
		fputs("the points run with <code>--timelines</code> link their report in the "
		      "table above; for another, ",
		      out);
	}
	if (r->from_trace) {
		fputs("<code>dps replay ", out);
		dps_html_escape(out, r->input);
		thread_scale_knobs(r, out);
		fputs("</code> (SCALE from the table) writes the report of the original and that "
		      "point's stub side by side.</p>\n",
		      out);
	} else {
		fputs("replay the trace this set came from with <code>dps replay TRACE --set ",
		      out);
		dps_html_escape(out, r->input);
		thread_scale_knobs(r, out);
		fputs("</code>.</p>\n", out);
	}
	fputs("</body></html>\n", out);
end:
	g_free(loaded);
	g_ptr_array_free(cl, TRUE);
	g_ptr_array_free(cv, TRUE);
}
