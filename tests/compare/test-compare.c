/* SPDX-License-Identifier: MIT */
/*
 * compare: the ideal-machine model of action sets, matching by the creation tree, the
 * figures, the JSON document and the dps compare command on known pairs
 * (tests/compare/sets/, described in tests/compare/README.md).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "compare-internal.h"
#include "compare-test.h"
#include "compare.h"

#define US 1000ULL

struct pair {
	struct analyzer_result *m[2];
	struct compare_result *res;
};

static void pair_fini(struct pair *p)
{
	compare_result_destroy(p->res);
	analyzer_result_destroy(p->m[0]);
	analyzer_result_destroy(p->m[1]);
}

static struct pair compare_sets(const char *a, const char *b)
{
	struct dps_diag diag = {{0}};
	struct pair p = {{NULL, NULL}, NULL};
	int ret;

	p.m[0] = ct_load_set(a);
	p.m[1] = ct_load_set(b);
	ret = compare_run(p.m[0], COMPARE_INPUT_ACTSET, a, p.m[1], COMPARE_INPUT_ACTSET, b, NULL,
			  &p.res, &diag);
	cr_assert_eq(ret, DPS_OK, "compare_run(%s, %s): %s", a, b, diag.msg);
	return p;
}

static const struct compare_thread *row_at(const struct compare_result *res, const char *path)
{
	for (size_t r = 0; r < res->n_threads; r++) {
		if (!strcmp(res->threads[r].path, path)) {
			return &res->threads[r];
		}
	}
	cr_assert_fail("no row with path %s", path);
	return NULL;
}

static bool row_differs(const struct compare_thread *row)
{
	for (int m = 0; m < COMPARE_M_COUNT; m++) {
		if (row->m[m].v[0] != row->m[m].v[1]) {
			return true;
		}
	}
	return false;
}

static const struct analyzer_thread *thread_by_id(const struct analyzer_result *m, uint64_t id)
{
	for (size_t i = 0; i < m->n_threads; i++) {
		if (m->threads[i].id == id) {
			return &m->threads[i];
		}
	}
	cr_assert_fail("no thread %llu", (unsigned long long)id);
	return NULL;
}

static size_t index_of(const struct analyzer_result *m, uint64_t id)
{
	return (size_t)(thread_by_id(m, id) - m->threads);
}

static void assert_seg(const struct analyzer_thread *th, size_t i, uint64_t b, uint64_t e,
		       enum analyzer_seg_kind k)
{
	cr_assert_lt(i, th->n_segs, "thread %llu has %zu segments", (unsigned long long)th->id,
		     th->n_segs);
	cr_expect_eq(th->segs[i].begin_ns, b, "thread %llu seg %zu begin %llu != %llu",
		     (unsigned long long)th->id, i, (unsigned long long)th->segs[i].begin_ns,
		     (unsigned long long)b);
	cr_expect_eq(th->segs[i].end_ns, e, "thread %llu seg %zu end %llu != %llu",
		     (unsigned long long)th->id, i, (unsigned long long)th->segs[i].end_ns,
		     (unsigned long long)e);
	cr_expect_eq(th->segs[i].kind, (uint32_t)k, "thread %llu seg %zu kind %u != %d",
		     (unsigned long long)th->id, i, th->segs[i].kind, k);
}

Test(compare, ideal_model_follows_the_dependencies_of_a_set)
{
	struct analyzer_result *m = ct_load_set("base");
	const struct analyzer_thread *root = thread_by_id(m, 1), *t2 = thread_by_id(m, 2);
	const struct analyzer_thread *t3 = thread_by_id(m, 3), *t4 = thread_by_id(m, 4);

	cr_assert_eq(m->n_threads, 4);
	cr_assert_eq(&m->threads[m->root], root);
	/* root: run, create x3 at 100us, join 2 (ends 700), join 3 (ends 800), join 4, run */
	assert_seg(root, 0, 0, 100 * US, ANALYZER_SEG_RUN);
	assert_seg(root, 1, 100 * US, 700 * US, ANALYZER_SEG_JOIN);
	cr_expect_eq(root->segs[1].other, index_of(m, 2));
	assert_seg(root, 2, 700 * US, 800 * US, ANALYZER_SEG_JOIN);
	cr_expect_eq(root->segs[2].other, index_of(m, 3));
	assert_seg(root, 3, 800 * US, 810 * US, ANALYZER_SEG_RUN);
	cr_expect_eq(root->n_segs, 4, "join of an ended thread must not block");
	cr_expect_eq(root->end_ns, 810 * US);
	cr_expect_eq(root->stats.busy_ns, 110 * US);
	cr_expect_eq(root->stats.blocked_ns, 700 * US);
	cr_expect_eq(root->stats.waiting_ns, 0);
	cr_expect_eq(root->stats.n_runs, 2);
	cr_expect_eq(root->stats.n_joins, 3);
	cr_expect_eq(root->stats.n_creates, 3);
	/* 2 wakes 3 at 600us: 3 waited from its creation at 100us */
	cr_expect_eq(t2->start_ns, 100 * US);
	assert_seg(t2, 0, 100 * US, 700 * US, ANALYZER_SEG_RUN);
	cr_expect_eq(t2->n_segs, 1, "run; wake; run is one stretch on CPU");
	assert_seg(t3, 0, 100 * US, 600 * US, ANALYZER_SEG_WAIT);
	cr_expect_eq(t3->segs[0].other, index_of(m, 2));
	assert_seg(t3, 1, 600 * US, 800 * US, ANALYZER_SEG_RUN);
	cr_expect_eq(t3->stats.n_waits, 1);
	assert_seg(t4, 0, 100 * US, 150 * US, ANALYZER_SEG_RUN);
	assert_seg(t4, 1, 150 * US, 250 * US, ANALYZER_SEG_SLEEP);
	assert_seg(t4, 2, 250 * US, 300 * US, ANALYZER_SEG_RUN);
	cr_expect_eq(t4->stats.n_sleeps, 1);
	cr_expect_eq(t4->stats.n_runs, 2);
	/* marks: creates in the root, the wake in 2, an exit everywhere */
	cr_expect_eq(root->marks[0].kind, ANALYZER_MARK_CREATE);
	cr_expect_eq(root->marks[0].ts_ns, 100 * US);
	cr_expect_eq(t2->marks[0].kind, ANALYZER_MARK_WAKE);
	cr_expect_eq(t2->marks[0].other, index_of(m, 3));
	cr_expect_eq(t4->marks[t4->n_marks - 1].kind, ANALYZER_MARK_EXIT);
	cr_expect_eq(t3->parent, m->root);
	analyzer_result_destroy(m);
}

