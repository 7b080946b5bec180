/* SPDX-License-Identifier: MIT */
/*
 * Comparing two models: the rows come from matching their creation trees (match.c); this file
 * computes the figures of doc/compare.md over them (per thread, memory curves, summary) and
 * loads a side from a trace or an action set.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "compare-internal.h"
#include "compare.h"
#include "record.h"

static const char *const metric_names[COMPARE_M_COUNT] = {
    [COMPARE_M_CPU] = "cpu",
    [COMPARE_M_BLOCKED] = "blocked",
    [COMPARE_M_PREEMPTED] = "preempted",
    [COMPARE_M_START] = "start",
    [COMPARE_M_END] = "end",
    [COMPARE_M_RUNS] = "runs",
    [COMPARE_M_SLEEPS] = "sleeps",
};

const char *compare_metric_name(enum compare_metric_id m)
{
	return m < COMPARE_M_COUNT ? metric_names[m] : "?";
}

bool compare_metric_is_time(enum compare_metric_id m)
{
	return m <= COMPARE_M_END;
}

const char *compare_thread_name(const struct analyzer_thread *th)
{
	return th->comm && th->comm[0] ? th->comm : "(unnamed)";
}

bool compare_value_small_base(const struct compare_value *val, enum compare_metric_id m)
{
	int64_t o = val->v[COMPARE_ORIG];

	return compare_metric_is_time(m) && val->has[COMPARE_ORIG] && val->has[COMPARE_SIM] &&
	       (o < 0 ? -o : o) < COMPARE_SMALL_BASE_NS;
}

double compare_value_err_pct(const struct compare_value *val)
{
	int64_t o = val->has[COMPARE_ORIG] ? val->v[COMPARE_ORIG] : 0;
	int64_t s = val->has[COMPARE_SIM] ? val->v[COMPARE_SIM] : 0;
	double diff = (double)s - (double)o;

	if (!val->has[COMPARE_ORIG] || !val->has[COMPARE_SIM]) {
		return 100.0;
	}
	if (o == 0) {
		return s == 0 ? 0.0 : 100.0;
	}
	return (diff < 0 ? -diff : diff) / (o < 0 ? -(double)o : (double)o) * 100.0;
}

static void compute_side(struct compare_side_info *si)
{
	const struct analyzer_result *m = si->model;
	uint64_t first = m->threads[m->root].start_ns, last = first;

	si->origin_ns = first;
	for (size_t i = 0; i < m->n_threads; i++) {
		const struct analyzer_thread *th = &m->threads[i];

		if (si->excluded[i]) {
			continue;
		}
		if (th->start_ns < first) {
			first = th->start_ns;
		}
		if (th->end_ns > last) {
			last = th->end_ns;
		}
		si->cpu_total_ns += th->stats.busy_ns;
		si->has_mem |= th->n_mem > 0;
	}
	si->makespan_ns = last - first;
	si->process_known = m->process.known;
	si->process_cpu_ns = m->process.known ? m->process.cpu_ns : si->cpu_total_ns;
	si->process_wall_ns =
	    m->process.known ? m->process.end_ns - m->process.begin_ns : si->makespan_ns;
}

/* sim - orig and |sim - orig| / orig * 100 (100 when only orig is 0). */
static double err_pct(uint64_t o, uint64_t s, int64_t *diff)
{
	*diff = (int64_t)s - (int64_t)o;
	if (!o) {
		return s ? 100.0 : 0.0;
	}
	return (double)(s > o ? s - o : o - s) / (double)o * 100.0;
}

/*
 * The k-th change of a curve: the values at the samples where the curve (heap or stack)
 * differs from its previous value, starting from 0. Fills vals (n_mem entries), returns count.
 */
static size_t curve_changes(const struct analyzer_thread *th, int which, int64_t *vals)
{
	int64_t prev = 0;
	size_t n = 0;

	for (size_t i = 0; i < th->n_mem; i++) {
		int64_t v = which ? th->mem[i].stack_bytes : th->mem[i].heap_bytes;

		if (v != prev) {
			vals[n++] = v;
			prev = v;
		}
	}
	return n;
}

