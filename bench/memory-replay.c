/* SPDX-License-Identifier: MIT */
/*
 * bench/memory.sh's measuring program: replays the heap and stack curve of every thread of
 * recorded action sets with the main-memory stub and measures at every point (heap with
 * mallinfo2, stack with the stack pointer), like the memory-stub paper's section 5.3.
 *
 * For each thread with heap/stack actions, the actions become a data table (the paper's
 * memAlloc array): a point per heap/stack action, its delay = the run/sleep time since the
 * previous one. Each table is played --runs times by dps's stub and, as the floor, by the
 * paper's algorithm as printed (one alloca of the asked bytes per rise, no compensation).
 *
 * Usage: memory-replay [--runs N] [--html FILE] NAME=SETDIR|NAME=@synthetic...
 * @synthetic: a deterministic random walk of 600 points, 2 ms apart, with stack and heap
 * changes of any size (not multiples of 16 like recorded frames), a quarter of them constant.
 * Prints markdown rows; --html writes desired-vs-measured curves (the paper's Figure 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dps/dps-memory.h>

#include "actset.h"
#include "memory-internal.h"

#define MAX_RUNS 21
#define PLOT_POINTS 1500

struct curve {
	const char *name;
	uint64_t id;
	struct dps_mem_alloc *tab;
	size_t n;
};

struct stats {
	int64_t heap_max, stack_max, heap_raw_max;
	double heap_mean, stack_mean;
	double over_pct[MAX_RUNS];
	double late_us[MAX_RUNS];
	int runs;
};

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(const double *v, int n, double q)
{
	double s[MAX_RUNS];
	int i;

	memcpy(s, v, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(double), compare_double);
	i = (int)(q * (n - 1) + 0.5);
	return s[i];
}

/* The thread's actions as a stub table; returns the number of points (0: no memory). */
static size_t build_table(const struct dps_actset_thread *t, struct dps_mem_alloc **out)
{
	struct dps_mem_alloc *tab = calloc(t->n_actions + 1, sizeof(*tab));
	uint64_t pending = 0;
	size_t n = 0;

	*out = tab;
	for (size_t i = 0; tab && i < t->n_actions; i++) {
		const struct dps_action *a = &t->actions[i];

		if (a->kind == DPS_ACT_RUN || a->kind == DPS_ACT_SLEEP) {
			pending += (uint64_t)a->arg;
		} else if (a->kind == DPS_ACT_HEAP || a->kind == DPS_ACT_STACK) {
			tab[n].time_ns = pending;
			tab[n].heap_alloc = a->kind == DPS_ACT_HEAP ? a->arg : 0;
			tab[n].stack_alloc = a->kind == DPS_ACT_STACK ? a->arg : 0;
			pending = 0;
			n++;
		}
	}
	return n;
}

/* A random walk from a fixed seed, so that every run of the bench replays the same curve. */
#define SYNTH_POINTS 600

static size_t build_synthetic(struct dps_mem_alloc **out)
{
	struct dps_mem_alloc *tab = calloc(SYNTH_POINTS, sizeof(*tab));
	uint64_t x = 0x2545f4914f6cdd1dULL;

	*out = tab;
	for (size_t i = 0; tab && i < SYNTH_POINTS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		tab[i].time_ns = 1500000 + x % 1000000;
		tab[i].stack_alloc = (x >> 20) % 4 == 0 ? 0 : (int64_t)((x >> 24) % 1401) - 650;
		tab[i].heap_alloc = (int64_t)((x >> 36) % 9001) - 4000;
	}
	return tab ? SYNTH_POINTS : 0;
}

/* The analyzer starts a curve at the thread's first event; a shrink below it (memory freed
 * that was allocated before the trace) would be refused: clamp at zero, as recorded. */
static void clamp_table(struct dps_mem_alloc *tab, size_t n)
{
	int64_t heap = 0, stack = 0;

	for (size_t i = 0; i < n; i++) {
		if (heap + tab[i].heap_alloc < 0) {
			tab[i].heap_alloc = -heap;
		}
		if (stack + tab[i].stack_alloc < 0) {
			tab[i].stack_alloc = -stack;
		}
		heap += tab[i].heap_alloc;
		stack += tab[i].stack_alloc;
	}
}

