/* SPDX-License-Identifier: MIT */
/*
 * Paths as the outputs name them. A report names files by where they are once the command
 * has ended (not the temporary directory it wrote them in) and relative to the report, so
 * that its links and names hold wherever it is read from.
 *
 * Both functions work on the text of the paths (made absolute against the current directory
 * and cleaned of "." and ".." by g_canonicalize_filename), so they name paths that do not
 * exist yet; a ".." after a symbolic link is taken lexically, as a shell's cd does.
 */
#ifndef DPS_COMMON_PATH_H
#define DPS_COMMON_PATH_H

/* to relative to the directory from_dir: "sim-trace", "../../set", "." for from_dir itself
 * (g_free). */
char *dps_path_relative(const char *from_dir, const char *to);

/*
 * path with its leading directory from replaced by to, when path is from or below it (a
 * whole component: "a/b" is not below "a/bc"); else path itself (g_free). from and to NULL:
 * path itself.
 */
char *dps_path_moved(const char *path, const char *from, const char *to);

#endif /* DPS_COMMON_PATH_H */
