/* SPDX-License-Identifier: MIT */
/*
 * dps whatif's two-segment fit (whatif/fit.h) on any curve, for bench/whatif-sync.sh: the real
 * program's sweep is read with the very fit that reads dps's prediction, so "the knee of the
 * real curve" and "the knee found by dps" mean the same thing.
 *
 * Usage: dps-sync-fit-curve < POINTS
 * POINTS: one line per point, "X Y SPREAD" (ns: t_PSF ascending, the median t_SUT, the spread
 * of its runs as a standard deviation, or "-" on every line when unknown). Prints one JSON
 * object: kind, knee, t_limit_ns, t_limit_range_ns, t_min_ns, slope, rms_ns, relative, noise_ns,
 * reason. Exits 0, 1 when the fit rejects the points, 2 on unreadable input.
 */
#include "fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 1000

/* The reason as a JSON string body: quotes and backslashes escaped, controls dropped. */
static void print_json_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			printf("\\%c", *s);
		} else if ((unsigned char)*s >= 0x20) {
			putchar(*s);
		}
	}
}

int main(void)
{
	static double x[MAX_POINTS], y[MAX_POINTS], spread[MAX_POINTS];
	struct whatif_fit fit;
	char line[256];
	size_t n = 0;
	int with_spread = -1;

	while (fgets(line, sizeof(line), stdin)) {
		char s_text[64];

		if (n == MAX_POINTS) {
			fprintf(stderr, "dps-sync-fit-curve: over %d points\n", MAX_POINTS);
			return 2;
		}
		if (sscanf(line, "%lf %lf %63s", &x[n], &y[n], s_text) != 3) {
			fprintf(stderr, "dps-sync-fit-curve: line %zu: want \"X Y SPREAD\"\n",
				n + 1);
			return 2;
		}
		if (with_spread == -1) {
			with_spread = strcmp(s_text, "-") != 0;
		}
		if (with_spread != (strcmp(s_text, "-") != 0) ||
		    (with_spread && sscanf(s_text, "%lf", &spread[n]) != 1)) {
			fprintf(stderr,
				"dps-sync-fit-curve: line %zu: a spread on every line or none\n",
				n + 1);
			return 2;
		}
		n++;
	}
	if (whatif_fit_curve(x, y, with_spread == 1 ? spread : NULL, n, &fit)) {
		fprintf(stderr, "dps-sync-fit-curve: %s\n", fit.reason);
		return 1;
	}
	printf("{\"kind\": \"%s\", \"knee\": %s, ", whatif_kind_name(fit.kind),
	       fit.knee ? "true" : "false");
	if (fit.knee) {
		printf("\"t_limit_ns\": %.0f, \"t_limit_range_ns\": [%.0f, %.0f], ", fit.t_limit,
		       fit.t_limit_lo, fit.t_limit_hi);
	} else {
		printf("\"t_limit_ns\": null, \"t_limit_range_ns\": null, ");
	}
	if (fit.kind == WHATIF_KIND_UNCLEAR) {
		printf("\"t_min_ns\": null, \"slope\": null, ");
	} else {
		printf("\"t_min_ns\": %.0f, \"slope\": %.4f, ", fit.t_min, fit.slope);
	}
	printf("\"rms_ns\": %.0f, \"relative\": %.5f, \"noise_ns\": %.0f, \"reason\": \"", fit.rms,
	       fit.rel_err, fit.noise);
	print_json_text(fit.reason);
	printf("\"}\n");
	return 0;
}
