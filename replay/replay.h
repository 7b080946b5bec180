/* SPDX-License-Identifier: MIT */
/*
 * The main job as one pipeline (doc/replay.md): calibrate, analyze the recorded trace (or take
 * an edited set), generate and build the stub, run it recorded the way the original was,
 * compare the two runs. Each step calls its library (runtime, analyzer, simgen, record,
 * compare) through its C API; every intermediate file stays in the output directory.
 */
#ifndef DPS_REPLAY_REPLAY_H
#define DPS_REPLAY_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <dps/dps-status.h>

#include "diag.h"
#include "record.h"

struct compare_result;
struct dps_knobs;

struct dps_replay_options {
	const char *trace;	 /* borrowed: the recorded trace */
	const char *outdir;	 /* borrowed: NULL: ./dps-replay-<trace name>; replaced whole at
				  * the end when empty, an earlier replay's, or force */
	bool force;		 /* replace OUTDIR whatever it holds */
	const char *set;	 /* borrowed: an (edited) set to replay instead of analyzing */
	int64_t pid, tid;	 /* the original's selection, -1: none (record.info's pid) */
	const char *comm;	 /* borrowed, NULL: none */
	bool follow_children;	 /* fork+exec children replayed as threads */
	int64_t min_block_ns;	 /* -1: the calibration's */
	bool strict;		 /* an incomplete original trace is an error */
	const char *calibration; /* borrowed: NULL: measure one into OUTDIR/calibration */
	const char *mode;	 /* borrowed: the stub's --mode; NULL: its default */
	enum dps_record_kernel kernel;
	/* borrowed: the stub's knobs (<dps/knobs.h>); the ones knobs.def marks DPS_KNOB_REPLAY
	 * are passed on to it (the others are this struct's: mode, calibration); NULL: none */
	const struct dps_knobs *knobs;
	bool quiet;    /* no step lines */
	bool progress; /* a live line while a step runs (the caller checks that
			* stderr is a terminal) */
	bool verbose;  /* the stub's own per-thread table and dps record's
			* messages too */
	/* --wait-quiet: > 0: before measuring the calibration and before recording the stub,
	 * wait this long at most for a quiet machine (common/machine-load.h); 0: no waiting */
	double wait_quiet_s;
	/* What the knobs change on purpose, for the outputs' headline (compare_run_info.change:
	 * its effect instead of a fidelity error), e.g. "thread 23703 (xz) at 0.50x"; NULL: the
	 * what-if knobs given (knobs.def's DPS_KNOB_WHATIF ones: --scale, --thread-idle, ...);
	 * none of them, or only scales of 1: a faithful replay.
	 * Borrowed. */
	const char *change;
	/* The caller moves moved_from to moved_to once the replay is done (dps whatif: its
	 * temporary work directory, OUTDIR's place at its end): the outputs name the paths
	 * under moved_from by where they will be. NULL: nothing moves. Borrowed. */
	const char *moved_from, *moved_to;
	const char *const *args; /* borrowed: the command's arguments as given (after
				  * "dps replay"), for the report's run parameters; n_args */
	size_t n_args;
};

/* Where everything went; every path owned (dps_replay_result_fini). */
struct dps_replay_result {
	char *outdir, *set, *stub, *stub_c, *calibration, *sim_trace;
	char *compare_txt, *compare_json, *report;
	double fidelity_err_pct;
	bool wait_gave_up; /* --wait-quiet ran out: the machine stayed under load */
};

void dps_replay_options_default(struct dps_replay_options *opts);

/*
 * Runs the pipeline into a temporary directory that replaces OUTDIR whole at the end
 * (doc/replay.md, "The output directory"). Returns DPS_OK; DPS_ERR_INVAL for bad options or
 * input (diag says which; an OUTDIR that is not a replay's without force is one; with no
 * selection for a trace not made by dps record, the caller lists the processes), found
 * before the calibration and the build: a missing trace, set or calibration before anything
 * else, a selection or knob naming no thread of the trace once the analysis has read it;
 * DPS_ERROR when a step fails, the stub's own failure included (diag names the step);
 * DPS_ERR_NOMEM, DPS_ERR_IO. After a failed step OUTDIR is unchanged and the result's paths
 * point into the kept temporary directory, which diag names. result is filled as far as the
 * steps got (free it always).
 */
enum dps_status dps_replay_run(const struct dps_replay_options *opts,
			       struct dps_replay_result *result, struct dps_diag *diag);
void dps_replay_result_fini(struct dps_replay_result *result); /* accepts NULL */

/* The file that marks a directory as a replay's output; its line "trace PATH" names the trace
 * that was replayed, as given to dps replay. */
#define DPS_REPLAY_INFO_NAME "replay.info"

/* A replay's output directory read back (replay-info.c); every path owned. */
struct dps_replay_dir {
	char *trace; /* the replayed trace: the marker's path, taken from the current directory,
		      * else (when it is relative and not there) from OUTDIR's parent */
	char *sim_trace, *set, *calibration; /* inside OUTDIR; they may be missing */
};

/*
 * Reads OUTDIR's marker. Returns DPS_OK; DPS_ERR_NOENT when OUTDIR has no marker (it is not a
 * replay's output); DPS_ERR_INVAL when the marker names no trace (diag: "file:line: ...");
 * DPS_ERR_IO. *dir is empty on error; free it with dps_replay_dir_fini either way.
 */
enum dps_status dps_replay_dir_read(const char *outdir, struct dps_replay_dir *dir,
				    struct dps_diag *diag);
void dps_replay_dir_fini(struct dps_replay_dir *dir); /* accepts NULL */

#endif /* DPS_REPLAY_REPLAY_H */
