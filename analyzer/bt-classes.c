/* SPDX-License-Identifier: MIT */
/*
 * Event class resolution (bt-classes.h): names to kinds and fields, for every naming variant
 * (../shared/traces/README.md lists them). Fields are looked up by name, never by position.
 */
#include <stdlib.h>
#include <string.h>

#include "bt-classes.h"

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Event class resolution
 */
bool analyzer_bt_find_member(const bt_field_class *fc, const char *name, uint8_t where,
			     struct fref *out)
{
	uint64_t n;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return false;
	}
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
		    bt_field_class_structure_borrow_member_by_index_const(fc, i);
		const bt_field_class *mfc;
		bt_field_class_type t;

		if (strcmp(bt_field_class_structure_member_get_name(m), name)) {
			continue;
		}
		mfc = bt_field_class_structure_member_borrow_field_class_const(m);
		t = bt_field_class_get_type(mfc);
		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
			out->type = FT_SINT;
		} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
			out->type = FT_UINT;
		} else if (t == BT_FIELD_CLASS_TYPE_STRING) {
			out->type = FT_STRING;
		} else {
			return false;
		}
		out->where = where;
		out->idx = (uint32_t)i;
		return true;
	}
	return false;
}

/* First of the names found in the payload. */
static struct fref payload_field(const bt_event_class *cls, const char *n1, const char *n2)
{
	const bt_field_class *fc = bt_event_class_borrow_payload_field_class_const(cls);
	struct fref r = {0};

	if (!analyzer_bt_find_member(fc, n1, W_PAYLOAD, &r) && n2) {
		analyzer_bt_find_member(fc, n2, W_PAYLOAD, &r);
	}
	return r;
}

static struct fref context_field(const bt_event_class *cls, const char *name)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(cls);
	struct fref r = {0};

	if (!analyzer_bt_find_member(
		bt_stream_class_borrow_event_common_context_field_class_const(sc), name, W_COMMON,
		&r)) {
		analyzer_bt_find_member(
		    bt_event_class_borrow_specific_context_field_class_const(cls), name, W_SPECIFIC,
		    &r);
	}
	return r;
}

bool analyzer_bt_has(const struct fref *r)
{
	return r->where != W_NONE;
}

/*
 * wait4 and waitid, entry and exit: perf's syscalls:sys_enter_wait4 (what dps record adds to
 * perf sched record), lttng-modules 2.7+'s syscall_entry_wait4 and their compat_ forms. An entry
 * is one only with its pid argument (`upid`; waitid's `which` too): without it, a plain syscall
 * entry. The wait's pid says whether the thread waits for any child (joins.c).
 */
static bool resolve_wait_call(const bt_event_class *cls, const char *name,
			      struct analyzer_bt_class *ci)
{
	static const char *const entries[] = {"syscalls:sys_enter_", "syscall_entry_",
					      "compat_syscall_entry_"};
	static const char *const exits[] = {"syscalls:sys_exit_", "syscall_exit_",
					    "compat_syscall_exit_"};
	const char *call = NULL;
	bool entry = false;

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]) && !call; i++) {
		if (starts(name, entries[i])) {
			call = name + strlen(entries[i]);
			entry = true;
		} else if (starts(name, exits[i])) {
			call = name + strlen(exits[i]);
		}
	}
	if (!call || (strcmp(call, "wait4") && strcmp(call, "waitid"))) {
		return false;
	}
	if (!entry) {
		ci->kind = ANALYZER_EV_WAIT_EXIT;
		return true;
	}
	ci->v[INT_SLOT(wait_call.pid)] = payload_field(cls, "upid", NULL);
	if (!strcmp(call, "waitid")) {
		ci->v[INT_SLOT(wait_call.idtype)] = payload_field(cls, "which", NULL);
	}
	if (!analyzer_bt_has(&ci->v[INT_SLOT(wait_call.pid)]) ||
	    (!strcmp(call, "waitid") && !analyzer_bt_has(&ci->v[INT_SLOT(wait_call.idtype)]))) {
		ci->v[INT_SLOT(wait_call.pid)] = (struct fref){0};
		ci->v[INT_SLOT(wait_call.idtype)] = (struct fref){0};
		return false;
	}
	ci->kind = ANALYZER_EV_WAIT_ENTRY;
	return true;
}

