/* SPDX-License-Identifier: MIT */
/*
 * The analyzer on real traces (tests/data/traces): golden action sets and statistics
 * (tests/analyzer/expect/<case>.expect; DPS_UPDATE_EXPECT=1 rewrites them), the structure
 * each trace is known to have, and the error paths through the dps command (exit codes and
 * messages).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "analyzer.h"
#include "dps-test.h"

/* Analyzes trace with the selection --pid pid (if >= 0) or --comm comm (if not NULL). */
static struct analyzer_result *analyze_sel(const char *trace, int64_t pid, const char *comm,
					   bool follow)
{
	struct analyzer_options opts;
	struct analyzer_result *res = NULL;
	struct dps_diag diag = {""};
	char *path = dps_test_data_path(trace);
	const char *traces[] = {path};
	int status;

	analyzer_options_default(&opts);
	opts.traces = traces;
	opts.n_traces = 1;
	opts.pid = pid;
	opts.comm = comm;
	opts.follow_children = follow;
	status = analyzer_run(&opts, &res, &diag);
	cr_assert_eq(status, DPS_OK, "%s: %d %s", trace, status, diag.msg);
	g_free(path);
	/* Goldens must not depend on where the tree is. */
	free(res->source);
	res->source = strdup(trace);
	return res;
}

static struct analyzer_result *analyze(const char *trace, int64_t pid, bool follow)
{
	return analyze_sel(trace, pid, NULL, follow);
}

static int cmp_id(const void *a, const void *b)
{
	const struct dps_actset_thread *x = *(const struct dps_actset_thread *const *)a;
	const struct dps_actset_thread *y = *(const struct dps_actset_thread *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The set's files (at most max_lines actions each, 0 = all) and the JSON statistics. */
static char *render(const struct analyzer_result *res, size_t max_lines)
{
	const struct dps_actset *set = res->actset;
	const struct dps_actset_thread **order = malloc(set->n_threads * sizeof(*order));
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_not_null(out);
	for (size_t i = 0; i < set->n_threads; i++) {
		order[i] = &set->threads[i];
	}
	qsort(order, set->n_threads, sizeof(*order), cmp_id);
	for (size_t i = 0; i < set->n_threads; i++) {
		size_t t = (size_t)(order[i] - set->threads);
		char *one = NULL;
		size_t one_len = 0;
		FILE *f = open_memstream(&one, &one_len);
		size_t lines = 0;

		dps_actset_write_thread(set, t, f);
		fclose(f);
		fprintf(out, "== %" PRIu64 ".act\n", order[i]->id);
		for (char *p = one; *p && (!max_lines || lines < max_lines + 1); lines++) {
			char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

			fwrite(p, 1, n, out);
			p += n;
		}
		if (max_lines && lines > max_lines) {
			fprintf(out, "...\n");
		}
		free(one);
	}
	fprintf(out, "== stats\n");
	analyzer_result_print_json(res, out);
	fclose(out);
	free(order);
	return text;
}

static void check_golden(const char *name, const char *actual)
{
	char *path =
	    dps_test_strf("%s/tests/analyzer/expect/%s.expect", dps_test_source_dir(), name);
	char *expect;

	if (getenv("DPS_UPDATE_EXPECT")) {
		dps_test_write_file(path, actual);
	}
	expect = dps_test_read_file(path, NULL);
	cr_assert_not_null(expect, "%s is missing (DPS_UPDATE_EXPECT=1 writes it)", path);
	if (strcmp(expect, actual)) {
		char *tmp = dps_test_mkstemp("analyzer-actual");

		dps_test_write_file(tmp, actual);
		cr_assert_fail("%s differs from the golden output: diff %s %s", name, path, tmp);
	}
	g_free(expect);
	g_free(path);
}

static size_t count_marks(const struct analyzer_thread *t, uint32_t kind)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_marks; i++) {
		n += t->marks[i].kind == kind;
	}
	return n;
}

