/* SPDX-License-Identifier: MIT */
/*
 * Stream groups for parallel decoding (doc/analyzer.md, "Parallel decoding"): the traces'
 * stream files split into groups of similar size, a rotated stream's files kept together,
 * and each group shown to babeltrace2 as views: one temporary directory per group and trace
 * with symlinks to the trace's metadata, the group's stream files and their index files.
 * The views are removed by analyzer_groups_free, and on a terminating signal
 * (dps_out_register_temp). No babeltrace2 here: contain.c's decoders read the views.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include <dps/dps-status.h>

#include "atomic-out.h"
#include "find-traces.h"
#include "groups.h"

/* A stream file's stream: LTTng names the files of a stream cut in several (tracefile
 * rotation) CHANNEL_CPU_N; source.ctf.fs reads them as one stream, so they stay in one group.
 * Any other name (CHANNEL_CPU, perf_stream_CPU) is a stream of its own. Returns the length
 * of the name that identifies the stream. */
static size_t stream_base_len(const char *name)
{
	size_t n = strlen(name), i = n, cut, j;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') {
		i--;
	}
	if (i == n || i < 2 || name[i - 1] != '_') {
		return n;
	}
	cut = i - 1; /* the '_' before the last number */
	j = cut;
	while (j > 0 && name[j - 1] >= '0' && name[j - 1] <= '9') {
		j--;
	}
	if (j == cut || j < 2 || name[j - 1] != '_') {
		return n;
	}
	return cut; /* CHANNEL_CPU */
}

static int cmp_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stream files of a trace as source.ctf.fs takes them (fs.c: not `metadata`, not hidden,
 * regular, not empty), sorted by name, with their sizes. */
static int list_stream_files(const char *dir, GPtrArray *names, GArray *sizes,
			     struct dps_diag *diag)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		dps_diag_setf(diag, "%s: cannot read the trace: %s", dir, strerror(errno));
		return DPS_ERR_IO;
	}
	while ((e = readdir(d))) {
		char *path;
		struct stat st;
		int ok;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata")) {
			continue;
		}
		path = g_build_filename(dir, e->d_name, NULL);
		ok = !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
		g_free(path);
		if (ok) {
			g_ptr_array_add(names, g_strdup(e->d_name));
		}
	}
	closedir(d);
	/* strcmp order, as source.ctf.fs sorts the paths */
	g_ptr_array_sort(names, cmp_name);
	for (guint i = 0; i < names->len; i++) {
		char *path = g_build_filename(dir, g_ptr_array_index(names, i), NULL);
		struct stat st;
		uint64_t size = stat(path, &st) ? 0 : (uint64_t)st.st_size;

		g_array_append_val(sizes, size);
		g_free(path);
	}
	return DPS_OK;
}

/* A stream: one stream file, or the files of a rotated one; what a group gets whole. */
struct unit {
	guint trace;
	guint first, n; /* its files: names[first .. first + n) of the trace, by base */
	GArray *files;	/* guint: indices in the trace's names */
	uint64_t bytes;
	size_t group;
};

static int cmp_unit(gconstpointer a, gconstpointer b)
{
	const struct unit *x = *(struct unit *const *)a, *y = *(struct unit *const *)b;

	if (x->bytes != y->bytes) {
		return x->bytes > y->bytes ? -1 : 1;
	}
	if (x->trace != y->trace) {
		return x->trace < y->trace ? -1 : 1;
	}
	return x->first < y->first ? -1 : x->first > y->first;
}

static void unit_free(gpointer p)
{
	struct unit *u = p;

	g_array_free(u->files, TRUE);
	g_free(u);
}

void analyzer_groups_free(struct analyzer_groups *plan)
{
	if (!plan) {
		return;
	}
	if (plan->root) {
		dps_out_remove_tree(plan->root);
		dps_out_unregister_temp(plan->root);
		g_free(plan->root);
	}
	if (plan->traces) {
		g_ptr_array_free(plan->traces, TRUE);
	}
	if (plan->files) {
		g_ptr_array_free(plan->files, TRUE);
	}
	if (plan->strings) {
		g_ptr_array_free(plan->strings, TRUE);
	}
	g_free(plan->views);
	g_free(plan);
}

/* Where the views go: $TMPDIR, else /dev/shm (memory, as the views are only symlinks), else
 * /tmp. */
static const char *views_base(void)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (tmp && *tmp) {
		return tmp;
	}
	if (!stat("/dev/shm", &st) && S_ISDIR(st.st_mode) && !access("/dev/shm", W_OK)) {
		return "/dev/shm";
	}
	return "/tmp";
}

/* dir/name -> target. */
static int link_in(const char *dir, const char *name, const char *target, struct dps_diag *diag)
{
	char *path = g_build_filename(dir, name, NULL);
	int status = DPS_OK;

	if (symlink(target, path)) {
		dps_diag_setf(diag, "%s: cannot make a view of the trace for parallel decoding: %s",
			      path, strerror(errno));
		status = DPS_ERROR;
	}
	g_free(path);
	return status;
}

/* The view of trace t for group g: its metadata, the group's stream files and their index
 * files (babeltrace2 reads TRACE/index/NAME.idx instead of scanning the file). */
static int make_view(struct analyzer_groups *plan, GPtrArray *units, size_t g, guint t, const char *real,
		     struct dps_diag *diag)
{
	GPtrArray *names = g_ptr_array_index(plan->files, t);
	char *dir = g_strdup_printf("%s/g%03zu-t%05u", plan->root, g, t);
	char *target = g_build_filename(real, "metadata", NULL);
	char *index_dir = NULL;
	int status;

