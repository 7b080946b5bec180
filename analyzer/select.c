/* SPDX-License-Identifier: MIT */
/*
 * The selection (--pid, --tid, --comm, --follow-children) and the creation tree: which threads
 * are tracked while events arrive (a thread met, named or given its process is looked at again:
 * analyzer__thread_seen, analyzer__comm_seen, analyzer__pid_seen), which are kept at the end
 * (the selected process, its threads, and with --follow-children its fork+exec children), who
 * created whom (threads alive before the trace hang under the root, marked pre-existing), and
 * the process list when no selection is given.
 *
 * Above the thread table and the spill store, below the joins and the scheduler: it may call
 * threads.c and spill.c only (scripts/check-tree.sh checks it).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

static bool comm_matches(const struct analyzer_core *core, const struct athread *t)
{
	return core->opts.comm && !strcmp(t->comm, core->opts.comm);
}

static bool matches_selection(const struct analyzer_core *core, const struct athread *t)
{
	const struct analyzer_options *o = &core->opts;

	if (o->tid >= 0 && t->tid == o->tid) {
		return true;
	}
	if (o->pid >= 0 && (t->pid == o->pid || t->tid == o->pid)) {
		return true;
	}
	return comm_matches(core, t);
}

void analyzer__start_tracking(struct athread *t)
{
	t->tracked = true;
}

/* Called whenever what identifies a thread (pid, comm) changes. */
void analyzer__maybe_track(struct analyzer_core *core, struct athread *t)
{
	if (t->matched) {
		return;
	}
	if (matches_selection(core, t)) {
		t->matched = true;
		analyzer__start_tracking(t);
	}
}

/* A child process that will not be replayed (no --follow-children): forget its timeline now
 * rather than at the end, so memory follows the selection only. One that matches the
 * selection itself (a fork child keeps its parent's name) stays tracked: its own children,
 * named alike, must be seen as its descendants and dropped with it at the end
 * (analyzer__select_threads), not taken as further processes the selection matches. */
void analyzer__untrack_child_process(struct analyzer_core *core, struct athread *t)
{
	struct athread *p;

	if (!t->tracked || t->matched || core->opts.follow_children || t->creator == NO_T) {
		return;
	}
	p = core->th[t->creator];
	if (!p->tracked || p->pid < 0 || t->pid < 0 || p->pid == t->pid) {
		return;
	}
	for (size_t i = 0; i < p->tl.n_marks; i++) {
		if (p->tl.marks[i].kind == ANALYZER_MARK_CREATE &&
		    core->th[p->tl.marks[i].other] == t) {
			p->tl.marks[i].kind = MARK_DELETED;
		}
	}
	free(t->tl.segs);
	free(t->tl.marks);
	free(t->tl.mem);
	analyzer__drop_spill(t);
	t->tl.segs = NULL;
	t->tl.marks = NULL;
	t->tl.mem = NULL;
	t->tl.n_segs = t->tl.cap_segs = t->tl.n_marks = t->tl.cap_marks = t->tl.n_mem =
	    t->tl.cap_mem = 0;
	t->tracked = false;
}

/* The thread of tid seen at ts, made on first sight (and looked at by the selection: --tid, or
 * --pid naming its tid). tid 0 (idle) is never a thread. Every event looks one up: the lookup is
 * inline (analyzer__find_thread). */
size_t analyzer__thread_seen(struct analyzer_core *core, int64_t tid, uint64_t ts)
{
	size_t idx = analyzer__find_thread(core, tid);

	if (idx == NO_T) {
		idx = analyzer__new_thread(core, tid, ts, 0);
		if (idx != NO_T) {
			analyzer__maybe_track(core, analyzer__thread_at(core, idx));
		}
	}
	if (idx != NO_T) {
		analyzer__thread_at(core, idx)->last_ts = ts;
	}
	return idx;
}

/* A name an event gives t (none, or the one it has: nothing to do); the selection looks again. */
void analyzer__comm_seen(struct analyzer_core *core, struct athread *t, const char *comm)
{
	if (!comm || !comm[0] || !strncmp(t->comm, comm, sizeof(t->comm) - 1)) {
		return;
	}
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	analyzer__maybe_track(core, t);
}

