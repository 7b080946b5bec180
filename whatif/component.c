/* SPDX-License-Identifier: MIT */
/*
 * The threads dps whatif's options name (--thread, --thread-comm, a window's ID.start or ID.end),
 * checked against those there are (whatif-internal.h): a set's, or, for a trace, the
 * analysis's as soon as it has read the trace and before the set is written, so that a thread
 * the trace does not have is refused before the calibration and the build. One check for
 * both, with one message.
 */
#include <inttypes.h>
#include <string.h>

#include "actset.h"
#include "analyzer.h"
#include "whatif-internal.h"

struct whatif_names whatif_names_of_set(const struct dps_actset *set)
{
	struct whatif_names nm = {set->n_threads, g_new0(uint64_t, set->n_threads + 1),
				  g_new0(const char *, set->n_threads + 1)};

	for (size_t t = 0; t < set->n_threads; t++) {
		nm.ids[t] = set->threads[t].id;
		nm.comms[t] = set->threads[t].comm;
	}
	return nm;
}

struct whatif_names whatif_names_of_result(const struct analyzer_result *res)
{
	struct whatif_names nm = {res->n_threads, g_new0(uint64_t, res->n_threads + 1),
				  g_new0(const char *, res->n_threads + 1)};

	for (size_t t = 0; t < res->n_threads; t++) {
		nm.ids[t] = res->threads[t].id;
		nm.comms[t] = res->threads[t].comm;
	}
	return nm;
}

void whatif_names_fini(struct whatif_names *nm)
{
	g_free(nm->ids);
	g_free(nm->comms);
	nm->ids = NULL;
	nm->comms = NULL;
}

/* The ids and names, for a message about a thread they do not have (g_free). */
static char *list_names(const struct whatif_names *nm)
{
	GString *g = g_string_new(NULL);

	for (size_t t = 0; t < nm->n && t < 40; t++) {
		g_string_append_printf(g, "%s%" PRIu64 " (%s)", t ? ", " : "", nm->ids[t],
				       nm->comms[t] ? nm->comms[t] : "?");
	}
	if (nm->n > 40) {
		g_string_append(g, ", ...");
	}
	return g_string_free(g, FALSE);
}

static bool has_id(const struct whatif_names *nm, uint64_t id)
{
	for (size_t t = 0; t < nm->n; t++) {
		if (nm->ids[t] == id) {
			return true;
		}
	}
	return false;
}

static bool has_comm(const struct whatif_names *nm, const char *comm)
{
	for (size_t t = 0; t < nm->n; t++) {
		if (nm->comms[t] && !strcmp(nm->comms[t], comm)) {
			return true;
		}
	}
	return false;
}

enum dps_status whatif_check_names(const struct whatif_options *o, const struct whatif_result *r,
				   const struct whatif_names *nm, const char *where,
				   struct dps_diag *diag)
{
	const struct whatif_edge *edges[] = {&r->window_from, &r->window_to};
	char *known, buf[32];

	for (size_t i = 0; i < o->n_thread_ids; i++) {
		if (has_id(nm, o->thread_ids[i])) {
			continue;
		}
		known = list_names(nm);
		dps_diag_setf(diag, "--thread %" PRIu64 ": no such thread in %s; its threads: %s",
			      o->thread_ids[i], where, known);
		g_free(known);
		return DPS_ERR_INVAL;
	}
	for (size_t c = 0; c < o->n_comms; c++) {
		if (has_comm(nm, o->comms[c])) {
			continue;
		}
		known = list_names(nm);
		dps_diag_setf(diag,
			      "--thread-comm %s: no thread of that name in %s; its threads: %s",
			      o->comms[c], where, known);
		g_free(known);
		return DPS_ERR_INVAL;
	}
	for (size_t i = 0; i < 2; i++) {
		const struct whatif_edge *e = edges[i];

		if ((e->kind != WHATIF_EDGE_START && e->kind != WHATIF_EDGE_END) ||
		    has_id(nm, e->id)) {
			continue;
		}
		known = list_names(nm);
		dps_diag_setf(diag, "--window-%s %s: no thread %" PRIu64 " in %s; its threads: %s",
			      i ? "to" : "from", whatif_edge_str(e, i, buf, sizeof(buf)), e->id,
			      where, known);
		g_free(known);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}
