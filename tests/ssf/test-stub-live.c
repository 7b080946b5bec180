/* SPDX-License-Identifier: MIT */
/*
 * Live: a program with a local CPU stub (stub-prog.c) recorded by `dps record` in a real LTTng
 * UST session; babeltrace2 prints the trace and every region has its dps:stub_begin and
 * dps:stub_end, with the mode and what was spent in the region's place.
 */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "dps-test.h"

static unsigned count(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) {
		n++;
	}
	return n;
}

Test(stub_live, every_region_has_its_begin_and_end_events, .timeout = 120)
{
	char *dir = dps_test_mkdtemp("stub-live"), *trace = dps_test_strf("%s/trace", dir);
	struct dps_test_run r;

	r = dps_test_run(NULL,
			 (const char *const[]){dps_test_bin(), "record", "--no-kernel", "-q", "-o",
					       trace, "--", SSF_STUB_PROG, NULL},
			 (const char *const[]){"DPS_STUB_MODE=busy", "DPS_STUB_BUSY=1ms", NULL});
	/* a refusal that names root, to a user: any other failure is the test's */
	if (r.status != 0 && geteuid() != 0 && strstr(r.err, "root")) {
		dps_test_run_fini(&r);
		dps_test_require(geteuid() == 0, "dps record needs root here");
	}
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run(NULL, (const char *const[]){"babeltrace2", trace, NULL}, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(count(r.out, "dps:stub_begin"), 3, "%s", r.out);
	cr_assert_eq(count(r.out, "dps:stub_end"), 3, "%s", r.out);
	cr_assert_eq(count(r.out, "name = \"work\""), 6, "%s", r.out);
	cr_assert_eq(count(r.out, "psf_ns = 1000000"), 3, "%s", r.out);
	cr_assert(strstr(r.out, "( \"busy\" : container = 3 )"), "%s", r.out);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(trace);
	g_free(dir);
}
