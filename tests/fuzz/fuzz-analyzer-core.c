/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the analyzer's core: arbitrary event sequences (any kind, tids, CPUs,
 * states, out-of-order and repeated timestamps, forks reusing tids, frees of anything) must
 * never crash it nor make it build an invalid action set, and a core that spills its timelines
 * (spill.c, every 2 records here) must build the same set as one that keeps them. Run:
 * tests/fuzz/run.sh SECONDS analyzer-core.
 *
 * Each input is a sequence of 24-byte records; selection and options come from the first one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Every thread spills after 2 records in the core that does not keep its timelines. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("DPS_ANALYZER_SPILL_AT", "2", 1);
	return 0;
}

/* The same actions, thread by thread, in the two sets (or neither set). */
static bool same_sets(const struct dps_actset *a, const struct dps_actset *b)
{
	if (!a || !b) {
		return !a && !b;
	}
	if (a->n_threads != b->n_threads) {
		return false;
	}
	for (size_t t = 0; t < a->n_threads; t++) {
		const struct dps_actset_thread *x = &a->threads[t], *y = &b->threads[t];

		if (x->id != y->id || x->n_actions != y->n_actions ||
		    (x->n_actions &&
		     memcmp(x->actions, y->actions, x->n_actions * sizeof(*x->actions)))) {
			return false;
		}
	}
	return true;
}

/*
 * The events of one input, fed to two cores: one keeps its timelines in memory, the other
 * spills them (spill.c). Both must build the same set, and a set must never be invalid (an
 * invalid one is an analyzer bug: DPS_ERROR "internal error").
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t small(uint8_t v, int span)
{
	return (int64_t)(v % span) - 1; /* -1 .. span-2: unknown, idle, a few tids */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct analyzer_options opts;
	struct analyzer_core *core, *spilled;
	struct analyzer_result *res, *res2;
	struct dps_diag diag, diag2;
	uint64_t ts = 0;

	if (size < 4) {
		return 0;
	}
	analyzer_options_default(&opts);
	opts.pid = data[0] & 1 ? (int64_t)(data[1] % 8) : -1;
	opts.comm = data[0] & 2 ? "c1" : NULL;
	opts.tid = data[0] & 4 ? (int64_t)(data[1] % 8) : -1;
	opts.follow_children = data[0] & 8;
	opts.min_block_ns = data[2] * 100;
	core = analyzer_core_create(&opts, !(data[0] & 16));
	opts.keep_timelines = false;
	spilled = analyzer_core_create(&opts, !(data[0] & 16));
	if (!core || !spilled) {
		analyzer_core_destroy(core);
		analyzer_core_destroy(spilled);
		return 0;
	}
	for (size_t off = 4; off + 24 <= size; off += 24) {
		const uint8_t *r = data + off;
		struct analyzer_event ev;
		uint16_t dt;

		memcpy(&dt, r + 2, sizeof(dt));
		/* mostly forward, sometimes backwards in time */
		ts = (r[1] & 0x80) && ts > dt ? ts - (dt & 0xff) : ts + dt;
		ev = analyzer_event_init(r[0] % ANALYZER_EV_NR, ts, (int32_t)small(r[1], 5));
		ev.flags = r[4];
		ev.ctx_tid = small(r[5], 10);
		ev.ctx_pid = small(r[6], 10);
		ev.ctx_comm = r[7] & 1 ? "c1" : (r[7] & 2 ? "" : NULL);
		ev.raw.v[0] = r[8] & 0x80 ? (int64_t)r[9] << 8 : small(r[9], 10);
		ev.raw.v[1] = r[10] & 0x80 ? (int64_t)r[11] * 1000 : small(r[11], 10);
		ev.raw.v[2] = (int64_t)(int8_t)r[12] * (r[13] & 1 ? 257 : 1);
		ev.raw.v[3] = small(r[14], 14); /* also every synchronization op (event.h) */
		ev.raw.s[0] = r[15] & 1 ? "c1" : (r[15] & 2 ? "/usr/bin/c2" : NULL);
		ev.raw.s[1] = r[16] & 1 ? "c2" : NULL;
		if (analyzer_core_feed(core, &ev) | analyzer_core_feed(spilled, &ev)) {
			break;
		}
	}
	res = analyzer_result_create();
	res2 = analyzer_result_create();
	if (res && res2) {
		int status = analyzer_core_finish(core, data[3] & 1, res, &diag);
		int status2 = analyzer_core_finish(spilled, data[3] & 1, res2, &diag2);

		if (status == DPS_ERROR || status2 == DPS_ERROR) {
			fprintf(stderr, "%s\n", status == DPS_ERROR ? diag.msg : diag2.msg);
			__builtin_trap();
		}
		/* (out of memory in one of them only is not a difference) */
		if (status != DPS_ERR_NOMEM && status2 != DPS_ERR_NOMEM &&
		    (status != status2 || !same_sets(res->actset, res2->actset))) {
			fprintf(stderr, "the spilled core built another set (%d, %d)\n", status,
				status2);
			__builtin_trap();
		}
	}
	analyzer_result_destroy(res);
	analyzer_result_destroy(res2);
	analyzer_core_destroy(core);
	analyzer_core_destroy(spilled);
	return 0;
}