Test(compare, a_set_against_itself_has_zero_error)
{
	struct pair p = compare_sets("base", "base");

	cr_expect_eq(p.res->n_matched, 4);
	cr_expect_eq(p.res->n_orig_only + p.res->n_sim_only, 0);
	for (size_t r = 0; r < p.res->n_threads; r++) {
		cr_expect_not(row_differs(&p.res->threads[r]), "row %s differs",
			      p.res->threads[r].path);
	}
	cr_expect_eq(p.res->makespan_err_ns, 0);
	cr_expect_eq(p.res->cpu_abs_err_ns, 0);
	cr_expect_float_eq(p.res->fidelity_err_pct, 0.0, 1e-12);
	cr_expect_eq(p.res->side[0].makespan_ns, 810 * US);
	pair_fini(&p);
}

Test(compare, doubled_run_changes_that_thread_and_its_dependents_only)
{
	struct pair p = compare_sets("base", "double2");
	const struct compare_thread *t2 = row_at(p.res, "0.0"), *t3 = row_at(p.res, "0.1");
	const struct compare_thread *t4 = row_at(p.res, "0.2"), *root = row_at(p.res, "0");

	/* 2 runs twice as long: its CPU and end change ... */
	cr_expect_eq(t2->m[COMPARE_M_CPU].v[1] - t2->m[COMPARE_M_CPU].v[0], (int64_t)(500 * US));
	cr_expect_eq(t2->m[COMPARE_M_END].v[1] - t2->m[COMPARE_M_END].v[0], (int64_t)(500 * US));
	/* ... 3, which waits for 2's wake, waits longer and ends later, same CPU ... */
	cr_expect_eq(t3->m[COMPARE_M_CPU].v[0], t3->m[COMPARE_M_CPU].v[1]);
	cr_expect_eq(t3->m[COMPARE_M_BLOCKED].v[1] - t3->m[COMPARE_M_BLOCKED].v[0],
		     (int64_t)(500 * US));
	cr_expect(row_differs(t3));
	/* ... the root, which joins both, blocks longer ... */
	cr_expect_eq(root->m[COMPARE_M_CPU].v[0], root->m[COMPARE_M_CPU].v[1]);
	cr_expect_eq(root->m[COMPARE_M_END].v[1] - root->m[COMPARE_M_END].v[0],
		     (int64_t)(500 * US));
	/* ... and 4, which depends on nobody, is unchanged. */
	cr_expect_not(row_differs(t4), "thread 4 does not depend on 2 and must not change");
	cr_expect_eq(p.res->makespan_err_ns, (int64_t)(500 * US));
	/* CPU error: 500us over 110+600+200+100 = 1010us; makespan 500/810 */
	cr_expect_float_eq(p.res->cpu_err_pct, 500.0 / 1010.0 * 100.0, 1e-9);
	cr_expect_float_eq(p.res->makespan_err_pct, 500.0 / 810.0 * 100.0, 1e-9);
	cr_expect_float_eq(p.res->fidelity_err_pct, p.res->makespan_err_pct, 1e-12);
	/* per-thread CPU errors 0, 83.3 (500/600), 0, 0: median 0, max 83.3 */
	cr_expect_eq(p.res->n_thread_cpu, 4);
	cr_expect_float_eq(p.res->thread_cpu_err_median_pct, 0.0, 1e-12);
	cr_expect_float_eq(p.res->thread_cpu_err_max_pct, 500.0 / 600.0 * 100.0, 1e-9);
	pair_fini(&p);
}

