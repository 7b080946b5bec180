/* SPDX-License-Identifier: MIT */
/*
 * A study as a job list (doc/cluster.md): dps whatif --plan DIR does everything up to the
 * runs and writes DIR instead of running them; dps whatif --run-one N DIR runs entry N of
 * its list once, on whatever node a cluster engine (SLURM, GNU parallel) starts it; collect.c
 * merges the results.
 *
 * DIR holds the stub (dps-stub, stub.c), its set (set/), the calibration it plays with, the
 * plan file (below), results/ (one file per run) and nodes/ (each node's own quick
 * calibration, measured by its first run), and two wrappers: slurm.sbatch (one array task
 * per run) and parallel.sh (GNU parallel, over ssh or local).
 *
 * The plan file, "dps-whatif-plan 1", is one "key value" a line: the study's options (what
 * collect needs to make the same points as the local study: whatif_points_make), what the
 * study found before its runs (the component, t_busy, the caveats and the doubts, strings
 * escaped as C strings), the points in order, then the runs in the order the seed gives them
 * (whatif_run_order, the local sweep's own), each with the stub's argv relative to DIR. A
 * line it does not know is an error with its line number: a newer plan is refused, not
 * misread.
 *
 * One run is measured by whatif_run_one (sweep.c), exactly as the local sweep measures each
 * repetition, and written whole (common/atomic-out.h) as results/run-N.HOST.PID: a second run
 * of the same entry (an engine's retry) never overwrites the first, collect names both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dps/dps.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "actset.h"
#include "atomic-out.h"
#include "job-wrappers.h"
#include "whatif-internal.h"

#define PLAN_MAGIC "dps-whatif-plan 1"
#define RESULT_MAGIC "dps-whatif-result 1"

/* An earlier plan's results are not replaced with it unless --force: they may be hours of a
 * cluster's time not collected yet. */
static enum dps_status check_no_results(const char *dir, struct dps_diag *diag)
{
	char *rdir = g_build_filename(dir, "results", NULL);
	GDir *d = g_dir_open(rdir, 0, NULL);
	const char *name;
	size_t n = 0;

	while (d && (name = g_dir_read_name(d))) {
		n += g_str_has_prefix(name, "run-");
	}
	if (d) {
		g_dir_close(d);
	}
	if (n) {
		dps_diag_setf(diag,
			      "--plan %s: it holds %zu results of an earlier plan (%s); collect "
			      "them first (dps whatif --collect %s), or replace them with --force",
			      dir, n, rdir, dir);
	}
	g_free(rdir);
	return n ? DPS_ERR_INVAL : DPS_OK;
}

enum dps_status whatif_plan_check(const struct whatif_options *o, struct dps_diag *diag)
{
	if (!o->plan) {
		return DPS_OK;
	}
	if (o->command) {
		dps_diag_setf(diag,
			      "--plan: a study in the real program (--region) runs here only");
		return DPS_ERR_INVAL;
	}
	if (o->timelines) {
		dps_diag_setf(diag, "--plan: --timelines replays points recorded here; run them "
				    "after collecting, with dps replay");
		return DPS_ERR_INVAL;
	}
	if (!o->outdir) {
		dps_diag_setf(diag, "--plan: give the plan's directory");
		return DPS_ERR_INVAL;
	}
	return o->force ? DPS_OK : check_no_results(o->outdir, diag);
}

static const char *kind_name(enum whatif_point_kind k)
{
	static const char *const names[] = {"busy", "flat", "idle", "original"};

	return names[k];
}

/* The first 16 hex digits of the SHA-256 of the file at path (g_free), NULL when unreadable. */
char *whatif_plan_fingerprint(const char *path)
{
	gchar *text = NULL, *sum;
	gsize len = 0;
	char *fp;

	if (!g_file_get_contents(path, &text, &len, NULL)) {
		return NULL;
	}
	sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
	fp = g_strndup(sum, 16);
	g_free(sum);
	g_free(text);
	return fp;
}

