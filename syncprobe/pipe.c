/* SPDX-License-Identifier: MIT */
/*
 * libdps-syncprobe's pipes and FIFOs: read, __read_chk (read under _FORTIFY_SOURCE) and write
 * on a descriptor that fstat says is a FIFO, with the pipe's inode (the same at both ends and
 * in every process that shares it), the descriptor, the bytes asked for and what the call
 * returned. A reader blocked on an empty pipe waits for the process or thread that writes into
 * it: the analyzer can replay that as a queue of bytes instead of a recorded wake-up.
 *
 * Whether a descriptor is a pipe costs an fstat, so it is asked once, the first time an enabled
 * event needs it, and kept in a per-process table (fd -> unknown, not a pipe, the pipe's
 * inode). A descriptor closed and reused for something else must not keep its old answer: the
 * wrappers of close, dup2, dup3, pipe, pipe2, fclose and pclose forget the descriptors they
 * end or create (always, even with no session: a later session would read the table).
 * Descriptors beyond the table are asked every time. A close the probe does not see
 * (close_range, closefrom, a raw syscall) may leave a stale entry, and so may a program that
 * closes a descriptor while another of its threads reads it.
 *
 * Not seen: stdio (fread, fwrite, fgets: libc calls its own read and write), readv/writev,
 * pread, splice, sockets. The tracer's own writes to its wake-up pipes (liblttng-ust's ring
 * buffer, from inside any provider's event) are told apart by their caller's address and
 * left out (probe.h's guards).
 */
#undef _FORTIFY_SOURCE /* this file defines read itself */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "dps_sync_tp.h"
#include "probe.h"

/* glibc's fortified read (bits/unistd.h declares it only under _FORTIFY_SOURCE) */
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*read_chk_fn)(int, void *, size_t, size_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef int (*close_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*pipe_fn)(int[2]);
typedef int (*pipe2_fn)(int[2], int);
typedef int (*fclose_fn)(FILE *);

static read_fn real_read;
static read_chk_fn real_read_chk;
static write_fn real_write;
static close_fn real_close;
static dup2_fn real_dup2;
static dup3_fn real_dup3;
static pipe_fn real_pipe;
static pipe2_fn real_pipe2;
static fclose_fn real_fclose, real_pclose;

/* What fstat said of each descriptor below FD_TABLE: 0 not asked yet, 1 not a pipe, else the
 * pipe's inode + 2. Relaxed atomics: each entry is one word. */
#define FD_TABLE 1024
#define FD_UNKNOWN 0
#define FD_NOT_PIPE 1
static uint64_t fd_table[FD_TABLE];

/* The descriptor's identity changed (closed, replaced, created): ask fstat again. */
static void forget(int fd)
{
	if (fd >= 0 && fd < FD_TABLE) {
		__atomic_store_n(&fd_table[fd], FD_UNKNOWN, __ATOMIC_RELAXED);
	}
}

/* Whether fd is a pipe or FIFO, its inode in *ino then. errno kept. */
static bool pipe_of(int fd, uint64_t *ino)
{
	uint64_t v = FD_UNKNOWN;
	struct stat st;

	if (fd >= 0 && fd < FD_TABLE) {
		v = __atomic_load_n(&fd_table[fd], __ATOMIC_RELAXED);
	}
	if (v == FD_UNKNOWN) {
		int saved = errno;

		if (fstat(fd, &st)) {
			/* not a descriptor: the call fails as it would, untraced */
			errno = saved;
			return false;
		}
		errno = saved;
		v = S_ISFIFO(st.st_mode) ? (uint64_t)st.st_ino + 2 : FD_NOT_PIPE;
		if (fd >= 0 && fd < FD_TABLE) {
			__atomic_store_n(&fd_table[fd], v, __ATOMIC_RELAXED);
		}
	}
	if (v == FD_NOT_PIPE) {
		return false;
	}
	*ino = v - 2;
	return true;
}

/* Whether a read (or write) on fd by caller is traced, *ino its pipe then. The enabled check
 * first: with no session that is all a call costs. */
static bool traced(int fd, bool write, const void *caller, uint64_t *ino)
{
	if (write ? !lttng_ust_tracepoint_enabled(dps_sync, pipe_write_begin)
		  : !lttng_ust_tracepoint_enabled(dps_sync, pipe_read_begin)) {
		return false;
	}
	return !syncprobe_in_probe && !syncprobe_from_tracer(caller) && pipe_of(fd, ino);
}

/* A call's result as the end event's: the bytes, or -errno. */
#define IO_RESULT(r) ((int64_t)((r) >= 0 ? (r) : -errno))

DPS_PROBE_EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	uint64_t ino;
	ssize_t r;

	SYNCPROBE_RESOLVE(real_read, "read", NULL);
	if (!real_read) {
		errno = ENOSYS;
		return -1;
	}
	if (!traced(fd, false, __builtin_return_address(0), &ino)) {
		return real_read(fd, buf, count);
	}
	SYNCPROBE_EMIT(pipe_read_begin, ino, (int32_t)fd, (uint64_t)count);
	r = real_read(fd, buf, count);
	SYNCPROBE_EMIT(pipe_read_end, ino, (int32_t)fd, IO_RESULT(r));
	return r;
}

