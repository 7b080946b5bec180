/* SPDX-License-Identifier: MIT */
/*
 * The stream files of a trace checked against each other and their index (analyzer/streams.c)
 * on copies of the test traces with a stream file deleted, copied, or deleted with its index:
 * each named, the copies left out, and nothing said of an undamaged trace. dps analyze on the
 * same damage: tests/analyzer/corrupt-corpus.py (ctest analyzer-corrupt-corpus).
 */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "dps-test.h"
#include "streams.h"

/* A copy of the test trace rel (tests/data/traces/REL) in a new directory (g_free; remove it
 * with dps_test_rmtree). */
static char *copy_trace(const char *rel)
{
	char *src = dps_test_data_path(rel);
	char *dir = dps_test_mkdtemp("streams");
	char *dst = g_build_filename(dir, "t", NULL);

	cr_assert_eq(dps_test_sh("cp -r '%s' '%s' && chmod -R u+w '%s'", src, dst, dst), 0);
	g_free(src);
	g_free(dir);
	return dst;
}

static void remove_copy(char *trace)
{
	char *dir = g_path_get_dirname(trace);

	dps_test_rmtree(dir);
	g_free(dir);
	g_free(trace);
}

struct found {
	GPtrArray *skips, *left_out;
};

static struct found check(const char *trace)
{
	struct found f = {g_ptr_array_new_with_free_func(g_free),
			  g_ptr_array_new_with_free_func(g_free)};

	analyzer_streams_check(trace, f.skips, f.left_out);
	return f;
}

static void found_fini(struct found *f)
{
	g_ptr_array_free(f->skips, TRUE);
	g_ptr_array_free(f->left_out, TRUE);
}

static const char *skip(const struct found *f, guint i)
{
	return g_ptr_array_index(f->skips, i);
}

Test(streams, an_undamaged_trace_gives_nothing)
{
	static const char *const traces[] = {
	    "traces/ls-ust/ust",
	    "traces/many-threads/kernel",
	    "traces/pacman/kernel",
	    "traces/perf-idle-cpu1/perf",
	    "traces/record-live-prog/ust/uid/0/64-bit",
	    "traces/tracefile-rotation-sched/kernel",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(traces); i++) {
		char *path = dps_test_data_path(traces[i]);
		struct found f = check(path);

		cr_expect_eq(f.skips->len, 0, "%s: %s", path, f.skips->len ? skip(&f, 0) : "");
		cr_expect_eq(f.left_out->len, 0, "%s", path);
		found_fini(&f);
		g_free(path);
	}
}

Test(streams, a_deleted_stream_file_its_index_names_is_missing)
{
	char *t = copy_trace("traces/pacman/kernel");
	struct found f;

	cr_assert_eq(dps_test_sh("rm '%s/k_2'", t), 0);
	f = check(t);
	cr_assert_eq(f.skips->len, 1, "%u findings", f.skips->len);
	cr_expect(strstr(skip(&f, 0), "/k_2: stream file missing (its index lists 1 packet)"), "%s",
		  skip(&f, 0));
	cr_expect_eq(f.left_out->len, 0);
	found_fini(&f);
	remove_copy(t);
}

Test(streams, the_last_file_of_a_rotated_stream_deleted_is_missing)
{
	/* no later file of its stream: no gap in the packets' sequence numbers tells */
	char *t = copy_trace("traces/tracefile-rotation-sched/kernel");
	struct found f;

	cr_assert_eq(dps_test_sh("rm '%s/mychan_0_2'", t), 0);
	f = check(t);
	cr_assert_eq(f.skips->len, 1);
	cr_expect(strstr(skip(&f, 0), "/mychan_0_2: stream file missing"), "%s", skip(&f, 0));
	found_fini(&f);
	remove_copy(t);
}

Test(streams, a_copied_stream_file_is_left_out_and_named_with_its_original)
{
	static const char *const traces[] = {"traces/many-threads/kernel",
					     "traces/perf-idle-cpu1/perf"};

	for (size_t i = 0; i < G_N_ELEMENTS(traces); i++) {
		char *t = copy_trace(traces[i]);
		char *first = NULL, *want;
		struct found f;

		/* the largest stream file, copied under a name that sorts before it */
		cr_assert_eq(dps_test_sh("cd '%s' && f=$(ls -S | grep -v -x -e metadata -e index "
					 "| head -1) && cp \"$f\" 0-copy-of-\"$f\"",
					 t),
			     0);
		f = check(t);
		cr_assert_eq(f.skips->len, 1, "%s: %u findings", traces[i], f.skips->len);
		cr_assert_eq(f.left_out->len, 1);
		first = g_ptr_array_index(f.left_out, 0);
		want = g_strdup_printf("%s/0-copy-of-", t);
		/* the copy, though its name sorts first: it has no index (many-threads), its
		 * name is not like the others' (perf) */
		cr_expect(g_str_has_prefix(first, want), "%s left out", first);
		cr_expect(strstr(skip(&f, 0), "a copy of the stream file"), "%s", skip(&f, 0));
		g_free(want);
		found_fini(&f);
		remove_copy(t);
	}
}

