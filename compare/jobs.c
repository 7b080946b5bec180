/* SPDX-License-Identifier: MIT */
/*
 * Analyses as jobs (jobs.h, doc/cluster.md "Analyses as jobs"). dps analyze --plan DIR writes a
 * job list, one dps analyze per trace; --run-one N DIR runs job N on whatever node an engine
 * starts it; --collect DIR reads the sets back as compare's models and puts them side by side.
 *
 * The plan, "dps-analyze-plan 1", is one "key value" a line: "select WORD" per word of the
 * selection options as given (escaped as C strings), "jobs N", then "job I NAME TRACE" per job
 * and "end". A line it does not know is refused with its line number: a newer plan is not
 * misread. A job runs dps analyze itself as a child, so that its set is byte for byte the
 * set of the same command typed here, and its status (results/NAME.status: host, ok or
 * failed, the last message) is written whole beside the set: collect never reads half of one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dps/dps-status.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "atomic-out.h"
#include "compare.h"
#include "find-traces.h"
#include "job-wrappers.h"
#include "jobs.h"
#include "subprocess.h"
#include "text-out.h"

void compare_jobs_fini(struct compare_jobs *p)
{
	if (!p) {
		return;
	}
	for (size_t i = 0; i < p->n; i++) {
		g_free(p->jobs[i].name);
		g_free(p->jobs[i].trace);
	}
	g_free(p->jobs);
	g_strfreev(p->sel);
	g_free(p->dir);
	*p = (struct compare_jobs){0};
}

/* True when path holds a trace itself (a dps record directory, or CTF metadata), not a
 * directory of traces. */
static bool is_one_trace(const char *path)
{
	char *info = g_build_filename(path, "record.info", NULL);
	char *meta = g_build_filename(path, "metadata", NULL);
	bool one = g_file_test(info, G_FILE_TEST_EXISTS) || g_file_test(meta, G_FILE_TEST_EXISTS);

	g_free(meta);
	g_free(info);
	return one;
}

