/* SPDX-License-Identifier: MIT */
/*
 * The action builder's state, shared by actions.c (one thread's actions) and output.c (the
 * result and the set around it).
 */
#ifndef DPS_ANALYZER_ACTIONS_H
#define DPS_ANALYZER_ACTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "core-internal.h"
#include "tasks.h"

/*
 * Where a thread's segments and memory samples come from: its result arrays, or (the streamed
 * path) the spill file through analyzer__seg_stream and a memory-sample reader, remapped as
 * analyzer__copy_timeline does. Marks are always the result's (they are few).
 */
struct tl_source {
	const struct analyzer_thread *rt;
	size_t seg_i, mem_i;
	struct analyzer_core *core; /* streamed: */
	struct athread *t;
	struct analyzer_seg_stream *segs;
	struct analyzer_tl_reader *mem;
	const struct analyzer_mem_sample *mem_next; /* read ahead */
	struct analyzer_segment seg_buf;
	struct analyzer_segment ahead; /* read ahead past a sleep (src_sleep_to_cpu) */
	bool have_ahead;
};

/* Builds one thread's actions from its segments, marks and memory samples. */
struct act_builder {
	struct analyzer_core *core;
	const struct analyzer_result *res;
	struct dps_actset *set;
	size_t t; /* index in the set */
	/* with an output directory: the thread's file is open in w, the actions from `written`
	 * on go to it every FLUSH_AT actions, and only creates and joins stay in the set */
	struct dps_actset_writer *w;
	struct dps_diag *diag;
	size_t written;
	uint64_t pending_run; /* ns */
	uint64_t carried;     /* ns of short blocks not yet given to a block action */
	double run_scale;
	int64_t heap, stack;
	int status;
	/* synchronization points (sync.c) of core thread ci (SIZE_MAX: none), the next one, the
	 * depth of each mutex this thread holds (owned, by object index), and when its last
	 * arrive was (the block right after it is the arrive's) */
	size_t ci;
	const GArray *sync;
	guint si;
	uint32_t *held;
	size_t n_held;
	uint64_t arrive_ts;
	/* the task queues' watch on this thread (tasks.h; NULL without sync points), and when
	 * the take being emitted happened */
	struct analyzer_tasks *tasks;
	struct analyzer_task_thread *tt;
	uint64_t take_ts;
	/* a block that may be the next take's, put's or lock's own: held back until that
	 * action (then dropped) or any other (then written before the run since) */
	uint32_t pend_kind; /* DPS_ACT_WAIT, _WAIT_TIMEOUT, _SLEEP, or 0: none */
	int64_t pend_arg;   /* the waker's id, or the sleep's ns */
	uint64_t pend_aux;  /* a timed wait's timeout, ns */
	uint32_t pend_obj;  /* the mutex a quiet condition wait released around it, or
			     * ANALYZER_SYNC_NO_OBJ */
	uint64_t pend_run;  /* the run before it, ns: merged with the one after when dropped */
	/* between a condition wait's begin and end points (the probe's, sync.c): its mutex (an
	 * object index), the depth the begin released (0: no unlock played, no lock to play at
	 * the end), its timeout (-1 untimed) and result (the end's; -1 unknown), whether a
	 * block was seen in it. Quiet: an annotated put or take follows the wait (nothing but
	 * other waits between), whose own release (cycle_held) plays the mutex's; its blocks
	 * are that action's (take_sync_block looks past the waits' points), and those that are
	 * not are played with the mutex released around them. */
	bool in_cond, cond_quiet, cond_blocked;
	uint32_t cond_obj, cond_depth;
	int64_t cond_timeout, cond_result;
	/* the role of each sync point in a loop of timed waits (ticks.h; NULL: no such loop),
	 * the role of the condition wait the thread is in, and the blocked time of the loop's
	 * timed-out waits so far (dropped when a traced thread ends the loop) */
	uint8_t *tick_roles;
	uint8_t cond_role;
	uint64_t tick_held;
	/* joins met while the thread held a mutex, played once it holds none (owned, ids) */
	GArray *late_joins;
	/* the window of the probe's (or a futex barrier's) call the thread is in: its blocks
	 * and its CPU in it are the call's own (sync-probe.c), dropped; empty when from >= to */
	uint64_t call_from, call_to;
	/* the held-back block's span, for the kind of word it was on (futex.c) */
	uint64_t pend_b, pend_e;
	size_t pend_waker; /* its waker (a result index) when it is a wait */
};

/* Thread b->t's actions from src; run_sum: the thread's run segments' total (to scale the
 * runs to its CPU time). */
int analyzer__actions_build(struct act_builder *b, struct tl_source *src, uint64_t run_sum,
			    uint64_t min_block);
/* The actions of result thread rt, whose timeline is in memory. */
int analyzer__actions_build_of(struct act_builder *b, const struct analyzer_thread *rt,
			       uint64_t min_block);
/* Segment s of t as the result has it (output.c). */
void analyzer__remap_seg(struct analyzer_core *core, const struct athread *t,
			 struct analyzer_segment *s);

#endif /* DPS_ANALYZER_ACTIONS_H */