Test(compare, doubled_run_of_a_thread_nobody_waits_for_changes_only_it)
{
	struct pair p = compare_sets("base", "double4");

	for (size_t r = 0; r < p.res->n_threads; r++) {
		const struct compare_thread *row = &p.res->threads[r];

		cr_expect_eq(row_differs(row), !strcmp(row->path, "0.2"), "row %s", row->path);
	}
	cr_expect_eq(p.res->makespan_err_ns, 0);
	cr_expect_float_eq(p.res->cpu_err_pct, 100.0 / 1010.0 * 100.0, 1e-9);
	pair_fini(&p);
}

Test(compare, unmatched_threads_are_reported_on_either_side)
{
	struct pair p = compare_sets("base", "extra");
	struct pair q = compare_sets("extra", "base");
	const struct compare_thread *x = row_at(p.res, "0.+3"), *y = row_at(q.res, "0.3");

	cr_expect_eq(p.res->n_matched, 4);
	cr_expect_eq(p.res->n_sim_only, 1);
	cr_expect_eq(p.res->n_orig_only, 0);
	cr_expect_eq(x->match, COMPARE_SIM_ONLY);
	cr_expect_eq(x->idx[0], COMPARE_NO_THREAD);
	cr_expect_not(x->m[COMPARE_M_CPU].has[0]);
	cr_expect_eq(x->m[COMPARE_M_CPU].v[1], (int64_t)(30 * US));
	cr_expect_eq(q.res->n_orig_only, 1);
	cr_expect_eq(y->match, COMPARE_ORIG_ONLY);
	/* an unmatched thread's CPU counts as error in full */
	cr_expect_eq(p.res->cpu_abs_err_ns, 30 * US);
	pair_fini(&p);
	pair_fini(&q);
}

Test(compare, a_deadlocking_set_is_rejected_with_a_location)
{
	struct dps_diag diag = {{0}};
	struct dps_actset *set = NULL;
	struct analyzer_result *m = (struct analyzer_result *)1;
	char *dir = ct_set_path("deadlock");

	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s", diag.msg);
	cr_expect_eq(compare_model_from_actset(set, &m, &diag), DPS_ERR_INVAL);
	cr_expect_null(m);
	cr_expect(strstr(diag.msg, "deadlock") && strstr(diag.msg, "1.act:2"), "diag: %s",
		  diag.msg);
	dps_actset_destroy(set);
	free(dir);
}

