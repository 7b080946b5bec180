/* SPDX-License-Identifier: MIT */
/*
 * The two-segment fit (whatif/fit.h) on synthetic curves whose answer is known: a line (total),
 * a flat part then a line (limited, the knee where they meet), a flat curve (none), the same
 * with noise, and the curves it must refuse (too few points, noise over the whole rise, a knee
 * at the sweep's end, bad input).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fit.h"

#define MS 1e6
#define N 16

/* x = 0, 4, ... 60 ms: the default sweep (0 to 1.5 by 0.1) of a 40 ms component. */
static void sweep_x(double *x)
{
	for (int i = 0; i < N; i++) {
		x[i] = 4 * MS * i;
	}
}

/* Deterministic noise in [-1, 1] (a fixed LCG: the tests do not depend on rand()). */
static double noise(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return ((double)((*state >> 8) & 0xffff) / 0x7fff) - 1.0;
}

Test(fit, a_line_is_a_total_bottleneck)
{
	double x[N], y[N];
	struct whatif_fit f;

	sweep_x(x);
	for (int i = 0; i < N; i++) {
		y[i] = 10 * MS + 0.98 * x[i];
	}
	cr_assert_eq(whatif_fit_curve(x, y, NULL, N, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_TOTAL, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_expect(!f.knee);
	cr_expect_float_eq(f.slope, 0.98, 1e-6);
	cr_expect_float_eq(f.t_min, 10 * MS, 1e3);
	cr_expect_float_eq(whatif_fit_eval(&f, 20 * MS), 10 * MS + 0.98 * 20 * MS, 1e3);
	cr_expect_lt(f.rms, 1.0, "an exact line fits exactly");
}

Test(fit, flat_then_rising_is_limited_with_the_knee_where_they_meet)
{
	double x[N], y[N];
	struct whatif_fit f;

	sweep_x(x);
	for (int i = 0; i < N; i++) {
		y[i] = 5 * MS + fmax(22 * MS, x[i]);
	}
	cr_assert_eq(whatif_fit_curve(x, y, NULL, N, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_LIMITED, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_expect(f.knee);
	/* between two sweep points: the fit places the knee between them, not on one */
	cr_expect_float_eq(f.t_limit, 22 * MS, 0.2 * MS, "knee %.3f ms", f.t_limit / MS);
	cr_expect_float_eq(f.t_min, 27 * MS, 0.05 * MS);
	cr_expect_float_eq(f.slope, 1.0, 0.01);
	cr_expect_leq(f.t_limit_lo, f.t_limit);
	cr_expect_geq(f.t_limit_hi, f.t_limit);
	cr_expect_float_eq(whatif_fit_eval(&f, 0), 27 * MS, 0.05 * MS);
	cr_expect_float_eq(whatif_fit_eval(&f, 60 * MS), 65 * MS, 0.2 * MS);
}

Test(fit, a_flat_curve_is_no_bottleneck)
{
	double x[N], y[N], spread[N];
	unsigned st = 7;
	struct whatif_fit f;

	sweep_x(x);
	for (int i = 0; i < N; i++) {
		y[i] = 80 * MS + 0.1 * MS * noise(&st);
		spread[i] = 0.2 * MS;
	}
	cr_assert_eq(whatif_fit_curve(x, y, spread, N, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_NONE, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_expect(!f.knee);
	cr_expect_float_eq(f.t_min, 80 * MS, 0.1 * MS);
	cr_expect_float_eq(f.noise, 0.2 * MS, 1, "the spread's median is the noise");
}

Test(fit, a_gentle_slope_out_of_the_noise_is_still_none)
{
	double x[N], y[N];
	struct whatif_fit f;

	sweep_x(x);
	for (int i = 0; i < N; i++) {
		y[i] = 80 * MS + 0.01 * x[i]; /* 0.01 ns per ns: a thread that barely matters */
	}
	cr_assert_eq(whatif_fit_curve(x, y, NULL, N, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_NONE, "%s: %s", whatif_kind_name(f.kind), f.reason);
}

Test(fit, a_noisy_knee_is_found_within_a_step)
{
	double x[N], y[N], spread[N];
	struct whatif_fit f;

	for (unsigned seed = 1; seed <= 20; seed++) {
		unsigned st = seed;

		sweep_x(x);
		for (int i = 0; i < N; i++) {
			/* noise 2.5 % of the level, as a busy 2-core machine gives */
			y[i] = 5 * MS + fmax(20 * MS, x[i]) + 0.6 * MS * noise(&st);
			spread[i] = 0.6 * MS;
		}
		cr_assert_eq(whatif_fit_curve(x, y, spread, N, &f), 0);
		cr_expect_eq(f.kind, WHATIF_KIND_LIMITED, "seed %u: %s: %s", seed,
			     whatif_kind_name(f.kind), f.reason);
		cr_expect_float_eq(f.t_limit, 20 * MS, 4 * MS, "seed %u: knee %.3f ms", seed,
				   f.t_limit / MS);
		cr_expect(f.t_limit_lo <= 20 * MS + 1e-6 * MS || f.t_limit_hi >= 20 * MS,
			  "the band is about the knee");
		cr_expect_gt(f.rms, 0);
	}
}

Test(fit, a_noisy_line_stays_total)
{
	double x[N], y[N], spread[N];
	struct whatif_fit f;

	for (unsigned seed = 1; seed <= 20; seed++) {
		unsigned st = seed;

		sweep_x(x);
		for (int i = 0; i < N; i++) {
			y[i] = 10 * MS + x[i] + 0.8 * MS * noise(&st);
			spread[i] = 0.8 * MS;
		}
		cr_assert_eq(whatif_fit_curve(x, y, spread, N, &f), 0);
		cr_expect_eq(f.kind, WHATIF_KIND_TOTAL, "seed %u: %s: %s", seed,
			     whatif_kind_name(f.kind), f.reason);
	}
}

Test(fit, a_line_in_noise_that_could_hide_a_knee_is_refused)
{
	double x[N], y[N], spread[N];
	unsigned st = 5;
	struct whatif_fit f;

	sweep_x(x);
	for (int i = 0; i < N; i++) {
		y[i] = 30 * MS + x[i] + 12 * MS * noise(&st);
		spread[i] = 12 * MS;
	}
	cr_assert_eq(whatif_fit_curve(x, y, spread, N, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_UNCLEAR, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_expect(strstr(f.reason, "noise"), "%s", f.reason);
}

Test(fit, too_few_points_are_refused)
{
	double x[3] = {0, 10 * MS, 20 * MS}, y[3] = {30 * MS, 30 * MS, 40 * MS};
	struct whatif_fit f;

	cr_assert_eq(whatif_fit_curve(x, y, NULL, 3, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_UNCLEAR);
	cr_expect(!f.knee);
	cr_expect(strstr(f.reason, "too few points"), "%s", f.reason);
}

Test(fit, noise_over_the_whole_rise_is_refused_not_called_flat)
{
	double x[N], y[N], spread[N];
	unsigned st = 3;
	struct whatif_fit f;

	for (int i = 0; i < N; i++) {
		x[i] = 0.4 * MS * i; /* a 4 ms component swept to 1.5 */
		y[i] = 50 * MS + 8 * MS * noise(&st);
		spread[i] = 8 * MS;
	}
	cr_assert_eq(whatif_fit_curve(x, y, spread, N, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_UNCLEAR, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_expect(strstr(f.reason, "noise"), "%s", f.reason);
}

Test(fit, a_knee_at_the_last_point_is_refused)
{
	double x[N], y[N];
	struct whatif_fit f;

	sweep_x(x);
	for (int i = 0; i < N; i++) {
		y[i] = i < N - 1 ? 30 * MS : 45 * MS;
	}
	cr_assert_eq(whatif_fit_curve(x, y, NULL, N, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_UNCLEAR, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_expect(strstr(f.reason, "--to"), "%s", f.reason);
}

Test(fit, bad_input_is_an_error)
{
	double x[4] = {0, 2, 1, 3}, y[4] = {1, 1, 1, 1}, z[4] = {0, 1, NAN, 3};
	struct whatif_fit f;

	cr_expect_eq(whatif_fit_curve(x, y, NULL, 4, &f), -22, "x must ascend");
	cr_expect_eq(f.kind, WHATIF_KIND_UNCLEAR);
	cr_expect_eq(whatif_fit_curve(z, y, NULL, 4, &f), -22, "not finite");
	cr_expect_eq(whatif_fit_curve(NULL, y, NULL, 4, &f), -22);
	cr_expect_eq(whatif_fit_curve(x, y, NULL, 0, &f), -22);
	cr_expect_str_eq(whatif_kind_name(WHATIF_KIND_LIMITED), "limited");
	cr_expect_str_eq(whatif_kind_name(WHATIF_KIND_NONE), "none");
	cr_expect_str_eq(whatif_kind_name(WHATIF_KIND_TOTAL), "total");
	cr_expect_str_eq(whatif_kind_name(WHATIF_KIND_UNCLEAR), "unclear");
}

/*
 * A line (sets/two's long thread timed over its own run: 20 to 60 ms) whose first point ran
 * under load in both repetitions alike (their spread small): read as a knee on its own, refused
 * when that point is marked loaded, kept when another point is (the answer does not rest on it).
 */
Test(fit, a_knee_that_rests_on_a_loaded_point_is_refused)
{
	double x[5] = {20 * MS, 30 * MS, 40 * MS, 50 * MS, 60 * MS};
	double y[5] = {30 * MS, 30 * MS, 40 * MS, 50 * MS, 60 * MS};
	double spread[5] = {0.1 * MS, 0.1 * MS, 0.1 * MS, 0.1 * MS, 0.1 * MS};
	bool first[5] = {true, false, false, false, false};
	bool last[5] = {false, false, false, false, true};
	struct whatif_fit f;

	cr_assert_eq(whatif_fit_curve(x, y, spread, 5, &f), 0);
	cr_assert_eq(f.kind, WHATIF_KIND_LIMITED, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_assert_eq(whatif_fit_curve_loaded(x, y, spread, last, 5, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_LIMITED, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_assert_eq(whatif_fit_curve_loaded(x, y, spread, first, 5, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_UNCLEAR, "%s: %s", whatif_kind_name(f.kind), f.reason);
	cr_expect(!f.knee);
	cr_expect(strstr(f.reason, "t_PSF 20 ms, which ran under load"), "%s", f.reason);
	cr_expect(strstr(f.reason, "reads as total"), "%s", f.reason);
	/* none loaded: the plain fit */
	cr_assert_eq(whatif_fit_curve_loaded(x, y, spread, NULL, 5, &f), 0);
	cr_expect_eq(f.kind, WHATIF_KIND_LIMITED);
}
