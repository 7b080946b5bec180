/* SPDX-License-Identifier: MIT */
/*
 * The profile file (JSON through json-glib, written whole or not at all), the profile's text
 * table, and the prediction as text and JSON (doc/memory-predict.md, "Files").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "atomic-out.h"
#include "mempredict.h"

#define PROFILE_FORMAT "dps-memory-profile"
#define PROFILE_VERSION 1

static void add_uint(JsonBuilder *b, const char *k, uint64_t v)
{
	json_builder_set_member_name(b, k);
	json_builder_add_int_value(b, (gint64)v);
}

static void add_double(JsonBuilder *b, const char *k, double v)
{
	json_builder_set_member_name(b, k);
	if (isfinite(v)) {
		json_builder_add_double_value(b, v);
	} else {
		json_builder_add_null_value(b);
	}
}

static void add_string(JsonBuilder *b, const char *k, const char *v)
{
	json_builder_set_member_name(b, k);
	json_builder_add_string_value(b, v);
}

/* The builder's document as pretty text (g_free). */
static char *builder_text(JsonBuilder *b)
{
	JsonGenerator *g = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	char *s;

	json_generator_set_pretty(g, TRUE);
	json_generator_set_indent(g, 1);
	json_generator_set_root(g, root);
	s = json_generator_to_data(g, NULL);
	json_node_unref(root);
	g_object_unref(g);
	return s;
}

static void build_class(JsonBuilder *b, const struct mp_class_stats *c)
{
	json_builder_begin_object(b);
	add_string(b, "name", c->name);
	add_uint(b, "allocated", c->allocated);
	add_uint(b, "max_active", c->max_active);
	add_uint(b, "end_active", c->end_active);
	add_uint(b, "live_max", c->live_max);
	add_double(b, "avg_active", c->avg_active);
	add_uint(b, "bytes", c->bytes);
	add_uint(b, "peak_live_bytes", c->peak_live_bytes);
	add_double(b, "avg_live_bytes", c->avg_live_bytes);
	add_uint(b, "live_at_peak_bytes", c->live_at_peak_bytes);
	add_double(b, "avg_size", c->avg_size);
	add_uint(b, "max_size", c->max_size);
	json_builder_end_object(b);
}

static void build_series(JsonBuilder *b, const struct mp_series *s)
{
	json_builder_set_member_name(b, "series");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "t_ns");
	json_builder_begin_array(b);
	for (size_t k = 0; k < s->n_points; k++) {
		json_builder_add_int_value(b, (gint64)s->t_ns[k]);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "classes");
	json_builder_begin_array(b);
	for (size_t j = 0; j < s->n_rows; j++) {
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "name");
		if (s->names[j]) {
			json_builder_add_string_value(b, s->names[j]);
		} else {
			json_builder_add_null_value(b); /* the other classes, summed */
		}
		json_builder_set_member_name(b, "bytes");
		json_builder_begin_array(b);
		for (size_t k = 0; k < s->n_points; k++) {
			json_builder_add_int_value(b, (gint64)s->bytes[j * s->n_points + k]);
		}
		json_builder_end_array(b);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
}

