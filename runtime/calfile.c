/* SPDX-License-Identifier: MIT */
/*
 * The calibration file: one versioned, line-oriented text file that holds the CPU calibration
 * (dps calibrate) and the main-memory stubs' (dps calibrate --memory), read and written by
 * this one table-driven module for libdps, the analyzer and the CLI (doc/runtime.md lists
 * every key):
 *
 *	dps-calibration 2
 *	machine "host x86_64 Intel(R) Xeon(R) Processor"
 *	cpu.work_loops_per_us 1012.345678
 *	...
 *	cpu.sleep_overshoot_ns 10000 5600.000000	# requested ns, overshoot ns (a table)
 *	cpu.action_cost_ns wait 4100.5 6900.2	# untraced, traced ns ("-": not measured)
 *	mem.time_basic_ns 61.5
 *	...
 *
 * Keys are prefixed by their section (cpu., mem.); a file may hold one section or both, and
 * saving one section keeps the other one of an existing file. Errors name file:line and what
 * was expected; a file without the action-cost table (written before it) is valid and says
 * nothing of it (its costs are "not measured"); files of the older formats (version 1, and the
 *memory file's "key = value") are refused with the version found.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calfile.h"

enum cf_type {
	CF_DOUBLE,	/* finite, >= 0 */
	CF_DOUBLE_POS,	/* finite, > 0 */
	CF_DOUBLE_ANY,	/* finite */
	CF_U64,		/* unsigned */
	CF_U64_POS,	/* unsigned, >= 1 */
	CF_I64,		/* signed */
	CF_INT,		/* 0 .. 1000000 */
	CF_BOOL,	/* 0 or 1 */
	CF_MACHINE,	/* a quoted string (struct dps_calibration.machine) */
	CF_SLEEP_TABLE, /* "REQ OVERSHOOT", repeated, REQ increasing */
	CF_COST_TABLE,	/* "KIND UNTRACED TRACED", one line per kind, "-" = not measured */
};

struct cf_key {
	const char *name; /* with its section prefix */
	unsigned section; /* DPS_CALFILE_CPU or DPS_CALFILE_MEM */
	enum cf_type type;
	size_t offset; /* in struct dps_calibration or struct dps_mem_calibration */
};

#define CPU(name, type)                                                                            \
	{                                                                                          \
		"cpu." #name, DPS_CALFILE_CPU, type, offsetof(struct dps_calibration, name)        \
	}
#define MEM(name, type)                                                                            \
	{                                                                                          \
		"mem." #name, DPS_CALFILE_MEM, type, offsetof(struct dps_mem_calibration, name)    \
	}

