/* SPDX-License-Identifier: MIT */
/*
 * The stream files of a trace checked against each other and against the trace's LTTng index,
 * before babeltrace2 reads them (doc/analyzer.md, "Damaged traces"). babeltrace2 2.0 reads
 * whatever stream files a trace directory holds: a deleted one leaves nothing in what it gives,
 * and a copy of one is read as well, in a stream of its own (perf-CTF; or the stream groups of
 * parallel decoding, which put the two files apart), so that each of its events comes twice,
 * or merged into the original's stream, until time goes back and the muxer stops. Either way
 * the figures change without a word, or the error names another stream. What tells:
 *
 *  - LTTng writes one index per stream file (TRACE/index/NAME.idx): an index whose stream file
 *    is not there is a stream file missing;
 *  - two stream files whose first packets are the same, byte for byte, are one file and a copy
 *    of it: a packet's header and context hold its stream's ids and its times, which no two
 *    streams share. The copy (the one without an index, else the one whose name is not like
 *    the others', else the later name) is left out;
 *  - an index 1.1 gives each packet's stream class id, stream instance id, sequence number and
 *    times: two files whose first packets are the same packet of one stream are a duplicate
 *    (left out), and instance ids of a stream class absent below the largest one are streams
 *    whose file and index are both gone (LTTng numbers a channel's streams by CPU, and makes
 *    one for every possible CPU).
 *
 * What is read is bounded: per stream file its first 4 KiB, per index file its header and its
 * first and last entries. Every byte may be damaged: sizes and counts are checked against the
 * file's size before they are used (fuzzed: tests/fuzz/fuzz-streams.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streams.h"

/* The bytes of a stream file compared with the others': its first packet's header, context and
 * first events (a packet is at least a page). */
#define HEAD_BYTES 4096
/* An index entry has 7 (1.0) or 9 (1.1) 64-bit fields; a longer one is not believed. */
#define MAX_ENTRY_BYTES 4096
/* Stream instance ids looked at for gaps: CPU numbers. */
#define MAX_INSTANCE 4096
/* Instance ids named in one message, at most. */
#define MAX_NAMED 8

#define INDEX_MAGIC 0xC1F1DCC1u

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint64_t be64(const uint8_t *b)
{
	return (uint64_t)be32(b) << 32 | be32(b + 4);
}

/* Reads n bytes at off; false on a short read or an error. */
static bool read_at(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);

		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			return false;
		}
		got += (size_t)r;
	}
	return true;
}

bool analyzer_index_read(const char *path, struct analyzer_index_summary *out)
{
	uint8_t h[16], e[72];
	struct stat st;
	uint32_t entry;
	size_t need;
	bool ok = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(out, 0, sizeof(*out));
	if (fd < 0) {
		return false;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 16 ||
	    !read_at(fd, h, sizeof(h), 0)) {
		goto end;
	}
	/* header: magic, major, minor, entry length (big-endian) */
	entry = be32(h + 12);
	if (be32(h) != INDEX_MAGIC || be32(h + 4) != 1 || entry < 56 || entry > MAX_ENTRY_BYTES ||
	    (uint64_t)(st.st_size - 16) % entry) {
		goto end;
	}
	out->major = 1;
	out->minor = be32(h + 8);
	out->n_packets = (uint64_t)(st.st_size - 16) / entry;
	/* 1.0: offset, packet_size, content_size, timestamp_begin, timestamp_end,
	 * events_discarded, stream_id; 1.1 adds stream_instance_id, packet_seq_num */
	out->ids = out->minor >= 1 && entry >= 72;
	need = out->ids ? 72 : 56;
	if (!out->n_packets) {
		ok = true;
		goto end;
	}
	if (!read_at(fd, e, need, 16)) {
		goto end;
	}
	out->first_begin = be64(e + 24);
	out->stream_id = be64(e + 48);
	if (out->ids) {
		out->instance_id = be64(e + 56);
		out->first_seq = be64(e + 64);
	}
	if (!read_at(fd, e, need, (off_t)(16 + (out->n_packets - 1) * entry))) {
		goto end;
	}
	out->last_end = be64(e + 32);
	if (out->ids) {
		out->last_seq = be64(e + 64);
	}
	ok = true;
end:
	close(fd);
	if (!ok) {
		memset(out, 0, sizeof(*out));
	}
	return ok;
}

/* A stream file of the trace, as source.ctf.fs takes them: regular, not hidden, not the
 * metadata, not empty (an empty one is reported by find-traces.c). */
