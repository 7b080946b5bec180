/* SPDX-License-Identifier: MIT */
/*
 * simgen: golden outputs, rejected sets, warning-free generated code, hostile names, and a
 * generated program built with dps build and run (its summary checked).
 *
 * The sets are in tests/simgen/data/sets/ (good) and data/bad/ (rejected); the golden files
 * are data/<set>.expect. Regenerate a golden file after an intended change with
 *	(cd tests/simgen/data && dps gen sets/NAME -o NAME.expect)
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "actset.h"
#include "dps-test.h"
#include "simgen.h"

static char *tmp_dir; /* g_free: the test's directory (dps_test_mkdtemp) */

static void make_tmp_dir(void)
{
	tmp_dir = dps_test_mkdtemp("simgen");
}

static void remove_tmp_dir(void)
{
	dps_test_rmtree(tmp_dir);
	g_free(tmp_dir);
	tmp_dir = NULL;
}

static const char *data_dir(void)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tests/simgen/data", dps_test_source_dir());
	return path;
}

static bool exists(const char *path)
{
	return g_file_test(path, G_FILE_TEST_EXISTS);
}

/* dps gen sets/<name> -o <tmp>/<name>.c run in the data dir (so the header names the set by
 * a path relative to it and the output does not depend on where the tree lives). */
static struct dps_test_run gen(const char *subdir, const char *name, char *out, size_t outlen)
{
	char set[256];

	snprintf(set, sizeof(set), "%s/%s", subdir, name);
	snprintf(out, outlen, "%s/%s.c", tmp_dir, name);
	char *const argv[] = {(char *)dps_test_bin(), (char *)"gen", set, (char *)"-o", out, NULL};

	return dps_test_run(data_dir(), (const char *const *)argv, NULL);
}

/* Compiles a generated file to an object with the project's warning set and -Werror. */
static struct dps_test_run compile_object(const char *src)
{
	char cmd[8192], inc[4200];

	snprintf(inc, sizeof(inc), "%s/runtime/include", dps_test_source_dir());
	snprintf(cmd, sizeof(cmd),
		 "%s -std=gnu11 -O2 -Wall -Wextra -Werror %s -I'%s' -c '%s' -o '%s.o'",
		 SIMGEN_TEST_CC, SIMGEN_TEST_WARNINGS, inc, src, src);
	char *const argv[] = {(char *)"sh", (char *)"-c", cmd, NULL};

	return dps_test_run(NULL, (const char *const *)argv, NULL);
}

TestSuite(simgen, .init = make_tmp_dir, .fini = remove_tmp_dir, .timeout = 120);

/* Parameters hold arrays, not pointers: Criterion runs each test in a fresh process. */
struct set_name {
	char name[32];
};

static struct set_name good_sets[] = {
    {"listing10"}, {"waitwake"}, {"memory"}, {"hostile"}, {"edge"}, {"cache"},
};

ParameterizedTestParameters(simgen, output_matches_its_golden_file)
{
	return cr_make_param_array(struct set_name, good_sets,
				   sizeof(good_sets) / sizeof(good_sets[0]));
}

ParameterizedTest(struct set_name *param, simgen, output_matches_its_golden_file)
{
	const char *const *name = (const char *const[]){param->name};
	char out[4200], expect[4200];
	struct dps_test_run r = gen("sets", *name, out, sizeof(out));
	char *got, *want;

	cr_assert_eq(r.status, 0, "dps gen %s failed: %s", *name, r.err);
	snprintf(expect, sizeof(expect), "%s/%s.expect", data_dir(), *name);
	got = dps_test_read_file(out, NULL);
	want = dps_test_read_file(expect, NULL);
	cr_assert_not_null(got);
	cr_assert_not_null(want, "missing golden file %s", expect);
	cr_expect_str_eq(got, want, "%s differs from %s", out, expect);
	g_free(got);
	g_free(want);
	dps_test_run_fini(&r);
}

ParameterizedTestParameters(simgen, generated_code_is_warning_free)
{
	return cr_make_param_array(struct set_name, good_sets,
				   sizeof(good_sets) / sizeof(good_sets[0]));
}

ParameterizedTest(struct set_name *param, simgen, generated_code_is_warning_free)
{
	const char *const *name = (const char *const[]){param->name};
	char out[4200];
	struct dps_test_run r = gen("sets", *name, out, sizeof(out));
	struct dps_test_run c;

	cr_assert_eq(r.status, 0, "dps gen %s failed: %s", *name, r.err);
	c = compile_object(out);
	cr_expect_eq(c.status, 0, "generated %s does not compile warning-free:\n%s", *name, c.err);
	cr_expect_str_empty(c.err, "compiler output for %s: %s", *name, c.err);
	dps_test_run_fini(&c);
	dps_test_run_fini(&r);
}

struct bad_case {
	char set[32];
	char diag[64]; /* expected in stderr */
};

