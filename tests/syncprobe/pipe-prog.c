/* SPDX-License-Identifier: MIT */
/*
 * The pipe program of test-syncprobe-live, in two modes:
 *
 *   threads  a writer thread writes BYTES (argv[2], default 200000: more than a pipe holds, so
 *            it blocks) in chunks of 1000 and closes its end; the main thread reads 4096 at a
 *            time (one read through __read_chk, as _FORTIFY_SOURCE compiles read) until the end
 *            of file. Then the descriptors are reused: a regular file put on the read end's
 *            number (open, dup2 when open chose another; read, not a pipe: no event), closed,
 *            and a second pipe (pipe2) carries 100 bytes.
 *   fork     the same BYTES from this process to a forked child (no exec), which reads until
 *            the end of file and exits 0 when it got them all;
 *   exec     the same, the child being this program run again (fork and exec: "child FD
 *            BYTES"), reading its inherited read end.
 *
 * Prints each pipe's inode ("pipe INODE", as fstat says) and the regular file's descriptor;
 * exits 1 when a call's result is not what the real call gives (sums, errno).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* glibc's fortified read, called directly once (it is what read becomes under
 * _FORTIFY_SOURCE) */
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);

static long total = 200000;
static int fds[2];

static void print_ino(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0) {
		printf("pipe %ju\n", (uintmax_t)st.st_ino);
		fflush(stdout);
	}
}

static int write_all(int fd, long bytes)
{
	char chunk[1000];

	memset(chunk, 'x', sizeof(chunk));
	while (bytes > 0) {
		ssize_t w = write(fd, chunk, bytes < 1000 ? (size_t)bytes : sizeof(chunk));

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return -1;
		}
		bytes -= w;
	}
	return 0;
}

/* Everything until the end of file; -1 on an error. */
static long read_all(int fd, int chk_once)
{
	char buf[4096];
	long got = 0;
	ssize_t r;

	for (;;) {
		if (chk_once) {
			r = __read_chk(fd, buf, sizeof(buf), sizeof(buf));
			chk_once = 0;
		} else {
			r = read(fd, buf, sizeof(buf));
		}
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			return r < 0 ? -1 : got;
		}
		got += r;
	}
}

static void *writer(void *arg)
{
	(void)arg;
	if (write_all(fds[1], total)) {
		perror("write");
		exit(1);
	}
	close(fds[1]);
	return NULL;
}

static int threads_mode(void)
{
	pthread_t w;
	char buf[64];
	long got;
	int fd, read_end;

	if (pipe(fds)) {
		perror("pipe");
		return 1;
	}
	print_ino(fds[0]);
	read_end = fds[0];
	pthread_create(&w, NULL, writer, NULL);
	got = read_all(fds[0], 1);
	pthread_join(w, NULL);
	close(fds[0]);
	if (got != total) {
		fprintf(stderr, "pipe-prog: read %ld of %ld bytes\n", got, total);
		return 1;
	}

	/* the read end's number, now a regular file: no pipe events for it */
	fd = open("/proc/self/cmdline", O_RDONLY);
	if (fd >= 0 && fd != read_end) {
		if (dup2(fd, read_end) != read_end) {
			perror("dup2");
			return 1;
		}
		close(fd);
		fd = read_end;
	}
	printf("file %d\n", fd);
	if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) {
		perror("read /proc/self/cmdline");
		return 1;
	}
	close(fd);

	/* and a new pipe on the same numbers */
	if (pipe2(fds, O_CLOEXEC)) {
		perror("pipe2");
		return 1;
	}
	print_ino(fds[0]);
	if (write_all(fds[1], 100) || close(fds[1]) || read_all(fds[0], 0) != 100) {
		fprintf(stderr, "pipe-prog: the second pipe lost bytes\n");
		return 1;
	}
	close(fds[0]);
	return 0;
}

/* Reads fd until the end of file: 0 when it gave bytes, 1 otherwise (a child's exit status). */
static int child(int fd, long bytes)
{
	return read_all(fd, 0) == bytes ? 0 : 1;
}

/* The parent writes, a child reads: forked (self NULL) or this program run again. */
static int fork_mode(const char *self)
{
	char fd_arg[16];
	pid_t pid;
	int status;

	if (pipe(fds)) {
		perror("pipe");
		return 1;
	}
	print_ino(fds[0]);
	snprintf(fd_arg, sizeof(fd_arg), "%d", fds[0]);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		char total_arg[32];

		close(fds[1]);
		if (!self) {
			_exit(child(fds[0], total));
		}
		snprintf(total_arg, sizeof(total_arg), "%ld", total);
		execl(self, self, "child", fd_arg, total_arg, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	if (write_all(fds[1], total)) {
		perror("write");
		return 1;
	}
	close(fds[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pipe-prog: the child failed (status %d)\n", status);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "child")) {
		return child(atoi(argv[2]), atol(argv[3]));
	}
	if (argc < 2 ||
	    (strcmp(argv[1], "threads") && strcmp(argv[1], "fork") && strcmp(argv[1], "exec"))) {
		fprintf(stderr, "usage: %s threads|fork|exec [BYTES]\n", argv[0]);
		return 2;
	}
	total = argc > 2 ? atol(argv[2]) : total;
	if (!strcmp(argv[1], "threads")) {
		return threads_mode();
	}
	return fork_mode(!strcmp(argv[1], "exec") ? argv[0] : NULL);
}
