/* SPDX-License-Identifier: MIT */
/*
 * Parallel decoding (doc/analyzer.md, "Parallel decoding"): the stream groups' events, merged,
 * are the events of one decoder, one by one and field by field, on every test trace (and on
 * the traces of ../shared/traces the test data has no copy of), with 2, 3 and 8 decoders read
 * in step with one; the views are removed and
 * messages name the trace, also after an error. tests/analyzer/decode-jobs.py compares the
 * command's outputs.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include <dps/dps-status.h>

#include "bt-source.h"
#include "contain.h"
#include "dps-test.h"

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static char *show(const struct analyzer_event *e)
{
	return dps_test_strf("ts %" PRIu64 " cpu %d kind %u flags %#x ctx %" PRId64 "/%" PRId64
			     " '%s' v %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " s '%s' '%s'",
			     e->ts, e->cpu, e->kind, e->flags, e->ctx_tid, e->ctx_pid,
			     e->ctx_comm ? e->ctx_comm : "(null)", e->raw.v[0], e->raw.v[1],
			     e->raw.v[2], e->raw.v[3], e->raw.s[0] ? e->raw.s[0] : "(null)",
			     e->raw.s[1] ? e->raw.s[1] : "(null)");
}

static bool same_event(const struct analyzer_event *a, const struct analyzer_event *b)
{
	if (a->ts != b->ts || a->cpu != b->cpu || a->kind != b->kind || a->flags != b->flags ||
	    a->ctx_tid != b->ctx_tid || a->ctx_pid != b->ctx_pid ||
	    !same_str(a->ctx_comm, b->ctx_comm)) {
		return false;
	}
	for (size_t i = 0; i < ANALYZER_EV_INTS; i++) {
		if (a->raw.v[i] != b->raw.v[i]) {
			return false;
		}
	}
	return same_str(a->raw.s[0], b->raw.s[0]) && same_str(a->raw.s[1], b->raw.s[1]);
}

static struct analyzer_contained *open_jobs(const char *trace, int jobs)
{
	struct analyzer_contained *c = NULL;
	struct dps_diag diag = {""};
	const char *paths[] = {trace};
	int status = analyzer_contained_open(paths, 1, jobs, false, 0, &c, &diag);

	cr_assert_eq(status, DPS_OK, "%s, %d decoders: %s", trace, jobs, diag.msg);
	return c;
}

/*
 * One decoder and each of n_jobs decoder counts give the same events, read in step: the single
 * decoder's events are read once and compared with every count's (one reference read per trace,
 * not one per count). Returns how many events.
 */
static uint64_t compare_events_jobs(const char *trace, const int *jobs, size_t n_jobs)
{
	struct analyzer_contained *one = open_jobs(trace, 1), *many[8];
	struct dps_diag diag = {""};
	uint64_t n = 0;

	cr_assert(n_jobs >= 1 && n_jobs <= sizeof(many) / sizeof(many[0]));
	cr_assert_eq(analyzer_contained_decoders(one), 1);
	for (size_t j = 0; j < n_jobs; j++) {
		many[j] = open_jobs(trace, jobs[j]);
		/* every test trace has several streams */
		cr_assert_gt(analyzer_contained_decoders(many[j]), 1,
			     "%s: %d decoders asked, one ran", trace, jobs[j]);
		cr_assert_eq(analyzer_contained_has_sched(one),
			     analyzer_contained_has_sched(many[j]));
		cr_assert_str_eq(analyzer_contained_borrow_description(one),
				 analyzer_contained_borrow_description(many[j]));
		cr_assert_eq(analyzer_contained_skip_count(one),
			     analyzer_contained_skip_count(many[j]));
	}
	for (;;) {
		struct analyzer_event a, b;
		int sa = analyzer_contained_next(one, &a, &diag);

		cr_assert_geq(sa, 0, "%s: %s", trace, diag.msg);
		for (size_t j = 0; j < n_jobs; j++) {
			int sb = analyzer_contained_next(many[j], &b, &diag);

			cr_assert_geq(sb, 0, "%s, %d decoders: %s", trace, jobs[j], diag.msg);
			cr_assert_eq(sa, sb, "%s, %d decoders: %s after %" PRIu64 " events", trace,
				     jobs[j],
				     sa == ANALYZER_SOURCE_END ? "more events" : "fewer events", n);
			cr_assert(sa == ANALYZER_SOURCE_END || same_event(&a, &b),
				  "%s, %d decoders: event %" PRIu64
				  " differs:\n  one:  %s\n  many: %s",
				  trace, jobs[j], n, show(&a), show(&b));
		}
		if (sa == ANALYZER_SOURCE_END) {
			break;
		}
		n++;
	}
	analyzer_contained_close(one);
	for (size_t j = 0; j < n_jobs; j++) {
		analyzer_contained_close(many[j]);
	}
	return n;
}

