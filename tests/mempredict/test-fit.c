/* SPDX-License-Identifier: MIT */
/*
 * dps memory's pure core: the growth models and their choice on synthetic data with known
 * answers (one per model), the profile built from synthetic heap events (counts, phases,
 * classes named by the program, realloc), and the predictions (the paper's ratios computed by
 * hand; ours on runs whose classes grow by known laws), with the bad inputs.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "dps-test.h"
#include "mempredict.h"
#include "mp-fit.h"

struct law {
	enum mp_model model;
	double a, b;
};

static double law_at(const struct law *l, double x)
{
	switch (l->model) {
	case MP_MODEL_CONSTANT:
		return l->a;
	case MP_MODEL_LINEAR:
		return l->a + l->b * x;
	case MP_MODEL_NLOGN:
		return l->a + l->b * x * log(x);
	case MP_MODEL_QUADRATIC:
		return l->a + l->b * x * x;
	default:
		return l->a * pow(x, l->b);
	}
}

ParameterizedTestParameters(fit, each_law_is_recognised_and_extrapolated)
{
	static struct law laws[] = {
	    {MP_MODEL_CONSTANT, 4096, 0},     {MP_MODEL_LINEAR, 1000, 48}, {MP_MODEL_NLOGN, 500, 3},
	    {MP_MODEL_QUADRATIC, 2000, 0.01}, {MP_MODEL_POWER, 7, 1.5},
	};

	return cr_make_param_array(struct law, laws, sizeof(laws) / sizeof(laws[0]));
}

/* Three sizes (the least dps memory fits with) and four: the model is the law's, and the
 * prediction at 16 times the largest size is the law's value. */
ParameterizedTest(struct law *l, fit, each_law_is_recognised_and_extrapolated)
{
	static const double xs[] = {1000, 2000, 4000, 8000};

	for (size_t n = 3; n <= 4; n++) {
		double y[4], at = xs[n - 1] * 16, want = law_at(l, at);
		struct mp_choice c;

		for (size_t i = 0; i < n; i++) {
			y[i] = law_at(l, xs[i]);
		}
		cr_assert(mp_fit_choose(xs, y, n, at, &c), "%s: no choice",
			  mp_model_name(l->model));
		cr_expect_eq(c.fit.model, l->model, "%zu points of a %s law: chose %s", n,
			     mp_model_name(l->model), mp_model_name(c.fit.model));
		cr_expect(fabs(c.value - want) <= 1e-6 * want + 1e-6, "%s at %g: %g, expected %g",
			  mp_model_name(l->model), at, c.value, want);
		cr_expect(c.lo <= c.value && c.value <= c.hi, "range [%g, %g] around %g", c.lo,
			  c.hi, c.value);
		cr_expect(c.cv_error < 1e-6, "%s: cv error %g on exact data",
			  mp_model_name(l->model), c.cv_error);
	}
}

Test(fit, noisy_linear_data_gives_a_range_around_the_truth)
{
	const double x[] = {1000, 2000, 4000, 8000};
	const double y[] = {48e3 * 1.03, 96e3 * 0.98, 192e3 * 1.02, 384e3 * 0.99};
	struct mp_choice c;

	cr_assert(mp_fit_choose(x, y, 4, 128000, &c));
	cr_expect(c.lo < c.hi, "a noisy fit has a range: [%g, %g]", c.lo, c.hi);
	cr_expect(c.lo <= 48 * 128000.0 * 1.1 && c.hi >= 48 * 128000.0 * 0.9,
		  "the range [%g, %g] should reach the truth %g", c.lo, c.hi, 48 * 128000.0);
}

Test(fit, too_few_sizes_are_refused)
{
	const double x[] = {1000, 1000, 2000};
	const double y[] = {1, 1, 2};
	struct mp_choice c;

	cr_expect_not(mp_fit_choose(x, y, 2, 10, &c), "two points are not enough to choose");
	cr_expect_not(mp_fit_choose(x, y, 3, 10, &c), "two distinct sizes are not enough");
}

/*
 * The profile from synthetic events.
 */
static struct mp_event ev(enum mp_event_kind k, uint64_t ts, uint64_t ptr, uint64_t size,
			  const char *cls)
{
	struct mp_event e = {
	    .kind = k, .ts_ns = ts, .pid = 1, .ptr = ptr, .size = size, .class = cls};

	return e;
}

static void feed(struct mp_run *r, struct mp_event e)
{
	cr_assert_eq(mp_run_feed(r, &e), DPS_OK);
}

