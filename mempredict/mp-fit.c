/* SPDX-License-Identifier: MIT */
/* Growth models and their choice by leave-one-out cross-validation (mp-fit.h). */
#include <math.h>
#include <stdlib.h>

#include "mp-fit.h"

const char *mp_model_name(enum mp_model m)
{
	static const char *const names[MP_N_MODELS + 1] = {"constant",	"linear", "nlogn",
							   "quadratic", "power",  "doubling"};

	return m <= MP_MODEL_DOUBLING ? names[m] : "?";
}

/* The model's term in x: y = a + b g(x). */
static double term(enum mp_model m, double x)
{
	switch (m) {
	case MP_MODEL_LINEAR:
		return x;
	case MP_MODEL_NLOGN:
		return x > 0 ? x * log(x) : 0;
	case MP_MODEL_QUADRATIC:
		return x * x;
	default:
		return 0;
	}
}

/* Least squares of v on u: v = a + b u. False when u does not vary. */
static bool line_fit(const double *u, const double *v, size_t n, double *a, double *b)
{
	double su = 0, sv = 0, suu = 0, suv = 0, mu, mv, var;

	for (size_t i = 0; i < n; i++) {
		su += u[i];
		sv += v[i];
	}
	mu = su / (double)n;
	mv = sv / (double)n;
	for (size_t i = 0; i < n; i++) {
		suu += (u[i] - mu) * (u[i] - mu);
		suv += (u[i] - mu) * (v[i] - mv);
	}
	var = suu / (double)n;
	/* a relative test: x ln x of large counts is ~1e12 */
	if (n < 2 || !(var > 1e-18 * (mu * mu + 1e-300))) {
		return false;
	}
	*b = suv / suu;
	*a = mv - *b * mu;
	return true;
}

/* The odd part of a whole y > 0 (below 2^53), or 0 when y is not such a number. */
static double odd_part(double y)
{
	if (!(y >= 1 && y < 9007199254740992.0) || y != floor(y)) {
		return 0;
	}
	while (fmod(y, 2) == 0) {
		y /= 2;
	}
	return y;
}

/* Whether the points are u times powers of two for one odd u, at least two distinct, never
 * falling as x grows: the sizes of a container that doubles. */
static bool doubling_shape(const double *x, const double *y, size_t n, double *unit)
{
	bool distinct = false;

	*unit = n ? odd_part(y[0]) : 0;
	for (size_t i = 0; i<n && * unit> 0; i++) {
		if (odd_part(y[i]) != *unit) {
			return false;
		}
		distinct = distinct || y[i] != y[0];
		for (size_t j = 0; j < n; j++) {
			if (x[j] < x[i] && y[j] > y[i]) {
				return false;
			}
		}
	}
	return *unit > 0 && distinct;
}

bool mp_fit_model(enum mp_model m, const double *x, const double *y, size_t n, struct mp_fit *f)
{
	double *u, *v, unit = 0;
	bool ok = true;

	if (!n) {
		return false;
	}
	f->model = m;
	f->a = f->b = f->unit = 0;
	if (m == MP_MODEL_DOUBLING) {
		/* the power law through the steps, snapped up to a step by mp_fit_eval; with
		 * every point on one step it is a constant, whatever the shape says */
		if (!doubling_shape(x, y, n, &unit) || !mp_fit_model(MP_MODEL_POWER, x, y, n, f)) {
			return false;
		}
		f->model = MP_MODEL_DOUBLING;
		f->unit = unit;
		return true;
	}
	if (m == MP_MODEL_CONSTANT) {
		for (size_t i = 0; i < n; i++) {
			f->a += y[i];
		}
		f->a /= (double)n;
		return true;
	}
	u = malloc(n * sizeof(*u));
	v = malloc(n * sizeof(*v));
	if (!u || !v) {
		ok = false;
		goto free_uv;
	}
	for (size_t i = 0; i < n && ok; i++) {
		if (m == MP_MODEL_POWER) {
			ok = x[i] > 0 && y[i] > 0;
			u[i] = ok ? log(x[i]) : 0;
			v[i] = ok ? log(y[i]) : 0;
		} else {
			u[i] = term(m, x[i]);
			v[i] = y[i];
		}
	}
	ok = ok && line_fit(u, v, n, &f->a, &f->b);
	if (ok && m == MP_MODEL_POWER) {
		f->a = exp(f->a);
	}
free_uv:
	free(u);
	free(v);
	return ok;
}

double mp_fit_eval(const struct mp_fit *f, double x)
{
	double y;

	if (f->model == MP_MODEL_POWER || f->model == MP_MODEL_DOUBLING) {
		y = x > 0 ? f->a * pow(x, f->b) : 0;
		if (f->model == MP_MODEL_DOUBLING && y > 0 && f->unit > 0) {
			/* the smallest step at or above the law (a step within 1e-6 of it: the law
			 * itself, not the next one up) */
			y = f->unit * exp2(ceil(log2(y / f->unit) - 1e-6));
		}
	} else {
		y = f->a + f->b * term(f->model, x);
	}
	return y > 0 && isfinite(y) ? y : 0;
}