/*
 * futex, entry and exit: perf's syscalls:sys_enter_futex (dps record adds it), lttng-modules'
 * syscall_entry_futex and their compat_ forms. The entry is one only with its word, operation
 * and value (`uaddr`, `op`, `val`); the exit with its `ret`. futex.c reads the word's protocol.
 */
static bool resolve_futex(const bt_event_class *cls, const char *name, struct analyzer_bt_class *ci)
{
	static const char *const entries[] = {"syscalls:sys_enter_futex", "syscall_entry_futex",
					      "compat_syscall_entry_futex"};
	static const char *const exits[] = {"syscalls:sys_exit_futex", "syscall_exit_futex",
					    "compat_syscall_exit_futex"};

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		if (!strcmp(name, entries[i])) {
			ci->v[INT_SLOT(futex.uaddr)] = payload_field(cls, "uaddr", NULL);
			ci->v[INT_SLOT(futex.op)] = payload_field(cls, "op", NULL);
			ci->v[INT_SLOT(futex.val)] = payload_field(cls, "val", NULL);
			ci->kind = ANALYZER_EV_FUTEX_ENTRY;
		} else if (!strcmp(name, exits[i])) {
			ci->v[INT_SLOT(futex.uaddr)] = payload_field(cls, "ret", NULL);
			ci->kind = ANALYZER_EV_FUTEX_EXIT;
		} else {
			continue;
		}
		if (!analyzer_bt_has(&ci->v[0]) ||
		    (ci->kind == ANALYZER_EV_FUTEX_ENTRY && !analyzer_bt_has(&ci->v[1]))) {
			memset(ci->v, 0, sizeof(ci->v));
			ci->kind = 0;
			return false; /* a plain syscall entry or exit */
		}
		return true;
	}
	return false;
}

