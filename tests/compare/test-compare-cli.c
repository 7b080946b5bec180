/* SPDX-License-Identifier: MIT */
/*
 * dps compare as a user runs it: exit codes, the table, JSON through python3's parser, and
 * real traces (tests/data/traces) compared with themselves and with their own action set.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "compare-test.h"
#include "compare.h"
#include "dps-test.h"

static char *sets_dir(void)
{
	return ct_set_path("");
}

/* Runs "dps compare ARGS" (ARGS may use %1$s for the sets dir). */
static char *run_compare(char **err, const char *fmt, ...)
{
	char *args = NULL, *cmd = NULL, *dir = sets_dir(), *out;
	va_list ap;

	va_start(ap, fmt);
	cr_assert_gt(vasprintf(&args, fmt, ap), 0);
	va_end(ap);
	cr_assert_gt(asprintf(&cmd, "cd %s && %s compare %s", dir, dps_test_bin(), args), 0);
	out = ct_run_capture(cmd, err);
	free(args);
	free(cmd);
	free(dir);
	return out;
}

static char *trace_path(const char *name)
{
	char *p = dps_test_strf("%s/traces/%s", dps_test_data_dir(), name);

	cr_assert_eq(access(p, R_OK), 0, "missing test trace %s", p);
	return p;
}

Test(compare_cli, differences_are_not_failures)
{
	char *err = NULL, *out = run_compare(&err, "base double2");

	cr_expect_eq(ct_last_status, 0, "stderr: %s", err);
	cr_expect(strstr(out, "fidelity error 61.73 %"), "%s", out);
	cr_expect(strstr(out, "+500.00 us"), "%s", out);
	free(out);
	free(err);
}

/* Every --exclude-comm counts (the list grows per option), on both runs. */
Test(compare_cli, repeated_exclude_comm_leaves_out_each_pattern)
{
	char *err = NULL,
	     *out = run_compare(&err, "base base --exclude-comm dps-3 --exclude-comm 'dps-4'");

	cr_expect_eq(ct_last_status, 0, "stderr: %s", err);
	cr_expect(strstr(out, "threads    2 matched, 0 only in orig, 0 only in sim"), "%s", out);
	cr_expect_null(strstr(out, "dps-3"), "%s", out);
	cr_expect_null(strstr(out, "dps-4"), "%s", out);
	free(out);
	free(err);
}

Test(compare_cli, threshold_fails_only_when_exceeded)
{
	char *err = NULL, *out = run_compare(&err, "--threshold 10 base double2");

	cr_expect_eq(ct_last_status, 1);
	cr_expect(strstr(err, "exceeds the threshold"), "%s", err);
	free(out);
	free(err);
	out = run_compare(&err, "base double2 --threshold 62");
	cr_expect_eq(ct_last_status, 0, "%s", err);
	free(out);
	free(err);
	out = run_compare(&err, "base base --threshold 0");
	cr_expect_eq(ct_last_status, 0, "%s", err);
	free(out);
	free(err);
}

Test(compare_cli, json_output_parses)
{
	char *dir = sets_dir(), *cmd = NULL, *out;

	cr_assert_gt(asprintf(&cmd,
			      "cd %s && %s compare --json base extra | " DPS_TEST_PYTHON
			      " -m json.tool",
			      dir, dps_test_bin()),
		     0);
	out = ct_run_capture(cmd, NULL);
	cr_expect_eq(ct_last_status, 0, "python3 -m json.tool rejected: %s", out);
	cr_expect(strstr(out, "\"sim_only\": 1"), "%s", out);
	cr_expect(strstr(out, "\"match\": \"sim_only\""), "%s", out);
	free(out);
	free(cmd);
	free(dir);
}

