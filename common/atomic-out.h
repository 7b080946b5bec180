/* SPDX-License-Identifier: MIT */
/*
 * Outputs that are never half-written and never mixed with an older output (doc/action-format.md,
 * "Writing a set"). Every file or directory a dps command writes goes through here:
 *
 * - a file is written to a temporary ".NAME.tmp-XXXXXX" beside it, flushed, fsynced and renamed
 *   over NAME; on any error the temporary is removed and NAME is left as it was;
 * - a directory is written into a temporary ".NAME.tmp-XXXXXX" in the same parent, then swapped
 *   with NAME in one rename (renameat2 RENAME_EXCHANGE; two renames where the file system lacks
 *   it) and the old one removed, so NAME holds the old output or the new one, never a mix. An
 *   existing NAME is replaced only when it is empty or the caller recognises it as its own kind
 *   of output (an action set, a replay directory), or with DPS_OUT_FORCE.
 *
 * While a temporary exists, SIGINT, SIGTERM and SIGHUP remove it before the process dies (the
 * handler uses only async-signal-safe calls), and they are held off during the renames of a
 * commit. Not thread-safe: one thread of a command writes its outputs.
 */
#ifndef DPS_COMMON_ATOMIC_OUT_H
#define DPS_COMMON_ATOMIC_OUT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <glib.h>

#include "diag.h"

enum dps_out_flags {
	DPS_OUT_FORCE = 1 << 0,	  /* replace whatever is at the path (a directory's contents) */
	DPS_OUT_PARENTS = 1 << 1, /* create the directory's missing parents */
};

/* One file being written. */
struct dps_out_file {
	char *path; /* owned: the target */
	char *tmp;  /* owned: the temporary beside it; NULL when writing straight through (the
		     * target is a device, a FIFO: /dev/null, /dev/stdout) */
	FILE *f;    /* owned: write here until commit or abort */
};

/*
 * Opens a temporary beside path for writing (mode 0666 less the umask). Returns DPS_OK,
 * DPS_ERR_INVAL when path is a directory, DPS_ERR_IO (diag names the file and errno),
 * DPS_ERR_NOMEM. On error *of is empty and there is nothing to abort.
 */
int dps_out_file_open(struct dps_out_file *of, const char *path, struct dps_diag *diag);
/*
 * Flushes, fsyncs and closes the stream and renames the temporary over the target. On any
 * error (ENOSPC at the last flush included) the temporary is removed, the target is left as it
 * was, and DPS_ERR_IO is returned with diag naming the target and errno. *of is emptied either
 * way.
 */
int dps_out_file_commit(struct dps_out_file *of, struct dps_diag *diag);
/* Closes and removes the temporary; the target is untouched. Accepts an emptied *of. */
void dps_out_file_abort(struct dps_out_file *of);

/* One directory being written. */
struct dps_out_dir {
	char *path; /* owned: the target */
	char *tmp;  /* owned: the temporary directory to write into until commit */
};

/* Says whether the existing directory dir is an output the caller may replace (an action set,
 * a replay directory). */
typedef bool (*dps_out_dir_ours_fn)(const char *dir);

/*
 * Creates the temporary directory beside path. An existing path must be an empty directory,
 * one ours() accepts, or anything with DPS_OUT_FORCE; otherwise returns DPS_ERR_INVAL with
 * diag naming it ("not a dps ..., use --force"). Returns DPS_OK, DPS_ERR_INVAL, DPS_ERR_IO,
 * DPS_ERR_NOMEM; on error *od is empty.
 */
int dps_out_dir_begin(struct dps_out_dir *od, const char *path, dps_out_dir_ours_fn ours,
		      const char *what, unsigned flags, struct dps_diag *diag);
/* The check dps_out_dir_begin makes, alone: for a command to refuse a path before its work
 * starts (a missing parent without DPS_OUT_PARENTS too). Returns DPS_OK or DPS_ERR_INVAL (diag
 * says why). */
int dps_out_dir_check(const char *path, dps_out_dir_ours_fn ours, const char *what, unsigned flags,
		      struct dps_diag *diag);
/*
 * Syncs the temporary directory's file system and puts it in place of the target, whose old
 * contents are then removed. Returns DPS_OK, or DPS_ERR_IO with the target unchanged and the
 * temporary removed. *od is emptied either way.
 */
int dps_out_dir_commit(struct dps_out_dir *od, struct dps_diag *diag);
/* Removes the temporary directory and everything in it; the target is untouched. Accepts an
 * emptied *od. */
void dps_out_dir_abort(struct dps_out_dir *od);
/* Leaves the temporary directory where it is (to inspect a failed run) and returns its path
 * (owned by the caller, free()); *od is emptied. The target is untouched. */
char *dps_out_dir_keep(struct dps_out_dir *od);

/*
 * Flushes and closes a stream written inside a temporary directory (dps_out_dir_commit syncs
 * them all at once); path names it in the diagnostic. Returns DPS_OK or DPS_ERR_IO (diag: path
 * and errno; the stream is closed either way).
 */
int dps_out_close(FILE *f, const char *path, struct dps_diag *diag);

/* Removes a tree (files, directories, not following symbolic links). Returns 0 or -1 (errno). */
int dps_out_remove_tree(const char *path);

/* The bytes the files under path take on disk (a file: its own), not following links. */
uint64_t dps_out_tree_bytes(const char *path);

/*
 * Another temporary of the process: tmpl, whose last six characters (XXXXXX) are replaced,
 * made a directory (dir: with mode) or an empty file (0600; returns its descriptor; 0 for a
 * directory), or -1 (errno) with nothing made. It is removed like the ones above on SIGINT,
 * SIGTERM or SIGHUP until unregistered (the caller removes it otherwise), and by the guardian
 * after a SIGKILL: its name is registered there before it exists, so no moment leaves it. A
 * registry full or a path too long: only not removed on a signal. Call it with the signals
 * held (dps_out_hold_signals).
 */
int dps_out_make_temp(char *tmpl, bool dir, mode_t mode);
void dps_out_unregister_temp(const char *path);
/*
 * Hold SIGINT, SIGTERM and SIGHUP off from before a temporary is created until it is
 * registered, or a signal in between leaves it behind; release restores *old (and errno).
 */
void dps_out_hold_signals(sigset_t *old);
/* A new directory $TMPDIR/PREFIX<pid>-XXXXXX, after the sweep of those whose owner is gone
 * (dps_guard_sweep_dir), registered as a temporary before it is made; NULL with *error set. */
char *dps_out_make_tmp_dir(const char *prefix, GError **error);
void dps_out_release_signals(const sigset_t *old);

#endif /* DPS_COMMON_ATOMIC_OUT_H */
