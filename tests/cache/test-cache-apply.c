/* SPDX-License-Identifier: MIT */
/*
 * dps cache apply (issue 28, doc/cache.md "From a capture to a set"): a capture's figures put
 * on a set's runs.
 *
 * The whole route, for real: the committed trace of tests/cache/two-threads.c
 * (tests/data/traces/cache-two-threads) analyzed into a set, the same program captured by the
 * real cachegrind (`dps cache capture --function stream_kernel`), the figures put on the
 * thread "streamer" (`dps cache apply`), and the program dps build makes of the set played
 * under cachegrind: the cache stub's misses within 5 % of the capture's (plus 64 a run).
 *
 * Then the rules, on small sets written here and the real capture or hand-written result
 * files: totals exact and every run playable after rounding, version 4 only in the files that
 * have figures, and each bad input (a thread or a function not there, a missing or damaged
 * capture, runs too short for their accesses) refused with exit 2, a message naming it, and
 * the output not made or left as it was.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <glib.h>

#include <dps/dps-status.h>

#include "actset.h"
#include "cache.h"
#include "diag.h"
#include "dps-test.h"
#include "play-set.h"

static char *dir; /* g_free: the test's directory (dps_test_mkdtemp) */

static void make_dir(void)
{
	dir = dps_test_mkdtemp("cache-apply");
}

static void remove_dir(void)
{
	dps_test_rmtree(dir);
	g_free(dir);
	dir = NULL;
}

TestSuite(cache_apply, .init = make_dir, .fini = remove_dir, .timeout = 300);

/* The streamer's runs in the committed trace's set. */
#define STREAMER_RUNS 3

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The set's runs with figures: their sum; each run's figures playable. */
static struct dps_action_cache set_sum(const char *set, size_t *runs)
{
	struct dps_actset *s = NULL;
	struct dps_diag diag = {{0}};
	struct dps_action_cache sum = {0};

	cr_assert_eq(dps_actset_load_dir(set, &s, &diag), DPS_OK, "%s", diag.msg);
	*runs = 0;
	for (size_t t = 0; t < s->n_threads; t++) {
		for (size_t a = 0; a < s->threads[t].n_actions; a++) {
			const struct dps_actset_action *act = &s->threads[t].actions[a];
			const struct dps_action_cache *c;

			if (act->kind != DPS_ACT_RUN || !act->aux) {
				continue;
			}
			c = &s->caches[act->aux - 1];
			cr_expect_null(dps_action_cache_problem(c), "%s line %u: %s",
				       s->threads[t].path, act->line, dps_action_cache_problem(c));
			sum.accesses += c->accesses;
			sum.stores += c->stores;
			sum.d1_misses += c->d1_misses;
			sum.ll_misses += c->ll_misses;
			(*runs)++;
		}
	}
	dps_actset_destroy(s);
	return sum;
}

static void expect_near(const char *what, uint64_t got, uint64_t want)
{
	double bound = 0.05 * (double)want + 64.0 * STREAMER_RUNS;

	cr_expect_leq(got > want ? got - want : want - got, bound,
		      "%s: %" PRIu64 " played, %" PRIu64 " captured (bound %.0f)", what, got, want,
		      bound);
	cr_log_info("%s: %" PRIu64 " played, %" PRIu64 " captured (%+.2f %%)", what, got, want,
		    want ? 100.0 * ((double)got - (double)want) / (double)want : 0.0);
}

