/* SPDX-License-Identifier: MIT */
/*
 * The HTML views of a profile and of a prediction (mempredict.h): one page each, inline SVG and
 * CSS, no script and no outside resource, like the other dps reports (whatif/html.c). Class,
 * phase and run names come from traces and pass through dps_html_escape, in text and in
 * attributes alike. The page is also well-formed XML (every element closed, only the XML
 * entities), so a test can parse it without a browser. Elements carry classes (area, classes,
 * bar-peak, bar-avg, range, paper) so a test can count what was drawn.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atomic-out.h"
#include "mempredict.h"
#include "svg-chart.h"
#include "text-out.h"

#define W 760.0
#define ML 70.0
#define MR 16.0
#define MT 14.0
#define MB 38.0
#define CHART_H 280.0

/* The others (gray) come after the classes' colours. */
static const char *const PALETTE[] = {"#4a6fa5", "#e08a00", "#2e8b57", "#c0392b", "#7b3fa0",
				      "#1a9fb0", "#b5a300", "#a0522d", "#999999"};
#define N_COLOURS (sizeof(PALETTE) / sizeof(PALETTE[0]) - 1)

static const char CSS[] =
    "body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:32px}"
    "table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;border-bottom:1px solid "
    "#ddd;text-align:right;white-space:nowrap}th{background:#f4f4f4}td.l,th.l{text-align:left}"
    ".axes line{stroke:#444}.axes .grid{stroke:#e6e6e6}.axes text{font-size:11px;fill:#444}"
    ".xt{text-anchor:middle}.yt{text-anchor:end}.xl{text-anchor:middle;font-size:12px}"
    ".area{stroke:#fff;stroke-width:.5}.legend span{margin-right:16px;white-space:nowrap}"
    ".sw{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}"
    ".bar-peak{fill:#4a6fa5}.bar-avg{fill:#9fc0e8}.range{stroke:#111;stroke-width:1.5}"
    ".paper{stroke:#c0392b;stroke-width:2}.name{font-size:11px;text-anchor:end;fill:#222}"
    "code{font-size:12px}.basis td{font-weight:600}"
    ".model{fill:none;stroke:#4a6fa5;stroke-width:2}.measured{fill:#222}"
    ".predicted-point{fill:#e08a00;stroke:#222}.predicted-range{stroke:#e08a00;stroke-width:3}"
    ".paper-point{fill:#c0392b}.measured-edge{stroke:#999;stroke-dasharray:4 3}"
    ".edge-label{font-size:11px;fill:#777}";

static void page_head(FILE *out, const char *title)
{
	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>%s"
		"</title><style>%s</style></head>\n<body>\n",
		title, CSS);
}

/*
 * The profile
 */
/* A chart of this page: its frame, both axes from 0, about 5 ticks each, sizes in bytes. */
static struct svg_chart page_chart(double x_unit, const char *x_title)
{
	return (struct svg_chart){
	    .f = {W, CHART_H, ML, MR, MT, MB},
	    .x = {.hi = 1, .n_ticks = 5, .unit = x_unit, .title = x_title},
	    .y = {.hi = 1, .n_ticks = 5, .label = mp_human_bytes, .skip_lo = true},
	};
}

