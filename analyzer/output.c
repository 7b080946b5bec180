/* SPDX-License-Identifier: MIT */
/*
 * The result and the action set around the action building (actions.c): a thread's identity
 * and timeline copied into the result (its segments' `other` remapped to result indexes, its
 * statistics counted), each kept thread's actions built in turn, from memory or streamed from
 * the spill file, and written one thread at a time with -o; the set's threads, objects,
 * manifest and options, resolved at the end.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"

bool analyzer__starts_at_exec(struct analyzer_core *core, const struct athread *t)
{
	if (!(t->kept && t->res_idx == 0 && !t->sim.begun && t->exec_ts &&
	      t->exec_ts > (t->created ? t->create_ts : t->first_ts))) {
		return false;
	}
	/* Not when another kept thread began before that exec (a shell that started children
	 * and waited for them, then exec'd; found by fuzz-analyzer-core): the root's creates
	 * and joins of them come before the exec, and the set needs them. */
	for (size_t i = 0; i < core->n_th; i++) {
		const struct athread *o = analyzer__thread_at(core, i);

		if (o != t && o->kept && (o->created ? o->create_ts : o->first_ts) < t->exec_ts) {
			return false;
		}
	}
	return true;
}

int analyzer__copy_identity(struct analyzer_core *core, size_t ci, struct analyzer_thread *rt)
{
	struct athread *t = analyzer__thread_at(core, ci);

	rt->id = analyzer__thread_id(t);
	rt->tid = t->tid > 0 ? t->tid : -1;
	rt->pid = t->pid;
	rt->comm = strdup(t->comm);
	rt->pre_existing = !t->created;
	rt->start_ns = t->created ? t->create_ts : t->first_ts;
	rt->end_ns = analyzer__thread_end(core, t);
	rt->parent = ANALYZER_NO_THREAD;
	if (t->sim.begun) {
		analyzer__sim_window(t, rt);
	} else if (analyzer__starts_at_exec(core, t)) {
		rt->start_ns = t->exec_ts;
		rt->end_ns = rt->end_ns < rt->start_ns ? rt->start_ns : rt->end_ns;
	}
	return rt->comm ? DPS_OK : DPS_ERR_NOMEM;
}

/* Segment s of t as the result has it: `other` a result index, a wait or join on a thread
 * not kept (or the root, never joined) a sleep; one that lttng-ust's listener thread ended
 * (the program's constructor waiting for the session daemon) marked the tracer's. */
void analyzer__remap_seg(struct analyzer_core *core, const struct athread *t,
			 struct analyzer_segment *s)
{
	if (s->kind == ANALYZER_SEG_WAIT || s->kind == ANALYZER_SEG_JOIN) {
		struct athread *o = analyzer__thread_at(core, s->other);

		if (!o->kept || o == t || (s->kind == ANALYZER_SEG_JOIN && o->res_idx == 0)) {
			/* Not selected, or the root (never created, so never joined: the
			 * process exiting woke its other threads). */
			s->kind = ANALYZER_SEG_SLEEP;
			s->other =
			    !o->kept && o->pid == t->pid && analyzer__is_tracer_thread(core, o)
				? ANALYZER_OTHER_TRACER
				: 0;
		} else {
			s->other = (uint32_t)o->res_idx;
		}
	}
}

static void count_seg(const struct analyzer_segment *s, struct analyzer_thread_stats *st,
		      uint64_t *run_sum)
{
	uint64_t d = s->end_ns - s->begin_ns;

	switch (s->kind) {
	case ANALYZER_SEG_RUN:
		st->busy_ns += d;
		*run_sum += d;
		break;
	case ANALYZER_SEG_PREEMPTED:
		st->waiting_ns += d;
		break;
	default:
		st->blocked_ns += d;
		break;
	}
}

/* Everything but the segments: the statistics the kernel kept, the marks, the samples (moved
 * into rt unless streamed). */
