/* SPDX-License-Identifier: MIT */
/*
 * One time line for a dps record trace (doc/record.md, "One trace"), and dps record as one call
 * that makes it (analyzer_record: dps_record_run, then the clocks). The kernel part of a
 * `dps record` trace made with perf is CLOCK_MONOTONIC like the LTTng-UST part, but perf data
 * convert writes its clock without an origin (absolute = FALSE, offset 0), and babeltrace2's
 * muxer refuses to put such a clock on one time line with LTTng's, whose origin is the Unix
 * epoch. Giving the perf clock the UST clock's offset from the epoch and marking it absolute
 * makes the two parts one trace: babeltrace2 prints both in time order, and the timestamps dps
 * reads (the raw clock values) do not change.
 *
 * The UST part's metadata is packetized: babeltrace2's source.ctf.fs decodes it for us (its
 * "metadata-info" query); only the two numbers of its clock block are read from the text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include <dps/dps-status.h>

#include "analyzer.h"
#include "bt-source.h"
#include "find-traces.h"
#include "record.h"

/* The directory of the first CTF trace under dir (find-traces.c), or NULL (g_free). */
static char *find_metadata_dir(const char *dir)
{
	GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *skips = g_ptr_array_new_with_free_func(g_free);
	struct dps_diag unused = {{0}};
	char *first = NULL;

	if (!analyzer_find_traces(&dir, 1, found, skips, NULL, &unused) && found->len) {
		first = g_strdup(g_ptr_array_index(found, 0));
	}
	g_ptr_array_free(found, TRUE);
	g_ptr_array_free(skips, TRUE);
	return first;
}

