/* SPDX-License-Identifier: MIT */
/*
 * Scale limits (issues 16 and 26): a play of more threads than vm.max_map_count allows stacks
 * for, that nobody joins, used to stop at that limit (every ended thread's stack stayed mapped
 * until the play ended), and so did one whose threads are joined late, long after they ended (a
 * recording of a program that starts short tasks and joins them at the end): a play holds what the
 * threads alive at once need, and `dps run` and a stub of 20,000 such threads stay small. When a
 * system limit does stop thread creation, the failure names the limit only if the set can have that
 * many threads alive at once.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "dps-test.h"

/* A set whose root creates n threads, each playing child_body, with between (NULL: nothing)
 * after each create; joined at the end or never. */
static char *make_fan_out(const char *dir, unsigned n, bool join, const char *child_body,
			  const char *between)
{
	GString *root = g_string_new("");
	char *set = dps_test_strf("%s/set", dir);

	cr_assert_eq(mkdir(set, 0755), 0);
	for (unsigned i = 2; i < n + 2; i++) {
		char *path = dps_test_strf("%s/%u.act", set, i);
		FILE *f = fopen(path, "w");

		cr_assert_not_null(f);
		fputs(child_body, f);
		fclose(f);
		g_free(path);
		g_string_append_printf(root, "create %u\n%s", i, between ? between : "");
	}
	for (unsigned i = 2; join && i < n + 2; i++) {
		g_string_append_printf(root, "join %u\n", i);
	}
	{
		char *path = dps_test_strf("%s/1.act", set);

		dps_test_write_file(path, root->str);
		g_free(path);
	}
	g_string_free(root, TRUE);
	return set;
}

/*
 * A directory for many files: in TMPDIR, which ctest puts on tmpfs (tests/CMakeLists.txt; this
 * VM's disk takes minutes to create and unlink 100,000 files). A failed assertion skips the
 * test's own removal: the fixture test_tmpdir removes the scratch space after the run (these
 * directories once stayed in /dev/shm, 400 MB of memory each).
 */
static char *make_many_files_dir(void)
{
	return dps_test_mkdtemp("limits");
}

/*
 * More threads than vm.max_map_count allows stacks for (two mappings each, its guard page and
 * itself), played without a join: 10 % more than that limit asks for (36,000 threads on a
 * default 65,530), 100,000 where the limit cannot be read. The case only shows when they
 * outnumber what the mappings allow at once; the count follows the machine's limit so that the
 * test costs what the case needs (100,000 threads took 11 s of CPU, 36,000 take a third).
 */
