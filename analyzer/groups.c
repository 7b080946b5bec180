/* SPDX-License-Identifier: MIT */
/*
 * Stream groups for parallel decoding (doc/analyzer.md, "Parallel decoding"): the traces'
 * stream files split into groups of similar size, a rotated stream's files kept together,
 * and each group shown to babeltrace2 as views: one temporary directory per group and trace
 * with symlinks to the trace's metadata, the group's stream files and their index files.
 * The views are removed by analyzer_groups_free, and on a terminating signal
 * (dps_out_register_temp). No babeltrace2 here: contain.c's decoders read the views.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include <dps/dps-status.h>

#include "atomic-out.h"
#include "find-traces.h"
#include "groups.h"
#include "guard.h"

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

/* Whether path is one of the stream files to leave out (copies of others: streams.c). */
static bool is_left_out(const GPtrArray *left_out, const char *path)
{
	for (guint i = 0; i < left_out->len; i++) {
		if (!strcmp(g_ptr_array_index(left_out, i), path)) {
			return true;
		}
	}
	return false;
}

/* The stream files of a trace as source.ctf.fs takes them (fs.c: not `metadata`, not hidden,
 * regular, not empty), but those left out, sorted by name, with their sizes. */
static int list_stream_files(const char *dir, const GPtrArray *left_out, GPtrArray *names,
			     GArray *sizes, struct dps_diag *diag)
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
		ok = !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
		     !is_left_out(left_out, path);
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
	guint first;   /* its first file's index in the trace's names */
	GArray *files; /* guint: indices in the trace's names */
	uint64_t bytes;
	size_t group;
	/* A stream cut in pieces (split_unit): its packets, and each piece's group and first
	 * packet; NULL when it is read whole. */
	GArray *packets; /* struct packet */
	GArray *pieces;	 /* struct piece */
	/* the stream file's LTTng index (header, entries of entry_len bytes), NULL none */
	GByteArray *index;
	size_t entry_len;
};

/* A packet of a stream file: what an LTTng index entry (1.0) says of it. */
struct packet {
	uint64_t offset, size_bits, content_bits, ts_begin, ts_end, discarded, stream_id;
	bool cut; /* a piece may start with it (no loss of events or packets before it) */
};

struct piece {
	size_t group;
	guint first, n; /* packets */
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
	if (u->packets) {
		g_array_free(u->packets, TRUE);
	}
	if (u->pieces) {
		g_array_free(u->pieces, TRUE);
	}
	if (u->index) {
		g_byte_array_free(u->index, TRUE);
	}
	g_free(u);
}

/*
 * Cutting a stream file in pieces. babeltrace2 2.0.4's source.ctf.fs reads a stream file
 * packet by packet as its LTTng index file (TRACE/index/NAME.idx) lists them
 * (data-stream-file.c: medop_group_switch_packet), and only checks that the listed sizes add
 * up to the file's: a view with the file and an index of some of its packets (the last one's
 * size taking the rest) reads those packets only. The packets are found from the packet
 * headers and contexts, whose layout comes from a plain-text metadata (perf-CTF): each of
 * their members byte-aligned integers or arrays of them. A stream whose counter of discarded events
 * is not 0 is not cut (a piece's first packet would report them all again); packet sequence
 * numbers (LTTng) are not handled, so neither are those streams.
 */
struct layout {
	uint32_t header_bits; /* the packet header's size, the context following it aligned */
	uint32_t ctx_align;
	/* in the context, the bit offsets of the members used, UINT32_MAX absent */
	uint32_t ts_begin, ts_end, content_size, packet_size, discarded;
	bool big_endian, has_seq;
};

/* The members of `NAME := struct { ... }` in text: their bit offsets (from the struct's start,
 * aligned by align_to), their sizes and names. Returns the struct's size in bits, or 0 when a
 * member is not an integer or an array of integers, or is not byte-aligned. */
