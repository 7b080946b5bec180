/* SPDX-License-Identifier: MIT */
/* The terminal table and the JSON document of a comparison (doc/compare.md). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "compare-internal.h"
#include "compare.h"

/* Above this many rows the table shows the rows that differ most (all_rows lifts it). */
#define TEXT_MAX_ROWS 60

static const char *const kind_names[] = {
    [COMPARE_INPUT_TRACE] = "trace",
    [COMPARE_INPUT_ACTSET] = "action set",
    [COMPARE_INPUT_MODEL] = "model",
};

static const char *const kind_ids[] = {
    [COMPARE_INPUT_TRACE] = "trace",
    [COMPARE_INPUT_ACTSET] = "actset",
    [COMPARE_INPUT_MODEL] = "model",
};

static const char *const match_ids[] = {
    [COMPARE_MATCHED] = "matched",
    [COMPARE_ORIG_ONLY] = "orig_only",
    [COMPARE_SIM_ONLY] = "sim_only",
};

const char *compare_format_ns(int64_t ns, bool sign, char *buf, size_t len)
{
	const char *sg = ns < 0 ? "-" : sign && ns > 0 ? "+" : "";
	double a = ns < 0 ? -(double)ns : (double)ns;

	if (a < 1e3) {
		snprintf(buf, len, "%s%.0f ns", sg, a);
	} else if (a < 1e6) {
		snprintf(buf, len, "%s%.2f us", sg, a / 1e3);
	} else if (a < 1e9) {
		snprintf(buf, len, "%s%.2f ms", sg, a / 1e6);
	} else {
		snprintf(buf, len, "%s%.3f s", sg, a / 1e9);
	}
	return buf;
}

const char *compare_format_bytes(double bytes, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double a = fabs(bytes);
	unsigned u = 0;

	while (a >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		a /= 1024;
		u++;
	}
	if (u == 0) {
		snprintf(buf, len, "%s%.0f B", bytes < 0 ? "-" : "", a);
	} else {
		snprintf(buf, len, "%s%.1f %s", bytes < 0 ? "-" : "", a, units[u]);
	}
	return buf;
}

/* Signed relative error in %, NAN when undefined (a side missing, or orig 0 and sim not). */
static double signed_pct(const struct compare_value *v)
{
	if (!v->has[0] || !v->has[1]) {
		return NAN;
	}
	if (v->v[0] == 0) {
		return v->v[1] == 0 ? 0.0 : NAN;
	}
	return ((double)v->v[1] - (double)v->v[0]) / fabs((double)v->v[0]) * 100.0;
}

static const char *row_name(const struct compare_result *res, const struct compare_thread *row,
			    char *buf, size_t len)
{
	int s = row->idx[0] != COMPARE_NO_THREAD ? 0 : 1;

	dps_text_sanitize(compare_thread_name(&res->side[s].model->threads[row->idx[s]]), buf, len);
	return buf;
}

static void format_cell_time(const struct compare_value *v, int s, char *buf, size_t len)
{
	if (!v->has[s]) {
		snprintf(buf, len, "-");
	} else {
		compare_format_ns(v->v[s], false, buf, len);
	}
}

/* The relative error, or on a base under COMPARE_SMALL_BASE_NS the absolute difference. */
static void format_cell_pct(const struct compare_value *v, enum compare_metric_id m, char *buf,
			    size_t len)
{
	double p = signed_pct(v);

	if (!v->has[0] || !v->has[1]) {
		snprintf(buf, len, "-");
	} else if (compare_value_small_base(v, m)) {
		compare_format_ns(v->v[1] - v->v[0], true, buf, len);
	} else if (isnan(p)) {
		snprintf(buf, len, "new");
	} else if (p == 0) {
		snprintf(buf, len, "0.0%%");
	} else {
		snprintf(buf, len, "%+.1f%%", p);
	}
}

static void format_cell_delta(const struct compare_value *v, char *buf, size_t len)
{
	if (!v->has[0] || !v->has[1]) {
		snprintf(buf, len, "-");
	} else {
		compare_format_ns(v->v[1] - v->v[0], true, buf, len);
	}
}

