/* SPDX-License-Identifier: MIT */
/*
 * A command's steps and their progress on stderr (dps replay, dps whatif): one line per step,
 * "[k/n] what (X s)", printed when the step ends, X its own duration; and, on a terminal
 * only, a live line while a step runs: from its first second on, the time it has taken, or
 * with a count "done/total, about T left". Nothing else of ours writes to the terminal while
 * a live line is up but the caller's own lines, which clear it first (dps_steps_clear).
 *
 * The live line is redrawn by a thread of its own while a step runs (a step that is one
 * blocking call, a calibration, a compilation, gives no other sign of life), and drawn
 * ending with a carriage return: a line another writer prints meanwhile (a child's, a
 * library's warning) starts over it rather than after it.
 */
#ifndef DPS_COMMON_PROGRESS_H
#define DPS_COMMON_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

struct dps_steps {
	unsigned n;	/* how many steps the command has */
	unsigned k;	/* the current one, 1-based; 0 before the first */
	bool quiet;	/* no step lines at all */
	bool live;	/* live lines (stderr is a terminal, progress not turned off) */
	char what[160]; /* the current step */
	double t0_s;	/* its start, CLOCK_MONOTONIC */
	bool running;	/* a step has begun and not ended */
	/* the live line's state, shared with the ticker thread under lock */
	GMutex lock;
	GCond wake;
	GThread *ticker;    /* owned: running while a live step runs; NULL otherwise */
	bool stop;	    /* the ticker must end */
	bool drawn;	    /* a live line is on the terminal */
	size_t done, total; /* a count, when total > 0 */
	double count_s;	    /* when it was given */
};

/* Ready for n steps; quiet: none shown; live: the caller checked that stderr is a terminal
 * and that progress is wanted. dps_steps_fini after the last. */
void dps_steps_init(struct dps_steps *s, unsigned n, bool quiet, bool live);
void dps_steps_fini(struct dps_steps *s); /* accepts NULL; stops a step still running */

/* Step k+1 begins (what: printf-like, copied); a step still running ends first. tick: the
 * live line shows the time taken (false: the step shows its own progress, the analyzer's). */
void dps_steps_begin(struct dps_steps *s, bool tick, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The current step has done done of total things (runs, points): the live line says so with
 * the time left, estimated from the pace so far. */
void dps_steps_count(struct dps_steps *s, size_t done, size_t total);
/* Clears the live line, before the caller prints a line of its own during a step. */
void dps_steps_clear(struct dps_steps *s);
/* The current step ends: its line with its own duration. Nothing when none runs. */
void dps_steps_end(struct dps_steps *s);
/* The current step stops without its line (it failed: the error says why). */
void dps_steps_abort(struct dps_steps *s);

/* "about 12 s left" for seconds s (>= 0), into buf; returns buf. */
const char *dps_steps_format_left(double s, char *buf, size_t len);

#endif /* DPS_COMMON_PROGRESS_H */
