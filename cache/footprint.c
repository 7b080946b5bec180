/* SPDX-License-Identifier: MIT */
/*
 * A component's footprint in the last level (doc/cache.md, "The footprint"): cachegrind counts
 * misses, not reuse distances, and a function's own compulsory misses do not show its working
 * set (its data are often first touched by another function: the kernels' set-up). A miss
 * curve does: the command run again under cachegrind at LL sizes from just above L1D up to 16
 * times the last level, the same ways and line (so every size keeps a power-of-two number of
 * sets), and each function's LL misses read at each size. The knee, the smallest size whose
 * misses are within 1 % of the curve's drop to its floor, is where the function's data fit:
 * its working set lies between the size below and it. By hand on this project's kernels the
 * knee was the working set or the next size up (a pointer chase over 1 MiB: 4,371 misses at
 * 1 MiB, 0 at 2 MiB; random lookups in 4 MiB: 68,621 at 2 MiB, 173 at 4 MiB).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"

/* A drop of the curve within this share of its whole drop is the floor. */
#define KNEE_SHARE 0.01

size_t cache_curve_sizes(const struct cache_geometry *g, uint64_t *sizes)
{
	uint64_t ll = g->ll.size_bytes, s;
	size_t n = 0;

	if (!ll || !g->ll.assoc || !g->ll.line_bytes) {
		return 0;
	}
	/* down by halves while a size holds a set and is above L1D (an LL no larger than L1D
	 * would miss what L1D holds), then up */
	s = ll;
	while (s / 2 >= (uint64_t)g->ll.assoc * g->ll.line_bytes && s / 2 > g->d1.size_bytes &&
	       n < CACHE_CURVE_MAX - CACHE_CURVE_ABOVE - 1) {
		s /= 2;
		n++;
	}
	for (size_t i = 0; i < n + 1 + CACHE_CURVE_ABOVE; i++) {
		sizes[i] = s << i;
	}
	return n + 1 + CACHE_CURVE_ABOVE;
}

void cache_footprint_knee(const uint64_t *sizes, const uint64_t *misses, size_t n,
			  struct cache_footprint *fp)
{
	uint64_t floor, first;
	double drop;

	fp->kind = CACHE_FOOTPRINT_NONE;
	fp->bytes = 0;
	if (n < 2) {
		return; /* no curve: one size shows no knee */
	}
	first = misses[0];
	floor = misses[n - 1];
	if (!first && !floor) {
		fp->kind = CACHE_FOOTPRINT_BELOW;
		fp->bytes = sizes[0];
		return;
	}
	drop = first > floor ? (double)(first - floor) : 0;
	if (drop <= KNEE_SHARE * (double)first) {
		/* no drop to speak of: the data are not reused within the largest size */
		fp->kind = CACHE_FOOTPRINT_ABOVE;
		fp->bytes = sizes[n - 1];
		return;
	}
	for (size_t i = 1; i + 1 < n; i++) {
		double above = misses[i] > floor ? (double)(misses[i] - floor) : 0;

		if (above <= KNEE_SHARE * drop) {
			fp->kind = CACHE_FOOTPRINT_AT;
			fp->bytes = sizes[i];
			return;
		}
	}
	/* still falling at the largest size: no size after it shows the floor, so the footprint
	 * is only known to be more than the size before it (a chase over 64 MiB at 32 MiB) */
	fp->kind = CACHE_FOOTPRINT_ABOVE;
	fp->bytes = sizes[n - 2];
}

void cache_footprint_format(const struct cache_footprint *fp, char *buf, size_t len)
{
	char s[32];

	cache_size_format(fp->bytes, s, sizeof(s));
	switch (fp->kind) {
	case CACHE_FOOTPRINT_AT:
		snprintf(buf, len, "%s", s);
		break;
	case CACHE_FOOTPRINT_BELOW:
		snprintf(buf, len, "<= %s", s);
		break;
	case CACHE_FOOTPRINT_ABOVE:
		snprintf(buf, len, "> %s", s);
		break;
	default:
		snprintf(buf, len, "-");
	}
}

/* Drops p's curve (on error: p as it was captured). */
static void curve_clear(struct cache_profile *p)
{
	for (guint i = 0; i < p->functions->len; i++) {
		struct cache_function *f = g_ptr_array_index(p->functions, i);

		g_free(f->footprint.ll_misses);
		f->footprint = (struct cache_footprint){0};
	}
	g_free(p->total_footprint.ll_misses);
	p->total_footprint = (struct cache_footprint){0};
	g_free(p->curve_bytes);
	p->curve_bytes = NULL;
	p->n_curve = 0;
}

/* Puts run's LL misses at curve point k on p's functions (by name) and total. */
static void take_point(struct cache_profile *p, const struct cache_profile *run, size_t k)
{
	for (guint i = 0; i < p->functions->len; i++) {
		struct cache_function *f = g_ptr_array_index(p->functions, i);
		const struct cache_function *g = cache_profile_borrow_function(run, f->name);

		f->footprint.ll_misses[k] = g ? g->counts.ll_misses : 0;
	}
	p->total_footprint.ll_misses[k] = run->total.ll_misses;
}

/* Every curve's knee. */
static void knees(struct cache_profile *p)
{
	for (guint i = 0; i < p->functions->len; i++) {
		struct cache_function *f = g_ptr_array_index(p->functions, i);

		cache_footprint_knee(p->curve_bytes, f->footprint.ll_misses, p->n_curve,
				     &f->footprint);
	}
	cache_footprint_knee(p->curve_bytes, p->total_footprint.ll_misses, p->n_curve,
			     &p->total_footprint);
}

