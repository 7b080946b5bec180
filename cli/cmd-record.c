/* SPDX-License-Identifier: MIT */
/* dps record: options in, the record library (record/record.h, doc/record.md) does the rest. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyzer.h"
#include "cli.h"
#include "record.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: dps record [-o TRACE] [--kernel|--no-kernel] [--ust|--no-ust] [--memory]\n"
		"                  [--sync] -- CMD ARGS...\n\n"
		"Runs CMD traced for dps analyze: LTTng UST (dps:*, dps_stack:*, heap events with\n"
		"--memory, contexts vtid/vpid/procname) and kernel scheduling (the LTTng kernel\n"
		"tracer when available, else perf sched record converted to CTF), all in TRACE.\n\n"
		"  -o, --output DIR   trace directory to create (default dps-trace-DATE-TIME)\n"
		"      --kernel       require kernel scheduling events (fail without them)\n"
		"      --no-kernel    no kernel events\n"
		"      --ust          require UST (default: on)\n"
		"      --no-ust       no UST session\n"
		"      --memory       preload the LTTng libc wrapper (heap events)\n"
		"      --sync         preload the LTTng pthread wrapper and dps's synchronization\n"
		"                     probe (mutexes, condition variables, barriers, semaphores,\n"
		"                     rwlocks, pipes, OpenMP; with the dps/annotate.h events,\n"
		"                     synchronization objects)\n"
		"  -q, --quiet        no progress messages\n"
		"  -h, --help\n");
}

int dps_cmd_record(int argc, char **argv)
{
	enum { OPT_KERNEL = 256, OPT_NO_KERNEL, OPT_UST, OPT_NO_UST, OPT_MEMORY, OPT_SYNC };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"kernel", no_argument, NULL, OPT_KERNEL},
	    {"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
	    {"ust", no_argument, NULL, OPT_UST},
	    {"no-ust", no_argument, NULL, OPT_NO_UST},
	    /* no -m, -s: elsewhere they are --min-block and --size */
	    {"memory", no_argument, NULL, OPT_MEMORY},
	    {"sync", no_argument, NULL, OPT_SYNC},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct dps_record_options o;
	struct dps_record_result res;
	struct dps_diag diag = {{0}}, clocks = {{0}};
	enum dps_status status;
	int opt;

	dps_record_options_default(&o);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o.out = optarg;
			break;
		case OPT_KERNEL:
			o.kernel = DPS_RECORD_KERNEL_ON;
			break;
		case OPT_NO_KERNEL:
			o.kernel = DPS_RECORD_KERNEL_OFF;
			break;
		case OPT_UST:
			o.ust = true;
			break;
		case OPT_NO_UST:
			o.ust = false;
			break;
		case OPT_MEMORY:
			o.memory = true;
			break;
		case OPT_SYNC:
			o.sync = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return DPS_EXIT_OK;
		default:
			usage(stderr);
			return DPS_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dps record: expected a command to run after --\n");
		usage(stderr);
		return DPS_EXIT_USAGE;
	}
	o.cmd = &argv[optind];
	status = analyzer_record(&o, &res, &diag, &clocks);
	if (status) {
		fprintf(stderr, "dps record: %s\n",
			diag.msg[0] ? diag.msg : dps_status_string(status));
		return dps_cli_exit_code(status);
	}
	if (clocks.msg[0]) {
		/* dps reads the parts apart: only babeltrace2 on the whole directory is affected */
		fprintf(stderr,
			"dps record: warning: the kernel and UST parts keep separate clocks "
			"(babeltrace2 reads them one directory at a time): %s\n",
			clocks.msg);
	}
	if (!o.quiet) {
		fprintf(stderr, "dps record: done: pid %lld; next: dps analyze %s -o ACTIONS\n",
			(long long)res.pid, res.trace);
	}
	dps_record_result_fini(&res);
	return DPS_EXIT_OK;
}
