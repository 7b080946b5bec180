/* SPDX-License-Identifier: MIT */
/*
 * A kept thread's timeline read back at the end (doc/analyzer.md, "Memory"), one thread at a
 * time, with what the final step left for this moment applied on the way: its duplicate creates
 * dropped (select.c), the sleep before a pre-existing thread's first event, the implicit joins
 * (joins.c). Whole in memory (analyzer__prepare_timeline: without -o, when the result keeps
 * the timelines, or for a simulated run's thread, cut to its window), or streamed from the spill
 * file (analyzer__prepare_marks, then analyzer__seg_stream: analyzer__output's path with -o
 * when the timelines are not kept).
 *
 * Above the event handling's files: it may call the joins, the selection, the thread table and
 * the spill store; only the output (output.c, actions.c) calls it.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core-internal.h"

/* A kept thread's timeline whole in memory, with what the final step left for this moment:
 * its duplicate creates dropped, the sleep before a pre-existing thread's first event, the
 * implicit joins. */
int analyzer__prepare_timeline(struct analyzer_core *core, size_t ci)
{
	struct athread *t = analyzer__thread_at(core, ci);
	int status = analyzer__reload_timeline(core, t);

	status = status ? status : analyzer__dedup_creates(core, ci);
	if (status) {
		return status;
	}
	if (t->tl.pre_sleep) {
		if (!analyzer__grow((void **)&t->tl.segs, &t->tl.cap_segs, t->tl.n_segs + 1,
				    sizeof(*t->tl.segs))) {
			return DPS_ERR_NOMEM;
		}
		memmove(&t->tl.segs[1], &t->tl.segs[0], t->tl.n_segs * sizeof(*t->tl.segs));
		t->tl.segs[0] = (struct analyzer_segment){t->tl.pre_sleep_b, t->tl.pre_sleep_e,
							  ANALYZER_SEG_SLEEP, 0};
		t->tl.n_segs++;
		t->tl.pre_sleep = false;
	}
	return analyzer__insert_joins(core, ci);
}

int analyzer__prepare_marks(struct analyzer_core *core, size_t ci)
{
	int status = analyzer__reload_marks(core, analyzer__thread_at(core, ci));

	return status ? status : analyzer__dedup_creates(core, ci);
}

/*
 * Streamed: the segments as analyzer__prepare_timeline would leave them, at most one spill
 * chunk of them in memory.
 */
int analyzer__seg_stream_open(struct analyzer_core *core, size_t ci, struct analyzer_seg_stream *s)
{
	struct athread *t = analyzer__thread_at(core, ci);
	int status;

	*s = (struct analyzer_seg_stream){
	    .pre = t->tl.pre_sleep,
	    .pre_seg = {t->tl.pre_sleep_b, t->tl.pre_sleep_e, ANALYZER_SEG_SLEEP, 0},
	};
	s->ins = analyzer__joins_of(core, ci, &s->n_ins);
	s->q = malloc((2 * s->n_ins + 2) * sizeof(*s->q));
	if (!s->q) {
		return DPS_ERR_NOMEM;
	}
	status = analyzer__tl_reader_open(core, t, false, &s->rd);
	if (status) {
		free(s->q);
		s->q = NULL;
	}
	return status;
}

/* What segment sg becomes with the joins due before or inside it (as insert_joins does). */
static void expand(struct analyzer_seg_stream *s, struct analyzer_segment sg)
{
	while (s->j < s->n_ins && s->ins[s->j].ts <= sg.begin_ns) {
		s->q[s->q_n++] = (struct analyzer_segment){
		    sg.begin_ns, sg.begin_ns, ANALYZER_SEG_JOIN, (uint32_t)s->ins[s->j].child};
		s->j++;
	}
	while (s->j < s->n_ins && sg.kind == ANALYZER_SEG_RUN && s->ins[s->j].ts < sg.end_ns) {
		struct analyzer_segment head = sg;
		uint64_t ts = s->ins[s->j].ts;

		head.end_ns = ts;
		if (head.end_ns > head.begin_ns) {
			s->q[s->q_n++] = head;
		}
		s->q[s->q_n++] = (struct analyzer_segment){ts, ts, ANALYZER_SEG_JOIN,
							   (uint32_t)s->ins[s->j].child};
		sg.begin_ns = ts;
		s->j++;
	}
	s->q[s->q_n++] = sg;
}

const struct analyzer_segment *analyzer__seg_stream_next(struct analyzer_seg_stream *s)
{
	while (s->q_pos == s->q_n) {
		const struct analyzer_segment *raw = NULL;

		s->q_n = s->q_pos = 0;
		if (!s->raw_done) {
			if (s->pre) {
				s->pre = false;
				raw = &s->pre_seg;
			} else {
				raw = analyzer__tl_reader_next(&s->rd);
			}
			if (raw && raw->end_ns <= s->from_ns) {
				continue; /* before the thread's window */
			}
			if (raw) {
				struct analyzer_segment sg = *raw;

				sg.begin_ns = sg.begin_ns < s->from_ns ? s->from_ns : sg.begin_ns;
				s->last_end = sg.end_ns;
				s->any = true;
				expand(s, sg);
				continue;
			}
			if (s->rd.core->status) {
				return NULL;
			}
			s->raw_done = true;
		}
		if (s->tail_done) {
			return NULL;
		}
		/* the joins after the last segment */
		for (; s->j < s->n_ins; s->j++) {
			uint64_t ts = s->any ? s->last_end : s->ins[s->j].ts;

			ts = s->ins[s->j].ts > ts ? s->ins[s->j].ts : ts;
			s->q[s->q_n++] = (struct analyzer_segment){ts, ts, ANALYZER_SEG_JOIN,
								   (uint32_t)s->ins[s->j].child};
		}
		s->tail_done = true;
	}
	return &s->q[s->q_pos++];
}

void analyzer__seg_stream_close(struct analyzer_seg_stream *s)
{
	analyzer__tl_reader_close(&s->rd);
	free(s->q);
	s->q = NULL;
}
