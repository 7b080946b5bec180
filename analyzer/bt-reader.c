/* SPDX-License-Identifier: MIT */
/*
 * The event reader: one babeltrace2 message -> one neutral event (bt-reader.h). Shared by
 * dps's own graphs (bt-source.c) and the sink component sink.dps.actions (bt-plugin.c).
 *
 * Event classes are resolved once (cache keyed by the class pointer): kind, and the index of
 * each field of interest, found by name. Per event: a pointer lookup for the class and one for
 * the stream (both direct-mapped caches in front of hash tables) and indexed reads.
 */
#include <stdlib.h>
#include <string.h>

#include <dps/dps-status.h>
#include <glib.h>

#include "bt-classes.h"
#include "bt-reader.h"
#include "bt-source.h"

/* A trace's environment, read at its first stream. */
struct trace_state {
	const bt_trace *trace; /* a reference (bt_trace_get_ref) */
	int64_t env_vpid;      /* per-PID UST buffers: the process, else -1 */
	char *env_procname;    /* owned (g_free), NULL when the environment has none */
	bool kernel;	       /* env domain = "kernel" (LTTng kernel or perf) */
	uint64_t last_ts;      /* its last event's time: a discarded message's without one */
};

struct stream_state {
	const bt_stream *stream;   /* a reference (bt_stream_get_ref) */
	struct trace_state *trace; /* borrowed: r->traces owns it */
	uint64_t freq;		   /* its clock's frequency, Hz */
	int32_t cpu;		   /* its packets' cpu_id, -1 unknown */
};

/* Bits of analyzer_bt_reader.known: what the reader already told about a tid. */
#define KNOWN_PID 1u
#define KNOWN_COMM 2u
#define KNOWN_MAX ANALYZER_KNOWN_MAX

#define CACHE_SLOTS 64

struct analyzer_bt_reader {
	GHashTable *classes; /* const bt_event_class * (a reference) -> analyzer_bt_class (owned) */
	struct {
		const bt_event_class *cls;
		struct analyzer_bt_class *ci;
	} cache[CACHE_SLOTS]; /* direct-mapped in front of the hash table */
	GHashTable *streams;  /* const bt_stream * -> struct stream_state (owned) */
	struct stream_state *stream_cache[CACHE_SLOTS]; /* borrowed, as cache */
	GHashTable *traces; /* const bt_trace * -> struct trace_state (owned) */
	bool views;
	bool has_sched;
	uint64_t n_events;
	/*
	 * Per tid, whether its pid (KNOWN_PID) or name (KNOWN_COMM) was given in an event
	 * already: its context fields and next_comm are then not read again (the core uses
	 * them only for a thread it does not know yet). A fork or exit of the tid forgets it
	 * (the tid may be reused). Owned, KNOWN_MAX bytes, touched pages only. NULL for a
	 * stream group's decoder (views): it reads every field, and the merge of the groups
	 * applies the table in the order of all events (analyzer_known_filter).
	 */
	uint8_t *known;
};

static size_t slot_of(const void *p)
{
	return ((uintptr_t)p >> 4) & (CACHE_SLOTS - 1);
}

static void free_class(gpointer key, gpointer value, gpointer data)
{
	(void)data;
	bt_event_class_put_ref(key);
	free(value);
}

static void free_stream(gpointer p)
{
	struct stream_state *s = p;

	bt_stream_put_ref(s->stream);
	g_free(s);
}

static void free_trace(gpointer p)
{
	struct trace_state *t = p;

	bt_trace_put_ref(t->trace);
	g_free(t->env_procname);
	g_free(t);
}

struct analyzer_bt_reader *analyzer_bt_reader_create(bool views)
{
	struct analyzer_bt_reader *r = g_new0(struct analyzer_bt_reader, 1);

	r->views = views;
	r->classes = g_hash_table_new(g_direct_hash, g_direct_equal);
	r->streams = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_stream);
	r->traces = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_trace);
	if (!views) {
		r->known = calloc(KNOWN_MAX, 1);
		if (!r->known) {
			analyzer_bt_reader_destroy(r);
			return NULL;
		}
	}
	return r;
}