Test(traces, rotation_git_creates_two_threads_that_exit)
{
	struct analyzer_result *res = analyze("traces/tracefile-rotation-sched", 6742, false);
	char *text;

	cr_assert_eq(res->n_threads, 3);
	cr_expect_str_eq(res->threads[0].comm, "git");
	cr_expect_eq(res->threads[0].tid, 6742);
	cr_expect_eq(count_marks(&res->threads[0], ANALYZER_MARK_CREATE), 2);
	for (size_t i = 1; i < 3; i++) {
		cr_expect_eq(res->threads[i].parent, 0);
		cr_expect_eq(res->threads[i].create_rank, i - 1);
		cr_expect_eq(count_marks(&res->threads[i], ANALYZER_MARK_EXIT), 1);
		cr_expect(!res->threads[i].pre_existing);
	}
	cr_expect_eq(res->threads[0].stats.n_joins, 2);
	text = render(res, 0);
	check_golden("rotation-git", text);
	free(text);
	analyzer_result_destroy(res);
}

Test(traces, many_threads_creates_8000_threads_that_all_exit, .timeout = 120)
{
	struct analyzer_result *res = analyze("traces/many-threads", 2673, false);
	size_t exited = 0;
	char *text;

	cr_assert_eq(res->n_threads, 8001);
	cr_expect_eq(res->threads[0].tid, 2673);
	cr_expect_eq(count_marks(&res->threads[0], ANALYZER_MARK_CREATE), 8000);
	for (size_t i = 1; i < res->n_threads; i++) {
		cr_assert_eq(res->threads[i].parent, 0);
		cr_assert_eq(res->threads[i].create_rank, i - 1);
		exited += count_marks(&res->threads[i], ANALYZER_MARK_EXIT);
	}
	cr_expect_eq(exited, 8000);
	cr_expect_eq(res->threads[0].stats.n_joins, 8000);
	text = render(res, 12);
	/* 8001 files: keep the golden to the root, a few children and the totals. */
	{
		char *cut = strstr(text, "== 2690.act");
		char *stats = strstr(text, "== stats");
		char *tot = strstr(stats, "\"total\"");

		cr_assert(cut && stats && tot);
		memmove(cut, tot, strlen(tot) + 1);
	}
	check_golden("many-threads", text);
	free(text);
	analyzer_result_destroy(res);
}

Test(traces, pacman_without_and_with_children)
{
	struct analyzer_result *res = analyze("traces/pacman", 9855, false);
	char *text;

	cr_assert_eq(res->n_threads, 2);
	cr_expect_str_eq(res->threads[0].comm, "pacman");
	text = render(res, 0);
	check_golden("pacman", text);
	free(text);
	analyzer_result_destroy(res);

	res = analyze("traces/pacman", 9855, true);
	cr_expect_gt(res->n_threads, 20);
	for (size_t i = 1; i < res->n_threads; i++) {
		cr_expect_neq(res->threads[i].parent, ANALYZER_NO_THREAD);
	}
	text = render(res, 0);
	check_golden("pacman-follow", text);
	free(text);
	analyzer_result_destroy(res);
}

/* Regression: pacman's fork children inherit its name, so --comm pacman used to match them
 * in their own right and keep all 26 (gpg, ldconfig, ...) without --follow-children. A child
 * process is a child process whatever its name: --comm selects what --pid of its root does. */
Test(traces, comm_keeps_child_processes_only_with_follow_children)
{
	struct analyzer_result *by_comm = analyze_sel("traces/pacman", -1, "pacman", false);
	struct analyzer_result *by_pid = analyze("traces/pacman", 9855, false);
	struct analyzer_result *follow = analyze_sel("traces/pacman", -1, "pacman", true);

	cr_expect_eq(by_comm->n_threads, by_pid->n_threads);
	for (size_t i = 0; i < by_comm->n_threads; i++) {
		cr_expect_eq(by_comm->threads[i].pid, 9855, "thread %zu: pid %" PRId64 " (%s)", i,
			     by_comm->threads[i].pid, by_comm->threads[i].comm);
	}
	cr_expect_gt(follow->n_threads, 20);
	analyzer_result_destroy(follow);
	analyzer_result_destroy(by_pid);
	analyzer_result_destroy(by_comm);
}

