/* SPDX-License-Identifier: MIT */
/*
 * A recording -> the neutral heap events of profile.c. The graph is source.ctf.fs (the UST
 * traces of the recording) -> filter.utils.muxer -> filter.lttng-utils.debug-info -> a simple
 * sink. The debug-info filter maps each libc wrapper event's `ip` context (the caller's
 * return address) to its binary and offset from the statedump (`bin`, with full paths); the
 * line comes from the binary's DWARF through libdw here, at offset - 1: the filter's own `src`
 * is found only for an address that starts a line, which a return address rarely does.
 * Allocations made by lttng-ust itself (its own libraries) are left out: they are the
 * tracer's, not the program's.
 *
 * With wrappers (--wrapper xmalloc), each thread keeps a shadow call stack from the
 * lttng_ust_cyg_profile func_entry/func_exit events of a program built with
 * -finstrument-functions: an entry's `ip` is the entered function (lttng-ust's cyg-profile
 * probe records the function's address there), its `call_site` payload the return address in
 * its caller. An allocation whose site is in a wrapper takes the site of the call into the
 * outermost of the wrappers on top of the stack. The call site is mapped through the binary of
 * the wrapper (its base: the entry's ip less its offset), so a caller in another binary is not
 * resolved (its raw address is the class).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>
#include <elfutils/libdwfl.h>
#include <glib.h>

#include "bt-source.h"
#include "find-traces.h"
#include "mempredict.h"
#include "record.h"

enum ev_kind {
	K_OTHER,
	K_MALLOC,
	K_CALLOC,
	K_REALLOC,
	K_FREE,
	K_MEMALIGN,
	K_POSIX_MEMALIGN,
	K_CLASS,
	K_PHASE,
	K_SIZE,
	K_FUNC_ENTRY,
	K_FUNC_EXIT,
};

/* A frame of a thread's shadow stack (--wrapper). */
struct frame {
	bool wrapper;	    /* the function is one of the wrappers */
	uint64_t call_site; /* the return address in its caller */
	uint64_t base;	    /* the load address of the function's binary */
	const char *path;   /* borrowed from reader.paths: that binary */
};

struct reader {
	const struct mp_read_options *opts; /* borrowed */
	struct mp_run *run;		    /* borrowed */
	GHashTable *kinds;		    /* const bt_event_class * -> kind + 1 */
	GHashTable *sites;		    /* bin string or ip (owned) -> class name (owned) */
	GHashTable *dwfls;		    /* binary path (owned) -> Dwfl * (owned; NULL: none) */
	GHashTable *stacks;		    /* vtid -> GArray of struct frame (owned) */
	GStringChunk *paths;		    /* owned: the binaries' paths of the frames */
	uint64_t last_ts;
	int64_t pid; /* the recorded command's (record.info), or -1: every process */
	int rc;
};

static enum ev_kind kind_of(struct reader *rd, const bt_event_class *ec)
{
	static const struct {
		const char *name;
		enum ev_kind kind;
	} names[] = {
	    {"lttng_ust_libc:malloc", K_MALLOC},
	    {"lttng_ust_libc:calloc", K_CALLOC},
	    {"lttng_ust_libc:realloc", K_REALLOC},
	    {"lttng_ust_libc:free", K_FREE},
	    {"lttng_ust_libc:memalign", K_MEMALIGN},
	    {"lttng_ust_libc:posix_memalign", K_POSIX_MEMALIGN},
	    {"dps:mem_class", K_CLASS},
	    {"dps:phase", K_PHASE},
	    {"dps:mem_size", K_SIZE},
	    {"lttng_ust_cyg_profile:func_entry", K_FUNC_ENTRY},
	    {"lttng_ust_cyg_profile_fast:func_entry", K_FUNC_ENTRY},
	    {"lttng_ust_cyg_profile:func_exit", K_FUNC_EXIT},
	    {"lttng_ust_cyg_profile_fast:func_exit", K_FUNC_EXIT},
	};
	gpointer v = g_hash_table_lookup(rd->kinds, ec);
	const char *name;
	enum ev_kind k = K_OTHER;

