/* SPDX-License-Identifier: MIT */
/* dps replay: options in, the replay pipeline (replay/replay.h, doc/replay.md) does the rest. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/knobs.h>
#include <glib.h>

#include "analyzer.h"
#include "cli.h"
#include "machine-load.h"
#include "replay.h"

/* the process-selection group's options dps replay takes (cli.h) */
#define REPLAY_SEL                                                                                 \
	(DPS_CLI_SEL_PROCESS | DPS_CLI_SEL_ONE | DPS_CLI_SEL_FOLLOW | DPS_CLI_SEL_MIN_BLOCK |      \
	 DPS_CLI_SEL_CALIBRATION | DPS_CLI_SEL_STRICT | DPS_CLI_SEL_PROGRESS)

static void print_usage(FILE *out)
{
	fputs("Usage: dps replay TRACE [--pid P | --tid T | --comm NAME] [OPTIONS]\n"
	      "\n"
	      "A trace made by dps record needs no selection: its record.info names the pid.\n"
	      "\n"
	      "The main job end to end: analyze TRACE, generate and build the stub, run it\n"
	      "while recording it the way TRACE was recorded (dps record), compare the two\n"
	      "runs and write a self-contained HTML report. Everything lands in OUTDIR:\n"
	      "set/ (the action set), stub.c and dps-stub, calibration, sim-trace/,\n"
	      "compare.txt, compare.json and report.html.\n"
	      "\n"
	      "Selection (as in dps analyze):\n",
	      out);
	dps_cli_selection_help(out, REPLAY_SEL & ~DPS_CLI_SEL_CALIBRATION, NULL);
	fputs("What-if:\n"
	      "      --set DIR           replay this (edited) action set instead of analyzing\n",
	      out);
	/* the stub's knobs dps replay passes on (runtime/include/dps/knobs.def) */
	dps_knobs_print_help(out, DPS_KNOB_REPLAY | DPS_KNOB_WHATIF, 0, 6, 26);
	fputs("Run:\n", out);
	dps_knobs_print_help(out, DPS_KNOB_REPLAY, DPS_KNOB_WHATIF, 6, 26);
	fputs("      --mode work|cpu|wall   how run actions spend time (default: the stub's)\n",
	      out);
	dps_cli_selection_help(out, DPS_CLI_SEL_CALIBRATION,
			       "the stub's and the analysis's calibration\n"
			       "(default: measure one into OUTDIR)");
	fprintf(
	    out,
	    "      --kernel, --no-kernel  force or skip kernel scheduling capture\n"
	    "      --wait-quiet[=SECONDS]  before calibrating and before recording the stub,\n"
	    "                          wait for a quiet machine (others under 10 %% of the\n"
	    "                          CPUs), SECONDS at most (default %.0f); if it stays\n"
	    "                          under load, say so and go on\n"
	    "Output:\n"
	    "  -o, --output OUTDIR     default: ./dps-replay-<trace name>; an earlier replay's\n"
	    "                          OUTDIR is replaced whole, any other non-empty one refused\n"
	    "      --force             replace OUTDIR whole whatever it holds\n"
	    "  -q, --quiet             less output: no step lines, no progress line\n"
	    "  -v, --verbose           more: the stub's own per-thread table, dps record's\n"
	    "                          messages\n"
	    "  -h, --help\n"
	    "\n"
	    "Exit: 0 ok, 1 a step failed (its message says which), 2 bad usage or input.\n",
	    DPS_LOAD_WAIT_QUIET_DEFAULT_S);
}

