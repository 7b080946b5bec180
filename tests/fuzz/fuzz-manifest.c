/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the manifest (common/actset-manifest.c): any text as the manifest of a
 * small valid set (1 creates and joins 2 and 3) loads or is refused with a located error,
 * never a crash, leak or undefined behaviour. What loads must survive the writer: the set
 * written and loaded again has the same manifest data (a difference traps).
 * Run: tests/fuzz/run.sh SECONDS manifest.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "actset.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	const char *name, *text;
} set_files[] = {
    {"1.act", "create 2\ncreate 3\nrun 10\njoin 2\njoin 3\n"},
    {"2.act", "run 5\nsleep 1ms\n"},
    {"3.act", "heap +4096\nrun 1\nheap -4096\n"},
};

static bool str_differ(const char *a, const char *b)
{
	return !a != !b || (a && strcmp(a, b));
}

/* Traps if the manifest data of the two sets differ. */
static void check_same(const struct dps_actset *a, const struct dps_actset *b)
{
	bool same = !str_differ(a->source_trace, b->source_trace) &&
		    !str_differ(a->options, b->options) && a->partial == b->partial &&
		    a->n_threads == b->n_threads &&
		    (!a->partial || !str_differ(a->partial_reason, b->partial_reason));

	for (size_t t = 0; same && t < a->n_threads; t++) {
		const struct dps_actset_thread *x = &a->threads[t], *y = &b->threads[t];

		same = x->id == y->id && x->tid == y->tid && x->pid == y->pid &&
		       !str_differ(x->comm, y->comm) && x->start_offset_ns == y->start_offset_ns &&
		       x->pre_existing == y->pre_existing;
	}
	if (!same) {
		fprintf(stderr, "the manifest changed by writing and loading the set again\n");
		__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char in_dir[PATH_MAX], out_dir[PATH_MAX];
	struct dps_actset *set = NULL, *again = NULL;
	struct dps_diag diag;

	if (!in_dir[0]) {
		const char *tmp = fuzz_tmp_dir();

		/* The set's files sit next to the fuzzer's own directory, removed with it. */
		snprintf(in_dir, sizeof(in_dir), "%s", tmp);
		snprintf(out_dir, sizeof(out_dir), "%s/out", tmp);
		for (size_t i = 0; i < sizeof(set_files) / sizeof(set_files[0]); i++) {
			fuzz_write_file(in_dir, set_files[i].name,
					(const uint8_t *)set_files[i].text,
					strlen(set_files[i].text));
		}
	}
	fuzz_write_file(in_dir, DPS_ACTSET_MANIFEST_NAME, data, size);
	if (dps_actset_load_dir(in_dir, &set, &diag)) {
		return 0;
	}
	if (dps_actset_write_dir(set, out_dir, DPS_OUT_FORCE, &diag) ||
	    dps_actset_load_dir(out_dir, &again, &diag)) {
		fprintf(stderr, "a loaded set cannot be written and loaded again: %s\n", diag.msg);
		__builtin_trap();
	}
	check_same(set, again);
	dps_actset_destroy(again);
	dps_actset_destroy(set);
	return 0;
}
