/* SPDX-License-Identifier: MIT */
/*
 * The actions of a thread (doc/action-format.md), as libdps plays them (dependency-free: the
 * tools' common code and the tracepoint provider include this, not dps.h). The keywords are
 * one table, DPS_ACTION_KINDS, that the parser, the writer, simgen and the runtime all use.
 */
#ifndef DPS_DPS_ACTION_H
#define DPS_DPS_ACTION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(enumerator, value, keyword, what arg is in a played struct dps_action) */
#define DPS_ACTION_KINDS(X)                                                                        \
	X(DPS_ACT_RUN, 1, "run", "ns of run")                                                      \
	X(DPS_ACT_SLEEP, 2, "sleep", "ns of sleep")                                                \
	X(DPS_ACT_CREATE, 3, "create", "index of the thread to start")                             \
	X(DPS_ACT_JOIN, 4, "join", "index of the thread to wait for")                              \
	X(DPS_ACT_WAIT, 5, "wait", "index of the waker; consumes one wake from it")                \
	X(DPS_ACT_WAKE, 6, "wake", "index of the sleeper; gives it one wake")                      \
	X(DPS_ACT_HEAP, 7, "heap", "signed change of the heap in use, bytes")                      \
	X(DPS_ACT_STACK, 8, "stack", "signed change of the stack depth, bytes")

enum dps_action_kind {
#define DPS_ACTION_KIND_ENUM_(e, v, kw, what) e = v,
	DPS_ACTION_KINDS(DPS_ACTION_KIND_ENUM_)
#undef DPS_ACTION_KIND_ENUM_
};

/* The highest kind value (kinds are 1 .. DPS_ACT_MAX). */
#define DPS_ACT_MAX 8

/* The keyword of a kind ("run", ...), or NULL for a value that is no kind. Inline, so the
 * tools that do not link libdps use the same table. */
static inline const char *dps_action_kind_name(uint32_t kind)
{
	switch (kind) {
#define DPS_ACTION_KIND_NAME_(e, v, kw, what)                                                      \
	case e:                                                                                    \
		return kw;
		DPS_ACTION_KINDS(DPS_ACTION_KIND_NAME_)
#undef DPS_ACTION_KIND_NAME_
	default:
		return (const char *)0;
	}
}

/* One action as the player plays it. */
struct dps_action {
	int64_t arg;   /* see DPS_ACTION_KINDS: ns, bytes, or another thread's index */
	uint32_t kind; /* enum dps_action_kind */
	uint32_t line; /* line in the source .act file (0 = unknown), for events */
};

#ifdef __cplusplus
}
#endif

#endif /* DPS_DPS_ACTION_H */
