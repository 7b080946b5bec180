/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's heap and stack reconstruction, end to end through the dps command:
 * - on the ls-ust trace (lttng_ust_libc + lttng_ust_cyg_profile), against a heap curve
 *   reconstructed independently from the trace's text (see the golden values below);
 * - on examples/memory/mempattern.c recorded live with dps record --memory (libc wrapper +
 *   the dps_stack probe), against the program's known allocation sizes and frame sizes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dps/dps-memory.h>

#include "actset.h"
#include "dps-test.h"
#include "record.h"

/* ls-ust, thread 5035 (ls): heap in use at the end and at its peak, from every malloc/calloc/
 * realloc/free of the trace (frees of NULL and of unknown pointers change nothing), computed
 * with a separate script over `babeltrace2 ls-ust` text when this test was written. */
#define LS_FINAL_HEAP 152231
#define LS_PEAK_HEAP 185479

static struct dps_actset *analyze(const char *trace, const char *pid, const char *out)
{
	const char *argv[] = {dps_test_bin(), "analyze", trace, "--pid",	 pid,
			      "-o",	      out,	 "-q",	"--no-progress", NULL};
	struct dps_actset *set = NULL;
	struct dps_diag diag = {0};

	cr_assert_eq(dps_test_run_through(NULL, argv), 0, "dps analyze %s failed", trace);
	cr_assert_eq(dps_actset_load_dir(out, &set, &diag), 0, "%s", diag.msg);
	return set;
}

static const struct dps_actset_thread *thread_by_id(const struct dps_actset *set, uint64_t id)
{
	size_t t = dps_actset_find(set, id);

	cr_assert_neq(t, DPS_ACTSET_NO_THREAD, "no thread %llu", (unsigned long long)id);
	return &set->threads[t];
}

Test(memory_analyze, ls_ust_heap_curve_matches_the_trace)
{
	char *tmp = dps_test_mkdtemp("memory");
	char trace[512], out[512], cmd[2048];
	struct dps_actset *set;
	const struct dps_actset_thread *ls;
	int64_t heap = 0, peak = 0, stack = 0;
	size_t n_stack = 0;

	/* The trace files only (the copy in tests/data has a README beside the streams). */
	snprintf(trace, sizeof(trace), "%s/trace", tmp);
	snprintf(out, sizeof(out), "%s/set", tmp);
	snprintf(cmd, sizeof(cmd),
		 "mkdir '%s' && cp -r '%s/traces/ls-ust/.' '%s/' && rm -f '%s'/README*", trace,
		 dps_test_data_dir(), trace, trace);
	cr_assert_eq(dps_test_sh("%s", cmd), 0);
	set = analyze(trace, "5035", out);
	ls = thread_by_id(set, 5035);
	for (size_t i = 0; i < ls->n_actions; i++) {
		const struct dps_actset_action *a = &ls->actions[i];

		if (a->kind == DPS_ACT_HEAP) {
			heap += a->value;
			peak = heap > peak ? heap : peak;
		} else if (a->kind == DPS_ACT_STACK) {
			stack += a->value;
			n_stack++;
			cr_expect_geq(stack, 0, "stack below its start at action %zu", i);
		}
	}
	cr_expect_eq(heap, LS_FINAL_HEAP);
	cr_expect_eq(peak, LS_PEAK_HEAP);
	/* lttng_ust_cyg_profile gives the call depth: a stack curve must come out of it */
	cr_expect_gt(n_stack, 100);
	dps_actset_destroy(set);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/* The heap actions of a thread, in order. */
static size_t heap_actions(const struct dps_actset_thread *t, int64_t *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_actions && n < cap; i++) {
		if (t->actions[i].kind == DPS_ACT_HEAP) {
			out[n++] = t->actions[i].value;
		}
	}
	return n;
}

/* True when want[] appears in have[] in order, contiguously. */
static bool has_run(const int64_t *have, size_t n, const int64_t *want, size_t m)
{
	for (size_t i = 0; i + m <= n; i++) {
		if (!memcmp(&have[i], want, m * sizeof(*want))) {
			return true;
		}
	}
	return false;
}

/* The rises of the deepest recursion: count of equal consecutive rises and their size. */
static void longest_equal_rises(const struct dps_actset_thread *t, size_t *count, int64_t *size)
{
	size_t run_len = 0;
	int64_t last = 0;

	*count = 0;
	*size = 0;
	for (size_t i = 0; i < t->n_actions; i++) {
		const struct dps_actset_action *a = &t->actions[i];

		if (a->kind != DPS_ACT_STACK) {
			continue;
		}
		run_len = a->value > 0 && a->value == last ? run_len + 1 : 1;
		last = a->value;
		if (a->value > 0 && run_len > *count) {
			*count = run_len;
			*size = a->value;
		}
	}
}

