/* SPDX-License-Identifier: MIT */
/*
 * What a dps process leaves outside itself — temporaries, LTTng sessions, programs it started
 * (perf, a stub, a compiler) — undone however the process ends: a ^C, a SIGTERM, a SIGKILL.
 *
 * Two layers (doc/record.md, "Interruptions"):
 * - The guardian: at the first registration the process starts a small guardian process (its
 *   own session, so a ^C or a kill of the process group leaves it alone) connected by a
 *   socket. Each registration and release is a message on it. When the socket closes (the
 *   process ended, whatever the reason) the guardian signals the programs still registered,
 *   destroys the sessions, removes the temporaries, says what it did on stderr and exits.
 *   A process that ends normally (exit, return from main) releases temporaries it kept on
 *   purpose, so a normal end only stops programs and sessions.
 * - The sweep: a guardian killed too (kill -9 of both) leaves things behind. Their names carry
 *   the owner's pid (dps-record-PID-TS, dps-decode-PID-*, .NAME.tmp-PID-*), and the next dps
 *   command removes those whose owner is gone (dps_guard_sweep_*), saying what it removed.
 *
 * A child dps forks (and that does not exec a setuid program) also calls
 * dps_guard_child_setup(): it dies with the thread that started it (PR_SET_PDEATHSIG).
 *
 * Thread-safe (one mutex); never call from a signal handler.
 */
#ifndef DPS_COMMON_GUARD_H
#define DPS_COMMON_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <glib.h>

/* path (a file or a directory tree) is removed if the process dies before the release. */
void dps_guard_path(const char *path);
void dps_guard_release_path(const char *path);

/* The LTTng session name is destroyed if the process dies before the release. */
void dps_guard_session(const char *name);
void dps_guard_release_session(const char *name);

/* The program pid gets sig if the process dies before the release (SIGKILL 2 s later if it
 * still runs); pgroup: the signal goes to its process group (-pid). */
void dps_guard_child(pid_t pid, int sig, bool pgroup);
void dps_guard_release_child(pid_t pid);

/* In a forked child, before exec: dies (sig) with its parent. parent: the parent's pid, read
 * before the fork (a parent already gone is seen then). Async-signal-safe. */
void dps_guard_child_setup(pid_t parent, int sig);

/* The next run's sweep (below), for the things named by the owner's pid: whether the process
 * that made them is gone. */
bool dps_guard_owner_gone(pid_t pid);

/* Removes dps-decode-PID-* directories under dir whose owner is gone; says each on stderr.
 * Returns how many were removed. */
size_t dps_guard_sweep_dir(const char *dir, const char *prefix);

/* Removes, in the directory of target, the temporaries .BASE.tmp-PID-* of target whose owner is
 * gone; says each on stderr. Returns how many. */
size_t dps_guard_sweep_temps(const char *target);

/* Destroys the LTTng sessions dps-record-PID-* whose owner is gone (`lttng list`); says each on
 * stderr. Returns how many. */
size_t dps_guard_sweep_sessions(void);

#endif /* DPS_COMMON_GUARD_H */
