/* SPDX-License-Identifier: MIT */
/* The analyzer result: lifetime, options defaults, and its text/JSON forms. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "text-out.h"

void analyzer_options_default(struct analyzer_options *opts)
{
	*opts = (struct analyzer_options){
	    .pid = -1,
	    .tid = -1,
	    .min_block_ns = -1,
	    .build_actset = true,
	    .keep_timelines = true,
	};
}

const char *analyzer_pin_kind_name(uint32_t kind)
{
	static const char *const names[ANALYZER_PIN_NR] = {
	    [ANALYZER_PIN_UNKNOWN] = "unknown",	    [ANALYZER_PIN_NOT_FUTEX] = "not a futex",
	    [ANALYZER_PIN_EVENT] = "event",	    [ANALYZER_PIN_LOCK] = "lock",
	    [ANALYZER_PIN_BROADCAST] = "broadcast", [ANALYZER_PIN_PARTIAL] = "partial barrier",
	    [ANALYZER_PIN_BARRIER] = "barrier",	    [ANALYZER_PIN_TIMEOUT] = "timeout",
	};

	return kind < ANALYZER_PIN_NR ? names[kind] : "?";
}

struct analyzer_result *analyzer_result_create(void)
{
	struct analyzer_result *res = calloc(1, sizeof(*res));

	if (res) {
		res->root = ANALYZER_NO_THREAD;
	}
	return res;
}

void analyzer_result_destroy(struct analyzer_result *res)
{
	if (!res) {
		return;
	}
	for (size_t i = 0; i < res->n_threads; i++) {
		free(res->threads[i].comm);
		free(res->threads[i].segs);
		free(res->threads[i].marks);
		free(res->threads[i].mem);
	}
	free(res->threads);
	for (size_t i = 0; i < res->n_procs; i++) {
		free(res->procs[i].comm);
	}
	free(res->procs);
	free(res->pins);
	for (size_t i = 0; i < res->n_unmodelled; i++) {
		free(res->unmodelled[i]);
	}
	free(res->unmodelled);
	free(res->partial_reason);
	free(res->source);
	dps_actset_destroy(res->actset);
	free(res);
}

/*
 * Output
 */
static void print_thread_row(FILE *out, const char *id, const char *tid, const char *comm,
			     const char *parent, const struct analyzer_thread_stats *s)
{
	fprintf(out,
		"%-12s %-8s %-16.16s %-12s %10.3f %10.3f %10.3f %6" PRIu64 " %6" PRIu64 " %6" PRIu64
		" %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n",
		id, tid, comm, parent, s->busy_ns / 1e6, s->blocked_ns / 1e6, s->waiting_ns / 1e6,
		s->n_runs, s->n_sleeps, s->n_waits, s->n_wakes, s->n_creates, s->n_joins);
}

static void sum_stats(struct analyzer_thread_stats *t, const struct analyzer_thread_stats *s)
{
	t->busy_ns += s->busy_ns;
	t->blocked_ns += s->blocked_ns;
	t->waiting_ns += s->waiting_ns;
	t->n_runs += s->n_runs;
	t->n_sleeps += s->n_sleeps;
	t->n_waits += s->n_waits;
	t->n_wakes += s->n_wakes;
	t->n_creates += s->n_creates;
	t->n_joins += s->n_joins;
	t->n_switches += s->n_switches;
	t->n_folded += s->n_folded;
	t->n_ticks += s->n_ticks;
	t->n_tracer += s->n_tracer;
	t->call_cpu_ns += s->call_cpu_ns;
	t->critical_ns += s->critical_ns;
	t->waited_on_ns += s->waited_on_ns;
	t->n_inferred += s->n_inferred;
	t->n_allocs += s->n_allocs;
	t->n_frees += s->n_frees;
	t->n_free_null += s->n_free_null;
	t->n_free_unknown += s->n_free_unknown;
}

/* Whether waits on a word of this kind pin an order that the threads' speeds may change. */
static bool pin_is_ordered(uint32_t kind)
{
	return kind == ANALYZER_PIN_LOCK || kind == ANALYZER_PIN_BROADCAST ||
	       kind == ANALYZER_PIN_PARTIAL || kind == ANALYZER_PIN_TIMEOUT;
}