Test(profile, phases_count_max_active_and_end_active)
{
	struct mp_run *r = mp_run_create("run", 10);
	struct mp_profile p = {0};
	const struct mp_class_stats *a, *b;

	cr_assert(r);
	feed(r, ev(MP_EV_PHASE, 0, 0, 0, "build"));
	for (uint64_t i = 0; i < 10; i++) {
		feed(r, ev(MP_EV_ALLOC, 10 + i, 0x1000 + i * 16, 16, "node"));
	}
	feed(r, ev(MP_EV_ALLOC, 30, 0x9000, 100, "other"));
	feed(r, ev(MP_EV_PHASE, 100, 0, 0, "teardown"));
	for (uint64_t i = 0; i < 8; i++) {
		feed(r, ev(MP_EV_FREE, 110 + i, 0x1000 + i * 16, 0, NULL));
	}
	cr_assert_eq(mp_run_finish(r, 200, &p), DPS_OK);
	mp_run_destroy(r);
	cr_assert_eq(p.n_sets, 2, "two phases: %zu data sets", p.n_sets);
	cr_expect_str_eq(p.sets[0].phase, "build");
	cr_expect_str_eq(p.sets[1].phase, "teardown");
	a = mp_dataset_find_class(&p.sets[0], "node");
	cr_assert(a);
	cr_expect_eq(a->allocated, 10);
	cr_expect_eq(a->max_active, 10);
	cr_expect_eq(a->end_active, 10);
	cr_expect_eq(a->bytes, 160);
	cr_expect_eq(p.sets[0].peak_bytes, 260);
	cr_expect_eq(a->live_at_peak_bytes, 160);
	b = mp_dataset_find_class(&p.sets[1], "node");
	cr_assert(b, "a class live at a phase's start is in its data set");
	cr_expect_eq(b->allocated, 0);
	cr_expect_eq(b->max_active, 10, "live at the start + allocated in the phase");
	cr_expect_eq(b->end_active, 2);
	cr_expect_eq(b->live_max, 10);
	cr_expect(fabs(b->avg_size - 16) < 1e-9, "size from the run when nothing was allocated");
	cr_expect_eq(p.sets[1].peak_bytes, 260);
	cr_expect(p.sets[1].avg_bytes < 260 && p.sets[1].avg_bytes > 100, "avg %g",
		  p.sets[1].avg_bytes);
	cr_expect_eq(p.sets[0].size, 10);
	mp_profile_fini(&p);
}

Test(profile, a_run_without_marks_is_one_phase_and_realloc_keeps_its_object)
{
	struct mp_run *r = mp_run_create("run", -1);
	struct mp_profile p = {0};
	struct mp_event e = ev(MP_EV_REALLOC, 20, 0x2000, 300, "");
	const struct mp_class_stats *c;

	cr_assert(r);
	feed(r, ev(MP_EV_ALLOC, 10, 0x1000, 100, "buf"));
	e.old_ptr = 0x1000;
	feed(r, e);
	feed(r, ev(MP_EV_SIZE, 25, 0, 777, NULL));
	feed(r, ev(MP_EV_FREE, 30, 0x2000, 0, NULL));
	cr_assert_eq(mp_run_finish(r, 40, &p), DPS_OK);
	mp_run_destroy(r);
	cr_assert_eq(p.n_sets, 1);
	cr_expect_str_eq(p.sets[0].phase, "all");
	cr_expect_eq(p.sets[0].size, 777, "the dps_mem_size mark gives the run's size");
	c = mp_dataset_find_class(&p.sets[0], "buf");
	cr_assert(c);
	cr_expect_eq(c->allocated, 1, "a realloc is not a new object");
	cr_expect_eq(c->peak_live_bytes, 300);
	cr_expect_eq(c->max_size, 300);
	cr_expect_eq(c->end_active, 0);
	cr_expect_eq(p.sets[0].peak_bytes, 300);
	mp_profile_fini(&p);
}

Test(profile, a_class_named_by_the_program_takes_the_object)
{
	struct mp_run *r = mp_run_create("run", 1);
	struct mp_profile p = {0};
	const struct mp_class_stats *site, *named;

	cr_assert(r);
	feed(r, ev(MP_EV_ALLOC, 10, 0x1000, 64, "xmalloc (x.c:3)"));
	feed(r, ev(MP_EV_CLASS, 11, 0x1000, 0, "struct node"));
	feed(r, ev(MP_EV_ALLOC, 12, 0x2000, 32, "xmalloc (x.c:3)"));
	cr_assert_eq(mp_run_finish(r, 20, &p), DPS_OK);
	mp_run_destroy(r);
	site = mp_dataset_find_class(&p.sets[0], "xmalloc (x.c:3)");
	named = mp_dataset_find_class(&p.sets[0], "struct node");
	cr_assert(site && named);
	cr_expect_eq(named->allocated, 1);
	cr_expect_eq(named->bytes, 64);
	cr_expect_eq(site->allocated, 1, "the object left its site's count");
	cr_expect_eq(site->bytes, 32);
	mp_profile_fini(&p);
}

/* A class's bytes at the phase's peak are those live at that moment, not its own maximum:
 * classes whose peaks do not coincide add up to the real peak. */
