/* SPDX-License-Identifier: MIT */
/*
 * dps record: captures a command the way dps analyze wants it (doc/record.md).
 *
 *   TRACE/            -o, default dps-trace-<date>-<time>
 *     ust/uid/...     LTTng UST: dps:*, dps_stack:*, lttng_ust_libc:* (--memory),
 *                     lttng_ust_cyg_profile*:*, contexts vtid/vpid/procname
 *     kernel/         LTTng kernel scheduler events, when the LTTng kernel tracer is there
 *     perf/           else: perf sched record -k CLOCK_MONOTONIC, converted to CTF
 *     perf.data       (kept: perf sched replay/latency can read it)
 *     record.info     pid of the command, its exit status, what was recorded
 *
 * Sessions are driven with the lttng CLI; a session daemon is started when none answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum kernel_mode {
	KERNEL_AUTO = 0,
	KERNEL_ON,
	KERNEL_OFF,
};

struct record {
	const char *out;
	char *out_abs;
	enum kernel_mode kernel;
	bool ust, memory, quiet;
	char session[96];
	bool session_created;
	bool lttng_kernel;		/* kernel events from LTTng (else perf) */
	pid_t perf_pid;
	int perf_ctl, perf_ack;		/* control FIFOs, open while perf runs */
	char *perf_data;
	char **cmd;
	pid_t child;
	int child_status;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: dps record [-o TRACE] [--kernel|--no-kernel] [--ust|--no-ust] [--memory]\n"
		"                  -- CMD ARGS...\n\n"
		"Runs CMD traced for dps analyze: LTTng UST (dps:*, dps_stack:*, heap events with\n"
		"--memory, contexts vtid/vpid/procname) and kernel scheduling (the LTTng kernel\n"
		"tracer when available, else perf sched record converted to CTF), all in TRACE.\n\n"
		"  -o, --output DIR   trace directory to create (default dps-trace-DATE-TIME)\n"
		"      --kernel       require kernel scheduling events (fail without them)\n"
		"      --no-kernel    no kernel events\n"
		"      --ust          require UST (default: on)\n"
		"      --no-ust       no UST session\n"
		"  -m, --memory       preload the LTTng libc wrapper (heap events)\n"
		"  -q, --quiet        no progress messages\n"
		"  -h, --help\n");
}

