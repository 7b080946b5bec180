/* SPDX-License-Identifier: MIT */
/*
 * One run's heap events -> its data sets, one per phase (the paper's section 3.1). Live
 * allocations are kept by (pid, pointer) with their class and size; each class keeps its live
 * count and bytes, and time integrals of both for the averages. The classes' live bytes at the
 * moment the phase's total peaks are taken lazily: when the total has reached a new maximum
 * and is about to fall (or the phase ends), so a phase that only grows costs one snapshot.
 *
 * For the HTML view, every class's live bytes are sampled after a heap event at most every
 * `interval`: when MP_SERIES_MAX samples are kept, every other one is dropped and the interval
 * doubles, so a phase of any length keeps a few hundred evenly spread samples, at a cost of one
 * copy of the classes' live bytes per sample.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "mempredict.h"

struct live_obj {
	uint64_t pid, ptr; /* the key */
	uint32_t cls;
	uint64_t size;
};

struct run_class {
	char *name; /* owned */
	uint64_t live, live_bytes;
	uint64_t last_ts;
	/* the current phase */
	uint64_t allocated, start_active, live_max, bytes, peak_bytes, at_peak_bytes;
	uint64_t max_size;
	double int_bytes, int_count;
	/* the run so far, for a phase where the class allocated nothing */
	uint64_t run_n, run_bytes, run_max_size;
};

/* The classes' live bytes at one moment (the first n classes: later ones were not yet). */
struct sample {
	uint64_t ts;
	uint32_t n;
	uint64_t *v; /* owned, n */
};

struct mp_run {
	char *run; /* owned */
	double size;
	GHashTable *live;	/* struct live_obj * (owned) -> itself */
	GHashTable *class_ids;	/* name (borrowed from classes) -> index + 1 */
	GArray *classes;	/* struct run_class */
	GArray *sets;		/* struct mp_dataset being built (owned members) */
	GHashTable *phase_seen; /* phase name (owned) -> times seen */
	uint64_t n_heap, n_marks;
	bool started;
	/* the current phase */
	char *phase; /* owned */
	uint64_t phase_t0, last_ts, total, peak, phase_heap, start_total;
	double int_total;
	bool at_new_peak;
	GArray *samples; /* struct sample (owned members): the current phase's */
	uint64_t interval;
	/* phases by time (mp_run_set_phase_times): borrowed, in order of their offset */
	const char *const *time_names;
	const uint64_t *time_offsets;
	size_t *time_order; /* owned, n_times */
	size_t n_times, next_time;
	uint64_t first_ts;
};

static guint live_hash(gconstpointer k)
{
	const struct live_obj *o = k;

	return (guint)(o->ptr ^ (o->ptr >> 32) ^ (o->pid * 2654435761u));
}

static gboolean live_equal(gconstpointer a, gconstpointer b)
{
	const struct live_obj *x = a, *y = b;

	return x->ptr == y->ptr && x->pid == y->pid;
}

struct mp_run *mp_run_create(const char *run, double size)
{
	struct mp_run *r = calloc(1, sizeof(*r));

	if (!r) {
		return NULL;
	}
	r->run = strdup(run);
	r->size = size;
	r->live = g_hash_table_new_full(live_hash, live_equal, free, NULL);
	r->class_ids = g_hash_table_new(g_str_hash, g_str_equal);
	r->classes = g_array_new(FALSE, TRUE, sizeof(struct run_class));
	r->sets = g_array_new(FALSE, TRUE, sizeof(struct mp_dataset));
	r->phase_seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	r->samples = g_array_new(FALSE, TRUE, sizeof(struct sample));
	r->phase = strdup("all");
	if (!r->run || !r->phase) {
		mp_run_destroy(r);
		return NULL;
	}
	return r;
}

static void series_fini(struct mp_series *s)
{
	for (size_t i = 0; s->names && i < s->n_rows; i++) {
		free(s->names[i]);
	}
	free(s->names);
	free(s->t_ns);
	free(s->bytes);
	memset(s, 0, sizeof(*s));
}

static void dataset_fini(struct mp_dataset *d)
{
	series_fini(&d->series);
	for (size_t i = 0; i < d->n_classes; i++) {
		free(d->classes[i].name);
	}
	free(d->classes);
	free(d->run);
	free(d->command);
	free(d->phase);
}

