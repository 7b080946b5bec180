/* SPDX-License-Identifier: MIT */
/* Writing an action set: <id>.act files with a header line and a manifest, written into a
 * temporary directory that then replaces the target whole (common/atomic-out.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "actset-internal.h"
#include "atomic-out.h"

/* Writes v in decimal at p; returns the number of characters (at most 20). */
static size_t put_u64(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++) {
		p[i] = tmp[n - 1 - i];
	}
	return n;
}

/* A duration in µs: integer µs when exact, else the ns fraction without its trailing zeros
 * ("54", "0.85", "12.5"); at most 24 characters. */
static size_t put_us(char *p, uint64_t ns)
{
	size_t n = put_u64(p, ns / 1000);
	unsigned frac = (unsigned)(ns % 1000);

	if (frac) {
		p[n++] = '.';
		p[n++] = (char)('0' + frac / 100);
		frac %= 100;
		if (frac) {
			p[n++] = (char)('0' + frac / 10);
			frac %= 10;
			if (frac) {
				p[n++] = (char)('0' + frac);
			}
		}
	}
	return n;
}

const char *dps_actset_format_us(uint64_t ns, char *buf, size_t len)
{
	char tmp[32];
	size_t n = put_us(tmp, ns);

	if (len) {
		n = n < len - 1 ? n : len - 1;
		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
	return buf;
}

/* The longest action line but a member set's: a keyword, a blank, 20 digits, " timeout " and
 * 24 characters of duration, a newline. */
#define ACTION_LINE_MAX 64

/* A run with cache figures: "run ", 24 characters of duration, " cache ", four numbers of at
 * most 20 digits and their blanks, " footprint " and 20 digits, a newline. */
#define CACHE_RUN_LINE_MAX 160

/* The most characters action act can take (a member set: 21 per member). */
static size_t action_line_max(const struct dps_actset_action *act)
{
	if (act->kind == DPS_ACT_RUN && act->aux) {
		return CACHE_RUN_LINE_MAX;
	}
	return dps_actset_kind_names_members(act->kind) ? 16 + 21 * act->aux : ACTION_LINE_MAX;
}

/* One action as a line of its file; returns its length (at most action_line_max(act)). Formatted by
 * hand, not with printf: a dense set has millions of lines (doc/analyzer.md, "Speed"). */
static size_t format_action(const struct dps_actset *set, const struct dps_actset_action *act,
			    char *p)
{
	const char *kw = dps_actset__kind_word(act->kind);
	size_t n = strlen(kw);

	memcpy(p, kw, n);
	p[n++] = ' ';
	switch (act->kind) {
	case DPS_ACT_WAIT_TIMEOUT:
		n += put_u64(p + n, act->id);
		memcpy(p + n, " timeout ", 9);
		n += 9;
		n += put_us(p + n, act->aux);
		break;
	case DPS_ACT_JOIN_ANY:
	case DPS_ACT_WAIT_ANY:
		if (act->kind == DPS_ACT_JOIN_ANY) {
			memcpy(p + n, "any ", 4);
			n += 4;
		}
		for (uint64_t i = 0; i < act->aux; i++) {
			if (i) {
				p[n++] = '|';
			}
			n += put_u64(p + n, set->members[act->first + i]);
		}
		break;
	case DPS_ACT_RUN:
	case DPS_ACT_SLEEP:
		n += put_us(p + n, (uint64_t)act->value);
		if (act->kind == DPS_ACT_RUN && act->aux && act->aux <= set->n_caches) {
			const struct dps_action_cache *c = &set->caches[act->aux - 1];

			memcpy(p + n, " cache ", 7);
			n += 7;
			n += put_u64(p + n, c->accesses);
			p[n++] = ' ';
			n += put_u64(p + n, c->stores);
			p[n++] = ' ';
			n += put_u64(p + n, c->d1_misses);
			p[n++] = ' ';
			n += put_u64(p + n, c->ll_misses);
			if (c->footprint_bytes) {
				memcpy(p + n, " footprint ", 11);
				n += 11;
				n += put_u64(p + n, c->footprint_bytes);
			}
		}
		break;
	case DPS_ACT_HEAP:
	case DPS_ACT_STACK:
		p[n++] = act->value < 0 ? '-' : '+';
		n += put_u64(p + n, act->value < 0 ? -(uint64_t)act->value : (uint64_t)act->value);
		break;
	case DPS_ACT_PUT:
	case DPS_ACT_TAKE:
		n += put_u64(p + n, act->id);
		if (act->aux > 1) {
			p[n++] = ' ';
			n += put_u64(p + n, act->aux);
		}
		break;
	default:
		n += put_u64(p + n, act->id);
		break;
	}
	p[n++] = '\n';
	return n;
}

/* Thread t's actions from index from on, as lines. */
static int write_actions(const struct dps_actset *set, size_t t, size_t from, FILE *out)
{
	const struct dps_actset_thread *th = &set->threads[t];
	/* Lines are formatted into this buffer and handed to stdio in large writes. */
	char buf[64 * 1024];
	size_t len = 0;

	for (size_t a = from; a < th->n_actions; a++) {
		size_t need = action_line_max(&th->actions[a]);

		if (len + need > sizeof(buf)) {
			fwrite(buf, 1, len, out);
			len = 0;
		}
		if (need > sizeof(buf)) {
			return DPS_ERR_INVAL; /* the parser reads at most 64 members */
		}
		len += format_action(set, &th->actions[a], buf + len);
	}
	fwrite(buf, 1, len, out);
	return ferror(out) ? DPS_ERR_IO : DPS_OK;
}

int dps_actset_write_thread(const struct dps_actset *set, size_t t, FILE *out)
{
	fprintf(out, "dps-actions %d\n", dps_actset_thread_version(set, t));
	return write_actions(set, t, 0, out);
}

static void write_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", out);
		} else if (*p == '\t') {
			fputs("\\t", out);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\x%02x", *p);
		} else {
			fputc(*p, out);
		}
	}
	fputc('"', out);
}

