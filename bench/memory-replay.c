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
#include "compare-internal.h"
#include "compare.h"
#include "memory-internal.h"

#define MAX_RUNS 21

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
		const struct dps_actset_action *a = &t->actions[i];

		if (a->kind == DPS_ACT_RUN || a->kind == DPS_ACT_SLEEP) {
			pending += (uint64_t)a->value;
		} else if (a->kind == DPS_ACT_HEAP || a->kind == DPS_ACT_STACK) {
			tab[n].time_ns = pending;
			tab[n].heap_alloc = a->kind == DPS_ACT_HEAP ? a->value : 0;
			tab[n].stack_alloc = a->kind == DPS_ACT_STACK ? a->value : 0;
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

/*
 * The curves go into the comparison report (compare/html.c: one renderer for every chart dps
 * draws): each curve is a thread of two hand-built models, the desired curve on the original
 * side and the measured one on the simulated side, so the report's memory section draws them
 * one over the other (the paper's Figure 3) and its table gives the error per curve.
 */
struct report {
	struct analyzer_result *side[2]; /* owned: [0] desired, [1] measured */
};

static int report_init(struct report *r)
{
	for (int k = 0; k < 2; k++) {
		r->side[k] = analyzer_result_create();
		if (!r->side[k] ||
		    compare_model_add_thread(r->side[k], 0, "memory-replay", ANALYZER_NO_THREAD) ==
			ANALYZER_NO_THREAD) {
			return DPS_ERR_NOMEM;
		}
	}
	return DPS_OK;
}

/* Adds curve c with its measured samples s (the last dps run) to both sides. */
static int report_add(struct report *r, const struct curve *c, const struct dps_mem_sample *s,
		      uint64_t id)
{
	char name[128];

	snprintf(name, sizeof(name), "%s/%llu", c->name, (unsigned long long)c->id);
	for (int k = 0; k < 2; k++) {
		struct analyzer_result *m = r->side[k];
		size_t t = compare_model_add_thread(m, id, name, m->root);
		struct analyzer_thread *th;

		if (t == ANALYZER_NO_THREAD) {
			return DPS_ERR_NOMEM;
		}
		th = &m->threads[t];
		for (size_t i = 0; i < c->n; i++) {
			uint64_t ts = k ? s[i].t_ns : s[i].want_ns;
			int ret = compare_model_add_mem(th, ts, k ? s[i].heap_got : s[i].heap_want,
							k ? s[i].stack_got : s[i].stack_want);

			if (ret) {
				return ret;
			}
			th->end_ns = ts > th->end_ns ? ts : th->end_ns;
		}
		m->threads[m->root].end_ns = th->end_ns > m->threads[m->root].end_ns
						 ? th->end_ns
						 : m->threads[m->root].end_ns;
	}
	return DPS_OK;
}

/* Writes the report to path. Returns 0, or 1 with a message. */
static int report_write(struct report *r, const char *path)
{
	struct compare_html_options ho = {
	    .title = "Main-memory stubs: desired vs measured curves (bench/memory.sh)",
	};
	struct compare_result *cmp = NULL;
	struct dps_diag diag = {0};
	FILE *f;
	int ret;

	ret = compare_run(r->side[0], COMPARE_INPUT_MODEL, "desired", r->side[1],
			  COMPARE_INPUT_MODEL, "measured", NULL, &cmp, &diag);
	if (ret) {
		fprintf(stderr, "memory-replay: %s\n", diag.msg);
		return 1;
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		compare_result_destroy(cmp);
		return 1;
	}
	ret = compare_write_html(cmp, &ho, f);
	if (fclose(f) || ret) {
		fprintf(stderr, "memory-replay: cannot write %s\n", path);
		ret = 1;
	}
	compare_result_destroy(cmp);
	return ret;
}

static void report_fini(struct report *r)
{
	analyzer_result_destroy(r->side[0]);
	analyzer_result_destroy(r->side[1]);
}

int main(int argc, char **argv)
{
	struct curve *curves = NULL;
	size_t n_curves = 0;
	const char *html = NULL;
	int runs = 5;
	struct report rep = {0};
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
	if (html && report_init(&rep)) {
		fprintf(stderr, "memory-replay: out of memory\n");
		return 1;
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
		if (html && report_add(&rep, c, s, k + 1)) {
			fprintf(stderr, "memory-replay: out of memory\n");
			ret = 1;
		}
		free(s);
	}
	if (html && !ret) {
		ret = report_write(&rep, html);
	}
	report_fini(&rep);
	for (size_t k = 0; k < n_curves; k++) {
		free(curves[k].tab);
	}
	free(curves);
	return ret ? 1 : 0;
}