static const struct cf_key keys[] = {
    {"machine", DPS_CALFILE_CPU, CF_MACHINE, offsetof(struct dps_calibration, machine)},
    CPU(work_loops_per_us, CF_DOUBLE_POS),
    CPU(work_spread_pct, CF_DOUBLE),
    CPU(clock_read_ns, CF_DOUBLE),
    CPU(cputime_read_ns, CF_DOUBLE),
    CPU(action_overhead_ns, CF_DOUBLE),
    CPU(thread_create_ns, CF_DOUBLE),
    CPU(thread_join_ns, CF_DOUBLE),
    CPU(timer_slack_ns, CF_U64_POS),
    CPU(min_block_ns, CF_U64),
    {"cpu.sleep_overshoot_ns", DPS_CALFILE_CPU, CF_SLEEP_TABLE, 0},
    {"cpu.action_cost_ns", DPS_CALFILE_CPU, CF_COST_TABLE, 0},
    MEM(measured, CF_BOOL),
    MEM(page_size, CF_U64_POS),
    MEM(cycles_per_ns, CF_DOUBLE),
    MEM(time_basic_ns, CF_DOUBLE_ANY),
    MEM(time_basic_scv, CF_DOUBLE_ANY),
    /* the stub's lateness of an absolute-time sleep, not the CPU table's overshoot */
    {"mem.sleep_late_ns", DPS_CALFILE_MEM, CF_DOUBLE_ANY,
     offsetof(struct dps_mem_calibration, sleep_overshoot_ns)},
    MEM(heap_alloc_fault_ns, CF_DOUBLE_ANY),
    MEM(heap_alloc_nofault_ns, CF_DOUBLE_ANY),
    MEM(heap_use_iter_ns, CF_DOUBLE_ANY),
    MEM(heap_use_fault_ns, CF_DOUBLE_ANY),
    MEM(stack_alloc_ns, CF_DOUBLE_ANY),
    MEM(stack_alloc_fault_ns, CF_DOUBLE_ANY),
    MEM(stack_use_base_ns, CF_DOUBLE_ANY),
    MEM(stack_use_fault_ns, CF_DOUBLE_ANY),
    MEM(heap_offset_bytes, CF_I64),
    MEM(heap_chunk_header_bytes, CF_U64),
    MEM(heap_chunk_align_bytes, CF_U64_POS),
    MEM(heap_chunk_min_bytes, CF_U64),
    MEM(heap_mmap_header_bytes, CF_U64),
    MEM(heap_model_misses, CF_U64),
    MEM(heap_tcache, CF_BOOL),
    MEM(stack_offset_bytes, CF_I64),
    MEM(stack_overhead_bytes, CF_I64),
    MEM(stack_align_bytes, CF_U64_POS),
    MEM(stack_alloca_extra_bytes, CF_I64),
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const char *const section_names[] = {
    [DPS_CALFILE_CPU] = "CPU (dps calibrate)",
    [DPS_CALFILE_MEM] = "memory (dps calibrate --memory)",
};

/* The index of the CPU sleep table's key. */
static size_t sleep_table_key(void)
{
	size_t i = 0;

	while (i + 1 < N_KEYS && keys[i].type != CF_SLEEP_TABLE) {
		i++;
	}
	return i;
}

/*
 * Writing
 */
static void write_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
		} else if (c < 0x20 || c == 0x7f) {
			fputc('?', out);
		} else {
			fputc(c, out);
		}
	}
	fputc('"', out);
}

/* One column of the action-cost table: "-" when not measured. */
static void write_cost(FILE *out, double ns)
{
	if (ns > 0) {
		fprintf(out, "%.1f", ns);
	} else {
		fputc('-', out);
	}
}

static void write_key(FILE *out, const struct cf_key *k, const void *base)
{
	const char *p = (const char *)base + k->offset;
	const struct dps_calibration *cpu = base;

	switch (k->type) {
	case CF_DOUBLE:
	case CF_DOUBLE_POS:
	case CF_DOUBLE_ANY:
		fprintf(out, "%s %.17g\n", k->name, *(const double *)p);
		break;
	case CF_U64:
	case CF_U64_POS:
		fprintf(out, "%s %" PRIu64 "\n", k->name, *(const uint64_t *)p);
		break;
	case CF_I64:
		fprintf(out, "%s %" PRId64 "\n", k->name, *(const int64_t *)p);
		break;
	case CF_INT:
		fprintf(out, "%s %d\n", k->name, *(const int *)p);
		break;
	case CF_BOOL:
		fprintf(out, "%s %d\n", k->name, *(const bool *)p ? 1 : 0);
		break;
	case CF_MACHINE:
		fprintf(out, "%s ", k->name);
		write_quoted(out, p);
		fputc('\n', out);
		break;
	case CF_SLEEP_TABLE:
		for (size_t i = 0; i < cpu->n_sleep_points; i++) {
			fprintf(out, "%s %" PRIu64 " %.6f\n", k->name, cpu->sleep_req_ns[i],
				cpu->sleep_overshoot_ns[i]);
		}
		break;
	case CF_COST_TABLE:
		for (unsigned i = 0; i < DPS_COST_N; i++) {
			if (!cpu->action_cost_ns[i] && !cpu->action_cost_traced_ns[i]) {
				continue;
			}
			fprintf(out, "%s %s ", k->name, dps_action_cost_name(i));
			write_cost(out, cpu->action_cost_ns[i]);
			fputc(' ', out);
			write_cost(out, cpu->action_cost_traced_ns[i]);
			fputc('\n', out);
		}
		break;
	}
}