/* What the synchronization analysis found (doc/sync.md), when there is anything to say. */
static void print_sync(const struct analyzer_result *res, const struct analyzer_thread_stats *total,
		       FILE *out)
{
	const struct analyzer_futex_figures *f = &res->futex;
	bool any_pinned = false;

	if (res->has_futex) {
		fprintf(out,
			"futex words: %" PRIu64 " (%" PRIu64 " barriers re-enacted, %" PRIu64
			" partial barriers, %" PRIu64 " broadcasts, %" PRIu64 " locks, %" PRIu64
			" events); %" PRIu64 " more were the probe's or the pthread wrapper's\n",
			f->n_words, f->n_barrier, f->n_partial, f->n_broadcast, f->n_lock,
			f->n_event, f->n_explained);
	}
	for (size_t i = 0; i < res->n_pins; i++) {
		const struct analyzer_pin *p = &res->pins[i];

		if (!pin_is_ordered(p->kind)) {
			continue;
		}
		if (!any_pinned) {
			fprintf(
			    out,
			    "recorded waits kept whose order the threads' speeds may change:\n");
			any_pinned = true;
		}
		fprintf(out,
			"  %" PRIu64 " waits of thread %" PRIu64 " on thread %" PRIu64
			" through a %s (%.3f ms blocked)\n",
			p->n, res->threads[p->waiter].id, res->threads[p->waker].id,
			analyzer_pin_kind_name(p->kind), p->blocked_ns / 1e6);
	}
	if (total->call_cpu_ns) {
		fprintf(
		    out,
		    "%.3f ms of CPU inside synchronization calls (spinning before sleeping) are "
		    "the calls' own, not runs\n",
		    total->call_cpu_ns / 1e6);
	}
	for (size_t i = 0; i < res->n_unmodelled; i++) {
		char what[96];

		dps_text_sanitize(res->unmodelled[i], what, sizeof(what));
		fprintf(out, "%s%s", i ? ", " : "not re-enacted (the probe saw them): ", what);
		fputs(i + 1 == res->n_unmodelled ? "\n" : "", out);
	}
}

void analyzer_result_print_table(const struct analyzer_result *res, FILE *out)
{
	struct analyzer_thread_stats total = {0};
	char id[32], tid[32], parent[32];
	uint64_t span = res->end_ns > res->begin_ns ? res->end_ns - res->begin_ns : 0;

	fprintf(out, "source: %s\n", res->source ? res->source : "?");
	fprintf(out, "events: %" PRIu64 ", span %.3f ms, threads %zu%s%s\n", res->n_events,
		span / 1e6, res->n_threads, res->partial ? ", PARTIAL: " : "",
		res->partial ? (res->partial_reason ? res->partial_reason : "incomplete") : "");
	fprintf(out, "%-12s %-8s %-16s %-12s %10s %10s %10s %6s %6s %6s %6s %6s %6s\n", "id", "tid",
		"comm", "parent", "busy_ms", "blocked_ms", "waiting_ms", "runs", "sleeps", "waits",
		"wakes", "creats", "joins");
	for (size_t i = 0; i < res->n_threads; i++) {
		const struct analyzer_thread *t = &res->threads[i];

		snprintf(id, sizeof(id), "%" PRIu64 "%s", t->id, t->pre_existing ? "*" : "");
		snprintf(tid, sizeof(tid), "%" PRId64, t->tid);
		if (t->parent == ANALYZER_NO_THREAD) {
			snprintf(parent, sizeof(parent), "root");
		} else {
			snprintf(parent, sizeof(parent), "%" PRIu64, res->threads[t->parent].id);
		}
		print_thread_row(out, id, tid, t->comm ? t->comm : "", parent, &t->stats);
		sum_stats(&total, &t->stats);
	}
	print_thread_row(out, "all", "", "", "", &total);
	fprintf(out, "(* alive before the trace began; busy = on CPU, blocked = sleep/wait/join, "
		     "waiting = preempted)\n");
	if (total.n_inferred) {
		fprintf(out, "note: %" PRIu64 " switch-ins missing from the trace were inferred\n",
			total.n_inferred);
	}
	if (total.n_free_null || total.n_free_unknown) {
		fprintf(out,
			"heap: %" PRIu64 " allocations, %" PRIu64 " frees (%" PRIu64
			" of NULL, %" PRIu64 " of pointers allocated before the trace)\n",
			total.n_allocs, total.n_frees, total.n_free_null, total.n_free_unknown);
	}
	print_sync(res, &total, out);
	if (res->n_threads > 1 && total.critical_ns) {
		fprintf(out, "\nWhich thread to study (dps whatif --thread ID): by time on the "
			     "recorded critical path, then CPU\n");
		analyzer_rank_print(res, 10, out);
	}
}

static void json_stats(FILE *out, const struct analyzer_thread_stats *s)
{
	fprintf(out,
		"\"busy_ns\": %" PRIu64 ", \"blocked_ns\": %" PRIu64 ", \"waiting_ns\": %" PRIu64
		", \"busy_exact\": %s, \"n_runs\": %" PRIu64 ", \"n_sleeps\": %" PRIu64
		", \"n_waits\": %" PRIu64 ", \"n_wakes\": %" PRIu64 ", \"n_creates\": %" PRIu64
		", \"n_joins\": %" PRIu64 ", \"n_switches\": %" PRIu64 ", \"n_folded\": %" PRIu64
		", \"n_ticks\": %" PRIu64 ", \"n_tracer\": %" PRIu64 ", \"n_inferred\": %" PRIu64
		", \"n_allocs\": %" PRIu64 ", \"n_frees\": %" PRIu64 ", \"n_free_null\": %" PRIu64
		", \"n_free_unknown\": %" PRIu64 ", \"heap_peak_bytes\": %" PRId64
		", \"stack_peak_bytes\": %" PRId64 ", \"call_cpu_ns\": %" PRIu64
		", \"critical_ns\": %" PRIu64 ", \"waited_on_ns\": %" PRIu64,
		s->busy_ns, s->blocked_ns, s->waiting_ns, s->busy_exact ? "true" : "false",
		s->n_runs, s->n_sleeps, s->n_waits, s->n_wakes, s->n_creates, s->n_joins,
		s->n_switches, s->n_folded, s->n_ticks, s->n_tracer, s->n_inferred, s->n_allocs,
		s->n_frees, s->n_free_null, s->n_free_unknown, s->heap_peak_bytes,
		s->stack_peak_bytes, s->call_cpu_ns, s->critical_ns, s->waited_on_ns);
}