/* The series of d as stacked areas, its first row at the bottom. */
static void area_chart(const struct mp_dataset *d, FILE *out)
{
	const struct mp_series *s = &d->series;
	size_t n = s->n_points;
	struct svg_chart c = page_chart(1e6, "ms from the phase's start");
	double *low;

	if (!n || !s->n_rows) {
		fputs(
		    "<p class=\"no-series\">No live bytes over time in this profile (written by an "
		    "older dps, or nothing allocated).</p>\n",
		    out);
		return;
	}
	low = calloc(n, sizeof(*low));
	if (!low) {
		return;
	}
	c.x.hi = fmax(1, (double)s->t_ns[n - 1]);
	for (size_t k = 0; k < n; k++) {
		double total = 0;

		for (size_t j = 0; j < s->n_rows; j++) {
			total += (double)s->bytes[j * n + k];
		}
		c.y.hi = fmax(c.y.hi, total * 1.05);
	}
	fprintf(out,
		"<svg class=\"live\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"data-points=\"%zu\" data-rows=\"%zu\">\n",
		W, CHART_H, W, CHART_H, n, s->n_rows);
	svg_chart_axes(&c, out);
	for (size_t j = 0; j < s->n_rows; j++) {
		const uint64_t *row = s->bytes + j * n;
		const char *colour = s->names[j] ? PALETTE[j % N_COLOURS] : PALETTE[N_COLOURS];

		fprintf(out, "<path class=\"area\" fill=\"%s\" d=\"", colour);
		for (size_t k = 0; k < n; k++) {
			fprintf(out, "%s%.1f %.1f", k ? "L" : "M",
				svg_chart_x(&c, (double)s->t_ns[k]),
				svg_chart_y(&c, low[k] + (double)row[k]));
		}
		for (size_t k = n; k-- > 0;) {
			fprintf(out, "L%.1f %.1f", svg_chart_x(&c, (double)s->t_ns[k]),
				svg_chart_y(&c, low[k]));
			low[k] += (double)row[k];
		}
		fputs("Z\"><title>", out);
		dps_html_escape(out, s->names[j] ? s->names[j] : "other classes");
		fputs("</title></path>\n", out);
	}
	fputs("</svg>\n<p class=\"legend\">", out);
	for (size_t j = s->n_rows; j-- > 0;) {
		fprintf(out, "<span><i class=\"sw\" style=\"background:%s\"></i>",
			s->names[j] ? PALETTE[j % N_COLOURS] : PALETTE[N_COLOURS]);
		dps_html_escape(out, s->names[j] ? s->names[j] : "other classes");
		fputs("</span> ", out);
	}
	fputs("</p>\n", out);
	free(low);
}

/* The basis class: the given one, else the class with the most objects potentially active in
 * any data set (borrowed from p; NULL for an empty profile). */
static const char *choose_basis(const struct mp_profile *p, const char *basis)
{
	uint64_t most = 0;

	for (size_t i = 0; i < p->n_sets && !basis; i++) {
		for (size_t j = 0; j < p->sets[i].n_classes; j++) {
			if (p->sets[i].classes[j].max_active > most) {
				most = p->sets[i].classes[j].max_active;
				basis = p->sets[i].classes[j].name;
			}
		}
	}
	for (size_t i = 0; basis && i < p->n_sets && most; i++) {
		for (size_t j = 0; j < p->sets[i].n_classes; j++) {
			if (p->sets[i].classes[j].max_active == most &&
			    strcmp(p->sets[i].classes[j].name, basis) < 0) {
				basis = p->sets[i].classes[j].name; /* ties: the first by name */
			}
		}
	}
	return basis;
}

/* The basis count of d's run, as dps memory predict takes it: the most basis objects
 * potentially active in any of the run's phases. */
static double run_basis_count(const struct mp_profile *p, const struct mp_dataset *d,
			      const char *basis)
{
	double x = 0;

	for (size_t i = 0; basis && i < p->n_sets; i++) {
		const struct mp_class_stats *b;

		if (strcmp(p->sets[i].run, d->run)) {
			continue;
		}
		b = mp_dataset_find_class(&p->sets[i], basis);
		x = b && (double)b->max_active > x ? (double)b->max_active : x;
	}
	return x;
}

static void class_table(const struct mp_profile *p, const struct mp_dataset *d, const char *basis,
			FILE *out)
{
	double x = run_basis_count(p, d, basis);
	char h1[32], h2[32];

	fputs("<table class=\"classes\"><tr><th class=\"l\">class</th><th>avg size B</th>"
	      "<th>max size B</th><th>per basis object</th><th>allocated</th><th>max active</th>"
	      "<th>active at end</th><th>peak live</th><th>avg live</th><th>live at the phase's "
	      "peak</th></tr>\n",
	      out);
	for (size_t j = 0; j < d->n_classes; j++) {
		const struct mp_class_stats *c = &d->classes[j];
		bool is_basis = basis && !strcmp(c->name, basis);

		fprintf(out, "<tr%s><td class=\"l\">", is_basis ? " class=\"basis\"" : "");
		dps_html_escape(out, c->name);
		fprintf(out, "</td><td>%.1f</td><td>%llu</td>", c->avg_size,
			(unsigned long long)c->max_size);
		if (x > 0) {
			fprintf(out, "<td>%.4g</td>", (double)c->max_active / x);
		} else {
			fputs("<td>-</td>", out);
		}
		fprintf(out, "<td>%llu</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td>",
			(unsigned long long)c->allocated, (unsigned long long)c->max_active,
			(unsigned long long)c->end_active,
			mp_human_bytes((double)c->peak_live_bytes, h1, sizeof(h1)),
			mp_human_bytes(c->avg_live_bytes, h2, sizeof(h2)));
		fprintf(out, "<td>%s</td></tr>\n",
			mp_human_bytes((double)c->live_at_peak_bytes, h1, sizeof(h1)));
	}
	fputs("</table>\n", out);
}