int dps_calfile_write(FILE *out, const struct dps_calibration *cpu,
		      const struct dps_mem_calibration *mem)
{
	fprintf(out, "# dps calibration (doc/runtime.md): cpu.* by dps calibrate, mem.* by\n"
		     "# dps calibrate --memory. Times in ns.\n");
	fprintf(out, "dps-calibration %d\n", DPS_CALIBRATION_FORMAT_VERSION);
	for (size_t i = 0; i < N_KEYS; i++) {
		const void *base =
		    keys[i].section == DPS_CALFILE_CPU ? (const void *)cpu : (const void *)mem;

		if (base) {
			write_key(out, &keys[i], base);
		}
	}
	return ferror(out) ? DPS_ERR_IO : DPS_OK;
}

/*
 * Reading
 */
struct cf_parser {
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct cf_parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen) {
		return DPS_ERR_INVAL;
	}
	n = p->line ? snprintf(p->err, p->errlen, "%s:%u: ", p->path, p->line)
		    : snprintf(p->err, p->errlen, "%s: ", p->path);
	if (n < 0 || (size_t)n >= p->errlen) {
		return DPS_ERR_INVAL;
	}
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return DPS_ERR_INVAL;
}

static char *skip_blank(char *s)
{
	while (*s == ' ' || *s == '\t') {
		s++;
	}
	return s;
}

/* Cuts a '#' comment outside of a quoted string, and trailing blanks and CR. */
static void strip_line(char *s)
{
	bool quoted = false;
	size_t n;

	for (char *c = s; *c; c++) {
		if (*c == '\\' && quoted && c[1]) {
			c++;
		} else if (*c == '"') {
			quoted = !quoted;
		} else if (*c == '#' && !quoted) {
			*c = '\0';
			break;
		}
	}
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) {
		s[--n] = '\0';
	}
}

/* The next blank-separated word of *s (NUL-terminated in place); *s moves past it. */
static char *next_word(char **s)
{
	char *w = skip_blank(*s), *e = w + strcspn(w, " \t");

	*s = *e ? e + 1 : e;
	*e = '\0';
	return w;
}

static int parse_double(struct cf_parser *p, const struct cf_key *k, const char *w, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(w, &end);
	if (!*w || *end || errno || !isfinite(v)) {
		return fail(p, "%s: expected a %snumber, got \"%s\"", k->name,
			    k->type == CF_DOUBLE || k->type == CF_SLEEP_TABLE ? "non-negative "
			    : k->type == CF_DOUBLE_POS			      ? "positive "
									      : "",
			    w);
	}
	if ((k->type == CF_DOUBLE || k->type == CF_SLEEP_TABLE) && v < 0) {
		return fail(p, "%s: expected a non-negative number, got \"%s\"", k->name, w);
	}
	if (k->type == CF_DOUBLE_POS && !(v > 0)) {
		return fail(p, "%s: expected a positive number, got \"%s\"", k->name, w);
	}
	*out = v;
	return DPS_OK;
}

static int parse_u64(struct cf_parser *p, const struct cf_key *k, const char *w, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*w < '0' || *w > '9') {
		return fail(p, "%s: expected an unsigned integer, got \"%s\"", k->name, w);
	}
	v = strtoull(w, &end, 10);
	if (*end || errno) {
		return fail(p, "%s: expected an unsigned integer below 2^64, got \"%s\"", k->name,
			    w);
	}
	if (k->type == CF_U64_POS && !v) {
		return fail(p, "%s: expected at least 1", k->name);
	}
	*out = v;
	return DPS_OK;
}

static int parse_i64(struct cf_parser *p, const struct cf_key *k, const char *w, long long lo,
		     long long hi, long long *out)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(w, &end, 10);
	if (!*w || *end || errno || v < lo || v > hi) {
		return fail(p, "%s: expected an integer from %lld to %lld, got \"%s\"", k->name, lo,
			    hi, w);
	}
	*out = v;
	return DPS_OK;
}

static int parse_machine(struct cf_parser *p, const struct cf_key *k, char *s, char *out,
			 size_t len)
{
	char *c = skip_blank(s);
	size_t n = 0;

	if (*c != '"') {
		return fail(p, "%s: expected a double-quoted string", k->name);
	}
	for (c++; *c && *c != '"'; c++) {
		if (*c == '\\' && c[1]) {
			c++;
		}
		if (n + 1 < len) {
			out[n++] = *c;
		}
	}
	if (*c != '"') {
		return fail(p, "%s: missing closing quote", k->name);
	}
	out[n] = '\0';
	if (*skip_blank(c + 1)) {
		return fail(p, "%s: unexpected text after the string", k->name);
	}
	return DPS_OK;
}

