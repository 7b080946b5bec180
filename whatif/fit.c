/* SPDX-License-Identifier: MIT */
/* The two-segment fit of a busy CPU stub sweep (fit.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"

/* Knees tried between the first and the last x, besides the x values themselves. */
#define FIT_GRID 600
/* The hinge must beat the line by this F ratio (its SSE gain over the residual variance) to
 * count as a knee: about p < 0.005 for the sizes of a sweep, so noise does not make one. */
#define FIT_KNEE_F_MIN 12.0
/* Under this F ratio the best knee gains no more over the line than noise gives a knee
 * searched on a grid: the curve is a line. Between this and FIT_KNEE_F_MIN the fit cannot
 * tell. */
#define FIT_LINE_F_MAX 4.0
/* A rise smaller than this share of the t_PSF range is "flat": a thread whose every extra
 * nanosecond of CPU moves the end by less than 0.05 ns is not a bottleneck. */
#define FIT_FLAT_SLOPE 0.05
/* A flat answer needs noise (3 sigma) under this share of the t_PSF range, else a rise of a
 * quarter of the component's extra time could hide in it; a line needs it under this share of
 * its rise, else a knee could. */
#define FIT_NOISE_OF_RANGE_MAX 0.25
/* A line or a hinge explains the curve only when its residuals stay under this share of the
 * rise. */
#define FIT_RESIDUAL_OF_RISE_MAX (1.0 / 6)
/* A knee the data place only within this share of the t_PSF range is refused. */
#define FIT_KNEE_WIDTH_MAX 0.25

const char *whatif_kind_name(enum whatif_kind kind)
{
	switch (kind) {
	case WHATIF_KIND_TOTAL:
		return "total";
	case WHATIF_KIND_LIMITED:
		return "limited";
	case WHATIF_KIND_NONE:
		return "none";
	default:
		return "unclear";
	}
}

/* The least-squares hinge y = a + b * max(0, x - k) for one k; returns its SSE. */
static double fit_hinge(const double *x, const double *y, size_t n, double k, double *a, double *b)
{
	double su = 0, suu = 0, sy = 0, suy = 0, det, sse = 0;

	for (size_t i = 0; i < n; i++) {
		double u = x[i] > k ? x[i] - k : 0;

		su += u;
		suu += u * u;
		sy += y[i];
		suy += u * y[i];
	}
	det = (double)n * suu - su * su;
	if (det <= 1e-12 * (suu > 1 ? suu : 1) * (double)n) {
		*b = 0; /* nothing beyond k: the flat line */
		*a = sy / (double)n;
	} else {
		*b = ((double)n * suy - su * sy) / det;
		*a = (sy - *b * su) / (double)n;
	}
	for (size_t i = 0; i < n; i++) {
		double u = x[i] > k ? x[i] - k : 0;
		double r = y[i] - (*a + *b * u);

		sse += r * r;
	}
	return sse;
}

static int compare_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The median of n values (copied: the caller's order stays). */
static double median_of(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c));
	double m;

	if (!c) {
		return v[n / 2];
	}
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), compare_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

/* The knee candidate i of FIT_GRID + 1 + n: the grid, then the x values. */
static double knee_candidate(const double *x, size_t n, size_t i)
{
	if (i <= FIT_GRID) {
		return x[0] + (x[n - 1] - x[0]) * (double)i / FIT_GRID;
	}
	return x[i - FIT_GRID - 1];
}

static void refuse(struct whatif_fit *fit, const char *why)
{
	fit->kind = WHATIF_KIND_UNCLEAR;
	fit->knee = false;
	snprintf(fit->reason, sizeof(fit->reason), "%s", why);
}

