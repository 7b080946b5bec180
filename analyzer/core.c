/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's core: per-thread state machines fed with neutral events (event.h) in
 * timestamp order, and the final step that turns the tracked threads' timelines into an
 * analyzer_result and an action set. This file dispatches each event to its concern and runs
 * the final step; each concern has its own file (doc/analyzer.md, "Code map"): threads.c,
 * spill.c, sched.c, memory.c, dps-events.c, select.c, joins.c, readback.c, actions.c.
 *
 * Memory: per thread of the trace, a fixed struct; per selected thread, its timeline. Nothing
 * grows with the number of events.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

static void on_discarded(struct analyzer_core *core, const struct analyzer_event *ev)
{
	uint64_t b = ev->ts,
		 e = ev->discarded.end_ts >= 0 ? (uint64_t)ev->discarded.end_ts : ev->ts;

	if (ev->flags & ANALYZER_EVF_DAMAGED) {
		/* a damaged packet context, not a loss: said as damage, not counted */
		if (!core->n_damaged++) {
			core->damaged_count = (uint64_t)ev->discarded.count;
			core->damaged_begin = b;
			core->damaged_end = e;
			core->damaged_packets = ev->flags & ANALYZER_EVF_PACKETS;
			core->damaged_stream =
			    ev->discarded.stream ? strdup(ev->discarded.stream) : NULL;
		}
		return;
	}
	if (!core->lost || b < core->disc_begin) {
		core->disc_begin = b;
	}
	if (!core->lost || e > core->disc_end) {
		core->disc_end = e;
	}
	core->lost = true;
	if (ev->flags & ANALYZER_EVF_PACKETS) {
		core->n_discarded_packets +=
		    ev->discarded.count > 0 ? (uint64_t)ev->discarded.count : 1;
	} else if (ev->discarded.count > 0) {
		core->n_discarded += (uint64_t)ev->discarded.count;
	} else {
		core->n_uncounted++; /* a stream's first packet: babeltrace2 gives no count */
	}
}

enum dps_status analyzer_core_feed(struct analyzer_core *core, const struct analyzer_event *ev)
{
	size_t ctx;

	if (core->status) {
		return core->status;
	}
	if (ev->kind == ANALYZER_EV_DISCARDED) {
		on_discarded(core, ev);
		return core->status;
	}
	if (!core->any_event) {
		core->any_event = true;
		core->begin_ts = ev->ts;
	}
	if (ev->ts > core->end_ts) {
		core->end_ts = ev->ts;
	}
	core->n_events++;
	if (core->has_sched && ev->cpu >= 0) {
		analyzer__get_cpu(core, ev->cpu, ev->ts);
	}
	ctx = analyzer__ctx_thread(core, ev);
	if (ctx == NO_T &&
	    ((ev->kind >= ANALYZER_EV_ALLOC && ev->kind <= ANALYZER_EV_DPS_STACK) ||
	     (ev->kind >= ANALYZER_EV_SYNC_QUEUE_INIT && ev->kind != ANALYZER_EV_FUTEX_ENTRY &&
	      ev->kind != ANALYZER_EV_FUTEX_EXIT))) {
		/* UST without a vtid context: one pseudo-thread per process (or for all). */
		ctx = analyzer__thread_seen(core, ev->ctx_pid > 0 ? -ev->ctx_pid : -1, ev->ts);
		if (ctx != NO_T) {
			analyzer__pid_seen(core, analyzer__thread_at(core, ctx), ev->ctx_pid);
			analyzer__comm_seen(core, analyzer__thread_at(core, ctx), ev->ctx_comm);
		}
	}
	/* An event run by a thread (perf's context, UST) shows it on its CPU. Scheduler
	 * events are handled below with their own rules. (A kernel event without a context,
	 * LTTng's futex syscall, is the CPU's current thread's: futex.c finds it.) */
	if (ctx != NO_T && ev->kind != ANALYZER_EV_SWITCH && ev->kind != ANALYZER_EV_STAT_RUNTIME &&
	    ev->kind != ANALYZER_EV_FORK && ev->kind != ANALYZER_EV_EXIT &&
	    ev->kind != ANALYZER_EV_EXEC && !(ev->flags & ANALYZER_EVF_IRQ)) {
		analyzer__note_running(core, ev->cpu, ctx, ev->ts, UINT64_MAX);
	}
	switch (ev->kind) {
	case ANALYZER_EV_SWITCH:
		analyzer__on_switch(core, ev);
		break;
	case ANALYZER_EV_WAKEUP:
		analyzer__on_wakeup(core, ev, ctx);
		break;
	case ANALYZER_EV_FORK:
		analyzer__on_fork(core, ev, ctx);
		break;
	case ANALYZER_EV_EXIT:
		analyzer__on_exit_ev(core, ev, ctx);
		break;
	case ANALYZER_EV_EXEC:
		analyzer__on_exec(core, ev, ctx);
		break;
	case ANALYZER_EV_STATEDUMP:
		analyzer__on_statedump(core, ev);
		break;
	case ANALYZER_EV_STAT_RUNTIME:
		analyzer__on_stat_runtime(core, ev, ctx);
		break;
	case ANALYZER_EV_SYSCALL_ENTRY:
	case ANALYZER_EV_SYSCALL_EXIT:
		analyzer__on_syscall(core, ev, ctx, ev->kind == ANALYZER_EV_SYSCALL_ENTRY);
		break;
	case ANALYZER_EV_WAIT_ENTRY:
	case ANALYZER_EV_WAIT_EXIT:
		analyzer__on_wait_call(core, ev, ctx);
		break;
	case ANALYZER_EV_ALLOC:
	case ANALYZER_EV_FREE:
	case ANALYZER_EV_REALLOC:
	case ANALYZER_EV_FUNC_ENTRY:
	case ANALYZER_EV_FUNC_EXIT:
		if (ctx != NO_T) {
			analyzer__on_memory(core, ev, ctx);
		}
		break;
	default:
		if (ev->kind >= ANALYZER_EV_DPS_THREAD_BEGIN && ev->kind <= ANALYZER_EV_DPS_STACK &&
		    ctx != NO_T) {
			analyzer__on_dps(core, ev, ctx);
		} else if (ev->kind == ANALYZER_EV_FUTEX_ENTRY ||
			   ev->kind == ANALYZER_EV_FUTEX_EXIT) {
			analyzer__on_futex(core, ev, ctx);
		} else if (ev->kind >= ANALYZER_EV_SYNC_QUEUE_INIT && ev->kind < ANALYZER_EV_NR &&
			   ctx != NO_T) {
			analyzer__thread_at(core, ctx)->sync_ts = ev->ts;
			analyzer__on_sync(core, ev, ctx);
		}
		break;
	}
	return core->status;
}

