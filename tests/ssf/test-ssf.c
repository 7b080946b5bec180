/* SPDX-License-Identifier: MIT */
/*
 * SSF (doc/ssf.md): the corpus through gen -> compile (-O0, -O2) -> record -> restore ->
 * record again -> byte compare; the decoder against golden files; every error path of the
 * file format (truncation at every length, every byte corrupted, each header field); the four
 * restore cases and the errors of libdps's calls; the generator's refusals.
 */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include <dps/ssf.h>

#include "dps-test.h"
#include "ssf-tool.h"

/* ---- the corpus ---- */

/* Records with rec, restores and records again with res; the two files must be the same
 * bytes, and check mode must find no difference. Returns the recording (g_free). */
static char *round_trip(const char *rec, const char *res, char **dir_out)
{
	char *dir = dps_test_mkdtemp("ssf");
	char *a = dps_test_strf("%s/a.ssf", dir), *b = dps_test_strf("%s/b.ssf", dir);
	struct dps_test_run r;
	char *ta, *tb;
	size_t la, lb;

	/* The restored objects are the driver's to keep until it exits (case 2 hands them
	 * over), so a leak report from it would say nothing: leak checks off for the drivers. */
	const char *const env[] = {"ASAN_OPTIONS=detect_leaks=0", NULL};

	r = dps_test_run(NULL, (const char *const[]){rec, "record", a, NULL}, env);
	cr_assert_eq(r.status, 0, "record: %s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run(NULL, (const char *const[]){res, "restore", a, b, NULL}, env);
	cr_assert_eq(r.status, 0, "restore: %s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run(NULL, (const char *const[]){res, "check", a, NULL}, env);
	cr_assert_eq(r.status, 0, "check: %s", r.err);
	dps_test_run_fini(&r);
	ta = dps_test_read_file(a, &la);
	tb = dps_test_read_file(b, &lb);
	cr_assert(ta && tb);
	cr_assert(
	    la == lb && !memcmp(ta, tb, la),
	    "the restored objects recorded again differ from the recording (%zu vs %zu bytes)", la,
	    lb);
	g_free(tb);
	g_free(b);
	*dir_out = dir;
	g_free(ta);
	return a;
}

static void round_trip_once(const char *rec, const char *res)
{
	char *dir = NULL, *a = round_trip(rec, res, &dir);

	g_free(a);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(ssf, corpus_round_trips_at_O0)
{
	round_trip_once(SSF_DRIVER_O0, SSF_DRIVER_O0);
}

Test(ssf, corpus_round_trips_at_O2)
{
	round_trip_once(SSF_DRIVER_O2, SSF_DRIVER_O2);
}

Test(ssf, corpus_recorded_at_O0_restores_at_O2_and_back)
{
	round_trip_once(SSF_DRIVER_O0, SSF_DRIVER_O2);
	round_trip_once(SSF_DRIVER_O2, SSF_DRIVER_O0);
}

/* ---- the decoder ---- */

/* dps ssf decode [form] of the corpus recording is the golden file expect. */
static void decode_matches(const char *form, const char *expect)
{
	char *dir = NULL, *a = round_trip(SSF_DRIVER_O2, SSF_DRIVER_O2, &dir);
	char *path = dps_test_strf("%s/tests/ssf/golden/%s", dps_test_source_dir(), expect);
	char *want;
	struct dps_test_run r;

	want = dps_test_read_file(path, NULL);
	cr_assert(want, "cannot read %s", path);
	r = dps_test_run_dps("ssf", "decode", a, form, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.out, want, "dps ssf decode %s differs from %s", form, path);
	dps_test_run_fini(&r);
	g_free(want);
	g_free(path);
	g_free(a);
	dps_test_rmtree(dir);
	g_free(dir);
}

Test(ssf, decode_prints_the_listing_form)
{
	decode_matches(NULL, "corpus.listing.expect");
}

Test(ssf, decode_prints_the_named_form)
{
	decode_matches("--named", "corpus.named.expect");
}

/* The corpus recording, in memory (g_free). */
static char *corpus_bytes(size_t *len)
{
	char *dir = NULL, *a = round_trip(SSF_DRIVER_O2, SSF_DRIVER_O2, &dir);
	char *bytes = dps_test_read_file(a, len);

	g_free(a);
	dps_test_rmtree(dir);
	g_free(dir);
	return bytes;
}

static int decode_quietly(const void *bytes, size_t len, struct dps_diag *diag)
{
	FILE *null = fopen("/dev/null", "w");
	int ret;

	cr_assert(null);
	ret = ssf_decode_bytes(bytes, len, "f", SSF_DECODE_NAMED, null, diag);
	fclose(null);
	return ret;
}

Test(ssf, every_truncation_is_an_error_with_an_offset_or_a_whole_record)
{
	size_t len, ok = 0;
	char *bytes = corpus_bytes(&len);

	cr_assert_eq(decode_quietly(bytes, len, NULL), DPS_OK);
	for (size_t n = 0; n < len; n++) {
		struct dps_diag diag = {{0}};
		int ret = decode_quietly(bytes, n, &diag);

		if (ret == DPS_OK) {
			ok++; /* cut between two records: a shorter, valid file */
			continue;
		}
		cr_assert_eq(ret, DPS_ERR_INVAL, "length %zu: %d", n, ret);
		cr_assert(strstr(diag.msg, "offset ") && strstr(diag.msg, "expected"),
			  "length %zu: %s", n, diag.msg);
	}
	/* the header alone, after the schema, after each of the entries but the last */
	cr_assert_gt(ok, 30);
	cr_assert_lt(ok, 60);
	g_free(bytes);
}

Test(ssf, every_corrupted_byte_decodes_or_fails_cleanly)
{
	size_t len, failed = 0;
	char *bytes = corpus_bytes(&len);

	for (size_t i = 0; i < len; i++) {
		struct dps_diag diag = {{0}};
		char *copy = g_memdup2(bytes, len);
		int ret;

		copy[i] ^= (char)0xa5;
		ret = decode_quietly(copy, len, &diag);
		cr_assert(ret == DPS_OK || ret == DPS_ERR_INVAL, "byte %zu: %d", i, ret);
		failed += ret != DPS_OK;
		g_free(copy);
	}
	cr_assert_gt(failed, len / 10);
	g_free(bytes);
}

static void header_error(size_t at, unsigned char value, const char *want)
{
	size_t len;
	char *bytes = corpus_bytes(&len);
	struct dps_diag diag = {{0}};

	bytes[at] = (char)value;
	cr_assert_eq(decode_quietly(bytes, len, &diag), DPS_ERR_INVAL);
	cr_assert(strstr(diag.msg, want), "got: %s", diag.msg);
	g_free(bytes);
}

Test(ssf, header_fields_are_checked)
{
	header_error(0, 'X', "offset 0: expected the magic");
	header_error(8, 2, "offset 8: expected version 1, found 2");
	header_error(10, 2, "offset 10: expected byte order 1");
	header_error(12, 1, "offset 12: expected flags 0");
	header_error(16, 'Z', "offset 16: expected a record kind");
}

Test(ssf, decode_cli_names_the_file_and_exits_2)
{
	char *dir = dps_test_mkdtemp("ssf");
	char *path = dps_test_strf("%s/bad.ssf", dir);
	struct dps_test_run r;

	dps_test_write_file(path, "DPS-SSF\n\x01");
	r = dps_test_run_dps("ssf", "decode", path, NULL);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, path) && strstr(r.err, "offset 8: expected the version"), "%s",
		  r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("ssf", "decode", "/nonexistent.ssf", NULL);
	cr_assert_eq(r.status, 2, "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("ssf", "decode", NULL);
	cr_assert_eq(r.status, 2);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("ssf", "frobnicate", NULL);
	cr_assert_eq(r.status, 2);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(path);
	g_free(dir);
}

/* ---- libdps: the four cases and the errors, on a hand-written schema ---- */

struct pair {
	int a;
	unsigned char b;
	struct pair *next;
	int kind;
	union {
		int i;
		float f;
	} u;
	int *vals;
	int n;
};

static const struct dps_ssf_case pair_cases[] = {{0, 0}, {1, 1}};
static const struct dps_ssf_member union_members[] = {
    {.name = "i", .type = 1, .offset = 0},
    {.name = "f", .type = 5, .offset = 0},
};
static const struct dps_ssf_member pair_members[] = {
    {.name = "a", .type = 1, .offset = offsetof(struct pair, a)},
    {.name = "b", .type = 2, .offset = offsetof(struct pair, b)},
    {.name = "next", .type = 3, .offset = offsetof(struct pair, next)},
    {.name = "kind", .type = 1, .offset = offsetof(struct pair, kind)},
    {.name = "u",
     .type = 4,
     .offset = offsetof(struct pair, u),
     .tag_member = 4,
     .n_cases = 2,
     .cases = pair_cases},
    {.name = "vals", .type = 6, .offset = offsetof(struct pair, vals), .count_member = 7},
    {.name = "n", .type = 1, .offset = offsetof(struct pair, n)},
};
static const struct dps_ssf_type pair_types[] = {
    {.kind = DPS_SSF_STRUCT,
     .name = "struct pair",
     .size = sizeof(struct pair),
     .n_members = 7,
     .members = pair_members},
    {.kind = DPS_SSF_INT, .name = "int", .size = 4},
    {.kind = DPS_SSF_UINT, .name = "unsigned char", .size = 1},
    {.kind = DPS_SSF_POINTER, .name = "struct pair *", .size = sizeof(void *), .target = 0},
    {.kind = DPS_SSF_UNION, .name = "union u", .size = 4, .n_members = 2, .members = union_members},
    {.kind = DPS_SSF_FLOAT, .name = "float", .size = 4},
    {.kind = DPS_SSF_POINTER, .name = "int *", .size = sizeof(void *), .target = 1},
};
static const struct dps_ssf_schema pair_schema = {"pair", 7, pair_types};
/* The same with another name: what a header generated again looks like to the file. */
static const struct dps_ssf_schema other_schema = {"other", 7, pair_types};

static char *tmp_ssf(void)
{
	char *path = dps_test_mkstemp("ssf");

	return path;
}

Test(ssf, the_four_restore_cases)
{
	char *path = tmp_ssf();
	struct pair p = {.a = 1, .b = 2, .kind = 1, .u.f = 0.5f}, *dst;
	struct pair existing = {0};
	void *v;

	cr_assert_eq(dps_ssf_open(DPS_SSF_RECORD, path), DPS_OK);
	dps_ssf_run_begin();
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_OK, "%s", dps_ssf_last_error());
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "q", NULL), DPS_OK);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "r", NULL), DPS_OK);
	cr_assert_eq(dps_ssf_close(), DPS_OK);

	cr_assert_eq(dps_ssf_open(DPS_SSF_RESTORE, path), DPS_OK);
	cr_assert_eq(dps_ssf_run_begin(), 1);
	/* case 1: the existing object is overwritten */
	v = &existing;
	cr_assert_eq(dps_ssf_load(&pair_schema, 0, "p", &v), DPS_OK, "%s", dps_ssf_last_error());
	cr_assert(v == &existing && existing.a == 1 && existing.b == 2 && existing.u.f == 0.5f);
	/* case 3: NULL recorded, NULL passed */
	v = NULL;
	cr_assert_eq(dps_ssf_load(&pair_schema, 0, "q", &v), DPS_OK);
	cr_assert_null(v);
	/* case 4: NULL recorded, an object passed: an error naming the object and the run */
	v = &existing;
	cr_assert_eq(dps_ssf_load(&pair_schema, 0, "r", &v), DPS_ERR_INVAL);
	cr_assert(v == &existing);
	cr_assert(strstr(dps_ssf_last_error(), "r (run 1)") &&
		      strstr(dps_ssf_last_error(), "case 4"),
		  "%s", dps_ssf_last_error());
	/* no data left: an error naming the object and the run */
	v = NULL;
	cr_assert_eq(dps_ssf_load(&pair_schema, 0, "p", &v), DPS_ERR_NOENT);
	cr_assert(strstr(dps_ssf_last_error(), "p (run 1): no data"), "%s", dps_ssf_last_error());

	/* case 2: a new object */
	cr_assert_eq(dps_ssf_open(DPS_SSF_RESTORE, path), DPS_OK);
	dps_ssf_run_begin();
	v = NULL;
	cr_assert_eq(dps_ssf_load(&pair_schema, 0, "p", &v), DPS_OK);
	dst = v;
	cr_assert(dst && dst != &existing && dst->a == 1 && dst->u.f == 0.5f && !dst->next);
	free(dst);
	/* another run has nothing of p */
	dps_ssf_run_begin();
	v = NULL;
	cr_assert_eq(dps_ssf_load(&pair_schema, 0, "p", &v), DPS_ERR_NOENT);
	cr_assert(strstr(dps_ssf_last_error(), "run 2"), "%s", dps_ssf_last_error());
	dps_ssf_close();
	dps_test_rmtree(path);
	g_free(path);
}

