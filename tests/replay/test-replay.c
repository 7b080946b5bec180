/* SPDX-License-Identifier: MIT */
/*
 * Round trips through the whole pipeline with the real tools: dps build, dps record (perf for
 * kernel scheduling, LTTng UST), the analyzer and compare; and dps replay on the bundled real
 * trace. Bounds are generous (2 shared cores): they catch a broken pipeline — lost threads,
 * runs that don't burn their CPU, a stub that never ends — not the last percent, which
 * bench/fidelity.sh measures.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "compare.h"
#include "dps-test.h"
#include "record.h"

/*
 * The tests of what replay writes, says and refuses play the bundled trace's stub at a quarter
 * of its recorded CPU (0.34 s of its 1.35 s): what they check does not depend on it, and the
 * default run's time is mostly CPU (doc/testing.md). The round trip and the stub's cost play
 * at full scale.
 */
#define QUICK_STUB "--scale=0.25"

static char *tmpdir; /* g_free: this test's directory */

static void setup(void)
{
	tmpdir = dps_test_mkdtemp("replay");
}

static void teardown(void)
{
	dps_test_rmtree(tmpdir);
	g_free(tmpdir);
	tmpdir = NULL;
}

static long read_recorded_pid(const char *trace)
{
	int64_t pid = -1;

	cr_assert(dps_record_info_pid(trace, &pid), "dps record wrote no pid into %s/record.info",
		  trace);
	return (long)pid;
}
/* Kernel scheduling capture (perf sched record) needs root. A developer's run as a user skips
 * these round trips; CI (CI=true) runs as root, and there a skip would hide them: it fails. */
static void require_root(void)
{
	if (geteuid() != 0) {
		teardown(); /* a skipped test's .fini does not run */
		dps_test_require(geteuid() == 0,
				 "kernel scheduling capture (perf sched record) needs root");
	}
}

/* A check of one round trip: its message appended to why when it does not hold. */
#define RT_CHECK(why, cond, ...)                                                                   \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			g_string_append_printf(why, "\n  " __VA_ARGS__);                           \
		}                                                                                  \
	} while (0)

/* One round trip: the stub recorded, the trace compared with the set; what did not hold in
 * why (nothing: it held). */
