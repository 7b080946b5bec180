/* SPDX-License-Identifier: MIT */
/*
 * dps cache (doc/cache.md): the cachegrind reader on a committed real output file
 * (data/README.md) and on damaged copies of it, each refused with an error naming the line;
 * the geometry read from a made-up sysfs directory; the streaming kernel captured under the real
 * Valgrind at a working set that fits in D1 and one that does not, against the misses a
 * streaming pass must have; the command's exit codes.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"
#include "dps-test.h"

/* The committed file (a new string). */
static char *sample_path(void)
{
	return dps_test_strf("%s/tests/cache/data/stream-16k.cachegrind", dps_test_source_dir());
}

/* The committed file's lines (g_strfreev). */
static char **sample_lines(void)
{
	char *path = sample_path();
	char *text = dps_test_read_file(path, NULL);
	char **lines = g_strsplit(text, "\n", -1);

	g_free(text);
	g_free(path);
	return lines;
}

/* lines joined back into a temporary file (g_free the path; dps_test_rmtree it). */
static char *write_lines(char **lines)
{
	char *path = dps_test_mkstemp("cachegrind");
	char *text = g_strjoinv("\n", lines);

	dps_test_write_file(path, text);
	g_free(text);
	return path;
}

/* Reads path, which must be refused with DPS_ERR_INVAL and a message holding want. */
static void expect_refused(const char *path, const char *want)
{
	struct cache_profile *p = NULL;
	struct dps_diag diag = {{0}};
	int ret = cache_profile_read(path, &p, &diag);

	cr_assert_eq(ret, DPS_ERR_INVAL, "status %d (%s)", ret, diag.msg);
	cr_assert_null(p);
	cr_assert(strstr(diag.msg, want), "message '%s' lacks '%s'", diag.msg, want);
}