Test(cache_apply, a_recording_and_a_capture_make_a_set_that_plays_the_captured_misses)
{
	char *trace = dps_test_data_path("traces/cache-two-threads");
	char *prog = dps_test_strf("%s/tests/cache/cache-two-threads", dps_test_build_dir());
	char *set = dps_test_strf("%s/set", dir), *applied = dps_test_strf("%s/applied", dir);
	char *capture = dps_test_strf("%s/stream.cache", dir);
	char *stub = dps_test_strf("%s/applied-stub", dir);
	char *root_file = dps_test_strf("%s/1543.act", applied);
	char *streamer_file = dps_test_strf("%s/1544.act", applied);
	struct cache_profile *p = NULL;
	struct dps_diag diag = {{0}};
	const struct cache_function *f;
	struct dps_action_cache sum;
	struct cache_counts played;
	struct dps_test_run r;
	char *text;
	size_t runs;

	dps_test_require(dps_test_has_program("valgrind"), "valgrind is not installed");
	r = dps_test_run_dps("analyze", trace, "-o", set, NULL);
	cr_assert_eq(r.status, 0, "dps analyze: %s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("cache", "capture", "-o", capture, "--function", "stream_kernel", "--",
			     prog, NULL);
	cr_assert_eq(r.status, 0, "dps cache capture: %s", r.err);
	dps_test_run_fini(&r);

	r = dps_test_run_dps("cache", "apply", set, capture, "--thread-comm", "streamer",
			     "--function", "stream_kernel", "-o", applied, NULL);
	cr_assert_eq(r.status, 0, "dps cache apply: %s", r.err);
	cr_log_info("%s", r.out);
	/* the summary names the source and the simulated geometry, and the limit */
	cr_expect(strstr(r.out, "source: cachegrind, simulated D1 "), "%s", r.out);
	cr_expect(strstr(r.out, "cachegrind merges threads"), "%s", r.out);
	cr_expect(strstr(r.out, "1544 (streamer)"), "%s", r.out);
	cr_expect(strstr(r.out, "3 of their 3 runs"), "%s", r.out);
	dps_test_run_fini(&r);

	/* the figures are the capture's, exactly, on the streamer's three runs */
	cr_assert_eq(cache_capture_read(capture, &p, &diag), DPS_OK, "%s", diag.msg);
	f = cache_profile_borrow_function(p, "stream_kernel");
	cr_assert_not_null(f);
	sum = set_sum(applied, &runs);
	cr_expect_eq(runs, STREAMER_RUNS);
	cr_expect_eq(sum.accesses, f->counts.loads + f->counts.stores);
	cr_expect_eq(sum.stores, f->counts.stores);
	cr_expect_eq(sum.d1_misses, f->counts.d1_misses);
	cr_expect_eq(sum.ll_misses, f->counts.ll_misses);
	/* version 4 only where there are figures */
	text = dps_test_read_file(streamer_file, NULL);
	cr_expect(g_str_has_prefix(text, "dps-actions 4\n"), "%s", text);
	g_free(text);
	text = dps_test_read_file(root_file, NULL);
	cr_expect(g_str_has_prefix(text, "dps-actions 1\n"), "%s", text);
	cr_expect_null(strstr(text, "cache"), "%s", text);
	g_free(text);

	/* and played under the simulator, the set's program makes the captured misses */
	played = cache_test_play_set(applied, stub, NULL, NULL);
	expect_near("accesses", played.loads + played.stores, f->counts.loads + f->counts.stores);
	expect_near("D1 misses", played.d1_misses, f->counts.d1_misses);
	expect_near("LL misses", played.ll_misses, f->counts.ll_misses);

	cache_profile_destroy(p);
	g_free(trace);
	g_free(prog);
	g_free(set);
	g_free(applied);
	g_free(capture);
	g_free(stub);
	g_free(root_file);
	g_free(streamer_file);
}

/* A set of two threads: 1 creates 2 and joins it; 2 runs runs[0..n) (µs), sleeping between. */
static char *write_set(const char *name, const unsigned *runs, size_t n)
{
	char *set = dps_test_strf("%s/%s", dir, name);
	char *path;
	GString *g = g_string_new("run 100\ncreate 2\njoin 2\n");

	cr_assert_eq(g_mkdir_with_parents(set, 0755), 0);
	path = dps_test_strf("%s/1.act", set);
	dps_test_write_file(path, g->str);
	g_free(path);
	g_string_assign(g, "");
	for (size_t i = 0; i < n; i++) {
		g_string_append_printf(g, "%srun %u\n", i ? "sleep 50\n" : "", runs[i]);
	}
	path = dps_test_strf("%s/2.act", set);
	dps_test_write_file(path, g->str);
	g_free(path);
	path = dps_test_strf("%s/manifest", set);
	dps_test_write_file(path, "dps-manifest 1\nroot 1\nthread 1 comm \"main\"\n"
				  "thread 2 comm \"worker\" parent 1\n");
	g_free(path);
	g_string_free(g, TRUE);
	return set;
}

/* A result file with these figures for the whole program and for function f. */
static char *write_capture(const char *name, const char *total, const char *f)
{
	char *path = dps_test_strf("%s/%s", dir, name);
	char *text = dps_test_strf("dps-cache 1\nsource cachegrind\ncommand ./prog\n"
				   "geometry-source sysconf\nlevel D1 49152 12 64\n"
				   "level LL 1048576 8 64\n"
				   "# counts: instructions loads stores d1_misses ll_misses\n"
				   "total %s\nfunction %s kernel\nend\n",
				   total, f);

	dps_test_write_file(path, text);
	g_free(text);
	return path;
}