/* A string field, escaped as a C string (g_strcompress reads it back). */
static void put_str(FILE *f, const char *key, const char *v)
{
	char *e = g_strescape(v ? v : "", NULL);

	fprintf(f, "%s %s\n", key, e);
	g_free(e);
}

enum dps_status whatif_plan_write(const struct whatif_plan_job *job, struct dps_diag *diag)
{
	const struct whatif_options *o = job->opts;
	struct whatif_result *r = job->result;
	struct whatif_point_list pl;
	struct whatif_runner run = {.stub = "./dps-stub",
				    .calibration = "calibration",
				    .mode = o->mode,
				    .ids = r->ids,
				    .n_ids = r->n_ids};
	struct whatif_job *jobs = NULL;
	char *path = NULL, *cal = g_build_filename(job->work, "calibration", NULL);
	char *fp = whatif_plan_fingerprint(cal);
	struct dps_calibration c;
	char err[256] = "", a[32], b[32];
	enum dps_status st = DPS_OK;
	FILE *f;

	whatif_points_make(o, r, &pl);
	if (!fp || dps_calibration_load(cal, &c, err, sizeof(err))) {
		dps_diag_setf(diag, "the plan's calibration %s: %s", cal,
			      err[0] ? err : "unreadable");
		st = DPS_ERR_IO;
		goto end;
	}
	if (job->set) {
		/* a set given as input, copied: the plan is self-contained */
		char *set_dir = g_build_filename(job->work, "set", NULL);

		st = dps_actset_write_dir(job->set, set_dir, 0, diag);
		g_free(set_dir);
	}
	for (const char *const *d = (const char *const[]){"results", "nodes", NULL}; !st && *d;
	     d++) {
		char *p = g_build_filename(job->work, *d, NULL);

		if (g_mkdir(p, 0777)) {
			dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", p, errno,
				      strerror(errno));
			st = DPS_ERR_IO;
		}
		g_free(p);
	}
	if (st) {
		goto end;
	}
	jobs = whatif_run_order(pl.n, o->repeat, r->seed);
	path = g_build_filename(job->work, "plan", NULL);
	f = fopen(path, "w");
	if (!f) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", path, errno,
			      strerror(errno));
		st = DPS_ERR_IO;
		goto end;
	}
	fprintf(f, PLAN_MAGIC "\n# dps whatif --plan (doc/cluster.md): run each entry with dps "
			      "whatif --run-one N DIR, then dps whatif --collect DIR\n");
	put_str(f, "input", r->input);
	fprintf(f, "input_kind %s\n", r->from_trace ? "trace" : "set");
	put_str(f, "component", r->component);
	fprintf(f, "ids");
	for (size_t i = 0; i < r->n_ids; i++) {
		fprintf(f, " %" PRIu64, r->ids[i]);
	}
	fprintf(f,
		"\nbusy_ns %" PRIu64 "\nrecorded_sut_ns %" PRIu64 "\nthreads %zu\nrepeat %u\n"
		"seed %" PRIu64 "\nmode %s\nstubs %u\nrange %.17g %.17g %.17g\n",
		r->busy_ns, r->recorded_sut_ns, r->n_threads, o->repeat, r->seed, r->mode, o->stubs,
		o->from, o->to, o->step);
	fprintf(f, "window %s %s\nwait_quiet %.17g\n",
		whatif_edge_str(&r->window_from, false, a, sizeof(a)),
		whatif_edge_str(&r->window_to, true, b, sizeof(b)), o->wait_quiet_s);
	fprintf(f, "calibration %s %.17g %.17g\n", fp, c.work_loops_per_us, r->cal_spread_pct);
	fprintf(f, "caveats %zu %" PRIu64 " %d %zu %" PRIu64 " %zu %zu\n",
		r->caveats.n_fixed_sleeps, r->caveats.fixed_sleep_ns, r->caveats.timelines,
		r->caveats.n_woken_sleeps, r->caveats.woken_sleep_ns, r->caveats.n_ordered_waits,
		r->caveats.n_component_waits);
	for (size_t i = 0; i < r->n_doubts; i++) {
		char *reason = g_strescape(r->doubts[i].reason, NULL);
		char *way = g_strescape(r->doubts[i].way_out, NULL);

		fprintf(f, "doubt %d\t%s\t%s\n", (int)r->doubts[i].kind, reason, way);
		g_free(way);
		g_free(reason);
	}
	/* a trace's threads ranked, for the same "which thread" table and line as a local study */
	fprintf(f, "critical_span_ns %" PRIu64 "\n", r->critical_span_ns);
	for (size_t i = 0; i < r->n_candidates; i++) {
		const struct whatif_candidate *cd = &r->candidates[i];
		char *comm = g_strescape(cd->comm ? cd->comm : "", NULL);

		fprintf(f, "candidate %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %s\n",
			cd->id, cd->critical_ns, cd->busy_ns, cd->waited_on_ns, cd->in_component,
			comm);
		g_free(comm);
	}
	fprintf(f, "points %zu\n", pl.n);
	for (size_t i = 0; i < pl.n; i++) {
		fprintf(f, "point %zu %s %.17g %" PRIu64 "\n", i, kind_name(pl.pts[i]->kind),
			pl.pts[i]->scale, pl.pts[i]->t_psf_ns);
	}
	fprintf(f, "runs %zu\n", pl.n * o->repeat);
	for (size_t i = 0; i < pl.n * o->repeat; i++) {
		GPtrArray *argv = whatif_stub_argv(&run, pl.pts[jobs[i].pt]);

		fprintf(f, "run %zu %zu %u", i, jobs[i].pt, jobs[i].rep);
		for (size_t k = 0; k + 1 < argv->len; k++) {
			char *q = g_shell_quote(argv->pdata[k]);

			fprintf(f, " %s", q);
			g_free(q);
		}
		fputc('\n', f);
		g_ptr_array_free(argv, TRUE);
	}
	fprintf(f, "end\n");
	st = dps_out_close(f, path, diag);
	if (!st) {
		struct dps_job_wrappers w = {.work = job->work,
					     .dir = o->outdir,
					     .command = "whatif",
					     .n_jobs = pl.n * o->repeat,
					     .partition = o->slurm_partition,
					     .constraint = o->slurm_constraint,
					     .shared = o->slurm_shared};

		st = dps_job_wrappers_write(&w, diag);
	}
	if (!st && !o->quiet) {
		fprintf(stderr,
			"dps whatif: planned %zu points x %u repetitions = %zu runs (seed %" PRIu64
			")\n",
			pl.n, o->repeat, pl.n * o->repeat, r->seed);
	}