Test(cache, reads_cachegrind_output_into_per_function_totals)
{
	char *path = sample_path();
	struct cache_profile *p = NULL;
	struct dps_diag diag = {{0}};
	const struct cache_function *k, *m;

	cr_assert_eq(cache_profile_read(path, &p, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_str_eq(p->cmd, "build/dev/bench/dps-bench-cache-stream --ws 16384 --reps 4");
	cr_assert_eq(p->d1.size_bytes, 49152);
	cr_assert_eq(p->d1.assoc, 12);
	cr_assert_eq(p->d1.line_bytes, 64);
	cr_assert_eq(p->ll.size_bytes, 1048576);
	cr_assert_eq(p->ll.assoc, 8);
	/* summary: 193444 1302 1279 39356 1180 1023 21654 629 605 */
	cr_assert_eq(p->total.instructions, 193444);
	cr_assert_eq(p->total.loads, 39356);
	cr_assert_eq(p->total.stores, 21654);
	cr_assert_eq(p->total.d1_misses, 1180 + 629);
	cr_assert_eq(p->total.ll_misses, 1023 + 605);
	k = cache_profile_borrow_function(p, "kernel_stream");
	cr_assert_not_null(k);
	cr_assert_eq(k->counts.instructions, 49180);
	cr_assert_eq(k->counts.loads, 8194);
	cr_assert_eq(k->counts.stores, 8192);
	cr_assert_eq(k->counts.d1_misses, 0);
	cr_assert_eq(k->counts.ll_misses, 0);
	m = cache_profile_borrow_function(p, "main");
	cr_assert_not_null(m);
	cr_assert_eq(m->counts.instructions, 8328);
	cr_assert_eq(m->counts.loads, 23);
	cr_assert_eq(m->counts.stores, 2072);
	cr_assert_eq(m->counts.d1_misses, 256);
	cr_assert_eq(m->counts.ll_misses, 255);
	cr_assert_null(cache_profile_borrow_function(p, "no_such_function"));
	cache_profile_destroy(p);
	g_free(path);
}

Test(cache, a_file_cut_short_is_refused_at_its_last_line)
{
	char **lines = sample_lines();
	char *path, *want;

	/* the first 1000 lines, the last one cut in the middle */
	lines[999][3] = '\0';
	for (size_t i = 1000; lines[i]; i++) {
		g_free(lines[i]);
	}
	lines[1000] = NULL;
	path = write_lines(lines);
	want = dps_test_strf("%s:1000: the file ends here without its 'summary:' line", path);
	expect_refused(path, want);
	dps_test_rmtree(path);
	g_free(path);
	g_free(want);
	g_strfreev(lines);
}

Test(cache, counts_without_an_events_line_are_refused_at_the_first_count)
{
	char **lines = sample_lines();
	char *path, *want;
	guint n = g_strv_length(lines);

	cr_assert(g_str_has_prefix(lines[4], "events:"), "line 5: %s", lines[4]);
	/* line 5 (events:) removed: fl= is line 5, fn= line 6, the first counts line 7 */
	g_free(lines[4]);
	memmove(&lines[4], &lines[5], (n - 4) * sizeof(*lines));
	path = write_lines(lines);
	want = dps_test_strf("%s:7:1: a count line before the 'events:' line", path);
	expect_refused(path, want);
	dps_test_rmtree(path);
	g_free(path);
	g_free(want);
	g_strfreev(lines);
}

Test(cache, a_count_line_with_too_many_fields_is_refused_at_the_field)
{
	char **lines = sample_lines();
	char *path, *want, *line;

	/* line 8, a count line of 1 + 9 fields, with a tenth count */
	cr_assert(g_ascii_isdigit(lines[7][0]), "line 8: %s", lines[7]);
	line = dps_test_strf("%s 7", lines[7]);
	want = dps_test_strf(":8:%zu: too many fields: expected a line number and at most 9 counts",
			     strlen(lines[7]) + 2);
	g_free(lines[7]);
	lines[7] = line;
	path = write_lines(lines);
	expect_refused(path, want);
	dps_test_rmtree(path);
	g_free(path);
	g_free(want);
	g_strfreev(lines);
}

Test(cache, other_damage_is_refused_with_what_was_expected)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
	    {"events: Ir\nfn=f\n1 2\nsummary: 2\n", ":1:1: the 'events:' line has no Dr"},
	    {"events: Ir Dr Dw D1mr D1mw DLmr DLmw\nfn=f\n1 2 x\n", ":3:5: expected a count"},
	    {"events: Ir Dr Dw D1mr D1mw DLmr DLmw\n1 2\n", ":2:1: a count line before any 'fn='"},
	    {"events: Ir Dr Dw D1mr D1mw DLmr DLmw\nfn=f\n1 2\nsummary: 3 0 0 0 0 0 0\n",
	     ":4:1: 'summary:' does not match the counts above it"},
	    {"events: Ir Dr Dw D1mr D1mw DLmr DLmw\nfn=f\n1 2\nsummary: 2 0\n",
	     ":4:13: expected 7 counts in 'summary:', one per event, found 2"},
	    {"events: Ir Dr Dw D1mr D1mw DLmr DLmw\nsummary: 0 0 0 0 0 0 0\nfn=f\n",
	     ":3:1: text after 'summary:'"},
	    {"events: Ir Dr Dw D1mr D1mw DLmr DLmw\nfn=f\n1 99999999999999999999\n",
	     ":3:3: count over 2^64 - 1"},
	    {"hello\n", ":1:1: expected 'desc:', 'cmd:', 'events:'"},
	    {"", ": the file ends without an 'events:' line"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = dps_test_mkstemp("cachegrind");
		struct cache_profile *p = NULL;
		struct dps_diag diag = {{0}};
		int ret;

		dps_test_write_file(path, cases[i].text);
		ret = cache_profile_read(path, &p, &diag);
		cr_expect(ret == DPS_ERR_INVAL || ret == DPS_ERR_RANGE, "case %zu: status %d", i,
			  ret);
		cr_expect(strstr(diag.msg, cases[i].want), "case %zu: '%s' lacks '%s'", i, diag.msg,
			  cases[i].want);
		cache_profile_destroy(p);
		dps_test_rmtree(path);
		g_free(path);
	}
}

/* A sysfs cache index directory under dir. */
static void make_index(const char *dir, int i, const char *type, int level, const char *size,
		       int ways, int line)
{
	char *d = dps_test_strf("%s/index%d", dir, i);
	char *f;

	cr_assert_eq(g_mkdir_with_parents(d, 0700), 0);
#define PUT(name, ...)                                                                             \
	do {                                                                                       \
		char *v = dps_test_strf(__VA_ARGS__);                                              \
		f = dps_test_strf("%s/" name, d);                                                  \
		dps_test_write_file(f, v);                                                         \
		g_free(f);                                                                         \
		g_free(v);                                                                         \
	} while (0)
	PUT("type", "%s\n", type);
	PUT("level", "%d\n", level);
	PUT("size", "%s\n", size);
	PUT("ways_of_associativity", "%d\n", ways);
	PUT("coherency_line_size", "%d\n", line);
#undef PUT
	g_free(d);
}

Test(cache, geometry_from_sysfs_takes_the_highest_level_cachegrind_can_simulate)
{
	char *dir = dps_test_mkdtemp("sysfs-cache");
	struct cache_geometry g;
	char buf[64];

	make_index(dir, 0, "Data", 1, "32K", 8, 64);
	make_index(dir, 1, "Instruction", 1, "32K", 8, 64);
	make_index(dir, 2, "Unified", 2, "1024K", 16, 64);
	/* 12 MiB 12-way: 16384 sets, simulable; then a level 4 of 0 ways, left out */
	make_index(dir, 3, "Unified", 3, "12M", 12, 64);
	make_index(dir, 4, "Unified", 4, "128M", 0, 64);
	cr_assert_eq(cache_geometry_from_sysfs(&g, dir), DPS_OK);
	cr_assert_str_eq(g.source, "sysfs");
	cr_assert_eq(g.d1.size_bytes, 32768);
	cr_assert_eq(g.d1.assoc, 8);
	cr_assert_eq(g.ll.level, 3);
	cr_assert_eq(g.ll.size_bytes, 12 << 20);
	cr_assert(strstr(g.note, "L4"), "note: %s", g.note);
	cache_level_format(&g.d1, buf, sizeof(buf));
	cr_assert_str_eq(buf, "32 KiB 8-way 64 B");
	dps_test_rmtree(dir);
	g_free(dir);
	dir = dps_test_mkdtemp("sysfs-empty");
	cr_assert_eq(cache_geometry_from_sysfs(&g, dir), DPS_ERR_NOENT);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(cache, simulable_levels_have_a_power_of_two_of_sets)
{
	struct cache_level ok = {1, 49152, 12, 64}, odd = {3, 532676608, 16, 64};
	struct cache_level zero = {3, 1 << 20, 0, 64}, line = {1, 49152, 12, 48};

	cr_assert(cache_level_simulable(&ok));
	cr_assert_not(cache_level_simulable(&odd));
	cr_assert_not(cache_level_simulable(&zero));
	cr_assert_not(cache_level_simulable(&line));
}

/* The footprint's LL sizes: halves of the last level while above L1D, up to 16 times it. */
Test(cache, the_curve_sizes_go_from_above_l1d_to_16_times_the_last_level)
{
	struct cache_geometry g = {.d1 = {1, 49152, 12, 64}, .ll = {2, 2 << 20, 16, 64}};
	uint64_t sizes[CACHE_CURVE_MAX];
	size_t n = cache_curve_sizes(&g, sizes);

	cr_assert_eq(n, 10, "%zu sizes", n);
	cr_expect_eq(sizes[0], 65536);
	cr_expect_eq(sizes[5], 2 << 20);
	cr_expect_eq(sizes[9], 32 << 20);
	g.d1.size_bytes = 32768;
	g.ll = (struct cache_level){2, 1 << 20, 16, 64};
	n = cache_curve_sizes(&g, sizes);
	cr_assert_eq(n, 9, "%zu sizes", n); /* 64 KiB: 32 KiB is not above L1D */
	cr_expect_eq(sizes[0], 65536);
	cr_expect_eq(sizes[8], 16 << 20);
	g.ll.size_bytes = 0; /* cachegrind chooses: no curve */
	cr_expect_eq(cache_curve_sizes(&g, sizes), 0);
}

/* The knee on curves measured by hand (doc/cache.md, "The footprint"), and the two ends. */
Test(cache, the_knee_is_where_the_misses_reach_their_floor)
{
	static const uint64_t sizes[] = {256 << 10, 512 << 10, 1 << 20,	 2 << 20,
					 4 << 20,   8 << 20,   16 << 20, 32 << 20};
	static const struct {
		uint64_t misses[8];
		enum cache_footprint_kind kind;
		uint64_t bytes;
	} cases[] = {
	    /* a chase over 1 MiB, and over 4 MiB */
	    {{65046, 63310, 4371, 0, 0, 0, 0, 0}, CACHE_FOOTPRINT_AT, 2 << 20},
	    {{65419, 65031, 63463, 56462, 16939, 0, 0, 0}, CACHE_FOOTPRINT_AT, 8 << 20},
	    /* random lookups in 1 MiB (a compulsory miss left), and in 4 MiB */
	    {{100384, 65134, 258, 1, 1, 1, 1, 1}, CACHE_FOOTPRINT_AT, 1 << 20},
	    {{132706, 123430, 104895, 68621, 173, 1, 1, 1}, CACHE_FOOTPRINT_AT, 4 << 20},
	    /* no miss at any size: it fits the smallest */
	    {{0, 0, 0, 0, 0, 0, 0, 0}, CACHE_FOOTPRINT_BELOW, 256 << 10},
	    /* misses that do not drop: a stream larger than the largest */
	    {{9000, 9000, 8990, 8990, 8990, 8980, 8950, 8950}, CACHE_FOOTPRINT_ABOVE, 32 << 20},
	    /* misses that drop at the largest size only: more than the size before it */
	    {{9000, 9000, 9000, 9000, 9000, 9000, 9000, 4500}, CACHE_FOOTPRINT_ABOVE, 16 << 20},
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct cache_footprint fp;

		cache_footprint_knee(sizes, cases[i].misses, 8, &fp);
		cr_expect_eq(fp.kind, cases[i].kind, "case %zu: kind %d", i, fp.kind);
		cr_expect_eq(fp.bytes, cases[i].bytes, "case %zu: %lu bytes", i,
			     (unsigned long)fp.bytes);
	}
}

/* kernel_stream's figures of the streaming kernel at ws bytes, reps passes, captured. */
static struct cache_counts capture_stream(unsigned long ws, unsigned reps, struct cache_level *d1)
{
	char *kernel = dps_test_strf("%s/bench/dps-bench-cache-stream", dps_test_build_dir());
	char *ws_s = dps_test_strf("%lu", ws), *reps_s = dps_test_strf("%u", reps);
	char *argv[] = {kernel, (char *)"--ws", ws_s, (char *)"--reps", reps_s, NULL};
	struct cache_geometry geom;
	struct cache_capture_options opts = {.argv = argv, .geom = &geom};
	struct cache_profile *p = NULL;
	struct dps_diag diag = {{0}};
	const struct cache_function *k;
	struct cache_counts c;
	int status;

#if defined(__SANITIZE_ADDRESS__)
	/* an instrumented program cannot run under Valgrind (its runtime must load first) */
	dps_test_skip_build("the kernels of a sanitized build cannot run under Valgrind");
#endif
	dps_test_require(dps_test_has_program("valgrind"), "valgrind is not installed");
	cache_geometry_detect(&geom);
	cr_assert_eq(cache_capture_run(&opts, &p, &status, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(status, 0);
	k = cache_profile_borrow_function(p, "kernel_stream");
	cr_assert_not_null(k, "no kernel_stream in the capture");
	c = k->counts;
	*d1 = p->d1;
	cache_profile_destroy(p);
	g_free(kernel);
	g_free(ws_s);
	g_free(reps_s);
	return c;
}

Test(cache, streaming_16_kib_stays_in_d1, .timeout = 120)
{
	struct cache_level d1;
	struct cache_counts c = capture_stream(16384, 8, &d1);

	cr_assert_geq(d1.size_bytes, 32768, "a D1 of %lu B", (unsigned long)d1.size_bytes);
	/* 8 passes of 2048 elements, one load and one store each */
	cr_assert_eq(c.loads, 8 * 2048 + 2);
	cr_assert_eq(c.stores, 8 * 2048);
	/* the array was made warm by its initialisation: at most a few lines */
	cr_assert_leq(c.d1_misses, 16, "%lu D1 misses", (unsigned long)c.d1_misses);
}

Test(cache, streaming_4_mib_misses_d1_once_a_line_a_pass, .timeout = 120)
{
	struct cache_level d1;
	struct cache_counts c = capture_stream(4 << 20, 2, &d1);
	double expected = 2.0 * (4 << 20) / d1.line_bytes;

	cr_assert_lt(d1.size_bytes, 4 << 20);
	cr_assert_eq(c.loads, 2 * 524288 + 2);
	cr_assert_geq(c.d1_misses, 0.98 * expected, "%lu D1 misses, %.0f expected",
		      (unsigned long)c.d1_misses, expected);
	cr_assert_leq(c.d1_misses, 1.02 * expected, "%lu D1 misses, %.0f expected",
		      (unsigned long)c.d1_misses, expected);
	cr_assert_leq(c.ll_misses, c.d1_misses);
}

/* dps cache capture --footprint on the streaming kernel over 512 KiB: the table's footprint
 * column, a result file of version 2 whose curve reads back, and a knee the working set or the
 * next size up (a pass over 512 KiB in a smaller LRU cache misses every line, in a larger one
 * none). */
Test(cache, a_footprint_capture_finds_the_working_set, .timeout = 200)
{
	char *dir = dps_test_mkdtemp("cache-fp");
	char *out = dps_test_strf("%s/r.cache", dir);
	char *kernel = dps_test_strf("%s/bench/dps-bench-cache-stream", dps_test_build_dir());
	struct cache_profile *p = NULL;
	struct dps_diag diag = {{0}};
	const struct cache_function *k;
	struct dps_test_run r;
	char *text;

#if defined(__SANITIZE_ADDRESS__)
	dps_test_skip_build("the kernels of a sanitized build cannot run under Valgrind");
#endif
	dps_test_require(dps_test_has_program("valgrind"), "valgrind is not installed");
	r = dps_test_run_dps("cache", "capture", "--footprint", "-o", out, "--function",
			     "kernel_stream", "--", kernel, "--ws", "524288", "--reps", "4", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "footprint\n"), "no footprint column: %s", r.out);
	cr_expect(strstr(r.err, "dps cache: footprint: LL "), "no progress: %s", r.err);
	dps_test_run_fini(&r);
	text = dps_test_read_file(out, NULL);
	cr_expect(g_str_has_prefix(text, "dps-cache 2\n"), "%s", text);
	g_free(text);
	cr_assert_eq(cache_capture_read(out, &p, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_geq(p->n_curve, 6, "%zu sizes", p->n_curve);
	k = cache_profile_borrow_function(p, "kernel_stream");
	cr_assert_not_null(k);
	cr_assert_not_null(k->footprint.ll_misses);
	cr_expect_eq(k->footprint.kind, CACHE_FOOTPRINT_AT, "kind %d", k->footprint.kind);
	cr_expect(k->footprint.bytes == 512 << 10 || k->footprint.bytes == 1 << 20,
		  "a knee at %lu bytes", (unsigned long)k->footprint.bytes);
	/* the smallest size misses about every line of the 4 passes: 4 x 8192 */
	cr_expect_geq(k->footprint.ll_misses[0], 30000, "%lu",
		      (unsigned long)k->footprint.ll_misses[0]);
	cr_expect_leq(k->footprint.ll_misses[p->n_curve - 1], 16, "%lu",
		      (unsigned long)k->footprint.ll_misses[p->n_curve - 1]);
	cache_profile_destroy(p);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(out);
	g_free(kernel);
}

/* dps cache with these arguments exits with code, its stderr holding want. */
static void expect_exit(int code, const char *want, const char *const *args)
{
	const char *argv[12] = {dps_test_bin(), "cache"};
	struct dps_test_run run;
	size_t n = 2;

	for (; args[n - 2]; n++) {
		argv[n] = args[n - 2];
	}
	argv[n] = NULL;
	run = dps_test_run(NULL, argv, NULL);
	cr_expect_eq(run.status, code, "dps cache %s: exit %d, expected %d; stderr: %s",
		     args[0] ? args[0] : "", run.status, code, run.err);
	cr_expect(strstr(run.err, want), "stderr '%s' lacks '%s'", run.err, want);
	dps_test_run_fini(&run);
}

Test(cache, the_command_exits_2_on_bad_usage_and_1_on_failure, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("cache-cli");
	char *out = dps_test_strf("%s/r.cache", dir);
	char *bad_out = dps_test_strf("%s/none/r.cache", dir);

	dps_test_require(dps_test_has_program("valgrind"), "valgrind is not installed");
	expect_exit(2, "Usage: dps cache capture", (const char *[]){NULL});
	expect_exit(2, "unknown verb 'bogus'", (const char *[]){"bogus", NULL});
	expect_exit(2, "expected -- COMMAND", (const char *[]){"capture", NULL});
	expect_exit(2, "unrecognized option",
		    (const char *[]){"capture", "--bogus", "--", "true", NULL});
	expect_exit(2, "/nonexistent/cmd",
		    (const char *[]){"capture", "--", "/nonexistent/cmd", NULL});
	expect_exit(1, "exited with status 1",
		    (const char *[]){"capture", "-o", out, "--", "false", NULL});
	cr_expect_not(g_file_test(out, G_FILE_TEST_EXISTS),
		      "a failed command's result was written");
	expect_exit(1, "function 'nope' is not in the profile",
		    (const char *[]){"capture", "--function", "nope", "--", "true", NULL});
	expect_exit(1, bad_out, (const char *[]){"capture", "-o", bad_out, "--", "true", NULL});
	expect_exit(0, "wrote", (const char *[]){"capture", "-o", out, "--", "true", NULL});
	{
		/* a command that succeeds once only: the footprint's runs fail, named by their
		 * size, and nothing is written */
		char *flag = dps_test_strf("%s/once", dir);
		char *script = dps_test_strf("test ! -e '%s' && : > '%s'", flag, flag);
		char *fp_out = dps_test_strf("%s/fp.cache", dir);

		expect_exit(1, "is it deterministic?",
			    (const char *[]){"capture", "--footprint", "-o", fp_out, "--", "sh",
					     "-c", script, NULL});
		cr_expect_not(g_file_test(fp_out, G_FILE_TEST_EXISTS),
			      "a failed footprint's result was written");
		g_free(flag);
		g_free(script);
		g_free(fp_out);
	}
	{
		char *text = dps_test_read_file(out, NULL);

		cr_expect(g_str_has_prefix(text, "dps-cache 1\nsource cachegrind\ncommand true\n"),
			  "%s", text);
		cr_expect(strstr(text, "\ntotal "), "%s", text);
		g_free(text);
	}
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(out);
	g_free(bad_out);
}
