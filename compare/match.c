/* SPDX-License-Identifier: MIT */
/*
 * Matching two models thread by thread, by the creation tree.
 *
 * Tids differ between an original run and its simulation (and between two simulations), so a
 * thread is identified by its place in the creation tree: the root matches the root, and the
 * k-th thread a matched parent created matches the k-th thread its counterpart created
 * (create_rank). A thread whose creator is unknown (no parent, or a parent the tree does not
 * reach) hangs under the root after the real children, ranked by start time. When one side
 * created more children than the other, children are aligned instead (pair_by_alignment).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "compare-internal.h"
#include "compare.h"

/* A child in a side's tree, with the key it is matched by. */
struct child_key {
	size_t idx;
	unsigned group; /* 0: created by its parent, 1: creator unknown */
	uint64_t rank;
	uint64_t start_ns;
};

struct tree {
	const struct analyzer_result *m;
	const bool *excluded; /* borrowed: threads left out */
	size_t *first;	      /* per thread: offset of its children in kids */
	size_t *count;
	struct child_key *kids; /* every non-root thread once, grouped by parent */
};

struct dfs_entry {
	size_t idx[2];
	size_t parent_row; /* COMPARE_NO_THREAD for the root */
	unsigned group;
	uint64_t rank;
};

static int cmp_child_key(const void *a, const void *b)
{
	const struct child_key *x = a, *y = b;

	if (x->group != y->group) {
		return x->group < y->group ? -1 : 1;
	}
	if (x->rank != y->rank) {
		return x->rank < y->rank ? -1 : 1;
	}
	if (x->start_ns != y->start_ns) {
		return x->start_ns < y->start_ns ? -1 : 1;
	}
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void tree_fini(struct tree *t)
{
	free(t->first);
	free(t->count);
	free(t->kids);
}

static bool has_valid_parent(const struct analyzer_result *m, const bool *excluded, size_t i)
{
	size_t p = m->threads[i].parent;

	return i != m->root && p != ANALYZER_NO_THREAD && p < m->n_threads && p != i &&
	       !excluded[p];
}

/*
 * Marks the threads whose parent chain reaches a seed thread (iteratively: a chain can be as
 * long as the thread count). Returns DPS_OK or DPS_ERR_NOMEM.
 */
static int mark_reached(const struct analyzer_result *m, const bool *excluded, const bool *seed,
			bool *reached)
{
	/* state: 0 unknown, 1 reaches a seed, 2 does not */
	unsigned char *state = calloc(m->n_threads, 1);
	size_t *chain = malloc(m->n_threads * sizeof(*chain));
	int ret = DPS_OK;

	if (!state || !chain) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	for (size_t i = 0; i < m->n_threads; i++) {
		state[i] = seed[i] ? 1 : 0;
	}
	for (size_t i = 0; i < m->n_threads; i++) {
		size_t n = 0, cur = i;
		unsigned char verdict;

		/* Walk up until a known thread, a missing parent, or a loop (n > n_threads). */
		while (state[cur] == 0 && n <= m->n_threads) {
			chain[n < m->n_threads ? n : m->n_threads - 1] = cur;
			n++;
			if (!has_valid_parent(m, excluded, cur)) {
				break;
			}
			cur = m->threads[cur].parent;
		}
		verdict = state[cur] == 1 ? 1 : 2;
		if (n > m->n_threads) {
			n = m->n_threads;
		}
		for (size_t k = 0; k < n; k++) {
			state[chain[k]] = verdict;
		}
	}
	for (size_t i = 0; i < m->n_threads; i++) {
		reached[i] = state[i] == 1;
	}
end:
	free(state);
	free(chain);
	return ret;
}

/*
 * The threads to hang under the root as "creator unknown": those with no valid parent, and,
 * for a parent chain that loops without reaching the root or such a thread (a broken model),
 * every thread of it. Their own children stay below them.
 */
static int find_strays(const struct analyzer_result *m, const bool *excluded, bool *stray)
{
	bool *seed = calloc(m->n_threads, sizeof(*seed));
	bool *reached = calloc(m->n_threads, sizeof(*reached));
	int ret = DPS_OK;

	if (!seed || !reached) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	for (size_t i = 0; i < m->n_threads; i++) {
		stray[i] = i != m->root && !has_valid_parent(m, excluded, i);
		seed[i] = stray[i] || i == m->root;
	}
	ret = mark_reached(m, excluded, seed, reached);
	if (ret) {
		goto end;
	}
	for (size_t i = 0; i < m->n_threads; i++) {
		stray[i] |= !reached[i];
	}
end:
	free(seed);
	free(reached);
	return ret;
}

/* Builds the children lists of a model, strays under the root. */
static int tree_init(struct tree *t, const struct analyzer_result *m, const bool *excluded)
{
	size_t n = m->n_threads, k = 0, n_stray = 0;
	bool *stray = NULL;
	size_t *fill = NULL;
	struct child_key *strays = NULL;
	int ret;

	memset(t, 0, sizeof(*t));
	t->m = m;
	t->excluded = excluded;
	t->first = calloc(n, sizeof(*t->first));
	t->count = calloc(n, sizeof(*t->count));
	t->kids = calloc(n, sizeof(*t->kids));
	stray = calloc(n, sizeof(*stray));
	fill = calloc(n, sizeof(*fill));
	strays = calloc(n, sizeof(*strays));
	if (!t->first || !t->count || !t->kids || !stray || !fill || !strays) {
		ret = DPS_ERR_NOMEM;
		goto error;
	}
	ret = find_strays(m, excluded, stray);
	if (ret) {
		goto error;
	}
	for (size_t i = 0; i < n; i++) {
		if (i == m->root || excluded[i]) {
			continue;
		}
		if (!stray[i]) {
			t->count[m->threads[i].parent]++;
		} else {
			strays[n_stray++] = (struct child_key){
			    .idx = i,
			    .group = 1,
			    .rank = 0,
			    .start_ns = m->threads[i].start_ns,
			};
		}
	}
	/* Strays are ranked by start time: the only order both runs can agree on. */
	qsort(strays, n_stray, sizeof(*strays), cmp_child_key);
	t->count[m->root] += n_stray;
	for (size_t i = 0; i < n; i++) {
		t->first[i] = k;
		k += t->count[i];
	}
	for (size_t i = 0; i < n; i++) {
		size_t p;

		if (i == m->root || stray[i] || excluded[i]) {
			continue;
		}
		p = m->threads[i].parent;
		t->kids[t->first[p] + fill[p]++] = (struct child_key){
		    .idx = i,
		    .group = 0,
		    .rank = m->threads[i].create_rank,
		    .start_ns = m->threads[i].start_ns,
		};
	}
	for (size_t s = 0; s < n_stray; s++) {
		strays[s].rank = s;
		t->kids[t->first[m->root] + fill[m->root]++] = strays[s];
	}
	/* Ranks count the children that take part, so that a left-out thread (a tracer's) or a
	 * gap in the recorded ranks does not offset the others. */
	for (size_t i = 0; i < n; i++) {
		struct child_key *kids = t->kids + t->first[i];
		uint64_t next[2] = {0, 0};

		qsort(kids, t->count[i], sizeof(*kids), cmp_child_key);
		for (size_t c = 0; c < t->count[i]; c++) {
			kids[c].rank = next[kids[c].group]++;
		}
	}
	goto end;
error:
	tree_fini(t);
end:
	free(stray);
	free(fill);
	free(strays);
	return ret;
}

static int fill_path(struct compare_result *res, struct compare_thread *row,
		     const struct dfs_entry *e)
{
	char part[32];
	const char *parent;
	size_t len;

	if (e->parent_row == COMPARE_NO_THREAD) {
		row->path = strdup("0");
		row->depth = 0;
		return row->path ? DPS_OK : DPS_ERR_NOMEM;
	}
	/* a thread only in the simulated run is named by its own rank, marked '+' so that it
	 * cannot take the path of an original thread */
	snprintf(part, sizeof(part), "%s%s%" PRIu64, e->idx[0] == COMPARE_NO_THREAD ? "+" : "",
		 e->group ? "~" : "", e->rank);
	parent = res->threads[e->parent_row].path;
	len = strlen(parent) + 1 + strlen(part) + 1;
	row->path = malloc(len);
	if (!row->path) {
		return DPS_ERR_NOMEM;
	}
	snprintf(row->path, len, "%s.%s", parent, part);
	row->depth = res->threads[e->parent_row].depth + 1;
	return DPS_OK;
}

static void fill_values(struct compare_result *res, struct compare_thread *row)
{
	for (int s = 0; s < 2; s++) {
		const struct analyzer_thread *th;
		int64_t origin = (int64_t)res->side[s].origin_ns;

		if (row->idx[s] == COMPARE_NO_THREAD) {
			continue;
		}
		th = &res->side[s].model->threads[row->idx[s]];
		row->m[COMPARE_M_CPU].v[s] = (int64_t)th->stats.busy_ns;
		row->m[COMPARE_M_BLOCKED].v[s] = (int64_t)th->stats.blocked_ns;
		row->m[COMPARE_M_PREEMPTED].v[s] = (int64_t)th->stats.waiting_ns;
		row->m[COMPARE_M_START].v[s] = (int64_t)th->start_ns - origin;
		row->m[COMPARE_M_END].v[s] = (int64_t)th->end_ns - origin;
		row->m[COMPARE_M_RUNS].v[s] = (int64_t)th->stats.n_runs;
		row->m[COMPARE_M_SLEEPS].v[s] = (int64_t)th->stats.n_sleeps;
		for (int m = 0; m < COMPARE_M_COUNT; m++) {
			row->m[m].has[s] = true;
		}
	}
}

static int add_row(struct compare_result *res, GArray *rows, const struct dfs_entry *e)
{
	struct compare_thread *row;
	int ret;

	g_array_set_size(rows, rows->len + 1);
	res->threads = (struct compare_thread *)(void *)rows->data;
	row = &g_array_index(rows, struct compare_thread, rows->len - 1);
	row->idx[0] = e->idx[0];
	row->idx[1] = e->idx[1];
	if (e->idx[0] != COMPARE_NO_THREAD && e->idx[1] != COMPARE_NO_THREAD) {
		row->match = COMPARE_MATCHED;
		res->n_matched++;
	} else if (e->idx[0] != COMPARE_NO_THREAD) {
		row->match = COMPARE_ORIG_ONLY;
		res->n_orig_only++;
	} else {
		row->match = COMPARE_SIM_ONLY;
		res->n_sim_only++;
	}
	ret = fill_path(res, row, e);
	if (ret) {
		return ret;
	}
	for (int s = 0; s < 2; s++) {
		if (e->idx[s] != COMPARE_NO_THREAD) {
			res->side[s].row_of[e->idx[s]] = res->n_threads;
		}
	}
	fill_values(res, row);
	res->n_threads++;
	return DPS_OK;
}

static const struct child_key *kid_at(const struct tree *t, size_t parent, size_t k)
{
	if (parent == COMPARE_NO_THREAD || k >= t->count[parent]) {
		return NULL;
	}
	return &t->kids[t->first[parent] + k];
}

/* Above this many DP cells, children are paired by rank only (a huge, uneven fan-out). */
#define ALIGN_MAX_CELLS (8u << 20)
/* Slack of the alignment band around the diagonal. */
#define ALIGN_BAND 16
/* Cost of leaving a thread unpaired; a pair costs 0..1 by CPU, +2 if the names differ,
 * +3 across groups (created vs creator unknown). */
#define ALIGN_SKIP_COST 1.5

/* The k-th child of parent (both known to exist). */
static const struct child_key *kid_ref(const struct tree *t, size_t parent, size_t k)
{
	return &t->kids[t->first[parent] + k];
}

static double pair_cost(const struct tree *tr, const struct child_key *a, const struct child_key *b)
{
	const struct analyzer_thread *ta = &tr[0].m->threads[a->idx];
	const struct analyzer_thread *tb = &tr[1].m->threads[b->idx];
	double ca = (double)ta->stats.busy_ns, cb = (double)tb->stats.busy_ns;
	double mx = ca > cb ? ca : cb, c = 0;

	if (a->group != b->group) {
		c += 3;
	}
	if (strcmp(compare_thread_name(ta), compare_thread_name(tb))) {
		c += 2;
	}
	if (mx > 0) {
		c += (ca > cb ? ca - cb : cb - ca) / mx;
	}
	return c;
}

static void append_pair(GArray *out, size_t row, const struct child_key *a,
			const struct child_key *b)
{
	struct dfs_entry c = {.idx = {COMPARE_NO_THREAD, COMPARE_NO_THREAD}, .parent_row = row};

	if (a) {
		c.idx[0] = a->idx;
		c.group = a->group;
		c.rank = a->rank;
	}
	if (b) {
		c.idx[1] = b->idx;
		if (!a) {
			c.group = b->group;
			c.rank = b->rank;
		}
	}
	g_array_append_val(out, c);
}

/* Pairs children of equal (group, rank): the creation tree's own identity. */
static void pair_by_rank(GArray *out, const struct tree *tr, const struct dfs_entry *e, size_t row,
			 size_t n0, size_t n1)
{
	size_t i0 = 0, i1 = 0;

	while (i0 < n0 || i1 < n1) {
		const struct child_key *a = kid_at(&tr[0], e->idx[0], i0);
		const struct child_key *b = kid_at(&tr[1], e->idx[1], i1);
		int order;

		if (a && b) {
			order = a->group != b->group ? (a->group < b->group ? -1 : 1)
				: a->rank != b->rank ? (a->rank < b->rank ? -1 : 1)
						     : 0;
		} else {
			order = a ? -1 : 1;
		}
		append_pair(out, row, order <= 0 ? a : NULL, order >= 0 ? b : NULL);
		i0 += order <= 0;
		i1 += order >= 0;
	}
}

/*
 * When one run's thread created more threads than its counterpart (a tracer's helper thread
 * in the stub, a thread the simulation lost), pairing by rank would shift every later pair.
 * Instead, children are aligned in creation order (an edit distance in a band around the
 * diagonal) so that the extra threads are the ones left unpaired: pairs of the same name and
 * similar CPU time are cheap, unpaired threads cost ALIGN_SKIP_COST each.
 */
static int pair_by_alignment(GArray *out, const struct tree *tr, const struct dfs_entry *e,
			     size_t row, size_t n0, size_t n1, bool *done)
{
	ptrdiff_t lo = (n1 < n0 ? (ptrdiff_t)n1 - (ptrdiff_t)n0 : 0) - ALIGN_BAND;
	ptrdiff_t hi = (n1 > n0 ? (ptrdiff_t)n1 - (ptrdiff_t)n0 : 0) + ALIGN_BAND;
	size_t w = (size_t)(hi - lo + 1), cells = (n0 + 1) * w, i, k;
	double *dp = NULL;
	unsigned char *from = NULL; /* 0 pair, 1 skip orig, 2 skip sim */
	size_t *path0 = NULL, *path1 = NULL, np = 0;
	ptrdiff_t j;
	int ret = DPS_OK;

	*done = false;
	if (cells > ALIGN_MAX_CELLS) {
		return DPS_OK;
	}
	dp = malloc(cells * sizeof(*dp));
	from = malloc(cells);
	path0 = malloc((n0 + n1) * sizeof(*path0));
	path1 = malloc((n0 + n1) * sizeof(*path1));
	if (!dp || !from || !path0 || !path1) {
		ret = DPS_ERR_NOMEM;
		goto end;
	}
	/* cell (i, j) lives at i * w + (j - i - lo) */
	for (i = 0; i <= n0; i++) {
		for (k = 0; k < w; k++) {
			double best = -1;
			unsigned char how = 0;

			j = (ptrdiff_t)i + lo + (ptrdiff_t)k;
			if (j < 0 || j > (ptrdiff_t)n1) {
				dp[i * w + k] = -1;
				continue;
			}
			if (i == 0 && j == 0) {
				best = 0;
			}
			if (i > 0 && j > 0) {
				double c = dp[(i - 1) * w + k] +
					   pair_cost(tr, kid_ref(&tr[0], e->idx[0], i - 1),
						     kid_ref(&tr[1], e->idx[1], (size_t)j - 1));

				if (dp[(i - 1) * w + k] >= 0 && (best < 0 || c < best)) {
					best = c;
					how = 0;
				}
			}
			if (i > 0 && k + 1 < w && dp[(i - 1) * w + k + 1] >= 0) {
				double c = dp[(i - 1) * w + k + 1] + ALIGN_SKIP_COST;

				if (best < 0 || c < best) {
					best = c;
					how = 1;
				}
			}
			if (j > 0 && k > 0 && dp[i * w + k - 1] >= 0) {
				double c = dp[i * w + k - 1] + ALIGN_SKIP_COST;

				if (best < 0 || c < best) {
					best = c;
					how = 2;
				}
			}
			dp[i * w + k] = best;
			from[i * w + k] = how;
		}
	}
	/* trace back from (n0, n1) */
	i = n0;
	j = (ptrdiff_t)n1;
	while (i > 0 || j > 0) {
		k = (size_t)(j - (ptrdiff_t)i - lo);
		switch (from[i * w + k]) {
		case 0:
			path0[np] = i - 1;
			path1[np++] = (size_t)j - 1;
			i--;
			j--;
			break;
		case 1:
			path0[np] = i - 1;
			path1[np++] = COMPARE_NO_THREAD;
			i--;
			break;
		default:
			path0[np] = COMPARE_NO_THREAD;
			path1[np++] = (size_t)j - 1;
			j--;
			break;
		}
	}
	for (size_t p = np; p-- > 0;) {
		append_pair(
		    out, row,
		    path0[p] == COMPARE_NO_THREAD ? NULL : kid_ref(&tr[0], e->idx[0], path0[p]),
		    path1[p] == COMPARE_NO_THREAD ? NULL : kid_ref(&tr[1], e->idx[1], path1[p]));
	}
	*done = true;
end:
	free(dp);
	free(from);
	free(path0);
	free(path1);
	return ret;
}

/*
 * Pushes the children pairs of a row in reverse, so that the stack pops them in creation
 * order: by rank when both have as many children, else by alignment.
 */
static int push_children(GArray *stack, const struct tree *tr, const struct dfs_entry *e,
			 size_t row)
{
	size_t n0, n1, first = stack->len;
	bool done = false;
	int ret = DPS_OK;

	n0 = e->idx[0] == COMPARE_NO_THREAD ? 0 : tr[0].count[e->idx[0]];
	n1 = e->idx[1] == COMPARE_NO_THREAD ? 0 : tr[1].count[e->idx[1]];
	if (n0 != n1 && n0 && n1) {
		ret = pair_by_alignment(stack, tr, e, row, n0, n1, &done);
	}
	if (ret) {
		return ret;
	}
	if (!done) {
		pair_by_rank(stack, tr, e, row, n0, n1);
	}
	for (size_t a = first, b = stack->len; a + 1 < b; a++, b--) {
		struct dfs_entry tmp = g_array_index(stack, struct dfs_entry, a);

		g_array_index(stack, struct dfs_entry, a) =
		    g_array_index(stack, struct dfs_entry, b - 1);
		g_array_index(stack, struct dfs_entry, b - 1) = tmp;
	}
	return DPS_OK;
}

enum dps_status compare_match_trees(struct compare_result *res)
{
	struct tree tr[2] = {0};
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct dfs_entry));
	GArray *rows = g_array_new(FALSE, TRUE, sizeof(struct compare_thread));
	int ret;

	ret = tree_init(&tr[0], res->side[0].model, res->side[0].excluded);
	if (!ret) {
		ret = tree_init(&tr[1], res->side[1].model, res->side[1].excluded);
	}
	if (ret) {
		goto end;
	}
	g_array_append_val(stack, ((struct dfs_entry){
				      .idx = {res->side[0].model->root, res->side[1].model->root},
				      .parent_row = COMPARE_NO_THREAD,
				  }));
	while (stack->len) {
		struct dfs_entry e = g_array_index(stack, struct dfs_entry, stack->len - 1);
		size_t row = res->n_threads;

		g_array_set_size(stack, stack->len - 1);
		ret = add_row(res, rows, &e);
		if (!ret) {
			ret = push_children(stack, tr, &e, row);
		}
		if (ret) {
			goto end;
		}
	}
end:
	/* the rows become the result's array (compare_result_destroy frees it) */
	res->threads = (struct compare_thread *)(void *)g_array_free(rows, FALSE);
	g_array_free(stack, TRUE);
	tree_fini(&tr[0]);
	tree_fini(&tr[1]);
	return ret;
}
