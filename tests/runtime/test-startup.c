/* SPDX-License-Identifier: MIT */
/*
 * The stub's start-up compensation (doc/runtime.md, "The stub's start-up and exit"), seen by
 * a witness that does not ask dps: a hand-written set built with `dps build` and started by
 * hand, with cpu-witness.so preloaded, which reads the root thread's CPU clock when main is
 * called, when the play begins and when the stub leaves (cpu-witness.c).
 *
 * The recorded root's runs hold its program's start-up (exec, loading, constructors), so the
 * root must burn, from the exec to its end, what its runs ask for: its CPU before main plus
 * the CPU it played with. What dps does between main and the first action (the calibration
 * measured at start when there is no file, the set, the play's set-up) is dps's own and must
 * not come off the runs: a stub without a calibration file used to play only what was left
 * of its first run after the quick calibration. CPU clocks, not wall time: the bounds hold
 * with the other core busy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <glib.h>

#include "dps-test.h"

#define MS 1000000.0

static char *dir; /* g_free: the test's directory (dps_test_mkdtemp) */

static void make_dir(void)
{
	dir = dps_test_mkdtemp("startup");
	/* started by hand: no calibration but the one a test asks for, no exec mark */
	unsetenv("DPS_CALIBRATION");
	unsetenv("DPS_EXEC_AT");
}

static void remove_dir(void)
{
	dps_test_rmtree(dir);
	g_free(dir);
	dir = NULL;
}

TestSuite(startup, .init = make_dir, .fini = remove_dir, .timeout = 300);

/* What the witness saw, in ns of the root thread's CPU clock (0: not seen). */
struct witness {
	uint64_t main_ns, play_ns, exit_ns;
};

/* Builds dir/set (one thread, actions as given) into dir/stub with dps build. */
static void build_stub(const char *actions)
{
	char *set = dps_test_strf("%s/set", dir);
	char *act = dps_test_strf("%s/set/1.act", dir);
	char *stub = dps_test_strf("%s/stub", dir);
	struct dps_test_run r;

	cr_assert_eq(g_mkdir_with_parents(set, 0755), 0);
	dps_test_write_file(act, actions);
	r = dps_test_run_dps("build", set, "-o", stub, NULL);
	cr_assert_eq(r.status, 0, "dps build: %s", r.err);
	dps_test_run_fini(&r);
	g_free(set);
	g_free(act);
	g_free(stub);
}

/* Runs dir/stub with args (NULL-terminated, at most 3) under the witness; returns what it saw
 * and the stub's stderr in *err (g_free). */
static struct witness run_witnessed(char **err, const char *arg1, const char *arg2)
{
	char *stub = dps_test_strf("%s/stub", dir);
	char *out = dps_test_strf("%s/witness", dir);
	char *env_out = dps_test_strf("DPS_WITNESS_OUT=%s", out);
	char *env_preload = dps_test_strf("LD_PRELOAD=%s", DPS_CPU_WITNESS_PATH);
	/* an ASan stub refuses a library preloaded before its runtime unless told not to */
	char *env_asan = dps_test_strf("ASAN_OPTIONS=%s%sverify_asan_link_order=0",
				       getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
				       getenv("ASAN_OPTIONS") ? ":" : "");
	const char *argv[] = {stub, arg1, arg2, NULL};
	const char *env[] = {env_out, env_preload, env_asan, NULL};
	struct witness w = {0};
	struct dps_test_run r;
	char *text;

	dps_test_rmtree(out);
	r = dps_test_run(NULL, argv, env);
	cr_assert_eq(r.status, 0, "the stub failed: %s", r.err);
	text = dps_test_read_file(out, NULL);
	cr_assert_not_null(text, "the witness wrote nothing (was it preloaded?): %s", r.err);
	cr_assert_eq(sscanf(text,
			    "main_cpu_ns %" SCNu64 " play_cpu_ns %" SCNu64 " exit_cpu_ns %" SCNu64,
			    &w.main_ns, &w.play_ns, &w.exit_ns),
		     3, "%s", text);
	cr_assert(w.main_ns && w.play_ns && w.exit_ns,
		  "the witness missed a moment (main, the play's start, _exit): %s", text);
	cr_assert_leq(w.main_ns, w.play_ns, "%s", text);
	cr_assert_leq(w.play_ns, w.exit_ns, "%s", text);
	*err = r.err;
	r.err = NULL;
	dps_test_run_fini(&r);
	g_free(text);
	g_free(stub);
	g_free(out);
	g_free(env_out);
	g_free(env_preload);
	g_free(env_asan);
	return w;
}

/* The summary's start-up line: what it charged and what it did not, in ms; false without
 * the line. */
static bool read_summary(const char *err, double *charged_ms, double *setup_ms)
{
	const char *line = strstr(err, "start-up: thread 1: charged ");

	return line && sscanf(line,
			      "start-up: thread 1: charged %lf ms of CPU used before main "
			      "(exec, loading, constructors) to its runs; not charged: %lf ms",
			      charged_ms, setup_ms) == 2;
}

