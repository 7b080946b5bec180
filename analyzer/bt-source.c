/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 adapter: finds the CTF traces below the given directories, reads each with
 * its own graph (source.ctf.fs -> filter.utils.muxer -> a simple sink of ours) and merges the
 * graphs by timestamp into the core.
 *
 * Why one graph per trace: babeltrace2's muxer refuses to mix clock classes that do not share
 * an origin (LTTng's clock is "unix epoch", perf's is not unless dps record gave it LTTng's:
 * analyzer/clocks.c; older traces and other tools' do not have that), and dps record writes
 * both into one trace directory. All timestamps here are the clock's raw value in ns:
 * CLOCK_MONOTONIC for LTTng (kernel and UST) and for `perf sched record -k CLOCK_MONOTONIC`, so
 * they align.
 *
 * Each message becomes a neutral event in the reader (bt-reader.c), which the babeltrace2
 * sink component sink.dps.actions (bt-plugin.c) shares; what is left here is running the
 * graphs, merging them, and saying where decoding stopped. The event classes
 * (bt-classes.c) and the trace finding (find-traces.c) are apart too.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "bt-reader.h"
#include "bt-source.h"
#include "core.h"
#include "find-traces.h"

struct bt_input {
	char *path;  /* what babeltrace2 reads: the trace, or a view of some of its streams */
	char *trace; /* the trace's path as found, in messages (== path but for a view) */
	bt_graph *graph;
	const bt_message **buf;
	size_t n, pos, cap;
	bool ended;
	/* By stream id: the byte offset of its next packet, and its packets begun so far
	 * (only for saying where decoding stopped: analyzer_decode_status). */
	uint64_t *stream_off, *stream_npk;
	size_t n_stream_off;
	/*
	 * A view (stream group decoding): the order key of each stream by id (UINT64_MAX not
	 * known yet), whether the trace's packet headers give stream ids (else babeltrace2
	 * numbers the streams by file name), and the trace's stream file names, sorted
	 * (borrowed: analyzer_source_view).
	 */
	uint64_t *stream_key;
	size_t n_stream_key;
	bool instance_ids;
	const char *const *files;
	const struct analyzer_view_file *info;
	size_t n_files;
	bool failed;
	int status;
};

struct analyzer_source {
	struct bt_input *in; /* owned: one per trace */
	size_t n_in;
	/* Owned: messages -> events (the event classes, the streams' CPUs, the traces'
	 * environments, the threads already described), one for every input. */
	struct analyzer_bt_reader *reader;
	const bt_plugin *ctf, *utils;
	char *description; /* owned: the trace paths, space-separated */
	bool has_sched;	   /* a kernel trace among the first messages of the inputs */
	/* The merge: the input being drained and the next-earliest input's head (ts, index). */
	struct bt_input *cur;
	uint64_t second_ts;
	size_t second_idx;
	/* Reading views (analyzer_source_open_views), and the order key of the event last
	 * returned (analyzer_source_order_key). */
	bool views;
	uint64_t order;
	/* The message of the event last returned: its strings live until the next call. */
	const bt_message *held;
	char damaged_stream[1024]; /* a damaged discarded message's stream, named as in the trace */
	bool progress;
	struct analyzer_decode_status *status; /* borrowed, may be NULL */
	GPtrArray *skips;		       /* owned: char * (g_free), what is not read */
	uint64_t next_progress;
	struct timespec t0;
	bool progress_shown;
};

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A cause without babeltrace2's debugging details (": msg-it-addr=0x..., state=..."): up to
 * the first ": " followed by a key=value list, and without a final period. */
static int cause_length(const char *msg)
{
	const char *p = msg;
	size_t n = strlen(msg);

	while ((p = strstr(p, ": "))) {
		const char *q = p + 2;

		while (*q && *q != ' ' && *q != ',' && *q != '=') {
			q++;
		}
		if (*q == '=') {
			n = (size_t)(p - msg);
			break;
		}
		p += 2;
	}
	while (n && (msg[n - 1] == '.' || msg[n - 1] == ' ')) {
		n--;
	}
	return (int)n;
}

/*
 * Errors: babeltrace2's causes, most recent first, as one line.
 */
static void take_bt_error(struct dps_diag *diag, const char *what)
{
	const bt_error *err = bt_current_thread_take_error();
	char buf[DPS_DIAG_MSG_LEN];
	size_t len;

	len = (size_t)snprintf(buf, sizeof(buf), "%s", what);
	if (err) {
		uint64_t n = bt_error_get_cause_count(err);

		for (uint64_t i = 0; i < n && len < sizeof(buf) - 1; i++) {
			const bt_error_cause *c = bt_error_borrow_cause_by_index(err, i);
			const char *msg = bt_error_cause_get_message(c);
			int keep;

			if (!msg || starts(msg, "Component initialization method failed")) {
				continue;
			}
			keep = cause_length(msg);
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%.*s",
						i ? "; " : ": ", keep, msg);
		}
		bt_error_release(err);
	}
	/* Causes can span lines; keep the message on one. */
	for (char *p = buf; *p; p++) {
		if (*p == '\n') {
			*p = ' ';
		}
	}
	dps_diag_setf(diag, "%s", buf);
}

