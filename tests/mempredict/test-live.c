/* SPDX-License-Identifier: MIT */
/*
 * dps memory on live recordings: live-prog.c (built with -g) recorded with dps record --memory
 * at three sizes, profiled (its allocation line named, its phases from marks, a class named by
 * the program) and predicted at four times the largest; and the bad inputs through the
 * command (a recording without heap events, an unknown basis class, a count <= 0).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "dps-test.h"

static const long sizes[] = {500, 1000, 2000};

/* The line of tests/mempredict/FILE that has the marker. */
static int line_of(const char *file, const char *marker)
{
	char *path = dps_test_strf("%s/tests/mempredict/%s", dps_test_source_dir(), file);
	char *text = dps_test_read_file(path, NULL);
	char *at;
	int line = 1;

	cr_assert(text, "cannot read %s", path);
	at = strstr(text, marker);
	cr_assert(at, "no %s in %s", marker, path);
	for (char *p = text; p < at; p++) {
		line += *p == '\n';
	}
	g_free(text);
	g_free(path);
	return line;
}

static char *record_prog(const char *dir, const char *prog, long n, bool memory)
{
	char *trace = dps_test_strf("%s/%s-%ld%s", dir, prog, n, memory ? "" : "-plain");

	cr_assert_eq(dps_test_sh("'%s' record -q %s --no-kernel -o '%s' -- "
				 "'%s/tests/mempredict/mempredict-%s' %ld",
				 dps_test_bin(), memory ? "--memory" : "", trace,
				 dps_test_build_dir(), prog, n),
		     0, "dps record failed");
	return trace;
}

static char *record(const char *dir, long n, bool memory)
{
	return record_prog(dir, "live-prog", n, memory);
}

/* The number after "key" : in a JSON text. */
static double json_number(const char *json, const char *key)
{
	char *k = dps_test_strf("\"%s\" : ", key);
	const char *at = strstr(json, k);

	cr_assert(at, "no %s in %s", key, json);
	at += strlen(k);
	g_free(k);
	return strtod(at, NULL);
}

