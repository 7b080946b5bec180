/* SPDX-License-Identifier: MIT */
/*
 * Live: dps record (LTTng UST with the libc wrapper + perf sched here) of live-prog.c, whose
 * behaviour is known, then the analyzer on that trace. Tolerances are generous: the machine
 * is shared. CPU times are of the thread itself (CLOCK_THREAD_CPUTIME_ID in the program, the
 * sched_stat_runtime sum in the analyzer), so load does not change them much.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "analyzer.h"
#include "dps-test.h"
#include "machine-load.h"
#include "record.h"

static const struct analyzer_thread *by_comm(const struct analyzer_result *res, const char *comm)
{
	for (size_t i = 0; i < res->n_threads; i++) {
		if (res->threads[i].comm && !strcmp(res->threads[i].comm, comm)) {
			return &res->threads[i];
		}
	}
	cr_assert_fail("no thread named %s", comm);
	return NULL;
}

static const struct dps_actset_thread *set_thread(const struct analyzer_result *res,
						  const struct analyzer_thread *t)
{
	size_t i = dps_actset_find(res->actset, t->id);

	cr_assert_neq(i, DPS_ACTSET_NO_THREAD);
	return &res->actset->threads[i];
}

/* Index of the first action kind/arg (arg -1: any) at or after from, or -1. */
/* The first action of this kind from `from` on whose other thread's index (create, join,
 * wait, wake) or value (the others) is arg; any with arg < 0 for a reference. */
static long find_action(const struct dps_actset *set, const struct dps_actset_thread *t,
			size_t from, uint32_t kind, int64_t arg)
{
	for (size_t a = from; a < t->n_actions; a++) {
		const struct dps_actset_action *x = &t->actions[a];
		int64_t v = dps_actset_kind_names_thread(x->kind)
				? (int64_t)dps_actset_target(set, x)
				: x->value;

		if (x->kind == kind && (arg < 0 || v == arg)) {
			return (long)a;
		}
	}
	return -1;
}

/* Expectations that keep the trace for a post-mortem when they fail. */
static bool all_ok = true;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		bool c_ = (cond);                                                                  \
		all_ok = all_ok && c_;                                                             \
		cr_expect(c_, __VA_ARGS__);                                                        \
	} while (0)

static int64_t index_of(const struct analyzer_result *res, const struct analyzer_thread *t)
{
	return (int64_t)(t - res->threads);
}

