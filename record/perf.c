/* SPDX-License-Identifier: MIT */
/*
 * Kernel scheduling without the LTTng kernel tracer: perf sched record, system-wide, clocked
 * with CLOCK_MONOTONIC like LTTng, converted to CTF (perf data convert --to-ctf) at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "guard.h"
#include "record-internal.h"
#include "subprocess.h"

/* 0 when the sched tracepoints are visible in tracefs, else why not: ENOENT (not mounted or
 * no sched events) or EACCES (mounted, but only root may look: mode 700 by default). */
static int tracefs_sched_access(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing/events/sched/sched_switch",
					   "/sys/kernel/debug/tracing/events/sched/sched_switch"};
	int why = ENOENT;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (access(dirs[i], F_OK) == 0) {
			return 0;
		}
		if (errno == EACCES) {
			why = EACCES;
		}
	}
	return why;
}

/* Whether the kernel has the wait4/waitid syscall tracepoints (CONFIG_FTRACE_SYSCALLS). */
static bool has_wait_tracepoints(void)
{
	static const char *const dirs[] = {
	    "/sys/kernel/tracing/events/syscalls/sys_enter_waitid",
	    "/sys/kernel/debug/tracing/events/syscalls/sys_enter_waitid"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (access(dirs[i], F_OK) == 0) {
			return true;
		}
	}
	return false;
}

/* Why perf cannot record the scheduler here, or NULL when it can (as far as we can tell). */
const char *dps_record__perf_problem(void)
{
	int why;

	if (!dps_subprocess_in_path("perf")) {
		return "perf is not installed (Debian: apt-get install linux-perf)";
	}
	why = tracefs_sched_access();
	if (why == EACCES || (!why && geteuid() != 0 &&
			      access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK))) {
		return "reading the kernel's scheduler events needs root (or a tracing group with "
		       "access to /sys/kernel/tracing and perf_event_paranoid <= -1)";
	}
	if (why) {
		return "tracefs is not mounted or has no sched events (as root: mount -t tracefs "
		       "nodev /sys/kernel/tracing)";
	}
	return NULL;
}