ParameterizedTestParameters(simgen, bad_set_exits_2_and_writes_nothing)
{
	static struct bad_case cases[] = {
	    {"unknown-keyword", "unknown-keyword/1.act:2:1: expected an action"},
	    {"bad-number", "bad-number/1.act:2:7:"},
	    {"create-cycle", "create cycle"},
	    {"two-roots", "several root threads"},
	    {"missing-thread", "missing-thread/1.act:1:8:"},
	    {"bad-manifest", "bad-manifest/manifest:2:10:"},
	    {"self-join", "self-join/1.act:2:6:"},
	    {"join-cycle", "join-cycle/2.act:2:6: join of thread 3 that can never return"},
	    {"join-before-create", "join-before-create/1.act:2:6: join of thread 2 that can"},
	    {"stray-act", "stray-act/foo.act: an action file's name is its thread's id"},
	    {"thread-twice", "thread-twice/manifest:5:8: thread 2 described twice"},
	    {"bad-cache", "bad-cache/1.act:3:26: more LL misses than D1 misses"},
	    {"empty", "no thread"},
	    {"does-not-exist", "cannot open action-set directory"},
	};

	return cr_make_param_array(struct bad_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *bc, simgen, bad_set_exits_2_and_writes_nothing)
{
	char out[4200], keep[4200];
	struct dps_test_run r = gen("bad", bc->set, out, sizeof(out));
	DIR *d;
	struct dirent *de;
	char *kept;

	cr_expect_eq(r.status, 2, "dps gen %s: exit %d, expected 2", bc->set, r.status);
	cr_expect_not_null(strstr(r.err, bc->diag), "stderr lacks \"%s\": %s", bc->diag, r.err);
	cr_expect_not(exists(out), "%s was written for a bad set", out);
	dps_test_run_fini(&r);

	/* An existing output stays as it was, and no temporary file is left beside it. */
	snprintf(keep, sizeof(keep), "%s/%s.c", tmp_dir, bc->set);
	dps_test_write_file(keep, "previous\n");
	r = gen("bad", bc->set, out, sizeof(out));
	cr_expect_eq(r.status, 2);
	kept = dps_test_read_file(keep, NULL);
	cr_expect_str_eq(kept, "previous\n");
	g_free(kept);
	d = opendir(tmp_dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.') {
			cr_expect_str_eq(de->d_name, strrchr(keep, '/') + 1, "left behind: %s",
					 de->d_name);
		}
	}
	closedir(d);
	dps_test_run_fini(&r);
}

Test(simgen, usage_errors_exit_2)
{
	char *const no_output[] = {(char *)dps_test_bin(), (char *)"gen", (char *)"sets/listing10",
				   NULL};
	char *const no_set[] = {(char *)dps_test_bin(), (char *)"gen", (char *)"-o", (char *)"x.c",
				NULL};
	char *const bad_opt[] = {(char *)dps_test_bin(), (char *)"build", (char *)"--frobnicate",
				 (char *)"sets/listing10", NULL};
	struct dps_test_run r;

	r = dps_test_run(data_dir(), (const char *const *)no_output, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "missing -o"), "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run(data_dir(), (const char *const *)no_set, NULL);
	cr_expect_eq(r.status, 2);
	dps_test_run_fini(&r);
	r = dps_test_run(data_dir(), (const char *const *)bad_opt, NULL);
	cr_expect_eq(r.status, 2);
	dps_test_run_fini(&r);
}

Test(simgen, unwritable_output_fails_with_1)
{
	char *const argv[] = {(char *)dps_test_bin(),
			      (char *)"gen",
			      (char *)"sets/listing10",
			      (char *)"-o",
			      (char *)"/nonexistent-dir/prog.c",
			      NULL};
	struct dps_test_run r = dps_test_run(data_dir(), (const char *const *)argv, NULL);

	cr_expect_eq(r.status, 1);
	cr_expect_not_null(strstr(r.err, "/nonexistent-dir/prog.c"), "%s", r.err);
	dps_test_run_fini(&r);
}

/* A full disk: exit 1 naming the program and ENOSPC, the previous program kept, no temporary
 * left beside it. */
Test(simgen, a_full_disk_keeps_the_previous_program)
{
	char *mnt = dps_test_mount_tmpfs(64, true);
	char *prog = g_build_filename(mnt, "prog.c", NULL);
	const char *const argv[] = {dps_test_bin(), "gen", "sets/listing10", "-o", prog, NULL};
	struct dps_test_run r;
	char *text, *dots;

	dps_test_write_file(prog, "/* the previous program */\n");
	dps_test_fill_fs(mnt);
	r = dps_test_run(data_dir(), argv, NULL);
	cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
	cr_expect(strstr(r.err, prog) && strstr(r.err, "errno=28"), "%s", r.err);
	text = dps_test_read_file(prog, NULL);
	cr_expect(text && strstr(text, "the previous program"), "%s was changed", prog);
	dots = dps_test_dot_files(mnt);
	cr_expect_str_empty(dots, "temporaries left in %s: %s", mnt, dots);
	dps_test_run_fini(&r);
	g_free(text);
	g_free(dots);
	dps_test_unmount(mnt);
	g_free(mnt);
	g_free(prog);
}

Test(simgen, sanitizers_keep_only_the_safe_charset)
{
	char buf[64];

	cr_expect_str_eq(simgen_sanitize_name("xz", buf, 15), "xz");
	cr_expect_str_eq(simgen_sanitize_name("a\"b*/c\nd", buf, 15), "a_b__c_d");
	/* One '_' per UTF-8 sequence: "é" and U+202E (right-to-left override). */
	cr_expect_str_eq(simgen_sanitize_name("caf\xc3\xa9\xe2\x80\xae", buf, 15), "caf__");
	cr_expect_str_eq(simgen_sanitize_name("0123456789abcdefghij", buf, 15), "0123456789abcde");
	cr_expect_str_eq(simgen_sanitize_name("?\?/\\%s", buf, 15), "_____s");
	cr_expect_str_eq(simgen_sanitize_name(NULL, buf, 15), "");
	cr_expect_str_eq(simgen_sanitize_text("/a/b*/c", buf, 63), "/a/b_/c");
	cr_expect_str_eq(simgen_sanitize_text("/very/long/path", buf, 8), "/very...");
}

