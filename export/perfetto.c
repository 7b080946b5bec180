/* SPDX-License-Identifier: MIT */
/*
 * The Chrome/Perfetto JSON trace-event writer (export.h, dps_export_write_perfetto; the format:
 * "Trace Event Format", Google, and Perfetto's JSON importer; doc/export.md).
 *
 * The file is one object: "displayTimeUnit" first (Perfetto reads it only before the events),
 * "otherData" (what made the file), then "traceEvents". Perfetto stops reading at a top-level
 * key it does not know, so no other key is written.
 *
 * Each run is a process, each of its threads a track:
 *   M  process_name, process_sort_index, thread_name, thread_sort_index (names are outside
 *      text: dps_json_string escapes them);
 *   X  one complete slice per timeline segment ("run", "preempted", "blocked"), in time order;
 *   s/f  a flow from the waker's slice at the wake-up to the woken thread's first slice after
 *      its block; the same from a thread's exit to the thread that joined it. A v1 flow event binds
 * to the slice open on its track when it is read, and the importers read events in timestamp order,
 * keeping the file's order for equal timestamps: so each flow event is written right after its
 * slice, the "f" with "bp":"e" (bind to the enclosing slice, not the next one); a wake-up outside
 * any slice of the waker gets no arrow. Flow ids are unique in the file; C  the process's heap in
 * use (the sum of its threads' heap), when it has memory samples.
 *
 * Times are us with three decimals (whole ns) from the run's first instant, so every run of
 * the file starts at 0 and two runs line up. Real pids and tids are kept when they are known
 * and unique in the file; others get ids above the kernel's PID_MAX_LIMIT (2^22), which no
 * real one reaches.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "export.h"
#include "text-out.h"

#define SYNTHETIC_ID_BASE 4194304u /* PID_MAX_LIMIT on 64-bit Linux */

/* A flow event to write right after its slice. */
struct flow_ev {
	size_t seg;  /* the slice it binds to: an index in the thread's segments */
	uint64_t ts; /* ns */
	uint64_t id;
	char ph;   /* 's' or 'f' */
	bool join; /* an exit reaped by a join, not a wake-up */
};

/* One run being written. */
struct run_out {
	const struct analyzer_result *model; /* borrowed */
	uint32_t pid;
	uint32_t *tid;	    /* owned: per thread, the id in the file */
	char **name;	    /* owned: per thread, "comm [tree path]" (g_strfreev) */
	size_t *order;	    /* owned: per thread, its place depth-first in the creation tree */
	GArray **flows;	    /* owned: per thread, struct flow_ev sorted by (seg, ts) */
	uint64_t origin_ns; /* the run's first instant */
};

/* The file-wide state: ids in use, the next synthetic one, the next flow id. */
struct writer {
	FILE *out;	   /* borrowed */
	GHashTable *used;  /* owned: ids (pids and tids) in the file */
	uint32_t next_syn; /* next synthetic id */
	uint64_t next_flow;
	bool first; /* no event written yet (no comma before the next) */
};

/* A thread's name as dps compare shows it: its comm, or "(unnamed)". */
static const char *thread_name(const struct analyzer_thread *th)
{
	return th->comm && th->comm[0] ? th->comm : "(unnamed)";
}

/* An id for a pid or tid: the real one when known and free, else a synthetic one. */
static uint32_t take_id(struct writer *w, int64_t real)
{
	uint32_t id;

	if (real > 0 && real < SYNTHETIC_ID_BASE &&
	    !g_hash_table_contains(w->used, GUINT_TO_POINTER((guint)real))) {
		id = (uint32_t)real;
	} else {
		id = w->next_syn++;
	}
	g_hash_table_add(w->used, GUINT_TO_POINTER((guint)id));
	return id;
}

/* ns -> "us.nnn" (a JSON number, exact to the ns). */
static void write_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Starts an event: the separator, then "{\"ph\":\"P\",\"pid\":N,\"tid\":N". */
static void begin_event(struct writer *w, char ph, uint32_t pid, uint32_t tid)
{
	fprintf(w->out, "%s\n{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32,
		w->first ? "" : ",", ph, pid, tid);
	w->first = false;
}

static int cmp_create_rank(const void *a, const void *b)
{
	const struct analyzer_thread *const *x = a, *const *y = b;

	if ((*x)->create_rank != (*y)->create_rank) {
		return (*x)->create_rank < (*y)->create_rank ? -1 : 1;
	}
	return (*x)->start_ns < (*y)->start_ns ? -1 : (*x)->start_ns > (*y)->start_ns;
}

