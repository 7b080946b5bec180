/* SPDX-License-Identifier: MIT */
/*
 * dps whatif -- CMD (doc/whatif.md, "In the real program"): the study run on the real program,
 * whose component is one or more local CPU stub regions (dps/stub.h). CMD runs once in
 * original mode with SSF recording, which saves each region's CPU time (the entries
 * NAME__cpu_ns) and whatever results the program saves; t_busy^CUS is the named regions' CPU
 * time summed over that file. Each point then runs CMD with the regions stubbed (the
 * environment of dps/stub.h: DPS_STUB_MODE, DPS_STUB_BUSY as a percentage of the recorded
 * time, DPS_STUB_REGIONS) and their results restored (DPS_SSF_MODE=restore), timed from
 * outside like the replay's stub.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "guard.h"

#include "ssf-codec.h"
#include "subprocess.h"
#include "whatif-internal.h"

enum dps_status whatif_insitu_check(const struct whatif_options *o, struct dps_diag *diag)
{

	if (!o->command[0] || !*o->command[0]) {
		dps_diag_setf(diag, "no command after --");
		return DPS_ERR_INVAL;
	}
	/* before the calibration: it would be refused at its first run */
	if (!dps_subprocess_runnable(o->command[0], diag)) {
		return DPS_ERR_INVAL;
	}
	if (!o->n_regions) {
		dps_diag_setf(diag, "no component: name the command's local stub regions with "
				    "--region NAME (dps/stub.h)");
		return DPS_ERR_INVAL;
	}
	for (size_t i = 0; i < o->n_regions; i++) {
		const char *r = o->regions[i];
		bool ok = r && (g_ascii_isalpha(*r) || *r == '_');

		for (const char *c = r; ok && *c; c++) {
			ok = g_ascii_isalnum(*c) || *c == '_';
		}
		if (!ok) {
			dps_diag_setf(diag, "--region '%s': a region's name is a C identifier",
				      r ? r : "");
			return DPS_ERR_INVAL;
		}
	}
	if (o->input || o->n_thread_ids || o->n_comms || o->timelines || o->window_from ||
	    o->window_to) {
		dps_diag_setf(
		    diag, "with a command, the component is its --region; a trace or set, "
			  "--thread, --thread-comm, --timelines and --window-* are the replay's");
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

char *whatif_insitu_regions(const struct whatif_options *o)
{
	GPtrArray *uniq = g_ptr_array_new();
	char *joined;

	for (size_t i = 0; i < o->n_regions; i++) {
		bool dup = false;

		for (size_t k = 0; k < uniq->len && !dup; k++) {
			dup = !strcmp(uniq->pdata[k], o->regions[i]);
		}
		if (!dup) {
			g_ptr_array_add(uniq, (gpointer)o->regions[i]);
		}
	}
	g_ptr_array_add(uniq, NULL);
	joined = g_strjoinv(",", (gchar **)uniq->pdata);
	g_ptr_array_free(uniq, TRUE);
	return joined;
}

char **whatif_insitu_env(char **env, const struct whatif_runner *run, const struct whatif_point *p)
{
	char pct[G_ASCII_DTOSTR_BUF_SIZE + 1];
	const char *mode = "original";

	switch (p->kind) {
	case WHATIF_POINT_BUSY:
		mode = "busy";
		break;
	case WHATIF_POINT_FLAT:
		mode = "flat";
		break;
	case WHATIF_POINT_IDLE:
		mode = "idle";
		break;
	case WHATIF_POINT_ORIGINAL:
		break;
	}
	g_ascii_formatd(pct, sizeof(pct) - 1, "%.6g", p->scale * 100);
	strcat(pct, "%");
	env = g_environ_setenv(env, "DPS_STUB_MODE", mode, TRUE);
	env = g_environ_setenv(env, "DPS_STUB_BUSY", pct, TRUE);
	env = g_environ_setenv(env, "DPS_STUB_REGIONS", run->regions, TRUE);
	/* the original runs the regions' own code: nothing to restore, nothing recorded */
	env = g_environ_setenv(env, "DPS_SSF_MODE",
			       p->kind == WHATIF_POINT_ORIGINAL ? "off" : "restore", TRUE);
	env = g_environ_setenv(env, "DPS_SSF_FILE", run->ssf_path, TRUE);
	env = g_environ_setenv(env, "DPS_CALIBRATION", run->calibration, TRUE);
	/* a region that could not spend its time fails the run instead of timing as fast */
	env = g_environ_setenv(env, "DPS_STUB_STRICT", "1", TRUE);
	return env;
}

/* Runs the command once in original mode with SSF recording into ssf_path. */
static enum dps_status record_run(const struct whatif_insitu *in, struct dps_diag *diag)
{
	char *err_path = g_build_filename(in->work, "record.err", NULL);
	char *out_path = g_build_filename(in->work, "record.out", NULL);
	char **env = g_get_environ();
	posix_spawn_file_actions_t fa;
	enum dps_status st = DPS_OK;
	pid_t pid;
	int rc, ws = 0;

	env = g_environ_setenv(env, "DPS_STUB_MODE", "original", TRUE);
	env = g_environ_setenv(env, "DPS_STUB_REGIONS", in->regions, TRUE);
	env = g_environ_setenv(env, "DPS_SSF_MODE", "record", TRUE);
	env = g_environ_setenv(env, "DPS_SSF_FILE", in->ssf_path, TRUE);
	env = g_environ_unsetenv(env, "DPS_STUB_BUSY");
	env = g_environ_setenv(env, "DPS_STUB_STRICT", "1", TRUE);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	rc = posix_spawnp(&pid, in->command[0], &fa, NULL, (char *const *)in->command, env);
	if (rc) {
		dps_diag_setf(diag, "cannot start %s: errno=%d (%s)", in->command[0], rc,
			      strerror(rc));
		st = rc == ENOENT || rc == EACCES ? DPS_ERR_INVAL : DPS_ERROR;
		goto end;
	}
	dps_guard_child(pid, SIGKILL, false);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
	}
	dps_guard_release_child(pid);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
		char *msg = whatif_last_line(err_path);

		dps_diag_setf(diag, "the recording run of %s failed (%s %d): %s", in->command[0],
			      WIFEXITED(ws) ? "exit status" : "signal",
			      WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws), msg);
		g_free(msg);
		st = DPS_ERROR;
	}
