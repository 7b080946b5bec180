/* SPDX-License-Identifier: MIT */
/*
 * A capture's outputs: the result file (`dps-cache 1`, doc/cache.md "The result file"), a
 * small line-oriented text a later step reads back, and the table dps cache capture prints.
 * Both name the source of every figure (cachegrind, and the geometry it simulated), since a
 * PMU's counters are the other source of the same figures.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"
#include "text-out.h"

#define TOP_FUNCTIONS 15

void cache_profile_describe(const struct cache_profile *p, char *buf, size_t len)
{
	char d1[64], ll[64];

	cache_level_format(&p->d1, d1, sizeof(d1));
	cache_level_format(&p->ll, ll, sizeof(ll));
	snprintf(buf, len, "%s, simulated D1 %s, LL %s", p->source ? p->source : "cachegrind", d1,
		 ll);
}

/* A name or command on one line, through common/text-out.h: control characters (a newline
 * would end the record) and invalid UTF-8 become '?'. Returns a new string (g_free). */
static char *one_line(const char *s)
{
	size_t len = strlen(s) + 1;
	char *c = g_malloc(len);

	dps_text_sanitize(s, c, len);
	return c;
}

static void write_counts(FILE *f, const char *kind, const struct cache_counts *c)
{
	fprintf(f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, kind,
		c->instructions, c->loads, c->stores, c->d1_misses, c->ll_misses);
}

static const char *const knee_words[] = {
    [CACHE_FOOTPRINT_NONE] = "none",
    [CACHE_FOOTPRINT_AT] = "at",
    [CACHE_FOOTPRINT_BELOW] = "below",
    [CACHE_FOOTPRINT_ABOVE] = "above",
};

const char *cache_footprint_kind_word(enum cache_footprint_kind kind)
{
	return kind <= CACHE_FOOTPRINT_ABOVE ? knee_words[kind] : "none";
}

/* The curve line after a total or function line (version 2): the knee, then the LL misses at
 * each size; nothing for a profile without a curve. */
static void write_curve(FILE *f, const struct cache_profile *p, const struct cache_footprint *fp)
{
	if (!p->n_curve || !fp->ll_misses) {
		return;
	}
	fprintf(f, "curve %s %" PRIu64, cache_footprint_kind_word(fp->kind), fp->bytes);
	for (size_t i = 0; i < p->n_curve; i++) {
		fprintf(f, " %" PRIu64, fp->ll_misses[i]);
	}
	fputc('\n', f);
}

/* One function line: the figures, then the name (the rest of the line); its curve after it. */
static void write_function(FILE *f, const struct cache_profile *p, const struct cache_function *fn)
{
	char *name = one_line(fn->name);

	write_counts(f, "function", &fn->counts);
	fprintf(f, " %s\n", name);
	g_free(name);
	write_curve(f, p, &fn->footprint);
}

int cache_result_write(FILE *f, const struct cache_profile *p, const struct cache_geometry *geom,
		       const char *const *names, size_t n)
{
	char *cmd = one_line(p->cmd);

	/* version 1 when there is no curve: what an older dps reads */
	fprintf(f, "dps-cache %d\n", p->n_curve ? 2 : 1);
	fprintf(f, "source cachegrind\n");
	fprintf(f, "command %s\n", cmd);
	g_free(cmd);
	fprintf(f, "geometry-source %s\n", geom && geom->source[0] ? geom->source : "cachegrind");
	fprintf(f, "level D1 %" PRIu64 " %u %u\n", p->d1.size_bytes, p->d1.assoc, p->d1.line_bytes);
	fprintf(f, "level LL %" PRIu64 " %u %u\n", p->ll.size_bytes, p->ll.assoc, p->ll.line_bytes);
	if (p->n_curve) {
		fprintf(f, "curve-sizes");
		for (size_t i = 0; i < p->n_curve; i++) {
			fprintf(f, " %" PRIu64, p->curve_bytes[i]);
		}
		fputc('\n', f);
	}
	fprintf(f, "# counts: instructions loads stores d1_misses ll_misses\n");
	if (p->n_curve) {
		fprintf(f,
			"# curve (of the line above): the knee (at, below, above) and its bytes, "
			"then the LL misses at each curve size\n");
	}
	write_counts(f, "total", &p->total);
	fputc('\n', f);
	write_curve(f, p, &p->total_footprint);
	for (size_t i = 0; i < n; i++) {
		const struct cache_function *fn = cache_profile_borrow_function(p, names[i]);

		if (fn) {
			write_function(f, p, fn);
		}
	}
	for (guint i = 0; !n && i < p->functions->len; i++) {
		const struct cache_function *fn = g_ptr_array_index(p->functions, i);

		if (fn->counts.loads || fn->counts.stores) {
			write_function(f, p, fn);
		}
	}
	fprintf(f, "end\n");
	return ferror(f) ? DPS_ERR_IO : DPS_OK;
}