static int play(const struct curve *c, bool paper, struct dps_mem_sample *s, struct stats *st)
{
	struct dps__mem_play_internal internal = {.raw_stack = paper};
	struct dps_mem_stub_options opts;
	struct dps_mem_stub_result res;
	char err[256] = "";
	int ret;

	dps_mem_stub_options_default(&opts);
	opts.compensate = !paper;
	/* Time without measuring: mallinfo2 at every point costs about a microsecond, as much as
	 * the gap between points of a dense curve. */
	ret = dps__mem_stub_play_internal(c->tab, c->n, &opts, &internal, &res, err, sizeof(err));
	if (ret) {
		goto end;
	}
	st->late_us[st->runs] = ((double)res.actual_ns - (double)res.want_ns) / 1e3;
	st->over_pct[st->runs++] =
	    res.want_ns
		? 100.0 * ((double)res.actual_ns - (double)res.want_ns) / (double)res.want_ns
		: 0;
	opts.samples = s;
	ret = dps__mem_stub_play_internal(c->tab, c->n, &opts, &internal, NULL, err, sizeof(err));
	if (ret) {
		goto end;
	}
	for (size_t i = 0; i < c->n; i++) {
		int64_t he = llabs(s[i].heap_got - s[i].heap_want);
		int64_t hr = llabs(s[i].heap_raw - s[i].heap_want);
		int64_t se = llabs(s[i].stack_got - s[i].stack_want);

		st->heap_max = he > st->heap_max ? he : st->heap_max;
		st->heap_raw_max = hr > st->heap_raw_max ? hr : st->heap_raw_max;
		st->stack_max = se > st->stack_max ? se : st->stack_max;
		st->heap_mean += (double)he / (double)c->n;
		st->stack_mean += (double)se / (double)c->n;
	}
end:
	if (ret) {
		fprintf(stderr, "memory-replay: %s thread %llu: %s\n", c->name,
			(unsigned long long)c->id, err);
	}
	return ret;
}

static void svg_polyline(FILE *f, const struct dps_mem_sample *s, size_t n, bool measured,
			 bool heap, double x_scale, double y_scale, const char *style)
{
	size_t step = n > PLOT_POINTS ? n / PLOT_POINTS : 1;
	double prev_y = 200;

	fprintf(f, "<polyline fill='none' style='%s' points='0,200", style);
	for (size_t i = 0; i < n; i += step) {
		double x = (double)(measured ? s[i].t_ns : s[i].want_ns) * x_scale;
		double v = (double)(heap ? (measured ? s[i].heap_got : s[i].heap_want)
					 : (measured ? s[i].stack_got : s[i].stack_want));
		double y = 200 - v * y_scale;

		/* a step curve: the value holds until the next point */
		fprintf(f, " %.1f,%.1f %.1f,%.1f", x, prev_y, x, y);
		prev_y = y;
	}
	fprintf(f, "'/>\n");
}

static void plot(FILE *f, const struct curve *c, const struct dps_mem_sample *s)
{
	uint64_t t_max = 1;
	int64_t h_max = 1, s_max = 1;

	for (size_t i = 0; i < c->n; i++) {
		t_max = s[i].t_ns > t_max ? s[i].t_ns : t_max;
		t_max = s[i].want_ns > t_max ? s[i].want_ns : t_max;
		h_max = s[i].heap_want > h_max ? s[i].heap_want : h_max;
		h_max = s[i].heap_got > h_max ? s[i].heap_got : h_max;
		s_max = s[i].stack_want > s_max ? s[i].stack_want : s_max;
		s_max = s[i].stack_got > s_max ? s[i].stack_got : s_max;
	}
	fprintf(f, "<h2>%s, thread %llu: %zu points, %.3f ms</h2>\n", c->name,
		(unsigned long long)c->id, c->n, (double)t_max / 1e6);
	for (int heap = 1; heap >= 0; heap--) {
		fprintf(f,
			"<p>%s (max %lld bytes): <span style='color:#1f77b4'>desired</span>, "
			"<span style='color:#d62728'>measured</span> (%s)</p>\n",
			heap ? "heap in use" : "stack depth", (long long)(heap ? h_max : s_max),
			heap ? "mallinfo2 minus heap_overhead"
			     : "stack pointer minus stack_offset");
		fprintf(f, "<svg width='820' height='210' viewBox='-10 -5 820 210' "
			   "xmlns='http://www.w3.org/2000/svg'><rect x='0' y='0' width='800' "
			   "height='200' fill='#fafafa' stroke='#ccc'/>\n");
		svg_polyline(f, s, c->n, false, heap, 800.0 / (double)t_max,
			     190.0 / (double)(heap ? h_max : s_max),
			     "stroke:#1f77b4;stroke-width:3;opacity:0.5");
		svg_polyline(f, s, c->n, true, heap, 800.0 / (double)t_max,
			     190.0 / (double)(heap ? h_max : s_max),
			     "stroke:#d62728;stroke-width:1");
		fprintf(f, "</svg>\n");
	}
}