static int copy_rest(struct analyzer_core *core, struct athread *t, struct analyzer_thread *rt,
		     bool streamed)
{
	struct analyzer_thread_stats *st = &rt->stats;
	size_t n = 0;

	if (t->sched.has_runtime && core->has_sched) {
		st->busy_ns = t->sched.runtime_ns;
		st->busy_untracked_ns = t->sched.runtime_untracked_ns;
		if (t->sim.begun) {
			st->busy_ns = (t->sim.ended ? t->sim.runtime_at_end : t->sched.runtime_ns) -
				      t->sim.runtime_at_begin;
			st->busy_untracked_ns = 0;
		} else if (analyzer__starts_at_exec(core, t)) {
			st->busy_ns = t->sched.runtime_ns > t->exec_runtime_ns
					  ? t->sched.runtime_ns - t->exec_runtime_ns
					  : 0;
			st->busy_untracked_ns = st->busy_untracked_ns < st->busy_ns
						    ? st->busy_untracked_ns
						    : st->busy_ns;
		}
		st->busy_exact = true;
	}
	st->n_switches = t->sched.n_switches;
	st->n_inferred = t->sched.n_inferred;
	st->n_allocs = t->memory.n_allocs;
	st->n_frees = t->memory.n_frees;
	st->n_free_null = t->memory.n_free_null;
	st->n_free_unknown = t->memory.n_free_unknown;
	st->heap_peak_bytes = t->memory.heap_peak;
	st->stack_peak_bytes = t->memory.stack_peak;
	/* Marks (stable: a create and a wake at the same instant keep their order) */
	if (t->tl.marks_unsorted) {
		g_qsort_with_data(t->tl.marks, (gint)t->tl.n_marks, sizeof(*t->tl.marks),
				  analyzer__cmp_mark, NULL);
	}
	rt->marks = malloc((t->tl.n_marks ? t->tl.n_marks : 1) * sizeof(*rt->marks));
	if (!rt->marks) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < t->tl.n_marks; i++) {
		struct analyzer_mark m = t->tl.marks[i];

		if (m.kind == MARK_DELETED) {
			continue;
		}
		if (m.kind != ANALYZER_MARK_EXIT) {
			struct athread *o = analyzer__thread_at(core, m.other);

			if (!o->kept || o == t ||
			    (m.kind == ANALYZER_MARK_JOIN && o->res_idx == 0)) {
				continue;
			}
			m.other = (uint32_t)o->res_idx;
		}
		rt->marks[n++] = m;
	}
	rt->n_marks = n;
	rt->cap_marks = t->tl.n_marks ? t->tl.n_marks : 1;
	if (!streamed) {
		rt->mem = t->tl.mem;
		rt->n_mem = t->tl.n_mem;
		rt->cap_mem = t->tl.cap_mem;
		t->tl.mem = NULL;
		t->tl.n_mem = t->tl.cap_mem = 0;
	}
	return DPS_OK;
}

int analyzer__copy_timeline(struct analyzer_core *core, size_t ci, struct analyzer_thread *rt)
{
	struct athread *t = analyzer__thread_at(core, ci);
	uint64_t run_sum = 0;

	if (t->sim.begun || analyzer__starts_at_exec(core, t)) {
		analyzer__clip_to_window(t, rt);
	}
	/* Segments: remap `other`, drop references to threads not kept. */
	rt->segs = t->tl.segs;
	rt->n_segs = t->tl.n_segs;
	rt->cap_segs = t->tl.cap_segs;
	t->tl.segs = NULL;
	t->tl.n_segs = t->tl.cap_segs = 0;
	for (size_t i = 0; i < rt->n_segs; i++) {
		analyzer__remap_seg(core, t, &rt->segs[i]);
		count_seg(&rt->segs[i], &rt->stats, &run_sum);
	}
	return copy_rest(core, t, rt, false);
}

/*
 * The streamed path of one thread (an output directory, no timelines kept, not a simulated
 * run's thread): its marks in memory, its segments and samples read from the spill file twice
 * (the statistics and the runs' total first, then the actions), its file written every
 * FLUSH_AT actions. Memory: a spill chunk of each kind and FLUSH_AT actions, whatever the
 * thread's length.
 */
