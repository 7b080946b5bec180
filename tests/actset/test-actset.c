/* SPDX-License-Identifier: MIT */
/*
 * Action-set loading (common/actset.c): tables of good sets with the actions they must give,
 * and of bad sets with the exact file:line:column of their diagnostic (issue 2 item 6: unknown
 * keyword, negative or overflowing number, create of a thread with no file, join of a thread
 * never created, a thread created twice, a create cycle, no root, several roots).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "actset.h"
#include "dps-test.h"

#define MAX_FILES 4

/* Inline arrays, not pointers: Criterion runs each parameter in a fresh process image. */
struct file {
	char name[32];
	char text[256];
};

static char *dir; /* g_free: the test's directory (dps_test_mkdtemp) */

static void make_dir(void)
{
	dir = dps_test_mkdtemp("actset");
}

static void remove_dir(void)
{
	dps_test_rmtree(dir);
	g_free(dir);
	dir = NULL;
}

static void write_files(const struct file *files)
{
	for (size_t i = 0; i < MAX_FILES && files[i].name[0]; i++) {
		char *path = dps_test_strf("%s/%s", dir, files[i].name);

		dps_test_write_file(path, files[i].text);
		g_free(path);
	}
}

/*
 * Bad sets
 */
struct bad_set {
	struct file files[MAX_FILES];
	char where[32]; /* "1.act:2:5: " expected right after "<dir>/" */
	char what[96];	/* a piece of the message */
};

