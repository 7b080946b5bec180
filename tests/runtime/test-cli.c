/* SPDX-License-Identifier: MIT */
/*
 * The real dps command ($DPS_BIN): `dps run` exit codes and messages on good and bad sets
 * (bad input: exit 2 with file:line:column, and nothing runs), `dps calibrate`, and a
 * hand-written stub built against the installed libdps with pkg-config; the knobs' parser and
 * formatter (<dps/knobs.h>) those messages come from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <glib.h>
#include <glib/gstdio.h>

#include <dps/dps.h>
#include <dps/knobs.h>

#include "dps-test.h"

static char *dir;		  /* g_free: the test's directory (dps_test_mkdtemp) */
static char *out_text, *err_text; /* g_free: the last kept run's stdout and stderr */

static void make_dir(void)
{
	dir = dps_test_mkdtemp("cli");
	setenv("DPS_CALIBRATION", "override", 1);
}

static void remove_dir(void)
{
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(out_text);
	g_free(err_text);
	dir = out_text = err_text = NULL;
}

TestSuite(cli, .init = make_dir, .fini = remove_dir, .timeout = 120);

/* Keeps a finished run's output in out_text and err_text for the checks; returns its exit
 * status (-1 after a signal). Used as keep(dps_test_run_dps(...)). */
static int keep(struct dps_test_run run)
{
	g_free(out_text);
	g_free(err_text);
	out_text = run.out;
	err_text = run.err;
	return run.status;
}

/* Writes dir/sub/name, making dir/sub. */
static void write_file(const char *sub, const char *name, const char *text)
{
	char *path = dps_test_strf("%s/%s", dir, sub);

	g_mkdir(path, 0755);
	g_free(path);
	path = dps_test_strf("%s/%s/%s", dir, sub, name);
	dps_test_write_file(path, text);
	g_free(path);
}

static char *set_path(const char *sub)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	return path;
}

/* Inline arrays, not pointers: Criterion runs each parameter in a fresh process image. */
struct bad_run {
	char files[3][2][64];
	char where[24]; /* "<file>:line:col: " after "<dir>/set/" */
};

ParameterizedTestParameters(cli, run_of_a_bad_set_exits_2_and_runs_nothing)
{
	static struct bad_run cases[] = {
	    {{{"1.act", "run 10\nfly 3\n"}}, "1.act:2:1: "},
	    {{{"1.act", "sleep -5\n"}}, "1.act:1:7: "},
	    {{{"1.act", "run 99999999999999999999\n"}}, "1.act:1:5: "},
	    {{{"1.act", "create 3\n"}}, "1.act:1:8: "},
	    {{{"1.act", "create 2\njoin 9\n"}, {"2.act", "run 1\n"}}, "1.act:2:6: "},
	    {{{"1.act", "create 2\ncreate 3\n"}, {"2.act", "run 1\n"}, {"3.act", "create 2\n"}},
	     "3.act:1:8: "},
	    {{{"1.act", "run 1\n"}, {"2.act", "create 3\n"}, {"3.act", "create 2\n"}},
	     "3.act:1:8: "},
	    {{{"1.act", "create 2\n"}, {"2.act", "create 1\n"}}, "2.act:1:8: "},
	    {{{"1.act", "run 1\n"}, {"2.act", "run 1\n"}}, "2.act:1:1: "},
	};

	return cr_make_param_array(struct bad_run, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_run *c, cli, run_of_a_bad_set_exits_2_and_runs_nothing)
{
	char expect[320];

	for (size_t i = 0; i < 3 && c->files[i][0][0]; i++) {
		write_file("set", c->files[i][0], c->files[i][1]);
	}
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), NULL)), 2, "stderr: %s",
		     err_text);
	snprintf(expect, sizeof(expect), "%s/%s", set_path("set"), c->where);
	cr_assert_eq(strncmp(err_text, expect, strlen(expect)), 0, "expected '%s...', got '%s'",
		     expect, err_text);
	cr_assert_null(strstr(err_text, "makespan"), "something ran: %s", err_text);
	cr_assert_str_empty(out_text);
}