/* Names every thread "comm [path]" (its place in the creation tree, as dps compare's rows)
 * and numbers them depth-first, so both runs of a replay list matching threads in the same
 * order. A thread whose creator is not in the model is a root of its own ("~N"). */
static void name_threads(struct run_out *r)
{
	const struct analyzer_result *m = r->model;
	GPtrArray **children = g_new0(GPtrArray *, m->n_threads);
	GPtrArray *stack = g_ptr_array_new();
	char **path = g_new0(char *, m->n_threads + 1); /* NULL-terminated */
	size_t next = 0;

	for (size_t i = 0; i < m->n_threads; i++) {
		size_t p = m->threads[i].parent;

		if (i != m->root && p < m->n_threads && p != i) {
			if (!children[p]) {
				children[p] = g_ptr_array_new();
			}
			g_ptr_array_add(children[p], &m->threads[i]);
		}
	}
	for (size_t i = 0; i < m->n_threads; i++) {
		if (children[i]) {
			qsort(children[i]->pdata, children[i]->len, sizeof(void *),
			      cmp_create_rank);
		}
	}
	/* Depth-first from the root, then from every thread left without a path (its creator
	 * is missing, or a cycle kept it out), in index order. */
	for (size_t start = 0; start <= m->n_threads; start++) {
		size_t s = start == 0 ? m->root : start - 1;

		if (s >= m->n_threads || path[s]) {
			continue;
		}
		path[s] = s == m->root ? g_strdup("0") : g_strdup_printf("~%zu", s);
		g_ptr_array_add(stack, &m->threads[s]);
		while (stack->len) {
			const struct analyzer_thread *th =
			    g_ptr_array_steal_index(stack, stack->len - 1);
			size_t i = (size_t)(th - m->threads);

			r->order[i] = next++;
			for (guint c = children[i] ? children[i]->len : 0; c-- > 0;) {
				const struct analyzer_thread *ch = children[i]->pdata[c];
				size_t ci = (size_t)(ch - m->threads);

				if (path[ci]) {
					continue;
				}
				path[ci] = g_strdup_printf("%s.%zu", path[i], ch->create_rank);
				g_ptr_array_add(stack, (void *)ch);
			}
		}
	}
	for (size_t i = 0; i < m->n_threads; i++) {
		r->name[i] = g_strdup_printf("%s [%s]", thread_name(&m->threads[i]), path[i]);
		if (children[i]) {
			g_ptr_array_free(children[i], TRUE);
		}
	}
	g_strfreev(path);
	g_free(children);
	g_ptr_array_free(stack, TRUE);
}

/* The run's first instant: its root's start, or anything earlier. */
static uint64_t run_origin(const struct analyzer_result *m)
{
	uint64_t o = m->root < m->n_threads ? m->threads[m->root].start_ns : UINT64_MAX;

	for (size_t i = 0; i < m->n_threads; i++) {
		const struct analyzer_thread *th = &m->threads[i];

		o = MIN(o, th->start_ns);
		if (th->n_segs) {
			o = MIN(o, th->segs[0].begin_ns);
		}
		if (th->n_marks) {
			o = MIN(o, th->marks[0].ts_ns);
		}
		if (th->n_mem) {
			o = MIN(o, th->mem[0].ts_ns);
		}
	}
	return o == UINT64_MAX ? 0 : o;
}

/* The index of th's slice that holds ts (begin <= ts <= end, not empty), or SIZE_MAX. When
 * ts is where one slice ends and the next begins, the one that ends: the waker wakes at the
 * end of its run. */
static size_t slice_at(const struct analyzer_thread *th, uint64_t ts)
{
	size_t lo = 0, hi = th->n_segs;

	/* the first segment that begins after ts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (th->segs[mid].begin_ns <= ts) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (size_t i = lo; i-- > 0;) {
		const struct analyzer_segment *sg = &th->segs[i];

		if (sg->end_ns < ts) {
			break;
		}
		if (sg->end_ns > sg->begin_ns) {
			/* prefer the one that ends at ts over one that begins there */
			if (i > 0 && sg->begin_ns == ts && th->segs[i - 1].end_ns == ts &&
			    th->segs[i - 1].end_ns > th->segs[i - 1].begin_ns) {
				return i - 1;
			}
			return i;
		}
	}
	return SIZE_MAX;
}

/* The wake-up of thread t that ended its block seg: the waker's last WAKE mark naming t
 * within the block, or NULL. */