Test(compare, memory_curves_are_compared_point_by_point)
{
	struct pair same = compare_sets("mem", "mem");
	struct pair off = compare_sets("mem", "mem-off");
	const struct compare_thread *root = row_at(off.res, "0"), *child = row_at(off.res, "0.0");

	cr_assert(same.res->has_mem);
	cr_expect_eq(same.res->mem.max_abs[0], 0);
	cr_expect_eq(same.res->mem.max_abs[1], 0);
	cr_expect_eq(same.res->mem.n_points[0], 4, "heap changes: +4096, -4096, +64K, -64K");
	cr_expect_eq(same.res->mem.n_points[1], 2);
	cr_assert(off.res->has_mem);
	cr_expect_eq(off.res->mem.max_abs[0], 4096);
	cr_expect_float_eq(off.res->mem.mean_abs[0], 4096.0 * 1 / 4, 1e-9);
	cr_expect_eq(off.res->mem.max_abs[1], 0);
	cr_expect_eq(root->mem.max_abs[0], 4096);
	cr_expect_eq(child->mem.max_abs[0], 0);
	pair_fini(&same);
	pair_fini(&off);
}

/* Two hand-built runs: different tids and thread order, a stray thread with no parent. */
static struct analyzer_result *build_run(bool swap, int64_t tid_base)
{
	struct analyzer_result *m = analyzer_result_create();
	/* index order differs from the creation order when swapped */
	size_t a = swap ? 2 : 1, b = swap ? 1 : 2;

	cr_assert_not_null(m);
	m->threads = calloc(5, sizeof(*m->threads));
	cr_assert_not_null(m->threads);
	m->n_threads = m->cap_threads = 5;
	m->root = 0;
	for (size_t i = 0; i < 5; i++) {
		m->threads[i].tid = tid_base + (int64_t)i;
		m->threads[i].id = (uint64_t)(tid_base + (int64_t)i);
		m->threads[i].parent = 0;
		m->threads[i].start_ns = 1000;
		m->threads[i].end_ns = 5000;
	}
	m->threads[0].parent = ANALYZER_NO_THREAD;
	m->threads[0].stats.busy_ns = 100;
	m->threads[a].create_rank = 0;
	m->threads[a].stats.busy_ns = 1000;
	m->threads[a].comm = strdup("first");
	m->threads[b].create_rank = 1;
	m->threads[b].stats.busy_ns = 2000;
	m->threads[b].comm = strdup("second");
	m->threads[3].parent = ANALYZER_NO_THREAD; /* creator unknown */
	m->threads[3].start_ns = 500;
	m->threads[3].stats.busy_ns = 7;
	m->threads[4].parent = 3; /* created by the stray: stays below it */
	m->threads[4].create_rank = 0;
	cr_assert_eq(compare_model_add_segment(&m->threads[a], 1000, 2000, ANALYZER_SEG_RUN, 0), 0);
	cr_assert_eq(
	    compare_model_add_segment(&m->threads[a], 2000, 2500, ANALYZER_SEG_PREEMPTED, 0), 0);
	m->end_ns = 5000;
	return m;
}