static void round_trip(const char *dps, const char *set, const char *stub, const char *trace,
		       GString *why)
{
	struct analyzer_options aopts;
	struct analyzer_result *orig = NULL, *sim = NULL;
	enum compare_input_kind ok, sk;
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};

	dps_test_rmtree(trace);
	cr_assert_eq(dps_test_sh("'%s' record -q -o '%s' -- '%s' --no-summary", dps, trace, stub),
		     0, "dps record of the stub failed");

	/* The input set, played on an ideal machine, against the traced run of its stub. */
	analyzer_options_default(&aopts);
	cr_assert_eq(compare_load(set, &aopts, &orig, &ok, &diag), DPS_OK, "%s", diag.msg);
	aopts.pid = read_recorded_pid(trace);
	cr_assert_eq(compare_load(trace, &aopts, &sim, &sk, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(ok, COMPARE_INPUT_ACTSET);
	cr_assert_eq(sk, COMPARE_INPUT_TRACE);
	cr_assert_eq(compare_run(orig, ok, set, sim, sk, trace, NULL, &res, &diag), DPS_OK, "%s",
		     diag.msg);

	/* Every thread of the set is found in the run, in its place in the creation tree. */
	RT_CHECK(why, res->n_matched == 3, "matched %zu threads, expected 3", res->n_matched);
	RT_CHECK(why, res->n_orig_only == 0, "%zu threads of the set are missing from the run",
		 res->n_orig_only);
	RT_CHECK(why, res->n_sim_only == 0, "%zu unexpected threads in the run", res->n_sim_only);
	/* Each thread burns at least the CPU time its runs ask for (cpu mode ends a run on the
	 * thread's CPU clock), and not much more: what the replay itself costs outside the runs
	 * (the thread's start and end, a join after the last run, the tracepoints), which grows
	 * with the machine's load (a busy core: 2.3 ms on the 8 ms root seen), so bounded in
	 * absolute terms too. The fidelity figures are bench/fidelity.sh's. */
	for (size_t r = 0; r < res->n_threads; r++) {
		const struct compare_value *cpu = &res->threads[r].m[COMPARE_M_CPU];

		if (!cpu->has[0] || !cpu->has[1]) {
			continue;
		}
		/* The root's runs absorb the process's start-up (its loading, the tracer's
		 * listener threads): inside its window it may burn less; the process does not. */
		if (!strcmp(res->threads[r].path, "0")) {
			RT_CHECK(why, (double)cpu->v[1] <= (double)cpu->v[0] * 1.15 + 5e6,
				 "root: %" PRId64 " ns of CPU for %" PRId64 " ns of runs",
				 cpu->v[1], cpu->v[0]);
			continue;
		}
		RT_CHECK(why, (double)cpu->v[1] >= (double)cpu->v[0] * 0.99,
			 "thread %s: %" PRId64 " ns of CPU for %" PRId64 " ns of runs",
			 res->threads[r].path, cpu->v[1], cpu->v[0]);
		RT_CHECK(why, (double)cpu->v[1] <= (double)cpu->v[0] * 1.15 + 5e6,
			 "thread %s: %" PRId64 " ns of CPU for %" PRId64 " ns of runs",
			 res->threads[r].path, cpu->v[1], cpu->v[0]);
	}
	/* Seen from outside (every thread of the stub process, exec to exit), the replay burns
	 * what the set's runs ask for and not much more: the start-up is compensated, what is
	 * left is the process's exit and the listeners' CPU after the root's last run (about
	 * 2 ms on an idle host: bench/fidelity.sh). Without the compensation it burns 7 ms more
	 * (its start-up, under a tracing session). */
	cr_assert(res->side[1].process_known, "no process figures for the stub run");
	RT_CHECK(why,
		 (double)res->side[1].process_cpu_ns >= (double)res->side[0].process_cpu_ns * 0.99,
		 "stub process: %" PRIu64 " ns of CPU for %" PRIu64 " ns of runs",
		 res->side[1].process_cpu_ns, res->side[0].process_cpu_ns);
#if !defined(__SANITIZE_ADDRESS__)
	/* (a busy core adds to it: 97.6 ms for these 78 ms seen beside a CPU hog; an ASan
	 * stub's own start-up is heavier still: 109 ms seen) */
	RT_CHECK(why,
		 (double)res->side[1].process_cpu_ns <=
		     (double)res->side[0].process_cpu_ns * 1.25 + 10e6,
		 "stub process: %" PRIu64 " ns of CPU for %" PRIu64 " ns of runs",
		 res->side[1].process_cpu_ns, res->side[0].process_cpu_ns);
#endif
	/* The replay keeps the set's order: the waits and sleeps make the ideal-machine
	 * makespan (60 ms) the shortest it can be, so a replay much faster than that skipped
	 * a dependency. How much longer it is depends on the machine's load (a busy core
	 * halves what the replay gets): a loose bound only, the fidelity figures are
	 * bench/fidelity.sh's. */
	RT_CHECK(why, res->makespan_err_pct >= -10.0,
		 "makespan error %.1f %%: shorter than the set's dependencies allow",
		 res->makespan_err_pct);
	RT_CHECK(why, res->makespan_err_pct <= 400.0, "makespan error %.1f %%",
		 res->makespan_err_pct);

	compare_result_destroy(res);
	analyzer_result_destroy(orig);
	analyzer_result_destroy(sim);
}

/*
 * The set's stub recorded and compared with the set. Its figures are a real traced run's on a
 * shared machine: two CI rehearsals failed one bound each (the stub process 108.4 ms of CPU
 * for 78 ms of runs, bound 107.5; a thread 39.2 ms for 40, bound 39.6), other bounds the next
 * time. A round trip is tried up to three times and holds when one try meets every bound; a
 * fault of dps's (a missed dependency, a lost thread, CPU its runs never asked for) fails
 * every try.
 */
Test(replay, action_set_round_trips_through_a_traced_run, .init = setup, .fini = teardown,
     .timeout = 600)
{
	const char *dps = dps_test_bin();
	const char *src = dps_test_source_dir();
	char set[4096], stub[4096], trace[4096];
	GString *why = g_string_new(NULL), *seen = g_string_new(NULL);

	require_root();
	snprintf(set, sizeof(set), "%s/tests/replay/data/roundtrip", src);
	snprintf(stub, sizeof(stub), "%s/stub", tmpdir);
	snprintf(trace, sizeof(trace), "%s/trace", tmpdir);
	cr_assert_eq(dps_test_sh("'%s' build '%s' -o '%s'", dps, set, stub), 0, "dps build failed");
	for (int attempt = 1; attempt <= 3; attempt++) {
		g_string_truncate(why, 0);
		round_trip(dps, set, stub, trace, why);
		if (!why->len) {
			break;
		}
		g_string_append_printf(seen, "\ntry %d:%s", attempt, why->str);
	}
	cr_expect(why->len == 0, "no round trip met every bound in three tries:%s", seen->str);
	g_string_free(why, TRUE);
	g_string_free(seen, TRUE);
}

Test(replay, replay_of_the_bundled_trace_writes_every_output, .init = setup, .fini = teardown,
     .timeout = 600)
{
	const char *dps = dps_test_bin();
	const char *src = dps_test_source_dir();
	const char *outputs[] = {
	    "set/manifest",	     "stub.c",	    "dps-stub",	    "calibration",
	    "sim-trace/record.info", "compare.txt", "compare.json", "report.html"};
	char out[4096], log[4096], cal[4096], path[8192];
	struct stat st;

	require_root();
	/* A nested output path whose parents do not exist yet (the README's out/demo). */
	snprintf(out, sizeof(out), "%s/out/demo", tmpdir);
	snprintf(log, sizeof(log), "%s/replay.log", tmpdir);
	snprintf(cal, sizeof(cal), "%s/cal", tmpdir);
	cr_assert_eq(dps_test_sh("'%s' calibrate --quick -o '%s' > /dev/null 2>&1", dps, cal), 0);
	cr_assert_eq(dps_test_sh("'%s' replay -q '%s/examples/traces/xz-T2' " QUICK_STUB
				 " --calibration '%s' -o '%s' > '%s' 2>&1",
				 dps, src, cal, out, log),
		     0, "dps replay failed; see its log");
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", out, outputs[i]);
		cr_expect_eq(stat(path, &st), 0, "dps replay did not write %s", path);
	}
	/* The table names the three xz threads as matched and says where the report is. */
	cr_expect_eq(
	    dps_test_sh("grep -q '3 matched, 0 only in orig, 0 only in sim' '%s/compare.txt'", out),
	    0, "compare.txt does not show 3 matched threads");
	cr_expect_eq(dps_test_sh("grep -q 'Report: %s/report.html' '%s'", out, log), 0,
		     "dps replay did not say where the report is");
	cr_expect_eq(
	    dps_test_sh(DPS_TEST_PYTHON " -m json.tool '%s/compare.json' > /dev/null", out), 0,
	    "compare.json is not valid JSON");
	/* The simulated run's load is read from its record.info (dps record writes one): it was
	 * once looked for where the trace would be after the replay, and never found. */
	cr_expect_eq(dps_test_sh("grep -q '\"sim\": {\"cpus\": ' '%s/compare.json'", out), 0,
		     "compare.json has no load for the simulated run");
	/* The outputs name what is there after the replay, relative to them: not its temporary
	 * directory. */
	cr_expect_eq(dps_test_sh("! grep -l '\\.tmp-' '%s/compare.json' '%s/compare.txt' "
				 "'%s/report.html' '%s/stub.c' '%s/sim-trace/record.info'",
				 out, out, out, out, out),
		     0, "an output names the replay's temporary directory");
	cr_expect_eq(dps_test_sh("grep -q '^sim : sim-trace ' '%s/compare.txt'", out), 0,
		     "the simulated trace is not named relative to the report");
}

