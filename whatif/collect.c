/* SPDX-License-Identifier: MIT */
/*
 * dps whatif --collect DIR (doc/cluster.md): the results of a planned study (plan.c), run on
 * however many nodes, merged into the result a local study gives, through the same points,
 * fit, doubts and writers (points.c).
 *
 * Nothing is averaged away in silence. Each result file is read whole or named and left out:
 * one without its "end" line (truncated), one of another plan (its calibration's fingerprint),
 * one that names a run the plan does not have. A run with two sound results (an engine ran it
 * twice) keeps the first by name and names the other. A run that failed is named with its
 * node and message; a run with no result is named missing. Any of these leaves the points
 * short of repetitions, and the answer is then `unclear` with a "partial" doubt that lists
 * them: a curve with holes is not read as a whole one.
 *
 * The nodes: each run carries its node's own quick calibration (its busy loop's rate). Nodes
 * whose rates differ by more than the calibration's noise are not identical machines, and
 * their times are not one curve's: collect refuses unless --mixed-nodes. A node whose runs
 * are much slower than the others' at the same points is named as well.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "atomic-out.h"
#include "whatif-internal.h"

#define RESULT_MAGIC "dps-whatif-result 1"
/* A node whose runs' median is this much over their points' medians is much slower. */
#define COLLECT_SLOW_PCT 10.0

/* One result file as read. */
struct result {
	char *name; /* owned: its file name in results/ */
	size_t run, point;
	unsigned rep;
	char *host;    /* owned */
	char *fp;      /* owned: the plan's calibration it ran with */
	double loops;  /* the node's loop rate */
	double spread; /* its calibration's spread, % */
	bool ok;
	uint64_t sut_ns;
	bool load_ok;
	struct dps_load_sample delta; /* /proc/stat after - before */
	uint64_t child_cpu_ns;
	char *message; /* owned */
};

static void result_free(gpointer p)
{
	struct result *r = p;

	g_free(r->name);
	g_free(r->host);
	g_free(r->fp);
	g_free(r->message);
	g_free(r);
}

/* The file text into *out; NULL, or what is wrong with it (static). */
static const char *result_parse(const char *text, struct result *out)
{
	gchar **lines = g_strsplit(text, "\n", -1);
	const char *bad = NULL;
	bool ended = false;
	int got = 0, lok = 0;

	if (!lines[0] || strcmp(lines[0], RESULT_MAGIC)) {
		bad = "not a dps whatif result (no \"" RESULT_MAGIC "\" line)";
	} else if (!g_str_has_suffix(text, "\nend\n")) {
		/* cut anywhere, its last line may be half a line: say what happened to it */
		bad = "truncated (no \"end\" line)";
	}
	for (size_t i = 1; !bad && lines[i] && !ended; i++) {
		const char *l = lines[i];
		char word[80];
		int n = 0;

		if (!strcmp(l, "end")) {
			ended = true;
		} else if (sscanf(l, "run %zu%n", &out->run, &n) == 1 && !l[n]) {
			got |= 1;
		} else if (sscanf(l, "point %zu%n", &out->point, &n) == 1 && !l[n]) {
			got |= 2;
		} else if (sscanf(l, "rep %u%n", &out->rep, &n) == 1 && !l[n]) {
			got |= 4;
		} else if (g_str_has_prefix(l, "host ")) {
			out->host = g_strcompress(l + 5);
			got |= 8;
		} else if (sscanf(l, "plan_calibration %79s%n", word, &n) == 1 && !l[n]) {
			out->fp = g_strdup(word);
			got |= 16;
		} else if (sscanf(l, "node_calibration %lg %lg%n", &out->loops, &out->spread, &n) ==
			       2 &&
			   !l[n]) {
			got |= 32;
		} else if (sscanf(l, "status %79s%n", word, &n) == 1 && !l[n] &&
			   (!strcmp(word, "ok") || !strcmp(word, "failed"))) {
			out->ok = !strcmp(word, "ok");
			got |= 64;
		} else if (sscanf(l, "sut_ns %" SCNu64 "%n", &out->sut_ns, &n) == 1 && !l[n]) {
			got |= 128;
		} else if (sscanf(l,
				  "load %d %lg %" SCNu64 " %" SCNu64 " %" SCNu64 " %ld %d %" SCNu64
				  "%n",
				  &lok, &out->delta.t_s, &out->delta.busy_ticks,
				  &out->delta.total_ticks, &out->delta.steal_ticks,
				  &out->delta.ticks_per_s, &out->delta.cpus, &out->child_cpu_ns,
				  &n) == 8 &&
			   !l[n]) {
			out->load_ok = lok;
			got |= 256;
		} else if (g_str_has_prefix(l, "message ")) {
			out->message = g_strcompress(l + 8);
		} else {
			bad = "a line this dps does not know";
		}
	}
	if (!bad && !ended) {
		bad = "truncated (no \"end\" line)";
	} else if (!bad && got != 511) {
		bad = "incomplete (a field is missing before its \"end\" line)";
	} else if (!bad && out->ok && !out->sut_ns) {
		bad = "an ok run of 0 ns";
	}
	g_strfreev(lines);
	return bad;
}