/* Counts occurrences of needle in hay. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
		n++;
	}
	return n;
}

Test(simgen, hostile_names_and_paths_cannot_escape)
{
	char set[4200], out[4200], cmd[16384];
	struct dps_test_run r, c;
	char *text;

	/* The set itself lives under a directory whose name closes a comment and a string. */
	snprintf(set, sizeof(set), "%s/evil*/ \"dir\\", tmp_dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s'/sets/hostile/* '%s'/", set, data_dir(),
		 set);
	char *const sh[] = {(char *)"sh", (char *)"-c", cmd, NULL};
	r = dps_test_run(NULL, (const char *const *)sh, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);

	snprintf(out, sizeof(out), "%s/hostile.c", tmp_dir);
	char *const argv[] = {(char *)dps_test_bin(), (char *)"gen", set, (char *)"-o", out, NULL};
	r = dps_test_run(NULL, (const char *const *)argv, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	text = dps_test_read_file(out, NULL);
	cr_assert_not_null(text);

	/* Every comment opened is closed exactly once, on its own terms. */
	cr_expect_eq(count(text, "/*"), count(text, "*/"), "comment markers unbalanced:\n%s", text);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		cr_assert(*p < 0x80, "non-ASCII byte in the generated code");
		cr_assert(*p != '\\', "backslash in the generated code");
	}
	cr_expect_not_null(strstr(text, "{1, \"a_b__c_d_e\", actions + 0, 5}"), "%s", text);
	cr_expect_not_null(strstr(text, "\"____x_s_q\""), "%s", text);
	cr_expect_not_null(strstr(text, "\"__RTL-override-\""), "%s", text);
	{
		char *source = dps_test_strf("source set:    %s/dps-test-simgen-", g_get_tmp_dir());

		cr_expect_not_null(strstr(text, source), "%s", text);
		g_free(source);
	}

	c = compile_object(out);
	cr_expect_eq(c.status, 0, "%s", c.err);
	dps_test_run_fini(&c);
	g_free(text);
	dps_test_run_fini(&r);
}

Test(simgen, unresolved_set_is_refused_by_the_library)
{
	struct dps_actset *set = dps_actset_create();
	struct dps_diag diag = {{0}};
	char path[4200];
	size_t t;

	cr_assert_not_null(set);
	t = dps_actset_add_thread(set, 1);
	cr_assert_neq(t, DPS_ACTSET_NO_THREAD);
	cr_assert_eq(dps_actset_append(set, t, DPS_ACT_RUN, 1000, 1), DPS_OK);
	snprintf(path, sizeof(path), "%s/unresolved.c", tmp_dir);
	cr_expect_eq(simgen_write_file(set, NULL, path, &diag), SIMGEN_ERR_INVAL);
	cr_expect_not(exists(path));
	cr_expect_not_null(strstr(diag.msg, "not resolved"), "%s", diag.msg);

	/* Resolved, the same in-memory set generates; the name defaults to dps-sim. */
	cr_assert_eq(dps_actset_resolve(set, &diag), DPS_OK, "%s", diag.msg);
	cr_expect_eq(simgen_write_file(set, NULL, path, &diag), SIMGEN_OK, "%s", diag.msg);
	char *text = dps_test_read_file(path, NULL);

	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, ".name = \"dps-sim\""));
	cr_expect_not_null(strstr(text, "(built in memory)"));
	g_free(text);
	dps_actset_destroy(set);
}

/* dps build, then the program run with the deterministic calibration. */
static char *build(const char *name, char *const *extra)
{
	static char prog[4200];
	char set[256];
	char *argv[16] = {(char *)dps_test_bin(), (char *)"build", set, (char *)"-o", prog};
	size_t n = 5;
	struct dps_test_run r;

	snprintf(set, sizeof(set), "sets/%s", name);
	snprintf(prog, sizeof(prog), "%s/%s", tmp_dir, name);
	for (size_t i = 0; extra && extra[i] && n < 15; i++) {
		argv[n++] = extra[i];
	}
	argv[n] = NULL;
	r = dps_test_run(data_dir(), (const char *const *)argv, NULL);
	cr_assert_eq(r.status, 0, "dps build %s failed (%d): %s", name, r.status, r.err);
	cr_assert(access(prog, X_OK) == 0, "%s is not executable", prog);
	dps_test_run_fini(&r);
	return prog;
}

Test(simgen, built_program_runs_and_prints_its_summary, .timeout = 300)
{
	char *prog = build("listing10", NULL);
	char *const argv[] = {prog, NULL};
	struct dps_test_run r =
	    dps_test_run(NULL, (const char *const *)argv,
			 (const char *const[]){"DPS_CALIBRATION=override", NULL});

	cr_expect_eq(r.status, 0, "program failed (%d): %s", r.status, r.err);
	/* The summary names every thread of the set. */
	cr_expect_not_null(strstr(r.err, "11986"), "summary: %s", r.err);
	cr_expect_not_null(strstr(r.err, "12004"), "summary: %s", r.err);
	cr_expect_not_null(strstr(r.err, "12005"), "summary: %s", r.err);
	dps_test_run_fini(&r);
}

