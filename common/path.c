/* SPDX-License-Identifier: MIT */
/* Paths as the outputs name them (path.h). */
#include <string.h>

#include <glib.h>

#include "path.h"

char *dps_path_relative(const char *from_dir, const char *to)
{
	char *from_abs, *to_abs;
	gchar **f, **t;
	GString *rel;
	size_t i = 0;

	from_abs = g_canonicalize_filename(from_dir, NULL);
	to_abs = g_canonicalize_filename(to, NULL);
	f = g_strsplit(from_abs, G_DIR_SEPARATOR_S, -1);
	t = g_strsplit(to_abs, G_DIR_SEPARATOR_S, -1);
	/* the components in common ("" first: both start at the root) */
	while (f[i] && t[i] && !strcmp(f[i], t[i])) {
		i++;
	}
	rel = g_string_new(NULL);
	for (size_t k = i; f[k]; k++) {
		if (f[k][0]) {
			g_string_append(rel, rel->len ? "/.." : "..");
		}
	}
	for (size_t k = i; t[k]; k++) {
		if (t[k][0]) {
			g_string_append_printf(rel, "%s%s", rel->len ? "/" : "", t[k]);
		}
	}
	if (!rel->len) {
		g_string_append(rel, ".");
	}
	g_strfreev(f);
	g_strfreev(t);
	g_free(from_abs);
	g_free(to_abs);
	return g_string_free(rel, FALSE);
}

char *dps_path_moved(const char *path, const char *from, const char *to)
{
	size_t n = from ? strlen(from) : 0;

	while (n > 1 && from[n - 1] == '/') {
		n--;
	}
	if (!from || !to || !n || strncmp(path, from, n) || (path[n] && path[n] != '/')) {
		return g_strdup(path);
	}
	return g_strconcat(to, path + n, NULL);
}
