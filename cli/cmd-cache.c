/* SPDX-License-Identifier: MIT */
/*
 * dps cache capture: a command's data-cache figures per function from Valgrind's cache
 * simulator, simulating this machine's geometry (cache/, doc/cache.md): a table on standard
 * output and, with -o, the result file (`dps-cache 1`).
 *
 * dps cache apply: a capture's figures (a function's, or the whole program's) put on an action
 * set's runs, the threads named by --thread/--thread-comm as dps whatif names them, and the set
 * written whole to -o (cache/apply.c): the route from a recording and a capture to a set whose
 * runs carry cache figures.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include <dps/dps-status.h>

#include "actset.h"
#include "atomic-out.h"
#include "cache.h"
#include "cli.h"
#include "diag.h"
#include "subprocess.h"

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: dps cache capture [-o FILE] [--function NAME]... [--footprint] -- COMMAND\n"
		"                         [ARG...]\n"
		"       dps cache apply SET CAPTURE -o DIR [--thread ID | --thread-comm NAME]...\n"
		"                       [--function NAME]... [--allow-over] [--force]\n\n"
		"capture: runs COMMAND under Valgrind's cache simulator (cachegrind,\n"
		"--cache-sim=yes) with this machine's D1 and last-level geometry (sysfs, else\n"
		"sysconf) and prints, per function and for the whole program, the instructions,\n"
		"loads, stores, D1 misses and last-level misses, with the simulated geometry.\n"
		"  -o, --output FILE    also write the result file (dps-cache 1, or 2 with a\n"
		"                       footprint; doc/cache.md)\n"
		"      --function NAME  a row for function NAME (repeatable; default: the 15\n"
		"                       functions with the most data accesses), and in FILE\n"
		"                       only these (default: every function with data accesses)\n"
		"      --footprint      also each function's footprint: COMMAND run again under\n"
		"                       cachegrind at LL sizes from above L1D to 16 times the\n"
		"                       last level, the knee of its LL miss curve (dps-cache 2)\n"
		"  -h, --help           this help\n\n"
		"apply: puts a capture's figures (CAPTURE: a result file of capture -o, or\n"
		"cachegrind's own output file) on the runs of the action set SET, in proportion\n"
		"to each run's CPU time, totals exact (format version 4 where figures are put),\n"
		"and writes the set whole to DIR (DIR may be SET).\n"
		"  -o, --output DIR     the set to write (required)\n"
		"      --thread ID      the thread with this action-set id (<ID>.act; repeatable;\n"
		"                       several threads share the figures)\n"
		"      --thread-comm NAME  every thread with this recorded name (repeatable)\n"
		"                       (no thread named: every thread of the set)\n"
		"      --function NAME  this function's figures (repeatable: summed; default: the\n"
		"                       whole program's); cachegrind merges threads: a function\n"
		"                       run by several threads has their sum\n"
		"      --allow-over     write runs too short for their accesses (at 13\n"
		"                       instructions an access) all the same\n"
		"      --force          replace DIR whole even if it is not an action set\n\n"
		"Exit: 0 ok, 1 failure (the command failed, or valgrind is missing), 2 bad usage\n"
		"or bad input (a thread, a function or a line of a file not as expected). See\n"
		"doc/cache.md.\n");
}

/* Prints the geometry the capture asks for and where it came from, on stderr. */
static void say_geometry(const struct cache_geometry *g)
{
	char d1[64], ll[64];

	cache_level_format(&g->d1, d1, sizeof(d1));
	cache_level_format(&g->ll, ll, sizeof(ll));
	fprintf(stderr, "dps cache: geometry from %s: D1 %s, LL %s%s%s\n", g->source, d1, ll,
		g->note[0] ? "; " : "", g->note);
}

/* A footprint run's progress on stderr: the command runs again under cachegrind per size. */
static void say_curve_run(size_t i, size_t n, uint64_t ll_bytes, void *data)
{
	char s[32];

	(void)data;
	cache_size_format(ll_bytes, s, sizeof(s));
	fprintf(stderr, "dps cache: footprint: LL %s (%zu of %zu)\n", s, i + 1, n);
}