void mp_profile_write_html(const struct mp_profile *p, const char *basis, FILE *out)
{
	char h1[32], h2[32];

	basis = choose_basis(p, basis);
	page_head(out, "dps memory profile");
	fprintf(out, "<h1>Heap profile: %zu data sets (run, phase)</h1>\n<p>", p->n_sets);
	if (basis) {
		fputs("Multiplicities are per object of the basis class <code id=\"basis\">", out);
		dps_html_escape(out, basis);
		fputs("</code> (its most objects potentially active in a phase of the run), as "
		      "<code>dps memory predict --basis</code> counts it. ",
		      out);
	}
	fputs("Max active: live at the phase's start plus allocated in it (the paper's "
	      "&#8220;potentially active&#8221;); sizes in bytes; kB and MB are powers of "
	      "1000. See doc/memory-predict.md.</p>\n",
	      out);
	for (size_t i = 0; i < p->n_sets; i++) {
		const struct mp_dataset *d = &p->sets[i];

		fputs("<section class=\"dataset\"><h2>", out);
		dps_html_escape(out, d->run);
		fputs(": phase <span class=\"phase\">", out);
		dps_html_escape(out, d->phase);
		fputs("</span></h2>\n<p>", out);
		if (d->size >= 0) {
			fprintf(out, "Input size %g; ", d->size);
		}
		fprintf(out, "%.3f s; peak %s, average %s.</p>\n", (double)d->duration_ns / 1e9,
			mp_human_bytes((double)d->peak_bytes, h1, sizeof(h1)),
			mp_human_bytes(d->avg_bytes, h2, sizeof(h2)));
		area_chart(d, out);
		class_table(p, d, basis, out);
		fputs("</section>\n", out);
	}
	fputs("</body></html>\n", out);
}

/* Writes through write_page into path, whole or not at all. */
static int save_page(const char *path, struct dps_diag *diag, void (*write_page)(FILE *, void *),
		     void *arg)
{
	struct dps_out_file of = {0};
	int rc = dps_out_file_open(&of, path, diag);

	if (rc) {
		return rc;
	}
	write_page(of.f, arg);
	if (ferror(of.f)) {
		dps_diag_setf(diag, "cannot write %s", path);
		dps_out_file_abort(&of);
		return DPS_ERR_IO;
	}
	return dps_out_file_commit(&of, diag);
}

struct profile_page {
	const struct mp_profile *p;
	const char *basis;
};

static void write_profile_page(FILE *out, void *arg)
{
	const struct profile_page *pp = arg;

	mp_profile_write_html(pp->p, pp->basis, out);
}

int mp_profile_save_html(const struct mp_profile *p, const char *basis, const char *path,
			 struct dps_diag *diag)
{
	struct profile_page pp = {.p = p, .basis = basis};

	return save_page(path, diag, write_profile_page, &pp);
}

/*
 * The prediction
 */
#define ROW_H 22.0
#define BAR_ML 300.0