/*
 * The root's CPU from its start to its end, less dps's own set-up between main and the play:
 * what its runs asked for, 100 ms, within 5 %; the summary names what it charged (the CPU
 * before main) and what it did not (after), as the witness saw them. 100 ms, not 20: an ASan
 * stub under load spent 46 ms before main in CI (11 to 12 ms quiet), more than a 20 ms run
 * can absorb.
 */
static void check_played_run(const char *calibration)
{
	GString *seen = g_string_new(NULL);
	struct witness w = {0};
	double charged_ms, setup_ms, root_ms = 0;
	bool within = false;
	char *err = NULL;

	build_stub("run 100ms\n");
	/* up to three tries, as in the_witness_brackets_the_play: a CPU clock is only inflated
	 * by noise */
	for (int attempt = 0; attempt < 3 && !within; attempt++) {
		g_free(err);
		w = run_witnessed(&err, calibration ? "--calibration" : NULL, calibration);
		root_ms = (double)(w.main_ns + (w.exit_ns - w.play_ns)) / MS;
		within = root_ms >= 95.0 && root_ms <= 105.0;
		g_string_append_printf(seen, "%s%.3f", attempt ? ", " : "", root_ms);
	}
	cr_expect(within,
		  "the root burned %s ms for its 100 ms run in three tries; the last: %.3f ms "
		  "before main, %.3f ms of dps's set-up (not counted), %.3f ms played\n%s",
		  seen->str, (double)w.main_ns / MS, (double)(w.play_ns - w.main_ns) / MS,
		  (double)(w.exit_ns - w.play_ns) / MS, err);
	g_string_free(seen, TRUE);
	cr_assert(read_summary(err, &charged_ms, &setup_ms), "no start-up line: %s", err);
	/* dps reads its clock a few µs after the witness at main, and again at the play */
	cr_expect_lt(charged_ms - (double)w.main_ns / MS, 0.5, "charged %.3f ms, witness %.3f",
		     charged_ms, (double)w.main_ns / MS);
	cr_expect_gt(charged_ms - (double)w.main_ns / MS, -0.5, "charged %.3f ms, witness %.3f",
		     charged_ms, (double)w.main_ns / MS);
	cr_expect_lt(setup_ms - (double)(w.play_ns - w.main_ns) / MS, 0.5,
		     "set-up %.3f ms, witness %.3f", setup_ms,
		     (double)(w.play_ns - w.main_ns) / MS);
	cr_expect_gt(setup_ms - (double)(w.play_ns - w.main_ns) / MS, -0.5,
		     "set-up %.3f ms, witness %.3f", setup_ms,
		     (double)(w.play_ns - w.main_ns) / MS);
	g_free(err);
}

/* Issue 25: the quick calibration measured at start came off the first run (here 20 ms of
 * run played in 8 to 12, on the reporter's machine in 0.006). */
Test(startup, a_stub_without_calibration_file_plays_its_first_run)
{
	check_played_run(NULL);
}

Test(startup, a_stub_with_a_calibration_file_plays_its_first_run)
{
	char *cal = dps_test_strf("%s/machine.cal", dir);
	struct dps_test_run r = dps_test_run_dps("calibrate", "--quick", "-o", cal, NULL);

	cr_assert_eq(r.status, 0, "dps calibrate: %s", r.err);
	dps_test_run_fini(&r);
	check_played_run(cal);
	g_free(cal);
}

/* The witness itself: with --from-main nothing is charged, the play burns the whole run
 * between the moments it takes for the play's start and end, and the summary has no
 * start-up line. A CPU clock is only ever inflated by what the kernel does on the thread's
 * behalf (CI once saw 27.1 ms for the 20 ms run under a loaded machine, the stub's own clock
 * 20.05 ms of it in the run: page faults or reclaim after the play), so up to three tries
 * and one within bounds suffices; a tail of dps's own shows on every try. */
Test(startup, the_witness_brackets_the_play)
{
	GString *seen = g_string_new(NULL);
	bool within = false;
	char *err = NULL;

	build_stub("run 20ms\n");
	for (int attempt = 0; attempt < 3 && !within; attempt++) {
		struct witness w;
		double played_ms;

		g_free(err);
		w = run_witnessed(&err, "--from-main", NULL);
		played_ms = (double)(w.exit_ns - w.play_ns) / MS;
		within = played_ms >= 19.0 && played_ms <= 21.0;
		g_string_append_printf(seen, "%s%.3f", attempt ? ", " : "", played_ms);
		cr_expect_null(strstr(err, "start-up:"), "%s", err);
	}
	cr_expect(within, "played %s ms in three tries\n%s", seen->str, err);
	g_string_free(seen, TRUE);
	g_free(err);
}
