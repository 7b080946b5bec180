/* SPDX-License-Identifier: MIT */
/* dps whatif: options in, the study (whatif/whatif.h, doc/whatif.md) does the rest. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "analyzer.h"
#include "atomic-out.h"
#include "cli.h"
#include "machine-load.h"
#include "path.h"
#include "whatif.h"

/* the process-selection group's options dps whatif takes (cli.h) */
#define WHATIF_SEL                                                                                 \
	(DPS_CLI_SEL_PROCESS | DPS_CLI_SEL_ONE | DPS_CLI_SEL_FOLLOW | DPS_CLI_SEL_MIN_BLOCK |      \
	 DPS_CLI_SEL_CALIBRATION | DPS_CLI_SEL_STRICT | DPS_CLI_SEL_PROGRESS)

static void print_usage(FILE *out)
{
	fputs("Usage: dps whatif TRACE_OR_SET (--thread ID | --thread-comm NAME)... [OPTIONS]\n"
	      "       dps whatif --region NAME... [OPTIONS] -- CMD [ARGS...]\n"
	      "       dps whatif TRACE_OR_SET (--thread ID | --thread-comm NAME)... --plan DIR\n"
	      "       dps whatif --run-one N DIR\n"
	      "       dps whatif --collect DIR [--mixed-nodes] [--json] [--html FILE] [-o DIR]\n"
	      "\n"
	      "The CPU stub methodology (doc/whatif.md): what would the whole program do if this\n"
	      "component (one thread, or every thread named, as one group) were faster or\n"
	      "slower? Each point plays the stub built from the action set --repeat times and\n"
	      "times it from outside (exec to exit): the busy stub sweeps the component's CPU\n"
	      "time t_PSF, the flat stub removes it, the idle stub sleeps it. The curve\n"
	      "t_SUT(t_PSF) is fitted with two segments and read as the paper reads it.\n"
	      "\n"
	      "Component (repeatable; together they are one component):\n"
	      "      --thread ID         the thread with this action-set id (<ID>.act)\n"
	      "      --thread-comm NAME  every thread with this recorded name (renamed: it\n"
	      "                          was --comm, which now names the process everywhere)\n"
	      "      --region NAME       in the real program CMD: this local stub region\n"
	      "                          (dps/stub.h); CMD runs once recording, then per point\n"
	      "Input: a trace (analyzed as dps analyze does) or an action set directory.\n"
	      "Selection in a trace (record.info's pid by default; as in dps analyze):\n",
	      out);
	dps_cli_selection_help(out, WHATIF_SEL & ~DPS_CLI_SEL_CALIBRATION, NULL);
	fprintf(out,
		"Study:\n"
		"      --stub LIST         busy, idle, flat or all (default), comma-separated\n"
		"      --sweep cpu|misses  what the busy sweep scales: the component's CPU time\n"
		"                          (default), or its runs' data-cache misses (a set with\n"
		"                          cache figures, dps cache apply; busy stub only)\n"
		"      --from S, --to S, --step S   the busy sweep's run scales (default 0, 1.5, "
		"0.1)\n"
		"      --repeat N          runs per point (default %d)\n"
		"      --seed N            the order of the runs (default: from the clock)\n",
		WHATIF_REPEAT_DEFAULT);
	dps_cli_selection_help(out, DPS_CLI_SEL_CALIBRATION,
			       "the stub's calibration (default: a quick\n"
			       "measurement)");
	fprintf(
	    out,
	    "      --mode work|cpu|wall   how runs spend time (default: the stub's, cpu)\n"
	    "      --window-from EDGE, --window-to EDGE   t_SUT is this window of each run:\n"
	    "                          exec (from), exit (to), ID.start or ID.end (a thread's)\n"
	    "                          (default exec to exit, timed from outside)\n"
	    "      --timelines LIST    record these points once more and compare each with the\n"
	    "                          original (all, flat, idle, original or scales, comma-\n"
	    "                          separated; a trace and -o DIR; linked from the report)\n"
	    "      --wait-quiet[=SECONDS]  before the calibration, the runs and the timelines,\n"
	    "                          wait for a quiet machine (others under 10 %% of the\n"
	    "                          CPUs), SECONDS at most (default %.0f); if it stays\n"
	    "                          under load, say so and go on without waiting\n"
	    "On a cluster (doc/cluster.md):\n"
	    "      --plan DIR          everything up to the runs, then the runs written as a job\n"
	    "                          list into DIR with the stub, slurm.sbatch, parallel.sh\n"
	    "      --slurm-partition NAME, --slurm-constraint EXPR   slurm.sbatch's\n"
	    "                          partition and node constraint (default: none)\n"
	    "      --slurm-shared      let a run share its node (default: exclusive)\n"
	    "      --run-one N DIR     run entry N of the plan in DIR once, measured as a local\n"
	    "                          sweep measures a run; its result into DIR/results\n"
	    "      --collect DIR       the plan's results merged into the study's answer, its\n"
	    "                          missing, failed and duplicated runs named\n"
	    "      --mixed-nodes       collect nodes whose calibrations disagree\n"
	    "Output:\n"
	    "      --json              print one JSON object instead of the table\n"
	    "      --html FILE         write the report (the curve, Figures 4-5) to FILE\n"
	    "  -o, --output DIR        keep the set, the stub and the results in DIR (replaced\n"
	    "                          whole when it is an earlier dps whatif's; else --force)\n"
	    "      --force\n"
	    "  -q, --quiet             less output: no step lines, no progress line\n"
	    "  -h, --help\n"
	    "\n"
	    "Exit: 0 ok, 1 a step failed (its message says which), 2 bad usage or input.\n",
	    DPS_LOAD_WAIT_QUIET_DEFAULT_S);
}

