/* SPDX-License-Identifier: MIT */
/*
 * Live (issue 30): dps's own costs taken out of the runs (doc/runtime.md, "Own costs"), seen by
 * the kernel's accounting of the recording, not by dps. Two threads hand a token back and
 * forth 2,500 times, each with 40 us of run between its wait and its wake: 100 ms of run per
 * thread and 5,000 waits and wakes. `dps run` of that set recorded by `dps record` must show
 * each thread with the CPU its runs ask for: the waits and wakes cost the replay a few us each,
 * which its runs give back. Before, a wake signalled under the player's lock made the sleeper
 * block on the lock once more, and a round cost more than its 40 us of run. CPU time, not
 * wall time: the bounds hold with the other core busy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "dps-test.h"

#define ROUNDS 2500
#define RUN_US 40
#define MS 1000000.0

/* The set: thread 1 (the root) and thread 2 in ping-pong. */
static void write_set(const char *dir)
{
	GString *ping = g_string_new("dps-actions 1\ncreate 2\n");
	GString *pong = g_string_new("dps-actions 1\n");
	char *path;

	for (int i = 0; i < ROUNDS; i++) {
		g_string_append_printf(ping, "run %dus\nwake 2\nwait 2\n", RUN_US);
		g_string_append_printf(pong, "wait 1\nrun %dus\nwake 1\n", RUN_US);
	}
	g_string_append(ping, "join 2\n");
	path = dps_test_strf("%s/1.act", dir);
	dps_test_write_file(path, ping->str);
	g_free(path);
	path = dps_test_strf("%s/2.act", dir);
	dps_test_write_file(path, pong->str);
	g_free(path);
	path = dps_test_strf("%s/manifest", dir);
	dps_test_write_file(path, "dps-manifest 1\nroot 1\nthread 1 comm \"ping\" start 0\n"
				  "thread 2 comm \"pong\" start 10\n");
	g_free(path);
	g_string_free(ping, TRUE);
	g_string_free(pong, TRUE);
}

/* busy_ns of the thread named comm in analyze --json's threads, or of the root (its tid is
 * the pid; it keeps the comm of the process, "dps", in the analysis) when comm is NULL; -1:
 * none */
static double busy_ms(JsonArray *threads, const char *comm)
{
	for (guint i = 0; i < json_array_get_length(threads); i++) {
		JsonObject *t = json_array_get_object_element(threads, i);

		if (comm ? !strcmp(json_object_get_string_member_with_default(t, "comm", ""), comm)
			 : json_object_get_int_member(t, "tid") ==
			       json_object_get_int_member(t, "pid")) {
			return (double)json_object_get_int_member(t, "busy_ns") / MS;
		}
	}
	return -1;
}

Test(owncost_live, a_thread_with_thousands_of_waits_keeps_its_recorded_cpu, .timeout = 300)
{
	char *dir = dps_test_mkdtemp("owncost-live");
	char *set = dps_test_strf("%s/set", dir);
	char *trace = dps_test_strf("%s/trace", dir);
	char *out = dps_test_strf("%s/run.err", dir);
	double want = ROUNDS * RUN_US / 1000.0, ping, pong, charged;
	const char *p;
	JsonParser *parser = json_parser_new();
	JsonArray *threads;
	struct dps_test_run r;
	char *err;

	cr_assert_eq(g_mkdir_with_parents(set, 0755), 0);
	write_set(set);
	setenv("DPS_CALIBRATION", "override", 1);
	cr_assert_eq(dps_test_sh("'%s' record -q -o '%s' -- '%s' run '%s' 2>'%s'", dps_test_bin(),
				 trace, dps_test_bin(), set, out),
		     0, "dps record of dps run failed");
	/* the summary says what was taken out of the runs */
	err = dps_test_read_file(out, NULL);
	cr_assert_not_null(strstr(err, "own costs: "), "%s", err);
	r = dps_test_run_dps("analyze", trace, "-q", "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(json_parser_load_from_data(parser, r.out, -1, NULL), "%s", r.out);
	threads = json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)),
					       "threads");
	ping = busy_ms(threads, NULL);
	pong = busy_ms(threads, "pong");
	/* pong: its runs and nothing else (its start and end are a few hundred us). ping, the
	 * root, gave its runs' first ms to the process's start-up before main (doc/runtime.md,
	 * "The stub's start-up and exit": 10 to 20 ms here), which the analysis of a dps run
	 * does not count as the root's: a looser bound below */
	cr_expect(pong > 0.9 * want && pong < 1.15 * want,
		  "pong: %.1f ms of CPU for %.1f ms of runs and %d waits and wakes\n%s", pong, want,
		  2 * ROUNDS, err);
	/* what the summary says the root's runs were charged for the start-up: 84 ms once
	 * under ASan beside a busy core, which left ping 34.6 ms of its 100 */
	p = strstr(err, "charged ");
	charged = p ? strtod(p + strlen("charged "), NULL) : 0;
	cr_expect(ping > 0.6 * (want - charged) && ping < 1.15 * want,
		  "ping: %.1f ms of CPU for %.1f ms of runs (%.1f ms of them charged with the "
		  "start-up) and %d waits and wakes\n%s",
		  ping, want, charged, 2 * ROUNDS, err);
	dps_test_run_fini(&r);
	g_object_unref(parser);
	g_free(err);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(set);
	g_free(trace);
	g_free(out);
}
