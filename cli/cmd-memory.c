/* SPDX-License-Identifier: MIT */
/*
 * dps memory profile|predict: heap profiles per phase and class from dps record --memory
 * recordings, and predictions for an input not run yet (doc/memory-predict.md).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mempredict.h"

static void print_usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: dps memory profile TRACE... [--size N]... -o PROFILE [--phase-func NAME]...\n"
	    "                          [--phase-at NAME=SECONDS]... [--wrapper NAME]...\n"
	    "                          [--raw-ip] [--all-processes]\n"
	    "                          [--html FILE [--basis CLASS]]\n"
	    "       dps memory predict PROFILE (--basis CLASS --count N | --size N) [--json]\n"
	    "                          [--actions DIR] [--html FILE]\n\n"
	    "profile: reads the heap events of recordings made with dps record --memory and\n"
	    "writes, per run and phase (dps_phase marks; one phase without), per class (the\n"
	    "allocation site as function and line, or a dps_mem_class name): objects allocated,\n"
	    "maximum active, active at the phase's end, bytes, average and peak live bytes,\n"
	    "object sizes. A table on standard output, the JSON profile to PROFILE.\n"
	    "  -o, --output FILE    the profile to write\n"
	    "  -s, --size N         the input size of the next TRACE, in order (default: the\n"
	    "                       dps_mem_size mark of the run)\n"
	    "      --phase-func NAME  a phase begins at every entry into function NAME (a program\n"
	    "                       built with -finstrument-functions, lttng-ust's cyg-profile)\n"
	    "      --phase-at NAME=SECONDS  a phase NAME begins SECONDS after the process's first\n"
	    "                       heap event (repeatable; every trace alike)\n"
	    "      --wrapper NAME   an allocation inside function NAME (xmalloc) is of its\n"
	    "                       caller's site (repeatable; -finstrument-functions and\n"
	    "                       liblttng-ust-cyg-profile, not -fast)\n"
	    "      --html FILE      also the profile as a page: live bytes over time by class,\n"
	    "                       and the class table, per run and phase\n"
	    "  -b, --basis CLASS    the HTML's multiplicities are per object of CLASS (default:\n"
	    "                       the class with the most objects)\n"
	    "      --raw-ip         classes by raw caller address, without resolving sites\n"
	    "      --all-processes  every process of the trace, not only the recorded command's\n"
	    "                       (record.info's pid: its children are left out without it)\n\n"
	    "predict: the peak and average heap per phase and class for N objects of the basis\n"
	    "class: fitted growth models chosen by cross-validation (three or more runs of\n"
	    "different sizes), and the paper's plain ratios beside them. With --size N instead,\n"
	    "against the runs' input sizes (profile's --size, or dps_mem_size).\n"
	    "  -b, --basis CLASS    the class whose count you can estimate\n"
	    "      --count N        how many objects of it the new input makes (> 0)\n"
	    "      --json           the prediction as JSON on standard output\n"
	    "      --actions DIR    the predicted heap curve as an action set (dps run, dps "
	    "build)\n"
	    "      --html FILE      the prediction as a page: per phase, bars by class\n"
	    "  -h, --help           this help\n\n"
	    "Exit: 0 ok, 1 failure, 2 bad usage or bad input. See doc/memory-predict.md.\n");
}

static bool parse_number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && isfinite(*v);
}

/* NAME=SECONDS into its parts (name borrowed from arg, cut at the '='). */
static bool parse_phase_at(char *arg, const char **name, uint64_t *ns)
{
	char *eq = strrchr(arg, '=');
	double s;

	if (!eq || eq == arg || !parse_number(eq + 1, &s) || s < 0 || s > 1e9) {
		return false;
	}
	*eq = '\0';
	*name = arg;
	*ns = (uint64_t)llround(s * 1e9);
	return true;
}

static bool has_class(const struct mp_profile *p, const char *name)
{
	for (size_t i = 0; i < p->n_sets; i++) {
		if (mp_dataset_find_class(&p->sets[i], name)) {
			return true;
		}
	}
	return false;
}

