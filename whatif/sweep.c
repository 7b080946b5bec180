/* SPDX-License-Identifier: MIT */
/*
 * The sweep runner (whatif-internal.h). The SUT time of a run is measured from outside: the
 * parent reads CLOCK_MONOTONIC just before it spawns the stub and just after wait4() returns,
 * so the stub's own clocks and tracepoints are not the witness of their own speed. Every
 * repetition of every point goes into one list shuffled with the seed, so a drift of the
 * machine (a warming CPU, a neighbour starting) spreads over the points instead of bending the
 * curve. /proc/stat is read around each run: a run during which others used the CPUs marks its
 * point as under load. With --wait-quiet, the first run and each run after one under load
 * wait for a quiet machine first (a run after a quiet one starts on a quiet machine, as far as
 * anything can tell without waiting).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "guard.h"
#include "machine-load.h"
#include "progress.h"
#include "subprocess.h"
#include "whatif-internal.h"

/* Below this much wall time, a point's own /proc/stat figures (10 ms ticks) are too coarse to
 * call it under load alone: the sweep's figure must agree. */
#define SWEEP_LOAD_WINDOW_S 0.5

/* /proc/stat deltas summed over the runs of a point (or the sweep), and our children's CPU. */
struct load_sum {
	struct dps_load_sample from, to; /* from zero: to holds the sums */
	uint64_t child_cpu_ns;
};

static void load_add(struct load_sum *sum, const struct dps_load_sample *a,
		     const struct dps_load_sample *b, uint64_t child_cpu_ns)
{
	if (!a->ok || !b->ok) {
		return;
	}
	sum->from.ok = sum->to.ok = true;
	sum->to.ticks_per_s = b->ticks_per_s;
	sum->to.cpus = b->cpus;
	sum->to.t_s += b->t_s - a->t_s;
	sum->to.busy_ticks += b->busy_ticks - a->busy_ticks;
	sum->to.total_ticks += b->total_ticks - a->total_ticks;
	sum->to.steal_ticks += b->steal_ticks - a->steal_ticks;
	sum->child_cpu_ns += child_cpu_ns;
}

/* Whether the last run (the sweep's sums from before it to after it) ran under load; a run
 * too short for a tick of /proc/stat tells nothing, and is not. */
static bool run_was_under_load(const struct load_sum *before, const struct load_sum *after)
{
	/* before the first run the sums are empty: from, zero, is where they start */
	const struct dps_load_sample *a = before->to.ok ? &before->to : &after->from;
	struct dps_load l =
	    dps_load_between(a, &after->to, after->child_cpu_ns - before->child_cpu_ns);

	return l.known && dps_load_is_under_load(&l);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum dps_status whatif_point_knobs(const uint64_t *ids, size_t n_ids, enum whatif_sweep sweep,
				   const struct whatif_point *p, struct dps_knobs *k)
{
	/* the misses' scale is a cost only when the accesses' time is the run's outcome */
	if (sweep == WHATIF_SWEEP_MISSES &&
	    dps_knobs_parse(k, dps_knobs_table[DPS_KNOB_ID_cache_outcome].name, NULL, NULL, 0)) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; p->kind != WHATIF_POINT_ORIGINAL && i < n_ids; i++) {
		int st =
		    p->kind == WHATIF_POINT_IDLE
			? dps_knobs_add_thread(k, DPS_KNOB_ID_thread_idle, ids[i], 1.0)
		    : sweep == WHATIF_SWEEP_MISSES
			? dps_knobs_add_thread(k, DPS_KNOB_ID_thread_cache_scale, ids[i], p->scale)
			: dps_knobs_add_thread(k, DPS_KNOB_ID_thread_scale, ids[i], p->scale);

		if (st) {
			return DPS_ERR_NOMEM;
		}
	}
	return DPS_OK;
}