static void phase_bars(const struct mp_prediction *pr, const struct mp_phase_prediction *ph,
		       FILE *out)
{
	size_t rows = 0, row = 0;
	double x1 = 1, h, sx;
	char t[32];

	for (size_t i = 0; i < pr->n_classes; i++) {
		const struct mp_class_prediction *k = &pr->classes[i];

		if (strcmp(k->phase, ph->name)) {
			continue;
		}
		rows++;
		x1 = fmax(x1, fmax(fmax(k->peak_hi, k->peak_bytes), k->paper_peak_bytes) * 1.05);
	}
	h = MT + rows * ROW_H + MB;
	sx = svg_chart_tick_step(x1, 5);
	fprintf(out,
		"<svg class=\"bars\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"data-rows=\"%zu\">\n<g class=\"axes\">",
		W, h, W, h, rows);
	for (double v = 0; v <= x1 * (1 + 1e-9); v += sx) {
		double x = BAR_ML + v / x1 * (W - BAR_ML - MR);

		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			x, MT, x, h - MB, x, h - MB + 16, mp_human_bytes(v, t, sizeof(t)));
	}
	fputs("</g>\n", out);
	for (size_t i = 0; i < pr->n_classes; i++) {
		const struct mp_class_prediction *k = &pr->classes[i];
		double y = MT + (double)row * ROW_H, scale = (W - BAR_ML - MR) / x1;

		if (strcmp(k->phase, ph->name)) {
			continue;
		}
		row++;
		fprintf(out, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\">", BAR_ML - 6,
			y + ROW_H * 0.65);
		dps_html_escape(out, k->name);
		fprintf(out,
			"</text>\n<rect class=\"bar-peak\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"><title>peak %s</title></rect>",
			BAR_ML, y + 3, k->peak_bytes * scale, ROW_H * 0.4,
			mp_human_bytes(k->peak_bytes, t, sizeof(t)));
		fprintf(out,
			"<rect class=\"bar-avg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"><title>average %s</title></rect>",
			BAR_ML, y + 3 + ROW_H * 0.4, k->avg_bytes * scale, ROW_H * 0.35,
			mp_human_bytes(k->avg_bytes, t, sizeof(t)));
		fprintf(out,
			"<line class=\"range\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			BAR_ML + k->peak_lo * scale, y + 3 + ROW_H * 0.2,
			BAR_ML + k->peak_hi * scale, y + 3 + ROW_H * 0.2);
		fprintf(out,
			"<line class=\"paper\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
			"<title>the paper's ratios: %s</title></line>\n",
			BAR_ML + k->paper_peak_bytes * scale, y + 1,
			BAR_ML + k->paper_peak_bytes * scale, y + ROW_H - 2,
			mp_human_bytes(k->paper_peak_bytes, t, sizeof(t)));
	}
	fputs("</svg>\n", out);
}

static void phase_table(const struct mp_prediction *pr, const struct mp_phase_prediction *ph,
			FILE *out)
{
	char a[32], b[32], c[32], d[32], e[32];

	fputs("<table class=\"predicted\"><tr><th class=\"l\">class</th><th>peak</th>"
	      "<th>range</th><th>average</th><th>share</th><th class=\"l\">model</th>"
	      "<th>cv error</th><th>paper's peak</th></tr>\n",
	      out);
	for (size_t i = 0; i < pr->n_classes; i++) {
		const struct mp_class_prediction *k = &pr->classes[i];

		if (strcmp(k->phase, ph->name)) {
			continue;
		}
		fputs("<tr><td class=\"l\">", out);
		dps_html_escape(out, k->name);
		fprintf(out,
			"</td><td>%s</td><td>%s .. %s</td><td>%s</td><td>%.1f %%</td>"
			"<td class=\"l\">%s</td>",
			mp_human_bytes(k->peak_bytes, a, sizeof(a)),
			mp_human_bytes(k->peak_lo, b, sizeof(b)),
			mp_human_bytes(k->peak_hi, c, sizeof(c)),
			mp_human_bytes(k->avg_bytes, d, sizeof(d)), 100 * k->share, k->model);
		if (k->cv_error >= 0) {
			fprintf(out, "<td>%.1f %%</td>", 100 * k->cv_error);
		} else {
			fputs("<td>-</td>", out);
		}
		fprintf(out, "<td>%s</td></tr>\n",
			mp_human_bytes(k->paper_peak_bytes, e, sizeof(e)));
	}
	fputs("</table>\n", out);
}

/* The program the runs recorded: their commands' first word, without its directory, when they
 * all have the same (g_free); NULL when no run names one. */
static char *program_of(const struct mp_prediction *pr)
{
	char *prog = NULL;

	for (size_t i = 0; i < pr->n_runs; i++) {
		const char *cmd = pr->runs[i].command;
		size_t len = cmd ? strcspn(cmd, " ") : 0;
		char *word = len ? g_strndup(cmd, len) : NULL;
		char *base = word ? g_path_get_basename(word) : NULL;

		g_free(word);
		if (!base) {
			continue;
		}
		if (prog && strcmp(prog, base)) {
			g_free(prog);
			g_free(base);
			return g_strdup("several programs");
		}
		g_free(prog);
		prog = base;
	}
	return prog;
}

/* What the prediction was made from: the profile, and its runs with their sizes, commands and
 * measured peaks. */
