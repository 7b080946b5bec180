/* SPDX-License-Identifier: MIT */
/* A set's cache figures played under the cache simulator (play-set.h). */
#include <inttypes.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <glib.h>

#include <dps/dps-status.h>

#include "diag.h"
#include "dps-test.h"
#include "play-set.h"

struct cache_counts cache_test_play_set(const char *set, const char *prog, const char *knob,
					const char *value)
{
	char *argv[] = {(char *)prog,
			(char *)"--mode",
			(char *)"wall",
			(char *)"--no-summary",
			(char *)knob,
			(char *)value,
			NULL};
	struct cache_capture_options opts = {.argv = argv};
	struct cache_geometry geom;
	struct cache_profile *prof = NULL;
	struct dps_diag diag = {{0}};
	const struct cache_function *k;
	struct dps_test_run build;
	struct cache_counts c;
	char *geom_env;
	int status;

#if defined(__SANITIZE_ADDRESS__)
	/* the generated program is sanitized too, and cannot run under Valgrind */
	dps_test_skip_build("a sanitized build's programs cannot run under Valgrind");
#endif
	dps_test_require(dps_test_has_program("valgrind"), "valgrind is not installed");
	build = dps_test_run_dps("build", set, "-o", prog, NULL);
	cr_assert_eq(build.status, 0, "dps build: %s", build.err);
	dps_test_run_fini(&build);

	cache_geometry_detect(&geom);
	opts.geom = &geom;
	geom_env = dps_test_strf("%" PRIu64 ",%u,%u %" PRIu64 ",%u,%u", geom.d1.size_bytes,
				 geom.d1.assoc, geom.d1.line_bytes, geom.ll.size_bytes,
				 geom.ll.assoc, geom.ll.line_bytes);
	setenv("DPS_CACHE_GEOMETRY", geom_env, 1);
	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(cache_capture_run(&opts, &prof, &status, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(status, 0, "the program exited %d under cachegrind", status);
	k = cache_profile_borrow_function(prof, "cache_play_kernel");
	cr_assert_not_null(k, "no cache_play_kernel in the capture");
	c = k->counts;
	cache_profile_destroy(prof);
	unsetenv("DPS_CACHE_GEOMETRY");
	g_free(geom_env);
	return c;
}