Test(cli, run_of_a_good_set_plays_it)
{
	write_file("set", "1.act", "run 2000\ncreate 2\nsleep 5000\nwake 2\njoin 2\n");
	write_file("set", "2.act", "wait 1\nrun 3000\nsleep 1000\n");
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--mode", "wall", NULL)), 0,
		     "stderr: %s", err_text);
	cr_assert_not_null(strstr(err_text, "2 threads, makespan"), "%s", err_text);
}

Test(cli, run_options_are_checked)
{
	write_file("set", "1.act", "run 100\nsleep 100\n");
	cr_assert_eq(keep(dps_test_run_dps("run", NULL)), 2);
	cr_assert_eq(keep(dps_test_run_dps("run", "--help", NULL)), 0);
	cr_assert_not_null(strstr(out_text, "Usage: dps run DIR"));
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--mode", "fast", NULL)), 2);
	cr_assert_not_null(strstr(err_text, "work, cpu or wall"), "%s", err_text);
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--bogus", NULL)), 2);
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--scale", "-2", NULL)), 2);
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--thread-scale", "9=2", NULL)),
		     2);
	cr_assert_not_null(strstr(err_text, "no thread with id 9"), "%s", err_text);
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--thread-scale=1=0.5",
					   "--sleep-scale", "0", "--no-summary", NULL)),
		     0, "%s", err_text);
	cr_assert_null(strstr(err_text, "makespan"), "--no-summary printed one: %s", err_text);
	cr_assert_eq(keep(dps_test_run_dps("run", "/nonexistent/set", NULL)), 2);
	cr_assert_not_null(strstr(err_text, "/nonexistent/set"), "%s", err_text);
}

Test(cli, run_with_a_bad_calibration_file_exits_2_with_its_line)
{
	char cal[256];
	write_file("set", "1.act", "run 100\n");
	write_file("cal", "bad.cal", "dps-calibration 2\ncpu.work_loops_per_us fast\n");
	snprintf(cal, sizeof(cal), "%s/cal/bad.cal", dir);
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--calibration", cal, NULL)), 2);
	cr_assert_not_null(strstr(err_text, "bad.cal:2: "), "%s", err_text);
	cr_assert_null(strstr(err_text, "makespan"));
}

Test(cli, run_of_a_deadlocking_set_fails_instead_of_hanging)
{
	write_file("set", "1.act", "create 2\nwait 2\nwake 2\njoin 2\n");
	write_file("set", "2.act", "wait 1\nwake 1\n");
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), NULL)), 1);
	cr_assert_not_null(strstr(err_text, "deadlock"), "%s", err_text);
	/* no summary, which read as a finished play (the examples' tests once passed on it) */
	cr_assert_null(strstr(err_text, "makespan"), "%s", err_text);
}

/* Failures with a place (issue 26): a stack within the set's limit plays (it was capped: "number
 * out of range"), and a heap the machine cannot give names the thread, its file and line. */
Test(cli, run_failures_name_the_thread_file_and_line)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's allocator says "failed to allocate" on stderr for the heap below, and a
	 * sanitizer's word on stderr fails any test (tests/lib): the deep stack alone plays */
	write_file("set", "1.act", "create 2\nstack +16777216\nrun 10\nstack -16777216\njoin 2\n");
	write_file("set", "2.act", "run 10\n");
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--mode", "wall", NULL)), 0,
		     "%s", err_text);
	return;