Test(traces, ls_ust_heap_and_stack)
{
	struct analyzer_result *res = analyze("traces/ls-ust", 5035, false);
	const struct analyzer_thread *t = &res->threads[0];
	char *text;

	cr_assert_eq(res->n_threads, 2);
	cr_expect_eq(t->tid, 5035);
	cr_expect_eq(t->stats.n_free_null, 39);
	cr_expect_gt(t->stats.heap_peak_bytes, 0);
	cr_expect_gt(t->stats.stack_peak_bytes, 0);
	cr_expect(res->threads[1].pre_existing);
	text = render(res, 200);
	check_golden("ls-ust", text);
	free(text);
	analyzer_result_destroy(res);
}

/* CPU 1 never reports leaving idle: t2's switch-ins are inferred; its CPU time still matches
 * what getrusage said (63.326 ms, README), from the segments alone too. */
Test(traces, perf_trace_with_missing_idle_switch_ins)
{
	struct analyzer_result *res = analyze("traces/perf-idle-cpu1", 22396, false);
	const struct analyzer_thread *t = &res->threads[0];
	uint64_t run = 0;
	char *text;

	cr_assert_eq(res->n_threads, 1);
	cr_expect_str_eq(t->comm, "t2");
	cr_expect_gt(t->stats.n_inferred, 15);
	cr_expect(t->stats.busy_exact);
	cr_expect(t->stats.busy_ns > 61000000 && t->stats.busy_ns < 65000000, "busy %" PRIu64,
		  t->stats.busy_ns);
	for (size_t i = 0; i < t->n_segs; i++) {
		if (t->segs[i].kind == ANALYZER_SEG_RUN) {
			run += t->segs[i].end_ns - t->segs[i].begin_ns;
		}
	}
	cr_expect(run > 60000000 && run < 68000000, "run segments %" PRIu64, run);
	cr_expect_eq(t->stats.n_sleeps, 20, "%" PRIu64, t->stats.n_sleeps);
	text = render(res, 0);
	check_golden("perf-idle-cpu1", text);
	free(text);
	analyzer_result_destroy(res);
}

/* dps record's output: perf-CTF and LTTng-UST traces of one run, merged by the analyzer. */
Test(traces, record_of_perf_and_ust_merged)
{
	struct analyzer_result *res = analyze("traces/record-live-prog", 28719, false);
	const struct analyzer_thread *a = NULL, *b = NULL;
	char *text;

	cr_expect(strstr(res->source, "record-live-prog") != NULL);
	for (size_t i = 0; i < res->n_threads; i++) {
		if (!strcmp(res->threads[i].comm, "worker-a")) {
			a = &res->threads[i];
		} else if (!strcmp(res->threads[i].comm, "worker-b")) {
			b = &res->threads[i];
		}
	}
	cr_assert(a && b);
	cr_expect_eq(a->parent, 0);
	cr_expect_eq(b->parent, 0);
	cr_expect_eq(a->stats.heap_peak_bytes, 1 << 20);
	cr_expect_eq(b->stats.n_waits, 1);
	cr_expect_eq(a->stats.n_wakes, 1);
	cr_expect(a->stats.busy_ns > 38000000 && a->stats.busy_ns < 46000000);
	text = render(res, 0);
	check_golden("record-live-prog", text);
	free(text);
	analyzer_result_destroy(res);
}

/*
 * Issue 10: a thread's run total is its CPU time (sched_stat_runtime), within 0.5 %, however
 * many blocks are folded: with the default --min-block and with 5 ms, which folds most of
 * the sleeps of these traces (their folded time once went into the runs: +5 % on a zstd
 * recording).
 */