Test(ssf, check_names_the_first_differing_member)
{
	char *path = tmp_ssf();
	int vals[3] = {1, 2, 3};
	struct pair p = {.a = 1, .b = 2, .kind = 0, .u.i = 9, .vals = vals, .n = 3};

	cr_assert_eq(dps_ssf_open(DPS_SSF_RECORD, path), DPS_OK);
	dps_ssf_run_begin();
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_OK);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_OK);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_OK);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", NULL), DPS_OK);
	dps_ssf_close();

	cr_assert_eq(dps_ssf_open(DPS_SSF_CHECK, path), DPS_OK);
	dps_ssf_run_begin();
	cr_assert_eq(dps_ssf_check(&pair_schema, 0, "p", &p), DPS_OK, "%s", dps_ssf_last_error());
	vals[2] = 4;
	cr_assert_eq(dps_ssf_check(&pair_schema, 0, "p", &p), DPS_ERR_RANGE);
	cr_assert_str_eq(dps_ssf_last_error(), "p.vals[2]: recorded 3, got 4");
	vals[2] = 3;
	p.u.i = 10;
	cr_assert_eq(dps_ssf_check(&pair_schema, 0, "p", &p), DPS_ERR_RANGE);
	cr_assert_str_eq(dps_ssf_last_error(), "p.u.i: recorded 9, got 10");
	cr_assert_eq(dps_ssf_check(&pair_schema, 0, "p", &p), DPS_ERR_RANGE);
	cr_assert(strstr(dps_ssf_last_error(), "recorded NULL, got an object"), "%s",
		  dps_ssf_last_error());
	dps_ssf_close();
	dps_test_rmtree(path);
	g_free(path);
}