/* True when the analyzer's own finder finds a trace below path. */
static bool holds_trace(const char *path)
{
	GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *skips = g_ptr_array_new_with_free_func(g_free);
	struct dps_diag d = {""};
	const char *paths[] = {path};
	bool yes = !analyzer_find_traces(paths, 1, found, skips, NULL, &d) && found->len;

	g_ptr_array_free(skips, TRUE);
	g_ptr_array_free(found, TRUE);
	return yes;
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A job's name from its trace's directory name: [A-Za-z0-9._-], made unique with "-2", ... */
static char *job_name(const char *trace, GPtrArray *taken)
{
	char *base = g_path_get_basename(trace);
	char *name;

	g_strcanon(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", '_');
	if (base[0] == '.') {
		base[0] = '_';
	}
	name = g_strdup(base);
	for (unsigned k = 2;; k++) {
		bool dup = false;

		for (size_t i = 0; i < taken->len; i++) {
			dup |= !strcmp(taken->pdata[i], name);
		}
		if (!dup) {
			break;
		}
		g_free(name);
		name = g_strdup_printf("%s-%u", base, k);
	}
	g_free(base);
	g_ptr_array_add(taken, name);
	return name;
}

/* The traces of the jobs (char *, absolute): each path given, or with one directory of
 * traces, each subdirectory below which the analyzer finds a trace. */
static int list_traces(const struct compare_jobs_plan_options *o, GPtrArray *out,
		       struct dps_diag *diag)
{
	if (o->n_paths == 1 && !is_one_trace(o->paths[0])) {
		GDir *d = g_dir_open(o->paths[0], 0, NULL);
		GPtrArray *subs = g_ptr_array_new_with_free_func(g_free);
		const char *e;

		if (!d) {
			dps_diag_setf(diag,
				      "%s: cannot read the directory of traces: errno=%d (%s)",
				      o->paths[0], errno, strerror(errno));
			g_ptr_array_free(subs, TRUE);
			return errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_INVAL;
		}
		while ((e = g_dir_read_name(d))) {
			char *p = g_build_filename(o->paths[0], e, NULL);

			if (g_file_test(p, G_FILE_TEST_IS_DIR) && holds_trace(p)) {
				g_ptr_array_add(subs, p);
			} else {
				g_free(p);
			}
		}
		g_dir_close(d);
		g_ptr_array_sort(subs, cmp_str);
		for (size_t i = 0; i < subs->len; i++) {
			g_ptr_array_add(out, g_canonicalize_filename(subs->pdata[i], NULL));
		}
		g_ptr_array_free(subs, TRUE);
		if (!out->len) {
			dps_diag_setf(diag,
				      "%s: no trace in its subdirectories (expected a directory of "
				      "traces, one per subdirectory)",
				      o->paths[0]);
			return DPS_ERR_INVAL;
		}
		return DPS_OK;
	}
	for (size_t i = 0; i < o->n_paths; i++) {
		if (!g_file_test(o->paths[i], G_FILE_TEST_IS_DIR)) {
			dps_diag_setf(diag, "%s: not a trace directory", o->paths[i]);
			return DPS_ERR_NOENT;
		}
		g_ptr_array_add(out, g_canonicalize_filename(o->paths[i], NULL));
	}
	return DPS_OK;
}

static bool is_plan_dir(const char *dir)
{
	char *path = g_build_filename(dir, "plan", NULL);
	gchar *text = NULL;
	bool yes = g_file_get_contents(path, &text, NULL, NULL) &&
		   g_str_has_prefix(text, COMPARE_JOBS_PLAN_MAGIC "\n");

	g_free(text);
	g_free(path);
	return yes;
}

/* Results not collected are not replaced with their plan unless forced. */
static int check_no_results(const char *dir, struct dps_diag *diag)
{
	char *rdir = g_build_filename(dir, "results", NULL);
	GDir *d = g_dir_open(rdir, 0, NULL);
	size_t n = 0;

	while (d && g_dir_read_name(d)) {
		n++;
	}
	if (d) {
		g_dir_close(d);
	}
	if (n) {
		dps_diag_setf(
		    diag,
		    "--plan %s: its results/ holds %zu entries of an earlier plan; collect "
		    "them first (dps analyze --collect %s), or replace them with --force",
		    dir, n, dir);
	}
	g_free(rdir);
	return n ? DPS_ERR_INVAL : DPS_OK;
}

static void put_str(FILE *f, const char *key, const char *v)
{
	char *e = g_strescape(v, NULL);

	fprintf(f, "%s %s\n", key, e);
	g_free(e);
}

int compare_jobs_plan(const struct compare_jobs_plan_options *o, size_t *n_jobs,
		      struct dps_diag *diag)
{
	GPtrArray *traces = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	struct dps_out_dir od = {0};
	char *path = NULL, *rdir = NULL;
	FILE *f;
	int st;

	*n_jobs = 0;
	st = o->force ? DPS_OK : check_no_results(o->dir, diag);
	st = st ? st : list_traces(o, traces, diag);
	st = st ? st
		: dps_out_dir_begin(&od, o->dir, is_plan_dir, "dps analyze plan",
				    o->force ? DPS_OUT_FORCE : 0, diag);
	if (st) {
		goto end;
	}
	rdir = g_build_filename(od.tmp, "results", NULL);
	if (g_mkdir(rdir, 0777)) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", rdir, errno,
			      strerror(errno));
		st = DPS_ERR_IO;
		goto abort_dir;
	}
	path = g_build_filename(od.tmp, "plan", NULL);
	f = fopen(path, "w");
	if (!f) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", path, errno,
			      strerror(errno));
		st = DPS_ERR_IO;
		goto abort_dir;
	}
	fprintf(f, COMPARE_JOBS_PLAN_MAGIC "\n# dps analyze --plan (doc/cluster.md): run each job "
					   "with dps analyze --run-one N DIR, then dps analyze "
					   "--collect DIR\n");
	for (size_t i = 0; i < o->n_sel_args; i++) {
		put_str(f, "select", o->sel_args[i]);
	}
	fprintf(f, "jobs %u\n", traces->len);
	for (size_t i = 0; i < traces->len; i++) {
		char *name = job_name(traces->pdata[i], names);
		char *e = g_strescape(traces->pdata[i], NULL);

		fprintf(f, "job %zu %s %s\n", i, name, e);
		g_free(e);
	}
	fprintf(f, "end\n");
	st = dps_out_close(f, path, diag);
	if (!st) {
		struct dps_job_wrappers w = {.work = od.tmp,
					     .dir = o->dir,
					     .command = "analyze",
					     .n_jobs = traces->len,
					     .partition = o->partition,
					     .constraint = o->constraint,
					     .shared = o->shared};

		st = dps_job_wrappers_write(&w, diag);
	}
	if (st) {
		goto abort_dir;
	}
	st = dps_out_dir_commit(&od, diag);
	*n_jobs = st ? 0 : traces->len;
	goto end;
