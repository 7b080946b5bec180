/* SPDX-License-Identifier: MIT */
/*
 * The probe's blocking calls (dps_sync, syncprobe/; doc/sync.md): pthread barriers, POSIX
 * semaphores, rwlocks, reads and writes of pipes, and OpenMP's team barriers, critical
 * sections and work-sharing pools. Each call's begin and end (the begin: what it asked; the
 * end: what it got) make one point at the begin's time with a window up to the end: the
 * object's action (an arrive, a take, a lock...) stands where the thread entered the call,
 * and whatever the thread did inside it (the blocks the object will play, the CPU libgomp
 * spent spinning before it slept) is the call's own, not the program's work (actions.c drops
 * it). A call that failed (a trywait that found no item, a timed wait that timed out, a read
 * at the end of the pipe) makes no point: the thread's blocks in it stay what they were.
 *
 * Objects: a barrier, a semaphore (a queue of its permits: sem_post puts one, a wait that got
 * one takes it; it starts with its sem_init value), a rwlock, a pipe (a queue of its bytes,
 * named by its inode in every process, holding 64 KiB, Linux's default), OpenMP's locks
 * (mutexes) and its loops' pools (a queue that starts with every chunk the threads asked for,
 * the empty answers too: each thread's last take ends its share, doc/sync.md "Task queues").
 * The annotation dps_pool_take makes the same pools.
 */
#include <stdlib.h>
#include <string.h>

#include "sync-internal.h"

/* Linux's pipe buffer unless F_SETPIPE_SZ changed it (not recorded). */
#define PIPE_CAPACITY 65536u

/* The object a call of op on ev's obj names, in thread t's process. */
static struct sync_obj *op_object(struct analyzer_core *core, const struct athread *t, uint32_t op,
				  uint64_t obj)
{
	struct sync_obj *o = NULL;

	switch (op) {
	case SYNC_OP_BARRIER_WAIT:
		o = analyzer__sync_obj(core, t->pid, obj, DPS_OBJ_BARRIER, NS_PROBE);
		break;
	case SYNC_OP_SEM_WAIT:
	case SYNC_OP_SEM_POST:
		o = analyzer__sync_obj(core, t->pid, obj, DPS_OBJ_QUEUE, NS_PROBE);
		break;
	case SYNC_OP_RDLOCK:
	case SYNC_OP_WRLOCK:
	case SYNC_OP_RWUNLOCK:
		o = analyzer__sync_obj(core, t->pid, obj, DPS_OBJ_RWLOCK, NS_PROBE);
		break;
	case SYNC_OP_PIPE_READ:
	case SYNC_OP_PIPE_WRITE:
		o = analyzer__sync_obj(core, -1, obj, DPS_OBJ_QUEUE, NS_PIPE);
		if (o && !o->capacity) {
			o->capacity = PIPE_CAPACITY;
		}
		break;
	case SYNC_OP_LOCK:
	case SYNC_OP_UNLOCK:
		o = analyzer__sync_obj(core, t->pid, obj, DPS_OBJ_MUTEX, NS_PROBE);
		break;
	default:
		break;
	}
	if (o) {
		o->probe = true;
	}
	return o;
}

/* A point of call c (its begin's time, a window up to end_ns) of kind on o. */
static struct analyzer_sync_point *call_point(struct analyzer_core *core, size_t ctx,
					      const struct athread_calls *c, uint64_t end_ns,
					      uint32_t kind, struct sync_obj *o)
{
	struct analyzer_sync_point *p = analyzer__sync_point(core, ctx, c->ts, kind, o, 0, NULL);

	if (p) {
		p->end_ns = end_ns > c->ts ? end_ns : c->ts;
		p->probe = true;
	}
	return p;
}

/* The point the call c of thread ctx (t), which returned result at end_ns, makes. */
static void end_call(struct analyzer_core *core, size_t ctx, struct athread *t,
		     const struct athread_calls *c, int64_t result, uint64_t end_ns)
{
	struct sync_obj *o = op_object(core, t, c->op, c->obj);
	struct analyzer_sync_point *p;

	if (!o) {
		return;
	}
	switch (c->op) {
	case SYNC_OP_BARRIER_WAIT:
		if (!o->capacity) {
			if (!o->arrivers) {
				o->arrivers = g_hash_table_new(g_direct_hash, g_direct_equal);
			}
			g_hash_table_add(o->arrivers, GSIZE_TO_POINTER(ctx + 1));
		}
		call_point(core, ctx, c, end_ns, ANALYZER_EV_SYNC_ARRIVE, o);
		break;
	case SYNC_OP_SEM_WAIT:
		if (result != 0) {
			return; /* it got no permit: EAGAIN, ETIMEDOUT, EINTR */
		}
		o->level--;
		o->low = o->level < o->low ? o->level : o->low;
		call_point(core, ctx, c, end_ns, ANALYZER_EV_SYNC_CONSUME, o);
		break;
	case SYNC_OP_SEM_POST:
		o->level++;
		call_point(core, ctx, c, end_ns, ANALYZER_EV_SYNC_PRODUCE, o);
		break;
	case SYNC_OP_RDLOCK:
	case SYNC_OP_WRLOCK:
	case SYNC_OP_LOCK:
		if (result != 0) {
			return; /* a try that failed, a timeout */
		}
		p = call_point(core, ctx, c, end_ns, ANALYZER_EV_SYNC_LOCK_ACQ, o);
		if (p) {
			p->shared = c->op == SYNC_OP_RDLOCK;
		}
		break;
	case SYNC_OP_RWUNLOCK:
	case SYNC_OP_UNLOCK:
		call_point(core, ctx, c, end_ns, ANALYZER_EV_SYNC_UNLOCK, o);
		break;
	case SYNC_OP_PIPE_READ:
	case SYNC_OP_PIPE_WRITE:
		if (result <= 0) {
			return; /* the end of the pipe (its writers' exit wakes the reader), an
				 * error */
		}
		o->level += c->op == SYNC_OP_PIPE_WRITE ? result : -result;
		o->low = o->level < o->low ? o->level : o->low;
		p = call_point(core, ctx, c, end_ns,
			       c->op == SYNC_OP_PIPE_WRITE ? ANALYZER_EV_SYNC_PRODUCE
							   : ANALYZER_EV_SYNC_CONSUME,
			       o);
		if (p) {
			p->count = (uint64_t)result;
		}
		break;
	default:
		break;
	}
}