int whatif_fit_curve_loaded(const double *x, const double *y, const double *spread,
			    const bool *loaded, size_t n, struct whatif_fit *fit)
{
	int rc = whatif_fit_curve(x, y, spread, n, fit);
	double *sx, *sy, *ss;

	if (rc || !loaded || fit->kind == WHATIF_KIND_UNCLEAR || n <= WHATIF_FIT_MIN_POINTS) {
		return rc;
	}
	sx = malloc(3 * n * sizeof(double));
	if (!sx) {
		return -12;
	}
	sy = sx + n;
	ss = sy + n;
	for (size_t i = 0; i < n; i++) {
		struct whatif_fit sub;
		size_t m = 0;
		bool moved;

		if (!loaded[i]) {
			continue;
		}
		for (size_t j = 0; j < n; j++) {
			if (j != i) {
				sx[m] = x[j];
				sy[m] = y[j];
				ss[m++] = spread ? spread[j] : 0;
			}
		}
		whatif_fit_curve(sx, sy, spread ? ss : NULL, m, &sub);
		if (sub.kind == WHATIF_KIND_UNCLEAR) {
			continue; /* without it the data cannot tell: not another answer */
		}
		moved = sub.kind == WHATIF_KIND_LIMITED && fit->kind == WHATIF_KIND_LIMITED &&
			fabs(sub.t_limit - fit->t_limit) > FIT_KNEE_WIDTH_MAX * (x[n - 1] - x[0]);
		if (sub.kind != fit->kind || moved) {
			char why[sizeof(fit->reason)];

			snprintf(
			    why, sizeof(why),
			    "the %s rests on the point at t_PSF %.3g ms, which ran under load: "
			    "without it the curve reads as %s%s (a quieter machine, "
			    "--wait-quiet)",
			    whatif_kind_name(fit->kind), x[i] / 1e6, whatif_kind_name(sub.kind),
			    moved ? " with its knee elsewhere" : "");
			refuse(fit, why);
			break;
		}
	}
	free(sx);
	return 0;
}

double whatif_fit_eval(const struct whatif_fit *fit, double x)
{
	switch (fit->kind) {
	case WHATIF_KIND_LIMITED:
		return fit->t_min + fit->slope * (x > fit->t_limit ? x - fit->t_limit : 0);
	case WHATIF_KIND_NONE:
		return fit->t_min;
	default:
		return fit->t_min + fit->slope * (x - fit->x0);
	}
}

int whatif_fit_curve(const double *x, const double *y, const double *spread, size_t n,
		     struct whatif_fit *fit)
{
	const size_t n_cand = FIT_GRID + 1 + n;
	double a_lin, b_lin, sse_lin, a_h = 0, b_h = 0, k_h = 0, sse_h = INFINITY;
	double noise, var, mean_y = 0, range, rise, lo, hi, f;
	size_t below = 0, above = 0;