/* Replaces, in diag's message, each view's directory by its trace's path: the files named are
 * the trace's. */
static void unview_diag(const struct analyzer_source *src, struct dps_diag *diag)
{
	if (!src->views || !diag) {
		return;
	}
	for (size_t i = 0; i < src->n_in; i++) {
		const struct bt_input *in = &src->in[i];
		char *msg;

		if (!in->path || !strstr(diag->msg, in->path)) {
			continue;
		}
		msg = g_strdup(diag->msg);
		{
			gchar **parts = g_strsplit(msg, in->path, -1);
			gchar *joined = g_strjoinv(in->trace, parts);

			dps_diag_setf(diag, "%s", joined);
			g_free(joined);
			g_strfreev(parts);
		}
		g_free(msg);
	}
}

/* The rank of a view's stream file (named by its path) among its trace's files; SIZE_MAX
 * when it is not one of them. */
static size_t file_rank(const struct bt_input *in, const char *name)
{
	const char *base = name ? strrchr(name, '/') : NULL;
	size_t lo = 0, hi = in->n_files;

	base = base ? base + 1 : name ? name : "";
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(in->files[mid], base) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < in->n_files && !strcmp(in->files[lo], base) ? lo : SIZE_MAX;
}

/* Where the packet starts in its stream file (for analyzer_decode_status). */
static void track_packet(struct analyzer_source *src, struct bt_input *in, const bt_packet *packet)
{
	struct analyzer_decode_status *st = src->status;
	const bt_field *ctx = bt_packet_borrow_context_field_const(packet);
	const bt_stream *stream = bt_packet_borrow_stream_const(packet);
	const char *name = bt_stream_get_name(stream);
	uint64_t id = bt_stream_get_id(stream);
	uint64_t off = UINT64_MAX, npk = 0;

	if (id < 1u << 20 && id >= in->n_stream_off) {
		size_t n = id + 1;
		uint64_t *o = realloc(in->stream_off, n * sizeof(*o));
		uint64_t *k = o ? realloc(in->stream_npk, n * sizeof(*k)) : NULL;

		if (o) {
			in->stream_off = o;
		}
		if (k) {
			in->stream_npk = k;
			for (size_t i = in->n_stream_off; i < n; i++) {
				o[i] = 0;
				k[i] = 0;
			}
			in->n_stream_off = n;
		}
	}
	if (id < in->n_stream_off && !in->stream_npk[id] && in->info) {
		/* a piece of a stream file starts where its first packet is */
		size_t rank = file_rank(in, name);

		if (rank != SIZE_MAX) {
			in->stream_off[id] = in->info[rank].offset;
			in->stream_npk[id] = in->info[rank].packet;
		}
	}
	if (id < in->n_stream_off) {
		off = in->stream_off[id];
		npk = ++in->stream_npk[id];
		/* packet_size is in bits; without it the next offsets are unknown */
		int64_t bits = analyzer_bt_read_member_int(ctx, "packet_size", -1);

		in->stream_off[id] =
		    off != UINT64_MAX && bits >= 0 ? off + (uint64_t)bits / 8 : UINT64_MAX;
	}
	st->packet_offset = off;
	st->n_packet = npk;
	name = name ? name : "";
	if (in->trace != in->path && starts(name, in->path)) {
		/* a view's file: named as in the trace */
		snprintf(st->stream, sizeof(st->stream), "%s%s", in->trace,
			 name + strlen(in->path));
	} else {
		snprintf(st->stream, sizeof(st->stream), "%s", name);
	}
}