static int output_streamed(struct analyzer_core *core, struct analyzer_result *res, size_t ri,
			   size_t ci, struct act_builder *b, uint64_t min_block, GArray *handoffs)
{
	struct athread *t = analyzer__thread_at(core, ci);
	struct analyzer_thread *rt = &res->threads[ri];
	struct analyzer_seg_stream segs;
	struct analyzer_tl_reader mem;
	struct tl_source src = {.rt = rt, .core = core, .t = t};
	const struct analyzer_segment *s;
	uint64_t run_sum = 0;
	int status;

	status = analyzer__prepare_marks(core, ci);
	status = status ? status : analyzer__seg_stream_open(core, ci, &segs);
	if (status) {
		return status;
	}
	segs.from_ns = analyzer__starts_at_exec(core, t) ? t->exec_ts : 0;
	while ((s = analyzer__seg_stream_next(&segs))) {
		struct analyzer_segment sg = *s;

		analyzer__remap_seg(core, t, &sg);
		count_seg(&sg, &rt->stats, &run_sum);
		analyzer__handoff_add(handoffs, &sg, res->n_threads);
	}
	analyzer__seg_stream_close(&segs);
	status = core->status ? core->status : copy_rest(core, t, rt, true);
	status = status ? status : analyzer__seg_stream_open(core, ci, &segs);
	if (status) {
		return status;
	}
	segs.from_ns = analyzer__starts_at_exec(core, t) ? t->exec_ts : 0;
	status = analyzer__tl_reader_open(core, t, true, &mem);
	if (!status) {
		src.segs = &segs;
		src.mem = &mem;
		status = analyzer__actions_build(b, &src, run_sum, min_block);
		analyzer__tl_reader_close(&mem);
	}
	analyzer__seg_stream_close(&segs);
	/* what was left in memory goes as the result's timeline would */
	free(t->tl.segs);
	free(t->tl.mem);
	t->tl.segs = NULL;
	t->tl.mem = NULL;
	t->tl.n_segs = t->tl.cap_segs = t->tl.n_mem = t->tl.cap_mem = 0;
	analyzer__drop_spill(t);
	return status;
}

static char *format_options(const struct analyzer_options *o, uint64_t min_block)
{
	char buf[512];
	char mb[32];
	size_t len = 0;

	buf[0] = '\0';
	if (o->pid >= 0) {
		len += snprintf(buf + len, sizeof(buf) - len, "--pid %" PRId64 " ", o->pid);
	}
	if (o->tid >= 0 && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--tid %" PRId64 " ", o->tid);
	}
	if (o->comm && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--comm %s ", o->comm);
	}
	if (o->follow_children && len < sizeof(buf)) {
		len += snprintf(buf + len, sizeof(buf) - len, "--follow-children ");
	}
	if (len < sizeof(buf)) {
		snprintf(buf + len, sizeof(buf) - len, "--min-block %sus",
			 dps_actset_format_us(min_block, mb, sizeof(mb)));
	}
	return strdup(buf);
}

/* The set with its threads' metadata, options and source, no actions yet. */
static struct dps_actset *new_actset(struct analyzer_core *core, const struct analyzer_result *res,
				     uint64_t min_block)
{
	struct dps_actset *set = dps_actset_create();

	if (!set) {
		return NULL;
	}
	for (size_t i = 0; i < res->n_threads; i++) {
		const struct analyzer_thread *rt = &res->threads[i];
		size_t t = dps_actset_add_thread(set, rt->id);
		struct dps_actset_thread *at;

		if (t == DPS_ACTSET_NO_THREAD) {
			goto error;
		}
		at = &set->threads[t];
		at->tid = rt->tid;
		at->pid = rt->pid;
		at->pre_existing = rt->pre_existing && i != res->root;
		at->start_offset_ns = rt->start_ns > res->threads[res->root].start_ns
					  ? rt->start_ns - res->threads[res->root].start_ns
					  : 0;
		if (rt->comm && rt->comm[0] && dps_actset_set_str(&at->comm, rt->comm)) {
			goto error;
		}
	}
	set->format_version = DPS_ACTSET_FORMAT_V1;
	set->options = format_options(&core->opts, min_block);
	if (!set->options || dps_actset_set_str(&set->source_trace, res->source)) {
		goto error;
	}
	set->partial = res->partial;
	if (res->partial && dps_actset_set_str(&set->partial_reason, res->partial_reason)) {
		goto error;
	}
	return set;
error:
	dps_actset_destroy(set);
	return NULL;
}