	if (v) {
		return (enum ev_kind)(GPOINTER_TO_INT(v) - 1);
	}
	name = bt_event_class_get_name(ec);
	for (size_t i = 0; name && i < G_N_ELEMENTS(names); i++) {
		if (!strcmp(name, names[i].name)) {
			k = names[i].kind;
		}
	}
	g_hash_table_insert(rd->kinds, (gpointer)ec, GINT_TO_POINTER(k + 1));
	return k;
}

static const bt_field *member(const bt_field *s, const char *name)
{
	if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return NULL;
	}
	return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

static uint64_t uint_of(const bt_field *f)
{
	if (!f) {
		return 0;
	}
	if (bt_field_class_type_is(bt_field_get_class_type(f),
				   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		return bt_field_integer_unsigned_get_value(f);
	}
	if (bt_field_class_type_is(bt_field_get_class_type(f),
				   BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		return (uint64_t)bt_field_integer_signed_get_value(f);
	}
	return 0;
}

static const char *str_of(const bt_field *f)
{
	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING) {
		return "";
	}
	return bt_field_string_get_value(f);
}

/* The DWARF session of a binary, opened once; NULL when it cannot be read. */
static Dwfl *dwfl_of(struct reader *rd, const char *path)
{
	static const Dwfl_Callbacks cb = {
	    .find_elf = dwfl_build_id_find_elf,
	    .find_debuginfo = dwfl_standard_find_debuginfo,
	    .section_address = dwfl_offline_section_address,
	};
	Dwfl *d;

	if (g_hash_table_contains(rd->dwfls, path)) {
		return g_hash_table_lookup(rd->dwfls, path);
	}
	d = dwfl_begin(&cb);
	if (d && (!dwfl_report_offline(d, path, path, -1) || dwfl_report_end(d, NULL, NULL))) {
		dwfl_end(d);
		d = NULL;
	}
	g_hash_table_insert(rd->dwfls, g_strdup(path), d);
	return d;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* dwfl_getmodules's callback: the first module (an offline session of one binary has one). */
static int first_module(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr start, void *arg)
{
	(void)user;
	(void)name;
	(void)start;
	*(Dwfl_Module **)arg = m;
	return DWARF_CB_ABORT;
}

/* The class of an allocation site: "func (file.c:line)", else "func (binary)", else
 * "binary+0xOFF", else the raw address. NULL for lttng-ust's own allocations. */
static char *site_name(struct reader *rd, const char *bin, const char *func, uint64_t ip)
{
	const char *plus = strrchr(bin, '+');
	char *path, *fn = NULL, *name;
	uint64_t off;
	Dwfl *d;

	if (!*bin || !plus || rd->opts->raw_ip) {
		return g_strdup_printf("0x%" PRIx64, ip);
	}
	path = g_strndup(bin, (gsize)(plus - bin));
	off = strtoull(plus + 1, NULL, 16);
	if (g_str_has_prefix(base_name(path), "liblttng-ust")) {
		g_free(path);
		return NULL;
	}
	if (*func) {
		fn = g_strndup(func, strcspn(func, "+"));
	}
	d = dwfl_of(rd, path);
	if (d && off) {
		Dwfl_Module *mod = NULL;
		GElf_Addr bias = 0;

		/* the module's addresses are the file's plus its bias (one module: the first) */
		if (dwfl_getmodules(d, first_module, &mod, 0) >= 0 && mod &&
		    dwfl_module_getelf(mod, &bias)) {
			Dwarf_Addr a = off - 1 + bias;
			Dwfl_Line *line = dwfl_module_getsrc(mod, a);
			int lineno = 0;
			const char *file =
			    line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;

			if (!fn) {
				const char *s = dwfl_module_addrname(mod, a);

				fn = s ? g_strdup(s) : NULL;
			}
			if (file && lineno > 0) {
				name = g_strdup_printf("%s (%s:%d)", fn ? fn : "?", base_name(file),
						       lineno);
				goto done;
			}
		}
	}
	name = fn ? g_strdup_printf("%s (%s)", fn, base_name(path))
		  : g_strdup_printf("%s+0x%" PRIx64, base_name(path), off);
done:
	g_free(fn);
	g_free(path);
	return name;
}

/* The class of the event's allocation site (borrowed from the cache); NULL: leave it out. */
static const char *site_of(struct reader *rd, const bt_event *ev)
{
	const bt_field *ctx = bt_event_borrow_common_context_field_const(ev);
	const bt_field *di = member(ctx, "debug_info");
	const char *bin = str_of(member(di, "bin"));
	uint64_t ip = uint_of(member(ctx, "ip"));
	char *key = *bin && !rd->opts->raw_ip ? g_strdup(bin) : g_strdup_printf("%" PRIx64, ip);
	gpointer found, v;

	if (g_hash_table_lookup_extended(rd->sites, key, &found, &v)) {
		g_free(key);
		return v;
	}
	v = site_name(rd, bin, str_of(member(di, "func")), ip);
	g_hash_table_insert(rd->sites, key, v);
	return v;
}

/* The --phase-func name a function entry event enters (borrowed from the options), or NULL.
 * The debug-info filter names the function the event's ip is in: the instrumented one. */
static const char *phase_func_of(struct reader *rd, const bt_event *ev)
{
	const bt_field *di = member(bt_event_borrow_common_context_field_const(ev), "debug_info");
	const char *func = str_of(member(di, "func"));
	size_t len = strcspn(func, "+");

	for (size_t i = 0; i < rd->opts->n_phase_funcs; i++) {
		const char *want = rd->opts->phase_funcs[i];

		if (strlen(want) == len && !strncmp(func, want, len)) {
			return want;
		}
	}
	return NULL;
}

static bool is_wrapper(struct reader *rd, const char *func)
{
	size_t len = strcspn(func, "+");

	for (size_t i = 0; i < rd->opts->n_wrappers; i++) {
		const char *w = rd->opts->wrappers[i];

		if (strlen(w) == len && !strncmp(func, w, len)) {
			return true;
		}
	}
	return false;
}

static GArray *stack_of(struct reader *rd, uint64_t tid)
{
	GArray *st = g_hash_table_lookup(rd->stacks, &tid);

	if (!st) {
		uint64_t *key = g_new(uint64_t, 1);

		*key = tid;
		st = g_array_new(FALSE, TRUE, sizeof(struct frame));
		g_hash_table_insert(rd->stacks, key, st);
	}
	return st;
}

/* A func_entry or func_exit event on the thread's shadow stack. */
static void track_call(struct reader *rd, const bt_event *ev, bool entry, uint64_t tid)
{
	const bt_field *ctx = bt_event_borrow_common_context_field_const(ev);
	const bt_field *di = member(ctx, "debug_info");
	GArray *st = stack_of(rd, tid);
	struct frame f = {0};
	const char *bin, *plus;

	if (!entry) {
		if (st->len) {
			g_array_set_size(st, st->len - 1);
		}
		return;
	}
	f.wrapper = is_wrapper(rd, str_of(member(di, "func")));
	f.call_site = uint_of(member(bt_event_borrow_payload_field_const(ev), "call_site"));
	bin = str_of(member(di, "bin"));
	plus = strrchr(bin, '+');
	if (plus) {
		char *path = g_strndup(bin, (gsize)(plus - bin));

		f.path = g_string_chunk_insert_const(rd->paths, path);
		f.base = uint_of(member(ctx, "ip")) - strtoull(plus + 1, NULL, 16);
		g_free(path);
	}
	g_array_append_val(st, f);
}

/*
 * The class of an allocation made in a wrapper: the site of the call into the outermost wrapper
 * on top of the thread's stack (borrowed from the cache), or NULL when the stack does not say
 * (no entry seen: the fast probe has no call_site, or the wrapper is not instrumented).
 */
static const char *caller_site(struct reader *rd, uint64_t tid)
{
	GArray *st = stack_of(rd, tid);
	const struct frame *f = NULL;
	char *key;
	gpointer found, v;

	for (guint i = st->len; i-- > 0 && g_array_index(st, struct frame, i).wrapper;) {
		f = &g_array_index(st, struct frame, i);
	}
	if (!f || !f->call_site) {
		return NULL;
	}
	if (!f->path || f->call_site < f->base || rd->opts->raw_ip) {
		key = g_strdup_printf("%" PRIx64, f->call_site);
	} else {
		key = g_strdup_printf("%s+0x%" PRIx64, f->path, f->call_site - f->base);
	}
	if (g_hash_table_lookup_extended(rd->sites, key, &found, &v)) {
		g_free(key);
		return v;
	}
	v = site_name(rd, f->path && f->call_site >= f->base && !rd->opts->raw_ip ? key : "", "",
		      f->call_site);
	g_hash_table_insert(rd->sites, key, v);
	return v;
}

static void handle_event(struct reader *rd, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	enum ev_kind k = kind_of(rd, bt_event_borrow_class_const(ev));
	const bt_field *pl = bt_event_borrow_payload_field_const(ev);
	struct mp_event e = {0};
	int64_t ns = 0;

	if (k == K_OTHER) {
		return;
	}
	if (cs && bt_clock_snapshot_get_ns_from_origin(cs, &ns) ==
		      BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		e.ts_ns = (uint64_t)ns;
	}
	e.pid = uint_of(member(bt_event_borrow_common_context_field_const(ev), "vpid"));
	if (rd->pid >= 0 && e.pid != (uint64_t)rd->pid) {
		return; /* another process of the same user, traced by the same session */
	}
	if ((k == K_FUNC_ENTRY || k == K_FUNC_EXIT) && rd->opts->n_wrappers) {
		track_call(rd, ev, k == K_FUNC_ENTRY,
			   uint_of(member(bt_event_borrow_common_context_field_const(ev), "vtid")));
	}
	if (k == K_FUNC_EXIT) {
		return;
	}
	if (k == K_FUNC_ENTRY) {
		e.class = phase_func_of(rd, ev);
		if (!e.class) {
			return;
		}
		k = K_PHASE;
	}
	switch (k) {
	case K_MALLOC:
	case K_MEMALIGN:
		e.kind = MP_EV_ALLOC;
		e.size = uint_of(member(pl, "size"));
		e.ptr = uint_of(member(pl, "ptr"));
		break;
	case K_CALLOC:
		e.kind = MP_EV_ALLOC;
		e.size = uint_of(member(pl, "nmemb")) * uint_of(member(pl, "size"));
		e.ptr = uint_of(member(pl, "ptr"));
		break;
	case K_POSIX_MEMALIGN:
		if (uint_of(member(pl, "result"))) {
			return;
		}
		e.kind = MP_EV_ALLOC;
		e.size = uint_of(member(pl, "size"));
		e.ptr = uint_of(member(pl, "out_ptr"));
		break;
	case K_REALLOC:
		e.kind = MP_EV_REALLOC;
		e.old_ptr = uint_of(member(pl, "in_ptr"));
		e.size = uint_of(member(pl, "size"));
		e.ptr = uint_of(member(pl, "ptr"));
		break;
	case K_FREE:
		e.kind = MP_EV_FREE;
		e.ptr = uint_of(member(pl, "ptr"));
		break;
	case K_CLASS:
		e.kind = MP_EV_CLASS;
		e.ptr = uint_of(member(pl, "ptr"));
		e.class = str_of(member(pl, "name"));
		break;
	case K_PHASE:
		e.kind = MP_EV_PHASE;
		if (!e.class) {
			e.class = str_of(member(pl, "name"));
		}
		break;
	case K_SIZE:
		e.kind = MP_EV_SIZE;
		e.size = uint_of(member(pl, "size"));
		break;
	default:
		return;
	}
	if (e.kind == MP_EV_ALLOC || e.kind == MP_EV_FREE || e.kind == MP_EV_REALLOC) {
		/* a free's site too: the tracer's frees would stretch the run's end */
		e.class = site_of(rd, ev);
		if (!e.class) {
			return; /* the tracer's own */
		}
		if (rd->opts->n_wrappers && e.kind != MP_EV_FREE) {
			const bt_field *ctx = bt_event_borrow_common_context_field_const(ev);

			if (is_wrapper(rd, str_of(member(member(ctx, "debug_info"), "func")))) {
				const char *caller = caller_site(rd, uint_of(member(ctx, "vtid")));

				e.class = caller ? caller : e.class;
			}
		}
		if (e.kind == MP_EV_REALLOC && e.old_ptr) {
			e.class = ""; /* the object keeps its class */
		}
	}
	if (!rd->rc) {
		rd->last_ts = e.ts_ns > rd->last_ts ? e.ts_ns : rd->last_ts;
		rd->rc = mp_run_feed(rd->run, &e);
	}
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *data)
{
	struct reader *rd = data;
	bt_message_array_const msgs;
	uint64_t count;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		for (uint64_t i = 0; i < count; i++) {
			if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT) {
				handle_event(rd, msgs[i]);
			}
			bt_message_put_ref(msgs[i]);
		}
		return rd->rc ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR
			      : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
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

/* babeltrace2's last error as the diagnostic, after what. */
static void take_error(struct dps_diag *diag, const char *what)
{
	const bt_error *err = bt_current_thread_take_error();
	const char *cause = "";

	if (err && bt_error_get_cause_count(err)) {
		cause = bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, 0));
	}
	dps_diag_setf(diag, "%s%s%s", what, *cause ? ": " : "", cause);
	if (err) {
		bt_error_release(err);
	}
}