static uint32_t parse_struct(const char *text, const char *name, uint32_t start, struct layout *l,
			     bool context)
{
	const char *p = strstr(text, name), *end;
	uint32_t off = start;

	if (!p || !(p = strchr(p, '{')) || !(end = strstr(p, "} align("))) {
		return 0;
	}
	p++;
	while (p < end) {
		unsigned size = 0, align = 8, count = 1;
		const char *q, *close;
		char member[64];

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n')) {
			p++;
		}
		if (p >= end) {
			break;
		}
		if (strncmp(p, "integer {", 9) || !(close = strchr(p, '}')) || close > end) {
			return 0;
		}
		q = strstr(p, "size = ");
		if (!q || q > close || sscanf(q, "size = %u", &size) != 1) {
			return 0;
		}
		q = strstr(p, "align = ");
		if (q && q < close && sscanf(q, "align = %u", &align) != 1) {
			return 0;
		}
		q = strstr(p, "byte_order = be");
		if (q && q < close) {
			l->big_endian = true;
		}
		if (sscanf(close + 1, " %63[A-Za-z0-9_]", member) != 1) {
			return 0;
		}
		q = strchr(close, ';');
		if (!q || q > end) {
			return 0;
		}
		{
			const char *br = strchr(close, '[');

			if (br && br < q && sscanf(br, "[%u]", &count) != 1) {
				return 0;
			}
		}
		if (!align || size % 8) {
			return 0;
		}
		off = (off + align - 1) / align * align;
		if (off % 8) {
			return 0;
		}
		if (context) {
			uint32_t *slot = !strcmp(member, "timestamp_begin")    ? &l->ts_begin
					 : !strcmp(member, "timestamp_end")    ? &l->ts_end
					 : !strcmp(member, "content_size")     ? &l->content_size
					 : !strcmp(member, "packet_size")      ? &l->packet_size
					 : !strcmp(member, "events_discarded") ? &l->discarded
									       : NULL;

			if (slot && size == 64) {
				*slot = off - start;
			}
			if (!strcmp(member, "packet_seq_num")) {
				l->has_seq = true;
			}
		}
		off += size * count;
		p = q + 1;
	}
	return off - start;
}

/* The packet layout of a trace with a plain-text metadata (perf-CTF); false otherwise. */
static bool read_layout(const char *trace, struct layout *l)
{
	char *path = g_build_filename(trace, "metadata", NULL), *text = NULL;
	gsize len = 0;
	bool ok = false;

	*l = (struct layout){0,		 8,	     UINT32_MAX, UINT32_MAX, UINT32_MAX,
			     UINT32_MAX, UINT32_MAX, false,	 false};
	if (g_file_get_contents(path, &text, &len, NULL) && len > 8 &&
	    !strncmp(text, "/* CTF 1.8", 10) && !memchr(text, '\0', len)) {
		l->header_bits = parse_struct(text, "packet.header := struct", 0, l, false);
		if (l->header_bits && l->header_bits % 64 == 0 &&
		    parse_struct(text, "packet.context := struct", l->header_bits, l, true)) {
			ok = !l->has_seq && l->ts_begin != UINT32_MAX && l->ts_end != UINT32_MAX &&
			     l->content_size != UINT32_MAX && l->packet_size != UINT32_MAX;
		}
	}
	g_free(text);
	g_free(path);
	return ok;
}

static uint64_t read_u64(const unsigned char *b, bool big_endian)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++) {
		v |= (uint64_t)b[big_endian ? 7 - i : i] << (8 * i);
	}
	return v;
}

/* The packets of a stream file, from their headers and contexts. false when the file does not
 * read as a sequence of whole packets, or has discarded events (see above). */
static bool scan_packets(const char *path, const struct layout *l, uint64_t size, GArray *out)
{
	uint32_t ctx_bits = l->packet_size > l->ts_end ? l->packet_size : l->ts_end;
	size_t need = (l->header_bits + ctx_bits) / 8 + 8;
	FILE *f = fopen(path, "rb");
	unsigned char buf[512];
	uint64_t off = 0;
	bool ok = f != NULL && need <= sizeof(buf) && l->discarded != UINT32_MAX;

	ctx_bits = l->discarded > ctx_bits ? l->discarded : ctx_bits;
	need = (l->header_bits + ctx_bits) / 8 + 8;
	ok = ok && need <= sizeof(buf);
	while (ok && off < size) {
		struct packet pk = {.offset = off};
		const unsigned char *c = buf + l->header_bits / 8;

		if (fseeko(f, (off_t)off, SEEK_SET) || fread(buf, 1, need, f) != need) {
			ok = false;
			break;
		}
		pk.size_bits = read_u64(c + l->packet_size / 8, l->big_endian);
		pk.content_bits = read_u64(c + l->content_size / 8, l->big_endian);
		pk.ts_begin = read_u64(c + l->ts_begin / 8, l->big_endian);
		pk.ts_end = read_u64(c + l->ts_end / 8, l->big_endian);
		pk.discarded = read_u64(c + l->discarded / 8, l->big_endian);
		if (!pk.size_bits || pk.size_bits % 8 || pk.size_bits / 8 > size - off ||
		    pk.discarded || pk.ts_end < pk.ts_begin) {
			ok = false;
			break;
		}
		pk.cut = true;
		g_array_append_val(out, pk);
		off += pk.size_bits / 8;
	}
	if (f) {
		fclose(f);
	}
	return ok && out->len > 1;
}