/* The TSDL text of the CTF trace in dir, through source.ctf.fs's metadata-info query. */
static char *metadata_text(const char *dir, struct dps_diag *diag)
{
	const bt_plugin *ctf = NULL;
	const bt_component_class_source *fs;
	bt_query_executor *q = NULL;
	bt_value *params = NULL;
	const bt_value *result = NULL, *text;
	char *out = NULL;

	if (analyzer_bt_plugin_find("ctf", &ctf) ||
	    !(fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"))) {
		dps_diag_setf(diag, "babeltrace2's source.ctf.fs is missing");
		goto end;
	}
	params = bt_value_map_create();
	if (!params || bt_value_map_insert_string_entry(params, "path", dir)) {
		dps_diag_setf(diag, "out of memory");
		goto end;
	}
	q = bt_query_executor_create(bt_component_class_source_as_component_class_const(fs),
				     "metadata-info", params);
	if (!q || bt_query_executor_query(q, &result) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK) {
		dps_diag_setf(diag, "%s: babeltrace2 cannot read the metadata", dir);
		bt_current_thread_clear_error();
		goto end;
	}
	text = bt_value_map_borrow_entry_value_const(result, "text");
	if (!text || !bt_value_is_string(text)) {
		dps_diag_setf(diag, "%s: no metadata text", dir);
		goto end;
	}
	out = g_strdup(bt_value_string_get(text));
end:
	bt_value_put_ref(result);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	bt_plugin_put_ref(ctf);
	return out;
}

/* The first `clock { ... };` block of TSDL text: [*begin, *end) in text; false without one. */
static bool clock_block(const char *text, const char **begin, const char **end)
{
	const char *p = text;

	while ((p = strstr(p, "clock"))) {
		const char *q = p + 5;

		if ((p == text || g_ascii_isspace(p[-1])) && (q = q + strspn(q, " \t\r\n")) &&
		    *q == '{') {
			const char *e = strstr(q, "};");

			if (!e) {
				return false;
			}
			*begin = p;
			*end = e + 2;
			return true;
		}
		p += 5;
	}
	return false;
}

/* The value of `key = N;` in [b, e) (key after a blank or at the start), into *v; false when
 * absent. A mention of the word elsewhere (LTTng's comment "offset from Epoch") is passed. */
static bool block_int(const char *b, const char *e, const char *key, int64_t *v)
{
	size_t klen = strlen(key);

	for (const char *p = b; p + klen < e; p++) {
		const char *q = p + klen;
		char *endp;

		if ((p != b && !g_ascii_isspace(p[-1])) || strncmp(p, key, klen)) {
			continue;
		}
		q += strspn(q, " \t");
		if (*q != '=') {
			continue;
		}
		q++;
		errno = 0;
		*v = strtoll(q, &endp, 10);
		if (!errno && endp != q && endp < e) {
			return true;
		}
	}
	return false;
}

/* text with the first clock block's offset_s, offset and absolute lines replaced. */
static char *rewrite_clock(const char *text, int64_t off_s, int64_t off)
{
	const char *b, *e;
	GString *out;
	gchar **lines;
	char *block;

	if (!clock_block(text, &b, &e)) {
		return NULL;
	}
	out = g_string_new_len(text, b - text);
	block = g_strndup(b, (gsize)(e - b));
	lines = g_strsplit(block, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		const char *t = *l + strspn(*l, " \t");

		if (!strncmp(t, "offset_s", 8) || !strncmp(t, "absolute", 8) ||
		    (!strncmp(t, "offset", 6) && (t[6] == ' ' || t[6] == '='))) {
			continue; /* replaced below */
		}
		if (!strncmp(t, "};", 2)) {
			g_string_append_printf(out,
					       "\toffset_s = %" PRId64 ";\n\toffset = %" PRId64
					       ";\n\tabsolute = TRUE;\n",
					       off_s, off);
		}
		g_string_append(out, *l);
		if (l[1]) {
			g_string_append_c(out, '\n');
		}
	}
	g_string_append(out, e);
	g_strfreev(lines);
	g_free(block);
	return g_string_free(out, FALSE);
}

int analyzer_unify_clocks(const char *trace_dir, struct dps_diag *diag)
{
	char *perf_meta = g_build_filename(trace_dir, "perf", "metadata", NULL);
	char *ust_root = g_build_filename(trace_dir, "ust", NULL);
	char *ust_dir = NULL, *ust_text = NULL, *perf_text = NULL, *tmp = NULL, *new_text = NULL;
	const char *b, *e;
	int64_t off_s = 0, off = 0;
	int status = DPS_OK;

	if (!g_file_test(perf_meta, G_FILE_TEST_IS_REGULAR) ||
	    !g_file_test(ust_root, G_FILE_TEST_IS_DIR) ||
	    !(ust_dir = find_metadata_dir(ust_root))) {
		goto end; /* not both parts: nothing to put on one time line */
	}
	ust_text = metadata_text(ust_dir, diag);
	if (!ust_text) {
		status = DPS_ERROR;
		goto end;
	}
	if (!clock_block(ust_text, &b, &e) || !block_int(b, e, "offset", &off)) {
		dps_diag_setf(diag, "%s: no clock offset in the UST part's metadata", ust_dir);
		status = DPS_ERROR;
		goto end;
	}
	block_int(b, e, "offset_s", &off_s); /* LTTng writes the cycles only */
	if (!g_file_get_contents(perf_meta, &perf_text, NULL, NULL) ||
	    !(new_text = rewrite_clock(perf_text, off_s, off))) {
		dps_diag_setf(diag, "%s: cannot read its clock block", perf_meta);
		status = DPS_ERROR;
		goto end;
	}
	tmp = g_strconcat(perf_meta, ".tmp", NULL);
	if (!g_file_set_contents(tmp, new_text, -1, NULL) || rename(tmp, perf_meta)) {
		dps_diag_setf(diag, "%s: cannot rewrite it: %s", perf_meta, strerror(errno));
		remove(tmp);
		status = DPS_ERR_IO;
	}
end:
	g_free(tmp);
	g_free(new_text);
	g_free(perf_text);
	g_free(ust_text);
	g_free(ust_dir);
	g_free(ust_root);
	g_free(perf_meta);
	return status;
}

enum dps_status analyzer_record(const struct dps_record_options *opts,
				struct dps_record_result *res, struct dps_diag *diag,
				struct dps_diag *clocks)
{
	enum dps_status st = dps_record_run(opts, res, diag);

	clocks->msg[0] = '\0';
	if (st == DPS_OK && analyzer_unify_clocks(res->trace, clocks) == DPS_OK) {
		clocks->msg[0] = '\0'; /* one time line: nothing to say */
	}
	return st;
}
