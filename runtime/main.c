/* SPDX-License-Identifier: MIT */
/*
 * The main() of generated programs (and of `dps run`): options, init, play, summary. This is
 * the only place in libdps that prints; it still never exits, it returns the exit code.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dps/dps.h>
#include <dps/knobs.h>

const char *dps_status_string(int status)
{
	switch (status) {
	case DPS_OK:
		return "success";
	case DPS_ERR_NOENT:
		return "not found";
	case DPS_ERR_IO:
		return "input/output error";
	case DPS_ERR_AGAIN:
		return "cannot create a thread (play aborted, every started thread joined)";
	case DPS_ERR_NOMEM:
		return "out of memory";
	case DPS_ERR_INVAL:
		return "invalid input";
	case DPS_ERR_RANGE:
		return "number out of range";
	case DPS_ERR_DEADLK:
		return "deadlock: a wait for a wake, an end or an object (mutex, queue, barrier) "
		       "that can never come (play aborted)";
	default:
		return "failure";
	}
}

void dps_main_print_options(FILE *out)
{
	fputs("Options:\n", out);
	dps_knobs_print_help(out, 0, 0, 2, 29);
	fputs("  -h, --help                 this help\n", out);
}

static void print_help(FILE *out, const char *argv0, const struct dps_program *prog)
{
	fprintf(out, "Usage: %s [OPTIONS]\nReplays %s with libdps (doc/runtime.md).\n\n", argv0,
		prog && prog->name ? prog->name : "the program's action set");
	dps_main_print_options(out);
	fputs("\nExit codes: 0 ok, 1 failure, 2 bad usage or bad input.\n", out);
}

/* A per-thread knob's entries as a table of prog's n_threads values, indexed as its threads
 * (dflt where no entry names one), into *table (malloc'd; NULL without entries). Returns 0,
 * or -1 when out of memory. */
static int thread_table(const struct dps_knob_threads *t, const struct dps_program *prog,
			double dflt, double **table)
{
	*table = NULL;
	if (!t->n) {
		return 0;
	}
	*table = malloc(prog->n_threads * sizeof(**table));
	if (!*table) {
		return -1;
	}
	for (size_t i = 0; i < prog->n_threads; i++) {
		(*table)[i] = dflt;
	}
	for (size_t e = 0; e < t->n; e++) {
		for (size_t i = 0; i < prog->n_threads; i++) {
			if (prog->threads[i].id == t->v[e].id) {
				(*table)[i] = t->v[e].x;
			}
		}
	}
	return 0;
}

/* What each knob does (knobs.def): k, checked against prog, into cfg and opts. Returns 0,
 * or 2 with the message printed. */
static int apply_knobs(const char *argv0, const struct dps_knobs *k, const struct dps_program *prog,
		       struct dps_config *cfg, struct dps_play_options *opts)
{
	double *run = NULL, *sleep = NULL, *idle = NULL, *cache = NULL;
	bool *flags = NULL;

	opts->mode = k->mode;
	if (k->given & (1u << DPS_KNOB_ID_mode)) {
		cfg->mode = k->mode;
	}
	cfg->calibration_path = k->calibration;
	opts->run_scale = k->scale;
	opts->sleep_scale = k->sleep_scale;
	opts->cache_scale = k->cache_scale;
	opts->cache_outcome = k->cache_outcome;
	opts->heap_mode = k->heap_mode;
	opts->from_process_start = !k->from_main;
	opts->summary = !k->no_summary;
	cfg->quiet = k->quiet;
	if (thread_table(&k->thread_scale, prog, 1.0, &run) ||
	    thread_table(&k->thread_sleep_scale, prog, 1.0, &sleep) ||
	    thread_table(&k->thread_idle, prog, 0.0, &idle) ||
	    thread_table(&k->thread_cache_scale, prog, 1.0, &cache) ||
	    (idle && !(flags = calloc(prog->n_threads, sizeof(*flags))))) {
		fprintf(stderr, "%s: out of memory\n", argv0);
		free(run);
		free(sleep);
		free(idle);
		free(cache);
		return 2;
	}
	for (size_t i = 0; flags && i < prog->n_threads; i++) {
		flags[i] = idle[i] != 0.0;
	}
	free(idle);
	opts->thread_run_scale = run;
	opts->thread_sleep_scale = sleep;
	opts->thread_run_idle = flags;
	opts->thread_cache_scale = cache;
	return 0;
}

/*
 * When the process was exec'd: DPS_EXEC_AT=MONO:CPU, put there by the launcher right before
 * execve (dps record; common/subprocess.c, dps_subprocess_mark_exec). Without it, or when it
 * does not fit this process (a later time than now: inherited from another one), unknown.
 */
static void read_exec_mark(struct dps_play_options *opts)
{
	const char *v = getenv("DPS_EXEC_AT");
	unsigned long long mono, cpu;
	struct timespec now, cnow;
	int end = 0;

	if (!v || sscanf(v, "%llu:%llu%n", &mono, &cpu, &end) != 2 || v[end]) {
		return;
	}
	if (clock_gettime(CLOCK_MONOTONIC, &now) ||
	    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cnow)) {
		return;
	}
	if (mono > (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec ||
	    cpu > (uint64_t)cnow.tv_sec * 1000000000u + (uint64_t)cnow.tv_nsec) {
		return;
	}
	opts->exec_mono_ns = mono;
	opts->exec_cpu_ns = cpu;
}

/* The program of a caller that has none: no thread a knob can name. */
static const struct dps_program no_threads = {0};