int mp_profile_save(const struct mp_profile *p, const char *path, struct dps_diag *diag)
{
	JsonBuilder *b = json_builder_new();
	struct dps_out_file of = {0};
	char *text;
	int rc;

	json_builder_begin_object(b);
	add_string(b, "format", PROFILE_FORMAT);
	add_uint(b, "version", PROFILE_VERSION);
	json_builder_set_member_name(b, "datasets");
	json_builder_begin_array(b);
	for (size_t i = 0; i < p->n_sets; i++) {
		const struct mp_dataset *d = &p->sets[i];

		json_builder_begin_object(b);
		add_string(b, "run", d->run);
		if (d->command) {
			add_string(b, "command", d->command);
		}
		add_string(b, "phase", d->phase);
		add_double(b, "size", d->size >= 0 ? d->size : NAN);
		add_uint(b, "duration_ns", d->duration_ns);
		add_uint(b, "peak_bytes", d->peak_bytes);
		add_double(b, "avg_bytes", d->avg_bytes);
		add_uint(b, "start_bytes", d->start_bytes);
		add_uint(b, "end_bytes", d->end_bytes);
		json_builder_set_member_name(b, "classes");
		json_builder_begin_array(b);
		for (size_t j = 0; j < d->n_classes; j++) {
			build_class(b, &d->classes[j]);
		}
		json_builder_end_array(b);
		build_series(b, &d->series);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	text = builder_text(b);
	g_object_unref(b);
	rc = dps_out_file_open(&of, path, diag);
	if (rc) {
		goto free_text;
	}
	if (fputs(text, of.f) == EOF || fputc('\n', of.f) == EOF) {
		dps_diag_setf(diag, "cannot write %s: %s", path, strerror(errno));
		dps_out_file_abort(&of);
		rc = DPS_ERR_IO;
		goto free_text;
	}
	rc = dps_out_file_commit(&of, diag);
free_text:
	g_free(text);
	return rc;
}

/*
 * Loading
 */
struct loader {
	const char *path;
	struct dps_diag *diag;
	int rc;
};

/* A number member of o; a missing or non-number one fails the load with its name. */
static double get_num(struct loader *l, JsonObject *o, const char *what, const char *k,
		      bool nullable)
{
	JsonNode *n = json_object_get_member(o, k);
	double v;

	if (n && nullable && JSON_NODE_HOLDS_NULL(n)) {
		return -1;
	}
	if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
	    (json_node_get_value_type(n) != G_TYPE_INT64 &&
	     json_node_get_value_type(n) != G_TYPE_DOUBLE)) {
		if (!l->rc) {
			dps_diag_setf(l->diag, "%s: %s: expected a number member \"%s\"", l->path,
				      what, k);
			l->rc = DPS_ERR_INVAL;
		}
		return 0;
	}
	v = json_node_get_value_type(n) == G_TYPE_INT64 ? (double)json_node_get_int(n)
							: json_node_get_double(n);
	/* every figure of a profile is a count, bytes or time: >= 0, and fits a uint64_t */
	if (!(v >= 0 && v < 1.8e19)) {
		if (!l->rc) {
			dps_diag_setf(l->diag, "%s: %s: \"%s\" is %g: expected a number >= 0",
				      l->path, what, k, v);
			l->rc = DPS_ERR_INVAL;
		}
		return 0;
	}
	return v;
}

static char *get_str(struct loader *l, JsonObject *o, const char *what, const char *k)
{
	JsonNode *n = json_object_get_member(o, k);

	if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
		if (!l->rc) {
			dps_diag_setf(l->diag, "%s: %s: expected a string member \"%s\"", l->path,
				      what, k);
			l->rc = DPS_ERR_INVAL;
		}
		return strdup("");
	}
	return strdup(json_node_get_string(n));
}

static JsonArray *get_array(struct loader *l, JsonObject *o, const char *what, const char *k)
{
	JsonNode *n = json_object_get_member(o, k);

	if (!n || !JSON_NODE_HOLDS_ARRAY(n)) {
		if (!l->rc) {
			dps_diag_setf(l->diag, "%s: %s: expected an array member \"%s\"", l->path,
				      what, k);
			l->rc = DPS_ERR_INVAL;
		}
		return NULL;
	}
	return json_node_get_array(n);
}

static void load_class(struct loader *l, JsonNode *n, const char *what, struct mp_class_stats *c)
{
	JsonObject *o;

	if (!JSON_NODE_HOLDS_OBJECT(n)) {
		dps_diag_setf(l->diag, "%s: %s: expected an object", l->path, what);
		l->rc = DPS_ERR_INVAL;
		return;
	}
	o = json_node_get_object(n);
	c->name = get_str(l, o, what, "name");
	c->allocated = (uint64_t)get_num(l, o, what, "allocated", false);
	c->max_active = (uint64_t)get_num(l, o, what, "max_active", false);
	c->end_active = (uint64_t)get_num(l, o, what, "end_active", false);
	c->live_max = (uint64_t)get_num(l, o, what, "live_max", false);
	c->avg_active = get_num(l, o, what, "avg_active", false);
	c->bytes = (uint64_t)get_num(l, o, what, "bytes", false);
	c->peak_live_bytes = (uint64_t)get_num(l, o, what, "peak_live_bytes", false);
	c->avg_live_bytes = get_num(l, o, what, "avg_live_bytes", false);
	c->live_at_peak_bytes = (uint64_t)get_num(l, o, what, "live_at_peak_bytes", false);
	c->avg_size = get_num(l, o, what, "avg_size", false);
	c->max_size = (uint64_t)get_num(l, o, what, "max_size", false);
}