/*
 * A view's stream: its place among the trace's streams in babeltrace2's muxer, which breaks
 * a tie of timestamps by stream class id, then stream id (plugins/common/muxing, 2.0). The id
 * is the packet headers' stream_instance_id when they have one and the packets have a
 * beginning time; otherwise source.ctf.fs numbers the streams in the order of their files'
 * paths (fs.c, create_streams_for_trace): the rank of the file's name among all the trace's
 * stream files orders them as in the whole trace. Packed: the input's index (12 bits), the
 * stream class id (12), the stream's key (32), the piece of its file (8: groups.c cuts a large
 * stream file in pieces that follow one another); UINT64_MAX when out of those bounds.
 */
static uint64_t compute_stream_key(const struct bt_input *in, size_t idx, const bt_stream *stream)
{
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);
	uint64_t sc_id = bt_stream_class_get_id(sc), key = bt_stream_get_id(stream);
	size_t rank = file_rank(in, bt_stream_get_name(stream));

	if (rank == SIZE_MAX) {
		return UINT64_MAX;
	}
	if (!in->instance_ids ||
	    !bt_stream_class_packets_have_beginning_default_clock_snapshot(sc)) {
		key = rank;
	}
	/* the pieces of a stream file (groups.c), in the file's order */
	if (idx >= 1u << 12 || sc_id >= 1u << 12 || key >= 1ull << 32 ||
	    in->info[rank].piece >= 1u << 8) {
		return UINT64_MAX;
	}
	return (uint64_t)idx << 52 | sc_id << 40 | key << 8 | in->info[rank].piece;
}

/* The order key of a view's stream (compute_stream_key), kept by stream id. */
static uint64_t stream_key(struct analyzer_source *src, struct bt_input *in,
			   const bt_stream *stream)
{
	uint64_t id = bt_stream_get_id(stream);

	if (id < in->n_stream_key && in->stream_key[id] != UINT64_MAX) {
		return in->stream_key[id];
	}
	if (id < 1u << 20 && id >= in->n_stream_key) {
		uint64_t *k = realloc(in->stream_key, (id + 1) * sizeof(*k));

		if (k) {
			for (size_t i = in->n_stream_key; i <= id; i++) {
				k[i] = UINT64_MAX;
			}
			in->stream_key = k;
			in->n_stream_key = id + 1;
		}
	}
	if (id < in->n_stream_key) {
		in->stream_key[id] = compute_stream_key(in, (size_t)(in - src->in), stream);
		return in->stream_key[id];
	}
	return compute_stream_key(in, (size_t)(in - src->in), stream);
}

/* A discarded message whose count is damage (bt-reader.c) names its stream file as the trace
 * has it, not as a view does. */
static void name_damaged_stream(struct analyzer_source *src, const struct bt_input *in,
				struct analyzer_event *e)
{
	const char *name = e->discarded.stream;

	if (!(e->flags & ANALYZER_EVF_DAMAGED) || !name || in->trace == in->path ||
	    !starts(name, in->path)) {
		return;
	}
	snprintf(src->damaged_stream, sizeof(src->damaged_stream), "%s%s", in->trace,
		 name + strlen(in->path));
	e->discarded.stream = src->damaged_stream;
}

