/* SPDX-License-Identifier: MIT */
/* Writing an action set: <id>.act files with a header line and a manifest, each replaced
 * atomically (written to a temporary file, then renamed). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actset-internal.h"

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

/* Writes through a temporary file renamed over the target, so an existing file is never left
 * half-written. */
static int write_atomically(const char *dir, const char *name, const struct dps_actset *set,
			    size_t t, struct dps_diag *diag)
{
	char *path = dps_actset__path_join(dir, name);
	char *tmp = NULL;
	FILE *f = NULL;
	int status = DPS_ERR_NOMEM;

	if (!path || asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		tmp = NULL;
		dps_diag_set(diag, dir, 0, 0, "out of memory");
		goto end;
	}
	f = fopen(tmp, "w");
	if (!f) {
		dps_diag_set(diag, tmp, 0, 0, "cannot create: %s", strerror(errno));
		status = DPS_ERR_IO;
		goto end;
	}
	status =
	    t == DPS_ACTSET_NO_THREAD ? write_manifest(set, f) : dps_actset_write_thread(set, t, f);
	if (fclose(f) != 0 && !status) {
		status = DPS_ERR_IO;
	}
	f = NULL;
	if (status) {
		dps_diag_set(diag, tmp, 0, 0, "write error: %s", strerror(errno));
		unlink(tmp);
		goto end;
	}
	if (rename(tmp, path)) {
		dps_diag_set(diag, path, 0, 0, "cannot rename into place: %s", strerror(errno));
		unlink(tmp);
		status = DPS_ERR_IO;
		goto end;
	}
	status = DPS_OK;
end:
	free(path);
	free(tmp);
	return status;
}

int dps_actset_write_dir(const struct dps_actset *set, const char *dir, struct dps_diag *diag)
{
	char name[40];
	int status;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		dps_diag_set(diag, dir, 0, 0, "cannot create directory: %s", strerror(errno));
		return DPS_ERR_IO;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		snprintf(name, sizeof(name), "%" PRIu64 ".act", set->threads[t].id);
		status = write_atomically(dir, name, set, t, diag);
		if (status) {
			return status;
		}
	}
	return write_atomically(dir, DPS_ACTSET_MANIFEST_NAME, set, DPS_ACTSET_NO_THREAD, diag);
}
