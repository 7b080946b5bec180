/* SPDX-License-Identifier: MIT */
#ifndef DPS_CLI_CLI_H
#define DPS_CLI_CLI_H

#include <stdbool.h>

/* Exit codes of every dps command. */
enum dps_exit {
	DPS_EXIT_OK = 0,
	DPS_EXIT_FAILURE = 1,
	DPS_EXIT_USAGE = 2,	/* bad usage or bad input */
};

#define DPS_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef DPS_COMMAND

/* True when stderr is a terminal (progress indicators are shown only then). */
bool dps_cli_stderr_is_tty(void);

#endif /* DPS_CLI_CLI_H */