Test(live, record_then_analyze_a_known_program, .timeout = 240)
{
	char *dir = dps_test_mkdtemp("analyzer-live");
	char *trace = NULL;
	const char *traces[1];
	struct analyzer_options opts;
	struct analyzer_result *res = NULL;
	struct dps_diag diag = {""};
	const struct analyzer_thread *main_t, *a, *b;
	const struct dps_actset_thread *sm, *sa, *sb;
	int64_t pid = -1;
	long i1, i2, j1, j2, w, k;
	uint64_t sleeps = 0;

	cr_assert(asprintf(&trace, "%s/trace", dir) > 0);
	cr_assert_eq(dps_test_sh("'%s' record -q --memory -o '%s' -- "
				 "'%s/tests/analyzer/analyzer-live-prog'",
				 dps_test_bin(), trace, dps_test_build_dir()),
		     0, "dps record failed");
	cr_assert(dps_record_info_pid(trace, &pid), "no pid in %s/record.info", trace);
	cr_assert_gt(pid, 0);
	{
		/* the machine's load while the program ran, for compare's UNDER LOAD mark */
		struct dps_load load;

		cr_expect(dps_record_info_load(trace, &load), "no load_* lines in record.info");
		cr_expect(load.cpus >= 1 && load.own_pct > 0 && load.wall_s > 0.05,
			  "load: %d CPUs, own %.1f %%, %.3f s", load.cpus, load.own_pct,
			  load.wall_s);
	}

	analyzer_options_default(&opts);
	traces[0] = trace;
	opts.traces = traces;
	opts.n_traces = 1;
	opts.pid = pid;
	cr_assert_eq(analyzer_run(&opts, &res, &diag), DPS_OK, "%s", diag.msg);
	main_t = &res->threads[res->root];
	CHECK(main_t->tid == pid, "root tid");
	CHECK(!main_t->pre_existing, "the command's fork must be in the trace");
	a = by_comm(res, "worker-a");
	b = by_comm(res, "worker-b");
	sm = set_thread(res, main_t);
	sa = set_thread(res, a);
	sb = set_thread(res, b);

	/* main: create A, create B, join A, join B, in this order */
	i1 = find_action(res->actset, sm, 0, DPS_ACT_CREATE, index_of(res, a));
	i2 = find_action(res->actset, sm, 0, DPS_ACT_CREATE, index_of(res, b));
	j1 = find_action(res->actset, sm, 0, DPS_ACT_JOIN, index_of(res, a));
	j2 = find_action(res->actset, sm, 0, DPS_ACT_JOIN, index_of(res, b));
	CHECK(i1 >= 0 && i2 > i1 && j1 > i2 && j2 > j1, "create %ld %ld join %ld %ld", i1, i2, j1,
	      j2);
	/* main ran 30 ms of CPU (20 before, 10 after), plus its process start (loader, lttng-ust
	 * registration), which the kernel charges too and which grows on a loaded machine: the
	 * bounds catch a count that is wrong, not a slow start (timing is bench/'s). */
	CHECK(main_t->stats.busy_ns > 24000000 && main_t->stats.busy_ns < 90000000,
	      "main busy %" PRIu64, main_t->stats.busy_ns);

	/* workers: 40 ms of CPU each, 3 sleeps of 20 ms */
	for (int t = 0; t < 2; t++) {
		const struct analyzer_thread *wt = t ? b : a;
		const struct dps_actset_thread *ws = t ? sb : sa;

		CHECK(wt->stats.busy_ns > 34000000 && wt->stats.busy_ns < 80000000,
		      "%s busy %" PRIu64, wt->comm, wt->stats.busy_ns);
		sleeps = 0;
		for (size_t x = 0; x < ws->n_actions; x++) {
			if (ws->actions[x].kind == DPS_ACT_SLEEP &&
			    ws->actions[x].value > 15000000 && ws->actions[x].value < 60000000) {
				sleeps++;
			}
		}
		CHECK(sleeps >= 3, "%s: %" PRIu64 " sleeps of ~20 ms", wt->comm, sleeps);
		CHECK(wt->parent == (size_t)res->root, "parent of %s", wt->comm);
	}
	/* B blocks on the mutex A holds: wait A in B, wake B in A */
	w = find_action(res->actset, sb, 0, DPS_ACT_WAIT, index_of(res, a));
	k = find_action(res->actset, sa, 0, DPS_ACT_WAKE, index_of(res, b));
	CHECK(w >= 0 && k >= 0, "wait %ld wake %ld", w, k);
	/* A's 1 MiB block, at most a few allocations of libc's own besides */
	CHECK(find_action(res->actset, sa, 0, DPS_ACT_HEAP, 1 << 20) >= 0,
	      "heap +1 MiB in worker-a");
	CHECK(find_action(res->actset, sa, 0, DPS_ACT_HEAP, -(1 << 20)) >= 0,
	      "heap -1 MiB in worker-a");

	analyzer_result_destroy(res);
	if (!all_ok) {
		cr_log_error("trace kept for inspection: %s (pid %lld)", trace, (long long)pid);
	} else {
		dps_test_rmtree(dir);
	}
	g_free(dir);
	free(trace);
}

/* A real LTTng session with buffers too small for the program: babeltrace2 reports discarded
 * events, the analyzer warns and marks the result partial. */
