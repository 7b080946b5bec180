/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the action-file parser (common/actset-parse.c) and the set's
 * resolution (common/actset.c): the input is the text of one or more .act files, separated by
 * form feeds ('\f'), the files of threads 1, 2, 3... (at most 8). Any text must parse or be
 * refused with a located error, and any set resolve or be refused, never crash, leak or hit
 * undefined behaviour. What parses must survive the writer: each thread written back and
 * parsed again gives the same actions (a difference traps; a run's cache figures compared by
 * value, their index being the set's).
 * Run: tests/fuzz/run.sh SECONDS actset.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes thread t of set as text and parses it into a fresh set; traps if the actions differ. */
static void check_round_trip(const struct dps_actset *set, size_t t)
{
	const struct dps_actset_thread *a = &set->threads[t], *b;
	struct dps_actset *again;
	struct dps_diag diag;
	char *text = NULL;
	size_t len = 0, u;
	FILE *out;

	out = open_memstream(&text, &len);
	if (!out) {
		return;
	}
	if (dps_actset_write_thread(set, t, out)) {
		fclose(out);
		free(text);
		return;
	}
	fclose(out);
	again = dps_actset_create();
	u = again ? dps_actset_add_thread(again, a->id) : DPS_ACTSET_NO_THREAD;
	if (u == DPS_ACTSET_NO_THREAD) {
		goto end;
	}
	if (dps_actset_parse_actions(again, u, "written.act", text, len, &diag)) {
		fprintf(stderr, "written text does not parse: %s\n%s", diag.msg, text);
		__builtin_trap();
	}
	b = &again->threads[u];
	if (a->n_actions != b->n_actions) {
		fprintf(stderr, "%zu actions written, %zu read back\n", a->n_actions, b->n_actions);
		__builtin_trap();
	}
	for (size_t i = 0; i < a->n_actions; i++) {
		const struct dps_actset_action *x = &a->actions[i], *y = &b->actions[i];
		/* a member set's first index is its set's: compare the ids it names; a run's
		 * cache figures are an index in its set's table: compare the figures */
		bool figures = x->kind == DPS_ACT_RUN && x->aux && y->aux;
		bool same = x->kind == y->kind && (figures || x->aux == y->aux) &&
			    (dps_actset_kind_names_members(x->kind)
				 ? !memcmp(set->members + x->first, again->members + y->first,
					   x->aux * sizeof(*set->members))
				 : x->value == y->value);

		if (same && figures) {
			same = !memcmp(&set->caches[x->aux - 1], &again->caches[y->aux - 1],
				       sizeof(*set->caches));
		}

		if (!same) {
			fprintf(stderr, "action %zu changed by writing it:\n%s", i, text);
			__builtin_trap();
		}
	}
end:
	dps_actset_destroy(again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dps_actset *set = dps_actset_create();
	const char *text = (const char *)data, *end = text + size;
	struct dps_diag diag;

	if (!set) {
		return 0;
	}
	for (uint64_t id = 1; id <= 8 && text <= end; id++) {
		const char *ff = memchr(text, '\f', (size_t)(end - text));
		size_t len = ff ? (size_t)(ff - text) : (size_t)(end - text);
		size_t t = dps_actset_add_thread(set, id);

		if (t == DPS_ACTSET_NO_THREAD ||
		    dps_actset_parse_actions(set, t, "fuzz.act", text, len, &diag)) {
			goto end;
		}
		check_round_trip(set, t);
		if (!ff) {
			break;
		}
		text = ff + 1;
	}
	if (!dps_actset_resolve(set, &diag)) {
		/* A resolved set: every create, join, wait and wake names a thread of it. */
		for (size_t t = 0; t < set->n_threads; t++) {
			for (size_t a = 0; a < set->threads[t].n_actions; a++) {
				const struct dps_actset_action *act = &set->threads[t].actions[a];

				if (dps_actset_kind_names_thread(act->kind) &&
				    dps_actset_target(set, act) >= set->n_threads) {
					fprintf(stderr, "thread %zu action %zu names no thread\n",
						t, a);
					__builtin_trap();
				}
			}
		}
	}
end:
	dps_actset_destroy(set);
	return 0;
}