Test(ssf, saving_refuses_what_it_cannot_record_faithfully)
{
	char *path = tmp_ssf();
	struct pair p = {.kind = 7};

	cr_assert_eq(dps_ssf_open(DPS_SSF_RECORD, path), DPS_OK);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "p.u: the tag holds 7, which has no case"), "%s",
		  dps_ssf_last_error());
	p.kind = 0;
	p.n = -1;
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "p.vals: its length member holds -1"), "%s",
		  dps_ssf_last_error());
	p.n = 0;
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "not a name", &p), DPS_ERR_INVAL);
	cr_assert_eq(dps_ssf_save(&pair_schema, 9, "p", &p), DPS_ERR_INVAL);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_OK);
	dps_ssf_close();
	dps_test_rmtree(path);
	g_free(path);
}

Test(ssf, restore_refuses_another_schema_type_or_mode)
{
	char *path = tmp_ssf();
	struct pair p = {0};
	void *v = NULL;

	cr_assert_eq(dps_ssf_open(DPS_SSF_RECORD, path), DPS_OK);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_OK);
	cr_assert_eq(dps_ssf_save(&pair_schema, 1, "i", &p.a), DPS_OK);
	dps_ssf_close();
	cr_assert_eq(dps_ssf_open(DPS_SSF_RESTORE, path), DPS_OK);
	cr_assert_eq(dps_ssf_load(&other_schema, 0, "p", &v), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "no schema equal to other"), "%s",
		  dps_ssf_last_error());
	cr_assert_eq(dps_ssf_load(&pair_schema, 0, "i", &v), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "recorded as int, asked for as struct pair"), "%s",
		  dps_ssf_last_error());
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_ERROR);
	cr_assert(strstr(dps_ssf_last_error(), "mode restore, not record"), "%s",
		  dps_ssf_last_error());
	dps_ssf_close();
	cr_assert_eq(dps_ssf_open(DPS_SSF_RESTORE, "/nonexistent/x.ssf"), DPS_ERR_NOENT);
	dps_test_rmtree(path);
	g_free(path);
}