/* The numbers of array a (n of them) into v; false (diag set) when one is not a number. */
static bool load_numbers(struct loader *l, JsonArray *a, const char *what, uint64_t *v)
{
	for (guint k = 0; k < json_array_get_length(a); k++) {
		JsonNode *e = json_array_get_element(a, k);

		if (!JSON_NODE_HOLDS_VALUE(e) || json_node_get_value_type(e) != G_TYPE_INT64 ||
		    json_node_get_int(e) < 0) {
			dps_diag_setf(l->diag, "%s: %s[%u]: expected an integer >= 0", l->path,
				      what, k);
			l->rc = DPS_ERR_INVAL;
			return false;
		}
		v[k] = (uint64_t)json_node_get_int(e);
	}
	return true;
}

/* The optional "series" member of data set o (a profile written before it had none). */
static void load_series(struct loader *l, JsonObject *o, const char *what, struct mp_series *s)
{
	JsonNode *n = json_object_get_member(o, "series");
	JsonArray *t, *rows;
	char w[160];

	if (!n) {
		return;
	}
	snprintf(w, sizeof(w), "%s.series", what);
	if (!JSON_NODE_HOLDS_OBJECT(n)) {
		dps_diag_setf(l->diag, "%s: %s: expected an object", l->path, w);
		l->rc = DPS_ERR_INVAL;
		return;
	}
	t = get_array(l, json_node_get_object(n), w, "t_ns");
	rows = t ? get_array(l, json_node_get_object(n), w, "classes") : NULL;
	if (!rows) {
		return;
	}
	s->n_points = json_array_get_length(t);
	s->t_ns = calloc(s->n_points + 1, sizeof(*s->t_ns));
	s->names = calloc(json_array_get_length(rows) + 1, sizeof(*s->names));
	s->bytes = calloc(s->n_points * json_array_get_length(rows) + 1, sizeof(*s->bytes));
	if (!s->t_ns || !s->names || !s->bytes) {
		l->rc = DPS_ERR_NOMEM;
		return;
	}
	snprintf(w, sizeof(w), "%s.series.t_ns", what);
	if (!load_numbers(l, t, w, s->t_ns)) {
		return;
	}
	for (guint j = 0; j < json_array_get_length(rows) && !l->rc; j++) {
		JsonNode *e = json_array_get_element(rows, j), *name;
		JsonArray *v;

		snprintf(w, sizeof(w), "%s.series.classes[%u]", what, j);
		if (!JSON_NODE_HOLDS_OBJECT(e)) {
			dps_diag_setf(l->diag, "%s: %s: expected an object", l->path, w);
			l->rc = DPS_ERR_INVAL;
			return;
		}
		name = json_object_get_member(json_node_get_object(e), "name");
		if (!name || JSON_NODE_HOLDS_NULL(name)) {
			s->names[j] = NULL;
		} else {
			s->names[j] = get_str(l, json_node_get_object(e), w, "name");
		}
		s->n_rows++;
		v = get_array(l, json_node_get_object(e), w, "bytes");
		if (!v) {
			return;
		}
		if (json_array_get_length(v) != s->n_points) {
			dps_diag_setf(l->diag, "%s: %s: %u bytes for %zu times", l->path, w,
				      json_array_get_length(v), s->n_points);
			l->rc = DPS_ERR_INVAL;
			return;
		}
		snprintf(w, sizeof(w), "%s.series.classes[%u].bytes", what, j);
		load_numbers(l, v, w, s->bytes + (size_t)j * s->n_points);
	}
}