end:
	g_free(jobs);
	g_free(path);
	g_free(fp);
	g_free(cal);
	whatif_point_list_fini(&pl);
	return st;
}

void whatif_plan_fini(struct whatif_plan *p)
{
	if (!p) {
		return;
	}
	g_free(p->dir);
	g_free(p->fingerprint);
	g_free(p->runs);
	g_free(p->window_from);
	g_free(p->window_to);
	whatif_result_fini(&p->pre);
	*p = (struct whatif_plan){0};
}

/* The stub's mode as the static string whatif_result.mode holds. */
static const char *static_mode(const char *m)
{
	static const char *const modes[] = {"work", "cpu", "wall"};

	for (size_t i = 0; i < 3; i++) {
		if (!strcmp(m, modes[i])) {
			return modes[i];
		}
	}
	return NULL;
}

/* One line of the plan into p. 0, or -1 when it is not what its key wants (what: expected). */
static int plan_line(struct whatif_plan *p, const char *key, const char *v, const char **what)
{
	struct whatif_result *r = &p->pre;
	char mode[16], from[64], to[64];
	size_t i, pt;
	unsigned rep;
	int n = 0, tl = 0;

	if (!strcmp(key, "input")) {
		r->input = g_strcompress(v);
	} else if (!strcmp(key, "input_kind")) {
		*what = "trace or set";
		r->from_trace = !strcmp(v, "trace");
		return strcmp(v, "trace") && strcmp(v, "set") ? -1 : 0;
	} else if (!strcmp(key, "component")) {
		r->component = g_strcompress(v);
	} else if (!strcmp(key, "ids")) {
		gchar **ids = g_strsplit(v, " ", -1);

		*what = "action-set ids";
		r->n_ids = 0;
		r->ids = g_new0(uint64_t, g_strv_length(ids) + 1);
		for (gchar **id = ids; *id; id++) {
			char *end;

			r->ids[r->n_ids++] = g_ascii_strtoull(*id, &end, 10);
			n |= end == *id || *end;
		}
		g_strfreev(ids);
		return n || !r->n_ids ? -1 : 0;
	} else if (!strcmp(key, "busy_ns")) {
		*what = "a count of ns";
		return sscanf(v, "%" SCNu64 "%n", &r->busy_ns, &n) == 1 && !v[n] ? 0 : -1;
	} else if (!strcmp(key, "recorded_sut_ns")) {
		*what = "a count of ns";
		return sscanf(v, "%" SCNu64 "%n", &r->recorded_sut_ns, &n) == 1 && !v[n] ? 0 : -1;
	} else if (!strcmp(key, "threads")) {
		*what = "a count";
		return sscanf(v, "%zu%n", &r->n_threads, &n) == 1 && !v[n] ? 0 : -1;
	} else if (!strcmp(key, "repeat")) {
		*what = "a count from 1";
		return sscanf(v, "%u%n", &p->o.repeat, &n) == 1 && !v[n] && p->o.repeat ? 0 : -1;
	} else if (!strcmp(key, "seed")) {
		*what = "a number";
		return sscanf(v, "%" SCNu64 "%n", &p->o.seed, &n) == 1 && !v[n] ? 0 : -1;
	} else if (!strcmp(key, "mode")) {
		*what = "work, cpu or wall";
		if (sscanf(v, "%15s", mode) != 1 || !static_mode(mode)) {
			return -1;
		}
		p->o.mode = r->mode = static_mode(mode);
	} else if (!strcmp(key, "stubs")) {
		*what = "the stubs' bits, 1 to 7";
		return sscanf(v, "%u%n", &p->o.stubs, &n) == 1 && !v[n] && p->o.stubs >= 1 &&
			       p->o.stubs <= 7
			   ? 0
			   : -1;
	} else if (!strcmp(key, "range")) {
		*what = "FROM TO STEP";
		return sscanf(v, "%lg %lg %lg%n", &p->o.from, &p->o.to, &p->o.step, &n) == 3 &&
			       !v[n]
			   ? 0
			   : -1;
	} else if (!strcmp(key, "window")) {
		*what = "two window edges";
		if (sscanf(v, "%63s %63s", from, to) != 2 ||
		    whatif_edge_parse(from, false, &r->window_from) ||
		    whatif_edge_parse(to, true, &r->window_to)) {
			return -1;
		}
		p->window_from = g_strdup(from);
		p->window_to = g_strdup(to);
	} else if (!strcmp(key, "wait_quiet")) {
		*what = "seconds";
		return sscanf(v, "%lg%n", &p->o.wait_quiet_s, &n) == 1 && !v[n] ? 0 : -1;
	} else if (!strcmp(key, "calibration")) {
		char fp[64];

		*what = "FINGERPRINT LOOPS_PER_US SPREAD_PCT";
		if (sscanf(v, "%63s %lg %lg%n", fp, &p->loops_per_us, &r->cal_spread_pct, &n) !=
			3 ||
		    v[n]) {
			return -1;
		}
		p->fingerprint = g_strdup(fp);
	} else if (!strcmp(key, "caveats")) {
		struct whatif_caveats *c = &r->caveats;

		*what = "7 counts";
		if (sscanf(v, "%zu %" SCNu64 " %d %zu %" SCNu64 " %zu %zu%n", &c->n_fixed_sleeps,
			   &c->fixed_sleep_ns, &tl, &c->n_woken_sleeps, &c->woken_sleep_ns,
			   &c->n_ordered_waits, &c->n_component_waits, &n) != 7 ||
		    v[n]) {
			return -1;
		}
		c->timelines = tl;
	} else if (!strcmp(key, "doubt")) {
		gchar **parts = g_strsplit(v, "\t", 3);
		int k;

		*what = "KIND<tab>REASON<tab>WAY OUT";
		n = g_strv_length(parts) == 3 && sscanf(parts[0], "%d", &k) == 1 &&
		    k >= WHATIF_DOUBT_ORDER && k <= WHATIF_DOUBT_PARTIAL;
		if (n) {
			whatif_doubt_add(r, (enum whatif_doubt_kind)k, g_strcompress(parts[1]),
					 g_strcompress(parts[2]));
		}
		g_strfreev(parts);
		return n ? 0 : -1;
	} else if (!strcmp(key, "critical_span_ns")) {
		*what = "a count of ns";
		return sscanf(v, "%" SCNu64 "%n", &r->critical_span_ns, &n) == 1 && !v[n] ? 0 : -1;
	} else if (!strcmp(key, "candidate")) {
		struct whatif_candidate cd = {0};

		*what = "ID CRITICAL_NS BUSY_NS WAITED_ON_NS IN_COMPONENT COMM";
		if (sscanf(v, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %d %n", &cd.id,
			   &cd.critical_ns, &cd.busy_ns, &cd.waited_on_ns, &tl, &n) != 5 ||
		    !n) {
			return -1;
		}
		cd.in_component = tl;
		cd.comm = v[n] ? g_strcompress(v + n) : NULL;
		r->candidates =
		    g_renew(struct whatif_candidate, r->candidates, r->n_candidates + 1);
		r->candidates[r->n_candidates++] = cd;
	} else if (!strcmp(key, "points")) {
		*what = "a count";
		return sscanf(v, "%zu%n", &p->n_points, &n) == 1 && !v[n] ? 0 : -1;
	} else if (!strcmp(key, "point")) {
		/* the points are made again from the options; their lines are for a reader */
		*what = "INDEX KIND SCALE T_PSF_NS";
		return sscanf(v, "%zu", &i) == 1 && i < p->n_points ? 0 : -1;
	} else if (!strcmp(key, "runs")) {
		*what = "a count";
		if (sscanf(v, "%zu%n", &p->n_runs, &n) != 1 || v[n] || p->n_runs > 10000000) {
			return -1;
		}
		p->runs = g_new0(struct whatif_job, p->n_runs + 1);
	} else if (!strcmp(key, "run")) {
		*what = "INDEX POINT REPETITION ARGV (in order, after runs)";
		if (sscanf(v, "%zu %zu %u", &i, &pt, &rep) != 3 || i != p->n_read ||
		    i >= p->n_runs || pt >= p->n_points || rep >= p->o.repeat) {
			return -1;
		}
		p->runs[p->n_read++] = (struct whatif_job){.pt = pt, .rep = rep};
	} else {
		*what = "a key of dps-whatif-plan 1";
		return -1;
	}
	return 0;
}

