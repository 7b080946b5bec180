/* SPDX-License-Identifier: MIT */
/*
 * The stub's knobs (<dps/knobs.h>): the table of <dps/knobs.def>, and the one parser,
 * checker, formatter and --help printer every user of the knobs shares. What a knob does is
 * elsewhere: runtime/main.c turns the parsed knobs into the play's options.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/knobs.h>

const struct dps_knob_info dps_knobs_table[DPS_KNOB_COUNT] = {
#define DPS_KNOB(field, name, shape, arg, flags, deflt, help)                                      \
	{name, DPS_KNOB_SHAPE_##shape, arg, flags, deflt, help},
#include <dps/knobs.def>
#undef DPS_KNOB
};

/* Where each knob's value is in struct dps_knobs. */
static const size_t field_offset[DPS_KNOB_COUNT] = {
#define DPS_KNOB(field, name, shape, arg, flags, deflt, help) offsetof(struct dps_knobs, field),
#include <dps/knobs.def>
#undef DPS_KNOB
};

#define FIELD(k, id, type) ((type *)((char *)(k) + field_offset[id]))
#define CFIELD(k, id, type) ((const type *)((const char *)(k) + field_offset[id]))

__attribute__((format(printf, 3, 4))) static void say(char *err, size_t errlen, const char *fmt,
						      ...)
{
	va_list ap;

	if (!err || !errlen) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static bool is_thread_list(enum dps_knob_shape s)
{
	return s == DPS_KNOB_SHAPE_THREAD_SCALE || s == DPS_KNOB_SHAPE_THREAD;
}

int dps_knobs_find(const char *name)
{
	if (!name) {
		return -1;
	}
	if (!strncmp(name, "--", 2)) {
		name += 2;
	}
	for (int i = 0; i < DPS_KNOB_COUNT; i++) {
		if (!strcmp(name, dps_knobs_table[i].name)) {
			return i;
		}
	}
	return -1;
}

/* A finite number >= 0, all of text. */
static bool read_scale(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (!*text || *end || errno || !isfinite(v) || v < 0) {
		return false;
	}
	*out = v;
	return true;
}

/* A thread id: the digits from text to end_at, exactly. */
static bool read_id(const char *text, const char *end_at, uint64_t *out)
{
	unsigned long long id;
	char *end;

	errno = 0;
	id = strtoull(text, &end, 10);
	if (end != end_at || end == text || errno || text[0] == '-') {
		return false;
	}
	*out = id;
	return true;
}

static int add_entry(struct dps_knob_threads *t, uint64_t id, double x)
{
	struct dps_knob_thread *v = realloc(t->v, (t->n + 1) * sizeof(*v));

	if (!v) {
		return DPS_ERR_NOMEM;
	}
	v[t->n++] = (struct dps_knob_thread){.id = id, .x = x};
	t->v = v;
	return DPS_OK;
}

int dps_knobs_add_thread(struct dps_knobs *k, enum dps_knob_id id, uint64_t thread, double x)
{
	int st;

	if ((int)id < 0 || id >= DPS_KNOB_COUNT || !is_thread_list(dps_knobs_table[id].shape)) {
		return DPS_ERR_INVAL;
	}
	st = add_entry(FIELD(k, id, struct dps_knob_threads), thread, x);
	if (!st) {
		k->given |= 1u << id;
	}
	return st;
}

/* The value of knob id into k; err as dps_knobs_parse's. */
static int parse_value(struct dps_knobs *k, int id, const char *value, char *err, size_t errlen)
{
	const struct dps_knob_info *info = &dps_knobs_table[id];
	const char *eq;
	uint64_t thread;
	double x = 1.0;

	if (info->shape == DPS_KNOB_SHAPE_FLAG) {
		if (value) {
			say(err, errlen, "--%s takes no value, got '%s'", info->name, value);
			return DPS_ERR_INVAL;
		}
		*FIELD(k, id, bool) = true;
		return DPS_OK;
	}
	if (!value) {
		say(err, errlen, "--%s needs a value", info->name);
		return DPS_ERR_INVAL;
	}
	switch (info->shape) {
	case DPS_KNOB_SHAPE_RUN_MODE:
		if (dps_run_mode_parse(value, FIELD(k, id, enum dps_run_mode))) {
			say(err, errlen, "--%s: expected work, cpu or wall, got '%s'", info->name,
			    value);
			return DPS_ERR_INVAL;
		}
		return DPS_OK;
	case DPS_KNOB_SHAPE_HEAP_MODE:
		if (!strcmp(value, "curve")) {
			*FIELD(k, id, enum dps_heap_mode) = DPS_HEAP_CURVE;
		} else if (!strcmp(value, "alloc")) {
			*FIELD(k, id, enum dps_heap_mode) = DPS_HEAP_ALLOC;
		} else {
			say(err, errlen, "--%s: expected curve or alloc, got '%s'", info->name,
			    value);
			return DPS_ERR_INVAL;
		}
		return DPS_OK;
	case DPS_KNOB_SHAPE_PATH:
		*FIELD(k, id, const char *) = value;
		return DPS_OK;
	case DPS_KNOB_SHAPE_SCALE:
		if (!read_scale(value, FIELD(k, id, double))) {
			say(err, errlen, "--%s: expected a non-negative number, got '%s'",
			    info->name, value);
			return DPS_ERR_INVAL;
		}
		return DPS_OK;
	case DPS_KNOB_SHAPE_THREAD_SCALE:
		eq = strchr(value, '=');
		if (!eq || !read_id(value, eq, &thread)) {
			say(err, errlen, "--%s: expected ID=X, got '%s'", info->name, value);
			return DPS_ERR_INVAL;
		}
		if (!read_scale(eq + 1, &x)) {
			say(err, errlen, "--%s: expected a non-negative number, got '%s'",
			    info->name, eq + 1);
			return DPS_ERR_INVAL;
		}
		return add_entry(FIELD(k, id, struct dps_knob_threads), thread, x);
	case DPS_KNOB_SHAPE_THREAD:
		if (!read_id(value, value + strlen(value), &thread)) {
			say(err, errlen, "--%s: expected a thread ID, got '%s'", info->name, value);
			return DPS_ERR_INVAL;
		}
		return add_entry(FIELD(k, id, struct dps_knob_threads), thread, 1.0);
	default:
		return DPS_ERR_INVAL;
	}
}

int dps_knobs_parse(struct dps_knobs *k, const char *name, const char *value, char *err,
		    size_t errlen)
{
	int id = dps_knobs_find(name);
	int st;

	if (err && errlen) {
		err[0] = '\0';
	}
	if (id < 0) {
		say(err, errlen, "unknown option '%s'", name ? name : "");
		return DPS_ERR_NOENT;
	}
	st = parse_value(k, id, value, err, errlen);
	if (!st) {
		k->given |= 1u << id;
	} else if (st == DPS_ERR_NOMEM) {
		say(err, errlen, "out of memory");
	}
	return st;
}

void dps_knobs_default(struct dps_knobs *k)
{
	memset(k, 0, sizeof(*k));
	for (int i = 0; i < DPS_KNOB_COUNT; i++) {
		if (dps_knobs_table[i].deflt) {
			(void)parse_value(k, i, dps_knobs_table[i].deflt, NULL, 0);
		}
	}
}

void dps_knobs_fini(struct dps_knobs *k)
{
	if (!k) {
		return;
	}
	for (int i = 0; i < DPS_KNOB_COUNT; i++) {
		if (is_thread_list(dps_knobs_table[i].shape)) {
			free(FIELD(k, i, struct dps_knob_threads)->v);
		}
	}
	dps_knobs_default(k);
}

static bool has_thread(const struct dps_program *prog, uint64_t id)
{
	for (size_t t = 0; t < prog->n_threads; t++) {
		if (prog->threads[t].id == id) {
			return true;
		}
	}
	return false;
}

int dps_knobs_check(const struct dps_knobs *k, const struct dps_program *prog, char *err,
		    size_t errlen)
{
	for (int i = 0; i < DPS_KNOB_COUNT; i++) {
		const struct dps_knob_info *info = &dps_knobs_table[i];
		const struct dps_knob_threads *t = CFIELD(k, i, struct dps_knob_threads);

		if (info->shape == DPS_KNOB_SHAPE_SCALE) {
			double x = *CFIELD(k, i, double);

			if (!isfinite(x) || x < 0) {
				say(err, errlen, "--%s: expected a non-negative number, got %g",
				    info->name, x);
				return DPS_ERR_INVAL;
			}
		}
		if (!is_thread_list(info->shape)) {
			continue;
		}
		for (size_t e = 0; e < t->n; e++) {
			if (!isfinite(t->v[e].x) || t->v[e].x < 0) {
				say(err, errlen, "--%s: expected a non-negative number, got %g",
				    info->name, t->v[e].x);
				return DPS_ERR_INVAL;
			}
			if (prog && !has_thread(prog, t->v[e].id)) {
				say(err, errlen, "--%s: no thread with id %llu in this program",
				    info->name, (unsigned long long)t->v[e].id);
				return DPS_ERR_INVAL;
			}
		}
	}
	return DPS_OK;
}

/* x in its shortest %g form that strtod reads back as x. */
static void format_number(double x, char *buf, size_t len)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, x);
		if (strtod(buf, NULL) == x) {
			return;
		}
	}
}