struct sfile {
	char *name; /* owned */
	bool indexed;
	struct analyzer_index_summary idx; /* when indexed */
	uint64_t hash;			   /* of its first bytes, when they begin a CTF packet */
	size_t head_len;		   /* 0: not compared */
	guint kin; /* the stream files named as it is but for a final number (stem) */
	bool left_out;
};

static void sfile_free(gpointer p)
{
	struct sfile *f = p;

	g_free(f->name);
	g_free(f);
}

/* The first bytes of path into buf (HEAD_BYTES), their count; 0 when it cannot be read. */
static size_t read_head(const char *path, uint8_t *buf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0) {
		return 0;
	}
	while (got < HEAD_BYTES) {
		ssize_t r = read(fd, buf + got, HEAD_BYTES - got);

		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	return got;
}

/* A CTF packet begins with the magic 0xC1FC1FC1, in either byte order. */
static bool is_packet(const uint8_t *b, size_t n)
{
	return n >= 4 && (be32(b) == 0xC1FC1FC1u || be32(b) == 0xC11FFCC1u);
}

static uint64_t fnv1a(const uint8_t *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ b[i]) * 0x100000001b3ull;
	}
	return h;
}

/* The trace's stream files, sorted by name. */
static GPtrArray *list_files(const char *trace)
{
	GPtrArray *files = g_ptr_array_new_with_free_func(sfile_free);
	DIR *d = opendir(trace);
	struct dirent *e;
	uint8_t *head = g_malloc(HEAD_BYTES);

	while (d && (e = readdir(d))) {
		char *path;
		struct stat st;
		struct sfile *f;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata")) {
			continue;
		}
		path = g_build_filename(trace, e->d_name, NULL);
		if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
			g_free(path);
			continue;
		}
		f = g_new0(struct sfile, 1);
		f->name = g_strdup(e->d_name);
		f->head_len = read_head(path, head);
		if (is_packet(head, f->head_len)) {
			f->hash = fnv1a(head, f->head_len);
		} else {
			f->head_len = 0;
		}
		g_free(path);
		path = g_strdup_printf("%s/index/%s.idx", trace, e->d_name);
		f->indexed = analyzer_index_read(path, &f->idx);
		g_free(path);
		g_ptr_array_add(files, f);
	}
	if (d) {
		closedir(d);
	}
	g_free(head);
	return files;
}

/* The length of a stream file's name without its final numbers: LTTng's CHANNEL_CPU and
 * CHANNEL_CPU_N, perf-CTF's perf_stream_CPU. */
static size_t stem_len(const char *name)
{
	size_t n = strlen(name);

	while (n && ((name[n - 1] >= '0' && name[n - 1] <= '9') || name[n - 1] == '_')) {
		n--;
	}
	return n;
}

/* Each file's kin: how many files share its stem (a copy's name seldom follows the others). */
static void count_kin(GPtrArray *files)
{
	GHashTable *stems = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (int pass = 0; pass < 2; pass++) {
		for (guint i = 0; i < files->len; i++) {
			struct sfile *f = g_ptr_array_index(files, i);
			char *stem = g_strndup(f->name, stem_len(f->name));
			guint n = GPOINTER_TO_UINT(g_hash_table_lookup(stems, stem));

			if (pass == 0) {
				g_hash_table_replace(stems, stem, GUINT_TO_POINTER(n + 1));
			} else {
				f->kin = n;
				g_free(stem);
			}
		}
	}
	g_hash_table_destroy(stems);
}

static int cmp_name(gconstpointer a, gconstpointer b)
{
	const struct sfile *x = *(struct sfile *const *)a, *y = *(struct sfile *const *)b;

	return strcmp(x->name, y->name);
}

static int cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Index files whose stream file is not there. ids: the stream class and instance ids every
 * index 1.1 gives, present or not (for instance_gaps), as (class << 32 | instance). */