/* Descending data accesses, for the top of the table. */
static gint by_accesses(gconstpointer a, gconstpointer b)
{
	const struct cache_function *x = *(const struct cache_function *const *)a;
	const struct cache_function *y = *(const struct cache_function *const *)b;
	uint64_t ax = x->counts.loads + x->counts.stores, ay = y->counts.loads + y->counts.stores;

	return ax < ay ? 1 : ax > ay ? -1 : strcmp(x->name, y->name);
}

/* A miss ratio in percent of the data accesses, "-" when there were none. */
static void ratio(char *buf, size_t len, uint64_t misses, uint64_t accesses)
{
	if (!accesses) {
		snprintf(buf, len, "-");
	} else {
		snprintf(buf, len, "%.2f", 100.0 * (double)misses / (double)accesses);
	}
}

/* A row; with a curve, the footprint after the ratios. */
static void print_row(FILE *f, const struct cache_profile *p, const char *name,
		      const struct cache_counts *c, const struct cache_footprint *fp)
{
	uint64_t acc = c->loads + c->stores;
	char d1[32], ll[32], foot[48];

	ratio(d1, sizeof(d1), c->d1_misses, acc);
	ratio(ll, sizeof(ll), c->ll_misses, acc);
	fprintf(f,
		"%-28s %14" PRIu64 " %12" PRIu64 " %12" PRIu64 " %11" PRIu64 " %11" PRIu64
		" %7s %7s",
		name, c->instructions, c->loads, c->stores, c->d1_misses, c->ll_misses, d1, ll);
	if (p->n_curve) {
		cache_footprint_format(fp, foot, sizeof(foot));
		fprintf(f, " %10s", foot);
	}
	fputc('\n', f);
}

int cache_table_print(FILE *f, const struct cache_profile *p, const char *const *names, size_t n,
		      struct dps_diag *diag)
{
	GPtrArray *rows = g_ptr_array_new();
	char what[256];

	for (size_t i = 0; i < n; i++) {
		const struct cache_function *fn = cache_profile_borrow_function(p, names[i]);

		if (!fn) {
			dps_diag_setf(diag,
				      "function '%s' is not in the profile (never run, or inlined: "
				      "mark it noinline, or build with -fno-inline)",
				      names[i]);
			g_ptr_array_free(rows, TRUE);
			return DPS_ERR_NOENT;
		}
		g_ptr_array_add(rows, (gpointer)fn);
	}
	if (!n) {
		for (guint i = 0; i < p->functions->len; i++) {
			const struct cache_function *fn = g_ptr_array_index(p->functions, i);

			if (fn->counts.loads || fn->counts.stores) {
				g_ptr_array_add(rows, (gpointer)fn);
			}
		}
		g_ptr_array_sort(rows, by_accesses);
		if (rows->len > TOP_FUNCTIONS) {
			g_ptr_array_set_size(rows, TOP_FUNCTIONS);
		}
	}
	cache_profile_describe(p, what, sizeof(what));
	fprintf(f, "source: %s\n", what);
	fprintf(f, "%-28s %14s %12s %12s %11s %11s %7s %7s", "function", "instructions", "loads",
		"stores", "D1 misses", "LL misses", "D1 %", "LL %");
	fprintf(f, p->n_curve ? " %10s\n" : "\n", "footprint");
	for (guint i = 0; i < rows->len; i++) {
		const struct cache_function *fn = g_ptr_array_index(rows, i);
		char *name = one_line(fn->name);

		print_row(f, p, name, &fn->counts, &fn->footprint);
		g_free(name);
	}
	print_row(f, p, "(whole program)", &p->total, &p->total_footprint);
	if (p->n_curve) {
		char lo[48], hi[48];
		struct cache_footprint a = {.kind = CACHE_FOOTPRINT_AT, .bytes = p->curve_bytes[0]};
		struct cache_footprint b = {.kind = CACHE_FOOTPRINT_AT,
					    .bytes = p->curve_bytes[p->n_curve - 1]};

		cache_footprint_format(&a, lo, sizeof(lo));
		cache_footprint_format(&b, hi, sizeof(hi));
		fprintf(f,
			"footprint: the knee of the LL miss curve, %zu cachegrind runs at LL sizes "
			"%s to %s (<= the smallest: fits it; > the largest: no drop)\n",
			p->n_curve, lo, hi);
	}
	g_ptr_array_free(rows, TRUE);
	return DPS_OK;
}
