/* SPDX-License-Identifier: MIT */
/*
 * record.info: what dps record ran, so that dps analyze, compare and replay select the
 * recorded process by themselves. Lines "key value": pid, command, exit_status or signal,
 * kernel (lttng, perf, none), ust and memory (yes, no), and how much others used the machine
 * while the command ran (load_cpus N, load_wall_s S, load_own_pct P: the command's CPU time of all
 * CPUs' time, load_others_pct P: everything else that ran, load_steal_pct P; for compare's
 * under-load statement). The one writer and the one reader.
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
	if (r->perf_lost[0]) {
		fprintf(f, "perf_lost %s\n", r->perf_lost);
	}
	if (r->load.known) {
		fprintf(f,
			"load_cpus %d\nload_wall_s %.3f\nload_own_pct %.1f\nload_others_pct %.1f\n"
			"load_steal_pct %.1f\n",
			r->load.cpus, r->load.wall_s, r->load.own_pct, r->load.others_pct,
			r->load.steal_pct);
	}
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

/* A line's value as a non-negative number, nothing after it. */
static bool parse_share(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && *v >= 0 && *v < 1e9;
}

/* Checks one "key value" line (without its newline); *pid set by a pid line, load by the
 * load_* lines (bit 0: cpus, bit 1: others seen, in *load_seen), text (text_len bytes) by the
 * text_key line when text is not NULL. Returns NULL when the line is good, else what was
 * expected. */
static const char *check_line(const char *key, const char *value, int64_t *pid,
			      struct dps_load *load, unsigned *load_seen, const char *text_key,
			      char *text, size_t text_len)
{
	long long v;
	double d;

	if (!strncmp(key, "load_", 5)) {
		if (!parse_share(value, &d)) {
			return "a non-negative number";
		}
		if (!strcmp(key, "load_cpus")) {
			load->cpus = (int)d;
			*load_seen |= d >= 1 ? 1 : 0;
		} else if (!strcmp(key, "load_wall_s")) {
			load->wall_s = d;
		} else if (!strcmp(key, "load_own_pct")) {
			load->own_pct = d;
		} else if (!strcmp(key, "load_others_pct")) {
			load->others_pct = d;
			*load_seen |= 2;
		} else if (!strcmp(key, "load_steal_pct")) {
			load->steal_pct = d;
		}
	} else if (!strcmp(key, "pid")) {
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
	if (text && !strcmp(key, text_key)) {
		snprintf(text, text_len, "%s", value);
	}
	/* command, perf_lost: any text; other keys: a newer dps's, left alone */
	return NULL;
}

/* The one reader: *pid, *load (known only when the file has its load_* lines), and the value of
 * the text_key line into text (when not NULL; "" when the file has none): perf's report of
 * lost events, the command. */
static enum dps_status read_info(const char *trace, int64_t *pid, struct dps_load *load,
				 const char *text_key, char *text, size_t text_len,
				 struct dps_diag *diag)
{
	char path[4096], line[4096];
	int64_t found = -1;
	unsigned load_seen = 0;
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
		expected = check_line(line, line + k + 1, &found, load, &load_seen, text_key, text,
				      text_len);
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
	load->known = load_seen == 3;
	load->busy_pct = load->own_pct + load->others_pct;
end:
	fclose(f);
	return status;
}

enum dps_status dps_record_info_read(const char *trace, int64_t *pid, struct dps_diag *diag)
{
	struct dps_load load = {0};

	return read_info(trace, pid, &load, NULL, NULL, 0, diag);
}

bool dps_record_info_pid(const char *trace, int64_t *pid)
{
	struct dps_diag diag = {""};

	return dps_record_info_read(trace, pid, &diag) == DPS_OK;
}

bool dps_record_info_load(const char *trace, struct dps_load *load)
{
	struct dps_diag diag = {""};
	int64_t pid;

	*load = (struct dps_load){0};
	if (read_info(trace, &pid, load, NULL, NULL, 0, &diag) != DPS_OK) {
		*load = (struct dps_load){0};
	}
	return load->known;
}

/* The text of the key line of trace's record.info into buf: true when there is one. */
static bool read_text(const char *trace, const char *key, char *buf, size_t len)
{
	struct dps_diag diag = {""};
	struct dps_load load = {0};
	int64_t pid;

	buf[0] = '\0';
	if (read_info(trace, &pid, &load, key, buf, len, &diag) != DPS_OK) {
		buf[0] = '\0';
	}
	return buf[0] != '\0';
}

bool dps_record_info_lost(const char *trace, char *buf, size_t len)
{
	return read_text(trace, "perf_lost", buf, len);
}

bool dps_record_info_command(const char *trace, char *buf, size_t len)
{
	return read_text(trace, "command", buf, len);
}