static void drop_samples(struct mp_run *r)
{
	for (guint i = 0; i < r->samples->len; i++) {
		free(g_array_index(r->samples, struct sample, i).v);
	}
	g_array_set_size(r->samples, 0);
	r->interval = 0;
}

void mp_run_destroy(struct mp_run *r)
{
	if (!r) {
		return;
	}
	if (r->samples) {
		drop_samples(r);
		g_array_free(r->samples, TRUE);
	}
	free(r->time_order);
	for (guint i = 0; r->classes && i < r->classes->len; i++) {
		free(g_array_index(r->classes, struct run_class, i).name);
	}
	for (guint i = 0; r->sets && i < r->sets->len; i++) {
		dataset_fini(&g_array_index(r->sets, struct mp_dataset, i));
	}
	if (r->classes) {
		g_array_free(r->classes, TRUE);
	}
	if (r->sets) {
		g_array_free(r->sets, TRUE);
	}
	g_hash_table_destroy(r->live);
	g_hash_table_destroy(r->class_ids);
	g_hash_table_destroy(r->phase_seen);
	free(r->phase);
	free(r->run);
	free(r);
}

uint64_t mp_run_heap_events(const struct mp_run *r)
{
	return r->n_heap;
}

static struct run_class *cls_at(struct mp_run *r, uint32_t i)
{
	return &g_array_index(r->classes, struct run_class, i);
}

/* The index of class name, created on first use; -1 when out of memory. */
static long class_id(struct mp_run *r, const char *name)
{
	gpointer v = g_hash_table_lookup(r->class_ids, name);
	struct run_class c = {0};

	if (v) {
		return (long)GPOINTER_TO_SIZE(v) - 1;
	}
	c.name = strdup(name && *name ? name : "(unknown)");
	if (!c.name) {
		return -1;
	}
	c.last_ts = r->last_ts;
	g_array_append_val(r->classes, c);
	g_hash_table_insert(r->class_ids, cls_at(r, r->classes->len - 1)->name,
			    GSIZE_TO_POINTER(r->classes->len));
	/* the array may have moved: the keys are the names, which did not */
	return (long)r->classes->len - 1;
}

/* Brings a class's time integrals up to ts. */
static void touch(struct run_class *c, uint64_t ts)
{
	if (ts > c->last_ts) {
		c->int_bytes += (double)c->live_bytes * (double)(ts - c->last_ts);
		c->int_count += (double)c->live * (double)(ts - c->last_ts);
		c->last_ts = ts;
	}
}

static void snapshot_peak(struct mp_run *r)
{
	for (guint i = 0; i < r->classes->len; i++) {
		cls_at(r, i)->at_peak_bytes = cls_at(r, i)->live_bytes;
	}
	r->at_new_peak = false;
}

static void total_change(struct mp_run *r, int64_t delta, uint64_t ts)
{
	if (ts > r->last_ts) {
		r->int_total += (double)r->total * (double)(ts - r->last_ts);
		r->last_ts = ts;
	}
	if (delta < 0 && r->at_new_peak) {
		snapshot_peak(r);
	}
	r->total = (uint64_t)((int64_t)r->total + delta);
	if (r->total > r->peak) {
		r->peak = r->total;
		r->at_new_peak = true;
	}
}

static void class_add(struct mp_run *r, uint32_t ci, uint64_t size, uint64_t ts, bool counted)
{
	struct run_class *c = cls_at(r, ci);

	touch(c, ts);
	c->live++;
	c->live_bytes += size;
	if (counted) {
		c->allocated++;
		c->bytes += size;
		c->run_n++;
		c->run_bytes += size;
	}
	if (size > c->max_size) {
		c->max_size = size;
	}
	if (size > c->run_max_size) {
		c->run_max_size = size;
	}
	if (c->live > c->live_max) {
		c->live_max = c->live;
	}
	if (c->live_bytes > c->peak_bytes) {
		c->peak_bytes = c->live_bytes;
	}
}

/* An object leaves class ci. When the total had just peaked, the classes are taken first:
 * this is the peak's last moment (a move between classes, dps_mem_class, is not). */
static void class_remove(struct mp_run *r, uint32_t ci, uint64_t size, uint64_t ts, bool moving)
{
	struct run_class *c = cls_at(r, ci);

	if (r->at_new_peak && !moving) {
		snapshot_peak(r);
	}
	touch(c, ts);
	c->live--;
	c->live_bytes -= size;
}