void analyzer_bt_reader_destroy(struct analyzer_bt_reader *r)
{
	if (!r) {
		return;
	}
	if (r->classes) {
		g_hash_table_foreach(r->classes, free_class, NULL);
		g_hash_table_destroy(r->classes);
	}
	if (r->streams) {
		g_hash_table_destroy(r->streams);
	}
	if (r->traces) {
		g_hash_table_destroy(r->traces);
	}
	free(r->known);
	g_free(r);
}

bool analyzer_bt_reader_has_sched(const struct analyzer_bt_reader *r)
{
	return r->has_sched;
}

uint64_t analyzer_bt_reader_event_count(const struct analyzer_bt_reader *r)
{
	return r->n_events;
}

/*
 * Reading fields
 */
struct roots {
	const bt_field *f[4];
};

static const bt_field *borrow(const struct roots *r, const struct fref *ref)
{
	const bt_field *st = r->f[ref->where];

	return st ? bt_field_structure_borrow_member_field_by_index_const(st, ref->idx) : NULL;
}

static int64_t read_int(const struct roots *r, const struct fref *ref, int64_t dflt)
{
	const bt_field *f;

	if (ref->where == W_NONE) {
		return dflt;
	}
	f = borrow(r, ref);
	if (!f) {
		return dflt;
	}
	if (ref->type == FT_SINT) {
		return bt_field_integer_signed_get_value(f);
	}
	if (ref->type == FT_UINT) {
		return (int64_t)bt_field_integer_unsigned_get_value(f);
	}
	return dflt;
}

static const char *read_str(const struct roots *r, const struct fref *ref)
{
	const bt_field *f;

	if (ref->where == W_NONE || ref->type != FT_STRING) {
		return NULL;
	}
	f = borrow(r, ref);
	return f ? bt_field_string_get_value(f) : NULL;
}

int64_t analyzer_bt_read_member_int(const bt_field *st, const char *name, int64_t dflt)
{
	struct roots roots = {{NULL}};
	struct fref ref = {0};

	if (!st ||
	    !analyzer_bt_find_member(bt_field_borrow_class_const(st), name, W_PAYLOAD, &ref)) {
		return dflt;
	}
	roots.f[W_PAYLOAD] = st;
	return read_int(&roots, &ref, dflt);
}

/*
 * Streams and traces
 */

/* A trace's environment: its domain, and a per-PID UST buffer's process. */
static struct trace_state *trace_state(struct analyzer_bt_reader *r, const bt_trace *trace)
{
	struct trace_state *t = g_hash_table_lookup(r->traces, trace);
	const bt_value *v;

	if (t) {
		return t;
	}
	t = g_new0(struct trace_state, 1);
	t->trace = trace;
	bt_trace_get_ref(trace);
	t->env_vpid = -1;
	v = bt_trace_borrow_environment_entry_value_by_name_const(trace, "domain");
	if (v && bt_value_is_string(v) && !strcmp(bt_value_string_get(v), "kernel")) {
		t->kernel = true;
	}
	v = bt_trace_borrow_environment_entry_value_by_name_const(trace, "vpid");
	if (v && bt_value_is_signed_integer(v)) {
		t->env_vpid = bt_value_integer_signed_get(v);
	} else if (v && bt_value_is_unsigned_integer(v)) {
		t->env_vpid = (int64_t)bt_value_integer_unsigned_get(v);
	}
	v = bt_trace_borrow_environment_entry_value_by_name_const(trace, "procname");
	if (v && bt_value_is_string(v)) {
		t->env_procname = g_strdup(bt_value_string_get(v));
	}
	g_hash_table_insert(r->traces, (gpointer)trace, t);
	r->has_sched = r->has_sched || t->kernel;
	return t;
}

static struct stream_state *stream_state(struct analyzer_bt_reader *r, const bt_stream *stream)
{
	size_t slot = slot_of(stream);
	struct stream_state *s = r->stream_cache[slot];
	const bt_clock_class *cc;

	if (s && s->stream == stream) {
		return s;
	}
	s = g_hash_table_lookup(r->streams, stream);
	if (!s) {
		s = g_new0(struct stream_state, 1);
		s->stream = stream;
		bt_stream_get_ref(stream);
		s->trace = trace_state(r, bt_stream_borrow_trace_const(stream));
		s->cpu = -1;
		s->freq = 1000000000ULL;
		cc = bt_stream_class_borrow_default_clock_class_const(
		    bt_stream_borrow_class_const(stream));
		if (cc && bt_clock_class_get_frequency(cc)) {
			s->freq = bt_clock_class_get_frequency(cc);
		}
		g_hash_table_insert(r->streams, (gpointer)stream, s);
	}
	r->stream_cache[slot] = s;
	return s;
}

