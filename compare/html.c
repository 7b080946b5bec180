/* SPDX-License-Identifier: MIT */
/*
 * The self-contained HTML report: static summary from C, the two timelines, the table and the
 * memory curves drawn by the embedded report.js from a JSON island (#dps-data).
 *
 * Everything that comes from the inputs (thread names, paths, partial reasons) is escaped:
 * entities in the HTML text, \u003c-style escapes inside the JSON island so that no name can
 * close the <script> element, and the script escapes again when it builds markup.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "compare-internal.h"
#include "compare.h"

extern const char compare_report_css[];
extern const char compare_report_js[];

static const char *const side_titles[2] = {"Original", "Simulated"};
static const char *const side_ids[2] = {"orig", "sim"};
static const char *const kind_names[] = {
    [COMPARE_INPUT_TRACE] = "trace",
    [COMPARE_INPUT_ACTSET] = "action set, played on an ideal machine",
    [COMPARE_INPUT_MODEL] = "model",
};
static const char *const match_ids[] = {
    [COMPARE_MATCHED] = "matched",
    [COMPARE_ORIG_ONLY] = "orig_only",
    [COMPARE_SIM_ONLY] = "sim_only",
};

static int64_t other_row(const struct compare_side_info *si, uint32_t other)
{
	if (other >= si->model->n_threads || si->row_of[other] == COMPARE_NO_THREAD) {
		return -1;
	}
	return (int64_t)si->row_of[other];
}

static void write_thread_json(FILE *out, const struct compare_side_info *si, size_t idx)
{
	const struct analyzer_thread *th = &si->model->threads[idx];
	int64_t origin = (int64_t)si->origin_ns, prev = origin;

	fprintf(out, "{\"id\":%" PRIu64 ",\"tid\":%" PRId64 ",\"r\":%" PRId64 ",\"c\":", th->id,
		th->tid, si->row_of[idx] == COMPARE_NO_THREAD ? -1 : (int64_t)si->row_of[idx]);
	dps_json_string(out, compare_thread_name(th), true);
	fprintf(out, ",\"start\":%" PRId64 ",\"end\":%" PRId64 ",\"g\":[",
		(int64_t)th->start_ns - origin, (int64_t)th->end_ns - origin);
	/* Segments delta-coded (gap from the previous end, duration, kind, other row): the
	 * numbers stay short, which keeps a 100k-segment report a few MB. */
	for (size_t i = 0; i < th->n_segs; i++) {
		const struct analyzer_segment *sg = &th->segs[i];
		bool dep = sg->kind == ANALYZER_SEG_WAIT || sg->kind == ANALYZER_SEG_JOIN;

		fprintf(out, "%s%" PRId64 ",%" PRIu64 ",%u,%" PRId64, i ? "," : "",
			(int64_t)sg->begin_ns - prev, sg->end_ns - sg->begin_ns, sg->kind,
			dep ? other_row(si, sg->other) : 0);
		prev = (int64_t)sg->end_ns;
	}
	fputs("],\"m\":[", out);
	for (size_t i = 0; i < th->n_marks; i++) {
		const struct analyzer_mark *mk = &th->marks[i];

		fprintf(out, "%s%" PRId64 ",%u,%" PRId64, i ? "," : "", (int64_t)mk->ts_ns - origin,
			mk->kind, mk->kind == ANALYZER_MARK_EXIT ? 0 : other_row(si, mk->other));
	}
	fputs("],\"h\":[", out);
	for (size_t i = 0; i < th->n_mem; i++) {
		const struct analyzer_mem_sample *ms = &th->mem[i];

		fprintf(out, "%s%" PRId64 ",%" PRId64 ",%" PRId64, i ? "," : "",
			(int64_t)ms->ts_ns - origin, ms->heap_bytes, ms->stack_bytes);
	}
	fputs("]}", out);
}