static uint64_t be64_at(const guint8 *b)
{
	return read_u64(b, true);
}

/*
 * The packets of a stream file from its LTTng index (TRACE/index/NAME.idx, 1.1: with the
 * packets' sequence numbers): a piece may start at a packet that follows the previous one
 * (its sequence number) and that no discarded event precedes (the counter is 0): a piece's
 * first packet reports neither (msg-iter.c: check_emit_msg_discarded_*), so the cut must not
 * hide one. false without a usable index.
 */
static bool read_index(const char *trace, const char *name, uint64_t size, struct unit *unit)
{
	char *path = g_strdup_printf("%s/index/%s.idx", trace, name), *data = NULL;
	gsize len = 0;
	bool ok = false;
	uint64_t listed = 0;

	if (!g_file_get_contents(path, &data, &len, NULL) || len < 16) {
		goto end;
	}
	{
		const guint8 *b = (const guint8 *)data;
		uint32_t magic = GUINT32_FROM_BE(*(const uint32_t *)b);
		uint32_t major = GUINT32_FROM_BE(*(const uint32_t *)(b + 4));
		uint32_t minor = GUINT32_FROM_BE(*(const uint32_t *)(b + 8));
		size_t elen = GUINT32_FROM_BE(*(const uint32_t *)(b + 12));

		/* 1.1 entries: offset, packet_size, content_size, timestamp_begin, timestamp_end,
		 * events_discarded, stream_id, stream_instance_id, packet_seq_num */
		if (magic != 0xC1F1DCC1u || major != 1 || minor < 1 || elen < 9 * 8 ||
		    (len - 16) % elen) {
			goto end;
		}
		for (size_t off = 16; off < len; off += elen) {
			const guint8 *e = b + off;
			struct packet pk = {
			    .offset = be64_at(e),
			    .size_bits = be64_at(e + 8),
			    .discarded = be64_at(e + 40),
			};
			uint64_t seq = be64_at(e + 64);

			pk.cut = pk.discarded == 0 &&
				 (!unit->packets->len || seq == be64_at(e - elen + 64) + 1);
			if (pk.size_bits % 8 || pk.offset != listed) {
				goto end;
			}
			listed += pk.size_bits / 8;
			g_array_append_val(unit->packets, pk);
		}
		unit->entry_len = elen;
	}
	ok = listed == size && unit->packets->len > 1;
	if (ok) {
		unit->index = g_byte_array_new_take((guint8 *)data, len);
		data = NULL;
	}
end:
	g_free(data);
	g_free(path);
	return ok;
}

/* Writes the index of packets [first, first + n) of a stream file of size bytes: an LTTng
 * index 1.0, big-endian, the last packet's size taking the rest of the file. */
static bool write_piece_index(const char *path, const struct unit *unit, guint first, guint n)
{
	const GArray *packets = unit->packets;
	FILE *f = fopen(path, "wb");
	uint64_t listed = 0;
	bool ok = f != NULL;
	uint32_t hdr[4] = {GUINT32_TO_BE(0xC1F1DCC1u), GUINT32_TO_BE(1), GUINT32_TO_BE(0),
			   GUINT32_TO_BE(7 * 8)};

	for (guint i = 0; i < n; i++) {
		listed += g_array_index(packets, struct packet, first + i).size_bits / 8;
	}
	if (ok && unit->index) {
		/* the trace's own entries, as they are (times, sequence numbers) */
		const guint8 *b = unit->index->data;
		guint8 last[512];
		size_t elen = unit->entry_len;

		ok = elen <= sizeof(last) && fwrite(b, 16, 1, f) == 1 &&
		     (n == 1 || fwrite(b + 16 + first * elen, elen, n - 1, f) == n - 1);
		if (ok) {
			uint64_t bits =
			    g_array_index(packets, struct packet, first + n - 1).size_bits +
			    (unit->bytes - listed) * 8;

			memcpy(last, b + 16 + (first + n - 1) * elen, elen);
			bits = GUINT64_TO_BE(bits);
			memcpy(last + 8, &bits, 8);
			ok = fwrite(last, elen, 1, f) == 1;
		}
		n = 0;
	} else if (ok) {
		ok = fwrite(hdr, sizeof(hdr), 1, f) == 1;
	}
	for (guint i = 0; ok && i < n; i++) {
		const struct packet *pk = &g_array_index(packets, struct packet, first + i);
		uint64_t bits = pk->size_bits + (i == n - 1 ? (unit->bytes - listed) * 8 : 0);
		uint64_t e[7] = {GUINT64_TO_BE(pk->offset),
				 GUINT64_TO_BE(bits),
				 GUINT64_TO_BE(pk->content_bits),
				 GUINT64_TO_BE(pk->ts_begin),
				 GUINT64_TO_BE(pk->ts_end),
				 GUINT64_TO_BE(0),
				 GUINT64_TO_BE(0)};

		ok = fwrite(e, sizeof(e), 1, f) == 1;
	}
	if (f && fclose(f)) {
		ok = false;
	}
	return ok;
}