int analyzer_bt_reader_note_stream(struct analyzer_bt_reader *r, const bt_stream *stream)
{
	stream_state(r, stream);
	return DPS_OK;
}

/* A stream ended: forgotten (its pointer may be reused for another). */
static void end_stream(struct analyzer_bt_reader *r, const bt_stream *stream)
{
	size_t slot = slot_of(stream);

	if (r->stream_cache[slot] && r->stream_cache[slot]->stream == stream) {
		r->stream_cache[slot] = NULL;
	}
	g_hash_table_remove(r->streams, stream);
}

static void set_stream_cpu(struct analyzer_bt_reader *r, const bt_packet *packet)
{
	const bt_field *ctx = bt_packet_borrow_context_field_const(packet);
	struct stream_state *s = stream_state(r, bt_packet_borrow_stream_const(packet));
	int64_t cpu = analyzer_bt_read_member_int(ctx, "cpu_id", INT64_MIN);

	if (cpu != INT64_MIN) {
		s->cpu = (int32_t)cpu;
	}
}

static uint64_t snapshot_ns(const struct stream_state *s, const bt_clock_snapshot *cs)
{
	uint64_t v = bt_clock_snapshot_get_value(cs);

	if (s->freq == 1000000000ULL) {
		return v;
	}
	return (uint64_t)((unsigned __int128)v * 1000000000ULL / s->freq);
}

/*
 * Threads already described
 */

/* Without a table (views) nothing is known: every field is read. */
static bool known(const uint8_t *table, int64_t tid, uint8_t what)
{
	return table && tid > 0 && tid < KNOWN_MAX && (table[tid] & what);
}

static void set_known(uint8_t *table, int64_t tid, uint8_t what)
{
	if (tid > 0 && tid < KNOWN_MAX) {
		table[tid] |= what;
	}
}

/* Notes what an event told about its threads (see analyzer_bt_reader.known). */
static void note_known(uint8_t *table, const struct analyzer_event *e)
{
	if (!table) {
		return;
	}
	if (e->ctx_pid >= 0) {
		set_known(table, e->ctx_tid, KNOWN_PID);
	}
	if (e->ctx_comm && e->ctx_comm[0]) {
		set_known(table, e->ctx_tid, KNOWN_COMM);
	}
	switch (e->kind) {
	case ANALYZER_EV_SWITCH:
		if (e->sw.next_comm && e->sw.next_comm[0]) {
			set_known(table, e->sw.next_tid, KNOWN_COMM);
		}
		break;
	case ANALYZER_EV_FORK:
		if (e->fork.child_tid > 0 && e->fork.child_tid < KNOWN_MAX) {
			table[e->fork.child_tid] = 0;
		}
		break;
	case ANALYZER_EV_EXIT:
		if (e->exit.tid > 0 && e->exit.tid < KNOWN_MAX) {
			table[e->exit.tid] = 0;
		}
		break;
	default:
		break;
	}
}

/*
 * What read_event leaves unread for a known thread, dropped from an event read whole, and the
 * table updated: the event then is what one source reading every trace would have given.
 */
void analyzer_known_filter(uint8_t *table, struct analyzer_event *e)
{
	if (e->kind == ANALYZER_EV_DISCARDED) {
		return; /* not an event of the trace: read_discarded, not read_event */
	}
	if (known(table, e->ctx_tid, KNOWN_PID)) {
		e->ctx_pid = -1;
		e->ctx_comm = NULL;
	}
	if (e->raw.s[1] && known(table, e->sw.next_tid, KNOWN_COMM)) {
		e->sw.next_comm = NULL;
	}
	note_known(table, e);
}

/*
 * Events
 */

static struct analyzer_bt_class *event_class(struct analyzer_bt_reader *r,
					     const bt_event_class *cls)
{
	size_t slot = slot_of(cls);
	struct analyzer_bt_class *ci;

	if (r->cache[slot].cls == cls) {
		return r->cache[slot].ci;
	}
	ci = g_hash_table_lookup(r->classes, cls);
	if (!ci) {
		ci = analyzer_bt_class_resolve(cls);
		if (!ci) {
			return NULL;
		}
		bt_event_class_get_ref(cls);
		g_hash_table_insert(r->classes, (gpointer)cls, ci);
	}
	r->cache[slot].cls = cls;
	r->cache[slot].ci = ci;
	return ci;
}