/* A capture with a miss curve (version 2) puts its footprint on every run it gives figures to:
 * the function's knee with --function, the whole program's without; the set then says
 * version 5 where a run has one, and reads back. */
Test(cache_apply, a_captured_footprint_goes_on_the_runs)
{
	static const unsigned runs[] = {1000, 3000};
	char *set = write_set("fp", runs, G_N_ELEMENTS(runs));
	char *out = dps_test_strf("%s/fp-out", dir), *all = dps_test_strf("%s/fp-all", dir);
	char *cap = dps_test_strf("%s/fp.cache", dir);
	char *worker = dps_test_strf("%s/2.act", out), *root = dps_test_strf("%s/1.act", all);
	char *text;
	struct dps_test_run r;

	dps_test_write_file(cap, "dps-cache 2\nsource cachegrind\ncommand ./prog\n"
				 "level D1 49152 12 64\nlevel LL 1048576 8 64\n"
				 "curve-sizes 524288 1048576 2097152 4194304\n"
				 "total 10000000 4000 1000 500 100\n"
				 "curve at 4194304 9000 4000 2000 100\n"
				 "function 9000000 3000 900 400 80 kernel\n"
				 "curve at 2097152 3000 1000 80 80\nend\n");
	r = dps_test_run_dps("cache", "apply", set, cap, "--thread", "2", "--function", "kernel",
			     "-o", out, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "footprint: 2 MiB"), "%s", r.out);
	dps_test_run_fini(&r);
	text = dps_test_read_file(worker, NULL);
	cr_expect(g_str_has_prefix(text, "dps-actions 5\n"), "%s", text);
	cr_expect(strstr(text, " footprint 2097152\nsleep 50\nrun 3000 cache "), "%s", text);
	g_free(text);
	/* the set written reads back (a round trip through the writer and the parser) */
	{
		struct dps_actset *s = NULL;
		struct dps_diag diag = {{0}};
		size_t with = 0;

		cr_assert_eq(dps_actset_load_dir(out, &s, &diag), DPS_OK, "%s", diag.msg);
		for (size_t i = 0; i < s->n_caches; i++) {
			with += s->caches[i].footprint_bytes == 2097152;
		}
		cr_expect_eq(with, 2, "%zu of %zu runs with the footprint", with, s->n_caches);
		dps_actset_destroy(s);
	}

	r = dps_test_run_dps("cache", "apply", set, cap, "-o", all, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "footprint: 4 MiB"), "%s", r.out);
	dps_test_run_fini(&r);
	text = dps_test_read_file(root, NULL);
	cr_expect(strstr(text, " footprint 4194304\n"), "%s", text);
	g_free(text);
	g_free(set);
	g_free(out);
	g_free(all);
	g_free(cap);
	g_free(worker);
	g_free(root);
}

/* Odd shares: seven runs of unequal CPU time, figures that divide by none of them. The totals
 * stay exact, each run keeps LL <= D1 <= accesses and stores <= accesses. */
Test(cache_apply, rounding_keeps_the_totals_and_every_run_playable)
{
	static const unsigned runs[] = {1000, 333, 2999, 7, 1500, 12001, 401};
	char *set = write_set("odd", runs, G_N_ELEMENTS(runs));
	char *out = dps_test_strf("%s/odd-out", dir);
	/* 10 million instructions over 18.341 ms of CPU: 545 a µs, room for 41 accesses a µs */
	char *cap = write_capture("odd.cache", "10000000 3001 2000 1999 1998",
				  "9000000 2999 2000 1999 1998");
	struct dps_action_cache sum;
	struct dps_test_run r;
	size_t n;

	r = dps_test_run_dps("cache", "apply", set, cap, "--thread", "2", "--function", "kernel",
			     "-o", out, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);
	sum = set_sum(out, &n);
	cr_expect_eq(sum.accesses, 4999);
	cr_expect_eq(sum.stores, 2000);
	cr_expect_eq(sum.d1_misses, 1999);
	cr_expect_eq(sum.ll_misses, 1998);
	cr_expect_eq(n, G_N_ELEMENTS(runs));
	g_free(set);
	g_free(out);
	g_free(cap);
}