static int compare_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The result files of dir/results, read: the sound ones into ok (by run: the first by name),
 * the others named on notes; the problems counted in *n_left_out. */
static enum dps_status read_results(const struct whatif_plan *p, FILE *notes, struct result **used,
				    GPtrArray *all, size_t *n_left_out, struct dps_diag *diag)
{
	char *rdir = g_build_filename(p->dir, "results", NULL);
	GDir *d = g_dir_open(rdir, 0, NULL);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *name;

	if (!d) {
		dps_diag_setf(diag, "%s: no results directory (expected the plan's results/)",
			      rdir);
		g_free(rdir);
		g_ptr_array_free(names, TRUE);
		return DPS_ERR_INVAL;
	}
	while ((name = g_dir_read_name(d))) {
		/* run-N.HOST.PID; its .err (a failed run's stderr) and SLURM's logs are no results
		 */
		if (g_str_has_prefix(name, "run-") && !g_str_has_suffix(name, ".err") &&
		    !g_str_has_suffix(name, ".times") && !strstr(name, ".tmp")) {
			g_ptr_array_add(names, g_strdup(name));
		}
	}
	g_dir_close(d);
	g_ptr_array_sort(names, compare_str);
	for (size_t i = 0; i < names->len; i++) {
		char *path = g_build_filename(rdir, names->pdata[i], NULL);
		struct result *r = g_new0(struct result, 1);
		gchar *text = NULL;
		const char *bad = NULL;

		r->name = g_strdup(names->pdata[i]);
		if (!g_file_get_contents(path, &text, NULL, NULL)) {
			bad = "unreadable";
		} else {
			bad = result_parse(text, r);
		}
		if (!bad && strcmp(r->fp, p->fingerprint)) {
			bad = "ran with another calibration than this plan's (another plan's "
			      "result?)";
		}
		if (!bad && (r->run >= p->n_runs || p->runs[r->run].pt != r->point ||
			     p->runs[r->run].rep != r->rep)) {
			bad = "names a run this plan does not have";
		}
		if (bad) {
			fprintf(notes, "dps whatif: collect: results/%s: %s; left out\n", r->name,
				bad);
			(*n_left_out)++;
			result_free(r);
		} else if (used[r->run] && used[r->run]->ok) {
			fprintf(notes,
				"dps whatif: collect: results/%s: run %zu written twice (on %s; "
				"results/%s, on %s, is kept); left out\n",
				r->name, r->run, r->host, used[r->run]->name, used[r->run]->host);
			(*n_left_out)++;
			g_ptr_array_add(all, r);
		} else {
			if (used[r->run]) {
				fprintf(notes,
					"dps whatif: collect: run %zu failed once (results/%s, on "
					"%s) and ran again (results/%s)\n",
					r->run, used[r->run]->name, used[r->run]->host, r->name);
			}
			used[r->run] = r;
			g_ptr_array_add(all, r);
		}
		g_free(text);
		g_free(path);
	}
	g_ptr_array_free(names, TRUE);
	g_free(rdir);
	return DPS_OK;
}

/* Each node's loop rate (the median of its runs'); refuses mixed nodes unless told. */
static enum dps_status check_nodes(const struct whatif_collect_options *o,
				   const struct whatif_plan *p, struct result **used, size_t n,
				   struct dps_diag *diag)
{
	GHashTable *rate = g_hash_table_new(g_str_hash, g_str_equal); /* host -> result */
	GHashTableIter it;
	gpointer k, v;
	const struct result *lo = NULL, *hi = NULL;
	double spread = DPS_CALIBRATION_SPREAD_PCT_MAX, off;
	enum dps_status st = DPS_OK;

	for (size_t i = 0; i < n; i++) {
		if (used[i] && !g_hash_table_contains(rate, used[i]->host)) {
			g_hash_table_insert(rate, used[i]->host, used[i]);
		}
	}
	g_hash_table_iter_init(&it, rate);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const struct result *r = v;

