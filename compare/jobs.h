/* SPDX-License-Identifier: MIT */
/*
 * Analyses as jobs (doc/cluster.md, "Analyses as jobs"): many traces (a directory of per-host
 * traces) planned as one dps analyze job each (compare_jobs_plan), one job run on whatever node
 * a cluster engine starts it (compare_jobs_run_one), and the sets collected side by side and
 * compared with compare's own model and writers (compare_jobs_collect).
 */
#ifndef DPS_COMPARE_JOBS_H
#define DPS_COMPARE_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"

/* The plan file's first line; a plan whose version this is not is refused. */
#define COMPARE_JOBS_PLAN_MAGIC "dps-analyze-plan 1"
#define COMPARE_JOBS_STATUS_MAGIC "dps-analyze-status 1"
/* dps analyze --collect --json */
#define COMPARE_JOBS_JSON_SCHEMA "dps-analyze-collect/1"

/* What --plan is given (all borrowed). */
struct compare_jobs_plan_options {
	const char *dir;	  /* the plan's directory */
	const char *const *paths; /* one directory of traces, or one trace per job */
	size_t n_paths;
	const char *const *sel_args; /* the selection options as given: argv words */
	size_t n_sel_args;
	const char *partition, *constraint; /* slurm.sbatch's, or NULL */
	bool shared;			    /* no #SBATCH --exclusive */
	bool force;			    /* replace a plan whose results are not collected */
};

/* One job of a plan. */
struct compare_job {
	char *name;  /* owned: its set is results/NAME */
	char *trace; /* owned: the trace, absolute */
};

/* A plan read back. */
struct compare_jobs {
	char *dir;		  /* owned */
	char **sel;		  /* owned (g_strfreev): the selection options, argv words */
	struct compare_job *jobs; /* owned: n */
	size_t n;
};

/*
 * Writes dir whole (a temporary that takes its place): the plan, slurm.sbatch, parallel.sh and
 * an empty results/. Returns DPS_OK; DPS_ERR_INVAL (no trace found, results of an earlier plan
 * not collected without force, dir not a plan), DPS_ERR_NOENT, DPS_ERR_IO; diag says which.
 */
int compare_jobs_plan(const struct compare_jobs_plan_options *o, size_t *n_jobs,
		      struct dps_diag *diag);

/* Reads dir/plan. DPS_OK, DPS_ERR_NOENT, or DPS_ERR_INVAL with diag "DIR/plan:LINE: expected
 * ..."; compare_jobs_fini always (it accepts a zeroed p). */
int compare_jobs_load(const char *dir, struct compare_jobs *p, struct dps_diag *diag);
void compare_jobs_fini(struct compare_jobs *p);

/*
 * Runs job index of the plan in dir as dps analyze TRACE SELECTION -q -o dir/results/NAME
 * (dps, this program, run as a child) and writes results/NAME.status whole: host, ok or failed
 * and the analysis's last message. Returns DPS_OK; DPS_ERROR when the analysis failed (diag:
 * its message; the status file says so); the load's errors, DPS_ERR_RANGE for an index not in
 * the plan, DPS_ERR_IO.
 */
int compare_jobs_run_one(const char *dir, const char *index, struct dps_diag *diag);

struct compare_jobs_collect_options {
	const char *reference; /* the name of the set the others are compared with; NULL: the
				* first set there is */
	bool compare;	       /* also each set against the reference: compare's text or JSON */
	bool json;
};

/*
 * Reads the plan and every job's status and set, names on stderr each job missing or failed
 * (and on which host), and writes to out the table of the sets side by side (threads, CPU,
 * makespan of each), or the JSON; with compare, each set against the reference. *n_bad: the
 * jobs without a set. Returns DPS_OK (partial or not), the load's errors, DPS_ERR_INVAL (a
 * reference not in the plan or without a set, a status file not read whole), DPS_ERR_NOMEM.
 */
int compare_jobs_collect(const char *dir, const struct compare_jobs_collect_options *o, FILE *out,
			 size_t *n_bad, struct dps_diag *diag);

#endif /* DPS_COMPARE_JOBS_H */