struct args {
	struct whatif_options o;
	GArray *ids;	    /* uint64_t */
	GPtrArray *comms;   /* borrowed from argv */
	GPtrArray *regions; /* borrowed from argv */
	bool json;
	const char *html;
	const char *collect; /* --collect DIR */
	bool mixed_nodes;
	int64_t run_one;  /* --run-one N, -1: none */
	bool stubs_given; /* --stub (sweeping the misses, the default is busy alone) */
};

static bool parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && isfinite(*out);
}

static int parse_stubs(const char *arg, unsigned *stubs)
{
	gchar **parts = g_strsplit(arg, ",", -1);
	int ret = DPS_EXIT_OK;

	*stubs = 0;
	for (gchar **p = parts; *p && !ret; p++) {
		if (!strcmp(*p, "busy")) {
			*stubs |= WHATIF_STUB_BUSY;
		} else if (!strcmp(*p, "idle")) {
			*stubs |= WHATIF_STUB_IDLE;
		} else if (!strcmp(*p, "flat")) {
			*stubs |= WHATIF_STUB_FLAT;
		} else if (!strcmp(*p, "all")) {
			*stubs |= WHATIF_STUB_ALL;
		} else {
			fprintf(stderr,
				"dps whatif: --stub: expected busy, idle, flat or all, got '%s'\n",
				*p);
			ret = DPS_EXIT_USAGE;
		}
	}
	g_strfreev(parts);
	return ret;
}

/* getopt_long's values of dps whatif's own long options */
enum {
	OPT_THREAD = 256,
	OPT_THREAD_COMM,
	OPT_STUB,
	OPT_SWEEP,
	OPT_FROM,
	OPT_TO,
	OPT_STEP,
	OPT_REPEAT,
	OPT_SEED,
	OPT_MODE,
	OPT_JSON,
	OPT_HTML,
	OPT_FORCE,
	OPT_WINDOW_FROM,
	OPT_WINDOW_TO,
	OPT_TIMELINES,
	OPT_REGION,
	OPT_WAIT_QUIET,
	OPT_PLAN,
	OPT_SLURM_PARTITION,
	OPT_SLURM_CONSTRAINT,
	OPT_SLURM_SHARED,
	OPT_RUN_ONE,
	OPT_COLLECT,
	OPT_MIXED_NODES,
};

