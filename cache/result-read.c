/* SPDX-License-Identifier: MIT */
/*
 * Reading a capture back: the result file dps cache capture -o writes (`dps-cache 1`,
 * output.c), or cachegrind's own output file, into the same struct cache_profile, for the
 * steps that use a capture later (dps cache apply puts its figures on a set's runs). The
 * result file is read strictly: every line is one of the format's, every count a decimal
 * number, the last line `end` (a file cut short is refused, not half read), and an error names
 * the file, the line and the column, and what was expected there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"

#define RESULT_MAGIC "dps-cache"
#define RESULT_VERSION 2 /* the newest this dps reads; 1 too (no curve) */

struct result_reader {
	const char *path; /* borrowed */
	unsigned line;	  /* the line being read, from 1 */
	bool header;	  /* `dps-cache 1` read */
	bool total;	  /* `total` read */
	bool done;	  /* `end` read */
	uint64_t version;
	/* the footprint of the total or function line just read, which a `curve` line may
	 * follow (NULL: none may) */
	struct cache_footprint *curve_of;
	struct cache_profile *p;
	struct dps_diag *diag;
};

/* The word at *s (up to a blank or the end) and *s past it and the blanks after it; *col its
 * column. Returns its length (0: none). */
static size_t next_word(const char **s, const char *line, unsigned *col)
{
	const char *p = *s;
	size_t n;

	while (*p == ' ' || *p == '\t') {
		p++;
	}
	*col = (unsigned)(p - line) + 1;
	n = strcspn(p, " \t");
	*s = p + n;
	while (**s == ' ' || **s == '\t') {
		(*s)++;
	}
	return n;
}

/* A decimal number of at most 2^64 - 1 at *s into *v. Returns DPS_OK, or DPS_ERR_INVAL /
 * DPS_ERR_RANGE with diag set at its column. */
static int read_u64(struct result_reader *r, const char **s, const char *line, const char *what,
		    uint64_t *v)
{
	const char *start;
	unsigned col;
	size_t n = next_word(s, line, &col);
	uint64_t x = 0;

	start = line + col - 1;
	if (!n) {
		dps_diag_set(r->diag, r->path, r->line, col,
			     "expected %s, a number; got the end "
			     "of the line",
			     what);
		return DPS_ERR_INVAL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(start[i] - '0');

		if (start[i] < '0' || start[i] > '9') {
			dps_diag_set(r->diag, r->path, r->line, col,
				     "expected %s, a non-negative decimal number; got '%.*s'", what,
				     (int)n, start);
			return DPS_ERR_INVAL;
		}
		if (x > (UINT64_MAX - d) / 10) {
			dps_diag_set(r->diag, r->path, r->line, col, "%s over 2^64 - 1", what);
			return DPS_ERR_RANGE;
		}
		x = x * 10 + d;
	}
	*v = x;
	return DPS_OK;
}

/* The five counts of a `total` or `function` line, in the order of the file's `#` line. */
static int read_counts(struct result_reader *r, const char **s, const char *line,
		       struct cache_counts *c)
{
	static const char *const names[] = {"instructions", "loads", "stores", "d1_misses",
					    "ll_misses"};
	uint64_t *v[] = {&c->instructions, &c->loads, &c->stores, &c->d1_misses, &c->ll_misses};
	int ret = DPS_OK;

	for (size_t i = 0; i < 5 && !ret; i++) {
		ret = read_u64(r, s, line, names[i], v[i]);
	}
	return ret;
}

/* `level D1|LL SIZE ASSOC LINE` */
static int read_level(struct result_reader *r, const char *s, const char *line)
{
	struct cache_level *level;
	uint64_t size, assoc, bytes;
	unsigned col;
	size_t n = next_word(&s, line, &col);
	int ret;

	if (n == 2 && !strncmp(line + col - 1, "D1", 2)) {
		level = &r->p->d1;
	} else if (n == 2 && !strncmp(line + col - 1, "LL", 2)) {
		level = &r->p->ll;
	} else {
		dps_diag_set(r->diag, r->path, r->line, col, "expected D1 or LL after 'level'");
		return DPS_ERR_INVAL;
	}
	if ((ret = read_u64(r, &s, line, "the size in bytes", &size)) ||
	    (ret = read_u64(r, &s, line, "the ways", &assoc)) ||
	    (ret = read_u64(r, &s, line, "the line size in bytes", &bytes))) {
		return ret;
	}
	if (assoc > UINT32_MAX || bytes > UINT32_MAX) {
		dps_diag_set(r->diag, r->path, r->line, 0, "ways or line size over 2^32 - 1");
		return DPS_ERR_RANGE;
	}
	level->size_bytes = size;
	level->assoc = (unsigned)assoc;
	level->line_bytes = (unsigned)bytes;
	return DPS_OK;
}