/*
 * Compares the two curves point by point (the k-th change against the k-th change; a shorter
 * curve stays at its last value), as the memory-stub paper compares desired and measured
 * values at every point of the allocation table.
 */
static int compare_curves(const struct analyzer_thread *a, const struct analyzer_thread *b,
			  struct compare_mem_error *err, double sum[2])
{
	size_t cap = (a ? a->n_mem : 0) + (b ? b->n_mem : 0) + 1;
	int64_t *va = malloc(cap * sizeof(*va)), *vb = malloc(cap * sizeof(*vb));
	int ret = DPS_OK;

	if (!va || !vb) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	for (int w = 0; w < 2; w++) {
		size_t na = a ? curve_changes(a, w, va) : 0;
		size_t nb = b ? curve_changes(b, w, vb) : 0;
		size_t np = na > nb ? na : nb;
		double total = 0;

		for (size_t k = 0; k < np; k++) {
			int64_t x = k < na ? va[k] : (na ? va[na - 1] : 0);
			int64_t y = k < nb ? vb[k] : (nb ? vb[nb - 1] : 0);
			int64_t d = y > x ? y - x : x - y;

			if (d > err->max_abs[w]) {
				err->max_abs[w] = d;
			}
			total += (double)d;
		}
		err->n_points[w] = np;
		err->mean_abs[w] = np ? total / (double)np : 0;
		sum[w] += total;
	}
end:
	free(va);
	free(vb);
	return ret;
}

