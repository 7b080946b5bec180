/* SPDX-License-Identifier: MIT */
/*
 * Waits in a loop of timeouts (ticks.c; doc/sync.md, "Timed waits in a loop"): a thread that
 * waits on a condition variable with a timeout, wakes when it expires, does a little (a
 * progress update) and waits again, until another thread signals. xz's main thread does so
 * every 300 ms while a worker compresses a block. Each timed-out wait in the recording would
 * be a fixed sleep, which pins the replay to the recorded speed of the thread that signalled;
 * the chain is the one wait it stands for.
 */
#ifndef DPS_ANALYZER_TICKS_H
#define DPS_ANALYZER_TICKS_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "analyzer.h"

enum analyzer_tick_role {
	ANALYZER_TICK_NONE = 0,
	/* a timed wait that timed out, in a chain that a signal ends: its block is dropped */
	ANALYZER_TICK_TIMEOUT = 1,
	/* the wait a signal ended after one or more ticks: the chain's one wait, untimed (the
	 * program waited again each time it timed out) */
	ANALYZER_TICK_END = 2,
};

/*
 * The role of each of a thread's synchronization points (sync, struct analyzer_sync_point, in
 * time order; marks: the thread's, time-ordered), set at condition waits' begin points, in
 * *roles (owned by the caller, free(); NULL when the thread has no chain). Two waits chain
 * when they are on the same mutex and what the thread did between them is short (at most a
 * tenth of the first's timeout), with no mark (create, wake, join) and no synchronization but
 * locks and unlocks. Returns the number of ticks (timed-out waits dropped), or -1 on ENOMEM.
 */
long analyzer_ticks_find(const GArray *sync, const struct analyzer_mark *marks, size_t n_marks,
			 uint8_t **roles);

#endif /* DPS_ANALYZER_TICKS_H */