enum dps_status whatif_plan_load(const char *dir, struct whatif_plan *p, struct dps_diag *diag)
{
	char *path = g_build_filename(dir, "plan", NULL);
	gchar *text = NULL;
	gchar **lines = NULL;
	struct whatif_point_list pl = {0};
	enum dps_status st = DPS_ERR_INVAL;
	bool ended = false;
	size_t ln = 0;

	*p = (struct whatif_plan){.dir = g_strdup(dir)};
	whatif_options_default(&p->o);
	if (!g_file_test(dir, G_FILE_TEST_IS_DIR) ||
	    !g_file_get_contents(path, &text, NULL, NULL)) {
		dps_diag_setf(
		    diag, "%s: no plan here (expected the directory of dps whatif --plan)", path);
		goto end;
	}
	lines = g_strsplit(text, "\n", -1);
	if (!lines[0] || strcmp(lines[0], PLAN_MAGIC)) {
		dps_diag_setf(diag, "%s:1: expected \"" PLAN_MAGIC "\" (a plan of this dps)", path);
		goto end;
	}
	for (ln = 1; lines[ln] && !ended; ln++) {
		const char *l = lines[ln], *what = "";
		char *sp = strchr(l, ' ');
		char *key;
		int bad;

		if (!*l || *l == '#') {
			continue;
		}
		if (!strcmp(l, "end")) {
			ended = true;
			break;
		}
		key = g_strndup(l, sp ? (size_t)(sp - l) : strlen(l));
		bad = plan_line(p, key, sp ? sp + 1 : "", &what);
		g_free(key);
		if (bad) {
			dps_diag_setf(diag, "%s:%zu: expected %s, got \"%s\"", path, ln + 1, what,
				      l);
			goto end;
		}
	}
	if (!ended) {
		dps_diag_setf(diag, "%s:%zu: the plan ends without its \"end\" line (truncated?)",
			      path, ln);
		goto end;
	}
	if (!p->pre.ids || !p->pre.busy_ns || !p->fingerprint || !p->runs ||
	    p->n_read != p->n_runs || !p->pre.mode) {
		dps_diag_setf(diag,
			      "%s: incomplete: expected ids, busy_ns, mode, calibration and every "
			      "run (%zu of %zu read)",
			      path, p->n_read, p->n_runs);
		goto end;
	}
	/* the points it will make again must be the ones the runs name */
	p->pre.repeat = p->o.repeat;
	p->pre.seed = p->o.seed;
	whatif_points_make(&p->o, &p->pre, &pl);
	if (pl.n != p->n_points || p->n_runs != pl.n * p->o.repeat) {
		dps_diag_setf(diag,
			      "%s: its range and stubs make %zu points, its lines say %zu points "
			      "and %zu runs",
			      path, pl.n, p->n_points, p->n_runs);
		goto end;
	}
	st = DPS_OK;
end:
	/* made to check them: the callers make them again where they want them */
	g_free(p->pre.points);
	p->pre.points = NULL;
	p->pre.n_points = 0;
	whatif_point_list_fini(&pl);
	g_strfreev(lines);
	g_free(text);
	g_free(path);
	return st;
}

