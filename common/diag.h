/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics: what went wrong, where (file:line:column), and what was expected. Library code
 * fills a dps_diag and returns a status; only main() prints and picks the exit code.
 */
#ifndef DPS_COMMON_DIAG_H
#define DPS_COMMON_DIAG_H

#include <stddef.h>

#define DPS_DIAG_MSG_LEN 1024

struct dps_diag {
	char msg[DPS_DIAG_MSG_LEN]; /* complete message, "file:line:col: ..." when located */
};

/* Sets diag (NULL allowed) to "file:line:col: message". line/col 0 are omitted. */
__attribute__((format(printf, 5, 6))) void dps_diag_set(struct dps_diag *diag, const char *file,
							unsigned line, unsigned col,
							const char *fmt, ...);
/* Sets diag to a plain message. */
__attribute__((format(printf, 2, 3))) void dps_diag_setf(struct dps_diag *diag, const char *fmt,
							 ...);
void dps_diag_clear(struct dps_diag *diag);

#endif /* DPS_COMMON_DIAG_H */
