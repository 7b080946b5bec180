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
#include "analyzer.h"
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
	char *old = g_build_filename(dir, "old", NULL);
	const char *seed_env = getenv("DPS_TEST_SEED");
	guint32 seed = seed_env ? (guint32)strtoul(seed_env, NULL, 10) : (guint32)time(NULL);
	GRand *rng = g_rand_new_with_seed(seed);
	int n_old = 0, n_new = 0, n_tries = 10, status;
	double t0, run_s;
	pid_t pid;

	cr_log_info("DPS_TEST_SEED=%u", seed);
	/* The old set, written once by dps analyze (0.6 s) and copied back before each try. */
	analyze_small(old);
	cr_assert_eq(load_threads(old), SMALL_THREADS);
	/* How long one whole replacement takes here. */
	cr_assert_eq(dps_test_sh("cp -r '%s' '%s'", old, out), 0);
	t0 = now_s();
	pid = start_big(out);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	run_s = now_s() - t0;
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the uninterrupted run failed");
	cr_assert_eq(load_threads(out), BIG_THREADS);

	for (int i = 0; i < n_tries; i++) {
		double delay = g_rand_double_range(rng, 0, 1.5 * run_s);
		long n;

		/* the old set, every time */
		cr_assert_eq(dps_test_sh("rm -rf '%s' && cp -r '%s' '%s'", out, old, out), 0);
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
	g_free(old);
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

/*
 * The set dps analyze -o writes one thread at a time, with its timelines spilled to a file
 * (doc/analyzer.md, "Memory"), is byte for byte the set the in-memory path builds whole
 * (analyzer_run with the timelines kept, dps_actset_write_dir): on every trace of tests/data,
 * with the default spill threshold and with every thread spilling after 2 segments.
 */
struct identity_case {
	const char *trace;
	const char *sel[4]; /* options, NULL-terminated */
};

static const struct identity_case identity_cases[] = {
    {"pacman", {"--comm", "pacman", "--follow-children", NULL}},
    {"pacman", {"--pid", "9855", NULL}},
    {"many-threads", {"--pid", "2673", NULL}},
    {"many-threads", {"--pid", "1365", NULL}},
    {"ls-ust", {"--pid", "5035", NULL}},
    {"record-live-prog", {"--pid", "28562", NULL}},
    {"record-live-prog", {"--pid", "24688", NULL}},
    {"perf-idle-cpu1", {"--pid", "22396", NULL}},
    {"tracefile-rotation-sched", {"--comm", "clementine", NULL}},
};

/* The in-memory path, through the analyzer's API as compare and the tests use it; returns the
 * number of segments the result kept. */
static size_t write_in_memory(const struct identity_case *c, const char *out)
{
	size_t n_segs = 0;
	char *t = trace(c->trace);
	const char *traces[] = {t};
	struct analyzer_options opts;
	struct analyzer_result *res = NULL;
	struct dps_diag diag = {{0}};

	analyzer_options_default(&opts);
	opts.traces = traces;
	opts.n_traces = 1;
	for (size_t i = 0; c->sel[i]; i += 2) {
		if (!strcmp(c->sel[i], "--pid")) {
			opts.pid = strtoll(c->sel[i + 1], NULL, 10);
		} else if (!strcmp(c->sel[i], "--comm")) {
			opts.comm = c->sel[i + 1];
		} else {
			opts.follow_children = true;
			i--;
		}
	}
	cr_assert(opts.keep_timelines && opts.build_actset && !opts.out_dir);
	cr_assert_eq(analyzer_run(&opts, &res, &diag), DPS_OK, "%s: %s", c->trace, diag.msg);
	cr_assert_eq(dps_actset_write_dir(res->actset, out, 0, &diag), DPS_OK, "%s", diag.msg);
	for (size_t i = 0; i < res->n_threads; i++) {
		n_segs += res->threads[i].n_segs;
	}
	analyzer_result_destroy(res);
	g_free(t);
	return n_segs;
}

static void expect_same_dirs(const char *a, const char *b, const char *what)
{
	GDir *d = g_dir_open(a, 0, NULL);
	const char *name;
	size_t n = 0;

	cr_assert_not_null(d, "%s", a);
	while ((name = g_dir_read_name(d))) {
		char *pa = g_build_filename(a, name, NULL), *pb = g_build_filename(b, name, NULL);
		gchar *ca = NULL, *cb = NULL;
		gsize la = 0, lb = 0;

		cr_assert(g_file_get_contents(pa, &ca, &la, NULL), "%s", pa);
		cr_assert(g_file_get_contents(pb, &cb, &lb, NULL), "%s: %s is missing", what, pb);
		cr_expect(la == lb && !memcmp(ca, cb, la), "%s: %s differs from %s", what, pb, pa);
		g_free(ca);
		g_free(cb);
		g_free(pa);
		g_free(pb);
		n++;
	}
	g_dir_close(d);
	d = g_dir_open(b, 0, NULL);
	while (d && (name = g_dir_read_name(d))) {
		n--;
	}
	if (d) {
		g_dir_close(d);
	}
	cr_expect_eq(n, 0, "%s: %s and %s hold different numbers of files", what, a, b);
}

Test(analyze_output, the_streamed_set_is_the_in_memory_set_byte_for_byte, .timeout = 600)
{
	/* many-threads writes 8,001 files three times: a tmpfs where one can be mounted */
	char *dir = dps_test_mount_tmpfs(256 * 1024, false);
	size_t n_segs = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(identity_cases); i++) {
		const struct identity_case *c = &identity_cases[i];
		char *mem = g_build_filename(dir, "mem", NULL);
		char *t = trace(c->trace);

		n_segs += write_in_memory(c, mem);
		for (int spill = 0; spill < 2; spill++) {
			char *out = g_build_filename(dir, spill ? "spilled" : "streamed", NULL);
			const char *argv[16] = {dps_test_bin(),	 "analyze", t,	"-q",
						"--no-progress", "-o",	    out};
			const char *env[] = {spill ? "DPS_ANALYZER_SPILL_AT=2" : NULL, NULL};
			size_t n = 7;
			struct dps_test_run run;
			char *what = g_strdup_printf("%s %s%s", c->trace, c->sel[0],
						     spill ? " (spilled)" : "");

			for (size_t k = 0; c->sel[k]; k++) {
				argv[n++] = c->sel[k];
			}
			run = dps_test_run(NULL, argv, env);
			cr_assert_eq(run.status, 0, "%s: %s", what, run.err);
			expect_same_dirs(mem, out, what);
			dps_test_run_fini(&run);
			dps_test_rmtree(out);
			g_free(what);
			g_free(out);
		}
		dps_test_rmtree(mem);
		g_free(mem);
		g_free(t);
	}
	dps_test_unmount(dir);
	g_free(dir);
	cr_expect_gt(n_segs, 10000, "the in-memory path keeps the timelines");
}

