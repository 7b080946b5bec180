/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 plugin `dps`: its sink component class `actions` (sink.dps.actions) writes
 * the action set of one process, as `dps analyze TRACE -p P -o DIR` does, from whatever
 * babeltrace2 reads (source.ctf.fs, source.ctf.lttng-live, ...):
 *
 *     babeltrace2 TRACE -c sink.dps.actions -p 'pid=P,path="DIR"'
 *
 * Same code as dps analyze: each message becomes a neutral event in the reader (bt-reader.c),
 * the events feed the analyzer's core (core.c), and the core writes the set at the end
 * through the action-set writer (whole or not at all). What differs, and why (doc/bt-plugin.md):
 * babeltrace2's graph, not dps's, merges the traces; whether the input has scheduling events is
 * decided at the first event (dps analyze: at the first messages of every trace), from the
 * traces whose streams began before it; no stream file is known, so no skipped file or perf
 * loss (record.info) makes the set partial, only discarded events and packets.
 *
 * Life of a component: initialize (the parameters checked, the output directory checked:
 * a bad one fails here, before any reading) -> graph configured (the message iterator on the
 * input port) -> consume (one batch of messages each call; the core created at the first event)
 * -> at the end of the messages, the core's step writes the set -> finalize (frees).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "actset.h"
#include "analyzer.h"
#include "bt-reader.h"
#include "core.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(dps);
BT_PLUGIN_DESCRIPTION("dps (dynamic performance stubs): action sets from traces");
BT_PLUGIN_AUTHOR("the dps authors");
BT_PLUGIN_LICENSE("MIT");

struct actions_sink {
	bt_self_component *self; /* borrowed: the component */
	bt_message_iterator *it; /* owned: on the input port, from graph configuration */
	struct analyzer_options opts;
	char *path;		/* owned: the output directory (opts.out_dir) */
	char *comm;		/* owned: opts.comm */
	char *source;		/* owned: the manifest's source line; NULL: the traces' names */
	GPtrArray *trace_names; /* owned: char * (g_free), in the order seen */
	struct analyzer_bt_reader *reader; /* owned */
	struct analyzer_core *core;	   /* owned: from the first event */
	bool list_only;			   /* no selection: list the processes, then fail */
	bool done;
};

/* The parameters, and what each takes (the help and the error for an unknown one). */
static const char *const param_names[] = {
    "pid",
    "tid",
    "comm",
    "path",
    "min-block",
    "calibration",
    "follow-children",
    "strict",
    "keep-tracer-threads",
    "force",
    "source",
};

#define ERR(sink, ...)                                                                             \
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((sink)->self, __VA_ARGS__)

static void actions_sink_destroy(struct actions_sink *sink)
{
	if (!sink) {
		return;
	}
	bt_message_iterator_put_ref(sink->it);
	analyzer_core_destroy(sink->core);
	analyzer_bt_reader_destroy(sink->reader);
	if (sink->trace_names) {
		g_ptr_array_free(sink->trace_names, TRUE);
	}
	g_free(sink->path);
	g_free(sink->comm);
	g_free(sink->source);
	g_free(sink);
}

/*
 * Parameters
 */

/* Stops at the first parameter not in param_names, into *data (a const char **): the error is
 * appended by the caller, as a foreach function may not leave one. */
static bt_value_map_foreach_entry_const_func_status check_name(const char *key, const bt_value *v,
							       void *data)
{
	(void)v;
	for (size_t i = 0; i < G_N_ELEMENTS(param_names); i++) {
		if (!strcmp(key, param_names[i])) {
			return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
		}
	}
	*(const char **)data = key;
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_INTERRUPT;
}

/* A non-negative integer parameter (pid, tid) into *out; absent: *out unchanged. */
static bool get_id(struct actions_sink *sink, const bt_value *params, const char *name,
		   int64_t *out)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, name);

	if (!v) {
		return true;
	}
	if (bt_value_is_signed_integer(v) && bt_value_integer_signed_get(v) >= 0) {
		*out = bt_value_integer_signed_get(v);
		return true;
	}
	if (bt_value_is_unsigned_integer(v) && bt_value_integer_unsigned_get(v) <= INT64_MAX) {
		*out = (int64_t)bt_value_integer_unsigned_get(v);
		return true;
	}
	ERR(sink, "Parameter `%s`: expected a non-negative integer (%s=1234)", name, name);
	return false;
}