static void write_rows_json(FILE *out, const struct compare_result *res)
{
	fputs("\"rows\":[", out);
	for (size_t r = 0; r < res->n_threads; r++) {
		const struct compare_thread *row = &res->threads[r];

		fprintf(out, "%s\n{\"p\":", r ? "," : "");
		dps_json_string(out, row->path, true);
		fprintf(out, ",\"d\":%zu,\"m\":\"%s\",\"i\":[%" PRId64 ",%" PRId64 "],\"v\":[",
			row->depth, match_ids[row->match],
			row->idx[0] == COMPARE_NO_THREAD ? -1 : (int64_t)row->idx[0],
			row->idx[1] == COMPARE_NO_THREAD ? -1 : (int64_t)row->idx[1]);
		for (int m = 0; m < COMPARE_M_COUNT; m++) {
			const struct compare_value *v = &row->m[m];

			fputs(m ? ",[" : "[", out);
			for (int s = 0; s < 2; s++) {
				if (v->has[s]) {
					fprintf(out, "%s%" PRId64, s ? "," : "", v->v[s]);
				} else {
					fputs(s ? ",null" : "null", out);
				}
			}
			fputc(']', out);
		}
		fputs("],\"mem\":", out);
		if (row->has_mem) {
			fprintf(out, "[%" PRId64 ",%.1f,%" PRId64 ",%.1f]", row->mem.max_abs[0],
				row->mem.mean_abs[0], row->mem.max_abs[1], row->mem.mean_abs[1]);
		} else {
			fputs("null", out);
		}
		fputc('}', out);
	}
	fputs("]", out);
}

static void write_data_json(FILE *out, const struct compare_result *res)
{
	fprintf(out, "{\"schema\":\"%s\",\"has_memory\":%s,\"small_base_ns\":%d,",
		COMPARE_REPORT_DATA_SCHEMA,
		res->side[0].has_mem || res->side[1].has_mem ? "true" : "false",
		COMPARE_SMALL_BASE_NS);
	write_rows_json(out, res);
	fputs(",\n\"sides\":[", out);
	for (int s = 0; s < 2; s++) {
		const struct compare_side_info *si = &res->side[s];

		fprintf(out, "%s{\"label\":", s ? ",\n" : "");
		dps_json_string(out, si->label, true);
		fputs(",\"threads\":[", out);
		for (size_t i = 0; i < si->model->n_threads; i++) {
			fputs(i ? ",\n" : "\n", out);
			write_thread_json(out, si, i);
		}
		fputs("]}", out);
	}
	fputs("]}", out);
}

static void write_card(FILE *out, const char *cls, const char *value, const char *label)
{
	fprintf(out, "<div class=\"card %s\"><div class=\"v\">", cls);
	dps_html_escape(out, value);
	fputs("</div><div class=\"l\">", out);
	dps_html_escape(out, label);
	fputs("</div></div>\n", out);
}