/* One decoder and `jobs` decoders give the same events. Returns how many. */
static uint64_t compare_events(const char *trace, int jobs)
{
	return compare_events_jobs(trace, &jobs, 1);
}

static bool dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	cr_assert(d);
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
		}
	}
	closedir(d);
	return empty;
}

/* The test traces; the live test (DECODE_JOBS_LIVE, its own executable) records one. */
#ifndef DECODE_JOBS_LIVE
/* The CTF traces of the test data and of ../shared/traces: each directory of dir. */
static GPtrArray *traces_in(const char *dir)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path = g_build_filename(dir, e->d_name, NULL);
		struct stat st;

		if (e->d_name[0] != '.' && !stat(path, &st) && S_ISDIR(st.st_mode)) {
			g_ptr_array_add(out, path);
		} else {
			g_free(path);
		}
	}
	if (d) {
		closedir(d);
	}
	g_ptr_array_sort(out, (GCompareFunc)(void *)strcmp);
	return out;
}

Test(decode_jobs, merged_events_are_one_decoders)
{
	/* DPS_TEST_MORE_TRACES: a directory of more traces to compare (a large recording: the
	 * test traces' streams are of one packet or have no sequence numbers in their index, so
	 * no stream file of theirs is cut in pieces) */
	const char *more = getenv("DPS_TEST_MORE_TRACES");
	char *dirs[] = {dps_test_data_path("traces"),
			dps_test_strf("%s/../shared/traces", dps_test_source_dir()),
			more ? dps_test_strf("%s", more) : NULL};
	const int jobs[] = {2, 3, 8};
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	size_t n_traces = 0;

	for (size_t i = 0; i < 3 && dirs[i]; i++) {
		GPtrArray *traces = traces_in(dirs[i]);

		for (guint t = 0; t < traces->len; t++) {
			const char *trace = g_ptr_array_index(traces, t);
			char *name = g_path_get_basename(trace);
			uint64_t n;

			/* tests/data/traces holds byte-for-byte copies of ../shared/traces (its
			 * README.md files say where from): a trace of the same name is read once */
			if (!g_hash_table_add(seen, name)) {
				cr_log_info("%s: a copy of the test data's %s, passed over", trace,
					    name);
				continue;
			}
			n = compare_events_jobs(trace, jobs, sizeof(jobs) / sizeof(jobs[0]));
			cr_log_info("%s: %" PRIu64 " events, 2, 3 and 8 decoders", trace, n);
			cr_assert_gt(n, 0);
			n_traces++;
		}
		g_ptr_array_free(traces, TRUE);
	}
	cr_assert_geq(n_traces, 6, "the test traces are not there");
	g_hash_table_destroy(seen);
	for (size_t i = 0; i < 3; i++) {
		g_free(dirs[i]);
	}
}

/* A stream file cut short: the error names the trace's file, not the view's, and the views are
 * gone after it as after a complete read (they are there while decoding: the breaking check of
 * this test was run with the removal in plan_free commented out). */
