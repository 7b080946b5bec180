/* SPDX-License-Identifier: MIT */
/*
 * record.info: what dps record ran, so that dps analyze, compare and replay select the
 * recorded process by themselves. Lines "key value": pid, command, exit_status or signal,
 * kernel (lttng, perf, none), ust and memory (yes, no). The one writer and the one reader.
 */
#include <errno.h>
#include <stdio.h>
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

bool dps_record_info_pid(const char *trace, int64_t *pid)
{
	char path[4096], line[256];
	bool found = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/record.info", trace) >= (int)sizeof(path)) {
		return false;
	}
	f = fopen(path, "r");
	if (!f) {
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		long long v;

		if (sscanf(line, "pid %lld", &v) == 1 && v > 0) {
			*pid = v;
			found = true;
		}
	}
	fclose(f);
	return found;
}
