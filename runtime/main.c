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
	fputs("Options:\n"
	      "  --mode work|cpu|wall       how `run` actions spend their time (default cpu)\n"
	      "  --calibration FILE         calibration from `dps calibrate -o FILE` (default:\n"
	      "                             $DPS_CALIBRATION, a path or `override`, else a quick\n"
	      "                             measurement at start)\n"
	      "  --scale X                  every run lasts X times as long (what-if)\n"
	      "  --sleep-scale X            every sleep lasts X times as long\n"
	      "  --thread-scale ID=X        runs of thread ID last X times as long\n"
	      "  --thread-sleep-scale ID=X  sleeps of thread ID last X times as long\n"
	      "  --heap-mode curve|alloc    heap actions: one block resized to the curve (the\n"
	      "                             paper's, default) or one malloc per allocation\n"
	      "  --from-main                the root's CPU and time count from main, not from\n"
	      "                             the exec (no start-up compensation)\n"
	      "  --thread-idle ID           runs of thread ID are slept instead (idle CPU stub)\n"
	      "  --no-summary               no per-thread summary on stderr at the end\n"
	      "  --quiet                    no informational messages\n"
	      "  -h, --help                 this help\n",
	      out);
}

static void print_help(FILE *out, const char *argv0, const struct dps_program *prog)
{
	fprintf(out, "Usage: %s [OPTIONS]\nReplays %s with libdps (doc/runtime.md).\n\n", argv0,
		prog && prog->name ? prog->name : "the program's action set");
	dps_main_print_options(out);
	fputs("\nExit codes: 0 ok, 1 failure, 2 bad usage or bad input.\n", out);
}

static int parse_scale(const char *argv0, const char *opt, const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (!*text || *end || errno || !isfinite(v) || v < 0) {
		fprintf(stderr, "%s: %s: expected a non-negative number, got '%s'\n", argv0, opt,
			text);
		return 2;
	}
	*out = v;
	return 0;
}

/* The index of the thread with the id text names (all of text) into *t. Returns 0, or 2 with
 * the message printed. */
static int parse_thread_id(const char *argv0, const char *opt, const char *text, const char *end_at,
			   const struct dps_program *prog, size_t *t)
{
	unsigned long long id;
	char *end;

	errno = 0;
	id = strtoull(text, &end, 10);
	if (end != end_at || end == text || errno || text[0] == '-') {
		fprintf(stderr, "%s: %s: expected %s, got '%s'\n", argv0, opt,
			*end_at ? "ID=X" : "a thread ID", text);
		return 2;
	}
	for (*t = 0; prog && *t < prog->n_threads && prog->threads[*t].id != id; (*t)++) {
	}
	if (!prog || *t == prog->n_threads) {
		fprintf(stderr, "%s: %s: no thread with id %llu in this program\n", argv0, opt, id);
		return 2;
	}
	return 0;
}

/* ID=X into table[index of ID]; the table is allocated on first use (n_threads ones).
 * Returns 0, or 2 with the message printed. */
