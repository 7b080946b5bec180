/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the action-file parser (common/actset-parse.c): any text given as one
 * thread's .act file must parse or be refused with a located error, never crash, leak or hit
 * undefined behaviour. What parses must survive the writer: written back and parsed again it
 * gives the same actions (a difference traps). Run: tests/fuzz/run.sh SECONDS actset.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
		if (a->actions[i].kind != b->actions[i].kind ||
		    a->actions[i].value != b->actions[i].value) {
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
	struct dps_diag diag;
	size_t t;

	if (!set) {
		return 0;
	}
	t = dps_actset_add_thread(set, 1);
	if (t != DPS_ACTSET_NO_THREAD &&
	    !dps_actset_parse_actions(set, t, "fuzz.act", (const char *)data, size, &diag)) {
		check_round_trip(set, t);
		/* One thread alone: a valid root unless it names others (then a located error). */
		dps_actset_resolve(set, &diag);
	}
	dps_actset_destroy(set);
	return 0;
}
