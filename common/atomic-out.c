/* SPDX-License-Identifier: MIT */
/*
 * Atomic outputs (atomic-out.h): temporaries beside the target, renamed into place, removed on
 * error and on a terminating signal.
 *
 * Signals: while at least one temporary exists, SIGINT, SIGTERM and SIGHUP (those not ignored)
 * go to on_signal(), which removes every registered temporary with system calls only
 * (unlinkat, openat, getdents64: async-signal-safe, unlike opendir or nftw), puts back the
 * previous disposition and raises the signal again, so the process dies of it as it would
 * have. The registry is changed with those signals blocked, so the handler never sees it half
 * updated.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dps/dps-status.h>
#include <glib.h>

#include "atomic-out.h"
#include "guard.h"

/* Temporaries alive at once: a directory and a file or two inside a command, the views of a
 * parallel decoding (analyzer/contain.c). */
#define MAX_TEMPS 4
/* Deepest directory the signal-time removal descends into (a recorded trace is ~7 deep). */
#define MAX_DEPTH 16

static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CAUGHT (sizeof(caught_signals) / sizeof(caught_signals[0]))

static char temps[MAX_TEMPS][PATH_MAX];
static volatile sig_atomic_t temp_used[MAX_TEMPS];
static struct sigaction old_actions[N_CAUGHT];
static bool handler_installed[N_CAUGHT];
static int n_temps;
/* The process that made the temporaries: a child forked to run a program (the compiler) holds
 * the handler until its exec and must not remove them. */
static volatile pid_t owner_pid;

/* The record getdents64 fills (linux_dirent64). */
struct dirent64_rec {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Removes name under dirfd, a file or a whole tree, with async-signal-safe calls only. */
static void remove_at(int dirfd, const char *name, int depth)
{
	char buf[2048] __attribute__((aligned(8)));
	long n;
	int fd;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT) {
		return;
	}
	if ((errno != EISDIR && errno != EPERM) || depth > MAX_DEPTH) {
		return;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		return;
	}
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64_rec *d = (struct dirent64_rec *)(buf + off);

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				remove_at(fd, d->d_name, depth + 1);
			}
		}
	}
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

int dps_out_remove_tree(const char *path)
{
	struct stat st;

	remove_at(AT_FDCWD, path, 0);
	if (lstat(path, &st) == 0) {
		errno = ENOTEMPTY;
		return -1;
	}
	return errno == ENOENT ? 0 : -1;
}

uint64_t dps_out_tree_bytes(const char *path)
{
	struct stat st;
	uint64_t sum;
	GDir *dir;
	const char *name;

	if (lstat(path, &st) != 0) {
		return 0;
	}
	sum = (uint64_t)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode) || !(dir = g_dir_open(path, 0, NULL))) {
		return sum;
	}
	while ((name = g_dir_read_name(dir))) {
		char *child = g_build_filename(path, name, NULL);

		sum += dps_out_tree_bytes(child);
		g_free(child);
	}
	g_dir_close(dir);
	return sum;
}

static void on_signal(int sig)
{
	int saved_errno = errno;
	bool owner = getpid() == owner_pid;

	for (int i = 0; owner && i < MAX_TEMPS; i++) {
		if (temp_used[i]) {
			remove_at(AT_FDCWD, temps[i], 0);
			temp_used[i] = 0;
		}
	}
	for (size_t s = 0; s < N_CAUGHT; s++) {
		if (caught_signals[s] == sig) {
			sigaction(sig, &old_actions[s], NULL);
		}
	}
	/* Pending until this handler returns (sig is blocked in it); then as before. */
	raise(sig);
	errno = saved_errno;
}

