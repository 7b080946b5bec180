/* SPDX-License-Identifier: MIT */
/*
 * Reading cachegrind's output file (Valgrind manual, "Cachegrind output file format") into
 * per-function totals. The file is text, one record a line:
 *
 *   desc: D1 cache:  49152 B, 64 B, 12-way associative     free text; the cache lines are read
 *   cmd: ./prog --ws 65536                                 the command
 *   events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw         the columns of every count line
 *   fl=file.c                                              the source file of what follows
 *   fn=function                                            the function of what follows
 *   13 25165824 0 0 8388608 1048577 ...                    a source line and its counts (fewer
 *                                                          than the events: the rest are 0)
 *   summary: 325666 1158 ...                               the whole run, one count per event
 *
 * A function's figures are the sum of its count lines over every fl= it appears under (code
 * inlined from a header comes under the header's fl=). The summary must equal the sum of all
 * count lines: a file cut short or damaged in the middle is refused, not half read. Errors
 * name the file, the line and the column, and what was expected there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"

/* The events dps keeps, in this order; a file must have them all. */
enum cg_event { CG_IR, CG_DR, CG_DW, CG_D1MR, CG_D1MW, CG_DLMR, CG_DLMW, CG_N };
static const char *const cg_event_names[CG_N] = {"Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw"};

/* At most this many columns: cachegrind writes 9 with the cache simulation, 13 with branches. */
#define CG_MAX_EVENTS 64

struct cg_reader {
	const char *path;  /* borrowed */
	unsigned line;	   /* the line being read, from 1 */
	unsigned n_events; /* columns of the events: line; 0 before it */
	int column[CG_N];  /* each kept event's column among them */
	uint64_t sum[CG_MAX_EVENTS];
	char *file;		   /* owned: the current fl= */
	struct cache_function *fn; /* borrowed from p: the current fn= */
	GHashTable *by_name;	   /* name -> struct cache_function * (p's) */
	struct cache_profile *p;   /* the profile being filled */
	struct dps_diag *diag;
};

void cache_profile_destroy(struct cache_profile *p)
{
	if (!p) {
		return;
	}
	g_free(p->cmd);
	g_free(p->source);
	g_free(p->geometry_source);
	if (p->functions) {
		g_ptr_array_free(p->functions, TRUE);
	}
	g_free(p->curve_bytes);
	g_free(p->total_footprint.ll_misses);
	g_free(p);
}

void cache_function_free(void *data)
{
	struct cache_function *f = data;

	g_free(f->name);
	g_free(f->file);
	g_free(f->footprint.ll_misses);
	g_free(f);
}

const struct cache_function *cache_profile_borrow_function(const struct cache_profile *p,
							   const char *name)
{
	for (guint i = 0; i < p->functions->len; i++) {
		const struct cache_function *f = g_ptr_array_index(p->functions, i);

		if (!strcmp(f->name, name)) {
			return f;
		}
	}
	return NULL;
}

/*
 * The next whitespace-separated decimal number at *s into *v, *s moved past it; *col is its
 * column (from 1, in line). Returns DPS_OK, DPS_ERR_INVAL (not a number: nothing read),
 * DPS_ERR_RANGE (over 2^64 - 1), or 1 at the end of the line.
 */
static int next_number(const char **s, const char *line, unsigned *col, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	while (*p == ' ' || *p == '\t') {
		p++;
	}
	*col = (unsigned)(p - line) + 1;
	if (!*p) {
		*s = p;
		return 1;
	}
	if (*p < '0' || *p > '9') {
		return DPS_ERR_INVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10) {
			return DPS_ERR_RANGE;
		}
		x = x * 10 + d;
	}
	if (*p && *p != ' ' && *p != '\t') {
		return DPS_ERR_INVAL;
	}
	*s = p;
	*v = x;
	return DPS_OK;
}

/* Reads "N B, L B, A-way" after "D1 cache:" or "LL cache:" in a desc: line into *level. A desc
 * line of another shape is free text, not an error. */
static void read_desc(struct cg_reader *r, const char *text)
{
	struct cache_level *level = NULL;
	uint64_t size;
	unsigned line, assoc;
	const char *p;

	while (*text == ' ') {
		text++;
	}
	if (!strncmp(text, "D1 cache:", 9)) {
		level = &r->p->d1;
	} else if (!strncmp(text, "LL cache:", 9)) {
		level = &r->p->ll;
	} else {
		return;
	}
	p = text + 9;
	if (sscanf(p, " %" SCNu64 " B, %u B, %u-way", &size, &line, &assoc) == 3) {
		level->size_bytes = size;
		level->line_bytes = line;
		level->assoc = assoc;
	}
}