static bool get_requested_ms(const char *summary, const char *id, double *run, double *sleep);

Test(simgen, built_program_takes_the_what_if_knobs, .timeout = 300)
{
	char src[4200];
	char *extra[] = {(char *)"--source", src, (char *)"--cflags", (char *)"-O1 -g", NULL};
	char *prog;

	snprintf(src, sizeof(src), "%s/kept.c", tmp_dir);
	prog = build("waitwake", extra);
	cr_expect(exists(src), "--source did not keep the generated C");

	char *const knobs[] = {prog,
			       (char *)"--mode",
			       (char *)"wall",
			       (char *)"--scale",
			       (char *)"0.5",
			       (char *)"--thread-scale",
			       (char *)"501=2",
			       (char *)"--thread-sleep-scale",
			       (char *)"501=0.5",
			       NULL};
	struct dps_test_run r =
	    dps_test_run(NULL, (const char *const *)knobs,
			 (const char *const[]){"DPS_CALIBRATION=override", NULL});
	double run, sleep;

	cr_expect_eq(r.status, 0, "program failed (%d): %s", r.status, r.err);
	/* 500: runs 200 + 150 + 250 us, x0.5; no sleep. */
	cr_assert(get_requested_ms(r.err, "500", &run, &sleep), "summary: %s", r.err);
	cr_expect_float_eq(run, 0.3, 0.0015, "500 run_req %.3f ms: %s", run, r.err);
	/* 501: runs 0.85 + 1.5 + 10 us, x0.5 x2; sleep 2 ms, x0.5 (sleeps are not --scale'd). */
	cr_assert(get_requested_ms(r.err, "501", &run, &sleep), "summary: %s", r.err);
	cr_expect_float_eq(run, 0.01235, 0.0015, "501 run_req %.3f ms: %s", run, r.err);
	cr_expect_float_eq(sleep, 1.0, 0.0015, "501 sleep_req %.3f ms: %s", sleep, r.err);
	dps_test_run_fini(&r);

	char *const help[] = {prog, (char *)"--help", NULL};
	r = dps_test_run(NULL, (const char *const *)help, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_not_null(strstr(r.out, "--thread-scale"), "help: %s%s", r.out, r.err);
	dps_test_run_fini(&r);

	char *const bad[] = {prog, (char *)"--mode", (char *)"warp", NULL};
	r = dps_test_run(NULL, (const char *const *)bad,
			 (const char *const[]){"DPS_CALIBRATION=override", NULL});
	cr_expect_eq(r.status, 2, "bad option: exit %d", r.status);
	dps_test_run_fini(&r);
}

Test(simgen, build_with_a_missing_compiler_fails_cleanly, .timeout = 120)
{
	char prog[4200];
	char *const argv[] = {(char *)dps_test_bin(),
			      (char *)"build",
			      (char *)"sets/memory",
			      (char *)"-o",
			      prog,
			      (char *)"--cc",
			      (char *)"/nonexistent/cc",
			      NULL};
	struct dps_test_run r;
	DIR *d;
	struct dirent *de;

	snprintf(prog, sizeof(prog), "%s/memory", tmp_dir);
	r = dps_test_run(data_dir(), (const char *const *)argv, NULL);
	cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.err, "/nonexistent/cc"), "%s", r.err);
	cr_expect_not(exists(prog));
	d = opendir(tmp_dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		cr_expect(de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")),
			  "left behind: %s", de->d_name);
	}
	closedir(d);
	dps_test_run_fini(&r);
}

Test(simgen, build_of_a_bad_set_exits_2, .timeout = 120)
{
	char prog[4200];
	char *const argv[] = {(char *)dps_test_bin(),
			      (char *)"build",
			      (char *)"bad/create-cycle",
			      (char *)"-o",
			      prog,
			      NULL};
	struct dps_test_run r;

	snprintf(prog, sizeof(prog), "%s/cycle", tmp_dir);
	r = dps_test_run(data_dir(), (const char *const *)argv, NULL);
	cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
	cr_expect_not(exists(prog));
	dps_test_run_fini(&r);
}