		lo = !lo || r->loops < lo->loops ? r : lo;
		hi = !hi || r->loops > hi->loops ? r : hi;
		spread = MAX(spread, r->spread);
		fprintf(o->notes,
			"dps whatif: collect: node %s: busy loop %.1f per us (the plan's "
			"calibration: %.1f)\n",
			r->host, r->loops, p->loops_per_us);
	}
	off = lo && lo->loops > 0 ? (hi->loops / lo->loops - 1) * 100 : 0;
	if (g_hash_table_size(rate) > 1 && off > spread) {
		char *what = g_strdup_printf(
		    "the nodes' calibrations disagree: %s runs its busy loop at %.1f per us, %s at "
		    "%.1f (%.1f %% apart, beyond the calibration's noise, %.1f %%): they are not "
		    "identical nodes, and their times are not one curve's",
		    hi->host, hi->loops, lo->host, lo->loops, off, spread);

		if (o->mixed_nodes) {
			fprintf(o->notes, "dps whatif: collect: warning: %s (--mixed-nodes)\n",
				what);
		} else {
			dps_diag_setf(diag,
				      "%s. Run the plan on one kind of node (--slurm-constraint), "
				      "or collect anyway with --mixed-nodes",
				      what);
			st = DPS_ERR_INVAL;
		}
		g_free(what);
	}
	g_hash_table_destroy(rate);
	return st;
}

/* A node whose runs are much slower than their points' medians, named. */
static void find_slow_nodes(FILE *notes, const struct whatif_plan *p,
			    const struct whatif_point_list *pl, struct result **used)
{
	GHashTable *by = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
					       (GDestroyNotify)g_array_unref); /* host -> ratios */
	GHashTableIter it;
	gpointer k, v;

	for (size_t i = 0; i < p->n_runs; i++) {
		GArray *a;
		double ratio;

		if (!used[i] || !used[i]->ok || !pl->pts[used[i]->point]->median_ns) {
			continue;
		}
		a = g_hash_table_lookup(by, used[i]->host);
		if (!a) {
			a = g_array_new(FALSE, FALSE, sizeof(double));
			g_hash_table_insert(by, used[i]->host, a);
		}
		ratio = (double)used[i]->sut_ns / (double)pl->pts[used[i]->point]->median_ns;
		g_array_append_val(a, ratio);
	}
	g_hash_table_iter_init(&it, by);
	while (g_hash_table_size(by) > 1 && g_hash_table_iter_next(&it, &k, &v)) {
		GArray *a = v;
		double m = median_of((double *)(void *)a->data, a->len);

		if ((m - 1) * 100 > COLLECT_SLOW_PCT) {
			fprintf(notes,
				"dps whatif: collect: warning: node %s is much slower than the "
				"others: its %u runs take a median %+.1f %% over their points' "
				"medians\n",
				(const char *)k, a->len, (m - 1) * 100);
		}
	}
	g_hash_table_destroy(by);
}

/* The points' runs and load from the results used; the runs missing or failed named. */
static void fill_points(const struct whatif_collect_options *o, const struct whatif_plan *p,
			struct whatif_result *r, const struct whatif_point_list *pl,
			struct result **used, GString *holes)
{
	struct dps_load_sample *sums = g_new0(struct dps_load_sample, pl->n + 1);
	uint64_t *child = g_new0(uint64_t, pl->n + 1);
	struct dps_load sweep;
	size_t n_missing = 0, n_failed = 0;
	double wall = 0;