int main(int argc, char **argv)
{
	struct curve *curves = NULL;
	size_t n_curves = 0;
	const char *html = NULL;
	int runs = 5;
	FILE *hf = NULL;
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		char *eq;
		struct dps_actset *set = NULL;
		struct dps_diag diag = {0};

		if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = atoi(argv[++i]);
			runs = runs < 1 ? 1 : runs > MAX_RUNS ? MAX_RUNS : runs;
			continue;
		}
		if (!strcmp(argv[i], "--html") && i + 1 < argc) {
			html = argv[++i];
			continue;
		}
		eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr, "usage: memory-replay [--runs N] [--html FILE] "
					"NAME=SETDIR|@synthetic...\n");
			return 2;
		}
		*eq = '\0';
		if (!strcmp(eq + 1, "@synthetic")) {
			struct dps_mem_alloc *tab;
			size_t n = build_synthetic(&tab);

			clamp_table(tab, n);
			curves = realloc(curves, (n_curves + 1) * sizeof(*curves));
			curves[n_curves++] =
			    (struct curve){.name = argv[i], .id = 0, .tab = tab, .n = n};
			continue;
		}
		if (dps_actset_load_dir(eq + 1, &set, &diag)) {
			fprintf(stderr, "memory-replay: %s: %s\n", eq + 1, diag.msg);
			return 1;
		}
		for (size_t t = 0; t < set->n_threads; t++) {
			struct dps_mem_alloc *tab;
			size_t n = build_table(&set->threads[t], &tab);

			if (!n) {
				free(tab);
				continue;
			}
			clamp_table(tab, n);
			curves = realloc(curves, (n_curves + 1) * sizeof(*curves));
			curves[n_curves++] = (struct curve){
			    .name = argv[i], .id = set->threads[t].id, .tab = tab, .n = n};
		}
		dps_actset_destroy(set);
	}
	if (html) {
		hf = fopen(html, "w");
		if (!hf) {
			perror(html);
			return 1;
		}
		fprintf(
		    hf,
		    "<!DOCTYPE html><html><head><meta charset='utf-8'><title>dps memory "
		    "stubs: desired vs measured</title></head><body style='font-family:sans-serif'>"
		    "<h1>Main-memory stubs: desired vs measured curves</h1>\n"
		    "<p>Written by bench/memory.sh (the memory-stub paper's Figure 3).</p>\n");
	}
	printf("| curve | thread | points | curve ms | heap peak B | stack peak B | heap max/mean "
	       "err B "
	       "| heap raw max err B | stack max/mean err B | time overhead %% median (p90), end "
	       "late us median "
	       "| paper-as-printed: stack max err B, time overhead %% median |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < n_curves; k++) {
		const struct curve *c = &curves[k];
		struct dps_mem_sample *s = calloc(c->n, sizeof(*s));
		struct stats dps = {0}, paper = {0};
		uint64_t want = 0;
		int64_t hp = 0, sp = 0, h = 0, st = 0;

		for (size_t i = 0; i < c->n; i++) {
			want += c->tab[i].time_ns;
			h += c->tab[i].heap_alloc;
			st += c->tab[i].stack_alloc;
			hp = h > hp ? h : hp;
			sp = st > sp ? st : sp;
		}
		for (int r = 0; r < runs && !ret; r++) {
			ret = play(c, true, s, &paper);
			if (!ret) {
				ret = play(c, false, s, &dps);
			}
		}
		if (ret) {
			free(s);
			break;
		}
		printf("| %s | %llu | %zu | %.3f | %lld | %lld | %lld / %.1f | %lld | %lld / %.1f "
		       "| %.4f (%.4f), %.1f | %lld, %.4f |\n",
		       c->name, (unsigned long long)c->id, c->n, (double)want / 1e6, (long long)hp,
		       (long long)sp, (long long)dps.heap_max, dps.heap_mean / runs,
		       (long long)dps.heap_raw_max, (long long)dps.stack_max, dps.stack_mean / runs,
		       quantile(dps.over_pct, dps.runs, 0.5), quantile(dps.over_pct, dps.runs, 0.9),
		       quantile(dps.late_us, dps.runs, 0.5), (long long)paper.stack_max,
		       quantile(paper.over_pct, paper.runs, 0.5));
		if (hf) {
			plot(hf, c, s); /* the last dps run */
		}
		free(s);
	}
	if (hf) {
		fprintf(hf, "</body></html>\n");
		fclose(hf);
	}
	for (size_t k = 0; k < n_curves; k++) {
		free(curves[k].tab);
	}
	free(curves);
	return ret ? 1 : 0;
}
