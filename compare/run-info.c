/* SPDX-License-Identifier: MIT */
/*
 * What produced a comparison, in the JSON ("run") and the HTML report ("Run parameters"):
 * the command line, dps's version, the calibration and its key figures, each side's
 * selection and the what-if knobs (doc/compare.md, "Run parameters"). A report read weeks
 * later must say which knobs made the simulated run what it is.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps.h>
#include <glib.h>

#include "compare-internal.h"
#include "compare.h"

static const char *const side_ids[2] = {"orig", "sim"};

/* The command line as a shell would take it back ("dps replay t --scale 2"); g_free. */
static char *command_line(const struct compare_run_info *run)
{
	GString *s = g_string_new("dps");

	if (run->command) {
		g_string_append_printf(s, " %s", run->command);
	}
	for (size_t i = 0; i < run->n_args; i++) {
		char *q = g_shell_quote(run->args[i]);

		/* plain words stay plain: only what a shell would split or expand is quoted */
		if (strpbrk(run->args[i], " \t\n'\"\\$`*?[]{}()<>|&;#~!") || !run->args[i][0]) {
			g_string_append_printf(s, " %s", q);
		} else {
			g_string_append_printf(s, " %s", run->args[i]);
		}
		g_free(q);
	}
	return g_string_free(s, FALSE);
}

static void json_opt_string(FILE *out, const char *s)
{
	if (s) {
		dps_json_string(out, s, false);
	} else {
		fputs("null", out);
	}
}

static void json_opt_id(FILE *out, int64_t v)
{
	if (v >= 0) {
		fprintf(out, "%" PRId64, v);
	} else {
		fputs("null", out);
	}
}

