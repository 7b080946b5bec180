/* SPDX-License-Identifier: MIT */
/* Quantiles of measurements (clock.h), for the calibrations and the memory stub. */
#include <stdlib.h>

#include "clock.h"

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double dps__quantile(double *v, size_t n, double q)
{
	size_t k;

	if (!n) {
		return 0;
	}
	qsort(v, n, sizeof(*v), compare_double);
	k = (size_t)(q * (double)(n - 1) + 0.5);
	return v[k < n ? k : n - 1];
}

double dps__median(double *v, size_t n)
{
	if (!n) {
		return 0;
	}
	qsort(v, n, sizeof(*v), compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