/* One of dps whatif's own options, c with its arg, into a. Returns DPS_EXIT_OK,
 * DPS_EXIT_USAGE (message printed), or -1 after --help. */
static int parse_own(struct args *a, int c, const char *arg)
{
	int64_t v;
	double d;

	switch (c) {
	case OPT_THREAD:
		if (!dps_cli_parse_id(arg, &v)) {
			fprintf(stderr,
				"dps whatif: --thread expects an action-set id (a "
				"non-negative integer), got '%s'\n",
				arg);
			return DPS_EXIT_USAGE;
		}
		g_array_append_val(a->ids, v);
		break;
	case OPT_THREAD_COMM:
		g_ptr_array_add(a->comms, (char *)arg);
		break;
	case OPT_STUB:
		if (parse_stubs(arg, &a->o.stubs)) {
			return DPS_EXIT_USAGE;
		}
		a->stubs_given = true;
		break;
	case OPT_SWEEP:
		if (!strcmp(arg, "cpu") || !strcmp(arg, "misses")) {
			a->o.sweep = arg[0] == 'm' ? WHATIF_SWEEP_MISSES : WHATIF_SWEEP_CPU;
		} else {
			fprintf(stderr, "dps whatif: --sweep: expected cpu or misses, got '%s'\n",
				arg);
			return DPS_EXIT_USAGE;
		}
		break;
	case OPT_FROM:
	case OPT_TO:
	case OPT_STEP:
		if (!parse_double(arg, &d)) {
			fprintf(stderr, "dps whatif: --%s expects a number, got '%s'\n",
				c == OPT_FROM ? "from"
				: c == OPT_TO ? "to"
					      : "step",
				arg);
			return DPS_EXIT_USAGE;
		}
		*(c == OPT_FROM ? &a->o.from : c == OPT_TO ? &a->o.to : &a->o.step) = d;
		break;
	case OPT_REPEAT:
		if (!dps_cli_parse_id(arg, &v) || v < 1 || v > 10000) {
			fprintf(stderr,
				"dps whatif: --repeat expects a count from 1 to 10000, got "
				"'%s'\n",
				arg);
			return DPS_EXIT_USAGE;
		}
		a->o.repeat = (unsigned)v;
		break;
	case OPT_SEED:
		if (!dps_cli_parse_id(arg, &v)) {
			fprintf(stderr,
				"dps whatif: --seed expects a non-negative integer, got "
				"'%s'\n",
				arg);
			return DPS_EXIT_USAGE;
		}
		a->o.seed = (uint64_t)v;
		break;
	case OPT_MODE:
		a->o.mode = arg;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_HTML:
		a->html = arg;
		break;
	case 'o':
		a->o.outdir = arg;
		break;
	case OPT_FORCE:
		a->o.force = true;
		break;
	case OPT_WINDOW_FROM:
		a->o.window_from = arg;
		break;
	case OPT_WINDOW_TO:
		a->o.window_to = arg;
		break;
	case OPT_TIMELINES:
		a->o.timelines = arg;
		break;
	case OPT_REGION:
		g_ptr_array_add(a->regions, (char *)arg);
		break;
	case OPT_WAIT_QUIET:
		if (dps_cli_set_wait_quiet("whatif", arg, &a->o.wait_quiet_s)) {
			return DPS_EXIT_USAGE;
		}
		break;
	case OPT_PLAN:
		a->o.plan = true;
		a->o.outdir = arg;
		break;
	case OPT_SLURM_PARTITION:
		a->o.slurm_partition = arg;
		break;
	case OPT_SLURM_CONSTRAINT:
		a->o.slurm_constraint = arg;
		break;
	case OPT_SLURM_SHARED:
		a->o.slurm_shared = true;
		break;
	case OPT_RUN_ONE:
		if (!dps_cli_parse_id(arg, &v)) {
			fprintf(stderr,
				"dps whatif: --run-one expects a run's index (0, 1, ...), got "
				"'%s'\n",
				arg);
			return DPS_EXIT_USAGE;
		}
		a->run_one = v;
		break;
	case OPT_COLLECT:
		a->collect = arg;
		break;
	case OPT_MIXED_NODES:
		a->mixed_nodes = true;
		break;
	case 'q':
		a->o.quiet = true;
		break;
	case 'h':
		print_usage(stdout);
		return -1;
	default:
		fprintf(stderr, "Try 'dps whatif --help'.\n");
		return DPS_EXIT_USAGE;
	}
	return DPS_EXIT_OK;
}