/* Takes one message: returns 1 when it is an event (*out filled), 0 when it is not, or an
 * error status. What the reader does not need (the decoder's place, a view's order keys) is
 * the source's. */
static int handle_message(struct analyzer_source *src, struct bt_input *in, const bt_message *msg,
			  struct analyzer_event *out)
{
	int status = analyzer_bt_reader_take(src->reader, msg, out);

	if (status < 0) {
		return status;
	}
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		if (src->views) {
			src->order = stream_key(
			    src, in,
			    bt_event_borrow_stream_const(bt_message_event_borrow_event_const(msg)));
		}
		break;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		if (src->status) {
			track_packet(src, in, bt_message_packet_beginning_borrow_packet_const(msg));
		}
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (src->views) {
			src->order = stream_key(
			    src, in, bt_message_discarded_events_borrow_stream_const(msg));
		}
		name_damaged_stream(src, in, out);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		if (src->views) {
			src->order = stream_key(
			    src, in, bt_message_discarded_packets_borrow_stream_const(msg));
		}
		name_damaged_stream(src, in, out);
		break;
	default:
		break;
	}
	return status;
}

/*
 * Graphs
 */
static bt_graph_simple_sink_component_consume_func_status sink_consume(bt_message_iterator *it,
								       void *data)
{
	struct bt_input *in = data;
	bt_message_array_const msgs;
	uint64_t count;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		if (in->n + count > in->cap) {
			size_t cap = in->cap ? in->cap : 64;
			const bt_message **buf;

			while (cap < in->n + count) {
				cap *= 2;
			}
			buf = realloc(in->buf, cap * sizeof(*buf));
			if (!buf) {
				for (uint64_t i = 0; i < count; i++) {
					bt_message_put_ref(msgs[i]);
				}
				return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
			}
			in->buf = buf;
			in->cap = cap;
		}
		memcpy(&in->buf[in->n], msgs, count * sizeof(*msgs));
		in->n += count;
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
}

static int build_graph(struct analyzer_source *src, struct bt_input *in, struct dps_diag *diag)
{
	const bt_component_class_source *fs_cls;
	const bt_component_class_filter *mux_cls;
	const bt_component_source *fs = NULL;
	const bt_component_filter *mux = NULL;
	const bt_component_sink *sink = NULL;
	bt_value *params = NULL, *inputs = NULL;
	uint64_t n_ports;
	int status = DPS_ERROR;
	char what[600];

	snprintf(what, sizeof(what), "%s: babeltrace2 cannot read this trace", in->trace);
	fs_cls = bt_plugin_borrow_source_component_class_by_name_const(src->ctf, "fs");
	mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(src->utils, "muxer");
	if (!fs_cls || !mux_cls) {
		dps_diag_setf(diag, "babeltrace2's source.ctf.fs or filter.utils.muxer is missing");
		goto end;
	}
	in->graph = bt_graph_create(0);
	params = bt_value_map_create();
	if (!in->graph || !params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, in->path)) {
		dps_diag_setf(diag, "out of memory creating a babeltrace2 graph");
		status = DPS_ERR_NOMEM;
		goto end;
	}
	if (bt_graph_add_source_component(in->graph, fs_cls, "src", params, BT_LOGGING_LEVEL_NONE,
					  &fs) ||
	    bt_graph_add_filter_component(in->graph, mux_cls, "mux", NULL, BT_LOGGING_LEVEL_NONE,
					  &mux) ||
	    bt_graph_add_simple_sink_component(in->graph, "dps", NULL, sink_consume, NULL, in,
					       &sink)) {
		take_bt_error(diag, what);
		goto end;
	}
	n_ports = bt_component_source_get_output_port_count(fs);
	for (uint64_t i = 0; i < n_ports; i++) {
		const bt_port_output *op =
		    bt_component_source_borrow_output_port_by_index_const(fs, i);
		const bt_port_input *ip =
		    bt_component_filter_borrow_input_port_by_index_const(mux, i);

		if (!ip || bt_graph_connect_ports(in->graph, op, ip, NULL)) {
			take_bt_error(diag, what);
			goto end;
		}
	}
	if (bt_graph_connect_ports(
		in->graph, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		take_bt_error(diag, what);
		goto end;
	}
	status = DPS_OK;
end:
	bt_value_put_ref(params);
	return status;
}

