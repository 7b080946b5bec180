/* SPDX-License-Identifier: MIT */
/*
 * Local CPU stubs (dps/stub.h): a region recorded in original mode (its CPU time saved with
 * SSF), then skipped in flat, idle and busy modes, or preceded by a PSF; the mode from a call
 * and from the environment; the errors. Bounds are generous: the test checks which way the
 * time went (CPU or asleep, about how much), not its precision (bench/ does that).
 */
#include <criterion/criterion.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dps/dps.h>
#include <dps/ssf.h>
#include <dps/stub.h>

#include "dps-test.h"

#define REGION_NS (20 * 1000 * 1000ull) /* the original region: 20 ms of CPU */

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The CPU time the last record_region's region took: what busy percentages are of (on a
 * loaded host the 20 ms run was seen to burn more: the recorded time is the measured one). */
static uint64_t recorded_cpu_ns;

/* Records one run of the region in original mode into a new file (g_free the path). */
static char *record_region(void)
{
	char *path = dps_test_mkstemp("stub");
	uint64_t c0;

	cr_assert_eq(dps_ssf_open(DPS_SSF_RECORD, path), DPS_OK);
	cr_assert_eq(dps_stub_set(DPS_STUB_ORIGINAL, 0, 100), DPS_OK);
	dps_ssf_run_begin();
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	cr_assert(dps_stub_begin("compute"), "original mode runs the region");
	dps_run_ns(REGION_NS, DPS_RUN_CPU);
	cr_assert_eq(dps_stub_end("compute"), DPS_OK, "%s", dps_ssf_last_error());
	recorded_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	cr_assert_eq(dps_ssf_close(), DPS_OK);
	return path;
}

/* Replays the region in mode; *cpu_ns and *wall_ns: what the end of the region took. */
static void replay_region(const char *path, enum dps_stub_mode mode, uint64_t busy_ns, double pct,
			  uint64_t *cpu_ns, uint64_t *wall_ns)
{
	uint64_t c0, w0;

	cr_assert_eq(dps_ssf_open(DPS_SSF_RESTORE, path), DPS_OK);
	cr_assert_eq(dps_stub_set(mode, busy_ns, pct), DPS_OK);
	dps_ssf_run_begin();
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	w0 = clock_ns(CLOCK_MONOTONIC);
	cr_assert_eq(dps_stub_begin("compute"), mode == DPS_STUB_PSF);
	cr_assert_eq(dps_stub_end("compute"), DPS_OK, "%s", dps_ssf_last_error());
	*cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	*wall_ns = clock_ns(CLOCK_MONOTONIC) - w0;
	dps_ssf_close();
}

Test(stub, the_recorded_region_time_is_an_ssf_entry)
{
	char *path = record_region();
	struct dps_test_run r = dps_test_run_dps("ssf", "decode", "--named", path, NULL);
	const char *v;

	cr_assert_eq(r.status, 0, "%s", r.err);
	v = strstr(r.out, "compute__cpu_ns = ");
	cr_assert(v, "%s", r.out);
	cr_assert_geq(strtoull(v + strlen("compute__cpu_ns = "), NULL, 10), REGION_NS * 9 / 10);
	dps_test_run_fini(&r);
	dps_test_rmtree(path);
	g_free(path);
}

Test(stub, flat_idle_busy_and_psf_spend_what_they_say)
{
	char *path = record_region();
	uint64_t cpu, wall;

	replay_region(path, DPS_STUB_FLAT, 0, 100, &cpu, &wall);
	cr_assert_lt(cpu, REGION_NS / 2, "flat spends nothing: %" PRIu64 " ns of CPU", cpu);
	replay_region(path, DPS_STUB_IDLE, 0, 100, &cpu, &wall);
	cr_assert_geq(wall, REGION_NS * 9 / 10, "idle sleeps the recorded time: %" PRIu64, wall);
	cr_assert_lt(cpu, REGION_NS / 2, "idle is asleep: %" PRIu64 " ns of CPU", cpu);
	replay_region(path, DPS_STUB_BUSY, 0, 50, &cpu, &wall);
	cr_assert_geq(cpu, recorded_cpu_ns * 45 / 100,
		      "busy 50%%: %" PRIu64 " ns of CPU for %" PRIu64 " recorded", cpu,
		      recorded_cpu_ns);
	cr_assert_lt(cpu, recorded_cpu_ns * 9 / 10,
		     "busy 50%%: %" PRIu64 " ns of CPU for %" PRIu64 " recorded", cpu,
		     recorded_cpu_ns);
	replay_region(path, DPS_STUB_BUSY, 5000000, 0, &cpu, &wall);
	cr_assert_geq(cpu, 4500000, "busy 5 ms: %" PRIu64 " ns of CPU", cpu);
	cr_assert_lt(cpu, REGION_NS * 9 / 10, "busy 5 ms: %" PRIu64 " ns of CPU", cpu);
	replay_region(path, DPS_STUB_PSF, 0, 100, &cpu, &wall);
	cr_assert_geq(cpu, REGION_NS * 9 / 10, "psf before the region: %" PRIu64, cpu);
	dps_test_rmtree(path);
	g_free(path);
}