/* The capture, the table and the result file. Returns an exit code. */
static int capture(char *const *cmd, const char *output, GPtrArray *names, bool footprint)
{
	struct cache_geometry geom;
	struct cache_capture_options opts = {.argv = cmd, .geom = &geom};
	struct cache_profile *p = NULL;
	struct dps_out_file of = {0};
	struct dps_diag diag = {{0}};
	int ret, status;

	/* refused before the run, not after minutes of simulation */
	if (!dps_subprocess_runnable(cmd[0], &diag)) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		return DPS_EXIT_USAGE;
	}
	if (output && (ret = dps_out_file_open(&of, output, &diag))) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		return DPS_EXIT_FAILURE;
	}
	cache_geometry_detect(&geom);
	say_geometry(&geom);
	ret = cache_capture_run(&opts, &p, &status, &diag);
	if (ret) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		ret = dps_cli_exit_code(ret);
		goto abort_output;
	}
	if (status) {
		fprintf(stderr, "dps cache: %s exited with status %d; nothing written\n", cmd[0],
			status);
		ret = DPS_EXIT_FAILURE;
		goto abort_output;
	}
	if (footprint && (ret = cache_footprint_capture(&opts, p, say_curve_run, NULL, &diag))) {
		fprintf(stderr, "dps cache: %s; nothing written\n", diag.msg);
		ret = dps_cli_exit_code(ret);
		goto abort_output;
	}
	ret = cache_table_print(stdout, p, (const char *const *)names->pdata, names->len, &diag);
	if (ret) {
		fprintf(stderr, "dps cache: %s\n", diag.msg);
		ret = DPS_EXIT_FAILURE;
		goto abort_output;
	}
	if (output) {
		ret = cache_result_write(of.f, p, &geom, (const char *const *)names->pdata,
					 names->len);
		ret = ret ? ret : dps_out_file_commit(&of, &diag);
		if (ret) {
			fprintf(stderr, "dps cache: %s\n", diag.msg[0] ? diag.msg : output);
			ret = DPS_EXIT_FAILURE;
			goto abort_output;
		}
		fprintf(stderr, "dps cache: wrote %s\n", output);
	}
	ret = DPS_EXIT_OK;
abort_output:
	dps_out_file_abort(&of);
	cache_profile_destroy(p);
	return ret;
}

/* The summary of an apply: where the figures came from, what they are, where they went. */
static void say_applied(const struct dps_actset *set, const struct cache_profile *p,
			const char *capture, const struct cache_apply_options *o,
			const struct cache_apply_report *rep)
{
	const struct cache_counts *c = &rep->figures;
	char what[256];

	cache_profile_describe(p, what, sizeof(what));
	printf("source: %s (geometry from %s)\n", what,
	       p->geometry_source ? p->geometry_source : "cachegrind's file");
	printf("capture: %s\n", capture);
	if (o->n_functions) {
		printf("figures: function%s", o->n_functions > 1 ? "s" : "");
		for (size_t i = 0; i < o->n_functions; i++) {
			printf("%s%s", i ? " + " : " ", o->functions[i]);
		}
		printf(" (cachegrind merges threads: the sum over every thread that ran %s)\n",
		       o->n_functions > 1 ? "them" : "it");
	} else {
		printf("figures: the whole program (every thread's accesses)\n");
	}
	printf("         %" PRIu64 " accesses, %" PRIu64 " stores, %" PRIu64 " D1 misses, %" PRIu64
	       " LL misses\n",
	       c->loads + c->stores, c->stores, c->d1_misses, c->ll_misses);
	if (rep->footprint.kind != CACHE_FOOTPRINT_NONE) {
		char foot[48];

		cache_footprint_format(&rep->footprint, foot, sizeof(foot));
		printf(
		    "footprint: %s (the knee of the LL miss curve; the stub's warm region is sized "
		    "from it)\n",
		    foot);
	} else {
		printf("footprint: none in the capture (capture --footprint gives it; the stub's "
		       "warm region is sized from the geometry)\n");
	}
	printf("put on: %s", rep->all_threads ? "every thread:" : "thread");
	for (guint i = 0; i < rep->threads->len; i++) {
		const struct dps_actset_thread *th =
		    &set->threads[g_array_index(rep->threads, size_t, i)];

		printf("%s %" PRIu64 " (%s)", i ? "," : "", th->id, th->comm ? th->comm : "?");
	}
	printf("\n        %zu of their %zu runs, %.3f ms of CPU of the set's %.3f ms, in "
	       "proportion to each run's CPU time%s\n",
	       rep->runs_with, rep->runs, (double)rep->cpu_ns / 1e6, (double)rep->set_cpu_ns / 1e6,
	       rep->replaced ? "; figures of before replaced" : "");
	if (rep->instructions_per_ns > 0) {
		printf("pace: %.3f instructions a ns (the capture's %" PRIu64
		       " instructions over the set's CPU time); %u run%s too short for %s "
		       "accesses at %d instructions an access\n",
		       rep->instructions_per_ns, p->total.instructions, rep->over->len,
		       rep->over->len == 1 ? "" : "s", rep->over->len == 1 ? "its" : "their",
		       CACHE_APPLY_STUB_INSTRUCTIONS);
	}
	if (!rep->all_threads && !o->n_functions && set->n_threads > rep->threads->len) {
		printf("note: the whole program's figures include the threads not named\n");
	}
}