static int parse_sleep_point(struct cf_parser *p, const struct cf_key *k, char *s,
			     struct dps_calibration *cal)
{
	size_t n = cal->n_sleep_points;
	char *w1 = next_word(&s), *w2 = next_word(&s);
	uint64_t req = 0;
	double over = 0;
	int ret;

	if (n >= DPS_SLEEP_OVERSHOOT_POINTS) {
		return fail(p, "%s: at most %d points", k->name, DPS_SLEEP_OVERSHOOT_POINTS);
	}
	ret = parse_u64(p, k, w1, &req);
	if (!ret) {
		ret = parse_double(p, k, w2, &over);
	}
	if (!ret && *skip_blank(s)) {
		ret = fail(p, "%s: expected two numbers (requested ns, overshoot ns)", k->name);
	}
	if (!ret && n && req <= cal->sleep_req_ns[n - 1]) {
		ret = fail(p,
			   "%s: expected requested durations in increasing order (%" PRIu64
			   " after %" PRIu64 ")",
			   k->name, req, cal->sleep_req_ns[n - 1]);
	}
	if (!ret) {
		cal->sleep_req_ns[n] = req;
		cal->sleep_overshoot_ns[n] = over;
		cal->n_sleep_points++;
	}
	return ret;
}

/* One column of an action-cost line: a non-negative number, or "-" (0: not measured). */
static int parse_cost(struct cf_parser *p, const struct cf_key *k, const char *kind, const char *w,
		      double *out)
{
	char *end;
	double v;

	if (!strcmp(w, "-")) {
		*out = 0;
		return DPS_OK;
	}
	errno = 0;
	v = strtod(w, &end);
	if (!*w || *end || errno || !isfinite(v) || v < 0) {
		return fail(p,
			    "%s %s: expected two costs in ns (untraced, traced), each a "
			    "non-negative number or \"-\", got \"%s\"",
			    k->name, kind, w);
	}
	*out = v;
	return DPS_OK;
}

/* "KIND UNTRACED TRACED": one line of the action-cost table; a kind given twice is refused. */
static int parse_cost_line(struct cf_parser *p, const struct cf_key *k, char *s,
			   struct dps_calibration *cal, bool *seen_kinds)
{
	char *kind = next_word(&s), *w1 = next_word(&s), *w2 = next_word(&s);
	unsigned c = 0;
	int ret;

	while (c < DPS_COST_N && strcmp(dps_action_cost_name(c), kind)) {
		c++;
	}
	if (c == DPS_COST_N) {
		char known[160];
		size_t n = 0;

		known[0] = '\0';
		for (unsigned i = 0; i < DPS_COST_N && n < sizeof(known); i++) {
			n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", i ? ", " : "",
					      dps_action_cost_name(i));
		}
		return fail(p, "%s: unknown action kind \"%s\" (expected one of %s)", k->name, kind,
			    known);
	}
	if (seen_kinds[c]) {
		return fail(p, "%s %s given twice", k->name, kind);
	}
	ret = parse_cost(p, k, kind, w1, &cal->action_cost_ns[c]);
	if (!ret) {
		ret = parse_cost(p, k, kind, w2, &cal->action_cost_traced_ns[c]);
	}
	if (!ret && (!*w2 || *skip_blank(s))) {
		ret = fail(p, "%s %s: expected two costs in ns (untraced, traced)", k->name, kind);
	}
	seen_kinds[c] = true;
	return ret;
}

