/* SPDX-License-Identifier: MIT */
/*
 * A planned job list's wrappers (job-wrappers.h): slurm.sbatch and parallel.sh, the same for
 * every command that plans (dps whatif, dps analyze), so that a fix to one is a fix to both.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <dps/dps-status.h>
#include <glib.h>

#include "atomic-out.h"
#include "job-wrappers.h"

/* "#!/bin/bash" wrappers beside the plan, executable; whole or not at all. */
static int write_script(const char *work, const char *name, const char *text, struct dps_diag *diag)
{
	char *path = g_build_filename(work, name, NULL);
	FILE *f = fopen(path, "w");
	int st;

	if (!f) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", path, errno,
			      strerror(errno));
		g_free(path);
		return DPS_ERR_IO;
	}
	fputs(text, f);
	st = dps_out_close(f, path, diag);
	if (!st && chmod(path, 0755)) {
		dps_diag_setf(diag, "cannot make \"%s\" executable: errno=%d", path, errno);
		st = DPS_ERR_IO;
	}
	g_free(path);
	return st;
}

int dps_job_wrappers_write(const struct dps_job_wrappers *w, struct dps_diag *diag)
{
	char *dir = g_canonicalize_filename(w->dir, NULL);
	char *dps = g_file_read_link("/proc/self/exe", NULL);
	char *qdir = g_shell_quote(dir), *qdps = g_shell_quote(dps ? dps : "dps");
	GString *t = g_string_new(NULL);
	int st;

	g_string_append_printf(
	    t,
	    "#!/bin/bash\n"
	    "# dps %s --plan's SLURM wrapper (doc/cluster.md): one array task per job of the\n"
	    "# plan, each on a node of its own unless planned --slurm-shared (--exclusive: a "
	    "quiet\n"
	    "# machine). Submit from anywhere: sbatch %s/slurm.sbatch; then\n"
	    "# dps %s --collect %s. DIR must be on a file system the nodes share;\n"
	    "# DPS (the dps command) and DPS_PLAN (DIR, moved or copied) override the paths.\n"
	    "#SBATCH --job-name=dps-%s\n"
	    "#SBATCH --array=0-%zu\n"
	    "#SBATCH --ntasks=1\n"
	    "#SBATCH --output=%s/results/slurm-%%A_%%a.out\n",
	    w->command, dir, w->command, dir, w->command, w->n_jobs - 1, dir);
	if (!w->shared) {
		g_string_append(t, "#SBATCH --exclusive\n");
	}
	if (w->partition) {
		g_string_append_printf(t, "#SBATCH --partition=%s\n", w->partition);
	}
	if (w->constraint) {
		g_string_append_printf(t, "#SBATCH --constraint=%s\n", w->constraint);
	}
	g_string_append_printf(t,
			       "set -eu\n"
			       ": \"${SLURM_ARRAY_TASK_ID:?not an array task: sbatch this file}\"\n"
			       "dps=${DPS:-%s}\n"
			       "plan=${DPS_PLAN:-%s}\n"
			       "exec \"$dps\" %s --run-one \"$SLURM_ARRAY_TASK_ID\" \"$plan\"\n",
			       qdps, qdir, w->command);
	st = write_script(w->work, "slurm.sbatch", t->str, diag);
	g_string_truncate(t, 0);
	g_string_append_printf(
	    t,
	    "#!/bin/bash\n"
	    "# dps %s --plan's GNU parallel wrapper (doc/cluster.md): every job of the plan,\n"
	    "# one at a time per node. parallel.sh SSHLOGINFILE: over the nodes it lists (DIR on "
	    "a\n"
	    "# file system they share, and dps at the same path on each); parallel.sh alone:\n"
	    "# here, JOBS at a time (default 1: jobs side by side disturb each other's times).\n"
	    "# Then dps %s --collect %s.\n"
	    "set -u\n"
	    "dps=${DPS:-%s}\n"
	    "plan=${DPS_PLAN:-%s}\n"
	    "jobs=%zu\n"
	    "if [ $# -ge 1 ]; then\n"
	    "    seq 0 $((jobs - 1)) | parallel --will-cite --sshloginfile \"$1\" -j1 "
	    "\"$dps\" %s --run-one {} \"$plan\"\n"
	    "else\n"
	    "    seq 0 $((jobs - 1)) | parallel --will-cite -j \"${JOBS:-1}\" "
	    "\"$dps\" %s --run-one {} \"$plan\"\n"
	    "fi\n",
	    w->command, w->command, dir, qdps, qdir, w->n_jobs, w->command, w->command);
	st = st ? st : write_script(w->work, "parallel.sh", t->str, diag);
	g_string_free(t, TRUE);
	g_free(qdir);
	g_free(qdps);
	g_free(dps);
	g_free(dir);
	return st;
}
