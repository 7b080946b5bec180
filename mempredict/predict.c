/* SPDX-License-Identifier: MIT */
/*
 * Predictions from a profile (doc/memory-predict.md), per phase name over every run that has
 * it:
 *  - the paper's (section 3.3): each class's maximum and average active objects relative to
 *    the basis class's in each data set, their maximum and mean across data sets, scaled by
 *    the basis count, times the class's object size, summed;
 *  - ours, with three or more runs of distinct basis counts: each class's live bytes at the
 *    phase's peak and its average live bytes fitted against the run's basis count (mp-fit.h),
 *    the model chosen by leave-one-out cross-validation, summed; the range sums the classes'.
 * A run's basis count is the most basis objects potentially active in any of its phases (the
 * paper's count: live at a phase's start + allocated in it), i.e. how many it has allocated.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "mempredict.h"
#include "mp-fit.h"

/* The basis count of the run of data set d (its input size with by_size). */
static double run_basis(const struct mp_profile *p, const struct mp_dataset *d,
			const struct mp_predict_options *o)
{
	const char *run = d->run, *basis = o->basis;
	double x = 0;

	if (o->by_size) {
		return d->size;
	}

	for (size_t i = 0; i < p->n_sets; i++) {
		const struct mp_class_stats *b;

		if (strcmp(p->sets[i].run, run)) {
			continue;
		}
		b = mp_dataset_find_class(&p->sets[i], basis);
		if (b && (double)b->max_active > x) {
			x = (double)b->max_active;
		}
	}
	return x;
}

static double run_duration(const struct mp_profile *p, const char *run)
{
	double t = 0;

	for (size_t i = 0; i < p->n_sets; i++) {
		if (!strcmp(p->sets[i].run, run)) {
			t += (double)p->sets[i].duration_ns;
		}
	}
	return t;
}

/* The paper's figures for class name in the data sets sel (n of them). */
static void paper_class(const struct mp_profile *p, const size_t *sel, size_t n, const char *name,
			const struct mp_predict_options *o, double *peak, double *avg)
{
	double rmax = 0, ravg = 0, size = 0, count = o->count;
	size_t navg = 0, nsize = 0;

	for (size_t k = 0; k < n; k++) {
		const struct mp_dataset *d = &p->sets[sel[k]];
		const struct mp_class_stats *b =
		    o->by_size ? NULL : mp_dataset_find_class(d, o->basis);
		const struct mp_class_stats *c = mp_dataset_find_class(d, name);
		/* against the input size, the size stands for the basis's counts */
		double bmax = o->by_size ? d->size : b ? (double)b->max_active : 0;
		double bavg = o->by_size ? d->size : b ? b->avg_active : 0;

		if (c) {
			size += c->avg_size;
			nsize++;
		}
		if (!(bmax > 0)) {
			continue;
		}
		if (c && (double)c->max_active / bmax > rmax) {
			rmax = (double)c->max_active / bmax;
		}
		if (bavg > 0) {
			ravg += c ? c->avg_active / bavg : 0;
			navg++;
		}
	}
	size = nsize ? size / (double)nsize : 0;
	*peak = rmax * count * size;
	*avg = navg ? ravg / (double)navg * count * size : 0;
}

/* The names of the classes in the data sets sel, each once (borrowed from p). */
static GPtrArray *class_names(const struct mp_profile *p, const size_t *sel, size_t n)
{
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *names = g_ptr_array_new();

	for (size_t k = 0; k < n; k++) {
		const struct mp_dataset *d = &p->sets[sel[k]];

		for (size_t i = 0; i < d->n_classes; i++) {
			if (g_hash_table_add(seen, d->classes[i].name)) {
				g_ptr_array_add(names, d->classes[i].name);
			}
		}
	}
	g_hash_table_destroy(seen);
	return names;
}

static int add_class(struct mp_prediction *pr, const char *phase, const char *name,
		     struct mp_class_prediction **out)
{
	struct mp_class_prediction *grown =
	    realloc(pr->classes, (pr->n_classes + 1) * sizeof(*grown));

	if (!grown) {
		return DPS_ERR_NOMEM;
	}
	pr->classes = grown;
	*out = &grown[pr->n_classes++];
	memset(*out, 0, sizeof(**out));
	(*out)->phase = strdup(phase);
	(*out)->name = strdup(name);
	(*out)->cv_error = -1;
	return (*out)->phase && (*out)->name ? DPS_OK : DPS_ERR_NOMEM;
}

/* The data sets' mean of figure / their peak (the shape of the phase's curve, which stays when
 * the size changes). */