Test(compare_cli, bad_inputs_exit_2_with_a_message)
{
	static const char *const cases[][2] = {
	    {"base", "expected two inputs"},
	    {"base no-such-set", "no-such-set"},
	    {"base base/1.act", "expected a directory"},
	    {"base deadlock", "deadlock"},
	    {"--threshold abc base base", "--threshold"},
	    {"--bogus base base", "--bogus"},
	    {"--pid x base base", "--pid"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *err = NULL, *out = run_compare(&err, "%s", cases[i][0]);

		cr_expect_eq(ct_last_status, 2, "'%s' exited %d", cases[i][0], ct_last_status);
		cr_expect(strstr(err, cases[i][1]), "'%s': stderr lacks '%s': %s", cases[i][0],
			  cases[i][1], err);
		free(out);
		free(err);
	}
}

Test(compare_cli, unwritable_report_is_a_failure)
{
	char *err = NULL, *out = run_compare(&err, "base base --html /nonexistent-dir/r.html");

	cr_expect_eq(ct_last_status, 1);
	cr_expect(strstr(err, "/nonexistent-dir/r.html"), "%s", err);
	free(out);
	free(err);
}

/* --html FILE and --json=FILE on a full disk: exit 1 naming the file and ENOSPC, the previous file
 * kept as it was (it was once truncated to nothing), no temporary left. */
Test(compare_cli, a_full_disk_keeps_the_previous_report_and_json)
{
	char *mnt = dps_test_mount_tmpfs(64, true);
	char *html = g_build_filename(mnt, "r.html", NULL);
	char *json = g_build_filename(mnt, "c.json", NULL);
	const char *opts[2] = {"--html ", "--json="};
	const char *paths[2] = {html, json};
	char *dots;

	dps_test_write_file(html, "the previous report\n");
	dps_test_write_file(json, "{\"previous\": 1}\n");
	dps_test_fill_fs(mnt);
	for (int i = 0; i < 2; i++) {
		char *err = NULL, *out = run_compare(&err, "base base %s'%s'", opts[i], paths[i]);
		char *text = dps_test_read_file(paths[i], NULL);

		cr_expect_eq(ct_last_status, 1, "%s: exit %d: %s", opts[i], ct_last_status, err);
		cr_expect(strstr(err, paths[i]), "%s: the message does not name %s: %s", opts[i],
			  paths[i], err);
		cr_expect(strstr(err, "errno=28"), "%s: the message does not say ENOSPC: %s",
			  opts[i], err);
		cr_expect(text && strstr(text, "previous"), "%s: %s was changed: '%s'", opts[i],
			  paths[i], text ? text : "(unreadable)");
		g_free(text);
		free(out);
		free(err);
	}
	dots = dps_test_dot_files(mnt);
	cr_expect_str_empty(dots, "temporaries left in %s: %s", mnt, dots);
	g_free(dots);
	dps_test_unmount(mnt);
	g_free(mnt);
	g_free(html);
	g_free(json);
}

Test(compare_cli, a_trace_needs_a_selection)
{
	char *t = trace_path("tracefile-rotation-sched"), *err = NULL, *out;

	out = run_compare(&err, "%s %s", t, t);
	cr_expect_eq(ct_last_status, 2);
	cr_expect(strstr(err, "git"), "the process list should be shown: %s", err);
	free(out);
	free(err);
	g_free(t);
}

/* Loads a trace side through the library, as dps compare does. */
static struct analyzer_result *load_trace(const char *name, int64_t pid)
{
	struct analyzer_options opts;
	struct analyzer_result *m = NULL;
	enum compare_input_kind kind;
	struct dps_diag diag = {{0}};
	char *t = trace_path(name);

	analyzer_options_default(&opts);
	opts.pid = pid;
	cr_assert_eq(compare_load(t, &opts, &m, &kind, &diag), DPS_OK, "%s: %s", t, diag.msg);
	cr_expect_eq(kind, COMPARE_INPUT_TRACE);
	g_free(t);
	return m;
}

static void assert_zero_error(const struct compare_result *res)
{
	cr_expect_eq(res->n_orig_only + res->n_sim_only, 0);
	cr_expect_eq(res->cpu_abs_err_ns, 0);
	cr_expect_eq(res->makespan_err_ns, 0);
	cr_expect_float_eq(res->fidelity_err_pct, 0.0, 1e-12);
	for (size_t r = 0; r < res->n_threads; r++) {
		for (int m = 0; m < COMPARE_M_COUNT; m++) {
			cr_expect_eq(res->threads[r].m[m].v[0], res->threads[r].m[m].v[1],
				     "row %s %s", res->threads[r].path, compare_metric_name(m));
		}
	}
}

Test(compare_cli, a_trace_against_itself_has_zero_error)
{
	struct analyzer_result *a = load_trace("tracefile-rotation-sched", 6742);
	struct analyzer_result *b = load_trace("tracefile-rotation-sched", 6742);
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};

	cr_assert_eq(compare_run(a, COMPARE_INPUT_TRACE, "a", b, COMPARE_INPUT_TRACE, "b", NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect_eq(res->n_matched, 3, "git and its two threads");
	cr_expect_gt(res->side[0].cpu_total_ns, 0);
	assert_zero_error(res);
	compare_result_destroy(res);
	analyzer_result_destroy(a);
	analyzer_result_destroy(b);
}

Test(compare_cli, eight_thousand_threads_against_themselves, .timeout = 120)
{
	char *t = trace_path("many-threads"), *err = NULL, *out;

	out = run_compare(&err, "--json --pid 2673 %s %s", t, t);
	cr_expect_eq(ct_last_status, 0, "%s", err);
	cr_expect(strstr(out, "\"matched\": 8001"), "8000 threads and the root");
	cr_expect(strstr(out, "\"fidelity_err_pct\": 0,"), "identical runs");
	free(out);
	free(err);
	g_free(t);
}

Test(compare_cli, a_trace_against_its_own_action_set)
{
	struct analyzer_options opts;
	struct analyzer_result *tr = NULL, *ideal = NULL;
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};
	enum compare_input_kind kind;
	char *dir = dps_test_mkdtemp("compare-set"), *t = trace_path("tracefile-rotation-sched");
	const char *traces[1] = {t};

	analyzer_options_default(&opts);
	opts.traces = traces;
	opts.n_traces = 1;
	opts.pid = 6742;
	opts.build_actset = true;
	cr_assert_eq(analyzer_run(&opts, &tr, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_not_null(tr->actset);
	cr_assert_eq(dps_actset_write_dir(tr->actset, dir, 0, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(compare_load(dir, &opts, &ideal, &kind, &diag), DPS_OK, "%s", diag.msg);
	cr_expect_eq(kind, COMPARE_INPUT_ACTSET);
	cr_assert_eq(compare_run(tr, COMPARE_INPUT_TRACE, t, ideal, COMPARE_INPUT_ACTSET, dir, NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	/* one of each: every thread finds its counterpart; the ideal machine never preempts */
	cr_expect_eq(res->n_matched, tr->n_threads);
	cr_expect_eq(res->n_orig_only + res->n_sim_only, 0);
	for (size_t r = 0; r < res->n_threads; r++) {
		cr_expect_eq(res->threads[r].m[COMPARE_M_PREEMPTED].v[1], 0);
	}
	/* generous: the set folds short blocks into runs, so CPU may differ a little */
	cr_expect_lt(res->cpu_err_pct, 25.0, "CPU error %.2f %%", res->cpu_err_pct);
	compare_result_destroy(res);
	analyzer_result_destroy(tr);
	analyzer_result_destroy(ideal);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(t);
}

Test(compare_cli, memory_curves_of_a_real_trace_against_themselves)
{
	struct analyzer_result *a = load_trace("ls-ust", 5035), *b = load_trace("ls-ust", 5035);
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};

	cr_assert_eq(compare_run(a, COMPARE_INPUT_TRACE, "a", b, COMPARE_INPUT_TRACE, "b", NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_assert(res->has_mem, "ls-ust has malloc/free and function entry/exit events");
	cr_expect_gt(res->mem.n_points[0], 100, "heap changes compared");
	cr_expect_gt(res->mem.n_points[1], 100, "stack changes compared");
	cr_expect_eq(res->mem.max_abs[0], 0);
	cr_expect_eq(res->mem.max_abs[1], 0);
	assert_zero_error(res);
	compare_result_destroy(res);
	analyzer_result_destroy(a);
	analyzer_result_destroy(b);
}

/* record.info with these load_* figures (others %, steal %) appended, in a copy of
 * record-live-prog at dir/name. */
static void copy_with_load(const char *dir, const char *name, double others, double steal)
{
	char *src = trace_path("record-live-prog");

	cr_assert_eq(dps_test_sh("cp -r '%s' '%s/%s' && printf 'load_cpus 2\\nload_wall_s 0.2\\n"
				 "load_own_pct 30\\nload_others_pct %g\\nload_steal_pct %g\\n' >> "
				 "'%s/%s/record.info'",
				 src, dir, name, others, steal, dir, name),
		     0);
	g_free(src);
}

/* A run recorded under load is said to be (issue 16), in one statement next to the headline
 * figure whichever run it was (issue 25: the original's load alone was once said, the
 * simulated run's lost): record.info's load_* lines (written by dps record) give one UNDER
 * LOAD line in the table, one "under load" card in the report, "under_load" in the JSON;
 * quiet figures give none. */
Test(compare_cli, a_run_recorded_under_load_is_marked_as_such)
{
	static const struct {
		double orig, sim; /* others %, steal 0.5 % */
		const char *line; /* what the UNDER LOAD line says, NULL: no line */
		const char *json;
	} cases[] = {
	    {3, 4, NULL, "\"under_load\": false"},
	    {3, 64,
	     "UNDER LOAD: the simulated run was recorded while other processes used 64 % of the 2 "
	     "CPUs, steal 0.5 % (the original run: 3 %)",
	     "\"under_load\": true"},
	    {13, 52,
	     "UNDER LOAD: both runs were recorded while other processes used the machine: the "
	     "original run 13 % of the 2 CPUs, steal 0.5 %, the simulated run 52 % of the 2 CPUs",
	     "\"under_load\": true"},
	    {45, 2, "UNDER LOAD: the original run was recorded while other processes used 45 %",
	     "\"under_load\": true"},
	};
	char *tmp = dps_test_mkdtemp("compare-load");

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *err = NULL, *out, *html, *page;
		char name[2][16];

		snprintf(name[0], sizeof(name[0]), "o%zu", c);
		snprintf(name[1], sizeof(name[1]), "s%zu", c);
		copy_with_load(tmp, name[0], cases[c].orig, 0.5);
		copy_with_load(tmp, name[1], cases[c].sim, 0.5);
		html = dps_test_strf("%s/%zu.html", tmp, c);
		out = run_compare(&err, "%s/%s %s/%s --html %s", tmp, name[0], tmp, name[1], html);
		cr_expect_eq(ct_last_status, 0, "%s", err);
		if (cases[c].line) {
			cr_expect(strstr(out, cases[c].line), "case %zu: %s", c, out);
			cr_expect_eq(ct_count(out, "UNDER LOAD"), 1, "one statement: %s", out);
			cr_expect(strstr(out, "The fidelity error includes what they took: record "
					      "again on a quiet machine"),
				  "what it affects and what to do: %s", out);
		} else {
			cr_expect_null(strstr(out, "UNDER LOAD"), "case %zu: %s", c, out);
		}
		cr_expect_null(strstr(out, "busy"), "one word for it: %s", out);
		page = dps_test_read_file(html, NULL);
		cr_expect_eq(ct_count(page, "<div class=\"card load\">"), cases[c].line ? 1 : 0,
			     "case %zu: one under-load card when a run was under load", c);
		free(out);
		free(err);
		g_free(page);
		out = run_compare(&err, "--json %s/%s %s/%s", tmp, name[0], tmp, name[1]);
		cr_expect(strstr(out, cases[c].json), "case %zu: %s", c, out);
		cr_expect_eq(strstr(out, "\"others_pct\": 64, \"steal_pct\": 0.5, \"under_load\": "
					 "true") != NULL,
			     cases[c].sim == 64, "case %zu: the simulated run's figures: %s", c,
			     out);
		free(out);
		free(err);
		g_free(html);
	}
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* The load is read where the trace is, which its label need not say (issue 25: dps replay
 * labels its simulated trace by where it will be once its output directory is in place, and
 * the comparison, made while it is still in the temporary directory, read no load there). */
Test(compare_cli, the_load_is_read_where_the_trace_is_not_where_its_label_says)
{
	char *tmp = dps_test_mkdtemp("compare-load-dir");
	char *dir = dps_test_strf("%s/sim", tmp);
	struct analyzer_result *a = load_trace("record-live-prog", 28562), *b = NULL;
	struct analyzer_options ao;
	struct compare_options co;
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};
	enum compare_input_kind kind;

	copy_with_load(tmp, "sim", 45.4, 0.2);
	analyzer_options_default(&ao);
	ao.pid = 28562;
	cr_assert_eq(compare_load(dir, &ao, &b, &kind, &diag), DPS_OK, "%s", diag.msg);
	compare_options_default(&co);
	co.trace_dir[COMPARE_SIM] = dir;
	cr_assert_eq(compare_run(a, COMPARE_INPUT_TRACE, "a", b, COMPARE_INPUT_TRACE,
				 "out/sim-trace", &co, &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect(res->side[COMPARE_SIM].load.known, "the load of %s was not read", dir);
	cr_expect_float_eq(res->side[COMPARE_SIM].load.others_pct, 45.4, 1e-9);
	cr_expect(res->under_load);
	cr_expect_str_eq(res->side[COMPARE_SIM].label, "out/sim-trace", "the label stays");
	compare_result_destroy(res);
	analyzer_result_destroy(a);
	analyzer_result_destroy(b);
	dps_test_rmtree(tmp);
	g_free(dir);
	g_free(tmp);
}

/* The process-level rows: the whole process (every thread, lttng-ust's included) from exec to
 * the last thread's end, beside the compared threads' figures (doc/compare.md). */
Test(compare_cli, the_whole_process_is_reported_beside_the_threads)
{
	struct analyzer_result *a = load_trace("record-live-prog", 28562);
	struct analyzer_result *b = load_trace("record-live-prog", 28562);
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};
	char *t = trace_path("record-live-prog"), *err = NULL, *out;

	cr_assert_eq(compare_run(a, COMPARE_INPUT_TRACE, "a", b, COMPARE_INPUT_TRACE, "b", NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	for (int s = 0; s < 2; s++) {
		const struct compare_side_info *si = &res->side[s];

		cr_expect(si->process_known);
		/* lttng-ust's two listener threads are left out of the rows, not of the process */
		cr_expect_gt(si->process_cpu_ns, si->cpu_total_ns, "process %llu <= threads %llu",
			     (unsigned long long)si->process_cpu_ns,
			     (unsigned long long)si->cpu_total_ns);
		cr_expect_gt(si->process_wall_ns, 0);
		cr_expect_leq(si->process_wall_ns, si->makespan_ns + 1000000000ULL);
	}
	cr_expect_eq(res->process_cpu_err_ns, 0);
	cr_expect_eq(res->process_wall_err_ns, 0);
	compare_result_destroy(res);
	analyzer_result_destroy(a);
	analyzer_result_destroy(b);

	out = run_compare(&err, "--pid 28562 %s %s", t, t);
	cr_expect_eq(ct_last_status, 0, "%s", err);
	cr_expect(strstr(out, "process    cpu  orig 593.67 ms"), "%s", out);
	cr_expect(strstr(out, "process    wall orig"), "%s", out);
	free(out);
	free(err);
	out = run_compare(&err, "--json --pid 28562 %s %s", t, t);
	cr_expect(strstr(out, "\"process\": {\"measured\": true, \"cpu_ns\": "), "%s", out);
	cr_expect(strstr(out, "\"process_wall\": {\"err_ns\": 0"), "%s", out);
	free(out);
	free(err);
	g_free(t);
}

/* Runs python3 -c CHECK on the JSON at path; CHECK asserts (exit 0 when every assert holds). */
static void expect_json(const char *path, const char *check)
{
	char *cmd =
	    dps_test_strf(DPS_TEST_PYTHON " -c 'import json,sys; d=json.load(open(sys.argv[1])); "
					  "%s' %s",
			  check, path);
	char *err = NULL, *out = ct_run_capture(cmd, &err);

	cr_expect_eq(ct_last_status, 0, "%s failed: %s", check, err);
	free(out);
	free(err);
	g_free(cmd);
}

/* The JSON says what produced it: the command line as typed (getopt permutes argv), the
 * version, the calibration and its figures, each side's selection and the options. */
Test(compare_cli, json_records_what_was_run, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("compare-run"), *trace = trace_path("record-live-prog");
	char *cal = dps_test_strf("%s/cal", dir), *json = dps_test_strf("%s/c.json", dir);
	char *cmd, *err = NULL, *out, *version;

	cmd = dps_test_strf("%s calibrate --quick -o %s", dps_test_bin(), cal);
	free(ct_run_capture(cmd, NULL));
	cr_assert_eq(ct_last_status, 0, "%s", cmd);
	g_free(cmd);
	out = run_compare(&err,
			  "%s %s --orig-pid 28719 --calibration %s --exclude-comm 'no such' "
			  "--threshold 50 --json=%s",
			  trace, trace, cal, json);
	cr_assert_eq(ct_last_status, 0, "%s", err);
	free(out);
	free(err);
	cmd = dps_test_strf("%s --version", dps_test_bin());
	version = ct_run_capture(cmd, NULL);
	g_strstrip(version);
	g_free(cmd);
	cmd =
	    dps_test_strf("r=d[\"run\"]; assert \"dps \" + r[\"dps_version\"] == \"%s\", r; "
			  "assert r[\"argv\"][:4] == [\"dps\", \"compare\", \"%s\", \"%s\"], r; "
			  "assert r[\"argv\"][-1] == \"--json=%s\", r; "
			  "assert \"--exclude-comm \\x27no such\\x27\" in r[\"command_line\"], r; "
			  "assert r[\"calibration\"][\"path\"] == \"%s\", r; "
			  "assert r[\"calibration\"][\"work_loops_per_us\"] > 0, r; "
			  "assert r[\"selection\"][\"orig\"][\"pid\"] == 28719, r; "
			  "assert r[\"selection\"][\"sim\"][\"pid\"] is None, r; "
			  "assert r[\"selection\"][\"sim\"][\"root\"][\"pid\"] == 28719, r; "
			  "k=[(x[\"name\"], x[\"value\"]) for x in r[\"knobs\"]]; "
			  "assert k == [(\"--exclude-comm\", \"no such\"), "
			  "(\"--threshold\", \"50\")], k",
			  version, trace, trace, json, cal);
	expect_json(json, cmd);
	g_free(cmd);
	free(version);
	g_free(cal);
	g_free(json);
	free(trace);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* Next to each creation-tree path, the .act id that --thread-scale ID=X takes. */
Test(compare_cli, the_table_shows_the_act_id_of_each_thread)
{
	char *trace = trace_path("record-live-prog"), *err = NULL, *out;
	char **lines;
	bool header = false, root = false, worker = false;

	out = run_compare(&err, "%s %s", trace, trace);
	cr_assert_eq(ct_last_status, 0, "%s", err);
	lines = g_strsplit(out, "\n", -1);
	for (char **l = lines; *l; l++) {
		char **w = g_strsplit_set(*l, " ", -1);
		char *col[4] = {NULL};
		int n = 0;

		for (char **x = w; *x && n < 4; x++) {
			if (**x) {
				col[n++] = *x;
			}
		}
		if (n == 4) {
			header = header || (!strcmp(col[0], "THREAD") && !strcmp(col[1], "ID") &&
					    !strcmp(col[2], "NAME"));
			root = root || (!strcmp(col[0], "0") && !strcmp(col[1], "28719"));
			worker = worker || (!strcmp(col[0], "0.0") && !strcmp(col[1], "28747") &&
					    !strcmp(col[2], "worker-a"));
		}
		g_strfreev(w);
	}
	cr_expect(header && root && worker, "%s", out);
	g_strfreev(lines);
	free(out);
	free(err);
	free(trace);
}

/* A relative error on a base under 1 ms (base: 700 us blocked) is shown as the difference in
 * the table; the JSON keeps the raw percentage and flags it. Bases above stay in %. */
Test(compare_cli, small_bases_show_the_difference_not_a_percentage)
{
	char *err = NULL, *out = run_compare(&err, "base double2");
	char *dir = dps_test_mkdtemp("compare-small"), *json = dps_test_strf("%s/c.json", dir);

	cr_assert_eq(ct_last_status, 0, "%s", err);
	cr_expect_null(strstr(out, "+71.4%"), "blocked 700 us -> 1.2 ms shown in %%: %s", out);
	cr_expect(strstr(out, "+500.00 us"), "%s", out);
	free(out);
	free(err);
	out = run_compare(&err, "base double2 --json=%s", json);
	cr_assert_eq(ct_last_status, 0, "%s", err);
	expect_json(json,
		    "b=d[\"threads\"][0][\"blocked\"]; "
		    "assert b[\"small_base\"] is True and abs(b[\"err_pct\"] - 71.4286) < 0.01 "
		    "and b[\"err_ns\"] == 500000, b; "
		    "assert \"small_base\" not in d[\"threads\"][0][\"runs\"]");
	free(out);
	free(err);
	g_free(json);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* A curve with no compared point (no stack action anywhere) gets no line in the table, as
 * the report leaves its chart out. */
Test(compare_cli, a_curve_without_points_gets_no_line)
{
	char *err = NULL, *out = run_compare(&err, "heap-only heap-only");

	cr_assert_eq(ct_last_status, 0, "%s", err);
	cr_expect(strstr(out, "heap       max error 0 B"), "%s", out);
	cr_expect_null(strstr(out, "stack      max error"), "%s", out);
	free(out);
	free(err);
}
