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

const char *dps_actset_format_us(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000 == 0) {
		snprintf(buf, len, "%" PRIu64, ns / 1000);
	} else {
		char frac[8];
		int end;

		snprintf(frac, sizeof(frac), "%03u", (unsigned)(ns % 1000));
		end = 3;
		while (end > 0 && frac[end - 1] == '0') {
			end--;
		}
		frac[end] = '\0';
		snprintf(buf, len, "%" PRIu64 ".%s", ns / 1000, frac);
	}
	return buf;
}

int dps_actset_write_thread(const struct dps_actset *set, size_t t, FILE *out)
{
	const struct dps_actset_thread *th = &set->threads[t];
	char buf[32];

	fprintf(out, "dps-actions %d\n", DPS_ACTSET_FORMAT_VERSION);
	for (size_t a = 0; a < th->n_actions; a++) {
		const struct dps_actset_action *act = &th->actions[a];
		const char *kw = dps_actset__kind_word(act->kind);

		switch (act->kind) {
		case DPS_ACT_RUN:
		case DPS_ACT_SLEEP:
			fprintf(out, "%s %s\n", kw,
				dps_actset_format_us((uint64_t)act->value, buf, sizeof(buf)));
			break;
		case DPS_ACT_HEAP:
		case DPS_ACT_STACK:
			fprintf(out, "%s %+" PRId64 "\n", kw, act->value);
			break;
		default:
			fprintf(out, "%s %" PRIu64 "\n", kw, act->id);
			break;
		}
	}
	return ferror(out) ? DPS_ERR_IO : DPS_OK;
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

	fprintf(out, "dps-manifest %d\n", DPS_ACTSET_FORMAT_VERSION);
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

int dps_actset_write_dir(const struct dps_actset *set, const char *dir, unsigned flags,
			 struct dps_diag *diag)
{
	struct dps_out_dir out;
	char name[40];
	int status;

	status = dps_out_dir_begin(&out, dir, dps_actset_is_set_dir, ACTSET_WHAT, flags, diag);
	if (status) {
		return status;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		snprintf(name, sizeof(name), "%" PRIu64 ".act", set->threads[t].id);
		status = write_file(out.tmp, name, set, t, diag);
		if (status) {
			goto abort_out;
		}
	}
	/* The manifest last: a set whose manifest is there was written whole. */
	status = write_file(out.tmp, DPS_ACTSET_MANIFEST_NAME, set, DPS_ACTSET_NO_THREAD, diag);
	if (status) {
		goto abort_out;
	}
	return dps_out_dir_commit(&out, diag);

abort_out:
	/* The message names the file inside the temporary; say which set it was for. */
	{
		char *inner = g_strdup(diag ? diag->msg : "");

		dps_diag_setf(diag, "cannot write the action set \"%s\" (left as it was): %s", dir,
			      inner);
		g_free(inner);
	}
	dps_out_dir_abort(&out);
	return status;
}