/* Once a thread's file is written, only its create and join actions stay: the set's
 * resolution (the creation graph, the manifest's root and parents) needs nothing else. */
static void thin_thread(struct dps_actset_thread *th)
{
	size_t n = 0;

	for (size_t a = 0; a < th->n_actions; a++) {
		if (th->actions[a].kind == DPS_ACT_CREATE || th->actions[a].kind == DPS_ACT_JOIN ||
		    th->actions[a].kind == DPS_ACT_JOIN_ANY) {
			th->actions[n++] = th->actions[a];
		}
	}
	th->n_actions = n;
	/* and give the rest back: the arrays of every thread would otherwise stay as large as
	 * they were */
	if (!n) {
		free(th->actions);
		th->actions = NULL;
		th->cap_actions = 0;
	} else {
		struct dps_actset_action *a = realloc(th->actions, n * sizeof(*a));

		if (a) {
			th->actions = a;
			th->cap_actions = n;
		}
	}
}

static void drop_timeline(struct analyzer_thread *rt)
{
	free(rt->segs);
	free(rt->marks);
	free(rt->mem);
	rt->segs = NULL;
	rt->marks = NULL;
	rt->mem = NULL;
	rt->n_segs = rt->cap_segs = rt->n_marks = rt->cap_marks = rt->n_mem = rt->cap_mem = 0;
}

static void free_handoffs(GArray **handoffs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (handoffs[i]) {
			g_array_free(handoffs[i], TRUE);
		}
	}
	g_free(handoffs);
}

/*
 * The kept threads' timelines, parents, statistics and actions, one thread at a time (order[i]
 * is the core's thread for result thread i, whose identity is filled in). With opts.out_dir,
 * each thread's file is written as soon as its actions are built, and only its create and join
 * actions are kept; without opts.keep_timelines its timeline is dropped then too, so that the
 * whole set is never held twice (doc/analyzer.md, "Memory"). With build_actset (and no
 * out_dir) the set is res->actset; else only the counts are made.
 */
