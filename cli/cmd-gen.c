/* SPDX-License-Identifier: MIT */
/* dps gen SET -o PROG.c: the action set as a table-driven C program (doc/simgen.md). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "actset.h"
#include "cli.h"
#include "simgen.h"

static void print_usage(FILE *out)
{
	fprintf(out, "Usage: dps gen SET -o PROG.c [--name NAME]\n"
		     "       dps gen SET --check\n\n"
		     "Compile the action set in directory SET into a C program played by libdps:\n"
		     "one static action table per thread, a thread table and main() = dps_main().\n"
		     "The file is written atomically; on a bad set nothing is written.\n\n"
		     "  -o, --output FILE   the C file to write ('-' = standard output)\n"
		     "  -n, --name NAME     program name in its summary (default: SET's name)\n"
		     "      --check         only load and validate the set; write nothing\n"
		     "  -h, --help          this help\n\n"
		     "Exit: 0 ok, 1 cannot write, 2 bad usage or bad set. See doc/simgen.md.\n");
}

int dps_cmd_gen(int argc, char **argv)
{
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"name", required_argument, NULL, 'n'},
	    {"check", no_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct simgen_options gopts = {0};
	struct dps_diag diag = {{0}};
	struct dps_actset *set = NULL;
	const char *output = NULL;
	bool check = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:n:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'n':
			gopts.program_name = optarg;
			break;
		case 'c':
			check = true;
			break;
		case 'h':
			print_usage(stdout);
			ret = DPS_EXIT_OK;
			goto end;
		default:
			print_usage(stderr);
			ret = DPS_EXIT_USAGE;
			goto end;
		}
	}
	if (optind + 1 != argc || (!output && !check)) {
		fprintf(stderr, "dps gen: %s\n",
			optind + 1 != argc ? "expected exactly one action-set directory"
					   : "missing -o FILE");
		print_usage(stderr);
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	gopts.source_label = argv[optind];
	ret = dps_cli_load_set(argv[0], argv[optind], &set);
	if (ret || check) {
		goto destroy_set;
	}
	if (!strcmp(output, "-")) {
		ret = simgen_write(set, &gopts, stdout, &diag);
		if (!ret && fflush(stdout) != 0) {
			ret = SIMGEN_ERR_IO;
			snprintf(diag.msg, sizeof(diag.msg), "cannot write to standard output");
		}
	} else {
		ret = simgen_write_file(set, &gopts, output, &diag);
	}
	if (ret) {
		fprintf(stderr, "dps gen: %s\n", diag.msg);
		ret = ret == SIMGEN_ERR_INVAL ? DPS_EXIT_USAGE : DPS_EXIT_FAILURE;
	}
destroy_set:
	dps_actset_destroy(set);
end:
	return ret;
}