/* The end of a line that must have nothing more. */
static int expect_end(struct result_reader *r, const char *s, const char *line)
{
	if (*s) {
		dps_diag_set(r->diag, r->path, r->line, (unsigned)(s - line) + 1,
			     "unexpected '%s'; expected the end of the line", s);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

/* `curve-sizes S0 S1 ...` (version 2): ascending sizes, before any total or function */
static int read_curve_sizes(struct result_reader *r, const char *s, const char *line, unsigned col)
{
	uint64_t sizes[CACHE_CURVE_MAX];
	size_t n = 0;
	int ret;

	if (r->version < 2) {
		dps_diag_set(r->diag, r->path, r->line, col,
			     "a miss curve in a file that says version 1: expected 'dps-cache 2'");
		return DPS_ERR_INVAL;
	}
	if (r->p->n_curve || r->total || r->p->functions->len) {
		dps_diag_set(r->diag, r->path, r->line, col,
			     "'curve-sizes' %s; expected it once, before 'total' and the functions",
			     r->p->n_curve ? "again" : "after the counts");
		return DPS_ERR_INVAL;
	}
	while (*s) {
		unsigned at = (unsigned)(s - line) + 1;

		if (n == CACHE_CURVE_MAX) {
			dps_diag_set(r->diag, r->path, r->line, at,
				     "more than %d curve sizes; expected at most that many",
				     CACHE_CURVE_MAX);
			return DPS_ERR_INVAL;
		}
		if ((ret = read_u64(r, &s, line, "an LL size in bytes", &sizes[n]))) {
			return ret;
		}
		if (!sizes[n] || (n && sizes[n] <= sizes[n - 1])) {
			dps_diag_set(r->diag, r->path, r->line, at,
				     "size %llu; expected sizes above 0, each larger than the one "
				     "before",
				     (unsigned long long)sizes[n]);
			return DPS_ERR_INVAL;
		}
		n++;
	}
	if (!n) {
		dps_diag_set(r->diag, r->path, r->line, (unsigned)(s - line) + 1,
			     "expected one or more LL sizes in bytes after 'curve-sizes'");
		return DPS_ERR_INVAL;
	}
	r->p->curve_bytes = g_memdup2(sizes, n * sizeof(*sizes));
	r->p->n_curve = n;
	return DPS_OK;
}

/* `curve KNEE BYTES M0 M1 ...` (version 2): the curve of the total or function line just read,
 * one count per curve size */
static int read_curve(struct result_reader *r, const char *s, const char *line, unsigned col)
{
	static const enum cache_footprint_kind kinds[] = {
	    CACHE_FOOTPRINT_AT, CACHE_FOOTPRINT_BELOW, CACHE_FOOTPRINT_ABOVE, CACHE_FOOTPRINT_NONE};
	struct cache_footprint *fp = r->curve_of;
	enum cache_footprint_kind kind = CACHE_FOOTPRINT_NONE;
	bool known = false;
	uint64_t bytes;
	unsigned kcol;
	size_t n;
	int ret;

	if (!r->p->n_curve) {
		dps_diag_set(r->diag, r->path, r->line, col,
			     "a curve before 'curve-sizes'; expected the sizes first");
		return DPS_ERR_INVAL;
	}
	if (!fp) {
		dps_diag_set(r->diag, r->path, r->line, col,
			     "a curve that follows no 'total' or 'function' line; expected it "
			     "right after the line it belongs to, once");
		return DPS_ERR_INVAL;
	}
	n = next_word(&s, line, &kcol);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds) && !known; i++) {
		const char *w = cache_footprint_kind_word(kinds[i]);

		if (n == strlen(w) && !strncmp(line + kcol - 1, w, n)) {
			kind = kinds[i];
			known = true;
		}
	}
	if (!known) {
		dps_diag_set(r->diag, r->path, r->line, kcol,
			     "expected the knee's kind after 'curve': at, below, above or none");
		return DPS_ERR_INVAL;
	}
	if ((ret = read_u64(r, &s, line, "the footprint in bytes", &bytes))) {
		return ret;
	}
	g_free(fp->ll_misses); /* a second `total` line's curve replaces the first's */
	fp->ll_misses = g_new0(uint64_t, r->p->n_curve);
	for (size_t i = 0; i < r->p->n_curve; i++) {
		if ((ret = read_u64(r, &s, line, "the LL misses at a curve size",
				    &fp->ll_misses[i]))) {
			if (!*s && ret == DPS_ERR_INVAL) {
				dps_diag_set(r->diag, r->path, r->line, (unsigned)(s - line) + 1,
					     "%zu LL miss counts; expected %zu, one per curve size",
					     i, r->p->n_curve);
			}
			return ret;
		}
	}
	fp->kind = kind;
	fp->bytes = bytes;
	r->curve_of = NULL;
	return expect_end(r, s, line);
}