static void load_set(struct loader *l, JsonNode *n, size_t i, struct mp_dataset *d)
{
	JsonObject *o;
	JsonArray *cls;
	char what[64];

	snprintf(what, sizeof(what), "datasets[%zu]", i);
	if (!JSON_NODE_HOLDS_OBJECT(n)) {
		dps_diag_setf(l->diag, "%s: %s: expected an object", l->path, what);
		l->rc = DPS_ERR_INVAL;
		return;
	}
	o = json_node_get_object(n);
	d->run = get_str(l, o, what, "run");
	/* optional: a profile of a trace without record.info, or of an older dps */
	if (json_object_has_member(o, "command")) {
		d->command = get_str(l, o, what, "command");
	}
	d->phase = get_str(l, o, what, "phase");
	d->size = get_num(l, o, what, "size", true);
	d->duration_ns = (uint64_t)get_num(l, o, what, "duration_ns", false);
	d->peak_bytes = (uint64_t)get_num(l, o, what, "peak_bytes", false);
	d->avg_bytes = get_num(l, o, what, "avg_bytes", false);
	d->start_bytes = (uint64_t)get_num(l, o, what, "start_bytes", false);
	d->end_bytes = (uint64_t)get_num(l, o, what, "end_bytes", false);
	cls = get_array(l, o, what, "classes");
	if (!cls) {
		return;
	}
	d->classes = calloc(json_array_get_length(cls) + 1, sizeof(*d->classes));
	if (!d->classes) {
		l->rc = DPS_ERR_NOMEM;
		return;
	}
	for (guint j = 0; j < json_array_get_length(cls) && !l->rc; j++) {
		char cwhat[96];

		snprintf(cwhat, sizeof(cwhat), "%s.classes[%u]", what, j);
		load_class(l, json_array_get_element(cls, j), cwhat, &d->classes[j]);
		d->n_classes++;
	}
	if (!l->rc) {
		load_series(l, o, what, &d->series);
	}
}

int mp_profile_load(const char *path, struct mp_profile *p, struct dps_diag *diag)
{
	JsonParser *parser = json_parser_new();
	struct loader l = {.path = path, .diag = diag};
	GError *err = NULL;
	JsonObject *root;
	JsonArray *sets;
	JsonNode *fmt;

	memset(p, 0, sizeof(*p));
	if (access(path, R_OK)) {
		dps_diag_setf(diag, "cannot read the profile %s: %s", path, strerror(errno));
		l.rc = errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
		goto free_parser;
	}
	if (!json_parser_load_from_file(parser, path, &err)) {
		/* json-glib's message says where: "<data>:LINE:COL: Parse error: ..." */
		dps_diag_setf(diag, "%s: not a dps memory profile (JSON): %s", path, err->message);
		g_error_free(err);
		l.rc = DPS_ERR_INVAL;
		goto free_parser;
	}
	if (!json_parser_get_root(parser) ||
	    !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser))) {
		dps_diag_setf(diag, "%s: expected a JSON object (a dps memory profile)", path);
		l.rc = DPS_ERR_INVAL;
		goto free_parser;
	}
	root = json_node_get_object(json_parser_get_root(parser));
	fmt = json_object_get_member(root, "format");
	if (!fmt || !JSON_NODE_HOLDS_VALUE(fmt) || json_node_get_value_type(fmt) != G_TYPE_STRING ||
	    strcmp(json_node_get_string(fmt), PROFILE_FORMAT)) {
		dps_diag_setf(diag, "%s: not a dps memory profile (expected \"format\": \"%s\")",
			      path, PROFILE_FORMAT);
		l.rc = DPS_ERR_INVAL;
		goto free_parser;
	}
	if (get_num(&l, root, "the profile", "version", false) != PROFILE_VERSION && !l.rc) {
		dps_diag_setf(diag, "%s: profile version %g: expected %d", path,
			      get_num(&l, root, "the profile", "version", false), PROFILE_VERSION);
		l.rc = DPS_ERR_INVAL;
	}
	sets = l.rc ? NULL : get_array(&l, root, "the profile", "datasets");
	if (!sets) {
		goto free_parser;
	}
	p->sets = calloc(json_array_get_length(sets) + 1, sizeof(*p->sets));
	if (!p->sets) {
		l.rc = DPS_ERR_NOMEM;
		goto free_parser;
	}
	for (guint i = 0; i < json_array_get_length(sets) && !l.rc; i++) {
		load_set(&l, json_array_get_element(sets, i), i, &p->sets[i]);
		p->n_sets++;
	}
