/* SPDX-License-Identifier: MIT */
/* dps compare ORIG SIM: an original run against a simulated one (doc/compare.md). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps.h>
#include <glib.h>

#include "atomic-out.h"
#include "cli.h"
#include "compare.h"

enum {
	OPT_JSON = 256,
	OPT_HTML,
	OPT_ALL,
	OPT_THRESHOLD,
	OPT_TITLE,
	OPT_ORIG_PID,
	OPT_ORIG_TID,
	OPT_ORIG_COMM,
	OPT_SIM_PID,
	OPT_SIM_TID,
	OPT_SIM_COMM,
	OPT_EXCLUDE_COMM,
	OPT_HELP,
};

/* the process-selection group's options dps compare takes (cli.h): both runs alike */
#define COMPARE_SEL (DPS_CLI_SEL_ALL)

struct compare_cli {
	bool json, all;
	const char *html;
	const char *json_file; /* --json=FILE: JSON also written there */
	const char *title;
	double threshold; /* < 0: none */
	bool strict;	  /* --strict: a partial input is an error */
	bool progress;	  /* false after --no-progress */
	struct analyzer_options sel[2];
	struct compare_options copts;
	GPtrArray *exclude; /* owned array of borrowed argv strings; NULL until --exclude-comm */
	GPtrArray *knobs;   /* owned: name, value pairs for the outputs' run parameters (names
			     * static, values borrowed from argv or owned by threshold_text) */
	char threshold_text[32];
};

/* An option that changes the figures or the exit status, for the outputs' "run" record. */
static void add_knob(struct compare_cli *cli, const char *name, const char *value)
{
	g_ptr_array_add(cli->knobs, (gpointer)name);
	g_ptr_array_add(cli->knobs, (gpointer)value);
}

static void print_help(FILE *out)
{
	fprintf(
	    out,
	    "Usage: dps compare ORIG SIM [OPTIONS]\n\n"
	    "Compares an original run with a simulated one, thread by thread. ORIG and SIM are\n"
	    "each a trace directory (LTTng/perf CTF) or an action set (a directory of <id>.act\n"
	    "files, played on an ideal machine). Threads are matched by their place in the\n"
	    "creation tree, never by tid. Differences are not failures: exit 0 unless an input\n"
	    "is bad (2), something fails (1), or --threshold is exceeded (1).\n\n"
	    "Output:\n"
	    "  --json[=FILE]      JSON (schema dps-compare/1) on stdout instead of the table;\n"
	    "                     =FILE: into FILE as well (one analysis for every output)\n"
	    "  --html FILE        also write a self-contained HTML report to FILE\n"
	    "  --title TEXT       title of the HTML report\n"
	    "  --all              list every thread in the table (default: at most 60 rows)\n"
	    "  --threshold PCT    exit 1 when the fidelity error exceeds PCT %%\n\n"
	    "Threads:\n"
	    "  --exclude-comm GLOB  leave out threads whose name matches GLOB (both runs;\n"
	    "                       repeatable)\n\n"
	    "Trace selection (both runs; --orig-* / --sim-* for one run only):\n");
	dps_cli_selection_help(out, COMPARE_SEL, NULL);
	fputs("  --orig-pid N, --orig-tid N, --orig-comm NAME\n"
	      "  --sim-pid N, --sim-tid N, --sim-comm NAME\n\n"
	      "  -h, --help         this help\n\n"
	      "See doc/compare.md for every figure's definition and the JSON schema.\n",
	      out);
}