abort_dir:
	dps_out_dir_abort(&od);
end:
	g_free(path);
	g_free(rdir);
	g_ptr_array_free(names, TRUE);
	g_ptr_array_free(traces, TRUE);
	return st;
}

/* One "job I NAME TRACE" line into p. false when it is not one (what was expected: *what). */
static bool job_line(struct compare_jobs *p, size_t n_decl, const char *v, const char **what)
{
	gchar **w = g_strsplit(v, " ", 3);
	char *end = NULL;
	guint64 i;
	bool ok = false;

	*what = "job INDEX NAME TRACE, the indexes in order";
	if (g_strv_length(w) == 3) {
		i = g_ascii_strtoull(w[0], &end, 10);
		ok = end != w[0] && !*end && i == p->n && i < n_decl && w[1][0] && w[1][0] != '.' &&
		     !strchr(w[1], '/') && w[2][0];
	}
	if (ok) {
		p->jobs[p->n].name = g_strdup(w[1]);
		p->jobs[p->n].trace = g_strcompress(w[2]);
		p->n++;
	}
	g_strfreev(w);
	return ok;
}

int compare_jobs_load(const char *dir, struct compare_jobs *p, struct dps_diag *diag)
{
	char *path = g_build_filename(dir, "plan", NULL);
	GPtrArray *sel = g_ptr_array_new();
	gchar *text = NULL, **lines = NULL;
	const char *what = NULL;
	size_t n_decl = 0, ln = 0;
	bool have_jobs = false, ended = false;
	int st = DPS_OK;

	*p = (struct compare_jobs){.dir = g_strdup(dir)};
	if (!g_file_get_contents(path, &text, NULL, NULL)) {
		dps_diag_setf(diag,
			      "%s: cannot read the plan (expected a directory dps analyze "
			      "--plan wrote)",
			      path);
		st = DPS_ERR_NOENT;
		goto end;
	}
	lines = g_strsplit(text, "\n", -1);
	for (ln = 0; lines[ln]; ln++) {
		char *l = lines[ln], *sp = strchr(l, ' ');
		const char *v = sp ? sp + 1 : "";

		if (ln == 0) {
			what = "\"" COMPARE_JOBS_PLAN_MAGIC "\"";
			if (strcmp(l, COMPARE_JOBS_PLAN_MAGIC)) {
				goto bad_line;
			}
			continue;
		}
		if (ended) {
			what = "nothing after \"end\"";
			if (l[0]) {
				goto bad_line;
			}
			continue;
		}
		if (l[0] == '#' || (!l[0] && lines[ln + 1])) {
			continue;
		}
		if (sp) {
			*sp = '\0';
		}
		if (!strcmp(l, "select") && !have_jobs) {
			g_ptr_array_add(sel, g_strcompress(v));
		} else if (!strcmp(l, "jobs") && !have_jobs) {
			char *end;

			what = "jobs N, N from 1";
			n_decl = g_ascii_strtoull(v, &end, 10);
			if (end == v || *end || !n_decl || n_decl > 1000000) {
				goto bad_line;
			}
			have_jobs = true;
			p->jobs = g_new0(struct compare_job, n_decl);
		} else if (!strcmp(l, "job") && have_jobs) {
			if (!job_line(p, n_decl, v, &what)) {
				goto bad_line;
			}
		} else if (!strcmp(l, "end") && have_jobs && !*v) {
			what = "as many job lines as \"jobs\" says";
			if (p->n != n_decl) {
				goto bad_line;
			}
			ended = true;
		} else {
			what = "select WORD, jobs N, job INDEX NAME TRACE or end, in that order";
			goto bad_line;
		}
	}
	if (!ended) {
		dps_diag_setf(diag, "%s:%zu: expected \"end\" (the plan is cut short)", path, ln);
		st = DPS_ERR_INVAL;
	}
	goto end;
bad_line:
	dps_diag_setf(diag, "%s:%zu: expected %s", path, ln + 1, what);
	st = DPS_ERR_INVAL;
end:
	g_ptr_array_add(sel, NULL);
	p->sel = (char **)g_ptr_array_free(sel, FALSE);
	g_strfreev(lines);
	g_free(text);
	g_free(path);
	return st;
}

static char *host_name(void)
{
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1) || !host[0]) {
		g_strlcpy(host, "unknown", sizeof(host));
	}
	return g_strdup(host);
}