/* Runs too short for their accesses at 4 instructions an access are refused, the first named
 * by its file and line, unless --allow-over; then they are written and said. The accesses are
 * spread in proportion to the CPU time, so every run of a thread is as dense as the next: all
 * are over, or none (rounding aside). */
Test(cache_apply, a_run_too_short_for_its_accesses_is_reported)
{
	static const unsigned runs[] = {1000, 10};
	char *set = write_set("short", runs, G_N_ELEMENTS(runs));
	char *out = dps_test_strf("%s/short-out", dir);
	char *file = dps_test_strf("%s/2.act:1", set);
	/* 1 instruction a ns over the set's 1.11 ms; the 1 ms run gets 100/101 of the 1,000,000
	 * accesses, 990,099, which need 4.0 ms at 4 instructions each */
	char *cap = write_capture("short.cache", "1110000 500000 500000 1000 10",
				  "1000000 500000 500000 1000 10");
	struct dps_test_run r;

	r = dps_test_run_dps("cache", "apply", set, cap, "--thread", "2", "--function", "kernel",
			     "-o", out, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, file), "%s", r.err);
	cr_expect(strstr(r.err, "cannot hold its 990099 accesses"), "%s", r.err);
	cr_expect(strstr(r.err, "2 of 2 runs so"), "%s", r.err);
	cr_expect(strstr(r.err, "--allow-over"), "%s", r.err);
	cr_expect_not(exists(out), "%s made", out);
	dps_test_run_fini(&r);

	r = dps_test_run_dps("cache", "apply", set, cap, "--thread", "2", "--function", "kernel",
			     "--allow-over", "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "warning"), "%s", r.err);
	cr_expect(strstr(r.out, "2 runs too short"), "%s", r.out);
	cr_expect(exists(out));
	dps_test_run_fini(&r);
	g_free(set);
	g_free(out);
	g_free(file);
	g_free(cap);
}

/* With --allow-over, the first three runs over are named, the others counted. */
Test(cache_apply, many_runs_over_are_named_three_and_counted)
{
	static const unsigned runs[] = {1000, 10, 10, 10, 10, 10};
	char *set = write_set("many", runs, G_N_ELEMENTS(runs));
	char *out = dps_test_strf("%s/many-out", dir);
	char *cap = write_capture("many.cache", "1110000 500000 500000 1000 10",
				  "1000000 500000 500000 1000 10");
	struct dps_test_run r;
	const char *p;
	int named = 0;

	r = dps_test_run_dps("cache", "apply", set, cap, "--thread", "2", "--function", "kernel",
			     "--allow-over", "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	for (p = r.err; (p = strstr(p, "played longer than recorded")); p++) {
		named++;
	}
	cr_expect_eq(named, 3, "%s", r.err);
	cr_expect(strstr(r.err, "and 3 more runs so"), "%s", r.err);
	cr_expect(strstr(r.out, "6 runs too short"), "%s", r.out);
	dps_test_run_fini(&r);
	g_free(set);
	g_free(out);
	g_free(cap);
}

/* Bad input: exit 2, a message naming what is wrong, the output not made, and an existing set
 * at -o left as it was. */