static double peak_fraction(const struct mp_profile *p, const size_t *sel, size_t n,
			    uint64_t (*figure)(const struct mp_dataset *))
{
	double r = 0;
	size_t m = 0;

	for (size_t k = 0; k < n; k++) {
		const struct mp_dataset *d = &p->sets[sel[k]];

		if (d->peak_bytes) {
			r += (double)figure(d) / (double)d->peak_bytes;
			m++;
		}
	}
	return m ? r / (double)m : 0;
}

static uint64_t start_of(const struct mp_dataset *d)
{
	return d->start_bytes;
}

static uint64_t end_of(const struct mp_dataset *d)
{
	return d->end_bytes;
}

/*
 * The phase's predicted curve (--actions): its start and end levels as the data sets' fractions
 * of their peak, times the predicted peak (a sum of per-class fits extrapolates better than a
 * fit of the total); its time fitted, else the data sets' time per basis object scaled (y is
 * room for n values). Call once the peak is predicted.
 */
static void predict_curve(const struct mp_profile *p, const size_t *sel, size_t n, const double *x,
			  double *y, const struct mp_predict_options *o,
			  struct mp_phase_prediction *ph)
{
	struct mp_choice c;
	double r = 0;
	size_t m = 0;

	ph->start_bytes = ph->peak_bytes * peak_fraction(p, sel, n, start_of);
	ph->end_bytes = ph->peak_bytes * peak_fraction(p, sel, n, end_of);
	for (size_t k = 0; k < n; k++) {
		y[k] = (double)p->sets[sel[k]].duration_ns;
		if (x[k] > 0) {
			r += y[k] / x[k];
			m++;
		}
	}
	if (ph->fitted && mp_fit_choose(x, y, n, o->count, &c)) {
		ph->curve_ns = c.value;
	} else {
		ph->curve_ns = m ? r / (double)m * o->count : 0;
	}
}

/*
 * Whether class name holds as many objects at once in every data set of sel while its bytes
 * change: a container (a hash table's buckets, a buffer) that grows by reallocating, whose
 * sizes are then fitted as a doubling when they are powers of two (mp-fit.h). A class whose
 * objects grow in number is a population, whatever its sizes look like.
 */
static bool is_container(const struct mp_profile *p, const size_t *sel, size_t n, const char *name)
{
	uint64_t live = 0;

	for (size_t k = 0; k < n; k++) {
		const struct mp_class_stats *s = mp_dataset_find_class(&p->sets[sel[k]], name);

		if (!s || !s->live_max || (k && s->live_max != live)) {
			return false;
		}
		live = s->live_max;
	}
	return n > 0;
}

/* The model for a class's figures y: a doubling for a container whose sizes double, else the
 * one cross-validation chooses. */
static bool choose_for(bool container, const double *x, const double *y, size_t n, double at,
		       struct mp_choice *c)
{
	if (container && mp_fit_choose_model(MP_MODEL_DOUBLING, x, y, n, at, c)) {
		if (!isfinite(c->cv_error)) {
			c->cv_error = -1; /* two steps left cannot be fitted as one */
		}
		return true;
	}
	return mp_fit_choose(x, y, n, at, c);
}

/* One phase: its data sets are sel (n). */
static int predict_phase(const struct mp_profile *p, const size_t *sel, size_t n,
			 const struct mp_predict_options *o, struct mp_prediction *pr,
			 struct mp_phase_prediction *ph)
{
	GPtrArray *names = class_names(p, sel, n);
	double *x = calloc(n, sizeof(*x)), *yp = calloc(n, sizeof(*yp)),
	       *ya = calloc(n, sizeof(*ya));
	size_t first = pr->n_classes;
	int rc = DPS_OK;