/* results/NAME.status, whole or not at all. */
static int write_status(const char *dir, const struct compare_job *job, size_t index,
			const char *host, bool ok, const char *msg, struct dps_diag *diag)
{
	char *name = g_strdup_printf("%s.status", job->name);
	char *path = g_build_filename(dir, "results", name, NULL);
	char *emsg = g_strescape(msg, NULL);
	struct dps_out_file of;
	int st = dps_out_file_open(&of, path, diag);

	if (!st) {
		fprintf(of.f,
			COMPARE_JOBS_STATUS_MAGIC
			"\njob %zu\nhost %s\nstatus %s\nmessage %s\nend\n",
			index, host, ok ? "ok" : "failed", emsg);
		st = dps_out_file_commit(&of, diag);
	}
	g_free(emsg);
	g_free(path);
	g_free(name);
	return st;
}

int compare_jobs_run_one(const char *dir, const char *index, struct dps_diag *diag)
{
	struct compare_jobs p;
	struct dps_subprocess_options so = {.capture_stderr = true};
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	char *out = NULL, *host = host_name(), *end = NULL;
	guint64 n;
	int st, rc;

	st = compare_jobs_load(dir, &p, diag);
	if (st) {
		goto end;
	}
	n = g_ascii_strtoull(index, &end, 10);
	if (end == index || *end || n >= p.n) {
		dps_diag_setf(diag, "--run-one %s: expected a job of %s/plan, 0 to %zu", index, dir,
			      p.n - 1);
		st = DPS_ERR_RANGE;
		goto end;
	}
	g_ptr_array_add(argv, g_file_read_link("/proc/self/exe", NULL));
	if (!argv->pdata[0]) {
		argv->pdata[0] = g_strdup("dps");
	}
	g_ptr_array_add(argv, g_strdup("analyze"));
	g_ptr_array_add(argv, g_strdup(p.jobs[n].trace));
	for (char **s = p.sel; *s; s++) {
		g_ptr_array_add(argv, g_strdup(*s));
	}
	g_ptr_array_add(argv, g_strdup("-q"));
	g_ptr_array_add(argv, g_strdup("-o"));
	g_ptr_array_add(argv, g_build_filename(dir, "results", p.jobs[n].name, NULL));
	g_ptr_array_add(argv, NULL);
	rc = dps_subprocess_run((char *const *)argv->pdata, &so, &out);
	if (out) {
		fputs(out, stderr);
	}
	{
		const char *msg = out ? dps_subprocess_last_line(out) : "cannot start dps analyze";

		st = write_status(dir, &p.jobs[n], n, host, rc == 0, msg, diag);
		if (!st && rc) {
			dps_diag_setf(diag, "job %" PRIu64 " (%s) failed on %s: %s", (uint64_t)n,
				      p.jobs[n].name, host, msg);
			st = DPS_ERROR;
		}
	}
end:
	g_free(out);
	g_free(host);
	g_ptr_array_free(argv, TRUE);
	compare_jobs_fini(&p);
	return st;
}

/* What collect finds of one job. */
struct job_state {
	enum { JOB_MISSING, JOB_FAILED, JOB_OK } what;
	char *host;			/* owned, NULL: no status */
	char *msg;			/* owned */
	struct analyzer_result *model;	/* owned: its set, played (compare_load) */
	struct compare_result *against; /* owned: against the reference */
};

/* results/NAME.status into s; a file not whole (no "end") is named and read as missing. */
static void read_status(const struct compare_jobs *p, size_t i, struct job_state *s)
{
	char *name = g_strdup_printf("%s.status", p->jobs[i].name);
	char *path = g_build_filename(p->dir, "results", name, NULL);
	gchar *text = NULL, **lines = NULL;
	bool ended = false, ok = false;

	s->what = JOB_MISSING;
	if (!g_file_get_contents(path, &text, NULL, NULL)) {
		goto end;
	}
	lines = g_strsplit(text, "\n", -1);
	for (size_t k = 0; lines[k]; k++) {
		char *l = lines[k];

		if (g_str_has_prefix(l, "host ")) {
			g_free(s->host);
			s->host = g_strdup(l + 5);
		} else if (g_str_has_prefix(l, "message ")) {
			g_free(s->msg);
			s->msg = g_strcompress(l + 8);
		} else if (!strcmp(l, "status ok")) {
			ok = true;
		} else if (!strcmp(l, "end")) {
			ended = k > 0 && !strcmp(lines[0], COMPARE_JOBS_STATUS_MAGIC);
		}
	}
	if (!ended || !s->host) {
		fprintf(stderr,
			"dps analyze: collect: %s: not a whole status file (no \"end\" line); "
			"job %zu read as missing\n",
			path, i);
		goto end;
	}
	s->what = ok ? JOB_OK : JOB_FAILED;
end:
	g_strfreev(lines);
	g_free(text);
	g_free(path);
	g_free(name);
}