Test(profile, bytes_at_the_peak_are_taken_when_the_total_peaks)
{
	struct mp_run *r = mp_run_create("run", 1);
	struct mp_profile p = {0};
	const struct mp_class_stats *a, *b;

	cr_assert(r);
	feed(r, ev(MP_EV_ALLOC, 10, 0x1000, 100, "a"));
	feed(r, ev(MP_EV_FREE, 20, 0x1000, 0, NULL));
	feed(r, ev(MP_EV_ALLOC, 30, 0x2000, 150, "b"));
	feed(r, ev(MP_EV_ALLOC, 40, 0x3000, 10, "a"));
	feed(r, ev(MP_EV_FREE, 50, 0x3000, 0, NULL));
	cr_assert_eq(mp_run_finish(r, 60, &p), DPS_OK);
	mp_run_destroy(r);
	a = mp_dataset_find_class(&p.sets[0], "a");
	b = mp_dataset_find_class(&p.sets[0], "b");
	cr_assert(a && b);
	cr_expect_eq(p.sets[0].peak_bytes, 160);
	cr_expect_eq(a->peak_live_bytes, 100);
	cr_expect_eq(a->live_at_peak_bytes, 10);
	cr_expect_eq(b->live_at_peak_bytes, 150);
	/* a: 100 B for 10 ns, 10 B for 10 ns, over 50 ns from the first event */
	cr_expect(fabs(a->avg_live_bytes - (1000 + 100) / 50.0) < 1e-9, "avg %g",
		  a->avg_live_bytes);
	mp_profile_fini(&p);
}

/* Phases by time (--phase-at): a run without marks is split where asked, and the counts of
 * its phases add up to the whole run's. */
Test(profile, phases_by_time_split_a_run_without_marks)
{
	static const char *const names[] = {"second", "first"};
	static const uint64_t at[] = {500, 0};
	struct mp_run *whole = mp_run_create("run", 1), *split = mp_run_create("run", 1);
	struct mp_profile pw = {0}, ps = {0};
	uint64_t allocated = 0, bytes = 0;

	cr_assert(whole && split);
	mp_run_set_phase_times(split, names, at, 2);
	for (uint64_t i = 0; i < 100; i++) {
		struct mp_event e = ev(MP_EV_ALLOC, 1000 + i * 10, 0x1000 + i * 64, 10 + i, "node");

		feed(whole, e);
		feed(split, e);
		if (i % 3 == 0) {
			e = ev(MP_EV_FREE, 1005 + i * 10, 0x1000 + i * 64, 0, NULL);
			feed(whole, e);
			feed(split, e);
		}
	}
	cr_assert_eq(mp_run_finish(whole, 2000, &pw), DPS_OK);
	cr_assert_eq(mp_run_finish(split, 2000, &ps), DPS_OK);
	mp_run_destroy(whole);
	mp_run_destroy(split);
	cr_assert_eq(pw.n_sets, 1);
	cr_assert_eq(ps.n_sets, 2, "two phases by time, no \"start\": %zu", ps.n_sets);
	cr_expect_str_eq(ps.sets[0].phase, "first");
	cr_expect_str_eq(ps.sets[1].phase, "second");
	/* 500 ns after the first event (1000): the allocations at 1000..1490 are the first's */
	cr_expect_eq(mp_dataset_find_class(&ps.sets[0], "node")->allocated, 50);
	cr_expect_eq(ps.sets[0].duration_ns, 500);
	for (size_t i = 0; i < ps.n_sets; i++) {
		const struct mp_class_stats *c = mp_dataset_find_class(&ps.sets[i], "node");

		allocated += c->allocated;
		bytes += c->bytes;
	}
	cr_expect_eq(allocated, mp_dataset_find_class(&pw.sets[0], "node")->allocated);
	cr_expect_eq(bytes, mp_dataset_find_class(&pw.sets[0], "node")->bytes);
	cr_expect_eq(ps.sets[1].end_bytes, pw.sets[0].end_bytes);
	cr_expect_eq(ps.sets[0].duration_ns + ps.sets[1].duration_ns, pw.sets[0].duration_ns);
	mp_profile_fini(&pw);
	mp_profile_fini(&ps);
}

/* The live bytes over time stay bounded however many events, keep the phase's start and end,
 * and the biggest classes by their peak with the rest summed. */
Test(profile, the_series_is_bounded_and_keeps_the_biggest_classes)
{
	struct mp_run *r = mp_run_create("run", 1);
	struct mp_profile p = {0};
	const struct mp_series *s;
	uint64_t last_total = 0;

	cr_assert(r);
	for (uint64_t i = 0; i < 20000; i++) {
		char name[16];

		snprintf(name, sizeof(name), "c%02u", (unsigned)(i % 12));
		/* class cK's objects are K+1 times bigger: c11 is the biggest */
		feed(r, ev(MP_EV_ALLOC, 1000 + i, 0x10000 + i * 16, (i % 12 + 1) * 8, name));
	}
	cr_assert_eq(mp_run_finish(r, 30000, &p), DPS_OK);
	mp_run_destroy(r);
	s = &p.sets[0].series;
	cr_expect(s->n_points >= MP_SERIES_MAX / 2 && s->n_points <= MP_SERIES_MAX, "%zu points",
		  s->n_points);
	cr_expect_eq(s->t_ns[0], 0);
	cr_expect_eq(s->t_ns[s->n_points - 1], p.sets[0].duration_ns);
	cr_assert_eq(s->n_rows, MP_SERIES_CLASSES + 1, "%zu rows", s->n_rows);
	cr_expect_str_eq(s->names[0], "c11");
	cr_expect_null(s->names[MP_SERIES_CLASSES], "the last row is the others, summed");
	for (size_t j = 0; j < s->n_rows; j++) {
		last_total += s->bytes[j * s->n_points + s->n_points - 1];
	}
	cr_expect_eq(last_total, p.sets[0].end_bytes, "the rows add up to the total");
	mp_profile_fini(&p);
}