/* Reads perf's log, for its error message. */
static void read_log(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Why perf stopped at its start: its last line, or, when it wrote none (its log could not be
 * written either), a full file system named as such, with what the recording holds there. */
static void perf_failed(struct recording *r, char *log, int status)
{
	const char *line = dps_subprocess_last_line(log);
	struct statvfs fs;

	if (strcmp(line, "(no message)")) {
		dps_diag_setf(r->diag, "perf sched record failed: %s", line);
	} else if (statvfs(r->out_abs, &fs) == 0 &&
		   (uint64_t)fs.f_bavail * fs.f_frsize < 4u << 20) {
		dps_diag_setf(r->diag,
			      "perf sched record failed: no space left on the file system of %s "
			      "(%s; %llu KiB free): free some space or record elsewhere",
			      r->out_abs, strerror(ENOSPC),
			      (unsigned long long)fs.f_bavail * fs.f_frsize / 1024);
	} else {
		dps_diag_setf(r->diag, "perf sched record failed (%s %d) without a message",
			      WIFSIGNALED(status) ? "signal" : "exit status",
			      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
}

/* The control FIFOs' names in the trace directory (perf opens them when it starts). */
static void remove_perf_fifo_names(const struct recording *r)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/.perf-ctl", r->out_abs);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.perf-ack", r->out_abs);
	unlink(path);
}

/*
 * perf sched record, system-wide, until SIGINT. It starts with its events disabled (-D -1)
 * and dps_record__enable_perf enables them through its control FIFO: its "ack" means the
 * events are on, so the command's fork and first instants are in the trace (waiting for
 * perf.data to appear is not enough, the header is written before the events are enabled).
 * perf takes about 0.3 s to start (its buffers, every process synthesized).
 */
enum dps_status dps_record__spawn_perf(struct recording *r)
{
	char logpath[4200], ctl[4200], ack[4200], control[8500];
	int logfd, ctlfd = -1, ackfd = -1;
	enum dps_status rc = DPS_ERROR;
	pid_t parent;

	if (asprintf(&r->perf_data, "%s/perf.data", r->out_abs) < 0) {
		r->perf_data = NULL;
		return DPS_ERR_NOMEM;
	}
	snprintf(logpath, sizeof(logpath), "%s/perf.log", r->out_abs);
	snprintf(ctl, sizeof(ctl), "%s/.perf-ctl", r->out_abs);
	snprintf(ack, sizeof(ack), "%s/.perf-ack", r->out_abs);
	snprintf(control, sizeof(control), "fifo:%s,%s", ctl, ack);
	if (mkfifo(ctl, 0600) || mkfifo(ack, 0600)) {
		dps_diag_setf(r->diag, "cannot create perf's control FIFOs in %s: %s", r->out_abs,
			      strerror(errno));
		goto end;
	}
	/* O_RDWR: opening a FIFO this way never blocks, whatever perf does. */
	ctlfd = open(ctl, O_RDWR | O_CLOEXEC);
	ackfd = open(ack, O_RDWR | O_CLOEXEC);
	logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (ctlfd < 0 || ackfd < 0) {
		dps_diag_setf(r->diag, "cannot open perf's control FIFOs: %s", strerror(errno));
		if (logfd >= 0) {
			close(logfd);
		}
		goto end;
	}
	parent = getpid();
	r->perf_pid = fork();
	if (r->perf_pid < 0) {
		dps_diag_setf(r->diag, "cannot fork perf: %s", strerror(errno));
		r->perf_pid = 0;
		if (logfd >= 0) {
			close(logfd);
		}
		goto end;
	}
	if (r->perf_pid == 0) {
		/* 16 MiB of buffer per CPU and, as root, a real-time perf: with the defaults, a
		 * busy 2-CPU machine lost 77 % of a ping-pong's scheduler events. */
		const char *argv[40] = {"perf", "sched", "record", "-m", "16M"};
		size_t n = 5;
		/* --no-bpf-event: perf's side-band thread for BPF program events only notices
		 * the end at its next 1 s poll, and the events are not wanted; -B -N: no
		 * build-ids collected at the end nor cached in ~/.debug (tracepoints only).
		 * Together 1.3 -> 0.3 s for perf sched record of `true` (bench/record.sh). */
		static const char *const rest[] = {"--no-bpf-event",
						   "-B",
						   "-N",
						   "-k",
						   "CLOCK_MONOTONIC",
						   "-e",
						   "sched:sched_process_exit",
						   "-e",
						   "sched:sched_process_exec",
						   "-D",
						   "-1",
						   "--control"};

		if (geteuid() == 0) {
			argv[n++] = "-r";
			argv[n++] = "10";
		}
		/* A wait for any child (wait4(-1), waitid(P_ALL)) is a `join any` (doc/sync.md):
		 * the calls' entries with their pid and their exits. A futex's entry (its word,
		 * operation and value) and exit: what every lock, barrier and semaphore ends in,
		 * whatever library made it (analyzer/futex.c). Any syscall tracepoint sends
		 * every syscall through the kernel's tracing path, a fixed cost per syscall;
		 * only these six are written (the futexes of every process: the machine's
		 * own daemons' are few). */
		static const char *const waits[] = {
		    "-e", "syscalls:sys_enter_wait4",  "-e", "syscalls:sys_exit_wait4",
		    "-e", "syscalls:sys_enter_waitid", "-e", "syscalls:sys_exit_waitid",
		    "-e", "syscalls:sys_enter_futex",  "-e", "syscalls:sys_exit_futex"};

		if (has_wait_tracepoints()) {
			for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
				argv[n++] = waits[i];
			}
		}
		for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
			argv[n++] = rest[i];
		}
		argv[n++] = control;
		argv[n++] = "-o";
		argv[n++] = r->perf_data;
		argv[n] = NULL;

		if (logfd >= 0) {
			dup2(logfd, STDOUT_FILENO);
			dup2(logfd, STDERR_FILENO);
		}
		setpgid(0, 0); /* a Ctrl-C meant for CMD must not stop perf early */
		dps_guard_child_setup(parent, SIGTERM); /* ... but dps's death must */
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	/* stopped and written if dps dies however it dies (common/guard.h) */
	dps_guard_child(r->perf_pid, SIGINT, false);
	if (logfd >= 0) {
		close(logfd);
	}
	rc = DPS_OK;
end:
	/* perf keeps reading its control FIFO: our ends stay open until it stops; the names
	 * go once perf has opened them (remove_perf_fifo_names) */
	r->perf_ctl = ctlfd;
	r->perf_ack = ackfd;
	if (rc) {
		remove_perf_fifo_names(r);
	}
	return rc;
}

static enum dps_status wait_for_ack(struct recording *r)
{
	char logpath[4200], buf[4096];

