/* SPDX-License-Identifier: MIT */
/* Calibration: defaults, the file's round trip, bad files with their file:line, env override. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <glib.h>

#include <dps/dps.h>

#include "dps-test.h"

static char *tmp_path; /* g_free: an empty file (dps_test_mkstemp) */

static void make_tmp(void)
{
	tmp_path = dps_test_mkstemp("cal");
}

static void remove_tmp(void)
{
	dps_test_rmtree(tmp_path);
	g_free(tmp_path);
	tmp_path = NULL;
}

Test(calibration, defaults_are_deterministic_and_marked_overridden)
{
	struct dps_calibration a, b;

	dps_calibration_default(&a);
	dps_calibration_default(&b);
	cr_assert(a.overridden);
	cr_assert_eq(a.format_version, DPS_CALIBRATION_FORMAT_VERSION);
	cr_assert_gt(a.work_loops_per_us, 0);
	cr_assert_gt(a.n_sleep_points, 1);
	cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0);
}

Test(calibration, overshoot_table_interpolates_and_clamps)
{
	struct dps_calibration c;

	memset(&c, 0, sizeof(c));
	cr_assert_float_eq(dps_calibration_sleep_overshoot_ns(&c, 1000), 0, 1e-9);
	c.n_sleep_points = 2;
	c.sleep_req_ns[0] = 1000;
	c.sleep_overshoot_ns[0] = 100;
	c.sleep_req_ns[1] = 3000;
	c.sleep_overshoot_ns[1] = 300;
	cr_assert_float_eq(dps_calibration_sleep_overshoot_ns(&c, 10), 100, 1e-9);
	cr_assert_float_eq(dps_calibration_sleep_overshoot_ns(&c, 2000), 200, 1e-9);
	cr_assert_float_eq(dps_calibration_sleep_overshoot_ns(&c, 1000000), 300, 1e-9);
}

Test(calibration, file_round_trip_keeps_every_value, .init = make_tmp, .fini = remove_tmp)
{
	struct dps_calibration a, b;
	char err[256];
	char *first, *again;

	dps_calibration_default(&a);
	snprintf(a.machine, sizeof(a.machine), "host \"quoted\" \\ back");
	a.work_loops_per_us = 1234.5;
	a.work_spread_pct = 0.25;
	a.clock_read_ns = 21.5;
	a.cputime_read_ns = 612.25;
	a.action_overhead_ns = 150.125;
	a.thread_create_ns = 25000;
	a.thread_join_ns = 8000;
	a.timer_slack_ns = 1;
	a.min_block_ns = 14000;
	a.overridden = false;
	a.action_cost_ns[DPS_COST_WAIT] = 4687.5;
	a.action_cost_traced_ns[DPS_COST_WAIT] = 8654.5;
	a.action_cost_ns[DPS_COST_ARRIVE] = 5438;	 /* traced: not measured */
	a.action_cost_traced_ns[DPS_COST_PUT] = 10753.5; /* untraced: not measured */
	cr_assert_eq(dps_calibration_save(&a, tmp_path, err, sizeof(err)), DPS_OK, "%s", err);
	first = dps_test_read_file(tmp_path, NULL);
	cr_assert_not_null(first);
	cr_assert_eq(dps_calibration_load(tmp_path, &b, err, sizeof(err)), DPS_OK, "%s", err);
	cr_assert_str_empty(err, "no key should be missing: %s", err);
	cr_assert_str_eq(b.machine, a.machine);
	cr_assert_float_eq(b.work_loops_per_us, a.work_loops_per_us, 1e-6);
	cr_assert_float_eq(b.work_spread_pct, a.work_spread_pct, 1e-6);
	cr_assert_float_eq(b.clock_read_ns, a.clock_read_ns, 1e-6);
	cr_assert_float_eq(b.cputime_read_ns, a.cputime_read_ns, 1e-6);
	cr_assert_float_eq(b.action_overhead_ns, a.action_overhead_ns, 1e-6);
	cr_assert_float_eq(b.thread_create_ns, a.thread_create_ns, 1e-6);
	cr_assert_float_eq(b.thread_join_ns, a.thread_join_ns, 1e-6);
	cr_assert_eq(b.timer_slack_ns, a.timer_slack_ns);
	cr_assert_eq(b.min_block_ns, a.min_block_ns);
	cr_assert_eq(b.n_sleep_points, a.n_sleep_points);
	for (size_t i = 0; i < a.n_sleep_points; i++) {
		cr_assert_eq(b.sleep_req_ns[i], a.sleep_req_ns[i]);
		cr_assert_float_eq(b.sleep_overshoot_ns[i], a.sleep_overshoot_ns[i], 1e-6);
	}
	for (unsigned k = 0; k < DPS_COST_N; k++) {
		cr_assert_float_eq(b.action_cost_ns[k], a.action_cost_ns[k], 0.05, "%s",
				   dps_action_cost_name(k));
		cr_assert_float_eq(b.action_cost_traced_ns[k], a.action_cost_traced_ns[k], 0.05,
				   "%s", dps_action_cost_name(k));
	}
	cr_assert_not_null(strstr(first, "cpu.action_cost_ns arrive 5438.0 -\n"), "%s", first);
	cr_assert_not_null(strstr(first, "cpu.action_cost_ns put - 10753.5\n"), "%s", first);
	cr_assert_null(strstr(first, "action_cost_ns sleep"), "unmeasured kinds are left out");
	/* the traced column when traced and measured, else the untraced one; a run's own */
	cr_assert_float_eq(dps_calibration_action_cost_ns(&b, DPS_ACT_WAIT_ANY, true), 8654.5,
			   1e-6);
	cr_assert_float_eq(dps_calibration_action_cost_ns(&b, DPS_ACT_WAIT, false), 4687.5, 1e-6);
	cr_assert_float_eq(dps_calibration_action_cost_ns(&b, DPS_ACT_ARRIVE, true), 5438, 1e-6);
	cr_assert_float_eq(dps_calibration_action_cost_ns(&b, DPS_ACT_RUN, true), 150.125, 1e-6);
	cr_assert_float_eq(dps_calibration_action_cost_ns(&b, DPS_ACT_HEAP, true), 0, 1e-6);
	cr_assert(b.overridden, "a loaded calibration is not a measurement");
	/* Saving what was loaded writes the same text. */
	cr_assert_eq(dps_calibration_save(&b, tmp_path, err, sizeof(err)), DPS_OK);
	again = dps_test_read_file(tmp_path, NULL);
	cr_assert_not_null(again);
	cr_assert_str_eq(again, first);
	g_free(again);
	g_free(first);
}