/* The options into o; the stub's knobs into knobs (its paths borrowed from argv), checked as
 * given. Returns DPS_EXIT_OK, DPS_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct dps_replay_options *o, struct dps_knobs *knobs)
{
	enum {
		OPT_SET = 256,
		OPT_MODE,
		OPT_KERNEL,
		OPT_NO_KERNEL,
		OPT_FORCE,
		OPT_WAIT_QUIET,
		OPT_KNOB, /* OPT_KNOB + a knob's id: the knobs.def ones dps replay passes on */
	};
	static const struct option fixed[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"set", required_argument, NULL, OPT_SET},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"kernel", no_argument, NULL, OPT_KERNEL},
	    {"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"wait-quiet", optional_argument, NULL, OPT_WAIT_QUIET},
	};
	struct option own[sizeof(fixed) / sizeof(fixed[0]) + DPS_KNOB_COUNT + 1];
	size_t n_own = sizeof(fixed) / sizeof(fixed[0]);
	struct analyzer_options a;
	struct dps_cli_selection sel;
	struct option *longopts;
	char *shortopts;
	int c, ret = DPS_EXIT_OK;
	char err[256];

	memcpy(own, fixed, sizeof(fixed));
	for (int k = 0; k < DPS_KNOB_COUNT; k++) {
		if (dps_knobs_table[k].flags & DPS_KNOB_REPLAY) {
			own[n_own++] = (struct option){
			    dps_knobs_table[k].name,
			    dps_knobs_table[k].shape == DPS_KNOB_SHAPE_FLAG ? no_argument
									    : required_argument,
			    NULL, OPT_KNOB + k};
		}
	}
	own[n_own] = (struct option){NULL, 0, NULL, 0};
	analyzer_options_default(&a);
	dps_cli_selection_init(&sel, REPLAY_SEL, &a, NULL);
	longopts = dps_cli_selection_longopts(REPLAY_SEL, own, "o:qvh", &shortopts);
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = dps_cli_selection_parse(&sel, "replay", c, optarg);
		if (ret >= 0) {
			continue;
		}
		ret = DPS_EXIT_OK;
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			print_usage(stdout);
			ret = -1;
			break;
		case OPT_SET:
			o->set = optarg;
			break;
		case OPT_MODE:
			o->mode = optarg;
			break;
		case OPT_KERNEL:
			o->kernel = DPS_RECORD_KERNEL_ON;
			break;
		case OPT_NO_KERNEL:
			o->kernel = DPS_RECORD_KERNEL_OFF;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_WAIT_QUIET:
			ret = dps_cli_set_wait_quiet("replay", optarg, &o->wait_quiet_s);
			break;
		default:
			if (c >= OPT_KNOB && c < OPT_KNOB + DPS_KNOB_COUNT) {
				/* checked here, before any step; the threads it names once the
				 * set's are known */
				if (dps_knobs_parse(knobs, dps_knobs_table[c - OPT_KNOB].name,
						    optarg, err, sizeof(err))) {
					fprintf(stderr, "dps replay: %s\n", err);
					ret = DPS_EXIT_USAGE;
				}
				break;
			}
			fprintf(stderr, "Try 'dps replay --help'.\n");
			ret = DPS_EXIT_USAGE;
			break;
		}
	}
	g_free(longopts);
	g_free(shortopts);
	if (ret) {
		return ret;
	}
	if (optind + 1 != argc) {
		fprintf(stderr,
			"dps replay: expected one TRACE directory, got %d arguments\n"
			"Try 'dps replay --help'.\n",
			argc - optind);
		return DPS_EXIT_USAGE;
	}
	o->trace = argv[optind];
	o->pid = a.pid;
	o->tid = a.tid;
	o->comm = a.comm;
	o->follow_children = a.follow_children;
	o->min_block_ns = a.min_block_ns;
	o->calibration = a.calibration_path;
	o->strict = sel.strict;
	o->progress = sel.progress;
	return DPS_EXIT_OK;
}

/* Without a selection for a trace dps record did not make: the processes to pick from. */
static void list_candidates(const char *trace)
{
	struct analyzer_result *res = NULL;
	struct dps_diag diag = {{0}};
	struct analyzer_options o;

	analyzer_options_default(&o);
	o.traces = &trace;
	o.n_traces = 1;
	if (analyzer_list_processes(&o, &res, &diag) == DPS_OK) {
		analyzer_processes_print(res, stdout);
	} else {
		fprintf(stderr, "dps replay: %s\n", diag.msg);
	}
	analyzer_result_destroy(res);
}

int dps_cmd_replay(int argc, char **argv)
{
	struct dps_replay_result res = {0};
	struct dps_knobs knobs;
	struct dps_diag diag = {{0}};
	struct dps_replay_options o;
	enum dps_status st;
	int ret;
	const char **given; /* g_free: argv as given */

	/* the command line as given, for the report: getopt permutes argv */
	given = g_memdup2(argv + 1, sizeof(*argv) * (size_t)(argc > 0 ? argc : 1));

	dps_replay_options_default(&o);
	dps_knobs_default(&knobs);
	ret = parse_args(argc, argv, &o, &knobs);
	if (ret) {
		ret = ret < 0 ? DPS_EXIT_OK : ret;
		goto end;
	}
	o.knobs = &knobs;
	o.args = given;
	o.n_args = (size_t)argc - 1;
	o.progress = o.progress && !o.quiet && dps_cli_stderr_is_tty();
	st = dps_replay_run(&o, &res, &diag);
	if (st) {
		fprintf(stderr, "dps replay: %s\n", diag.msg[0] ? diag.msg : dps_status_string(st));
		if (st == DPS_ERR_INVAL && strstr(diag.msg, "no selection")) {
			fprintf(stderr,
				"dps replay: give --pid, --tid or --comm; the processes:\n");
			list_candidates(o.trace);
		}
		ret = dps_cli_exit_code(st);
		goto end;
	}
	{
		gchar *table = NULL;

		if (g_file_get_contents(res.compare_txt, &table, NULL, NULL)) {
			fputs(table, stdout);
		}
		g_free(table);
	}
	/* the report last: the one thing to open next */
	printf("\nAction set: %s\nStub: %s (source %s)\nSimulated trace: %s\nReport: %s\n", res.set,
	       res.stub, res.stub_c, res.sim_trace, res.report);
	ret = DPS_EXIT_OK;
end:
	dps_replay_result_fini(&res);
	dps_knobs_fini(&knobs);
	g_free(given);
	return ret;
}