/* Fills *out from an event message. Returns DPS_OK or DPS_ERR_NOMEM. */
static int read_event(struct analyzer_bt_reader *r, const bt_message *msg,
		      struct analyzer_event *out)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	struct analyzer_bt_class *ci = event_class(r, bt_event_borrow_class_const(ev));
	struct stream_state *s = stream_state(r, bt_event_borrow_stream_const(ev));
	struct trace_state *t = s->trace;
	struct analyzer_event e;
	struct roots rt;
	uint64_t ts;

	if (!ci) {
		return DPS_ERR_NOMEM;
	}
	ts = snapshot_ns(s, bt_message_event_borrow_default_clock_snapshot_const(msg));
	t->last_ts = ts;
	r->n_events++;
	e = analyzer_event_init(ci->kind, ts, s->cpu);
	if (ci->skip) {
		/* Still an event of the trace (its span, the count). */
		e.kind = ANALYZER_EV_OTHER;
		*out = e;
		return DPS_OK;
	}
	rt.f[W_NONE] = NULL;
	rt.f[W_PAYLOAD] = bt_event_borrow_payload_field_const(ev);
	rt.f[W_COMMON] = ci->need_common ? bt_event_borrow_common_context_field_const(ev) : NULL;
	rt.f[W_SPECIFIC] =
	    ci->need_specific ? bt_event_borrow_specific_context_field_const(ev) : NULL;
	e.flags = ci->flags;
	e.raw.v[0] = read_int(&rt, &ci->v[0], -1);
	/* perf's sample tid of a sched_switch is its prev_pid: one read less on the most
	 * frequent event. */
	e.ctx_tid = ci->ctx_is_prev_tid ? e.sw.prev_tid : read_int(&rt, &ci->ctx_tid, -1);
	/* The pid of a known thread does not change: skip reading it. */
	if (!known(r->known, e.ctx_tid, KNOWN_PID)) {
		e.ctx_pid = read_int(&rt, &ci->ctx_pid, t->env_vpid);
		e.ctx_comm = read_str(&rt, &ci->ctx_comm);
		if (!e.ctx_comm) {
			e.ctx_comm = t->env_procname;
		}
	}
	if (ci->kind == ANALYZER_EV_WAKEUP && analyzer_bt_has(&ci->irq) &&
	    (read_int(&rt, &ci->irq, 0) & 0x58)) {
		/* perf's common_flags: hardirq 0x08, softirq 0x10, nmi 0x40 */
		e.flags |= ANALYZER_EVF_IRQ;
	}
	for (size_t i = 1; i < ANALYZER_EV_INTS; i++) {
		e.raw.v[i] = read_int(&rt, &ci->v[i], -1);
	}
	if (ci->const_slot) {
		e.raw.v[ci->const_slot] = ci->const_val;
	}
	e.raw.s[0] = read_str(&rt, &ci->s[0]);
	/* next_comm only for a thread not named yet: its renames show in its prev_comm. */
	if (analyzer_bt_has(&ci->s[1]) && !known(r->known, e.sw.next_tid, KNOWN_COMM)) {
		e.sw.next_comm = read_str(&rt, &ci->s[1]);
	}
	if (ci->calloc) {
		e.alloc.size_bytes = (int64_t)((uint64_t)e.alloc.size_bytes *
					       (uint64_t)read_int(&rt, &ci->calloc_size, 1));
	}
	if (ci->posix_memalign && read_int(&rt, &ci->result, 0) != 0) {
		e.kind = ANALYZER_EV_OTHER;
	}
	if (ci->kind == ANALYZER_EV_SWITCH && ci->v[INT_SLOT(sw.prev_state)].type == FT_UINT &&
	    analyzer_bt_has(&ci->v[INT_SLOT(sw.prev_state)])) {
		/* 32-bit prev_state read as unsigned still keeps its low byte. */
		e.sw.prev_state &= 0xffffffff;
	}
	note_known(r->known, &e);
	*out = e;
	return DPS_OK;
}