static void missing_files(const char *trace, GPtrArray *skips, GArray *ids)
{
	char *dir = g_build_filename(trace, "index", NULL);
	DIR *d = opendir(dir);
	struct dirent *e;
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_name[0] != '.' && n > 4 && !strcmp(e->d_name + n - 4, ".idx")) {
			g_ptr_array_add(names, g_strndup(e->d_name, n - 4));
		}
	}
	if (d) {
		closedir(d);
	}
	g_ptr_array_sort(names, cmp_str);
	for (guint i = 0; i < names->len; i++) {
		const char *name = g_ptr_array_index(names, i);
		char *idx = g_strdup_printf("%s/%s.idx", dir, name);
		char *path = g_build_filename(trace, name, NULL);
		struct analyzer_index_summary s;
		bool ok = analyzer_index_read(idx, &s);
		struct stat st;

		if (ok && s.ids && s.n_packets && s.stream_id < MAX_INSTANCE &&
		    s.instance_id < MAX_INSTANCE) {
			uint64_t key = s.stream_id << 32 | s.instance_id;

			g_array_append_val(ids, key);
		}
		if (lstat(path, &st) && errno == ENOENT) {
			if (ok) {
				g_ptr_array_add(
				    skips, g_strdup_printf("%s: stream file missing (its index "
							   "lists %" PRIu64 " packet%s): not read",
							   path, s.n_packets,
							   s.n_packets == 1 ? "" : "s"));
			} else {
				g_ptr_array_add(skips,
						g_strdup_printf("%s: stream file missing (its "
								"index is there): not read",
								path));
			}
		}
		g_free(path);
		g_free(idx);
	}
	g_ptr_array_free(names, TRUE);
	g_free(dir);
}

/* Whether two stream files begin with the same bytes (their heads, read again). */
static bool same_head(const char *trace, const struct sfile *a, const struct sfile *b)
{
	char *pa = g_build_filename(trace, a->name, NULL);
	char *pb = g_build_filename(trace, b->name, NULL);
	uint8_t *ha = g_malloc(HEAD_BYTES), *hb = g_malloc(HEAD_BYTES);
	size_t na = read_head(pa, ha), nb = read_head(pb, hb);
	bool same = na == a->head_len && nb == b->head_len && na == nb && !memcmp(ha, hb, na);

	g_free(ha);
	g_free(hb);
	g_free(pa);
	g_free(pb);
	return same;
}

/* Copies first: by hash; then the one kept first: the file with an index, the name that follows
 * the others' (kin), the first name. */
static int cmp_head(gconstpointer a, gconstpointer b)
{
	const struct sfile *x = *(struct sfile *const *)a, *y = *(struct sfile *const *)b;

	if (x->hash != y->hash) {
		return x->hash < y->hash ? -1 : 1;
	}
	if (x->head_len != y->head_len) {
		return x->head_len < y->head_len ? -1 : 1;
	}
	if (x->indexed != y->indexed) {
		return x->indexed ? -1 : 1;
	}
	if (x->kin != y->kin) {
		return x->kin > y->kin ? -1 : 1;
	}
	return strcmp(x->name, y->name);
}

static void leave_out(const char *trace, struct sfile *f, GPtrArray *left_out)
{
	f->left_out = true;
	if (left_out) {
		g_ptr_array_add(left_out, g_build_filename(trace, f->name, NULL));
	}
}

/* Stream files whose first bytes are another's. */
static void copies(const char *trace, GPtrArray *files, GPtrArray *skips, GPtrArray *left_out)
{
	GPtrArray *by = g_ptr_array_new();

	for (guint i = 0; i < files->len; i++) {
		struct sfile *f = g_ptr_array_index(files, i);

		if (f->head_len) {
			g_ptr_array_add(by, f);
		}
	}
	g_ptr_array_sort(by, cmp_head);
	for (guint j = 1; j < by->len; j++) {
		struct sfile *b = g_ptr_array_index(by, j);

		for (guint i = j; i-- > 0;) {
			struct sfile *a = g_ptr_array_index(by, i);

			if (a->hash != b->hash || a->head_len != b->head_len) {
				break;
			}
			if (a->left_out || !same_head(trace, a, b)) {
				continue;
			}
			g_ptr_array_add(
			    skips, g_strdup_printf("%s/%s: a copy of the stream file %s/%s (the "
						   "same first packet, byte for byte): not read",
						   trace, b->name, trace, a->name));
			leave_out(trace, b, left_out);
			break;
		}
	}
	g_ptr_array_free(by, TRUE);
}

/* Indexed files by their first packet: stream class id, instance id, sequence number, time;
 * then by name (the one kept first). */
static int cmp_first_packet(gconstpointer a, gconstpointer b)
{
	const struct sfile *x = *(struct sfile *const *)a, *y = *(struct sfile *const *)b;
	const uint64_t kx[] = {x->idx.stream_id, x->idx.instance_id, x->idx.first_seq,
			       x->idx.first_begin};
	const uint64_t ky[] = {y->idx.stream_id, y->idx.instance_id, y->idx.first_seq,
			       y->idx.first_begin};

	for (size_t i = 0; i < G_N_ELEMENTS(kx); i++) {
		if (kx[i] != ky[i]) {
			return kx[i] < ky[i] ? -1 : 1;
		}
	}
	return strcmp(x->name, y->name);
}