Test(calibration, missing_keys_load_with_defaults_and_are_reported, .init = make_tmp,
     .fini = remove_tmp)
{
	struct dps_calibration c, def;
	char err[512];

	dps_test_write_file(
	    tmp_path, "# only the loop rate\ndps-calibration 2\ncpu.work_loops_per_us 42.5\n");
	cr_assert_eq(dps_calibration_load(tmp_path, &c, err, sizeof(err)), DPS_OK);
	cr_assert_float_eq(c.work_loops_per_us, 42.5, 1e-9);
	dps_calibration_default(&def);
	cr_assert_float_eq(c.cputime_read_ns, def.cputime_read_ns, 1e-9);
	cr_assert_eq(c.n_sleep_points, def.n_sleep_points);
	cr_assert_not_null(strstr(err, "missing keys"), "%s", err);
	cr_assert_not_null(strstr(err, "cputime_read_ns"), "%s", err);
}

/* A file written before the action-cost table (issue 30) loads as it did: nothing missing is
 * reported for the table, and its costs read as not measured. */
Test(calibration, a_file_without_action_costs_stays_valid_and_quiet, .init = make_tmp,
     .fini = remove_tmp)
{
	struct dps_calibration a, b;
	char err[512];
	char *text, *cut;

	dps_calibration_default(&a);
	a.action_cost_ns[DPS_COST_WAKE] = 2113.5;
	cr_assert_eq(dps_calibration_save(&a, tmp_path, err, sizeof(err)), DPS_OK, "%s", err);
	text = dps_test_read_file(tmp_path, NULL);
	cut = strstr(text, "cpu.action_cost_ns");
	cr_assert_not_null(cut, "%s", text);
	*cut = '\0';
	dps_test_write_file(tmp_path, text);
	cr_assert_eq(dps_calibration_load(tmp_path, &b, err, sizeof(err)), DPS_OK, "%s", err);
	cr_assert_str_empty(err, "an older file is complete: %s", err);
	for (unsigned k = 0; k < DPS_COST_N; k++) {
		cr_assert_eq(b.action_cost_ns[k], 0);
		cr_assert_eq(b.action_cost_traced_ns[k], 0);
	}
	g_free(text);
}

