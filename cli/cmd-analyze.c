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
#include "jobs.h"
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
	fputs(
	    "  -o, --output DIR       write the action set into DIR (an existing set there is\n"
	    "                         replaced whole; any other non-empty DIR is refused)\n"
	    "      --force            replace DIR whole even if it is not an action set\n"
	    "      --json             statistics as JSON on stdout\n"
	    "  -q, --quiet            no statistics table\n"
	    "      --list             only list the processes of the traces (exit status 0)\n"
	    "      --decode-jobs N    decode the traces' streams in N groups in parallel\n"
	    "                         (default: one per online CPU; 1: one decoder)\n"
	    "Many traces as jobs (doc/cluster.md, \"Analyses as jobs\"):\n"
	    "      --plan DIR         one job per trace (TRACE..., or each trace below one\n"
	    "                         TRACES_DIR) with the selection, written into DIR with\n"
	    "                         slurm.sbatch, parallel.sh and results/\n"
	    "      --slurm-partition NAME, --slurm-constraint EXPR   slurm.sbatch's\n"
	    "                         partition and node constraint (default: none)\n"
	    "      --slurm-shared     let a job share its node (default: exclusive)\n"
	    "      --run-one N DIR    run job N of the plan in DIR: its set into DIR/results\n"
	    "      --collect DIR      the plan's sets side by side, jobs missing or failed named\n"
	    "      --compare          with --collect: each set against the reference, as dps\n"
	    "                         compare writes it (text, or JSON with --json)\n"
	    "      --reference NAME   the set the others are compared with (default: the first)\n"
	    "      --allow-missing    exit 0 after a partial collect\n"
	    "  -h, --help\n",
	    out);
}

/* The job modes' options. */
struct jobs_args {
	const char *plan, *collect, *reference, *partition, *constraint;
	const char *run_one; /* N, as given */
	bool compare, allow_missing, shared;
	GPtrArray *sel; /* the selection options as given (borrowed words) */
};

/* Which option of longopts getopt_long returned (for the selection's words in a plan). */
static const struct option *find_option(const struct option *longopts, int opt, int idx)
{
	if (idx >= 0) {
		return &longopts[idx];
	}
	for (const struct option *o = longopts; o->name; o++) {
		if (o->val == opt) {
			return o;
		}
	}
	return NULL;
}

/* --plan, --run-one, --collect: the jobs' library calls (compare/jobs.h). The arguments left
 * after the options: the traces (--plan), the plan's directory (--run-one). Returns an exit
 * status. */
static int run_jobs(const struct jobs_args *j, bool json, bool force, int argc, char **argv)
{
	struct dps_diag diag = {""};
	const char *why = NULL;
	int status;

	if (!!j->plan + !!j->run_one + !!j->collect > 1) {
		why = "--plan, --run-one and --collect are three steps: give one";
	} else if (!j->plan && (j->partition || j->constraint || j->shared)) {
		why = "--slurm-partition, --slurm-constraint and --slurm-shared go with --plan";
	} else if (!j->collect && (j->compare || j->reference || j->allow_missing)) {
		why = "--compare, --reference and --allow-missing go with --collect";
	} else if (!j->plan && j->sel->len) {
		why = "--run-one and --collect take the selection from the plan";
	} else if (j->plan && optind >= argc) {
		why = "--plan DIR: expected the traces, or one directory of traces";
	} else if (j->run_one && optind + 1 != argc) {
		why = "--run-one N DIR: give the plan's directory, once";
	} else if (j->collect && optind != argc) {
		why = "--collect DIR takes no other argument";
	} else if (!j->collect && json) {
		why = "--json goes with --collect here";
	}
	if (why) {
		fprintf(stderr, "dps analyze: %s\nTry 'dps analyze --help'.\n", why);
		return DPS_EXIT_USAGE;
	}
	if (j->plan) {
		struct compare_jobs_plan_options o = {
		    .dir = j->plan,
		    .paths = (const char *const *)&argv[optind],
		    .n_paths = (size_t)(argc - optind),
		    .sel_args = (const char *const *)j->sel->pdata,
		    .n_sel_args = j->sel->len,
		    .partition = j->partition,
		    .constraint = j->constraint,
		    .shared = j->shared,
		    .force = force,
		};
		size_t n;

		status = compare_jobs_plan(&o, &n, &diag);
		if (!status) {
			printf("Planned %zu jobs in: %s\nRun: sbatch %s/slurm.sbatch, or "
			       "%s/parallel.sh [SSHLOGINFILE]\nThen: dps analyze --collect %s\n",
			       n, j->plan, j->plan, j->plan, j->plan);
		}
	} else if (j->run_one) {
		status = compare_jobs_run_one(argv[optind], j->run_one, &diag);
	} else {
		struct compare_jobs_collect_options o = {
		    .reference = j->reference, .compare = j->compare, .json = json};
		size_t n_bad = 0;

		status = compare_jobs_collect(j->collect, &o, stdout, &n_bad, &diag);
		if (!status && n_bad && !j->allow_missing) {
			fprintf(stderr,
				"dps analyze: collect: %zu jobs have no set: the output is partial "
				"(--allow-missing: exit 0 all the same)\n",
				n_bad);
			return DPS_EXIT_FAILURE;
		}
	}
	if (status) {
		fprintf(stderr, "dps analyze: %s\n", diag.msg);
	}
	return dps_cli_exit_code(status);
}

