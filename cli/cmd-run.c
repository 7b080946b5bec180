/* SPDX-License-Identifier: MIT */
/*
 * dps run DIR: plays an action set directly with libdps, no code generation. The set is
 * loaded and validated completely before anything runs: bad input is a file:line:column
 * message and exit 2.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <dps/dps.h>

#include "actset.h"
#include "cli.h"
#include "simgen.h"

static void print_help(FILE *out)
{
	fprintf(out,
		"Usage: dps run DIR [OPTIONS]\n\n"
		"Plays the action set in DIR (one <id>.act file per thread, optional manifest;\n"
		"doc/action-format.md) with libdps: run, sleep, create, join, wait/wake,\n"
		"heap/stack. Every action emits `dps` LTTng-UST events (doc/tracepoints.md).\n\n");
	/* The options after DIR are those of every generated program: one list for both. */
	dps_main_print_options(out);
	fputs("\nExit codes: 0 ok, 1 failure, 2 bad usage or bad input (nothing was run).\n", out);
}

int dps_cmd_run(int argc, char **argv)
{
	struct dps_actset *set = NULL;
	struct simgen_program tables = {0};
	struct dps_play_result result = {0};
	struct dps_play_options opts, at_main;
	struct dps_config cfg;
	char err[512];
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static char sub_argv0[] = "dps run";
	const char *dir, *note;
	int c, ret;

	/* Loading the set is dps's own work, not the start-up the root's runs absorb: main
	 * is here, not where the options are parsed (doc/runtime.md). */
	dps_play_options_default(&at_main);
	dps_play_options_mark_main(&at_main);
	dps_play_options_default(&opts);
	/* dps run's own options come before DIR; those after it are the stub's */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			print_help(stdout);
			ret = DPS_EXIT_OK;
		} else {
			fprintf(stderr,
				"dps run: expected the action-set directory first, got '%s'\n",
				argv[optind - 1]);
			ret = DPS_EXIT_USAGE;
		}
		goto end;
	}
	if (optind >= argc) {
		print_help(stderr);
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	dir = argv[optind];
	/* Everything is loaded and validated before anything runs. */
	ret = dps_cli_load_set(argv[0], dir, &set);
	if (ret) {
		goto end;
	}
	if (simgen_program_make(set, dir, &tables)) {
		fprintf(stderr, "dps run: out of memory\n");
		ret = DPS_EXIT_FAILURE;
		goto end;
	}
	/* The options after DIR are those of every generated program. */
	argv[optind] = sub_argv0;
	ret = dps_main_parse_args(argc - optind, argv + optind, &tables.prog, &cfg, &opts);
	if (ret) {
		ret = ret == 1 ? DPS_EXIT_OK : DPS_EXIT_USAGE;
		goto end;
	}
	opts.main_mono_ns = at_main.main_mono_ns;
	opts.main_cpu_ns = at_main.main_cpu_ns;
	ret = dps_init(&cfg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dps run: %s\n", err[0] ? err : dps_status_string(ret));
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	if (err[0] && !cfg.quiet) {
		fprintf(stderr, "dps run: warning: %s\n", err);
	}
	if (set->partial && !cfg.quiet) {
		fprintf(stderr, "dps run: warning: the set is partial: %s\n",
			set->partial_reason ? set->partial_reason : "events were lost");
	}
	note = dps_main_options_note(&tables.prog, &opts);
	if (note && !cfg.quiet) {
		fprintf(stderr, "dps run: note: %s\n", note);
	}
	ret = dps_play(&tables.prog, &opts, &result);
	if (ret) {
		fprintf(stderr, "dps run: replay failed: %s%s%s\n", dps_status_string(ret),
			result.detail[0] ? ": " : "", result.detail);
		ret = DPS_EXIT_FAILURE;
	} else {
		ret = DPS_EXIT_OK;
	}
	dps_play_result_fini(&result);
end:
	dps_main_args_fini(&opts);
	simgen_program_fini(&tables);
	dps_actset_destroy(set);
	return ret;
}