static void resolve_kernel(const bt_event_class *cls, const char *name,
			   struct analyzer_bt_class *ci)
{
	if (!strcmp(name, "sched_switch")) {
		ci->kind = ANALYZER_EV_SWITCH;
		ci->v[INT_SLOT(sw.prev_tid)] = payload_field(cls, "prev_tid", "prev_pid");
		ci->v[INT_SLOT(sw.next_tid)] = payload_field(cls, "next_tid", "next_pid");
		ci->v[INT_SLOT(sw.prev_state)] = payload_field(cls, "prev_state", NULL);
		ci->s[STR_SLOT(sw.prev_comm)] = payload_field(cls, "prev_comm", NULL);
		ci->s[STR_SLOT(sw.next_comm)] = payload_field(cls, "next_comm", NULL);
	} else if (!strcmp(name, "sched_wakeup") || !strcmp(name, "sched_waking") ||
		   !strcmp(name, "sched_wakeup_new")) {
		ci->kind = ANALYZER_EV_WAKEUP;
		ci->flags = !strcmp(name, "sched_waking")	? ANALYZER_EVF_WAKING
			    : !strcmp(name, "sched_wakeup_new") ? ANALYZER_EVF_WAKEUP_NEW
								: 0;
		ci->v[INT_SLOT(wakeup.tid)] = payload_field(cls, "tid", "pid");
		ci->v[INT_SLOT(wakeup.target_cpu)] = payload_field(cls, "target_cpu", NULL);
	} else if (!strcmp(name, "sched_process_fork")) {
		ci->kind = ANALYZER_EV_FORK;
		/* lttng-modules: *_tid and (2.2+) *_pid = tgid; perf: *_pid are tids. */
		ci->v[INT_SLOT(fork.parent_tid)] = payload_field(cls, "parent_tid", NULL);
		if (analyzer_bt_has(&ci->v[INT_SLOT(fork.parent_tid)])) {
			ci->v[INT_SLOT(fork.child_tid)] = payload_field(cls, "child_tid", NULL);
			ci->v[INT_SLOT(fork.parent_pid)] = payload_field(cls, "parent_pid", NULL);
			ci->v[INT_SLOT(fork.child_pid)] = payload_field(cls, "child_pid", NULL);
		} else {
			ci->v[INT_SLOT(fork.parent_tid)] = payload_field(cls, "parent_pid", NULL);
			ci->v[INT_SLOT(fork.child_tid)] = payload_field(cls, "child_pid", NULL);
		}
		ci->s[STR_SLOT(fork.child_comm)] = payload_field(cls, "child_comm", NULL);
	} else if (!strcmp(name, "sched_process_exit")) {
		ci->kind = ANALYZER_EV_EXIT;
		ci->v[INT_SLOT(exit.tid)] = payload_field(cls, "tid", "pid");
	} else if (!strcmp(name, "sched_process_exec")) {
		ci->kind = ANALYZER_EV_EXEC;
		ci->v[INT_SLOT(exec.tid)] = payload_field(cls, "tid", "pid");
		ci->s[STR_SLOT(exec.filename)] = payload_field(cls, "filename", NULL);
	} else if (!strcmp(name, "lttng_statedump_process_state")) {
		ci->kind = ANALYZER_EV_STATEDUMP;
		ci->v[INT_SLOT(statedump.tid)] = payload_field(cls, "tid", NULL);
		ci->v[INT_SLOT(statedump.pid)] = payload_field(cls, "pid", NULL);
		ci->v[INT_SLOT(statedump.ppid)] = payload_field(cls, "ppid", NULL);
		ci->s[STR_SLOT(statedump.name)] = payload_field(cls, "name", NULL);
	} else if (!strcmp(name, "sched_stat_runtime")) {
		ci->kind = ANALYZER_EV_STAT_RUNTIME;
		ci->v[INT_SLOT(stat_runtime.tid)] = payload_field(cls, "tid", "pid");
		ci->v[INT_SLOT(stat_runtime.runtime_ns)] = payload_field(cls, "runtime", NULL);
	} else if (resolve_wait_call(cls, name, ci) || resolve_futex(cls, name, ci)) {
		/* wait4, waitid, futex: kind and fields set */
	} else if (starts(name, "syscall_entry_") || starts(name, "compat_syscall_entry_") ||
		   (starts(name, "sys_") && !starts(name, "sys_exit")) ||
		   starts(name, "compat_sys_") || starts(name, "raw_syscalls:sys_enter") ||
		   starts(name, "syscalls:sys_enter_")) {
		ci->kind = ANALYZER_EV_SYSCALL_ENTRY;
	} else if (starts(name, "syscall_exit_") || starts(name, "compat_syscall_exit_") ||
		   !strcmp(name, "exit_syscall") || starts(name, "raw_syscalls:sys_exit") ||
		   starts(name, "syscalls:sys_exit_")) {
		ci->kind = ANALYZER_EV_SYSCALL_EXIT;
	} else {
		ci->kind = ANALYZER_EV_OTHER;
	}
}

/*
 * The probe's blocking calls and the objects it saw made (dps_sync's events but the condition
 * variables'): the event's name gives the kind and the operation, its fields the object (the
 * first of its fields that names one) and the parameter. Returns false for another event.
 */