Test(stub, the_mode_and_busy_time_come_from_the_environment)
{
	setenv("DPS_STUB_MODE", "busy", 1);
	setenv("DPS_STUB_BUSY", "3ms", 1);
	cr_assert_eq(dps_stub_mode(), DPS_STUB_BUSY);
	cr_assert_not(dps_stub_begin("compute"), "busy skips the region");
	cr_assert_eq(dps_stub_end("compute"), DPS_OK, "%s", dps_ssf_last_error());
}

Test(stub, the_mode_is_only_for_the_regions_named_in_the_environment)
{
	setenv("DPS_STUB_MODE", "flat", 1);
	setenv("DPS_STUB_REGIONS", "parse,compute", 1);
	cr_assert_not(dps_stub_begin("compute"), "a named region is stubbed");
	cr_assert_eq(dps_stub_end("compute"), DPS_OK, "%s", dps_ssf_last_error());
	cr_assert_not(dps_stub_begin("parse"), "a named region is stubbed");
	cr_assert_eq(dps_stub_end("parse"), DPS_OK, "%s", dps_ssf_last_error());
	cr_assert(dps_stub_begin("comp"), "another region runs as it is");
	cr_assert_eq(dps_stub_end("comp"), DPS_OK, "%s", dps_ssf_last_error());
}

Test(stub, a_failed_end_is_fatal_when_strict, .exit_code = DPS_STUB_STRICT_EXIT)
{
	setenv("DPS_STUB_MODE", "idle", 1);
	setenv("DPS_STUB_STRICT", "1", 1);
	cr_assert_not(dps_stub_begin("compute"));
	dps_stub_end("compute"); /* no recorded time: the process ends here */
	cr_assert_fail("the end of a region with no recorded time returned under "
		       "DPS_STUB_STRICT");
}

Test(stub, errors_name_the_region_or_the_setting)
{
	cr_assert_eq(dps_stub_end("nothing"), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "stub region nothing: an end without its begin"),
		  "%s", dps_ssf_last_error());
	cr_assert_eq(dps_stub_set(DPS_STUB_IDLE, 0, 100), DPS_OK);
	cr_assert_not(dps_stub_begin("compute"));
	cr_assert_eq(dps_stub_end("compute"), DPS_ERR_NOENT);
	cr_assert(strstr(dps_ssf_last_error(), "compute: no recorded CPU time"), "%s",
		  dps_ssf_last_error());
	cr_assert_eq(dps_stub_set((enum dps_stub_mode)9, 0, 100), DPS_ERR_INVAL);
	cr_assert_eq(dps_stub_set(DPS_STUB_ORIGINAL, 0, 100), DPS_OK);
	cr_assert(dps_stub_begin("not a name"));
	cr_assert_eq(dps_ssf_open(DPS_SSF_RECORD, "/dev/null"), DPS_OK);
	cr_assert_eq(dps_stub_end("not a name"), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "expected a C identifier"), "%s",
		  dps_ssf_last_error());
}

Test(stub, a_bad_mode_in_the_environment_is_reported_at_the_end)
{
	setenv("DPS_STUB_MODE", "fast", 1);
	cr_assert(dps_stub_begin("compute"), "a bad mode runs the original code");
	cr_assert_eq(dps_stub_end("compute"), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "DPS_STUB_MODE: expected original"), "%s",
		  dps_ssf_last_error());
}

Test(stub, the_region_macros_read_as_braces)
{
	int ran = 0, restored = 0;

	cr_assert_eq(dps_stub_set(DPS_STUB_FLAT, 0, 100), DPS_OK);
	/* clang-format off */
	DPS_STUB_BEGIN("m")
		ran = 1;
	DPS_STUB_ELSE
		restored = 1;
	DPS_STUB_END("m")
	/* clang-format on */
	cr_assert(!ran && restored);
	cr_assert_eq(dps_stub_set(DPS_STUB_ORIGINAL, 0, 100), DPS_OK);
	/* clang-format off */
	DPS_STUB_BEGIN("m")
		ran = 1;
	DPS_STUB_ELSE
		restored = 2;
	DPS_STUB_END("m")
	/* clang-format on */
	cr_assert(ran == 1 && restored == 1);
}