/* One of the curve's cachegrind runs, on a thread of the pool. */
struct curve_run {
	struct cache_geometry g;
	struct cache_capture_options o; /* o.geom: &g */
	size_t k;			/* its size's index */
	struct cache_profile *run;	/* what it captured (NULL: not run, or failed) */
	int ret, status;
	struct dps_diag diag;
};

/* What the runs share: the progress callback (called under lock) and whether one failed. */
struct curve_pool {
	GMutex lock;
	cache_curve_progress progress;
	void *data;
	const uint64_t *sizes;
	size_t n;
	bool failed; /* the runs not started yet are not started */
};

static void curve_run_one(gpointer task, gpointer user)
{
	struct curve_run *r = task;
	struct curve_pool *pool = user;
	bool skip;

	g_mutex_lock(&pool->lock);
	skip = pool->failed;
	if (!skip && pool->progress) {
		pool->progress(r->k, pool->n, pool->sizes[r->k], pool->data);
	}
	g_mutex_unlock(&pool->lock);
	if (skip) {
		r->ret = DPS_ERROR;
		return;
	}
	r->ret = cache_capture_run(&r->o, &r->run, &r->status, &r->diag);
	if (!r->ret && r->status) {
		r->ret = DPS_ERROR;
	}
	if (r->ret) {
		g_mutex_lock(&pool->lock);
		pool->failed = true;
		g_mutex_unlock(&pool->lock);
	}
}

/*
 * The runs at every size but the capture's own, as many at once as the machine has CPUs (each
 * a cachegrind of the command: its memory as many times over). Returns DPS_OK with runs[k] the
 * profile at size k (NULL at the capture's own), or the first failed run's error in diag.
 */
static int curve_runs(const struct cache_capture_options *opts, const uint64_t *sizes, size_t n,
		      cache_curve_progress progress, void *data, struct curve_run *runs,
		      struct dps_diag *diag)
{
	struct curve_pool pool = {.progress = progress, .data = data, .sizes = sizes, .n = n};
	guint cpus = g_get_num_processors();
	GThreadPool *tp;
	int ret = DPS_OK;

	g_mutex_init(&pool.lock);
	tp = g_thread_pool_new(curve_run_one, &pool, (gint)(cpus ? cpus : 1), TRUE, NULL);
	for (size_t k = 0; k < n; k++) {
		struct curve_run *r = &runs[k];

		r->k = k;
		r->g = *opts->geom;
		r->g.ll.size_bytes = sizes[k];
		r->o = *opts;
		r->o.geom = &r->g;
		r->o.quiet = true; /* the command's output once is enough: the capture's own run */
		if (sizes[k] == opts->geom->ll.size_bytes) {
			if (progress) {
				g_mutex_lock(&pool.lock);
				progress(k, n, sizes[k], data);
				g_mutex_unlock(&pool.lock);
			}
			continue;
		}
		g_thread_pool_push(tp, r, NULL);
	}
	g_thread_pool_free(tp, FALSE, TRUE); /* waits for every run */
	g_mutex_clear(&pool.lock);
	for (size_t k = 0; k < n && !ret; k++) {
		struct curve_run *r = &runs[k];
		char s[32];

		if (!r->ret || (!r->diag.msg[0] && !r->status)) {
			continue; /* done, or not started after another failed */
		}
		cache_size_format(sizes[k], s, sizeof(s));
		if (r->status) {
			dps_diag_setf(
			    diag,
			    "%s exited with status %d under the LL of %s (the footprint's "
			    "run %zu of %zu); it did not the first time: is it "
			    "deterministic?",
			    opts->argv[0], r->status, s, k + 1, n);
		} else {
			dps_diag_setf(diag, "the footprint's run at the LL of %s: %s", s,
				      r->diag.msg);
		}
		ret = r->ret;
	}
	return ret ? ret : DPS_OK;
}

int cache_footprint_capture(const struct cache_capture_options *opts, struct cache_profile *p,
			    cache_curve_progress progress, void *data, struct dps_diag *diag)
{
	uint64_t sizes[CACHE_CURVE_MAX];
	struct curve_run *runs;
	size_t n = opts->geom ? cache_curve_sizes(opts->geom, sizes) : 0;
	int ret;

	if (!n) {
		dps_diag_setf(diag,
			      "no footprint: the last level's geometry is not known (cachegrind "
			      "chose it), so there are no sizes to simulate around it");
		return DPS_ERR_INVAL;
	}
	runs = g_new0(struct curve_run, n);
	ret = curve_runs(opts, sizes, n, progress, data, runs, diag);
	curve_clear(p);
	if (!ret) {
		p->curve_bytes = g_memdup2(sizes, n * sizeof(*sizes));
		p->n_curve = n;
		for (guint i = 0; i < p->functions->len; i++) {
			struct cache_function *f = g_ptr_array_index(p->functions, i);

			f->footprint.ll_misses = g_new0(uint64_t, n);
		}
		p->total_footprint.ll_misses = g_new0(uint64_t, n);
		for (size_t k = 0; k < n; k++) {
			take_point(p, runs[k].run ? runs[k].run : p, k);
		}
		knees(p);
	}
	for (size_t k = 0; k < n; k++) {
		cache_profile_destroy(runs[k].run);
	}
	g_free(runs);
	return ret;
}