	if (!x || !yp || !ya) {
		rc = DPS_ERR_NOMEM;
		goto free_arrays;
	}
	for (size_t k = 0; k < n; k++) {
		const struct mp_dataset *d = &p->sets[sel[k]];
		double t = run_duration(p, d->run);

		x[k] = run_basis(p, d, o);
		ph->duration_share += t > 0 ? (double)d->duration_ns / t / (double)n : 0;
	}
	for (size_t k = 0; k < n; k++) {
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++) {
			seen = x[j] == x[k];
		}
		ph->n_sizes += !seen && x[k] > 0;
	}
	ph->n_sets = n;
	ph->fitted = ph->n_sizes >= 3;
	ph->duration_ns = -1;
	if (ph->fitted) {
		struct mp_choice cd;

		/* the phase's time at the new size: phases grow at different rates, and the
		 * program's average weighs them by it; only a fit that predicts its own data
		 * sets within 10 % is trusted (phases of a few ms on a busy machine are not) */
		for (size_t k = 0; k < n; k++) {
			yp[k] = (double)p->sets[sel[k]].duration_ns;
		}
		if (mp_fit_choose(x, yp, n, o->count, &cd) && cd.cv_error < 0.1) {
			ph->duration_ns = cd.value;
		}
	}
	for (guint i = 0; i < names->len; i++) {
		const char *name = names->pdata[i];
		struct mp_class_prediction *c;
		struct mp_choice cp, ca;
		double frac = 0;
		size_t n_frac = 0;
		bool container = is_container(p, sel, n, name);

		rc = add_class(pr, ph->name, name, &c);
		if (rc) {
			goto free_arrays;
		}
		paper_class(p, sel, n, name, o, &c->paper_peak_bytes, &c->paper_avg_bytes);
		for (size_t k = 0; k < n; k++) {
			const struct mp_class_stats *s =
			    mp_dataset_find_class(&p->sets[sel[k]], name);

			yp[k] = s ? (double)s->live_at_peak_bytes : 0;
			ya[k] = s ? (double)s->peak_live_bytes : 0;
			if (s && s->peak_live_bytes) {
				frac += s->avg_live_bytes / (double)s->peak_live_bytes;
				n_frac++;
			}
		}
		frac = n_frac ? frac / (double)n_frac : 0;
		/*
		 * The average is the class's own peak, fitted, times the mean ratio of its average
		 * to its peak: that ratio is the shape of the class's curve in the phase, which
		 * does not change with the size, while the average itself carries the phase's
		 * timing noise (a phase of a few ms).
		 */
		if (ph->fitted && choose_for(container, x, yp, n, o->count, &cp) &&
		    choose_for(container, x, ya, n, o->count, &ca)) {
			c->peak_bytes = cp.value;
			c->peak_lo = cp.lo;
			c->peak_hi = cp.hi;
			c->avg_bytes = frac * ca.value;
			c->model = mp_model_name(cp.fit.model);
			c->cv_error = cp.cv_error;
			ph->avg_lo += frac * ca.lo;
			ph->avg_hi += frac * ca.hi;
		} else {
			c->peak_bytes = c->peak_lo = c->peak_hi = c->paper_peak_bytes;
			c->avg_bytes = c->paper_avg_bytes;
			c->model = "ratio";
			ph->avg_lo += c->avg_bytes;
			ph->avg_hi += c->avg_bytes;
		}
		ph->peak_bytes += c->peak_bytes;
		ph->peak_lo += c->peak_lo;
		ph->peak_hi += c->peak_hi;
		ph->avg_bytes += c->avg_bytes;
		ph->paper_peak_bytes += c->paper_peak_bytes;
		ph->paper_avg_bytes += c->paper_avg_bytes;
	}
	predict_curve(p, sel, n, x, yp, o, ph);
	for (size_t i = first; i < pr->n_classes; i++) {
		pr->classes[i].share =
		    ph->peak_bytes > 0 ? pr->classes[i].peak_bytes / ph->peak_bytes : 0;
	}
free_arrays:
	free(x);
	free(yp);
	free(ya);
	g_ptr_array_free(names, TRUE);
	return rc;
}

/* Within a phase: the biggest predicted peak first. */
static int by_peak_desc(const void *a, const void *b)
{
	const struct mp_class_prediction *x = a, *y = b;

	return (x->peak_bytes < y->peak_bytes) - (x->peak_bytes > y->peak_bytes);
}

/* Known class names for the message of an unknown basis: the biggest few. */
static void hint_classes(const struct mp_profile *p, char *buf, size_t len)
{
	size_t used = 0, shown = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->n_sets && shown < 5; i++) {
		for (size_t j = 0; j < p->sets[i].n_classes && shown < 5; j++) {
			const char *name = p->sets[i].classes[j].name;
			int w;

			if (strstr(buf, name)) {
				continue;
			}
			w = snprintf(buf + used, len - used, "%s\"%s\"", shown ? ", " : "", name);
			if (w < 0 || (size_t)w >= len - used) {
				return;
			}
			used += (size_t)w;
			shown++;
		}
	}
}

/* The prediction at o's count, without the runs (mp_predict, and each point of the curve). */
static int predict_at(const struct mp_profile *p, const struct mp_predict_options *o,
		      struct mp_prediction *out, struct dps_diag *diag)
{
	GPtrArray *phases = g_ptr_array_new();
	size_t *sel = NULL;
	bool known = false, all_timed = true;
	double share_sum = 0, paper_sum = 0;
	int rc = DPS_OK;