Test(ssf, the_mode_comes_from_the_environment_once)
{
	char *path = tmp_ssf();
	struct pair p = {0};

	setenv("DPS_SSF_MODE", "record", 1);
	setenv("DPS_SSF_FILE", path, 1);
	cr_assert_eq(dps_ssf_mode(), DPS_SSF_RECORD);
	setenv("DPS_SSF_MODE", "restore", 1);
	cr_assert_eq(dps_ssf_mode(), DPS_SSF_RECORD, "read once");
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_OK);
	dps_ssf_close();
	dps_test_rmtree(path);
	g_free(path);
}

Test(ssf, a_bad_mode_in_the_environment_fails_every_call)
{
	struct pair p = {0};

	setenv("DPS_SSF_MODE", "recrod", 1);
	cr_assert_eq(dps_ssf_mode(), DPS_SSF_OFF);
	cr_assert_eq(dps_ssf_save(&pair_schema, 0, "p", &p), DPS_ERR_INVAL);
	cr_assert(strstr(dps_ssf_last_error(), "DPS_SSF_MODE: expected record, restore, check"),
		  "%s", dps_ssf_last_error());
}

/* ---- the generator ---- */

/* dps ssf gen on the corpus object with these extra arguments (NULL-terminated). */
static struct dps_test_run gen(const char *out, const char *annotations, const char *type, ...)
{
	GPtrArray *argv = g_ptr_array_new();
	struct dps_test_run r;
	va_list ap;