/* The runs over their time --allow-over names one by one; the summary counts them all. */
#define APPLY_WARNINGS_MAX 3

/* dps cache apply SET CAPTURE -o DIR ...: the figures on the set's runs, the set written. */
static int apply(const char *set_dir, const char *capture, const char *output, unsigned flags,
		 const struct cache_apply_options *o)
{
	struct cache_apply_report rep = {0};
	struct dps_actset *set = NULL;
	struct cache_profile *p = NULL;
	struct dps_diag diag = {{0}};
	int ret;

	/* refused before anything is read: an output that may not be replaced */
	if ((ret = dps_actset_check_out_dir(output, flags, &diag))) {
		fprintf(stderr, "dps cache apply: %s\n", diag.msg);
		return dps_cli_exit_code(ret);
	}
	if ((ret = dps_cli_load_set("dps cache apply", set_dir, &set))) {
		return ret;
	}
	if ((ret = cache_capture_read(capture, &p, &diag)) ||
	    (ret = cache_apply(set, p, o, &rep, &diag))) {
		fprintf(stderr, "dps cache apply: %s\n", diag.msg);
		ret = dps_cli_exit_code(ret);
		goto free_all;
	}
	/* the first few, then how many more: a thread's runs are all as dense, and a set of a
	 * thousand runs over had a thousand lines */
	for (guint i = 0; i < rep.over->len && i < APPLY_WARNINGS_MAX; i++) {
		const struct cache_apply_over *ov =
		    &g_array_index(rep.over, struct cache_apply_over, i);
		const struct dps_actset_thread *th = &set->threads[ov->thread];
		char run[32], need[32];

		fprintf(stderr,
			"dps cache apply: warning: %s:%u: a run of %s us with %" PRIu64
			" accesses that need %s us: played longer than recorded\n",
			th->path ? th->path : "?", ov->line,
			dps_actset_format_us(ov->run_ns, run, sizeof(run)), ov->accesses,
			dps_actset_format_us(ov->need_ns, need, sizeof(need)));
	}
	if (rep.over->len > APPLY_WARNINGS_MAX) {
		fprintf(stderr, "dps cache apply: warning: and %u more runs so\n",
			rep.over->len - APPLY_WARNINGS_MAX);
	}
	if ((ret = dps_actset_write_dir(set, output, flags, &diag))) {
		fprintf(stderr, "dps cache apply: %s\n", diag.msg);
		ret = dps_cli_exit_code(ret);
		goto free_all;
	}
	say_applied(set, p, capture, o, &rep);
	fprintf(stderr, "dps cache apply: wrote %s\n", output);
	ret = DPS_EXIT_OK;
free_all:
	cache_apply_report_fini(&rep);
	cache_profile_destroy(p);
	dps_actset_destroy(set);
	return ret;
}

/* getopt_long's values of apply's long-only options */
enum { OPT_FUNCTION = 0x100, OPT_THREAD, OPT_THREAD_COMM, OPT_ALLOW_OVER, OPT_FORCE };