/* One "key value" line; s points after the key. */
static int parse_value(struct cf_parser *p, const struct cf_key *k, char *s, void *base)
{
	char *dst = (char *)base + k->offset;
	char *w;
	long long i = 0;
	double d = 0;
	uint64_t u = 0;
	int ret;

	if (k->type == CF_MACHINE) {
		return parse_machine(p, k, s, dst, sizeof(((struct dps_calibration *)0)->machine));
	}
	if (k->type == CF_SLEEP_TABLE) {
		return parse_sleep_point(p, k, s, base);
	}
	w = next_word(&s);
	if (*skip_blank(s)) {
		return fail(p, "%s: unexpected text \"%s\" after the value", k->name,
			    skip_blank(s));
	}
	switch (k->type) {
	case CF_DOUBLE:
	case CF_DOUBLE_POS:
	case CF_DOUBLE_ANY:
		ret = parse_double(p, k, w, &d);
		if (!ret) {
			memcpy(dst, &d, sizeof(d));
		}
		return ret;
	case CF_U64:
	case CF_U64_POS:
		ret = parse_u64(p, k, w, &u);
		if (!ret) {
			memcpy(dst, &u, sizeof(u));
		}
		return ret;
	case CF_I64:
		ret = parse_i64(p, k, w, INT64_MIN, INT64_MAX, &i);
		if (!ret) {
			int64_t v = i;

			memcpy(dst, &v, sizeof(v));
		}
		return ret;
	case CF_INT:
		ret = parse_i64(p, k, w, 0, 1000000, &i);
		if (!ret) {
			int v = (int)i;

			memcpy(dst, &v, sizeof(v));
		}
		return ret;
	case CF_BOOL:
		ret = parse_i64(p, k, w, 0, 1, &i);
		if (!ret) {
			bool v = i;

			memcpy(dst, &v, sizeof(v));
		}
		return ret;
	default:
		return fail(p, "%s: unhandled key type", k->name);
	}
}

/* The header line: "dps-calibration 2". Older files get the version they have. */
static int parse_header(struct cf_parser *p, char *s)
{
	char *c = s;
	long long version;

	if (strchr(s, '=')) {
		return fail(p,
			    "a memory calibration of the older \"key = value\" format; this "
			    "libdps reads format %d: run dps calibrate --memory again",
			    DPS_CALIBRATION_FORMAT_VERSION);
	}
	if (strncmp(c, "dps-calibration", 15) || (c[15] != ' ' && c[15] != '\t')) {
		return fail(p, "expected the header \"dps-calibration %d\" as the first line",
			    DPS_CALIBRATION_FORMAT_VERSION);
	}
	c = skip_blank(c + 15);
	errno = 0;
	version = strtoll(c, &c, 10);
	if (errno || *skip_blank(c)) {
		return fail(p, "expected a format version number after dps-calibration");
	}
	if (version != DPS_CALIBRATION_FORMAT_VERSION) {
		return fail(p,
			    "calibration format version %lld, expected %d: run dps calibrate "
			    "again (and dps calibrate --memory for the memory part)",
			    version, DPS_CALIBRATION_FORMAT_VERSION);
	}
	return DPS_OK;
}