	memset(fit, 0, sizeof(*fit));
	if (!x || !y || !n) {
		refuse(fit, "no points");
		return -22;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]) || (spread && !isfinite(spread[i])) ||
		    (i && x[i] <= x[i - 1])) {
			refuse(fit, "the points are not finite with t_PSF ascending");
			return -22;
		}
		mean_y += y[i] / (double)n;
	}
	fit->x0 = x[0];
	fit->t_min = mean_y;
	if (n < WHATIF_FIT_MIN_POINTS) {
		snprintf(fit->reason, sizeof(fit->reason),
			 "too few points to read a curve: %zu, the fit needs %d", n,
			 WHATIF_FIT_MIN_POINTS);
		fit->kind = WHATIF_KIND_UNCLEAR;
		return 0;
	}
	range = x[n - 1] - x[0];
	sse_lin = fit_hinge(x, y, n, x[0], &a_lin, &b_lin);
	for (size_t i = 0; i < n_cand; i++) {
		double k = knee_candidate(x, n, i), a, b, sse = fit_hinge(x, y, n, k, &a, &b);

		if (sse < sse_h) {
			sse_h = sse;
			a_h = a;
			b_h = b;
			k_h = k;
		}
	}
	/* The noise: the repetitions' spread (a median, so one bad point does not set it), never
	 * below 0.1 % of the level (the clocks and the scheduler are not better than that). */
	noise = spread ? median_of(spread, n) : 0;
	if (noise < 1e-3 * fabs(mean_y)) {
		noise = 1e-3 * fabs(mean_y);
	}
	var = sse_h / (double)(n - 3);
	if (var < noise * noise) {
		var = noise * noise;
	}
	fit->noise = noise;
	rise = b_h * (x[n - 1] - k_h);
	/* No rise that stands out of the noise: flat, if the noise is small enough that a rise
	 * that matters would have shown; else the noise hides the answer. */
	if (b_h <= 0 || (rise < 3 * sqrt(var) && b_lin * range < 3 * sqrt(var))) {
		if (3 * sqrt(var) > FIT_NOISE_OF_RANGE_MAX * range) {
			snprintf(fit->reason, sizeof(fit->reason),
				 "the noise (%.3g ms) hides whether t_SUT rises over the sweep's "
				 "%.3g ms of t_PSF (more --repeat, a quieter machine, a wider "
				 "sweep)",
				 sqrt(var) / 1e6, range / 1e6);
			fit->kind = WHATIF_KIND_UNCLEAR;
			fit->rms = sqrt(sse_h / (double)n);
			goto end;
		}
		goto flat;
	}
	/* A rise out of the noise, but one that does not matter against the t_PSF range. */
	if (rise < FIT_FLAT_SLOPE * range) {
		goto flat;
	}
	f = (sse_lin - sse_h) / var;
	for (size_t i = 0; i < n; i++) {
		below += x[i] <= k_h;
		above += x[i] > k_h;
	}
	/* Between the two: the knee might be there, the noise cannot tell it from a line. */
	if (below >= 2 && f >= FIT_LINE_F_MAX && f < FIT_KNEE_F_MIN) {
		snprintf(fit->reason, sizeof(fit->reason),
			 "the noise (%.3g ms) cannot tell a line from a knee near t_PSF %.3g ms "
			 "(more --repeat, a quieter machine)",
			 sqrt(var) / 1e6, k_h / 1e6);
		fit->kind = WHATIF_KIND_UNCLEAR;
		fit->rms = sqrt(sse_h / (double)n);
		goto end;
	}
	/* Total: the line explains the curve as well as any knee, or the knee has no flat part. */
	if (f < FIT_LINE_F_MAX || below < 2) {
		fit->kind = WHATIF_KIND_TOTAL;
		fit->t_min = a_lin;
		fit->slope = b_lin;
		fit->rms = sqrt(sse_lin / (double)n);
		if (3 * sqrt(var) > FIT_NOISE_OF_RANGE_MAX * b_lin * range) {
			snprintf(fit->reason, sizeof(fit->reason),
				 "t_SUT rises, but the noise (%.3g ms) could hide a knee in it "
				 "(more --repeat, a quieter machine)",
				 sqrt(var) / 1e6);
			fit->kind = WHATIF_KIND_UNCLEAR;
			goto end;
		}
		if (fit->rms > FIT_RESIDUAL_OF_RISE_MAX * b_lin * range) {
			refuse(fit, "t_SUT rises but is neither a line nor two segments (the "
				    "residuals are over a sixth of its rise)");
			goto end;
		}
		snprintf(fit->reason, sizeof(fit->reason),
			 "t_SUT rises with t_PSF from the start (slope %.2f); no knee stands out "
			 "of the noise",
			 b_lin);
		goto end;
	}
	/* Limited, if the knee can be placed: knees whose SSE is within two standard errors. */
	lo = hi = k_h;
	for (size_t i = 0; i < n_cand; i++) {
		double k = knee_candidate(x, n, i), a, b;

		if (fit_hinge(x, y, n, k, &a, &b) <= sse_h + 4 * var) {
			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
		}
	}
	fit->t_min = a_h;
	fit->slope = b_h;
	fit->t_limit = k_h;
	fit->t_limit_lo = lo;
	fit->t_limit_hi = hi;
	fit->rms = sqrt(sse_h / (double)n);
	if (above < 2) {
		refuse(fit, "the knee is at the sweep's last point: sweep further (--to) to see "
			    "t_SUT rise after it");
	} else if (fit->rms > FIT_RESIDUAL_OF_RISE_MAX * rise) {
		refuse(fit, "t_SUT is not two segments (the fit's residuals are over a sixth of "
			    "its rise): no knee located");
	} else if (hi - lo > FIT_KNEE_WIDTH_MAX * range) {
		refuse(fit, "the noise lets the knee sit anywhere over a quarter of the sweep: no "
			    "knee located (more --repeat, a quieter machine)");
	} else {
		fit->kind = WHATIF_KIND_LIMITED;
		fit->knee = true;
		snprintf(fit->reason, sizeof(fit->reason),
			 "t_SUT stays at its minimum up to the knee, then rises (slope %.2f)", b_h);
	}
	goto end;
flat:
	fit->kind = WHATIF_KIND_NONE;
	fit->t_min = mean_y;
	fit->slope = b_lin;
	/* a knee at the last point: the flat line, whose residuals these are */
	fit->rms = sqrt(fit_hinge(x, y, n, x[n - 1], &a_h, &b_h) / (double)n);
	snprintf(fit->reason, sizeof(fit->reason),
		 "t_SUT stays flat over the sweep: it moves by %.3g ms over %.3g ms of t_PSF",
		 rise > 0 ? rise / 1e6 : 0, range / 1e6);
end:
	fit->rel_err = mean_y != 0 ? fit->rms / fabs(mean_y) : 0;
	return 0;
}