ParameterizedTestParameters(actset, bad_sets_are_located)
{
	static struct bad_set cases[] = {
	    /* unknown keyword */
	    {{{"1.act", "run 10\nfly 3\n"}}, "1.act:2:1: ", "expected an action"},
	    {{{"1.act", "  Run 10\n"}}, "1.act:1:3: ", "expected an action"},
	    /* negative or overflowing numbers */
	    {{{"1.act", "sleep -5\n"}}, "1.act:1:7: ", "non-negative"},
	    {{{"1.act", "run 99999999999999999999\n"}}, "1.act:1:5: ", "too large"},
	    {{{"1.act", "run 18446744073709552\n"}}, "1.act:1:5: ", "too large"},
	    {{{"1.act", "create 2\n"}, {"2.act", "join 184467440737095516160\n"}},
	     "2.act:1:6: ",
	     "too large"},
	    {{{"1.act", "heap +9223372036854775808\n"}}, "1.act:1:6: ", "out of range"},
	    /* one duration limit, the player's (issue 26): one message whatever the field */
	    {{{"1.act", "run 18446744073709551615ns\n"}}, "1.act:1:5: ", "at most 2^63-1 ns)"},
	    {{{"1.act", "sleep 18446744073709551616ns\n"}}, "1.act:1:7: ", "at most 2^63-1 ns)"},
	    {{{"1.act", "run 1\n"}, {"manifest", "thread 1 start 9223372036854775808ns\n"}},
	     "manifest:1:16: ",
	     "at most 2^63-1 ns)"},
	    /* malformed arguments */
	    {{{"1.act", "run\n"}}, "1.act:1:5: ", "expected a duration"},
	    {{{"1.act", "run 10 20\n"}}, "1.act:1:8: ", "expected end of line"},
	    {{{"1.act", "run 10xs\n"}}, "1.act:1:7: ", ""},
	    {{{"1.act", "run 0.0001ns\n"}}, "1.act:1:5: ", ""},
	    {{{"1.act", "stack +x\n"}}, "1.act:1:8: ", "+4096"},
	    {{{"1.act", "create\n"}}, "1.act:1:8: ", "expected a thread id"},
	    /* header */
	    {{{"1.act", "dps-actions 6\n"}}, "1.act:1:13: ", "unsupported"},
	    {{{"1.act", "run 1\ndps-actions 1\n"}}, "1.act:2:1: ", "first statement"},
	    /* a run's cache figures (version 4): each rule at the figure that breaks it */
	    {{{"1.act", "run 1ms cache 0 0 0 0\n"}}, "1.act:1:15: ", "no access"},
	    {{{"1.act", "run 1ms cache 10 11 0 0\n"}}, "1.act:1:18: ", "more stores than"},
	    {{{"1.act", "run 1ms cache 10 1 11 0\n"}}, "1.act:1:20: ", "more D1 misses than"},
	    {{{"1.act", "run 1ms cache 10 1 5 6\n"}}, "1.act:1:22: ", "more LL misses than"},
	    {{{"1.act", "run 1ms cache 10 1 5\n"}}, "1.act:1:22: ", "expected 4 cache figures"},
	    {{{"1.act", "run 1ms cache\n"}}, "1.act:1:15: ", "ACCESSES STORES D1_MISSES"},
	    {{{"1.act", "run 1ms cache 10 x 5 1\n"}}, "1.act:1:18: ", "expected the stores"},
	    {{{"1.act", "run 1ms cache 10 1 -5 1\n"}}, "1.act:1:20: ", "non-negative"},
	    {{{"1.act", "run 1ms cache 99999999999999999999 1 1 1\n"}}, "1.act:1:15: ", "large"},
	    {{{"1.act", "run 1ms cache 10 1 5 1 7\n"}}, "1.act:1:24: ", "expected end of line"},
	    /* version 5's footprint after the figures */
	    {{{"1.act", "run 1ms cache 10 1 5 1 footprint\n"}},
	     "1.act:1:34: ",
	     "expected the "
	     "footprint in bytes"},
	    {{{"1.act", "run 1ms cache 10 1 5 1 footprint 0\n"}}, "1.act:1:34: ", "footprint of 0"},
	    {{{"1.act", "run 1ms cache 10 1 5 1 footprint 1M\n"}}, "1.act:1:35: ", "working set"},
	    {{{"1.act", "run 1ms cache 10 1 5 1 footprint 4096 8\n"}},
	     "1.act:1:39: ",
	     "expected end of line"},
	    {{{"1.act", "dps-actions 4\nrun 1ms cache 10 1 5 1 footprint 4096\n"}},
	     "1.act:2:24: ",
	     "expected 'dps-actions 5'"},
	    {{{"1.act", "run 1ms cach 10\n"}}, "1.act:1:9: ", "expected end of line"},
	    {{{"1.act", "sleep 1ms cache 10 1 5 1\n"}}, "1.act:1:11: ", "expected end of line"},
	    {{{"1.act", "dps-actions 3\nrun 1ms cache 10 1 5 1\n"}},
	     "1.act:2:9: ",
	     "expected 'dps-actions 4'"},
	    /* creation graph */
	    {{{"1.act", "run 1\ncreate 3\n"}}, "1.act:2:8: ", "no action file"},
	    {{{"1.act", "create 2\njoin 9\n"}, {"2.act", "run 1\n"}},
	     "1.act:2:6: ",
	     "never created"},
	    {{{"1.act", "create 2\ncreate 3\n"}, {"2.act", "run 1\n"}, {"3.act", "create 2\n"}},
	     "3.act:1:8: ",
	     "created twice"},
	    {{{"1.act", "run 1\n"}, {"2.act", "create 3\n"}, {"3.act", "create 2\n"}},
	     "3.act:1:8: ",
	     "create cycle"},
	    {{{"1.act", "create 2\n"}, {"2.act", "\n\ncreate 1\n"}}, "2.act:3:8: ", "no root"},
	    {{{"1.act", "run 1\n"}, {"2.act", "run 1\n"}}, "2.act:1:1: ", "several root"},
	    {{{"1.act", "create 1\n"}}, "1.act:1:8: ", "creates itself"},
	    {{{"1.act", "create 2\nwake 1\n"}, {"2.act", "run 1\n"}}, "1.act:2:6: ", "itself"},
	    {{{"1.act", "create 2\n"}, {"2.act", "join 1\n"}}, "2.act:1:6: ", "root"},
	    /* a join that can never return (issue 26): a cycle of joins, a join before the
	     * create it waits for, a cycle through another thread's create */
	    {{{"1.act", "create 2\ncreate 3\njoin 2\njoin 3\n"},
	      {"2.act", "run 100\njoin 3\n"},
	      {"3.act", "run 100\njoin 2\n"}},
	     "2.act:2:6: ",
	     "2 joins 3 here, 3 joins 2 (3.act:2:6)"},
	    {{{"1.act", "create 2\njoin 2\n"}, {"2.act", "join 3\ncreate 3\n"}, {"3.act", ""}},
	     "2.act:1:6: ",
	     "3 starts only when 2 creates it (2.act:2:8)"},
	    {{{"1.act", "create 2\njoin 2\ncreate 3\n"}, {"2.act", "join 3\n"}, {"3.act", ""}},
	     "1.act:2:6: ",
	     "1 joins 2 here, 2 joins 3 (2.act:1:6), 3 starts only when 1 creates it"},
	    {{{"1.act", "create 2\ncreate 3\ncreate 4\njoin 4\n"},
	      {"2.act", "join 3\n"},
	      {"3.act", "join 4\n"},
	      {"4.act", "join 2\n"}},
	     "2.act:1:6: ",
	     "2 joins 3 here, 3 joins 4 (3.act:1:6), 4 joins 2 (4.act:1:6)"},
	    /* text only: a lone CR or an escape sequence is not a blank (issue 16) */
	    {{{"1.act", "run\r5\n"}}, "1.act:1:4: ", "control character 0x0d"},
	    {{{"1.act", "run 1\nbad\033[31mred 5\n"}}, "1.act:2:4: ", "control character 0x1b"},
	    /* stack changes that wrapped the stub's frame computation and crashed it */
	    {{{"1.act", "stack +140737488355328\n"}}, "1.act:1:7: ", "stack change beyond"},
	    {{{"1.act", "stack +1000000000\nstack +100000000\n"}}, "1.act:2:7: ", "1 GiB"},
	    {{{"1.act", "stack -140737488355328\n"}}, "1.act:1:7: ", "stack change beyond"},
	    /* a refused change after a first one: the depth was added before the refusal and
	     * overflowed (found by the fuzz smoke in CI) */
	    {{{"1.act", "stack +8192\nstack +9223372036854775807\n"}},
	     "1.act:2:7: ",
	     "stack change beyond"},
	    /* a file that says it is an action file but names no thread, and a duplicate in
	     * the manifest: reported, not skipped (issue 26) */
	    {{{"1.act", "run 1\n"}, {"foo.act", "run 2\n"}}, "foo.act: ", "expected <id>.act"},
	    {{{"1.act", "run 1\n"}, {"18446744073709551616.act", "run 2\n"}},
	     "18446744073709551616.act: ",
	     "0 to 2^64-1"},
	    {{{"1.act", "create 2\n"},
	      {"2.act", "run 1\n"},
	      {"manifest", "dps-manifest 1\nthread 2 comm \"a\"\nthread 1\nthread 2 tid 7\n"}},
	     "manifest:4:8: ",
	     "thread 2 described twice (first on line 2)"},
	    {{{"1.act", "run 1\n"}, {"manifest", "root 1\n# again\nroot 1\n"}},
	     "manifest:3:1: ",
	     "a second 'root' (first on line 1)"},
	    /* manifest gaps */
	    {{{"manifest", "dps-manifest 1\nthread 5\n"}}, "manifest:2:8: ", "no action file"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 1\nroot 9223372036854775808\n"}},
	     "manifest:2:6: ",
	     "out of range"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 1\nsource \"abc\\\"\n"}},
	     "manifest:2:8: ",
	     "unterminated string"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 1\noptions \"a\033]0;x\"\n"}},
	     "manifest:2:11: ",
	     "control character 0x1b"},
	};

	return cr_make_param_array(struct bad_set, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_set *c, actset, bad_sets_are_located, .init = make_dir,
		  .fini = remove_dir)
{
	struct dps_actset *set = (void *)1;
	struct dps_diag diag;
	char expect[256];

	write_files(c->files);
	dps_diag_clear(&diag);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_ERR_INVAL, "accepted %s: %s",
		     c->files[0].text, diag.msg);
	cr_assert_null(set);
	snprintf(expect, sizeof(expect), "%s/%s", dir, c->where);
	cr_assert_eq(strncmp(diag.msg, expect, strlen(expect)), 0, "expected '%s...', got '%s'",
		     expect, diag.msg);
	cr_assert_not_null(strstr(diag.msg, c->what), "expected '%s' in '%s'", c->what, diag.msg);
}