/* This node's own quick calibration, measured by its first run and kept in nodes/HOST: what
 * collect compares across the nodes. */
static enum dps_status node_calibration(const char *dir, const char *host,
					struct dps_calibration *cal, struct dps_diag *diag)
{
	char *path = g_strdup_printf("%s/nodes/%s.calibration", dir, host), *tmp = NULL;
	char err[256] = "";
	enum dps_status st = DPS_OK;

	if (!dps_calibration_load(path, cal, err, sizeof(err))) {
		goto end;
	}
	/* saved beside and renamed in: a run beside this one on the node reads it whole or not
	 * at all (and then measures its own) */
	tmp = g_strdup_printf("%s.tmp-%d", path, (int)getpid());
	if (dps_calibration_measure(cal, true)) {
		dps_diag_setf(diag, "%s: the node's quick calibration failed", host);
		st = DPS_ERROR;
	} else if (dps_calibration_save(cal, tmp, err, sizeof(err))) {
		dps_diag_setf(diag, "%s: %s", tmp, err);
		st = DPS_ERR_IO;
	} else if (g_rename(tmp, path)) {
		dps_diag_setf(diag, "cannot rename \"%s\" to \"%s\": errno=%d (%s)", tmp, path,
			      errno, strerror(errno));
		st = DPS_ERR_IO;
	}
	if (st) {
		g_unlink(tmp);
	}
end:
	g_free(tmp);
	g_free(path);
	return st;
}

