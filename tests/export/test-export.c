/* SPDX-License-Identifier: MIT */
/*
 * dps export --format perfetto as a user runs it: every file it writes from the real traces
 * of tests/data, from action sets and from a replay's output directory passes
 * check-trace-events.py, the format's checker (required keys per phase, slices that nest,
 * flows that pair up and bind, counters in time order), and holds what the input has (the
 * processes, threads, wake-up arrows, heap points). The checker itself is shown failing on
 * broken files, so that a pass means something. The failure paths (bad format, missing input)
 * are rows of tests/cli/test-cli-failures.c.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <glib.h>

#include "dps-test.h"

/* Runs the checker on path with the expectations; returns its exit status, its report in
 * *report (g_free). */
static int check_file(const char *path, const char *expect, char **report)
{
	struct dps_test_run run =
	    dps_test_run_sh(DPS_TEST_PYTHON " '%s/tests/export/check-trace-events.py' '%s' %s 2>&1",
			    dps_test_source_dir(), path, expect);
	int status = run.status;

	*report = g_strdup(run.out);
	dps_test_run_fini(&run);
	return status;
}

/* dps export INPUT ARGS... -o tmp/out.json; fails the test unless it exits 0. Returns the
 * output's path (g_free). */
static char *export_to(const char *tmp, const char *input, const char *const *args)
{
	GPtrArray *argv = g_ptr_array_new();
	char *out = g_build_filename(tmp, "out.json", NULL);
	struct dps_test_run run;

	g_ptr_array_add(argv, (char *)dps_test_bin());
	g_ptr_array_add(argv, (char *)"export");
	g_ptr_array_add(argv, (char *)input);
	for (size_t i = 0; args && args[i]; i++) {
		g_ptr_array_add(argv, (char *)args[i]);
	}
	g_ptr_array_add(argv, (char *)"-o");
	g_ptr_array_add(argv, out);
	g_ptr_array_add(argv, NULL);
	run = dps_test_run(NULL, (const char *const *)argv->pdata, NULL);
	cr_assert_eq(run.status, 0, "dps export %s: exit %d; stderr:\n%s", input, run.status,
		     run.err);
	dps_test_run_fini(&run);
	g_ptr_array_free(argv, TRUE);
	return out;
}

struct trace_row {
	const char *trace; /* in tests/data/traces */
	const char *args[4];
	const char *expect; /* check-trace-events.py options */
};

/* Every shared trace, with what its selection holds (tests/data/traces/<name>/README.md). */
static const struct trace_row trace_rows[] = {
    /* UST (heap events) + perf sched; worker-b blocks on the mutex worker-a holds */
    {"record-live-prog",
     {NULL},
     "--processes 1 --min-threads 3 --min-slices 100 --min-flow-cat dps.wake=1 "
     "--min-flow-cat dps.join=2 --min-counters 4"},
    /* UST only: no scheduling slices, but every malloc/free */
    {"ls-ust", {"--pid", "5035"}, "--processes 1 --min-threads 1 --min-counters 1000"},
    /* kernel: forks and execs followed as threads, their wake-ups */
    {"pacman",
     {"--pid", "9855", "--follow-children"},
     "--processes 1 --min-threads 20 --min-slices 300 --min-flows 10"},
    /* kernel, rotated stream files */
    {"tracefile-rotation-sched",
     {"--comm", "git"},
     "--processes 1 --min-threads 3 --min-slices 10 --min-flows 1"},
    /* perf with the idle task's switches missing (inferred switch-ins) */
    {"perf-idle-cpu1", {NULL}, "--processes 1 --min-threads 1 --min-slices 40"},
    /* kernel, 8,000 threads created and joined: an arrow from each exit to the join */
    {"many-threads",
     {"--pid", "2673"},
     "--processes 1 --min-threads 8001 --min-slices 30000 --min-flow-cat dps.wake=500 "
     "--min-flow-cat dps.join=8000"},
};

ParameterizedTestParameters(export, real_traces_pass_the_format_checker)
{
	static size_t rows[sizeof(trace_rows) / sizeof(trace_rows[0])];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		rows[i] = i;
	}
	return cr_make_param_array(size_t, rows, sizeof(rows) / sizeof(rows[0]));
}

