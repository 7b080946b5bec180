/* SPDX-License-Identifier: MIT */
/*
 * Without a session: the programs of this folder run with libdps-syncprobe preloaded (every
 * wrapper on its plain path: the enabled check and the call through) must behave as without
 * it. calls-prog checks each wrapper's results and errno on success and failure, and that the
 * calls are the probe's; the others check their own results (sums, counts, the OpenMP
 * regions' data through GOMP_parallel and friends). And calls-prog without the probe fails its
 * interposition check: the test can tell a probe that is not there.
 */
#include <criterion/criterion.h>
#include <string.h>

#include <glib.h>

#include "dps-test.h"

/* tests/syncprobe/prog in the build tree with args, the probe preloaded or not. */
static struct dps_test_run run_prog(const char *prog, const char *arg1, const char *arg2,
				    bool preload)
{
	char *path = dps_test_strf("%s/tests/syncprobe/%s", dps_test_build_dir(), prog);
	char *env_preload = dps_test_strf("LD_PRELOAD=%s", DPS_SYNCPROBE_PATH);
	const char *argv[] = {path, arg1, arg2, NULL};
	const char *env[] = {preload ? env_preload : "DPS_SYNCPROBE_TEST=1", NULL};
	struct dps_test_run r = dps_test_run(NULL, argv, env);

	g_free(path);
	g_free(env_preload);
	return r;
}

Test(syncprobe_calls, wrappers_return_and_set_errno_as_the_real_calls, .timeout = 60)
{
	struct dps_test_run r = run_prog("syncprobe-calls-prog", "preloaded", NULL, true);

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "all checks passed"), "%s", r.out);
	dps_test_run_fini(&r);
}

Test(syncprobe_calls, the_check_fails_without_the_probe, .timeout = 60)
{
	struct dps_test_run r = run_prog("syncprobe-calls-prog", "preloaded", NULL, false);

	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "is not the probe's"), "%s", r.err);
	dps_test_run_fini(&r);
}

Test(syncprobe_calls, programs_run_unchanged_under_the_probe, .timeout = 120)
{
	static const struct {
		const char *prog, *arg1, *arg2, *out;
	} progs[] = {
	    {"syncprobe-barrier-prog", "3", "5", "barrier 0x"},
	    {"syncprobe-sem-prog", "20", NULL, "sem 0x"},
	    {"syncprobe-rwlock-prog", "10", NULL, "rwlock 0x"},
	    {"syncprobe-pipe-prog", "threads", "200000", "file "},
	    {"syncprobe-pipe-prog", "fork", "200000", "pipe "},
	    {"syncprobe-pipe-prog", "exec", "200000", "pipe "},
	    {"syncprobe-omp-prog", NULL, NULL, "team 4"},
	};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct dps_test_run r = run_prog(progs[i].prog, progs[i].arg1, progs[i].arg2, true);

		cr_assert_eq(r.status, 0, "%s %s: %s", progs[i].prog,
			     progs[i].arg1 ? progs[i].arg1 : "", r.err);
		cr_assert_not_null(strstr(r.out, progs[i].out), "%s: %s", progs[i].prog, r.out);
		dps_test_run_fini(&r);
	}
}