#endif
	write_file("set", "1.act", "create 2\nstack +16777216\nrun 10\nstack -16777216\njoin 2\n");
	write_file("set", "2.act",
		   "run 10\n# the heap of 4 EiB no machine has\nheap +4611686018427387904\n");
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), "--mode", "wall", NULL)), 1,
		     "%s", err_text);
	cr_assert_null(strstr(err_text, "out of range"), "%s", err_text);
	cr_assert_not_null(strstr(err_text, "dps run: replay failed: out of memory: thread 2 "
					    "(2.act:3): heap +4611686018427387904: the machine "
					    "gave no memory for it"),
			   "%s", err_text);
}

/* Format version 2 (issue 13): a lock cycle is a run-time deadlock (exit 1) naming the threads
 * and the mutexes; a lock never unlocked is bad input (exit 2) at its file:line:column. */
Test(cli, run_of_a_lock_cycle_names_threads_and_mutexes)
{
	write_file("set", "manifest", "dps-manifest 2\nobject 1 mutex\nobject 2 mutex\n");
	write_file("set", "1.act",
		   "dps-actions 2\ncreate 2\nlock 1\nsleep 50ms\nlock 2\nunlock 2\nunlock 1\n"
		   "join 2\n");
	write_file("set", "2.act",
		   "dps-actions 2\nlock 2\nsleep 50ms\nlock 1\nunlock 1\nunlock 2\n");
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), NULL)), 1, "%s", err_text);
	cr_assert_not_null(strstr(err_text, "thread 1 locks mutex 2 held by thread 2"), "%s",
			   err_text);
	cr_assert_not_null(strstr(err_text, "thread 2 locks mutex 1 held by thread 1"), "%s",
			   err_text);
	write_file("set", "2.act", "dps-actions 2\nlock 2\nsleep 50ms\n");
	write_file("set", "1.act", "dps-actions 2\ncreate 2\njoin 2\n");
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), NULL)), 2, "%s", err_text);
	cr_assert_not_null(strstr(err_text, "/2.act:2:6: lock of mutex 2 never unlocked"), "%s",
			   err_text);
}

/* A version-2 set built into a program (simgen's tables: objects, members, the fourth number)
 * plays as dps run plays it. */
Test(cli, a_version_2_set_builds_and_plays, .timeout = 300)
{
	char *prog = dps_test_strf("%s/stub", dir);

	write_file("set", "manifest",
		   "dps-manifest 2\nobject 1 mutex\nobject 2 queue 1 0\nobject 3 barrier 2\n");
	write_file("set", "1.act",
		   "dps-actions 2\ncreate 2\ncreate 3\nput 2\nput 2\nlock 1\nunlock 1\n"
		   "arrive 3\nwait 2 timeout 10ms\nwait 2|3\njoin any 2|3\njoin any 3|2\n");
	write_file("set", "2.act", "dps-actions 2\ntake 2\ntake 2\nlock 1\nunlock 1\n");
	write_file("set", "3.act", "dps-actions 2\narrive 3\nwake 1\n");
	cr_assert_eq(keep(dps_test_run_dps("build", set_path("set"), "-o", prog, NULL)), 0, "%s",
		     err_text);
	cr_assert_eq(keep(dps_test_run_dps("run", set_path("set"), NULL)), 0, "%s", err_text);
	{
		const char *const argv[] = {prog, NULL};
		struct dps_test_run r = dps_test_run(NULL, argv, NULL);

		cr_assert_eq(r.status, 0, "%s", r.err);
		cr_assert_not_null(strstr(r.err, "3 threads"), "%s", r.err);
		dps_test_run_fini(&r);
	}
	g_free(prog);
}