static bool resolve_sync_op(const bt_event_class *cls, const char *ev, struct analyzer_bt_class *ci)
{
	static const struct {
		const char *name;
		uint32_t kind;
		uint32_t op;
		const char *obj, *param;
	} ops[] = {
	    {"barrier_init", ANALYZER_EV_SYNC_OBJ_INIT, SYNC_OP_BARRIER_WAIT, "barrier", "parties"},
	    {"barrier_wait_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_BARRIER_WAIT, "barrier",
	     NULL},
	    {"barrier_wait_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_BARRIER_WAIT, "barrier",
	     "result"},
	    {"sem_init", ANALYZER_EV_SYNC_OBJ_INIT, SYNC_OP_SEM_WAIT, "sem", "value"},
	    {"sem_wait_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_WAIT, "sem", "timeout_ns"},
	    {"sem_wait_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_WAIT, "sem", "result"},
	    {"sem_post_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_SEM_POST, "sem", NULL},
	    {"sem_post_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_SEM_POST, "sem", "result"},
	    {"rwlock_rdlock_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_RDLOCK, "rwlock",
	     "timeout_ns"},
	    {"rwlock_rdlock_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_RDLOCK, "rwlock", "result"},
	    {"rwlock_wrlock_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_WRLOCK, "rwlock",
	     "timeout_ns"},
	    {"rwlock_wrlock_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_WRLOCK, "rwlock", "result"},
	    {"rwlock_unlock_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_RWUNLOCK, "rwlock", NULL},
	    {"rwlock_unlock_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_RWUNLOCK, "rwlock", "result"},
	    {"pipe_read_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_PIPE_READ, "pipe", "count"},
	    {"pipe_read_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_PIPE_READ, "pipe", "result"},
	    {"pipe_write_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_PIPE_WRITE, "pipe", "count"},
	    {"pipe_write_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_PIPE_WRITE, "pipe", "result"},
	    {"lock_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_LOCK, "lock", NULL},
	    {"lock_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_LOCK, "lock", "result"},
	    {"unlock_begin", ANALYZER_EV_SYNC_OP_BEGIN, SYNC_OP_UNLOCK, "lock", NULL},
	    {"unlock_end", ANALYZER_EV_SYNC_OP_END, SYNC_OP_UNLOCK, "lock", "result"},
	    {"pool_take", ANALYZER_EV_SYNC_POOL_TAKE, SYNC_OP_NONE, "pool", "got"},
	};

	if (!strcmp(ev, "unmodelled")) {
		ci->kind = ANALYZER_EV_SYNC_UNMODELLED;
		ci->s[STR_SLOT(unmodelled.what)] = payload_field(cls, "what", NULL);
		return true;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(ev, ops[i].name)) {
			continue;
		}
		ci->v[INT_SLOT(sync.obj)] = payload_field(cls, ops[i].obj, NULL);
		if (!analyzer_bt_has(&ci->v[INT_SLOT(sync.obj)])) {
			return true; /* not the probe's event as dps knows it: nothing to read */
		}
		ci->kind = ops[i].kind;
		if (ops[i].param) {
			ci->v[INT_SLOT(sync.param)] = payload_field(cls, ops[i].param, NULL);
		}
		ci->const_slot = INT_SLOT(sync.op);
		ci->const_val = ops[i].op;
		return true;
	}
	return false;
}

static void resolve_ust(const bt_event_class *cls, const char *name, struct analyzer_bt_class *ci)
{
	const char *ev = strchr(name, ':');
	size_t plen = ev ? (size_t)(ev - name) : 0;

	ev = ev ? ev + 1 : name;
	if ((plen == 14 && starts(name, "lttng_ust_libc")) ||
	    (plen == 8 && starts(name, "ust_libc"))) {
		if (!strcmp(ev, "malloc") || !strcmp(ev, "memalign")) {
			ci->kind = ANALYZER_EV_ALLOC;
			ci->v[INT_SLOT(alloc.ptr)] = payload_field(cls, "ptr", NULL);
			ci->v[INT_SLOT(alloc.size_bytes)] = payload_field(cls, "size", NULL);
		} else if (!strcmp(ev, "calloc")) {
			ci->kind = ANALYZER_EV_ALLOC;
			ci->calloc = true;
			ci->v[INT_SLOT(alloc.ptr)] = payload_field(cls, "ptr", NULL);
			ci->v[INT_SLOT(alloc.size_bytes)] = payload_field(cls, "nmemb", NULL);
			ci->calloc_size = payload_field(cls, "size", NULL);
		} else if (!strcmp(ev, "posix_memalign")) {
			ci->kind = ANALYZER_EV_ALLOC;
			ci->posix_memalign = true;
			ci->v[INT_SLOT(alloc.ptr)] = payload_field(cls, "out_ptr", NULL);
			ci->v[INT_SLOT(alloc.size_bytes)] = payload_field(cls, "size", NULL);
			ci->result = payload_field(cls, "result", NULL);
		} else if (!strcmp(ev, "realloc")) {
			ci->kind = ANALYZER_EV_REALLOC;
			ci->v[INT_SLOT(realloc.in_ptr)] = payload_field(cls, "in_ptr", NULL);
			ci->v[INT_SLOT(realloc.size_bytes)] = payload_field(cls, "size", NULL);
			ci->v[INT_SLOT(realloc.ptr)] = payload_field(cls, "ptr", NULL);
		} else if (!strcmp(ev, "free")) {
			ci->kind = ANALYZER_EV_FREE;
			ci->v[INT_SLOT(free.ptr)] = payload_field(cls, "ptr", NULL);
		}
	} else if (starts(name, "lttng_ust_cyg_profile")) {
		ci->flags = ANALYZER_EVF_CYG;
		ci->v[INT_SLOT(func.addr)] = payload_field(cls, "addr", NULL);
		ci->kind = !strcmp(ev, "func_entry")  ? ANALYZER_EV_FUNC_ENTRY
			   : !strcmp(ev, "func_exit") ? ANALYZER_EV_FUNC_EXIT
						      : ANALYZER_EV_OTHER;
	} else if (plen == 9 && starts(name, "dps_stack")) {
		ci->v[INT_SLOT(func.addr)] = payload_field(cls, "addr", NULL);
		ci->v[INT_SLOT(func.sp)] = payload_field(cls, "sp", NULL);
		if (analyzer_bt_has(&ci->v[INT_SLOT(func.sp)])) {
			ci->flags = ANALYZER_EVF_HAS_SP;
		}
		ci->kind = !strcmp(ev, "func_entry")  ? ANALYZER_EV_FUNC_ENTRY
			   : !strcmp(ev, "func_exit") ? ANALYZER_EV_FUNC_EXIT
						      : ANALYZER_EV_OTHER;
	} else if (plen == 17 && starts(name, "lttng_ust_pthread")) {
		/* the pthread wrapper (liblttng-ust-pthread-wrapper.so): a lock's acquisition
		 * (lock_acq, or trylock with status 0) and its unlock; lock_req is not needed */
		if (!strcmp(ev, "pthread_mutex_lock_acq") || !strcmp(ev, "pthread_mutex_trylock")) {
			ci->kind = ANALYZER_EV_SYNC_LOCK_ACQ;
			ci->v[INT_SLOT(sync.obj)] = payload_field(cls, "mutex", NULL);
			ci->v[INT_SLOT(sync.param)] = payload_field(cls, "status", NULL);
		} else if (!strcmp(ev, "pthread_mutex_unlock")) {
			ci->kind = ANALYZER_EV_SYNC_UNLOCK;
			ci->v[INT_SLOT(sync.obj)] = payload_field(cls, "mutex", NULL);
		}
	} else if (plen == 8 && starts(name, "dps_sync")) {
		/* the synchronization probe (syncprobe/, tracepoints/dps_sync_tp.h) */
		if (resolve_sync_op(cls, ev, ci)) {
			return;
		}
		ci->v[INT_SLOT(sync.obj)] = payload_field(cls, "cond", NULL);
		if (!strcmp(ev, "cond_wait_begin") || !strcmp(ev, "cond_wait_end")) {
			ci->kind = !strcmp(ev, "cond_wait_begin") ? ANALYZER_EV_SYNC_COND_WAIT_BEGIN
								  : ANALYZER_EV_SYNC_COND_WAIT_END;
			ci->v[INT_SLOT(sync.mutex)] = payload_field(cls, "mutex", NULL);
			ci->v[INT_SLOT(sync.param)] = payload_field(cls, "timeout_ns", "result");
		} else if (!strcmp(ev, "cond_signal") || !strcmp(ev, "cond_broadcast")) {
			ci->kind = ANALYZER_EV_SYNC_COND_SIGNAL;
		}
	} else if (plen == 3 && starts(name, "dps")) {
		static const struct {
			const char *name;
			uint32_t kind;
			const char *f0,
			    *f1; /* payload fields of slot 0 (.dps.id, .dps_mem.delta_bytes)
				  * and slot 1 (.dps.cpu_ns, .dps_mem.size_bytes) */
		} dps[] = {
		    {"thread_begin", ANALYZER_EV_DPS_THREAD_BEGIN, "id", NULL},
		    {"thread_end", ANALYZER_EV_DPS_THREAD_END, "id", "cpu_ns"},
		    {"run_begin", ANALYZER_EV_DPS_RUN_BEGIN, NULL, NULL},
		    {"run_end", ANALYZER_EV_DPS_RUN_END, NULL, NULL},
		    {"sleep_begin", ANALYZER_EV_DPS_SLEEP_BEGIN, NULL, NULL},
		    {"sleep_end", ANALYZER_EV_DPS_SLEEP_END, NULL, NULL},
		    {"create", ANALYZER_EV_DPS_CREATE, "child_id", NULL},
		    {"join_begin", ANALYZER_EV_DPS_JOIN_BEGIN, "child_id", NULL},
		    {"join_end", ANALYZER_EV_DPS_JOIN_END, "child_id", NULL},
		    {"wait_begin", ANALYZER_EV_DPS_WAIT_BEGIN, "waker_id", NULL},
		    {"wait_end", ANALYZER_EV_DPS_WAIT_END, "waker_id", NULL},
		    {"wake", ANALYZER_EV_DPS_WAKE, "wakee_id", NULL},
		    {"heap", ANALYZER_EV_DPS_HEAP, "delta_bytes", "size_bytes"},
		    {"stack", ANALYZER_EV_DPS_STACK, "delta_bytes", "depth_bytes"},
		    /* annotations: slot 0 .sync.obj, slot 1 .sync.param */
		    {"queue_init", ANALYZER_EV_SYNC_QUEUE_INIT, "obj", "capacity"},
		    {"produce", ANALYZER_EV_SYNC_PRODUCE, "obj", NULL},
		    {"consume", ANALYZER_EV_SYNC_CONSUME, "obj", NULL},
		    {"barrier_init", ANALYZER_EV_SYNC_BARRIER_INIT, "obj", "parties"},
		    {"arrive", ANALYZER_EV_SYNC_ARRIVE, "obj", NULL},
		    {"pool_take", ANALYZER_EV_SYNC_POOL_TAKE, "obj", NULL},
		};

		for (size_t i = 0; i < sizeof(dps) / sizeof(dps[0]); i++) {
			if (strcmp(ev, dps[i].name)) {
				continue;
			}
			ci->kind = dps[i].kind;
			if (dps[i].f0) {
				ci->v[0] = payload_field(cls, dps[i].f0, NULL);
			}
			if (dps[i].f1) {
				ci->v[1] = payload_field(cls, dps[i].f1, NULL);
			}
		}
	}
}

struct analyzer_bt_class *analyzer_bt_class_resolve(const bt_event_class *cls)
{
	struct analyzer_bt_class *ci = calloc(1, sizeof(*ci));
	const char *name = bt_event_class_get_name(cls);

	if (!ci) {
		return NULL;
	}
	name = name ? name : "";
	if (starts(name, "sched:")) {
		resolve_kernel(cls, name + 6, ci);
	} else if (strchr(name, ':') && !starts(name, "raw_syscalls:") &&
		   !starts(name, "syscalls:")) {
		resolve_ust(cls, name, ci);
	} else {
		resolve_kernel(cls, name, ci);
	}
	/* Who runs the event: perf's sample fields, LTTng's contexts. */
	ci->ctx_tid = payload_field(cls, "perf_tid", NULL);
	if (!analyzer_bt_has(&ci->ctx_tid)) {
		ci->ctx_tid = context_field(cls, "vtid");
	}
	if (!analyzer_bt_has(&ci->ctx_tid)) {
		ci->ctx_tid = context_field(cls, "tid");
	}
	ci->ctx_pid = payload_field(cls, "perf_pid", NULL);
	if (!analyzer_bt_has(&ci->ctx_pid)) {
		ci->ctx_pid = context_field(cls, "vpid");
	}
	if (!analyzer_bt_has(&ci->ctx_pid)) {
		ci->ctx_pid = context_field(cls, "pid");
	}
	ci->ctx_comm = context_field(cls, "procname");
	ci->irq = payload_field(cls, "common_flags", NULL);
	ci->need_common = ci->ctx_tid.where == W_COMMON || ci->ctx_pid.where == W_COMMON ||
			  ci->ctx_comm.where == W_COMMON;
	ci->need_specific = ci->ctx_tid.where == W_SPECIFIC || ci->ctx_pid.where == W_SPECIFIC ||
			    ci->ctx_comm.where == W_SPECIFIC;
	/* A kernel event we do not use and that names no thread: count it only. */
	ci->skip = ci->kind == ANALYZER_EV_OTHER && !analyzer_bt_has(&ci->ctx_tid);
	ci->ctx_is_prev_tid = ci->kind == ANALYZER_EV_SWITCH && ci->ctx_tid.where == W_PAYLOAD &&
			      analyzer_bt_has(&ci->v[INT_SLOT(sw.prev_tid)]);
	return ci;
}
