/* SPDX-License-Identifier: MIT */
/*
 * The reading of a busy CPU stub sweep (the CPU stub paper, section III.B step 6, Figures 4-5):
 * t_SUT as a function of t_PSF is either a line (a total bottleneck), flat then rising from a
 * knee t_limit (a limited bottleneck), or flat over the whole sweep (no bottleneck in it).
 *
 * Pure C on arrays, no I/O: the sweep driver feeds it the medians of its points, and the tests
 * feed it synthetic curves. The model is a continuous hinge, y = a + b * max(0, x - k), fitted by
 * least squares for every knee k on a fine grid (for a given k it is linear in a and b); k at
 * the sweep's start is the straight line. The decisions compare the rise and the hinge's gain
 * over the line with the noise: the repetitions' spread when given, else the residuals.
 */
#ifndef DPS_WHATIF_FIT_H
#define DPS_WHATIF_FIT_H

#include <stdbool.h>
#include <stddef.h>

enum whatif_kind {
	WHATIF_KIND_UNCLEAR = 0, /* the fit refused: too few points, or no knee it can locate */
	WHATIF_KIND_TOTAL = 1,	 /* t_SUT rises with t_PSF from the start (Figure 4a) */
	WHATIF_KIND_LIMITED = 2, /* flat at t_min up to t_limit, rising after it (Figure 5) */
	WHATIF_KIND_NONE = 3,	 /* flat over the whole sweep (Figure 4b, t_limit beyond it) */
};

/* "unclear", "total", "limited", "none". */
const char *whatif_kind_name(enum whatif_kind kind);

/* The fewest distinct t_PSF values the fit reads a curve from. */
#define WHATIF_FIT_MIN_POINTS 4

struct whatif_fit {
	enum whatif_kind kind;
	bool knee;	   /* t_limit and its bounds hold a located knee (limited only) */
	double t_min;	   /* limited, none: the flat level; total: the line at the sweep's start */
	double t_limit;	   /* the knee, ns of t_PSF (knee only) */
	double t_limit_lo; /* the knees that fit about as well as the best one (within two */
	double t_limit_hi; /*   standard errors): how well the data place it (knee only) */
	double slope;	   /* dy/dx of the rising part (total, none: of the line) */
	double x0;	   /* the sweep's start (where total's t_min is read) */
	double rms;	   /* residual root mean square of the model kept, ns */
	double rel_err;	   /* rms / mean y */
	double noise;	   /* the noise level the decisions used, ns */
	char reason[200];  /* one sentence: why this kind, or why the fit refused */
};

/*
 * Fits the n points (x[i], y[i]) (ns: t_PSF ascending, distinct; t_SUT the medians of the
 * repetitions; the reasons print them as ms),
 * spread[i] the spread of point i's repetitions, a standard deviation (NULL: unknown), and
 * classifies the curve
 * into *fit. Returns 0, or -22 (errno EINVAL's value) when n is 0, an array is NULL, a value is
 * not finite or x does not ascend; *fit is then filled with kind UNCLEAR and the reason. Too
 * few points or a knee the data cannot place are not errors: kind UNCLEAR, reason says which.
 */
int whatif_fit_curve(const double *x, const double *y, const double *spread, size_t n,
		     struct whatif_fit *fit);

/*
 * As whatif_fit_curve, then, when some points ran under load (loaded[i], NULL: none), the
 * answer must not rest on one of them: a loaded point is delayed by the other programs in all
 * its repetitions alike, which their spread does not show. Each loaded point is left out in
 * turn (while WHATIF_FIT_MIN_POINTS remain); when the curve without it reads as another kind,
 * or as a knee more than a quarter of the sweep away, *fit is refused (UNCLEAR) with the
 * reason naming the point.
 */
int whatif_fit_curve_loaded(const double *x, const double *y, const double *spread,
			    const bool *loaded, size_t n, struct whatif_fit *fit);

/* The fitted model's value at x (the hinge, or the line). */
double whatif_fit_eval(const struct whatif_fit *fit, double x);

#endif /* DPS_WHATIF_FIT_H */
