/* SPDX-License-Identifier: MIT */
/*
 * Helpers every test executable shares (linked by dps_add_test in tests/CMakeLists.txt): where
 * ctest says things are, temporary directories, whole files, and running a command with its
 * output captured. Functions that cannot do their job fail the calling test (cr_assert), so a
 * test never goes on with a half-made fixture. Strings they return are the caller's, freed
 * with g_free().
 */
#ifndef DPS_TESTS_DPS_TEST_H
#define DPS_TESTS_DPS_TEST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What a test needs of the machine it runs on (root, perf, a mount): when cond is false, the
 * test is skipped here, and fails where the environment variable CI is set (.ci/run sets it),
 * since ctest reports a skipped Criterion test as passed and CI's machine has everything. The
 * reason is printf's fmt; the test's own clean-up goes before. The one way a test skips
 * (doc/testing.md, "Skips"); tree-rules refuses cr_skip_test elsewhere.
 */
#define dps_test_require(cond, ...)                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			dps_test_require_failed(__FILE__, __LINE__, #cond, __VA_ARGS__);           \
		}                                                                                  \
	} while (0)
/*
 * A test that cannot run in this build (a sanitized one): skipped, CI included, because CI
 * runs it in its other build (.ci/run: dev, then asan, with DPS_CI_PLAIN_PASSED set once the
 * dev pass passed; a sanitized build under CI without it fails); in a build without ASan it
 * fails where CI is set, so a skip left outside its #if cannot hide a test. The reason is
 * printf's fmt.
 */
#define dps_test_skip_build(...) dps_test_require_failed(__FILE__, __LINE__, NULL, __VA_ARGS__)
/* dps_test_require's and dps_test_skip_build's end: skips or fails the test (cond NULL: a
 * build's skip). */
void dps_test_require_failed(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

/* Set by ctest (tests/CMakeLists.txt, DPS_TEST_ENV); borrowed, never NULL. */
const char *dps_test_bin(void);	       /* DPS_BIN: the dps command under test */
const char *dps_test_source_dir(void); /* DPS_SOURCE_DIR */
const char *dps_test_build_dir(void);  /* DPS_BUILD_DIR */
const char *dps_test_data_dir(void);   /* DPS_TEST_DATA: tests/data */

/* Python in a shell command (dps_test_run_sh, dps_test_sh): ctest's DPS_PYTHON, the interpreter
 * itself rather than a version manager's shim that runs bash first (tests/CMakeLists.txt). */
#define DPS_TEST_PYTHON "\"${DPS_PYTHON:-python3}\""

/* DPS_TEST_DATA/rel, a new string (g_free). */
char *dps_test_data_path(const char *rel);

/* printf into a new string (g_free). */
char *dps_test_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A new directory $TMPDIR/dps-test-WHAT-XXXXXX (/tmp without TMPDIR; ctest sets it,
 * tests/CMakeLists.txt) (g_free the path); dps_test_rmtree removes a tree or a file and accepts
 * NULL. */
char *dps_test_mkdtemp(const char *what);
void dps_test_rmtree(const char *path);
/* A new empty file $TMPDIR/dps-test-WHAT-XXXXXX (g_free the path; dps_test_rmtree removes it). */
char *dps_test_mkstemp(const char *what);

/*
 * A tmpfs of size_kib KiB mounted on a new temporary directory (g_free the path after
 * dps_test_unmount), for full-disk tests and for many quick file removals. Where mount is not
 * permitted (EPERM: not root, a container without CAP_SYS_ADMIN): with required, the test is
 * skipped; without, a plain temporary directory is returned. Other errors fail the test.
 */
char *dps_test_mount_tmpfs(unsigned size_kib, bool required);
/* Unmounts (when mounted) and removes what dps_test_mount_tmpfs made; accepts NULL. */
void dps_test_unmount(const char *dir);
/* Fills the file system holding dir (a file "filler" in dir) until it is full. */
void dps_test_fill_fs(const char *dir);
/* The names in dir that begin with a dot (a temporary left behind), space-separated (g_free);
 * "" when there are none. */
char *dps_test_dot_files(const char *dir);

/* The whole file, NUL-terminated (g_free), *len its size when len is not NULL; NULL when it
 * cannot be read. */
char *dps_test_read_file(const char *path, size_t *len);
/* Writes text to path, replacing it; fails the test on error. */
void dps_test_write_file(const char *path, const char *text);

/* A finished command. */
struct dps_test_run {
	int status; /* exit code; -1 when a signal killed it */
	char *out;  /* owned: all of its stdout */
	char *err;  /* owned: all of its stderr */
};

/*
 * Runs argv (NULL-terminated; argv[0] looked up in PATH unless it has a '/') in cwd (NULL:
 * ours), with env entries "NAME=VALUE" (NULL-terminated, may be NULL) added to our
 * environment, and waits for it. Fails the test when it cannot start, or when its stderr holds
 * a sanitizer report (a child's reports land in its stderr, not ours). Free with
 * dps_test_run_fini.
 */
struct dps_test_run dps_test_run(const char *cwd, const char *const *argv, const char *const *env);
/* Whether a program of this name is on PATH (valgrind, for the cache captures). */
bool dps_test_has_program(const char *name);
/* dps_test_run of /bin/sh -c with the command fmt makes, here. */
struct dps_test_run dps_test_run_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* dps_test_run of the dps command with these arguments (NULL-terminated), here. */
struct dps_test_run dps_test_run_dps(const char *first, ...) __attribute__((sentinel));
void dps_test_run_fini(struct dps_test_run *run);

/*
 * Runs argv like dps_test_run, in cwd (NULL: ours), but with its output passed through to
 * ours (ctest's log), as system(3) would: for the commands whose output nobody reads, and
 * those that may leave a daemon holding their output open. Returns its exit status, -1 when a
 * signal killed it; fails the test when it cannot start.
 */
int dps_test_run_through(const char *cwd, const char *const *argv);
/* dps_test_run_through of /bin/sh -c with the command fmt makes. */
int dps_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Every local link of the HTML page (each href and src that is not "#...", http:, https:,
 * data: or mailto:) must be relative (no absolute path, no file: URL) and name something that
 * exists, taken from the page's directory: fails the test naming each one that does not.
 * Returns how many local links it checked.
 */
size_t dps_test_check_links(const char *page);

/* Others using the machine, for real: one busy-looping child per online CPU (killed with the
 * test process, should it die first). dps_test_hog_stop kills and reaps them. */
struct dps_test_hog {
	int *pids; /* owned */
	size_t n;
};
void dps_test_hog_start(struct dps_test_hog *hog);
void dps_test_hog_stop(struct dps_test_hog *hog); /* accepts a stopped one */

#endif /* DPS_TESTS_DPS_TEST_H */