GPtrArray *whatif_stub_argv(const struct whatif_runner *run, const struct whatif_point *p)
{
	GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
	struct dps_knobs k;
	char **args;

	if (run->command) {
		for (size_t i = 0; run->command[i]; i++) {
			g_ptr_array_add(v, g_strdup(run->command[i]));
		}
		g_ptr_array_add(v, NULL);
		return v;
	}
	dps_knobs_default(&k);
	(void)dps_knobs_parse(&k, "calibration", run->calibration, NULL, 0);
	(void)dps_knobs_parse(&k, "no-summary", NULL, NULL, 0);
	(void)dps_knobs_parse(&k, "quiet", NULL, NULL, 0);
	if (run->mode) {
		/* checked when the study began */
		(void)dps_knobs_parse(&k, "mode", run->mode, NULL, 0);
	}
	g_ptr_array_add(v, g_strdup(run->stub));
	args = whatif_point_knobs(run->ids, run->n_ids, run->sweep, p, &k)
		   ? NULL
		   : dps_knobs_to_argv(&k, 0, NULL);
	if (!args) {
		g_error("out of memory"); /* as GLib's own allocations: never a run without knobs */
	}
	for (size_t i = 0; args && args[i]; i++) {
		g_ptr_array_add(v, g_strdup(args[i]));
	}
	dps_knobs_argv_free(args);
	dps_knobs_fini(&k);
	g_ptr_array_add(v, NULL);
	return v;
}

int whatif_edge_parse(const char *text, bool to, struct whatif_edge *edge)
{
	const char *dot;
	char *end;

	if (!text) {
		return -1;
	}
	if (!strcmp(text, to ? "exit" : "exec")) {
		*edge = (struct whatif_edge){.kind = WHATIF_EDGE_RUN};
		return 0;
	}
	dot = strchr(text, '.');
	if (!dot || dot == text || !g_ascii_isdigit(text[0]) ||
	    (strcmp(dot, ".start") && strcmp(dot, ".end"))) {
		return -1;
	}
	errno = 0;
	edge->id = g_ascii_strtoull(text, &end, 10);
	if (errno || end != dot) {
		return -1;
	}
	edge->kind = !strcmp(dot, ".start") ? WHATIF_EDGE_START : WHATIF_EDGE_END;
	return 0;
}

const char *whatif_edge_str(const struct whatif_edge *edge, bool to, char *buf, size_t len)
{
	if (edge->kind == WHATIF_EDGE_RUN) {
		snprintf(buf, len, "%s", to ? "exit" : "exec");
	} else {
		snprintf(buf, len, "%" PRIu64 ".%s", edge->id,
			 edge->kind == WHATIF_EDGE_START ? "start" : "end");
	}
	return buf;
}

char *whatif_last_line(const char *path)
{
	gchar *text = NULL, *line;
	gchar **lines;
	int n;

	if (!g_file_get_contents(path, &text, NULL, NULL)) {
		return g_strdup("(no message)");
	}
	lines = g_strsplit(g_strchomp(text), "\n", -1);
	n = (int)g_strv_length(lines);
	line = g_strdup(n && *lines[n - 1] ? lines[n - 1] : "(no message)");
	g_strfreev(lines);
	g_free(text);
	return line;
}

/* Where edge e was in a run spawned at t0 that ended at t1, from the stub's threads' times
 * (DPS_THREAD_TIMES: "ID START END" lines, CLOCK_MONOTONIC). */
static enum dps_status edge_at(const struct whatif_runner *run, const struct whatif_edge *e,
			       bool to, uint64_t t0, uint64_t t1, uint64_t *at,
			       struct dps_diag *diag)
{
	gchar *text = NULL;
	gchar **lines;
	bool found = false;

	if (e->kind == WHATIF_EDGE_RUN) {
		*at = to ? t1 : t0;
		return DPS_OK;
	}
	if (!g_file_get_contents(run->times_path, &text, NULL, NULL)) {
		dps_diag_setf(diag, "the stub wrote no thread times (%s)", run->times_path);
		return DPS_ERROR;
	}
	lines = g_strsplit(text, "\n", -1);
	for (size_t i = 1; lines[i] && !found; i++) {
		uint64_t id, start, end;

		if (sscanf(lines[i], "%" SCNu64 " %" SCNu64 " %" SCNu64, &id, &start, &end) == 3 &&
		    id == e->id) {
			*at = e->kind == WHATIF_EDGE_START ? start : end;
			found = true;
		}
	}
	g_strfreev(lines);
	g_free(text);
	if (!found) {
		dps_diag_setf(diag, "the stub's thread times (%s) have no thread %" PRIu64,
			      run->times_path, e->id);
		return DPS_ERROR;
	}
	return DPS_OK;
}

