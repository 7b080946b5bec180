/* SPDX-License-Identifier: MIT */
/*
 * Waits in a loop of timeouts (ticks.h). A timed condition wait is always in a loop that
 * checks the program's condition; when a wait times out and the thread, after a short pass
 * through the loop, waits again on the same mutex, the timeout was a tick of that loop (a
 * progress update), not the end of the wait. The last wait of such a chain, ended by a signal,
 * is where the program's condition became true: the chain plays as that one wait, untimed, so
 * a replay where the signalling thread is faster or slower ends it earlier or later, as the
 * real loop would. A chain that times out to its end (no signal) is left as recorded: nothing
 * tells what ended it.
 */
#include "ticks.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core-internal.h"

/* What the thread does between two waits of one chain is at most this share of the first
 * wait's timeout (xz reads its progress and calls lzma_code again: microseconds). */
#define TICK_GAP_SHARE 10

static const struct analyzer_sync_point *point(const GArray *sync, guint i)
{
	return &g_array_index(sync, struct analyzer_sync_point, i);
}

/* The index of the end point of the wait that begins at point i, or sync->len when the next
 * point is not it (a trace cut inside the wait). */
static guint wait_end(const GArray *sync, guint i)
{
	return i + 1 < sync->len && point(sync, i + 1)->kind == ANALYZER_EV_SYNC_COND_WAIT_END
		   ? i + 1
		   : sync->len;
}

/* Whether the stretch between the end point e and the next wait's begin point b is one pass
 * through a waiting loop: short, on the same mutex, nothing but locks between, no mark. */
static bool chains(const GArray *sync, guint e, guint b, int64_t timeout,
		   const struct analyzer_mark *marks, size_t n_marks, size_t *mi)
{
	const struct analyzer_sync_point *pe = point(sync, e), *pb = point(sync, b);

	if (pe->obj != pb->obj || pe->obj == ANALYZER_SYNC_NO_OBJ ||
	    pb->ts_ns - pe->ts_ns > (uint64_t)timeout / TICK_GAP_SHARE) {
		return false;
	}
	for (guint i = e + 1; i < b; i++) {
		uint32_t k = point(sync, i)->kind;

		if (k != ANALYZER_EV_SYNC_LOCK_ACQ && k != ANALYZER_EV_SYNC_UNLOCK) {
			return false;
		}
	}
	while (*mi < n_marks && marks[*mi].ts_ns <= pe->ts_ns) {
		(*mi)++;
	}
	return !(*mi < n_marks && marks[*mi].ts_ns < pb->ts_ns);
}

long analyzer_ticks_find(const GArray *sync, const struct analyzer_mark *marks, size_t n_marks,
			 uint8_t **roles)
{
	guint first = 0, prev_end = 0; /* the chain: ticks at the begin points from first on */
	size_t n_chain = 0, mi = 0;
	int64_t prev_timeout = 0;
	long n_ticks = 0;
	uint8_t *r = NULL;

	*roles = NULL;
	for (guint i = 0; sync && i < sync->len; i++) {
		const struct analyzer_sync_point *p = point(sync, i);
		guint e;
		int64_t result;

		if (p->kind != ANALYZER_EV_SYNC_COND_WAIT_BEGIN) {
			continue;
		}
		e = wait_end(sync, i);
		if (e == sync->len) {
			n_chain = 0;
			continue;
		}
		result = point(sync, e)->arg;
		if (n_chain && !chains(sync, prev_end, i, prev_timeout, marks, n_marks, &mi)) {
			n_chain = 0;
		}
		if (p->arg > 0 && result == ETIMEDOUT) {
			if (!n_chain) {
				first = i;
			}
			n_chain++;
			prev_end = e;
			prev_timeout = p->arg;
			continue;
		}
		if (n_chain && result == 0) {
			if (!r) {
				r = calloc(sync->len, 1);
				if (!r) {
					return -1;
				}
			}
			for (guint k = first; k < i; k++) {
				if (point(sync, k)->kind == ANALYZER_EV_SYNC_COND_WAIT_BEGIN) {
					r[k] = ANALYZER_TICK_TIMEOUT;
					n_ticks++;
				}
			}
			r[i] = ANALYZER_TICK_END;
		}
		n_chain = 0;
	}
	*roles = r;
	return n_ticks;
}
