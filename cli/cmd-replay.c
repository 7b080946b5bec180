/* SPDX-License-Identifier: MIT */
/*
 * dps replay: the main job in one command — analyze the recorded trace, generate and build the
 * stub, run it while recording it the way the original was recorded, compare the two runs and
 * write the report. Each step is the same code as its own subcommand, called in-process, so
 * replay can never drift from what `dps analyze`, `dps build`, `dps record` and `dps compare`
 * do on their own; every intermediate file is kept in the output directory for inspection.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "actset.h"
#include "analyzer.h"
#include "cli.h"
#include "record.h"

#define REPLAY_MAX_ARGS 64
#define REPLAY_STUB_NAME "dps-stub"

struct replay_args {
	const char *trace;
	const char *set;		/* existing (edited) set instead of analyzing */
	const char *outdir;
	const char *sel_opt;		/* "--pid", "--tid" or "--comm" */
	const char *sel_val;
	bool follow_children;
	const char *min_block;
	const char *calibration;
	const char *mode;
	const char *record_domain;	/* NULL, "--kernel" or "--no-kernel" */
	const char *stub_opts[REPLAY_MAX_ARGS];	/* what-if knobs passed to the stub */
	int n_stub_opts;
	bool quiet;
};

/* An argv under construction; strings are borrowed or owned by `owned`. */
struct argv_buf {
	char *argv[REPLAY_MAX_ARGS + 1];
	int argc;
};

static void argv_push(struct argv_buf *a, const char *s)
{
	if (a->argc < REPLAY_MAX_ARGS) {
		a->argv[a->argc++] = (char *)s;
		a->argv[a->argc] = NULL;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: dps replay TRACE [--pid P | --tid T | --comm NAME] [OPTIONS]\n"
		"\n"
		"A trace made by dps record needs no selection: its record.info names the pid.\n"
		"\n"
		"The main job end to end: analyze TRACE, generate and build the stub, run it\n"
		"while recording it the way TRACE was recorded (dps record), compare the two\n"
		"runs and write a self-contained HTML report. Everything lands in OUTDIR:\n"
		"set/ (the action set), stub.c and stub, calibration, sim-trace/,\n"
		"compare.txt, compare.json and report.html.\n"
		"\n"
		"Selection (as in dps analyze):\n"
		"  -p, --pid P, -t, --tid T, -c, --comm NAME\n"
		"  -f, --follow-children   replay fork+exec children as threads\n"
		"  -m, --min-block D       fold blocks shorter than D into run\n"
		"What-if:\n"
		"      --set DIR           replay this (edited) action set instead of analyzing\n"
		"      --scale X           every run lasts X times as long\n"
		"      --sleep-scale X     every sleep lasts X times as long\n"
		"      --thread-scale ID=X, --thread-sleep-scale ID=X   one thread only\n"
		"Run:\n"
		"      --mode work|cpu|wall   how run actions spend time (default: the stub's)\n"
		"      --calibration FILE  use this calibration (default: measure one into OUTDIR)\n"
		"      --kernel, --no-kernel  force or skip kernel scheduling capture\n"
		"Output:\n"
		"  -o, --output OUTDIR     default: ./dps-replay-<trace name>\n"
		"  -q, --quiet             less output\n"
		"  -h, --help\n"
		"\n"
		"Exit: 0 ok, 1 a step failed (its message says which), 2 bad usage or input.\n");
}