/* The events: line: its columns, and where the kept ones are. */
static int read_events(struct cg_reader *r, const char *text)
{
	gchar **names = g_strsplit_set(text, " \t", -1);
	unsigned n = 0;
	int ret = DPS_OK;

	if (r->n_events) {
		dps_diag_set(r->diag, r->path, r->line, 1,
			     "a second 'events:' line; expected one, before the counts");
		ret = DPS_ERR_INVAL;
		goto end;
	}
	for (int e = 0; e < CG_N; e++) {
		r->column[e] = -1;
	}
	for (gchar **name = names; *name; name++) {
		if (!**name) {
			continue;
		}
		if (n == CG_MAX_EVENTS) {
			dps_diag_set(r->diag, r->path, r->line, 1,
				     "more than %d events; expected cachegrind's (at most 13)",
				     CG_MAX_EVENTS);
			ret = DPS_ERR_INVAL;
			goto end;
		}
		for (int e = 0; e < CG_N; e++) {
			if (!strcmp(*name, cg_event_names[e]) && r->column[e] < 0) {
				r->column[e] = (int)n;
			}
		}
		n++;
	}
	for (int e = 0; e < CG_N; e++) {
		if (r->column[e] < 0) {
			dps_diag_set(r->diag, r->path, r->line, 1,
				     "the 'events:' line has no %s; expected Ir, Dr, Dw, D1mr, "
				     "D1mw, DLmr and DLmw (cachegrind run with --cache-sim=yes)",
				     cg_event_names[e]);
			ret = DPS_ERR_INVAL;
			goto end;
		}
	}
	r->n_events = n;
end:
	g_strfreev(names);
	return ret;
}

/*
 * Reads up to max counts from s into v (the rest 0); *n gets how many there were. Returns
 * DPS_OK, DPS_ERR_INVAL or DPS_ERR_RANGE (diag says where), or 1 when there are more than max
 * (*col: where the first one too many starts; the caller says what was expected).
 */
static int read_counts(struct cg_reader *r, const char *s, const char *line, unsigned max,
		       uint64_t *v, unsigned *n, unsigned *col)
{
	uint64_t x;
	int ret;

	memset(v, 0, sizeof(*v) * max);
	*n = 0;
	while ((ret = next_number(&s, line, col, &x)) == DPS_OK) {
		if (*n == max) {
			return 1;
		}
		v[(*n)++] = x;
	}
	if (ret == DPS_ERR_INVAL) {
		dps_diag_set(r->diag, r->path, r->line, *col, "expected a count (a whole number)");
	} else if (ret == DPS_ERR_RANGE) {
		dps_diag_set(r->diag, r->path, r->line, *col, "count over 2^64 - 1");
	}
	return ret < 0 ? ret : DPS_OK;
}

/* The counts of kept events of v into c. */
static void add_counts(struct cache_counts *c, const int *column, const uint64_t *v)
{
	c->instructions += v[column[CG_IR]];
	c->loads += v[column[CG_DR]];
	c->stores += v[column[CG_DW]];
	c->d1_misses += v[column[CG_D1MR]] + v[column[CG_D1MW]];
	c->ll_misses += v[column[CG_DLMR]] + v[column[CG_DLMW]];
}

/* fn=NAME: the function the next count lines belong to. */
static void enter_function(struct cg_reader *r, const char *name)
{
	struct cache_function *f = g_hash_table_lookup(r->by_name, name);

	if (!f) {
		f = g_new0(struct cache_function, 1);
		f->name = g_strdup(name);
		f->file = g_strdup(r->file ? r->file : "???");
		g_ptr_array_add(r->p->functions, f);
		g_hash_table_insert(r->by_name, f->name, f);
	}
	r->fn = f;
}

/* A line "LINE COUNT..." of the current function. */
static int read_count_line(struct cg_reader *r, const char *line)
{
	uint64_t v[CG_MAX_EVENTS + 1];
	unsigned n, col;
	int ret;

	if (!r->n_events) {
		dps_diag_set(r->diag, r->path, r->line, 1,
			     "a count line before the 'events:' line; expected 'events:' naming "
			     "the columns first");
		return DPS_ERR_INVAL;
	}
	if (!r->fn) {
		dps_diag_set(r->diag, r->path, r->line, 1,
			     "a count line before any 'fn=' line; expected 'fn=FUNCTION' first");
		return DPS_ERR_INVAL;
	}
	/* the source line number, then the counts */
	ret = read_counts(r, line, line, r->n_events + 1, v, &n, &col);
	if (ret == 1) {
		dps_diag_set(r->diag, r->path, r->line, col,
			     "too many fields: expected a line number and at most %u counts (the "
			     "'events:' line names %u events)",
			     r->n_events, r->n_events);
		return DPS_ERR_INVAL;
	}
	if (ret) {
		return ret;
	}
	for (unsigned i = 0; i < r->n_events; i++) {
		r->sum[i] += v[i + 1];
	}
	add_counts(&r->fn->counts, r->column, v + 1);
	return DPS_OK;
}