/* Appends a copy of s to *v (n strings, room for the NULL after). */
static bool push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(*nv));
	char *c = nv ? strdup(s) : NULL;

	if (nv) {
		*v = nv;
		nv[*n] = NULL;
	}
	if (!c) {
		return false;
	}
	nv[(*n)++] = c;
	nv[*n] = NULL;
	return true;
}

char **dps_knobs_to_argv(const struct dps_knobs *k, unsigned all_of, size_t *argc)
{
	char **v = calloc(1, sizeof(*v));
	size_t n = 0;
	bool ok = v != NULL;

	for (int i = 0; ok && i < DPS_KNOB_COUNT; i++) {
		const struct dps_knob_info *info = &dps_knobs_table[i];
		char opt[64], val[128];

		if (!(k->given & (1u << i)) || (info->flags & all_of) != all_of) {
			continue;
		}
		snprintf(opt, sizeof(opt), "--%s", info->name);
		switch (info->shape) {
		case DPS_KNOB_SHAPE_FLAG:
			ok = !*CFIELD(k, i, bool) || push(&v, &n, opt);
			break;
		case DPS_KNOB_SHAPE_RUN_MODE:
			ok = push(&v, &n, opt) &&
			     push(&v, &n, dps_run_mode_name(*CFIELD(k, i, enum dps_run_mode)));
			break;
		case DPS_KNOB_SHAPE_HEAP_MODE:
			ok = push(&v, &n, opt) &&
			     push(&v, &n,
				  *CFIELD(k, i, enum dps_heap_mode) == DPS_HEAP_ALLOC ? "alloc"
										      : "curve");
			break;
		case DPS_KNOB_SHAPE_PATH:
			/* CFIELD's own const makes the field's const char * */
			ok = !*CFIELD(k, i, char *) ||
			     (push(&v, &n, opt) && push(&v, &n, *CFIELD(k, i, char *)));
			break;
		case DPS_KNOB_SHAPE_SCALE:
			format_number(*CFIELD(k, i, double), val, sizeof(val));
			ok = push(&v, &n, opt) && push(&v, &n, val);
			break;
		case DPS_KNOB_SHAPE_THREAD_SCALE:
		case DPS_KNOB_SHAPE_THREAD:
			for (size_t e = 0; ok && e < CFIELD(k, i, struct dps_knob_threads)->n;
			     e++) {
				const struct dps_knob_thread *t =
				    &CFIELD(k, i, struct dps_knob_threads)->v[e];
				int at =
				    snprintf(val, sizeof(val), "%llu", (unsigned long long)t->id);

				if (info->shape == DPS_KNOB_SHAPE_THREAD_SCALE) {
					val[at++] = '=';
					format_number(t->x, val + at, sizeof(val) - (size_t)at);
				}
				ok = push(&v, &n, opt) && push(&v, &n, val);
			}
			break;
		}
	}
	if (!ok) {
		dps_knobs_argv_free(v);
		return NULL;
	}
	if (argc) {
		*argc = n;
	}
	return v;
}

void dps_knobs_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++) {
		free(argv[i]);
	}
	free(argv);
}

void dps_knobs_print_help(FILE *out, unsigned all_of, unsigned none_of, int indent, int column)
{
	for (int i = 0; i < DPS_KNOB_COUNT; i++) {
		const struct dps_knob_info *info = &dps_knobs_table[i];
		const char *h = info->help;
		int at;

		if ((info->flags & all_of) != all_of || (info->flags & none_of)) {
			continue;
		}
		at = fprintf(out, "%*s--%s%s%s", indent, "", info->name, *info->arg ? " " : "",
			     info->arg);
		if (at + 2 > column) {
			fputc('\n', out);
			at = 0;
		}
		while (h) {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);

			fprintf(out, "%*s%.*s\n", column - at, "", len, h);
			at = 0;
			h = nl ? nl + 1 : NULL;
		}
	}
}