/* --wait-quiet under a real load (a busy loop on every CPU): the wait runs out after its
 * SECONDS and says so, the stub is recorded under load, and the comparison says that once,
 * next to its headline, for the simulated run (issue 25: the replay's report once had no
 * under-load card and its JSON no load for the simulated run). */
Test(replay, wait_quiet_gives_up_under_load_and_the_comparison_says_so, .init = setup,
     .fini = teardown, .timeout = 600)
{
	const char *dps = dps_test_bin();
	const char *src = dps_test_source_dir();
	struct dps_test_hog hog;
	char out[4096], cal[4096], log[4096];
	gint64 t0;
	double took;
	int status;

	require_root();
	snprintf(cal, sizeof(cal), "%s/cal", tmpdir);
	snprintf(out, sizeof(out), "%s/loaded", tmpdir);
	snprintf(log, sizeof(log), "%s/loaded.log", tmpdir);
	cr_assert_eq(dps_test_sh("'%s' calibrate --quick -o '%s' > /dev/null 2>&1", dps, cal), 0);
	dps_test_hog_start(&hog);
	t0 = g_get_monotonic_time();
	status = dps_test_sh("'%s' replay -q '%s/examples/traces/xz-T2' " QUICK_STUB
			     " --calibration '%s' --wait-quiet=1 -o '%s' > '%s' 2>&1",
			     dps, src, cal, out, log);
	took = (double)(g_get_monotonic_time() - t0) / 1e6;
	dps_test_hog_stop(&hog);
	cr_assert_eq(status, 0, "dps replay failed; see %s", log);
	cr_expect_geq(took, 1.0, "the replay took %.2f s, less than its wait", took);
	cr_expect_eq(
	    dps_test_sh("grep -q 'dps replay: --wait-quiet: the machine did not get quiet in 1 s "
			".*recording the stub under load' '%s'",
			log),
	    0, "the replay did not say it could not wait");
	cr_expect_eq(dps_test_sh("! grep -q 'dps record: note' '%s'", log), 0,
		     "the load is said by the comparison, not again by dps record");
	cr_expect_eq(dps_test_sh("grep -q '\"under_load\": true, \"load\": {\"orig\": null, "
				 "\"sim\": {\"cpus\": ' '%s/compare.json'",
				 out),
		     0, "compare.json does not have the simulated run under load");
	cr_expect_eq(dps_test_sh("test \"$(grep -c 'UNDER LOAD' '%s/compare.txt')\" = 1 && "
				 "grep -q '^UNDER LOAD: the simulated run was recorded while other "
				 "processes used' '%s/compare.txt'",
				 out, out),
		     0, "compare.txt does not say the simulated run was under load, once");
	cr_expect_eq(dps_test_sh("test \"$(grep -c '<div class=\"card load\">' "
				 "'%s/report.html')\" = 1",
				 out),
		     0, "the report has not one under-load card");
}