/* What the synchronization analysis found, into the result: the waits the set keeps by the
 * kind of their word, the futex words, what the probe could not describe. */
static int sync_figures(struct analyzer_core *core, struct analyzer_result *res)
{
	res->has_futex = core->seen_futex;
	res->futex = core->futex_fig;
	if (core->pins && core->pins->len) {
		res->pins = malloc(core->pins->len * sizeof(*res->pins));
		if (!res->pins) {
			return DPS_ERR_NOMEM;
		}
		memcpy(res->pins, core->pins->data, core->pins->len * sizeof(*res->pins));
		res->n_pins = core->pins->len;
	}
	if (core->unmodelled && core->unmodelled->len) {
		res->unmodelled = calloc(core->unmodelled->len, sizeof(*res->unmodelled));
		if (!res->unmodelled) {
			return DPS_ERR_NOMEM;
		}
		for (guint i = 0; i < core->unmodelled->len; i++) {
			res->unmodelled[i] = strdup(g_ptr_array_index(core->unmodelled, i));
			if (!res->unmodelled[i]) {
				return DPS_ERR_NOMEM;
			}
			res->n_unmodelled++;
		}
	}
	return DPS_OK;
}

const char *analyzer_core_borrow_error(const struct analyzer_core *core)
{
	return core->err;
}

/*
 * Creation and destruction
 */
struct analyzer_core *analyzer_core_create(const struct analyzer_options *opts, bool has_sched)
{
	struct analyzer_core *core = calloc(1, sizeof(*core));

	if (!core) {
		return NULL;
	}
	core->opts = *opts;
	core->has_sched = has_sched;
	core->by_tid = g_hash_table_new(g_direct_hash, g_direct_equal);
	core->allocs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free);
	core->dps_ids = g_hash_table_new(g_direct_hash, g_direct_equal);
	core->dps_creates = g_hash_table_new(g_direct_hash, g_direct_equal);
	analyzer__spill_init(core);
	core->spill_on = !opts->keep_timelines;
	return core;
}

void analyzer_core_destroy(struct analyzer_core *core)
{
	if (!core) {
		return;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		analyzer__free_athread(core->th[i]);
	}
	free(core->th);
	free(core->cpus);
	g_hash_table_destroy(core->by_tid);
	free(core->tid_map);
	g_hash_table_destroy(core->allocs);
	g_hash_table_destroy(core->dps_ids);
	analyzer__sync_destroy(core);
	analyzer__futex_destroy(core);
	if (core->pins) {
		g_array_free(core->pins, TRUE);
	}
	g_hash_table_destroy(core->dps_creates);
	analyzer__spill_fini(core);
	free(core->joins);
	if (core->join_sets) {
		g_array_free(core->join_sets, TRUE);
	}
	free(core->join_any);
	free(core->create_kept);
	free(core->damaged_stream);
	free(core);
}

/* The damaged counts of lost events or packets (on_discarded), said as damage. */
static void say_damaged(const struct analyzer_core *core, char *buf, size_t size)
{
	char more[64] = "";

	if (core->n_damaged > 1) {
		snprintf(more, sizeof(more), " (and %" PRIu64 " more such count%s)",
			 core->n_damaged - 1, core->n_damaged > 2 ? "s" : "");
	}
	snprintf(buf, size,
		 "%s%s%sa damaged packet context: it counts %" PRIu64 " %s lost between %.6f s "
		 "and %.6f s, more than the stream could record in that time, so it is not a "
		 "count of lost %s%s",
		 core->damaged_stream ? "the stream of " : "",
		 core->damaged_stream ? core->damaged_stream : "", core->damaged_stream ? ": " : "",
		 core->damaged_count, core->damaged_packets ? "packets" : "events",
		 core->damaged_begin / 1e9, core->damaged_end / 1e9,
		 core->damaged_packets ? "packets" : "events", more);
}