/* The process an event gives t (unknown, or the one it has: nothing to do); the selection looks
 * again, and a child process it does not keep stops being tracked. */
void analyzer__pid_seen(struct analyzer_core *core, struct athread *t, int64_t pid)
{
	if (pid < 0 || t->pid == pid) {
		return;
	}
	t->pid = pid;
	analyzer__maybe_track(core, t);
	analyzer__untrack_child_process(core, t);
}

/*
 * Finish: process list
 */
struct proc_acc {
	int64_t key;
	bool pid_known;
	size_t main; /* thread index giving the name */
	size_t n_threads;
	uint64_t cpu_ns, begin, end;
};

static int cmp_proc(const void *a, const void *b)
{
	const struct analyzer_process *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns) {
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	}
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int analyzer__build_process_list(struct analyzer_core *core, struct analyzer_result *res)
{
	GHashTable *by_key = g_hash_table_new(g_direct_hash, g_direct_equal);
	struct proc_acc *acc = NULL;
	size_t n = 0;
	int status = DPS_ERR_NOMEM;

	acc = calloc(core->n_th ? core->n_th : 1, sizeof(*acc));
	if (!acc) {
		goto end;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = analyzer__thread_at(core, i);
		int64_t key = t->pid >= 0 ? t->pid : t->tid;
		gpointer v = g_hash_table_lookup(by_key, GINT_TO_POINTER((gint)key));
		struct proc_acc *a;
		uint64_t end = analyzer__thread_end(core, t);

		if (t->tid < 0 && t->pid < 0) {
			key = -1;
		}
		if (v) {
			a = &acc[GPOINTER_TO_SIZE(v) - 1];
		} else {
			a = &acc[n++];
			a->key = key;
			a->pid_known = t->pid >= 0;
			a->main = i;
			a->begin = t->first_ts;
			a->end = end;
			g_hash_table_insert(by_key, GINT_TO_POINTER((gint)key),
					    GSIZE_TO_POINTER(n));
		}
		a->n_threads++;
		a->cpu_ns += analyzer__thread_cpu_ns(t);
		if (t->tid == key) {
			a->main = i;
		}
		if (t->first_ts < a->begin) {
			a->begin = t->first_ts;
		}
		if (end > a->end) {
			a->end = end;
		}
	}
	res->procs = calloc(n ? n : 1, sizeof(*res->procs));
	if (!res->procs) {
		goto end;
	}
	for (size_t i = 0; i < n; i++) {
		struct analyzer_process *p = &res->procs[i];

		p->pid = acc[i].key;
		p->pid_known = acc[i].pid_known;
		p->comm = strdup(analyzer__thread_at(core, acc[i].main)->comm);
		p->n_threads = acc[i].n_threads;
		p->cpu_ns = acc[i].cpu_ns;
		p->begin_ns = acc[i].begin;
		p->end_ns = acc[i].end;
		res->n_procs++;
		if (!p->comm) {
			goto end;
		}
	}
	qsort(res->procs, res->n_procs, sizeof(*res->procs), cmp_proc);
	status = DPS_OK;
end:
	free(acc);
	g_hash_table_destroy(by_key);
	return status;
}

static void list_candidates(struct analyzer_core *core, struct analyzer_result *tmp,
			    const char *what, struct dps_diag *diag)
{
	size_t len;

	dps_diag_setf(diag, "%s; processes in the trace (pid comm threads cpu-ms):", what);
	if (analyzer__build_process_list(core, tmp)) {
		return;
	}
	for (size_t i = 0; i < tmp->n_procs && i < 20; i++) {
		const struct analyzer_process *p = &tmp->procs[i];

		len = strlen(diag->msg);
		snprintf(diag->msg + len, sizeof(diag->msg) - len, " %s%" PRId64 " %s %zu %.1f;",
			 p->pid_known ? "" : "~", p->pid, p->comm, p->n_threads, p->cpu_ns / 1e6);
	}
	if (tmp->n_procs > 20) {
		len = strlen(diag->msg);
		snprintf(diag->msg + len, sizeof(diag->msg) - len, " ... (%zu in all)",
			 tmp->n_procs);
	}
}