	for (size_t i = 0; i < pl->n; i++) {
		pl->pts[i]->runs_ns = g_new0(uint64_t, p->o.repeat);
		pl->pts[i]->n_runs = 0;
	}
	for (size_t i = 0; i < p->n_runs; i++) {
		const struct result *u = used[i];
		struct whatif_point *pt = pl->pts[p->runs[i].pt];

		if (!u) {
			fprintf(o->notes,
				"dps whatif: collect: run %zu (point %zu, repetition %u) has no "
				"result\n",
				i, p->runs[i].pt, p->runs[i].rep);
			g_string_append_printf(holes, "%s%zu", n_missing + n_failed ? ", " : "", i);
			n_missing++;
			continue;
		}
		if (!u->ok) {
			fprintf(o->notes, "dps whatif: collect: run %zu failed on %s: %s\n", i,
				u->host, u->message ? u->message : "(no message)");
			g_string_append_printf(holes, "%s%zu (failed on %s)",
					       n_missing + n_failed ? ", " : "", i, u->host);
			n_failed++;
			continue;
		}
		pt->runs_ns[pt->n_runs++] = u->sut_ns;
		wall += (double)u->sut_ns / 1e9;
		for (size_t s = 0; u->load_ok && s < 2; s++) {
			struct dps_load_sample *sum = &sums[s ? pl->n : p->runs[i].pt];

			sum->ok = true;
			sum->ticks_per_s = u->delta.ticks_per_s;
			sum->cpus = u->delta.cpus;
			sum->t_s += u->delta.t_s;
			sum->busy_ticks += u->delta.busy_ticks;
			sum->total_ticks += u->delta.total_ticks;
			sum->steal_ticks += u->delta.steal_ticks;
			child[s ? pl->n : p->runs[i].pt] += u->child_cpu_ns;
		}
	}
	{
		struct dps_load_sample zero = {.ok = true};

		sweep = dps_load_between(&zero, &sums[pl->n], child[pl->n]);
		for (size_t i = 0; i < pl->n; i++) {
			struct dps_load l = dps_load_between(&zero, &sums[i], child[i]);

			if (!pl->pts[i]->n_runs) {
				continue;
			}
			whatif_point_summarize(pl->pts[i]);
			pl->pts[i]->others_pct = l.others_pct;
			pl->pts[i]->steal_pct = l.steal_pct;
			pl->pts[i]->loaded = sums[i].ok && whatif_point_loaded(&l, &sweep);
		}
	}
	r->others_pct = sweep.others_pct;
	r->steal_pct = sweep.steal_pct;
	r->wall_s = wall;
	if (n_missing + n_failed) {
		size_t n_bad = n_missing + n_failed;
		char *head = g_strdup_printf(
		    "%zu of %zu runs %s %s (run%s ", n_bad, p->n_runs, n_bad == 1 ? "is" : "are",
		    n_failed ? "missing or failed" : "missing", n_bad == 1 ? "" : "s");

		g_string_prepend(holes, head);
		g_string_append(holes, ")");
		g_free(head);
	} else {
		g_string_assign(holes, "every run has a result");
	}
	g_free(child);
	g_free(sums);
}

/* The partial doubt: which points lack repetitions. */
static void add_partial(const struct whatif_plan *p, struct whatif_result *r,
			const struct whatif_point_list *pl, const char *holes, size_t n_left_out)
{
	GString *short_pts = g_string_new(NULL);
	size_t n_short = 0;

	for (size_t i = 0; i < pl->n; i++) {
		const struct whatif_point *pt = pl->pts[i];

		if (pt->n_runs < p->o.repeat) {
			g_string_append_printf(short_pts, "%s%s %.2f has %zu of %u",
					       n_short ? ", " : "",
					       pt->kind == WHATIF_POINT_BUSY   ? "scale"
					       : pt->kind == WHATIF_POINT_FLAT ? "flat"
					       : pt->kind == WHATIF_POINT_IDLE ? "idle"
									       : "original",
					       pt->scale, pt->n_runs, p->o.repeat);
			n_short++;
		}
	}
	if (n_short) {
		whatif_doubt_add(
		    r, WHATIF_DOUBT_PARTIAL,
		    g_strdup_printf(
			"The study is partial: %s%s; %zu point%s lack%s repetitions "
			"(%s), so its curve has holes.",
			holes, n_left_out ? ", result files left out (named when collected)" : "",
			n_short, n_short == 1 ? "" : "s", n_short == 1 ? "s" : "", short_pts->str),
		    g_strdup_printf(
			"run the runs named again (dps whatif --run-one N %s, or sbatch "
			"--array=N %s/slurm.sbatch), then collect again",
			p->dir, p->dir));
	}
	g_string_free(short_pts, TRUE);
}

/* "Collected from the plan DIR: U of N runs, on K nodes (a: 7 runs, b: 8); L result files
 * left out (named on stderr)." (g_free) */