Test(memory_analyze, known_pattern_program_recorded_live, .timeout = 120)
{
	char *tmp = dps_test_mkdtemp("memory");
	char trace[512], out[512], pid[32] = "";
	char prog[512];
	struct dps_actset *set;
	const struct dps_actset_thread *main_t = NULL, *worker = NULL;
	static const int64_t main_allocs[] = {1000, 24000, 200000, 64, 4096};
	static const int64_t reallocs[] = {8192, 8192, 8192, 8192, 8192, 8192, -49152};
	static const int64_t main_frees[] = {-4096, -64, -200000, -24000, -1000};
	int64_t heap[4096];
	size_t n, count;
	int64_t size;

	snprintf(prog, sizeof(prog), "%s/examples/memory/memory-pattern", dps_test_build_dir());
	snprintf(trace, sizeof(trace), "%s/rec", tmp);
	snprintf(out, sizeof(out), "%s/set", tmp);
	{
		const char *argv[] = {dps_test_bin(), "record", "--no-kernel", "--memory",
				      "-q",	      "-o",	trace,	       "--",
				      prog,	      "1000",	NULL};

		cr_assert_eq(dps_test_run_through(NULL, argv), 0, "dps record failed");
	}
	{
		int64_t recorded = -1;

		cr_assert(dps_record_info_pid(trace, &recorded), "no pid in %s/record.info", trace);
		snprintf(pid, sizeof(pid), "%lld", (long long)recorded);
	}
	set = analyze(trace, pid, out);
	main_t = thread_by_id(set, strtoull(pid, NULL, 10));
	for (size_t t = 0; t < set->n_threads; t++) {
		if (&set->threads[t] != main_t) {
			worker = &set->threads[t];
		}
	}
	cr_assert(worker, "the worker thread is missing");

	n = heap_actions(main_t, heap, 4096);
	cr_expect(has_run(heap, n, main_allocs, 5), "main's malloc sizes not found in order");
	cr_expect(has_run(heap, n, reallocs, 7), "main's realloc chain not found");
	cr_expect(has_run(heap, n, (const int64_t[]){4000}, 1), "main's calloc(100, 40)");
	cr_expect(has_run(heap, n, main_frees, 5), "main's frees not found in reverse order");
	n = heap_actions(worker, heap, 4096);
	cr_expect(has_run(heap, n, (const int64_t[]){5000}, 1), "worker's malloc(5000)");
	cr_expect(has_run(heap, n, (const int64_t[]){-5000}, 1), "worker's free");

	/* descend(12, 512) in main, descend(6, 1024) in the worker: equal rises of alloca + frame
	 */
	longest_equal_rises(main_t, &count, &size);
	cr_expect_geq(count, 10, "main: %zu equal rises", count);
	cr_expect(size >= 512 && size <= 512 + 256, "main: rise of %lld bytes", (long long)size);
	longest_equal_rises(worker, &count, &size);
	cr_expect_geq(count, 4, "worker: %zu equal rises", count);
	cr_expect(size >= 1024 && size <= 1024 + 256, "worker: rise of %lld bytes",
		  (long long)size);
	dps_actset_destroy(set);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/*
 * The session records this user's processes only: another user's program with dps's
 * tracepoints (here `dps run` as nobody, over and over) registers with root's session daemon
 * too, and its events came as a second trace, ust/uid/65534, which babeltrace2 refused to read
 * with the first ("UUIDs don't match": the demo failed so in CI's rehearsal beside
 * test-runtime-limits, which plays as nobody).
 */
Test(memory_analyze, another_users_traced_program_stays_out_of_the_recording, .timeout = 120)
{
	char *tmp = dps_test_mkdtemp("memory-users");
	char *trace = dps_test_strf("%s/rec", tmp), *set = dps_test_strf("%s/set", tmp);
	char *stop = dps_test_strf("%s/stop", tmp), *uid = dps_test_strf("%ld", (long)getuid());
	char *prog = dps_test_strf("%s/examples/memory/memory-pattern", dps_test_build_dir());
	struct dps_test_run run;

	dps_test_require(geteuid() == 0, "playing as another user needs root");
	cr_assert_eq(mkdir(set, 0755), 0);
	dps_test_sh("printf 'dps-actions 1\\nrun 2ms\\nsleep 1ms\\nrun 2ms\\n' > '%s/1.act' && "
		    "chmod 755 '%s'",
		    set, tmp);
	/* nobody's plays, until the stop file or 400 of them */
	cr_assert_eq(dps_test_sh("(for i in $(seq 400); do [ -e '%s' ] && break; setpriv "
				 "--reuid=65534 --regid=65534 --clear-groups env "
				 "DPS_CALIBRATION=override '%s' run '%s' --no-summary >/dev/null "
				 "2>&1; done) > /dev/null 2>&1 &",
				 stop, dps_test_bin(), set),
		     0);
	g_usleep(300000);
	run = dps_test_run_dps("record", "--no-kernel", "--memory", "-q", "-o", trace, "--", prog,
			       "1000", NULL);
	dps_test_sh("touch '%s'", stop);
	cr_assert_eq(run.status, 0, "dps record failed: %s", run.err);
	dps_test_run_fini(&run);
	run = dps_test_run_sh("ls '%s/ust/uid'", trace);
	cr_expect_eq(run.status, 0);
	cr_expect_str_eq(g_strstrip(run.out), uid, "the UST traces of the recording: %s", run.out);
	dps_test_run_fini(&run);
	run = dps_test_run_dps("analyze", trace, "--list", "-q", NULL);
	cr_expect_eq(run.status, 0, "dps analyze --list: %s", run.err);
	dps_test_run_fini(&run);
	g_usleep(500000); /* the loop's last play sees the stop file */
	dps_test_rmtree(tmp);
	g_free(prog);
	g_free(uid);
	g_free(stop);
	g_free(set);
	g_free(trace);
	g_free(tmp);
}

Test(memory_analyze, dps_calibrate_memory_writes_a_loadable_file)
{
	char *tmp = dps_test_mkdtemp("memory");
	char path[512];
	struct dps_mem_calibration cal;
	char err[256] = "";

	snprintf(path, sizeof(path), "%s/memory.cal", tmp);
	{
		const char *argv[] = {dps_test_bin(), "calibrate", "--memory", "--quick",
				      "-o",	      path,	   NULL};

		cr_assert_eq(dps_test_run_through(NULL, argv), 0);
	}
	cr_assert_eq(dps_mem_calibration_load(path, &cal, err, sizeof(err)), 0, "%s", err);
	cr_expect_gt(cal.stack_overhead_bytes, 0);
	cr_expect_gt(cal.heap_chunk_align_bytes, 0);
	{
		const char *argv[] = {dps_test_bin(), "calibrate", "--memory", "--bogus", NULL};

		cr_expect_eq(dps_test_run_through(NULL, argv), 2, "bad usage must exit 2");
	}
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/*
 * A memory stub, recorded the way a replay is judged (dps record --memory: the libc wrapper
 * sees every malloc of the process), has no heap beyond what its set asks for plus its own
 * small allocations: the byte model it measures at start (35 MB of blocks) is not seen.
 */
Test(memory_analyze, a_memory_stub_shows_no_start_up_spike, .timeout = 180)
{
	char *tmp;
	char setdir[512], file[600], stub[512], trace[512], out[512], pid[32] = "";
	struct dps_actset *set;
	int64_t heap[4096], level = 0, peak = 0, biggest = 0;
	size_t n;
	FILE *f;

#if defined(__SANITIZE_ADDRESS__)
	/* under ASan the stub's heap is ASan's allocator, which the byte model then measures
	 * through malloc itself (runtime/memcal.c) */
	dps_test_skip_build("the byte model goes through malloc under ASan");
#endif
	tmp = dps_test_mkdtemp("memory");
	snprintf(setdir, sizeof(setdir), "%s/in", tmp);
	cr_assert_eq(g_mkdir_with_parents(setdir, 0755), 0);
	snprintf(file, sizeof(file), "%s/1.act", setdir);
	f = fopen(file, "w");
	cr_assert(f);
	fputs("dps-actions 1\nrun 1ms\nheap +65536\nrun 1ms\nheap +4096\nheap -69632\n", f);
	fclose(f);
	snprintf(stub, sizeof(stub), "%s/stub", tmp);
	snprintf(trace, sizeof(trace), "%s/rec", tmp);
	snprintf(out, sizeof(out), "%s/set", tmp);
	{
		const char *argv[] = {dps_test_bin(), "build", setdir, "-o", stub, NULL};

		cr_assert_eq(dps_test_run_through(NULL, argv), 0, "dps build failed");
	}
	{
		const char *argv[] = {dps_test_bin(), "record",	      "--no-kernel", "--memory",
				      "-q",	      "-o",	      trace,	     "--",
				      stub,	      "--no-summary", NULL};

		cr_assert_eq(dps_test_run_through(NULL, argv), 0, "dps record of the stub failed");
	}
	{
		int64_t recorded = -1;

		cr_assert(dps_record_info_pid(trace, &recorded), "no pid in %s/record.info", trace);
		snprintf(pid, sizeof(pid), "%lld", (long long)recorded);
	}
	set = analyze(trace, pid, out);
	for (size_t t = 0; t < set->n_threads; t++) {
		n = heap_actions(&set->threads[t], heap, 4096);
		for (size_t i = 0; i < n; i++) {
			level += heap[i];
			peak = level > peak ? level : peak;
			biggest = heap[i] > biggest ? heap[i] : biggest;
		}
	}
	/* 68 KiB asked for; the stub's own allocations (its tables, lttng-ust's) are small */
	cr_expect_geq(peak, 69632, "peak %lld: the set's heap is missing", (long long)peak);
	cr_expect_leq(peak, 69632 + 256 * 1024, "peak %lld bytes for 69632 asked", (long long)peak);
	cr_expect_leq(biggest, 1024 * 1024, "one allocation of %lld bytes", (long long)biggest);
	dps_actset_destroy(set);
	dps_test_rmtree(tmp);
	g_free(tmp);
}
