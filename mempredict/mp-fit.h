/* SPDX-License-Identifier: MIT */
/*
 * Growth models for memory prediction (mp-fit.c, pure C): a class's count or bytes y against the
 * basis count x, fitted by least squares with a few candidate shapes, the shape chosen by
 * leave-one-out cross-validation (each point predicted from the others: with three input sizes
 * that includes extrapolating from the two smaller ones to the largest).
 */
#ifndef DPS_MEMPREDICT_MP_FIT_H
#define DPS_MEMPREDICT_MP_FIT_H

#include <stdbool.h>
#include <stddef.h>

enum mp_model {
	MP_MODEL_CONSTANT,  /* y = a */
	MP_MODEL_LINEAR,    /* y = a + b x */
	MP_MODEL_NLOGN,	    /* y = a + b x ln x */
	MP_MODEL_QUADRATIC, /* y = a + b x^2 */
	MP_MODEL_POWER,	    /* y = a x^b (every y > 0) */
	MP_N_MODELS,	    /* the models above compete in cross-validation */
	/*
	 * y = u 2^ceil(log2(a x^b / u)): a container that doubles (a hash table's buckets, a
	 * buffer grown by doubling), its sizes u times powers of two. Not chosen by
	 * cross-validation (three step values cannot tell a step from a slope) but by the shape
	 * of the data: see mp_fit_model.
	 */
	MP_MODEL_DOUBLING = MP_N_MODELS,
};

struct mp_fit {
	enum mp_model model;
	double a, b;
	double unit; /* MP_MODEL_DOUBLING's u; 0 for the others */
};

/* The model's name ("constant", "linear", "nlogn", "quadratic", "power", "doubling"); static
 * storage. */
const char *mp_model_name(enum mp_model m);

/* Fits model m to the n points; false when it cannot (too few distinct points, a power law on
 * a y <= 0, a doubling on points that are not whole multiples of one odd unit u by powers of
 * two, with at least two distinct values, never falling as x grows). */
bool mp_fit_model(enum mp_model m, const double *x, const double *y, size_t n, struct mp_fit *f);
/* The fitted value at x, never below 0. */
double mp_fit_eval(const struct mp_fit *f, double x);
/* The mean relative error of predicting each point from the others (leave-one-out); INFINITY
 * when the model cannot be fitted on some subset. Needs n >= 3. */
double mp_fit_cv_error(enum mp_model m, const double *x, const double *y, size_t n);

struct mp_choice {
	struct mp_fit fit; /* on all points */
	double cv_error;
	double value;  /* at the asked x */
	double lo, hi; /* the range: the leave-one-out fits of the chosen model and the models
			* whose error is close to it, at the asked x */
};

/*
 * Chooses the model with the least leave-one-out error (a simpler model wins within 5 % of
 * it) and evaluates it at `at`. False when n < 3 or x has fewer than 3 distinct values.
 */
bool mp_fit_choose(const double *x, const double *y, size_t n, double at, struct mp_choice *c);
/* The same with the model given (MP_MODEL_DOUBLING's range also spans the step below the
 * value: the data cannot tell on which side of a doubling `at` falls). False when it cannot be
 * fitted. */
bool mp_fit_choose_model(enum mp_model m, const double *x, const double *y, size_t n, double at,
			 struct mp_choice *c);

#endif /* DPS_MEMPREDICT_MP_FIT_H */