/* The cluster modes' own arguments (after getopt): --run-one N DIR takes DIR and nothing
 * else, --collect DIR nothing else; the --slurm-* options go with --plan. DPS_EXIT_OK or
 * DPS_EXIT_USAGE (message printed). */
static int check_cluster_args(int argc, struct args *a)
{
	const char *why = NULL;

	if (a->run_one >= 0 && a->collect) {
		why = "--run-one and --collect are two steps: give one";
	} else if ((a->run_one >= 0 || a->collect) &&
		   (a->o.plan || a->ids->len || a->comms->len || a->regions->len)) {
		why = "--run-one and --collect take the study from the plan: no --plan, --thread, "
		      "--thread-comm or --region";
	} else if (a->run_one >= 0 && (a->json || a->html || a->o.outdir)) {
		why = "--run-one writes its result into the plan: no --json, --html or -o";
	} else if (a->run_one >= 0 && optind + 1 != argc) {
		why = "--run-one N DIR: give the plan's directory, once";
	} else if (a->collect && optind != argc) {
		why = "--collect DIR takes no other argument";
	} else if (!a->o.plan &&
		   (a->o.slurm_partition || a->o.slurm_constraint || a->o.slurm_shared)) {
		why = "--slurm-partition, --slurm-constraint and --slurm-shared go with --plan";
	} else if (a->mixed_nodes && !a->collect) {
		why = "--mixed-nodes goes with --collect";
	} else if (a->o.plan && (a->json || a->html)) {
		why = "--plan writes a plan, no answer yet: --json and --html go with --collect";
	}
	if (why) {
		fprintf(stderr, "dps whatif: %s\nTry 'dps whatif --help'.\n", why);
		return DPS_EXIT_USAGE;
	}
	return DPS_EXIT_OK;
}

