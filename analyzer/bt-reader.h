/* SPDX-License-Identifier: MIT */
/*
 * The event reader (bt-reader.c): babeltrace2 messages in, neutral events (event.h) out, one
 * message at a time. It is what turns a trace's events into what the core reads, whoever runs
 * the babeltrace2 graph: dps's own graphs (bt-source.c) and the babeltrace2 sink component
 * sink.dps.actions (bt-plugin.c), so that both give the core the same events.
 *
 * It owns what reading needs across messages: the event classes resolved once (bt-classes.c),
 * each stream's CPU (its packets' cpu_id) and clock frequency, each trace's environment (the
 * domain: kernel or UST; a per-PID UST buffer's vpid and procname) and its last event's time,
 * and the tids already described (their pid and name are then not read again). Streams,
 * traces and event classes are kept by pointer, with a reference, so that a pointer freed and
 * reused by babeltrace2 (a live session's streams come and go) is never taken for another.
 */
#ifndef DPS_ANALYZER_BT_READER_H
#define DPS_ANALYZER_BT_READER_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "event.h"

struct analyzer_bt_reader;

/*
 * views: the reader of a stream group's decoder (contain.c): every field is read, also those
 * of a thread described already (the merge of the groups drops them: analyzer_known_filter),
 * and a discarded message without a time keeps ANALYZER_EVF_TS_LAST. Returns NULL on ENOMEM.
 */
struct analyzer_bt_reader *analyzer_bt_reader_create(bool views);
void analyzer_bt_reader_destroy(struct analyzer_bt_reader *r); /* accepts NULL */

/*
 * Takes one message: returns 1 when it gives an event (an event, or discarded events or
 * packets) in *out, 0 when it gives none (its effect is the reader's: a stream begun, a
 * packet's CPU), DPS_ERR_NOMEM. The strings of *out live in msg (and the reader): keep msg
 * until the event is used.
 */
int analyzer_bt_reader_take(struct analyzer_bt_reader *r, const bt_message *msg,
			    struct analyzer_event *out);

/*
 * A stream begun (or seen first): its trace's environment is read once. Called by
 * analyzer_bt_reader_take on a stream beginning; a caller that looks ahead (the first
 * messages of a graph, before any is taken) calls it to know the traces' domains.
 * Returns DPS_OK or DPS_ERR_NOMEM.
 */
int analyzer_bt_reader_note_stream(struct analyzer_bt_reader *r, const bt_stream *stream);

/*
 * The time, in ns, that analyzer_bt_reader_take will give the event of msg (an event, or
 * discarded events or packets: without a time of their own, their trace's last event's);
 * 0 for any other message.
 */
uint64_t analyzer_bt_reader_message_ts(struct analyzer_bt_reader *r, const bt_message *msg);

/* Whether a stream of a kernel trace (LTTng kernel or perf: environment domain "kernel") was
 * noted: the input has scheduling events (core.h, analyzer_core_create). */
bool analyzer_bt_reader_has_sched(const struct analyzer_bt_reader *r);

/* Events taken so far (event messages). */
uint64_t analyzer_bt_reader_event_count(const struct analyzer_bt_reader *r);

/* The integer member `name` of a structure field (a packet context), or dflt. */
int64_t analyzer_bt_read_member_int(const bt_field *st, const char *name, int64_t dflt);

#endif /* DPS_ANALYZER_BT_READER_H */