free_parser:
	g_object_unref(parser);
	if (l.rc) {
		mp_profile_fini(p);
	}
	return l.rc;
}

/*
 * Text
 */
const char *mp_human_bytes(double b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
	int u = 0;

	while (fabs(b) >= 1000 && u < 4) {
		b /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
	return buf;
}

void mp_profile_print(const struct mp_profile *p, FILE *out)
{
	char h1[32], h2[32], h3[32];

	for (size_t i = 0; i < p->n_sets; i++) {
		const struct mp_dataset *d = &p->sets[i];

		fprintf(out, "%s  phase %s", d->run, d->phase);
		if (d->size >= 0) {
			fprintf(out, "  size %g", d->size);
		}
		fprintf(out, "  %.3f s  peak %s  average %s\n", (double)d->duration_ns / 1e9,
			mp_human_bytes((double)d->peak_bytes, h1, sizeof(h1)),
			mp_human_bytes(d->avg_bytes, h2, sizeof(h2)));
		fprintf(out, "  %10s %10s %10s %10s %10s %10s %9s  %s\n", "allocated", "max_active",
			"end_active", "at_peak", "avg_live", "peak_live", "avg_size", "class");
		for (size_t j = 0; j < d->n_classes; j++) {
			const struct mp_class_stats *c = &d->classes[j];

			fprintf(out, "  %10llu %10llu %10llu %10s %10s %10s %9.1f  %s\n",
				(unsigned long long)c->allocated, (unsigned long long)c->max_active,
				(unsigned long long)c->end_active,
				mp_human_bytes((double)c->live_at_peak_bytes, h1, sizeof(h1)),
				mp_human_bytes(c->avg_live_bytes, h2, sizeof(h2)),
				mp_human_bytes((double)c->peak_live_bytes, h3, sizeof(h3)),
				c->avg_size, c->name);
		}
	}
}

void mp_prediction_print(const struct mp_prediction *pr, FILE *out)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];

	fprintf(out, "basis \"%s\" x %g\n", pr->basis, pr->count);
	if (pr->n_runs) {
		fprintf(out, "fitted on %zu run%s of %s", pr->n_runs, pr->n_runs == 1 ? "" : "s",
			pr->basis);
		for (size_t i = 0; i < pr->n_runs; i++) {
			fprintf(out, "%s%g", i ? ", " : " ", pr->runs[i].x);
		}
		fprintf(out, "%s%s%s\n", pr->source ? " (profile " : "",
			pr->source ? pr->source : "", pr->source ? ")" : "");
	}
	fprintf(
	    out, "peak %s [%s .. %s]  average %s   (paper's ratios: peak %s, average %s)\n",
	    mp_human_bytes(pr->peak_bytes, a, sizeof(a)), mp_human_bytes(pr->peak_lo, b, sizeof(b)),
	    mp_human_bytes(pr->peak_hi, c, sizeof(c)), mp_human_bytes(pr->avg_bytes, d, sizeof(d)),
	    mp_human_bytes(pr->paper_peak_bytes, e, sizeof(e)),
	    mp_human_bytes(pr->paper_avg_bytes, f, sizeof(f)));
	for (size_t i = 0; i < pr->n_phases; i++) {
		const struct mp_phase_prediction *ph = &pr->phases[i];

		fprintf(out,
			"\nphase %s (%zu data sets, %zu basis counts%s): peak %s [%s .. %s]  "
			"average %s   (paper: %s, %s)\n",
			ph->name, ph->n_sets, ph->n_sizes, ph->fitted ? "" : ": ratios only",
			mp_human_bytes(ph->peak_bytes, a, sizeof(a)),
			mp_human_bytes(ph->peak_lo, b, sizeof(b)),
			mp_human_bytes(ph->peak_hi, c, sizeof(c)),
			mp_human_bytes(ph->avg_bytes, d, sizeof(d)),
			mp_human_bytes(ph->paper_peak_bytes, e, sizeof(e)),
			mp_human_bytes(ph->paper_avg_bytes, f, sizeof(f)));
		fprintf(out, "  %10s %10s %10s %6s %-9s %10s  %s\n", "peak", "average",
			"paper_peak", "share", "model", "cv_error", "class");
		for (size_t j = 0; j < pr->n_classes; j++) {
			const struct mp_class_prediction *k = &pr->classes[j];

			if (strcmp(k->phase, ph->name)) {
				continue;
			}
			fprintf(out, "  %10s %10s %10s %5.1f%% %-9s ",
				mp_human_bytes(k->peak_bytes, a, sizeof(a)),
				mp_human_bytes(k->avg_bytes, b, sizeof(b)),
				mp_human_bytes(k->paper_peak_bytes, c, sizeof(c)), 100 * k->share,
				k->model);
			if (k->cv_error >= 0) {
				fprintf(out, "%9.1f%%  %s\n", 100 * k->cv_error, k->name);
			} else {
				fprintf(out, "%10s  %s\n", "-", k->name);
			}
		}
	}
}