static int parse_args(int argc, char **argv, struct replay_args *ra)
{
	enum {
		OPT_SET = 256, OPT_SCALE, OPT_SLEEP_SCALE, OPT_THREAD_SCALE,
		OPT_THREAD_SLEEP_SCALE, OPT_MODE, OPT_CALIBRATION, OPT_KERNEL, OPT_NO_KERNEL,
	};
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"tid", required_argument, NULL, 't'},
		{"comm", required_argument, NULL, 'c'},
		{"follow-children", no_argument, NULL, 'f'},
		{"min-block", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"set", required_argument, NULL, OPT_SET},
		{"scale", required_argument, NULL, OPT_SCALE},
		{"sleep-scale", required_argument, NULL, OPT_SLEEP_SCALE},
		{"thread-scale", required_argument, NULL, OPT_THREAD_SCALE},
		{"thread-sleep-scale", required_argument, NULL, OPT_THREAD_SLEEP_SCALE},
		{"mode", required_argument, NULL, OPT_MODE},
		{"calibration", required_argument, NULL, OPT_CALIBRATION},
		{"kernel", no_argument, NULL, OPT_KERNEL},
		{"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
		{NULL, 0, NULL, 0},
	};
	int64_t recorded_pid;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "p:t:c:fm:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 't':
		case 'c':
			if (ra->sel_opt) {
				fprintf(stderr, "dps replay: give one of --pid, --tid, --comm\n");
				return DPS_EXIT_USAGE;
			}
			ra->sel_opt = c == 'p' ? "--pid" : c == 't' ? "--tid" : "--comm";
			ra->sel_val = optarg;
			break;
		case 'f':
			ra->follow_children = true;
			break;
		case 'm':
			ra->min_block = optarg;
			break;
		case 'o':
			ra->outdir = optarg;
			break;
		case 'q':
			ra->quiet = true;
			break;
		case 'h':
			print_usage(stdout);
			return -1;
		case OPT_SET:
			ra->set = optarg;
			break;
		case OPT_SCALE:
		case OPT_SLEEP_SCALE:
		case OPT_THREAD_SCALE:
		case OPT_THREAD_SLEEP_SCALE:
			if (ra->n_stub_opts + 2 > REPLAY_MAX_ARGS) {
				fprintf(stderr, "dps replay: too many what-if options\n");
				return DPS_EXIT_USAGE;
			}
			ra->stub_opts[ra->n_stub_opts++] = argv[optind - 2];
			ra->stub_opts[ra->n_stub_opts++] = optarg;
			break;
		case OPT_MODE:
			ra->mode = optarg;
			break;
		case OPT_CALIBRATION:
			ra->calibration = optarg;
			break;
		case OPT_KERNEL:
			ra->record_domain = "--kernel";
			break;
		case OPT_NO_KERNEL:
			ra->record_domain = "--no-kernel";
			break;
		default:
			fprintf(stderr, "Try 'dps replay --help'.\n");
			return DPS_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "dps replay: expected one TRACE directory, got %d arguments\n"
				"Try 'dps replay --help'.\n",
			argc - optind);
		return DPS_EXIT_USAGE;
	}
	ra->trace = argv[optind];
	/* A dps record trace selects its command by itself (analyze and compare read its
	 * record.info); any other trace needs a selection, checked before calibrating. */
	if (!ra->sel_opt && !ra->set && !dps_record_info_pid(ra->trace, &recorded_pid)) {
		fprintf(stderr, "dps replay: no selection: which process of the trace should be "
				"replayed? The processes found:\n");
		return 3; /* caller lists the candidates */
	}
	return DPS_EXIT_OK;
}

/*
 * Paths inside the output directory; all in one struct so their lifetime is the command's.
 */
struct replay_paths {
	char set[4096], stub[4096], stub_c[4096], calibration[4096], sim_trace[4096];
	char compare_txt[4096], compare_json[4096], report[4096];
};

static int make_paths(const char *outdir, struct replay_paths *p)
{
	int n = 0;

	n |= snprintf(p->set, sizeof(p->set), "%s/set", outdir) >= (int)sizeof(p->set);
	n |= snprintf(p->stub, sizeof(p->stub), "%s/%s", outdir, REPLAY_STUB_NAME) >=
	     (int)sizeof(p->stub);
	n |= snprintf(p->stub_c, sizeof(p->stub_c), "%s/stub.c", outdir) >=
	     (int)sizeof(p->stub_c);
	n |= snprintf(p->calibration, sizeof(p->calibration), "%s/calibration", outdir) >=
	     (int)sizeof(p->calibration);
	n |= snprintf(p->sim_trace, sizeof(p->sim_trace), "%s/sim-trace", outdir) >=
	     (int)sizeof(p->sim_trace);
	n |= snprintf(p->compare_txt, sizeof(p->compare_txt), "%s/compare.txt", outdir) >=
	     (int)sizeof(p->compare_txt);
	n |= snprintf(p->compare_json, sizeof(p->compare_json), "%s/compare.json", outdir) >=
	     (int)sizeof(p->compare_json);
	n |= snprintf(p->report, sizeof(p->report), "%s/report.html", outdir) >=
	     (int)sizeof(p->report);
	return n ? -1 : 0;
}

/*
 * Runs one subcommand in-process with stdout sent to out_path (NULL: unchanged). Returns the
 * subcommand's exit code.
 */
static int run_step(int (*fn)(int, char **), struct argv_buf *a, const char *out_path)
{
	int saved = -1, fd, ret;

	if (out_path) {
		fflush(stdout);
		fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0) {
			fprintf(stderr, "dps replay: cannot create %s: %s\n", out_path,
				strerror(errno));
			return DPS_EXIT_FAILURE;
		}
		saved = dup(STDOUT_FILENO);
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	optind = 0;
	ret = fn(a->argc, a->argv);
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return ret;
}

