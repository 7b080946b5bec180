/* SPDX-License-Identifier: MIT */
/* The annotation file of dps ssf gen (annot.h, doc/ssf.md). */
#include <errno.h>
#include <string.h>

#include "annot.h"
#include "ssf-tool.h"

static void free_annot(gpointer p)
{
	struct ssf_annot *a = p;

	g_free(a->type);
	g_free(a->member);
	g_free(a->arg);
	g_free(a->value);
	g_free(a);
}

/* "struct" "conn.items" or "conn_t.items" at tok[*i]: the type and member; advances *i. */
static bool parse_target(char **tok, guint n, guint *i, struct ssf_annot *a)
{
	const char *word = NULL, *dotted, *dot;

	if (*i < n && (!strcmp(tok[*i], "struct") || !strcmp(tok[*i], "union"))) {
		word = tok[(*i)++];
	}
	if (*i >= n) {
		return false;
	}
	dotted = tok[(*i)++];
	dot = strchr(dotted, '.');
	if (!dot) {
		return false;
	}
	a->type = g_strndup(dotted, (gsize)(dot - dotted));
	a->member = g_strdup(dot + 1);
	if (!ssf_tool_is_ident(a->type) || !ssf_tool_is_ident(a->member)) {
		return false;
	}
	if (word) {
		char *t = g_strdup_printf("%s %s", word, a->type);

		g_free(a->type);
		a->type = t;
	}
	return true;
}

static bool is_value(const char *s)
{
	char *end;

	if (ssf_tool_is_ident(s)) {
		return true;
	}
	errno = 0;
	(void)g_ascii_strtoll(s, &end, 0);
	return *s && !*end && !errno;
}

static int parse_line(char *text, unsigned line, struct ssf_annot *a, const char **expected)
{
	char *hash = strchr(text, '#');
	g_auto(GStrv) tok = NULL;
	guint n, i = 1;

	if (hash) {
		*hash = 0;
	}
	tok = g_strsplit_set(g_strstrip(text), " \t", -1);
	/* drop empty tokens from repeated blanks */
	n = 0;
	for (guint k = 0; tok[k]; k++) {
		if (*tok[k]) {
			char *t = tok[k];

			tok[k] = tok[n];
			tok[n++] = t;
		}
	}
	if (!n) {
		return 1; /* blank */
	}
	a->line = line;
	*expected = "length, one, tag, case or opaque";
	if (!strcmp(tok[0], "length")) {
		a->kind = SSF_ANNOT_LENGTH;
	} else if (!strcmp(tok[0], "one")) {
		a->kind = SSF_ANNOT_ONE;
	} else if (!strcmp(tok[0], "tag")) {
		a->kind = SSF_ANNOT_TAG;
	} else if (!strcmp(tok[0], "case")) {
		a->kind = SSF_ANNOT_CASE;
	} else if (!strcmp(tok[0], "opaque")) {
		a->kind = SSF_ANNOT_OPAQUE;
	} else {
		return -1;
	}
	*expected = "TYPE.MEMBER (\"struct NAME.MEMBER\" or \"TYPEDEF.MEMBER\")";
	if (!parse_target(tok, n, &i, a)) {
		return -1;
	}
	switch (a->kind) {
	case SSF_ANNOT_LENGTH:
	case SSF_ANNOT_TAG:
		*expected = "\"= MEMBER\" (a C identifier) and nothing after";
		if (i + 2 != n || strcmp(tok[i], "=") || !ssf_tool_is_ident(tok[i + 1])) {
			return -1;
		}
		a->arg = g_strdup(tok[i + 1]);
		break;
	case SSF_ANNOT_CASE:
		*expected = "\"VALUE = MEMBER\" (a number or an enumerator, a C identifier)";
		if (i + 3 != n || !is_value(tok[i]) || strcmp(tok[i + 1], "=") ||
		    !ssf_tool_is_ident(tok[i + 2])) {
			return -1;
		}
		a->value = g_strdup(tok[i]);
		a->arg = g_strdup(tok[i + 2]);
		break;
	case SSF_ANNOT_OPAQUE:
		*expected = "null or skip, and nothing after";
		if (i + 1 != n || (strcmp(tok[i], "null") && strcmp(tok[i], "skip"))) {
			return -1;
		}
		a->arg = g_strdup(tok[i]);
		break;
	case SSF_ANNOT_ONE:
		*expected = "nothing after TYPE.MEMBER";
		if (i != n) {
			return -1;
		}
		break;
	}
	return 0;
}

int ssf_annot_load(const char *path, GPtrArray **out, struct dps_diag *diag)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;
	GError *gerr = NULL;
	GPtrArray *all;

	*out = NULL;
	if (!g_file_get_contents(path, &text, NULL, &gerr)) {
		int ret = g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT) ? DPS_ERR_NOENT
										  : DPS_ERR_IO;

		dps_diag_setf(diag, "%s: %s", path, gerr->message);
		g_error_free(gerr);
		return ret;
	}
	all = g_ptr_array_new_with_free_func(free_annot);
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		struct ssf_annot *a = g_new0(struct ssf_annot, 1);
		const char *expected = "";
		int r = parse_line(lines[i], i + 1, a, &expected);

		if (r) {
			free_annot(a);
		}
		if (r < 0) {
			dps_diag_set(diag, path, i + 1, 0, "expected %s (doc/ssf.md, Annotations)",
				     expected);
			g_ptr_array_free(all, TRUE);
			return DPS_ERR_INVAL;
		}
		if (!r) {
			g_ptr_array_add(all, a);
		}
	}
	*out = all;
	return DPS_OK;
}

struct ssf_annot *ssf_annot_find(GPtrArray *annots, enum ssf_annot_kind kind, const char *type,
				 const char *member)
{
	for (guint i = 0; annots && i < annots->len; i++) {
		struct ssf_annot *a = g_ptr_array_index(annots, i);

		if (a->kind == kind && !strcmp(a->type, type) && !strcmp(a->member, member)) {
			a->used = true;
			return a;
		}
	}
	return NULL;
}