/* The scale below which an error is not relative: a class that is 0 in one data set. */
static double floor_of(const double *y, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++) {
		m = fabs(y[i]) > m ? fabs(y[i]) : m;
	}
	return m * 1e-3 > 1 ? m * 1e-3 : 1;
}

/* The fit of m without point k; false when it cannot be made. */
static bool fit_without(enum mp_model m, const double *x, const double *y, size_t n, size_t k,
			double *xs, double *ys, struct mp_fit *f)
{
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		if (i != k) {
			xs[j] = x[i];
			ys[j++] = y[i];
		}
	}
	return mp_fit_model(m, xs, ys, j, f);
}

double mp_fit_cv_error(enum mp_model m, const double *x, const double *y, size_t n)
{
	double *xs, *ys, err = 0, fl = floor_of(y, n);
	struct mp_fit f;

	if (n < 3) {
		return INFINITY;
	}
	xs = malloc(n * sizeof(*xs));
	ys = malloc(n * sizeof(*ys));
	if (!xs || !ys) {
		err = INFINITY;
		goto free_xy;
	}
	for (size_t k = 0; k < n; k++) {
		double p, d;

		if (!fit_without(m, x, y, n, k, xs, ys, &f)) {
			err = INFINITY;
			goto free_xy;
		}
		p = mp_fit_eval(&f, x[k]);
		d = fabs(y[k]) > fl ? fabs(y[k]) : fl;
		err += fabs(p - y[k]) / d;
	}
	err /= (double)n;
free_xy:
	free(xs);
	free(ys);
	return err;
}

static size_t distinct(const double *x, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++) {
			seen = x[j] == x[i];
		}
		k += !seen;
	}
	return k;
}

static void widen(struct mp_choice *c, double v)
{
	c->lo = v < c->lo ? v : c->lo;
	c->hi = v > c->hi ? v : c->hi;
}

/* c's value, error and range for model pick (err: every model's cross-validation error, or
 * NULL: no model but pick is near it). */
static bool finish_choice(enum mp_model pick, const double *err, double best, const double *x,
			  const double *y, size_t n, double at, struct mp_choice *c)
{
	double *xs, *ys;
	bool ok = true;

	if (!mp_fit_model(pick, x, y, n, &c->fit)) {
		return false;
	}
	c->cv_error = err ? err[pick] : mp_fit_cv_error(pick, x, y, n);
	c->value = c->lo = c->hi = mp_fit_eval(&c->fit, at);
	if (pick == MP_MODEL_DOUBLING && c->value > 0) {
		widen(c, c->value / 2); /* the step below */
	}
	xs = malloc(n * sizeof(*xs));
	ys = malloc(n * sizeof(*ys));
	if (!xs || !ys) {
		ok = false;
		goto free_xy;
	}
	/* the spread across data sets: the chosen model fitted without each one */
	for (size_t k = 0; k < n; k++) {
		struct mp_fit f;

		if (fit_without(pick, x, y, n, k, xs, ys, &f)) {
			widen(c, mp_fit_eval(&f, at));
		}
	}
	/* and across models: those nearly as good */
	for (int m = 0; err && m < MP_N_MODELS; m++) {
		struct mp_fit f;

		if (m != (int)pick && err[m] <= best * 1.5 + 0.01 &&
		    mp_fit_model((enum mp_model)m, x, y, n, &f)) {
			widen(c, mp_fit_eval(&f, at));
		}
	}
free_xy:
	free(xs);
	free(ys);
	return ok;
}

bool mp_fit_choose(const double *x, const double *y, size_t n, double at, struct mp_choice *c)
{
	double err[MP_N_MODELS], best = INFINITY;
	enum mp_model pick = MP_N_MODELS;

	if (n < 3 || distinct(x, n) < 3) {
		return false;
	}
	for (int m = 0; m < MP_N_MODELS; m++) {
		err[m] = mp_fit_cv_error((enum mp_model)m, x, y, n);
		best = err[m] < best ? err[m] : best;
	}
	if (!isfinite(best)) {
		return false;
	}
	/* the simplest model within 5 % of the best: the models are in order of complexity */
	for (int m = 0; m < MP_N_MODELS && pick == MP_N_MODELS; m++) {
		if (err[m] <= best * 1.05 + 1e-9) {
			pick = (enum mp_model)m;
		}
	}
	return finish_choice(pick, err, best, x, y, n, at, c);
}

bool mp_fit_choose_model(enum mp_model m, const double *x, const double *y, size_t n, double at,
			 struct mp_choice *c)
{
	if (n < 3 || distinct(x, n) < 3) {
		return false;
	}
	return finish_choice(m, NULL, 0, x, y, n, at, c);
}
