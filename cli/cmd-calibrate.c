/* SPDX-License-Identifier: MIT */
/* dps calibrate: measures this machine for libdps and writes the calibration file. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <dps/dps-memory.h>
#include <dps/dps.h>

#include "cli.h"
#include "machine-load.h"

static void print_help(FILE *out)
{
	fprintf(out,
		"Usage: dps calibrate [-o FILE] [--quick] [--memory] [--action-costs]\n\n"
		"Measures this machine for libdps: busy-loop rate (repeats must agree), clock\n"
		"read costs, per-action overhead, thread create/join cost, the sleep\n"
		"overshoot per requested duration and dps's own CPU cost of each kind of\n"
		"action (wait, wake, lock, put, take, arrive, ...). Writes the calibration file\n"
		"(format in doc/runtime.md) to FILE, or to stdout without -o. Run it on an idle\n"
		"machine.\n\n"
		"Options:\n"
		"  -o, --output FILE  write the file there (replaced if it exists)\n"
		"  --quick            the quick measurement programs do at start\n"
		"  --action-costs     measure only the action costs into FILE's table (-o, an\n"
		"                     existing file): its untraced column, or its traced one\n"
		"                     when run under dps record (doc/runtime.md, \"Own costs\")\n"
		"  --memory           the main-memory stubs' calibration instead (a separate\n"
		"                     file, DPS_MEM_CALIBRATION; see doc/memory.md)\n"
		"  -h, --help         this help\n");
}

/* --memory (memory helper, doc/memory.md): the main-memory stubs' calibration functions. */
static int calibrate_memory(const char *output, bool quick)
{
	struct dps_mem_calibration cal;
	char err[512];
	int ret;

	ret = dps_mem_calibration_measure(&cal, quick);
	if (ret) {
		fprintf(stderr, "dps calibrate: memory measurement failed: %s\n",
			dps_status_string(ret));
		return DPS_EXIT_FAILURE;
	}
	if (!output) {
		ret = dps_mem_calibration_write(&cal, stdout);
		return ret || fflush(stdout) ? DPS_EXIT_FAILURE : DPS_EXIT_OK;
	}
	ret = dps_mem_calibration_save(&cal, output, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dps calibrate: %s\n", err);
		return DPS_EXIT_FAILURE;
	}
	fprintf(stderr,
		"dps calibrate: memory: time_basic %.1f ns, stack frame %lld bytes, "
		"wrote %s\n",
		cal.time_basic_ns, (long long)cal.stack_overhead_bytes, output);
	return DPS_EXIT_OK;
}

/* Whether output (NULL: stdout) can be written where it is asked: its directory exists and is
 * writable. Checked before measuring, which takes seconds; says why not. */
static bool output_writable(const char *output)
{
	char *dir;
	bool ok = true;

	if (!output) {
		return true;
	}
	dir = g_path_get_dirname(output);
	if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		fprintf(stderr, "dps calibrate: cannot write %s: %s is not a directory\n", output,
			dir);
		ok = false;
	} else if (access(dir, W_OK) != 0) {
		fprintf(stderr, "dps calibrate: cannot write %s: %s: %s\n", output, dir,
			strerror(errno));
		ok = false;
	}
	g_free(dir);
	return ok;
}

/* Writes the CPU calibration to output (stdout when NULL). Returns an exit code. */
static int write_calibration(const struct dps_calibration *cal, const char *output)
{
	char err[512];
	int ret;

	if (!output) {
		ret = dps_calibration_write(cal, stdout);
		return ret || fflush(stdout) ? DPS_EXIT_FAILURE : DPS_EXIT_OK;
	}
	ret = dps_calibration_save(cal, output, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dps calibrate: %s\n", err);
	} else {
		fprintf(stderr, "dps calibrate: %.3f loops/us (spread %.2f %%), wrote %s\n",
			cal->work_loops_per_us, cal->work_spread_pct, output);
	}
	return ret ? DPS_EXIT_FAILURE : DPS_EXIT_OK;
}

/* One line of the action costs measured: a column, in us. */
static void print_costs(const double *ns, const char *which)
{
	bool any = false;

	for (unsigned k = 0; k < DPS_COST_N; k++) {
		if (ns[k] > 0) {
			fprintf(stderr, "%s %s %.1f",
				any ? "," : "dps calibrate:", dps_action_cost_name(k),
				ns[k] / 1000.0);
			any = true;
		}
	}
	if (any) {
		fprintf(stderr, " us of CPU per action (%s)\n", which);
	}
}