Test(cli, calibrate_writes_a_loadable_file)
{
	char file[256];
	struct dps_calibration cal;
	char err[512];

	unsetenv("DPS_CALIBRATION");
	cr_assert_eq(keep(dps_test_run_dps("calibrate", "--quick", NULL)), 0, "%s", err_text);
	cr_assert_eq(strncmp(out_text, "# dps calibration", 17), 0, "%s", out_text);
	snprintf(file, sizeof(file), "%s/stdout.cal", dir);
	dps_test_write_file(file, out_text);
	cr_assert_eq(dps_calibration_load(file, &cal, err, sizeof(err)), DPS_OK, "%s", err);
	cr_assert_str_empty(err, "%s", err);
	cr_assert_gt(cal.work_loops_per_us, 0);

	snprintf(file, sizeof(file), "%s/file.cal", dir);
	cr_assert_eq(keep(dps_test_run_dps("calibrate", "--quick", "-o", file, NULL)), 0, "%s",
		     err_text);
	cr_assert_eq(dps_calibration_load(file, &cal, err, sizeof(err)), DPS_OK, "%s", err);
	cr_assert_eq(keep(dps_test_run_dps("calibrate", "--bogus", NULL)), 2);
}

Test(cli, hand_stub_builds_against_the_installed_libdps, .timeout = 300)
{
	char prefix[128], pc[160], cmd[4096];
	const char *build = dps_test_build_dir();
	const char *src = dps_test_source_dir();

#ifdef DPS_TEST_SANITIZE
	remove_dir(); /* a skipped test's .fini does not run */
	dps_test_skip_build("the installed libdps is sanitized; a plain cc stub cannot link it");
#endif
	cr_assert_not_null(build);
	cr_assert_not_null(src);
	snprintf(prefix, sizeof(prefix), "%s/prefix", dir);
	snprintf(pc, sizeof(pc), "%s/lib/pkgconfig", prefix);
	snprintf(
	    cmd, sizeof(cmd),
	    "cmake --install '%s' --prefix '%s' --component libdps >/dev/null "
	    "&& ls '%s'/include/dps/dps.h >/dev/null "
	    "&& PKG_CONFIG_PATH='%s' cc -std=gnu11 -Wall -Werror '%s/runtime/examples/hand-stub.c' "
	    "$(PKG_CONFIG_PATH='%s' pkg-config --cflags --libs dps) -o '%s/hand-stub' "
	    "&& LD_LIBRARY_PATH='%s/lib' DPS_CALIBRATION=override '%s/hand-stub' 1000 200",
	    build, prefix, prefix, pc, src, pc, dir, prefix, dir);
	cr_assert_eq(dps_test_sh("%s", cmd), 0, "failed: %s", cmd);
	/* dps.h's usage example, cut from the installed header, builds and runs as written. */
	snprintf(cmd, sizeof(cmd),
		 "sed -n '/BEGIN EXAMPLE/,/END EXAMPLE/p' '%s/include/dps/dps.h' | sed '1d;$d' "
		 "| sed 's/^ \\*\t\\{0,1\\}//' > '%s/example.c' "
		 "&& grep -q dps_init '%s/example.c' "
		 "&& PKG_CONFIG_PATH='%s' cc -std=gnu11 -Wall -Werror '%s/example.c' "
		 "$(PKG_CONFIG_PATH='%s' pkg-config --cflags --libs dps) -o '%s/example' "
		 "&& LD_LIBRARY_PATH='%s/lib' DPS_CALIBRATION=override '%s/example'",
		 prefix, dir, dir, pc, dir, pc, dir, prefix, dir);
	cr_assert_eq(dps_test_sh("%s", cmd), 0, "failed: %s", cmd);
}

static const struct dps_thread_desc knobs_threads[] = {{.id = 7}, {.id = 9}};
static const struct dps_program knobs_prog = {.threads = knobs_threads, .n_threads = 2};

/* The knobs' one parser and formatter (knobs.def): what is formatted parses back the same, in
 * the table's order; a bad value names the option and what it expected; a thread is checked
 * against the program. */
