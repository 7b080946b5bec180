/* SPDX-License-Identifier: MIT */
#ifndef DPS_CLI_CLI_H
#define DPS_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>

/* Exit codes of every dps command. */
enum dps_exit {
	DPS_EXIT_OK = 0,
	DPS_EXIT_FAILURE = 1,
	DPS_EXIT_USAGE = 2, /* bad usage or bad input */
};

#define DPS_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef DPS_COMMAND

/* The one mapping of a library status to the exit code: DPS_OK 0; bad input (DPS_ERR_INVAL,
 * DPS_ERR_NOENT: a path that is not there, DPS_ERR_RANGE) 2; any other failure 1. */
int dps_cli_exit_code(int status);

/* Durations: "20", "20us", "0.5ms", "850ns", "2s" (a plain number is microseconds) -> ns.
 * False when malformed, negative or not finite. */
bool dps_cli_parse_duration(const char *s, int64_t *ns);
/* A non-negative decimal id (pid, tid). */
bool dps_cli_parse_id(const char *s, int64_t *out);

/* --wait-quiet[=SECONDS] (replay, whatif): arg NULL (no =SECONDS) gives the default,
 * DPS_LOAD_WAIT_QUIET_DEFAULT_S; else a number of seconds, over 0 and at most a day. Returns
 * DPS_EXIT_OK, or DPS_EXIT_USAGE with a message naming cmd. */
int dps_cli_set_wait_quiet(const char *cmd, const char *arg, double *seconds);

struct analyzer_options;
/* --min-block's value (dps_cli_parse_duration) into *ns. Returns DPS_EXIT_OK, or
 * DPS_EXIT_USAGE with a message naming cmd. */
int dps_cli_set_min_block(const char *cmd, const char *arg, int64_t *ns);

/*
 * The selection options of analyze, compare and replay: which is 'p' (--pid), 't' (--tid) or
 * 'c' (--comm); the value goes into a and b (either may be NULL: compare's per-side options).
 * Returns DPS_EXIT_OK, or DPS_EXIT_USAGE with a message naming cmd and opt.
 */
int dps_cli_set_selection(const char *cmd, const char *opt, char which, const char *arg,
			  struct analyzer_options *a, struct analyzer_options *b);

struct analyzer_result;
/* The warning for a partial result (what was lost or skipped), on stderr; nothing when the
 * result is complete. */
void dps_cli_warn_partial(const char *cmd, const struct analyzer_result *res);

/* True when stderr is a terminal (progress indicators are shown only then). */
bool dps_cli_stderr_is_tty(void);

struct dps_actset;

/*
 * Loads and validates the action set in dir for command cmd ("dps NAME", its argv[0]); on
 * error prints "file:line:column: ..." (compiler style) and returns the exit code:
 * DPS_EXIT_USAGE for a bad or missing set, DPS_EXIT_FAILURE for I/O trouble or memory. *set is
 * NULL then.
 */
int dps_cli_load_set(const char *cmd, const char *dir, struct dps_actset **set);

#endif /* DPS_CLI_CLI_H */