int analyzer__output(struct analyzer_core *core, struct analyzer_result *res, const size_t *order,
		     uint64_t min_block, struct dps_diag *diag)
{
	const char *out_dir = core->opts.out_dir;
	struct dps_actset_writer w = {0};
	struct dps_actset *set = NULL;
	struct analyzer_tasks *tasks = NULL;
	GArray **handoffs = g_new0(GArray *, res->n_threads + 1);
	int status = DPS_ERR_NOMEM;

	if (analyzer__sync_prepare(core, order, res->n_threads)) {
		goto nomem;
	}
	if (out_dir || core->opts.build_actset) {
		set = new_actset(core, res, min_block);
		if (!set || analyzer__sync_declare(core, order, res->n_threads, set) ||
		    analyzer__join_any_declare(core, order, res->n_threads, set)) {
			goto nomem;
		}
		tasks = set->n_objects ? analyzer_tasks_create() : NULL;
	}
	if (out_dir) {
		status = dps_actset_writer_begin(&w, out_dir, core->opts.out_flags, diag);
		if (status) {
			goto destroy_set;
		}
	}
	for (size_t i = 0; i < res->n_threads; i++) {
		struct analyzer_thread *rt = &res->threads[i];
		struct act_builder b = {.core = core,
					.res = res,
					.set = set,
					.t = i,
					.run_scale = 1.0,
					.w = out_dir ? &w : NULL,
					.diag = diag,
					.ci = order[i],
					.tasks = tasks};
		bool streamed = out_dir && !core->opts.keep_timelines &&
				!analyzer__thread_at(core, order[i])->sim.begun;
		size_t rank = 0;

		handoffs[i] = g_array_new(FALSE, FALSE, sizeof(struct analyzer_segment));
		if (out_dir) {
			status = dps_actset_writer_open_thread(&w, set, i, diag);
			if (status) {
				goto destroy_set; /* the writer removed its temporary */
			}
		}
		if (streamed) {
			status =
			    output_streamed(core, res, i, order[i], &b, min_block, handoffs[i]);
		} else {
			status = analyzer__prepare_timeline(core, order[i]);
			status = status ? status : analyzer__copy_timeline(core, order[i], rt);
			status = status ? status : analyzer__actions_build_of(&b, rt, min_block);
			for (size_t k = 0; !status && k < rt->n_segs; k++) {
				analyzer__handoff_add(handoffs[i], &rt->segs[k], res->n_threads);
			}
		}
		if (status && out_dir && !b.w) {
			goto destroy_set; /* a write failed: the writer removed its temporary */
		}
		if (status == DPS_ERR_IO) {
			dps_diag_setf(diag, "%s", core->err);
			goto abort_writer;
		}
		if (status) {
			goto nomem;
		}
		/* Parents and creation ranks from the create marks; the joins as hand-offs (a
		 * join of a child that had ended blocked no time: no segment says it). */
		for (size_t m = 0; m < rt->n_marks; m++) {
			if (rt->marks[m].kind == ANALYZER_MARK_JOIN && rt->marks[m].ts_ns) {
				struct analyzer_segment j = {.begin_ns = rt->marks[m].ts_ns - 1,
							     .end_ns = rt->marks[m].ts_ns,
							     .kind = ANALYZER_SEG_JOIN,
							     .other = rt->marks[m].other};

				analyzer__handoff_add(handoffs[i], &j, res->n_threads);
			}
			if (rt->marks[m].kind == ANALYZER_MARK_CREATE) {
				res->threads[rt->marks[m].other].parent = i;
				res->threads[rt->marks[m].other].create_rank = rank++;
			}
		}
		if (out_dir) {
			status = dps_actset_writer_add_actions(&w, set, i, b.written, diag);
			status = status ? status : dps_actset_writer_close_thread(&w, diag);
			if (status) {
				goto destroy_set; /* the writer removed its temporary */
			}
			thin_thread(&set->threads[i]);
		}
		if (!core->opts.keep_timelines) {
			drop_timeline(rt);
		}
	}
	analyzer__rank(res, handoffs);
	if (set) {
		status = dps_actset_resolve(set, diag);
		if (status) {
			char msg[DPS_DIAG_MSG_LEN];
			/* A join the trace puts before the creation it waits for (events out of
			 * order: a damaged trace, found by fuzz-analyzer-core): the input's
			 * fault, said as such. Anything else is an analyzer bug: said so. */
			bool join_first = diag && strstr(diag->msg, "that can never return");

			snprintf(msg, sizeof(msg), "%.900s", diag ? diag->msg : "");
			dps_diag_setf(diag,
				      join_first
					  ? "the trace orders a join before the creation it "
					    "waits for (damaged or reordered events): %s"
					  : "internal error, the action set built is invalid: %s",
				      msg);
			status = join_first ? DPS_ERR_INVAL : DPS_ERROR;
			goto abort_writer;
		}
		if (tasks && analyzer_tasks_declare(tasks, set)) {
			goto nomem;
		}
	}
	analyzer_tasks_destroy(tasks);
	tasks = NULL;
	if (out_dir) {
		status = dps_actset_writer_commit(&w, set, diag);
		goto destroy_set;
	}
	res->actset = set;
	free_handoffs(handoffs, res->n_threads);
	return DPS_OK;

nomem:
	status = DPS_ERR_NOMEM;
	dps_diag_setf(diag, "out of memory building the action set");
abort_writer:
	dps_actset_writer_abort(&w);
destroy_set:
	analyzer_tasks_destroy(tasks);
	dps_actset_destroy(set);
	free_handoffs(handoffs, res->n_threads);
	return status;
}