static int cmd_profile(int argc, char **argv)
{
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"size", required_argument, NULL, 's'},
	    {"raw-ip", no_argument, NULL, 'r'},
	    {"phase-func", required_argument, NULL, 'f'},
	    {"all-processes", no_argument, NULL, 'A'},
	    {"phase-at", required_argument, NULL, 't'},
	    {"wrapper", required_argument, NULL, 'w'},
	    {"html", required_argument, NULL, 'H'},
	    {"basis", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *funcs[64], *at_names[64], *wrappers[64], *html = NULL, *basis = NULL;
	uint64_t at_ns[64];
	struct mp_read_options ro = {0};
	struct mp_profile p = {0};
	struct dps_diag diag = {{0}};
	const char *output = NULL;
	double sizes[256];
	size_t n_sizes = 0;
	int c, ret = DPS_EXIT_OK, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:s:b:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'w':
			if (ro.n_wrappers == 64 || !*optarg) {
				fprintf(stderr,
					"dps memory profile: --wrapper %s: expected a function "
					"name (64 at most)\n",
					optarg);
				return DPS_EXIT_USAGE;
			}
			wrappers[ro.n_wrappers++] = optarg;
			ro.wrappers = wrappers;
			break;
		case 'b':
			basis = optarg;
			break;
		case 't':
			if (ro.n_phase_at == 64 || !parse_phase_at(optarg, &at_names[ro.n_phase_at],
								   &at_ns[ro.n_phase_at])) {
				fprintf(stderr,
					"dps memory profile: --phase-at %s: expected NAME=SECONDS "
					"(seconds >= 0 from the process's first heap event; 64 at "
					"most)\n",
					optarg);
				return DPS_EXIT_USAGE;
			}
			ro.n_phase_at++;
			ro.phase_at_names = at_names;
			ro.phase_at_ns = at_ns;
			break;
		case 's':
			if (n_sizes == 256 || !parse_number(optarg, &sizes[n_sizes]) ||
			    sizes[n_sizes] < 0) {
				fprintf(stderr,
					"dps memory profile: --size %s: expected a number >= 0\n",
					optarg);
				return DPS_EXIT_USAGE;
			}
			n_sizes++;
			break;
		case 'r':
			ro.raw_ip = true;
			break;
		case 'A':
			ro.all_processes = true;
			break;
		case 'f':
			if (ro.n_phase_funcs == 64 || !*optarg) {
				fprintf(stderr,
					"dps memory profile: --phase-func %s: expected a "
					"function name (64 at most)\n",
					optarg);
				return DPS_EXIT_USAGE;
			}
			funcs[ro.n_phase_funcs++] = optarg;
			ro.phase_funcs = funcs;
			break;
		case 'h':
			print_usage(stdout);
			return DPS_EXIT_OK;
		default:
			print_usage(stderr);
			return DPS_EXIT_USAGE;
		}
	}
	if (optind >= argc || !output) {
		fprintf(stderr, "dps memory profile: %s\n",
			optind >= argc ? "expected at least one TRACE" : "missing -o PROFILE");
		print_usage(stderr);
		return DPS_EXIT_USAGE;
	}
	if (basis && !html) {
		fprintf(stderr, "dps memory profile: --basis is for the --html page: give --html "
				"FILE too\n");
		return DPS_EXIT_USAGE;
	}
	if (n_sizes && n_sizes != (size_t)(argc - optind)) {
		fprintf(stderr,
			"dps memory profile: %zu --size for %d traces: give one per trace, "
			"in their order, or none\n",
			n_sizes, argc - optind);
		return DPS_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		rc = mp_read_trace(argv[i], n_sizes ? sizes[i - optind] : -1, &ro, &p, &diag);
		if (rc) {
			fprintf(stderr, "dps memory profile: %s\n", diag.msg);
			ret = dps_cli_exit_code(rc);
			goto fini_profile;
		}
	}
	mp_profile_print(&p, stdout);
	if (basis && !has_class(&p, basis)) {
		fprintf(stderr,
			"dps memory profile: --basis \"%s\": no data set has this class (the "
			"table names them)\n",
			basis);
		ret = DPS_EXIT_USAGE;
		goto fini_profile;
	}
	rc = mp_profile_save(&p, output, &diag);
	if (!rc && html) {
		rc = mp_profile_save_html(&p, basis, html, &diag);
	}
	if (rc) {
		fprintf(stderr, "dps memory profile: %s\n", diag.msg);
		ret = rc == DPS_ERR_INVAL ? DPS_EXIT_USAGE : DPS_EXIT_FAILURE;
	} else if (html) {
		printf("\nReport: %s\n", html);
	}