/* Refills an input's buffer; at the end of its trace sets ended. */
static int refill(struct analyzer_source *src, struct bt_input *in, struct dps_diag *diag)
{
	char what[600];

	in->n = in->pos = 0;
	while (!in->ended && in->n == 0) {
		if (src->status) {
			src->status->beat++;
			src->status->n_events = analyzer_bt_reader_event_count(src->reader);
		}
		switch (bt_graph_run_once(in->graph)) {
		case BT_GRAPH_RUN_ONCE_STATUS_OK:
			break;
		case BT_GRAPH_RUN_ONCE_STATUS_END:
			in->ended = true;
			break;
		case BT_GRAPH_RUN_ONCE_STATUS_AGAIN:
			g_usleep(1000);
			break;
		case BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR:
			dps_diag_setf(diag, "%s: out of memory reading the trace", in->trace);
			return DPS_ERR_NOMEM;
		default:
			snprintf(what, sizeof(what), "%s: babeltrace2 cannot read this trace",
				 in->trace);
			take_bt_error(diag, what);
			return DPS_ERROR;
		}
	}
	return DPS_OK;
}

/* The time of the message at an input's head, an event or discarded events or packets (settle):
 * as handle_message will give it. */
static uint64_t head_ts(const struct analyzer_source *src, const struct bt_input *in)
{
	return analyzer_bt_reader_message_ts(src->reader, in->buf[in->pos]);
}

/*
 * Takes the messages at an input's head that give no event (stream and packet beginnings:
 * their effects are the input's own, its streams' CPUs and environment), refilling, until its
 * head gives one or the input ends (in->pos == in->n then).
 */
static int settle(struct analyzer_source *src, struct bt_input *in, struct dps_diag *diag)
{
	for (;;) {
		const bt_message *msg;
		struct analyzer_event unused;
		int status;

		if (in->pos == in->n) {
			if (in->ended) {
				return DPS_OK;
			}
			status = refill(src, in, diag);
			if (status) {
				return status;
			}
			continue;
		}
		msg = in->buf[in->pos];
		switch (bt_message_get_type(msg)) {
		case BT_MESSAGE_TYPE_EVENT:
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
			return DPS_OK;
		default:
			in->pos++;
			handle_message(src, in, msg, &unused);
			bt_message_put_ref(msg);
		}
	}
}