static int on_alloc(struct mp_run *r, const struct mp_event *ev)
{
	struct live_obj key = {.pid = ev->pid, .ptr = ev->ptr};
	struct live_obj *o = g_hash_table_lookup(r->live, &key);
	long ci = class_id(r, ev->class);

	if (ci < 0) {
		return DPS_ERR_NOMEM;
	}
	if (o) {
		/* reused without a free we saw (lost events): the old one is gone */
		class_remove(r, o->cls, o->size, ev->ts_ns, false);
		total_change(r, -(int64_t)o->size, ev->ts_ns);
	} else {
		o = malloc(sizeof(*o));
		if (!o) {
			return DPS_ERR_NOMEM;
		}
		*o = key;
		g_hash_table_add(r->live, o);
	}
	o->cls = (uint32_t)ci;
	o->size = ev->size;
	class_add(r, o->cls, ev->size, ev->ts_ns, true);
	total_change(r, (int64_t)ev->size, ev->ts_ns);
	return DPS_OK;
}

static void on_free(struct mp_run *r, uint64_t pid, uint64_t ptr, uint64_t ts)
{
	struct live_obj key = {.pid = pid, .ptr = ptr};
	struct live_obj *o = g_hash_table_lookup(r->live, &key);

	if (!o) {
		return; /* allocated before the recording began, by the tracer, or NULL */
	}
	r->phase_heap++;
	class_remove(r, o->cls, o->size, ts, false);
	total_change(r, -(int64_t)o->size, ts);
	g_hash_table_remove(r->live, o);
}

/* A realloc keeps its object (and class): the size changes, no new object is counted. */
static int on_realloc(struct mp_run *r, const struct mp_event *ev)
{
	struct live_obj key = {.pid = ev->pid, .ptr = ev->old_ptr};
	struct live_obj *o = ev->old_ptr ? g_hash_table_lookup(r->live, &key) : NULL;
	uint32_t ci;
	uint64_t old;

	if (!ev->ptr) {
		if (!ev->size) {
			on_free(r, ev->pid, ev->old_ptr, ev->ts_ns);
		}
		return DPS_OK; /* failed: the old block stays */
	}
	if (!o) {
		return on_alloc(r, ev);
	}
	ci = o->cls;
	old = o->size;
	g_hash_table_steal(r->live, o);
	class_remove(r, ci, old, ev->ts_ns, ev->size >= old); /* a growth is no peak's end */
	class_add(r, ci, ev->size, ev->ts_ns, false);
	if (ev->size > old) {
		cls_at(r, ci)->bytes += ev->size - old;
		cls_at(r, ci)->run_bytes += ev->size - old;
	}
	total_change(r, (int64_t)ev->size - (int64_t)old, ev->ts_ns);
	o->ptr = ev->ptr;
	o->size = ev->size;
	{
		struct live_obj *clash = g_hash_table_lookup(r->live, o);

		if (clash) {
			class_remove(r, clash->cls, clash->size, ev->ts_ns, false);
			total_change(r, -(int64_t)clash->size, ev->ts_ns);
			g_hash_table_remove(r->live, clash);
		}
	}
	g_hash_table_add(r->live, o);
	return DPS_OK;
}

/* dps_mem_class(): the object moves to the named class, counted there as allocated. */
static int on_class(struct mp_run *r, const struct mp_event *ev)
{
	struct live_obj key = {.pid = ev->pid, .ptr = ev->ptr};
	struct live_obj *o = g_hash_table_lookup(r->live, &key);
	long ci;
	struct run_class *from;

	if (!o) {
		return DPS_OK;
	}
	ci = class_id(r, ev->class);
	if (ci < 0) {
		return DPS_ERR_NOMEM;
	}
	if ((uint32_t)ci == o->cls) {
		return DPS_OK;
	}
	class_remove(r, o->cls, o->size, ev->ts_ns, true);
	from = cls_at(r, o->cls);
	if (from->allocated) {
		from->allocated--;
		from->bytes -= o->size < from->bytes ? o->size : from->bytes;
		from->run_n--;
		from->run_bytes -= o->size < from->run_bytes ? o->size : from->run_bytes;
	}
	o->cls = (uint32_t)ci;
	class_add(r, o->cls, o->size, ev->ts_ns, true);
	return DPS_OK;
}