/* What a GMarkup parse of a page saw. */
struct page {
	unsigned n_svg, n_table, n_area, n_bar;
	/* the prediction's peak against the basis count: its chart, the runs' dots, the fitted
	 * line, the predicted point and its range; the sizes named above it */
	unsigned n_peak_size, n_measured, n_model, n_predicted, n_range, n_size;
	GString *text;
};

static void page_start(GMarkupParseContext *ctx, const char *el, const char **names,
		       const char **values, gpointer data, GError **err)
{
	struct page *pg = data;

	(void)ctx;
	(void)err;
	pg->n_svg += !strcmp(el, "svg");
	pg->n_table += !strcmp(el, "table");
	for (size_t i = 0; names[i]; i++) {
		if (!strcmp(names[i], "class")) {
			pg->n_area += !strcmp(values[i], "area");
			pg->n_bar += !strcmp(values[i], "bar-peak");
			pg->n_peak_size += !strcmp(values[i], "peak-size");
			pg->n_measured += !strcmp(values[i], "measured");
			pg->n_model += !strcmp(values[i], "model");
			pg->n_predicted += !strcmp(values[i], "predicted-point");
			pg->n_range += !strcmp(values[i], "predicted-range");
			pg->n_size += !strcmp(values[i], "size");
		}
	}
}

static void page_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer data,
		      GError **err)
{
	(void)ctx;
	(void)err;
	g_string_append_len(((struct page *)data)->text, text, (gssize)len);
}

/* The page at path parsed as XML (the DOCTYPE skipped): fails the test if it is not
 * well-formed. */
static struct page parse_page(const char *path, char **raw)
{
	static const GMarkupParser parser = {.start_element = page_start, .text = page_text};
	struct page pg = {.text = g_string_new("")};
	GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, &pg, NULL);
	GError *err = NULL;
	char *html = dps_test_read_file(path, NULL), *root;

	cr_assert(html, "no %s", path);
	cr_assert(g_str_has_prefix(html, "<!DOCTYPE html>\n"));
	root = strstr(html, "<html");
	cr_assert(root);
	cr_assert(g_markup_parse_context_parse(ctx, root, -1, &err) &&
		      g_markup_parse_context_end_parse(ctx, &err),
		  "%s is not well-formed: %s", path, err ? err->message : "?");
	g_markup_parse_context_free(ctx);
	cr_expect_null(strstr(html, "http://"), "no outside resource");
	cr_expect_null(strstr(html, "https://"), "no outside resource");
	cr_expect_null(strstr(html, "<script"), "no script");
	*raw = html;
	return pg;
}