static void format_cell_counts(const struct compare_value *v, char *buf, size_t len)
{
	char a[24] = "-", b[24] = "-";

	if (v->has[0]) {
		snprintf(a, sizeof(a), "%" PRId64, v->v[0]);
	}
	if (v->has[1]) {
		snprintf(b, sizeof(b), "%" PRId64, v->v[1]);
	}
	snprintf(buf, len, "%s/%s", a, b);
}

static int64_t row_cpu_abs_err(const struct compare_thread *row)
{
	const struct compare_value *v = &row->m[COMPARE_M_CPU];
	int64_t o = v->has[0] ? v->v[0] : 0, s = v->has[1] ? v->v[1] : 0;

	return s > o ? s - o : o - s;
}

static int cmp_rows_by_err(const void *a, const void *b, void *arg)
{
	const struct compare_result *res = arg;
	const struct compare_thread *x = &res->threads[*(const size_t *)a];
	const struct compare_thread *y = &res->threads[*(const size_t *)b];
	int64_t ex = row_cpu_abs_err(x), ey = row_cpu_abs_err(y);

	if ((x->match != COMPARE_MATCHED) != (y->match != COMPARE_MATCHED)) {
		return x->match != COMPARE_MATCHED ? -1 : 1;
	}
	if (ex != ey) {
		return ex > ey ? -1 : 1;
	}
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The .act id of a row's thread, what --thread-scale ID=X takes: the original's (the set is
 * made from it), the simulated one's for a thread only there. */
static void format_cell_id(const struct compare_result *res, const struct compare_thread *row,
			   char *buf, size_t len)
{
	int s = row->idx[0] != COMPARE_NO_THREAD ? 0 : 1;

	snprintf(buf, len, "%" PRIu64, res->side[s].model->threads[row->idx[s]].id);
}

static void write_row(const struct compare_result *res, size_t r, int path_w, int id_w, FILE *out)
{
	const struct compare_thread *row = &res->threads[r];
	static const int tm[3] = {COMPARE_M_CPU, COMPARE_M_BLOCKED, COMPARE_M_PREEMPTED};
	char name[17], id[24], c[8][32];

	row_name(res, row, name, sizeof(name));
	format_cell_id(res, row, id, sizeof(id));
	fprintf(out, "%-*s %*s %-16s", path_w, row->path, id_w, id, name);
	for (int k = 0; k < 3; k++) {
		const struct compare_value *v = &row->m[tm[k]];

		format_cell_time(v, 0, c[0], sizeof(c[0]));
		format_cell_time(v, 1, c[1], sizeof(c[1]));
		format_cell_pct(v, tm[k], c[2], sizeof(c[2]));
		fprintf(out, " %10s %10s %10s", c[0], c[1], c[2]);
	}
	format_cell_delta(&row->m[COMPARE_M_START], c[3], sizeof(c[3]));
	format_cell_delta(&row->m[COMPARE_M_END], c[4], sizeof(c[4]));
	format_cell_counts(&row->m[COMPARE_M_RUNS], c[5], sizeof(c[5]));
	format_cell_counts(&row->m[COMPARE_M_SLEEPS], c[6], sizeof(c[6]));
	fprintf(out, " %10s %10s %11s %11s", c[3], c[4], c[5], c[6]);
	if (row->match == COMPARE_ORIG_ONLY) {
		fprintf(out, "  only in orig");
	} else if (row->match == COMPARE_SIM_ONLY) {
		fprintf(out, "  only in sim");
	}
	fputc('\n', out);
}

static void write_side_line(const struct compare_result *res, int s, FILE *out)
{
	const struct compare_side_info *si = &res->side[s];
	char name[512];

	dps_text_sanitize(si->label, name, sizeof(name));
	fprintf(out, "%s: %s (%s, %zu threads", s ? "sim " : "orig", name, kind_names[si->kind],
		si->model->n_threads - si->n_excluded);
	if (si->n_excluded) {
		fprintf(out, ", %zu left out", si->n_excluded);
	}
	fprintf(out, ")%s%s\n", si->model->partial ? ", PARTIAL: " : "",
		si->model->partial
		    ? (si->model->partial_reason ? si->model->partial_reason : "incomplete input")
		    : "");
}

static void write_summary(const struct compare_result *res, FILE *out)
{
	char *effect = compare_effect_statement(res), *load = compare_load_statement(res);
	/* with a change the differences are its effect, not errors */
	const char *diff = effect ? "difference" : "error";
	char a[32], b[32], d[32], e[32], line[2048];

	fprintf(out, "\nmakespan   orig %s   sim %s   %s %s (%.2f %%)\n",
		compare_format_ns((int64_t)res->side[0].makespan_ns, false, a, sizeof(a)),
		compare_format_ns((int64_t)res->side[1].makespan_ns, false, b, sizeof(b)), diff,
		compare_format_ns(res->makespan_err_ns, true, d, sizeof(d)), res->makespan_err_pct);
	fprintf(out, "cpu        orig %s   sim %s   sum of |per-thread errors| %s (%.2f %%)\n",
		compare_format_ns((int64_t)res->side[0].cpu_total_ns, false, a, sizeof(a)),
		compare_format_ns((int64_t)res->side[1].cpu_total_ns, false, b, sizeof(b)),
		compare_format_ns((int64_t)res->cpu_abs_err_ns, false, d, sizeof(d)),
		res->cpu_err_pct);
	fprintf(out, "per thread CPU error: median %.2f %%, max %.2f %% over %zu matched threads\n",
		res->thread_cpu_err_median_pct, res->thread_cpu_err_max_pct, res->n_thread_cpu);
	/* a curve with no point compared (no stack action anywhere) gets no line, as the
	 * report leaves its chart out */
	if (res->has_mem && res->mem.n_points[0]) {
		fprintf(out, "heap       max error %s, mean %s over %zu points\n",
			compare_format_bytes((double)res->mem.max_abs[0], a, sizeof(a)),
			compare_format_bytes(res->mem.mean_abs[0], b, sizeof(b)),
			res->mem.n_points[0]);
	}
	if (res->has_mem && res->mem.n_points[1]) {
		fprintf(out, "stack      max error %s, mean %s over %zu points\n",
			compare_format_bytes((double)res->mem.max_abs[1], d, sizeof(d)),
			compare_format_bytes(res->mem.mean_abs[1], e, sizeof(e)),
			res->mem.n_points[1]);
	}
	if (!res->has_mem && (res->side[0].has_mem || res->side[1].has_mem)) {
		fprintf(out, "memory     only the %s run has memory samples: curves not compared\n",
			res->side[0].has_mem ? "original" : "simulated");
	}
	fprintf(out,
		"process    cpu  orig %s   sim %s   %s %s (%.2f %%)   [every thread, whole "
		"process]\n",
		compare_format_ns((int64_t)res->side[0].process_cpu_ns, false, a, sizeof(a)),
		compare_format_ns((int64_t)res->side[1].process_cpu_ns, false, b, sizeof(b)), diff,
		compare_format_ns(res->process_cpu_err_ns, true, d, sizeof(d)),
		res->process_cpu_err_pct);
	fprintf(out,
		"process    wall orig %s   sim %s   %s %s (%.2f %%)   [exec to the last thread's "
		"end]\n",
		compare_format_ns((int64_t)res->side[0].process_wall_ns, false, a, sizeof(a)),
		compare_format_ns((int64_t)res->side[1].process_wall_ns, false, b, sizeof(b)), diff,
		compare_format_ns(res->process_wall_err_ns, true, d, sizeof(d)),
		res->process_wall_err_pct);
	fprintf(out, "threads    %zu matched, %zu only in orig, %zu only in sim\n", res->n_matched,
		res->n_orig_only, res->n_sim_only);
	if (effect) {
		dps_text_sanitize(effect, line, sizeof(line));
		fprintf(out, "effect     %s: the change's effect, not a fidelity error\n", line);
	} else {
		fprintf(out,
			"fidelity error %.2f %% (the larger of the CPU and makespan errors; "
			"0 = identical)\n",
			res->fidelity_err_pct);
	}
	if (load) {
		dps_text_sanitize(load, line, sizeof(line));
		fprintf(out, "UNDER LOAD: %s\n", line);
	}
	g_free(effect);
	g_free(load);
}

char *compare_effect_statement(const struct compare_result *res)
{
	uint64_t o = res->side[0].makespan_ns, s = res->side[1].makespan_ns;
	char a[32], b[32];

	if (!res->run || !res->run->change) {
		return NULL;
	}
	return g_strdup_printf("%s: the program takes %s instead of %s (%+.2f %%)",
			       res->run->change, compare_format_ns((int64_t)s, false, a, sizeof(a)),
			       compare_format_ns((int64_t)o, false, b, sizeof(b)),
			       o ? ((double)s - (double)o) / (double)o * 100.0 : 0.0);
}

/* "45 % of the 2 CPUs, steal 0.9 %" */
static void append_load(GString *t, const struct dps_load *l)
{
	g_string_append_printf(t, "%.0f %% of the %d CPUs, steal %.1f %%", l->others_pct, l->cpus,
			       l->steal_pct);
}

char *compare_load_statement(const struct compare_result *res)
{
	const struct dps_load *l[2] = {&res->side[0].load, &res->side[1].load};
	bool u[2] = {dps_load_is_under_load(l[0]), dps_load_is_under_load(l[1])};
	GString *t;

	if (!u[0] && !u[1]) {
		return NULL;
	}
	t = g_string_new(NULL);
	if (u[0] && u[1]) {
		g_string_append(t, "both runs were recorded while other processes used the "
				   "machine: the original run ");
		append_load(t, l[0]);
		g_string_append(t, ", the simulated run ");
		append_load(t, l[1]);
	} else {
		int s = u[1];

		g_string_append_printf(t, "the %s run was recorded while other processes used ",
				       s ? "simulated" : "original");
		append_load(t, l[s]);
		if (l[!s]->known) {
			g_string_append_printf(t, " (the %s run: %.0f %%)",
					       s ? "original" : "simulated", l[!s]->others_pct);
		}
	}
	g_string_append_printf(
	    t,
	    "; quiet is under %.0f %% and steal under %.0f %%. The %s includes "
	    "what they took: record again on a quiet machine (dps replay and dps "
	    "whatif wait for one with --wait-quiet)",
	    DPS_LOAD_OTHERS_PCT_MAX, DPS_LOAD_STEAL_PCT_MAX,
	    res->run && res->run->change ? "effect" : "fidelity error");
	return g_string_free(t, FALSE);
}

enum dps_status compare_write_text(const struct compare_result *res, FILE *out, bool all_rows)
{
	size_t n_show = res->n_threads, *order = NULL;
	int path_w = 6, id_w = 2;
	int ret = DPS_OK;

	order = malloc((res->n_threads ? res->n_threads : 1) * sizeof(*order));
	if (!order) {
		return DPS_ERR_NOMEM;
	}
	for (size_t r = 0; r < res->n_threads; r++) {
		order[r] = r;
	}
	if (!all_rows && n_show > TEXT_MAX_ROWS) {
		/* Keep the rows that matter (unmatched, then largest CPU error), in tree order. */
		qsort_r(order, n_show, sizeof(*order), cmp_rows_by_err, (void *)res);
		n_show = TEXT_MAX_ROWS;
		qsort(order, n_show, sizeof(*order), cmp_size);
	}
	for (size_t k = 0; k < n_show; k++) {
		int w = (int)strlen(res->threads[order[k]].path);

		char id[24];

		path_w = w > path_w ? (w < 40 ? w : 40) : path_w;
		format_cell_id(res, &res->threads[order[k]], id, sizeof(id));
		w = (int)strlen(id);
		id_w = w > id_w ? w : id_w;
	}
	write_side_line(res, 0, out);
	write_side_line(res, 1, out);
	fprintf(out,
		"\n%-*s %*s %-16s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %11s "
		"%11s\n",
		path_w, "THREAD", id_w, "ID", "NAME", "CPU orig", "CPU sim", "err", "BLKD orig",
		"BLKD sim", "err", "PRMT orig", "PRMT sim", "err", "START d", "END d", "RUNS o/s",
		"SLEEPS o/s");
	for (size_t k = 0; k < n_show; k++) {
		write_row(res, order[k], path_w, id_w, out);
	}
	if (n_show < res->n_threads) {
		fprintf(out,
			"(%zu of %zu threads shown: unmatched and largest CPU errors first; "
			"--all lists every thread)\n",
			n_show, res->n_threads);
	}
	fprintf(out, "(ID: the thread's .act id, what --thread-scale ID=X takes; err: relative, or "
		     "the difference when the original is under 1 ms)\n");
	write_summary(res, out);
	if (ferror(out)) {
		ret = DPS_ERR_IO;
	}
	free(order);
	return ret;
}

static void json_value(FILE *out, const struct compare_value *v, enum compare_metric_id m)
{
	bool time = compare_metric_is_time(m);
	const char *unit = time ? "_ns" : "";

	fprintf(out, "{");
	for (int s = 0; s < 2; s++) {
		fprintf(out, "%s\"%s%s\": ", s ? ", " : "", s ? "sim" : "orig", unit);
		if (v->has[s]) {
			fprintf(out, "%" PRId64, v->v[s]);
		} else {
			fputs("null", out);
		}
	}
	fprintf(out, ", \"err%s\": ", unit);
	if (v->has[0] && v->has[1]) {
		fprintf(out, "%" PRId64, v->v[1] - v->v[0]);
	} else {
		fputs("null", out);
	}
	fputs(", \"err_pct\": ", out);
	dps_json_double(out, signed_pct(v));
	if (time) {
		/* err_pct stays the raw figure; the flag says the outputs show err_ns instead */
		fprintf(out, ", \"small_base\": %s",
			compare_value_small_base(v, m) ? "true" : "false");
	}
	fputc('}', out);
}

static void json_mem(FILE *out, const struct compare_mem_error *e)
{
	static const char *const curve[2] = {"heap", "stack"};

	fputc('{', out);
	for (int w = 0; w < 2; w++) {
		fprintf(out,
			"%s\"%s\": {\"points\": %zu, \"max_abs_err_bytes\": %" PRId64
			", \"mean_abs_err_bytes\": ",
			w ? ", " : "", curve[w], e->n_points[w], e->max_abs[w]);
		dps_json_double(out, e->mean_abs[w]);
		fputc('}', out);
	}
	fputc('}', out);
}

static void json_thread_ref(FILE *out, const struct compare_result *res, int s, size_t idx)
{
	const struct analyzer_thread *th;

	if (idx == COMPARE_NO_THREAD) {
		fputs("null", out);
		return;
	}
	th = &res->side[s].model->threads[idx];
	fprintf(out,
		"{\"index\": %zu, \"id\": %" PRIu64 ", \"tid\": %" PRId64 ", \"pid\": %" PRId64
		", \"comm\": ",
		idx, th->id, th->tid, th->pid);
	if (th->comm) {
		dps_json_string(out, th->comm, false);
	} else {
		fputs("null", out);
	}
	fputc('}', out);
}

static void json_side(FILE *out, const struct compare_result *res, int s)
{
	const struct compare_side_info *si = &res->side[s];

	fprintf(out, "  \"%s\": {\"label\": ", s ? "sim" : "orig");
	dps_json_string(out, si->label, false);
	fprintf(out,
		", \"kind\": \"%s\", \"threads\": %zu, \"excluded\": %zu, \"partial\": %s, "
		"\"partial_reason\": ",
		kind_ids[si->kind], si->model->n_threads - si->n_excluded, si->n_excluded,
		si->model->partial ? "true" : "false");
	if (si->model->partial_reason) {
		dps_json_string(out, si->model->partial_reason, false);
	} else {
		fputs("null", out);
	}
	fprintf(out,
		", \"origin_ns\": %" PRIu64 ", \"makespan_ns\": %" PRIu64
		", \"cpu_total_ns\": %" PRIu64 ", \"has_memory\": %s"
		", \"process\": {\"measured\": %s, \"cpu_ns\": %" PRIu64 ", \"wall_ns\": %" PRIu64
		"}},\n",
		si->origin_ns, si->makespan_ns, si->cpu_total_ns, si->has_mem ? "true" : "false",
		si->process_known ? "true" : "false", si->process_cpu_ns, si->process_wall_ns);
}

/* The machine's load while a side was recorded, or null when unknown. */
static void json_load(FILE *out, const struct dps_load *l)
{
	if (!l->known) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"cpus\": %d, \"wall_s\": ", l->cpus);
	dps_json_double(out, l->wall_s);
	fputs(", \"own_pct\": ", out);
	dps_json_double(out, l->own_pct);
	fputs(", \"others_pct\": ", out);
	dps_json_double(out, l->others_pct);
	fputs(", \"steal_pct\": ", out);
	dps_json_double(out, l->steal_pct);
	/* "noisy": the first name of under_load, kept for the scripts that read it */
	fprintf(out, ", \"under_load\": %s, \"noisy\": %s}",
		dps_load_is_under_load(l) ? "true" : "false",
		dps_load_is_under_load(l) ? "true" : "false");
}