/*
 * The steps' lines in stderr, "[k/n] what (X s)": n of them, in order, each X the step's own
 * duration (their sum within the command's wall time; the times since the start, which the
 * lines once gave, add up to several times it). *names gets the steps' names in order
 * (g_strfreev).
 */
static double sum_of_steps(const char *err, unsigned n, char ***names)
{
	GRegex *re =
	    g_regex_new("^\\[(\\d+)/(\\d+)\\] (.+) \\(([0-9.]+) s\\)$", G_REGEX_MULTILINE, 0, NULL);
	GMatchInfo *m = NULL;
	GPtrArray *seen = g_ptr_array_new();
	double sum = 0;
	unsigned k = 0;

	g_regex_match(re, err, 0, &m);
	while (g_match_info_matches(m)) {
		char *kk = g_match_info_fetch(m, 1), *nn = g_match_info_fetch(m, 2);
		char *x = g_match_info_fetch(m, 4);

		k++;
		cr_expect_eq(atoi(kk), (int)k, "step %s where %u was due:\n%s", kk, k, err);
		cr_expect_eq(atoi(nn), (int)n, "[%s/%s]: %u steps were due", kk, nn, n);
		g_ptr_array_add(seen, g_match_info_fetch(m, 3));
		sum += strtod(x, NULL);
		g_free(kk);
		g_free(nn);
		g_free(x);
		g_match_info_next(m, NULL);
	}
	g_match_info_free(m);
	g_regex_unref(re);
	cr_expect_eq(k, n, "%u step lines, %u due:\n%s", k, n, err);
	g_ptr_array_add(seen, NULL);
	*names = (char **)g_ptr_array_free(seen, FALSE);
	return sum;
}