static char *collected_line(const struct whatif_plan *p, struct result **used, size_t n_left_out)
{
	GHashTable *runs = g_hash_table_new(g_str_hash, g_str_equal); /* host -> count */
	GString *s = g_string_new(NULL), *nodes = g_string_new(NULL);
	GList *hosts;
	size_t n_ok = 0;

	for (size_t i = 0; i < p->n_runs; i++) {
		if (used[i] && used[i]->ok) {
			gpointer c = g_hash_table_lookup(runs, used[i]->host);

			g_hash_table_insert(runs, used[i]->host,
					    GSIZE_TO_POINTER(GPOINTER_TO_SIZE(c) + 1));
			n_ok++;
		}
	}
	hosts = g_list_sort(g_hash_table_get_keys(runs), (GCompareFunc)strcmp);
	for (GList *h = hosts; h; h = h->next) {
		size_t c = GPOINTER_TO_SIZE(g_hash_table_lookup(runs, h->data));

		g_string_append_printf(nodes, "%s%s: %zu run%s", h == hosts ? "" : ", ",
				       (const char *)h->data, c, c == 1 ? "" : "s");
	}
	g_string_printf(s, "Collected from the plan %s: %zu of %zu runs, on %u node%s (%s)", p->dir,
			n_ok, p->n_runs, g_hash_table_size(runs),
			g_hash_table_size(runs) == 1 ? "" : "s", nodes->str);
	if (n_left_out) {
		g_string_append_printf(s, "; %zu result file%s left out (named on stderr)",
				       n_left_out, n_left_out == 1 ? "" : "s");
	}
	g_string_append_c(s, '.');
	g_list_free(hosts);
	g_string_free(nodes, TRUE);
	g_hash_table_destroy(runs);
	return g_string_free(s, FALSE);
}

/* OUTDIR: the marker and the three outputs, whole or not at all. */
static enum dps_status write_outdir(const struct whatif_collect_options *o, struct whatif_result *r,
				    struct dps_diag *diag)
{
	struct dps_out_dir od = {0};
	char *marker;
	FILE *f;
	enum dps_status st = dps_out_dir_begin(
	    &od, o->outdir, whatif_is_output_dir, "an earlier dps whatif's output (no whatif.info)",
	    DPS_OUT_PARENTS | (o->force ? DPS_OUT_FORCE : 0), diag);

	if (st) {
		return st;
	}
	marker = g_build_filename(od.tmp, "whatif.info", NULL);
	f = fopen(marker, "w");
	if (!f) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", marker, errno,
			      strerror(errno));
		st = DPS_ERR_IO;
	} else {
		fprintf(f,
			"# dps whatif output: the next dps whatif -o here replaces this directory "
			"whole\ncollected %s\n",
			o->dir);
		st = dps_out_close(f, marker, diag);
	}
	st = st ? st : whatif_write_outputs(r, od.tmp, diag);
	if (st) {
		dps_out_dir_abort(&od);
	} else {
		st = dps_out_dir_commit(&od, diag);
		r->workdir = st ? NULL : g_strdup(o->outdir);
	}
	g_free(marker);
	return st;
}

enum dps_status whatif_collect(const struct whatif_collect_options *o, struct whatif_result *result,
			       struct dps_diag *diag)
{
	struct whatif_plan p;
	struct whatif_point_list pl = {0};
	struct result **used = NULL;
	GPtrArray *all = g_ptr_array_new_with_free_func(result_free);
	GString *holes = g_string_new(NULL);
	size_t n_left_out = 0;
	enum dps_status st;

	*result = (struct whatif_result){0};
	dps_diag_clear(diag);
	if (o->outdir) {
		st = dps_out_dir_check(o->outdir, whatif_is_output_dir,
				       "an earlier dps whatif's output (no whatif.info)",
				       DPS_OUT_PARENTS | (o->force ? DPS_OUT_FORCE : 0), diag);
		if (st) {
			g_ptr_array_free(all, TRUE);
			g_string_free(holes, TRUE);
			return st;
		}
	}
	st = whatif_plan_load(o->dir, &p, diag);
	if (st) {
		goto end;
	}
	used = g_new0(struct result *, p.n_runs + 1);
	st = read_results(&p, o->notes, used, all, &n_left_out, diag);
	st = st ? st : check_nodes(o, &p, used, p.n_runs, diag);
	if (st) {
		goto end;
	}
	/* the result as the plan left it, then the runs: pre's fields are taken */
	*result = p.pre;
	p.pre = (struct whatif_result){0};
	result->repeat = p.o.repeat;
	result->seed = p.o.seed;
	whatif_points_make(&p.o, result, &pl);
	fill_points(o, &p, result, &pl, used, holes);
	find_slow_nodes(o->notes, &p, &pl, used);
	whatif_points_done(result, &pl);
	whatif_fit_result(result);
	add_partial(&p, result, &pl, holes->str, n_left_out);
	whatif_doubts_after(result);
	result->collected = collected_line(&p, used, n_left_out);
	if (o->outdir) {
		st = write_outdir(o, result, diag);
	}
end:
	whatif_point_list_fini(&pl);
	g_string_free(holes, TRUE);
	g_ptr_array_free(all, TRUE);
	g_free(used);
	whatif_plan_fini(&p);
	return st;
}