static int parse_args(int argc, char **argv, struct compare_cli *cli, int *first_arg)
{
	static const struct option own[] = {
	    {"json", optional_argument, NULL, OPT_JSON},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"all", no_argument, NULL, OPT_ALL},
	    {"threshold", required_argument, NULL, OPT_THRESHOLD},
	    {"title", required_argument, NULL, OPT_TITLE},
	    {"orig-pid", required_argument, NULL, OPT_ORIG_PID},
	    {"orig-tid", required_argument, NULL, OPT_ORIG_TID},
	    {"orig-comm", required_argument, NULL, OPT_ORIG_COMM},
	    {"sim-pid", required_argument, NULL, OPT_SIM_PID},
	    {"sim-tid", required_argument, NULL, OPT_SIM_TID},
	    {"sim-comm", required_argument, NULL, OPT_SIM_COMM},
	    {"exclude-comm", required_argument, NULL, OPT_EXCLUDE_COMM},
	    {"help", no_argument, NULL, OPT_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct analyzer_options *o = &cli->sel[0], *s = &cli->sel[1];
	struct dps_cli_selection sel;
	struct option *longopts;
	char *shortopts;
	int c, ret = DPS_EXIT_OK;
	char *end;

	dps_cli_selection_init(&sel, COMPARE_SEL, o, s);
	longopts = dps_cli_selection_longopts(COMPARE_SEL, own, "h", &shortopts);
	optind = 0; /* glibc: a full re-initialisation, as dps replay calls this twice */
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = dps_cli_selection_parse(&sel, "compare", c, optarg);
		if (ret >= 0) {
			continue;
		}
		ret = DPS_EXIT_OK;
		switch (c) {
		case OPT_JSON:
			/* --json: the JSON instead of the table; --json=FILE: into FILE too */
			if (optarg) {
				cli->json_file = optarg;
			} else {
				cli->json = true;
			}
			break;
		case OPT_HTML:
			cli->html = optarg;
			break;
		case OPT_ALL:
			cli->all = true;
			break;
		case OPT_TITLE:
			cli->title = optarg;
			break;
		case OPT_THRESHOLD:
			errno = 0;
			cli->threshold = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(cli->threshold) ||
			    cli->threshold < 0) {
				fprintf(stderr,
					"dps compare: --threshold expects a percentage >= 0, "
					"got '%s'\n",
					optarg);
				ret = DPS_EXIT_USAGE;
			}
			snprintf(cli->threshold_text, sizeof(cli->threshold_text), "%g",
				 cli->threshold);
			add_knob(cli, "--threshold", cli->threshold_text);
			break;
		case OPT_ORIG_PID:
			ret = dps_cli_set_selection("compare", "--orig-pid", 'p', optarg, o, NULL);
			break;
		case OPT_ORIG_TID:
			ret = dps_cli_set_selection("compare", "--orig-tid", 't', optarg, o, NULL);
			break;
		case OPT_SIM_PID:
			ret = dps_cli_set_selection("compare", "--sim-pid", 'p', optarg, s, NULL);
			break;
		case OPT_SIM_TID:
			ret = dps_cli_set_selection("compare", "--sim-tid", 't', optarg, s, NULL);
			break;
		case OPT_ORIG_COMM:
			o->comm = optarg;
			break;
		case OPT_SIM_COMM:
			s->comm = optarg;
			break;
		case OPT_EXCLUDE_COMM:
			if (!cli->exclude) {
				cli->exclude = g_ptr_array_new();
			}
			g_ptr_array_add(cli->exclude, optarg);
			cli->copts.exclude_comm = (const char *const *)cli->exclude->pdata;
			cli->copts.n_exclude_comm = cli->exclude->len;
			add_knob(cli, "--exclude-comm", optarg);
			break;
		case OPT_HELP:
		case 'h':
			print_help(stdout);
			*first_arg = -1;
			goto free_options;
		default:
			fprintf(stderr, "dps compare: unknown or incomplete option '%s'\n",
				argv[optind - 1]);
			ret = DPS_EXIT_USAGE;
			break;
		}
	}
	/* the switches that change the figures or the exit status, for the outputs */
	cli->copts.keep_tracer_threads = sel.keep_tracer_threads;
	if (sel.keep_tracer_threads) {
		add_knob(cli, "--keep-tracer-threads", NULL);
	}
	cli->strict = sel.strict;
	if (sel.strict) {
		add_knob(cli, "--strict", NULL);
	}
	cli->progress = sel.progress;
	if (!ret && argc - optind != 2) {
		fprintf(stderr,
			"dps compare: expected two inputs, ORIG and SIM (got %d)\n"
			"Try 'dps compare --help'.\n",
			argc - optind);
		ret = DPS_EXIT_USAGE;
	}
	*first_arg = optind;
free_options:
	g_free(longopts);
	g_free(shortopts);
	return ret;
}

/* Bad input is exit 2; allocation or I/O trouble is a failure (1): dps_cli_exit_code, but a
 * trace babeltrace2 refuses (DPS_ERROR) is bad input here too. */
static int exit_for(int status)
{
	return status == DPS_ERROR ? DPS_EXIT_USAGE : dps_cli_exit_code(status);
}

/* Writes the HTML report (html true) or the JSON into path, through a temporary renamed into
 * place: on any error (a full disk) the old file is kept and no temporary is left. Returns an
 * exit code. */
static int write_output_file(const struct compare_result *res, const struct compare_cli *cli,
			     const char *path, bool html)
{
	struct compare_html_options ho = {.title = cli->title};
	const char *what = html ? "report" : "JSON";
	struct dps_out_file out;
	struct dps_diag diag = {{0}};
	int st;

	st = dps_out_file_open(&out, path, &diag);
	if (st) {
		fprintf(stderr, "dps compare: cannot write the %s: %s\n", what, diag.msg);
		return dps_cli_exit_code(st) == DPS_EXIT_USAGE ? DPS_EXIT_USAGE : DPS_EXIT_FAILURE;
	}
	st = html ? compare_write_html(res, &ho, out.f) : compare_write_json(res, out.f);
	if (st) {
		int err = errno; /* the failed write's, before the clean-up's */

		dps_out_file_abort(&out);
		fprintf(stderr, "dps compare: writing the %s failed: path=\"%s\", errno=%d (%s)\n",
			what, path, err, strerror(err));
		return DPS_EXIT_FAILURE;
	}
	st = dps_out_file_commit(&out, &diag);
	if (st) {
		fprintf(stderr, "dps compare: writing the %s failed: %s\n", what, diag.msg);
		return DPS_EXIT_FAILURE;
	}
	fprintf(stderr, "dps compare: %s written to %s\n", what, path);
	return DPS_EXIT_OK;
}