fini_profile:
	mp_profile_fini(&p);
	return ret;
}

static int cmd_predict(int argc, char **argv)
{
	/* 'n' (--count), 'j', 'a', 'H': codes, not short options (-n is --name in dps gen) */
	static const struct option options[] = {
	    {"basis", required_argument, NULL, 'b'},   {"count", required_argument, NULL, 'n'},
	    {"size", required_argument, NULL, 's'},    {"json", no_argument, NULL, 'j'},
	    {"actions", required_argument, NULL, 'a'}, {"html", required_argument, NULL, 'H'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	struct mp_predict_options po = {0};
	struct mp_prediction pr;
	struct mp_profile p;
	struct dps_diag diag = {{0}};
	bool json = false, have_count = false;
	const char *actions = NULL, *html = NULL;
	int c, ret = DPS_EXIT_OK, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "b:s:h", options, NULL)) != -1) {
		switch (c) {
		case 'b':
			po.basis = optarg;
			break;
		case 's':
			po.by_size = true;
			__attribute__((fallthrough)); /* the size is the count */
		case 'n':
			if (!parse_number(optarg, &po.count) || po.count <= 0) {
				fprintf(stderr,
					"dps memory predict: --count %s: expected a number of "
					"basis objects > 0\n",
					optarg);
				return DPS_EXIT_USAGE;
			}
			have_count = true;
			break;
		case 'j':
			json = true;
			break;
		case 'a':
			actions = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return DPS_EXIT_OK;
		default:
			print_usage(stderr);
			return DPS_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc || (!po.basis && !po.by_size) || !have_count ||
	    (po.basis && po.by_size)) {
		const char *why = "missing --count N";

		if (optind + 1 != argc) {
			why = "expected exactly one PROFILE";
		} else if (po.basis && po.by_size) {
			why = "--basis and --size exclude each other";
		} else if (!po.basis && !po.by_size) {
			why = "missing --basis CLASS (or --size N)";
		}
		fprintf(stderr, "dps memory predict: %s\n", why);
		print_usage(stderr);
		return DPS_EXIT_USAGE;
	}
	rc = mp_profile_load(argv[optind], &p, &diag);
	if (rc) {
		fprintf(stderr, "dps memory predict: %s\n", diag.msg);
		return dps_cli_exit_code(rc);
	}
	po.source = argv[optind];
	rc = mp_predict(&p, &po, &pr, &diag);
	if (rc) {
		fprintf(stderr, "dps memory predict: %s\n", diag.msg);
		ret = dps_cli_exit_code(rc);
		goto fini_profile;
	}
	if (actions) {
		rc = mp_prediction_write_actions(&pr, actions, &diag);
		if (rc) {
			fprintf(stderr, "dps memory predict: %s\n", diag.msg);
			ret = dps_cli_exit_code(rc);
			goto fini_prediction;
		}
	}
	if (html) {
		rc = mp_prediction_add_curve(&pr, &p, &po, &diag);
		rc = rc ? rc : mp_prediction_save_html(&pr, html, &diag);
		if (rc) {
			fprintf(stderr, "dps memory predict: %s\n", diag.msg);
			ret = dps_cli_exit_code(rc);
			goto fini_prediction;
		}
	}
	if (json) {
		rc = mp_prediction_write_json(&pr, stdout);
	} else {
		mp_prediction_print(&pr, stdout);
	}
	if (!rc && html && !json) {
		printf("\nReport: %s\n", html);
	}
	if (rc || fflush(stdout)) {
		fprintf(stderr, "dps memory predict: cannot write to standard output\n");
		ret = DPS_EXIT_FAILURE;
	}
fini_prediction:
	mp_prediction_fini(&pr);
fini_profile:
	mp_profile_fini(&p);
	return ret;
}

int dps_cmd_memory(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "profile")) {
		return cmd_profile(argc - 1, argv + 1);
	}
	if (argc >= 2 && !strcmp(argv[1], "predict")) {
		return cmd_predict(argc - 1, argv + 1);
	}
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_usage(stdout);
		return DPS_EXIT_OK;
	}
	fprintf(stderr, "dps memory: %s\n",
		argc < 2 ? "expected profile or predict"
			 : "unknown verb: expected profile or predict");
	print_usage(stderr);
	return DPS_EXIT_USAGE;
}