Test(traces, run_totals_equal_the_kernel_cpu_time_whatever_is_folded)
{
	static const struct {
		const char *trace;
		int64_t pid;
	} cases[] = {{"traces/perf-idle-cpu1", 22396}, {"traces/record-live-prog", 28719}};
	static const uint64_t min_blocks[] = {0, 5000000};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (size_t m = 0; m < sizeof(min_blocks) / sizeof(min_blocks[0]); m++) {
			struct analyzer_options opts;
			struct analyzer_result *res = NULL;
			struct dps_diag diag = {""};
			char *path = dps_test_data_path(cases[c].trace);
			const char *traces[] = {path};
			size_t checked = 0;

			analyzer_options_default(&opts);
			opts.traces = traces;
			opts.n_traces = 1;
			opts.pid = cases[c].pid;
			if (min_blocks[m]) {
				opts.min_block_ns = min_blocks[m];
			}
			cr_assert_eq(analyzer_run(&opts, &res, &diag), DPS_OK, "%s", diag.msg);
			for (size_t i = 0; i < res->n_threads; i++) {
				const struct analyzer_thread *t = &res->threads[i];
				const struct dps_actset_thread *at = &res->actset->threads[i];
				uint64_t run = 0;

				if (!t->stats.busy_exact || t->stats.busy_ns < 1000000) {
					continue;
				}
				for (size_t a = 0; a < at->n_actions; a++) {
					if (at->actions[a].kind == DPS_ACT_RUN) {
						run += (uint64_t)at->actions[a].value;
					}
				}
				cr_expect(llabs((long long)run - (long long)t->stats.busy_ns) *
						  200 <=
					      (long long)t->stats.busy_ns,
					  "%s, min-block %" PRIu64 " ns, %s: runs %" PRIu64
					  " ns, CPU %" PRIu64 " ns (%" PRIu64 " blocks folded)",
					  cases[c].trace, (uint64_t)opts.min_block_ns, t->comm, run,
					  t->stats.busy_ns, t->stats.n_folded);
				checked++;
			}
			cr_expect_gt(checked, 0, "%s: no thread with exact CPU", cases[c].trace);
			analyzer_result_destroy(res);
			g_free(path);
		}
	}
}

/*
 * The dps command: exit codes and messages.
 */
/* The dps command with args (words split by the shell). */
static struct dps_test_run run_dps(const char *args)
{
	return dps_test_run_sh("'%s' %s", dps_test_bin(), args);
}

Test(cli, no_selection_lists_processes_and_exits_2)
{
	char *t = dps_test_data_path("traces/many-threads");
	char *args = NULL;
	struct dps_test_run r;

	cr_assert(asprintf(&args, "analyze %s", t) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.out, "2673") && strstr(r.out, "multithread") && strstr(r.out, "8001"),
		  "%s", r.out);
	cr_expect(strstr(r.err, "--pid") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	free(args);
	g_free(t);
}

Test(cli, a_dps_record_directory_selects_the_recorded_command)
{
	char *t = dps_test_data_path("traces/record-live-prog");
	char *args = NULL;
	struct dps_test_run r;

	cr_assert(asprintf(&args, "analyze %s --json", t) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "--pid 28719") != NULL, "%s", r.err);
	cr_expect(strstr(r.out, "\"worker-a\"") != NULL);
	dps_test_run_fini(&r);
	free(args);
	g_free(t);
}

static uint64_t json_total(const char *json, const char *key)
{
	const char *tot = strstr(json, "\"total\"");
	char pat[64];
	const char *p;

	cr_assert_not_null(tot);
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(tot, pat);
	cr_assert_not_null(p, "%s", key);
	return strtoull(p + strlen(pat), NULL, 10);
}