static void show_progress(struct analyzer_source *src, bool last)
{
	struct timespec now;
	double el;
	uint64_t n;

	if (!src->progress) {
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (double)(now.tv_sec - src->t0.tv_sec) + (now.tv_nsec - src->t0.tv_nsec) / 1e9;
	if (last) {
		if (src->progress_shown) {
			fprintf(stderr, "\r\033[K");
		}
		return;
	}
	if (el < 1.0) {
		return;
	}
	src->progress_shown = true;
	n = analyzer_bt_reader_event_count(src->reader);
	fprintf(stderr, "\rdps analyze: %" PRIu64 " events read (%.1f M/s)", n, n / el / 1e6);
}

/*
 * Picks the input whose head is earliest into src->cur, and the next-earliest head into
 * src->second_ts/second_idx; src->cur is NULL at the end of every input. Heads are ordered by
 * (time, input index): a tie between traces goes to the first trace, whatever the packets and
 * the batches of messages around it, so that the decoders of stream groups (contain.c) order
 * it the same way.
 */
static int pick_input(struct analyzer_source *src, struct dps_diag *diag)
{
	struct bt_input *best = NULL;
	uint64_t best_ts = UINT64_MAX, second_ts = UINT64_MAX;
	size_t second_idx = SIZE_MAX;
	int status;

	for (size_t i = 0; i < src->n_in; i++) {
		struct bt_input *in = &src->in[i];
		uint64_t ts;

		status = settle(src, in, diag);
		if (status) {
			return status;
		}
		if (in->pos == in->n) {
			continue;
		}
		ts = head_ts(src, in);
		if (!best || ts < best_ts) {
			if (best) {
				second_ts = best_ts;
				second_idx = (size_t)(best - src->in);
			}
			best = in;
			best_ts = ts;
		} else if (ts < second_ts) {
			second_ts = ts;
			second_idx = i;
		}
	}
	src->cur = best;
	src->second_ts = second_ts;
	src->second_idx = second_idx;
	return DPS_OK;
}

/* Whether the current input's head still comes before every other input's. */
static bool cur_first(const struct analyzer_source *src)
{
	uint64_t ts = head_ts(src, src->cur);

	return ts < src->second_ts ||
	       (ts == src->second_ts && (size_t)(src->cur - src->in) < src->second_idx);
}

int analyzer_source_next(struct analyzer_source *src, struct analyzer_event *ev,
			 struct dps_diag *diag)
{
	int status;

	if (src->held) {
		bt_message_put_ref(src->held);
		src->held = NULL;
	}
	for (;;) {
		struct bt_input *in = src->cur;
		const bt_message *msg;

		if (in) {
			status = settle(src, in, diag);
			if (status) {
				unview_diag(src, diag);
				return status;
			}
		}
		/* Drain the chosen input while it stays the earliest (one input: all of it). */
		if (!in || in->pos == in->n || (src->n_in > 1 && !cur_first(src))) {
			status = pick_input(src, diag);
			if (status) {
				unview_diag(src, diag);
				return status;
			}
			if (!src->cur) {
				show_progress(src, true);
				return ANALYZER_SOURCE_END;
			}
			in = src->cur;
		}
		msg = in->buf[in->pos++];
		status = handle_message(src, in, msg, ev);
		if (status < 0) {
			bt_message_put_ref(msg);
			dps_diag_setf(diag, "out of memory while analyzing");
			return status;
		}
		if (analyzer_bt_reader_event_count(src->reader) >= src->next_progress) {
			src->next_progress =
			    analyzer_bt_reader_event_count(src->reader) + (1u << 18);
			show_progress(src, false);
		}
		if (status == 1) {
			src->held = msg; /* the event's strings live in it */
			return ANALYZER_SOURCE_EVENT;
		}
		bt_message_put_ref(msg);
	}
}

static void destroy_inputs(struct analyzer_source *src)
{
	for (size_t i = 0; i < src->n_in; i++) {
		struct bt_input *in = &src->in[i];

		for (size_t m = in->pos; m < in->n; m++) {
			bt_message_put_ref(in->buf[m]);
		}
		free(in->buf);
		bt_graph_put_ref(in->graph);
		free(in->stream_off);
		free(in->stream_npk);
		free(in->stream_key);
		if (in->trace != in->path) {
			g_free(in->trace);
		}
		g_free(in->path);
	}
	free(src->in);
	src->in = NULL;
	src->n_in = 0;
}

/* A new source, without inputs; views: decoding a stream group (no `known` table, order
 * keys). */
static struct analyzer_source *source_new(bool progress, bool views,
					  struct analyzer_decode_status *dstatus)
{
	struct analyzer_source *src = g_new0(struct analyzer_source, 1);

	src->reader = analyzer_bt_reader_create(views);
	src->views = views;
	src->status = dstatus;
	src->skips = g_ptr_array_new_with_free_func(g_free);
	src->progress = progress && isatty(STDERR_FILENO);
	src->next_progress = 1u << 18;
	clock_gettime(CLOCK_MONOTONIC, &src->t0);
	return src;
}

static int load_plugins(struct analyzer_source *src, struct dps_diag *diag)
{
	if (analyzer_bt_plugin_find("ctf", &src->ctf) ||
	    analyzer_bt_plugin_find("utils", &src->utils)) {
		take_bt_error(diag, "cannot load babeltrace2's ctf and utils plugins "
				    "(is babeltrace2 installed?)");
		return DPS_ERROR;
	}
	return DPS_OK;
}

/*
 * Whether a trace's packet headers give stream ids (stream_instance_id in its metadata):
 * without them source.ctf.fs numbers the streams itself (compute_stream_key). Asked only once
 * the trace opened: a metadata that does not parse is then already reported as for any trace.
 */
static bool has_instance_ids(const struct analyzer_source *src, const char *path)
{
	const bt_component_class_source *fs_cls =
	    bt_plugin_borrow_source_component_class_by_name_const(src->ctf, "fs");
	bt_value *params = bt_value_map_create();
	bt_query_executor *q = NULL;
	const bt_value *res = NULL, *text;
	bool found = true;

	if (!fs_cls || !params || bt_value_map_insert_string_entry(params, "path", path)) {
		goto end;
	}
	q = bt_query_executor_create(bt_component_class_source_as_component_class_const(fs_cls),
				     "metadata-info", params);
	if (!q || bt_query_executor_query(q, &res) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK) {
		goto end;
	}
	text = bt_value_map_borrow_entry_value_const(res, "text");
	if (text && bt_value_is_string(text)) {
		found = strstr(bt_value_string_get(text), "stream_instance_id") != NULL;
	}
end:
	bt_current_thread_clear_error();
	bt_value_put_ref(res);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return found;
}

/* Opens the graph of src->in[i] (path and trace set) and reads its first messages. */
static int open_input(struct analyzer_source *src, struct bt_input *in,
		      struct analyzer_decode_status *dstatus, struct dps_diag *diag)
{
	int status;

	if (dstatus) {
		snprintf(dstatus->trace, sizeof(dstatus->trace), "%s", in->trace);
		snprintf(dstatus->step, sizeof(dstatus->step),
			 "opening it (its metadata, its stream files' index)");
		dstatus->stream[0] = '\0';
		dstatus->packet_offset = UINT64_MAX;
		dstatus->beat++;
	}
	status = build_graph(src, in, diag);
	if (status) {
		return status;
	}
	if (dstatus) {
		snprintf(dstatus->step, sizeof(dstatus->step), "reading its packets");
	}
	/* The first messages say what the trace is (its environment). */
	status = refill(src, in, diag);
	if (status) {
		return status;
	}
	for (size_t m = 0; m < in->n; m++) {
		if (bt_message_get_type(in->buf[m]) == BT_MESSAGE_TYPE_STREAM_BEGINNING) {
			status = analyzer_bt_reader_note_stream(
			    src->reader,
			    bt_message_stream_beginning_borrow_stream_const(in->buf[m]));
			if (status) {
				return status;
			}
		}
	}
	src->has_sched = analyzer_bt_reader_has_sched(src->reader);
	if (src->views) {
		in->instance_ids = has_instance_ids(src, in->path);
	}
	return DPS_OK;
}

enum dps_status analyzer_source_open(const char *const *paths, size_t n_paths, bool progress,
				     struct analyzer_decode_status *dstatus,
				     struct analyzer_source **out, struct dps_diag *diag)
{
	struct analyzer_source *src = source_new(progress, false, dstatus);
	GPtrArray *traces = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *left_out = g_ptr_array_new_with_free_func(g_free);
	GString *description = g_string_new(NULL);
	int status;

	*out = NULL;
	if (!src->reader) {
		status = DPS_ERR_NOMEM;
		goto error;
	}
	if (!n_paths) {
		dps_diag_setf(diag, "no trace given: expected one or more trace directories");
		status = DPS_ERR_INVAL;
		goto error;
	}
	status = analyzer_find_traces(paths, n_paths, traces, src->skips, left_out, diag);
	if (status) {
		goto error;
	}
	if (left_out->len) {
		/* a copy of a stream file: only views can leave it out (groups.c) */
		dps_diag_setf(diag,
			      "%s: a copy of another stream file of its trace, which this reader "
			      "would read as well: refused",
			      (const char *)g_ptr_array_index(left_out, 0));
		status = DPS_ERROR;
		goto error;
	}
	status = load_plugins(src, diag);
	if (status) {
		goto error;
	}
	src->in = calloc(traces->len, sizeof(*src->in));
	if (!src->in) {
		status = DPS_ERR_NOMEM;
		goto error;
	}
	for (guint i = 0; i < traces->len; i++) {
		struct bt_input *in = &src->in[src->n_in++];

		in->path = g_strdup(g_ptr_array_index(traces, i));
		in->trace = in->path;
		status = open_input(src, in, dstatus, diag);
		if (status) {
			goto error;
		}
		g_string_append_printf(description, "%s%s", i ? " " : "", in->path);
	}
	src->description = g_string_free(description, FALSE);
	g_ptr_array_free(traces, TRUE);
	g_ptr_array_free(left_out, TRUE);
	*out = src;
	return DPS_OK;
error:
	if (status == DPS_ERR_NOMEM && diag && !diag->msg[0]) {
		dps_diag_setf(diag, "out of memory");
	}
	g_string_free(description, TRUE);
	g_ptr_array_free(traces, TRUE);
	g_ptr_array_free(left_out, TRUE);
	analyzer_source_close(src);
	return status;
}

enum dps_status analyzer_source_open_views(const struct analyzer_source_view *views, size_t n_views,
					   bool progress, struct analyzer_decode_status *dstatus,
					   struct analyzer_source **out, struct dps_diag *diag)
{
	struct analyzer_source *src = source_new(progress, true, dstatus);
	GString *description = g_string_new(NULL);
	int status;

	*out = NULL;
	if (!src->reader) {
		status = DPS_ERR_NOMEM;
		goto error;
	}
	status = load_plugins(src, diag);
	if (status) {
		goto error;
	}
	src->in = calloc(n_views, sizeof(*src->in));
	if (!src->in) {
		status = DPS_ERR_NOMEM;
		goto error;
	}
	for (size_t i = 0; i < n_views; i++) {
		struct bt_input *in = &src->in[src->n_in++];

		in->path = g_strdup(views[i].dir);
		in->trace = g_strdup(views[i].trace);
		in->files = views[i].files;
		in->info = views[i].info;
		in->n_files = views[i].n_files;
		status = open_input(src, in, dstatus, diag);
		if (status) {
			goto error;
		}
		g_string_append_printf(description, "%s%s", i ? " " : "", in->trace);
	}
	src->description = g_string_free(description, FALSE);
	*out = src;
	return DPS_OK;
error:
	if (status == DPS_ERR_NOMEM && diag && !diag->msg[0]) {
		dps_diag_setf(diag, "out of memory");
	}
	unview_diag(src, diag);
	g_string_free(description, TRUE);
	analyzer_source_close(src);
	return status;
}

uint64_t analyzer_source_order_key(const struct analyzer_source *src)
{
	return src->order;
}

bool analyzer_source_has_sched(const struct analyzer_source *src)
{
	return src->has_sched;
}

const char *analyzer_source_borrow_description(const struct analyzer_source *src)
{
	return src->description;
}

size_t analyzer_source_skip_count(const struct analyzer_source *src)
{
	return src->skips->len;
}

const char *analyzer_source_borrow_skip(const struct analyzer_source *src, size_t i)
{
	return g_ptr_array_index(src->skips, i);
}

void analyzer_source_close(struct analyzer_source *src)
{
	if (!src) {
		return;
	}
	bt_message_put_ref(src->held);
	destroy_inputs(src);
	analyzer_bt_reader_destroy(src->reader);
	bt_plugin_put_ref(src->ctf);
	bt_plugin_put_ref(src->utils);
	if (src->skips) {
		g_ptr_array_free(src->skips, TRUE);
	}
	g_free(src->description);
	g_free(src);
}
