/* SPDX-License-Identifier: MIT */
/* dps analyze: recorded traces -> statistics and an action set (doc/analyzer.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "analyzer.h"
#include "cli.h"
#include "record.h"

/* the process-selection group's options dps analyze takes (cli.h) */
#define ANALYZE_SEL (DPS_CLI_SEL_ALL)

static void usage(FILE *out)
{
	fputs("Usage: dps analyze TRACE... [--pid P | --tid T | --comm NAME] [OPTIONS]\n\n"
	      "Reads LTTng (kernel, UST) and perf-CTF traces and writes one action file per\n"
	      "thread of the selected process, with per-thread statistics. Without a selection\n"
	      "it lists the processes of the trace (exit status 2); given only a dps record\n"
	      "directory, it selects the recorded command.\n\n",
	      out);
	dps_cli_selection_help(out, ANALYZE_SEL, "read min_block_ns from a dps calibrate file");
	fputs("  -o, --output DIR       write the action set into DIR (an existing set there is\n"
	      "                         replaced whole; any other non-empty DIR is refused)\n"
	      "      --force            replace DIR whole even if it is not an action set\n"
	      "      --json             statistics as JSON on stdout\n"
	      "  -q, --quiet            no statistics table\n"
	      "      --list             only list the processes of the traces (exit status 0)\n"
	      "      --decode-jobs N    decode the traces' streams in N groups in parallel\n"
	      "                         (default: one per online CPU; 1: one decoder)\n"
	      "  -h, --help\n",
	      out);
}

int dps_cmd_analyze(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_LIST, OPT_FORCE, OPT_DECODE_JOBS };
	static const struct option own[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"quiet", no_argument, NULL, 'q'},
	    {"list", no_argument, NULL, OPT_LIST},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"decode-jobs", required_argument, NULL, OPT_DECODE_JOBS},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct analyzer_options opts;
	struct dps_cli_selection sel;
	struct analyzer_result *res = NULL;
	struct dps_diag diag = {""};
	struct option *longopts;
	char *shortopts;
	const char *outdir = NULL;
	bool json = false, quiet = false, list = false;
	unsigned out_flags = 0;
	int opt, status, ret = DPS_EXIT_OK;

	analyzer_options_default(&opts);
	dps_cli_selection_init(&sel, ANALYZE_SEL, &opts, NULL);
	longopts = dps_cli_selection_longopts(ANALYZE_SEL, own, "o:qh", &shortopts);
	optind = 1;
	while (!ret && (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = dps_cli_selection_parse(&sel, "analyze", opt, optarg);
		if (ret >= 0) {
			continue;
		}
		ret = DPS_EXIT_OK;
		switch (opt) {
		case 'o':
			outdir = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_LIST:
			list = true;
			break;
		case OPT_FORCE:
			out_flags |= DPS_OUT_FORCE;
			break;
		case OPT_DECODE_JOBS: {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (end == optarg || *end || n < 1 || n > 1024) {
				fprintf(stderr,
					"dps analyze: --decode-jobs: expected a number of decoders "
					"from 1 to 1024, got '%s'\n",
					optarg);
				ret = DPS_EXIT_USAGE;
				break;
			}
			opts.decode_jobs = (int)n;
			break;
		}
		case 'h':
			usage(stdout);
			ret = -1;
			break;
		default:
			usage(stderr);
			ret = DPS_EXIT_USAGE;
			break;
		}
	}
	g_free(longopts);
	g_free(shortopts);
	if (ret) {
		return ret < 0 ? DPS_EXIT_OK : ret;
	}
	if (optind >= argc) {
		fprintf(stderr, "dps analyze: expected one or more trace directories\n");
		usage(stderr);
		return DPS_EXIT_USAGE;
	}
	opts.traces = (const char *const *)&argv[optind];
	opts.n_traces = (size_t)(argc - optind);
	opts.progress = sel.progress && dps_cli_stderr_is_tty();
	opts.keep_tracer_threads = sel.keep_tracer_threads;
	opts.strict = sel.strict;
	opts.out_dir = outdir;
	opts.build_actset = false;
	opts.keep_timelines = false;
	opts.out_flags = out_flags;

	if (!list && opts.pid < 0 && opts.tid < 0 && !opts.comm && opts.n_traces == 1) {
		status = dps_record_info_read(opts.traces[0], &opts.pid, &diag);
		if (status == DPS_OK) {
			fprintf(stderr,
				"dps analyze: --pid %" PRId64
				" (the command dps record recorded)\n",
				opts.pid);
		} else if (status != DPS_ERR_NOENT) {
			fprintf(stderr, "dps analyze: %s\n", diag.msg);
			return dps_cli_exit_code(status);
		}
	}
	if (list || (opts.pid < 0 && opts.tid < 0 && !opts.comm)) {
		status = analyzer_list_processes(&opts, &res, &diag);
		if (status) {
			fprintf(stderr, "dps analyze: %s\n", diag.msg);
			return dps_cli_exit_code(status);
		}
		dps_cli_warn_partial("analyze", res);
		if (!list) {
			fprintf(stderr, "dps analyze: no selection: pick a process with --pid, "
					"--tid or --comm\n");
		}
		analyzer_processes_print(res, stdout);
		analyzer_result_destroy(res);
		return list ? DPS_EXIT_OK : DPS_EXIT_USAGE;
	}
	/* A directory that would be refused is refused before the analysis, not after. */
	if (outdir && (status = dps_actset_check_out_dir(outdir, out_flags, &diag))) {
		fprintf(stderr, "dps analyze: %s\n", diag.msg);
		return dps_cli_exit_code(status);
	}
	status = analyzer_run(&opts, &res, &diag);
	if (status) {
		fprintf(stderr, "dps analyze: %s\n", diag.msg);
		return dps_cli_exit_code(status);
	}
	dps_cli_warn_partial("analyze", res);
	if (json) {
		analyzer_result_print_json(res, stdout);
	} else if (!quiet) {
		analyzer_result_print_table(res, stdout);
	}
	if (outdir && !json) {
		fprintf(stderr, "dps analyze: wrote %zu action files and a manifest to %s\n",
			res->n_threads, outdir);
	}
	analyzer_result_destroy(res);
	return DPS_EXIT_OK;
}