int dps_calfile_read(const char *path, struct dps_calibration *cpu, struct dps_mem_calibration *mem,
		     unsigned *sections, char *err, size_t errlen)
{
	struct cf_parser p = {.path = path, .err = err, .errlen = errlen};
	bool seen[N_KEYS] = {false};
	bool seen_kinds[DPS_COST_N] = {false};
	bool header = false;
	char *buf = NULL;
	size_t cap = 0;
	unsigned found = 0;
	FILE *in;
	int ret = DPS_OK;

	if (err && errlen) {
		err[0] = '\0';
	}
	{
		struct stat st;

		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (err && errlen) {
				snprintf(err, errlen,
					 "%s: not a regular file: expected a calibration file",
					 path);
			}
			return DPS_ERR_INVAL;
		}
	}
	in = fopen(path, "r");
	if (!in) {
		int e = errno;

		if (err && errlen) {
			snprintf(err, errlen, "%s: cannot open the calibration file: %s", path,
				 strerror(e));
		}
		return e == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
	}
	if (cpu) {
		cpu->n_sleep_points = 0;
		/* the file's table or none: not the measurement or defaults cpu held */
		memset(cpu->action_cost_ns, 0, sizeof(cpu->action_cost_ns));
		memset(cpu->action_cost_traced_ns, 0, sizeof(cpu->action_cost_traced_ns));
	}
	while (getline(&buf, &cap, in) >= 0) {
		char *s, *name;
		const struct cf_key *k = NULL;
		size_t ki = 0;

		p.line++;
		strip_line(buf);
		s = skip_blank(buf);
		if (!*s) {
			continue;
		}
		if (!header) {
			ret = parse_header(&p, s);
			if (ret) {
				goto end;
			}
			header = true;
			continue;
		}
		name = next_word(&s);
		for (ki = 0; ki < N_KEYS; ki++) {
			if (!strcmp(keys[ki].name, name)) {
				k = &keys[ki];
				break;
			}
		}
		if (!k) {
			ret = fail(&p,
				   "unknown key \"%s\" (expected a key of doc/runtime.md's "
				   "calibration file: machine, cpu.*, mem.*)",
				   name);
			goto end;
		}
		if (seen[ki] && k->type != CF_SLEEP_TABLE && k->type != CF_COST_TABLE) {
			ret = fail(&p, "%s given twice", k->name);
			goto end;
		}
		seen[ki] = true;
		found |= k->section;
		/* Sections nobody asked for are checked by a scratch copy, then dropped. */
		if (k->type == CF_COST_TABLE) {
			struct dps_calibration c;

			memset(&c, 0, sizeof(c));
			ret = parse_cost_line(&p, k, s, cpu ? cpu : &c, seen_kinds);
		} else if (k->section == DPS_CALFILE_CPU && cpu) {
			ret = parse_value(&p, k, s, cpu);
		} else if (k->section == DPS_CALFILE_MEM && mem) {
			ret = parse_value(&p, k, s, mem);
		} else {
			struct dps_calibration c;
			struct dps_mem_calibration m;

			memset(&c, 0, sizeof(c));
			memset(&m, 0, sizeof(m));
			ret = parse_value(&p, k, s,
					  k->section == DPS_CALFILE_CPU ? (void *)&c : (void *)&m);
		}
		if (ret) {
			goto end;
		}
	}
	if (ferror(in)) {
		p.line = 0;
		ret = fail(&p, "read error");
		ret = DPS_ERR_IO;
		goto end;
	}
	if (!header) {
		p.line = p.line ? p.line : 1;
		ret = fail(&p, "empty file: expected the header \"dps-calibration %d\"",
			   DPS_CALIBRATION_FORMAT_VERSION);
		goto end;
	}
	/* Missing keys of a section that is there keep their defaults: not an error, but the
	 * caller may say so (err holds them, the status is DPS_OK). */
	if (err && errlen) {
		size_t n = 0;

		for (size_t i = 0; i < N_KEYS; i++) {
			if (seen[i] || !(found & keys[i].section) ||
			    keys[i].type == CF_COST_TABLE ||
			    (keys[i].section == DPS_CALFILE_CPU ? !cpu : !mem)) {
				continue;
			}
			if (!n) {
				n = (size_t)snprintf(err, errlen,
						     "%s: missing keys (defaults used):", path);
			}
			if (n < errlen) {
				n += (size_t)snprintf(err + n, errlen - n, " %s", keys[i].name);
			}
		}
	}
	if (cpu && !seen[sleep_table_key()]) {
		/* no sleep table: the defaults' */
		struct dps_calibration def;

		dps_calibration_default(&def);
		cpu->n_sleep_points = def.n_sleep_points;
		memcpy(cpu->sleep_req_ns, def.sleep_req_ns, sizeof(def.sleep_req_ns));
		memcpy(cpu->sleep_overshoot_ns, def.sleep_overshoot_ns,
		       sizeof(def.sleep_overshoot_ns));
	}
	if (sections) {
		*sections = found;
	}
end:
	free(buf);
	fclose(in);
	return ret;
}

const char *dps_calfile_section_name(unsigned section)
{
	return section == DPS_CALFILE_CPU || section == DPS_CALFILE_MEM ? section_names[section]
									: "?";
}

/* Writes the sections to path in place (a device, a FIFO: nothing to rename over). */
static int write_through(const char *path, const struct dps_calibration *cpu,
			 const struct dps_mem_calibration *mem, char *err, size_t errlen)
{
	FILE *out = fopen(path, "w");
	int ret;

	if (!out) {
		snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
		return DPS_ERR_IO;
	}
	ret = dps_calfile_write(out, cpu, mem);
	if (fclose(out) || ret) {
		snprintf(err, errlen, "%s: write failed", path);
		return DPS_ERR_IO;
	}
	return DPS_OK;
}

