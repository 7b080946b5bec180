/* SPDX-License-Identifier: MIT */
/* Helpers of the compare tests: the bundled sets, running commands (over tests/lib/dps-test.h,
 * included here for the compare tests). */
#ifndef DPS_TESTS_COMPARE_TEST_H
#define DPS_TESTS_COMPARE_TEST_H

#include "analyzer.h"
#include "dps-test.h"

/* Exit status of the last ct_run_capture (-1 when it did not exit normally). */
extern int ct_last_status;

/* Path of tests/compare/sets/<name> (malloc'd). */
char *ct_set_path(const char *name);
/* Loads a bundled set and plays it on the ideal machine (asserts on failure). */
struct analyzer_result *ct_load_set(const char *name);
/* Runs a shell command (dps_test_run_sh), returns its stdout (g_free) and sets
 * ct_last_status; with err_out also its stderr. */
char *ct_run_capture(const char *cmd, char **err_out);
/* Number of non-overlapping occurrences of needle in hay. */
size_t ct_count(const char *hay, const char *needle);

#endif