Test(profile, the_html_page_has_a_chart_and_a_table_per_data_set_names_escaped)
{
	static const char *const evil = "<b>x</b> & \"y\" 'z'";
	struct mp_run *r = mp_run_create("run<1>", 10);
	struct mp_profile p = {0}, back = {0};
	struct dps_diag diag = {{0}};
	char *dir = dps_test_mkdtemp("mempredict-html");
	char *path = dps_test_strf("%s/p.html", dir), *json = dps_test_strf("%s/p.json", dir);
	char *raw;
	struct page pg;

	cr_assert(r);
	feed(r, ev(MP_EV_PHASE, 0, 0, 0, "build"));
	for (uint64_t i = 0; i < 40; i++) {
		feed(r, ev(MP_EV_ALLOC, 10 + i, 0x1000 + i * 64, 48, "struct node"));
		feed(r, ev(MP_EV_ALLOC, 10 + i, 0x9000 + i * 64, 8, evil));
	}
	feed(r, ev(MP_EV_PHASE, 100, 0, 0, "drop"));
	for (uint64_t i = 0; i < 40; i++) {
		feed(r, ev(MP_EV_FREE, 110 + i, 0x1000 + i * 64, 0, NULL));
	}
	cr_assert_eq(mp_run_finish(r, 200, &p), DPS_OK);
	mp_run_destroy(r);
	/* the series goes through the profile file */
	cr_assert_eq(mp_profile_save(&p, json, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(mp_profile_load(json, &back, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(back.sets[1].series.n_points, p.sets[1].series.n_points);
	cr_assert_eq(back.sets[1].series.n_rows, 2);
	cr_expect_str_eq(back.sets[1].series.names[0], "struct node");
	cr_expect_eq(back.sets[1].series.bytes[0], 40 * 48, "node's bytes at the phase's start");
	cr_assert_eq(mp_profile_save_html(&back, "struct node", path, &diag), DPS_OK, "%s",
		     diag.msg);
	pg = parse_page(path, &raw);
	cr_expect_eq(pg.n_svg, 2, "one chart per data set: %u", pg.n_svg);
	cr_expect_eq(pg.n_table, 2, "one class table per data set: %u", pg.n_table);
	cr_expect_eq(pg.n_area, 4, "two classes drawn in each: %u", pg.n_area);
	cr_expect(strstr(pg.text->str, "struct node"), "the class name");
	cr_expect(strstr(pg.text->str, evil), "the name as it was, once parsed");
	cr_expect(strstr(raw, "&lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot; &#39;z&#39;"),
		  "escaped in the file");
	cr_expect_null(strstr(raw, "<b>"), "never raw");
	cr_expect(strstr(raw, "run&lt;1&gt;"), "the run escaped");
	/* multiplicity per basis object: the evil class has as many objects as the basis */
	cr_expect(strstr(raw, "<td>1</td><td>40</td><td>40</td><td>40</td>"),
		  "multiplicity 1 and the counts");
	g_string_free(pg.text, TRUE);
	g_free(raw);
	mp_profile_fini(&p);
	mp_profile_fini(&back);
	g_free(path);
	g_free(json);
	dps_test_rmtree(dir);
	g_free(dir);
}

/*
 * Predictions on synthetic profiles: three runs of n = 1000, 2000, 4000 basis objects; a
 * "node" class of 48-byte objects, n of them (the basis), an "index" class whose bytes grow
 * as n^2 / 100, and a constant 4 kB "table".
 */
static void add_class(struct mp_dataset *d, const char *name, uint64_t count, double bytes)
{
	struct mp_class_stats *c = &d->classes[d->n_classes++];

	c->name = strdup(name);
	c->allocated = c->max_active = c->end_active = c->live_max = count;
	c->avg_active = (double)count / 2;
	c->bytes = c->peak_live_bytes = c->live_at_peak_bytes = (uint64_t)bytes;
	c->avg_live_bytes = bytes / 2;
	c->avg_size = count ? bytes / (double)count : 0;
	c->max_size = (uint64_t)c->avg_size;
}

static void synthetic(struct mp_profile *p, size_t n_runs)
{
	static const double ns[] = {1000, 2000, 4000, 8000};

	p->n_sets = n_runs;
	p->sets = calloc(n_runs, sizeof(*p->sets));
	cr_assert(p->sets);
	for (size_t i = 0; i < n_runs; i++) {
		struct mp_dataset *d = &p->sets[i];
		double n = ns[i];

		d->run = g_strdup_printf("run%zu", i);
		d->phase = strdup("all");
		d->size = n;
		d->duration_ns = 1000000;
		d->start_bytes = 0;
		d->end_bytes = (uint64_t)(48 * n + n * n / 100 + 4096);
		d->peak_bytes = d->end_bytes;
		d->classes = calloc(3, sizeof(*d->classes));
		add_class(d, "node", (uint64_t)n, 48 * n);
		add_class(d, "index", (uint64_t)(n / 10), n * n / 100);
		add_class(d, "table", 1, 4096);
	}
}

static const struct mp_class_prediction *predicted(const struct mp_prediction *pr, const char *name)
{
	for (size_t i = 0; i < pr->n_classes; i++) {
		if (!strcmp(pr->classes[i].name, name)) {
			return &pr->classes[i];
		}
	}
	cr_assert_fail("no prediction for class %s", name);
	return NULL;
}

static bool close_to(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want) + 1e-6;
}

/* A hash table's bucket array doubles when the entries outgrow it (bench/mp-wordidx.c): one
 * object whose bytes are powers of two, the same at two of the three sizes. The steps are
 * followed (the next doubling at 4x), where cross-validation would keep it constant; a
 * population whose bytes happen to be powers of two (its count grows) is no container. */
Test(predict, a_container_that_doubles_is_predicted_by_steps)
{
	static const double sizes[] = {25000, 50000, 100000}, buckets[] = {32768, 65536, 65536};
	struct mp_profile p = {0};
	struct mp_predict_options o = {.by_size = true, .count = 400000};
	struct mp_prediction pr;
	struct dps_diag diag = {""};
	const struct mp_class_prediction *b, *nodes;

	p.n_sets = 3;
	p.sets = calloc(3, sizeof(*p.sets));
	cr_assert(p.sets);
	for (size_t i = 0; i < 3; i++) {
		struct mp_dataset *d = &p.sets[i];

		d->run = g_strdup_printf("run%zu", i);
		d->phase = strdup("index");
		d->size = sizes[i];
		d->duration_ns = 1000000;
		d->classes = calloc(2, sizeof(*d->classes));
		add_class(d, "buckets", 1, buckets[i]);
		add_class(d, "nodes", (uint64_t)sizes[i] / 4, sizes[i] * 4 / 25 * 8.192);
		d->peak_bytes = d->end_bytes = d->classes[0].bytes + d->classes[1].bytes;
	}
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	b = predicted(&pr, "buckets");
	cr_expect_str_eq(b->model, "doubling");
	cr_expect(close_to(b->peak_bytes, 262144, 1e-9), "the next step up: %g", b->peak_bytes);
	cr_expect(close_to(b->peak_lo, 131072, 1e-9), "the range spans the step below: %g",
		  b->peak_lo);
	nodes = predicted(&pr, "nodes");
	cr_expect_str_eq(nodes->model, "linear", "a population is fitted, not stepped");
	cr_expect(close_to(nodes->peak_bytes, 400000 * 4 / 25 * 8.192, 1e-6), "%g",
		  nodes->peak_bytes);
	mp_prediction_fini(&pr);
	mp_profile_fini(&p);
}

Test(predict, fitted_classes_follow_their_laws)
{
	struct mp_profile p = {0};
	struct mp_predict_options o = {.basis = "node", .count = 16000};
	struct mp_prediction pr;
	struct dps_diag diag = {""};
	const struct mp_class_prediction *node, *index, *table;

	synthetic(&p, 3);
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(pr.n_phases, 1);
	cr_expect(pr.phases[0].fitted);
	node = predicted(&pr, "node");
	index = predicted(&pr, "index");
	table = predicted(&pr, "table");
	cr_expect_str_eq(node->model, "linear");
	cr_expect_str_eq(index->model, "quadratic");
	cr_expect_str_eq(table->model, "constant");
	cr_expect(close_to(node->peak_bytes, 48 * 16000.0, 1e-6), "node %g", node->peak_bytes);
	cr_expect(close_to(index->peak_bytes, 16000.0 * 16000 / 100, 1e-6), "index %g",
		  index->peak_bytes);
	cr_expect(close_to(table->peak_bytes, 4096, 1e-6), "table %g", table->peak_bytes);
	cr_expect(close_to(pr.peak_bytes, 768000 + 2560000 + 4096, 1e-6), "total %g",
		  pr.peak_bytes);
	cr_expect(close_to(pr.avg_bytes, (768000 + 2560000 + 4096) / 2.0, 1e-6), "avg %g",
		  pr.avg_bytes);
	cr_expect(pr.peak_lo <= pr.peak_bytes && pr.peak_bytes <= pr.peak_hi);
	cr_expect_str_eq(pr.classes[0].name, "index", "biggest first");
	cr_expect(close_to(index->share, 2560000 / (768000 + 2560000 + 4096.0), 1e-6));
	mp_prediction_fini(&pr);
	mp_profile_fini(&p);
}

/* The paper's algorithm, by hand: max over data sets of max_active relative to the basis's,
 * mean of avg_active relative to the basis's, times count, times the mean object size. */
Test(predict, the_html_page_has_a_bar_per_class)
{
	struct mp_profile p = {0};
	struct mp_predict_options o = {.basis = "node", .count = 16000};
	struct mp_prediction pr;
	struct dps_diag diag = {""};
	char *dir = dps_test_mkdtemp("mempredict-html");
	char *path = dps_test_strf("%s/pred.html", dir), *raw;
	struct page pg;

	synthetic(&p, 4);
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(mp_prediction_add_curve(&pr, &p, &o, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(mp_prediction_save_html(&pr, path, &diag), DPS_OK, "%s", diag.msg);
	pg = parse_page(path, &raw);
	cr_expect_eq(pg.n_svg, 2, "the peak against size and one chart per phase: %u", pg.n_svg);
	cr_expect_eq(pg.n_table, 2, "the runs and one table per phase: %u", pg.n_table);
	cr_expect_eq(pg.n_bar, 3, "a bar per class: %u", pg.n_bar);
	cr_expect(strstr(pg.text->str, "index"), "a class name");
	cr_expect_null(strstr(raw, "id=\"program\""), "no run names a program:\n%s", raw);
	g_string_free(pg.text, TRUE);
	g_free(raw);
	mp_prediction_fini(&pr);
	mp_profile_fini(&p);
	g_free(path);
	dps_test_rmtree(dir);
	g_free(dir);
}

/*
 * The page says what the prediction was made from and shows why to believe it (issue 25): the
 * program the runs recorded, the profile, the runs' sizes, and the peak against the size with
 * the runs' measured peaks, the fitted models' line and the extrapolated point with its range.
 * The line is the prediction's own models evaluated at each size: at the runs' sizes it meets
 * their peaks (the synthetic laws are exact), at the count it is the prediction.
 */
Test(predict, the_html_page_says_what_it_was_fitted_on_and_draws_peak_against_size)
{
	struct mp_profile p = {0};
	struct mp_predict_options o = {.basis = "node", .count = 16000, .source = "dir/<p>.json"};
	struct mp_prediction pr;
	struct dps_diag diag = {""};
	char *dir = dps_test_mkdtemp("mempredict-html");
	char *path = dps_test_strf("%s/pred.html", dir), *raw;
	struct page pg;
	size_t at_count = SIZE_MAX;

	synthetic(&p, 3);
	for (size_t i = 0; i < p.n_sets; i++) {
		p.sets[i].command = g_strdup_printf("/opt/bin/word<idx> %g", p.sets[i].size);
	}
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(pr.n_runs, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_expect_eq(pr.runs[i].x, p.sets[i].size, "run %zu's basis count", i);
		cr_expect_eq(pr.runs[i].peak_bytes, (double)p.sets[i].peak_bytes, "run %zu", i);
	}
	cr_assert_eq(mp_prediction_add_curve(&pr, &p, &o, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_geq(pr.n_curve, MP_CURVE_POINTS);
	for (size_t i = 0; i < pr.n_curve; i++) {
		cr_assert(!i || pr.curve_x[i] > pr.curve_x[i - 1], "the curve by count");
		at_count = pr.curve_x[i] == o.count ? i : at_count;
		for (size_t k = 0; k < 3; k++) {
			if (pr.curve_x[i] == pr.runs[k].x) {
				cr_expect(close_to(pr.curve_peak[i], pr.runs[k].peak_bytes, 1e-3),
					  "the line at run %zu: %g, measured %g", k,
					  pr.curve_peak[i], pr.runs[k].peak_bytes);
			}
		}
	}
	cr_assert_neq(at_count, SIZE_MAX, "the curve passes the count");
	cr_expect(close_to(pr.curve_peak[at_count], pr.peak_bytes, 1e-9),
		  "the line at the count %g, the prediction %g", pr.curve_peak[at_count],
		  pr.peak_bytes);
	cr_assert_eq(mp_prediction_save_html(&pr, path, &diag), DPS_OK, "%s", diag.msg);
	pg = parse_page(path, &raw);
	cr_expect_eq(pg.n_peak_size, 1, "the peak against size: %u charts", pg.n_peak_size);
	cr_expect_eq(pg.n_measured, 3, "a dot per run: %u", pg.n_measured);
	cr_expect_eq(pg.n_model, 1, "the fitted line: %u", pg.n_model);
	cr_expect_eq(pg.n_predicted, 1, "the predicted point: %u", pg.n_predicted);
	cr_expect_eq(pg.n_range, 1, "its range: %u", pg.n_range);
	cr_expect_eq(pg.n_size, 3, "the sizes named: %u", pg.n_size);
	cr_expect(strstr(pg.text->str, "Predicted heap of word<idx> for node = 16000"),
		  "the program and the count:\n%s", pg.text->str);
	cr_expect(strstr(pg.text->str, "dir/<p>.json"), "the profile:\n%s", pg.text->str);
	cr_expect(strstr(pg.text->str, "basis counts 1000, 2000, 4000"), "the sizes:\n%s",
		  pg.text->str);
	cr_expect(strstr(pg.text->str, "/opt/bin/word<idx> 2000"), "a run's command");
	cr_expect_null(strstr(raw, "<idx>"), "never raw");
	g_string_free(pg.text, TRUE);
	g_free(raw);
	mp_prediction_fini(&pr);
	mp_profile_fini(&p);
	g_free(path);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(predict, the_papers_ratios)
{
	struct mp_profile p = {0};
	struct mp_predict_options o = {.basis = "node", .count = 16000};
	struct mp_prediction pr;
	struct dps_diag diag = {""};
	double size_index = (100 + 200 + 400) / 3.0;
	double peak = 16000 * (48 + 0.1 * size_index + 4096 / 1000.0);
	double avg =
	    16000 * (48 + 0.1 * size_index + 4096 * (0.5 / 500 + 0.5 / 1000 + 0.5 / 2000) / 3);

	synthetic(&p, 3);
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	cr_expect(close_to(pr.paper_peak_bytes, peak, 1e-9), "paper peak %g, expected %g",
		  pr.paper_peak_bytes, peak);
	cr_expect(close_to(pr.paper_avg_bytes, avg, 1e-9), "paper avg %g, expected %g",
		  pr.paper_avg_bytes, avg);
	mp_prediction_fini(&pr);
	mp_profile_fini(&p);
}

Test(predict, two_runs_give_the_papers_ratios_only)
{
	struct mp_profile p = {0};
	struct mp_predict_options o = {.basis = "node", .count = 16000};
	struct mp_prediction pr;
	struct dps_diag diag = {""};

	synthetic(&p, 2);
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	cr_expect_not(pr.phases[0].fitted);
	cr_expect_str_eq(predicted(&pr, "node")->model, "ratio");
	cr_expect(close_to(pr.peak_bytes, pr.paper_peak_bytes, 1e-12));
	mp_prediction_fini(&pr);
	mp_profile_fini(&p);
}

Test(predict, bad_inputs_are_refused_with_a_reason)
{
	struct mp_profile p = {0}, empty = {0};
	struct mp_predict_options o = {.basis = "nothing", .count = 10};
	struct mp_prediction pr;
	struct dps_diag diag = {""};

	synthetic(&p, 3);
	cr_expect_eq(mp_predict(&p, &o, &pr, &diag), DPS_ERR_INVAL);
	cr_expect(strstr(diag.msg, "unknown basis class \"nothing\""), "%s", diag.msg);
	cr_expect(strstr(diag.msg, "\"node\""), "the message names known classes: %s", diag.msg);
	o.basis = "node";
	o.count = 0;
	cr_expect_eq(mp_predict(&p, &o, &pr, &diag), DPS_ERR_INVAL);
	cr_expect(strstr(diag.msg, "> 0"), "%s", diag.msg);
	o.count = -5;
	cr_expect_eq(mp_predict(&p, &o, &pr, &diag), DPS_ERR_INVAL);
	o.count = 10;
	cr_expect_eq(mp_predict(&empty, &o, &pr, &diag), DPS_ERR_INVAL);
	mp_profile_fini(&p);
}

Test(predict, the_profile_file_round_trips)
{
	struct mp_profile p = {0}, q = {0};
	struct dps_diag diag = {""};
	char *dir = dps_test_mkdtemp("mempredict-io");
	char *path = dps_test_strf("%s/p.json", dir);
	char *bad = dps_test_strf("%s/bad.json", dir);

	synthetic(&p, 3);
	p.sets[2].command = strdup("./prog 4000");
	cr_assert_eq(mp_profile_save(&p, path, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(mp_profile_load(path, &q, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(q.n_sets, 3);
	cr_expect_str_eq(q.sets[2].run, "run2");
	cr_expect_str_eq(q.sets[2].command, "./prog 4000", "the recorded command");
	cr_expect_null(q.sets[1].command, "a run without record.info names none");
	cr_expect_eq(q.sets[2].classes[1].live_at_peak_bytes, 160000);
	cr_expect_eq(q.sets[1].size, 2000);
	dps_test_write_file(bad, "{\"format\": \"dps-memory-profile\", \"version\": 1, "
				 "\"datasets\": [{\"run\": \"r\"}]}");
	cr_expect_eq(mp_profile_load(bad, &q, &diag), DPS_ERR_INVAL);
	cr_expect(strstr(diag.msg, "datasets[0]") && strstr(diag.msg, "phase"), "%s", diag.msg);
	/* a negative count (found by fuzz-profile: it was cast to uint64_t) */
	dps_test_write_file(bad,
			    "{\"format\": \"dps-memory-profile\", \"version\": 1, "
			    "\"datasets\": [{\"run\": \"r\", \"phase\": \"p\", \"size\": null, "
			    "\"duration_ns\": -8000}]}");
	cr_expect_eq(mp_profile_load(bad, &q, &diag), DPS_ERR_INVAL);
	cr_expect(strstr(diag.msg, "\"duration_ns\" is -8000: expected a number >= 0"), "%s",
		  diag.msg);
	dps_test_write_file(bad, "[1, 2");
	cr_expect_eq(mp_profile_load(bad, &q, &diag), DPS_ERR_INVAL);
	cr_expect_eq(mp_profile_load("/nonexistent/p.json", &q, &diag), DPS_ERR_NOENT);
	mp_profile_fini(&p);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(path);
	g_free(bad);
}

Test(predict, against_the_input_size)
{
	struct mp_profile p = {0};
	struct mp_predict_options o = {.by_size = true, .count = 16000};
	struct mp_prediction pr;
	struct dps_diag diag = {""};

	synthetic(&p, 3);
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	cr_expect_str_eq(pr.basis, "input size");
	cr_expect(close_to(pr.peak_bytes, 768000 + 2560000 + 4096, 1e-6), "total %g",
		  pr.peak_bytes);
	/* the paper's ratio against the size: node count / size = 1 */
	cr_expect(close_to(predicted(&pr, "node")->paper_peak_bytes, 48 * 16000.0, 1e-9));
	mp_prediction_fini(&pr);
	p.sets[1].size = -1;
	cr_expect_eq(mp_predict(&p, &o, &pr, &diag), DPS_ERR_INVAL);
	cr_expect(strstr(diag.msg, "run1 has no input size"), "%s", diag.msg);
	mp_profile_fini(&p);
}

/* The predicted curve as actions: it ends at the predicted end level, peaks at the predicted
 * peak, lasts the predicted time and has the predicted average (one rise over the whole phase:
 * the data sets' average is half their peak and they end at it). */
Test(predict, the_curve_as_actions)
{
	struct mp_profile p = {0};
	struct mp_predict_options o = {.basis = "node", .count = 16000};
	struct mp_prediction pr;
	struct dps_diag diag = {""};
	char *dir = dps_test_mkdtemp("mempredict-actions");
	char *set = dps_test_strf("%s/set", dir);
	char *act = dps_test_strf("%s/1.act", set);
	char *text, *line, *save = NULL;
	double level = 0, peak = 0, area = 0, t = 0, want = 768000 + 2560000 + 4096;

	synthetic(&p, 3);
	cr_assert_eq(mp_predict(&p, &o, &pr, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(mp_prediction_write_actions(&pr, set, &diag), DPS_OK, "%s", diag.msg);
	text = dps_test_read_file(act, NULL);
	cr_assert(text, "no %s", act);
	cr_expect(!strncmp(text, "dps-actions 1\n", 14));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		double v;

		if (sscanf(line, "heap %lf", &v) == 1) {
			level += v;
			peak = level > peak ? level : peak;
		} else if (sscanf(line, "sleep %lfns", &v) == 1) {
			area += level * v;
			t += v;
		}
	}
	cr_expect(close_to(level, want, 1e-6), "ends at %g, expected %g", level, want);
	cr_expect(close_to(peak, want, 1e-6), "peaks at %g", peak);
	cr_expect(close_to(t, 1e6, 1e-6), "lasts %g ns", t);
	cr_expect(close_to(area / t, want / 2, 0.01), "average %g, expected %g", area / t,
		  want / 2);
	/* an existing file that is not an action set is refused */
	dps_test_write_file(act, "not an action\n");
	cr_expect_eq(mp_prediction_write_actions(&pr, dir, &diag), DPS_ERR_INVAL, "%s", diag.msg);
	g_free(text);
	mp_prediction_fini(&pr);
	mp_profile_fini(&p);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(set);
	g_free(act);
}