Test(streams, a_copy_with_its_index_is_left_out_not_the_original)
{
	char *t = copy_trace("traces/ls-ust/ust");
	struct found f;

	cr_assert_eq(
	    dps_test_sh("cd '%s' && cp u_2 u_2.bak && cp index/u_2.idx index/u_2.bak.idx", t), 0);
	f = check(t);
	cr_assert_eq(f.left_out->len, 1);
	cr_expect(g_str_has_suffix(g_ptr_array_index(f.left_out, 0), "/u_2.bak"));
	found_fini(&f);
	remove_copy(t);
}

Test(streams, a_damaged_copy_with_its_index_is_a_duplicate_by_its_index)
{
	/* its first bytes differ from the original's: its index names the same first packet */
	char *t = copy_trace("traces/ls-ust/ust");
	struct found f;

	cr_assert_eq(dps_test_sh("cd '%s' && cp u_2 u_2.bak && cp index/u_2.idx index/u_2.bak.idx "
				 "&& printf 'X' | dd of=u_2.bak bs=1 seek=1000 conv=notrunc "
				 "2>/dev/null",
				 t),
		     0);
	f = check(t);
	cr_assert_eq(f.skips->len, 1, "%u findings", f.skips->len);
	cr_expect(strstr(skip(&f, 0), "/u_2.bak: the same first packet as"), "%s", skip(&f, 0));
	cr_expect(strstr(skip(&f, 0), "instance 2"), "%s", skip(&f, 0));
	cr_assert_eq(f.left_out->len, 1);
	found_fini(&f);
	remove_copy(t);
}

Test(streams, a_stream_file_deleted_with_its_index_leaves_a_gap_in_the_instance_ids)
{
	char *t = copy_trace("traces/ls-ust/ust");
	struct found f;

	cr_assert_eq(dps_test_sh("cd '%s' && rm u_3 index/u_3.idx", t), 0);
	f = check(t);
	cr_assert_eq(f.skips->len, 1, "%u findings", f.skips->len);
	cr_expect(strstr(skip(&f, 0), "stream instance 3 of stream class 0"), "%s", skip(&f, 0));
	found_fini(&f);
	remove_copy(t);
}

Test(streams, a_damaged_instance_id_in_an_index_leaves_no_stream_file_out)
{
	/* u_3's index says instance 2 (u_2's): babeltrace2 takes the ids from the packets, and
	 * the file is read; a duplicate would need the same first packet, time included */
	char *t = copy_trace("traces/ls-ust/ust");
	struct found f;

	cr_assert_eq(dps_test_sh("printf '\\002' | dd of='%s/index/u_3.idx' bs=1 seek=79 "
				 "conv=notrunc 2>/dev/null",
				 t),
		     0);
	f = check(t);
	cr_expect_eq(f.left_out->len, 0, "%s", f.skips->len ? skip(&f, 0) : "");
	found_fini(&f);
	remove_copy(t);
}

Test(streams, what_is_not_an_index_is_not_read_as_one)
{
	static const char *const bad[] = {
	    "",						     /* empty */
	    "\xC1\xF1\xDC\xC1",				     /* a magic alone */
	    "\xC1\xF1\xDC\xC1\0\0\0\2\0\0\0\1\0\0\0\x48",    /* major 2 */
	    "\xC1\xF1\xDC\xC1\0\0\0\1\0\0\0\1\0\0\0\x08",    /* entries of 8 bytes */
	    "\xC1\xF1\xDC\xC1\0\0\0\1\0\0\0\1\0\0\0\x48xyz", /* not a whole entry */
	};
	static const size_t len[] = {0, 4, 16, 16, 19};
	char *dir = dps_test_mkdtemp("streams-idx");
	char *path = g_build_filename(dir, "x.idx", NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		struct analyzer_index_summary s;

		cr_assert(g_file_set_contents(path, bad[i], (gssize)len[i], NULL));
		cr_expect(!analyzer_index_read(path, &s), "case %zu read as an index", i);
		cr_expect_eq(s.n_packets, 0);
	}
	g_free(path);
	dps_test_rmtree(dir);
	g_free(dir);
}