/*
 * Whether a stream can have lost count events (or packets) between begin_ns and end_ns. The
 * count is the difference of two packets' counters (or sequence numbers): one damaged byte of
 * a packet context makes it 10^15 or more, which babeltrace2 reports as it is. No tracer
 * records an event per nanosecond on one stream; so at most one per ns of the time range, and
 * never fewer than 2^20 (a range of a few ns, between two packets); 2^40 when the stream's
 * losses have no times.
 */
static bool plausible_loss(uint64_t count, bool timed, int64_t begin_ns, int64_t end_ns)
{
	uint64_t limit = 1ull << 40;

	if (timed) {
		uint64_t range = end_ns > begin_ns ? (uint64_t)(end_ns - begin_ns) : 0;

		limit = range > (1u << 20) ? range : 1u << 20;
	}
	return count <= limit;
}

static void read_discarded(struct analyzer_bt_reader *r, const bt_message *msg, bool packets,
			   struct analyzer_event *out)
{
	const bt_stream *stream = packets ? bt_message_discarded_packets_borrow_stream_const(msg)
					  : bt_message_discarded_events_borrow_stream_const(msg);
	struct stream_state *s = stream_state(r, stream);
	struct analyzer_event e = analyzer_event_init(ANALYZER_EV_DISCARDED, s->trace->last_ts, -1);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	uint64_t count = 0;

	e.discarded.end_ts = (int64_t)s->trace->last_ts;
	e.flags = ANALYZER_EVF_TS_LAST;
	if (packets) {
		e.flags |= ANALYZER_EVF_PACKETS;
		if (bt_message_discarded_packets_get_count(msg, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			e.discarded.count = (int64_t)count;
		}
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
			e.flags &= ~ANALYZER_EVF_TS_LAST;
			e.ts = snapshot_ns(
			    s,
			    bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				msg));
			e.discarded.end_ts = (int64_t)snapshot_ns(
			    s, bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(
				   msg));
		}
	} else {
		if (bt_message_discarded_events_get_count(msg, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			e.discarded.count = (int64_t)count;
		}
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
			e.flags &= ~ANALYZER_EVF_TS_LAST;
			e.ts = snapshot_ns(
			    s,
			    bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				msg));
			e.discarded.end_ts = (int64_t)snapshot_ns(
			    s, bt_message_discarded_events_borrow_end_default_clock_snapshot_const(
				   msg));
		}
	}
	if (!plausible_loss(count, !(e.flags & ANALYZER_EVF_TS_LAST), (int64_t)e.ts,
			    e.discarded.end_ts)) {
		e.flags |= ANALYZER_EVF_DAMAGED;
		e.discarded.stream = bt_stream_get_name(stream);
	}
	if (!r->views) {
		e.flags &= ~ANALYZER_EVF_TS_LAST; /* only for the merge of stream groups */
	}
	*out = e;
}

uint64_t analyzer_bt_reader_message_ts(struct analyzer_bt_reader *r, const bt_message *msg)
{
	const bt_stream *stream;
	struct stream_state *s;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		s = stream_state(
		    r, bt_event_borrow_stream_const(bt_message_event_borrow_event_const(msg)));
		return snapshot_ns(s, bt_message_event_borrow_default_clock_snapshot_const(msg));
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		stream = bt_message_discarded_events_borrow_stream_const(msg);
		s = stream_state(r, stream);
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(
			bt_stream_borrow_class_const(stream))) {
			return snapshot_ns(
			    s,
			    bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				msg));
		}
		return s->trace->last_ts;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		stream = bt_message_discarded_packets_borrow_stream_const(msg);
		s = stream_state(r, stream);
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(
			bt_stream_borrow_class_const(stream))) {
			return snapshot_ns(
			    s,
			    bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				msg));
		}
		return s->trace->last_ts;
	default:
		return 0;
	}
}

int analyzer_bt_reader_take(struct analyzer_bt_reader *r, const bt_message *msg,
			    struct analyzer_event *out)
{
	int status;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		status = read_event(r, msg, out);
		return status ? status : 1;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return analyzer_bt_reader_note_stream(
		    r, bt_message_stream_beginning_borrow_stream_const(msg));
	case BT_MESSAGE_TYPE_STREAM_END:
		end_stream(r, bt_message_stream_end_borrow_stream_const(msg));
		return 0;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		set_stream_cpu(r, bt_message_packet_beginning_borrow_packet_const(msg));
		return 0;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		read_discarded(r, msg, false, out);
		return 1;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		read_discarded(r, msg, true, out);
		return 1;
	default:
		return 0;
	}
}