Test(cli, knobs_parse_format_and_check)
{
	const char *in[][2] = {{"--thread-scale", "9=0.1"}, {"scale", "2.5"},
			       {"--thread-idle", "7"},	    {"--heap-mode", "alloc"},
			       {"--no-summary", NULL},	    {"--calibration", "/x.cal"}};
	const char *want[] = {"--calibration",	"/x.cal", "--scale",	  "2.5",
			      "--thread-scale", "9=0.1",  "--heap-mode",  "alloc",
			      "--thread-idle",	"7",	  "--no-summary", NULL};
	struct dps_knobs k, back;
	char err[256];
	char **argv;
	size_t n = 0;

	dps_knobs_default(&k);
	cr_assert_eq(k.mode, DPS_RUN_CPU);
	cr_assert_float_eq(k.scale, 1.0, 0);
	cr_assert_eq(k.given, 0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		cr_assert_eq(dps_knobs_parse(&k, in[i][0], in[i][1], err, sizeof(err)), DPS_OK,
			     "%s", err);
	}
	argv = dps_knobs_to_argv(&k, 0, &n);
	cr_assert_not_null(argv);
	cr_assert_eq(n, sizeof(want) / sizeof(want[0]) - 1);
	for (size_t i = 0; i < n; i++) {
		cr_expect_str_eq(argv[i], want[i]);
	}
	dps_knobs_default(&back);
	for (size_t i = 0; i < n; i++) {
		const char *name = argv[i];
		int id = dps_knobs_find(name);
		const char *value = NULL;

		cr_assert_geq(id, 0);
		if (dps_knobs_table[id].shape != DPS_KNOB_SHAPE_FLAG) {
			value = argv[++i];
		}
		cr_assert_eq(dps_knobs_parse(&back, name, value, err, sizeof(err)), DPS_OK, "%s",
			     err);
	}
	cr_expect_eq(back.given, k.given);
	cr_expect_eq(back.thread_scale.v[0].x, 0.1, "a scale reads back the same double");
	dps_knobs_argv_free(argv);
	/* only the what-if knobs dps replay passes on */
	argv = dps_knobs_to_argv(&k, DPS_KNOB_REPLAY | DPS_KNOB_WHATIF, &n);
	cr_expect_eq(n, 6);
	dps_knobs_argv_free(argv);
	cr_expect_eq(dps_knobs_check(&k, &knobs_prog, err, sizeof(err)), DPS_OK, "%s", err);
	cr_expect_eq(dps_knobs_parse(&k, "--thread-sleep-scale", "8=1", err, sizeof(err)), DPS_OK);
	cr_expect_eq(dps_knobs_check(&k, &knobs_prog, err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect_str_eq(err, "--thread-sleep-scale: no thread with id 8 in this program");
	cr_expect_eq(dps_knobs_parse(&k, "--scale", "-1", err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect_str_eq(err, "--scale: expected a non-negative number, got '-1'");
	cr_expect_float_eq(k.scale, 2.5, 0, "unchanged by a bad value");
	cr_expect_eq(dps_knobs_parse(&k, "--thread-scale", "x=1", err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect_str_eq(err, "--thread-scale: expected ID=X, got 'x=1'");
	cr_expect_eq(dps_knobs_parse(&k, "--thread-idle", "9=1", err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect_str_eq(err, "--thread-idle: expected a thread ID, got '9=1'");
	cr_expect_eq(dps_knobs_parse(&k, "--mode", "fast", err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect_str_eq(err, "--mode: expected work, cpu or wall, got 'fast'");
	cr_expect_eq(dps_knobs_parse(&k, "--mode", NULL, err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect_str_eq(err, "--mode needs a value");
	cr_expect_eq(dps_knobs_parse(&k, "--quiet", "yes", err, sizeof(err)), DPS_ERR_INVAL);
	cr_expect_eq(dps_knobs_parse(&k, "--bogus", "1", err, sizeof(err)), DPS_ERR_NOENT);
	cr_expect_str_eq(err, "unknown option '--bogus'");
	dps_knobs_fini(&k);
	dps_knobs_fini(&back);
	cr_expect_eq(k.given, 0);
}
