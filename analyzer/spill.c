/* SPDX-License-Identifier: MIT */
/*
 * Spilling the timelines (doc/analyzer.md, "Memory"). When the result's timelines are not kept
 * (dps analyze, replay), a tracked thread's segments and memory samples go to one spill file
 * of the core once the thread holds SPILL_AT of them in memory: all but the newest SPILL_KEEP,
 * which the event handlers still look at (a run merged with the next one, a sample replaced
 * at the same instant). So memory holds at most SPILL_AT of each per thread, whatever the
 * number of events; the file holds 24 bytes per segment or sample. At the end, one kept
 * thread at a time, its marks are read back (analyzer__reload_marks) and its segments and
 * samples streamed from the file a chunk at a time (the tl_reader) as its actions are built;
 * what the final step did to it while it was spilled is applied on the way by readback.c. A
 * simulated run's thread (cut to its dps window) is read back whole (analyzer__reload_timeline).
 *
 * Indexes: a thread's segment index (sched.block_seg, what analyzer__add_seg returns) counts
 * from the first segment of its timeline, spilled ones included; the one late change to a
 * segment (a wait turned into a join when the waker exits) is made in the file when the
 * segment is already there.
 *
 * The file is unlinked as soon as it is made (nothing is left behind, whatever happens) and
 * lives in $TMPDIR. DPS_ANALYZER_SPILL_AT sets SPILL_AT (at least 2), for tests that spill
 * every thread of a small trace.
 *
 * The bottom of the core: a store of records that knows the timeline's arrays and the core's
 * spill file, and nothing of what they mean. The thread table appends to a timeline and spills
 * it here (threads.c, memory.c); it calls no other file of the core (scripts/check-tree.sh
 * checks it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "core-internal.h"

#define SPILL_AT_DEFAULT 512
#define SPILL_KEEP_MAX 32

/* One run of records of one kind, in timeline order. */
struct spill_chunk {
	uint64_t off;  /* byte offset in the spill file */
	uint32_t n;    /* records */
	uint32_t what; /* SPILL_SEGS or SPILL_MEM */
};

enum { SPILL_SEGS, SPILL_MEM, SPILL_MARKS };

void analyzer__spill_init(struct analyzer_core *core)
{
	const char *env = getenv("DPS_ANALYZER_SPILL_AT");
	long v = env ? strtol(env, NULL, 10) : 0;

	core->spill_fd = -1;
	core->spill_at = v >= 2 ? (size_t)v : SPILL_AT_DEFAULT;
	core->spill_keep =
	    core->spill_at / 2 < SPILL_KEEP_MAX ? core->spill_at / 2 : SPILL_KEEP_MAX;
}

void analyzer__spill_fini(struct analyzer_core *core)
{
	if (core->spill_fd >= 0) {
		close(core->spill_fd);
	}
	core->spill_fd = -1;
}

static void spill_failed(struct analyzer_core *core, const char *what, int err)
{
	if (!core->status) {
		snprintf(core->err, sizeof(core->err),
			 "cannot %s the analyzer's spill file in %s: %s", what, g_get_tmp_dir(),
			 strerror(err));
		core->status = DPS_ERR_IO;
	}
}

/* All of len bytes at off, written (write) or read, through EINTR and short transfers. A file
 * shorter than what was written (someone truncated it) reads as EIO, a write that makes no
 * progress as ENOSPC. */