static void add_range(JsonBuilder *b, const char *k, double lo, double hi)
{
	json_builder_set_member_name(b, k);
	json_builder_begin_array(b);
	json_builder_add_double_value(b, lo);
	json_builder_add_double_value(b, hi);
	json_builder_end_array(b);
}

int mp_prediction_write_json(const struct mp_prediction *pr, FILE *out)
{
	JsonBuilder *b = json_builder_new();
	char *text;
	int rc = DPS_OK;

	json_builder_begin_object(b);
	add_string(b, "basis", pr->basis);
	add_double(b, "count", pr->count);
	add_double(b, "peak_bytes", pr->peak_bytes);
	add_double(b, "avg_bytes", pr->avg_bytes);
	add_range(b, "peak_range", pr->peak_lo, pr->peak_hi);
	add_range(b, "avg_range", pr->avg_lo, pr->avg_hi);
	json_builder_set_member_name(b, "paper");
	json_builder_begin_object(b);
	add_double(b, "peak_bytes", pr->paper_peak_bytes);
	add_double(b, "avg_bytes", pr->paper_avg_bytes);
	json_builder_end_object(b);
	json_builder_set_member_name(b, "phases");
	json_builder_begin_array(b);
	for (size_t i = 0; i < pr->n_phases; i++) {
		const struct mp_phase_prediction *ph = &pr->phases[i];

		json_builder_begin_object(b);
		add_string(b, "name", ph->name);
		add_double(b, "peak_bytes", ph->peak_bytes);
		add_double(b, "avg_bytes", ph->avg_bytes);
		add_range(b, "peak_range", ph->peak_lo, ph->peak_hi);
		add_range(b, "avg_range", ph->avg_lo, ph->avg_hi);
		add_double(b, "paper_peak_bytes", ph->paper_peak_bytes);
		add_double(b, "paper_avg_bytes", ph->paper_avg_bytes);
		add_double(b, "duration_share", ph->duration_share);
		add_double(b, "duration_ns", ph->duration_ns >= 0 ? ph->duration_ns : NAN);
		add_uint(b, "datasets", ph->n_sets);
		add_uint(b, "basis_counts", ph->n_sizes);
		json_builder_set_member_name(b, "fitted");
		json_builder_add_boolean_value(b, ph->fitted);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "classes");
	json_builder_begin_array(b);
	for (size_t i = 0; i < pr->n_classes; i++) {
		const struct mp_class_prediction *k = &pr->classes[i];

		json_builder_begin_object(b);
		add_string(b, "phase", k->phase);
		add_string(b, "name", k->name);
		add_double(b, "peak_bytes", k->peak_bytes);
		add_double(b, "avg_bytes", k->avg_bytes);
		add_range(b, "peak_range", k->peak_lo, k->peak_hi);
		add_string(b, "model", k->model);
		add_double(b, "cv_error", k->cv_error >= 0 ? k->cv_error : NAN);
		add_double(b, "share", k->share);
		add_double(b, "paper_peak_bytes", k->paper_peak_bytes);
		add_double(b, "paper_avg_bytes", k->paper_avg_bytes);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	text = builder_text(b);
	g_object_unref(b);
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF) {
		rc = DPS_ERR_IO;
	}
	g_free(text);
	return rc;
}