static void say(const struct record *r, const char *fmt, ...)
{
	va_list ap;

	if (r->quiet) {
		return;
	}
	va_start(ap, fmt);
	fputs("dps record: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * Runs a tool, its output captured into buf (NUL-terminated, truncated). Returns its exit
 * status, 127 when it cannot be run, or -1 on a fork failure.
 */
static int run_tool(const char *const argv[], char *buf, size_t len)
{
	int pipefd[2];
	pid_t pid;
	int status;
	size_t used = 0;

	if (buf && len) {
		buf[0] = '\0';
	}
	if (pipe(pipefd)) {
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
		}
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		char tmp[512];
		ssize_t n = read(pipefd[0], tmp, sizeof(tmp));

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		if (buf && used + 1 < len) {
			size_t k = (size_t)n < len - 1 - used ? (size_t)n : len - 1 - used;

			memcpy(buf + used, tmp, k);
			used += k;
			buf[used] = '\0';
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			return -1;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Last non-empty line of a tool's output, for one-line messages. */
static const char *last_line(char *buf)
{
	char *end = buf + strlen(buf);

	while (end > buf && (end[-1] == '\n' || end[-1] == ' ')) {
		*--end = '\0';
	}
	while (end > buf && end[-1] != '\n') {
		end--;
	}
	return *end ? end : "(no message)";
}

static bool tool_exists(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	bool found = false;

	if (!path) {
		path = "/usr/bin:/bin";
	}
	copy = strdup(path);
	if (!copy) {
		return false;
	}
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char full[4096];

		snprintf(full, sizeof(full), "%s/%s", dir, name);
		found = access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

static int lttng(struct record *r, const char *what, const char *const argv[])
{
	char buf[4096];
	int rc = run_tool(argv, buf, sizeof(buf));

	if (rc) {
		fprintf(stderr, "dps record: %s failed (lttng exit %d): %s\n", what, rc,
			last_line(buf));
		return DPS_EXIT_FAILURE;
	}
	(void)r;
	return DPS_EXIT_OK;
}

static int ensure_sessiond(struct record *r)
{
	char buf[4096];
	const char *list[] = { "lttng", "list", NULL };
	const char *start[] = { "lttng-sessiond", "--daemonize", NULL };

	if (run_tool(list, buf, sizeof(buf)) == 0) {
		return DPS_EXIT_OK;
	}
	if (!tool_exists("lttng-sessiond")) {
		fprintf(stderr, "dps record: no LTTng session daemon runs and lttng-sessiond is "
				"not installed (Debian: apt-get install lttng-tools)\n");
		return DPS_EXIT_FAILURE;
	}
	say(r, "starting an LTTng session daemon");
	if (run_tool(start, buf, sizeof(buf))) {
		fprintf(stderr, "dps record: cannot start lttng-sessiond: %s\n", last_line(buf));
		return DPS_EXIT_FAILURE;
	}
	for (int i = 0; i < 100; i++) {
		if (run_tool(list, buf, sizeof(buf)) == 0) {
			return DPS_EXIT_OK;
		}
		usleep(50 * 1000);
	}
	fprintf(stderr, "dps record: the session daemon does not answer: %s\n", last_line(buf));
	return DPS_EXIT_FAILURE;
}

static bool lttng_kernel_available(void)
{
	char buf[4096];
	const char *argv[] = { "lttng", "list", "-k", NULL };

	return run_tool(argv, buf, sizeof(buf)) == 0;
}

static bool tracefs_has_sched(void)
{
	return access("/sys/kernel/tracing/events/sched/sched_switch", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/events/sched/sched_switch", F_OK) == 0;
}

/* Why perf cannot record the scheduler here, or NULL when it can (as far as we can tell). */
static const char *perf_problem(void)
{
	if (!tool_exists("perf")) {
		return "perf is not installed (Debian: apt-get install linux-perf)";
	}
	if (!tracefs_has_sched()) {
		return "tracefs is not mounted or has no sched events (as root: mount -t tracefs "
		       "nodev /sys/kernel/tracing)";
	}
	if (geteuid() != 0 && access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK)) {
		return "reading the kernel's sched tracepoints needs root (or tracefs access and "
		       "perf_event_paranoid <= -1)";
	}
	return NULL;
}

static int setup_session(struct record *r)
{
	char out_opt[4200];
	int rc;

	snprintf(r->session, sizeof(r->session), "dps-record-%ld-%ld", (long)getpid(),
		 (long)time(NULL));
	snprintf(out_opt, sizeof(out_opt), "--output=%s", r->out_abs);
	{
		const char *argv[] = { "lttng", "create", r->session, out_opt, NULL };

		rc = lttng(r, "creating the LTTng session", argv);
		if (rc) {
			return rc;
		}
		r->session_created = true;
	}
	if (r->ust) {
		const char *chan[] = { "lttng", "enable-channel", "-u", "-s", r->session,
				 "--subbuf-size=1M", "--num-subbuf=8", "dps", NULL };
		const char *ev[] = { "lttng", "enable-event", "-u", "-s", r->session, "-c", "dps",
			       "dps:*,dps_stack:*,lttng_ust_libc:*,lttng_ust_cyg_profile:*,"
			       "lttng_ust_cyg_profile_fast:*",
			       NULL };
		const char *ctx[] = { "lttng", "add-context", "-u", "-s", r->session, "-c", "dps",
				"-t", "vtid", "-t", "vpid", "-t", "procname", NULL };

		rc = lttng(r, "creating the UST channel", chan);
		rc = rc ? rc : lttng(r, "enabling the UST events", ev);
		rc = rc ? rc : lttng(r, "adding the vtid/vpid/procname contexts", ctx);
		if (rc) {
			return rc;
		}
	}
	if (r->lttng_kernel) {
		const char *chan[] = { "lttng", "enable-channel", "-k", "-s", r->session,
				 "--subbuf-size=4M", "--num-subbuf=8", "dpsk", NULL };
		const char *ev[] = { "lttng", "enable-event", "-k", "-s", r->session, "-c", "dpsk",
			       "sched_switch,sched_waking,sched_wakeup,sched_wakeup_new,"
			       "sched_process_fork,sched_process_exit,sched_process_exec,"
			       "sched_stat_runtime,lttng_statedump_process_state",
			       NULL };

		rc = lttng(r, "creating the kernel channel", chan);
		rc = rc ? rc : lttng(r, "enabling the kernel scheduler events", ev);
		if (rc) {
			return rc;
		}
	}
	{
		const char *argv[] = { "lttng", "start", r->session, NULL };

		return lttng(r, "starting the session", argv);
	}
}

static void teardown_session(struct record *r)
{
	char buf[4096];
	const char *stop[] = { "lttng", "stop", r->session, NULL };
	const char *destroy[] = { "lttng", "destroy", r->session, NULL };

	if (!r->session_created) {
		return;
	}
	if (run_tool(stop, buf, sizeof(buf))) {
		fprintf(stderr, "dps record: warning: stopping the session: %s\n", last_line(buf));
	}
	if (run_tool(destroy, buf, sizeof(buf))) {
		fprintf(stderr, "dps record: warning: destroying the session: %s\n",
			last_line(buf));
	}
	r->session_created = false;
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

/*
 * perf sched record, system-wide, until SIGINT. It starts with its events disabled (-D -1)
 * and we enable them through its control FIFO: its "ack" means the events are on, so the
 * command's fork and first instants are in the trace (waiting for perf.data to appear is
 * not enough, the header is written before the events are enabled).
 */
static int start_perf(struct record *r)
{
	char logpath[4200], ctl[4200], ack[4200], control[8500];
	int logfd, ctlfd = -1, ackfd = -1, rc = DPS_EXIT_FAILURE;
	char buf[4096];

	if (asprintf(&r->perf_data, "%s/perf.data", r->out_abs) < 0) {
		r->perf_data = NULL;
		return DPS_EXIT_FAILURE;
	}
	snprintf(logpath, sizeof(logpath), "%s/perf.log", r->out_abs);
	snprintf(ctl, sizeof(ctl), "%s/.perf-ctl", r->out_abs);
	snprintf(ack, sizeof(ack), "%s/.perf-ack", r->out_abs);
	snprintf(control, sizeof(control), "fifo:%s,%s", ctl, ack);
	if (mkfifo(ctl, 0600) || mkfifo(ack, 0600)) {
		fprintf(stderr, "dps record: cannot create perf's control FIFOs in %s: %s\n",
			r->out_abs, strerror(errno));
		goto end;
	}
	/* O_RDWR: opening a FIFO this way never blocks, whatever perf does. */
	ctlfd = open(ctl, O_RDWR | O_CLOEXEC);
	ackfd = open(ack, O_RDWR | O_CLOEXEC);
	logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (ctlfd < 0 || ackfd < 0) {
		fprintf(stderr, "dps record: cannot open perf's control FIFOs: %s\n",
			strerror(errno));
		if (logfd >= 0) {
			close(logfd);
		}
		goto end;
	}
	r->perf_pid = fork();
	if (r->perf_pid < 0) {
		r->perf_pid = 0;
		if (logfd >= 0) {
			close(logfd);
		}
		goto end;
	}
	if (r->perf_pid == 0) {
		const char *argv[] = { "perf", "sched", "record", "-k", "CLOCK_MONOTONIC",
				       "-e", "sched:sched_process_exit", "-e",
				       "sched:sched_process_exec", "-D", "-1", "--control", control,
				       "-o", r->perf_data, NULL };

		if (logfd >= 0) {
			dup2(logfd, STDOUT_FILENO);
			dup2(logfd, STDERR_FILENO);
		}
		setpgid(0, 0);	/* a Ctrl-C meant for CMD must not stop perf early */
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (logfd >= 0) {
		close(logfd);
	}
	if (write(ctlfd, "enable\n", 7) != 7) {
		fprintf(stderr, "dps record: cannot talk to perf: %s\n", strerror(errno));
		goto end;
	}
	for (int i = 0; i < 400; i++) {
		struct timeval tv = { 0, 25000 };
		fd_set fds;
		int status;

		FD_ZERO(&fds);
		FD_SET(ackfd, &fds);
		if (select(ackfd + 1, &fds, NULL, NULL, &tv) > 0) {
			ssize_t n = read(ackfd, buf, sizeof(buf) - 1);

			if (n > 0) {
				rc = DPS_EXIT_OK;
				goto end;
			}
		}
		if (waitpid(r->perf_pid, &status, WNOHANG) == r->perf_pid) {
			read_log(logpath, buf, sizeof(buf));
			fprintf(stderr, "dps record: perf sched record failed: %s\n",
				last_line(buf));
			r->perf_pid = 0;
			goto end;
		}
	}
	fprintf(stderr, "dps record: perf sched record did not start within 10 s\n");
end:
	/* perf keeps reading its control FIFO: our ends stay open until it stops. */
	r->perf_ctl = ctlfd;
	r->perf_ack = ackfd;
	unlink(ctl);
	unlink(ack);
	return rc;
}

static void close_perf_fifos(struct record *r)
{
	if (r->perf_ctl >= 0) {
		close(r->perf_ctl);
	}
	if (r->perf_ack >= 0) {
		close(r->perf_ack);
	}
	r->perf_ctl = r->perf_ack = -1;
}

static int stop_perf(struct record *r)
{
	char buf[4096];
	char ctf[4200];
	int status;

	if (r->perf_pid <= 0) {
		return DPS_EXIT_OK;
	}
	kill(r->perf_pid, SIGINT);
	while (waitpid(r->perf_pid, &status, 0) < 0 && errno == EINTR) {
	}
	r->perf_pid = 0;
	close_perf_fifos(r);
	snprintf(ctf, sizeof(ctf), "%s/perf", r->out_abs);
	{
		const char *argv[] = { "perf", "data", "convert", "--to-ctf", ctf, "-i", r->perf_data,
				 NULL };

		say(r, "converting the perf data to CTF");
		if (run_tool(argv, buf, sizeof(buf))) {
			fprintf(stderr, "dps record: perf data convert --to-ctf failed: %s\n",
				last_line(buf));
			return DPS_EXIT_FAILURE;
		}
	}
	return DPS_EXIT_OK;
}

static char *preload_value(void)
{
	const char *old = getenv("LD_PRELOAD");
	const char *lib = "liblttng-ust-libc-wrapper.so.1";
	char *v = NULL;

	if (old && *old) {
		if (asprintf(&v, "%s:%s", lib, old) < 0) {
			v = NULL;
		}
	} else {
		v = strdup(lib);
	}
	return v;
}

static int run_command(struct record *r)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	char *preload = NULL;

	if (r->memory) {
		preload = preload_value();
	}
	r->child = fork();
	if (r->child < 0) {
		fprintf(stderr, "dps record: cannot fork: %s\n", strerror(errno));
		free(preload);
		return DPS_EXIT_FAILURE;
	}
	if (r->child == 0) {
		if (preload) {
			setenv("LD_PRELOAD", preload, 1);
		}
		execvp(r->cmd[0], r->cmd);
		fprintf(stderr, "dps record: cannot run %s: %s\n", r->cmd[0], strerror(errno));
		_exit(127);
	}
	free(preload);
	/* Ctrl-C goes to the command; the trace is still finished properly. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(r->child, &r->child_status, 0) < 0) {
		if (errno != EINTR) {
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return DPS_EXIT_OK;
}

static void write_info(const struct record *r, const char *kernel_src)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/record.info", r->out_abs);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "dps record: warning: cannot write %s: %s\n", path,
			strerror(errno));
		return;
	}
	fprintf(f, "# dps record: what was recorded (dps analyze %s --pid PID)\n", r->out_abs);
	fprintf(f, "pid %ld\n", (long)r->child);
	fprintf(f, "command");
	for (char **a = r->cmd; *a; a++) {
		fprintf(f, " %s", *a);
	}
	fprintf(f, "\n");
	if (WIFEXITED(r->child_status)) {
		fprintf(f, "exit_status %d\n", WEXITSTATUS(r->child_status));
	} else {
		fprintf(f, "signal %d\n", WTERMSIG(r->child_status));
	}
	fprintf(f, "kernel %s\nust %s\nmemory %s\n", kernel_src, r->ust ? "yes" : "no",
		r->memory ? "yes" : "no");
	fclose(f);
}

static int make_output(struct record *r)
{
	char def[64];
	char *abs;

	if (!r->out) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(def, sizeof(def), "dps-trace-%Y%m%d-%H%M%S", &tm);
		r->out = def;
	}
	if (mkdir(r->out, 0755)) {
		if (errno == EEXIST) {
			fprintf(stderr, "dps record: %s exists: give a new directory with -o\n",
				r->out);
			return DPS_EXIT_USAGE;
		}
		fprintf(stderr, "dps record: cannot create %s: %s\n", r->out, strerror(errno));
		return DPS_EXIT_FAILURE;
	}
	abs = realpath(r->out, NULL);
	if (!abs) {
		fprintf(stderr, "dps record: %s: %s\n", r->out, strerror(errno));
		return DPS_EXIT_FAILURE;
	}
	r->out_abs = abs;
	r->out = r->out_abs;
	return DPS_EXIT_OK;
}

int dps_cmd_record(int argc, char **argv)
{
	enum { OPT_KERNEL = 256, OPT_NO_KERNEL, OPT_UST, OPT_NO_UST };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
		{ "ust", no_argument, NULL, OPT_UST },
		{ "no-ust", no_argument, NULL, OPT_NO_UST },
		{ "memory", no_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record r = { .ust = true, .perf_ctl = -1, .perf_ack = -1 };
	const char *kernel_src = "none";
	const char *why = NULL;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:mqh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			r.out = optarg;
			break;
		case OPT_KERNEL:
			r.kernel = KERNEL_ON;
			break;
		case OPT_NO_KERNEL:
			r.kernel = KERNEL_OFF;
			break;
		case OPT_UST:
			r.ust = true;
			break;
		case OPT_NO_UST:
			r.ust = false;
			break;
		case 'm':
			r.memory = true;
			break;
		case 'q':
			r.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return DPS_EXIT_OK;
		default:
			usage(stderr);
			return DPS_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "dps record: expected a command to run after --\n");
		usage(stderr);
		return DPS_EXIT_USAGE;
	}
	r.cmd = &argv[optind];
	if (!r.ust && r.kernel == KERNEL_OFF) {
		fprintf(stderr, "dps record: --no-ust and --no-kernel: nothing to record\n");
		return DPS_EXIT_USAGE;
	}
	if (r.memory && !r.ust) {
		fprintf(stderr, "dps record: --memory needs UST (drop --no-ust)\n");
		return DPS_EXIT_USAGE;
	}

	/* What can be recorded here, before creating anything. */
	if (!tool_exists("lttng") && (r.ust || r.kernel != KERNEL_OFF)) {
		if (r.ust) {
			fprintf(stderr, "dps record: the lttng command is not installed (Debian: "
					"apt-get install lttng-tools)\n");
			return DPS_EXIT_FAILURE;
		}
	}
	if (r.ust || r.kernel != KERNEL_OFF) {
		rc = ensure_sessiond(&r);
		if (rc && r.ust) {
			return rc;
		}
	}
	if (r.kernel != KERNEL_OFF) {
		if (tool_exists("lttng") && lttng_kernel_available()) {
			r.lttng_kernel = true;
			kernel_src = "lttng";
		} else if (!(why = perf_problem())) {
			kernel_src = "perf";
		} else if (r.kernel == KERNEL_ON) {
			fprintf(stderr, "dps record: --kernel: the LTTng kernel tracer is not "
					"available and %s\n", why);
			return DPS_EXIT_FAILURE;
		} else {
			fprintf(stderr, "dps record: warning: no kernel scheduling events (the LTTng "
					"kernel tracer is not available and %s); recording UST only\n",
				why);
		}
	}
	rc = make_output(&r);
	if (rc) {
		return rc;
	}
	if (r.ust || r.lttng_kernel) {
		rc = setup_session(&r);
		if (rc) {
			goto end;
		}
	}
	if (!strcmp(kernel_src, "perf")) {
		rc = start_perf(&r);
		if (rc) {
			goto end;
		}
	}
	say(&r, "recording %s (kernel: %s, ust: %s%s) into %s", r.cmd[0], kernel_src,
	    r.ust ? "yes" : "no", r.memory ? ", heap" : "", r.out_abs);
	rc = run_command(&r);
	teardown_session(&r);
	rc = rc ? rc : stop_perf(&r);
	if (rc) {
		goto end;
	}
	write_info(&r, kernel_src);
	if (WIFEXITED(r.child_status) && WEXITSTATUS(r.child_status)) {
		fprintf(stderr, "dps record: warning: %s exited with status %d\n", r.cmd[0],
			WEXITSTATUS(r.child_status));
	} else if (WIFSIGNALED(r.child_status)) {
		fprintf(stderr, "dps record: warning: %s was killed by signal %d\n", r.cmd[0],
			WTERMSIG(r.child_status));
	}
	say(&r, "done: pid %ld; next: dps analyze %s --pid %ld -o ACTIONS", (long)r.child,
	    r.out_abs, (long)r.child);
end:
	teardown_session(&r);
	if (r.perf_pid > 0) {
		kill(r.perf_pid, SIGINT);
		waitpid(r.perf_pid, NULL, 0);
	}
	close_perf_fifos(&r);
	free(r.perf_data);
	free(r.out_abs);
	return rc;
}