static int parse_thread_scale(const char *argv0, const char *opt, const char *text,
			      const struct dps_program *prog, double **table)
{
	const char *eq = strchr(text, '=');
	double v = 1.0;
	size_t t = 0;
	int ret = 0;

	if (!eq) {
		fprintf(stderr, "%s: %s: expected ID=X, got '%s'\n", argv0, opt, text);
		return 2;
	}
	ret = parse_thread_id(argv0, opt, text, eq, prog, &t);
	if (!ret) {
		ret = parse_scale(argv0, opt, eq + 1, &v);
	}
	if (!ret && !*table) {
		*table = malloc(prog->n_threads * sizeof(**table));
		if (!*table) {
			fprintf(stderr, "%s: out of memory\n", argv0);
			ret = 2;
		}
		for (size_t i = 0; *table && i < prog->n_threads; i++) {
			(*table)[i] = 1.0;
		}
	}
	if (!ret) {
		(*table)[t] = v;
	}
	return ret;
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

/* ID into flags[index of ID] (allocated on first use, all false). Returns 0 or 2. */
static int parse_thread_flag(const char *argv0, const char *opt, const char *text,
			     const struct dps_program *prog, bool **flags)
{
	size_t t = 0;
	int ret = parse_thread_id(argv0, opt, text, text + strlen(text), prog, &t);

	if (!ret && !*flags) {
		*flags = calloc(prog->n_threads, sizeof(**flags));
		if (!*flags) {
			fprintf(stderr, "%s: out of memory\n", argv0);
			ret = 2;
		}
	}
	if (!ret) {
		(*flags)[t] = true;
	}
	return ret;
}

int dps_main_parse_args(int argc, char **argv, const struct dps_program *prog,
			struct dps_config *cfg, struct dps_play_options *opts)
{
	const char *argv0 = argc > 0 && argv[0] ? argv[0] : "dps-program";
	double *run_table = NULL, *sleep_table = NULL;
	bool *idle_flags = NULL;
	int ret = 0;

	/* main began about now: what the process did before is its start-up, what follows is
	 * dps's own (doc/runtime.md, "The stub's start-up and exit") */
	dps_play_options_default(opts);
	dps_play_options_mark_main(opts);
	dps_config_default(cfg);
	opts->from_process_start = true;
	read_exec_mark(opts);
	/* not for the programs this one may start */
	unsetenv("DPS_EXEC_AT");
	for (int i = 1; i < argc && !ret; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		const char *eq = strchr(arg, '=');
		char name[32];
		size_t len = eq && !strncmp(arg, "--", 2) ? (size_t)(eq - arg) : strlen(arg);

		snprintf(name, sizeof(name), "%.*s", (int)(len < 31 ? len : 31), arg);
		if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
			print_help(stdout, argv0, prog);
			ret = 1;
			break;
		}
		if (!strcmp(name, "--no-summary")) {
			opts->summary = false;
			continue;
		}
		if (!strcmp(name, "--quiet")) {
			cfg->quiet = true;
			continue;
		}
		if (!strcmp(name, "--from-main")) {
			opts->from_process_start = false;
			continue;
		}
		if (strcmp(name, "--mode") && strcmp(name, "--calibration") &&
		    strcmp(name, "--scale") && strcmp(name, "--sleep-scale") &&
		    strcmp(name, "--thread-scale") && strcmp(name, "--thread-sleep-scale") &&
		    strcmp(name, "--heap-mode") && strcmp(name, "--thread-idle")) {
			fprintf(stderr, "%s: unknown option '%s' (try --help)\n", argv0, arg);
			ret = 2;
			break;
		}
		if (len < strlen(arg)) {
			value = arg + len + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			fprintf(stderr, "%s: %s needs a value\n", argv0, name);
			ret = 2;
			break;
		}
		if (!strcmp(name, "--mode")) {
			if (dps_run_mode_parse(value, &opts->mode)) {
				fprintf(stderr,
					"%s: --mode: expected work, cpu or wall, got '%s'\n", argv0,
					value);
				ret = 2;
			}
			cfg->mode = opts->mode;
		} else if (!strcmp(name, "--calibration")) {
			cfg->calibration_path = value;
		} else if (!strcmp(name, "--scale")) {
			ret = parse_scale(argv0, name, value, &opts->run_scale);
		} else if (!strcmp(name, "--sleep-scale")) {
			ret = parse_scale(argv0, name, value, &opts->sleep_scale);
		} else if (!strcmp(name, "--heap-mode")) {
			if (!strcmp(value, "curve")) {
				opts->heap_mode = DPS_HEAP_CURVE;
			} else if (!strcmp(value, "alloc")) {
				opts->heap_mode = DPS_HEAP_ALLOC;
			} else {
				fprintf(stderr,
					"%s: --heap-mode: expected curve or alloc, got '%s'\n",
					argv0, value);
				ret = 2;
			}
		} else if (!strcmp(name, "--thread-scale")) {
			ret = parse_thread_scale(argv0, name, value, prog, &run_table);
		} else if (!strcmp(name, "--thread-idle")) {
			ret = parse_thread_flag(argv0, name, value, prog, &idle_flags);
		} else {
			ret = parse_thread_scale(argv0, name, value, prog, &sleep_table);
		}
	}
	opts->thread_run_scale = run_table;
	opts->thread_sleep_scale = sleep_table;
	opts->thread_run_idle = idle_flags;
	if (ret) {
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

int dps_main(int argc, char **argv, const struct dps_program *prog)
{
	const char *argv0 = argc > 0 && argv[0] ? argv[0] : "dps-program";
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