/* A string parameter into *out (g_free); absent: *out unchanged. */
static bool get_str(struct actions_sink *sink, const bt_value *params, const char *name, char **out)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, name);

	if (!v) {
		return true;
	}
	if (!bt_value_is_string(v) || !bt_value_string_get(v)[0]) {
		ERR(sink, "Parameter `%s`: expected a non-empty string (%s=\"...\")", name, name);
		return false;
	}
	g_free(*out);
	*out = g_strdup(bt_value_string_get(v));
	return true;
}

static bool get_bool(struct actions_sink *sink, const bt_value *params, const char *name, bool *out)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, name);

	if (!v) {
		return true;
	}
	if (!bt_value_is_bool(v)) {
		ERR(sink, "Parameter `%s`: expected a boolean (%s=yes or %s=no)", name, name, name);
		return false;
	}
	*out = bt_value_bool_get(v);
	return true;
}

/* min-block: a duration string with a unit as dps's --min-block ("20us", "0.5ms"), or an
 * integer number of µs. */
static bool get_min_block(struct actions_sink *sink, const bt_value *params)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, "min-block");

	if (!v) {
		return true;
	}
	if (bt_value_is_string(v) &&
	    analyzer_parse_duration(bt_value_string_get(v), &sink->opts.min_block_ns)) {
		return true;
	}
	if (bt_value_is_signed_integer(v) && bt_value_integer_signed_get(v) >= 0 &&
	    bt_value_integer_signed_get(v) <= INT64_MAX / 1000) {
		sink->opts.min_block_ns = bt_value_integer_signed_get(v) * 1000;
		return true;
	}
	if (bt_value_is_unsigned_integer(v) &&
	    bt_value_integer_unsigned_get(v) <= INT64_MAX / 1000) {
		sink->opts.min_block_ns = (int64_t)bt_value_integer_unsigned_get(v) * 1000;
		return true;
	}
	ERR(sink, "Parameter `min-block`: expected a duration (min-block=20, min-block=\"20us\", "
		  "min-block=\"0.5ms\")");
	return false;
}

/* Reads and checks every parameter; the output directory is checked as dps analyze -o does,
 * before any reading. Returns false with the error's cause appended. */
static bool read_params(struct actions_sink *sink, const bt_value *params)
{
	char *calibration = NULL;
	const char *unknown = NULL;
	struct dps_diag diag = {""};
	bool force = false, ok = false;
	int status;

	if (params && bt_value_map_foreach_entry_const(params, check_name, &unknown) !=
			  BT_VALUE_MAP_FOREACH_ENTRY_CONST_STATUS_OK) {
		ERR(sink,
		    "Unknown parameter `%s`: sink.dps.actions takes pid, tid, comm, path, "
		    "min-block, calibration, follow-children, strict, keep-tracer-threads, force, "
		    "source",
		    unknown ? unknown : "?");
		goto end;
	}
	if (!get_id(sink, params, "pid", &sink->opts.pid) ||
	    !get_id(sink, params, "tid", &sink->opts.tid) ||
	    !get_str(sink, params, "comm", &sink->comm) ||
	    !get_str(sink, params, "path", &sink->path) ||
	    !get_str(sink, params, "calibration", &calibration) ||
	    !get_str(sink, params, "source", &sink->source) || !get_min_block(sink, params) ||
	    !get_bool(sink, params, "follow-children", &sink->opts.follow_children) ||
	    !get_bool(sink, params, "strict", &sink->opts.strict) ||
	    !get_bool(sink, params, "keep-tracer-threads", &sink->opts.keep_tracer_threads) ||
	    !get_bool(sink, params, "force", &force)) {
		goto end;
	}
	if (!sink->path) {
		ERR(sink, "Missing parameter `path`: the directory to write the action set into "
			  "(path=\"DIR\")");
		goto end;
	}
	sink->opts.comm = sink->comm;
	sink->list_only = sink->opts.pid < 0 && sink->opts.tid < 0 && !sink->opts.comm;
	if (sink->opts.min_block_ns < 0 && calibration) {
		status = analyzer_read_min_block(calibration, &sink->opts.min_block_ns, &diag);
		if (status) {
			ERR(sink, "Parameter `calibration`: %s", diag.msg);
			goto end;
		}
	}
	sink->opts.out_dir = sink->path;
	sink->opts.out_flags = force ? DPS_OUT_FORCE : 0;
	status = dps_actset_check_out_dir(sink->path, sink->opts.out_flags, &diag);
	if (status) {
		ERR(sink, "Parameter `path`: %s", diag.msg);
		goto end;
	}
	ok = true;
end:
	g_free(calibration);
	return ok;
}