Test(simgen, output_to_a_device_is_written_through_not_replaced)
{
	char *const gen_null[] = {(char *)dps_test_bin(),   (char *)"gen",
				  (char *)"sets/listing10", (char *)"-o",
				  (char *)"/dev/null",	    NULL};
	char *const build_null[] = {(char *)dps_test_bin(),   (char *)"build",
				    (char *)"sets/listing10", (char *)"-o",
				    (char *)"/dev/null",      NULL};
	struct stat st;
	struct dps_test_run r;

	r = dps_test_run(data_dir(), (const char *const *)gen_null, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_expect(S_ISCHR(st.st_mode), "/dev/null was replaced");
	dps_test_run_fini(&r);

	r = dps_test_run(data_dir(), (const char *const *)build_null, NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_expect(S_ISCHR(st.st_mode), "/dev/null was replaced");
	dps_test_run_fini(&r);
}

/* 100,000 actions over 8 threads (the million-action figure is bench/simgen.sh's): the
 * tables stay valid C at scale and the comments keep up with the data. */
Test(simgen, a_large_set_generates_and_compiles, .timeout = 300)
{
	char set[4200], path[4300], out[4300];
	const size_t per_thread = 12500;
	struct dps_test_run r, c;
	char *text;

	snprintf(set, sizeof(set), "%s/large", tmp_dir);
	cr_assert_eq(mkdir(set, 0755), 0);
	for (unsigned t = 0; t < 8; t++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%u.act", set, 100 + t);
		f = fopen(path, "w");
		cr_assert_not_null(f);
		for (unsigned k = 1; t == 0 && k < 8; k++) {
			fprintf(f, "create %u\n", 100 + k);
		}
		for (size_t i = 0; i < per_thread; i++) {
			fprintf(f, i % 2 ? "sleep %zu.%03zu\n" : "run %zu.%03zu\n", i % 997 + 1,
				i % 1000);
		}
		for (unsigned k = 1; t == 0 && k < 8; k++) {
			fprintf(f, "join %u\n", 100 + k);
		}
		fclose(f);
	}
	snprintf(out, sizeof(out), "%s/large.c", tmp_dir);
	char *const argv[] = {(char *)dps_test_bin(), (char *)"gen", set, (char *)"-o", out, NULL};
	r = dps_test_run(NULL, (const char *const *)argv, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	text = dps_test_read_file(out, NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, " * actions:       100014\n"));
	/* Thread 100's first run (line 8 after 7 creates) and its second, a sleep of 2.001 us. */
	cr_expect_not_null(strstr(text, "\t{1000, 1, 8},           /* run 1 */\n"));
	cr_expect_not_null(strstr(text, "\t{2001, 2, 9},           /* sleep 2.001 */\n"));
	cr_expect_not_null(strstr(text, "\t{100, NULL, actions + 0, 12514},\n"));
	g_free(text);
	c = compile_object(out);
	cr_expect_eq(c.status, 0, "%s", c.err);
	dps_test_run_fini(&c);
	dps_test_run_fini(&r);
}

Test(simgen, check_validates_without_writing)
{
	char *const good[] = {(char *)dps_test_bin(), (char *)"gen", (char *)"sets/waitwake",
			      (char *)"--check", NULL};
	char *const bad[] = {(char *)dps_test_bin(), (char *)"gen", (char *)"bad/self-join",
			     (char *)"--check", NULL};
	struct dps_test_run r;

	r = dps_test_run(data_dir(), (const char *const *)good, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_empty(r.out);
	dps_test_run_fini(&r);
	r = dps_test_run(data_dir(), (const char *const *)bad, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "self-join/1.act:2:6:"), "%s", r.err);
	dps_test_run_fini(&r);
}

/* DPS_PKG_CONFIG_PATH names the libdps to use: a dps.pc written here, pointing at this build
 * tree, must be the one dps build reports and links; a directory without one is an error. */
Test(simgen, build_honours_dps_pkg_config_path, .timeout = 300)
{
	char pc[4300], env[4300], prog[4300];
	const char *src = dps_test_source_dir(), *bld = dps_test_build_dir();
	FILE *f;
	struct dps_test_run r;

	cr_assert_not_null(bld);
	snprintf(pc, sizeof(pc), "%s/dps.pc", tmp_dir);
	f = fopen(pc, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"Name: dps\nDescription: test copy\nVersion: 0\n"
		"Cflags: -I%s/runtime/include\n"
		"Libs: -L%s/runtime -Wl,-rpath,%s/runtime -ldps\n",
		src, bld, bld);
	fclose(f);
	snprintf(env, sizeof(env), "DPS_PKG_CONFIG_PATH=%s", tmp_dir);
	snprintf(prog, sizeof(prog), "%s/prog", tmp_dir);
	char *const argv[] = {(char *)dps_test_bin(),
			      (char *)"build",
			      (char *)"sets/listing10",
			      (char *)"-o",
			      prog,
			      (char *)"-v",
			      NULL};

	r = dps_test_run(data_dir(), (const char *const *)argv, (const char *const[]){env, NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "DPS_PKG_CONFIG_PATH"), "%s", r.err);
	cr_expect_not_null(strstr(r.err, " -ldps"), "%s", r.err);
	cr_expect(access(prog, X_OK) == 0);
	dps_test_run_fini(&r);

	char *const run_prog[] = {prog, (char *)"--no-summary", NULL};
	r = dps_test_run(NULL, (const char *const *)run_prog,
			 (const char *const[]){"DPS_CALIBRATION=override", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);

	unlink(prog);
	unlink(pc);
	r = dps_test_run(data_dir(), (const char *const *)argv, (const char *const[]){env, NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "no dps.pc in DPS_PKG_CONFIG_PATH"), "%s", r.err);
	cr_expect_not(exists(prog));
	dps_test_run_fini(&r);
}

/* The summary line of thread id: its requested run and sleep ms (columns from the end, as
 * the name column may be empty). Returns false if the thread is not in the summary. */
static bool get_requested_ms(const char *summary, const char *id, double *run, double *sleep)
{
	char line[512];

	for (const char *p = summary; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *tok[16], *save = NULL;
		int n = 0;

		if (strncmp(p, id, strlen(id)) != 0 || p[strlen(id)] != ' ' ||
		    len >= sizeof(line)) {
			continue;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		for (char *w = strtok_r(line, " ", &save); w && n < 16;
		     w = strtok_r(NULL, " ", &save)) {
			tok[n++] = w;
		}
		if (n < 8) {
			return false;
		}
		/* counted from the end (a name may hold blanks): ... run_req run_act sleep_req
		 * sleep_act actions own_ms taken_ms */
		*run = strtod(tok[n - 7], NULL);
		*sleep = strtod(tok[n - 5], NULL);
		return true;
	}
	return false;
}

/* The knobs reach the player through the generated main(): per-thread run and sleep factors
 * change only their thread's requested times, the global one every thread's runs. */
Test(simgen, what_if_knobs_scale_the_right_threads, .timeout = 300)
{
	char *prog = build("listing10", NULL);
	char *const knobs[] = {prog,
			       (char *)"--mode",
			       (char *)"wall",
			       (char *)"--scale",
			       (char *)"2",
			       (char *)"--thread-scale",
			       (char *)"12004=3",
			       (char *)"--thread-sleep-scale",
			       (char *)"12005=4",
			       NULL};
	struct dps_test_run r =
	    dps_test_run(NULL, (const char *const *)knobs,
			 (const char *const[]){"DPS_CALIBRATION=override", NULL});
	double run, sleep;

	cr_assert_eq(r.status, 0, "%s", r.err);
	/* 12004: runs 120 + 80 us, x2 x3; sleep 400 us untouched. */
	cr_assert(get_requested_ms(r.err, "12004", &run, &sleep), "%s", r.err);
	cr_expect_float_eq(run, 1.2, 0.0015, "12004 run_req %.3f ms: %s", run, r.err);
	cr_expect_float_eq(sleep, 0.4, 0.0015, "12004 sleep_req %.3f ms: %s", sleep, r.err);
	/* 12005: runs 300 + 50 us, x2; sleep 100 us x4. */
	cr_assert(get_requested_ms(r.err, "12005", &run, &sleep), "%s", r.err);
	cr_expect_float_eq(run, 0.7, 0.0015, "12005 run_req %.3f ms: %s", run, r.err);
	cr_expect_float_eq(sleep, 0.4, 0.0015, "12005 sleep_req %.3f ms: %s", sleep, r.err);
	dps_test_run_fini(&r);
}

/* The parser stops at +-(2^63-1) bytes, but a set built in memory can hold INT64_MIN, whose
 * decimal literal is not valid C: the generated code must still compile warning-free. */
Test(simgen, int64_min_argument_stays_valid_c)
{
	struct dps_actset *set = dps_actset_create();
	struct dps_diag diag = {{0}};
	char path[4200];
	struct dps_test_run c;
	size_t t;

	cr_assert_not_null(set);
	t = dps_actset_add_thread(set, 1);
	cr_assert_eq(dps_actset_append(set, t, DPS_ACT_HEAP, INT64_MIN, 1), DPS_OK);
	cr_assert_eq(dps_actset_resolve(set, &diag), DPS_OK, "%s", diag.msg);
	snprintf(path, sizeof(path), "%s/min.c", tmp_dir);
	cr_assert_eq(simgen_write_file(set, NULL, path, &diag), SIMGEN_OK, "%s", diag.msg);
	c = compile_object(path);
	cr_expect_eq(c.status, 0, "%s", c.err);
	dps_test_run_fini(&c);
	dps_actset_destroy(set);
}

Test(simgen, standard_output_gets_the_same_program)
{
	char expect[4200];
	char *const argv[] = {(char *)dps_test_bin(), (char *)"gen", (char *)"sets/waitwake",
			      (char *)"-o",	      (char *)"-",   NULL};
	struct dps_test_run r = dps_test_run(data_dir(), (const char *const *)argv, NULL);
	char *want;

	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(expect, sizeof(expect), "%s/waitwake.expect", data_dir());
	want = dps_test_read_file(expect, NULL);
	cr_assert_not_null(want);
	cr_expect_str_eq(r.out, want);
	g_free(want);
	dps_test_run_fini(&r);
}

/* Without -o the program is ./NAME, NAME being the set directory's (trailing '/' ignored). */
Test(simgen, build_without_output_names_the_program_after_the_set, .timeout = 300)
{
	char set[4200], prog[4300];
	char *const argv[] = {(char *)dps_test_bin(), (char *)"build", set, NULL};
	struct dps_test_run r;

	snprintf(set, sizeof(set), "%s/sets/memory/", data_dir());
	snprintf(prog, sizeof(prog), "%s/memory", tmp_dir);
	r = dps_test_run(tmp_dir, (const char *const *)argv, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(access(prog, X_OK) == 0, "no %s", prog);
	dps_test_run_fini(&r);
}

/* Big sets are compiled as parallel parts: the parts must build warning-free too, give the
 * same program, and leave nothing behind. -j forces the split on a small set. */
Test(simgen, parallel_parts_build_the_same_program, .timeout = 300)
{
	char flags[4096];
	char *extra[] = {(char *)"-j", (char *)"2", (char *)"--cflags", flags, (char *)"-v", NULL};
	char *prog;
	DIR *d;
	struct dirent *de;

	snprintf(flags, sizeof(flags), "-Wall -Wextra -Werror %s", SIMGEN_TEST_WARNINGS);
	prog = build("waitwake", extra);

	char *const argv[] = {prog, (char *)"--mode", (char *)"wall", NULL};
	struct dps_test_run r =
	    dps_test_run(NULL, (const char *const *)argv,
			 (const char *const[]){"DPS_CALIBRATION=override", NULL});
	double run, sleep;

	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_assert(get_requested_ms(r.err, "501", &run, &sleep), "%s", r.err);
	cr_expect_float_eq(sleep, 2.0, 0.0015, "501 sleep_req %.3f ms: %s", sleep, r.err);
	dps_test_run_fini(&r);

	d = opendir(tmp_dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		cr_expect(strncmp(de->d_name, ".dps-build-", 11) != 0, "left behind: %s",
			  de->d_name);
	}
	closedir(d);
}

/*
 * 2,000 threads doing the same thing (a recording of short tasks) are rows of one table, not
 * 2,000 equal tables: GCC's identical-code folding at -O2 compares equal tables pairwise, and
 * 20,000 of them took 47 s to compile against about 1 s as one table (bench/scale.sh).
 */
Test(simgen, many_equal_threads_are_rows_of_one_table, .timeout = 120)
{
	enum { N = 2000 };
	struct dps_actset *set = dps_actset_create();
	struct dps_diag diag = {{0}};
	struct dps_test_run c;
	char path[4300], row[64];
	char *text;

	cr_assert_not_null(set);
	for (size_t t = 0; t < N; t++) {
		size_t i = dps_actset_add_thread(set, 1 + t);

		for (size_t k = 1; t == 0 && k < N; k++) {
			cr_assert_eq(dps_actset_append(set, i, DPS_ACT_CREATE, (int64_t)(1 + k), 1),
				     DPS_OK);
			cr_assert_eq(dps_actset_append(set, i, DPS_ACT_JOIN, (int64_t)(1 + k), 2),
				     DPS_OK);
		}
		if (t) {
			cr_assert_eq(dps_actset_append(set, i, DPS_ACT_RUN, 10000, 1), DPS_OK);
			cr_assert_eq(dps_actset_append(set, i, DPS_ACT_SLEEP, 20000, 2), DPS_OK);
		}
	}
	cr_assert_eq(dps_actset_resolve(set, &diag), DPS_OK, "%s", diag.msg);
	snprintf(path, sizeof(path), "%s/many.c", tmp_dir);
	cr_assert_eq(simgen_write_file(set, NULL, path, &diag), SIMGEN_OK, "%s", diag.msg);
	text = dps_test_read_file(path, NULL);
	cr_assert_not_null(text);
	cr_expect_eq(count(text, "struct dps_action "), 1, "more than one action table");
	cr_expect_not_null(strstr(text, "static const struct dps_action actions[] = {\n"));
	/* the root's 2 x 1,999 rows first, then 2 rows per thread */
	cr_expect_not_null(strstr(text, "\t{1, NULL, actions + 0, 3998},\n"));
	cr_expect_not_null(strstr(text, "\t{2, NULL, actions + 3998, 2},\n"));
	snprintf(row, sizeof(row), "\t{%d, NULL, actions + %d, 2},\n", N, 3998 + 2 * (N - 2));
	cr_expect_not_null(strstr(text, row), "no %s", row);
	g_free(text);
	c = compile_object(path);
	cr_expect_eq(c.status, 0, "%s", c.err);
	dps_test_run_fini(&c);
	dps_actset_destroy(set);
}

Test(simgen, split_spreads_the_actions_over_the_parts)
{
	struct dps_actset *set = dps_actset_create();
	struct dps_diag diag = {{0}};
	/* Thread sizes 50, 40, 30, 20, 10 over 2 parts: largest first to the least loaded part
	 * gives 50+20+10 = 80 and 40+30 = 70. */
	static const size_t sizes[] = {50, 40, 30, 20, 10};
	char path[4300];
	char *part0, *part1, *main_c;

	cr_assert_not_null(set);
	for (size_t t = 0; t < 5; t++) {
		size_t i = dps_actset_add_thread(set, 10 + t);

		for (size_t k = 1; t == 0 && k < 5; k++) {
			int64_t child = (int64_t)(10 + k);

			cr_assert_eq(dps_actset_append(set, i, DPS_ACT_CREATE, child, 1), DPS_OK);
		}
		while (set->threads[i].n_actions < sizes[t]) {
			cr_assert_eq(dps_actset_append(set, i, DPS_ACT_RUN, 1000, 2), DPS_OK);
		}
	}
	cr_assert_eq(dps_actset_resolve(set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(simgen_write_split(set, NULL, tmp_dir, 2, &diag), SIMGEN_OK, "%s", diag.msg);

	snprintf(path, sizeof(path), "%s/part-0.c", tmp_dir);
	part0 = dps_test_read_file(path, NULL);
	snprintf(path, sizeof(path), "%s/part-1.c", tmp_dir);
	part1 = dps_test_read_file(path, NULL);
	snprintf(path, sizeof(path), "%s/program.c", tmp_dir);
	main_c = dps_test_read_file(path, NULL);
	cr_assert(part0 && part1 && main_c);
	/* one table per part, the threads in the set's order in it */
	cr_expect_not_null(strstr(part0, "const struct dps_action actions_part0[] = {"));
	cr_expect_not_null(strstr(part1, "const struct dps_action actions_part1[] = {"));
	cr_expect_null(strstr(part0, "actions_part1"));
	cr_expect_not_null(strstr(part0, "threads[0]: 10.act"));
	cr_expect_not_null(strstr(part0, "threads[3]: 13.act"));
	cr_expect_not_null(strstr(part0, "threads[4]: 14.act"));
	cr_expect_not_null(strstr(part1, "threads[1]: 11.act"));
	cr_expect_not_null(strstr(part1, "threads[2]: 12.act"));
	cr_expect_null(strstr(part0, "threads[1]: 11.act"));
	cr_expect_not_null(strstr(main_c, "extern const struct dps_action actions_part1[];"));
	cr_expect_not_null(strstr(main_c, "{10, NULL, actions_part0 + 0, 50},"));
	cr_expect_not_null(strstr(main_c, "{13, NULL, actions_part0 + 50, 20},"));
	cr_expect_not_null(strstr(main_c, "{14, NULL, actions_part0 + 70, 10},"));
	cr_expect_not_null(strstr(main_c, "{11, NULL, actions_part1 + 0, 40},"));
	cr_expect_not_null(strstr(main_c, "{12, NULL, actions_part1 + 40, 30},"));
	cr_expect_null(strstr(main_c, "{1000, 1, 2}"), "tables belong in the parts");
	g_free(part0);
	g_free(part1);
	g_free(main_c);
	dps_actset_destroy(set);
}

/* dps installed to a prefix (cmake --install) builds stubs that find the libdps installed
 * with it when they run: no LD_LIBRARY_PATH, no PKG_CONFIG_PATH (an rpath to PREFIX/lib). */
Test(simgen, an_installed_dps_builds_stubs_that_run_without_ld_library_path, .timeout = 300)
{
	const char *bld = dps_test_build_dir();

#ifdef DPS_TEST_SANITIZE
	dps_test_skip_build(
	    "the installed libdps is sanitized; its stubs need the sanitizer runtime");
#endif
	cr_assert_not_null(bld);
	cr_assert_eq(
	    dps_test_sh("cmake --install '%s' --prefix '%s/prefix' >/dev/null", bld, tmp_dir), 0,
	    "cmake --install failed");
	cr_assert_eq(dps_test_sh("cd '%s' && env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH "
				 "-u DPS_PKG_CONFIG_PATH '%s/prefix/bin/dps' build sets/listing10 "
				 "-o '%s/stub'",
				 data_dir(), tmp_dir, tmp_dir),
		     0, "the installed dps build failed");
	/* the stub runs, and with the installed libdps, not another one */
	cr_expect_eq(dps_test_sh("env -u LD_LIBRARY_PATH DPS_CALIBRATION=override '%s/stub' "
				 ">/dev/null",
				 tmp_dir),
		     0, "the stub does not run without LD_LIBRARY_PATH");
	cr_expect_eq(dps_test_sh("env -u LD_LIBRARY_PATH ldd '%s/stub' | grep -q "
				 "'libdps.so.0 => %s/prefix/lib/libdps.so.0'",
				 tmp_dir, tmp_dir),
		     0, "the stub does not load the installed libdps");
}

/* True when every word of the header line that starts with first_col, except the ones in
 * plain (ids, names, counts), ends with one of the units. */
static bool header_names_units(const char *text, const char *first_col, const char *const *plain,
			       char **bad)
{
	char **lines = g_strsplit(text, "\n", -1);
	bool found = false, ok = true;

	for (char **l = lines; *l && !found; l++) {
		char **w = g_strsplit_set(*l, " ", -1);

		if (w[0] && !strcmp(w[0], first_col)) {
			found = true;
			for (char **x = w; *x; x++) {
				bool is_plain = !**x || g_strv_contains(plain, *x);

				if (!is_plain && !g_str_has_suffix(*x, "_ms") &&
				    !g_str_has_suffix(*x, "_s") && !g_str_has_suffix(*x, "_ns")) {
					ok = false;
					*bad = g_strdup(*x);
				}
			}
		}
		g_strfreev(w);
	}
	g_strfreev(lines);
	return found && ok;
}

/* Durations carry their unit in every column name: the stub's table (dps run, dps replay)
 * and dps analyze's statistics and process list. */
Test(simgen, duration_columns_name_their_unit, .timeout = 300)
{
	static const char *const stub_plain[] = {"id", "name", "actions", NULL};
	static const char *const analyze_plain[] = {"id",     "tid",	"comm",	 "parent",
						    "runs",   "sleeps", "waits", "wakes",
						    "creats", "joins",	NULL};
	static const char *const list_plain[] = {"pid", "comm", "threads", NULL};
	char *prog = build("listing10", NULL), *bad = NULL;
	char *const argv[] = {prog, NULL};
	struct dps_test_run r =
	    dps_test_run(NULL, (const char *const *)argv,
			 (const char *const[]){"DPS_CALIBRATION=override", NULL});
	char *trace = dps_test_strf("%s/traces/record-live-prog", dps_test_data_dir());

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(header_names_units(r.err, "id", stub_plain, &bad), "stub column %s: %s", bad,
		  r.err);
	dps_test_run_fini(&r);
	g_free(bad);
	bad = NULL;
	r = dps_test_run(
	    NULL, (const char *const[]){dps_test_bin(), "analyze", trace, "--no-progress", NULL},
	    NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(header_names_units(r.out, "id", analyze_plain, &bad), "analyze column %s: %s",
		  bad, r.out);
	dps_test_run_fini(&r);
	g_free(bad);
	bad = NULL;
	r = dps_test_run(
	    NULL, (const char *const[]){dps_test_bin(), "analyze", trace, "--list", NULL}, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(header_names_units(r.out, "pid", list_plain, &bad), "--list column %s: %s", bad,
		  r.out);
	dps_test_run_fini(&r);
	g_free(bad);
	g_free(trace);
}