/* The run's SUT time: from exec to exit, or the window the user named. */
static enum dps_status window_ns(const struct whatif_runner *run, uint64_t t0, uint64_t t1,
				 uint64_t *ns, struct dps_diag *diag)
{
	uint64_t from, to;
	enum dps_status st = edge_at(run, &run->from, false, t0, t1, &from, diag);

	st = st ? st : edge_at(run, &run->to, true, t0, t1, &to, diag);
	if (st) {
		return st;
	}
	if (to < from) {
		char a[32], b[32];

		dps_diag_setf(
		    diag, "the window ends before it begins in a run: %s is %.3f ms after %s",
		    whatif_edge_str(&run->from, false, a, sizeof(a)), (double)(from - to) / 1e6,
		    whatif_edge_str(&run->to, true, b, sizeof(b)));
		return DPS_ERROR;
	}
	*ns = to - from;
	return DPS_OK;
}

enum dps_status whatif_run_one(const struct whatif_runner *run, char **envp,
			       const struct whatif_point *p, struct whatif_one *one,
			       struct dps_diag *diag)
{
	GPtrArray *argv = whatif_stub_argv(run, p);
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	enum dps_status st = DPS_OK;
	uint64_t t0, t1;
	char mark[64];
	char **env = NULL;
	pid_t pid;
	int ws = 0, rc;

	*one = (struct whatif_one){0};
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, run->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	one->before = dps_load_sample_take();
	t0 = mono_ns();
	/* the stub's root counts its start-up from here, as under dps record (doc/runtime.md) */
	dps_subprocess_exec_mark_format(mark, sizeof(mark), t0, 0);
	env = g_environ_setenv(g_strdupv(envp), "DPS_EXEC_AT", mark, TRUE);
	if (run->cache_costs) {
		/* every point counts the accesses at the same costs (misses.c) */
		env = g_environ_setenv(env, "DPS_CACHE_COSTS", run->cache_costs, TRUE);
	}
	if (run->times_path) {
		env = g_environ_setenv(env, "DPS_THREAD_TIMES", run->times_path, TRUE);
	}
	if (run->command) {
		env = whatif_insitu_env(env, run, p);
	}
	rc = posix_spawnp(&pid, argv->pdata[0], &fa, NULL, (char *const *)argv->pdata, env);
	if (rc) {
		dps_diag_setf(diag, "cannot start %s: errno=%d (%s)", (char *)argv->pdata[0], rc,
			      strerror(rc));
		st = DPS_ERROR;
		goto end_actions;
	}
	dps_guard_child(pid, SIGKILL, false); /* a killed study leaves no stub running */
	while (wait4(pid, &ws, 0, &ru) < 0) {
		if (errno != EINTR) {
			dps_diag_setf(diag, "waiting for the stub: errno=%d (%s)", errno,
				      strerror(errno));
			st = DPS_ERROR;
			goto end_actions;
		}
	}
	t1 = mono_ns();
	dps_guard_release_child(pid);
	one->after = dps_load_sample_take();
	one->child_cpu_ns =
	    (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u +
	    (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
	if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
		char *msg = whatif_last_line(run->err_path);

		dps_diag_setf(diag, "%s failed (%s %d) at scale %.3g: %s",
			      run->command ? run->command[0] : "the stub",
			      WIFEXITED(ws) ? "exit status" : "signal",
			      WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws), p->scale, msg);
		g_free(msg);
		st = DPS_ERROR;
		goto end_actions;
	}
	st = window_ns(run, t0, t1, &one->sut_ns, diag);
end_actions:
	g_strfreev(env);
	posix_spawn_file_actions_destroy(&fa);
	g_ptr_array_free(argv, TRUE);
	return st;
}

/* One repetition of the sweep: the run, its SUT time appended to p's, its load to the sums. */
static enum dps_status run_once(const struct whatif_runner *run, char **envp,
				struct whatif_point *p, struct load_sum *sums,
				struct dps_diag *diag)
{
	struct whatif_one one;
	enum dps_status st = whatif_run_one(run, envp, p, &one, diag);

	if (st) {
		return st;
	}
	load_add(&sums[0], &one.before, &one.after, one.child_cpu_ns);
	load_add(&sums[1], &one.before, &one.after, one.child_cpu_ns);
	p->runs_ns[p->n_runs++] = one.sut_ns;
	return DPS_OK;
}

static int compare_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

