/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

enum dps_log_level dps_log_level = DPS_LOG_LEVEL_WARN;

void dps_log_init_from_env(void)
{
	const char *v = getenv("DPS_LOG_LEVEL");

	if (!v || !*v) {
		return;
	}
	switch (v[0]) {
	case 'E': case 'e': dps_log_level = DPS_LOG_LEVEL_ERROR; break;
	case 'W': case 'w': dps_log_level = DPS_LOG_LEVEL_WARN; break;
	case 'I': case 'i': dps_log_level = DPS_LOG_LEVEL_INFO; break;
	case 'D': case 'd': dps_log_level = DPS_LOG_LEVEL_DEBUG; break;
	default: break;
	}
}

void dps_log_write(enum dps_log_level level, const char *tag, const char *fmt, ...)
{
	static const char letters[] = "EWID";
	va_list ap;

	fprintf(stderr, "%s %c: ", tag, letters[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
