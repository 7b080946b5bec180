/* SPDX-License-Identifier: MIT */
/*
 * Running another program and waiting for it (the compiler for dps build, lttng and perf for
 * dps record): one helper, on GLib's g_spawn_sync, with an argument vector (never a shell).
 */
#ifndef DPS_COMMON_SUBPROCESS_H
#define DPS_COMMON_SUBPROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dps_subprocess_options {
	char *const *envp;   /* borrowed, NULL-terminated; NULL: our environment */
	bool capture_stderr; /* stderr into *out too, after stdout (tools' messages) */
	bool quiet_stderr;   /* stderr to /dev/null (when not captured) */
};

/*
 * Runs argv (NULL-terminated; argv[0] looked up in PATH) with standard input from /dev/null
 * and waits for it. With out, *out gets what it wrote (malloc'd, NUL-terminated; the caller
 * frees it), else its output goes where ours goes. opts may be NULL. Returns its exit status
 * (0..255), 128 + the signal that killed it, DPS_ERR_NOENT when argv[0] is not found, or
 * DPS_ERROR when it cannot be started (*out is NULL then).
 */
int dps_subprocess_run(char *const *argv, const struct dps_subprocess_options *opts, char **out);

/* The last non-empty line of a tool's output (trailing blanks cut in place), for one-line
 * messages; "(no message)" when there is none. */
const char *dps_subprocess_last_line(char *buf);

/*
 * For a child about to exec a dps stub (dps record, dps whatif): puts DPS_EXEC_AT=MONO:CPU in
 * the environment, CLOCK_MONOTONIC and the process's CPU clock now, in ns. The stub's root
 * counts its start-up from there (dps_play_options.from_process_start, runtime/main.c reads
 * it). Call it last before execve; harmless for a program that is not a stub.
 */
void dps_subprocess_mark_exec(void);
/* The value of DPS_EXEC_AT for an exec at mono_ns (CLOCK_MONOTONIC) with the process's CPU
 * clock at cpu_ns, into buf, for a launcher that cannot run code in the child
 * (posix_spawn: mono_ns just before the spawn, cpu_ns 0). */
void dps_subprocess_exec_mark_format(char *buf, size_t len, uint64_t mono_ns, uint64_t cpu_ns);

/* Whether name is an executable in PATH. */
bool dps_subprocess_in_path(const char *name);

struct dps_diag;
/* Whether execvp would find name: a path that is an executable file, or a name in PATH; when
 * not, diag says why ("NAME: command not found in PATH", "NAME: not an executable file", or the
 * path's errno). dps record and dps whatif -- CMD refuse such a command before any work. */
bool dps_subprocess_runnable(const char *name, struct dps_diag *diag);

#endif /* DPS_COMMON_SUBPROCESS_H */
