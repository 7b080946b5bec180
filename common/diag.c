/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"

void dps_diag_set(struct dps_diag *diag, const char *file, unsigned line, unsigned col,
		  const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!diag) {
		return;
	}
	if (file && line && col) {
		n = snprintf(diag->msg, sizeof(diag->msg), "%s:%u:%u: ", file, line, col);
	} else if (file && line) {
		n = snprintf(diag->msg, sizeof(diag->msg), "%s:%u: ", file, line);
	} else if (file) {
		n = snprintf(diag->msg, sizeof(diag->msg), "%s: ", file);
	}
	if (n < 0 || (size_t)n >= sizeof(diag->msg)) {
		n = 0;
	}
	va_start(ap, fmt);
	vsnprintf(diag->msg + n, sizeof(diag->msg) - n, fmt, ap);
	va_end(ap);
}

void dps_diag_setf(struct dps_diag *diag, const char *fmt, ...)
{
	va_list ap;

	if (!diag) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(diag->msg, sizeof(diag->msg), fmt, ap);
	va_end(ap);
}

void dps_diag_clear(struct dps_diag *diag)
{
	if (diag) {
		diag->msg[0] = '\0';
	}
}