/* Keeps every other sample (the first and the last stay) and doubles the interval. */
static void thin_samples(struct mp_run *r)
{
	GArray *a = r->samples;
	guint last = a->len - 1, kept = 0;
	uint64_t span =
	    g_array_index(a, struct sample, last).ts - g_array_index(a, struct sample, 0).ts;

	for (guint i = 0; i < a->len; i++) {
		struct sample *s = &g_array_index(a, struct sample, i);

		if (i % 2 && i != last) {
			free(s->v);
			continue;
		}
		g_array_index(a, struct sample, kept++) = *s;
	}
	g_array_set_size(a, kept);
	r->interval = r->interval * 2 > span / (MP_SERIES_MAX / 2) ? r->interval * 2
								   : span / (MP_SERIES_MAX / 2);
	if (!r->interval) {
		r->interval = 1;
	}
}

/* The classes' live bytes at ts, unless the last sample is closer than the interval (force:
 * the phase's start and end). */
static int take_sample(struct mp_run *r, uint64_t ts, bool force)
{
	struct sample s = {.ts = ts, .n = r->classes->len};

	if (!force && r->samples->len &&
	    ts < g_array_index(r->samples, struct sample, r->samples->len - 1).ts + r->interval) {
		return DPS_OK;
	}
	if (r->samples->len >= MP_SERIES_MAX) {
		thin_samples(r);
	}
	s.v = malloc((s.n ? s.n : 1) * sizeof(*s.v));
	if (!s.v) {
		return DPS_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < s.n; i++) {
		s.v[i] = cls_at(r, i)->live_bytes;
	}
	g_array_append_val(r->samples, s);
	return DPS_OK;
}

/* Larger own peak in the phase first. */
static int by_peak_desc(const void *a, const void *b, void *data)
{
	struct mp_run *r = data;
	uint64_t x = cls_at(r, *(const uint32_t *)a)->peak_bytes;
	uint64_t y = cls_at(r, *(const uint32_t *)b)->peak_bytes;

	return (x < y) - (x > y);
}

/* The phase's samples as a series: the biggest classes by their own peak, the rest summed. */
static int build_series(struct mp_run *r, uint64_t t0, struct mp_series *out)
{
	size_t n = r->samples->len, n_cls = 0, rows;
	uint32_t *order = calloc(r->classes->len + 1, sizeof(*order));
	bool other = false;
	int rc = DPS_ERR_NOMEM;

	if (!order) {
		return rc;
	}
	for (guint i = 0; i < r->classes->len; i++) {
		if (cls_at(r, i)->peak_bytes) {
			order[n_cls++] = i;
		}
	}
	g_qsort_with_data(order, (gint)n_cls, sizeof(*order), by_peak_desc, r);
	rows = n_cls;
	if (rows > MP_SERIES_CLASSES) {
		rows = MP_SERIES_CLASSES + 1;
		other = true;
	}
	out->t_ns = calloc(n ? n : 1, sizeof(*out->t_ns));
	out->names = calloc(rows ? rows : 1, sizeof(*out->names));
	out->bytes = calloc(rows * n > 0 ? rows * n : 1, sizeof(*out->bytes));
	if (!out->t_ns || !out->names || !out->bytes) {
		goto end;
	}
	out->n_points = n;
	out->n_rows = rows;
	for (size_t k = 0; k < n; k++) {
		const struct sample *s = &g_array_index(r->samples, struct sample, k);

		out->t_ns[k] = s->ts > t0 ? s->ts - t0 : 0;
		for (size_t j = 0; j < n_cls; j++) {
			size_t row = other && j >= MP_SERIES_CLASSES ? MP_SERIES_CLASSES : j;

			out->bytes[row * n + k] += order[j] < s->n ? s->v[order[j]] : 0;
		}
	}
	for (size_t j = 0; j < rows; j++) {
		if (other && j == MP_SERIES_CLASSES) {
			break; /* NULL: the others */
		}
		out->names[j] = strdup(cls_at(r, order[j])->name);
		if (!out->names[j]) {
			goto end;
		}
	}
	rc = DPS_OK;
end:
	free(order);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct mp_class_stats *)a)->name,
		      ((const struct mp_class_stats *)b)->name);
}