ParameterizedTest(size_t *row, export, real_traces_pass_the_format_checker, .timeout = 300)
{
	const struct trace_row *r = &trace_rows[*row];
	char *tmp = dps_test_mkdtemp("export");
	char *trace = dps_test_strf("%s/traces/%s", dps_test_data_dir(), r->trace);
	char *out = export_to(tmp, trace, r->args), *report;
	int status = check_file(out, r->expect, &report);

	cr_expect_eq(status, 0, "%s:\n%s", r->trace, report);
	g_free(report);
	g_free(out);
	g_free(trace);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* A replay's output directory as dps replay leaves it, the parts export reads: the marker
 * naming the trace (relative to dir's parent when rel), and the simulated run's recording
 * (here a second copy of a real dps record trace: the pid of its record.info selects it). */
static char *make_replay_dir(const char *tmp, bool rel)
{
	char *src = dps_test_strf("%s/traces/record-live-prog", dps_test_data_dir());
	char *dir = g_build_filename(tmp, "replay", NULL);
	char *info = g_build_filename(dir, "replay.info", NULL);
	char *text;

	cr_assert_eq(dps_test_sh("mkdir -p '%s/traces' '%s' && cp -r '%s' '%s/sim-trace' && "
				 "cp -r '%s' '%s/traces/orig'",
				 tmp, dir, src, dir, src, tmp),
		     0);
	text = rel ? g_strdup("# dps replay output\ntrace traces/orig\n")
		   : dps_test_strf("# dps replay output\ntrace %s/traces/orig\n", tmp);
	dps_test_write_file(info, text);
	g_free(text);
	g_free(info);
	g_free(src);
	return dir;
}

Test(export, replay_dir_puts_the_two_runs_side_by_side, .timeout = 300)
{
	char *tmp = dps_test_mkdtemp("export");
	char *dir = make_replay_dir(tmp, false);
	char *out = export_to(tmp, dir, NULL), *report, *text;
	int status = check_file(out,
				"--processes 2 --min-threads 6 --min-flows 2 --min-counters 8 "
				"--name-prefix original: --name-prefix simulated:",
				&report);

	cr_expect_eq(status, 0, "%s", report);
	/* both runs are the same recording, so they had the same pid: the second gets an id of
	 * its own (above PID_MAX_LIMIT), and its threads too */
	text = dps_test_read_file(out, NULL);
	cr_expect_not_null(strstr(text, "\"pid\":28719,"), "the original keeps its pid");
	cr_expect_not_null(strstr(text, "\"pid\":4194304,"), "the simulated run's own pid");
	g_free(text);
	g_free(report);
	g_free(out);
	g_free(dir);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* The marker names the trace as dps replay was given it: a relative path is found from the
 * replay directory's parent when the export runs elsewhere. */
Test(export, replay_dir_finds_a_relative_trace_beside_it, .timeout = 300)
{
	char *tmp = dps_test_mkdtemp("export");
	char *dir = make_replay_dir(tmp, true);
	char *out = g_build_filename(tmp, "out.json", NULL), *report;
	char *traces = g_build_filename(tmp, "traces", NULL);
	const char *argv[] = {dps_test_bin(), "export", dir, "-o", out, NULL};
	struct dps_test_run run = dps_test_run("/", argv, NULL);

	cr_assert_eq(run.status, 0, "stderr:\n%s", run.err);
	cr_expect_eq(check_file(out, "--processes 2", &report), 0, "%s", report);
	g_free(report);
	dps_test_run_fini(&run);
	/* and without the trace: bad input, named */
	dps_test_rmtree(traces);
	run = dps_test_run("/", argv, NULL);
	cr_expect_eq(run.status, 2, "stderr:\n%s", run.err);
	cr_expect_not_null(strstr(run.err, "traces/orig"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "is not there"), "%s", run.err);
	dps_test_run_fini(&run);
	g_free(traces);
	g_free(out);
	g_free(dir);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* An action set plays on an ideal machine: base's wake (2 wakes 3) is an arrow, so are the
 * root's two joins that block (4 has ended when it is joined); mem's heap actions a counter. */
Test(export, action_sets_have_their_wakes_and_heap)
{
	char *tmp = dps_test_mkdtemp("export");
	const char *const sets[][2] = {
	    {"base", "--processes 1 --min-threads 4 --min-slices 10 --min-flow-cat dps.wake=1 "
		     "--min-flow-cat dps.join=2"},
	    {"mem", "--processes 1 --min-threads 2 --min-counters 4"},
	};

	for (size_t i = 0; i < 2; i++) {
		char *set =
		    dps_test_strf("%s/tests/compare/sets/%s", dps_test_source_dir(), sets[i][0]);
		char *out = export_to(tmp, set, NULL), *report;

		cr_expect_eq(check_file(out, sets[i][1], &report), 0, "%s:\n%s", sets[i][0],
			     report);
		g_free(report);
		g_free(out);
		g_free(set);
	}
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* Thread names are outside text: quotes, </script>, a control character and an invalid
 * UTF-8 byte (the evil set's manifest) come out as valid JSON strings. */
Test(export, thread_names_are_escaped)
{
	char *tmp = dps_test_mkdtemp("export");
	char *set = dps_test_strf("%s/tests/compare/sets/evil", dps_test_source_dir());
	char *out = export_to(tmp, set, NULL), *report, *text;

	cr_expect_eq(check_file(out, "--processes 1 --min-threads 2", &report), 0, "%s", report);
	text = dps_test_read_file(out, NULL);
	cr_expect_not_null(strstr(text, "\"a<b>\\u0001\\ufffd [0.0]\""), "%s", text);
	cr_expect_null(strchr(text, '\x01'), "a raw control character");
	g_free(text);
	g_free(report);
	g_free(out);
	g_free(set);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* -o - writes the file to standard output, and nothing else goes there. */
Test(export, dash_writes_to_standard_output)
{
	char *set = dps_test_strf("%s/tests/compare/sets/base", dps_test_source_dir());
	char *tmp = dps_test_mkdtemp("export");
	char *out = g_build_filename(tmp, "stdout.json", NULL), *report;
	struct dps_test_run run = dps_test_run_dps("export", set, "-o", "-", NULL);

	cr_assert_eq(run.status, 0, "stderr:\n%s", run.err);
	dps_test_write_file(out, run.out);
	cr_expect_eq(check_file(out, "--processes 1 --min-flows 1", &report), 0, "%s", report);
	g_free(report);
	dps_test_run_fini(&run);
	g_free(out);
	g_free(set);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* Files the checker must refuse, one fault each: a pass of the checker above then means the
 * file has none of them. */
static const char *const broken[][2] = {
    {"an X without dur",
     "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":0}]}"},
    {"two slices that overlap without nesting",
     "{\"traceEvents\":["
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"t\"}},"
     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":0,\"dur\":10},"
     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":5,\"dur\":10}]}"},
    {"a flow start without its finish",
     "{\"traceEvents\":["
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"t\"}},"
     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":0,\"dur\":10},"
     "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"name\":\"w\",\"cat\":\"c\",\"ts\":5,\"id\":1}]}"},
    {"a flow finish with no slice to bind to",
     "{\"traceEvents\":["
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"t\"}},"
     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":0,\"dur\":10},"
     "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"name\":\"w\",\"cat\":\"c\",\"ts\":5,\"id\":1},"
     "{\"ph\":\"f\",\"pid\":1,\"tid\":2,\"name\":\"w\",\"cat\":\"c\",\"ts\":6,\"id\":1,"
     "\"bp\":\"e\"}]}"},
    {"a flow start between two slices of its track",
     "{\"traceEvents\":["
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"t\"}},"
     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":0,\"dur\":10},"
     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":20,\"dur\":10},"
     "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"name\":\"w\",\"cat\":\"c\",\"ts\":15,\"id\":1},"
     "{\"ph\":\"f\",\"pid\":1,\"tid\":1,\"name\":\"w\",\"cat\":\"c\",\"ts\":25,\"id\":1,"
     "\"bp\":\"e\"}]}"},
    {"a counter going back in time",
     "{\"traceEvents\":["
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
     "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"name\":\"heap\",\"ts\":5,\"args\":{\"bytes\":1}},"
     "{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"name\":\"heap\",\"ts\":4,\"args\":{\"bytes\":2}}]}"},
    {"a thread without thread_name",
     "{\"traceEvents\":["
     "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"p\"}},"
     "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"run\",\"ts\":0,\"dur\":10}]}"},
    {"a top-level key Perfetto stops at", "{\"traceEvents\":[],\"dps\":1}"},
};

Test(export, the_checker_refuses_broken_files)
{
	char *tmp = dps_test_mkdtemp("export");
	char *path = g_build_filename(tmp, "broken.json", NULL);

	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		char *report;

		dps_test_write_file(path, broken[i][1]);
		cr_expect_eq(check_file(path, "", &report), 1, "%s: accepted:\n%s", broken[i][0],
			     report);
		g_free(report);
	}
	g_free(path);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* A real replay's output (dps replay of the bundled xz trace: it records the stub, so it
 * needs root for perf sched record, and the session daemon): the original and the stub, with
 * their three threads each and their wake-ups. */
Test(export, a_real_replay_exports_both_runs, .timeout = 600)
{
	char *tmp, *out, *report;
	char *dir;
	struct dps_test_run run;

	dps_test_require(geteuid() == 0,
			 "dps replay records the stub with perf sched record: needs root");
	tmp = dps_test_mkdtemp("export");
	dir = g_build_filename(tmp, "replay", NULL);
	cr_assert_eq(dps_test_sh("'%s' replay -q '%s/examples/traces/xz-T2' -o '%s' > '%s.log' "
				 "2>&1",
				 dps_test_bin(), dps_test_source_dir(), dir, dir),
		     0, "dps replay failed: see %s.log", dir);
	out = g_build_filename(tmp, "replay.json", NULL);
	run = dps_test_run_dps("export", dir, "-o", out, NULL);
	cr_assert_eq(run.status, 0, "stderr:\n%s", run.err);
	cr_expect_eq(check_file(out,
				"--processes 2 --min-threads 6 --min-slices 100 --min-flows 2 "
				"--name-prefix 'original: xz' --name-prefix 'simulated: '",
				&report),
		     0, "%s", report);
	g_free(report);
	dps_test_run_fini(&run);
	g_free(out);
	g_free(dir);
	dps_test_rmtree(tmp);
	g_free(tmp);
}