	g_ptr_array_add(argv, (char *)dps_test_bin());
	g_ptr_array_add(argv, (char *)"ssf");
	g_ptr_array_add(argv, (char *)"gen");
	g_ptr_array_add(argv, (char *)SSF_CORPUS_OBJ);
	g_ptr_array_add(argv, (char *)"-o");
	g_ptr_array_add(argv, (char *)out);
	if (annotations) {
		g_ptr_array_add(argv, (char *)"-a");
		g_ptr_array_add(argv, (char *)annotations);
	}
	va_start(ap, type);
	for (const char *t = type; t; t = va_arg(ap, const char *)) {
		g_ptr_array_add(argv, (char *)t);
	}
	va_end(ap);
	g_ptr_array_add(argv, NULL);
	r = dps_test_run(NULL, (const char *const *)argv->pdata, NULL);
	g_ptr_array_free(argv, TRUE);
	return r;
}

static char *corpus_annotations(void)
{
	return dps_test_strf("%s/tests/ssf/corpus.ssf", dps_test_source_dir());
}

Test(ssf, gen_lists_every_missing_annotation_and_writes_nothing)
{
	char *dir = dps_test_mkdtemp("ssf"), *out = dps_test_strf("%s/h.h", dir);
	struct dps_test_run r = gen(out, NULL, "--type", "struct s_mixed", NULL);

	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "struct s_plen.vals: int * may lead to one element or to an "
				"array: add `length struct s_plen.vals = MEMBER`"),
		  "%s", r.err);
	cr_assert(strstr(r.err, "struct s_union.u: a union: add `tag struct s_union.u = MEMBER`"),
		  "%s", r.err);
	cr_assert(strstr(r.err, "struct s_mixed.l: struct s_list * may lead to one element or to "
				"an array: add `length struct s_mixed.l = MEMBER` or `one "
				"struct s_mixed.l`"),
		  "%s", r.err);
	cr_assert(strstr(r.err, "3 members need an annotation"), "%s", r.err);
	cr_assert_null(dps_test_read_file(out, NULL));
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(out);
	g_free(dir);
}

static void gen_fails(const char *annotation_text, const char *type, const char *want)
{
	char *dir = dps_test_mkdtemp("ssf"), *out = dps_test_strf("%s/h.h", dir);
	char *ann = dps_test_strf("%s/a.ssf", dir);
	struct dps_test_run r;

	dps_test_write_file(ann, annotation_text);
	r = gen(out, ann, "--type", type, NULL);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, want), "want \"%s\", got: %s", want, r.err);
	cr_assert_null(dps_test_read_file(out, NULL));
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(ann);
	g_free(out);
	g_free(dir);
}

