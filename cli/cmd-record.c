/* SPDX-License-Identifier: MIT */
/* dps record: placeholder replaced below. */
#include <stdio.h>

#include "cli.h"

int dps_cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "dps record: not yet available\n");
	return DPS_EXIT_FAILURE;
}
