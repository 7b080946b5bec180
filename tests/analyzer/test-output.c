/* SPDX-License-Identifier: MIT */
/*
 * dps analyze -o: the output directory holds the old set or the new one, never a mix
 * (doc/analyzer.md, "The output directory"). An existing set is replaced whole, another
 * non-empty directory is refused without --force, and neither SIGINT at any point nor a full
 * disk leaves a half-written set or a temporary behind.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "actset.h"
#include "dps-test.h"

/* pacman's process and its child processes: 27 threads, a quick analysis. */
#define SMALL_TRACE "pacman"
#define SMALL_SEL "--comm", "pacman", "--follow-children"
#define SMALL_THREADS 27
/* many-threads' process: 8001 threads, long enough to be interrupted while writing. */
#define BIG_TRACE "many-threads"
#define BIG_SEL "--pid", "2673"
#define BIG_THREADS 8001

static char *trace(const char *name)
{
	return g_build_filename(dps_test_data_dir(), "traces", name, NULL);
}

/* The set in dir: its thread count, or -1 when it does not load (the message is logged). */
static long load_threads(const char *dir)
{
	struct dps_actset *set = NULL;
	struct dps_diag diag = {{0}};
	long n;

	if (dps_actset_load_dir(dir, &set, &diag)) {
		cr_log_error("%s does not load: %s", dir, diag.msg);
		return -1;
	}
	n = (long)set->n_threads;
	dps_actset_destroy(set);
	return n;
}

/* dps analyze of pacman into out; fails the test unless it succeeds. */
static void analyze_small(const char *out)
{
	char *t = trace(SMALL_TRACE);
	struct dps_test_run run =
	    dps_test_run_dps("analyze", t, SMALL_SEL, "-q", "--no-progress", "-o", out, NULL);

	cr_assert_eq(run.status, 0, "dps analyze %s -o %s: %s", t, out, run.err);
	dps_test_run_fini(&run);
	g_free(t);
}

static void expect_no_temporaries(const char *dir)
{
	char *dots = dps_test_dot_files(dir);

	cr_expect_str_empty(dots, "temporaries left in %s: %s", dir, dots);
	g_free(dots);
}

Test(analyze_output, an_existing_set_is_replaced_whole)
{
	char *dir = dps_test_mkdtemp("analyze-out");
	char *out = g_build_filename(dir, "set", NULL);
	char *stale = g_build_filename(out, "77777.act", NULL);
	char *edited = g_build_filename(out, "9855.act", NULL);

	analyze_small(out);
	/* A file the new analysis does not write (once "several root threads") and an edit. */
	dps_test_write_file(stale, "run 5\n");
	dps_test_write_file(edited, "run 1\n");
	analyze_small(out);
	cr_expect(!g_file_test(stale, G_FILE_TEST_EXISTS), "%s survived the new analysis", stale);
	cr_expect_eq(load_threads(out), SMALL_THREADS);
	{
		char *text = dps_test_read_file(edited, NULL);

		cr_expect(text && strcmp(text, "run 1\n"), "the edited %s was kept", edited);
		g_free(text);
	}
	expect_no_temporaries(dir);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(out);
	g_free(stale);
	g_free(edited);
}

Test(analyze_output, a_directory_that_is_not_a_set_is_refused_without_force)
{
	char *dir = dps_test_mkdtemp("analyze-out");
	char *notes = g_build_filename(dir, "notes.txt", NULL);
	char *t = trace(SMALL_TRACE);
	struct dps_test_run run;

	dps_test_write_file(notes, "mine\n");
	run = dps_test_run_dps("analyze", t, SMALL_SEL, "-q", "--no-progress", "-o", dir, NULL);
	cr_expect_eq(run.status, 2, "exit %d: %s", run.status, run.err);
	cr_expect(strstr(run.err, dir) && strstr(run.err, "--force"), "%s", run.err);
	cr_expect(g_file_test(notes, G_FILE_TEST_EXISTS), "the refused directory was changed");
	dps_test_run_fini(&run);

	/* A missing parent is said before the analysis, as bad usage. */
	{
		char *orphan = g_build_filename(dir, "no-such-dir", "set", NULL);

		run = dps_test_run_dps("analyze", t, SMALL_SEL, "-q", "--no-progress", "-o", orphan,
				       NULL);
		cr_expect_eq(run.status, 2, "exit %d: %s", run.status, run.err);
		cr_expect(strstr(run.err, "no-such-dir"), "%s", run.err);
		dps_test_run_fini(&run);
		g_free(orphan);
	}
	/* A regular file in the way is refused too. */
	run = dps_test_run_dps("analyze", t, SMALL_SEL, "-q", "--no-progress", "-o", notes, NULL);
	cr_expect_eq(run.status, 2, "exit %d: %s", run.status, run.err);
	dps_test_run_fini(&run);

	run = dps_test_run_dps("analyze", t, SMALL_SEL, "-q", "--no-progress", "-o", dir, "--force",
			       NULL);
	cr_expect_eq(run.status, 0, "exit %d: %s", run.status, run.err);
	cr_expect(!g_file_test(notes, G_FILE_TEST_EXISTS), "--force kept %s", notes);
	cr_expect_eq(load_threads(dir), SMALL_THREADS);
	dps_test_run_fini(&run);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(notes);
	g_free(t);
}