int dps_cmd_compare(int argc, char **argv)
{
	struct compare_cli cli = {.threshold = -1, .knobs = g_ptr_array_new()};
	struct compare_run_info run = {.command = "compare"};
	struct dps_calibration cal;
	char calerr[256];
	struct analyzer_result *models[2] = {NULL, NULL};
	enum compare_input_kind kinds[2] = {COMPARE_INPUT_TRACE, COMPARE_INPUT_TRACE};
	struct compare_result *res = NULL;
	struct dps_diag diag = {{0}};
	int first = 0, ret, st;
	const char **given; /* g_free: argv as given */

	/* the command line as given, for the outputs: getopt permutes argv */
	given = g_memdup2(argv + 1, sizeof(*argv) * (size_t)(argc > 0 ? argc : 1));

	analyzer_options_default(&cli.sel[0]);
	analyzer_options_default(&cli.sel[1]);
	compare_options_default(&cli.copts);
	ret = parse_args(argc, argv, &cli, &first);
	if (ret || first < 0) {
		goto end;
	}
	for (int s = 0; s < 2; s++) {
		cli.sel[s].progress = cli.progress && dps_cli_stderr_is_tty();
		st = compare_load(argv[first + s], &cli.sel[s], &models[s], &kinds[s], &diag);
		if (st) {
			fprintf(stderr, "dps compare: %s input %s: %s\n",
				s ? "simulated" : "original", argv[first + s], diag.msg);
			ret = exit_for(st);
			goto end;
		}
		if (models[s]->partial && cli.strict) {
			fprintf(stderr,
				"dps compare: %s input %s: incomplete (%s): refused "
				"(--strict)\n",
				s ? "simulated" : "original", argv[first + s],
				models[s]->partial_reason ? models[s]->partial_reason
							  : "incomplete");
			ret = DPS_EXIT_FAILURE;
			goto end;
		}
		if (models[s]->partial) {
			fprintf(stderr, "dps compare: warning: the %s input is partial: %s\n",
				s ? "simulated" : "original",
				models[s]->partial_reason ? models[s]->partial_reason
							  : "incomplete");
		}
	}
	st = compare_run(models[0], kinds[0], argv[first], models[1], kinds[1], argv[first + 1],
			 &cli.copts, &res, &diag);
	if (st) {
		fprintf(stderr, "dps compare: %s\n", diag.msg);
		ret = exit_for(st);
		goto end;
	}
	run.args = given;
	run.n_args = (size_t)argc - 1;
	run.calibration = cli.sel[0].calibration_path;
	run.calibration_source = run.calibration ? "given" : NULL;
	if (run.calibration &&
	    !dps_calibration_load(run.calibration, &cal, calerr, sizeof(calerr))) {
		run.cal = &cal;
	}
	for (int s = 0; s < 2; s++) {
		run.sel[s] = &cli.sel[s];
	}
	run.knobs = (const char *const *)cli.knobs->pdata;
	run.n_knobs = cli.knobs->len / 2;
	res->run = &run;
	st = cli.json ? compare_write_json(res, stdout) : compare_write_text(res, stdout, cli.all);
	if (st || fflush(stdout)) {
		fprintf(stderr, "dps compare: writing the output failed\n");
		ret = DPS_EXIT_FAILURE;
		goto end;
	}
	if (cli.html) {
		ret = write_output_file(res, &cli, cli.html, true);
		if (ret) {
			goto end;
		}
	}
	if (cli.json_file) {
		ret = write_output_file(res, &cli, cli.json_file, false);
		if (ret) {
			goto end;
		}
	}
	if (cli.threshold >= 0 && res->fidelity_err_pct > cli.threshold) {
		fprintf(stderr,
			"dps compare: fidelity error %.2f %% exceeds the threshold %.2f %%\n",
			res->fidelity_err_pct, cli.threshold);
		ret = DPS_EXIT_FAILURE;
	}
end:
	if (cli.exclude) {
		g_ptr_array_free(cli.exclude, TRUE);
	}
	g_ptr_array_free(cli.knobs, TRUE);
	g_free(given);
	compare_result_destroy(res);
	analyzer_result_destroy(models[0]);
	analyzer_result_destroy(models[1]);
	return ret;
}