static int compute_memory(struct compare_result *res)
{
	double sum[2] = {0, 0};
	int ret;

	res->has_mem = res->side[0].has_mem && res->side[1].has_mem;
	if (!res->has_mem) {
		return DPS_OK;
	}
	for (size_t r = 0; r < res->n_threads; r++) {
		struct compare_thread *row = &res->threads[r];
		const struct analyzer_thread *a, *b;

		if (row->match != COMPARE_MATCHED) {
			continue;
		}
		a = &res->side[0].model->threads[row->idx[0]];
		b = &res->side[1].model->threads[row->idx[1]];
		if (!a->n_mem && !b->n_mem) {
			continue;
		}
		row->has_mem = true;
		ret = compare_curves(a, b, &row->mem, sum);
		if (ret) {
			return ret;
		}
		for (int w = 0; w < 2; w++) {
			res->mem.n_points[w] += row->mem.n_points[w];
			if (row->mem.max_abs[w] > res->mem.max_abs[w]) {
				res->mem.max_abs[w] = row->mem.max_abs[w];
			}
		}
	}
	for (int w = 0; w < 2; w++) {
		res->mem.mean_abs[w] =
		    res->mem.n_points[w] ? sum[w] / (double)res->mem.n_points[w] : 0;
	}
	return DPS_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median and max of the per-thread CPU errors: the figures the fidelity benchmark reports. */
static int compute_thread_cpu_errors(struct compare_result *res)
{
	double *errs = malloc((res->n_threads ? res->n_threads : 1) * sizeof(*errs));
	size_t n = 0;

	if (!errs) {
		return DPS_ERR_NOMEM;
	}
	for (size_t r = 0; r < res->n_threads; r++) {
		const struct compare_value *v = &res->threads[r].m[COMPARE_M_CPU];

		if (res->threads[r].match == COMPARE_MATCHED && v->v[0] > 0) {
			errs[n++] = compare_value_err_pct(v);
		}
	}
	qsort(errs, n, sizeof(*errs), cmp_double);
	res->n_thread_cpu = n;
	if (n) {
		res->thread_cpu_err_median_pct =
		    n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
		res->thread_cpu_err_max_pct = errs[n - 1];
	}
	free(errs);
	return DPS_OK;
}

static void compute_summary(struct compare_result *res)
{
	uint64_t mo = res->side[0].makespan_ns, ms = res->side[1].makespan_ns;
	uint64_t cpu_o = res->side[0].cpu_total_ns;
	uint64_t abs_err = 0;

	for (size_t r = 0; r < res->n_threads; r++) {
		const struct compare_value *v = &res->threads[r].m[COMPARE_M_CPU];
		int64_t o = v->has[0] ? v->v[0] : 0, s = v->has[1] ? v->v[1] : 0;

		abs_err += (uint64_t)(s > o ? s - o : o - s);
	}
	res->cpu_abs_err_ns = abs_err;
	if (cpu_o) {
		res->cpu_err_pct = (double)abs_err / (double)cpu_o * 100.0;
	} else {
		res->cpu_err_pct = abs_err ? 100.0 : 0.0;
	}
	res->makespan_err_ns = (int64_t)ms - (int64_t)mo;
	if (mo) {
		res->makespan_err_pct = (double)(ms > mo ? ms - mo : mo - ms) / (double)mo * 100.0;
	} else {
		res->makespan_err_pct = ms ? 100.0 : 0.0;
	}
	res->fidelity_err_pct =
	    res->cpu_err_pct > res->makespan_err_pct ? res->cpu_err_pct : res->makespan_err_pct;
	res->process_cpu_err_pct = err_pct(res->side[0].process_cpu_ns, res->side[1].process_cpu_ns,
					   &res->process_cpu_err_ns);
	res->process_wall_err_pct = err_pct(
	    res->side[0].process_wall_ns, res->side[1].process_wall_ns, &res->process_wall_err_ns);
}

static int check_model(const struct analyzer_result *m, const char *which, struct dps_diag *diag)
{
	if (!m || !m->n_threads || m->root >= m->n_threads) {
		dps_diag_setf(
		    diag, "the %s run has no thread or no root thread: nothing to compare", which);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

void compare_options_default(struct compare_options *opts)
{
	memset(opts, 0, sizeof(*opts));
}

/* lttng-ust names its listener threads after the program with "-ust" appended. */
static bool is_tracer_thread(const struct analyzer_thread *th)
{
	size_t len = th->comm ? strlen(th->comm) : 0;

	return len > 4 && !strcmp(th->comm + len - 4, "-ust");
}

static void mark_excluded(struct compare_side_info *si, const struct compare_options *opts)
{
	const struct analyzer_result *m = si->model;

	for (size_t i = 0; i < m->n_threads; i++) {
		const struct analyzer_thread *th = &m->threads[i];
		bool ex = !opts->keep_tracer_threads && is_tracer_thread(th);

		for (size_t k = 0; !ex && k < opts->n_exclude_comm; k++) {
			ex = !fnmatch(opts->exclude_comm[k], compare_thread_name(th), 0);
		}
		si->excluded[i] = ex && i != m->root;
		si->n_excluded += si->excluded[i];
		si->row_of[i] = COMPARE_NO_THREAD;
	}
}

enum dps_status compare_run(const struct analyzer_result *orig, enum compare_input_kind orig_kind,
			    const char *orig_label, const struct analyzer_result *sim,
			    enum compare_input_kind sim_kind, const char *sim_label,
			    const struct compare_options *opts, struct compare_result **out,
			    struct dps_diag *diag)
{
	struct compare_options defaults;
	const struct analyzer_result *models[2] = {orig, sim};
	enum compare_input_kind kinds[2] = {orig_kind, sim_kind};
	const char *labels[2] = {orig_label, sim_label};
	struct compare_result *res = NULL;
	int ret;

	*out = NULL;
	ret = check_model(orig, "original", diag);
	if (!ret) {
		ret = check_model(sim, "simulated", diag);
	}
	if (ret) {
		goto end;
	}
	if (!opts) {
		compare_options_default(&defaults);
		opts = &defaults;
	}
	res = calloc(1, sizeof(*res));
	if (!res) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	for (int s = 0; s < 2; s++) {
		const char *label = labels[s]		? labels[s]
				    : models[s]->source ? models[s]->source
							: "(model)";

		res->side[s].model = models[s];
		res->side[s].kind = kinds[s];
		res->side[s].label = strdup(label);
		res->side[s].row_of = malloc(models[s]->n_threads * sizeof(size_t));
		res->side[s].excluded = calloc(models[s]->n_threads, sizeof(bool));
		if (!res->side[s].label || !res->side[s].row_of || !res->side[s].excluded) {
			ret = DPS_ERR_NOMEM;
			goto error;
		}
		mark_excluded(&res->side[s], opts);
		compute_side(&res->side[s]);
		/* record.info where the trace is, which the label may not say (dps replay's
		 * simulated trace, labelled by where it will be) */
		if (kinds[s] == COMPARE_INPUT_TRACE &&
		    (opts->trace_dir[s] ? opts->trace_dir[s] : labels[s])) {
			dps_record_info_load(opts->trace_dir[s] ? opts->trace_dir[s] : labels[s],
					     &res->side[s].load);
		}
		res->under_load |= dps_load_is_under_load(&res->side[s].load);
	}
	ret = compare_match_trees(res);
	if (!ret) {
		ret = compute_memory(res);
	}
	if (!ret) {
		ret = compute_thread_cpu_errors(res);
	}
	if (ret) {
		goto error;
	}
	compute_summary(res);
	*out = res;
	goto end;
error:
	compare_result_destroy(res);
end:
	return ret;
}

void compare_result_destroy(struct compare_result *res)
{
	if (!res) {
		return;
	}
	for (size_t r = 0; r < res->n_threads; r++) {
		free(res->threads[r].path);
	}
	g_free(res->threads);
	for (int s = 0; s < 2; s++) {
		free(res->side[s].label);
		free(res->side[s].row_of);
		free(res->side[s].excluded);
	}
	free(res);
}

bool compare_path_is_actset(const char *path)
{
	struct dirent *de;
	bool found = false;
	DIR *dir;

	dir = opendir(path);
	if (!dir) {
		return false;
	}
	while (!found && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);

		if (!strcmp(de->d_name, DPS_ACTSET_MANIFEST_NAME) ||
		    (len > 4 && !strcmp(de->d_name + len - 4, ".act"))) {
			found = true;
		}
	}
	closedir(dir);
	return found;
}

enum dps_status compare_load(const char *path, const struct analyzer_options *opts,
			     struct analyzer_result **out, enum compare_input_kind *kind,
			     struct dps_diag *diag)
{
	struct dps_actset *set = NULL;
	struct analyzer_options o;
	const char *traces[1] = {path};
	struct stat st;
	int ret;

	*out = NULL;
	if (stat(path, &st)) {
		dps_diag_setf(diag, "Cannot open input: path=\"%s\", errno=%d (%s)", path, errno,
			      strerror(errno));
		ret = DPS_ERR_NOENT;
		goto end;
	}
	if (!S_ISDIR(st.st_mode)) {
		dps_diag_setf(diag, "%s: expected a directory (a trace or an action set)", path);
		ret = DPS_ERR_INVAL;
		goto end;
	}
	if (compare_path_is_actset(path)) {
		*kind = COMPARE_INPUT_ACTSET;
		ret = dps_actset_load_dir(path, &set, diag);
		if (!ret) {
			ret = compare_model_from_actset(set, out, diag);
		}
		goto end;
	}
	*kind = COMPARE_INPUT_TRACE;
	o = *opts;
	o.traces = traces;
	o.n_traces = 1;
	o.build_actset = false;
	if (o.pid < 0 && o.tid < 0 && !o.comm) {
		ret = dps_record_info_read(path, &o.pid, diag);
		if (ret && ret != DPS_ERR_NOENT) {
			goto end;
		}
	}
	ret = analyzer_run(&o, out, diag);
end:
	dps_actset_destroy(set);
	return ret;
}
