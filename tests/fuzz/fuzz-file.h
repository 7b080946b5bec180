/* SPDX-License-Identifier: MIT */
/*
 * For the harnesses whose parser reads a path (the manifest in a set directory, the
 * calibration file, record.info): one private temporary directory per fuzzer process, under
 * $TMPDIR, where each input is written before the parser reads it. The directory is removed
 * at exit; run.sh points TMPDIR to a directory of its own (on tmpfs) and removes it after.
 */
#ifndef DPS_FUZZ_FILE_H
#define DPS_FUZZ_FILE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir_path[PATH_MAX];

/* Removes dir and what it holds. */
static void fuzz_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	if (!d) {
		return;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (unlink(path) && errno == EISDIR) {
				fuzz_remove_dir(path);
			}
		}
	}
	closedir(d);
	rmdir(dir);
}

static void fuzz_remove_tmp(void)
{
	fuzz_remove_dir(fuzz_dir_path);
}

/* The process's temporary directory, made on first use; aborts if it cannot be made (the
 * harness could test nothing). */
static const char *fuzz_tmp_dir(void)
{
	if (!fuzz_dir_path[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/dps-fuzz-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir_path)) {
			perror("dps fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_remove_tmp);
	}
	return fuzz_dir_path;
}

/* Writes data as the file name in dir (replacing it); returns its path in a static buffer. */
static const char *fuzz_write_file(const char *dir, const char *name, const uint8_t *data,
				   size_t size)
{
	static char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror("dps fuzz: open");
		abort();
	}
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			perror("dps fuzz: write");
			abort();
		}
		off += (size_t)n;
	}
	close(fd);
	return path;
}

#endif /* DPS_FUZZ_FILE_H */