	memset(out, 0, sizeof(*out));
	if (!p->n_sets) {
		dps_diag_setf(diag, "the profile has no data set");
		rc = DPS_ERR_INVAL;
		goto free_phases;
	}
	if (!(o->count > 0) || !isfinite(o->count)) {
		dps_diag_setf(diag, "--count %g: expected a number of basis objects > 0", o->count);
		rc = DPS_ERR_INVAL;
		goto free_phases;
	}
	for (size_t i = 0; i < p->n_sets && o->by_size; i++) {
		if (p->sets[i].size < 0) {
			dps_diag_setf(diag,
				      "run %s has no input size: give --size to dps memory "
				      "profile, or call dps_mem_size() in the program",
				      p->sets[i].run);
			rc = DPS_ERR_INVAL;
			goto free_phases;
		}
	}
	for (size_t i = 0; i < p->n_sets && !known; i++) {
		known = o->by_size || mp_dataset_find_class(&p->sets[i], o->basis) != NULL;
	}
	if (!known) {
		char hint[600];

		hint_classes(p, hint, sizeof(hint));
		dps_diag_setf(diag,
			      "unknown basis class \"%s\": no data set of the profile has it "
			      "(classes are, for example: %s)",
			      o->basis, hint);
		rc = DPS_ERR_INVAL;
		goto free_phases;
	}
	out->basis = strdup(o->by_size ? "input size" : o->basis);
	out->count = o->count;
	sel = calloc(p->n_sets, sizeof(*sel));
	if (!out->basis || !sel) {
		rc = DPS_ERR_NOMEM;
		goto free_phases;
	}
	/* phase names in order of first appearance */
	for (size_t i = 0; i < p->n_sets; i++) {
		bool seen = false;

		for (guint j = 0; j < phases->len && !seen; j++) {
			seen = !strcmp(phases->pdata[j], p->sets[i].phase);
		}
		if (!seen) {
			g_ptr_array_add(phases, p->sets[i].phase);
		}
	}
	out->phases = calloc(phases->len, sizeof(*out->phases));
	if (!out->phases) {
		rc = DPS_ERR_NOMEM;
		goto free_phases;
	}
	for (guint j = 0; j < phases->len; j++) {
		struct mp_phase_prediction *ph = &out->phases[j];
		size_t n = 0, first = out->n_classes;

		for (size_t i = 0; i < p->n_sets; i++) {
			if (!strcmp(p->sets[i].phase, phases->pdata[j])) {
				sel[n++] = i;
			}
		}
		ph->name = strdup(phases->pdata[j]);
		out->n_phases++;
		if (!ph->name) {
			rc = DPS_ERR_NOMEM;
			goto free_phases;
		}
		rc = predict_phase(p, sel, n, o, out, ph);
		if (rc) {
			goto free_phases;
		}
		qsort(out->classes + first, out->n_classes - first, sizeof(*out->classes),
		      by_peak_desc);
		if (ph->peak_bytes > out->peak_bytes) {
			out->peak_bytes = ph->peak_bytes;
		}
		out->peak_lo = ph->peak_lo > out->peak_lo ? ph->peak_lo : out->peak_lo;
		out->peak_hi = ph->peak_hi > out->peak_hi ? ph->peak_hi : out->peak_hi;
		if (ph->paper_peak_bytes > out->paper_peak_bytes) {
			out->paper_peak_bytes = ph->paper_peak_bytes;
		}
		all_timed = all_timed && ph->duration_ns >= 0;
	}
	/* the program's average: the phases' weighed by their predicted time, or (a phase
	 * without a fit) by their mean share of the runs' time */
	for (size_t j = 0; j < out->n_phases; j++) {
		const struct mp_phase_prediction *ph = &out->phases[j];
		double w = all_timed ? ph->duration_ns : ph->duration_share;

		out->avg_bytes += ph->avg_bytes * w;
		out->avg_lo += ph->avg_lo * w;
		out->avg_hi += ph->avg_hi * w;
		out->paper_avg_bytes += ph->paper_avg_bytes * ph->duration_share;
		share_sum += w;
		paper_sum += ph->duration_share;
	}
	if (share_sum > 0) {
		out->avg_bytes /= share_sum;
		out->avg_lo /= share_sum;
		out->avg_hi /= share_sum;
	}
	if (paper_sum > 0) {
		out->paper_avg_bytes /= paper_sum;
	}
free_phases:
	free(sel);
	g_ptr_array_free(phases, TRUE);
	if (rc) {
		mp_prediction_fini(out);
	}
	return rc;
}