static void write_cards(FILE *out, const struct compare_result *res)
{
	char *effect = compare_effect_statement(res), *load = compare_load_statement(res);
	const char *diff = effect ? "difference" : "error";
	char v[128], l[512], a[32], b[32], c[32], d[32];

	fputs("<div class=\"cards\">\n", out);
	if (effect) {
		/* a what-if: the difference is the answer, not the tool's error */
		int64_t o = (int64_t)res->side[0].makespan_ns;

		snprintf(v, sizeof(v), "%+.2f %%",
			 o ? (double)res->makespan_err_ns / (double)o * 100.0 : 0.0);
		snprintf(l, sizeof(l), "%s: the effect of the change, not an error", effect);
		write_card(out, res->under_load ? "main effect warn" : "main effect", v, l);
	} else {
		snprintf(v, sizeof(v), "%.2f %%", res->fidelity_err_pct);
		/* A big error measured under load is not shown as the tool's (red): amber, with
		 * the under-load card beside it. */
		write_card(out,
			   res->fidelity_err_pct <= 10 ? "main"
			   : res->under_load	       ? "main warn"
						       : "main bad",
			   v,
			   "fidelity error: the larger of the CPU and makespan errors (0 = "
			   "identical)");
	}
	if (load) {
		write_card(out, "load", "under load", load);
	}
	snprintf(v, sizeof(v), "%.2f %%", res->makespan_err_pct);
	/* with a change the differences are its effect, not errors */
	snprintf(l, sizeof(l), "makespan %s: %s orig, %s sim (%s)", diff,
		 compare_format_ns((int64_t)res->side[0].makespan_ns, false, a, sizeof(a)),
		 compare_format_ns((int64_t)res->side[1].makespan_ns, false, b, sizeof(b)),
		 compare_format_ns(res->makespan_err_ns, true, c, sizeof(c)));
	write_card(out, "", v, l);
	snprintf(v, sizeof(v), "%.2f %% / %.2f %%", res->process_cpu_err_pct,
		 res->process_wall_err_pct);
	snprintf(l, sizeof(l),
		 "whole process, CPU / wall %s: %s / %s orig, %s / %s sim (every thread, exec "
		 "to the last thread's end)",
		 diff, compare_format_ns((int64_t)res->side[0].process_cpu_ns, false, a, sizeof(a)),
		 compare_format_ns((int64_t)res->side[0].process_wall_ns, false, b, sizeof(b)),
		 compare_format_ns((int64_t)res->side[1].process_cpu_ns, false, c, sizeof(c)),
		 compare_format_ns((int64_t)res->side[1].process_wall_ns, false, d, sizeof(d)));
	write_card(out, "", v, l);
	snprintf(v, sizeof(v), "%.2f %%", res->cpu_err_pct);
	snprintf(l, sizeof(l), "CPU %s: sum of |per-thread CPU %ss| %s over %s of CPU", diff, diff,
		 compare_format_ns((int64_t)res->cpu_abs_err_ns, false, a, sizeof(a)),
		 compare_format_ns((int64_t)res->side[0].cpu_total_ns, false, b, sizeof(b)));
	write_card(out, "", v, l);
	snprintf(v, sizeof(v), "%.2f %% / %.2f %%", res->thread_cpu_err_median_pct,
		 res->thread_cpu_err_max_pct);
	snprintf(l, sizeof(l), "per-thread CPU error, median / max over %zu matched threads",
		 res->n_thread_cpu);
	write_card(out, "", v, l);
	snprintf(v, sizeof(v), "%zu / %zu / %zu", res->n_matched, res->n_orig_only,
		 res->n_sim_only);
	write_card(out, res->n_orig_only || res->n_sim_only ? "bad" : "", v,
		   "threads matched / only in orig / only in sim");
	if (res->has_mem && res->mem.n_points[0]) {
		snprintf(v, sizeof(v), "%s",
			 compare_format_bytes((double)res->mem.max_abs[0], a, sizeof(a)));
		snprintf(l, sizeof(l), "heap max error (mean %s over %zu points)",
			 compare_format_bytes(res->mem.mean_abs[0], b, sizeof(b)),
			 res->mem.n_points[0]);
		write_card(out, "", v, l);
	}
	if (res->has_mem && res->mem.n_points[1]) {
		snprintf(v, sizeof(v), "%s",
			 compare_format_bytes((double)res->mem.max_abs[1], a, sizeof(a)));
		snprintf(l, sizeof(l), "stack max error (mean %s over %zu points)",
			 compare_format_bytes(res->mem.mean_abs[1], b, sizeof(b)),
			 res->mem.n_points[1]);
		write_card(out, "", v, l);
	}
	fputs("</div>\n", out);
	g_free(effect);
	g_free(load);
}

static void write_sources(FILE *out, const struct compare_result *res)
{
	fputs("<div class=\"sources\">\n", out);
	for (int s = 0; s < 2; s++) {
		const struct compare_side_info *si = &res->side[s];

		fprintf(out, "%s: <code>", side_titles[s]);
		dps_html_escape(out, si->label);
		fprintf(out, "</code> (%s, %zu threads", kind_names[si->kind],
			si->model->n_threads - si->n_excluded);
		if (si->n_excluded) {
			fprintf(out, "; %zu left out: tracer threads or --exclude-comm",
				si->n_excluded);
		}
		fputs(")", out);
		if (si->model->partial) {
			fputs(" <span class=\"partial\">PARTIAL: ", out);
			dps_html_escape(out, si->model->partial_reason ? si->model->partial_reason
								       : "incomplete input");
			fputs("</span>", out);
		}
		fputs("<br>\n", out);
	}
	fputs("</div>\n", out);
}

static void write_panel(FILE *out, const struct compare_result *res, int s)
{
	fprintf(out,
		"<div class=\"panel\" id=\"panel-%s\"><h3><span class=\"side-%s\">%s</span> "
		"&mdash; <code>",
		side_ids[s], side_ids[s], side_titles[s]);
	dps_html_escape(out, res->side[s].label);
	fputs("</code></h3><div class=\"axis\"><svg></svg></div>"
	      "<div class=\"rows\"><svg><g class=\"body\"></g></svg></div></div>\n",
	      out);
}