/*
 * Methods
 */

static bt_component_class_initialize_method_status
actions_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	     const bt_value *params, void *init_data)
{
	struct actions_sink *sink = g_new0(struct actions_sink, 1);

	(void)config;
	(void)init_data;
	sink->self = bt_self_component_sink_as_self_component(self);
	analyzer_options_default(&sink->opts);
	sink->opts.progress = false;
	sink->opts.build_actset = false;
	sink->opts.keep_timelines = false;
	sink->trace_names = g_ptr_array_new_with_free_func(g_free);
	if (!read_params(sink, params)) {
		goto error;
	}
	sink->reader = analyzer_bt_reader_create(false);
	if (!sink->reader) {
		actions_sink_destroy(sink);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		goto error;
	}
	bt_self_component_set_data(sink->self, sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
error:
	actions_sink_destroy(sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

static void actions_finalize(bt_self_component_sink *self)
{
	actions_sink_destroy(
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self)));
}

static bt_component_class_sink_graph_is_configured_method_status
actions_graph_is_configured(bt_self_component_sink *self)
{
	struct actions_sink *sink =
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_self_component_port_input *port =
	    bt_self_component_sink_borrow_input_port_by_name(self, "in");

	if (bt_message_iterator_create_from_sink_component(self, port, &sink->it) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
		ERR(sink, "Cannot create a message iterator on the input port");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* A trace's name, once, for the manifest's default source line. */
static void note_trace_name(struct actions_sink *sink, const bt_stream *stream)
{
	const char *name = bt_trace_get_name(bt_stream_borrow_trace_const(stream));

	if (!name || !name[0]) {
		return;
	}
	for (guint i = 0; i < sink->trace_names->len; i++) {
		if (!strcmp(g_ptr_array_index(sink->trace_names, i), name)) {
			return;
		}
	}
	g_ptr_array_add(sink->trace_names, g_strdup(name));
}

/*
 * The core, at the first event: by then the muxer has given the beginning of every stream
 * that has a message before it (with source.ctf.fs, every stream), so the reader knows
 * whether a kernel trace is among the inputs (dps analyze decides at the first messages of
 * each trace, the same way).
 */
static bool make_core(struct actions_sink *sink)
{
	if (sink->core) {
		return true;
	}
	sink->core = analyzer_core_create(&sink->opts, analyzer_bt_reader_has_sched(sink->reader));
	if (!sink->core) {
		ERR(sink, "Out of memory creating the analyzer");
		return false;
	}
	return true;
}

/* Takes one message into the core. Returns false with the error's cause appended. */
static bool take(struct actions_sink *sink, const bt_message *msg)
{
	struct analyzer_event ev;
	int status;

	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_STREAM_BEGINNING) {
		note_trace_name(sink, bt_message_stream_beginning_borrow_stream_const(msg));
	}
	status = analyzer_bt_reader_take(sink->reader, msg, &ev);
	if (status < 0) {
		ERR(sink, "Out of memory reading the events");
		return false;
	}
	if (status == 0) {
		return true;
	}
	if (!make_core(sink)) {
		return false;
	}
	status = analyzer_core_feed(sink->core, &ev);
	if (status) {
		ERR(sink, "%s", analyzer_core_borrow_error(sink->core));
		return false;
	}
	return true;
}

/* The end of the messages: the core's step writes the set (or, without a selection, the
 * processes are listed and the component fails, as dps analyze does). */
static bool finish(struct actions_sink *sink)
{
	struct analyzer_result *res = analyzer_result_create();
	struct dps_diag diag = {""};
	bool ok = false;
	int status;

	if (!res || !make_core(sink)) {
		goto end;
	}
	if (sink->source) {
		res->source = strdup(sink->source);
	} else {
		GString *s = g_string_new(NULL);

		for (guint i = 0; i < sink->trace_names->len; i++) {
			g_string_append_printf(s, "%s%s", i ? " " : "",
					       (char *)g_ptr_array_index(sink->trace_names, i));
		}
		res->source = strdup(s->len ? s->str : "babeltrace2");
		g_string_free(s, TRUE);
	}
	if (!res->source) {
		ERR(sink, "Out of memory");
		goto end;
	}
	status = analyzer_core_finish(sink->core, sink->list_only, res, &diag);
	if (status) {
		ERR(sink, "%s", diag.msg);
		goto end;
	}
	if (sink->list_only) {
		fprintf(stderr, "sink.dps.actions: no selection: the processes of the trace are\n");
		analyzer_processes_print(res, stderr);
		ERR(sink, "No selection: give the parameter pid=P, tid=T or comm=\"NAME\" (the "
			  "processes of the trace are listed above)");
		goto end;
	}
	if (res->partial) {
		fprintf(stderr,
			"sink.dps.actions: warning: the trace is incomplete (%s); the result is "
			"marked partial (strict=yes makes this an error)\n",
			res->partial_reason ? res->partial_reason : "events lost");
		if (sink->opts.strict) {
			ERR(sink, "%s: incomplete input (%s): refused (strict=yes)", res->source,
			    res->partial_reason ? res->partial_reason : "events lost");
			goto end;
		}
	}
	fprintf(stderr, "sink.dps.actions: wrote %zu action files and a manifest to %s\n",
		res->n_threads, sink->path);
	ok = true;
end:
	analyzer_result_destroy(res);
	return ok;
}

static bt_component_class_sink_consume_method_status actions_consume(bt_self_component_sink *self)
{
	struct actions_sink *sink =
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_message_array_const msgs;
	uint64_t count;
	bool ok = true;

	if (sink->done) {
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	}
	switch (bt_message_iterator_next(sink->it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		for (uint64_t i = 0; i < count; i++) {
			ok = ok && take(sink, msgs[i]);
			/* after the core took the event: its strings live in the message */
			bt_message_put_ref(msgs[i]);
		}
		return ok ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK
			  : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		sink->done = true;
		bt_message_iterator_put_ref(sink->it);
		sink->it = NULL;
		return finish(sink) ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END
				    : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		/* upstream's causes are on the error already: nothing is written */
		ERR(sink, "Cannot read the input: no action set written to %s", sink->path);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

BT_PLUGIN_SINK_COMPONENT_CLASS(actions, actions_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(
    actions, "Write the action set of one process (as `dps analyze TRACE -p P -o DIR`).");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(
    actions,
    "Parameters (doc/bt-plugin.md):\n"
    "  pid=P | tid=T | comm=\"NAME\"  the selection, as dps analyze's --pid/--tid/--comm;\n"
    "                               without one the processes are listed and the\n"
    "                               component fails\n"
    "  path=\"DIR\"                   the action set's directory (required; replaced whole)\n"
    "  min-block=\"20us\"             as --min-block (an integer: us)\n"
    "  calibration=\"FILE\"           a dps calibrate file: its min_block_ns\n"
    "  follow-children=yes          as --follow-children\n"
    "  keep-tracer-threads=yes      as --keep-tracer-threads\n"
    "  strict=yes                   an incomplete trace is an error\n"
    "  force=yes                    replace DIR whatever it holds\n"
    "  source=\"TEXT\"                the manifest's source line (default: the traces' names)");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(actions, actions_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(actions, actions_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(actions, actions_graph_is_configured);