Test(cache_apply, bad_input_is_named_and_nothing_written_is_lost)
{
	static const unsigned runs[] = {1000, 2000};
	char *set = write_set("bad", runs, G_N_ELEMENTS(runs));
	char *out = dps_test_strf("%s/bad-out", dir);
	char *kept = write_set("kept", runs, 1);
	char *kept_file = dps_test_strf("%s/2.act", kept);
	char *cap =
	    write_capture("bad.cache", "1000000 5000 5000 100 10", "900000 5000 5000 100 10");
	char *cut = dps_test_strf("%s/cut.cache", dir);
	char *missing = dps_test_strf("%s/missing.cache", dir);
	char *before = dps_test_read_file(kept_file, NULL), *after;
	static const struct {
		const char *opt, *value, *capture, *message;
	} rows[] = {
	    {"--thread", "7", NULL, "no thread with id 7 (--thread); it has 1 (main), 2 (worker)"},
	    {"--thread-comm", "nobody", NULL, "no thread named 'nobody' (--thread-comm)"},
	    {"--function", "absent", NULL,
	     "function 'absent' is not in the capture (it has: "
	     "kernel)"},
	    {"--thread", "2", "missing", "missing.cache: cannot open the capture"},
	    {"--thread", "2", "cut", "cut.cache:2: the file ends here without its 'total' line"},
	    {"--thread", "x", NULL, "--thread expects a thread's id"},
	};

	dps_test_write_file(cut, "dps-cache 1\nsource cachegrind\n");
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		const char *c = !rows[i].capture		  ? cap
				: !strcmp(rows[i].capture, "cut") ? cut
								  : missing;
		struct dps_test_run r =
		    dps_test_run_dps("cache", "apply", set, c, rows[i].opt, rows[i].value, "-o",
				     !strcmp(rows[i].opt, "--thread-comm") ? kept : out, NULL);

		cr_expect_eq(r.status, 2, "row %zu: exit %d: %s", i, r.status, r.err);
		cr_expect(strstr(r.err, rows[i].message), "row %zu: %s", i, r.err);
		cr_expect_not(exists(out), "row %zu: %s made", i, out);
		dps_test_run_fini(&r);
	}
	/* the set at -o of the refused apply is the one that was there */
	after = dps_test_read_file(kept_file, NULL);
	cr_expect_str_eq(after, before);
	g_free(after);
	g_free(before);
	g_free(set);
	g_free(out);
	g_free(kept);
	g_free(kept_file);
	g_free(cap);
	g_free(cut);
	g_free(missing);
}

/* Without a thread named, every thread's runs share the whole program's figures; applied
 * again, the figures of before are replaced, not added to. */
Test(cache_apply, without_a_thread_every_thread_shares_and_figures_are_replaced)
{
	static const unsigned runs[] = {1000, 3000};
	char *set = write_set("all", runs, G_N_ELEMENTS(runs));
	char *out = dps_test_strf("%s/all-out", dir);
	char *cap = write_capture("all.cache", "100000000 4000 1000 500 100", "0 1 0 0 0");
	char *half = write_capture("half.cache", "100000000 2000 500 250 50", "0 1 0 0 0");
	char *root = dps_test_strf("%s/1.act", out), *text;
	struct dps_action_cache sum;
	struct dps_test_run r;
	size_t n;

	r = dps_test_run_dps("cache", "apply", set, cap, "-o", out, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "the whole program"), "%s", r.out);
	cr_expect(strstr(r.out, "every thread: 1 (main), 2 (worker)"), "%s", r.out);
	dps_test_run_fini(&r);
	sum = set_sum(out, &n);
	cr_expect_eq(n, 3);
	cr_expect_eq(sum.accesses, 5000);
	cr_expect_eq(sum.ll_misses, 100);
	/* the root's run of 100 µs of the 4.1 ms: 1/41 of the accesses, 122 */
	text = dps_test_read_file(root, NULL);
	cr_expect(strstr(text, "run 100 cache 122 "), "%s", text);
	g_free(text);

	r = dps_test_run_dps("cache", "apply", out, half, "-o", out, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "figures of before replaced"), "%s", r.out);
	dps_test_run_fini(&r);
	sum = set_sum(out, &n);
	cr_expect_eq(sum.accesses, 2500);
	cr_expect_eq(sum.stores, 500);
	cr_expect_eq(sum.d1_misses, 250);
	cr_expect_eq(sum.ll_misses, 50);
	g_free(set);
	g_free(out);
	g_free(cap);
	g_free(half);
	g_free(root);
}

/* The result file as dps cache capture -o writes it reads back the same, and a damaged one is
 * refused at its line and column. */