Test(cli, min_block_from_option_or_calibration_file_folds_blocks)
{
	char *t = dps_test_data_path("traces/pacman");
	char *cal = dps_test_mkstemp("analyzer-cal");
	char *args = NULL;
	struct dps_test_run r;
	uint64_t sleeps_default, folded_default;

	dps_test_write_file(cal,
			    "# dps calibration\ndps-calibration 2\ncpu.min_block_ns 5000000\n");
	cr_assert(asprintf(&args, "analyze %s --pid 9855 --json", t) > 0);
	r = run_dps(args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	sleeps_default = json_total(r.out, "n_sleeps");
	folded_default = json_total(r.out, "n_folded");
	dps_test_run_fini(&r);
	free(args);

	cr_assert(asprintf(&args, "analyze %s --pid 9855 --json --calibration %s", t, cal) > 0);
	r = run_dps(args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_lt(json_total(r.out, "n_sleeps"), sleeps_default);
	cr_expect_gt(json_total(r.out, "n_folded"), folded_default);
	dps_test_run_fini(&r);
	free(args);

	/* the option wins over the file */
	cr_assert(asprintf(&args, "analyze %s --pid 9855 --json --calibration %s --min-block 1ns",
			   t, cal) > 0);
	r = run_dps(args);
	cr_expect_eq(json_total(r.out, "n_folded"), 0);
	dps_test_run_fini(&r);
	free(args);

	cr_assert(asprintf(&args, "analyze %s --pid 9855 --calibration /nonexistent-cal", t) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.err, "cannot open the calibration file") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	free(args);
	dps_test_rmtree(cal);
	g_free(cal);
	g_free(t);
}

Test(cli, empty_selection_exits_2_with_candidates)
{
	char *t = dps_test_data_path("traces/tracefile-rotation-sched");
	char *args = NULL;
	struct dps_test_run r;

	cr_assert(asprintf(&args, "analyze %s --comm no-such-process", t) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "matches no thread") && strstr(r.err, "6742 git"), "%s", r.err);
	dps_test_run_fini(&r);
	free(args);
	g_free(t);
}

Test(cli, writes_the_action_set_and_the_manifest)
{
	char *t = dps_test_data_path("traces/tracefile-rotation-sched");
	char *dir = dps_test_mkdtemp("analyzer");
	char *args = NULL, *path = NULL, *manifest;
	struct dps_test_run r;
	struct dps_actset *set = NULL;
	struct dps_diag diag;

	cr_assert(asprintf(&args, "analyze %s --comm git -o %s/set --json", t, dir) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"busy_ns\"") != NULL);
	cr_assert(asprintf(&path, "%s/set/manifest", dir) > 0);
	manifest = dps_test_read_file(path, NULL);
	cr_assert_not_null(manifest);
	cr_expect(strstr(manifest, "root 6742") && strstr(manifest, "options \"--comm git"), "%s",
		  manifest);
	free(path);
	cr_assert(asprintf(&path, "%s/set", dir) > 0);
	cr_expect_eq(dps_actset_load_dir(path, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_expect_eq(set->n_threads, 3);
	dps_actset_destroy(set);
	g_free(manifest);
	free(path);
	dps_test_run_fini(&r);
	free(args);
	g_free(t);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* A new directory with a writable copy of the trace tests/data/rel in it as t/ (g_free). */
static char *copy_trace(const char *rel)
{
	char *src = dps_test_data_path(rel);
	char *dir = dps_test_mkdtemp("analyzer");

	cr_assert_eq(dps_test_sh("cp -r '%s' '%s/t' && chmod -R u+w '%s/t'", src, dir, dir), 0);
	g_free(src);
	return dir;
}

Test(cli, corrupt_stream_exits_1_with_babeltrace2_causes)
{
	char *dir = copy_trace("traces/ls-ust");
	char *args = NULL;
	char path[256];
	struct dps_test_run r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/t/ust/u_0", dir);
	f = fopen(path, "r+");
	if (!f) {
		/* the layout of the copied trace */
		snprintf(path, sizeof(path), "%s/t/u_0", dir);
		f = fopen(path, "r+");
	}
	cr_assert_not_null(f, "%s", path);
	fwrite("\0\0\0\0", 1, 4, f); /* the CTF magic */
	fclose(f);
	cr_assert(asprintf(&args, "analyze %s/t --pid 5035", dir) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.err, "babeltrace2 cannot read this trace: Invalid CTF magic number"),
		  "%s", r.err);
	cr_expect_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
	dps_test_run_fini(&r);
	free(args);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(cli, truncated_stream_exits_1)
{
	char *dir = copy_trace("traces/tracefile-rotation-sched");
	char *args = NULL;
	char path[256];
	struct dps_test_run r;

	snprintf(path, sizeof(path), "%s/t/kernel/mychan_0_0", dir);
	cr_assert_eq(truncate(path, 30000), 0, "%s: %s", path, strerror(errno));
	cr_assert(asprintf(&args, "analyze %s/t --pid 6742", dir) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.err, "cannot read this trace") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	free(args);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(cli, missing_or_empty_trace_paths_exit_2)
{
	struct dps_test_run r = run_dps("analyze /nonexistent-dps-trace --pid 1");

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "No such file") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	r = run_dps("analyze /proc/self/fdinfo --pid 1");
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no CTF trace found") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	r = run_dps("analyze");
	cr_expect_eq(r.status, 2);
	dps_test_run_fini(&r);
	r = run_dps("analyze x --min-block abc --pid 1");
	cr_expect_eq(r.status, 2);
	dps_test_run_fini(&r);
}

Test(cli, record_usage_errors_exit_2)
{
	struct dps_test_run r = run_dps("record");

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "expected a command") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	r = run_dps("record --no-ust --no-kernel -- true");
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "nothing to record") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	r = run_dps("record --no-ust --memory -- true");
	cr_expect_eq(r.status, 2);
	dps_test_run_fini(&r);
	r = run_dps("record --bogus -- true");
	cr_expect_eq(r.status, 2);
	dps_test_run_fini(&r);
}

/*
 * Damaged traces (doc/analyzer.md, "Damaged traces"): what babeltrace2 skips is reported,
 * what stops it is located, --strict refuses a partial input. The corpus test
 * (corrupt-corpus.py) covers the rest.
 */
static struct dps_test_run run_dps_on(const char *dir, const char *opts)
{
	char *args = NULL;
	struct dps_test_run r;

	cr_assert(asprintf(&args, "analyze %s/t %s --no-progress", dir, opts) > 0);
	r = run_dps(args);
	free(args);
	return r;
}

Test(cli, empty_stream_file_is_reported_and_strict_refuses_it)
{
	char *dir = copy_trace("traces/ls-ust");
	char path[256];
	char *args = NULL;
	struct dps_test_run r;

	snprintf(path, sizeof(path), "%s/t/ust/u_4", dir);
	cr_assert_eq(truncate(path, 0), 0, "%s: %s", path, strerror(errno));
	/* babeltrace2 reads the rest without a word: half of the CPU time goes */
	r = run_dps_on(dir, "--pid 5035 --json");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "u_4: empty stream file (its index lists 1 packet): not read") &&
		      strstr(r.err, "incomplete"),
		  "%s", r.err);
	cr_expect(strstr(r.out, "\"partial\": true") && strstr(r.out, "u_4: empty stream file"),
		  "%s", r.out);
	dps_test_run_fini(&r);
	r = run_dps_on(dir, "--list");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "u_4: empty stream file") != NULL, "%s", r.err);
	dps_test_run_fini(&r);
	r = run_dps_on(dir, "--pid 5035 --strict -q");
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "u_4: empty stream file") && strstr(r.err, "--strict"), "%s",
		  r.err);
	dps_test_run_fini(&r);
	/* compare: a warning, or with --strict an error */
	cr_assert(asprintf(&args, "compare %s/t %s/t --pid 5035", dir, dir) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "input is partial: ") && strstr(r.err, "u_4: empty stream file"),
		  "%s", r.err);
	dps_test_run_fini(&r);
	free(args);
	cr_assert(asprintf(&args, "compare %s/t %s/t --pid 5035 --strict", dir, dir) > 0);
	r = run_dps(args);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "u_4: empty stream file") && strstr(r.err, "(--strict)"), "%s",
		  r.err);
	dps_test_run_fini(&r);
	free(args);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(cli, sub_trace_without_metadata_is_reported)
{
	char *dir = copy_trace("traces/record-live-prog");
	char path[256];
	struct dps_test_run r;

	snprintf(path, sizeof(path), "%s/t/ust/uid/0/64-bit/metadata", dir);
	cr_assert_eq(unlink(path), 0, "%s: %s", path, strerror(errno));
	r = run_dps_on(dir, "-q");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "ust/uid/0/64-bit: 2 stream files without a `metadata` file"), "%s",
		  r.err);
	dps_test_run_fini(&r);
	r = run_dps_on(dir, "-q --strict");
	cr_expect_eq(r.status, 1, "%s", r.err);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* Per-test: the decoder's watchdog of a second (the default, 10 s, is for real use). */