/*
 * Good sets
 */
#define MAX_ACTS 8

struct good_set {
	struct file files[MAX_FILES];
	size_t n_threads;
	uint64_t root_id;
	/* the actions of the first thread (by id), args resolved to indexes */
	size_t n_acts;
	struct dps_action acts[MAX_ACTS];
};

#define A(k, x)                                                                                    \
	{                                                                                          \
		.arg = (x), .kind = DPS_ACT_##k                                                    \
	}

ParameterizedTestParameters(actset, good_sets_load)
{
	static struct good_set cases[] = {
	    /* the paper's four keywords, integer microseconds */
	    {{{"100.act", "run 54\nsleep 12780\ncreate 101\njoin 101\n"}, {"101.act", "run 1\n"}},
	     2,
	     100,
	     4,
	     {A(RUN, 54000), A(SLEEP, 12780000), A(CREATE, 1), A(JOIN, 1)}},
	    /* comments, blank lines, tabs, CRLF, no final newline */
	    {{{"7.act", "# a comment\n\n\trun 1 # trailing\r\nsleep 2"}},
	     1,
	     7,
	     2,
	     {A(RUN, 1000), A(SLEEP, 2000)}},
	    /* units and fractions */
	    {{{"1.act", "dps-actions 1\nrun 850ns\nrun 0.85\nrun 1.5ms\nsleep 2s\nrun 3us\n"
			"run 0.001"}},
	     1,
	     1,
	     6,
	     {A(RUN, 850), A(RUN, 850), A(RUN, 1500000), A(SLEEP, 2000000000LL), A(RUN, 3000),
	      A(RUN, 1)}},
	    /* extensions: wait/wake, heap/stack */
	    {{{"1.act", "create 2\nwake 2\nwait 2\nheap +4096\nstack -512\njoin 2\n"},
	      {"2.act", "wait 1\nwake 1\n"}},
	     2,
	     1,
	     6,
	     {A(CREATE, 1), A(WAKE, 1), A(WAIT, 1), A(HEAP, 4096), A(STACK, -512), A(JOIN, 1)}},
	    /* a thread that joins its creator (no cycle: the creator does not join it), and one
	     * joined by two threads */
	    {{{"1.act", "create 2\ncreate 4\njoin 2\njoin 4\n"},
	      {"2.act", "create 3\n"},
	      {"3.act", "join 2\njoin 4\n"},
	      {"4.act", "run 1\n"}},
	     4,
	     1,
	     4,
	     {A(CREATE, 1), A(CREATE, 3), A(JOIN, 1), A(JOIN, 3)}},
	    /* a hidden file is no action file of the set (an editor's copy), whatever its name */
	    {{{"1.act", "run 1\n"}, {".1.act", "fly\n"}, {".foo.act", "create 9\n"}},
	     1,
	     1,
	     1,
	     {A(RUN, 1000)}},
	    /* an empty file is a thread with no actions; the root need not be the lowest id */
	    {{{"1.act", ""}, {"9.act", "create 1\n"}}, 2, 9, 0, {{0}}},
	    /* a run's cache figures (version 4), and runs without */
	    {{{"1.act", "dps-actions 4\nrun 1ms cache 2000000 600000 40000 4000\nrun 5\n"
			"run 0.5 cache 1 0 1 1 # one access, a miss at both levels\n"}},
	     1,
	     1,
	     3,
	     {A(RUN, 1000000), A(RUN, 5000), A(RUN, 500)}},
	    /* zero durations and the largest id */
	    {{{"18446744073709551615.act", "run 0\nsleep 0us\n"}},
	     1,
	     UINT64_MAX,
	     2,
	     {A(RUN, 0), A(SLEEP, 0)}},
	};

	return cr_make_param_array(struct good_set, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct good_set *c, actset, good_sets_load, .init = make_dir, .fini = remove_dir)
{
	struct dps_actset *set = NULL;
	struct dps_diag diag;
	const struct dps_actset_thread *t0;

	write_files(c->files);
	dps_diag_clear(&diag);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->n_threads, c->n_threads);
	cr_assert(set->resolved);
	cr_assert_eq(set->threads[set->root].id, c->root_id);
	t0 = &set->threads[0];
	cr_assert_eq(t0->n_actions, c->n_acts);
	for (size_t i = 0; i < c->n_acts; i++) {
		cr_assert_eq(t0->actions[i].kind, c->acts[i].kind, "action %zu", i);
		if (dps_actset_kind_names_thread(t0->actions[i].kind)) {
			/* the index is resolved, the id kept as written */
			cr_assert_eq(dps_actset_target(set, &t0->actions[i]),
				     (size_t)c->acts[i].arg, "action %zu", i);
			cr_assert_eq(set->threads[dps_actset_target(set, &t0->actions[i])].id,
				     t0->actions[i].id, "action %zu", i);
		} else {
			cr_assert_eq(t0->actions[i].value, c->acts[i].arg, "action %zu: %lld", i,
				     (long long)t0->actions[i].value);
		}
		cr_assert_gt(t0->actions[i].line, 0);
	}
	dps_actset_destroy(set);
}