int dps_calfile_save(const char *path, const struct dps_calibration *cpu,
		     const struct dps_mem_calibration *mem, char *err, size_t errlen)
{
	struct dps_calibration old_cpu;
	struct dps_mem_calibration old_mem;
	unsigned old = 0;
	char tmp[4096], ignored[512];
	struct stat st;
	FILE *out;
	int ret;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		return write_through(path, cpu, mem, err, errlen);
	}
	/* Keep the other section of a regular file that is there and readable. */
	dps_calibration_default(&old_cpu);
	dps_mem_calibration_default(&old_mem);
	if (stat(path, &st) == 0 &&
	    dps_calfile_read(path, &old_cpu, &old_mem, &old, ignored, sizeof(ignored)) != DPS_OK) {
		old = 0;
	}
	if (!cpu && (old & DPS_CALFILE_CPU)) {
		cpu = &old_cpu;
	}
	if (!mem && (old & DPS_CALFILE_MEM)) {
		mem = &old_mem;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return DPS_ERR_INVAL;
	}
	out = fopen(tmp, "w");
	if (!out) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		return DPS_ERR_IO;
	}
	ret = dps_calfile_write(out, cpu, mem);
	if (fclose(out) || ret) {
		snprintf(err, errlen, "%s: write failed", path);
		unlink(tmp);
		return DPS_ERR_IO;
	}
	if (rename(tmp, path)) {
		snprintf(err, errlen, "%s: cannot replace: %s", path, strerror(errno));
		unlink(tmp);
		return DPS_ERR_IO;
	}
	return DPS_OK;
}

/*
 * The defaults (no file) and libdps's CPU-calibration file API: here, apart from the
 * measurement (calibration.c, memcal.c), so that a reader of the file (the analyzer, the
 * babeltrace2 plugin) links this object alone, without libdps's tracepoint probe.
 */
void dps_calibration_default(struct dps_calibration *cal)
{
	/* Plausible values for a current x86-64 core; deterministic, never measured. */
	static const uint64_t req[] = {10000, 100000, 1000000, 10000000, 100000000};
	static const double over[] = {7000, 7000, 20000, 60000, 60000};

	memset(cal, 0, sizeof(*cal));
	cal->format_version = DPS_CALIBRATION_FORMAT_VERSION;
	snprintf(cal->machine, sizeof(cal->machine), "override (deterministic defaults)");
	cal->work_loops_per_us = 1000.0;
	cal->work_spread_pct = 0.0;
	cal->clock_read_ns = 25.0;
	cal->cputime_read_ns = 600.0;
	cal->action_overhead_ns = 200.0;
	cal->thread_create_ns = 30000.0;
	cal->thread_join_ns = 10000.0;
	cal->timer_slack_ns = 1;
	cal->n_sleep_points = sizeof(req) / sizeof(req[0]);
	for (size_t i = 0; i < cal->n_sleep_points; i++) {
		cal->sleep_req_ns[i] = req[i];
		cal->sleep_overshoot_ns[i] = over[i];
	}
	cal->min_block_ns = 20000;
	cal->overridden = true;
}

/* Paper's machine: Core 2 Duo P8400, 2.26 GHz. Its cycle figures become ns with this. */
#define PAPER_CYCLES_PER_NS 2.26