Test(ssf, gen_refuses_bad_annotations_and_types)
{
	gen_fails("# ok\nlength struct s_plen.vals n\n", "struct s_plen",
		  "a.ssf:2: expected \"= MEMBER\"");
	gen_fails("lenght struct s_plen.vals = n\n", "struct s_plen", "a.ssf:1: expected length");
	gen_fails("length struct s_plen.vals = nope\n", "struct s_plen",
		  "struct s_plen has no integer member nope");
	gen_fails("one struct s_int.a\n", "struct s_int",
		  "a.ssf:1: struct s_int.a is not a member that needs this annotation");
	gen_fails("tag struct s_union.u = kind\ncase struct s_union.u 1 = zz\n", "struct s_union",
		  "has no member zz");
	gen_fails("", "struct nope", "--type 'struct nope': no definition");
	gen_fails("", "union uu", "a union alone cannot say which member is live");
	gen_fails("", "struct s-x", "expected \"struct NAME\"");
}

Test(ssf, gen_is_deterministic_and_reports_opaque_members)
{
	char *dir = dps_test_mkdtemp("ssf"), *a = dps_test_strf("%s/a.h", dir);
	char *b = dps_test_strf("%s/b.h", dir), *ann = corpus_annotations();
	struct dps_test_run r = gen(a, ann, "--type", "struct s_mixed", "--type", "struct s_opaque",
				    "--prefix", "same", NULL);
	char *ta, *tb;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "struct s_opaque.f: FILE *: not recorded, restored as NULL"), "%s",
		  r.err);
	dps_test_run_fini(&r);
	r = gen(b, ann, "--type", "struct s_mixed", "--type", "struct s_opaque", "--prefix", "same",
		NULL);
	cr_assert_eq(r.status, 0);
	dps_test_run_fini(&r);
	ta = dps_test_read_file(a, NULL);
	tb = dps_test_read_file(b, NULL);
	cr_assert_str_eq(ta, tb);
	cr_assert(strstr(ta, "static inline int same_save_s_mixed(const char *name, const struct "
			     "s_mixed *obj)"));
	g_free(ta);
	r = gen(a, ann, "--type", "struct s_opaque", "--opaque", "skip", "--prefix", "p", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ta = dps_test_read_file(a, NULL);
	cr_assert(strstr(ta, "DPS_SSF_OPAQUE_SKIP") && !strstr(ta, "DPS_SSF_OPAQUE_NULL"));
	dps_test_run_fini(&r);
	r = gen(a, ann, "--type", "struct s_opaque", "--prefix", "not-an-ident", NULL);
	cr_assert_eq(r.status, 2);
	dps_test_run_fini(&r);
	r = gen(a, ann, "--type", "struct s_opaque", "--opaque", "maybe", NULL);
	cr_assert_eq(r.status, 2);
	dps_test_run_fini(&r);
	g_free(ta);
	g_free(tb);
	g_free(ann);
	dps_test_rmtree(dir);
	g_free(a);
	g_free(b);
	g_free(dir);
}

Test(ssf, gen_refuses_a_file_without_dwarf)
{
	char *dir = dps_test_mkdtemp("ssf"), *out = dps_test_strf("%s/h.h", dir);
	char *notelf = dps_test_strf("%s/x.o", dir);
	struct dps_test_run r;

	dps_test_write_file(notelf, "not an object\n");
	r = dps_test_run_dps("ssf", "gen", notelf, "--type", "struct s_int", "-o", out, NULL);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, notelf), "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("ssf", "gen", "/nonexistent.o", "--type", "struct s_int", "-o", out,
			     NULL);
	cr_assert_eq(r.status, 2, "%s", r.err);
	dps_test_run_fini(&r);
	r = dps_test_run_dps("ssf", "gen", notelf, "-o", out, NULL);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "missing --type"), "%s", r.err);
	dps_test_run_fini(&r);
	dps_test_rmtree(dir);
	g_free(notelf);
	g_free(out);
	g_free(dir);
}