bool analyzer__is_tracer_thread(const struct analyzer_core *core, const struct athread *t)
{
	size_t len = strlen(t->comm);

	return !core->opts.keep_tracer_threads && len > 4 && !strcmp(t->comm + len - 4, "-ust");
}

static int64_t proc_of(const struct athread *t)
{
	return t->pid >= 0 ? t->pid : t->tid;
}

/* Is t a new process relative to its creator (fork+exec child) rather than a thread? */
static bool is_child_process(const struct analyzer_core *core, const struct athread *t)
{
	const struct athread *p;

	if (t->creator == NO_T) {
		return false;
	}
	p = core->th[t->creator];
	if (t->pid >= 0 && t->pid == t->tid) {
		return true;
	}
	return t->pid >= 0 && p->pid >= 0 && t->pid != p->pid;
}

bool analyzer__is_kept_creator(const struct analyzer_core *core, const struct athread *t)
{
	return t->creator != NO_T && core->th[t->creator]->kept;
}

/* Order of the result: root first, then by start, then tid. */
int analyzer__cmp_kept(const void *a, const void *b, void *arg)
{
	const struct analyzer_core *core = arg;
	const struct athread *x = core->th[*(const size_t *)a];
	const struct athread *y = core->th[*(const size_t *)b];
	uint64_t xs = x->created ? x->create_ts : x->first_ts;
	uint64_t ys = y->created ? y->create_ts : y->first_ts;

	if (xs != ys) {
		return xs < ys ? -1 : 1;
	}
	if (x->tid != y->tid) {
		return x->tid < y->tid ? -1 : 1;
	}
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* The action-set id: the tid; a reused tid's later threads tid + n x 10^9; the pseudo-thread
 * of a UST trace without vtid (tid unknown) 900 x 10^9 + pid, apart from every real tid. */
uint64_t analyzer__thread_id(const struct athread *t)
{
	uint64_t base = t->tid > 0
			    ? (uint64_t)t->tid
			    : 900 * ANALYZER_TID_REUSE_STRIDE + (t->pid > 0 ? (uint64_t)t->pid : 0);

	return base + (uint64_t)t->gen * ANALYZER_TID_REUSE_STRIDE;
}

/* Selects the threads to keep and picks the root. Returns DPS_OK, or DPS_ERR_INVAL with the
 * candidates in diag. */
int analyzer__select_threads(struct analyzer_core *core, size_t *root_out, struct dps_diag *diag)
{
	struct analyzer_result tmp = {0};
	size_t root = NO_T;
	size_t n_roots = 0;
	char procs[256] = "";
	int status = DPS_OK;

	/* Keep the tracked threads; without --follow-children, drop child processes and
	 * everything below them. Creators come before their children in index order. */
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = analyzer__thread_at(core, i);

		if (!t->tracked) {
			continue;
		}
		t->kept = true;
		if (t->creator != NO_T && analyzer__thread_at(core, t->creator)->tracked &&
		    !analyzer__thread_at(core, t->creator)->kept) {
			t->kept = false;
		}
		/* Even one that matches the selection itself: a fork child inherits its
		 * parent's name, so --comm NAME matches every child NAME forks. */
		if (t->kept && !core->opts.follow_children && analyzer__is_kept_creator(core, t) &&
		    is_child_process(core, t)) {
			t->kept = false;
		}
	}
	/* Roots: kept threads without a kept creator. Several threads of one process (alive
	 * before the trace) attach to its main thread; processes with a kept parent process
	 * (state dump ppid) attach to it. */
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < core->n_th; i++) {
			struct athread *t = analyzer__thread_at(core, i);

			if (!t->kept || analyzer__is_kept_creator(core, t)) {
				continue;
			}
			if (pass == 0 && t->tid == proc_of(t)) {
				if (root == NO_T || analyzer__cmp_kept(&i, &root, core) < 0) {
					root = i;
				}
			} else if (pass == 1 && root == NO_T) {
				root = i;
			}
		}
	}
	/* lttng-ust's listener threads ("<name>-ust") are the tracer's, not the program's: a
	 * replay linked with lttng-ust gets its own. */
	for (size_t i = 0; i < core->n_th && root != NO_T; i++) {
		struct athread *t = analyzer__thread_at(core, i);

		if (t->kept && i != root && t->tid != core->opts.tid &&
		    analyzer__is_tracer_thread(core, t)) {
			t->kept = false;
		}
	}
	/* A simulated run (its root played actions): only the threads that played actions are
	 * the simulation; the others (lttng-ust's, a start-up calibration's probes) are the
	 * stub's own and would shift the creation ranks compare matches on. */
	for (size_t i = 0;
	     i < core->n_th && root != NO_T && analyzer__thread_at(core, root)->sim.begun; i++) {
		struct athread *t = analyzer__thread_at(core, i);

		if (t->kept && !t->sim.begun &&
		    proc_of(t) == proc_of(analyzer__thread_at(core, root))) {
			t->kept = false;
		}
	}
	for (size_t i = 0; i < core->n_th && root != NO_T; i++) {
		struct athread *t = analyzer__thread_at(core, i);

		if (t->kept && t->creator != NO_T &&
		    analyzer__thread_at(core, t->creator)->tracked &&
		    !analyzer__thread_at(core, t->creator)->kept) {
			t->kept = false;
		}
	}
	if (root == NO_T) {
		list_candidates(core, &tmp,
				core->opts.pid >= 0 || core->opts.tid >= 0 || core->opts.comm
				    ? "the selection matches no thread"
				    : "no selection (--pid, --tid or --comm)",
				diag);
		status = DPS_ERR_INVAL;
		goto end;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = analyzer__thread_at(core, i);
		size_t len;

		if (!t->kept || analyzer__is_kept_creator(core, t) || i == root) {
			continue;
		}
		if (proc_of(t) == proc_of(analyzer__thread_at(core, root)) ||
		    (core->opts.follow_children && t->ppid >= 0 &&
		     t->ppid == proc_of(analyzer__thread_at(core, root)))) {
			t->creator = root;
			t->attached = true;
			continue;
		}
		n_roots++;
		len = strlen(procs);
		if (len < sizeof(procs) - 40) {
			snprintf(procs + len, sizeof(procs) - len, " %" PRId64 " (%s)", proc_of(t),
				 t->comm);
		}
	}
	if (n_roots) {
		dps_diag_setf(diag,
			      "the selection matches %zu processes: %" PRId64 " (%s)%s; expected "
			      "one: narrow it with --pid or --tid",
			      n_roots + 1, proc_of(analyzer__thread_at(core, root)),
			      analyzer__thread_at(core, root)->comm, procs);
		status = DPS_ERR_INVAL;
		goto end;
	}
	*root_out = root;