static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t s = 0; s < N_CAUGHT; s++) {
		sigaddset(&set, caught_signals[s]);
	}
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Makes path removed on a terminating signal (this process's handler). A path too long for
 * the registry is only not cleaned up on a signal; the normal paths still remove it. */
static void register_local(const char *path)
{
	sigset_t old;

	if (strlen(path) >= PATH_MAX) {
		return;
	}
	block_signals(&old);
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (!temp_used[i]) {
			memcpy(temps[i], path, strlen(path) + 1);
			temp_used[i] = 1;
			n_temps++;
			break;
		}
	}
	if (n_temps == 1) {
		struct sigaction sa = {.sa_handler = on_signal};

		owner_pid = getpid();
		sigemptyset(&sa.sa_mask);
		for (size_t s = 0; s < N_CAUGHT; s++) {
			/* A signal the user ignores (nohup) stays ignored. */
			handler_installed[s] =
			    sigaction(caught_signals[s], NULL, &old_actions[s]) == 0 &&
			    old_actions[s].sa_handler != SIG_IGN &&
			    sigaction(caught_signals[s], &sa, NULL) == 0;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * Creates tmpl, whose last six characters (XXXXXX) it replaces, as a directory (dir: mode) or
 * an empty file (0600), registered as a temporary. The name goes to the guardian before it
 * exists: registered after, a SIGKILL in between left it behind (the guardian's first start
 * forks twice, tens of ms in an ASan build: the interruption test once killed a replay there).
 * A name registered and never made costs the guardian one lstat. Returns the file's descriptor
 * (0 for a directory), or -1 (errno) with nothing made or registered.
 */
static int make_temp(char *tmpl, bool dir, mode_t mode)
{
	static const char chars[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(tmpl);

	if (len < 6 || strcmp(tmpl + len - 6, "XXXXXX")) {
		errno = EINVAL;
		return -1;
	}
	for (int tries = 0; tries < 100; tries++) {
		int fd, err;

		for (size_t i = len - 6; i < len; i++) {
			tmpl[i] = chars[g_random_int_range(0, (gint32)sizeof(chars) - 1)];
		}
		dps_guard_path(tmpl);
		fd = dir ? mkdir(tmpl, mode)
			 : open(tmpl, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0) {
			register_local(tmpl);
			return fd;
		}
		err = errno;
		dps_guard_release_path(tmpl);
		if (err != EEXIST) {
			errno = err;
			return -1;
		}
	}
	errno = EEXIST;
	return -1;
}

static void unregister_temp(const char *path)
{
	sigset_t old;

	dps_guard_release_path(path);
	block_signals(&old);
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temp_used[i] && !strcmp(temps[i], path)) {
			temp_used[i] = 0;
			n_temps--;
			break;
		}
	}
	if (n_temps == 0) {
		for (size_t s = 0; s < N_CAUGHT; s++) {
			if (handler_installed[s]) {
				sigaction(caught_signals[s], &old_actions[s], NULL);
				handler_installed[s] = false;
			}
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int dps_out_make_temp(char *tmpl, bool dir, mode_t mode)
{
	return make_temp(tmpl, dir, mode);
}

char *dps_out_make_tmp_dir(const char *prefix, GError **error)
{
	sigset_t old;
	char *name = g_strdup_printf("%s%d-XXXXXX", prefix, (int)getpid());
	char *dir = g_build_filename(g_get_tmp_dir(), name, NULL);
	int made, err;

	g_free(name);
	dps_guard_sweep_dir(g_get_tmp_dir(), prefix);
	block_signals(&old);
	made = make_temp(dir, true, 0700);
	err = errno;
	dps_out_release_signals(&old);
	if (made < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
			    "cannot create a directory like %s: %s", dir, g_strerror(err));
		g_free(dir);
		return NULL;
	}
	return dir;
}

void dps_out_hold_signals(sigset_t *old)
{
	block_signals(old);
}

void dps_out_release_signals(const sigset_t *old)
{
	int saved_errno = errno;

	sigprocmask(SIG_SETMASK, old, NULL);
	errno = saved_errno;
}

void dps_out_unregister_temp(const char *path)
{
	unregister_temp(path);
}

static mode_t creation_mode(mode_t base)
{
	mode_t mask = umask(0);

	umask(mask);
	return base & ~mask;
}

/* Best effort: the rename is durable once the directory holding it is synced. */
static void sync_parent(const char *path)
{
	char *dir = g_path_get_dirname(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	g_free(dir);
}

/* "DIR/.BASE.tmp-PID-XXXXXX" beside path (g_free); the pid lets the next run remove it if
 * this one is killed (dps_guard_sweep_temps). */
static char *temp_name(const char *path)
{
	char *dir = g_path_get_dirname(path);
	char *base = g_path_get_basename(path);
	char *tmp = g_strdup_printf("%s/.%s.tmp-%d-XXXXXX", dir, base, (int)getpid());

	g_free(dir);
	g_free(base);
	return tmp;
}

/* The path to replace: path itself, or what a symbolic link at path points to (renaming over
 * the link would replace the link). Owned (g_free). */
static char *resolve_target(const char *path)
{
	struct stat st;
	char *real;
	char *copy;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL))) {
		copy = g_strdup(real);
		free(real);
		return copy;
	}
	copy = g_strdup(path);
	/* "out/" names out: the temporary goes beside it, not inside. */
	for (size_t len = strlen(copy); len > 1 && copy[len - 1] == '/'; len--) {
		copy[len - 1] = '\0';
	}
	return copy;
}

int dps_out_file_open(struct dps_out_file *of, const char *path, struct dps_diag *diag)
{
	struct stat st;
	sigset_t old_mask;
	int fd;

	*of = (struct dps_out_file){0};
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		dps_diag_setf(diag, "cannot write \"%s\": it is a directory", path);
		return DPS_ERR_INVAL;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO, /dev/stdout: written through; a rename would replace the
		 * device node. */
		of->f = fopen(path, "w");
		if (!of->f) {
			dps_diag_setf(diag, "cannot open \"%s\": errno=%d (%s)", path, errno,
				      strerror(errno));
			return DPS_ERR_IO;
		}
		of->path = g_strdup(path);
		return DPS_OK;
	}
	of->path = resolve_target(path);
	dps_guard_sweep_temps(of->path);
	of->tmp = temp_name(of->path);
	/* Created and registered with the signals held off: a SIGINT in between would leave it. */
	dps_out_hold_signals(&old_mask);
	fd = make_temp(of->tmp, false, 0);
	dps_out_release_signals(&old_mask);
	if (fd < 0) {
		dps_diag_setf(diag, "cannot create a temporary file beside \"%s\": errno=%d (%s)",
			      path, errno, strerror(errno));
		goto free_names;
	}
	(void)fchmod(fd, creation_mode(0666));
	of->f = fdopen(fd, "w");
	if (!of->f) {
		dps_diag_setf(diag, "cannot write \"%s\": errno=%d (%s)", path, errno,
			      strerror(errno));
		close(fd);
		unlink(of->tmp);
		unregister_temp(of->tmp);
		goto free_names;
	}
	return DPS_OK;

free_names:
	g_free(of->path);
	g_free(of->tmp);
	*of = (struct dps_out_file){0};
	return DPS_ERR_IO;
}

/* Flushes and closes f, fsyncing it first when sync; DPS_OK or DPS_ERR_IO (diag: path, errno). */
static int close_stream(FILE *f, const char *path, bool sync, struct dps_diag *diag)
{
	int err = 0;

	errno = 0;
	if (fflush(f) != 0 || ferror(f)) {
		err = errno ? errno : EIO;
	} else if (sync && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) {
		/* EINVAL: a device or a FIFO written through, nothing to sync. */
		err = errno;
	}
	if (fclose(f) != 0 && !err) {
		err = errno;
	}
	if (err) {
		dps_diag_setf(diag, "cannot write \"%s\": errno=%d (%s)", path, err, strerror(err));
		return DPS_ERR_IO;
	}
	return DPS_OK;
}

int dps_out_close(FILE *f, const char *path, struct dps_diag *diag)
{
	/* Not synced one by one: thousands of fsyncs (an 8000-thread set) take tens of
	 * seconds; dps_out_dir_commit syncs the file system once. */
	return close_stream(f, path, false, diag);
}

int dps_out_file_commit(struct dps_out_file *of, struct dps_diag *diag)
{
	int status;

	if (!of->f) {
		return DPS_ERR_IO;
	}
	status = close_stream(of->f, of->path, true, diag);
	of->f = NULL;
	if (!status && of->tmp && rename(of->tmp, of->path) != 0) {
		dps_diag_setf(diag, "cannot move the output into place: path=\"%s\", errno=%d (%s)",
			      of->path, errno, strerror(errno));
		status = DPS_ERR_IO;
	}
	if (of->tmp) {
		if (status) {
			unlink(of->tmp);
		} else {
			sync_parent(of->path);
		}
		unregister_temp(of->tmp);
	}
	g_free(of->path);
	g_free(of->tmp);
	*of = (struct dps_out_file){0};
	return status;
}

void dps_out_file_abort(struct dps_out_file *of)
{
	if (of->f) {
		fclose(of->f);
	}
	if (of->tmp) {
		unlink(of->tmp);
		unregister_temp(of->tmp);
	}
	g_free(of->path);
	g_free(of->tmp);
	*of = (struct dps_out_file){0};
}

/* Whether dir holds nothing (errors count as not empty: then the caller refuses). */
static bool dir_is_empty(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	bool empty;

	if (!d) {
		return false;
	}
	empty = g_dir_read_name(d) == NULL;
	g_dir_close(d);
	return empty;
}

/* May the existing target be replaced? DPS_OK, or DPS_ERR_INVAL with diag saying why not. */
static int check_existing(const char *target, const struct stat *st, dps_out_dir_ours_fn ours,
			  const char *what, unsigned flags, struct dps_diag *diag)
{
	if (flags & DPS_OUT_FORCE) {
		return DPS_OK;
	}
	if (!S_ISDIR(st->st_mode)) {
		dps_diag_setf(diag,
			      "\"%s\" exists and is not a directory: give another path, or --force "
			      "to replace it",
			      target);
		return DPS_ERR_INVAL;
	}
	if (dir_is_empty(target) || (ours && ours(target))) {
		return DPS_OK;
	}
	dps_diag_setf(diag,
		      "\"%s\" is not empty and is not %s: give another directory, or --force to "
		      "replace it whole",
		      target, what);
	return DPS_ERR_INVAL;
}

int dps_out_dir_check(const char *path, dps_out_dir_ours_fn ours, const char *what, unsigned flags,
		      struct dps_diag *diag)
{
	char *target = resolve_target(path);
	char *base = g_path_get_basename(target);
	struct stat st;
	int status = DPS_OK;

	if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/")) {
		dps_diag_setf(diag, "cannot replace \"%s\": name the output directory", path);
		status = DPS_ERR_INVAL;
	} else if (stat(target, &st) == 0) {
		status = check_existing(target, &st, ours, what, flags, diag);
	} else if (!(flags & DPS_OUT_PARENTS)) {
		char *parent = g_path_get_dirname(target);

		if (!g_file_test(parent, G_FILE_TEST_IS_DIR)) {
			dps_diag_setf(diag, "cannot create \"%s\": \"%s\" is not a directory", path,
				      parent);
			status = DPS_ERR_INVAL;
		}
		g_free(parent);
	}
	g_free(base);
	g_free(target);
	return status;
}