static bool full_io(int fd, void *buf, size_t len, uint64_t off, bool write)
{
	char *p = buf;

	while (len) {
		ssize_t n = write ? pwrite(fd, p, len, (off_t)off) : pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			if (n == 0) {
				errno = write ? ENOSPC : EIO;
			}
			return false;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return true;
}

static bool full_write(int fd, const void *buf, size_t len, uint64_t off)
{
	return full_io(fd, (void *)buf, len, off, true);
}

static bool full_read(int fd, void *buf, size_t len, uint64_t off)
{
	return full_io(fd, buf, len, off, false);
}

/* Writes n records of size elem from arr to the file as one chunk of t's. */
static bool spill_chunk(struct analyzer_core *core, struct athread *t, uint32_t what,
			const void *arr, size_t n, size_t elem)
{
	struct spill_chunk c = {.off = core->spill_off, .n = (uint32_t)n, .what = what};

	if (core->spill_fd < 0) {
		GError *gerr = NULL;
		gchar *path = NULL;

		core->spill_fd = g_file_open_tmp("dps-analyze-spill-XXXXXX", &path, &gerr);
		if (core->spill_fd < 0) {
			snprintf(core->err, sizeof(core->err),
				 "cannot create the analyzer's spill file (TMPDIR): %s",
				 gerr ? gerr->message : "unknown error");
			g_clear_error(&gerr);
			core->status = DPS_ERR_IO;
			return false;
		}
		unlink(path);
		g_free(path);
	}
	if (!full_write(core->spill_fd, arr, n * elem, c.off)) {
		spill_failed(core, "write", errno);
		return false;
	}
	if (!t->tl.spill) {
		t->tl.spill = g_array_new(FALSE, FALSE, sizeof(struct spill_chunk));
	}
	g_array_append_val(t->tl.spill, c);
	core->spill_off += n * elem;
	return true;
}

/* All but the newest spill_keep of the n records in arr (elem bytes each) to the file. */
static void spill_oldest(struct analyzer_core *core, struct athread *t, uint32_t what, void *arr,
			 size_t *n, size_t *spilled, size_t elem)
{
	size_t k = *n - core->spill_keep;

	if (!spill_chunk(core, t, what, arr, k, elem)) {
		return;
	}
	memmove(arr, (char *)arr + k * elem, core->spill_keep * elem);
	*n = core->spill_keep;
	*spilled += k;
}

void analyzer__spill_segs(struct analyzer_core *core, struct athread *t)
{
	spill_oldest(core, t, SPILL_SEGS, t->tl.segs, &t->tl.n_segs, &t->tl.segs_spilled,
		     sizeof(*t->tl.segs));
}

void analyzer__spill_mem(struct analyzer_core *core, struct athread *t)
{
	spill_oldest(core, t, SPILL_MEM, t->tl.mem, &t->tl.n_mem, &t->tl.mem_spilled,
		     sizeof(*t->tl.mem));
}

void analyzer__spill_marks(struct analyzer_core *core, struct athread *t)
{
	spill_oldest(core, t, SPILL_MARKS, t->tl.marks, &t->tl.n_marks, &t->tl.marks_spilled,
		     sizeof(*t->tl.marks));
}

/* Where record idx of kind what (spilled) of t is in the file; UINT64_MAX when not there. */
static uint64_t spilled_offset(const struct athread *t, uint32_t what, size_t idx, size_t elem)
{
	size_t first = 0;

	for (guint i = 0; t->tl.spill && i < t->tl.spill->len; i++) {
		const struct spill_chunk *c = &g_array_index(t->tl.spill, struct spill_chunk, i);

		if (c->what != what) {
			continue;
		}
		if (idx < first + c->n) {
			return c->off + (idx - first) * elem;
		}
		first += c->n;
	}
	return UINT64_MAX;
}

struct analyzer_segment *analyzer__seg_at(struct analyzer_core *core, struct athread *t, size_t idx,
					  struct analyzer_segment *buf)
{
	uint64_t off;

	if (idx >= t->tl.segs_spilled) {
		idx -= t->tl.segs_spilled;
		return idx < t->tl.n_segs ? &t->tl.segs[idx] : NULL;
	}
	off = spilled_offset(t, SPILL_SEGS, idx, sizeof(*buf));
	if (off == UINT64_MAX || !full_read(core->spill_fd, buf, sizeof(*buf), off)) {
		spill_failed(core, "read", off == UINT64_MAX ? EINVAL : errno);
		return NULL;
	}
	return buf;
}

void analyzer__seg_put(struct analyzer_core *core, struct athread *t, size_t idx,
		       const struct analyzer_segment *buf)
{
	uint64_t off;

	if (idx >= t->tl.segs_spilled) {
		return; /* buf was the segment itself */
	}
	off = spilled_offset(t, SPILL_SEGS, idx, sizeof(*buf));
	if (off == UINT64_MAX || !full_write(core->spill_fd, buf, sizeof(*buf), off)) {
		spill_failed(core, "write", off == UINT64_MAX ? EINVAL : errno);
	}
}

void analyzer__mark_delete(struct analyzer_core *core, struct athread *t, size_t idx)
{
	struct analyzer_mark m;
	uint64_t off;

	if (idx >= t->tl.marks_spilled) {
		idx -= t->tl.marks_spilled;
		if (idx < t->tl.n_marks) {
			t->tl.marks[idx].kind = MARK_DELETED;
		}
		return;
	}
	off = spilled_offset(t, SPILL_MARKS, idx, sizeof(m));
	if (off == UINT64_MAX || !full_read(core->spill_fd, &m, sizeof(m), off)) {
		spill_failed(core, "read", off == UINT64_MAX ? EINVAL : errno);
		return;
	}
	m.kind = MARK_DELETED;
	if (!full_write(core->spill_fd, &m, sizeof(m), off)) {
		spill_failed(core, "write", errno);
	}
}

int analyzer__each_mark(struct analyzer_core *core, struct athread *t,
			void (*fn)(const struct analyzer_mark *m, void *data), void *data)
{
	struct analyzer_mark *buf = NULL;

	for (guint i = 0; t->tl.spill && i < t->tl.spill->len; i++) {
		const struct spill_chunk *c = &g_array_index(t->tl.spill, struct spill_chunk, i);

		if (c->what != SPILL_MARKS) {
			continue;
		}
		/* a chunk is at most spill_at records */
		if (!buf && !(buf = malloc(core->spill_at * sizeof(*buf)))) {
			return DPS_ERR_NOMEM;
		}
		if (!full_read(core->spill_fd, buf, c->n * sizeof(*buf), c->off)) {
			spill_failed(core, "read", errno);
			free(buf);
			return core->status;
		}
		for (uint32_t k = 0; k < c->n; k++) {
			fn(&buf[k], data);
		}
	}
	free(buf);
	for (size_t k = 0; k < t->tl.n_marks; k++) {
		fn(&t->tl.marks[k], data);
	}
	return DPS_OK;
}

/* Reads t's spilled records of one kind in front of the n in memory in *arr. */
static bool reload_kind(struct analyzer_core *core, struct athread *t, uint32_t what, void **arr,
			size_t *n, size_t *cap, size_t spilled, size_t elem)
{
	char *all = malloc((spilled + *n + 1) * elem);
	size_t at = 0;

	if (!all) {
		core->status = DPS_ERR_NOMEM;
		return false;
	}
	for (guint i = 0; i < t->tl.spill->len; i++) {
		const struct spill_chunk *c = &g_array_index(t->tl.spill, struct spill_chunk, i);

		if (c->what != what) {
			continue;
		}
		if (!full_read(core->spill_fd, all + at * elem, c->n * elem, c->off)) {
			spill_failed(core, "read", errno);
			free(all);
			return false;
		}
		at += c->n;
	}
	if (*n) {
		memcpy(all + at * elem, *arr, *n * elem);
	}
	free(*arr);
	*arr = all;
	*n += spilled;
	*cap = *n + 1;
	return true;
}

int analyzer__reload_timeline(struct analyzer_core *core, struct athread *t)
{
	struct athread_timeline *tl = &t->tl;

	if (tl->spill) {
		if (!reload_kind(core, t, SPILL_SEGS, (void **)&tl->segs, &tl->n_segs,
				 &tl->cap_segs, tl->segs_spilled, sizeof(*tl->segs)) ||
		    !reload_kind(core, t, SPILL_MEM, (void **)&tl->mem, &tl->n_mem, &tl->cap_mem,
				 tl->mem_spilled, sizeof(*tl->mem)) ||
		    !reload_kind(core, t, SPILL_MARKS, (void **)&tl->marks, &tl->n_marks,
				 &tl->cap_marks, tl->marks_spilled, sizeof(*tl->marks))) {
			return core->status;
		}
		g_array_free(tl->spill, TRUE);
		tl->spill = NULL;
		tl->segs_spilled = tl->mem_spilled = tl->marks_spilled = 0;
	}
	return DPS_OK;
}

void analyzer__drop_spill(struct athread *t)
{
	if (t->tl.spill) {
		g_array_free(t->tl.spill, TRUE);
	}
	t->tl.spill = NULL;
	t->tl.segs_spilled = t->tl.mem_spilled = t->tl.marks_spilled = 0;
}

/*
 * Streamed reading (analyzer__output with an output directory and no timelines kept): a
 * thread's records of one kind in order, at most one spill chunk of them in memory.
 */
int analyzer__tl_reader_open(struct analyzer_core *core, struct athread *t, bool mem,
			     struct analyzer_tl_reader *r)
{
	*r = (struct analyzer_tl_reader){.core = core, .t = t, .what = SPILL_SEGS};
	r->elem = sizeof(*t->tl.segs);
	if (mem) {
		r->what = SPILL_MEM;
		r->elem = sizeof(*t->tl.mem);
	}
	if (t->tl.spill) {
		/* a chunk is at most spill_at records */
		r->buf = malloc(core->spill_at * r->elem);
		if (!r->buf) {
			return DPS_ERR_NOMEM;
		}
	}
	return DPS_OK;
}

/* The next spilled chunk of r's kind into r->buf; false when there is none (or on error). */
static bool next_chunk(struct analyzer_tl_reader *r)
{
	GArray *spill = r->t->tl.spill;

	while (spill && r->chunk < spill->len) {
		const struct spill_chunk *c = &g_array_index(spill, struct spill_chunk, r->chunk++);

		if (c->what != r->what) {
			continue;
		}
		if (!full_read(r->core->spill_fd, r->buf, c->n * r->elem, c->off)) {
			spill_failed(r->core, "read", errno);
			return false;
		}
		r->n_buf = c->n;
		r->pos = 0;
		return true;
	}
	return false;
}

const void *analyzer__tl_reader_next(struct analyzer_tl_reader *r)
{
	const struct athread_timeline *tl = &r->t->tl;

	while (!r->spilled_done) {
		if (r->pos < r->n_buf) {
			return r->buf + r->elem * r->pos++;
		}
		if (!next_chunk(r)) {
			r->spilled_done = true;
			if (r->core->status) {
				return NULL;
			}
		}
	}
	if (r->what == SPILL_MEM) {
		return r->mem_pos < tl->n_mem ? &tl->mem[r->mem_pos++] : NULL;
	}
	return r->mem_pos < tl->n_segs ? &tl->segs[r->mem_pos++] : NULL;
}

void analyzer__tl_reader_close(struct analyzer_tl_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

int analyzer__reload_marks(struct analyzer_core *core, struct athread *t)
{
	struct athread_timeline *tl = &t->tl;
	guint k = 0;

	if (!tl->spill || !tl->marks_spilled) {
		return DPS_OK;
	}
	if (!reload_kind(core, t, SPILL_MARKS, (void **)&tl->marks, &tl->n_marks, &tl->cap_marks,
			 tl->marks_spilled, sizeof(*tl->marks))) {
		return core->status;
	}
	tl->marks_spilled = 0;
	/* the file's marks are in memory now: forget their chunks */
	for (guint i = 0; i < tl->spill->len; i++) {
		struct spill_chunk c = g_array_index(tl->spill, struct spill_chunk, i);

		if (c.what != SPILL_MARKS) {
			g_array_index(tl->spill, struct spill_chunk, k++) = c;
		}
	}
	g_array_set_size(tl->spill, k);
	return DPS_OK;
}
