/* SPDX-License-Identifier: MIT */
/*
 * record.info: what dps record ran, so that dps analyze, compare and replay select the
 * recorded process by themselves. Lines "key value": pid, command, exit_status or signal,
 * kernel (lttng, perf, none), ust and memory (yes, no). The one writer and the one reader.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "record-internal.h"

void dps_record__write_info(const struct recording *r, const char *kernel_src)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/record.info", r->out_abs);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "dps record: warning: cannot write %s: %s\n", path,
			strerror(errno));
		return;
	}
	fprintf(f, "# dps record: what was recorded (dps analyze %s --pid PID)\n", r->out_abs);
	fprintf(f, "pid %ld\n", (long)r->child);
	fprintf(f, "command");
	for (char *const *a = r->opts->cmd; *a; a++) {
		fprintf(f, " %s", *a);
	}
	fprintf(f, "\n");
	if (WIFEXITED(r->child_status)) {
		fprintf(f, "exit_status %d\n", WEXITSTATUS(r->child_status));
	} else {
		fprintf(f, "signal %d\n", WTERMSIG(r->child_status));
	}
	fprintf(f, "kernel %s\nust %s\nmemory %s\n", kernel_src, r->opts->ust ? "yes" : "no",
		r->opts->memory ? "yes" : "no");
	dps_record__write_load(r, f);
	if (fclose(f)) {
		fprintf(stderr, "dps record: warning: cannot write %s: %s\n", path,
			strerror(errno));
	}
}

/* A line's value as an integer, nothing after it. */
static bool parse_int(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && end != s && !*end;
}

/* Checks one "key value" line (without its newline); *pid set by a pid line. Returns NULL
 * when the line is good, else what was expected. */
static const char *check_line(const char *key, const char *value, int64_t *pid)
{
	long long v;

	if (!strcmp(key, "pid")) {
		if (!parse_int(value, &v) || v <= 0) {
			return "a positive process id";
		}
		*pid = v;
	} else if (!strcmp(key, "exit_status") || !strcmp(key, "signal")) {
		if (!parse_int(value, &v) || v < 0 || v > 255) {
			return "an integer from 0 to 255";
		}
	} else if (!strcmp(key, "kernel")) {
		if (strcmp(value, "lttng") && strcmp(value, "perf") && strcmp(value, "none")) {
			return "lttng, perf or none";
		}
	} else if (!strcmp(key, "ust") || !strcmp(key, "memory")) {
		if (strcmp(value, "yes") && strcmp(value, "no")) {
			return "yes or no";
		}
	}
	/* command: any text; other keys: a newer dps's, left alone */
	return NULL;
}

enum dps_status dps_record_info_read(const char *trace, int64_t *pid, struct dps_diag *diag)
{
	char path[4096], line[4096];
	int64_t found = -1;
	enum dps_status status = DPS_OK;
	unsigned lineno = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/record.info", trace) >= (int)sizeof(path)) {
		return DPS_ERR_NOENT;
	}
	f = fopen(path, "r");
	if (!f) {
		return DPS_ERR_NOENT;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line), k = 0;
		const char *expected;

		lineno++;
		if (len && line[len - 1] == '\n') {
			line[--len] = '\0';
		} else if (!feof(f)) {
			dps_diag_setf(diag, "%s:%u:1: line longer than %zu bytes", path, lineno,
				      sizeof(line) - 2);
			status = DPS_ERR_INVAL;
			goto end;
		}
		if (!len || line[0] == '#') {
			continue;
		}
		while ((line[k] >= 'a' && line[k] <= 'z') || line[k] == '_') {
			k++;
		}
		if (!k || line[k] != ' ' || memchr(line, '\0', len)) {
			dps_diag_setf(
			    diag,
			    "%s:%u:%zu: expected \"key value\" (dps record's record.info), "
			    "got \"%.40s\"",
			    path, lineno, k + 1, line);
			status = DPS_ERR_INVAL;
			goto end;
		}
		line[k] = '\0';
		expected = check_line(line, line + k + 1, &found);
		if (expected) {
			dps_diag_setf(diag, "%s:%u:%zu: %s: expected %s, got \"%.40s\"", path,
				      lineno, k + 2, line, expected, line + k + 1);
			status = DPS_ERR_INVAL;
			goto end;
		}
	}
	if (found < 0) {
		dps_diag_setf(diag, "%s:%u:1: no \"pid N\" line: expected dps record's record.info",
			      path, lineno + 1);
		status = DPS_ERR_INVAL;
		goto end;
	}
	*pid = found;
end:
	fclose(f);
	return status;
}

bool dps_record_info_pid(const char *trace, int64_t *pid)
{
	struct dps_diag diag = {""};

	return dps_record_info_read(trace, pid, &diag) == DPS_OK;
}