/* The current phase (t0 .. ts) as a data set. */
static int close_phase(struct mp_run *r, uint64_t ts, const char *name)
{
	struct mp_dataset d = {0};
	double dur;
	size_t n = 0;

	if (r->at_new_peak) {
		snapshot_peak(r);
	}
	total_change(r, 0, ts);
	dur = ts > r->phase_t0 ? (double)(ts - r->phase_t0) : 0;
	d.run = strdup(r->run);
	d.phase = strdup(name);
	d.classes = calloc(r->classes->len ? r->classes->len : 1, sizeof(*d.classes));
	if (!d.run || !d.phase || !d.classes || take_sample(r, ts, true) ||
	    build_series(r, r->phase_t0, &d.series)) {
		dataset_fini(&d);
		return DPS_ERR_NOMEM;
	}
	d.size = r->size;
	d.duration_ns = (uint64_t)dur;
	d.peak_bytes = r->peak;
	d.start_bytes = r->start_total;
	d.end_bytes = r->total;
	d.avg_bytes = dur > 0 ? r->int_total / dur : (double)r->total;
	for (guint i = 0; i < r->classes->len; i++) {
		struct run_class *c = cls_at(r, i);
		struct mp_class_stats *s = &d.classes[n];

		touch(c, ts);
		if (!c->allocated && !c->start_active) {
			continue;
		}
		s->name = strdup(c->name);
		if (!s->name) {
			d.n_classes = n;
			dataset_fini(&d);
			return DPS_ERR_NOMEM;
		}
		s->allocated = c->allocated;
		s->max_active = c->start_active + c->allocated;
		s->end_active = c->live;
		s->live_max = c->live_max;
		s->avg_active = dur > 0 ? c->int_count / dur : (double)c->live;
		s->bytes = c->bytes;
		s->peak_live_bytes = c->peak_bytes;
		s->avg_live_bytes = dur > 0 ? c->int_bytes / dur : (double)c->live_bytes;
		s->live_at_peak_bytes = c->at_peak_bytes;
		if (c->allocated) {
			s->avg_size = (double)c->bytes / (double)c->allocated;
			s->max_size = c->max_size;
		} else {
			s->avg_size = c->run_n ? (double)c->run_bytes / (double)c->run_n : 0;
			s->max_size = c->run_max_size;
		}
		n++;
	}
	d.n_classes = n;
	qsort(d.classes, n, sizeof(*d.classes), by_name);
	g_array_append_val(r->sets, d);
	return DPS_OK;
}

/* A new phase from ts: every class's per-phase figures start from what is live. */
static void open_phase(struct mp_run *r, uint64_t ts)
{
	r->phase_t0 = ts;
	r->start_total = r->total;
	r->last_ts = ts;
	r->int_total = 0;
	r->peak = r->total;
	r->phase_heap = 0;
	drop_samples(r);
	for (guint i = 0; i < r->classes->len; i++) {
		struct run_class *c = cls_at(r, i);

		c->last_ts = ts;
		c->allocated = c->bytes = 0;
		c->start_active = c->live_max = c->live;
		c->peak_bytes = c->live_bytes;
		c->max_size = 0;
		c->int_bytes = c->int_count = 0;
	}
	snapshot_peak(r);
	take_sample(r, ts, true); /* out of memory: the chart starts later */
}

/* The name a phase gets: "start" for what comes before the first mark, "NAME#k" for the k-th
 * time a name is entered in one run. */
static char *phase_name(struct mp_run *r, const char *name)
{
	gpointer seen = g_hash_table_lookup(r->phase_seen, name);
	unsigned k = GPOINTER_TO_UINT(seen) + 1;

	g_hash_table_insert(r->phase_seen, g_strdup(name), GUINT_TO_POINTER(k));
	return k == 1 ? strdup(name) : g_strdup_printf("%s#%u", name, k);
}

static int on_phase(struct mp_run *r, const struct mp_event *ev)
{
	int rc = DPS_OK;
	char *next;

	/* What came before the first mark is a phase of its own only when it allocated. */
	if (r->n_marks || r->phase_heap) {
		rc = close_phase(r, ev->ts_ns, r->n_marks ? r->phase : "start");
	}
	r->n_marks++;
	next = phase_name(r, ev->class && *ev->class ? ev->class : "(unnamed)");
	if (!next) {
		return DPS_ERR_NOMEM;
	}
	free(r->phase);
	r->phase = next;
	open_phase(r, ev->ts_ns);
	return rc;
}

