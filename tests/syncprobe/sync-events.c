/* SPDX-License-Identifier: MIT */
/* sync-events.h: dps record --sync, then babeltrace2's text output parsed line by line. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "dps-test.h"
#include "sync-events.h"

/* One line of babeltrace2's text output, if it is a dps_sync event of a process named procname
 * (the kernel's 15 characters of it):
 * [TIME] (+DELTA) HOST dps_sync:NAME: { cpu_id = C }, { vtid = T, vpid = P, procname = "N" },
 * { FIELD = VALUE, ... }
 * The session records every process of the user that fires the events: a program of another
 * test running meanwhile is not this one. */
static bool parse_line(const char *line, const char *procname, struct sync_event *e)
{
	const char *name = strstr(line, " dps_sync:"), *end, *vtid, *vpid, *payload;
	char *comm = g_strdup_printf("procname = \"%.15s\"", procname);
	bool mine = strstr(line, comm) != NULL;

	g_free(comm);
	if (!name || !mine) {
		return false;
	}
	name += strlen(" dps_sync:");
	end = strchr(name, ':');
	vtid = strstr(line, "vtid = ");
	vpid = strstr(line, "vpid = ");
	payload = strrchr(line, '{');
	cr_assert(end && vtid && vpid && payload, "cannot read: %s", line);
	e->name = g_strndup(name, (gsize)(end - name));
	e->vtid = strtoll(vtid + 7, NULL, 10);
	e->vpid = strtoll(vpid + 7, NULL, 10);
	e->payload = g_strdup(payload);
	return true;
}

struct sync_trace sync_trace_record(const char *prog, const char *args)
{
	struct sync_trace t = {0};
	char *dir = dps_test_mkdtemp("syncprobe");
	char *info_path = dps_test_strf("%s/trace/record.info", dir);
	char *info, *pid;
	struct dps_test_run r;
	GArray *events = g_array_new(FALSE, TRUE, sizeof(struct sync_event));
	char **lines;

	r = dps_test_run_sh("'%s' record -q --sync --no-kernel -o '%s/trace' -- "
			    "'%s/tests/syncprobe/%s' %s",
			    dps_test_bin(), dir, dps_test_build_dir(), prog, args);
	cr_assert_eq(r.status, 0, "dps record %s failed: %s", prog, r.err);
	t.out = g_strdup(r.out);
	dps_test_run_fini(&r);

	/* the program's own checks passed */
	info = dps_test_read_file(info_path, NULL);
	cr_assert_not_null(info, "no %s", info_path);
	cr_assert_not_null(strstr(info, "\nexit_status 0\n"), "%s failed under the probe: %s", prog,
			   info);
	pid = strstr(info, "\npid ");
	cr_assert_not_null(pid);
	t.pid = strtoll(pid + 5, NULL, 10);
	g_free(info);

	r = dps_test_run_sh("babeltrace2 '%s/trace'", dir);
	cr_assert_eq(r.status, 0, "babeltrace2 failed: %s", r.err);
	lines = g_strsplit(r.out, "\n", -1);
	for (char **l = lines; *l; l++) {
		struct sync_event e;

		if (parse_line(*l, prog, &e)) {
			g_array_append_val(events, e);
		}
	}
	g_strfreev(lines);
	dps_test_run_fini(&r);
	t.n = events->len;
	t.events = (struct sync_event *)(void *)g_array_free(events, FALSE);
	dps_test_rmtree(dir);
	g_free(dir);
	g_free(info_path);
	return t;
}

void sync_trace_fini(struct sync_trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		g_free(t->events[i].name);
		g_free(t->events[i].payload);
	}
	g_free(t->events);
	g_free(t->out);
	*t = (struct sync_trace){0};
}

const char *sync_field(const struct sync_event *e, const char *field)
{
	char *key = g_strdup_printf(" %s = ", field);
	const char *p = e->payload;

	/* a field name preceded by "{" or "," (not the end of a longer name) */
	while ((p = strstr(p, key)) && p[-1] != '{' && p[-1] != ',') {
		p++;
	}
	p = p ? p + strlen(key) : NULL;
	g_free(key);
	return p;
}

int64_t sync_field_i64(const struct sync_event *e, const char *field)
{
	const char *v = sync_field(e, field);

	cr_assert_not_null(v, "%s has no %s: %s", e->name, field, e->payload);
	/* hex fields are u64: their bits, not strtoll's clamp */
	return !strncmp(v, "0x", 2) ? (int64_t)strtoull(v, NULL, 0) : strtoll(v, NULL, 0);
}

uint64_t sync_field_u64(const struct sync_event *e, const char *field)
{
	const char *v = sync_field(e, field);

	cr_assert_not_null(v, "%s has no %s: %s", e->name, field, e->payload);
	return strtoull(v, NULL, 0);
}

int sync_is(const struct sync_event *e, const char *name)
{
	return !strcmp(e->name, name);
}

size_t sync_count(const struct sync_trace *t, const char *name, const char *field, int64_t value)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		n += sync_is(&t->events[i], name) &&
		     (!field || sync_field_i64(&t->events[i], field) == value);
	}
	return n;
}

size_t sync_out_values(const struct sync_trace *t, const char *key, uint64_t *values, size_t max)
{
	char **lines = g_strsplit(t->out ? t->out : "", "\n", -1);
	size_t n = 0, len = strlen(key);

	for (char **l = lines; *l; l++) {
		if (!strncmp(*l, key, len) && (*l)[len] == ' ') {
			if (n < max) {
				values[n] = strtoull(*l + len + 1, NULL, 0);
			}
			n++;
		}
	}
	g_strfreev(lines);
	return n;
}

uint64_t sync_out_value(const struct sync_trace *t, const char *key)
{
	uint64_t v = 0;

	cr_assert_geq(sync_out_values(t, key, &v, 1), 1,
		      "no \"%s\" line in the program's output: %s", key, t->out);
	return v;
}