/* Runs the graph over the trace directories dirs into rd. */
static int run_graph(struct reader *rd, GPtrArray *dirs, const char *path, struct dps_diag *diag)
{
	const bt_plugin *ctf = NULL, *utils = NULL, *lu = NULL;
	const bt_component_source *fs = NULL;
	const bt_component_filter *mux = NULL, *dbg = NULL;
	const bt_component_sink *sink = NULL;
	bt_value *params = NULL, *inputs = NULL, *dparams = NULL;
	bt_graph *g = NULL;
	char what[600];
	int rc = DPS_ERROR;

	snprintf(what, sizeof(what), "%s: babeltrace2 cannot read this trace", path);
	if (analyzer_bt_plugin_find("ctf", &ctf) || analyzer_bt_plugin_find("utils", &utils) ||
	    analyzer_bt_plugin_find("lttng-utils", &lu)) {
		take_error(diag, "cannot load babeltrace2's ctf, utils and lttng-utils plugins");
		goto put_plugins;
	}
	g = bt_graph_create(0);
	params = bt_value_map_create();
	dparams = bt_value_map_create();
	if (!g || !params || !dparams ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_map_insert_bool_entry(dparams, "full-path", BT_TRUE)) {
		rc = DPS_ERR_NOMEM;
		goto put_graph;
	}
	for (guint i = 0; i < dirs->len; i++) {
		if (bt_value_array_append_string_element(inputs, dirs->pdata[i])) {
			rc = DPS_ERR_NOMEM;
			goto put_graph;
		}
	}
	if (bt_graph_add_source_component(
		g, bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"), "src", params,
		BT_LOGGING_LEVEL_NONE, &fs) ||
	    bt_graph_add_filter_component(
		g, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"), "mux",
		NULL, BT_LOGGING_LEVEL_NONE, &mux) ||
	    bt_graph_add_filter_component(
		g, bt_plugin_borrow_filter_component_class_by_name_const(lu, "debug-info"), "dbg",
		dparams, BT_LOGGING_LEVEL_NONE, &dbg) ||
	    bt_graph_add_simple_sink_component(g, "dps-memory", NULL, consume, NULL, rd, &sink)) {
		take_error(diag, what);
		goto put_graph;
	}
	for (uint64_t i = 0; i < bt_component_source_get_output_port_count(fs); i++) {
		if (bt_graph_connect_ports(
			g, bt_component_source_borrow_output_port_by_index_const(fs, i),
			bt_component_filter_borrow_input_port_by_index_const(mux, i), NULL)) {
			take_error(diag, what);
			goto put_graph;
		}
	}
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
				   bt_component_filter_borrow_input_port_by_index_const(dbg, 0),
				   NULL) ||
	    bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(dbg, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL)) {
		take_error(diag, what);
		goto put_graph;
	}
	for (;;) {
		bt_graph_run_status st = bt_graph_run(g);

		if (st == BT_GRAPH_RUN_STATUS_AGAIN) {
			g_usleep(1000);
			continue;
		}
		if (st == BT_GRAPH_RUN_STATUS_OK) {
			rc = DPS_OK;
		} else if (rd->rc) {
			rc = rd->rc;
			dps_diag_setf(diag, "%s: out of memory", path);
		} else {
			take_error(diag, what);
		}
		break;
	}
