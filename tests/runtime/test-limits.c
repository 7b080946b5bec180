/* SPDX-License-Identifier: MIT */
/*
 * Scale limits (issue 16): a play of 100,000 threads that nobody joins used to stop at
 * vm.max_map_count (every ended thread's stack stayed mapped until the play ended); and when
 * a system limit does stop thread creation, the failure names the limit and where the
 * process stood.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "dps-test.h"

/* A set whose root creates n threads of one run each; joined at the end or never. */
static char *make_fan_out(const char *dir, unsigned n, bool join, const char *child_body)
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
		g_string_append_printf(root, "create %u\n", i);
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

Test(limits, a_hundred_thousand_unjoined_threads_play_to_the_end, .timeout = 600)
{
	/* 100,000 files: on tmpfs when there is one (this VM's disk takes minutes to create and
	 * unlink that many) */
	char *dir = g_strdup("/dev/shm/dps-test-limits-XXXXXX"), *set;
	long max_maps = -1;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	struct dps_test_run run;
	unsigned n = 100000;

	if (!g_mkdtemp(dir)) {
		g_free(dir);
		dir = dps_test_mkdtemp("limits");
	}
	if (f) {
		cr_assert_eq(fscanf(f, "%ld", &max_maps), 1);
		fclose(f);
	}
	/* the case only shows when the threads outnumber what the mappings allow at once */
	cr_assert(max_maps < 0 || (long)n * 2 > max_maps, "vm.max_map_count %ld", max_maps);
	set = make_fan_out(dir, n, false, "run 1\n");
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
		cr_skip_test("needs root to run as an unprivileged user under a process limit");
	}
	chmod(dir, 0755);
	/* 60 threads alive together (each sleeps until the root joins them) under a limit of 30
	 * processes for the user */
	set = make_fan_out(dir, 60, true, "sleep 300ms\n");
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
	cr_expect_not_null(strstr(run.err, "RLIMIT_NPROC 30"), "%s", run.err);
	cr_expect_not_null(strstr(run.err, "vm.max_map_count"), "%s", run.err);
	dps_test_run_fini(&run);
	g_free(set);
	dps_test_rmtree(dir);
	g_free(dir);
}