static int read_line(struct result_reader *r, const char *line)
{
	const char *s = line, *kw;
	unsigned col;
	size_t n;
	int ret;

	while (*s == ' ' || *s == '\t') {
		s++;
	}
	if (!*s || *s == '#') {
		return DPS_OK;
	}
	if (r->done) {
		dps_diag_set(r->diag, r->path, r->line, (unsigned)(s - line) + 1,
			     "text after 'end'; expected it to be the last line");
		return DPS_ERR_INVAL;
	}
	n = next_word(&s, line, &col);
	kw = line + col - 1;
#define IS(word) (n == strlen(word) && !strncmp(kw, word, n))
	if (!r->header) {
		uint64_t version;

		if (!IS(RESULT_MAGIC)) {
			dps_diag_set(r->diag, r->path, r->line, col,
				     "expected '" RESULT_MAGIC " %d' (a result file of dps cache "
				     "capture -o)",
				     RESULT_VERSION);
			return DPS_ERR_INVAL;
		}
		if ((ret = read_u64(r, &s, line, "the format version", &version))) {
			return ret;
		}
		if (version < 1 || version > RESULT_VERSION) {
			dps_diag_set(r->diag, r->path, r->line, col,
				     "version %llu of the result file; this dps reads versions 1 "
				     "to %d",
				     (unsigned long long)version, RESULT_VERSION);
			return DPS_ERR_INVAL;
		}
		r->version = version;
		r->header = true;
		return expect_end(r, s, line);
	}
	if (IS("source") || IS("command") || IS("geometry-source")) {
		char **member = IS("source")	? &r->p->source
				: IS("command") ? &r->p->cmd
						: &r->p->geometry_source;

		g_free(*member);
		*member = g_strdup(s);
		return DPS_OK;
	}
	if (IS("level")) {
		r->curve_of = NULL;
		return read_level(r, s, line);
	}
	if (IS("curve-sizes")) {
		return read_curve_sizes(r, s, line, col);
	}
	if (IS("curve")) {
		return read_curve(r, s, line, col);
	}
	r->curve_of = NULL;
	if (IS("total")) {
		if ((ret = read_counts(r, &s, line, &r->p->total))) {
			return ret;
		}
		r->total = true;
		r->curve_of = &r->p->total_footprint;
		return expect_end(r, s, line);
	}
	if (IS("function")) {
		struct cache_function *f = g_new0(struct cache_function, 1);

		g_ptr_array_add(r->p->functions, f);
		if ((ret = read_counts(r, &s, line, &f->counts))) {
			return ret;
		}
		r->curve_of = &f->footprint;
		if (!*s) {
			dps_diag_set(r->diag, r->path, r->line, (unsigned)(s - line) + 1,
				     "expected the function's name after its counts");
			return DPS_ERR_INVAL;
		}
		f->name = g_strdup(s);
		return DPS_OK;
	}
	if (IS("end")) {
		r->done = true;
		return expect_end(r, s, line);
	}
#undef IS
	dps_diag_set(r->diag, r->path, r->line, col,
		     "unknown line '%.*s'; expected source, command, geometry-source, level, "
		     "curve-sizes, total, function, curve or end",
		     (int)n, kw);
	return DPS_ERR_INVAL;
}

int cache_result_read(const char *path, struct cache_profile **out, struct dps_diag *diag)
{
	struct result_reader r = {.path = path, .diag = diag};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = DPS_OK;
	FILE *f;

	*out = NULL;
	f = fopen(path, "r");
	if (!f) {
		dps_diag_setf(diag, "%s: cannot open the capture: %s", path, strerror(errno));
		return errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
	}
	r.p = g_new0(struct cache_profile, 1);
	r.p->functions = g_ptr_array_new_with_free_func(cache_function_free);
	while (ret == DPS_OK && (len = getline(&line, &cap, f)) >= 0) {
		r.line++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
			line[--len] = '\0';
		}
		if ((size_t)len != strlen(line)) {
			dps_diag_set(diag, path, r.line, (unsigned)strlen(line) + 1,
				     "a NUL byte; expected text");
			ret = DPS_ERR_INVAL;
		} else {
			ret = read_line(&r, line);
		}
	}
	if (ret == DPS_OK && ferror(f)) {
		dps_diag_setf(diag, "%s: read error: %s", path, strerror(errno));
		ret = DPS_ERR_IO;
	} else if (ret == DPS_OK && (!r.done || !r.total)) {
		dps_diag_set(diag, path, r.line, 0,
			     "the file ends here without its %s line (cut short?)",
			     r.total ? "'end'" : "'total'");
		ret = DPS_ERR_INVAL;
	}
	free(line);
	fclose(f);
	if (ret) {
		cache_profile_destroy(r.p);
		return ret;
	}
	if (!r.p->cmd) {
		r.p->cmd = g_strdup("");
	}
	*out = r.p;
	return DPS_OK;
}

int cache_capture_read(const char *path, struct cache_profile **out, struct dps_diag *diag)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	bool result = false;

	*out = NULL;
	if (!f) {
		dps_diag_setf(diag, "%s: cannot open the capture: %s", path, strerror(errno));
		return errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
	}
	/* the first line that is not blank or a comment (a result file a person annotated) */
	while (getline(&line, &cap, f) >= 0) {
		const char *s = line + strspn(line, " \t\r\n");

		if (*s && *s != '#') {
			result = !strncmp(s, RESULT_MAGIC, strlen(RESULT_MAGIC)) &&
				 strchr(" \t\r\n", s[strlen(RESULT_MAGIC)]);
			break;
		}
	}
	free(line);
	fclose(f);
	return result ? cache_result_read(path, out, diag) : cache_profile_read(path, out, diag);
}
