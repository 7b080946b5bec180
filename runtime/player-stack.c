/* SPDX-License-Identifier: MIT */
/*
 * The stacks of the player's threads. A `stack +N` action is played as a real stack of that
 * depth (memory.c's recursion), so a thread whose curve goes deeper than a default thread's
 * stack (8 MiB with the usual `ulimit -s`) could only be capped, though the set's validation
 * accepted it: the set's limit is 1 GiB (DPS_ACTION_MAX_STACK_BYTES, dps/dps-action.h). The
 * player therefore starts such a thread with a stack that holds its curve, and plays a root
 * whose curve does not fit its caller's stack on a thread of its own. Every other thread keeps
 * the default stack: nothing changes for a set whose curves are shallow.
 */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "memory-internal.h"

/* What one level of the stack recursion costs beyond its alloca (its frame is tens of bytes;
 * the compensation absorbs it into any rise larger than that), with room to spare. */
#define FRAME_BYTES 256
/* What the thread uses besides its curve: the frames above the recursion's root, and below
 * the deepest level the player's action, its events and libc. */
#define PLAY_BYTES (512 * 1024)
/* A curve of many tiny rises costs frames beyond its depth; past this the memory stub caps
 * and reports it rather than map more. */
#define MAX_NEED_BYTES (2 * (size_t)DPS_ACTION_MAX_STACK_BYTES)

size_t dps__stack_need(const struct dps_thread_desc *t)
{
	int64_t depth = 0, deepest = 0;
	size_t rises = 0, need;

	for (size_t i = 0; i < t->n_actions; i++) {
		int64_t d = t->actions[i].arg;

		if (t->actions[i].kind != DPS_ACT_STACK) {
			continue;
		}
		/* as the stub plays it (memory.c): each change held to the set's limit */
		d = d > DPS_ACTION_MAX_STACK_BYTES    ? DPS_ACTION_MAX_STACK_BYTES
		    : d < -DPS_ACTION_MAX_STACK_BYTES ? -DPS_ACTION_MAX_STACK_BYTES
						      : d;
		depth += d;
		rises += d > 0;
		deepest = depth > deepest ? depth : deepest;
	}
	if (!deepest) {
		return 0;
	}
	need = (size_t)deepest + PLAY_BYTES + DPS__STACK_RESERVE_BYTES;
	need += rises < (MAX_NEED_BYTES - need) / FRAME_BYTES ? rises * FRAME_BYTES
							      : MAX_NEED_BYTES - need;
	return need;
}

/* The stack size a new thread gets by default, or 0 when unknown. */
static size_t default_stack_size(void)
{
	pthread_attr_t attr;
	size_t size = 0;

	if (pthread_getattr_default_np(&attr) == 0) {
		if (pthread_attr_getstacksize(&attr, &size)) {
			size = 0;
		}
		pthread_attr_destroy(&attr);
	}
	return size;
}

int dps__stack_thread_create(pthread_t *pt, const struct dps_thread_desc *t, void *(*fn)(void *),
			     void *arg)
{
	size_t need = dps__stack_need(t), page = (size_t)sysconf(_SC_PAGESIZE);
	pthread_attr_t attr;
	int rc;

	if (!need || need <= default_stack_size()) {
		return pthread_create(pt, NULL, fn, arg);
	}
	rc = pthread_attr_init(&attr);
	if (rc) {
		return rc;
	}
	page = page ? page : 4096;
	rc = pthread_attr_setstacksize(&attr, (need + page - 1) / page * page);
	if (!rc) {
		rc = pthread_create(pt, &attr, fn, arg);
	}
	pthread_attr_destroy(&attr);
	return rc;
}

bool dps__stack_fits_here(const struct dps_thread_desc *t)
{
	size_t need = dps__stack_need(t);
	pthread_attr_t attr;
	void *addr = NULL;
	size_t size = 0;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	if (!need) {
		return true;
	}
	if (pthread_getattr_np(pthread_self(), &attr)) {
		return false;
	}
	if (pthread_attr_getstack(&attr, &addr, &size)) {
		addr = NULL;
	}
	pthread_attr_destroy(&attr);
	/* the stack grows down from addr + size; what is left is from here to addr */
	return addr && sp > (uintptr_t)addr && sp - (uintptr_t)addr >= need;
}