Test(limits, more_unjoined_threads_than_the_mappings_allow_play_to_the_end, .timeout = 600)
{
	/* the files in the tests' scratch space, on tmpfs (this VM's disk takes minutes to create
	 * and unlink tens of thousands) */
	char *dir = make_many_files_dir(), *set;
	long max_maps = -1;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	struct dps_test_run run;
	unsigned n = 100000;

	if (f) {
		cr_assert_eq(fscanf(f, "%ld", &max_maps), 1);
		fclose(f);
	}
	if (max_maps > 0 && max_maps < 2000000) {
		n = (unsigned)(max_maps / 2 + max_maps / 20);
	}
	cr_assert(max_maps < 0 || (long)n * 2 > max_maps, "vm.max_map_count %ld", max_maps);
	set = make_fan_out(dir, n, false, "run 1\n", NULL);
	run = dps_test_run_dps("run", set, "--no-summary", NULL);
	cr_expect_eq(run.status, 0, "dps run of %u unjoined threads: %s", n, run.err);
	dps_test_run_fini(&run);
	g_free(set);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(limits, a_thread_limit_that_stops_the_play_is_named, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("limits"), *set;
	struct dps_test_run run;

	if (geteuid() != 0) {
		dps_test_rmtree(dir);
		g_free(dir);
		dps_test_require(geteuid() == 0,
				 "needs root to run as an unprivileged user under a process limit");
	}
	chmod(dir, 0755);
	/* 60 threads alive together (each sleeps until the root joins them) under a limit of 30
	 * processes for the user */
	set = make_fan_out(dir, 60, true, "sleep 300ms\n", NULL);
	{
		const char *argv[] = {"prlimit",
				      "--nproc=30",
				      "setpriv",
				      "--reuid=65534",
				      "--regid=65534",
				      "--clear-groups",
				      dps_test_bin(),
				      "run",
				      set,
				      "--no-summary",
				      NULL};

		run = dps_test_run(NULL, argv, NULL);
	}
	cr_expect_eq(run.status, 1, "exit %d: %s", run.status, run.err);
	cr_expect_not_null(strstr(run.err, "could not be started"), "%s", run.err);
	/* the set can have its 61 threads alive at once: more than the limit, which is named;
	 * not the mappings, which 61 threads cannot exhaust */
	cr_expect_not_null(strstr(run.err, "the set has at most 61 alive at once"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "more than RLIMIT_NPROC 30"), "%s", run.err);
	cr_expect_null(strstr(run.err, "vm.max_map_count"), "%s", run.err);
	dps_test_run_fini(&run);
	g_free(set);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* Runs argv (stdout to /dev/null, stderr into the file err_path) with DPS_CALIBRATION=override
 * and waits for it: returns its exit status (-1: a signal), *maxrss_kib its peak resident set
 * (wait4's rusage of that child alone, whatever else the test ran). */
static int run_measured(const char *const *argv, const char *err_path, long *maxrss_kib)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru = {0};
	int status = 0;
	pid_t pid;

	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(posix_spawn_file_actions_init(&fa), 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ), 0,
		     "cannot start %s", argv[0]);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(wait4(pid, &status, 0, &ru), pid);
	*maxrss_kib = ru.ru_maxrss;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Plays set with `dps run` and with a stub `dps build` made of it; each must end with status 0
 * and, when the bounds are not 0, a peak resident set under them (KiB). A sanitized build only
 * checks that they play: its allocator and shadow memory say nothing of the player's.
 */
static void play_both(const char *dir, const char *set, long run_bound_kib, long stub_bound_kib)
{
	char *err_path = dps_test_strf("%s/stderr", dir), *stub = dps_test_strf("%s/stub", dir);
	const char *run_argv[] = {dps_test_bin(), "run", set, "--no-summary", NULL};
	const char *stub_argv[] = {stub, "--no-summary", NULL};
	struct dps_test_run build;
	long rss = 0;
	char *err;
	int status;

#ifdef DPS_TEST_SANITIZE
	run_bound_kib = stub_bound_kib = 0;
#endif
	status = run_measured(run_argv, err_path, &rss);
	err = dps_test_read_file(err_path, NULL);
	cr_expect_eq(status, 0, "dps run: exit %d: %s", status, err ? err : "");
	g_free(err);
	cr_expect(!run_bound_kib || rss < run_bound_kib, "dps run peaked at %ld KiB (bound %ld)",
		  rss, run_bound_kib);
	fprintf(stderr, "dps run of %s: peak %ld KiB\n", set, rss);

	build = dps_test_run_dps("build", set, "-o", stub, NULL);
	cr_assert_eq(build.status, 0, "dps build: %s", build.err);
	dps_test_run_fini(&build);
	status = run_measured(stub_argv, err_path, &rss);
	err = dps_test_read_file(err_path, NULL);
	cr_expect_eq(status, 0, "the stub: exit %d: %s", status, err ? err : "");
	g_free(err);
	cr_expect(!stub_bound_kib || rss < stub_bound_kib, "the stub peaked at %ld KiB (bound %ld)",
		  rss, stub_bound_kib);
	fprintf(stderr, "stub of %s: peak %ld KiB\n", set, rss);
	g_free(err_path);
	g_free(stub);
}

/*
 * 20,000 threads of tens of µs each, created one after the other and all joined at the end:
 * few are alive at once. They used to keep their stacks until the root's joins (dps run peaked
 * at 900 MB, the stub at 260 MB); the bounds leave room for a busy machine that keeps a few
 * thousand alive together.
 */
Test(limits, twenty_thousand_short_threads_joined_late_play_in_little_memory, .timeout = 600)
{
	char *dir = make_many_files_dir(), *set;

	set = make_fan_out(dir, 20000, true, "run 10\nsleep 20\nrun 10\n", "run 20\n");
	play_both(dir, set, 200 * 1024, 120 * 1024);
	g_free(set);
	dps_test_rmtree(dir);
	g_free(dir);
}

/* The same with 100,000 threads: more than vm.max_map_count allows alive (it stopped the play
 * when their stacks stayed until the joins), never alive together. */
Test(limits, a_hundred_thousand_short_threads_joined_late_play_to_the_end, .timeout = 800)
{
	char *dir = make_many_files_dir(), *set;

	set = make_fan_out(dir, 100000, true, "run 10\nsleep 20\nrun 10\n", "run 20\n");
	play_both(dir, set, 400 * 1024, 200 * 1024);
	g_free(set);
	dps_test_rmtree(dir);
	g_free(dir);
}