/* mkdir -p: the output directory and any missing parents. Returns 0 or -1 with errno. */
static int make_dirs(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0') {
			continue;
		}
		buf[i] = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST) {
			return -1;
		}
		buf[i] = path[i];
	}
	return 0;
}

static void step_banner(const struct replay_args *ra, int step, const char *what, double t0)
{
	if (!ra->quiet) {
		fprintf(stderr, "\n[%d/6] %s (%.1f s)\n", step, what, now_s() - t0);
	}
}

static void push_selection(struct argv_buf *a, const struct replay_args *ra)
{
	if (ra->sel_opt) {
		argv_push(a, ra->sel_opt);
		argv_push(a, ra->sel_val);
	}
	if (ra->follow_children) {
		argv_push(a, "--follow-children");
	}
	if (ra->min_block) {
		argv_push(a, "--min-block");
		argv_push(a, ra->min_block);
	}
}

/* The original tid of an action set's root (from its manifest), to select the original
 * process when only an edited set is given. Returns 0, or -1 with a message. */
static int find_root_tid(const char *set_dir, char *buf, size_t len)
{
	struct dps_actset *set = NULL;
	struct dps_diag diag = {{0}};
	int ret = -1;

	if (dps_actset_load_dir(set_dir, &set, &diag)) {
		fprintf(stderr, "dps replay: %s\n", diag.msg);
		return -1;
	}
	if (set->threads[set->root].tid < 0) {
		fprintf(stderr, "dps replay: %s has no manifest naming the original root's tid; "
				"select the original process with --pid, --tid or --comm\n",
			set_dir);
		goto end;
	}
	snprintf(buf, len, "%lld", (long long)set->threads[set->root].tid);
	ret = 0;
end:
	dps_actset_destroy(set);
	return ret;
}

static void list_candidates(const char *trace)
{
	struct argv_buf a = {0};

	argv_push(&a, "analyze");
	argv_push(&a, trace);
	run_step(dps_cmd_analyze, &a, NULL);
}