Test(actset, missing_directory_is_noent)
{
	struct dps_actset *set = NULL;
	struct dps_diag diag;

	cr_assert_eq(dps_actset_load_dir("/nonexistent/set", &set, &diag), DPS_ERR_NOENT);
	cr_assert_null(set);
	cr_assert_not_null(strstr(diag.msg, "/nonexistent/set"), "%s", diag.msg);
}

Test(actset, empty_directory_has_no_thread, .init = make_dir, .fini = remove_dir)
{
	struct dps_actset *set = NULL;
	struct dps_diag diag;

	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_ERR_INVAL);
	cr_assert_not_null(strstr(diag.msg, "no thread"), "%s", diag.msg);
}

/* An action file that cannot be read (here a directory) is an I/O error that names it, not a
 * parse error and not a crash. */
/* A reference keeps the id it was written with; resolving adds the index beside it, so a
 * resolved set still writes the ids (ids and indexes once shared one member). */
Test(actset, references_keep_their_id_and_gain_an_index, .init = make_dir, .fini = remove_dir)
{
	static const struct file files[MAX_FILES] = {
	    {"5.act", "create 60\njoin 60\n"},
	    {"60.act", "run 10\n"},
	    {"manifest", "dps-manifest 1\nroot 5\nthread 60 comm \"worker\"\n"},
	};
	struct dps_actset *set = NULL;
	struct dps_diag diag;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	write_files(files);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->threads[set->root].id, 5);
	cr_assert_eq(set->threads[set->root].actions[0].kind, DPS_ACT_CREATE);
	cr_assert_eq(set->threads[set->root].actions[0].id, 60);
	cr_assert_eq(set->threads[dps_actset_target(set, &set->threads[set->root].actions[0])].id,
		     60);
	cr_assert_str_eq(
	    set->threads[dps_actset_target(set, &set->threads[set->root].actions[0])].comm,
	    "worker");
	mem = open_memstream(&text, &len);
	cr_assert_eq(dps_actset_write_thread(set, set->root, mem), DPS_OK);
	fclose(mem);
	cr_assert_not_null(strstr(text, "create 60\njoin 60\n"), "%s", text);
	free(text);
	dps_actset_destroy(set);
}