static int by_x(const void *a, const void *b)
{
	const struct mp_run_peak *x = a, *y = b;

	return (x->x > y->x) - (x->x < y->x);
}

/* The profile's runs into pr->runs: each one's basis count, its highest phase peak, its
 * command; by basis count. */
static int add_runs(const struct mp_profile *p, const struct mp_predict_options *o,
		    struct mp_prediction *pr)
{
	pr->runs = calloc(p->n_sets ? p->n_sets : 1, sizeof(*pr->runs));
	if (!pr->runs) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < p->n_sets; i++) {
		const struct mp_dataset *d = &p->sets[i];
		struct mp_run_peak *r = NULL;

		for (size_t k = 0; k < pr->n_runs && !r; k++) {
			r = strcmp(pr->runs[k].run, d->run) ? NULL : &pr->runs[k];
		}
		if (!r) {
			r = &pr->runs[pr->n_runs++];
			r->run = strdup(d->run);
			r->command = d->command ? strdup(d->command) : NULL;
			r->x = run_basis(p, d, o);
			if (!r->run || (d->command && !r->command)) {
				return DPS_ERR_NOMEM;
			}
		}
		r->peak_bytes = fmax(r->peak_bytes, (double)d->peak_bytes);
	}
	qsort(pr->runs, pr->n_runs, sizeof(*pr->runs), by_x);
	return DPS_OK;
}

int mp_predict(const struct mp_profile *p, const struct mp_predict_options *o,
	       struct mp_prediction *out, struct dps_diag *diag)
{
	int rc = predict_at(p, o, out, diag);

	if (!rc && o->source) {
		out->source = strdup(o->source);
		rc = out->source ? DPS_OK : DPS_ERR_NOMEM;
	}
	rc = rc ? rc : add_runs(p, o, out);
	if (rc == DPS_ERR_NOMEM) {
		dps_diag_setf(diag, "out of memory");
		mp_prediction_fini(out);
	}
	return rc;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int mp_prediction_add_curve(struct mp_prediction *pr, const struct mp_profile *p,
			    const struct mp_predict_options *o, struct dps_diag *diag)
{
	size_t cap = MP_CURVE_POINTS + pr->n_runs + 1, n = 0, m = 0;
	double top = pr->count, *xs = calloc(cap, sizeof(*xs)), *ys = calloc(cap, sizeof(*ys));
	int rc = DPS_OK;

	if (!xs || !ys) {
		rc = DPS_ERR_NOMEM;
		goto free_xy;
	}
	for (size_t k = 0; k < pr->n_runs; k++) {
		top = fmax(top, pr->runs[k].x);
		if (pr->runs[k].x > 0) {
			xs[n++] = pr->runs[k].x;
		}
	}
	xs[n++] = pr->count;
	for (size_t i = 1; i <= MP_CURVE_POINTS; i++) {
		xs[n++] = top * (double)i / MP_CURVE_POINTS;
	}
	qsort(xs, n, sizeof(*xs), compare_double);
	for (size_t i = 0; i < n && !rc; i++) {
		struct mp_predict_options at = *o;
		struct mp_prediction q;

		if (m && xs[i] == xs[m - 1]) {
			continue;
		}
		at.count = xs[i];
		at.source = NULL;
		rc = predict_at(p, &at, &q, diag);
		if (!rc) {
			xs[m] = xs[i];
			ys[m++] = q.peak_bytes;
			mp_prediction_fini(&q);
		}
	}
	if (!rc) {
		free(pr->curve_x);
		free(pr->curve_peak);
		pr->curve_x = xs;
		pr->curve_peak = ys;
		pr->n_curve = m;
		return DPS_OK;
	}
free_xy:
	if (rc == DPS_ERR_NOMEM) {
		dps_diag_setf(diag, "out of memory");
	}
	free(xs);
	free(ys);
	return rc;
}

void mp_prediction_fini(struct mp_prediction *pr)
{
	for (size_t i = 0; i < pr->n_phases; i++) {
		free(pr->phases[i].name);
	}
	for (size_t i = 0; i < pr->n_runs; i++) {
		free(pr->runs[i].run);
		free(pr->runs[i].command);
	}
	free(pr->runs);
	free(pr->curve_x);
	free(pr->curve_peak);
	free(pr->source);
	for (size_t i = 0; i < pr->n_classes; i++) {
		free(pr->classes[i].phase);
		free(pr->classes[i].name);
	}
	free(pr->phases);
	free(pr->classes);
	free(pr->basis);
	memset(pr, 0, sizeof(*pr));
}