/* Returns DPS_EXIT_OK, DPS_EXIT_USAGE (message printed), or -1 after --help. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option own[] = {
	    {"thread", required_argument, NULL, OPT_THREAD},
	    {"thread-comm", required_argument, NULL, OPT_THREAD_COMM},
	    {"stub", required_argument, NULL, OPT_STUB},
	    {"sweep", required_argument, NULL, OPT_SWEEP},
	    {"from", required_argument, NULL, OPT_FROM},
	    {"to", required_argument, NULL, OPT_TO},
	    {"step", required_argument, NULL, OPT_STEP},
	    {"repeat", required_argument, NULL, OPT_REPEAT},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"output", required_argument, NULL, 'o'},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"window-from", required_argument, NULL, OPT_WINDOW_FROM},
	    {"window-to", required_argument, NULL, OPT_WINDOW_TO},
	    {"timelines", required_argument, NULL, OPT_TIMELINES},
	    {"region", required_argument, NULL, OPT_REGION},
	    {"wait-quiet", optional_argument, NULL, OPT_WAIT_QUIET},
	    {"plan", required_argument, NULL, OPT_PLAN},
	    {"slurm-partition", required_argument, NULL, OPT_SLURM_PARTITION},
	    {"slurm-constraint", required_argument, NULL, OPT_SLURM_CONSTRAINT},
	    {"slurm-shared", no_argument, NULL, OPT_SLURM_SHARED},
	    {"run-one", required_argument, NULL, OPT_RUN_ONE},
	    {"collect", required_argument, NULL, OPT_COLLECT},
	    {"mixed-nodes", no_argument, NULL, OPT_MIXED_NODES},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct analyzer_options sel;
	struct dps_cli_selection group;
	struct option *longopts;
	char *shortopts;
	int c, ret = DPS_EXIT_OK;

	analyzer_options_default(&sel);
	dps_cli_selection_init(&group, WHATIF_SEL, &sel, NULL);
	longopts = dps_cli_selection_longopts(WHATIF_SEL, own, "o:qh", &shortopts);
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = dps_cli_selection_parse(&group, "whatif", c, optarg);
		if (ret < 0) {
			ret = parse_own(a, c, optarg);
		}
	}
	if (ret) {
		goto free_options;
	}
	ret = check_cluster_args(argc, a);
	if (ret) {
		goto free_options;
	}
	if (a->run_one >= 0 || a->collect) {
		goto free_options; /* no study's options: checked above */
	}
	if (a->regions->len) {
		if (optind >= argc) {
			fprintf(stderr, "dps whatif: --region: give the command after --\n"
					"Try 'dps whatif --help'.\n");
			ret = DPS_EXIT_USAGE;
			goto free_options;
		}
		g_ptr_array_add(a->regions, NULL);
		a->o.regions = (const char *const *)a->regions->pdata;
		a->o.n_regions = a->regions->len - 1;
		a->o.command = (const char *const *)&argv[optind];
	} else if (optind + 1 != argc) {
		fprintf(stderr,
			"dps whatif: expected one TRACE or action set directory, got %d arguments\n"
			"Try 'dps whatif --help'.\n",
			argc - optind);
		ret = DPS_EXIT_USAGE;
		goto free_options;
	}
	a->o.input = a->o.command ? NULL : argv[optind];
	a->o.pid = sel.pid;
	a->o.tid = sel.tid;
	a->o.process_comm = sel.comm;
	a->o.follow_children = sel.follow_children;
	a->o.min_block_ns = sel.min_block_ns;
	a->o.calibration = sel.calibration_path;
	a->o.strict = group.strict;
	a->o.progress = group.progress;
	a->o.thread_ids = (const uint64_t *)a->ids->data;
	a->o.n_thread_ids = a->ids->len;
	a->o.comms = (const char *const *)a->comms->pdata;
	a->o.n_comms = a->comms->len;
	if (a->o.sweep == WHATIF_SWEEP_MISSES && !a->stubs_given) {
		a->o.stubs = WHATIF_STUB_BUSY; /* the flat stub is its scale 0; no idle one */
	}
free_options:
	g_free(longopts);
	g_free(shortopts);
	return ret;
}

/* The report to FILE, whole or not at all. */
static int write_html(const char *path, const struct whatif_result *r)
{
	struct dps_out_file of;
	struct dps_diag diag = {{0}};
	char *link_base = NULL;
	int ret = DPS_EXIT_OK;

	/* the links to the points' timelines are relative to OUTDIR: from elsewhere, OUTDIR
	 * relative to the report, so that they hold wherever the two are read from together */
	if (r->workdir) {
		char *dir = g_path_get_dirname(path);

		link_base = dps_path_relative(dir, r->workdir);
		if (!strcmp(link_base, ".")) {
			g_free(link_base);
			link_base = NULL;
		}
		g_free(dir);
	}

	if (dps_out_file_open(&of, path, &diag)) {
		fprintf(stderr, "dps whatif: --html: %s\n", diag.msg);
		ret = DPS_EXIT_FAILURE;
		goto end_base;
	}
	whatif_write_html(r, of.f, link_base);
	if (dps_out_file_commit(&of, &diag)) {
		fprintf(stderr, "dps whatif: --html: %s\n", diag.msg);
		ret = DPS_EXIT_FAILURE;
	}
end_base:
	g_free(link_base);
	return ret;
}