end:
	posix_spawn_file_actions_destroy(&fa);
	g_strfreev(env);
	g_free(out_path);
	g_free(err_path);
	return st;
}

/* Whether name is "<region>__cpu_ns" for one of the regions (",a,b,"). */
static bool is_region_time(const char *regions, const char *name)
{
	const char *suffix = "__cpu_ns";
	size_t n = strlen(name), k = strlen(suffix);
	char *key;
	bool yes;

	if (n <= k || strcmp(name + n - k, suffix)) {
		return false;
	}
	key = g_strdup_printf(",%.*s,", (int)(n - k), name);
	yes = strstr(regions, key) != NULL;
	g_free(key);
	return yes;
}

enum dps_status whatif_insitu_record(const struct whatif_insitu *in, uint64_t *busy_ns,
				     uint64_t *n_regions_run, struct dps_diag *diag)
{
	struct ssf_file f = {0};
	char *list = g_strdup_printf(",%s,", in->regions);
	GString *seen = g_string_new(","); /* ",a,b,": the regions the recording has */
	char err[256] = "";
	enum dps_status st = record_run(in, diag);

	*busy_ns = 0;
	*n_regions_run = 0;
	if (st) {
		goto end;
	}
	if (ssf_file_load(in->ssf_path, &f, err, sizeof(err))) {
		dps_diag_setf(diag,
			      "%s wrote no SSF recording (%s): does it use dps/stub.h regions and "
			      "link libdps?",
			      in->command[0], err);
		st = DPS_ERR_INVAL;
		goto end;
	}
	for (size_t i = 0; i < f.n_entries; i++) {
		const struct ssf_entry *e = &f.entries[i];
		uint64_t v = 0;
		void *dst = &v;
		char *name;

		if (!g_str_has_suffix(e->name, "__cpu_ns")) {
			continue;
		}
		name =
		    g_strdup_printf(",%.*s,", (int)(strlen(e->name) - strlen("__cpu_ns")), e->name);
		if (!strstr(seen->str, name)) {
			g_string_append(seen, name + 1);
		}
		g_free(name);
		if (!is_region_time(list, e->name)) {
			continue;
		}
		/* the entry is libdps's one-type schema (runtime/stub.c): a uint64_t */
		if (e->schema >= f.n_schemas ||
		    ssf_decode(&f.schemas[e->schema], e->type, e->data, e->size, e->data_offset,
			       e->name, NULL, NULL, &dst, err, sizeof(err))) {
			dps_diag_setf(diag, "%s: %s: %s", in->ssf_path, e->name, err);
			st = DPS_ERR_INVAL;
			goto end;
		}
		*busy_ns += v;
		(*n_regions_run)++;
	}
	if (!*n_regions_run) {
		g_strdelimit(seen->str, ",", ' ');
		g_strstrip(seen->str);
		dps_diag_setf(diag, "%s ran no region named %s (its regions: %s)", in->command[0],
			      in->regions, *seen->str ? seen->str : "none");
		st = DPS_ERR_INVAL;
	}
end:
	ssf_file_fini(&f);
	g_string_free(seen, TRUE);
	g_free(list);
	return st;
}