/* A pool's take (OpenMP's loops, dps_pool_take): the pool holds every take, its empty answers
 * too; a thread's last take ends its share. */
static void pool_take(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx,
		      const struct athread *t)
{
	bool probe = ev->sync.op >= 0; /* the annotation's event has no op */
	struct sync_obj *o = analyzer__sync_obj(core, t->pid, (uint64_t)ev->sync.obj, DPS_OBJ_QUEUE,
						probe ? NS_POOL : NS_ANNOTATED);
	struct analyzer_sync_point *p;

	if (!o || o->kind != DPS_OBJ_QUEUE) {
		return;
	}
	o->probe = true;
	o->level--;
	o->low = o->level < o->low ? o->level : o->low;
	p = analyzer__sync_point(core, ctx, ev->ts, ANALYZER_EV_SYNC_CONSUME, o, 0, NULL);
	if (p) {
		p->probe = true;
	}
}

static void note_unmodelled(struct analyzer_core *core, const char *what)
{
	if (!what || !*what) {
		what = "(unnamed)";
	}
	if (!core->unmodelled) {
		core->unmodelled = g_ptr_array_new_with_free_func(g_free);
	}
	for (guint i = 0; i < core->unmodelled->len; i++) {
		if (!strcmp(g_ptr_array_index(core->unmodelled, i), what)) {
			return;
		}
	}
	if (core->unmodelled->len < 64) {
		g_ptr_array_add(core->unmodelled, g_strndup(what, 80));
	}
}

void analyzer__on_sync_probe(struct analyzer_core *core, const struct analyzer_event *ev,
			     size_t ctx)
{
	struct athread *t = analyzer__thread_at(core, ctx);
	struct athread_calls *c = &t->calls;
	struct sync_obj *o;

	switch (ev->kind) {
	case ANALYZER_EV_SYNC_OBJ_INIT:
		if (ev->sync.obj == 0 || ev->sync.param < 0) {
			return;
		}
		if (ev->sync.op == SYNC_OP_BARRIER_WAIT) {
			o = op_object(core, t, SYNC_OP_BARRIER_WAIT, (uint64_t)ev->sync.obj);
			if (o && ev->sync.param > 0) {
				o->capacity = (uint64_t)ev->sync.param;
			}
		} else if (ev->sync.op == SYNC_OP_SEM_WAIT) {
			o = op_object(core, t, SYNC_OP_SEM_WAIT, (uint64_t)ev->sync.obj);
			if (o) {
				/* a semaphore made again starts again: its permits now */
				o->has_initial = true;
				o->initial = (uint64_t)ev->sync.param;
				o->level = 0;
				o->low = 0;
			}
		}
		return;
	case ANALYZER_EV_SYNC_OP_BEGIN:
		if (ev->sync.obj == 0 || ev->sync.op <= SYNC_OP_NONE || ev->sync.op >= SYNC_OP_NR) {
			return;
		}
		/* a begin while another call is open: that one's end was lost */
		c->op = (uint32_t)ev->sync.op;
		c->obj = (uint64_t)ev->sync.obj;
		c->ts = ev->ts;
		c->arg = ev->sync.param;
		return;
	case ANALYZER_EV_SYNC_OP_END:
		if (c->op == SYNC_OP_NONE || c->op != (uint32_t)ev->sync.op ||
		    c->obj != (uint64_t)ev->sync.obj) {
			return; /* no begin seen (the trace began inside the call) */
		}
		end_call(core, ctx, t, c, ev->sync.param, ev->ts);
		c->op = SYNC_OP_NONE;
		return;
	case ANALYZER_EV_SYNC_POOL_TAKE:
		/* an item or the empty answer (got 0): a take either way */
		if (ev->sync.obj != 0) {
			pool_take(core, ev, ctx, t);
		}
		return;
	case ANALYZER_EV_SYNC_UNMODELLED:
		note_unmodelled(core, ev->unmodelled.what);
		return;
	default:
		return;
	}
}

void analyzer__sync_probe_close(struct analyzer_core *core)
{
	for (size_t i = 0; i < core->n_th; i++) {
		struct athread *t = core->th[i];

		if (!t || t->calls.op == SYNC_OP_NONE) {
			continue;
		}
		/* only a barrier's wait lasts to the end with a meaning (an OpenMP worker after
		 * its last region); any other open call's end is not known */
		if (t->calls.op == SYNC_OP_BARRIER_WAIT) {
			end_call(core, i, t, &t->calls, 0, UINT64_MAX);
		}
		t->calls.op = SYNC_OP_NONE;
	}
}

bool analyzer__sync_in_call(const struct analyzer_core *core, size_t ctx)
{
	const struct athread *t = core->th[ctx];

	return t && (t->calls.op != SYNC_OP_NONE || t->calls.in_cond);
}