Test(actset, write_then_load_round_trips, .init = make_dir, .fini = remove_dir)
{
	static const struct file files[MAX_FILES] = {
	    {"5.act", "create 6\nrun 0.85\nsleep 1500\nwake 6\njoin 6\n"},
	    {"6.act", "wait 5\nheap +64\nstack +32\nstack -32\nheap -64\n"},
	};
	struct dps_actset *a = NULL, *b = NULL;
	struct dps_diag diag;
	char *out;

	write_files(files);
	cr_assert_eq(dps_actset_load_dir(dir, &a, &diag), DPS_OK, "%s", diag.msg);
	out = dps_test_strf("%s/copy", dir); /* removed with dir */
	cr_assert_eq(dps_actset_write_dir(a, out, 0, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(dps_actset_load_dir(out, &b, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(b->n_threads, a->n_threads);
	for (size_t t = 0; t < a->n_threads; t++) {
		cr_assert_eq(b->threads[t].n_actions, a->threads[t].n_actions);
		for (size_t i = 0; i < a->threads[t].n_actions; i++) {
			cr_assert_eq(b->threads[t].actions[i].kind, a->threads[t].actions[i].kind);
			cr_assert_eq(b->threads[t].actions[i].value,
				     a->threads[t].actions[i].value);
			cr_assert_eq(b->threads[t].actions[i].id, a->threads[t].actions[i].id);
		}
	}
	dps_actset_destroy(a);
	dps_actset_destroy(b);
	g_free(out);
}

/*
 * A run's cache figures (version 4): kept in the set's table, given to the player as 1 + their
 * index in arg2, written back as they were read, and the file that has them written as
 * version 4 while a file without them stays version 1.
 */
Test(actset, cache_figures_load_play_and_round_trip, .init = make_dir, .fini = remove_dir)
{
	static const struct file files[MAX_FILES] = {
	    {"1.act", "create 2\nrun 1ms cache 2000000 600000 40000 4000\nrun 5\njoin 2\n"},
	    {"2.act", "run 2 cache 64 64 0 0\nrun 3 cache 18446744073709551615 0 7 7\n"
		      "run 4 cache 18446744073709551615 18446744073709551615 18446744073709551615 "
		      "18446744073709551615 footprint 18446744073709551615\n"},
	};
	struct dps_actset *a = NULL, *b = NULL;
	struct dps_diag diag;
	struct dps_action p;
	char *out, *path, *text;

	write_files(files);
	cr_assert_eq(dps_actset_load_dir(dir, &a, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(a->n_caches, 4);
	cr_assert_eq(a->threads[0].actions[1].aux, 1);
	cr_assert_eq(a->threads[0].actions[2].aux, 0);
	cr_assert_eq(a->caches[0].accesses, 2000000);
	cr_assert_eq(a->caches[0].stores, 600000);
	cr_assert_eq(a->caches[0].d1_misses, 40000);
	cr_assert_eq(a->caches[0].ll_misses, 4000);
	cr_assert_eq(a->caches[2].accesses, UINT64_MAX);
	p = dps_actset_played_action(a, &a->threads[1].actions[1]);
	cr_assert_eq(p.kind, DPS_ACT_RUN);
	cr_assert_eq(p.arg, 3000);
	cr_assert_eq(p.arg2, 3, "run 3 plays the third figures: arg2 %lld", (long long)p.arg2);
	cr_assert_eq(dps_actset_thread_version(a, 0), 4);
	/* a footprint (version 5) raises its own file alone */
	cr_assert_eq(a->caches[0].footprint_bytes, 0);
	cr_assert_eq(a->caches[3].footprint_bytes, UINT64_MAX);
	cr_assert_eq(dps_actset_thread_version(a, 1), 5);
	/* a header of 4 raises nothing else: a file without figures, the manifest */
	cr_assert_eq(dps_actset_thread_version(a, DPS_ACTSET_NO_THREAD), 1);

	out = dps_test_strf("%s/copy", dir); /* removed with dir */
	cr_assert_eq(dps_actset_write_dir(a, out, 0, &diag), DPS_OK, "%s", diag.msg);
	path = dps_test_strf("%s/1.act", out);
	text = dps_test_read_file(path, NULL);
	cr_assert_str_eq(text, "dps-actions 4\ncreate 2\nrun 1000 cache 2000000 600000 40000 4000\n"
			       "run 5\njoin 2\n");
	g_free(text);
	g_free(path);
	/* the longest run line there is: every figure and the footprint at 2^64 - 1 */
	path = dps_test_strf("%s/2.act", out);
	text = dps_test_read_file(path, NULL);
	cr_assert(g_str_has_prefix(text, "dps-actions 5\n"), "%s", text);
	cr_assert(strstr(text, "\nrun 4 cache 18446744073709551615 18446744073709551615 "
			       "18446744073709551615 18446744073709551615 footprint "
			       "18446744073709551615\n"),
		  "%s", text);
	g_free(text);
	g_free(path);
	path = dps_test_strf("%s/manifest", out);
	text = dps_test_read_file(path, NULL);
	cr_assert_eq(strncmp(text, "dps-manifest 1\n", 15), 0, "%s", text);
	g_free(text);
	g_free(path);
	cr_assert_eq(dps_actset_load_dir(out, &b, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(b->n_caches, 4);
	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(memcmp(&a->caches[i], &b->caches[i], sizeof(a->caches[i])), 0,
			     "figures %zu", i);
	}
	dps_actset_destroy(b);
	dps_actset_destroy(a);
	g_free(out);

	/* built in memory: figures the stub would refuse, or none, are refused by resolve */
	a = dps_actset_create();
	cr_assert_not_null(a);
	cr_assert_eq(dps_actset_add_thread(a, 1), 0);
	cr_assert_eq(dps_actset_append2(a, 0, DPS_ACT_RUN, 1000, 1, 0), DPS_OK);
	cr_assert_eq(dps_actset_resolve(a, &diag), DPS_ERR_INVAL);
	cr_assert_not_null(strstr(diag.msg, "no such cache figures"), "%s", diag.msg);
	cr_assert_eq(
	    dps_actset_add_cache(
		a, &(struct dps_action_cache){.accesses = 5, .d1_misses = 2, .ll_misses = 3}),
	    0);
	cr_assert_eq(dps_actset_resolve(a, &diag), DPS_ERR_INVAL);
	cr_assert_not_null(strstr(diag.msg, "more LL misses than D1 misses"), "%s", diag.msg);
	a->caches[0].ll_misses = 1;
	cr_assert_eq(dps_actset_resolve(a, &diag), DPS_OK, "%s", diag.msg);
	dps_actset_destroy(a);
}

/*
 * What is not a text file of reasonable size is refused before it is read (issue 16): a FIFO
 * or /dev/zero used to hang the loader, a directory named like an action file was an I/O
 * failure (exit 1) instead of bad input.
 */
static void expect_refused(const char *what, const char *msg_part)
{
	struct dps_actset *set = (void *)1;
	struct dps_diag diag;

	dps_diag_clear(&diag);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_ERR_INVAL, "%s accepted: %s", what,
		     diag.msg);
	cr_assert_null(set);
	cr_assert_not_null(strstr(diag.msg, msg_part), "%s: expected '%s' in '%s'", what, msg_part,
			   diag.msg);
}

Test(actset, files_that_are_not_regular_are_refused, .init = make_dir, .fini = remove_dir,
     .timeout = 20)
{
	char path[128];

	write_files((struct file[MAX_FILES]){{"1.act", "create 2\n"}});
	snprintf(path, sizeof(path), "%s/2.act", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	expect_refused("a FIFO", "a FIFO");
	unlink(path);
	cr_assert_eq(symlink("/dev/zero", path), 0);
	expect_refused("/dev/zero", "a device");
	unlink(path);
	cr_assert_eq(mkdir(path, 0700), 0);
	expect_refused("a directory", "a directory");
	rmdir(path);
}

Test(actset, a_line_longer_than_the_limit_or_a_nul_byte_is_refused, .init = make_dir,
     .fini = remove_dir)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/1.act", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("run 1\n# ", f);
	for (int i = 0; i < 5000; i++) {
		fputc('x', f);
	}
	fputs("\nrun 2\n", f);
	fclose(f);
	expect_refused("a 5000-byte line", "1.act:2:4097: line longer than 4096 bytes");
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fwrite("run 1\nrun\0 2\n", 1, 14, f);
	fclose(f);
	expect_refused("a NUL byte", "1.act:2:4: unexpected control character 0x00");
}