static const struct analyzer_mark *find_wake(const struct analyzer_thread *waker, size_t t,
					     const struct analyzer_segment *seg)
{
	size_t lo = 0, hi = waker->n_marks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (waker->marks[mid].ts_ns <= seg->end_ns) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (size_t i = lo; i-- > 0 && waker->marks[i].ts_ns >= seg->begin_ns;) {
		const struct analyzer_mark *mk = &waker->marks[i];

		if (mk->kind == ANALYZER_MARK_WAKE && mk->other == t) {
			return mk;
		}
	}
	return NULL;
}

/* When thread th exited, for the arrow to the thread that joined it in block seg: its exit
 * mark before the block ends, else the block's end (the joiner is woken in the exit path,
 * before the kernel's exit event), or th's end when that is earlier. */
static uint64_t exit_time(const struct analyzer_thread *th, const struct analyzer_segment *seg)
{
	for (size_t i = th->n_marks; i-- > 0;) {
		const struct analyzer_mark *mk = &th->marks[i];

		if (mk->kind == ANALYZER_MARK_EXIT && mk->ts_ns <= seg->end_ns) {
			return mk->ts_ns;
		}
	}
	return MIN(th->end_ns, seg->end_ns);
}

static gint cmp_flow(gconstpointer a, gconstpointer b)
{
	const struct flow_ev *x = a, *y = b;

	if (x->seg != y->seg) {
		return x->seg < y->seg ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Pairs every wait with the wake-up that ended it, and every join with the exit that ended
 * it: an 's' on the waker's (the exiting thread's) slice at that instant and an 'f' on the
 * blocked thread's next slice, both bound (slice_at) or neither written. */
static void collect_flows(struct writer *w, struct run_out *r)
{
	const struct analyzer_result *m = r->model;

	for (size_t t = 0; t < m->n_threads; t++) {
		r->flows[t] = g_array_new(FALSE, FALSE, sizeof(struct flow_ev));
	}
	for (size_t t = 0; t < m->n_threads; t++) {
		const struct analyzer_thread *th = &m->threads[t];

		for (size_t i = 0; i < th->n_segs; i++) {
			const struct analyzer_segment *sg = &th->segs[i];
			bool join = sg->kind == ANALYZER_SEG_JOIN;
			const struct analyzer_thread *waker;
			const struct analyzer_mark *mk;
			size_t from = SIZE_MAX, to = i + 1;
			uint64_t ts = 0;
			struct flow_ev s, f;

			if ((sg->kind != ANALYZER_SEG_WAIT && !join) || sg->other >= m->n_threads ||
			    sg->other == t) {
				continue;
			}
			waker = &m->threads[sg->other];
			if (join) {
				ts = exit_time(waker, sg);
				from = slice_at(waker, ts);
			} else if ((mk = find_wake(waker, t, sg))) {
				ts = mk->ts_ns;
				from = slice_at(waker, ts);
			}
			while (to < th->n_segs && th->segs[to].end_ns <= th->segs[to].begin_ns) {
				to++;
			}
			if (from == SIZE_MAX || to >= th->n_segs) {
				continue;
			}
			s = (struct flow_ev){from, ts, w->next_flow, 's', join};
			f = (struct flow_ev){to, th->segs[to].begin_ns, w->next_flow, 'f', join};
			w->next_flow++;
			g_array_append_val(r->flows[sg->other], s);
			g_array_append_val(r->flows[t], f);
		}
	}
	for (size_t t = 0; t < m->n_threads; t++) {
		g_array_sort(r->flows[t], cmp_flow);
	}
}

static void write_metadata(struct writer *w, const struct run_out *r,
			   const struct dps_export_run *run, size_t index)
{
	const struct analyzer_result *m = r->model;
	uint32_t root_tid = m->root < m->n_threads ? r->tid[m->root] : r->pid;
	const char *root_name =
	    m->root < m->n_threads ? thread_name(&m->threads[m->root]) : "(no root)";
	char *pname =
	    run->role ? g_strdup_printf("%s: %s", run->role, root_name) : g_strdup(root_name);

	begin_event(w, 'M', r->pid, root_tid);
	fputs(",\"name\":\"process_name\",\"args\":{\"name\":", w->out);
	dps_json_string(w->out, pname, false);
	fputs("}}", w->out);
	begin_event(w, 'M', r->pid, root_tid);
	fprintf(w->out, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%zu}}", index);
	begin_event(w, 'M', r->pid, root_tid);
	fputs(",\"name\":\"process_labels\",\"args\":{\"labels\":", w->out);
	dps_json_string(w->out, run->source, false);
	fputs("}}", w->out);
	for (size_t t = 0; t < m->n_threads; t++) {
		begin_event(w, 'M', r->pid, r->tid[t]);
		fputs(",\"name\":\"thread_name\",\"args\":{\"name\":", w->out);
		dps_json_string(w->out, r->name[t], false);
		fputs("}}", w->out);
		begin_event(w, 'M', r->pid, r->tid[t]);
		fprintf(w->out, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%zu}}",
			r->order[t]);
	}
	g_free(pname);
}

