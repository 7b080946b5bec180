/* SPDX-License-Identifier: MIT */
/* Running a program and waiting for it (subprocess.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dps/dps-status.h>
#include <glib.h>

#include "diag.h"
#include "guard.h"
#include "subprocess.h"

/* In the child: it dies with dps (the compiler, lttng, perf data convert). */
static void child_setup(gpointer parent)
{
	dps_guard_child_setup((pid_t)GPOINTER_TO_INT(parent), SIGTERM);
}

int dps_subprocess_run(char *const *argv, const struct dps_subprocess_options *opts, char **out)
{
	struct dps_subprocess_options none = {0};
	GSpawnFlags flags = G_SPAWN_SEARCH_PATH;
	gchar *so = NULL, *se = NULL;
	GError *error = NULL;
	int status = 0;
	gboolean ok;

	if (!opts) {
		opts = &none;
	}
	if (out) {
		*out = NULL;
	}
	if (!out || !opts->capture_stderr) {
		if (opts->quiet_stderr) {
			flags |= G_SPAWN_STDERR_TO_DEV_NULL;
		}
	}
	ok = g_spawn_sync(NULL, (gchar **)argv, (gchar **)opts->envp, flags, child_setup,
			  GINT_TO_POINTER((int)getpid()), out ? &so : NULL,
			  out && opts->capture_stderr ? &se : NULL, &status, &error);
	if (!ok) {
		int ret = error && error->domain == G_SPAWN_ERROR &&
				  (error->code == G_SPAWN_ERROR_NOENT ||
				   error->code == G_SPAWN_ERROR_NOEXEC)
			      ? DPS_ERR_NOENT
			      : DPS_ERROR;

		g_clear_error(&error);
		return ret;
	}
	if (out) {
		size_t a = so ? strlen(so) : 0, b = se ? strlen(se) : 0;

		*out = malloc(a + b + 1);
		if (*out) {
			memcpy(*out, so ? so : "", a);
			memcpy(*out + a, se ? se : "", b);
			(*out)[a + b] = '\0';
		}
		g_free(so);
		g_free(se);
	}
	if (WIFEXITED(status)) {
		return WEXITSTATUS(status);
	}
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : DPS_ERROR;
}

const char *dps_subprocess_last_line(char *buf)
{
	char *end;

	if (!buf) {
		return "(no message)";
	}
	end = buf + strlen(buf);
	while (end > buf && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\r')) {
		*--end = '\0';
	}
	while (end > buf && end[-1] != '\n') {
		end--;
	}
	return *end ? end : "(no message)";
}

bool dps_subprocess_in_path(const char *name)
{
	gchar *path = g_find_program_in_path(name);
	bool found = path != NULL;

	g_free(path);
	return found;
}

bool dps_subprocess_runnable(const char *name, struct dps_diag *diag)
{
	struct stat st;

	if (!strchr(name, '/')) {
		if (dps_subprocess_in_path(name)) {
			return true;
		}
		dps_diag_setf(diag, "%s: command not found in PATH", name);
		return false;
	}
	if (stat(name, &st)) {
		dps_diag_setf(diag, "%s: %s", name, strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode) || access(name, X_OK)) {
		dps_diag_setf(diag, "%s: not an executable file", name);
		return false;
	}
	return true;
}

void dps_subprocess_exec_mark_format(char *buf, size_t len, uint64_t mono_ns, uint64_t cpu_ns)
{
	snprintf(buf, len, "%" PRIu64 ":%" PRIu64, mono_ns, cpu_ns);
}

void dps_subprocess_mark_exec(void)
{
	struct timespec mono, cpu;
	char value[64];

	if (clock_gettime(CLOCK_MONOTONIC, &mono) ||
	    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)) {
		return;
	}
	dps_subprocess_exec_mark_format(
	    value, sizeof(value), (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec,
	    (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec);
	setenv("DPS_EXEC_AT", value, 1);
}