static const char toolbar_html[] =
    "<div class=\"toolbar\"><button id=\"zoom-in\" title=\"zoom in\">+</button>"
    "<button id=\"zoom-out\" title=\"zoom out\">&minus;</button>"
    "<button id=\"zoom-reset\" title=\"whole runs\">Reset</button>"
    "<span class=\"legend\"><span style=\"--c:var(--run)\">running</span>"
    "<span style=\"--c:var(--preempted)\">preempted</span>"
    "<span style=\"--c:var(--sleep)\">sleep</span>"
    "<span style=\"--c:var(--wait)\">wait (woken by a thread)</span>"
    "<span style=\"--c:var(--join)\">join</span>"
    "<span style=\"--c:#0b7285\">&#9660; create</span>"
    "<span style=\"--c:#343a40\">&#9670; join</span>"
    "<span style=\"--c:#e8590c\">&#9650; wake</span>"
    "<span style=\"--c:#c92a2a\">| exit</span></span>"
    "<span class=\"hint\">Both timelines share the time axis. Drag to pan; Ctrl+wheel, or the "
    "wheel over the axis, zooms; drag on the axis to zoom into a range; double-click resets; "
    "hover for details; click a table row to find its thread.</span></div>\n";

/* True when some thread of either run has a non-zero value on the curve (0 heap, 1 stack):
 * a chart with nothing to draw is left out of the report, not shown empty. */
static bool curve_has_data(const struct compare_result *res, int which)
{
	for (int s = 0; s < 2; s++) {
		const struct analyzer_result *m = res->side[s].model;

		for (size_t i = 0; i < m->n_threads; i++) {
			for (size_t k = 0; k < m->threads[i].n_mem; k++) {
				const struct analyzer_mem_sample *ms = &m->threads[i].mem[k];

				if ((which ? ms->stack_bytes : ms->heap_bytes) != 0) {
					return true;
				}
			}
		}
	}
	return false;
}

static void write_memory(FILE *out, const struct compare_result *res)
{
	bool heap = curve_has_data(res, 0), stack = curve_has_data(res, 1);

	if (!heap && !stack) {
		return;
	}
	fputs("<section id=\"memory\"><h2>Memory curves</h2>"
	      "<div class=\"toolbar\">Thread <select id=\"mem-thread\"></select>"
	      "<select id=\"mem-x\"><option value=\"time\">x: time</option>"
	      "<option value=\"points\">x: point number</option></select>"
	      "<span class=\"legend\"><span class=\"orig\">desired (original)</span>"
	      "<span class=\"sim\">measured (simulated)</span></span></div>",
	      out);
	if (heap) {
		fputs("<svg id=\"mem-heap\" class=\"memchart\"></svg>", out);
	}
	if (stack) {
		fputs("<svg id=\"mem-stack\" class=\"memchart\"></svg>", out);
	}
	fputs("<div id=\"mem-err\" class=\"note\"></div></section>\n", out);
}

static const char notes_html[] =
    "<p class=\"note\">Threads are matched by their place in the creation tree (path 0 is the "
    "root, 0.2 the third thread it created, ~N a thread whose creator is unknown, +N a thread "
    "only the simulated run created), never by tid. Errors are simulated minus original; % is "
    "relative to the original, except where the original is under 1 ms: the difference is "
    "shown there (a relative error on a tiny base says little). Start and end are offsets from "
    "each run's root start. "
    "Definitions: doc/compare.md.</p>\n";

enum dps_status compare_write_html(const struct compare_result *res,
				   const struct compare_html_options *opts, FILE *out)
{
	const char *title = opts && opts->title ? opts->title : "dps compare";

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	dps_html_escape(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", compare_report_css);
	/* the hatch pattern of rows absent from a run, shared by both panels */
	fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs>"
	      "<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f1f3f5\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#ced4da\" stroke-width=\"2\"/>"
	      "</pattern></defs></svg>\n<h1>",
	      out);
	dps_html_escape(out, title);
	fputs("</h1>\n", out);
	write_sources(out, res);
	write_cards(out, res);
	compare_write_run_html(out, res);
	fputs("<h2 id=\"timelines\">Timelines</h2>\n", out);
	fputs(toolbar_html, out);
	write_panel(out, res, 0);
	write_panel(out, res, 1);
	write_memory(out, res);
	fputs("<h2>Threads</h2>\n<div class=\"tablewrap\"><table id=\"threads\"></table></div>\n",
	      out);
	fputs(notes_html, out);
	fputs("<div id=\"tip\"></div>\n<script type=\"application/json\" id=\"dps-data\">", out);
	write_data_json(out, res);
	fprintf(out, "</script>\n<script>\n%s</script>\n</body></html>\n", compare_report_js);
	return ferror(out) ? DPS_ERR_IO : DPS_OK;
}