DPS_PROBE_EXPORT ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen)
{
	uint64_t ino;
	ssize_t r;

	SYNCPROBE_RESOLVE(real_read_chk, "__read_chk", NULL);
	if (!real_read_chk) {
		errno = ENOSYS;
		return -1;
	}
	if (!traced(fd, false, __builtin_return_address(0), &ino)) {
		return real_read_chk(fd, buf, nbytes, buflen);
	}
	SYNCPROBE_EMIT(pipe_read_begin, ino, (int32_t)fd, (uint64_t)nbytes);
	r = real_read_chk(fd, buf, nbytes, buflen);
	SYNCPROBE_EMIT(pipe_read_end, ino, (int32_t)fd, IO_RESULT(r));
	return r;
}

DPS_PROBE_EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	uint64_t ino;
	ssize_t r;

	SYNCPROBE_RESOLVE(real_write, "write", NULL);
	if (!real_write) {
		errno = ENOSYS;
		return -1;
	}
	if (!traced(fd, true, __builtin_return_address(0), &ino)) {
		return real_write(fd, buf, count);
	}
	SYNCPROBE_EMIT(pipe_write_begin, ino, (int32_t)fd, (uint64_t)count);
	r = real_write(fd, buf, count);
	SYNCPROBE_EMIT(pipe_write_end, ino, (int32_t)fd, IO_RESULT(r));
	return r;
}

/* The descriptor is gone whatever close returned (Linux frees it even on EINTR). */
DPS_PROBE_EXPORT int close(int fd)
{
	int r;

	SYNCPROBE_RESOLVE(real_close, "close", NULL);
	if (!real_close) {
		errno = ENOSYS;
		return -1;
	}
	r = real_close(fd);
	forget(fd);
	return r;
}

DPS_PROBE_EXPORT int dup2(int oldfd, int newfd)
{
	int r;

	SYNCPROBE_RESOLVE(real_dup2, "dup2", NULL);
	if (!real_dup2) {
		errno = ENOSYS;
		return -1;
	}
	r = real_dup2(oldfd, newfd);
	if (r >= 0) {
		forget(newfd);
	}
	return r;
}

DPS_PROBE_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	int r;

	SYNCPROBE_RESOLVE(real_dup3, "dup3", NULL);
	if (!real_dup3) {
		errno = ENOSYS;
		return -1;
	}
	r = real_dup3(oldfd, newfd, flags);
	if (r >= 0) {
		forget(newfd);
	}
	return r;
}

DPS_PROBE_EXPORT int pipe(int fds[2])
{
	int r;

	SYNCPROBE_RESOLVE(real_pipe, "pipe", NULL);
	if (!real_pipe) {
		errno = ENOSYS;
		return -1;
	}
	r = real_pipe(fds);
	if (r == 0) {
		forget(fds[0]);
		forget(fds[1]);
	}
	return r;
}

DPS_PROBE_EXPORT int pipe2(int fds[2], int flags)
{
	int r;

	SYNCPROBE_RESOLVE(real_pipe2, "pipe2", NULL);
	if (!real_pipe2) {
		errno = ENOSYS;
		return -1;
	}
	r = real_pipe2(fds, flags);
	if (r == 0) {
		forget(fds[0]);
		forget(fds[1]);
	}
	return r;
}

/* A stream's descriptor, -1 when it has none (a memory stream). errno kept. */
static int stream_fd(FILE *stream)
{
	int saved = errno, fd = stream ? fileno(stream) : -1;

	errno = saved;
	return fd;
}

/* fclose and pclose close their descriptor inside libc, where close is not seen. */
DPS_PROBE_EXPORT int fclose(FILE *stream)
{
	int fd = stream_fd(stream), r;

	SYNCPROBE_RESOLVE(real_fclose, "fclose", NULL);
	if (!real_fclose) {
		errno = ENOSYS;
		return EOF;
	}
	r = real_fclose(stream);
	forget(fd);
	return r;
}

DPS_PROBE_EXPORT int pclose(FILE *stream)
{
	int fd = stream_fd(stream), r;

	SYNCPROBE_RESOLVE(real_pclose, "pclose", NULL);
	if (!real_pclose) {
		errno = ENOSYS;
		return -1;
	}
	r = real_pclose(stream);
	forget(fd);
	return r;
}