enum dps_status whatif_plan_run(const char *dir, size_t index, bool quiet, struct dps_diag *diag)
{
	struct whatif_plan p;
	struct whatif_point_list pl = {0};
	struct dps_calibration cal;
	struct dps_quiet_wait wait = {.who = "dps whatif --run-one", .quiet = quiet};
	struct whatif_one one = {0};
	struct dps_diag run_diag = {{0}};
	struct dps_out_file of;
	const char *host = g_get_host_name();
	char *stub = NULL, *calib = NULL, *err_path = NULL, *times_path = NULL, *path = NULL;
	char **envp = NULL;
	enum dps_status st = whatif_plan_load(dir, &p, diag), run_st;

	if (st) {
		return st;
	}
	if (index >= p.n_runs) {
		dps_diag_setf(diag, "--run-one %zu: the plan %s has runs 0 to %zu", index, dir,
			      p.n_runs - 1);
		st = DPS_ERR_INVAL;
		goto end;
	}
	whatif_points_make(&p.o, &p.pre, &pl);
	st = node_calibration(dir, host, &cal, diag);
	if (st) {
		goto end;
	}
	stub = g_build_filename(dir, "dps-stub", NULL);
	calib = g_build_filename(dir, "calibration", NULL);
	err_path = g_strdup_printf("%s/results/run-%zu.%s.%d.err", dir, index, host, (int)getpid());
	if (!whatif_window_is_run(&p.pre)) {
		times_path = g_strdup_printf("%s/results/run-%zu.%s.%d.times", dir, index, host,
					     (int)getpid());
	}
	{
		struct whatif_runner run = {.stub = stub,
					    .calibration = calib,
					    .mode = p.pre.mode,
					    .err_path = err_path,
					    .ids = p.pre.ids,
					    .n_ids = p.pre.n_ids,
					    .from = p.pre.window_from,
					    .to = p.pre.window_to,
					    .times_path = times_path};

		wait.max_s = p.o.wait_quiet_s;
		dps_load_wait_quiet(&wait, "this run", stderr, NULL);
		/* the sweep's environment (sweep.c): no wait for a session daemon's registration */
		envp = g_environ_setenv(g_get_environ(), "LTTNG_UST_REGISTER_TIMEOUT", "0", FALSE);
		run_st = whatif_run_one(&run, envp, pl.pts[p.runs[index].pt], &one, &run_diag);
	}
	if (times_path) {
		g_unlink(times_path);
	}
	path = g_strdup_printf("%s/results/run-%zu.%s.%d", dir, index, host, (int)getpid());
	st = dps_out_file_open(&of, path, diag);
	if (st) {
		goto end;
	}
	{
		char *host_e = g_strescape(host, NULL), *msg = g_strescape(run_diag.msg, NULL);

		fprintf(of.f,
			RESULT_MAGIC "\nrun %zu\npoint %zu\nrep %u\nhost %s\nplan_calibration "
				     "%s\nnode_calibration %.17g %.17g\nstatus %s\nsut_ns %" PRIu64
				     "\n",
			index, p.runs[index].pt, p.runs[index].rep, host_e, p.fingerprint,
			cal.work_loops_per_us, cal.work_spread_pct, run_st ? "failed" : "ok",
			one.sut_ns);
		fprintf(of.f,
			"load %d %.9f %" PRIu64 " %" PRIu64 " %" PRIu64 " %ld %d %" PRIu64
			"\nmessage %s\nend\n",
			one.before.ok && one.after.ok, one.after.t_s - one.before.t_s,
			one.after.busy_ticks - one.before.busy_ticks,
			one.after.total_ticks - one.before.total_ticks,
			one.after.steal_ticks - one.before.steal_ticks, one.after.ticks_per_s,
			one.after.cpus, one.child_cpu_ns, msg);
		g_free(msg);
		g_free(host_e);
	}
	st = dps_out_file_commit(&of, diag);
	if (!st && run_st) {
		dps_diag_setf(diag, "run %zu: %s (written as failed: %s)", index, run_diag.msg,
			      path);
		st = run_st;
	}
	if (!st) {
		g_unlink(err_path); /* kept only when the run failed */
	}
end:
	g_strfreev(envp);
	g_free(path);
	g_free(times_path);
	g_free(err_path);
	g_free(calib);
	g_free(stub);
	whatif_point_list_fini(&pl);
	whatif_plan_fini(&p);
	return st;
}
