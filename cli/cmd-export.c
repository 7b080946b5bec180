/* SPDX-License-Identifier: MIT */
/* dps export: a trace, a set or a replay's two runs for other tools (doc/export.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atomic-out.h"
#include "cli.h"
#include "export.h"

/* the process-selection group's options dps export takes (cli.h) */
#define EXPORT_SEL (DPS_CLI_SEL_ALL)

static void usage(FILE *out)
{
	fputs("Usage: dps export INPUT -o FILE [--format perfetto]\n"
	      "                  [--pid P | --tid T | --comm NAME] [OPTIONS]\n\n"
	      "Writes the runs in INPUT for a trace viewer: the Chrome/Perfetto JSON\n"
	      "trace-event format (ui.perfetto.dev, chrome://tracing), a process per run, a\n"
	      "track per thread with its run/preempted/blocked slices, wake-up and join\n"
	      "arrows, and the heap in use. INPUT is a trace (the selected process: as dps\n"
	      "analyze), an action set (played on an ideal machine), or a dps replay output\n"
	      "directory (the original and the simulated run side by side; --pid: of the\n"
	      "original trace).\n\n"
	      "  -o, --output FILE      the file to write ('-': standard output)\n"
	      "      --format perfetto  the format (the only one; chrome and json name it too)\n",
	      out);
	dps_cli_selection_help(out, EXPORT_SEL, NULL);
	fputs("  -h, --help\n\n"
	      "Exit: 0 ok, 1 failure, 2 bad usage or bad input. See doc/export.md.\n",
	      out);
}

/* Refuses partial runs under --strict, warns about them otherwise. Returns an exit code. */
static int check_partial(const struct dps_export_input *in, bool strict)
{
	for (size_t i = 0; i < in->n_runs; i++) {
		const struct dps_export_run *run = &in->runs[i];
		const char *why =
		    run->model->partial_reason ? run->model->partial_reason : "events lost";

		if (!run->model->partial) {
			continue;
		}
		if (strict) {
			fprintf(stderr, "dps export: %s: incomplete (%s): refused (--strict)\n",
				run->source, why);
			return DPS_EXIT_FAILURE;
		}
		fprintf(stderr,
			"dps export: warning: %s is incomplete (%s); exported as far as it "
			"goes\n",
			run->source, why);
	}
	return DPS_EXIT_OK;
}

/* Writes the file through a temporary renamed into place (common/atomic-out.h), or to stdout
 * for "-". Returns an exit code. */
static int write_output(const struct dps_export_input *in, enum dps_export_format format,
			const char *path)
{
	struct dps_out_file of;
	struct dps_diag diag = {{0}};
	int st, err;

	(void)format; /* one format so far: every value is DPS_EXPORT_PERFETTO */
	if (!strcmp(path, "-")) {
		st = dps_export_write_perfetto(in, stdout);
		if (st || fflush(stdout)) {
			fprintf(stderr, "dps export: writing to standard output failed\n");
			return DPS_EXIT_FAILURE;
		}
		return DPS_EXIT_OK;
	}
	st = dps_out_file_open(&of, path, &diag);
	if (st) {
		fprintf(stderr, "dps export: %s\n", diag.msg);
		return st == DPS_ERR_INVAL ? DPS_EXIT_USAGE : DPS_EXIT_FAILURE;
	}
	st = dps_export_write_perfetto(in, of.f);
	if (st) {
		err = errno;
		dps_out_file_abort(&of);
		fprintf(stderr, "dps export: writing failed: path=\"%s\", errno=%d (%s)\n", path,
			err, strerror(err));
		return DPS_EXIT_FAILURE;
	}
	if (dps_out_file_commit(&of, &diag)) {
		fprintf(stderr, "dps export: writing failed: %s\n", diag.msg);
		return DPS_EXIT_FAILURE;
	}
	return DPS_EXIT_OK;
}

int dps_cmd_export(int argc, char **argv)
{
	enum { OPT_FORMAT = 256 };
	static const struct option own[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct analyzer_options opts;
	struct dps_cli_selection sel;
	struct dps_export_input *in = NULL;
	struct dps_diag diag = {{0}};
	enum dps_export_format format = DPS_EXPORT_PERFETTO;
	struct option *longopts;
	char *shortopts;
	const char *output = NULL;
	int opt, st, ret = DPS_EXIT_OK;

	analyzer_options_default(&opts);
	opts.build_actset = false;
	dps_cli_selection_init(&sel, EXPORT_SEL, &opts, NULL);
	longopts = dps_cli_selection_longopts(EXPORT_SEL, own, "o:h", &shortopts);
	optind = 1;
	while (!ret && (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = dps_cli_selection_parse(&sel, "export", opt, optarg);
		if (ret >= 0) {
			continue;
		}
		ret = DPS_EXIT_OK;
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case OPT_FORMAT:
			if (!dps_export_format_parse(optarg, &format)) {
				fprintf(stderr,
					"dps export: --format: expected perfetto, got '%s'\n",
					optarg);
				ret = DPS_EXIT_USAGE;
			}
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
	if (ret) {
		return ret < 0 ? DPS_EXIT_OK : ret;
	}
	if (argc - optind != 1) {
		fprintf(stderr,
			"dps export: expected one INPUT (a trace, an action set or a dps replay "
			"output directory), got %d\n",
			argc - optind);
		usage(stderr);
		return DPS_EXIT_USAGE;
	}
	if (!output) {
		fprintf(stderr, "dps export: expected -o FILE (the file to write; '-': standard "
				"output)\n");
		return DPS_EXIT_USAGE;
	}
	opts.progress = sel.progress && dps_cli_stderr_is_tty();
	opts.keep_tracer_threads = sel.keep_tracer_threads;
	/* strict is applied here, run by run, so that the message names the run */
	st = dps_export_load(argv[optind], &opts, &in, &diag);
	if (st) {
		fprintf(stderr, "dps export: %s: %s\n", argv[optind], diag.msg);
		/* a trace babeltrace2 refuses is bad input, as for dps compare */
		return st == DPS_ERROR ? DPS_EXIT_USAGE : dps_cli_exit_code(st);
	}
	ret = check_partial(in, sel.strict);
	if (!ret) {
		ret = write_output(in, format, output);
	}
	if (!ret && strcmp(output, "-")) {
		fprintf(stderr,
			"dps export: %zu run%s written to %s (open it in ui.perfetto.dev)\n",
			in->n_runs, in->n_runs == 1 ? "" : "s", output);
	}
	dps_export_input_destroy(in);
	return ret;
}