/*
 * Cuts unit (one stream file) in pieces that fill the groups below target bytes, in stream
 * order; load: the groups' bytes so far. false when it is not worth it or not possible (it
 * is then read whole).
 */
static bool split_unit(struct unit *unit, const char *trace, const char *name, uint64_t *load,
		       size_t n_groups, uint64_t target)
{
	char *path = g_build_filename(trace, name, NULL);
	uint64_t room = 0;
	guint next = 0;
	struct layout l;
	bool ok;

	unit->packets = g_array_new(FALSE, FALSE, sizeof(struct packet));
	unit->pieces = g_array_new(FALSE, FALSE, sizeof(struct piece));
	ok = read_index(trace, name, unit->bytes, unit);
	if (!ok) {
		g_array_set_size(unit->packets, 0);
		ok = read_layout(trace, &l) && scan_packets(path, &l, unit->bytes, unit->packets);
	}
	g_free(path);
	if (!ok) {
		goto whole;
	}
	for (size_t g = 0; g < n_groups; g++) {
		room += load[g] < target ? target - load[g] : 0;
	}
	for (size_t g = 0; g < n_groups && next < unit->packets->len; g++) {
		struct piece pc = {g, next, 0};
		uint64_t want, bytes = 0;

		if (load[g] >= target) {
			continue;
		}
		/* this group's share of the stream, as its share of the room left */
		want = (uint64_t)((double)unit->bytes * (double)(target - load[g]) / (double)room);
		while (next < unit->packets->len &&
		       (bytes < want || g == n_groups - 1 || !pc.n ||
			!g_array_index(unit->packets, struct packet, next).cut)) {
			bytes += g_array_index(unit->packets, struct packet, next).size_bits / 8;
			next++;
			pc.n++;
		}
		load[g] += bytes;
		g_array_append_val(unit->pieces, pc);
	}
	if (next < unit->packets->len) {
		/* what rounding left: to the last piece */
		struct piece *last =
		    &g_array_index(unit->pieces, struct piece, unit->pieces->len - 1);

		for (; next < unit->packets->len; next++) {
			uint64_t b =
			    g_array_index(unit->packets, struct packet, next).size_bits / 8;

			last->n++;
			load[last->group] += b;
		}
	}
	if (unit->pieces->len > 1) {
		return true;
	}
	load[g_array_index(unit->pieces, struct piece, 0).group] -= unit->bytes;
whole:
	g_array_free(unit->packets, TRUE);
	g_array_free(unit->pieces, TRUE);
	unit->packets = unit->pieces = NULL;
	return false;
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
	if (plan->infos) {
		g_ptr_array_free(plan->infos, TRUE);
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
static int make_view(struct analyzer_groups *plan, GPtrArray *units, size_t g, guint t,
		     const char *real, struct dps_diag *diag)
{
	GPtrArray *names = g_ptr_array_index(plan->files, t);
	char *dir = g_strdup_printf("%s/g%03zu-t%05u", plan->root, g, t);
	char *target = g_build_filename(real, "metadata", NULL);
	char *index_dir = NULL;
	struct analyzer_view_file *info = g_new0(struct analyzer_view_file, names->len);
	int status;

	g_ptr_array_add(plan->infos, info);
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

		if (unit->trace != t) {
			continue;
		}
		for (guint i = 0; !status && unit->pieces && i < unit->pieces->len; i++) {
			const struct piece *pc = &g_array_index(unit->pieces, struct piece, i);
			guint file = g_array_index(unit->files, guint, 0);
			const char *name = g_ptr_array_index(names, file);
			const struct packet *pk =
			    &g_array_index(unit->packets, struct packet, pc->first);
			char *idx;

			if (pc->group != g) {
				continue;
			}
			target = g_build_filename(real, name, NULL);
			status = link_in(dir, name, target, diag);
			g_free(target);
			if (!index_dir) {
				index_dir = g_build_filename(dir, "index", NULL);
				(void)!mkdir(index_dir, 0700);
			}
			idx = g_strdup_printf("%s/%s.idx", index_dir, name);
			if (!status && !write_piece_index(idx, unit, pc->first, pc->n)) {
				dps_diag_setf(diag, "%s: cannot write: %s", idx, strerror(errno));
				status = DPS_ERROR;
			}
			g_free(idx);
			info[file] = (struct analyzer_view_file){i, pk->offset, pc->first};
		}
		if (unit->pieces || unit->group != g) {
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
	    .info = info,
	    .n_files = names->len,
	};
	return status;
}

int analyzer_groups_plan(const char *const *paths, size_t n_paths, size_t jobs,
			 struct analyzer_groups **out, GPtrArray *skips_out, struct dps_diag *diag)
{
	struct analyzer_groups *plan = g_new0(struct analyzer_groups, 1);
	GPtrArray *skips = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *left_out = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *units = g_ptr_array_new_with_free_func(unit_free);
	struct dps_diag scratch = {""};
	uint64_t *load = NULL, total = 0, target;
	sigset_t old_mask;
	size_t n_groups;
	bool made;
	int status;

	plan->traces = g_ptr_array_new_with_free_func(g_free);
	plan->files = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	plan->strings = g_ptr_array_new_with_free_func(g_free);
	plan->infos = g_ptr_array_new_with_free_func(g_free);
	*out = NULL;
	status = analyzer_find_traces(paths, n_paths, plan->traces, skips, left_out, diag);
	if (status) {
		goto end;
	}
	for (guint t = 0; t < plan->traces->len; t++) {
		GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
		GArray *sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		GHashTable *by_base = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

		g_ptr_array_add(plan->files, names);
		status = list_stream_files(g_ptr_array_index(plan->traces, t), left_out, names,
					   sizes, &scratch);
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
	n_groups = jobs < 1 ? 1 : jobs;
	if (n_groups > units->len) {
		n_groups = units->len ? units->len : 1;
	}
	/* One decoder on the traces themselves, unless a stream file is to be left out: only a
	 * view can hide it from babeltrace2. */
	if ((n_groups < 2 && !left_out->len) || plan->traces->len >= 1u << 12) {
		goto end;
	}
	/* the largest stream first, to the group with the fewest bytes; a stream larger than a
	 * group's share is cut to fill the groups (split_unit), after the others are placed */
	g_ptr_array_sort(units, cmp_unit);
	load = g_new0(uint64_t, n_groups);
	for (guint u = 0; u < units->len; u++) {
		total += ((struct unit *)g_ptr_array_index(units, u))->bytes;
	}
	target = (total + n_groups - 1) / n_groups;
	for (int pass = 0; pass < 2; pass++) {
		for (guint u = 0; u < units->len; u++) {
			struct unit *unit = g_ptr_array_index(units, u);
			const char *trace = g_ptr_array_index(plan->traces, unit->trace);
			bool big = unit->files->len == 1 && unit->bytes > target;
			size_t best = 0;

			if (big != (pass == 1)) {
				continue;
			}
			if (big &&
			    split_unit(unit, trace,
				       g_ptr_array_index(
					   (GPtrArray *)g_ptr_array_index(plan->files, unit->trace),
					   g_array_index(unit->files, guint, 0)),
				       load, n_groups, target)) {
				continue;
			}
			for (size_t g = 1; g < n_groups; g++) {
				if (load[g] < load[best]) {
					best = g;
				}
			}
			unit->group = best;
			load[best] += unit->bytes;
		}
	}
	/* From here on a failure (a full or read-only $TMPDIR) leaves one decoder, which reads
	 * the traces themselves: the views are only faster. */
	/* the pid: a run killed with its guardian leaves the views to the next (guard.h) */
	dps_guard_sweep_dir(views_base(), "dps-decode-");
	plan->root = g_strdup_printf("%s/dps-decode-%d-XXXXXX", views_base(), (int)getpid());
	dps_out_hold_signals(&old_mask); /* registered, then made */
	made = dps_out_make_temp(plan->root, true, 0700) == 0;
	dps_out_release_signals(&old_mask);
	if (!made) {
		g_free(plan->root);
		plan->root = NULL;
		goto end;
	}
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
	if (!status && !*out && left_out->len) {
		dps_diag_setf(
		    diag,
		    "%s: a copy of another stream file of its trace, to leave out, but no "
		    "view of the trace without it could be made%s%s: refused",
		    (const char *)g_ptr_array_index(left_out, 0), scratch.msg[0] ? ": " : "",
		    scratch.msg);
		status = DPS_ERROR;
	}
	g_ptr_array_free(left_out, TRUE);
	g_free(load);
	g_ptr_array_free(units, TRUE);
	g_ptr_array_free(skips, TRUE);
	analyzer_groups_free(plan);
	return status;
}