int dps_cmd_analyze(int argc, char **argv)
{
	enum {
		OPT_JSON = 256,
		OPT_LIST,
		OPT_FORCE,
		OPT_DECODE_JOBS,
		OPT_PLAN,
		OPT_RUN_ONE,
		OPT_COLLECT,
		OPT_COMPARE,
		OPT_REFERENCE,
		OPT_ALLOW_MISSING,
		OPT_SLURM_PARTITION,
		OPT_SLURM_CONSTRAINT,
		OPT_SLURM_SHARED,
	};
	static const struct option own[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"quiet", no_argument, NULL, 'q'},
	    {"list", no_argument, NULL, OPT_LIST},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"decode-jobs", required_argument, NULL, OPT_DECODE_JOBS},
	    {"plan", required_argument, NULL, OPT_PLAN},
	    {"run-one", required_argument, NULL, OPT_RUN_ONE},
	    {"collect", required_argument, NULL, OPT_COLLECT},
	    {"compare", no_argument, NULL, OPT_COMPARE},
	    {"reference", required_argument, NULL, OPT_REFERENCE},
	    {"allow-missing", no_argument, NULL, OPT_ALLOW_MISSING},
	    {"slurm-partition", required_argument, NULL, OPT_SLURM_PARTITION},
	    {"slurm-constraint", required_argument, NULL, OPT_SLURM_CONSTRAINT},
	    {"slurm-shared", no_argument, NULL, OPT_SLURM_SHARED},
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
	struct jobs_args jobs = {.sel = g_ptr_array_new_with_free_func(g_free)};
	int opt, idx, status, ret = DPS_EXIT_OK;

	analyzer_options_default(&opts);
	dps_cli_selection_init(&sel, ANALYZE_SEL, &opts, NULL);
	longopts = dps_cli_selection_longopts(ANALYZE_SEL, own, "o:qh", &shortopts);
	optind = 1;
	while (!ret && (idx = -1, opt = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		ret = dps_cli_selection_parse(&sel, "analyze", opt, optarg);
		if (ret >= 0) {
			const struct option *o = find_option(longopts, opt, idx);

			/* the words a plan's jobs give dps analyze again */
			if (!ret && o) {
				g_ptr_array_add(jobs.sel, g_strdup_printf("--%s", o->name));
				if (o->has_arg == required_argument ||
				    (o->has_arg == optional_argument && optarg)) {
					g_ptr_array_add(jobs.sel, g_strdup(optarg));
				}
			}
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
		case OPT_PLAN:
			jobs.plan = optarg;
			break;
		case OPT_RUN_ONE:
			jobs.run_one = optarg;
			break;
		case OPT_COLLECT:
			jobs.collect = optarg;
			break;
		case OPT_COMPARE:
			jobs.compare = true;
			break;
		case OPT_REFERENCE:
			jobs.reference = optarg;
			break;
		case OPT_ALLOW_MISSING:
			jobs.allow_missing = true;
			break;
		case OPT_SLURM_PARTITION:
			jobs.partition = optarg;
			break;
		case OPT_SLURM_CONSTRAINT:
			jobs.constraint = optarg;
			break;
		case OPT_SLURM_SHARED:
			jobs.shared = true;
			break;
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
	if (!ret && (jobs.plan || jobs.run_one || jobs.collect || jobs.compare || jobs.reference ||
		     jobs.allow_missing || jobs.partition || jobs.constraint || jobs.shared)) {
		ret = run_jobs(&jobs, json, out_flags & DPS_OUT_FORCE, argc, argv);
		ret = ret ? ret : -1;
	}
	g_ptr_array_free(jobs.sel, TRUE);
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