/*
 * What dps replay says while it works (issue 25): one line per step with its own duration,
 * the analysis before the calibration (the trace's threads are checked first), no stub's own
 * per-thread table without --verbose, and the report's path as the last line of the output.
 */
Test(replay, each_step_says_its_own_duration_and_the_stubs_table_waits_for_verbose, .init = setup,
     .fini = teardown, .timeout = 600)
{
	static const char *const steps[] = {
	    "analyzing the original trace", "calibrating this machine",
	    "generating and building the stub", "running the stub under dps record",
	    "comparing the original and the simulated run"};
	char *trace = dps_test_strf("%s/examples/traces/xz-T2", dps_test_source_dir());
	char *out = dps_test_strf("%s/out", tmpdir), *cal = dps_test_strf("%s/cal", tmpdir);
	char *report = dps_test_strf("Report: %s/report.html\n", out), **names = NULL;
	struct dps_test_run run;
	gint64 t0;
	double wall, sum;

	require_root();
	t0 = g_get_monotonic_time();
	run = dps_test_run_dps("replay", trace, QUICK_STUB, "-o", out, NULL);
	wall = (double)(g_get_monotonic_time() - t0) / 1e6;
	cr_assert_eq(run.status, 0, "dps replay failed:\n%s", run.err);
	sum = sum_of_steps(run.err, 5, &names);
	for (size_t i = 0; names[i] && i < 5; i++) {
		cr_expect_str_eq(names[i], steps[i], "step %zu", i + 1);
	}
	cr_expect(sum <= wall + 0.1,
		  "the steps' durations add up to %.1f s in a %.1f s replay: "
		  "times since the start, not durations",
		  sum, wall);
	cr_expect_null(strstr(run.err, "run_req_ms"), "the stub's own table without --verbose:\n%s",
		       run.err);
	cr_expect(g_str_has_suffix(run.out, report), "the output does not end with '%s':\n%s",
		  report, run.out);
	dps_test_run_fini(&run);
	g_strfreev(names);
	/* with --verbose, the stub's table; a given calibration is no step */
	cr_assert_eq(dps_test_sh("cp '%s/calibration' '%s'", out, cal), 0);
	run = dps_test_run_dps("replay", trace, QUICK_STUB, "-o", out, "--calibration", cal,
			       "--verbose", NULL);
	cr_assert_eq(run.status, 0, "dps replay --verbose failed:\n%s", run.err);
	sum_of_steps(run.err, 4, &names);
	cr_expect(strstr(run.err, "run_req_ms"), "no stub's table with --verbose:\n%s", run.err);
	dps_test_run_fini(&run);
	g_strfreev(names);
	g_free(report);
	g_free(cal);
	g_free(out);
	g_free(trace);
}

Test(replay, replay_rejects_a_bad_selection_with_the_candidates, .init = setup, .fini = teardown)
{
	const char *dps = dps_test_bin();
	const char *src = dps_test_source_dir();
	char out[4096];

	snprintf(out, sizeof(out), "%s/out", tmpdir);
	/* No record.info in this trace and no selection: list the processes, exit 2. */
	cr_expect_eq(
	    dps_test_sh("'%s' replay '%s/tests/data/traces/tracefile-rotation-sched' -o '%s' "
			"> '%s.log' 2>&1",
			dps, src, out, out),
	    2);
	cr_expect_eq(dps_test_sh("grep -q 'git' '%s.log'", out), 0,
		     "the candidates were not listed");
	cr_expect_eq(
	    dps_test_sh("'%s' replay '%s/examples/traces/xz-T2' --comm no-such-process -o '%s' "
			"> /dev/null 2>&1",
			dps, src, out),
	    2);
	cr_expect_eq(dps_test_sh("'%s' replay > /dev/null 2>&1", dps), 2);
}

