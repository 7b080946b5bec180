/* SPDX-License-Identifier: MIT */
/*
 * dps's own events, in the trace of a simulated run: the span between dps:thread_begin and
 * dps:thread_end is the replay; what comes before (process start, lttng-ust registration,
 * calibration) and after (summary, exit) is the stub's own, so a simulated thread is cut to
 * that window (clip_to_window) with its CPU time taken at the window's ends. dps create events
 * give the simulated creation tree by action-set id.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

/*
 * dps's own events (a simulated run). With kernel scheduling in the trace they only name
 * threads and give memory; UST only, they are the timeline.
 */
static size_t dps_thread(struct analyzer_core *core, int64_t id)
{
	gpointer v = g_hash_table_lookup(core->dps_ids, GSIZE_TO_POINTER((gsize)id));

	return v ? GPOINTER_TO_SIZE(v) - 1 : NO_T;
}

/* Whether a is b or one of b's creators (a creation link b -> a would make a cycle). */
static bool is_ancestor(const struct analyzer_core *core, size_t a, size_t b)
{
	for (size_t n = 0; b != NO_T && n <= core->n_th; n++) {
		if (b == a) {
			return true;
		}
		b = core->th[b]->creator;
	}
	return false;
}

void analyzer__on_dps(struct analyzer_core *core, const struct analyzer_event *ev, size_t x)
{
	struct athread *t = analyzer__thread_at(core, x);
	size_t o;
	bool timeline = !core->has_sched;

	switch (ev->kind) {
	case ANALYZER_EV_DPS_THREAD_BEGIN: {
		gpointer pv;

		if (!t->sim.begun) {
			t->sim.begun = true;
			t->sim.begin_ts = ev->ts;
			t->sim.runtime_at_begin = analyzer__runtime_at(t, ev->ts);
		}

		g_hash_table_insert(core->dps_ids, GSIZE_TO_POINTER((gsize)ev->dps.id),
				    GSIZE_TO_POINTER(x + 1));
		pv = g_hash_table_lookup(core->dps_creates, GSIZE_TO_POINTER((gsize)ev->dps.id));
		if (pv && t->creator == NO_T && !is_ancestor(core, x, GPOINTER_TO_SIZE(pv) - 1)) {
			size_t p = GPOINTER_TO_SIZE(pv) - 1;

			t->creator = p;
			t->created = true;
			t->create_ts = ev->ts;
			if (analyzer__thread_at(core, p)->tracked) {
				analyzer__start_tracking(t);
				analyzer__add_mark(core, analyzer__thread_at(core, p), ev->ts,
						   ANALYZER_MARK_CREATE, x);
			}
		}
		break;
	}
	case ANALYZER_EV_DPS_THREAD_END:
		if (t->sim.begun && !t->sim.ended) {
			t->sim.ended = true;
			t->sim.end_ts = ev->ts;
			t->sim.runtime_at_end = analyzer__runtime_at(t, ev->ts);
		}
		if (timeline) {
			analyzer__set_state(core, x, TS_DEAD, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
			t->exited = true;
			t->exit_ts = ev->ts;
			t->end_ts = ev->ts;
			if (t->tracked) {
				analyzer__add_mark(core, t, ev->ts, ANALYZER_MARK_EXIT, NO_T);
			}
		}
		break;
	case ANALYZER_EV_DPS_CREATE:
		g_hash_table_insert(core->dps_creates, GSIZE_TO_POINTER((gsize)ev->dps.id),
				    GSIZE_TO_POINTER(x + 1));
		break;
	case ANALYZER_EV_DPS_SLEEP_BEGIN:
	case ANALYZER_EV_DPS_WAIT_BEGIN:
	case ANALYZER_EV_DPS_JOIN_BEGIN:
		if (!timeline && ev->kind == ANALYZER_EV_DPS_JOIN_BEGIN) {
			/* the kernel's blocks name this join (sched.c) */
			t->sim.join_of = dps_thread(core, ev->dps.id);
			t->sim.join_woken = false;
			t->sim.join_any = (uint64_t)ev->dps.id == UINT64_MAX;
		}
		if (timeline) {
			analyzer__set_state(core, x, TS_BLOCKED, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		break;
	case ANALYZER_EV_DPS_SLEEP_END:
		if (timeline && t->sched.state == TS_BLOCKED) {
			analyzer__set_state(core, x, TS_RUNNING, ev->ts, ANALYZER_SEG_SLEEP, NO_T);
		}
		break;
	case ANALYZER_EV_DPS_WAIT_END:
		if (timeline && t->sched.state == TS_BLOCKED) {
			o = dps_thread(core, ev->dps.id);
			analyzer__set_state(core, x, TS_RUNNING, ev->ts,
					    o == NO_T ? ANALYZER_SEG_SLEEP : ANALYZER_SEG_WAIT, o);
		}
		break;
	case ANALYZER_EV_DPS_JOIN_END:
		t->sim.join_of = NO_T;
		t->sim.join_any = false;
		if (timeline && t->sched.state == TS_BLOCKED) {
			o = dps_thread(core, ev->dps.id);
			analyzer__set_state(core, x, TS_RUNNING, ev->ts,
					    o == NO_T ? ANALYZER_SEG_SLEEP : ANALYZER_SEG_JOIN, o);
			if (o != NO_T) {
				analyzer__thread_at(core, o)->joined = true;
				analyzer__join_recorded(core, x, o, ev->ts, false);
				if (t->tracked) {
					analyzer__add_mark(core, t, ev->ts, ANALYZER_MARK_JOIN, o);
				}
			}
		}
		break;
	case ANALYZER_EV_DPS_WAKE:
		o = dps_thread(core, ev->dps.id);
		if (timeline && o != NO_T && t->tracked) {
			analyzer__add_mark(core, t, ev->ts, ANALYZER_MARK_WAKE, o);
		}
		break;
	case ANALYZER_EV_DPS_HEAP:
		core->seen_dps_heap = true;
		t->memory.heap = ev->dps_mem.size_bytes >= 0
				     ? ev->dps_mem.size_bytes
				     : t->memory.heap + ev->dps_mem.delta_bytes;
		analyzer__add_mem_sample(core, t, ev->ts);
		break;
	case ANALYZER_EV_DPS_STACK:
		core->seen_dps_stack = true;
		t->memory.stack = ev->dps_mem.size_bytes >= 0
				      ? ev->dps_mem.size_bytes
				      : t->memory.stack + ev->dps_mem.delta_bytes;
		analyzer__add_mem_sample(core, t, ev->ts);
		break;
	default:
		break;
	}
}

/*
 * A simulated run's thread starts and ends with its replay: [dps:thread_begin, dps:thread_end]
 * (or its last event when the end is missing).
 */
void analyzer__sim_window(const struct athread *t, struct analyzer_thread *rt)
{
	uint64_t b = t->sim.begin_ts;
	uint64_t e = t->sim.ended ? t->sim.end_ts : rt->end_ns;

	rt->start_ns = b;
	rt->end_ns = e < b ? b : e;
}

/* Keeps only the replay of a simulated run's thread: segments and marks are cut to the window
 * analyzer__sim_window gave rt. */
void analyzer__clip_to_window(struct athread *t, const struct analyzer_thread *rt)
{
	uint64_t b = rt->start_ns, e = rt->end_ns;
	size_t n = 0;

	for (size_t i = 0; i < t->tl.n_segs; i++) {
		struct analyzer_segment sg = t->tl.segs[i];

		if (sg.end_ns <= b || sg.begin_ns >= e) {
			continue;
		}
		sg.begin_ns = sg.begin_ns < b ? b : sg.begin_ns;
		sg.end_ns = sg.end_ns > e ? e : sg.end_ns;
		t->tl.segs[n++] = sg;
	}
	t->tl.n_segs = n;
	for (size_t i = 0; i < t->tl.n_marks; i++) {
		struct analyzer_mark *m = &t->tl.marks[i];

		m->ts_ns = m->ts_ns < b ? b : m->ts_ns > e ? e : m->ts_ns;
	}
}