static void put_json_str(FILE *out, const char *key, const char *v, bool comma)
{
	fprintf(out, "\"%s\": ", key);
	if (v) {
		dps_json_string(out, v, false);
	} else {
		fputs("null", out);
	}
	fputs(comma ? ", " : "", out);
}

static void write_json(const struct compare_jobs *p, const struct job_state *js, size_t ref,
		       size_t n_bad, bool with_compare, FILE *out)
{
	static const char *const whats[] = {"missing", "failed", "ok"};
	bool first = true;

	fprintf(out, "{\"schema\": \"" COMPARE_JOBS_JSON_SCHEMA "\", ");
	put_json_str(out, "plan", p->dir, true);
	fprintf(out, "\"partial\": %s, \"jobs\": [", n_bad ? "true" : "false");
	for (size_t i = 0; i < p->n; i++) {
		const struct job_state *s = &js[i];

		fprintf(out, "%s\n  {\"index\": %zu, ", i ? "," : "", i);
		put_json_str(out, "name", p->jobs[i].name, true);
		put_json_str(out, "trace", p->jobs[i].trace, true);
		put_json_str(out, "status", whats[s->what], true);
		put_json_str(out, "host", s->host, true);
		put_json_str(out, "message", s->msg, s->against != NULL);
		if (s->against) {
			const struct compare_side_info *si = &s->against->side[COMPARE_SIM];

			fprintf(out,
				"\"threads\": %zu, \"cpu_ns\": %" PRIu64
				", \"makespan_ns\": %" PRIu64,
				si->model->n_threads, si->cpu_total_ns, si->makespan_ns);
		}
		fputc('}', out);
	}
	fprintf(out, "],\n ");
	put_json_str(out, "reference", ref < p->n ? p->jobs[ref].name : NULL, false);
	if (with_compare) {
		fprintf(out, ", \"comparisons\": [");
		for (size_t i = 0; i < p->n; i++) {
			if (i == ref || !js[i].against) {
				continue;
			}
			fputs(first ? "\n" : ",\n", out);
			first = false;
			compare_write_json(js[i].against, out);
		}
		fputc(']', out);
	}
	fputs("}\n", out);
}

static void write_table(const struct compare_jobs *p, const struct job_state *js, size_t ref,
			FILE *out)
{
	char a[32], b[32];

	fprintf(out, "Sets of the plan %s, side by side (%zu jobs)\n\n", p->dir, p->n);
	fprintf(out, "%-4s %-24s %-16s %-8s %7s %12s %12s\n", "job", "name", "host", "status",
		"threads", "cpu", "makespan");
	for (size_t i = 0; i < p->n; i++) {
		const struct job_state *s = &js[i];
		static const char *const whats[] = {"missing", "failed", "ok"};

		fprintf(out, "%-4zu %-24s %-16s %-8s", i, p->jobs[i].name, s->host ? s->host : "-",
			whats[s->what]);
		if (s->against) {
			const struct compare_side_info *si = &s->against->side[COMPARE_SIM];

			fprintf(out, " %7zu %12s %12s%s\n", si->model->n_threads,
				compare_format_ns((int64_t)si->cpu_total_ns, false, a, sizeof(a)),
				compare_format_ns((int64_t)si->makespan_ns, false, b, sizeof(b)),
				i == ref ? "  (reference)" : "");
		} else {
			fprintf(out, " %7s %12s %12s\n", "-", "-", "-");
		}
	}
}

