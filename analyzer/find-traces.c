/* SPDX-License-Identifier: MIT */
/*
 * Finding the CTF traces below the directories given to dps analyze, and what in them
 * babeltrace2 would pass over without a word (doc/analyzer.md, "Damaged traces"): empty stream
 * files and stream files without metadata here, stream files missing or there twice in
 * streams.c.
 */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include <dps/dps-status.h>

#include "find-traces.h"
#include "streams.h"

/*
 * Finding traces: every directory holding a `metadata` file. The other regular files are kept
 * to find what babeltrace2 would skip without a word: an empty stream file (source.ctf.fs
 * ignores it) and stream files in a directory without metadata (not a trace at all).
 */
static GPtrArray *found_traces;
static GPtrArray *found_files; /* struct found_file * (g_free) */

struct found_file {
	off_t size;
	size_t dir_len; /* path[0..dir_len) is its directory */
	char path[];
};

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t dir_len = ftw->base ? (size_t)ftw->base - 1 : 0;

	if (type != FTW_F || !S_ISREG(sb->st_mode)) {
		return 0;
	}
	if (!strcmp(base, "metadata")) {
		char *dir = g_strndup(path, dir_len);

		g_ptr_array_add(found_traces, dir[0] ? dir : g_strdup("."));
		if (!dir[0]) {
			g_free(dir);
		}
	} else {
		size_t len = strlen(path);
		struct found_file *f = g_malloc(sizeof(*f) + len + 1);

		f->size = sb->st_size;
		f->dir_len = dir_len;
		memcpy(f->path, path, len + 1);
		g_ptr_array_add(found_files, f);
	}
	return 0;
}

static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The first bytes of a file (false when it has fewer). */
static bool read_head(const char *path, unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	bool ok;

	if (!f) {
		return false;
	}
	ok = fread(buf, 1, n, f) == n;
	fclose(f);
	return ok;
}

/* Packets listed by the LTTng index of a stream file (DIR/index/NAME.idx), -1 without one. */
static long index_packets(const struct found_file *f)
{
	unsigned char h[16];
	char *idx = g_strdup_printf("%.*s/index/%s.idx", (int)f->dir_len, f->path,
				    f->path + f->dir_len + 1);
	struct stat st;
	long n = -1;

	/* header: magic 0xC1F1DCC1, major, minor, entry length (big-endian) */
	if (!stat(idx, &st) && read_head(idx, h, sizeof(h)) && be32(h) == 0xC1F1DCC1u &&
	    be32(h + 12) > 0 && st.st_size >= 16) {
		n = (long)((st.st_size - 16) / be32(h + 12));
	}
	g_free(idx);
	return n;
}

static bool is_trace_dir(const GPtrArray *traces, const char *path, size_t len)
{
	for (guint i = 0; i < traces->len; i++) {
		const char *t = g_ptr_array_index(traces, i);

		if (strlen(t) == len && !strncmp(t, path, len)) {
			return true;
		}
	}
	return false;
}

/* A CTF packet starts with the magic 0xC1FC1FC1 (either byte order). */
static bool is_ctf_stream(const struct found_file *f)
{
	unsigned char m[4];

	return f->size >= 4 && read_head(f->path, m, sizeof(m)) &&
	       (be32(m) == 0xC1FC1FC1u || be32(m) == 0xC11FFCC1u);
}

/* By directory, then by name: a directory's files together (nftw may visit a subdirectory
 * between two of them). */
static int cmp_file(gconstpointer a, gconstpointer b)
{
	const struct found_file *x = *(const struct found_file *const *)a;
	const struct found_file *y = *(const struct found_file *const *)b;
	size_t n = x->dir_len < y->dir_len ? x->dir_len : y->dir_len;
	int c = memcmp(x->path, y->path, n);

	if (c) {
		return c;
	}
	if (x->dir_len != y->dir_len) {
		return x->dir_len < y->dir_len ? -1 : 1;
	}
	return strcmp(x->path, y->path);
}

/* Notes, in skips, the files found that babeltrace2 will not read. */
static void find_skips(const GPtrArray *traces, GPtrArray *files, GPtrArray *skips)
{
	const char *orphan_dir = NULL;
	size_t orphan_len = 0, n_orphans = 0;

	g_ptr_array_sort(files, cmp_file);
	for (guint i = 0; i <= files->len; i++) {
		const struct found_file *f = i < files->len ? g_ptr_array_index(files, i) : NULL;

		/* stream files without metadata, one message per directory */
		if (orphan_dir &&
		    (!f || f->dir_len != orphan_len || strncmp(f->path, orphan_dir, orphan_len))) {
			g_ptr_array_add(
			    skips, g_strdup_printf("%.*s: %zu stream file%s without a `metadata` "
						   "file: not read",
						   (int)orphan_len, orphan_dir, n_orphans,
						   n_orphans > 1 ? "s" : ""));
			orphan_dir = NULL;
			n_orphans = 0;
		}
		if (!f) {
			break;
		}
		if (is_trace_dir(traces, f->path, f->dir_len)) {
			long n;

			if (f->size) {
				continue;
			}
			n = index_packets(f);
			if (n >= 0) {
				g_ptr_array_add(skips,
						g_strdup_printf("%s: empty stream file (its index "
								"lists %ld packet%s): not read",
								f->path, n, n == 1 ? "" : "s"));
			} else {
				g_ptr_array_add(skips, g_strdup_printf("%s: empty stream file: "
								       "not read",
								       f->path));
			}
		} else if (is_ctf_stream(f)) {
			orphan_dir = f->path;
			orphan_len = f->dir_len;
			n_orphans++;
		}
	}
}

static int cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int analyzer_find_traces(const char *const *paths, size_t n, GPtrArray *out, GPtrArray *skips,
			 GPtrArray *left_out, struct dps_diag *diag)
{
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
	int status = DPS_OK;

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		guint before = out->len;

		if (stat(paths[i], &st)) {
			dps_diag_setf(diag, "%s: cannot read the trace: %s", paths[i],
				      strerror(errno));
			status = DPS_ERR_NOENT;
			goto end;
		}
		if (!S_ISDIR(st.st_mode)) {
			dps_diag_setf(diag,
				      "%s: not a directory: expected a CTF trace directory "
				      "(or a directory holding several)",
				      paths[i]);
			status = DPS_ERR_INVAL;
			goto end;
		}
		found_traces = out;
		found_files = files;
		if (nftw(paths[i], visit, 16, FTW_PHYS)) {
			dps_diag_setf(diag, "%s: cannot walk the directory: %s", paths[i],
				      strerror(errno));
			status = DPS_ERR_IO;
			goto end;
		}
		found_traces = NULL;
		found_files = NULL;
		if (out->len == before) {
			dps_diag_setf(diag,
				      "%s: no CTF trace found (no `metadata` file in it or "
				      "below it)",
				      paths[i]);
			status = DPS_ERR_INVAL;
			goto end;
		}
	}
	find_skips(out, files, skips);
	g_ptr_array_sort(out, cmp_str);
	/* stream files missing, or there twice (streams.c) */
	for (guint i = 0; i < out->len; i++) {
		analyzer_streams_check(g_ptr_array_index(out, i), skips, left_out);
	}
end:
	found_traces = NULL;
	found_files = NULL;
	g_ptr_array_free(files, TRUE);
	return status;
}