int dps_out_dir_begin(struct dps_out_dir *od, const char *path, dps_out_dir_ours_fn ours,
		      const char *what, unsigned flags, struct dps_diag *diag)
{
	struct stat st;
	mode_t mode = creation_mode(0777);
	sigset_t old_mask;
	bool made;
	int status;

	*od = (struct dps_out_dir){0};
	status = dps_out_dir_check(path, ours, what, flags, diag);
	if (status) {
		return status;
	}
	od->path = resolve_target(path);
	if (stat(od->path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			mode = st.st_mode & 07777;
		}
	} else if (flags & DPS_OUT_PARENTS) {
		char *parent = g_path_get_dirname(od->path);

		if (g_mkdir_with_parents(parent, 0777)) {
			dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", parent, errno,
				      strerror(errno));
			g_free(parent);
			status = DPS_ERR_IO;
			goto free_path;
		}
		g_free(parent);
	}
	dps_guard_sweep_temps(od->path);
	od->tmp = temp_name(od->path);
	/* Created and registered with the signals held off: a SIGINT in between would leave it. */
	dps_out_hold_signals(&old_mask);
	made = make_temp(od->tmp, true, 0700) == 0;
	dps_out_release_signals(&old_mask);
	if (!made) {
		dps_diag_setf(diag, "cannot create \"%s\": errno=%d (%s)", od->path, errno,
			      strerror(errno));
		g_free(od->tmp);
		status = DPS_ERR_IO;
		goto free_path;
	}
	(void)chmod(od->tmp, mode);
	return DPS_OK;