/* --action-costs: measures the action costs into output's table (an existing file, its
 * other keys kept). Returns an exit code. */
static int calibrate_action_costs(const char *output)
{
	struct dps_calibration cal;
	char err[512];
	int ret;

	if (!output) {
		fprintf(stderr, "dps calibrate: --action-costs needs -o FILE, a calibration file "
				"to add the costs to\n");
		return DPS_EXIT_USAGE;
	}
	ret = dps_calibration_load(output, &cal, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dps calibrate: %s\n", err);
		return ret == DPS_ERR_INVAL ? DPS_EXIT_USAGE : DPS_EXIT_FAILURE;
	}
	ret = dps_calibration_measure_action_costs(&cal);
	if (ret) {
		fprintf(stderr, "dps calibrate: action-cost measurement failed: %s\n",
			dps_status_string(ret));
		return DPS_EXIT_FAILURE;
	}
	ret = dps_calibration_save(&cal, output, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dps calibrate: %s\n", err);
		return DPS_EXIT_FAILURE;
	}
	print_costs(cal.action_cost_ns, "untraced");
	print_costs(cal.action_cost_traced_ns, "traced: the dps events recorded");
	fprintf(stderr, "dps calibrate: wrote %s\n", output);
	return DPS_EXIT_OK;
}

int dps_cmd_calibrate(int argc, char **argv)
{
	enum { OPT_QUICK = 256, OPT_MEMORY, OPT_ACTION_COSTS };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"quick", no_argument, NULL, OPT_QUICK},
	    {"memory", no_argument, NULL, OPT_MEMORY},
	    {"action-costs", no_argument, NULL, OPT_ACTION_COSTS},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct dps_calibration cal;
	const char *output = NULL;
	bool quick = false;
	bool memory = false;
	bool costs = false;
	bool help = false;
	int c, ret = DPS_EXIT_OK;

	optind = 1;
	opterr = 0; /* the message below names the argument */
	while (!help && ret == DPS_EXIT_OK &&
	       (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_QUICK:
			quick = true;
			break;
		case OPT_MEMORY:
			memory = true;
			break;
		case OPT_ACTION_COSTS:
			costs = true;
			break;
		case 'h':
			help = true;
			break;
		default:
			fprintf(stderr, "dps calibrate: unexpected argument '%s'\n",
				argv[optind - 1]);
			print_help(stderr);
			ret = DPS_EXIT_USAGE;
			break;
		}
	}
	if (!help && ret == DPS_EXIT_OK && optind < argc) {
		fprintf(stderr, "dps calibrate: unexpected argument '%s'\n", argv[optind]);
		print_help(stderr);
		ret = DPS_EXIT_USAGE;
	}
	if (help) {
		print_help(stdout);
	} else if (ret == DPS_EXIT_OK && !costs && !output_writable(output)) {
		ret = DPS_EXIT_FAILURE;
	} else if (ret == DPS_EXIT_OK && memory) {
		ret = calibrate_memory(output, quick);
	} else if (ret == DPS_EXIT_OK && costs) {
		ret = calibrate_action_costs(output);
	} else if (ret == DPS_EXIT_OK) {
		struct dps_load_sample before = dps_load_sample_take(), after;
		uint64_t cpu0 = dps_load_self_cpu_ns();
		struct dps_load load;

		ret = dps_calibration_measure(&cal, quick);
		after = dps_load_sample_take();
		load = dps_load_between(&before, &after, dps_load_self_cpu_ns() - cpu0);
		if (ret) {
			fprintf(stderr, "dps calibrate: measurement failed: %s\n",
				dps_status_string(ret));
			ret = DPS_EXIT_FAILURE;
		} else {
			ret = write_calibration(&cal, output);
			if (ret == DPS_EXIT_OK && output) {
				print_costs(cal.action_cost_ns, "untraced");
				print_costs(cal.action_cost_traced_ns,
					    "traced: the dps events recorded");
			}
			dps_load_warn_calibration(stderr, "dps calibrate", cal.work_spread_pct,
						  &load);
		}
	}
	return ret;
}
