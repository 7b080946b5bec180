/* SPDX-License-Identifier: MIT */
/*
 * Where the probe libraries `dps record` preloads are (record-internal.h): LTTng-UST's wrappers
 * by soname (the loader finds them where liblttng-ust1 put them), dps's own synchronization
 * probe (libdps-syncprobe, syncprobe/) by path: DPS_SYNCPROBE when set, else the installation
 * this dps belongs to (PREFIX/bin/dps -> PREFIX/LIBDIR), else the build tree that built it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record-config.h"
#include "record-internal.h"

/* PREFIX/LIBDIR/name for the installation whose BINDIR holds this executable. */
static char *installed_path(const char *name)
{
	char self[PATH_MAX], *prefix, *slash, *path = NULL;
	const char *bin = DPS_RECORD_CFG_INSTALL_BINDIR;

	if (!realpath("/proc/self/exe", self) || !(slash = strrchr(self, '/'))) {
		return NULL;
	}
	*slash = '\0';
	prefix = self;
	/* BINDIR is relative to the prefix: as many ".." as it has components */
	for (const char *c = bin; *c; c++) {
		if (*c != '/' && (c == bin || c[-1] == '/')) {
			slash = strrchr(prefix, '/');
			if (!slash) {
				return NULL;
			}
			*slash = '\0';
		}
	}
	if (DPS_RECORD_CFG_INSTALL_LIBDIR[0] == '/') {
		prefix[0] = '\0'; /* an absolute LIBDIR */
	}
	if (asprintf(&path, "%s%s%s/%s", prefix, DPS_RECORD_CFG_INSTALL_LIBDIR[0] == '/' ? "" : "/",
		     DPS_RECORD_CFG_INSTALL_LIBDIR, name) < 0) {
		return NULL;
	}
	return path;
}

enum dps_status dps_record__syncprobe(char **path, struct dps_diag *diag)
{
	const char *env = getenv("DPS_SYNCPROBE");
	char *p;

	*path = NULL;
	if (env && env[0]) {
		if (access(env, R_OK)) {
			dps_diag_setf(diag, "DPS_SYNCPROBE=%s: not a readable file", env);
			return DPS_ERROR;
		}
		*path = strdup(env);
		return *path ? DPS_OK : DPS_ERR_NOMEM;
	}
	p = installed_path(DPS_RECORD_CFG_SYNCPROBE_NAME);
	if (p && !access(p, R_OK)) {
		*path = p;
		return DPS_OK;
	}
	free(p);
	if (DPS_RECORD_CFG_SYNCPROBE[0] && !access(DPS_RECORD_CFG_SYNCPROBE, R_OK)) {
		*path = strdup(DPS_RECORD_CFG_SYNCPROBE);
		return *path ? DPS_OK : DPS_ERR_NOMEM;
	}
	dps_diag_setf(diag,
		      "--sync: the synchronization probe %s is neither installed beside dps "
		      "nor in the build tree (%s); set DPS_SYNCPROBE to its path",
		      DPS_RECORD_CFG_SYNCPROBE_NAME, DPS_RECORD_CFG_SYNCPROBE);
	return DPS_ERROR;
}