free_path:
	g_free(od->path);
	*od = (struct dps_out_dir){0};
	return status;
}

/* Puts tmp in place of the existing target; *old_out: where the old one now is (g_free), to
 * be removed. Returns 0 or -1 (errno), the target unchanged on error. */
static int swap_in(const char *tmp, const char *target, char **old_out)
{
	char *old;
	int err;

	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
		*old_out = g_strdup(tmp);
		return 0;
	}
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
		return -1;
	}
	/* No RENAME_EXCHANGE on this file system: two renames, the signals held off between. */
	old = temp_name(target);
	if (!g_mkdtemp_full(old, 0700) || rmdir(old) != 0 || rename(target, old) != 0) {
		err = errno;
		g_free(old);
		errno = err;
		return -1;
	}
	if (rename(tmp, target) != 0) {
		err = errno;
		(void)rename(old, target);
		g_free(old);
		errno = err;
		return -1;
	}
	*old_out = old;
	return 0;
}

int dps_out_dir_commit(struct dps_out_dir *od, struct dps_diag *diag)
{
	struct stat st;
	sigset_t old_mask;
	char *old = NULL;
	int status = DPS_OK, fd, rc;

	if (!od->tmp) {
		return DPS_ERR_IO;
	}
	/* One syncfs for every file written inside, then the directory itself. */
	fd = open(od->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syncfs(fd) != 0 || (fsync(fd) != 0 && errno != EINVAL)) {
		dps_diag_setf(diag, "cannot write \"%s\": errno=%d (%s)", od->path, errno,
			      strerror(errno));
		status = DPS_ERR_IO;
	}
	if (fd >= 0) {
		close(fd);
	}
	block_signals(&old_mask);
	if (!status) {
		rc = lstat(od->path, &st) == 0 ? swap_in(od->tmp, od->path, &old)
					       : rename(od->tmp, od->path);
		if (rc != 0) {
			dps_diag_setf(diag,
				      "cannot move the output into place: path=\"%s\", errno=%d "
				      "(%s)",
				      od->path, errno, strerror(errno));
			status = DPS_ERR_IO;
		}
	}
	if (status) {
		dps_out_remove_tree(od->tmp);
	} else {
		sync_parent(od->path);
	}
	if (old) {
		dps_out_remove_tree(old);
		g_free(old);
	}
	unregister_temp(od->tmp);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	g_free(od->path);
	g_free(od->tmp);
	*od = (struct dps_out_dir){0};
	return status;
}

void dps_out_dir_abort(struct dps_out_dir *od)
{
	if (od->tmp) {
		dps_out_remove_tree(od->tmp);
		unregister_temp(od->tmp);
	}
	g_free(od->path);
	g_free(od->tmp);
	*od = (struct dps_out_dir){0};
}

char *dps_out_dir_keep(struct dps_out_dir *od)
{
	char *kept = od->tmp ? strdup(od->tmp) : NULL;

	if (od->tmp) {
		unregister_temp(od->tmp);
	}
	g_free(od->path);
	g_free(od->tmp);
	*od = (struct dps_out_dir){0};
	return kept;
}