static const char *const seg_names[] = {
    [ANALYZER_SEG_RUN] = "run",	      [ANALYZER_SEG_PREEMPTED] = "preempted",
    [ANALYZER_SEG_SLEEP] = "blocked", [ANALYZER_SEG_WAIT] = "blocked",
    [ANALYZER_SEG_JOIN] = "blocked",
};
/* What a blocked slice waited for (its "reason" argument). */
static const char *const block_reasons[] = {
    [ANALYZER_SEG_SLEEP] = "sleep",
    [ANALYZER_SEG_WAIT] = "wait",
    [ANALYZER_SEG_JOIN] = "join",
};

static void write_slice(struct writer *w, const struct run_out *r, size_t t,
			const struct analyzer_segment *sg)
{
	const struct analyzer_result *m = r->model;
	uint32_t kind = sg->kind <= ANALYZER_SEG_JOIN ? sg->kind : ANALYZER_SEG_SLEEP;

	begin_event(w, 'X', r->pid, r->tid[t]);
	fprintf(w->out, ",\"name\":\"%s\",\"cat\":\"dps\",\"ts\":", seg_names[kind]);
	write_us(w->out, sg->begin_ns - r->origin_ns);
	fputs(",\"dur\":", w->out);
	write_us(w->out, sg->end_ns - sg->begin_ns);
	if (kind >= ANALYZER_SEG_SLEEP) {
		fprintf(w->out, ",\"args\":{\"reason\":\"%s\"", block_reasons[kind]);
		if (kind != ANALYZER_SEG_SLEEP && sg->other < m->n_threads) {
			fputs(",\"by\":", w->out);
			dps_json_string(w->out, r->name[sg->other], false);
		}
		fputc('}', w->out);
	}
	fputc('}', w->out);
}

static void write_flow(struct writer *w, const struct run_out *r, size_t t,
		       const struct flow_ev *fe)
{
	begin_event(w, fe->ph, r->pid, r->tid[t]);
	fputs(fe->join ? ",\"name\":\"join\",\"cat\":\"dps.join\",\"ts\":"
		       : ",\"name\":\"wake-up\",\"cat\":\"dps.wake\",\"ts\":",
	      w->out);
	write_us(w->out, fe->ts - r->origin_ns);
	fprintf(w->out, ",\"id\":%" PRIu64 "%s}", fe->id, fe->ph == 'f' ? ",\"bp\":\"e\"" : "");
}

static void write_thread(struct writer *w, const struct run_out *r, size_t t)
{
	const struct analyzer_thread *th = &r->model->threads[t];
	const GArray *flows = r->flows[t];
	guint f = 0;

	for (size_t i = 0; i < th->n_segs; i++) {
		const struct analyzer_segment *sg = &th->segs[i];

		if (sg->end_ns <= sg->begin_ns) {
			continue;
		}
		write_slice(w, r, t, sg);
		for (; f < flows->len && g_array_index(flows, struct flow_ev, f).seg == i; f++) {
			write_flow(w, r, t, &g_array_index(flows, struct flow_ev, f));
		}
	}
}

/* One point of the process's heap curve. */
struct heap_point {
	uint64_t ts;
	size_t thread;
	int64_t heap;
};