Test(cache_apply, the_result_file_reads_back_and_damage_is_located)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
	    {"dps-cache 3\n", "r.cache:1:1: version 3 of the result file"},
	    {"# a comment\ndps-cache 3\n", "r.cache:2:1: version 3 of the result file"},
	    /* version 2's miss curve */
	    {"dps-cache 1\ncurve-sizes 1 2\n", "r.cache:2:1: a miss curve in a file that says "
					       "version 1"},
	    {"dps-cache 2\ncurve-sizes 2 1\n", "r.cache:2:15: size 1; expected sizes above 0"},
	    {"dps-cache 2\ncurve-sizes\n", "r.cache:2:12: expected one or more LL sizes"},
	    {"dps-cache 2\ntotal 1 2 3 4 5\ncurve at 1 1\nend\n",
	     "r.cache:3:1: a curve before 'curve-sizes'"},
	    {"dps-cache 2\ncurve-sizes 1 2\ncurve at 2 1 0\n",
	     "r.cache:3:1: a curve that follows no 'total' or 'function' line"},
	    {"dps-cache 2\ncurve-sizes 1 2\ntotal 1 2 3 4 5\ncurve near 2 1 0\nend\n",
	     "r.cache:4:7: expected the knee's kind"},
	    {"dps-cache 2\ncurve-sizes 1 2\ntotal 1 2 3 4 5\ncurve at 2 1\nend\n",
	     "r.cache:4:13: 1 LL miss counts; expected 2"},
	    {"dps-cache 2\ncurve-sizes 1 2\ntotal 1 2 3 4 5\ncurve at 2 1 0\ncurve at 2 1 0\nend\n",
	     "r.cache:5:1: a curve that follows no"},
	    {"dps-cache 2\ncurve-sizes 1 2\ntotal 1 2 3 4 5\ncurve at 2 1 0 9\nend\n",
	     "r.cache:4:16: unexpected '9'"},
	    {"dps-cache\n", "r.cache:1:10: expected the format version"},
	    {"dps-cache 1\ntotal 1 2 3 4\nend\n", "r.cache:2:14: expected ll_misses"},
	    {"dps-cache 1\ntotal 1 2 x 4 5\nend\n", "r.cache:2:11: expected stores"},
	    {"dps-cache 1\ntotal 1 2 3 4 5 6\nend\n", "r.cache:2:17: unexpected '6'"},
	    {"dps-cache 1\ntotal 1 2 3 4 99999999999999999999\nend\n",
	     "r.cache:2:15: ll_misses over 2^64 - 1"},
	    {"dps-cache 1\ntotal 1 2 3 4 5\nfunction 1 2 3 4 5\nend\n",
	     "r.cache:3:19: expected the function's name"},
	    {"dps-cache 1\nlevel L2 1 2 3\n", "r.cache:2:7: expected D1 or LL"},
	    {"dps-cache 1\ntotal 1 2 3 4 5\nwhat 1\nend\n", "r.cache:3:1: unknown line 'what'"},
	    {"dps-cache 1\ntotal 1 2 3 4 5\nend\nend\n", "r.cache:4:1: text after 'end'"},
	    {"dps-cache 1\ntotal 1 2 3 4 5\n", "r.cache:2: the file ends here without its 'end'"},
	};
	char *path = dps_test_strf("%s/r.cache", dir);
	char *cg =
	    dps_test_strf("%s/tests/cache/data/stream-16k.cachegrind", dps_test_source_dir());
	struct cache_profile *p = NULL, *q = NULL;
	struct dps_diag diag = {{0}};
	FILE *f;

	/* a real cachegrind file, written as a result file and read back */
	cr_assert_eq(cache_capture_read(cg, &p, &diag), DPS_OK, "%s", diag.msg);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(cache_result_write(f, p, NULL, NULL, 0), DPS_OK);
	fclose(f);
	cr_assert_eq(cache_capture_read(path, &q, &diag), DPS_OK, "%s", diag.msg);
	cr_expect_str_eq(q->source, "cachegrind");
	cr_expect_str_eq(q->cmd, p->cmd);
	cr_expect_eq(q->d1.size_bytes, p->d1.size_bytes);
	cr_expect_eq(q->ll.assoc, p->ll.assoc);
	cr_expect_eq(memcmp(&q->total, &p->total, sizeof(p->total)), 0);
	for (guint i = 0; i < q->functions->len; i++) {
		const struct cache_function *fq = g_ptr_array_index(q->functions, i);
		const struct cache_function *fp = cache_profile_borrow_function(p, fq->name);

		cr_assert_not_null(fp, "%s", fq->name);
		cr_expect_eq(memcmp(&fq->counts, &fp->counts, sizeof(fp->counts)), 0, "%s",
			     fq->name);
	}
	cr_expect_gt(q->functions->len, 0);
	cache_profile_destroy(p);
	cache_profile_destroy(q);

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		dps_test_write_file(path, bad[i].text);
		diag.msg[0] = '\0';
		cr_expect_neq(cache_capture_read(path, &p, &diag), DPS_OK, "row %zu", i);
		cr_expect_null(p, "row %zu", i);
		cr_expect(strstr(diag.msg, bad[i].message), "row %zu: %s", i, diag.msg);
		cache_profile_destroy(p);
		p = NULL;
	}
	g_free(path);
	g_free(cg);
}