/* Every option is checked before any work: nothing is created for a bad --mode. */
Test(replay, a_bad_mode_is_refused_before_any_work, .init = setup, .fini = teardown)
{
	const char *dps = dps_test_bin();
	const char *src = dps_test_source_dir();
	struct stat st;
	char out[4096];

	snprintf(out, sizeof(out), "%s/out", tmpdir);
	cr_expect_eq(dps_test_sh("'%s' replay '%s/examples/traces/xz-T2' --mode bogus -o '%s' "
				 "> '%s.log' 2>&1",
				 dps, src, out, out),
		     2);
	cr_expect_eq(dps_test_sh("grep -q 'expected work, cpu or wall' '%s.log'", out), 0);
	cr_expect_neq(stat(out, &st), 0, "%s was created for a replay that could not start", out);
}

/* A directory that is not a replay's output is refused before any work, without --force. */
Test(replay, a_directory_that_is_not_a_replay_is_refused_before_any_work, .init = setup,
     .fini = teardown)
{
	const char *dps = dps_test_bin();
	const char *src = dps_test_source_dir();
	char out[4096];

	snprintf(out, sizeof(out), "%s/mine", tmpdir);
	cr_assert_eq(dps_test_sh("mkdir '%s' && echo mine > '%s/notes.txt'", out, out), 0);
	cr_expect_eq(
	    dps_test_sh("'%s' replay -q '%s/examples/traces/xz-T2' -o '%s' > '%s.log' 2>&1", dps,
			src, out, out),
	    2);
	cr_expect_eq(
	    dps_test_sh("grep -q -- '--force' '%s.log' && grep -q '%s' '%s.log'", out, out, out), 0,
	    "the refusal does not name the directory and --force");
	cr_expect_eq(dps_test_sh("test \"$(ls -A '%s')\" = notes.txt", out), 0, "%s was changed",
		     out);
	cr_expect_eq(dps_test_sh("test -z \"$(ls -A '%s' | grep '^\\.')\"", tmpdir), 0,
		     "a temporary was left in %s", tmpdir);
}

/* A what-if knob the stub would refuse fails the replay before the stub is built (it once
 * exited 0 with a 99 % fidelity error, then 1 after building and running the stub), and
 * --scale=2 reaches the stub as --scale 2 (it once passed the wrong argument). */
