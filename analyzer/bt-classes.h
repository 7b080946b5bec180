/* SPDX-License-Identifier: MIT */
/*
 * Event classes of every tracer the analyzer reads, resolved once per class (bt-classes.c):
 * which neutral event kind a class is, and where each field of interest sits (payload, common
 * or specific context; its index and type), found by name across the naming variants of
 * lttng-modules 2.0 ... 2.13, perf's CTF conversion, lttng-ust (libc wrapper, cyg_profile)
 * and dps's own providers. The event source (bt-source.c) then reads fields by index.
 */
#ifndef DPS_ANALYZER_BT_CLASSES_H
#define DPS_ANALYZER_BT_CLASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "event.h"

enum fref_where {
	W_NONE = 0,
	W_PAYLOAD,
	W_COMMON,
	W_SPECIFIC,
};

enum fref_type {
	FT_UINT = 0,
	FT_SINT,
	FT_STRING,
};

struct fref {
	uint8_t where;
	uint8_t type;
	uint32_t idx;
};

/* The index of an event member in its slots (event.h: `raw`). */
#define INT_SLOT(m)                                                                                \
	((offsetof(struct analyzer_event, m) - offsetof(struct analyzer_event, raw.v[0])) /        \
	 sizeof(int64_t))
#define STR_SLOT(m)                                                                                \
	((offsetof(struct analyzer_event, m) - offsetof(struct analyzer_event, raw.s[0])) /        \
	 sizeof(const char *))

struct analyzer_bt_class {
	uint32_t kind;
	uint32_t flags;
	bool skip;	     /* nothing to read: count only */
	bool calloc;	     /* b = nmemb * size */
	bool posix_memalign; /* allocation only when result == 0 */
	bool need_common, need_specific;
	bool ctx_is_prev_tid; /* perf sched_switch: perf_tid is prev_pid */
	/* where each slot of the event's fields comes from (event.h: `raw`) */
	struct fref v[ANALYZER_EV_INTS], s[ANALYZER_EV_STRS];
	struct fref ctx_tid, ctx_pid, ctx_comm, irq;
	struct fref calloc_size, result;
	/* a value the event's name gives, put in slot const_slot (0: none): the probe's
	 * operation (.sync.op) */
	uint32_t const_slot;
	int64_t const_val;
};

/* Resolves a class. Returns a new struct (free() it), NULL on ENOMEM. */
struct analyzer_bt_class *analyzer_bt_class_resolve(const bt_event_class *cls);
/* Finds member name in a structure field class; fills *out (where, index, type). */
bool analyzer_bt_find_member(const bt_field_class *fc, const char *name, uint8_t where,
			     struct fref *out);
/* Whether the class has this field. */
bool analyzer_bt_has(const struct fref *r);

#endif /* DPS_ANALYZER_BT_CLASSES_H */
