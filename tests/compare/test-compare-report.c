/* SPDX-License-Identifier: MIT */
/*
 * The HTML report opened in headless Chromium: its script must run and draw every thread of
 * both runs (each drawn row carries data-side/data-present/data-drawn attributes, set by the
 * drawing code), whatever the thread names contain, and the file must stand alone.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "compare-test.h"

#define CHROMIUM_FLAGS                                                                             \
	"--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "                     \
	"--disable-background-networking --disable-component-update --disable-sync"

/* URL fragment for the next make_report ("#selftest" runs the page's interaction self-test) */
static const char *url_fragment = "";
/* The next make_report writes the file only: a test that checks what the file holds, not what
 * its script draws, costs no Chromium start (3 s of CPU on the test VM). */
static bool file_only;

struct report {
	char *dir;  /* g_free: the report's directory (dps_test_mkdtemp) */
	char *html; /* the file */
	char *dom;  /* the DOM after the page's script ran */
	size_t html_len;
};

static void report_fini(struct report *r)
{
	g_free(r->html);
	g_free(r->dom);
	dps_test_rmtree(r->dir);
	g_free(r->dir);
}

/* dps compare ARGS --html FILE, then chromium --dump-dom FILE. */
static struct report make_report(const char *fmt, ...)
{
	struct report r = {.dir = dps_test_mkdtemp("compare-report")};
	char *args = NULL, *cmd = NULL, *err = NULL, *out, *sets = ct_set_path("");
	va_list ap;

	va_start(ap, fmt);
	cr_assert_gt(vasprintf(&args, fmt, ap), 0);
	va_end(ap);
	cr_assert_gt(asprintf(&cmd, "cd %s && %s compare %s --html %s/r.html", sets, dps_test_bin(),
			      args, r.dir),
		     0);
	out = ct_run_capture(cmd, &err);
	cr_assert_eq(ct_last_status, 0, "%s: %s", cmd, err);
	free(out);
	free(err);
	free(cmd);
	cr_assert_gt(asprintf(&cmd, "%s/r.html", r.dir), 0);
	r.html = dps_test_read_file(cmd, &r.html_len);
	cr_assert_not_null(r.html);
	free(cmd);
	if (file_only) {
		free(args);
		free(sets);
		return r;
	}
	cr_assert_gt(asprintf(&cmd,
			      "timeout 180 chromium " CHROMIUM_FLAGS
			      " --user-data-dir=%s/profile --dump-dom file://%s/r.html%s",
			      r.dir, r.dir, url_fragment),
		     0);
	r.dom = ct_run_capture(cmd, &err);
	cr_assert_eq(ct_last_status, 0,
		     "chromium failed (is it installed? scripts/setup.sh "
		     "installs it): %s",
		     err);
	cr_assert(strstr(r.dom, "data-rendered=\"1\""), "the report's script did not finish: %s",
		  err);
	/* count only what was drawn, not the script's own text (the scripts come last) */
	cr_assert_not_null(strstr(r.dom, "<script"));
	*strstr(r.dom, "<script") = '\0';
	free(err);
	free(cmd);
	free(args);
	free(sets);
	return r;
}

/* Every thread of each side drawn: present rows counted, none drawn empty. */
static void assert_all_drawn(const struct report *r, size_t n_orig, size_t n_sim)
{
	char want[64];

	cr_expect_eq(ct_count(r->dom, "data-side=\"orig\" "),
		     ct_count(r->dom, "data-side=\"sim\" "),
		     "both panels have one row per compared thread");
	snprintf(want, sizeof(want), "data-rows-orig=\"%zu\"", n_orig);
	cr_expect(strstr(r->dom, want), "expected %s", want);
	snprintf(want, sizeof(want), "data-rows-sim=\"%zu\"", n_sim);
	cr_expect(strstr(r->dom, want), "expected %s", want);
	cr_expect_eq(ct_count(r->dom, "data-present=\"1\""), n_orig + n_sim);
	cr_expect_eq(ct_count(r->dom, "data-present=\"1\" data-drawn=\""), n_orig + n_sim);
	cr_expect_eq(ct_count(r->dom, "data-drawn=\"0\""), 0, "a thread row was drawn empty");
}

static void assert_self_contained(const struct report *r)
{
	cr_expect_null(strstr(r->html, "http://"), "no network reference");
	cr_expect_null(strstr(r->html, "https://"), "no network reference");
	cr_expect_null(strstr(r->html, " src="), "no external asset");
	cr_expect_null(strstr(r->html, "<link"), "no external stylesheet");
}

Test(compare_report, every_thread_of_both_runs_is_drawn, .timeout = 240)
{
	struct report r = make_report("base extra");

	assert_all_drawn(&r, 4, 5);
	assert_self_contained(&r);
	/* the unmatched thread is drawn in its run and marked absent in the other */
	cr_expect_eq(ct_count(r.dom, "data-present=\"0\""), 1);
	/* marks and all three kinds of segments of this pair */
	cr_expect(strstr(r.dom, "class=\"k0\""), "running bars");
	cr_expect(strstr(r.dom, "class=\"k2\""), "sleep bars");
	cr_expect(strstr(r.dom, "class=\"k3\""), "wait bars");
	cr_expect(strstr(r.dom, "class=\"k4\""), "join bars");
	cr_expect(strstr(r.dom, "class=\"m0\""), "create marks");
	cr_expect(strstr(r.dom, "<td class=\"l\">0.+3</td>"), "the per-thread table");
	report_fini(&r);
}