static void fill_partial(struct analyzer_core *core, struct analyzer_result *res)
{
	char buf[2048], damaged[1536] = "", events[96];
	size_t n = 0;

	if (!core->n_uncounted) {
		snprintf(events, sizeof(events), "%" PRIu64 " events", core->n_discarded);
	} else if (!core->n_discarded) {
		snprintf(events, sizeof(events), "an unknown number of events");
	} else {
		snprintf(events, sizeof(events), "%" PRIu64 " events and an unknown number more",
			 core->n_discarded);
	}

	res->n_discarded = core->n_discarded;
	if (!core->lost && !core->n_damaged) {
		return;
	}
	res->partial = true;
	if (core->n_damaged) {
		say_damaged(core, damaged, sizeof(damaged));
	}
	if (core->lost && core->n_discarded_packets) {
		n = (size_t)snprintf(
		    buf, sizeof(buf),
		    "%s and %" PRIu64 " packets discarded between %.6f s and %.6f s", events,
		    core->n_discarded_packets, core->disc_begin / 1e9, core->disc_end / 1e9);
	} else if (core->lost) {
		n = (size_t)snprintf(buf, sizeof(buf), "%s discarded between %.6f s and %.6f s",
				     events, core->disc_begin / 1e9, core->disc_end / 1e9);
	}
	if (n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
	}
	if (core->n_damaged) {
		snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "; " : "", damaged);
	}
	/* after what the source skipped (analyzer.c), if anything */
	if (res->partial_reason) {
		char *both = NULL;

		if (asprintf(&both, "%s; %s", buf, res->partial_reason) < 0) {
			return;
		}
		free(res->partial_reason);
		res->partial_reason = both;
		return;
	}
	res->partial_reason = strdup(buf);
}

enum dps_status analyzer_core_finish(struct analyzer_core *core, bool list_only,
				     struct analyzer_result *res, struct dps_diag *diag)
{
	size_t root = NO_T;
	size_t *order = NULL;
	size_t n_kept = 0;
	uint64_t min_block;
	int status;

	if (core->status) {
		dps_diag_setf(diag, "%s",
			      core->status == DPS_ERR_IO ? core->err
							 : "out of memory while analyzing");
		return core->status;
	}
	res->begin_ns = core->begin_ts;
	res->end_ns = core->end_ts;
	res->n_events = core->n_events;
	fill_partial(core, res);
	analyzer__close_states(core);
	if (list_only) {
		status = analyzer__build_process_list(core, res);
		if (status) {
			dps_diag_setf(diag, "out of memory listing processes");
		}
		return status;
	}
	status = analyzer__select_threads(core, &root, diag);
	if (status) {
		return status;
	}
	analyzer__process_figures(core, root, &res->process);
	analyzer__add_pre_existing_creates(core, root);
	status = analyzer__ensure_create_marks(core);
	status = status ? status : analyzer__add_implicit_joins(core);
	if (status) {
		goto nomem;
	}
	order = malloc(core->n_th * sizeof(*order));
	if (!order) {
		goto nomem;
	}
	for (size_t i = 0; i < core->n_th; i++) {
		if (analyzer__thread_at(core, i)->kept) {
			order[n_kept++] = i;
		}
	}
	qsort_r(order, n_kept, sizeof(*order), analyzer__cmp_kept, core);
	/* Root first. */
	for (size_t i = 0; i < n_kept; i++) {
		if (order[i] == root) {
			memmove(&order[1], &order[0], i * sizeof(*order));
			order[0] = root;
			break;
		}
	}
	res->threads = calloc(n_kept ? n_kept : 1, sizeof(*res->threads));
	if (!res->threads) {
		goto nomem;
	}
	res->cap_threads = n_kept;
	res->root = 0;
	for (size_t i = 0; i < n_kept; i++) {
		analyzer__thread_at(core, order[i])->res_idx = i;
	}
	for (size_t i = 0; i < n_kept; i++) {
		res->n_threads++;
		if (analyzer__copy_identity(core, order[i], &res->threads[i])) {
			goto nomem;
		}
	}
	if (core->opts.on_threads) {
		status = core->opts.on_threads(core->opts.on_threads_arg, res,
					       &core->opts.min_block_ns, diag);
		if (status) {
			goto end;
		}
	}
	min_block = core->opts.min_block_ns >= 0 ? (uint64_t)core->opts.min_block_ns
						 : ANALYZER_DEFAULT_MIN_BLOCK_NS;
	status = analyzer__output(core, res, order, min_block, diag);
	if (!status && sync_figures(core, res)) {
		goto nomem;
	}
	goto end;
nomem:
	dps_diag_setf(diag, "out of memory building the result");
	status = DPS_ERR_NOMEM;
end:
	free(order);
	return status;
}