static int feed_one(struct mp_run *r, const struct mp_event *ev)
{
	switch (ev->kind) {
	case MP_EV_ALLOC:
		r->n_heap++;
		r->phase_heap++;
		return ev->ptr ? on_alloc(r, ev) : DPS_OK;
	case MP_EV_FREE:
		r->n_heap++;
		on_free(r, ev->pid, ev->ptr, ev->ts_ns);
		return DPS_OK;
	case MP_EV_REALLOC:
		r->n_heap++;
		r->phase_heap++;
		return on_realloc(r, ev);
	case MP_EV_CLASS:
		return on_class(r, ev);
	case MP_EV_PHASE:
		return on_phase(r, ev);
	case MP_EV_SIZE:
		r->size = (double)ev->size;
		for (guint i = 0; i < r->sets->len; i++) {
			g_array_index(r->sets, struct mp_dataset, i).size = r->size;
		}
		return DPS_OK;
	}
	return DPS_OK;
}

void mp_run_set_phase_times(struct mp_run *r, const char *const *names, const uint64_t *offsets_ns,
			    size_t n)
{
	free(r->time_order);
	r->time_order = n ? calloc(n, sizeof(*r->time_order)) : NULL;
	r->n_times = r->time_order ? n : 0;
	r->next_time = 0;
	r->time_names = names;
	r->time_offsets = offsets_ns;
	/* by offset, the given order among equals (an insertion sort: a few command-line phases) */
	for (size_t i = 0; i < r->n_times; i++) {
		size_t j = i;

		for (; j > 0 && offsets_ns[r->time_order[j - 1]] > offsets_ns[i]; j--) {
			r->time_order[j] = r->time_order[j - 1];
		}
		r->time_order[j] = i;
	}
}

/* The phases by time that begin at or before ts, as marks. */
static int pass_phase_times(struct mp_run *r, uint64_t ts)
{
	int rc = DPS_OK;

	while (!rc && r->next_time < r->n_times) {
		size_t i = r->time_order[r->next_time];
		struct mp_event mark = {.kind = MP_EV_PHASE,
					.ts_ns = r->first_ts + r->time_offsets[i],
					.class = r->time_names[i]};

		if (mark.ts_ns > ts) {
			break;
		}
		r->next_time++;
		rc = on_phase(r, &mark);
	}
	return rc;
}

int mp_run_feed(struct mp_run *r, const struct mp_event *ev)
{
	int rc;

	if (!r->started) {
		r->started = true;
		r->first_ts = ev->ts_ns;
		open_phase(r, ev->ts_ns);
	}
	rc = pass_phase_times(r, ev->ts_ns);
	rc = rc ? rc : feed_one(r, ev);
	if (!rc && ev->kind != MP_EV_PHASE && ev->kind != MP_EV_SIZE) {
		rc = take_sample(r, ev->ts_ns, false);
	}
	return rc;
}

int mp_run_finish(struct mp_run *r, uint64_t end_ns, struct mp_profile *p)
{
	struct mp_dataset *grown;
	int rc;

	if (!r->started) {
		return DPS_OK;
	}
	rc = pass_phase_times(r, end_ns > r->last_ts ? end_ns : r->last_ts);
	rc = rc ? rc : close_phase(r, end_ns > r->last_ts ? end_ns : r->last_ts, r->phase);
	if (rc) {
		return rc;
	}
	grown = realloc(p->sets, (p->n_sets + r->sets->len) * sizeof(*grown));
	if (!grown) {
		return DPS_ERR_NOMEM;
	}
	p->sets = grown;
	for (guint i = 0; i < r->sets->len; i++) {
		struct mp_dataset *d = &g_array_index(r->sets, struct mp_dataset, i);

		d->size = r->size;
		p->sets[p->n_sets++] = *d;
	}
	g_array_set_size(r->sets, 0); /* moved: p owns them now */
	return DPS_OK;
}

const struct mp_class_stats *mp_dataset_find_class(const struct mp_dataset *d, const char *name)
{
	for (size_t i = 0; i < d->n_classes; i++) {
		if (!strcmp(d->classes[i].name, name)) {
			return &d->classes[i];
		}
	}
	return NULL;
}

void mp_profile_fini(struct mp_profile *p)
{
	if (!p) {
		return;
	}
	for (size_t i = 0; i < p->n_sets; i++) {
		dataset_fini(&p->sets[i]);
	}
	free(p->sets);
	p->sets = NULL;
	p->n_sets = 0;
}