Test(compare, threads_are_matched_by_creation_rank_never_by_tid)
{
	struct analyzer_result *o = build_run(false, 100), *s = build_run(true, 9000);
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};

	cr_assert_eq(compare_run(o, COMPARE_INPUT_MODEL, "o", s, COMPARE_INPUT_MODEL, "s", NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect_eq(res->n_matched, 5);
	cr_expect_eq(res->cpu_abs_err_ns, 0, "rank 0 must meet rank 0 whatever the index/tid");
	cr_expect_eq(row_at(res, "0.~0.0")->idx[0], 4);
	cr_expect_str_eq(row_at(res, "0.0")->path, "0.0");
	cr_expect_eq(row_at(res, "0.0")->idx[0], 1);
	cr_expect_eq(row_at(res, "0.0")->idx[1], 2);
	cr_expect_eq(row_at(res, "0.~0")->idx[0], 3, "a thread with no creator hangs under root");
	/* offsets are relative to each run's root start; a stray may start before it */
	cr_expect_eq(row_at(res, "0.~0")->m[COMPARE_M_START].v[0], -500);
	cr_expect_eq(res->side[0].makespan_ns, 4500);
	compare_result_destroy(res);
	analyzer_result_destroy(o);
	analyzer_result_destroy(s);
}

Test(compare, empty_models_are_bad_input)
{
	struct analyzer_result *e = analyzer_result_create(), *o = build_run(false, 1);
	struct compare_result *res = (struct compare_result *)1;
	struct dps_diag diag = {{0}};

	cr_expect_eq(compare_run(o, COMPARE_INPUT_MODEL, NULL, e, COMPARE_INPUT_MODEL, NULL, NULL,
				 &res, &diag),
		     DPS_ERR_INVAL);
	cr_expect_null(res);
	cr_expect(strstr(diag.msg, "simulated"), "%s", diag.msg);
	analyzer_result_destroy(e);
	analyzer_result_destroy(o);
}

Test(compare, text_table_names_unmatched_threads_and_the_fidelity)
{
	struct pair p = compare_sets("base", "extra");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(compare_write_text(p.res, f, false), DPS_OK);
	fclose(f);
	cr_expect(strstr(buf, "only in sim"), "%s", buf);
	cr_expect(strstr(buf, "1 only in sim"), "%s", buf);
	cr_expect(strstr(buf, "fidelity error"), "%s", buf);
	cr_expect(strstr(buf, "100.00 us"), "humanized units expected: %s", buf);
	free(buf);
	pair_fini(&p);
}

Test(compare, json_document_parses_and_carries_the_figures)
{
	struct pair p = compare_sets("evil", "evil");
	char *path = dps_test_mkstemp("compare-json");
	FILE *f = fopen(path, "w");
	char cmd[1024];
	char *out;

	cr_assert_not_null(f);
	cr_assert_eq(compare_write_json(p.res, f), DPS_OK);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 DPS_TEST_PYTHON
		 " -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "assert d[\"schema\"]==\"dps-compare/1\"; "
		 "assert d[\"summary\"][\"matched\"]==2; "
		 "assert d[\"threads\"][0][\"orig\"][\"comm\"].startswith(\"</script>\"); "
		 "assert d[\"threads\"][1][\"orig\"][\"comm\"]==\"a<b>\\x01\\ufffd\"; "
		 "assert d[\"threads\"][1][\"cpu\"][\"err_ns\"]==0' %s",
		 path);
	out = ct_run_capture(cmd, NULL);
	cr_expect_eq(ct_last_status, 0, "python3 rejected the JSON: %s", out);
	free(out);
	dps_test_rmtree(path);
	g_free(path);
	pair_fini(&p);
}

Test(compare, partial_inputs_are_marked_partial_in_every_output)
{
	struct pair p = compare_sets("base", "partial");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	cr_expect_not(p.res->side[0].model->partial);
	cr_expect(p.res->side[1].model->partial);
	f = open_memstream(&buf, &len);
	cr_assert_eq(compare_write_json(p.res, f), DPS_OK);
	fclose(f);
	cr_expect(strstr(buf, "\"partial\": true, \"partial_reason\": \"12 events discarded"), "%s",
		  buf);
	free(buf);
	f = open_memstream(&buf, &len);
	cr_assert_eq(compare_write_text(p.res, f, true), DPS_OK);
	fclose(f);
	cr_expect(strstr(buf, "PARTIAL: 12 events discarded"), "%s", buf);
	free(buf);
	f = open_memstream(&buf, &len);
	cr_assert_eq(compare_write_html(p.res, NULL, f), DPS_OK);
	fclose(f);
	cr_expect(strstr(buf, "PARTIAL: 12 events discarded"));
	free(buf);
	pair_fini(&p);
}

Test(compare, figures_are_humanized)
{
	static const struct {
		int64_t ns;
		bool sign;
		const char *want;
	} ns_cases[] = {
	    {0, false, "0 ns"},
	    {0, true, "0 ns"},
	    {850, false, "850 ns"},
	    {-850, true, "-850 ns"},
	    {12300, true, "+12.30 us"},
	    {4500000, false, "4.50 ms"},
	    {1234000000, false, "1.234 s"},
	};
	static const struct {
		double bytes;
		const char *want;
	} b_cases[] = {
	    {0, "0 B"},
	    {1023, "1023 B"},
	    {4096, "4.0 KiB"},
	    {-65536, "-64.0 KiB"},
	    {3.5 * 1024 * 1024, "3.5 MiB"},
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(ns_cases) / sizeof(ns_cases[0]); i++) {
		cr_expect_str_eq(
		    compare_format_ns(ns_cases[i].ns, ns_cases[i].sign, buf, sizeof(buf)),
		    ns_cases[i].want);
	}
	for (size_t i = 0; i < sizeof(b_cases) / sizeof(b_cases[0]); i++) {
		cr_expect_str_eq(compare_format_bytes(b_cases[i].bytes, buf, sizeof(buf)),
				 b_cases[i].want);
	}
}

Test(compare, relative_errors_of_edge_values)
{
	struct compare_value both_zero = {{0, 0}, {true, true}};
	struct compare_value from_zero = {{0, 5}, {true, true}};
	struct compare_value one_side = {{7, 0}, {true, false}};
	struct compare_value half = {{200, 100}, {true, true}};

	cr_expect_float_eq(compare_value_err_pct(&both_zero), 0.0, 1e-12);
	cr_expect_float_eq(compare_value_err_pct(&from_zero), 100.0, 1e-12);
	cr_expect_float_eq(compare_value_err_pct(&one_side), 100.0, 1e-12);
	cr_expect_float_eq(compare_value_err_pct(&half), 50.0, 1e-12);
}

Test(compare, a_parent_loop_does_not_hang_or_lose_threads)
{
	struct analyzer_result *o = build_run(false, 1), *s = build_run(false, 1);
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};

	/* 1 and 2 claim each other as parent: a broken model must still compare */
	o->threads[1].parent = 2;
	o->threads[2].parent = 1;
	cr_assert_eq(compare_run(o, COMPARE_INPUT_MODEL, NULL, s, COMPARE_INPUT_MODEL, NULL, NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect_eq(res->n_matched + res->n_orig_only, o->n_threads, "every thread has a row");
	compare_result_destroy(res);
	analyzer_result_destroy(o);
	analyzer_result_destroy(s);
}

/* A run whose root created `extra` helper threads (another name, little CPU) first. */
static struct analyzer_result *build_fanout(size_t extra, size_t n_real, const char *helper_name)
{
	struct analyzer_result *m = analyzer_result_create();
	size_t n = 1 + extra + n_real;

	cr_assert_not_null(m);
	m->threads = calloc(n, sizeof(*m->threads));
	cr_assert_not_null(m->threads);
	m->n_threads = m->cap_threads = n;
	m->threads[0].parent = ANALYZER_NO_THREAD;
	m->root = 0;
	m->threads[0].comm = strdup("main");
	for (size_t i = 1; i < n; i++) {
		bool helper = i <= extra;

		m->threads[i].parent = 0;
		m->threads[i].create_rank = i - 1;
		m->threads[i].comm = strdup(helper ? helper_name : "worker");
		/* workers differ in CPU so that a shifted pairing would show */
		m->threads[i].stats.busy_ns = helper ? 500 : 1000000 * (i - extra);
		m->threads[i].end_ns = 10;
	}
	m->threads[0].end_ns = 10;
	return m;
}

Test(compare, extra_threads_on_one_side_do_not_shift_the_others)
{
	struct analyzer_result *o = build_fanout(0, 3, "h"), *s = build_fanout(2, 3, "helper");
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};

	cr_assert_eq(compare_run(o, COMPARE_INPUT_MODEL, NULL, s, COMPARE_INPUT_MODEL, NULL, NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect_eq(res->n_matched, 4, "the root and the three workers");
	cr_expect_eq(res->n_sim_only, 2, "the two helper threads");
	cr_expect_eq(row_at(res, "0.0")->idx[1], 3, "worker 0 meets worker 0, not a helper");
	cr_expect_eq(row_at(res, "0.2")->idx[1], 5);
	cr_expect_eq(row_at(res, "0.+0")->match, COMPARE_SIM_ONLY);
	cr_expect_eq(row_at(res, "0.+1")->match, COMPARE_SIM_ONLY);
	cr_expect_eq(res->cpu_abs_err_ns, 1000, "only the helpers' CPU differs");
	compare_result_destroy(res);
	analyzer_result_destroy(o);
	analyzer_result_destroy(s);
}

Test(compare, tracer_threads_are_left_out_unless_asked)
{
	struct analyzer_result *o = build_fanout(0, 3, "x"), *s = build_fanout(2, 3, "prog-ust");
	struct compare_result *res = NULL;
	struct compare_options opts;
	struct dps_diag diag = {{0}};
	const char *pattern[] = {"work*"};

	/* default: lttng-ust's listener threads are not part of the program */
	cr_assert_eq(compare_run(o, COMPARE_INPUT_MODEL, NULL, s, COMPARE_INPUT_MODEL, NULL, NULL,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect_eq(res->n_threads, 4);
	cr_expect_eq(res->n_sim_only, 0);
	cr_expect_eq(res->side[1].n_excluded, 2);
	cr_expect_eq(res->cpu_abs_err_ns, 0);
	cr_expect_eq(res->side[1].row_of[1], COMPARE_NO_THREAD);
	compare_result_destroy(res);
	/* kept on request: they show as threads only in the simulated run */
	compare_options_default(&opts);
	opts.keep_tracer_threads = true;
	cr_assert_eq(compare_run(o, COMPARE_INPUT_MODEL, NULL, s, COMPARE_INPUT_MODEL, NULL, &opts,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect_eq(res->n_sim_only, 2);
	compare_result_destroy(res);
	/* a pattern leaves out matching threads on both sides, never the root */
	opts.exclude_comm = pattern;
	opts.n_exclude_comm = 1;
	cr_assert_eq(compare_run(o, COMPARE_INPUT_MODEL, NULL, s, COMPARE_INPUT_MODEL, NULL, &opts,
				 &res, &diag),
		     DPS_OK, "%s", diag.msg);
	cr_expect_eq(res->n_matched, 1);
	cr_expect_eq(res->side[0].n_excluded, 3);
	compare_result_destroy(res);
	analyzer_result_destroy(o);
	analyzer_result_destroy(s);
}

/* A small deterministic generator for the random sets below. */
static uint64_t lcg_next(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

/*
 * Random sets: a random creation tree, runs and sleeps, wake/wait pairs, joins at the end.
 * On the ideal machine every thread's time is fully accounted for (end - start = CPU +
 * blocked), its segments are ordered and inside its life, and a join never ends before the
 * joined thread. Sets whose waits cannot be met must be rejected as deadlocks, not hang.
 */
Test(compare, random_sets_keep_the_ideal_machine_invariants, .timeout = 60)
{
	uint64_t rng = 42;
	size_t n_ok = 0, n_deadlock = 0;

	for (int round = 0; round < 200; round++) {
		struct dps_actset *set = dps_actset_create();
		struct analyzer_result *m = NULL;
		struct dps_diag diag = {{0}};
		size_t n = 2 + lcg_next(&rng) % 12;
		uint64_t run_total = 0;
		bool any_lone = false;
		int ret;

		cr_assert_not_null(set);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(dps_actset_add_thread(set, i + 1), i);
		}
		for (size_t i = 0; i < n; i++) {
			size_t k = 1 + lcg_next(&rng) % 6;

			for (size_t a = 0; a < k; a++) {
				int64_t d = (int64_t)(1 + lcg_next(&rng) % 1000) * 1000;
				bool run = lcg_next(&rng) % 3;

				cr_assert_eq(dps_actset_append(
						 set, i, run ? DPS_ACT_RUN : DPS_ACT_SLEEP, d, 0),
					     0);
				run_total += run ? (uint64_t)d : 0;
			}
			/* thread i > 0 is created (and later joined) by an earlier thread */
			if (i > 0) {
				size_t p = lcg_next(&rng) % i;

				cr_assert_eq(
				    dps_actset_append(set, p, DPS_ACT_CREATE, (int64_t)i + 1, 0),
				    0);
			}
			/* sometimes a wake to a random other thread, and its wait */
			if (n > 2 && lcg_next(&rng) % 2) {
				size_t w = lcg_next(&rng) % n;

				/* one time in eight the wake is missing: a deadlock */
				bool lone = lcg_next(&rng) % 8 == 0;

				if (w != i) {
					cr_assert_eq(dps_actset_append(
							 set, i, lone ? DPS_ACT_RUN : DPS_ACT_WAKE,
							 lone ? 1000 : (int64_t)w + 1, 0),
						     0);
					run_total += lone ? 1000 : 0;
					any_lone |= lone;
					cr_assert_eq(dps_actset_append(set, w, DPS_ACT_WAIT,
								       (int64_t)i + 1, 0),
						     0);
				}
			}
		}
		for (size_t i = 1; i < n; i++) {
			/* the creator joins: find it by scanning for the create */
			for (size_t p = 0; p < n; p++) {
				const struct dps_actset_thread *pt = &set->threads[p];

				for (size_t a = 0; a < pt->n_actions; a++) {
					if (pt->actions[a].kind == DPS_ACT_CREATE &&
					    pt->actions[a].id == i + 1) {
						cr_assert_eq(dps_actset_append(set, p, DPS_ACT_JOIN,
									       (int64_t)i + 1, 0),
							     0);
					}
				}
			}
		}
		ret = dps_actset_resolve(set, &diag);
		if (ret) {
			/* e.g. a wait before the create that starts the waker: rejected by the
			 * parser, fine for this test */
			dps_actset_destroy(set);
			continue;
		}
		ret = compare_model_from_actset(set, &m, &diag);
		cr_expect_eq(ret != 0, any_lone, "round %d: deadlock %d, missing wake %d: %s",
			     round, ret != 0, any_lone, diag.msg);
		if (ret) {
			cr_expect_eq(ret, DPS_ERR_INVAL);
			cr_expect(strstr(diag.msg, "deadlock"), "%s", diag.msg);
			n_deadlock++;
			dps_actset_destroy(set);
			continue;
		}
		n_ok++;
		for (size_t i = 0; i < m->n_threads; i++) {
			const struct analyzer_thread *th = &m->threads[i];
			uint64_t busy = 0, blocked = 0, t = th->start_ns;

			for (size_t s = 0; s < th->n_segs; s++) {
				const struct analyzer_segment *sg = &th->segs[s];

				cr_assert_geq(sg->begin_ns, t, "round %d thread %zu seg %zu", round,
					      i, s);
				cr_assert_gt(sg->end_ns, sg->begin_ns);
				t = sg->end_ns;
				*(sg->kind == ANALYZER_SEG_RUN ? &busy : &blocked) +=
				    sg->end_ns - sg->begin_ns;
			}
			cr_assert_leq(t, th->end_ns);
			cr_expect_eq(busy, th->stats.busy_ns);
			cr_expect_eq(blocked, th->stats.blocked_ns);
			cr_expect_eq(th->end_ns - th->start_ns, busy + blocked,
				     "round %d thread %zu: time not accounted for", round, i);
			for (size_t k = 0; k < th->n_marks; k++) {
				if (th->marks[k].kind == ANALYZER_MARK_JOIN) {
					cr_expect_geq(th->marks[k].ts_ns,
						      m->threads[th->marks[k].other].end_ns);
				}
			}
			run_total -= th->stats.busy_ns;
		}
		cr_expect_eq(run_total, 0, "every run is played once");
		analyzer_result_destroy(m);
		dps_actset_destroy(set);
	}
	cr_log_info("%zu random sets played, %zu deadlocked", n_ok, n_deadlock);
	cr_expect_gt(n_ok, 50, "%zu sets played, %zu deadlocked", n_ok, n_deadlock);
	cr_expect_gt(n_deadlock, 0, "the deadlock path was not exercised");
}