Test(cli, truncated_metadata_stall_is_stopped_and_located, .timeout = 120)
{
	char *dir = copy_trace("traces/tracefile-rotation-sched");
	char path[256];
	struct dps_test_run r;

	snprintf(path, sizeof(path), "%s/t/kernel/metadata", dir);
	/* babeltrace2 2.0.4 loops forever on this metadata */
	cr_assert_eq(truncate(path, 5000), 0, "%s: %s", path, strerror(errno));
	setenv("DPS_DECODE_TIMEOUT", "1", 1);
	r = run_dps_on(dir, "--pid 6742 -q");
	unsetenv("DPS_DECODE_TIMEOUT");
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "/t/kernel: babeltrace2 made no progress for 1.0 s while opening"),
		  "%s", r.err);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(dir);
}

/*
 * A corrupted dynamic-array length (an exit_poll's fds_length set to 2^26) makes babeltrace2
 * allocate and fill fields without end, which looks like progress to the watchdog: the memory
 * bound stops it and names the stream file, though the muxer's last event came from another.
 */
Test(cli, runaway_array_length_is_stopped_by_the_memory_bound, .timeout = 120)
{
	/* ret = 1, nfds = 6, fds_length = 1, fds[0] = {fd 3, raw_events 0x1, POLLIN} */
	static const unsigned char poll_exit[] = {1, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0,
						  1, 0, 0, 0, 3, 0, 0, 0, 1, 0, 1};
	char *dir = copy_trace("traces/pacman");
	char *path = dps_test_strf("%s/t/kernel/k_3", dir);
	size_t len;
	char *data = dps_test_read_file(path, &len);
	unsigned char *at = memmem(data, len, poll_exit, sizeof(poll_exit));
	struct dps_test_run r;
	FILE *f;

	cr_assert_not_null(at, "no poll exit event in %s", path);
	at[15] = 0x04; /* fds_length: 1 -> 0x04000001 */
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	/* 100 MiB: the pristine pacman's decoder stays below 40 MiB; the runaway grows at about
	 * 140 MiB/s, twice (the muxer, then the search for the stream), so a bound of 300 took
	 * this case 4.7 s and this one 2.5 s */
	setenv("DPS_DECODE_MEMORY", "100", 1);
	r = run_dps_on(dir, "--comm pacman -q");
	unsetenv("DPS_DECODE_MEMORY");
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "babeltrace2's memory grew past 100 MiB while"), "%s", r.err);
	cr_expect(strstr(r.err, "stream pacman/k_3") || strstr(r.err, "stream t/kernel/k_3") ||
		      strstr(r.err, "/k_3,"),
		  "the damaged stream file: %s", r.err);
	dps_test_run_fini(&r);
	free(data);
	g_free(path);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(cli, decoder_abort_is_contained_and_located)
{
	char *dir = copy_trace("traces/ls-ust");
	char path[256];
	struct dps_test_run r;
	FILE *f;

	snprintf(path, sizeof(path), "%s/t/ust/u_1", dir);
	f = fopen(path, "r+");
	cr_assert_not_null(f, "%s", path);
	/* the top byte of the packet's content_size: babeltrace2 2.0.4 fails an assertion */
	cr_assert_eq(fseek(f, 55, SEEK_SET), 0);
	fputc(0x94, f);
	fclose(f);
	r = run_dps_on(dir, "--pid 5035 -q");
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "/t/ust: babeltrace2 crashed (SIGABRT) while opening it"), "%s",
		  r.err);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(cli, malformed_record_info_is_a_located_error)
{
	char *dir = copy_trace("traces/perf-idle-cpu1");
	char path[256];
	struct dps_test_run r;

	snprintf(path, sizeof(path), "%s/t/record.info", dir);
	dps_test_write_file(path, "# dps record\npid 22x396\n");
	r = run_dps_on(dir, "-q");
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "/t/record.info:2:5: pid: expected a positive process id, got "
				"\"22x396\""),
		  "%s", r.err);
	dps_test_run_fini(&r);
	dps_test_write_file(path, "kernel perf\n");
	r = run_dps_on(dir, "-q");
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "/t/record.info:2:1: no \"pid N\" line"), "%s", r.err);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* A stream file named with an escape sequence, reported in the partial warning: the terminal
 * gets '?' for the control character, not the sequence. */
Test(cli, a_hostile_stream_file_name_in_the_warning_is_sanitized)
{
	char *dir = copy_trace("traces/ls-ust");
	struct dps_test_run r;

	cr_assert_eq(
	    dps_test_sh("cp '%s/t/ust/u_1' \"%s/t/ust/u_$(printf '\\033[31m')9\"", dir, dir), 0);
	r = run_dps_on(dir, "--pid 5035 -q");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "u_?[31m9: a copy of the stream file"), "%s", r.err);
	cr_expect_null(strchr(r.err, '\033'), "an escape character reached the terminal: %s",
		       r.err);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(dir);
}