/* Starts dps analyze of the big trace into out, its output thrown away. */
static pid_t start_big(const char *out)
{
	char *t = trace(BIG_TRACE);
	const char *argv[] = {dps_test_bin(),  "analyze", t,   BIG_SEL, "-q",
			      "--no-progress", "-o",	  out, NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int err;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	cr_assert_eq(err, 0, "cannot start %s: %s", argv[0], strerror(err));
	posix_spawn_file_actions_destroy(&fa);
	g_free(t);
	return pid;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * SIGINT at random points of an analysis that replaces a set: before the writing, while the
 * 8001 files are written, during the swap, after. Each time the directory must hold the old
 * set (26 threads) or the whole new one (8001), and no temporary. The points are spread over
 * three times the length of a run measured first, so on a loaded machine they still cover
 * the run; DPS_TEST_SEED replays a failing sequence.
 */
Test(analyze_output, sigint_at_random_points_leaves_the_old_set_or_the_new_one, .timeout = 900)
{
	char *dir = dps_test_mount_tmpfs(256 * 1024, false);
	char *out = g_build_filename(dir, "set", NULL);
	const char *seed_env = getenv("DPS_TEST_SEED");
	guint32 seed = seed_env ? (guint32)strtoul(seed_env, NULL, 10) : (guint32)time(NULL);
	GRand *rng = g_rand_new_with_seed(seed);
	int n_old = 0, n_new = 0, n_tries = 10, status;
	double t0, run_s;
	pid_t pid;

	cr_log_info("DPS_TEST_SEED=%u", seed);
	/* How long one whole replacement takes here. */
	analyze_small(out);
	t0 = now_s();
	pid = start_big(out);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	run_s = now_s() - t0;
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the uninterrupted run failed");
	cr_assert_eq(load_threads(out), BIG_THREADS);

	for (int i = 0; i < n_tries; i++) {
		double delay = g_rand_double_range(rng, 0, 1.5 * run_s);
		long n;

		analyze_small(out); /* the old set, every time */
		pid = start_big(out);
		g_usleep((gulong)(delay * 1e6));
		kill(pid, SIGINT);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_expect((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) ||
			      (WIFEXITED(status) && WEXITSTATUS(status) == 0),
			  "try %d (%.3f s): dps analyze ended with status 0x%x", i, delay, status);
		n = load_threads(out);
		cr_expect(
		    n == SMALL_THREADS || n == BIG_THREADS,
		    "try %d, SIGINT after %.3f s of %.3f: the set has %ld threads, neither the "
		    "old one (%d) nor the new one (%d)",
		    i, delay, run_s, n, SMALL_THREADS, BIG_THREADS);
		n_old += n == SMALL_THREADS;
		n_new += n == BIG_THREADS;
		expect_no_temporaries(dir);
	}
	cr_log_info("%d tries over %.3f s runs: %d left the old set, %d the new one", n_tries,
		    run_s, n_old, n_new);
	g_rand_free(rng);
	dps_test_unmount(dir);
	g_free(dir);
	g_free(out);
}

/* A disk that fills up while the set is written: exit 1 naming the set and errno, the old
 * set as it was, nothing left of the new one. */
Test(analyze_output, a_full_disk_keeps_the_old_set, .timeout = 300)
{
	/* Room for the 26 small files of the old set, not for the 8001 of the new one. */
	char *mnt = dps_test_mount_tmpfs(512, true);
	char *out = g_build_filename(mnt, "set", NULL);
	char *t = trace(BIG_TRACE);
	struct dps_test_run run;

	analyze_small(out);
	run = dps_test_run_dps("analyze", t, BIG_SEL, "-q", "--no-progress", "-o", out, NULL);
	cr_expect_eq(run.status, 1, "exit %d: %s", run.status, run.err);
	cr_expect(strstr(run.err, out), "the message does not name %s: %s", out, run.err);
	cr_expect(strstr(run.err, "errno=28"), "the message does not say ENOSPC: %s", run.err);
	cr_expect_eq(load_threads(out), SMALL_THREADS);
	expect_no_temporaries(mnt);
	dps_test_run_fini(&run);
	dps_test_unmount(mnt);
	g_free(mnt);
	g_free(out);
	g_free(t);
}