Test(decode_jobs, views_removed_and_errors_name_the_trace)
{
	char *tmp = dps_test_mkdtemp("decode-jobs-tmp");
	char *work = dps_test_mkdtemp("decode-jobs-trace");
	char *src = dps_test_data_path("traces/perf-idle-cpu1/perf");
	char *trace = dps_test_strf("%s/perf", work);
	struct analyzer_contained *c = NULL;
	struct dps_diag diag = {""};
	struct analyzer_event ev;
	const char *paths[] = {trace};
	int status;

	setenv("TMPDIR", tmp, 1);
	cr_assert_eq(dps_test_sh("cp -r '%s' '%s' && truncate -s 300000 '%s/perf_stream_1'", src,
				 trace, trace),
		     0);
	cr_assert_eq(compare_events(src, 2) > 0, true);
	cr_assert(dir_empty(tmp), "the views of a complete read are left in %s", tmp);
	/* babeltrace2 indexes the stream files when it opens the trace: the error comes then */
	status = analyzer_contained_open(paths, 1, 2, false, 0, &c, &diag);
	while (!status &&
	       (status = analyzer_contained_next(c, &ev, &diag)) == ANALYZER_SOURCE_EVENT) {
	}
	cr_assert_lt(status, 0, "a truncated stream file read to its end");
	cr_assert(strstr(diag.msg, "perf_stream_1"), "the error does not name the file: %s",
		  diag.msg);
	cr_assert(strstr(diag.msg, trace), "the error does not name the trace: %s", diag.msg);
	cr_assert(!strstr(diag.msg, tmp), "the error names the view: %s", diag.msg);
	analyzer_contained_close(c);
	cr_assert(dir_empty(tmp), "the views are left in %s after an error", tmp);
	unsetenv("TMPDIR");
	dps_test_rmtree(work);
	dps_test_rmtree(tmp);
	g_free(trace);
	g_free(src);
	g_free(work);
	g_free(tmp);
}
#else  /* DECODE_JOBS_LIVE */

/* Whether a view below dir holds an index of its own (a piece of a stream file: groups.c). */
static bool has_piece_index(const char *dir)
{
	return dps_test_sh("find '%s' -path '*/index/*.idx' -type f | grep -q .", dir) == 0;
}

/*
 * A recording large enough for perf's packets (about 8 MB) to make several of them in a
 * stream: its largest stream is cut in pieces that two decoders read, and the merged events
 * are still one decoder's.
 */
Test(decode_jobs_live, a_stream_cut_in_pieces_gives_the_same_events, .timeout = 600)
{
	char *dir = dps_test_mkdtemp("decode-jobs-live");
	char *tmp = dps_test_mkdtemp("decode-jobs-views");
	char *trace = dps_test_strf("%s/pipe", dir);
	char *perf = dps_test_strf("%s/perf", trace);
	struct analyzer_contained *c = NULL;
	struct dps_diag diag = {""};
	const char *paths[] = {perf};

	/* CI installs linux-perf */
	dps_test_require(dps_test_sh("perf bench sched pipe -l 10 >/dev/null 2>&1") == 0,
			 "perf bench is not there");
	cr_assert_eq(dps_test_sh("'%s' record -q --no-ust -o '%s' -- perf bench sched pipe -l "
				 "60000 >/dev/null",
				 dps_test_bin(), trace),
		     0, "dps record failed");
	setenv("TMPDIR", tmp, 1);
	cr_assert_eq(analyzer_contained_open(paths, 1, 2, false, 0, &c, &diag), DPS_OK, "%s",
		     diag.msg);
	cr_assert(has_piece_index(tmp), "no stream of %s was cut in pieces", perf);
	analyzer_contained_close(c);
	cr_assert_gt(compare_events(perf, 2), 0);
	cr_assert(dir_empty(tmp));
	unsetenv("TMPDIR");
	dps_test_rmtree(tmp);
	dps_test_rmtree(dir);
	g_free(perf);
	g_free(trace);
	g_free(tmp);
	g_free(dir);
}
#endif /* DECODE_JOBS_LIVE */
