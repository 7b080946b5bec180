/* SPDX-License-Identifier: MIT */
/* The dps command: a table of subcommands, each a thin main over a library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "actset.h"
#include "cli.h"
#include "contain.h"

struct dps_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct dps_command commands[] = {
#define DPS_COMMAND(name, fn, summary) {#name, fn, summary},
#include "commands.def"
#undef DPS_COMMAND
    {NULL, NULL, NULL},
};

bool dps_cli_stderr_is_tty(void)
{
	return isatty(STDERR_FILENO);
}

int dps_cli_exit_code(int status)
{
	switch (status) {
	case DPS_OK:
		return DPS_EXIT_OK;
	case DPS_ERR_INVAL:
	case DPS_ERR_NOENT:
	case DPS_ERR_RANGE:
		return DPS_EXIT_USAGE;
	default:
		return DPS_EXIT_FAILURE;
	}
}

int dps_cli_load_set(const char *cmd, const char *dir, struct dps_actset **set)
{
	struct dps_diag diag = {{0}};
	int status = dps_actset_load_dir(dir, set, &diag);

	if (status == DPS_OK) {
		return DPS_EXIT_OK;
	}
	/* Like a compiler: the location first ("file:line:col: ..."), so editors can jump to it;
	 * the message always names the file or directory. */
	if (diag.msg[0]) {
		fprintf(stderr, "%s\n", diag.msg);
	} else {
		fprintf(stderr, "%s: %s: cannot load the action set\n", cmd, dir);
	}
	/* A missing directory or a bad set is bad input; I/O trouble is a failure. */
	return dps_cli_exit_code(status);
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: dps COMMAND [OPTIONS...]\n\n"
		"Record a multithreaded program, turn each thread into an editable action file,\n"
		"replay it as a generated pthread program and compare the two runs.\n\n"
		"Commands:\n");
	for (size_t i = 0; commands[i].name; i++) {
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	}
	fprintf(out,
		"\nOptions:\n"
		"  -h, --help   this help\n"
		"  --version    the version of dps\n"
		"\nRun 'dps COMMAND --help' for a command's options. Exit codes: 0 ok, 1 failure,\n"
		"2 bad usage or bad input. Documentation: man dps-COMMAND, doc/ and README.md.\n");
}

/*
 * For bench/analyzer.sh: with DPS_RSS_REPORT=FILE, the peak RSS (KiB) of dps and of its
 * decoders (the analyzer decodes in child processes, side by side: the sum of their peaks; the
 * largest reaped child when the analyzer reaped none), as "self children"; a measuring tool
 * outside (/usr/bin/time) sees only the largest single process.
 */
static void report_rss(void)
{
	const char *path = getenv("DPS_RSS_REPORT");
	struct rusage self, children;
	FILE *f;

	if (!path || getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &children)) {
		return;
	}
	f = fopen(path, "w");
	if (f) {
		long decoders = analyzer_contained_reaped_rss_kib();

		fprintf(f, "%ld %ld\n", self.ru_maxrss, decoders ? decoders : children.ru_maxrss);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		print_usage(stderr);
		return DPS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return DPS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("dps %s\n", DPS_VERSION);
		return DPS_EXIT_OK;
	}
	for (size_t i = 0; commands[i].name; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			char prog[32];

			/* argv[0] of a subcommand is "dps NAME": getopt's messages then start
			 * like every other message of the command. */
			snprintf(prog, sizeof(prog), "dps %s", commands[i].name);
			argv[1] = prog;
			ret = commands[i].fn(argc - 1, argv + 1);
			report_rss();
			return ret;
		}
	}
	fprintf(stderr, "dps: unknown command '%s'\n", argv[1]);
	print_usage(stderr);
	return DPS_EXIT_USAGE;
}