put_graph:
	bt_value_put_ref(params);
	bt_value_put_ref(dparams);
	bt_graph_put_ref(g);
put_plugins:
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	bt_plugin_put_ref(lu);
	return rc;
}

/* Whether one of path's directories is named name. */
static bool has_component(const char *path, const char *name)
{
	char **parts = g_strsplit(path, "/", -1);
	bool found = false;

	for (size_t i = 0; parts[i] && !found; i++) {
		found = !strcmp(parts[i], name);
	}
	g_strfreev(parts);
	return found;
}

static void free_stack(gpointer st)
{
	g_array_free(st, TRUE);
}

static void end_dwfl(gpointer d)
{
	if (d) {
		dwfl_end(d);
	}
}

int mp_read_trace(const char *path, double size, const struct mp_read_options *o,
		  struct mp_profile *p, struct dps_diag *diag)
{
	static const struct mp_read_options defaults = {0};
	GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *skips = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *ust = g_ptr_array_new();
	struct reader rd = {.opts = o ? o : &defaults, .pid = -1};
	char command[4096];
	size_t first;
	int rc;

	rc = analyzer_find_traces(&path, 1, found, skips, NULL, diag);
	if (rc) {
		goto free_lists;
	}
	/* A UST session traces every process of its user that has the events: on a busy machine
	 * others' allocations would be counted. A dps record trace names its command's pid. */
	if (!o || !o->all_processes) {
		int64_t pid;

		if (dps_record_info_pid(path, &pid)) {
			rd.pid = pid;
		}
	}
	/* the UST traces only: the kernel's or perf's have no heap event */
	for (guint i = 0; i < found->len; i++) {
		if (has_component(found->pdata[i], "ust")) {
			g_ptr_array_add(ust, found->pdata[i]);
		}
	}
	if (!ust->len) {
		dps_diag_setf(diag,
			      "%s: no LTTng UST trace (a dps record --memory recording has "
			      "ust/): no lttng_ust_libc event to profile",
			      path);
		rc = DPS_ERR_INVAL;
		goto free_lists;
	}
	rd.run = mp_run_create(path, size);
	rd.kinds = g_hash_table_new(g_direct_hash, g_direct_equal);
	rd.sites = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	rd.dwfls = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, end_dwfl);
	rd.stacks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, free_stack);
	rd.paths = g_string_chunk_new(256);
	if (!rd.run) {
		rc = DPS_ERR_NOMEM;
		goto free_reader;
	}
	mp_run_set_phase_times(rd.run, rd.opts->phase_at_names, rd.opts->phase_at_ns,
			       rd.opts->n_phase_at);
	rc = run_graph(&rd, ust, path, diag);
	if (rc) {
		goto free_reader;
	}
	if (!mp_run_heap_events(rd.run)) {
		dps_diag_setf(diag,
			      "%s: no lttng_ust_libc event (malloc, free, ...): record the "
			      "program with dps record --memory",
			      path);
		rc = DPS_ERR_INVAL;
		goto free_reader;
	}
	first = p->n_sets;
	rc = mp_run_finish(rd.run, rd.last_ts, p);
	if (!rc && dps_record_info_command(path, command, sizeof(command))) {
		for (size_t i = first; i < p->n_sets && !rc; i++) {
			p->sets[i].command = strdup(command);
			rc = p->sets[i].command ? DPS_OK : DPS_ERR_NOMEM;
		}
	}
	if (rc) {
		dps_diag_setf(diag, "%s: out of memory", path);
	}
free_reader:
	mp_run_destroy(rd.run);
	g_hash_table_destroy(rd.kinds);
	g_hash_table_destroy(rd.sites);
	g_hash_table_destroy(rd.dwfls);
	g_hash_table_destroy(rd.stacks);
	g_string_chunk_free(rd.paths);
free_lists:
	g_ptr_array_free(ust, TRUE);
	g_ptr_array_free(found, TRUE);
	g_ptr_array_free(skips, TRUE);
	return rc;
}