int dps_main_parse_args(int argc, char **argv, const struct dps_program *prog,
			struct dps_config *cfg, struct dps_play_options *opts)
{
	const char *argv0 = argc > 0 && argv[0] ? argv[0] : "dps-program";
	struct dps_knobs k;
	char err[256];
	int ret = 0;

	/* main began about now: what the process did before is its start-up, what follows is
	 * dps's own (doc/runtime.md, "The stub's start-up and exit") */
	dps_play_options_default(opts);
	dps_play_options_mark_main(opts);
	dps_config_default(cfg);
	dps_knobs_default(&k);
	read_exec_mark(opts);
	/* not for the programs this one may start */
	unsetenv("DPS_EXEC_AT");
	/* the options, one knob each (knobs.def) */
	for (int i = 1; i < argc && !ret; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		const char *eq = strchr(arg, '=');
		char name[32];
		size_t len = eq && !strncmp(arg, "--", 2) ? (size_t)(eq - arg) : strlen(arg);
		int id;

		snprintf(name, sizeof(name), "%.*s", (int)(len < 31 ? len : 31), arg);
		if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
			print_help(stdout, argv0, prog);
			ret = 1;
			break;
		}
		id = strncmp(name, "--", 2) ? -1 : dps_knobs_find(name);
		if (id < 0) {
			fprintf(stderr, "%s: unknown option '%s' (try --help)\n", argv0, arg);
			ret = 2;
			break;
		}
		if (dps_knobs_table[id].shape == DPS_KNOB_SHAPE_FLAG) {
			value = NULL; /* a flag's "=value" is ignored */
		} else if (len < strlen(arg)) {
			value = arg + len + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		}
		if (dps_knobs_parse(&k, name, value, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", argv0, err);
			ret = 2;
		}
	}
	prog = prog ? prog : &no_threads;
	if (!ret && dps_knobs_check(&k, prog, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv0, err);
		ret = 2;
	}
	if (ret != 2) {
		int applied = apply_knobs(argv0, &k, prog, cfg, opts);

		ret = applied ? applied : ret;
	}
	dps_knobs_fini(&k);
	if (ret == 2) {
		dps_main_args_fini(opts);
	}
	return ret;
}

void dps_main_args_fini(struct dps_play_options *opts)
{
	if (!opts) {
		return;
	}
	free((void *)opts->thread_run_scale);
	free((void *)opts->thread_sleep_scale);
	free((void *)opts->thread_run_idle);
	free((void *)opts->thread_cache_scale);
	opts->thread_cache_scale = NULL;
	opts->thread_run_scale = NULL;
	opts->thread_sleep_scale = NULL;
	opts->thread_run_idle = NULL;
}

/*
 * DPS_THREAD_TIMES=PATH (set by dps whatif for a window of the run that the user names,
 * doc/whatif.md): every thread's start and end, CLOCK_MONOTONIC ns, one "ID START END" line
 * each. Returns 0, or -1 with the reason on stderr.
 */
static int write_thread_times(const char *argv0, const struct dps_play_result *result)
{
	const char *path = getenv("DPS_THREAD_TIMES");
	FILE *f;
	int bad;

	if (!path || !*path) {
		return 0;
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write DPS_THREAD_TIMES \"%s\": %s\n", argv0, path,
			strerror(errno));
		return -1;
	}
	fprintf(f, "dps-thread-times 1\n");
	for (size_t i = 0; i < result->n_threads; i++) {
		const struct dps_thread_result *t = &result->threads[i];

		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t->id,
			result->origin_mono_ns + t->start_ns, result->origin_mono_ns + t->end_ns);
	}
	bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "%s: cannot write DPS_THREAD_TIMES \"%s\"\n", argv0, path);
		return -1;
	}
	return 0;
}

const char *dps_main_options_note(const struct dps_program *prog,
				  const struct dps_play_options *opts)
{
	if (opts->cache_outcome && prog->n_caches) {
		/* an outcome no check has backed yet: said as such, not as a figure */
		return "--cache-outcome lengthens runs by what their accesses took over a quiet "
		       "cache's time; against a program changed the same way it gave 0.9 to 5.3 "
		       "times the real cost (doc/cache.md, \"Outcome\"): read it as a direction, "
		       "not a figure";
	}
	return NULL;
}

int dps_main(int argc, char **argv, const struct dps_program *prog)
{
	const char *argv0 = argc > 0 && argv[0] ? argv[0] : "dps-program", *note;
	struct dps_play_result result;
	struct dps_play_options opts;
	struct dps_config cfg;
	char err[512];
	int ret;

	ret = dps_main_parse_args(argc, argv, prog, &cfg, &opts);
	if (ret) {
		return ret == 1 ? 0 : 2;
	}
	ret = dps_init(&cfg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv0, err[0] ? err : dps_status_string(ret));
		ret = ret == DPS_ERR_INVAL ? 2 : 1;
		goto end;
	}
	if (err[0] && !cfg.quiet) {
		fprintf(stderr, "%s: warning: %s\n", argv0, err);
	}
	note = dps_main_options_note(prog, &opts);
	if (note && !cfg.quiet) {
		fprintf(stderr, "%s: note: %s\n", argv0, note);
	}
	ret = dps_play(prog, &opts, &result);
	if (ret) {
		fprintf(stderr, "%s: replay failed: %s%s%s\n", argv0, dps_status_string(ret),
			result.detail[0] ? ": " : "", result.detail);
	} else if (write_thread_times(argv0, &result)) {
		ret = DPS_ERROR;
	}
	dps_play_result_fini(&result);
	ret = ret == DPS_ERR_INVAL ? 2 : ret ? 1 : 0;
end:
	dps_main_args_fini(&opts);
	return ret;
}

void dps_exit(int code)
{
	fflush(NULL);
	_exit(code);
}