static int default_outdir(const char *trace, char *buf, size_t len)
{
	char *copy = strdup(trace);
	size_t l;
	int n;

	if (!copy) {
		return -1;
	}
	l = strlen(copy);
	while (l > 1 && copy[l - 1] == '/') {
		copy[--l] = '\0';
	}
	n = snprintf(buf, len, "dps-replay-%s", basename(copy));
	free(copy);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int dps_cmd_replay(int argc, char **argv)
{
	struct replay_args ra = {0};
	struct replay_paths p;
	struct argv_buf a;
	char outdir_buf[4096];
	const char *set_dir;
	char root_tid[32] = "";
	double t0 = now_s();
	int ret;

	ret = parse_args(argc, argv, &ra);
	if (ret == -1) {
		return DPS_EXIT_OK;
	}
	if (ret == 3) {
		list_candidates(ra.trace);
		return DPS_EXIT_USAGE;
	}
	if (ret) {
		return ret;
	}
	if (!ra.outdir) {
		if (default_outdir(ra.trace, outdir_buf, sizeof(outdir_buf))) {
			fprintf(stderr, "dps replay: trace path too long\n");
			return DPS_EXIT_USAGE;
		}
		ra.outdir = outdir_buf;
	}
	if (make_paths(ra.outdir, &p)) {
		fprintf(stderr, "dps replay: output directory path too long\n");
		return DPS_EXIT_USAGE;
	}
	if (make_dirs(ra.outdir)) {
		fprintf(stderr, "dps replay: cannot create %s: %s\n", ra.outdir, strerror(errno));
		return DPS_EXIT_FAILURE;
	}

	/* 1. Calibration, shared by the analysis (--min-block default) and the stub. */
	if (!ra.calibration) {
		step_banner(&ra, 1, "calibrating this machine", t0);
		a = (struct argv_buf){0};
		argv_push(&a, "calibrate");
		argv_push(&a, "-o");
		argv_push(&a, p.calibration);
		ret = run_step(dps_cmd_calibrate, &a, NULL);
		if (ret) {
			fprintf(stderr, "dps replay: calibration failed\n");
			return ret;
		}
		ra.calibration = p.calibration;
	} else {
		step_banner(&ra, 1, "using the given calibration", t0);
	}

	/* 2. Analyze (or take the user's edited set). */
	if (ra.set) {
		step_banner(&ra, 2, "using the given action set", t0);
		set_dir = ra.set;
		if (!ra.sel_opt && find_root_tid(ra.set, root_tid, sizeof(root_tid))) {
			return DPS_EXIT_USAGE;
		}
	} else {
		step_banner(&ra, 2, "analyzing the original trace", t0);
		a = (struct argv_buf){0};
		argv_push(&a, "analyze");
		argv_push(&a, ra.trace);
		push_selection(&a, &ra);
		argv_push(&a, "--calibration");
		argv_push(&a, ra.calibration);
		argv_push(&a, "-o");
		argv_push(&a, p.set);
		if (ra.quiet) {
			argv_push(&a, "--quiet");
		}
		ret = run_step(dps_cmd_analyze, &a, NULL);
		if (ret) {
			fprintf(stderr, "dps replay: analysis of %s failed\n", ra.trace);
			return ret;
		}
		set_dir = p.set;
	}

	/* 3. Generate and build the stub. */
	step_banner(&ra, 3, "generating and building the stub", t0);
	a = (struct argv_buf){0};
	argv_push(&a, "build");
	argv_push(&a, set_dir);
	argv_push(&a, "-o");
	argv_push(&a, p.stub);
	argv_push(&a, "--source");
	argv_push(&a, p.stub_c);
	ret = run_step(dps_cmd_build, &a, NULL);
	if (ret) {
		fprintf(stderr, "dps replay: building the stub from %s failed\n", set_dir);
		return ret;
	}

	/* 4. Run the stub, recorded the way the original was. */
	step_banner(&ra, 4, "running the stub under dps record", t0);
	a = (struct argv_buf){0};
	argv_push(&a, "record");
	argv_push(&a, "-o");
	argv_push(&a, p.sim_trace);
	if (ra.record_domain) {
		argv_push(&a, ra.record_domain);
	}
	argv_push(&a, "--");
	argv_push(&a, p.stub);
	argv_push(&a, "--calibration");
	argv_push(&a, ra.calibration);
	if (ra.mode) {
		argv_push(&a, "--mode");
		argv_push(&a, ra.mode);
	}
	for (int i = 0; i < ra.n_stub_opts; i++) {
		argv_push(&a, ra.stub_opts[i]);
	}
	ret = run_step(dps_cmd_record, &a, NULL);
	if (ret) {
		fprintf(stderr, "dps replay: recording the stub failed\n");
		return ret;
	}

	/* 5. Compare, once: table to compare.txt (shown below), JSON and the HTML report. The
	 * simulated trace is a dps record trace: compare finds the stub by its record.info pid,
	 * the only reliable way among everything perf recorded system-wide. */
	step_banner(&ra, 5, "comparing the original and the simulated run", t0);
	a = (struct argv_buf){0};
	argv_push(&a, "compare");
	argv_push(&a, ra.trace);
	argv_push(&a, p.sim_trace);
	if (ra.sel_opt) {
		static char orig_opt[16];

		snprintf(orig_opt, sizeof(orig_opt), "--orig-%s", ra.sel_opt + 2);
		argv_push(&a, orig_opt);
		argv_push(&a, ra.sel_val);
	} else if (root_tid[0]) {
		/* An edited set without a selection: its manifest names the original root. */
		argv_push(&a, "--orig-tid");
		argv_push(&a, root_tid);
	}
	if (ra.follow_children) {
		argv_push(&a, "--follow-children");
	}
	if (ra.min_block) {
		argv_push(&a, "--min-block");
		argv_push(&a, ra.min_block);
	}
	argv_push(&a, "--calibration");
	argv_push(&a, ra.calibration);
	argv_push(&a, "--html");
	argv_push(&a, p.report);
	argv_push(&a, "--json-file");
	argv_push(&a, p.compare_json);
	argv_push(&a, "--title");
	argv_push(&a, ra.trace);
	ret = run_step(dps_cmd_compare, &a, p.compare_txt);
	if (ret) {
		fprintf(stderr, "dps replay: comparison failed\n");
		return ret;
	}

	/* 6. Show the table and say where everything is. */
	step_banner(&ra, 6, "done", t0);
	{
		FILE *f = fopen(p.compare_txt, "r");
		char line[1024];

		while (f && fgets(line, sizeof(line), f)) {
			fputs(line, stdout);
		}
		if (f) {
			fclose(f);
		}
	}
	printf("\nReport: %s\nAction set: %s\nStub: %s (source %s)\nSimulated trace: %s\n",
	       p.report, set_dir, p.stub, p.stub_c, p.sim_trace);
	return DPS_EXIT_OK;
}