/* One side's selection as given, and the root it resolved to. */
static void json_selection(FILE *out, const struct compare_result *res, int s)
{
	const struct analyzer_options *o = res->run->sel[s];
	const struct analyzer_result *m = res->side[s].model;
	const struct analyzer_thread *root = m->n_threads ? &m->threads[m->root] : NULL;

	fprintf(out, "\"%s\": ", side_ids[s]);
	if (!o || res->side[s].kind != COMPARE_INPUT_TRACE) {
		fputs("null", out);
		return;
	}
	fputs("{\"pid\": ", out);
	json_opt_id(out, o->pid);
	fputs(", \"tid\": ", out);
	json_opt_id(out, o->tid);
	fputs(", \"comm\": ", out);
	json_opt_string(out, o->comm);
	fprintf(out, ", \"follow_children\": %s, \"min_block_ns\": ",
		o->follow_children ? "true" : "false");
	json_opt_id(out, o->min_block_ns);
	fputs(", \"root\": ", out);
	if (root) {
		fprintf(out, "{\"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"comm\": ", root->pid,
			root->tid);
		json_opt_string(out, root->comm);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputc('}', out);
}

static void json_calibration(FILE *out, const struct compare_run_info *run)
{
	const struct dps_calibration *c = run->cal;

	if (!run->calibration) {
		fputs("null", out);
		return;
	}
	fputs("{\"path\": ", out);
	dps_json_string(out, run->calibration, false);
	fputs(", \"source\": ", out);
	json_opt_string(out, run->calibration_source);
	if (c) {
		fputs(", \"machine\": ", out);
		dps_json_string(out, c->machine, false);
		fputs(", \"work_loops_per_us\": ", out);
		dps_json_double(out, c->work_loops_per_us);
		fputs(", \"work_spread_pct\": ", out);
		dps_json_double(out, c->work_spread_pct);
		fputs(", \"action_overhead_ns\": ", out);
		dps_json_double(out, c->action_overhead_ns);
		fprintf(out, ", \"min_block_ns\": %" PRIu64 "}", c->min_block_ns);
	} else {
		fputc('}', out);
	}
}

void compare_write_run_json(FILE *out, const struct compare_result *res)
{
	const struct compare_run_info *run = res->run;
	char *line;

	fprintf(out, "  \"run\": {\"dps_version\": \"%s\"", DPS_VERSION);
	if (!run) {
		fputs(", \"command_line\": null, \"argv\": null, \"calibration\": null, "
		      "\"selection\": null, \"knobs\": [], \"change\": null},\n",
		      out);
		return;
	}
	line = command_line(run);
	fputs(", \"command_line\": ", out);
	dps_json_string(out, line, false);
	g_free(line);
	fputs(", \"argv\": [\"dps\"", out);
	if (run->command) {
		fputs(", ", out);
		dps_json_string(out, run->command, false);
	}
	for (size_t i = 0; i < run->n_args; i++) {
		fputs(", ", out);
		dps_json_string(out, run->args[i], false);
	}
	fputs("],\n    \"calibration\": ", out);
	json_calibration(out, run);
	fputs(",\n    \"selection\": {", out);
	json_selection(out, res, 0);
	fputs(", ", out);
	json_selection(out, res, 1);
	fputs("},\n    \"knobs\": [", out);
	for (size_t i = 0; i < run->n_knobs; i++) {
		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		dps_json_string(out, run->knobs[2 * i], false);
		fputs(", \"value\": ", out);
		json_opt_string(out, run->knobs[2 * i + 1]);
		fputc('}', out);
	}
	fputs("],\n    \"change\": ", out);
	json_opt_string(out, run->change);
	fputs("},\n", out);
}

static void html_row(FILE *out, const char *name, const char *code)
{
	fputs("<tr><th>", out);
	dps_html_escape(out, name);
	fputs("</th><td><code>", out);
	dps_html_escape(out, code);
	fputs("</code></td></tr>\n", out);
}

static void html_selection(FILE *out, const struct compare_result *res, int s)
{
	const struct analyzer_options *o = res->run->sel[s];
	const struct analyzer_result *m = res->side[s].model;
	const struct analyzer_thread *root = m->n_threads ? &m->threads[m->root] : NULL;
	GString *t = g_string_new(NULL);
	char name[64];

	if (res->side[s].kind != COMPARE_INPUT_TRACE || !o) {
		g_string_append(t, "an action set: every thread");
	} else {
		if (o->pid >= 0) {
			g_string_append_printf(t, "--pid %" PRId64 " ", o->pid);
		}
		if (o->tid >= 0) {
			g_string_append_printf(t, "--tid %" PRId64 " ", o->tid);
		}
		if (o->comm) {
			g_string_append_printf(t, "--comm %s ", o->comm);
		}
		if (o->pid < 0 && o->tid < 0 && !o->comm) {
			g_string_append(t, "record.info's pid ");
		}
		if (o->follow_children) {
			g_string_append(t, "--follow-children ");
		}
		if (o->min_block_ns >= 0) {
			g_string_append_printf(t, "--min-block %" PRId64 "ns ", o->min_block_ns);
		}
		if (root) {
			g_string_append_printf(t, "(root: pid %" PRId64 ", tid %" PRId64 ", %s)",
					       root->pid, root->tid, compare_thread_name(root));
		}
	}
	snprintf(name, sizeof(name), "selection, %s", s ? "simulated" : "original");
	html_row(out, name, t->str);
	g_string_free(t, TRUE);
}

void compare_write_run_html(FILE *out, const struct compare_result *res)
{
	const struct compare_run_info *run = res->run;
	char *line;

	fputs("<section id=\"run\"><h2>Run parameters</h2>\n<table class=\"params\">\n", out);
	html_row(out, "dps version", DPS_VERSION);
	if (!run) {
		fputs("<tr><th>command line</th><td>not recorded (a report written by a "
		      "library caller)</td></tr>\n</table></section>\n",
		      out);
		return;
	}
	line = command_line(run);
	html_row(out, "command line", line);
	g_free(line);
	if (run->calibration) {
		GString *t = g_string_new(run->calibration);

		if (run->calibration_source) {
			g_string_append_printf(t, " (%s)", run->calibration_source);
		}
		if (run->cal) {
			g_string_append_printf(t,
					       ": %.1f work loops/us (spread %.2f %%), action "
					       "overhead %.0f ns, min-block %" PRIu64 " ns, %s",
					       run->cal->work_loops_per_us,
					       run->cal->work_spread_pct,
					       run->cal->action_overhead_ns, run->cal->min_block_ns,
					       run->cal->machine);
		}
		html_row(out, "calibration", t->str);
		g_string_free(t, TRUE);
	} else {
		html_row(out, "calibration", "none (built-in defaults)");
	}
	html_selection(out, res, 0);
	html_selection(out, res, 1);
	if (!run->n_knobs) {
		html_row(out, "what-if knobs", "none");
	}
	for (size_t i = 0; i < run->n_knobs; i++) {
		char *kv =
		    g_strdup_printf("%s%s%s", run->knobs[2 * i], run->knobs[2 * i + 1] ? " " : "",
				    run->knobs[2 * i + 1] ? run->knobs[2 * i + 1] : "");

		html_row(out, i ? "" : "what-if knobs and options", kv);
		g_free(kv);
	}
	html_row(out, "change", run->change ? run->change : "none: a replay meant to be faithful");
	fputs("</table></section>\n", out);
}