/* dps cache apply's options and arguments (argv[0] is "apply"). */
static int cmd_apply(int argc, char **argv)
{
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"thread", required_argument, NULL, OPT_THREAD},
	    {"thread-comm", required_argument, NULL, OPT_THREAD_COMM},
	    {"function", required_argument, NULL, OPT_FUNCTION},
	    {"allow-over", no_argument, NULL, OPT_ALLOW_OVER},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	GPtrArray *comms = g_ptr_array_new(), *functions = g_ptr_array_new();
	struct cache_apply_options o = {0};
	const char *output = NULL;
	unsigned flags = 0;
	int c, ret = DPS_EXIT_OK;
	int64_t id;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_THREAD:
			if (!dps_cli_parse_id(optarg, &id)) {
				fprintf(
				    stderr,
				    "dps cache apply: --thread expects a thread's id in the set "
				    "(a non-negative integer), got '%s'\n",
				    optarg);
				ret = DPS_EXIT_USAGE;
				goto end;
			}
			g_array_append_val(ids, id);
			break;
		case OPT_THREAD_COMM:
			g_ptr_array_add(comms, optarg);
			break;
		case OPT_FUNCTION:
			g_ptr_array_add(functions, optarg);
			break;
		case OPT_ALLOW_OVER:
			o.allow_over = true;
			break;
		case OPT_FORCE:
			flags |= DPS_OUT_FORCE;
			break;
		case 'h':
			print_usage(stdout);
			goto end;
		default:
			fprintf(stderr, "dps cache: see dps cache --help\n");
			ret = DPS_EXIT_USAGE;
			goto end;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr,
			"dps cache apply: expected SET CAPTURE (an action-set directory and "
			"a capture file), got %d argument%s\n",
			argc - optind, argc - optind == 1 ? "" : "s");
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	if (!output) {
		fprintf(stderr, "dps cache apply: expected -o DIR, the set to write (it may be "
				"SET)\n");
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	o.capture = argv[optind + 1];
	o.ids = (const uint64_t *)(void *)ids->data;
	o.n_ids = ids->len;
	o.comms = (const char *const *)comms->pdata;
	o.n_comms = comms->len;
	o.functions = (const char *const *)functions->pdata;
	o.n_functions = functions->len;
	ret = apply(argv[optind], argv[optind + 1], output, flags, &o);
end:
	g_array_free(ids, TRUE);
	g_ptr_array_free(comms, TRUE);
	g_ptr_array_free(functions, TRUE);
	return ret;
}

int dps_cmd_cache(int argc, char **argv)
{
	/* 'f': a code, not -f (--follow-children in every command that selects a process) */
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"function", required_argument, NULL, 'f'},
	    {"footprint", no_argument, NULL, 'F'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	GPtrArray *names = g_ptr_array_new();
	const char *output = NULL;
	bool footprint = false;
	int c, ret = DPS_EXIT_OK;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(argc < 2 ? stderr : stdout);
		ret = argc < 2 ? DPS_EXIT_USAGE : DPS_EXIT_OK;
		goto end;
	}
	if (!strcmp(argv[1], "apply")) {
		ret = cmd_apply(argc - 1, argv + 1);
		goto end;
	}
	if (strcmp(argv[1], "capture")) {
		fprintf(stderr, "dps cache: unknown verb '%s' (expected capture or apply)\n",
			argv[1]);
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	argc--;
	argv++;
	optind = 1;
	/* '+': the options end at the command, whose own options are its own */
	while ((c = getopt_long(argc, argv, "+o:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			g_ptr_array_add(names, optarg);
			break;
		case 'F':
			footprint = true;
			break;
		case 'h':
			print_usage(stdout);
			goto end;
		default:
			fprintf(stderr, "dps cache: see dps cache --help\n");
			ret = DPS_EXIT_USAGE;
			goto end;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dps cache capture: expected -- COMMAND [ARG...]\n");
		ret = DPS_EXIT_USAGE;
		goto end;
	}
	ret = capture(argv + optind, output, names, footprint);
end:
	g_ptr_array_free(names, TRUE);
	return ret;
}