static gint cmp_heap_point(gconstpointer a, gconstpointer b)
{
	const struct heap_point *x = a, *y = b;

	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* The heap counter: after every change, the sum of the threads' last heap figures; one point
 * per timestamp (the last). */
static void write_heap(struct writer *w, const struct run_out *r)
{
	const struct analyzer_result *m = r->model;
	uint32_t tid = m->root < m->n_threads ? r->tid[m->root] : r->pid;
	GArray *pts = g_array_new(FALSE, FALSE, sizeof(struct heap_point));
	int64_t *last = g_new0(int64_t, m->n_threads ? m->n_threads : 1);
	int64_t total = 0;

	for (size_t t = 0; t < m->n_threads; t++) {
		for (size_t i = 0; i < m->threads[t].n_mem; i++) {
			struct heap_point p = {m->threads[t].mem[i].ts_ns, t,
					       m->threads[t].mem[i].heap_bytes};

			g_array_append_val(pts, p);
		}
	}
	g_array_sort(pts, cmp_heap_point);
	for (guint i = 0; i < pts->len; i++) {
		const struct heap_point *p = &g_array_index(pts, struct heap_point, i);

		total += p->heap - last[p->thread];
		last[p->thread] = p->heap;
		if (i + 1 < pts->len && g_array_index(pts, struct heap_point, i + 1).ts == p->ts) {
			continue;
		}
		begin_event(w, 'C', r->pid, tid);
		fputs(",\"name\":\"heap\",\"cat\":\"dps.memory\",\"ts\":", w->out);
		write_us(w->out, p->ts - r->origin_ns);
		fprintf(w->out, ",\"args\":{\"bytes\":%" PRId64 "}}", total);
	}
	g_free(last);
	g_array_free(pts, TRUE);
}

static void run_out_fini(struct run_out *r)
{
	size_t n = r->model ? r->model->n_threads : 0;

	for (size_t t = 0; r->flows && t < n; t++) {
		if (r->flows[t]) {
			g_array_free(r->flows[t], TRUE);
		}
	}
	for (size_t t = 0; r->name && t < n; t++) {
		g_free(r->name[t]);
	}
	g_free(r->flows);
	g_free(r->name);
	g_free(r->tid);
	g_free(r->order);
}

static void run_out_init(struct writer *w, struct run_out *r, const struct analyzer_result *m)
{
	size_t n = m->n_threads;

	*r = (struct run_out){.model = m};
	r->tid = g_new0(uint32_t, n ? n : 1);
	r->name = g_new0(char *, n ? n : 1);
	r->order = g_new0(size_t, n ? n : 1);
	r->flows = g_new0(GArray *, n ? n : 1);
	r->origin_ns = run_origin(m);
	r->pid = take_id(w, m->root < n ? m->threads[m->root].pid : -1);
	for (size_t t = 0; t < n; t++) {
		/* the root's tid is the pid: keep them equal when the real ones are */
		if (t == m->root && m->threads[t].tid == m->threads[t].pid &&
		    r->pid == (uint32_t)m->threads[t].pid) {
			r->tid[t] = r->pid;
		} else {
			r->tid[t] = take_id(w, m->threads[t].tid);
		}
	}
	name_threads(r);
	collect_flows(w, r);
}

static void write_other_data(FILE *out, const struct dps_export_input *in)
{
	fputs("\"otherData\":{\"generator\":\"dps export\",\"runs\":", out);
	for (size_t i = 0; i < in->n_runs; i++) {
		fputs(i ? "," : "[", out);
		dps_json_string(out, in->runs[i].source, false);
	}
	fputs(in->n_runs ? "]}" : "[]}", out);
}

enum dps_status dps_export_write_perfetto(const struct dps_export_input *in, FILE *out)
{
	struct writer w = {
	    .out = out,
	    .used = g_hash_table_new(g_direct_hash, g_direct_equal),
	    .next_syn = SYNTHETIC_ID_BASE,
	    .next_flow = 1,
	    .first = true,
	};
	struct run_out runs[2];

	fputs("{\"displayTimeUnit\":\"ns\",", out);
	write_other_data(out, in);
	fputs(",\"traceEvents\":[", out);
	/* every id is taken before any is written: a run's real id is never one that an earlier
	 * run got synthetically (synthetic ids are above any real one anyway) */
	for (size_t i = 0; i < in->n_runs; i++) {
		run_out_init(&w, &runs[i], in->runs[i].model);
	}
	for (size_t i = 0; i < in->n_runs; i++) {
		write_metadata(&w, &runs[i], &in->runs[i], i);
	}
	for (size_t i = 0; i < in->n_runs; i++) {
		for (size_t t = 0; t < runs[i].model->n_threads; t++) {
			write_thread(&w, &runs[i], t);
		}
		write_heap(&w, &runs[i]);
	}
	fputs("\n]}\n", out);
	for (size_t i = 0; i < in->n_runs; i++) {
		run_out_fini(&runs[i]);
	}
	g_hash_table_destroy(w.used);
	return ferror(out) ? DPS_ERR_IO : DPS_OK;
}
