/* SPDX-License-Identifier: MIT */
/*
 * Resolve's check of the order that creates and joins impose (doc/action-format.md,
 * "Validation"): a `join` that can never return is bad input, named at its file:line:column.
 *
 * A join waits for its joinee's end, a thread's start for its creator's `create`, and each
 * action for the one before it in its file. Those waits form a graph whose nodes are each
 * thread's start, its creates and joins in file order, and its end; a cycle in it is a set of
 * threads each waiting, through joins and creates, for its own end: thread 2 joins 3 while 3
 * joins 2, or thread 1 joins 2 before it creates 3, which 2 joins. The player would find it
 * only as it plays (and, before issue 26, not always); here it is refused before anything
 * runs. `join any` is left out: it waits for whichever member ends first, so no single member
 * makes it wait for good, and the player's deadlock check covers what it can block.
 *
 * One depth-first walk over the graph, iterative (a deep create chain must not overflow the
 * stack), O(threads + creates + joins).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "actset-internal.h"

/* The graph: per thread, its start (node base[t]), its creates and joins (base[t] + 1 ..
 * base[t] + m[t]), its end (base[t] + m[t] + 1). */
struct order_graph {
	const struct dps_actset *set;
	const struct dps_actset_id_index *ix;
	size_t *base;	     /* per thread */
	size_t *m;	     /* per thread: its creates and joins */
	size_t *create_node; /* per thread: the node of the create that starts it (root: none) */
	size_t *thread_of;   /* per node */
	size_t *action_of;   /* per node: the action's index in its thread, SIZE_MAX: start, end */
	size_t n_nodes;
};

#define NONE SIZE_MAX

static bool is_join(const struct order_graph *g, size_t node)
{
	size_t a = g->action_of[node];

	return a != NONE && g->set->threads[g->thread_of[node]].actions[a].kind == DPS_ACT_JOIN;
}

/* What node waits for: edge 0 the node before it (its thread's previous node; for a start,
 * its creator's create), edge 1 a join's joinee's end. NONE when there is no such edge. */
static size_t edge(const struct order_graph *g, size_t node, int which)
{
	size_t t = g->thread_of[node];

	if (which == 0) {
		return node == g->base[t] ? g->create_node[t] : node - 1;
	}
	if (is_join(g, node)) {
		size_t c = dps_actset__find_in_index(
		    g->ix, g->set->n_threads, g->set->threads[t].actions[g->action_of[node]].id);

		return g->base[c] + g->m[c] + 1;
	}
	return NONE;
}

static bool kind_orders(uint32_t kind)
{
	return kind == DPS_ACT_CREATE || kind == DPS_ACT_JOIN;
}

static int build_graph(struct order_graph *g)
{
	const struct dps_actset *set = g->set;
	size_t n = set->n_threads, node = 0;

	g->base = malloc(n * sizeof(*g->base));
	g->m = calloc(n, sizeof(*g->m));
	g->create_node = malloc(n * sizeof(*g->create_node));
	if (!g->base || !g->m || !g->create_node) {
		return DPS_ERR_NOMEM;
	}
	for (size_t t = 0; t < n; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		g->create_node[t] = NONE;
		for (size_t a = 0; a < th->n_actions; a++) {
			g->m[t] += kind_orders(th->actions[a].kind);
		}
		g->base[t] = node;
		node += g->m[t] + 2;
	}
	g->n_nodes = node;
	g->thread_of = malloc(node * sizeof(*g->thread_of));
	g->action_of = malloc(node * sizeof(*g->action_of));
	if (!g->thread_of || !g->action_of) {
		return DPS_ERR_NOMEM;
	}
	for (size_t t = 0; t < n; t++) {
		const struct dps_actset_thread *th = &set->threads[t];
		size_t k = g->base[t];

		g->thread_of[k] = t;
		g->action_of[k++] = NONE;
		for (size_t a = 0; a < th->n_actions; a++) {
			if (!kind_orders(th->actions[a].kind)) {
				continue;
			}
			g->thread_of[k] = t;
			g->action_of[k] = a;
			if (th->actions[a].kind == DPS_ACT_CREATE) {
				/* resolve checked that the child is a thread of the set */
				g->create_node[dps_actset__find_in_index(g->ix, n,
									 th->actions[a].id)] = k;
			}
			k++;
		}
		g->thread_of[k] = t;
		g->action_of[k] = NONE;
	}
	return DPS_OK;
}

/* The action file of thread t as the message names it: its base name. */
static const char *short_name(const struct dps_actset *set, size_t t)
{
	const char *path = set->threads[t].path, *slash;

	if (!path) {
		return "?";
	}
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Whether node c of a cycle waits there for its joinee's end (next: the node after it in the
 * cycle), not only for the action before it. */
static bool joins_in_cycle(const struct order_graph *g, size_t c, size_t next)
{
	return is_join(g, c) && next == edge(g, c, 1);
}

/*
 * Reports the cycle cyc[0..len) (each node waits for the next, the last for the first): at its
 * first join in file order (thread, then line), with the steps that bring the wait back to it.
 */