	snprintf(logpath, sizeof(logpath), "%s/perf.log", r->out_abs);
	for (int i = 0; i < 400; i++) {
		struct timeval tv = {0, 25000};
		fd_set fds;
		int status;

		FD_ZERO(&fds);
		FD_SET(r->perf_ack, &fds);
		if (select(r->perf_ack + 1, &fds, NULL, NULL, &tv) > 0) {
			ssize_t n = read(r->perf_ack, buf, sizeof(buf) - 1);

			if (n > 0) {
				return DPS_OK;
			}
		}
		if (waitpid(r->perf_pid, &status, WNOHANG) == r->perf_pid) {
			dps_guard_release_child(r->perf_pid);
			read_log(logpath, buf, sizeof(buf));
			perf_failed(r, buf, status);
			r->perf_pid = 0;
			return DPS_ERROR;
		}
	}
	dps_diag_setf(r->diag, "perf sched record did not start within 10 s");
	return DPS_ERROR;
}

enum dps_status dps_record__enable_perf(struct recording *r)
{
	enum dps_status rc;

	if (write(r->perf_ctl, "enable\n", 7) != 7) {
		dps_diag_setf(r->diag, "cannot talk to perf: %s", strerror(errno));
		rc = DPS_ERROR;
	} else {
		rc = wait_for_ack(r);
	}
	remove_perf_fifo_names(r);
	return rc;
}

static void close_perf_fifos(struct recording *r)
{
	if (r->perf_ctl >= 0) {
		close(r->perf_ctl);
	}
	if (r->perf_ack >= 0) {
		close(r->perf_ack);
	}
	r->perf_ctl = r->perf_ack = -1;
}

void dps_record__signal_perf(struct recording *r)
{
	if (r->perf_pid > 0 && !r->perf_signalled) {
		kill(r->perf_pid, SIGINT);
		r->perf_signalled = true;
	}
}

enum dps_status dps_record__stop_perf(struct recording *r)
{
	const struct dps_subprocess_options o = {.capture_stderr = true};
	char ctf[4200];
	char *out = NULL;
	int status, rc;

	if (r->perf_pid <= 0) {
		return DPS_OK;
	}
	dps_record__signal_perf(r);
	while (waitpid(r->perf_pid, &status, 0) < 0 && errno == EINTR) {
	}
	dps_guard_release_child(r->perf_pid);
	r->perf_pid = 0;
	close_perf_fifos(r);
	snprintf(ctf, sizeof(ctf), "%s/perf", r->out_abs);
	{
		const char *argv[] = {"perf", "data", "convert",    "--to-ctf",
				      ctf,    "-i",   r->perf_data, NULL};

		char log[8192], logpath[4200];

		dps_record__say(r, "converting the perf data to CTF");
		rc = dps_subprocess_run((char *const *)argv, &o, &out);
		if (rc) {
			dps_diag_setf(r->diag, "perf data convert --to-ctf failed: %s",
				      dps_subprocess_last_line(out));
		}
		/* Events perf lost (its buffers overran): perf says so in its log or when the
		 * data is read back, and nothing in the CTF trace does. */
		snprintf(logpath, sizeof(logpath), "%s/perf.log", r->out_abs);
		read_log(logpath, log, sizeof(log));
		r->perf_lost[0] = '\0';
		dps_record__perf_lost_lines(log, r->perf_lost, sizeof(r->perf_lost));
		dps_record__perf_lost_lines(out, r->perf_lost, sizeof(r->perf_lost));
		if (r->perf_lost[0]) {
			fprintf(stderr,
				"dps record: warning: perf lost events while recording (%s): the "
				"trace is incomplete and its analysis is marked partial\n",
				r->perf_lost);
		}
		free(out);
	}
	return rc ? DPS_ERROR : DPS_OK;
}

bool dps_record__perf_lost_lines(const char *text, char *out, size_t len)
{
	bool found = false;

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (g_strstr_len(p, (gssize)n, "lost") || g_strstr_len(p, (gssize)n, "Lost")) {
			size_t at = strlen(out);

			/* one line: the pieces separated by "; ", control characters dropped */
			if (at && at + 2 < len) {
				memcpy(out + at, "; ", 3);
				at += 2;
			}
			for (size_t i = 0; i < n && at + 1 < len; i++) {
				if ((unsigned char)p[i] >= 0x20 && p[i] != 0x7f) {
					out[at++] = p[i];
					out[at] = '\0';
				}
			}
			found = true;
		}
		p = nl ? nl + 1 : NULL;
	}
	return found;
}

/* Stops a perf that is still running (a recording that failed half-way). */
void dps_record__kill_perf(struct recording *r)
{
	if (r->perf_pid > 0) {
		dps_record__signal_perf(r);
		waitpid(r->perf_pid, NULL, 0);
		dps_guard_release_child(r->perf_pid);
		r->perf_pid = 0;
		remove_perf_fifo_names(r); /* stopped before it was enabled */
	}
	close_perf_fifos(r);
}