/* A spill file that cannot be made (TMPDIR gone) fails the analysis: exit 1, a message that
 * says what and where, no set written. */
Test(analyze_output, a_spill_file_that_cannot_be_made_fails_the_analysis)
{
	char *dir = dps_test_mkdtemp("spill-fail");
	char *out = g_build_filename(dir, "set", NULL);
	char *t = trace(SMALL_TRACE);
	const char *argv[] = {dps_test_bin(),  "analyze", t,   SMALL_SEL, "-q",
			      "--no-progress", "-o",	  out, NULL};
	const char *env[] = {"TMPDIR=/nonexistent/tmp", "DPS_ANALYZER_SPILL_AT=2", NULL};
	struct dps_test_run run = dps_test_run(NULL, argv, env);

	cr_expect_eq(run.status, 1, "exit %d: %s", run.status, run.err);
	cr_expect(strstr(run.err, "spill file") && strstr(run.err, "/nonexistent/tmp"), "%s",
		  run.err);
	cr_expect(access(out, F_OK) != 0, "%s was written", out);
	expect_no_temporaries(dir);
	dps_test_run_fini(&run);
	dps_test_rmtree(dir);
	g_free(t);
	g_free(out);
	g_free(dir);
}

/* A dps record trace whose perf lost events (record.info's perf_lost line) is incomplete: the
 * analysis says so (partial, with perf's words) and --strict refuses it. */
Test(analyze_output, a_trace_whose_perf_lost_events_is_partial)
{
	char *dir = dps_test_mkdtemp("perf-lost");
	char *src = trace("record-live-prog");
	char *src_info = g_build_filename(src, "record.info", NULL);
	char *dst_info = g_build_filename(dir, "record.info", NULL);
	char *info = dps_test_read_file(src_info, NULL);
	char *info2 =
	    g_strdup_printf("%sperf_lost Processed 2165703 samples and lost 77.01%%!\n", info);
	const char *argv[] = {dps_test_bin(), "analyze", dir, "-q", "--no-progress", NULL, NULL};
	struct dps_test_run run;

	cr_assert_not_null(info, "%s", src_info);
	cr_assert_eq(dps_test_sh("cp -r '%s/perf' '%s/ust' '%s'/", src, src, dir), 0);
	dps_test_write_file(dst_info, info2);
	run = dps_test_run(NULL, argv, NULL);
	cr_expect_eq(run.status, 0, "%s", run.err);
	cr_expect(strstr(run.err, "perf lost events while recording") &&
		      strstr(run.err, "lost 77.01%"),
		  "%s", run.err);
	dps_test_run_fini(&run);
	argv[5] = "--strict";
	run = dps_test_run(NULL, argv, NULL);
	cr_expect_eq(run.status, 1, "--strict: %s", run.err);
	cr_expect(strstr(run.err, "incomplete input"), "%s", run.err);
	dps_test_run_fini(&run);
	dps_test_rmtree(dir);
	g_free(info2);
	g_free(info);
	g_free(dst_info);
	g_free(src_info);
	g_free(src);
	g_free(dir);
}