Test(replay, the_stub_gets_the_knobs_and_its_failure_fails_the_replay, .init = setup,
     .fini = teardown, .timeout = 600)
{
	const char *dps = dps_test_bin();
	const char *src = dps_test_source_dir();
	char out[4096], cal[4096];

	require_root();
	snprintf(cal, sizeof(cal), "%s/cal", tmpdir);
	cr_assert_eq(dps_test_sh("'%s' calibrate --quick -o '%s' > /dev/null 2>&1", dps, cal), 0);
	snprintf(out, sizeof(out), "%s/bad-knob", tmpdir);
	cr_expect_eq(
	    dps_test_sh("'%s' replay -q '%s/examples/traces/xz-T2' --thread-scale 99999=0.5 "
			"--calibration '%s' -o '%s' > '%s.log' 2>&1",
			dps, src, cal, out, out),
	    2);
	cr_expect_eq(dps_test_sh("grep -q 'no thread with id 99999' '%s.log'", out), 0);
	cr_expect_eq(
	    dps_test_sh("test ! -e '%s' && test -z \"$(ls -A '%s' | grep '^\\.')\"", out, tmpdir),
	    0, "a replay refused for its knob left %s or a temporary", out);
	snprintf(out, sizeof(out), "%s/scale", tmpdir);
	cr_expect_eq(dps_test_sh("'%s' replay -q '%s/examples/traces/xz-T2' " QUICK_STUB
				 " --calibration '%s' -o '%s' > '%s.log' 2>&1",
				 dps, src, cal, out, out),
		     0);
	cr_expect_eq(dps_test_sh("grep -q -- '--scale 0.25$' '%s/sim-trace/record.info'", out), 0,
		     "the stub did not get --scale 0.25");
	/* A second replay into the same OUTDIR replaces it whole: nothing of the first stays. */
	cr_expect_eq(dps_test_sh("touch '%s/stale' '%s/set/77777.act' && '%s' replay -q "
				 "'%s/examples/traces/xz-T2' " QUICK_STUB
				 " --calibration '%s' -o '%s' > '%s.log' 2>&1",
				 out, out, dps, src, cal, out, out),
		     0);
	cr_expect_eq(dps_test_sh("test ! -e '%s/stale' && test ! -e '%s/set/77777.act' && "
				 "test -f '%s/replay.info' && test -f '%s/report.html'",
				 out, out, out, out),
		     0, "the second replay did not replace %s whole", out);
	/* A stub that fails while it plays fails the replay: a cycle of waits and wakes, which
	 * validation cannot rule out and the player reports as a deadlock. (A stack curve deeper
	 * than a thread's stack once served; since issue 26 the player gives it the stack.) */
	snprintf(out, sizeof(out), "%s/deep-set", tmpdir);
	cr_assert_eq(mkdir(out, 0755), 0);
	cr_assert_eq(dps_test_sh("printf 'create 2\\nwait 2\\nwake 2\\njoin 2\\n' > '%s/1.act' && "
				 "printf 'wait 1\\nwake 1\\n' > '%s/2.act'",
				 out, out),
		     0);
	snprintf(out, sizeof(out), "%s/deep", tmpdir);
	cr_expect_eq(
	    dps_test_sh("'%s' replay -q '%s/examples/traces/xz-T2' --comm xz --set '%s-set' "
			"--calibration '%s' -o '%s' > '%s.log' 2>&1",
			dps, src, out, cal, out, out),
	    1);
	cr_expect_eq(dps_test_sh("grep -q 'the stub failed' '%s.log'", out), 0);
	/* A failed replay leaves OUTDIR as it was (here: absent) and says where its files are. */
	cr_expect_eq(
	    dps_test_sh("test ! -e '%s' && grep -q 'this run.s files are in .*/\\.deep\\.tmp-' "
			"'%s.log'",
			out, out),
	    0, "a failed replay changed %s or did not name its files", out);
}

/* The whole process's CPU of trace's recorded command, by the kernel's accounting. */
static uint64_t process_cpu_ns(const char *trace)
{
	struct analyzer_options aopts;
	struct analyzer_result *res = NULL;
	enum compare_input_kind kind;
	struct dps_diag diag = {{0}};
	uint64_t cpu;

	analyzer_options_default(&aopts);
	aopts.pid = read_recorded_pid(trace);
	cr_assert_eq(compare_load(trace, &aopts, &res, &kind, &diag), DPS_OK, "%s", diag.msg);
	cr_assert(res->process.known, "no process figures for %s", trace);
	cpu = res->process.cpu_ns;
	analyzer_result_destroy(res);
	return cpu;
}

/*
 * A stub with nothing to do costs, by the witness, about what any program that links
 * lttng-ust costs under the same tracing session (its loading, the listener threads'
 * registration): the floor a stub cannot go below. Measured on an idle host: 6.1 ms for the
 * stub, 7.1 ms for the floor (bench/results/fidelity.md); before the start-up work, 10.8 ms.
 * Loose here: both run on whatever the machine is doing.
 */