Test(live, discarded_events_mark_the_result_partial, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("analyzer-disc");
	char session[64], prog[4096];
	const char *traces[1];
	struct analyzer_options opts;
	struct analyzer_result *res = NULL;
	struct dps_diag diag = {""};

	snprintf(session, sizeof(session), "dps-test-disc-%ld", (long)getpid());
	snprintf(prog, sizeof(prog), "%s/tests/analyzer/analyzer-malloc-burst",
		 dps_test_build_dir());
	cr_assert_eq(dps_test_sh("lttng create %s --output=%s >/dev/null", session, dir), 0);
	cr_assert_eq(
	    dps_test_sh("lttng enable-channel -u -s %s --subbuf-size=4096 --num-subbuf=2 c "
			">/dev/null",
			session),
	    0);
	cr_assert_eq(
	    dps_test_sh("lttng enable-event -u -s %s -c c 'lttng_ust_libc:*' >/dev/null", session),
	    0);
	cr_assert_eq(dps_test_sh("lttng add-context -u -s %s -c c -t vtid -t vpid -t procname "
				 ">/dev/null",
				 session),
		     0);
	cr_assert_eq(dps_test_sh("lttng start %s >/dev/null", session), 0);
	cr_assert_eq(dps_test_sh("LD_PRELOAD=liblttng-ust-libc-wrapper.so.1 %s", prog), 0);
	cr_assert_eq(dps_test_sh("lttng stop %s >/dev/null", session), 0);
	cr_assert_eq(dps_test_sh("lttng destroy %s >/dev/null", session), 0);

	analyzer_options_default(&opts);
	traces[0] = dir;
	opts.traces = traces;
	opts.n_traces = 1;
	opts.comm = "analyzer-malloc";
	cr_assert_eq(analyzer_run(&opts, &res, &diag), DPS_OK, "%s", diag.msg);
	cr_expect(res->partial);
	cr_expect(res->partial_reason && strstr(res->partial_reason, "discarded between"), "%s",
		  res->partial_reason ? res->partial_reason : "(none)");
	cr_expect_gt(res->n_discarded, 0);
	cr_expect(res->actset->partial);
	analyzer_result_destroy(res);
	dps_test_rmtree(dir);
	g_free(dir);
}

/*
 * A dps record trace is one trace for babeltrace2 (doc/record.md, "One trace"): the kernel
 * part (perf, when the LTTng kernel tracer is missing) and the UST part on one time line, so a
 * UST event the program emitted prints between its exec and its exit.
 */
Test(live, babeltrace2_reads_a_dps_record_trace_as_one, .timeout = 240)
{
	char *dir = dps_test_mkdtemp("analyzer-live");
	char *trace = NULL, *out = NULL, *err = NULL, *cmd = NULL;
	gchar **lines;
	long exec_at = -1, ust_at = -1, exit_at = -1;
	char exec_key[64], exit_key[64], ust_key[64];
	int64_t pid = -1;
	int status = -1;

	cr_assert(asprintf(&trace, "%s/trace", dir) > 0);
	cr_assert_eq(dps_test_sh("'%s' record -q --memory -o '%s' -- "
				 "'%s/tests/analyzer/analyzer-live-prog'",
				 dps_test_bin(), trace, dps_test_build_dir()),
		     0, "dps record failed");
	cr_assert(dps_record_info_pid(trace, &pid), "no pid in %s/record.info", trace);
	cr_assert(asprintf(&cmd, "babeltrace2 '%s'", trace) > 0);
	cr_assert(g_spawn_command_line_sync(cmd, &out, &err, &status, NULL));
	cr_assert_eq(status, 0, "babeltrace2 on the whole trace failed: %.500s", err);
	snprintf(exec_key, sizeof(exec_key), "perf_tid = %" PRId64 ",", pid);
	snprintf(exit_key, sizeof(exit_key), "perf_tid = %" PRId64 ",", pid);
	snprintf(ust_key, sizeof(ust_key), "vpid = %" PRId64 ",", pid);
	lines = g_strsplit(out, "\n", -1);
	for (long i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (exec_at < 0 && strstr(l, "sched_process_exec:") && strstr(l, exec_key)) {
			exec_at = i;
		} else if (ust_at < 0 && strstr(l, "lttng_ust_libc:") && strstr(l, ust_key)) {
			ust_at = i;
		} else if (strstr(l, "sched_process_exit:") && strstr(l, exit_key)) {
			exit_at = i;
		}
	}
	cr_expect_geq(exec_at, 0, "no exec of %" PRId64 " in the kernel part", pid);
	cr_expect_geq(ust_at, 0, "no UST event of %" PRId64, pid);
	cr_expect_gt(exit_at, 0, "no exit of %" PRId64 " in the kernel part", pid);
	cr_expect(exec_at < ust_at && ust_at < exit_at,
		  "lines: exec %ld, first UST event %ld, exit %ld: not on one time line", exec_at,
		  ust_at, exit_at);
	g_strfreev(lines);
	g_free(out);
	g_free(err);
	free(cmd);
	free(trace);
	dps_test_rmtree(dir);
	g_free(dir);
}