/* summary: one count per event, equal to the sum of the count lines. */
static int read_summary(struct cg_reader *r, const char *text, const char *line)
{
	uint64_t v[CG_MAX_EVENTS];
	unsigned n, col;
	int ret;

	if (!r->n_events) {
		dps_diag_set(r->diag, r->path, r->line, 1,
			     "'summary:' before the 'events:' line; expected 'events:' first");
		return DPS_ERR_INVAL;
	}
	ret = read_counts(r, text, line, r->n_events, v, &n, &col);
	if (ret == 1 || (ret == DPS_OK && n != r->n_events)) {
		dps_diag_set(r->diag, r->path, r->line, ret == 1 ? col : (unsigned)strlen(line) + 1,
			     "expected %u counts in 'summary:', one per event, found %s%u",
			     r->n_events, ret == 1 ? "more than " : "", ret == 1 ? r->n_events : n);
		return DPS_ERR_INVAL;
	}
	if (ret) {
		return ret;
	}
	for (unsigned i = 0; i < n; i++) {
		if (v[i] != r->sum[i]) {
			dps_diag_set(r->diag, r->path, r->line, 1,
				     "'summary:' does not match the counts above it (event %u: "
				     "%" PRIu64 " in the summary, %" PRIu64 " summed): the file is "
				     "damaged",
				     i + 1, v[i], r->sum[i]);
			return DPS_ERR_INVAL;
		}
	}
	add_counts(&r->p->total, r->column, v);
	return DPS_OK;
}

/* One line, its newline cut. Sets *done at summary:. */
static int read_line(struct cg_reader *r, const char *line, bool *done)
{
	if (!strncmp(line, "desc:", 5)) {
		read_desc(r, line + 5);
	} else if (!strncmp(line, "cmd:", 4)) {
		const char *c = line + 4;

		while (*c == ' ') {
			c++;
		}
		g_free(r->p->cmd);
		r->p->cmd = g_strdup(c);
	} else if (!strncmp(line, "events:", 7)) {
		return read_events(r, line + 7);
	} else if (!strncmp(line, "fl=", 3) || !strncmp(line, "fi=", 3) ||
		   !strncmp(line, "fe=", 3)) {
		g_free(r->file);
		r->file = g_strdup(line + 3);
	} else if (!strncmp(line, "fn=", 3)) {
		enter_function(r, line + 3);
	} else if (!strncmp(line, "summary:", 8)) {
		*done = true;
		return read_summary(r, line + 8, line);
	} else if (*line >= '0' && *line <= '9') {
		return read_count_line(r, line);
	} else if (*line) {
		dps_diag_set(r->diag, r->path, r->line, 1,
			     "expected 'desc:', 'cmd:', 'events:', 'fl=', 'fn=', a count line "
			     "(LINE COUNT...) or 'summary:'");
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

int cache_profile_read(const char *path, struct cache_profile **out, struct dps_diag *diag)
{
	struct cg_reader r = {.path = path, .diag = diag};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool done = false;
	int ret = DPS_OK;
	FILE *f;

	*out = NULL;
	f = fopen(path, "r");
	if (!f) {
		dps_diag_setf(diag, "%s: cannot open the cachegrind output: %s", path,
			      strerror(errno));
		return errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
	}
	r.p = g_new0(struct cache_profile, 1);
	r.p->functions = g_ptr_array_new_with_free_func(cache_function_free);
	r.by_name = g_hash_table_new(g_str_hash, g_str_equal);
	while (ret == DPS_OK && (len = getline(&line, &cap, f)) >= 0) {
		r.line++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
			line[--len] = '\0';
		}
		if ((size_t)len != strlen(line)) {
			dps_diag_set(diag, path, r.line, (unsigned)strlen(line) + 1,
				     "a NUL byte; expected text");
			ret = DPS_ERR_INVAL;
		} else if (done && *line) {
			dps_diag_set(diag, path, r.line, 1,
				     "text after 'summary:'; expected it to be the last line");
			ret = DPS_ERR_INVAL;
		} else {
			ret = read_line(&r, line, &done);
		}
	}
	if (ret == DPS_OK && ferror(f)) {
		dps_diag_setf(diag, "%s: read error: %s", path, strerror(errno));
		ret = DPS_ERR_IO;
	} else if (ret == DPS_OK && !r.n_events) {
		dps_diag_set(diag, path, r.line, 0,
			     "the file ends without an 'events:' line; expected cachegrind's "
			     "output (desc:, cmd:, events:, counts, summary:)");
		ret = DPS_ERR_INVAL;
	} else if (ret == DPS_OK && !done) {
		dps_diag_set(diag, path, r.line, 0,
			     "the file ends here without its 'summary:' line (cut short?)");
		ret = DPS_ERR_INVAL;
	}
	free(line);
	fclose(f);
	g_hash_table_destroy(r.by_name);
	g_free(r.file);
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