static int write_manifest(const struct dps_actset *set, FILE *out)
{
	char buf[32];

	fprintf(out, "dps-manifest %d\n", dps_actset_thread_version(set, DPS_ACTSET_NO_THREAD));
	if (set->source_trace) {
		fputs("source ", out);
		write_quoted(out, set->source_trace);
		fputc('\n', out);
	}
	if (set->options) {
		fputs("options ", out);
		write_quoted(out, set->options);
		fputc('\n', out);
	}
	if (set->partial) {
		fputs("partial ", out);
		write_quoted(out, set->partial_reason ? set->partial_reason : "incomplete");
		fputc('\n', out);
	}
	if (set->resolved) {
		fprintf(out, "root %" PRIu64 "\n", set->threads[set->root].id);
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		fprintf(out, "thread %" PRIu64, th->id);
		if (th->tid >= 0) {
			fprintf(out, " tid %" PRId64, th->tid);
		}
		if (th->pid >= 0) {
			fprintf(out, " pid %" PRId64, th->pid);
		}
		if (th->comm) {
			fputs(" comm ", out);
			write_quoted(out, th->comm);
		}
		fprintf(out, " start %s",
			dps_actset_format_us(th->start_offset_ns, buf, sizeof(buf)));
		if (set->resolved && th->parent != DPS_ACTSET_NO_THREAD) {
			fprintf(out, " parent %" PRIu64, set->threads[th->parent].id);
		}
		if (th->pre_existing) {
			fputs(" pre-existing", out);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < set->n_objects; i++) {
		const struct dps_actset_object *o = &set->objects[i];

		fprintf(out, "object %" PRIu64 " %s", o->id, dps_object_kind_name(o->kind));
		if (o->kind == DPS_OBJ_QUEUE) {
			fprintf(out, " %" PRIu64 " %" PRIu64, o->capacity, o->initial);
		} else if (o->kind == DPS_OBJ_BARRIER) {
			fprintf(out, " %" PRIu64, o->capacity);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < set->n_objects; i++) {
		const struct dps_actset_object *o = &set->objects[i];

		if (!o->order) {
			continue;
		}
		fprintf(out, "tasks %" PRIu64, o->id);
		for (size_t k = 0; k < o->n_order; k++) {
			fprintf(out, " %" PRIu64, o->order[k]);
		}
		fputc('\n', out);
	}
	return ferror(out) ? DPS_ERR_IO : DPS_OK;
}

/* Writes one file of the set into dir (the temporary directory, so a plain file), synced. */
static int write_file(const char *dir, const char *name, const struct dps_actset *set, size_t t,
		      struct dps_diag *diag)
{
	char *path = dps_actset__path_join(dir, name);
	FILE *f = NULL;
	int status;

	if (!path) {
		dps_diag_set(diag, dir, 0, 0, "out of memory");
		return DPS_ERR_NOMEM;
	}
	f = fopen(path, "w");
	if (!f) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", path, errno,
			      strerror(errno));
		status = DPS_ERR_IO;
		goto free_path;
	}
	t == DPS_ACTSET_NO_THREAD ? write_manifest(set, f) : dps_actset_write_thread(set, t, f);
	/* The stream's error flag and the final flush, fsync and close say whether it all got
	 * to disk (ENOSPC shows up at any of them). */
	status = dps_out_close(f, path, diag);
free_path:
	free(path);
	return status;
}

/* What an existing output directory must be to be replaced without --force. */
#define ACTSET_WHAT "an action set (no manifest)"