int compare_jobs_collect(const char *dir, const struct compare_jobs_collect_options *o, FILE *out,
			 size_t *n_bad, struct dps_diag *diag)
{
	struct compare_jobs p;
	struct job_state *js = NULL;
	struct analyzer_options aopts;
	size_t ref = SIZE_MAX;
	int st;

	*n_bad = 0;
	analyzer_options_default(&aopts);
	st = compare_jobs_load(dir, &p, diag);
	if (st) {
		goto end;
	}
	js = g_new0(struct job_state, p.n);
	for (size_t i = 0; i < p.n; i++) {
		struct job_state *s = &js[i];
		char *set = g_build_filename(dir, "results", p.jobs[i].name, NULL);
		enum compare_input_kind kind;
		struct dps_diag d = {""};

		read_status(&p, i, s);
		if (s->what == JOB_OK && !compare_path_is_actset(set)) {
			fprintf(stderr,
				"dps analyze: collect: job %zu (%s): its status says ok but "
				"%s is not a set; read as missing\n",
				i, p.jobs[i].name, set);
			s->what = JOB_MISSING;
		} else if (s->what == JOB_OK &&
			   compare_load(set, &aopts, &s->model, &kind, &d) != DPS_OK) {
			fprintf(stderr, "dps analyze: collect: job %zu (%s): %s; read as failed\n",
				i, p.jobs[i].name, d.msg);
			s->what = JOB_FAILED;
			g_free(s->msg);
			s->msg = g_strdup(d.msg);
		}
		g_free(set);
		if (s->what == JOB_MISSING) {
			fprintf(stderr, "dps analyze: collect: job %zu (%s, %s) has no result\n", i,
				p.jobs[i].name, p.jobs[i].trace);
		} else if (s->what == JOB_FAILED) {
			fprintf(stderr, "dps analyze: collect: job %zu (%s) failed on %s: %s\n", i,
				p.jobs[i].name, s->host ? s->host : "?", s->msg ? s->msg : "");
		}
		*n_bad += s->what != JOB_OK;
		if (s->what == JOB_OK && ref == SIZE_MAX && !o->reference) {
			ref = i;
		}
		if (o->reference && !strcmp(o->reference, p.jobs[i].name)) {
			ref = i;
		}
	}
	if (o->reference && (ref == SIZE_MAX || js[ref].what != JOB_OK)) {
		dps_diag_setf(diag,
			      "--reference %s: expected the name of a job of %s/plan with a set",
			      o->reference, dir);
		st = DPS_ERR_INVAL;
		goto end;
	}
	/* Every set against the reference: compare's figures (the makespan, the CPU) for the
	 * table, and the comparisons themselves. */
	for (size_t i = 0; ref != SIZE_MAX && i < p.n; i++) {
		struct dps_diag d = {""};

		if (js[i].what != JOB_OK) {
			continue;
		}
		st = compare_run(js[ref].model, COMPARE_INPUT_ACTSET, p.jobs[ref].name, js[i].model,
				 COMPARE_INPUT_ACTSET, p.jobs[i].name, NULL, &js[i].against, &d);
		if (st) {
			dps_diag_setf(diag, "job %zu (%s) against %s: %s", i, p.jobs[i].name,
				      p.jobs[ref].name, d.msg);
			goto end;
		}
	}
	if (o->json) {
		write_json(&p, js, ref, *n_bad, o->compare, out);
		goto end;
	}
	write_table(&p, js, ref, out);
	if (*n_bad) {
		fprintf(out, "\nPartial: %zu of %zu jobs have no set (", *n_bad, p.n);
		for (size_t i = 0, k = 0; i < p.n; i++) {
			if (js[i].what != JOB_OK) {
				fprintf(out, "%s%s %s", k++ ? ", " : "", p.jobs[i].name,
					js[i].what == JOB_FAILED ? "failed" : "missing");
			}
		}
		fprintf(out, "); run them again (dps analyze --run-one N %s, N:", dir);
		for (size_t i = 0; i < p.n; i++) {
			if (js[i].what != JOB_OK) {
				fprintf(out, " %zu", i);
			}
		}
		fprintf(out, ") and collect again.\n");
	}
	for (size_t i = 0; o->compare && i < p.n; i++) {
		if (i == ref || !js[i].against) {
			continue;
		}
		fprintf(out, "\n== %s against %s ==\n", p.jobs[i].name, p.jobs[ref].name);
		compare_write_text(js[i].against, out, false);
	}
end:
	for (size_t i = 0; js && i < p.n; i++) {
		compare_result_destroy(js[i].against); /* borrows the reference's model */
	}
	for (size_t i = 0; js && i < p.n; i++) {
		analyzer_result_destroy(js[i].model);
		g_free(js[i].host);
		g_free(js[i].msg);
	}
	g_free(js);
	compare_jobs_fini(&p);
	return st;
}