void analyzer_result_print_json(const struct analyzer_result *res, FILE *out)
{
	struct analyzer_thread_stats total = {0};

	fputs("{\"schema\": \"" ANALYZER_JSON_SCHEMA "\", \"source\": ", out);
	dps_json_string(out, res->source, false);
	fprintf(out,
		", \"events\": %" PRIu64 ", \"begin_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
		", \"partial\": %s, \"partial_reason\": ",
		res->n_events, res->begin_ns, res->end_ns, res->partial ? "true" : "false");
	if (res->partial_reason) {
		dps_json_string(out, res->partial_reason, false);
	} else {
		fputs("null", out);
	}
	fprintf(out, ", \"discarded_events\": %" PRIu64 ", \"threads\": [", res->n_discarded);
	for (size_t i = 0; i < res->n_threads; i++) {
		const struct analyzer_thread *t = &res->threads[i];

		fprintf(out,
			"%s\n  {\"id\": %" PRIu64 ", \"tid\": %" PRId64 ", \"pid\": %" PRId64
			", \"comm\": ",
			i ? "," : "", t->id, t->tid, t->pid);
		dps_json_string(out, t->comm, false);
		if (t->parent == ANALYZER_NO_THREAD) {
			fputs(", \"parent\": null", out);
		} else {
			fprintf(out, ", \"parent\": %" PRIu64, res->threads[t->parent].id);
		}
		fprintf(out,
			", \"create_rank\": %zu, \"pre_existing\": %s, \"start_ns\": %" PRIu64
			", \"end_ns\": %" PRIu64 ", ",
			t->create_rank, t->pre_existing ? "true" : "false", t->start_ns, t->end_ns);
		json_stats(out, &t->stats);
		fputc('}', out);
		sum_stats(&total, &t->stats);
	}
	fputs("\n], \"total\": {", out);
	json_stats(out, &total);
	fprintf(out,
		"}, \"sync\": {\"futex_events\": %s, \"futex_words\": {\"words\": %" PRIu64
		", \"explained\": %" PRIu64 ", \"barrier\": %" PRIu64 ", \"partial\": %" PRIu64
		", \"broadcast\": %" PRIu64 ", \"lock\": %" PRIu64 ", \"event\": %" PRIu64
		"}, \"pins\": [",
		res->has_futex ? "true" : "false", res->futex.n_words, res->futex.n_explained,
		res->futex.n_barrier, res->futex.n_partial, res->futex.n_broadcast,
		res->futex.n_lock, res->futex.n_event);
	for (size_t i = 0; i < res->n_pins; i++) {
		const struct analyzer_pin *p = &res->pins[i];

		fprintf(out,
			"%s{\"waiter\": %" PRIu64 ", \"waker\": %" PRIu64
			", \"kind\": \"%s\", \"n\": %" PRIu64 ", \"blocked_ns\": %" PRIu64 "}",
			i ? ", " : "", res->threads[p->waiter].id, res->threads[p->waker].id,
			analyzer_pin_kind_name(p->kind), p->n, p->blocked_ns);
	}
	fputs("], \"unmodelled\": [", out);
	for (size_t i = 0; i < res->n_unmodelled; i++) {
		fputs(i ? ", " : "", out);
		dps_json_string(out, res->unmodelled[i], false);
	}
	fputs("]}}\n", out);
}

void analyzer_processes_print(const struct analyzer_result *res, FILE *out)
{
	fprintf(out, "%-9s %-16s %8s %12s %12s %12s\n", "pid", "comm", "threads", "cpu_ms",
		"begin_s", "lifetime_ms");
	for (size_t i = 0; i < res->n_procs; i++) {
		const struct analyzer_process *p = &res->procs[i];
		char pid[32];

		snprintf(pid, sizeof(pid), "%s%" PRId64, p->pid_known ? "" : "~", p->pid);
		fprintf(out, "%-9s %-16.16s %8zu %12.3f %12.6f %12.3f\n", pid, p->comm,
			p->n_threads, p->cpu_ns / 1e6, (p->begin_ns - res->begin_ns) / 1e9,
			(p->end_ns - p->begin_ns) / 1e6);
	}
	fprintf(out, "(~: pid unknown, tid of its first thread; begin_s from the trace start)\n");
}