/*
 * Files whose indexes (1.1) give the same first packet: the same stream, sequence number and
 * time. Not overlapping sequence numbers or times alone: one damaged byte of an index (its
 * instance id) would make two streams of a trace recorded on every CPU at once overlap, and
 * babeltrace2 reads the stream's ids from the packets, not from the index.
 */
static void duplicates(const char *trace, GPtrArray *files, GPtrArray *skips, GPtrArray *left_out)
{
	GPtrArray *by = g_ptr_array_new();

	for (guint i = 0; i < files->len; i++) {
		struct sfile *f = g_ptr_array_index(files, i);

		if (f->indexed && f->idx.ids && f->idx.n_packets && !f->left_out) {
			g_ptr_array_add(by, f);
		}
	}
	g_ptr_array_sort(by, cmp_first_packet);
	for (guint i = 1, kept = 0; i < by->len; i++) {
		const struct sfile *a = g_ptr_array_index(by, kept);
		struct sfile *b = g_ptr_array_index(by, i);

		if (a->idx.stream_id != b->idx.stream_id ||
		    a->idx.instance_id != b->idx.instance_id ||
		    a->idx.first_seq != b->idx.first_seq ||
		    a->idx.first_begin != b->idx.first_begin) {
			kept = i;
			continue;
		}
		g_ptr_array_add(skips,
				g_strdup_printf("%s/%s: the same first packet as %s/%s (stream "
						"class %" PRIu64 ", instance %" PRIu64
						", packet %" PRIu64 ", at the same time, as their "
						"indexes say): a duplicate, not read",
						trace, b->name, trace, a->name, b->idx.stream_id,
						b->idx.instance_id, b->idx.first_seq));
		leave_out(trace, b, left_out);
	}
	g_ptr_array_free(by, TRUE);
}

static int cmp_u64(gconstpointer a, gconstpointer b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Instance ids absent below a stream class's largest, when every stream file has an index
 * 1.1 (a file without one could be the absent stream). ids: (class << 32 | instance) of every
 * index, as missing_files collects them.
 */
static void instance_gaps(const char *trace, const GPtrArray *files, GArray *ids, GPtrArray *skips)
{
	for (guint i = 0; i < files->len; i++) {
		const struct sfile *f = g_ptr_array_index(files, i);

		if (!f->left_out && !(f->indexed && f->idx.ids && f->idx.n_packets)) {
			return;
		}
	}
	g_array_sort(ids, cmp_u64);
	for (guint i = 0; i < ids->len;) {
		uint64_t cls = g_array_index(ids, uint64_t, i) >> 32, next = 0, n_absent = 0;
		GString *named = g_string_new(NULL);
		guint j = i;

		for (; j < ids->len && g_array_index(ids, uint64_t, j) >> 32 == cls; j++) {
			uint64_t inst = g_array_index(ids, uint64_t, j) & 0xffffffffu;

			for (; next < inst; next++) {
				if (n_absent++ < MAX_NAMED) {
					g_string_append_printf(named, "%s%" PRIu64,
							       n_absent > 1 ? ", " : "", next);
				}
			}
			next = inst + 1;
		}
		if (n_absent) {
			g_ptr_array_add(skips,
					g_strdup_printf("%s: no stream file nor index for stream "
							"instance%s %s%s of stream class %" PRIu64
							" (the others up to %" PRIu64 " are there: "
							"one per CPU): missing",
							trace, n_absent > 1 ? "s" : "", named->str,
							n_absent > MAX_NAMED ? ", ..." : "", cls,
							next - 1));
		}
		g_string_free(named, TRUE);
		i = j;
	}
}

void analyzer_streams_check(const char *trace, GPtrArray *skips, GPtrArray *left_out)
{
	GPtrArray *files = list_files(trace);
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));

	g_ptr_array_sort(files, cmp_name);
	count_kin(files);
	missing_files(trace, skips, ids);
	copies(trace, files, skips, left_out);
	duplicates(trace, files, skips, left_out);
	instance_gaps(trace, files, ids, skips);
	g_array_free(ids, TRUE);
	g_ptr_array_free(files, TRUE);
}