void dps_mem_calibration_default(struct dps_mem_calibration *cal)
{
	memset(cal, 0, sizeof(*cal));
	cal->format_version = DPS_MEM_CALIBRATION_FORMAT_VERSION;
	cal->page_size = 4096;
	cal->cycles_per_ns = PAPER_CYCLES_PER_NS;
	cal->time_basic_ns = 126775 / PAPER_CYCLES_PER_NS;
	cal->heap_alloc_fault_ns = 3722 / PAPER_CYCLES_PER_NS;
	cal->heap_alloc_nofault_ns = 94 / PAPER_CYCLES_PER_NS;
	cal->heap_use_iter_ns = 69 / PAPER_CYCLES_PER_NS;
	cal->heap_use_fault_ns = 3252 / PAPER_CYCLES_PER_NS;
	cal->stack_alloc_ns = 48 / PAPER_CYCLES_PER_NS;
	cal->stack_alloc_fault_ns = 48 / PAPER_CYCLES_PER_NS;
	cal->stack_use_base_ns = 61 / PAPER_CYCLES_PER_NS;
	cal->stack_use_fault_ns = 3358 / PAPER_CYCLES_PER_NS;
	cal->heap_offset_bytes = 0;
	cal->heap_chunk_header_bytes = 8;
	cal->heap_chunk_align_bytes = 16;
	cal->heap_chunk_min_bytes = 32;
	cal->heap_mmap_header_bytes = 8;
	cal->stack_offset_bytes = 216;
	cal->stack_overhead_bytes = 64;
	cal->stack_align_bytes = 16;
	cal->stack_alloca_extra_bytes = 0;
}

const char *dps_action_cost_name(unsigned cost)
{
	static const char *const names[] = {
#define DPS_ACTION_COST_NAME_(e, kw) [e] = kw,
	    DPS_ACTION_COSTS(DPS_ACTION_COST_NAME_)
#undef DPS_ACTION_COST_NAME_
	};

	return cost < DPS_COST_N ? names[cost] : NULL;
}

unsigned dps_action_cost_of(uint32_t kind)
{
	switch (kind) {
	case DPS_ACT_SLEEP:
		return DPS_COST_SLEEP;
	case DPS_ACT_CREATE:
		return DPS_COST_CREATE;
	case DPS_ACT_JOIN:
	case DPS_ACT_JOIN_ANY:
		return DPS_COST_JOIN;
	case DPS_ACT_WAIT:
	case DPS_ACT_WAIT_TIMEOUT:
	case DPS_ACT_WAIT_ANY:
		return DPS_COST_WAIT;
	case DPS_ACT_WAKE:
		return DPS_COST_WAKE;
	case DPS_ACT_LOCK:
	case DPS_ACT_RDLOCK:
		return DPS_COST_LOCK;
	case DPS_ACT_UNLOCK:
		return DPS_COST_UNLOCK;
	case DPS_ACT_PUT:
		return DPS_COST_PUT;
	case DPS_ACT_TAKE:
		return DPS_COST_TAKE;
	case DPS_ACT_ARRIVE:
		return DPS_COST_ARRIVE;
	default:
		return DPS_COST_N;
	}
}

double dps_calibration_action_cost_ns(const struct dps_calibration *cal, uint32_t kind, bool traced)
{
	unsigned c = dps_action_cost_of(kind);

	if (kind == DPS_ACT_RUN) {
		return cal->action_overhead_ns;
	}
	if (c == DPS_COST_N) {
		return 0;
	}
	if (traced && cal->action_cost_traced_ns[c] > 0) {
		return cal->action_cost_traced_ns[c];
	}
	return cal->action_cost_ns[c];
}

int dps_calibration_write(const struct dps_calibration *cal, FILE *out)
{
	return dps_calfile_write(out, cal, NULL);
}

int dps_calibration_save(const struct dps_calibration *cal, const char *path, char *err,
			 size_t errlen)
{
	return dps_calfile_save(path, cal, NULL, err, errlen);
}

int dps_calibration_load(const char *path, struct dps_calibration *cal, char *err, size_t errlen)
{
	struct dps_calibration tmp;
	unsigned sections = 0;
	char buf[512];
	int ret;

	dps_calibration_default(&tmp);
	ret = dps_calfile_read(path, &tmp, NULL, &sections, buf, sizeof(buf));
	if (!ret && !(sections & DPS_CALFILE_CPU)) {
		snprintf(
		    buf, sizeof(buf),
		    "%s: no CPU calibration in this file (cpu.* keys): run dps calibrate -o %s",
		    path, path);
		ret = DPS_ERR_INVAL;
	}
	if (err && errlen) {
		snprintf(err, errlen, "%s", buf);
	}
	if (ret) {
		return ret;
	}
	tmp.overridden = true;
	*cal = tmp;
	return DPS_OK;
}