end:
	for (size_t i = 0; i < tmp.n_procs; i++) {
		free(tmp.procs[i].comm);
	}
	free(tmp.procs);
	return status;
}

/* The root's pre-existing companions (attached by analyzer__select_threads) are created by the root
 * at its first instant; a thread that appears later than its creation sleeps until then. */
void analyzer__add_pre_existing_creates(struct analyzer_core *core, size_t root)
{
	struct athread *r = analyzer__thread_at(core, root);
	uint64_t r_start = r->created ? r->create_ts : r->first_ts;

	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = analyzer__thread_at(core, i);
		uint64_t at;

		if (!t->kept || i == root || !t->attached) {
			continue;
		}
		/* A thread whose creator is not selected (a reused tid, a fork the trace missed
		 * the creator of) is created by the root when it appeared. */
		at = t->created ? t->create_ts : r_start;
		if (at < r_start) {
			at = r_start;
		}
		analyzer__add_mark(core, r, at, ANALYZER_MARK_CREATE, i);
		if (!t->created && t->first_ts > at) {
			/* Unknown before its first event: keep its timing with a sleep, put in
			 * front of its segments when they are read back (some may be spilled). */
			t->tl.pre_sleep = true;
			t->tl.pre_sleep_b = at;
			t->tl.pre_sleep_e = t->first_ts;
		}
		t->create_ts = at;
	}
}

