/* SPDX-License-Identifier: MIT */
/*
 * Live (issue 13): `dps record` of waitany-prog.c, a parent reaping three forked children with
 * wait(NULL); `dps analyze --follow-children` must make its three reaps one `join any` of the
 * three, written three times (a wait for any child, not the recorded order), and the set must
 * play when the child that ended first is made 4x slower (it now ends last: the joins take
 * the others first; a fixed join order would make the parent wait for it). That play, recorded
 * and analyzed in turn, must read as 3 joins of the parent and no wait: the stub's `join any`
 * names the member it joined, not the list's first. Structural checks only: they hold on a
 * loaded machine.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "actset.h"
#include "dps-test.h"

#ifdef __SANITIZE_ADDRESS__
/* the blocked time of every recorded wait between threads (`sync.pins` of analyze --json) */
static gint64 pins_blocked_ns(const char *json)
{
	JsonParser *parser = json_parser_new();
	JsonNode *node;
	gint64 sum = 0;

	cr_assert(json_parser_load_from_data(parser, json, -1, NULL), "not JSON: %s", json);
	node = json_path_query("$..pins[*].blocked_ns", json_parser_get_root(parser), NULL);
	cr_assert_not_null(node, "no sync.pins: %s", json);
	for (guint i = 0; i < json_array_get_length(json_node_get_array(node)); i++) {
		sum += json_array_get_int_element(json_node_get_array(node), i);
	}
	json_node_unref(node);
	g_object_unref(parser);
	return sum;
}
#endif

Test(waitany_live, a_wait_for_any_child_is_recorded_analyzed_and_played_as_join_any, .timeout = 300)
{
	char *dir = dps_test_mkdtemp("waitany-live");
	char *trace = dps_test_strf("%s/trace", dir);
	char *setdir = dps_test_strf("%s/set", dir);
	char *scale, *stub, *cmd;
	struct dps_actset *set = NULL;
	struct dps_diag diag = {""};
	const struct dps_actset_thread *root;
	uint64_t first_child = 0;
	size_t n_any = 0, n_join = 0;
	struct dps_test_run r;

	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(
	    dps_test_sh("'%s' record -q -o '%s' -- '%s/tests/analyzer/analyzer-waitany-prog' "
			"50",
			dps_test_bin(), trace, dps_test_build_dir()),
	    0, "dps record failed");
	r = dps_test_run_dps("analyze", trace, "-q", "--follow-children", "-o", setdir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);
	cr_assert_eq(dps_actset_load_dir(setdir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->n_threads, 4, "the parent and its 3 children: %zu threads",
		     set->n_threads);

	root = &set->threads[set->root];
	for (size_t a = 0; a < root->n_actions; a++) {
		const struct dps_actset_action *act = &root->actions[a];

		if (act->kind == DPS_ACT_CREATE && !first_child) {
			first_child = act->id;
		}
		n_join += act->kind == DPS_ACT_JOIN;
		if (act->kind == DPS_ACT_JOIN_ANY) {
			n_any++;
			cr_expect_eq(act->aux, 3, "join any of %" PRIu64 " children", act->aux);
		}
	}
	cr_assert_eq(n_any, 3, "%zu join any, %zu join", n_any, n_join);
	cr_assert_eq(n_join, 0);

	/* the first child (the least work: it ended first) made 4x slower: it ends last */
	scale = dps_test_strf("%" PRIu64 "=4", first_child);
	r = dps_test_run_dps("run", setdir, "--thread-scale", scale, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	dps_test_run_fini(&r);

	/* the play read back: each join tied to the member it joined */
	stub = dps_test_strf("%s/stub", dir);
	cmd = dps_test_strf("'%s' record -q -o '%s' -- '%s' run '%s' --quiet --no-summary "
			    "--thread-scale %s",
			    dps_test_bin(), stub, dps_test_bin(), setdir, scale);
	cr_assert_eq(dps_test_sh("%s", cmd), 0, "%s failed", cmd);
	r = dps_test_run_dps("analyze", stub, "-q", "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "\"total\": "), "%s", r.out);
#ifdef __SANITIZE_ADDRESS__
	/* An ASan dps run may record short waits between the stub's threads that are no join
	 * (ASan's pthread_create hands the new thread its arguments and waits for it: 47 us once,
	 * 2 waits of 22 us in CI). A join read as a wait would hold the slowed child's tens of ms:
	 * under ASan the waits' blocked time is bounded instead of their count. */
	cr_expect_lt(pins_blocked_ns(r.out), 5000000, "the stub's joins read as waits: %s",
		     strstr(r.out, "\"total\": "));
#else
	cr_expect_not_null(strstr(strstr(r.out, "\"total\": "), "\"n_waits\": 0,"),
			   "the stub's joins read as waits: %s", strstr(r.out, "\"total\": "));
#endif
	cr_expect_not_null(strstr(strstr(r.out, "\"total\": "), "\"n_joins\": 3,"),
			   "not 3 joins: %s", strstr(r.out, "\"total\": "));
	dps_test_run_fini(&r);

	g_free(cmd);
	g_free(stub);
	g_free(scale);
	dps_actset_destroy(set);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(trace);
	g_free(setdir);
}
