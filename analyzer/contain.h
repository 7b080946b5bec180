/* SPDX-License-Identifier: MIT */
/*
 * The event source run in a child process (contain.c): the same events as bt-source.h, but
 * libbabeltrace2 decodes them in a forked child, so that a decoder that loops or aborts on a
 * damaged trace costs a located error, not dps itself (doc/analyzer.md, "Damaged traces").
 */
#ifndef DPS_ANALYZER_CONTAIN_H
#define DPS_ANALYZER_CONTAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "event.h"

struct analyzer_contained;

/* The watchdog's period when neither the caller nor DPS_DECODE_TIMEOUT gives one. */
#define ANALYZER_DEFAULT_DECODE_TIMEOUT_NS 10000000000LL
/* A decoder's anonymous memory bound (MiB) when DPS_DECODE_MEMORY does not give one. */
#define ANALYZER_DEFAULT_DECODE_MEMORY_MIB 2048

/*
 * Forks the decoder on the traces below paths (borrowed) and waits until it has opened them.
 * jobs: the most decoders, each on a group of the streams, their events merged in the order
 * one decoder gives (1: one decoder on the traces, or on a view of them that leaves out a
 * copy of a stream file; <= 0: one per online CPU); never more than the streams. timeout_ns:
 * a decoder is stopped after that long without progress (<= 0: the default).
 * Returns DPS_OK and *out (close it with analyzer_contained_close); the errors of
 * analyzer_source_open, or DPS_ERROR when the decoder died, stalled or cannot be started (diag
 * names the trace, and the stream and offset where it was). *out is NULL on error.
 */
int analyzer_contained_open(const char *const *paths, size_t n_paths, int jobs, bool progress,
			    int64_t timeout_ns, struct analyzer_contained **out,
			    struct dps_diag *diag);

/*
 * The next event, as analyzer_source_next: ANALYZER_SOURCE_EVENT, ANALYZER_SOURCE_END or an
 * error status (diag: which trace, stream and offset). The strings of *ev are valid until the
 * next call.
 */
int analyzer_contained_next(struct analyzer_contained *c, struct analyzer_event *ev,
			    struct dps_diag *diag);

bool analyzer_contained_has_sched(const struct analyzer_contained *c);
const char *analyzer_contained_borrow_description(const struct analyzer_contained *c);

/* What the decoder found and did not read (as analyzer_source_borrow_skip); borrowed. */
size_t analyzer_contained_skip_count(const struct analyzer_contained *c);
const char *analyzer_contained_borrow_skip(const struct analyzer_contained *c, size_t i);

/* How many decoders run (stream groups; 1: one decoder on the traces). */
size_t analyzer_contained_decoders(const struct analyzer_contained *c);

/* Stops the decoder if it still runs, and frees c; accepts NULL. */
void analyzer_contained_close(struct analyzer_contained *c);

/* The sum of the peak RSS (KiB) of every decoder this process has reaped: they run side by
 * side, so this bounds their memory together (bench/analyzer.sh, DPS_RSS_REPORT). */
long analyzer_contained_reaped_rss_kib(void);

#endif /* DPS_ANALYZER_CONTAIN_H */