int dps_cmd_whatif(int argc, char **argv)
{
	struct args a = {.ids = g_array_new(FALSE, TRUE, sizeof(uint64_t)),
			 .comms = g_ptr_array_new(),
			 .regions = g_ptr_array_new()};
	struct whatif_result res = {0};
	struct dps_diag diag = {{0}};
	enum dps_status st;
	int ret;

	whatif_options_default(&a.o);
	a.run_one = -1;
	ret = parse_args(argc, argv, &a);
	if (ret) {
		ret = ret < 0 ? DPS_EXIT_OK : ret;
		goto end;
	}
	if (a.run_one >= 0) {
		st = whatif_plan_run(argv[argc - 1], (size_t)a.run_one, a.o.quiet, &diag);
		if (st) {
			fprintf(stderr, "dps whatif: %s\n",
				diag.msg[0] ? diag.msg : dps_status_string(st));
		}
		ret = dps_cli_exit_code(st);
		goto end;
	}
	if (a.collect) {
		struct whatif_collect_options c = {.dir = a.collect,
						   .outdir = a.o.outdir,
						   .force = a.o.force,
						   .mixed_nodes = a.mixed_nodes,
						   .notes = stderr};

		st = whatif_collect(&c, &res, &diag);
		goto answer;
	}
	a.o.progress = a.o.progress && dps_cli_stderr_is_tty() && !a.o.quiet;
	if (!a.o.command && !a.o.n_thread_ids && !a.o.n_comms && a.o.input &&
	    g_file_test(a.o.input, G_FILE_TEST_IS_DIR) && !whatif_input_is_set(a.o.input)) {
		/* no component: the candidates, ranked, then the usage error */
		st = whatif_candidates(&a.o, stdout, &diag);
		if (st) {
			fprintf(stderr, "dps whatif: %s\n", diag.msg);
			ret = dps_cli_exit_code(st);
			goto end;
		}
		fprintf(stderr, "dps whatif: no component: name one of the threads above with "
				"--thread ID (or all of a name with --thread-comm NAME)\n");
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	st = whatif_run(&a.o, &res, &diag);
	if (!st && a.o.plan) {
		if (!a.o.quiet) {
			printf("Planned in: %s\nRun: sbatch %s/slurm.sbatch, or %s/parallel.sh "
			       "[SSHLOGINFILE]\nThen: dps whatif --collect %s\n",
			       a.o.outdir, a.o.outdir, a.o.outdir, a.o.outdir);
		}
		ret = DPS_EXIT_OK;
		goto end;
	}
answer:
	if (st) {
		fprintf(stderr, "dps whatif: %s\n", diag.msg[0] ? diag.msg : dps_status_string(st));
		ret = dps_cli_exit_code(st);
		goto end;
	}
	if (a.json) {
		whatif_write_json(&res, stdout);
	} else {
		whatif_write_text(&res, stdout);
	}
	if (res.n_loaded) {
		/* after the answer, not inside its last line (stdout is buffered when piped) */
		fflush(stdout);
		fprintf(stderr,
			"dps whatif: warning: %zu points ran under load; the output names them\n",
			res.n_loaded);
	}
	ret = a.html ? write_html(a.html, &res) : DPS_EXIT_OK;
	if (!a.json && !ret && (a.html || res.workdir)) {
		/* the report last: the one thing to open next */
		printf("\n%s%s%s%s%s\n", res.workdir ? "Kept in: " : "",
		       res.workdir ? res.workdir : "", a.html && res.workdir ? "\n" : "",
		       a.html ? "Report: " : "", a.html ? a.html : "");
	}
end:
	whatif_result_fini(&res);
	g_array_free(a.ids, TRUE);
	g_ptr_array_free(a.comms, TRUE);
	g_ptr_array_free(a.regions, TRUE);
	return ret;
}