Test(compare_report, hostile_thread_names_are_escaped, .timeout = 240)
{
	struct report r = make_report("evil evil");

	cr_expect_null(strstr(r.html, "<script>alert"), "a name closed the script element");
	cr_expect(strstr(r.html, "\\u003c/script\\u003e"), "names are escaped in the JSON island");
	/* the script still ran and drew the name as text */
	assert_all_drawn(&r, 2, 2);
	cr_expect(strstr(r.dom, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;"),
		  "the name is shown as text");
	cr_expect_null(strstr(r.dom, "<script>alert"));
	report_fini(&r);
}

Test(compare_report, memory_curves_are_drawn_when_present, .timeout = 240)
{
	struct report r = make_report("mem mem-off");
	const char *heap = strstr(r.dom, "id=\"mem-heap\"");

	assert_all_drawn(&r, 2, 2);
	cr_assert_not_null(heap, "the memory section is there");
	cr_expect(strstr(heap, "<path class=\"orig\""), "desired curve drawn");
	cr_expect(strstr(heap, "<path class=\"sim\""), "measured curve drawn");
	cr_expect(strstr(r.dom, "id=\"mem-stack\""));
	cr_expect(strstr(r.dom, "<div class=\"v\">4.0 KiB</div><div class=\"l\">heap max error"),
		  "the figures are in the cards");
	report_fini(&r);
}

Test(compare_report, no_memory_section_without_samples, .timeout = 240)
{
	struct report r;

	file_only = true;
	r = make_report("base base");
	file_only = false;

	cr_expect_null(strstr(r.html, "id=\"memory\""));
	report_fini(&r);
}

Test(compare_report, eight_thousand_threads_stay_drawable, .timeout = 300)
{
	const char *data = dps_test_data_dir();
	struct report r;

	r = make_report("--pid 2673 %s/traces/many-threads %s/traces/many-threads", data, data);
	assert_all_drawn(&r, 8001, 8001);
	/* generous: per-pixel culling keeps the file and the page small */
	cr_expect_lt(r.html_len, 16u << 20, "report of %zu bytes", r.html_len);
	report_fini(&r);
}

Test(compare_report, zoom_hover_and_selection_work, .timeout = 240)
{
	struct report r;

	url_fragment = "#selftest";
	r = make_report("base double2");
	url_fragment = "";
	cr_expect(strstr(r.dom, "data-selftest=\"ok\""), "self-test: %.300s",
		  strstr(r.dom, "data-selftest") ? strstr(r.dom, "data-selftest") : "(not run)");
	report_fini(&r);
}

Test(compare_report, memory_hover_works, .timeout = 240)
{
	struct report r;

	url_fragment = "#selftest";
	r = make_report("mem mem-off");
	url_fragment = "";
	cr_expect(strstr(r.dom, "data-selftest=\"ok\""), "self-test: %.300s",
		  strstr(r.dom, "data-selftest") ? strstr(r.dom, "data-selftest") : "(not run)");
	cr_expect(strstr(r.dom, "after each change (the points compare compares)"),
		  "the self-test switched the memory charts to point numbers");
	report_fini(&r);
}

/* The report says what produced it, in a visible section. */
Test(compare_report, run_parameters_are_shown, .timeout = 240)
{
	struct report r = make_report("base double2 --exclude-comm 'x y'");
	const char *sec = strstr(r.dom, "<h2>Run parameters</h2>");

	cr_assert_not_null(sec, "no Run parameters section");
	cr_expect(strstr(sec, "dps compare base double2 --exclude-comm 'x y' --html"), "%.600s",
		  sec);
	cr_expect(strstr(sec, "<th>dps version</th>"), "%.600s", sec);
	cr_expect(strstr(sec, "<code>--exclude-comm x y</code>"), "%.900s", sec);
	/* the table: on a base under 1 ms the difference, not "+71.4%" */
	cr_expect_null(strstr(r.dom, "+71.4%"), "a relative error on a 700 us base");
	cr_expect(strstr(r.dom, "\">ID</th>"), "an ID column in the thread table");
	report_fini(&r);
}

/* A chart with nothing to draw (no stack action anywhere) is left out, with its card. */
Test(compare_report, a_chart_without_data_is_left_out, .timeout = 240)
{
	struct report r = make_report("heap-only heap-only");

	cr_expect(strstr(r.dom, "id=\"mem-heap\""), "the heap chart is there");
	cr_expect_null(strstr(r.html, "id=\"mem-stack\""), "an empty stack chart");
	cr_expect_null(strstr(r.html, "<div class=\"l\">stack max error"),
		       "a stack card over 0 points");
	cr_expect(strstr(r.html, "<div class=\"l\">heap max error"), "the heap card");
	cr_expect(strstr(r.dom, "<path class=\"orig\""), "the heap curve is drawn");
	report_fini(&r);
}
