/* SPDX-License-Identifier: MIT */
/*
 * Format version 2 (issue 13): the objects of the manifest and the actions lock, unlock, put,
 * take, arrive, `wait ID timeout D`, `wait ID|ID`, `join any ID|ID`; version 3 (issue 24): the
 * rwlock, `rdlock`, a put or take of several items (a pipe's bytes). Each parses into what it
 * says, each bad use is refused at its file:line:column, a version-1 set is still read and
 * written as version 1, a version-2 set is written back as version 2 as it was read, a
 * version-3 set as version 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <glib.h>

#include "actset.h"
#include "dps-test.h"

#define MAX_FILES 4

/* Inline arrays, not pointers: Criterion runs each parameter in a fresh process image. */
struct file {
	char name[32];
	char text[200];
};

static char *dir; /* g_free: the test's directory (dps_test_mkdtemp) */

static void make_dir(void)
{
	dir = dps_test_mkdtemp("actset-sync");
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

#define MANIFEST "dps-manifest 2\nobject 1 mutex\nobject 2 queue 4 0\nobject 3 barrier 2\n"
#define MANIFEST3                                                                                  \
	"dps-manifest 3\nobject 1 mutex\nobject 2 queue 4 0\nobject 3 barrier 2\nobject 4 "        \
	"rwlock\n"

struct bad_set {
	struct file files[MAX_FILES];
	char where[24]; /* "1.act:2:5: " expected right after "<dir>/" */
	char what[48];	/* a piece of the message */
};

ParameterizedTestParameters(actset_sync, bad_sets_are_located)
{
	static struct bad_set cases[] = {
	    /* objects: undeclared, of the wrong kind */
	    {{{"1.act", "dps-actions 2\nlock 9\nunlock 9\n"}, {"manifest", MANIFEST}},
	     "1.act:2:6: ",
	     "not declared"},
	    {{{"1.act", "dps-actions 2\nput 1\n"}, {"manifest", MANIFEST}},
	     "1.act:2:5: ",
	     "a mutex: expected a queue"},
	    {{{"1.act", "dps-actions 2\narrive 2\n"}, {"manifest", MANIFEST}},
	     "1.act:2:8: ",
	     "expected a barrier"},
	    {{{"1.act", "dps-actions 2\nlock 3\nunlock 3\n"}, {"manifest", MANIFEST}},
	     "1.act:2:6: ",
	     "expected a mutex"},
	    /* locks: unlock of a mutex not held, a lock never unlocked, a lock held twice */
	    {{{"1.act", "dps-actions 2\nrun 5\nunlock 1\n"}, {"manifest", MANIFEST}},
	     "1.act:3:8: ",
	     "does not hold"},
	    {{{"1.act", "dps-actions 2\nlock 1\nrun 5\n"}, {"manifest", MANIFEST}},
	     "1.act:2:6: ",
	     "never unlocked"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nlock 1\nunlock 1\njoin 2\n"},
	      {"2.act", "lock 1\nunlock 1\nlock 1\n"},
	      {"manifest", MANIFEST}},
	     "2.act:3:6: ",
	     "never unlocked"},
	    {{{"1.act", "dps-actions 2\nlock 1\nlock 1\nunlock 1\n"}, {"manifest", MANIFEST}},
	     "1.act:3:6: ",
	     "already holds"},
	    /* a take nothing can satisfy */
	    {{{"1.act", "dps-actions 2\ncreate 2\ntake 2\n"},
	      {"2.act", "run 5\n"},
	      {"manifest", MANIFEST}},
	     "1.act:3:6: ",
	     "no thread puts into"},
	    /* timed waits */
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2 timeout\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:16: ",
	     "expected a duration after 'timeout'"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2 timeout -3ms\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:16: ",
	     "non-negative"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2 timeout 3ms 4\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:20: ",
	     "expected end of line"},
	    {{{"1.act", "dps-actions 2\nwait 7 timeout 3ms\n"}}, "1.act:2:6: ", "never created"},
	    /* member sets */
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2|\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:8: ",
	     "separated by '|'"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2|x\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:8: ",
	     "separated by '|'"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2|9\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:6: ",
	     "never created"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2|1\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:6: ",
	     "the thread itself"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2|2\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:6: ",
	     "twice"},
	    {{{"1.act", "dps-actions 2\ncreate 2\njoin any\n"}, {"2.act", "run 1\n"}},
	     "1.act:3:10: ",
	     "expected thread ids after 'join any'"},
	    /* join any: every member joined in the end, each once */
	    {{{"1.act", "dps-actions 2\ncreate 2\ncreate 3\njoin any 2|3\n"},
	      {"2.act", "run 1\n"},
	      {"3.act", "run 1\n"}},
	     "1.act:4:10: ",
	     "written 1 time"},
	    {{{"1.act", "dps-actions 2\ncreate 2\ncreate 3\njoin any 2|3\njoin any 2|3\njoin 2\n"},
	      {"2.act", "run 1\n"},
	      {"3.act", "run 1\n"}},
	     "1.act:4:10: ",
	     "joins too"},
	    {{{"1.act", "dps-actions 2\ncreate 2\ncreate 3\njoin any 2|3\njoin any 3|1\n"},
	      {"2.act", "run 1\n"},
	      {"3.act", "run 1\n"}},
	     "1.act:5:10: ",
	     "the thread itself"},
	    /* task queues: a queue declared above, one entry per take */
	    {{{"1.act", "dps-actions 2\nlock 1\nunlock 1\n"}, {"manifest", MANIFEST "tasks 1 1\n"}},
	     "manifest:5:7: ",
	     "expected a queue declared above"},
	    {{{"1.act", "dps-actions 2\nput 2\n"}, {"manifest", MANIFEST "tasks 2\n"}},
	     "manifest:5:9: ",
	     "expected the ids of the threads"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nput 2\nput 2\ntake 2\njoin 2\n"},
	      {"2.act", "take 2\nrun 5\n"},
	      {"manifest", MANIFEST "tasks 2 1 2 2\n"}},
	     "manifest:5: ",
	     "lists thread 2 2 times"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nput 2\njoin 2\n"},
	      {"2.act", "take 2\n"},
	      {"manifest", MANIFEST "tasks 2 9\n"}},
	     "manifest:5: ",
	     "is no thread of the set"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nput 2\nput 2\njoin 2\n"},
	      {"2.act", "take 2\nsleep 1\ncreate 3\ntake 2\n"},
	      {"3.act", "run 1\n"},
	      {"manifest", MANIFEST "tasks 2 2 2\n"}},
	     "2.act:3:8: ",
	     "in an item of task queue 2"},
	    /* version 2 in a file or manifest that says 1 */
	    {{{"1.act", "dps-actions 1\nlock 1\nunlock 1\n"}, {"manifest", MANIFEST}},
	     "1.act:2:1: ",
	     "expected 'dps-actions 2'"},
	    {{{"1.act", "dps-actions 1\ncreate 2\nwait 2 timeout 5ms\n"}, {"2.act", "wake 1\n"}},
	     "1.act:3:1: ",
	     "expected 'dps-actions 2'"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 1\nobject 1 mutex\n"}},
	     "manifest:2:1: ",
	     "expected 'dps-manifest 2'"},
	    /* the manifest's objects */
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 2\nobject 1 lock\n"}},
	     "manifest:2:10: ",
	     "expected an object kind"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 2\nobject 1 queue\n"}},
	     "manifest:2:16: ",
	     "capacity"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 2\nobject 1 barrier 0\n"}},
	     "manifest:2:18: ",
	     "0 parties"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 2\nobject 1 queue 2 3\n"}},
	     "manifest:2:18: ",
	     "starts with 3 items"},
	    {{{"1.act", "run 1\n"},
	      {"manifest", "dps-manifest 2\nobject 1 mutex\nobject 1 mutex\n"}},
	     "manifest:3:8: ",
	     "declared twice"},
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 2\nobject 1 mutex 4\n"}},
	     "manifest:2:16: ",
	     "expected end of line"},
	    /* version 3: rwlocks, put and take of several items */
	    {{{"1.act", "run 1\n"}, {"manifest", "dps-manifest 2\nobject 1 rwlock\n"}},
	     "manifest:2:10: ",
	     "expected 'dps-manifest 3'"},
	    {{{"1.act", "dps-actions 2\nrdlock 4\nunlock 4\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:1: ",
	     "expected 'dps-actions 3'"},
	    {{{"1.act", "dps-actions 2\nput 2 512\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:7: ",
	     "expected 'dps-actions 3'"},
	    {{{"1.act", "dps-actions 3\nput 2 0\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:7: ",
	     "a count of 0 items"},
	    {{{"1.act", "dps-actions 3\ntake 2 x\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:8: ",
	     "expected an item count"},
	    {{{"1.act", "dps-actions 3\nput 2 3 4\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:9: ",
	     "expected end of line"},
	    {{{"1.act", "dps-actions 3\nrdlock 1\nunlock 1\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:8: ",
	     "a mutex: expected a rwlock"},
	    {{{"1.act", "dps-actions 3\nrdlock 2\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:8: ",
	     "a queue: expected a rwlock"},
	    {{{"1.act", "dps-actions 3\nrdlock 4\nlock 4\nunlock 4\n"}, {"manifest", MANIFEST3}},
	     "1.act:3:6: ",
	     "already holds"},
	    {{{"1.act", "dps-actions 3\nrun 1\nunlock 4\n"}, {"manifest", MANIFEST3}},
	     "1.act:3:8: ",
	     "rwlock 4 which this thread does not hold"},
	    {{{"1.act", "dps-actions 3\nrdlock 4\nrun 1\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:8: ",
	     "never unlocked"},
	    /* the limits the player shares (issue 26): an item count it cannot hold, a timeout
	     * beyond the one duration limit */
	    {{{"1.act", "dps-actions 3\nput 2 9223372036854775808\n"}, {"manifest", MANIFEST3}},
	     "1.act:2:7: ",
	     "item count too large (at most 2^63-1)"},
	    {{{"1.act", "dps-actions 2\ncreate 2\nwait 2 timeout 18446744073709551616ns\n"},
	      {"2.act", "wake 1\n"},
	      {"manifest", MANIFEST}},
	     "1.act:3:16: ",
	     "duration too large (at most 2^63-1 ns)"},
	    /* a task queue moves one item at a take */
	    {{{"1.act", "dps-actions 3\ncreate 2\ncreate 3\nput 1 4\njoin 2\njoin 3\n"},
	      {"2.act", "dps-actions 3\ntake 1 2\nrun 5\ntake 1\n"},
	      {"3.act", "dps-actions 3\ntake 1\n"},
	      {"manifest", "dps-manifest 3\nobject 1 queue 4 0\ntasks 1 2 2 3\n"}},
	     "2.act:2:6: ",
	     "a take of one item"},
	};

	return cr_make_param_array(struct bad_set, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_set *c, actset_sync, bad_sets_are_located, .init = make_dir,
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

/* The text of file name in directory d (g_free). */
static char *read_in(const char *d, const char *name)
{
	char *path = dps_test_strf("%s/%s", d, name);
	char *text = dps_test_read_file(path, NULL);

	g_free(path);
	cr_assert_not_null(text, "no %s/%s", d, name);
	return text;
}

/* A set with every action of version 2, and what each must become. */
static void write_full_set(void)
{
	static const struct file files[MAX_FILES] = {
	    {"1.act", "dps-actions 2\ncreate 2\ncreate 3\nlock 1\nput 2\nunlock 1\narrive 3\n"
		      "wait 2 timeout 300ms\nwait 2|3\njoin any 3|2\njoin any 2|3\n"},
	    {"2.act", "dps-actions 2\ntake 2\nwake 1\n"},
	    {"3.act", "dps-actions 2\narrive 3\nwake 1\n"},
	    {"manifest", MANIFEST},
	};

	write_files(files);
}

Test(actset_sync, every_action_parses_into_what_it_says, .init = make_dir, .fini = remove_dir)
{
	struct dps_actset *set = NULL;
	struct dps_diag diag;
	const struct dps_actset_thread *t;
	const struct dps_actset_action *a;

	write_full_set();
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->format_version, 2);
	cr_assert_eq(set->n_objects, 3);
	cr_assert_eq(set->objects[0].kind, DPS_OBJ_MUTEX);
	cr_assert_eq(set->objects[1].kind, DPS_OBJ_QUEUE);
	cr_assert_eq(set->objects[1].capacity, 4);
	cr_assert_eq(set->objects[2].kind, DPS_OBJ_BARRIER);
	cr_assert_eq(set->objects[2].capacity, 2);
	t = &set->threads[dps_actset_find(set, 1)];
	cr_assert_eq(t->n_actions, 10);
	a = t->actions;
	cr_assert_eq(a[2].kind, DPS_ACT_LOCK);
	cr_assert_eq(a[2].id, 1);
	cr_assert_eq(a[3].kind, DPS_ACT_PUT);
	cr_assert_eq(a[3].id, 2);
	cr_assert_eq(a[4].kind, DPS_ACT_UNLOCK);
	cr_assert_eq(a[5].kind, DPS_ACT_ARRIVE);
	cr_assert_eq(a[5].id, 3);
	cr_assert_eq(a[6].kind, DPS_ACT_WAIT_TIMEOUT);
	cr_assert_eq(a[6].id, 2);
	cr_assert_eq(a[6].aux, 300000000);
	cr_assert_eq(dps_actset_target(set, &a[6]), dps_actset_find(set, 2));
	cr_assert_eq(a[7].kind, DPS_ACT_WAIT_ANY);
	cr_assert_eq(a[7].aux, 2);
	cr_assert_eq(set->members[a[7].first], 2);
	cr_assert_eq(set->members[a[7].first + 1], 3);
	cr_assert_eq(a[8].kind, DPS_ACT_JOIN_ANY);
	cr_assert_eq(set->members[a[8].first], 3);
	/* the played form: objects and members by index */
	{
		struct dps_action p = dps_actset_played_action(set, &a[3]);

		cr_assert_eq(p.arg, (int64_t)dps_actset_find_object(set, 2));
		p = dps_actset_played_action(set, &a[6]);
		cr_assert_eq(p.arg, (int64_t)dps_actset_find(set, 2));
		cr_assert_eq(p.arg2, 300000000);
		p = dps_actset_played_action(set, &a[7]);
		cr_assert_eq(p.arg, (int64_t)a[7].first);
		cr_assert_eq(p.arg2, 2);
	}
	dps_actset_destroy(set);
}

Test(actset_sync, a_version_2_set_is_written_as_it_was_read, .init = make_dir, .fini = remove_dir)
{
	struct dps_actset *set = NULL, *again = NULL;
	struct dps_diag diag;
	char *out = dps_test_strf("%s/out", dir);
	char *text;

	write_full_set();
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(dps_actset_write_dir(set, out, 0, &diag), DPS_OK, "%s", diag.msg);
	text = read_in(out, "1.act");
	cr_assert_str_eq(text, "dps-actions 2\ncreate 2\ncreate 3\nlock 1\nput 2\nunlock 1\n"
			       "arrive 3\nwait 2 timeout 300000\nwait 2|3\njoin any 3|2\n"
			       "join any 2|3\n");
	g_free(text);
	text = read_in(out, "manifest");
	cr_assert(g_str_has_prefix(text, "dps-manifest 2\n"), "%s", text);
	cr_assert_not_null(strstr(text, "\nobject 1 mutex\nobject 2 queue 4 0\nobject 3 "
					"barrier 2\n"),
			   "%s", text);
	g_free(text);
	cr_assert_eq(dps_actset_load_dir(out, &again, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(again->n_objects, 3);
	cr_assert_eq(again->threads[0].n_actions, set->threads[0].n_actions);
	dps_actset_destroy(again);
	dps_actset_destroy(set);
	g_free(out);
}

/* The paper's and version 1's sets: read, and written back as version 1. */
Test(actset_sync, a_version_1_set_stays_version_1, .init = make_dir, .fini = remove_dir)
{
	static const struct file files[MAX_FILES] = {
	    {"1.act", "dps-actions 1\ncreate 2\nwait 2\nrun 5\njoin 2\n"},
	    {"2.act", "sleep 3\nwake 1\n"},
	    {"manifest", "dps-manifest 1\nroot 1\n"},
	};
	struct dps_actset *set = NULL;
	struct dps_diag diag;
	char *out = dps_test_strf("%s/out", dir);
	char *text;

	write_files(files);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->format_version, 1);
	cr_assert_eq(set->threads[0].actions[1].kind, DPS_ACT_WAIT);
	cr_assert_eq(dps_actset_write_dir(set, out, 0, &diag), DPS_OK, "%s", diag.msg);
	text = read_in(out, "1.act");
	cr_assert_str_eq(text, "dps-actions 1\ncreate 2\nwait 2\nrun 5\njoin 2\n");
	g_free(text);
	text = read_in(out, "manifest");
	cr_assert(g_str_has_prefix(text, "dps-manifest 1\n"), "%s", text);
	g_free(text);
	dps_actset_destroy(set);
	g_free(out);
}

/* A queue that starts with items may be taken from without a put. */
Test(actset_sync, a_queue_with_initial_items_needs_no_put, .init = make_dir, .fini = remove_dir)
{
	static const struct file files[MAX_FILES] = {
	    {"1.act", "dps-actions 2\ntake 1\ntake 1\n"},
	    {"manifest", "dps-manifest 2\nobject 1 queue 0 2\n"},
	};
	struct dps_actset *set = NULL;
	struct dps_diag diag;

	write_files(files);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->objects[0].initial, 2);
	cr_assert_eq(set->objects[0].capacity, 0);
	dps_actset_destroy(set);
}

/* A task queue's takers are read, kept and written back as they were. */
Test(actset_sync, a_task_queue_is_written_as_it_was_read, .init = make_dir, .fini = remove_dir)
{
	static const struct file files[MAX_FILES] = {
	    {"1.act", "dps-actions 2\ncreate 2\ncreate 3\nput 1\nput 1\nput 1\nput 1\n"
		      "join 2\njoin 3\n"},
	    {"2.act", "dps-actions 2\ntake 1\nrun 5\ntake 1\n"},
	    {"3.act", "dps-actions 2\ntake 1\nrun 7\ntake 1\n"},
	    {"manifest", "dps-manifest 2\nobject 1 queue 4 0\ntasks 1 2 3 3 2\n"},
	};
	struct dps_actset *set = NULL;
	struct dps_diag diag;
	char *out = dps_test_strf("%s/out", dir);
	char *text;

	write_files(files);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->objects[0].n_order, 4);
	cr_assert_eq(set->objects[0].order[2], 3);
	cr_assert_eq(dps_actset_write_dir(set, out, 0, &diag), DPS_OK, "%s", diag.msg);
	text = read_in(out, "manifest");
	cr_assert_not_null(strstr(text, "\nobject 1 queue 4 0\ntasks 1 2 3 3 2\n"), "%s", text);
	g_free(text);
	dps_actset_destroy(set);
	g_free(out);
}

/* Version 3: a rwlock's read and write sides, a pipe's bytes as a queue's items; read as
 * written, written back as version 3; a version-2 set is not made version 3. */
Test(actset_sync, a_version_3_set_is_written_as_it_was_read, .init = make_dir, .fini = remove_dir)
{
	static const struct file files[MAX_FILES] = {
	    {"1.act", "dps-actions 3\ncreate 2\nrdlock 4\nput 2 4096\nunlock 4\nlock 4\n"
		      "unlock 4\nput 2\njoin 2\n"},
	    {"2.act", "dps-actions 3\ntake 2 4000\ntake 2 97\ntake 2 1\nrdlock 4\nunlock 4\n"},
	    {"manifest", MANIFEST3},
	};
	struct dps_actset *set = NULL, *again = NULL;
	struct dps_diag diag;
	char *out = dps_test_strf("%s/out", dir);
	const struct dps_actset_action *a;
	struct dps_action p;
	char *text;

	write_files(files);
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(set->format_version, 3);
	cr_assert_eq(set->objects[3].kind, DPS_OBJ_RWLOCK);
	a = set->threads[dps_actset_find(set, 1)].actions;
	cr_assert_eq(a[1].kind, DPS_ACT_RDLOCK);
	cr_assert_eq(a[1].id, 4);
	cr_assert_eq(a[2].kind, DPS_ACT_PUT);
	cr_assert_eq(a[2].aux, 4096);
	cr_assert_eq(a[6].kind, DPS_ACT_PUT);
	cr_assert_eq(a[6].aux, 0);
	/* a count of 1 is one item, as none (the fuzzer's round trip: it is written without) */
	cr_assert_eq(set->threads[dps_actset_find(set, 2)].actions[2].aux, 0);
	p = dps_actset_played_action(set, &a[2]);
	cr_assert_eq(p.arg, (int64_t)dps_actset_find_object(set, 2));
	cr_assert_eq(p.arg2, 4096);
	cr_assert_eq(dps_actset_write_dir(set, out, 0, &diag), DPS_OK, "%s", diag.msg);
	text = read_in(out, "1.act");
	cr_assert_str_eq(text, "dps-actions 3\ncreate 2\nrdlock 4\nput 2 4096\nunlock 4\n"
			       "lock 4\nunlock 4\nput 2\njoin 2\n");
	g_free(text);
	text = read_in(out, "manifest");
	cr_assert(g_str_has_prefix(text, "dps-manifest 3\n"), "%s", text);
	cr_assert_not_null(strstr(text, "\nobject 4 rwlock\n"), "%s", text);
	g_free(text);
	text = read_in(out, "2.act");
	cr_assert_str_eq(text,
			 "dps-actions 3\ntake 2 4000\ntake 2 97\ntake 2\nrdlock 4\nunlock 4\n");
	g_free(text);
	cr_assert_eq(dps_actset_load_dir(out, &again, &diag), DPS_OK, "%s", diag.msg);
	dps_actset_destroy(again);
	dps_actset_destroy(set);
	g_free(out);
	/* a version-2 set is written as version 2 */
	out = dps_test_strf("%s/out2", dir);
	write_full_set();
	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_assert_eq(dps_actset_write_dir(set, out, 0, &diag), DPS_OK, "%s", diag.msg);
	text = read_in(out, "2.act");
	cr_assert(g_str_has_prefix(text, "dps-actions 2\n"), "%s", text);
	g_free(text);
	dps_actset_destroy(set);
	g_free(out);
}