	g_ptr_array_add(plan->strings, dir);
	if (mkdir(dir, 0700)) {
		dps_diag_setf(diag, "%s: cannot make a view of the trace for parallel decoding: %s",
			      dir, strerror(errno));
		g_free(target);
		return DPS_ERROR;
	}
	status = link_in(dir, "metadata", target, diag);
	g_free(target);
	for (guint u = 0; !status && u < units->len; u++) {
		const struct unit *unit = g_ptr_array_index(units, u);

		if (unit->trace != t || unit->group != g) {
			continue;
		}
		for (guint f = 0; !status && f < unit->files->len; f++) {
			const char *name =
			    g_ptr_array_index(names, g_array_index(unit->files, guint, f));
			char *idx = g_strdup_printf("%s/index/%s.idx", real, name);

			target = g_build_filename(real, name, NULL);
			status = link_in(dir, name, target, diag);
			g_free(target);
			if (!status && !access(idx, R_OK)) {
				char *idx_name = g_strdup_printf("%s.idx", name);

				if (!index_dir) {
					index_dir = g_build_filename(dir, "index", NULL);
					(void)!mkdir(index_dir, 0700);
				}
				status = link_in(index_dir, idx_name, idx, diag);
				g_free(idx_name);
			}
			g_free(idx);
		}
	}
	g_free(index_dir);
	plan->views[g * plan->traces->len + t] = (struct analyzer_source_view){
	    .dir = dir,
	    .trace = g_ptr_array_index(plan->traces, t),
	    .files = (const char *const *)names->pdata,
	    .n_files = names->len,
	};
	return status;
}

int analyzer_groups_plan(const char *const *paths, size_t n_paths, size_t jobs,
			 struct analyzer_groups **out, GPtrArray *skips_out, struct dps_diag *diag)
{
	struct analyzer_groups *plan = g_new0(struct analyzer_groups, 1);
	GPtrArray *skips = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *units = g_ptr_array_new_with_free_func(unit_free);
	struct dps_diag scratch = {""};
	uint64_t *load = NULL;
	size_t n_groups;
	int status;

	plan->traces = g_ptr_array_new_with_free_func(g_free);
	plan->files = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	plan->strings = g_ptr_array_new_with_free_func(g_free);
	status = analyzer_find_traces(paths, n_paths, plan->traces, skips, diag);
	if (status) {
		goto end;
	}
	for (guint t = 0; t < plan->traces->len; t++) {
		GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
		GArray *sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		GHashTable *by_base = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

		g_ptr_array_add(plan->files, names);
		status = list_stream_files(g_ptr_array_index(plan->traces, t), names, sizes,
					   &scratch);
		for (guint f = 0; !status && f < names->len; f++) {
			const char *name = g_ptr_array_index(names, f);
			char *base = g_strndup(name, stream_base_len(name));
			struct unit *u = g_hash_table_lookup(by_base, base);

			if (!u) {
				u = g_new0(struct unit, 1);
				u->trace = t;
				u->first = f;
				u->files = g_array_new(FALSE, FALSE, sizeof(guint));
				g_ptr_array_add(units, u);
				g_hash_table_insert(by_base, base, u);
			} else {
				g_free(base);
			}
			g_array_append_val(u->files, f);
			u->bytes += g_array_index(sizes, uint64_t, f);
		}
		g_hash_table_destroy(by_base);
		g_array_free(sizes, TRUE);
		if (status) {
			status = DPS_OK; /* one decoder: it says what it cannot read */
			goto end;
		}
	}
	*out = NULL;
	n_groups = jobs < 1 ? 1 : jobs;
	if (n_groups > units->len) {
		n_groups = units->len;
	}
	if (n_groups < 2 || plan->traces->len >= 1u << 12) {
		goto end; /* one decoder */
	}
	/* the largest stream first, to the group with the fewest bytes */
	g_ptr_array_sort(units, cmp_unit);
	load = g_new0(uint64_t, n_groups);
	for (guint u = 0; u < units->len; u++) {
		struct unit *unit = g_ptr_array_index(units, u);
		size_t best = 0;

		for (size_t g = 1; g < n_groups; g++) {
			if (load[g] < load[best]) {
				best = g;
			}
		}
		unit->group = best;
		load[best] += unit->bytes;
	}
	/* From here on a failure (a full or read-only $TMPDIR) leaves one decoder, which reads
	 * the traces themselves: the views are only faster. */
	plan->root = g_strdup_printf("%s/dps-decode-XXXXXX", views_base());
	if (!mkdtemp(plan->root)) {
		g_free(plan->root);
		plan->root = NULL;
		goto end;
	}
	dps_out_register_temp(plan->root);
	plan->n_groups = n_groups;
	plan->views = g_new0(struct analyzer_source_view, n_groups * plan->traces->len);
	for (guint t = 0; t < plan->traces->len; t++) {
		char *real = realpath(g_ptr_array_index(plan->traces, t), NULL);

		if (!real) {
			goto end;
		}
		for (size_t g = 0; !status && g < n_groups; g++) {
			status = make_view(plan, units, g, t, real, &scratch);
		}
		free(real);
		if (status) {
			status = DPS_OK;
			goto end;
		}
	}
	/* what the decoders, on views, do not look for */
	for (guint i = 0; i < skips->len; i++) {
		g_ptr_array_add(skips_out, g_strdup(g_ptr_array_index(skips, i)));
	}
	*out = plan;
	plan = NULL;
end:
	g_free(load);
	g_ptr_array_free(units, TRUE);
	g_ptr_array_free(skips, TRUE);
	analyzer_groups_free(plan);
	return status;
}
