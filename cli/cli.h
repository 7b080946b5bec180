/* SPDX-License-Identifier: MIT */
#ifndef DPS_CLI_CLI_H
#define DPS_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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
struct option;

/*
 * The process-selection group: the options of every command that picks a process of a trace,
 * spelled once (options.c's table) so that -c means --comm, the process's name, everywhere. A
 * command names the members it takes; dps_cli_selection_longopts puts their entries after its
 * own, and each value getopt_long returns goes to dps_cli_selection_parse first.
 */
enum dps_cli_sel {
	DPS_CLI_SEL_PROCESS = 1u << 0,	   /* -p/--pid P, -t/--tid T, -c/--comm NAME */
	DPS_CLI_SEL_FOLLOW = 1u << 1,	   /* -f/--follow-children */
	DPS_CLI_SEL_MIN_BLOCK = 1u << 2,   /* -m/--min-block D */
	DPS_CLI_SEL_CALIBRATION = 1u << 3, /* --calibration FILE */
	DPS_CLI_SEL_KEEP_TRACER = 1u << 4, /* --keep-tracer-threads */
	DPS_CLI_SEL_STRICT = 1u << 5,	   /* --strict */
	DPS_CLI_SEL_PROGRESS = 1u << 6,	   /* --no-progress: the one progress switch */
	DPS_CLI_SEL_ONE = 1u << 7,	   /* at most one of --pid, --tid, --comm */
	DPS_CLI_SEL_ALL = (1u << 7) - 1,   /* every option (not the ONE rule) */
};

struct dps_cli_selection {
	unsigned members;		/* enum dps_cli_sel: what the command takes */
	struct analyzer_options *a, *b; /* borrowed: --pid, --tid, --comm, --follow-children,
					 * --min-block and --calibration go into both; b may be
					 * NULL (compare: its two sides) */
	unsigned n_process;		/* how many of --pid, --tid, --comm were given */
	bool keep_tracer_threads;	/* --keep-tracer-threads */
	bool strict;			/* --strict */
	bool progress;			/* false after --no-progress */
};

void dps_cli_selection_init(struct dps_cli_selection *s, unsigned members,
			    struct analyzer_options *a, struct analyzer_options *b);

/*
 * own's entries (NULL-terminated) and then the group's for members, NULL-terminated; the
 * caller g_frees it. *shortopts (g_free): own_short then the members' short letters.
 */
struct option *dps_cli_selection_longopts(unsigned members, const struct option *own,
					  const char *own_short, char **shortopts);

/*
 * c, a value of getopt_long, with its arg: one of the group's options is taken into s.
 * Returns -1 when c is not the group's (the command's own), DPS_EXIT_OK when taken, or
 * DPS_EXIT_USAGE with a message naming cmd (a bad value; a second selection under
 * DPS_CLI_SEL_ONE).
 */
int dps_cli_selection_parse(struct dps_cli_selection *s, const char *cmd, int c, const char *arg);

/*
 * The group's help lines for members, in the commands' layout (the option column, two
 * blanks at least, the text). calibration: what --calibration FILE does in this command
 * (NULL: gives the default --min-block).
 */
void dps_cli_selection_help(FILE *out, unsigned members, const char *calibration);

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