void whatif_point_summarize(struct whatif_point *p)
{
	uint64_t *s = g_memdup2(p->runs_ns, p->n_runs * sizeof(*s));
	size_t n = p->n_runs;

	qsort(s, n, sizeof(*s), compare_u64);
	p->min_ns = s[0];
	p->max_ns = s[n - 1];
	p->median_ns = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	if (n < 3) {
		p->noise_ns = (double)(p->max_ns - p->min_ns) / 2;
	} else {
		/* the deviations, sorted in place of the runs */
		for (size_t i = 0; i < n; i++) {
			s[i] = s[i] > p->median_ns ? s[i] - p->median_ns : p->median_ns - s[i];
		}
		qsort(s, n, sizeof(*s), compare_u64);
		p->noise_ns = 1.4826 * (double)(n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2);
	}
	g_free(s);
}

struct whatif_job *whatif_run_order(size_t n, unsigned repeat, uint64_t seed)
{
	size_t n_jobs = n * repeat;
	struct whatif_job *jobs = g_new0(struct whatif_job, n_jobs + 1);
	GRand *rand = g_rand_new_with_seed((guint32)(seed ^ (seed >> 32)));

	for (size_t i = 0; i < n; i++) {
		for (unsigned r = 0; r < repeat; r++) {
			jobs[i * repeat + r] = (struct whatif_job){.pt = i, .rep = r};
		}
	}
	/* Fisher-Yates with the seed: the same seed gives the same order. */
	for (size_t i = n_jobs; i > 1; i--) {
		size_t j = (size_t)g_rand_int_range(rand, 0, (gint32)i);
		struct whatif_job t = jobs[i - 1];

		jobs[i - 1] = jobs[j];
		jobs[j] = t;
	}
	g_rand_free(rand);
	return jobs;
}

bool whatif_point_loaded(const struct dps_load *point, const struct dps_load *sweep)
{
	return dps_load_is_under_load(point) &&
	       (point->wall_s >= SWEEP_LOAD_WINDOW_S || dps_load_is_under_load(sweep));
}

enum dps_status whatif_sweep_run(const struct whatif_runner *run, struct whatif_point *const *pts,
				 size_t n, struct dps_load *sweep_load, struct dps_diag *diag)
{
	size_t n_jobs = n * run->repeat;
	struct whatif_job *jobs = whatif_run_order(n, run->repeat, run->seed);
	struct load_sum *sums = g_new0(struct load_sum, n + 1); /* [n]: the whole sweep */
	/* The stub's tracepoints are not wanted here: without a wait for a session daemon's
	 * registration (lttng-ust waits up to 3 s for one that is busy), its start is shorter
	 * and steadier. A value the user set is kept. */
	char **envp = g_environ_setenv(g_get_environ(), "LTTNG_UST_REGISTER_TIMEOUT", "0", FALSE);
	struct load_sum before_last = {0}; /* the sweep's sums before the last run */
	enum dps_status st = DPS_OK;

	for (size_t i = 0; i < n; i++) {
		pts[i]->runs_ns = g_new0(uint64_t, run->repeat);
		pts[i]->n_runs = 0;
	}
	for (size_t i = 0; i < n_jobs && !st; i++) {
		struct load_sum pair[2];

		if (run->steps) {
			dps_steps_count(run->steps, i, n_jobs);
		}
		if (run->wait && (!i || run_was_under_load(&before_last, &sums[n]))) {
			if (run->steps) {
				dps_steps_clear(run->steps); /* the wait's lines */
			}
			dps_load_wait_quiet(run->wait, "running the sweep", stderr, NULL);
		}
		before_last = sums[n];
		pair[0] = sums[jobs[i].pt];
		pair[1] = sums[n];
		st = run_once(run, envp, pts[jobs[i].pt], pair, diag);
		sums[jobs[i].pt] = pair[0];
		sums[n] = pair[1];
	}
	if (run->steps && !st) {
		dps_steps_count(run->steps, n_jobs, n_jobs);
	}
	*sweep_load = dps_load_between(&sums[n].from, &sums[n].to, sums[n].child_cpu_ns);
	for (size_t i = 0; i < n && !st; i++) {
		struct dps_load l =
		    dps_load_between(&sums[i].from, &sums[i].to, sums[i].child_cpu_ns);

		whatif_point_summarize(pts[i]);
		pts[i]->others_pct = l.others_pct;
		pts[i]->steal_pct = l.steal_pct;
		pts[i]->loaded = whatif_point_loaded(&l, sweep_load);
	}
	g_strfreev(envp);
	g_free(sums);
	g_free(jobs);
	return st;
}
