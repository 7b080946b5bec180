/* SPDX-License-Identifier: MIT */
/* dps build SET -o PROG: generate and compile against libdps (doc/simgen.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actset.h"
#include "cli.h"
#include "simgen.h"

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: dps build SET [-o PROG] [--cc CC] [--cflags FLAGS]... [--source FILE]\n"
		"                 [-j N] [-v]\n\n"
		"Generate the program for the action set in directory SET (see dps gen) and\n"
		"compile it against libdps: the one named by DPS_PKG_CONFIG_PATH (a directory\n"
		"holding dps.pc), else this dps's build tree when dps runs from it, else the\n"
		"installed one (pkg-config dps).\n\n"
		"  -o, --output PROG   the executable (default: ./NAME, NAME from SET)\n"
		"  -n, --name NAME     program name in its summary (default: SET's name)\n"
		"      --cc CC         C compiler (default: $CC, else cc)\n"
		"      --cflags FLAGS  extra compiler flags, split at blanks (repeatable)\n"
		"      --source FILE   keep the generated C in FILE (one file, no parallel parts)\n"
		"  -j, --jobs N        compile in N parallel parts (default: one per CPU, at\n"
		"                      most 8, from 100000 actions on; 1 = one file)\n"
		"  -v, --verbose       print the compiler commands\n"
		"  -h, --help          this help\n\n"
		"Exit: 0 ok, 1 compile or write failure, 2 bad usage or bad set.\n");
}

enum { OPT_CC = 256, OPT_CFLAGS, OPT_SOURCE };

int dps_cmd_build(int argc, char **argv)
{
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"name", required_argument, NULL, 'n'},
	    {"cc", required_argument, NULL, OPT_CC},
	    {"cflags", required_argument, NULL, OPT_CFLAGS},
	    {"source", required_argument, NULL, OPT_SOURCE},
	    {"jobs", required_argument, NULL, 'j'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct simgen_build_options bopts = {0};
	struct simgen_options gopts = {0};
	struct dps_diag diag = {{0}};
	struct dps_actset *set = NULL;
	const char **cflags = NULL;
	const char *output = NULL;
	char *default_output = NULL;
	size_t n_cflags = 0;
	int c, ret;

	/* At most one --cflags per argument: argc bounds the vector. */
	cflags = calloc((size_t)argc + 1, sizeof(*cflags));
	if (!cflags) {
		fprintf(stderr, "dps build: out of memory\n");
		ret = DPS_EXIT_FAILURE;
		goto free_cflags;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:n:j:vh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'n':
			gopts.program_name = optarg;
			break;
		case OPT_CC:
			bopts.cc = optarg;
			break;
		case OPT_CFLAGS:
			cflags[n_cflags++] = optarg;
			break;
		case OPT_SOURCE:
			bopts.keep_source = optarg;
			break;
		case 'j': {
			char *end;
			unsigned long jobs = strtoul(optarg, &end, 10);

			if (!optarg[0] || *end || jobs < 1 || jobs > 64) {
				fprintf(stderr, "dps build: --jobs expects 1 to 64, got '%s'\n",
					optarg);
				ret = DPS_EXIT_USAGE;
				goto free_cflags;
			}
			bopts.jobs = (unsigned)jobs;
			break;
		}
		case 'v':
			bopts.verbose = true;
			break;
		case 'h':
			print_usage(stdout);
			ret = DPS_EXIT_OK;
			goto free_cflags;
		default:
			print_usage(stderr);
			ret = DPS_EXIT_USAGE;
			goto free_cflags;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "dps build: expected exactly one action-set directory\n");
		print_usage(stderr);
		ret = DPS_EXIT_USAGE;
		goto free_cflags;
	}
	bopts.cflags = cflags;
	gopts.source_label = argv[optind];
	ret = dps_cli_load_set(argv[0], argv[optind], &set);
	if (ret) {
		goto free_cflags;
	}
	if (!output) {
		char name[SIMGEN_PROGRAM_NAME_MAX + 1];

		/* ./NAME, the program's own name: "dps build ../xz/" gives ./xz. */
		simgen_program_name(set, &gopts, name, SIMGEN_PROGRAM_NAME_MAX);
		default_output = strdup(name[0] == '.' ? "dps-sim" : name);
		if (!default_output) {
			ret = DPS_EXIT_FAILURE;
			goto destroy_set;
		}
		output = default_output;
	}
	ret = simgen_build(set, &gopts, &bopts, output, &diag);
	if (ret) {
		fprintf(stderr, "dps build: %s\n", diag.msg);
		ret = ret == SIMGEN_ERR_INVAL ? DPS_EXIT_USAGE : DPS_EXIT_FAILURE;
	} else if (bopts.verbose) {
		fprintf(stderr, "dps build: wrote %s\n", output);
	}
destroy_set:
	dps_actset_destroy(set);
free_cflags:
	free(default_output);
	free(cflags);
	return ret;
}