Test(calibration, missing_file_is_noent)
{
	struct dps_calibration c;
	char err[256];

	cr_assert_eq(dps_calibration_load("/nonexistent/dps.cal", &c, err, sizeof(err)),
		     DPS_ERR_NOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/dps.cal"), "%s", err);
}

struct bad_cal {
	char text[256];
	char where[16]; /* ":LINE: " expected right after the path */
	char what[64];	/* a piece of the message */
};

ParameterizedTestParameters(calibration, bad_files_name_file_and_line)
{
	static struct bad_cal cases[] = {
	    {"", ":1: ", "empty file"},
	    {"\n# nothing\n", ":2: ", "empty file"},
	    {"cpu.work_loops_per_us 3\n", ":1: ", "header"},
	    {"dps-calibration 1\nwork_loops_per_us 3\n",
	     ":1: ", "format version 1, expected 2: run dps calibrate"},
	    {"format_version = 1\npage_size = 4096\n", ":1: ", "older \"key = value\" format"},
	    {"dps-calibration one\n", ":1: ", "format version number"},
	    {"dps-calibration 2\nwork_loops 3\n", ":2: ", "unknown key \"work_loops\""},
	    {"dps-calibration 2\n\ncpu.clock_read_ns -3\n", ":3: ", "non-negative number"},
	    {"dps-calibration 2\ncpu.clock_read_ns 3 4\n", ":2: ", "unexpected text \"4\""},
	    {"dps-calibration 2\ncpu.clock_read_ns nan\n", ":2: ", "non-negative number"},
	    {"dps-calibration 2\ncpu.clock_read_ns 12abc\n", ":2: ", "non-negative number"},
	    {"dps-calibration 2\ncpu.work_loops_per_us 0\n", ":2: ", "positive"},
	    {"dps-calibration 2\ncpu.clock_read_ns 3\ncpu.clock_read_ns 4\n", ":3: ", "twice"},
	    {"dps-calibration 2\ncpu.timer_slack_ns 0\n", ":2: ", "at least 1"},
	    {"dps-calibration 2\ncpu.min_block_ns 99999999999999999999\n", ":2: ", "below 2^64"},
	    {"dps-calibration 2\ncpu.sleep_overshoot_ns 2000 5\ncpu.sleep_overshoot_ns 1000 5\n",
	     ":3: ", "increasing"},
	    {"dps-calibration 2\ncpu.sleep_overshoot_ns 2000\n", ":2: ", "non-negative number"},
	    {"dps-calibration 2\nmachine \"unterminated\n", ":2: ", "closing quote"},
	    {"dps-calibration 2\nmachine bare\n", ":2: ", "double-quoted"},
	    {"dps-calibration 2\ncpu.action_cost_ns nap 3 4\n",
	     ":2: ", "unknown action kind \"nap\""},
	    {"dps-calibration 2\ncpu.action_cost_ns wait 3\n", ":2: ", "two costs"},
	    {"dps-calibration 2\ncpu.action_cost_ns wait 3 4 5\n", ":2: ", "two costs"},
	    {"dps-calibration 2\ncpu.action_cost_ns wait -3 4\n", ":2: ", "non-negative"},
	    {"dps-calibration 2\ncpu.action_cost_ns wait 3 x\n", ":2: ", "or \"-\""},
	    {"dps-calibration 2\ncpu.action_cost_ns wait 3 4\ncpu.action_cost_ns wait 3 4\n",
	     ":3: ", "wait given twice"},
	};

	return cr_make_param_array(struct bad_cal, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_cal *c, calibration, bad_files_name_file_and_line, .init = make_tmp,
		  .fini = remove_tmp)
{
	struct dps_calibration cal;
	char err[512];
	char expect[128];

	dps_test_write_file(tmp_path, c->text);
	cr_assert_eq(dps_calibration_load(tmp_path, &cal, err, sizeof(err)), DPS_ERR_INVAL,
		     "accepted: %s", c->text);
	snprintf(expect, sizeof(expect), "%s%s", tmp_path, c->where);
	cr_assert_eq(strncmp(err, expect, strlen(expect)), 0, "expected '%s...', got '%s'", expect,
		     err);
	cr_assert_not_null(strstr(err, c->what), "expected '%s' in '%s'", c->what, err);
}

Test(calibration, seventeen_sleep_points_are_too_many, .init = make_tmp, .fini = remove_tmp)
{
	char text[2048] = "dps-calibration 2\n";
	struct dps_calibration cal;
	char err[512];

	for (int i = 1; i <= DPS_SLEEP_OVERSHOOT_POINTS + 1; i++) {
		char line[64];

		snprintf(line, sizeof(line), "cpu.sleep_overshoot_ns %d 100\n", i * 1000);
		strcat(text, line);
	}
	dps_test_write_file(tmp_path, text);
	cr_assert_eq(dps_calibration_load(tmp_path, &cal, err, sizeof(err)), DPS_ERR_INVAL);
	cr_assert_not_null(strstr(err, ":18: "), "%s", err);
}

Test(calibration, env_override_gives_the_defaults)
{
	const struct dps_calibration *c;
	struct dps_calibration def;
	char err[256];

	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(dps_init(NULL, err, sizeof(err)), DPS_OK, "%s", err);
	c = dps_calibration_borrow();
	dps_calibration_default(&def);
	cr_assert_eq(memcmp(c, &def, sizeof(def)), 0);
	/* A second init is a no-op. */
	cr_assert_eq(dps_init(NULL, err, sizeof(err)), DPS_OK);
}

Test(calibration, env_path_is_loaded, .init = make_tmp, .fini = remove_tmp)
{
	char err[256];

	dps_test_write_file(tmp_path, "dps-calibration 2\ncpu.work_loops_per_us 77\n");
	setenv("DPS_CALIBRATION", tmp_path, 1);
	cr_assert_eq(dps_init(NULL, err, sizeof(err)), DPS_OK, "%s", err);
	cr_assert_float_eq(dps_calibration_borrow()->work_loops_per_us, 77, 1e-9);
}

Test(calibration, bad_env_file_fails_init_with_its_line, .init = make_tmp, .fini = remove_tmp)
{
	char err[256];

	dps_test_write_file(tmp_path, "dps-calibration 2\nbogus 1\n");
	setenv("DPS_CALIBRATION", tmp_path, 1);
	cr_assert_eq(dps_init(NULL, err, sizeof(err)), DPS_ERR_INVAL);
	cr_assert_not_null(strstr(err, ":2: unknown key"), "%s", err);
}

/* The rate describes this machine: 20 ms worth of loops costs about 20 ms of the thread's CPU.
 * CPU time does not count preemption, but a busy hyperthread sibling slows the loop itself (up
 * to 2x on this VM), and the load can change between the measurement and the work: the
 * attempt nearest to 20 ms of 3 is judged. It fails when the rate or the loop is wrong by 2x or
 * more. */
Test(calibration, measured_rate_gives_the_asked_cpu_time, .timeout = 60)
{
	double best = -1;
	double rate = 0;

	for (int i = 0; i < 3; i++) {
		struct dps_calibration c;
		struct timespec t0, t1;
		double cpu_ms;

		cr_assert_eq(dps_calibration_measure(&c, true), DPS_OK);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		dps_work_loops((uint64_t)(c.work_loops_per_us * 20000.0));
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		cpu_ms =
		    (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (best < 0 || fabs(log(cpu_ms / 20.0)) < fabs(log(best / 20.0))) {
			best = cpu_ms;
			rate = c.work_loops_per_us;
		}
	}
	cr_expect(best > 10.0 && best < 40.0,
		  "20 ms of work took %.2f ms of CPU at %.1f loops/us (the nearest of 3)", best,
		  rate);
}

Test(calibration, quick_measurement_is_plausible, .timeout = 60)
{
	struct dps_calibration c;

	cr_assert_eq(dps_calibration_measure(&c, true), DPS_OK);
	cr_assert(!c.overridden);
	cr_assert_gt(c.work_loops_per_us, 1.0);
	/* the rounds agreed (the quick criterion is 3 %; a busy machine may exhaust the
	 * rounds, never reach 100 %) */
	cr_assert(isfinite(c.work_spread_pct) && c.work_spread_pct >= 0 && c.work_spread_pct < 100,
		  "work_spread_pct %f", c.work_spread_pct);
	cr_assert_gt(c.clock_read_ns, 0);
	cr_assert_lt(c.clock_read_ns, 10000);
	cr_assert_gt(c.cputime_read_ns, 0);
	cr_assert_gt(c.thread_create_ns, 0);
	cr_assert_gt(c.thread_join_ns, 0);
	cr_assert_gt(c.action_overhead_ns, 0);
	cr_assert_eq(c.timer_slack_ns, 1);
	cr_assert_geq(c.n_sleep_points, 2);
	for (size_t i = 1; i < c.n_sleep_points; i++) {
		cr_assert_gt(c.sleep_req_ns[i], c.sleep_req_ns[i - 1]);
	}
	cr_assert_geq(c.min_block_ns, 10000);
	cr_assert_neq(c.machine[0], '\0');
}

Test(calibration, save_to_an_unwritable_place_is_an_io_error)
{
	struct dps_calibration c;
	char err[256] = "";

	dps_calibration_default(&c);
	cr_assert_eq(dps_calibration_save(&c, "/nonexistent/dir/x.cal", err, sizeof(err)),
		     DPS_ERR_IO);
	cr_assert_not_null(strstr(err, "/nonexistent/dir/x.cal"), "%s", err);
	cr_assert_eq(dps_calibration_save(&c, "/dev/full", err, sizeof(err)), DPS_ERR_IO,
		     "a full disk must not pass for a saved file");
}
