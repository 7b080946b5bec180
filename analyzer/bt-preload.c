/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2's own plugins, loaded once per process (bt-source.h: analyzer_bt_plugin_find,
 * analyzer_bt_plugins_preload): from their files in babeltrace2's system plugin directory,
 * not by loading every module there, and before a decoder is forked (contain.c).
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>
#include <glib.h>

#include "bt-source.h"

/* The plugin `name` from its file in babeltrace2's system directory, or NULL. */
static const bt_plugin *plugin_from_sys_file(const char *name)
{
	char *path = g_strdup_printf("%s/babeltrace-plugin-%s.so", DPS_BT_SYS_PLUGIN_DIR, name);
	const bt_plugin_set *set = NULL;
	const bt_plugin *p = NULL;

	if (access(path, R_OK) == 0 && bt_plugin_find_all_from_file(path, BT_TRUE, &set) ==
					   BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK) {
		for (uint64_t i = 0; i < bt_plugin_set_get_plugin_count(set) && !p; i++) {
			const bt_plugin *q = bt_plugin_set_borrow_plugin_by_index_const(set, i);

			if (strcmp(bt_plugin_get_name(q), name) == 0) {
				p = q;
				bt_plugin_get_ref(p);
			}
		}
		bt_plugin_set_put_ref(set);
	}
	bt_current_thread_clear_error();
	g_free(path);
	return p;
}

int analyzer_bt_plugin_find(const char *name, const bt_plugin **out)
{
	/* loaded once per process, kept: a decoder forked after analyzer_bt_plugins_preload
	 * finds them here and never calls the dynamic loader */
	static const char *const names[] = {"ctf", "utils", "lttng-utils"};
	static const bt_plugin *loaded[G_N_ELEMENTS(names)];
	size_t i = 0;

	*out = NULL;
	while (i < G_N_ELEMENTS(names) && strcmp(names[i], name) != 0) {
		i++;
	}
	if (i < G_N_ELEMENTS(names) && loaded[i]) {
		bt_plugin_get_ref(loaded[i]);
		*out = loaded[i];
		return 0;
	}
	*out = plugin_from_sys_file(name);
	if (!*out && bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, out) !=
			 BT_PLUGIN_FIND_STATUS_OK) {
		*out = NULL;
		return -1;
	}
	if (i < G_N_ELEMENTS(names)) {
		bt_plugin_get_ref(*out);
		loaded[i] = *out;
	}
	return 0;
}

void analyzer_bt_plugins_preload(void)
{
	const bt_plugin *p;

	if (analyzer_bt_plugin_find("ctf", &p) == 0) {
		bt_plugin_put_ref(p);
	}
	if (analyzer_bt_plugin_find("utils", &p) == 0) {
		bt_plugin_put_ref(p);
	}
	bt_current_thread_clear_error();
}