/* A create mark stands when its thread names this creator and is not created already. */
static bool create_stands(struct analyzer_core *core, size_t creator, const struct analyzer_mark *m,
			  const uint8_t *kept)
{
	return m->kind == ANALYZER_MARK_CREATE && !kept[m->other] &&
	       analyzer__thread_at(core, m->other)->creator == creator;
}

struct seen_creates {
	struct analyzer_core *core;
	size_t creator;
	uint8_t *seen;
};

static void see_create(const struct analyzer_mark *m, void *data)
{
	struct seen_creates *sc = data;

	if (create_stands(sc->core, sc->creator, m, sc->seen)) {
		sc->seen[m->other] = 1;
	}
}

/*
 * Every kept thread with a kept creator is created exactly once by it: add the create a late
 * tracking missed. The duplicates (and creates by a thread that is not the creator) are dropped
 * from each creator's marks when its timeline is read back (analyzer__dedup_creates), as some
 * may be spilled.
 */
int analyzer__ensure_create_marks(struct analyzer_core *core)
{
	uint8_t *seen = calloc(core->n_th ? core->n_th : 1, 1);
	int status = DPS_OK;

	free(core->create_kept);
	core->create_kept = calloc(core->n_th ? core->n_th : 1, 1);
	if (!seen || !core->create_kept) {
		free(seen);
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < core->n_th && !status; i++) {
		struct seen_creates sc = {core, i, seen};

		if (analyzer__thread_at(core, i)->kept) {
			status = analyzer__each_mark(core, analyzer__thread_at(core, i), see_create,
						     &sc);
		}
	}
	for (size_t i = 0; i < core->n_th && !status; i++) {
		struct athread *t = analyzer__thread_at(core, i);

		if (t->kept && !seen[i] && analyzer__is_kept_creator(core, t)) {
			struct athread *p = analyzer__thread_at(core, t->creator);
			uint64_t at = t->created ? t->create_ts : p->first_ts;

			analyzer__add_mark(core, p, at, ANALYZER_MARK_CREATE, i);
		}
	}
	free(seen);
	return status ? status : core->status;
}

int analyzer__dedup_creates(struct analyzer_core *core, size_t ci)
{
	struct athread *p = analyzer__thread_at(core, ci);

	if (!core->create_kept) {
		return DPS_OK;
	}
	for (size_t m = 0; m < p->tl.n_marks; m++) {
		struct analyzer_mark *mk = &p->tl.marks[m];

		if (mk->kind != ANALYZER_MARK_CREATE) {
			continue;
		}
		if (create_stands(core, ci, mk, core->create_kept)) {
			core->create_kept[mk->other] = 1;
		} else {
			mk->kind = MARK_DELETED;
		}
	}
	return DPS_OK;
}

void analyzer__process_figures(struct analyzer_core *core, size_t root,
			       struct analyzer_process_figures *out)
{
	struct athread *r = analyzer__thread_at(core, root);
	int64_t pid = proc_of(r);

	*out = (struct analyzer_process_figures){
	    .known = true,
	    .cpu_exact = core->has_sched,
	    .begin_ns = r->exec_ts ? r->exec_ts : (r->created ? r->create_ts : r->first_ts),
	};
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = analyzer__thread_at(core, i);
		uint64_t end;

		if (!t->kept && proc_of(t) != pid) {
			continue;
		}
		out->n_threads++;
		out->cpu_ns += analyzer__thread_cpu_ns(t);
		out->cpu_exact = out->cpu_exact && t->sched.has_runtime;
		end = analyzer__thread_end(core, t);
		out->end_ns = end > out->end_ns ? end : out->end_ns;
	}
	if (out->end_ns < out->begin_ns) {
		out->end_ns = out->begin_ns;
	}
}
