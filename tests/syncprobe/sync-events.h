/* SPDX-License-Identifier: MIT */
/*
 * test-syncprobe-live's view of a recording: a program recorded with `dps record --sync`, its
 * dps_sync events read back from babeltrace2's text output, in the trace's order (by time), with
 * their thread, process and payload fields. Functions that cannot do their job fail the test.
 */
#ifndef DPS_TESTS_SYNCPROBE_SYNC_EVENTS_H
#define DPS_TESTS_SYNCPROBE_SYNC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct sync_event {
	char *name;    /* owned: the event's name without "dps_sync:" */
	int64_t vtid;  /* the thread */
	int64_t vpid;  /* its process */
	char *payload; /* owned: babeltrace2's "{ field = value, ... }" */
};

struct sync_trace {
	struct sync_event *events; /* owned, n of them */
	size_t n;
	char *out;   /* owned: the program's standard output */
	int64_t pid; /* the recorded command's process (record.info) */
};

/*
 * Records the program tests/syncprobe/PROG of the build tree with ARGS (a shell word list)
 * under `dps record --sync`, checks that it exited 0, and reads the dps_sync events of the
 * processes named PROG (it and the children it executed again). Free with sync_trace_fini.
 */
struct sync_trace sync_trace_record(const char *prog, const char *args);
void sync_trace_fini(struct sync_trace *t);

/* The text of field's value in e's payload (up to the next ", " or " }"), or NULL. */
const char *sync_field(const struct sync_event *e, const char *field);
/* The field's value as a number (decimal, or hex with 0x); fails the test when it is absent. */
int64_t sync_field_i64(const struct sync_event *e, const char *field);
uint64_t sync_field_u64(const struct sync_event *e, const char *field);

/* Whether e is the event name. */
int sync_is(const struct sync_event *e, const char *name);
/* How many events are name (and, when field is not NULL, have that field equal to value). */
size_t sync_count(const struct sync_trace *t, const char *name, const char *field, int64_t value);

/* The numbers after "key " at the start of the program's output lines, in order: how many
 * there are (at most max stored in values). */
size_t sync_out_values(const struct sync_trace *t, const char *key, uint64_t *values, size_t max);
/* The first of them; fails the test without one. */
uint64_t sync_out_value(const struct sync_trace *t, const char *key);

#endif /* DPS_TESTS_SYNCPROBE_SYNC_EVENTS_H */
