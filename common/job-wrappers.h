/* SPDX-License-Identifier: MIT */
/*
 * The two wrappers a planned job list gets beside its plan (doc/cluster.md): slurm.sbatch, one
 * SLURM array task per job, and parallel.sh, the jobs through GNU parallel over ssh or here.
 * Both run "dps COMMAND --run-one N DIR" for every N; dps whatif --plan and dps analyze --plan
 * write them the same way through this one writer.
 */
#ifndef DPS_COMMON_JOB_WRAPPERS_H
#define DPS_COMMON_JOB_WRAPPERS_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* What the wrappers name (all borrowed). */
struct dps_job_wrappers {
	const char *work;	/* where to write them now (a temporary that becomes dir) */
	const char *dir;	/* the plan's directory as the jobs will see it */
	const char *command;	/* the dps subcommand: "whatif", "analyze" */
	size_t n_jobs;		/* >= 1: --run-one 0 .. n_jobs - 1 */
	const char *partition;	/* #SBATCH --partition, or NULL */
	const char *constraint; /* #SBATCH --constraint, or NULL */
	bool shared;		/* false: #SBATCH --exclusive (a node to each job) */
};

/*
 * Writes work/slurm.sbatch and work/parallel.sh, executable, each whole or not at all. They
 * name dir (made absolute) and this process's dps by absolute path: an array task starts in
 * SLURM's spool directory; DPS and DPS_PLAN in their environment override both. Returns DPS_OK
 * or DPS_ERR_IO (diag names the file and errno).
 */
int dps_job_wrappers_write(const struct dps_job_wrappers *w, struct dps_diag *diag);

#endif /* DPS_COMMON_JOB_WRAPPERS_H */