Test(replay, a_stub_that_does_nothing_costs_the_tracers_floor, .init = setup, .fini = teardown,
     .timeout = 300)
{
	const char *dps = dps_test_bin();
	char set[4096], stub[4096], trace[4096], src[4200], prog[4096], floor_trace[4096];
	char cal[4096];
	uint64_t stub_cpu, floor_cpu;
	FILE *f;

#if defined(__SANITIZE_ADDRESS__)
	/* an ASan stub starts ASan's runtime too (26.5 ms against 10.8 ms seen): not the floor
	 * this test is about */
	teardown();
	dps_test_skip_build("the start-up cost of an ASan build is not a stub's");
#endif
	require_root();
	/* with its calibration, as a replay runs it (without, it measures the machine first) */
	snprintf(cal, sizeof(cal), "%s/calibration", tmpdir);
	cr_assert_eq(dps_test_sh("'%s' calibrate -o '%s' >/dev/null", dps, cal), 0);
	snprintf(set, sizeof(set), "%s/empty", tmpdir);
	cr_assert_eq(mkdir(set, 0755), 0);
	snprintf(src, sizeof(src), "%s/1.act", set);
	f = fopen(src, "w");
	cr_assert(f);
	fputs("dps-actions 1\nsleep 1\n", f);
	fclose(f);
	snprintf(stub, sizeof(stub), "%s/stub", tmpdir);
	snprintf(trace, sizeof(trace), "%s/trace", tmpdir);
	cr_assert_eq(dps_test_sh("'%s' build '%s' -o '%s'", dps, set, stub), 0);
	cr_assert_eq(dps_test_sh("'%s' record -q -o '%s' -- '%s' --no-summary --calibration '%s'",
				 dps, trace, stub, cal),
		     0);

	snprintf(src, sizeof(src), "%s/ust-only.c", tmpdir);
	f = fopen(src, "w");
	cr_assert(f);
	fputs("int main(void) { return 0; }\n", f);
	fclose(f);
	snprintf(prog, sizeof(prog), "%s/ust-only", tmpdir);
	snprintf(floor_trace, sizeof(floor_trace), "%s/floor", tmpdir);
	cr_assert_eq(dps_test_sh("cc -O2 '%s' -o '%s' -Wl,--no-as-needed -llttng-ust", src, prog),
		     0);
	cr_assert_eq(dps_test_sh("'%s' record -q -o '%s' -- '%s'", dps, floor_trace, prog), 0);

	stub_cpu = process_cpu_ns(trace);
	floor_cpu = process_cpu_ns(floor_trace);
	if ((double)stub_cpu > 1.5 * (double)floor_cpu + 3e6) {
		/* once seen at 39 ms beside the suite's other tests (6 ms alone): a second
		 * recording tells a transient from a stub that costs more; the least counts */
		uint64_t again;

		cr_assert_eq(dps_test_sh("rm -rf '%s' && '%s' record -q -o '%s' -- '%s' "
					 "--no-summary --calibration '%s'",
					 trace, dps, trace, stub, cal),
			     0);
		again = process_cpu_ns(trace);
		stub_cpu = MIN(stub_cpu, again);
	}
	cr_expect_leq((double)stub_cpu, 1.5 * (double)floor_cpu + 3e6,
		      "a stub doing nothing: %" PRIu64 " ns of CPU; a program that only links "
		      "lttng-ust: %" PRIu64 " ns",
		      stub_cpu, floor_cpu);
}

/* A recording into a full file system: perf cannot write its data nor its log; the message
 * names the file system and ENOSPC instead of "(no message)" (issue 26). */
Test(replay, a_recording_on_a_full_disk_names_enospc, .init = setup, .fini = teardown,
     .timeout = 120)
{
	char *mnt, *out;
	struct dps_test_run r;

	require_root();
	mnt = dps_test_mount_tmpfs(64, true);
	out = g_build_filename(mnt, "rec", NULL);
	dps_test_fill_fs(mnt);
	r = dps_test_run_dps("record", "-q", "-o", out, "--", "true", NULL);
	cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
	cr_expect(strstr(r.err, "No space left on device"), "ENOSPC not named: %s", r.err);
	cr_expect(!strstr(r.err, "(no message)"), "%s", r.err);
	dps_test_run_fini(&r);
	dps_test_unmount(mnt);
	g_free(out);
	g_free(mnt);
}