static void report_cycle(const struct order_graph *g, GArray *const *cols, const size_t *cyc,
			 size_t len, struct dps_diag *diag)
{
	const struct dps_actset *set = g->set;
	size_t first = NONE, steps = 0;
	char msg[768];
	size_t used = 0;
	const char *file;
	unsigned line, col;

	for (size_t i = 0; i < len; i++) {
		size_t c = cyc[i];

		if (joins_in_cycle(g, c, cyc[(i + 1) % len]) &&
		    (first == NONE || g->thread_of[c] < g->thread_of[cyc[first]] ||
		     (g->thread_of[c] == g->thread_of[cyc[first]] &&
		      g->action_of[c] < g->action_of[cyc[first]]))) {
			first = i;
		}
	}
	if (first == NONE) {
		/* every cycle waits through a join (creates alone make a tree): not reached */
		dps_diag_setf(diag, "%s: a cycle of creates and joins: expected none",
			      set->dir ? set->dir : "action set");
		return;
	}
	msg[0] = '\0';
	for (size_t k = 1; k < len && used < sizeof(msg) - 64; k++) {
		size_t c = cyc[(first + k) % len], next = cyc[(first + k + 1) % len];
		size_t t = g->thread_of[c];
		int w = 0;

		if (steps == 4) {
			w = snprintf(msg + used, sizeof(msg) - used, ", ...");
			used += w > 0 ? (size_t)w : 0;
			break;
		}
		if (joins_in_cycle(g, c, next)) {
			const struct dps_actset_action *a =
			    &set->threads[t].actions[g->action_of[c]];

			dps_actset__describe_action(set, t, g->action_of[c], cols, &file, &line,
						    &col);
			w = snprintf(msg + used, sizeof(msg) - used,
				     ", %" PRIu64 " joins %" PRIu64 " (%s:%u:%u)",
				     set->threads[t].id, a->id, short_name(set, t), line, col);
			steps++;
		} else if (c == g->base[t] && next == g->create_node[t]) {
			size_t p = g->thread_of[next];

			dps_actset__describe_action(set, p, g->action_of[next], cols, &file, &line,
						    &col);
			w = snprintf(
			    msg + used, sizeof(msg) - used,
			    ", %" PRIu64 " starts only when %" PRIu64 " creates it (%s:%u:%u)",
			    set->threads[t].id, set->threads[p].id, short_name(set, p), line, col);
			steps++;
		}
		used += w > 0 ? (size_t)w : 0;
		used = used < sizeof(msg) ? used : sizeof(msg) - 1;
	}
	{
		size_t c = cyc[first], t = g->thread_of[c];
		const struct dps_actset_action *a = &set->threads[t].actions[g->action_of[c]];

		dps_actset__describe_action(set, t, g->action_of[c], cols, &file, &line, &col);
		dps_diag_set(diag, file, line, col,
			     "join of thread %" PRIu64 " that can never return: %" PRIu64
			     " joins %" PRIu64 " here%s, which brings the wait back to this join: "
			     "expected no cycle of joins and creates",
			     a->id, set->threads[t].id, a->id, msg);
	}
}

/* The walk: returns DPS_OK, DPS_ERR_INVAL at the first cycle (reported), DPS_ERR_NOMEM. */
static int find_cycle(const struct order_graph *g, GArray *const *cols, struct dps_diag *diag)
{
	/* 0 unseen, 1 on the walk's path, 2 done */
	unsigned char *color = calloc(g->n_nodes, 1);
	size_t *path = malloc(g->n_nodes * sizeof(*path));
	unsigned char *next_edge = malloc(g->n_nodes);
	int status = DPS_OK;

	if (!color || !path || !next_edge) {
		status = DPS_ERR_NOMEM;
		goto end;
	}
	for (size_t s = 0; s < g->n_nodes && !status; s++) {
		size_t depth = 0;

		if (color[s]) {
			continue;
		}
		path[depth] = s;
		next_edge[depth++] = 0;
		color[s] = 1;
		while (depth && !status) {
			size_t u = path[depth - 1], v;

			if (next_edge[depth - 1] == 2) {
				color[u] = 2;
				depth--;
				continue;
			}
			v = edge(g, u, next_edge[depth - 1]++);
			if (v == NONE || color[v] == 2) {
				continue;
			}
			if (color[v] == 1) {
				size_t from = depth;

				while (path[from - 1] != v) {
					from--;
				}
				report_cycle(g, cols, path + from - 1, depth - from + 1, diag);
				status = DPS_ERR_INVAL;
				break;
			}
			color[v] = 1;
			path[depth] = v;
			next_edge[depth++] = 0;
		}
	}
end:
	free(color);
	free(path);
	free(next_edge);
	return status;
}

int dps_actset__check_order(const struct dps_actset *set, const struct dps_actset_id_index *ix,
			    GArray *const *cols, struct dps_diag *diag)
{
	struct order_graph g = {.set = set, .ix = ix};
	int status = build_graph(&g);

	if (!status) {
		status = find_cycle(&g, cols, diag);
	}
	if (status == DPS_ERR_NOMEM) {
		dps_diag_setf(diag, "out of memory checking the action set's joins");
	}
	free(g.base);
	free(g.m);
	free(g.create_node);
	free(g.thread_of);
	free(g.action_of);
	return status;
}
