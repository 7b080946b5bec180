/* SPDX-License-Identifier: MIT */
/* The compare tests' helpers, on the shared ones (tests/lib/dps-test.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "compare-test.h"
#include "compare.h"
#include "dps-test.h"

int ct_last_status;

char *ct_set_path(const char *name)
{
	return dps_test_strf("%s/tests/compare/sets/%s", dps_test_source_dir(), name);
}

struct analyzer_result *ct_load_set(const char *name)
{
	struct dps_diag diag = {{0}};
	struct dps_actset *set = NULL;
	struct analyzer_result *m = NULL;
	char *dir = ct_set_path(name);

	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s: %s", dir, diag.msg);
	cr_assert_eq(compare_model_from_actset(set, &m, &diag), DPS_OK, "%s: %s", dir, diag.msg);
	dps_actset_destroy(set);
	free(dir);
	return m;
}

char *ct_run_capture(const char *cmd, char **err_out)
{
	struct dps_test_run run = dps_test_run_sh("%s", cmd);

	ct_last_status = run.status;
	if (err_out) {
		*err_out = run.err;
		run.err = NULL;
	}
	g_free(run.err);
	return run.out;
}

size_t ct_count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += len;
	}
	return n;
}