bool dps_actset_is_set_dir(const char *dir)
{
	char *manifest = dps_actset__path_join(dir, DPS_ACTSET_MANIFEST_NAME);
	struct stat st;
	bool is_set = manifest && stat(manifest, &st) == 0 && S_ISREG(st.st_mode);

	free(manifest);
	return is_set;
}

int dps_actset_check_out_dir(const char *dir, unsigned flags, struct dps_diag *diag)
{
	return dps_out_dir_check(dir, dps_actset_is_set_dir, ACTSET_WHAT, flags, diag);
}

int dps_actset_writer_begin(struct dps_actset_writer *w, const char *dir, unsigned flags,
			    struct dps_diag *diag)
{
	*w = (struct dps_actset_writer){0};
	return dps_out_dir_begin(&w->out, dir, dps_actset_is_set_dir, ACTSET_WHAT, flags, diag);
}

/* The message names the file inside the temporary; says which set it was for, and removes the
 * temporary. */
static void writer_fail(struct dps_actset_writer *w, struct dps_diag *diag)
{
	char *inner = g_strdup(diag ? diag->msg : "");

	dps_diag_setf(diag, "cannot write the action set \"%s\" (left as it was): %s", w->out.path,
		      inner);
	g_free(inner);
	dps_actset_writer_abort(w);
}

int dps_actset_writer_put_thread(struct dps_actset_writer *w, const struct dps_actset *set,
				 size_t t, struct dps_diag *diag)
{
	int status = dps_actset_writer_open_thread(w, set, t, diag);

	status = status ? status : dps_actset_writer_add_actions(w, set, t, 0, diag);
	return status ? status : dps_actset_writer_close_thread(w, diag);
}

int dps_actset_writer_open_thread(struct dps_actset_writer *w, const struct dps_actset *set,
				  size_t t, struct dps_diag *diag)
{
	char name[40];

	snprintf(name, sizeof(name), "%" PRIu64 ".act", set->threads[t].id);
	w->thread_path = dps_actset__path_join(w->out.tmp, name);
	if (!w->thread_path) {
		dps_diag_set(diag, w->out.tmp, 0, 0, "out of memory");
		writer_fail(w, diag);
		return DPS_ERR_NOMEM;
	}
	w->thread = fopen(w->thread_path, "w");
	if (!w->thread) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", w->thread_path, errno,
			      strerror(errno));
		writer_fail(w, diag);
		return DPS_ERR_IO;
	}
	/* the actions may not all be in the set yet: a producer of version-2 actions says so
	 * in set->format_version */
	fprintf(w->thread, "dps-actions %d\n", dps_actset_thread_version(set, t));
	return DPS_OK;
}

int dps_actset_writer_add_actions(struct dps_actset_writer *w, const struct dps_actset *set,
				  size_t t, size_t from, struct dps_diag *diag)
{
	/* A write error shows in the stream's flag; close_thread's flush and fsync report it
	 * with the file's name. Say it early when it is already there. */
	if (write_actions(set, t, from, w->thread)) {
		int status = dps_actset_writer_close_thread(w, diag);

		if (!status) {
			/* not seen again at the close: still a failed write */
			dps_diag_setf(diag, "cannot write a thread file");
			writer_fail(w, diag);
			status = DPS_ERR_IO;
		}
		return status;
	}
	return DPS_OK;
}

int dps_actset_writer_close_thread(struct dps_actset_writer *w, struct dps_diag *diag)
{
	int status = dps_out_close(w->thread, w->thread_path, diag);

	w->thread = NULL;
	free(w->thread_path);
	w->thread_path = NULL;
	if (status) {
		writer_fail(w, diag);
	}
	return status;
}

int dps_actset_writer_commit(struct dps_actset_writer *w, const struct dps_actset *set,
			     struct dps_diag *diag)
{
	/* The manifest last: a set whose manifest is there was written whole. */
	int status =
	    write_file(w->out.tmp, DPS_ACTSET_MANIFEST_NAME, set, DPS_ACTSET_NO_THREAD, diag);

	if (status) {
		writer_fail(w, diag);
		return status;
	}
	status = dps_out_dir_commit(&w->out, diag);
	*w = (struct dps_actset_writer){0};
	return status;
}

void dps_actset_writer_abort(struct dps_actset_writer *w)
{
	if (w->thread) {
		fclose(w->thread);
	}
	free(w->thread_path);
	if (w->out.tmp) {
		dps_out_dir_abort(&w->out);
	}
	*w = (struct dps_actset_writer){0};
}

int dps_actset_write_dir(const struct dps_actset *set, const char *dir, unsigned flags,
			 struct dps_diag *diag)
{
	struct dps_actset_writer w;
	int status;

	status = dps_actset_writer_begin(&w, dir, flags, diag);
	for (size_t t = 0; t < set->n_threads && !status; t++) {
		status = dps_actset_writer_put_thread(&w, set, t, diag);
	}
	return status ? status : dps_actset_writer_commit(&w, set, diag);
}