Test(live, sites_phases_and_a_prediction_from_three_recordings, .timeout = 280)
{
	char *dir = dps_test_mkdtemp("mempredict-live");
	char *traces[3], *prof = dps_test_strf("%s/prof.json", dir);
	char *site = dps_test_strf("main (live-prog.c:%d)", line_of("live-prog.c", "SITE: node"));
	struct dps_test_run r;
	double peak, lo, hi, want = 8000.0 * (64 + 8 + 16);

	for (int i = 0; i < 3; i++) {
		traces[i] = record(dir, sizes[i], true);
	}
	r = dps_test_run_dps("memory", "profile", traces[0], traces[1], traces[2], "-o", prof,
			     NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, site), "the allocation line is named: no \"%s\" in\n%s", site,
		  r.out);
	cr_expect(strstr(r.out, "phase build  size 500"), "phase and size from marks:\n%s", r.out);
	cr_expect(strstr(r.out, "phase teardown"), "no teardown phase:\n%s", r.out);
	cr_expect(strstr(r.out, "  name\n"), "the class named by dps_mem_class:\n%s", r.out);
	cr_expect_not(strstr(r.out, "liblttng-ust"), "the tracer's own allocations:\n%s", r.out);
	/* in build, 1000 nodes allocated, all live at the end; in teardown none left */
	cr_expect(strstr(r.out, "        1000       1000       1000"),
		  "build: allocated, max_active, end_active of the nodes:\n%s", r.out);
	dps_test_run_fini(&r);

	r = dps_test_run_dps("memory", "predict", prof, "--basis", site, "--count", "8000",
			     "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	peak = json_number(r.out, "peak_bytes");
	cr_expect(peak > want * 0.95 && peak < want * 1.05, "peak %g, expected %g", peak, want);
	{
		const char *range = strstr(r.out, "\"peak_range\" : [");

		cr_assert(range, "%s", r.out);
		cr_assert_eq(sscanf(range, "\"peak_range\" : [ %lf , %lf", &lo, &hi), 2, "%s",
			     range);
		cr_expect(lo <= peak && peak <= hi, "range [%g, %g] around %g", lo, hi, peak);
	}
	cr_expect(strstr(r.out, "\"model\" : \"linear\""), "the nodes grow linearly:\n%s", r.out);
	cr_expect(strstr(r.out, "\"classes\""), "%s", r.out);
	dps_test_run_fini(&r);

	/* the page names the program record.info names, the profile and the sizes; the output
	 * ends with where it is */
	{
		char *html = dps_test_strf("%s/pred.html", dir), *page, *report;

		r = dps_test_run_dps("memory", "predict", prof, "--basis", site, "--count", "8000",
				     "--html", html, NULL);
		cr_expect_eq(r.status, 0, "%s", r.err);
		report = dps_test_strf("\nReport: %s\n", html);
		cr_expect(g_str_has_suffix(r.out, report), "the output does not end with%s:\n%s",
			  report, r.out);
		page = dps_test_read_file(html, NULL);
		cr_assert(page, "no page %s", html);
		cr_expect(strstr(page, "<code id=\"program\">mempredict-live-prog</code>"),
			  "the program:\n%.2000s", page);
		cr_expect(strstr(page, prof), "the profile:\n%.2000s", page);
		cr_expect(
		    strstr(page, "<span class=\"size\">500</span>, <span "
				 "class=\"size\">1000</span>, <span class=\"size\">2000</span>"),
		    "the basis counts of the three runs (a node per input unit):\n%.2000s", page);
		cr_expect(strstr(page, "<svg class=\"peak-size\""), "the chart");
		g_free(page);
		g_free(report);
		g_free(html);
		dps_test_run_fini(&r);
	}

	/* the predicted curve as an action set that dps run plays */
	{
		char *set = dps_test_strf("%s/predicted", dir);

		r = dps_test_run_dps("memory", "predict", prof, "--basis", site, "--count", "8000",
				     "--actions", set, NULL);
		cr_expect_eq(r.status, 0, "%s", r.err);
		dps_test_run_fini(&r);
		r = dps_test_run_dps("run", set, NULL);
		cr_expect_eq(r.status, 0, "dps run of the predicted set: %s", r.err);
		dps_test_run_fini(&r);
		g_free(set);
	}

	/* bad inputs: exit 2 with the reason */
	r = dps_test_run_dps("memory", "predict", prof, "--basis", "no such class", "--count", "5",
			     NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "unknown basis class \"no such class\""), "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("memory", "predict", prof, "--basis", site, "--count", "0", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "> 0"), "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("memory", "predict", prof, "--basis", site, "--count", "-3", NULL);
	cr_expect_eq(r.status, 2);
	dps_test_run_fini(&r);

	for (int i = 0; i < 3; i++) {
		g_free(traces[i]);
	}
	g_free(site);
	g_free(prof);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(live, a_recording_without_heap_events_is_refused, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("mempredict-plain");
	char *trace = record(dir, 10, false);
	char *prof = dps_test_strf("%s/prof.json", dir);
	struct dps_test_run r;

	r = dps_test_run_dps("memory", "profile", trace, "-o", prof, NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "no lttng_ust_libc event") && strstr(r.err, trace) &&
		      strstr(r.err, "--memory"),
		  "%s", r.err);
	cr_expect_not(g_file_test(prof, G_FILE_TEST_EXISTS), "nothing written");
	dps_test_run_fini(&r);
	r = dps_test_run_dps("memory", "profile", trace, "--size", "1", "--size", "2", "-o", prof,
			     NULL);
	cr_expect_eq(r.status, 2, "two sizes for one trace");
	dps_test_run_fini(&r);
	g_free(trace);
	g_free(prof);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(live, phases_from_function_entries, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("mempredict-func");
	char *trace = record_prog(dir, "func-prog", 300, true);
	char *prof = dps_test_strf("%s/prof.json", dir);
	char *site = dps_test_strf("build (func-prog.c:%d)", line_of("func-prog.c", "SITE: block"));
	struct dps_test_run r;

	r = dps_test_run_dps("memory", "profile", trace, "--phase-func", "build", "--phase-func",
			     "teardown", "-o", prof, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "phase build"), "no phase at build's entry:\n%s", r.out);
	cr_expect(strstr(r.out, "phase teardown"), "no phase at teardown's entry:\n%s", r.out);
	cr_expect_not(strstr(r.out, "phase all"), "the run is split:\n%s", r.out);
	cr_expect(strstr(r.out, site), "no \"%s\" in\n%s", site, r.out);
	/* in teardown, the 300 blocks live at its start are all freed */
	cr_expect(strstr(r.out, "           0        300          0"), "teardown's blocks:\n%s",
		  r.out);
	dps_test_run_fini(&r);
	g_free(site);
	g_free(trace);
	g_free(prof);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* The objects allocated of class name in a profile's table (its first column), or -1. */
static long allocated_in(const char *table, const char *name)
{
	char *key = dps_test_strf("  %s\n", name);
	const char *at = strstr(table, key), *line;
	long n = -1;

	if (at) {
		for (line = at; line > table && line[-1] != '\n'; line--) {
		}
		n = strtol(line, NULL, 10);
	}
	g_free(key);
	return n;
}

/*
 * Phases by time on a run without marks: two phases, whose counts add up to the run's. The
 * program pauses 0.4 s halfway through its blocks; the split at 0.2 s falls in that pause however
 * late the process's first event came (a split at 20 µs once put all 300 blocks late on a busy CI
 * machine).
 */
Test(live, phases_by_time_add_up_to_the_whole_run, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("mempredict-at");
	char *trace = record_prog(dir, "func-prog", 300, true);
	char *prof = dps_test_strf("%s/prof.json", dir);
	char *site = dps_test_strf("build (func-prog.c:%d)", line_of("func-prog.c", "SITE: block"));
	char *key = dps_test_strf("  %s\n", site);
	struct dps_test_run r;
	long sum = 0, phases = 0;
	char *html, *page;

	r = dps_test_run_dps("memory", "profile", trace, "--phase-at", "early=0", "--phase-at",
			     "late=0.2", "-o", prof, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "phase early"), "no phase early:\n%s", r.out);
	cr_expect(strstr(r.out, "phase late"), "no phase late:\n%s", r.out);
	cr_expect_not(strstr(r.out, "phase all") || strstr(r.out, "phase start"),
		      "only the two phases:\n%s", r.out);
	for (const char *at = r.out; (at = strstr(at, key)); at++) {
		const char *line = at;

		while (line > r.out && line[-1] != '\n') {
			line--;
		}
		sum += strtol(line, NULL, 10);
		phases++;
	}
	cr_expect_eq(phases, 2, "the class in both phases:\n%s", r.out);
	cr_expect_eq(sum, 300, "the blocks allocated in the phases add up to 300:\n%s", r.out);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("memory", "profile", trace, "--phase-at", "x", "-o", prof, NULL);
	cr_expect_eq(r.status, 2, "--phase-at without =SECONDS is bad usage");
	cr_expect(strstr(r.err, "NAME=SECONDS"), "%s", r.err);
	dps_test_run_fini(&r);
	html = dps_test_strf("%s/p.html", dir);
	r = dps_test_run_dps("memory", "profile", trace, "-o", prof, "--html", html, "--basis",
			     "no such class", NULL);
	cr_expect_eq(r.status, 2, "an unknown basis class is bad input");
	cr_expect(strstr(r.err, "\"no such class\": no data set has this class"), "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("memory", "profile", trace, "-o", prof, "--html", html, "--basis",
			     site, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);
	page = dps_test_read_file(html, NULL);
	cr_assert(page, "no page %s", html);
	cr_expect(strstr(page, "<code id=\"basis\">build (func-prog.c:"), "the basis named");
	cr_expect(strstr(page, "<svg class=\"live\""), "a chart");
	g_free(page);
	g_free(html);
	g_free(key);
	g_free(site);
	g_free(trace);
	g_free(prof);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* --wrapper xmalloc: the allocations made inside xmalloc are classed by xmalloc's callers,
 * two sites, with their counts; without it they are one class, xmalloc's malloc line. */
Test(live, classes_through_an_allocation_wrapper, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("mempredict-wrapper");
	char *trace = record_prog(dir, "wrapper-prog", 300, true);
	char *prof = dps_test_strf("%s/prof.json", dir);
	char *cells = dps_test_strf("make_lists (wrapper-prog.c:%d)",
				    line_of("wrapper-prog.c", "SITE: cells"));
	char *names = dps_test_strf("make_names (wrapper-prog.c:%d)",
				    line_of("wrapper-prog.c", "SITE: names"));
	char *inner = dps_test_strf("xmalloc (wrapper-prog.c:%d)",
				    line_of("wrapper-prog.c", "SITE: wrapper"));
	struct dps_test_run r;

	r = dps_test_run_dps("memory", "profile", trace, "-o", prof, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, inner), "without --wrapper, xmalloc's line: no \"%s\" in\n%s",
		  inner, r.out);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("memory", "profile", trace, "--wrapper", "xmalloc", "-o", prof, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* the 300 cells and the 150 names, each from its own call of xmalloc */
	cr_expect_eq(allocated_in(r.out, cells), 300, "%s in\n%s", cells, r.out);
	cr_expect_eq(allocated_in(r.out, names), 150, "%s in\n%s", names, r.out);
	cr_expect_not(strstr(r.out, inner), "xmalloc's own line is no class:\n%s", r.out);
	dps_test_run_fini(&r);
	g_free(cells);
	g_free(names);
	g_free(inner);
	g_free(trace);
	g_free(prof);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* Only the recorded command's process unless --all-processes: here the command is a shell
 * whose child is the program. */
Test(live, the_recorded_process_only_unless_all_processes, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("mempredict-procs");
	char *trace = dps_test_strf("%s/sh", dir);
	char *prof = dps_test_strf("%s/prof.json", dir);
	char *site = dps_test_strf("main (live-prog.c:%d)", line_of("live-prog.c", "SITE: node"));
	struct dps_test_run r;

	cr_assert_eq(dps_test_sh("'%s' record -q --memory --no-kernel -o '%s' -- /bin/sh -c "
				 "\"'%s/tests/mempredict/mempredict-live-prog' 50; true\"",
				 dps_test_bin(), trace, dps_test_build_dir()),
		     0, "dps record failed");
	r = dps_test_run_dps("memory", "profile", trace, "-o", prof, NULL);
	if (r.status == 0) {
		cr_expect_not(strstr(r.out, site), "the child's site without --all-processes:\n%s",
			      r.out);
	} else {
		cr_expect(strstr(r.err, "no lttng_ust_libc event"), "%s", r.err);
	}
	dps_test_run_fini(&r);
	r = dps_test_run_dps("memory", "profile", trace, "--all-processes", "-o", prof, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, site), "no \"%s\" with --all-processes:\n%s", site, r.out);
	dps_test_run_fini(&r);
	g_free(site);
	g_free(trace);
	g_free(prof);
	dps_test_rmtree(dir);
	g_free(dir);
}