static void runs_table(const struct mp_prediction *pr, bool by_size, FILE *out)
{
	char h[32];

	fputs("<p>Fitted on ", out);
	fprintf(out, "%zu run%s", pr->n_runs, pr->n_runs == 1 ? "" : "s");
	if (pr->source) {
		fputs(" of the profile <code id=\"profile\">", out);
		dps_html_escape(out, pr->source);
		fputs("</code>", out);
	}
	fprintf(out, ", %s ", by_size ? "input sizes" : "basis counts");
	for (size_t i = 0; i < pr->n_runs; i++) {
		fprintf(out, "%s<span class=\"size\">%g</span>", i ? ", " : "", pr->runs[i].x);
	}
	fputs(":</p>\n<table class=\"runs\"><tr><th>", out);
	fputs(by_size ? "input size" : "basis count", out);
	fputs("</th><th>measured peak</th><th class=\"l\">command</th><th class=\"l\">run "
	      "(trace)</th></tr>\n",
	      out);
	for (size_t i = 0; i < pr->n_runs; i++) {
		const struct mp_run_peak *r = &pr->runs[i];

		fprintf(out, "<tr><td>%g</td><td>%s</td><td class=\"l\"><code>", r->x,
			mp_human_bytes(r->peak_bytes, h, sizeof(h)));
		dps_html_escape(out, r->command ? r->command : "-");
		fputs("</code></td><td class=\"l\"><code>", out);
		dps_html_escape(out, r->run);
		fputs("</code></td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/*
 * The peak against the basis count: the runs' measured peaks (dots), the models' predicted
 * peak at every count (the line, mp_prediction_add_curve), the predicted point with its range
 * (the whisker) and the paper's (a square); a dashed line where the measured sizes end and the
 * extrapolation begins.
 */
static void size_chart(const struct mp_prediction *pr, bool by_size, FILE *out)
{
	char *title =
	    by_size ? g_strdup("input size")
		    : g_strdup_printf("objects of the basis class %s", pr->basis ? pr->basis : "");
	struct svg_chart c = page_chart(1, title);
	double edge = 0;
	char h[32], t[32];

	for (size_t i = 0; i < pr->n_runs; i++) {
		c.x.hi = fmax(c.x.hi, pr->runs[i].x);
		c.y.hi = fmax(c.y.hi, pr->runs[i].peak_bytes);
		edge = fmax(edge, pr->runs[i].x);
	}
	for (size_t i = 0; i < pr->n_curve; i++) {
		c.x.hi = fmax(c.x.hi, pr->curve_x[i]);
		c.y.hi = fmax(c.y.hi, pr->curve_peak[i]);
	}
	c.x.hi = fmax(c.x.hi, pr->count) * 1.05;
	c.y.hi = fmax(c.y.hi, fmax(pr->peak_hi, pr->paper_peak_bytes)) * 1.08;
	fprintf(out,
		"<svg class=\"peak-size\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
		"height=\"%.0f\" data-runs=\"%zu\" data-curve=\"%zu\">\n",
		W, CHART_H, W, CHART_H, pr->n_runs, pr->n_curve);
	svg_chart_axes(&c, out);
	g_free(title);
	if (edge > 0) {
		fprintf(out,
			"<line class=\"measured-edge\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\"/><text class=\"edge-label\" x=\"%.1f\" y=\"%.1f\">"
			"extrapolated &#8594;</text>\n",
			svg_chart_x(&c, edge), MT, svg_chart_x(&c, edge), CHART_H - MB,
			svg_chart_x(&c, edge) + 4, MT + 10);
	}
	if (pr->n_curve) {
		fputs("<path class=\"model\" d=\"", out);
		fprintf(out, "M%.1f %.1f", svg_chart_x(&c, 0), svg_chart_y(&c, 0));
		for (size_t i = 0; i < pr->n_curve; i++) {
			fprintf(out, "L%.1f %.1f", svg_chart_x(&c, pr->curve_x[i]),
				svg_chart_y(&c, pr->curve_peak[i]));
		}
		fputs("\"><title>the fitted models' peak</title></path>\n", out);
	}
	for (size_t i = 0; i < pr->n_runs; i++) {
		const struct mp_run_peak *r = &pr->runs[i];

		fprintf(out,
			"<circle class=\"measured\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>%g: "
			"measured peak %s (",
			svg_chart_x(&c, r->x), svg_chart_y(&c, r->peak_bytes), r->x,
			mp_human_bytes(r->peak_bytes, h, sizeof(h)));
		dps_html_escape(out, r->run);
		fputs(")</title></circle>\n", out);
	}
	fprintf(out,
		"<line class=\"predicted-range\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n",
		svg_chart_x(&c, pr->count), svg_chart_y(&c, pr->peak_lo),
		svg_chart_x(&c, pr->count), svg_chart_y(&c, pr->peak_hi));
	fprintf(out,
		"<rect class=\"paper-point\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\">"
		"<title>the paper's ratios: %s</title></rect>\n",
		svg_chart_x(&c, pr->count) - 4, svg_chart_y(&c, pr->paper_peak_bytes) - 4,
		mp_human_bytes(pr->paper_peak_bytes, h, sizeof(h)));
	fprintf(out,
		"<circle class=\"predicted-point\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"><title>%g: "
		"predicted peak %s [%s .. ",
		svg_chart_x(&c, pr->count), svg_chart_y(&c, pr->peak_bytes), pr->count,
		mp_human_bytes(pr->peak_bytes, h, sizeof(h)),
		mp_human_bytes(pr->peak_lo, t, sizeof(t)));
	fprintf(out, "%s]</title></circle>\n</svg>\n", mp_human_bytes(pr->peak_hi, h, sizeof(h)));
	fputs("<p class=\"legend\"><span><i class=\"sw\" style=\"background:#222\"></i>measured "
	      "peak of a run</span><span><i class=\"sw\" style=\"background:#4a6fa5\"></i>the "
	      "fitted models</span><span><i class=\"sw\" style=\"background:#e08a00\"></i>the "
	      "prediction (the bar: its range)</span><span><i class=\"sw\" "
	      "style=\"background:#c0392b\"></i>the paper's ratios</span></p>\n",
	      out);
}

void mp_prediction_write_html(const struct mp_prediction *pr, FILE *out)
{
	bool by_size = !strcmp(pr->basis, "input size");
	char *prog = program_of(pr);
	char a[32], b[32], c[32], d[32], e[32];

	page_head(out, "dps memory predict");
	fputs("<h1>Predicted heap", out);
	if (prog) {
		fputs(" of <code id=\"program\">", out);
		dps_html_escape(out, prog);
		fputs("</code>", out);
	}
	g_free(prog);
	fputs(" for <code id=\"basis\">", out);
	dps_html_escape(out, pr->basis);
	fprintf(out,
		"</code> = %g</h1>\n<p>Peak %s [%s .. %s], average %s; the paper's ratios: peak "
		"%s.</p>\n",
		pr->count, mp_human_bytes(pr->peak_bytes, a, sizeof(a)),
		mp_human_bytes(pr->peak_lo, b, sizeof(b)),
		mp_human_bytes(pr->peak_hi, c, sizeof(c)),
		mp_human_bytes(pr->avg_bytes, d, sizeof(d)),
		mp_human_bytes(pr->paper_peak_bytes, e, sizeof(e)));
	runs_table(pr, by_size, out);
	fprintf(out, "<h2>Peak against %s</h2>\n", by_size ? "input size" : "basis count");
	size_chart(pr, by_size, out);
	fputs("<h2>By phase and class</h2>\n<p class=\"legend\"><span><i class=\"sw\" "
	      "style=\"background:#4a6fa5\"></i>"
	      "predicted peak (the line: its range)</span><span><i class=\"sw\" "
	      "style=\"background:#9fc0e8\"></i>predicted average</span><span><i class=\"sw\" "
	      "style=\"background:#c0392b\"></i>the paper's ratios (peak)</span></p>\n",
	      out);
	for (size_t i = 0; i < pr->n_phases; i++) {
		const struct mp_phase_prediction *ph = &pr->phases[i];

		fputs("<section class=\"phase\"><h2>Phase <span class=\"phase\">", out);
		dps_html_escape(out, ph->name);
		fprintf(out,
			"</span></h2>\n<p>Peak %s [%s .. %s], average %s (%zu data sets, %zu "
			"basis counts%s).</p>\n",
			mp_human_bytes(ph->peak_bytes, a, sizeof(a)),
			mp_human_bytes(ph->peak_lo, b, sizeof(b)),
			mp_human_bytes(ph->peak_hi, c, sizeof(c)),
			mp_human_bytes(ph->avg_bytes, d, sizeof(d)), ph->n_sets, ph->n_sizes,
			ph->fitted ? "" : ": the paper's ratios only");
		phase_bars(pr, ph, out);
		phase_table(pr, ph, out);
		fputs("</section>\n", out);
	}
	fputs("</body></html>\n", out);
}

static void write_prediction_page(FILE *out, void *arg)
{
	mp_prediction_write_html(arg, out);
}

int mp_prediction_save_html(const struct mp_prediction *pr, const char *path, struct dps_diag *diag)
{
	return save_page(path, diag, write_prediction_page, (void *)pr);
}
