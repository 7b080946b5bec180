/* SPDX-License-Identifier: MIT */
/*
 * dps cache capture: a command's data-cache figures per function from Valgrind's cache
 * simulator, simulating this machine's geometry (cache/, doc/cache.md): a table on standard
 * output and, with -o, the result file (`dps-cache 1`).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include <dps/dps-status.h>

#include "atomic-out.h"
#include "cache.h"
#include "cli.h"
#include "diag.h"
#include "subprocess.h"

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: dps cache capture [-o FILE] [--function NAME]... -- COMMAND [ARG...]\n\n"
		"capture: runs COMMAND under Valgrind's cache simulator (cachegrind,\n"
		"--cache-sim=yes) with this machine's D1 and last-level geometry (sysfs, else\n"
		"sysconf) and prints, per function and for the whole program, the instructions,\n"
		"loads, stores, D1 misses and last-level misses, with the simulated geometry.\n"
		"  -o, --output FILE    also write the result file (dps-cache 1, doc/cache.md)\n"
		"      --function NAME  a row for function NAME (repeatable; default: the 15\n"
		"                       functions with the most data accesses), and in FILE\n"
		"                       only these (default: every function with data accesses)\n"
		"  -h, --help           this help\n\n"
		"Exit: 0 ok, 1 failure (the command failed, or valgrind is missing), 2 bad usage\n"
		"or bad input. See doc/cache.md.\n");
}

/* Prints the geometry the capture asks for and where it came from, on stderr. */
static void say_geometry(const struct cache_geometry *g)
{
	char d1[64], ll[64];

	cache_level_format(&g->d1, d1, sizeof(d1));
	cache_level_format(&g->ll, ll, sizeof(ll));
	fprintf(stderr, "dps cache: geometry from %s: D1 %s, LL %s%s%s\n", g->source, d1, ll,
		g->note[0] ? "; " : "", g->note);
}

/* The capture, the table and the result file. Returns an exit code. */
static int capture(char *const *cmd, const char *output, GPtrArray *names)
{
	struct cache_geometry geom;
	struct cache_capture_options opts = {.argv = cmd, .geom = &geom};
	struct cache_profile *p = NULL;
	struct dps_out_file of = {0};
	struct dps_diag diag = {{0}};
	int ret, status;

	/* refused before the run, not after minutes of simulation */
	if (!dps_subprocess_runnable(cmd[0], &diag)) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		return DPS_EXIT_USAGE;
	}
	if (output && (ret = dps_out_file_open(&of, output, &diag))) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		return DPS_EXIT_FAILURE;
	}
	cache_geometry_detect(&geom);
	say_geometry(&geom);
	ret = cache_capture_run(&opts, &p, &status, &diag);
	if (ret) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		ret = dps_cli_exit_code(ret);
		goto abort_output;
	}
	if (status) {
		fprintf(stderr, "dps cache: %s exited with status %d; nothing written\n", cmd[0],
			status);
		ret = DPS_EXIT_FAILURE;
		goto abort_output;
	}
	ret = cache_table_print(stdout, p, (const char *const *)names->pdata, names->len, &diag);
	if (ret) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		ret = DPS_EXIT_FAILURE;
		goto abort_output;
	}
	if (output) {
		ret = cache_result_write(of.f, p, &geom, (const char *const *)names->pdata,
					 names->len);
		ret = ret ? ret : dps_out_file_commit(&of, &diag);
		if (ret) {
			fprintf(stderr, "dps cache: %s\n", diag.msg[0] ? diag.msg : output);
			ret = DPS_EXIT_FAILURE;
			goto abort_output;
		}
		fprintf(stderr, "dps cache: wrote %s\n", output);
	}
	ret = DPS_EXIT_OK;
abort_output:
	dps_out_file_abort(&of);
	cache_profile_destroy(p);
	return ret;
}

int dps_cmd_cache(int argc, char **argv)
{
	/* 'f': a code, not -f (--follow-children in every command that selects a process) */
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"function", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	GPtrArray *names = g_ptr_array_new();
	const char *output = NULL;
	int c, ret = DPS_EXIT_OK;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(argc < 2 ? stderr : stdout);
		ret = argc < 2 ? DPS_EXIT_USAGE : DPS_EXIT_OK;
		goto end;
	}
	if (strcmp(argv[1], "capture")) {
		fprintf(stderr, "dps cache: unknown verb '%s' (expected capture)\n", argv[1]);
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	argc--;
	argv++;
	optind = 1;
	/* '+': the options end at the command, whose own options are its own */
	while ((c = getopt_long(argc, argv, "+o:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			g_ptr_array_add(names, optarg);
			break;
		case 'h':
			print_usage(stdout);
			goto end;
		default:
			fprintf(stderr, "dps cache: see dps cache --help\n");
			ret = DPS_EXIT_USAGE;
			goto end;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dps cache capture: expected -- COMMAND [ARG...]\n");
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	ret = capture(argv + optind, output, names);
end:
	g_ptr_array_free(names, TRUE);
	return ret;
}