enum dps_status compare_write_json(const struct compare_result *res, FILE *out)
{
	fprintf(out, "{\n  \"schema\": \"%s\",\n", COMPARE_JSON_SCHEMA);
	compare_write_run_json(out, res);
	json_side(out, res, 0);
	json_side(out, res, 1);
	fprintf(out, "  \"summary\": {\"matched\": %zu, \"orig_only\": %zu, \"sim_only\": %zu,\n",
		res->n_matched, res->n_orig_only, res->n_sim_only);
	fprintf(out,
		"    \"makespan\": {\"orig_ns\": %" PRIu64 ", \"sim_ns\": %" PRIu64
		", \"err_ns\": %" PRId64 ", \"abs_err_pct\": ",
		res->side[0].makespan_ns, res->side[1].makespan_ns, res->makespan_err_ns);
	dps_json_double(out, res->makespan_err_pct);
	fprintf(out,
		"},\n    \"cpu\": {\"orig_ns\": %" PRIu64 ", \"sim_ns\": %" PRIu64
		", \"abs_err_ns\": %" PRIu64 ", \"err_pct\": ",
		res->side[0].cpu_total_ns, res->side[1].cpu_total_ns, res->cpu_abs_err_ns);
	dps_json_double(out, res->cpu_err_pct);
	fprintf(out, "},\n    \"process_cpu\": {\"err_ns\": %" PRId64 ", \"abs_err_pct\": ",
		res->process_cpu_err_ns);
	dps_json_double(out, res->process_cpu_err_pct);
	fprintf(out, "},\n    \"process_wall\": {\"err_ns\": %" PRId64 ", \"abs_err_pct\": ",
		res->process_wall_err_ns);
	dps_json_double(out, res->process_wall_err_pct);
	fprintf(out, "},\n    \"thread_cpu_err\": {\"threads\": %zu, \"median_pct\": ",
		res->n_thread_cpu);
	dps_json_double(out, res->thread_cpu_err_median_pct);
	fputs(", \"max_pct\": ", out);
	dps_json_double(out, res->thread_cpu_err_max_pct);
	fputs("},\n    \"fidelity_err_pct\": ", out);
	dps_json_double(out, res->fidelity_err_pct);
	fprintf(out, ",\n    \"under_load\": %s, \"load\": {\"orig\": ",
		res->under_load ? "true" : "false");
	json_load(out, &res->side[0].load);
	fputs(", \"sim\": ", out);
	json_load(out, &res->side[1].load);
	fputs("}", out);
	fputs(",\n    \"memory\": ", out);
	if (res->has_mem) {
		json_mem(out, &res->mem);
	} else {
		fputs("null", out);
	}
	fputs("},\n  \"threads\": [", out);
	for (size_t r = 0; r < res->n_threads; r++) {
		const struct compare_thread *row = &res->threads[r];

		fprintf(out, "%s\n    {\"path\": ", r ? "," : "");
		dps_json_string(out, row->path, false);
		fprintf(out, ", \"match\": \"%s\", \"orig\": ", match_ids[row->match]);
		json_thread_ref(out, res, 0, row->idx[0]);
		fputs(", \"sim\": ", out);
		json_thread_ref(out, res, 1, row->idx[1]);
		for (int m = 0; m < COMPARE_M_COUNT; m++) {
			fprintf(out, ",\n     \"%s\": ", compare_metric_name(m));
			json_value(out, &row->m[m], m);
		}
		fputs(",\n     \"memory\": ", out);
		if (row->has_mem) {
			json_mem(out, &row->mem);
		} else {
			fputs("null", out);
		}
		fputc('}', out);
	}
	fputs("\n  ]\n}\n", out);
	return ferror(out) ? DPS_ERR_IO : DPS_OK;
}
