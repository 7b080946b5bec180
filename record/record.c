/* SPDX-License-Identifier: MIT */
/*
 * A recording from start to end (record.h): what can be recorded here is decided before
 * anything is created; then the output directory, the LTTng session (session.c) and perf
 * (perf.c), the traced command, and record.info (record-info.c). Whatever fails, the session
 * is destroyed and perf stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"
#include "record-internal.h"
#include "subprocess.h"

void dps_record__say(const struct recording *r, const char *fmt, ...)
{
	va_list ap;

	if (r->opts->quiet) {
		return;
	}
	va_start(ap, fmt);
	fputs("dps record: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void dps_record_options_default(struct dps_record_options *opts)
{
	*opts = (struct dps_record_options){.kernel = DPS_RECORD_KERNEL_AUTO, .ust = true};
}

/* LD_PRELOAD for the child: the LTTng wrappers asked for (by soname: the loader finds them
 * where liblttng-ust1 put them) and dps's synchronization probe (by path), then what the
 * environment had. With --sync also LTTng-UST's fork helper: a process the program forks
 * without exec (the other end of a pipe, say) then registers as itself, its events with its
 * own vpid and vtid instead of its parent's, stale in the child. NULL on ENOMEM. */
static char *preload_value(const struct recording *r)
{
	const char *old = getenv("LD_PRELOAD");
	const char *libc = r->opts->memory ? "liblttng-ust-libc-wrapper.so.1:" : "";
	const char *pthread =
	    r->opts->sync ? "liblttng-ust-fork.so.1:liblttng-ust-pthread-wrapper.so.1:" : "";
	char *v = NULL;

	if (asprintf(&v, "%s%s%s%s%s", libc, pthread, r->syncprobe ? r->syncprobe : "",
		     r->syncprobe ? ":" : "", old ? old : "") < 0) {
		return NULL;
	}
	if (*v && v[strlen(v) - 1] == ':') {
		v[strlen(v) - 1] = '\0';
	}
	return v;
}

static uint64_t timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

/*
 * Runs the command and waits for it. Its exec failing is a failure of the recording, told
 * through a close-on-exec pipe (a command that ran and exited 127 is the command's own
 * business): DPS_ERROR with the reason in the diagnostic.
 */
static enum dps_status run_command(struct recording *r)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	char *preload = NULL;
	int exec_pipe[2], exec_errno = 0;
	struct dps_load_sample before, after;
	struct rusage ru = {0};
	ssize_t got;
	pid_t parent;

	if (r->opts->memory || r->opts->sync) {
		preload = preload_value(r);
	}
	if (pipe2(exec_pipe, O_CLOEXEC)) {
		dps_diag_setf(r->diag, "cannot create a pipe: %s", strerror(errno));
		free(preload);
		return DPS_ERROR;
	}
	parent = getpid();
	r->child = fork();
	if (r->child < 0) {
		dps_diag_setf(r->diag, "cannot fork: %s", strerror(errno));
		free(preload);
		close(exec_pipe[0]);
		close(exec_pipe[1]);
		return DPS_ERROR;
	}
	if (r->child == 0) {
		int e;

		close(exec_pipe[0]);
		dps_guard_child_setup(parent, SIGKILL); /* the command dies with dps */
		if (preload) {
			setenv("LD_PRELOAD", preload, 1);
		}
		/* Without --memory dps record enables no lttng_ust_statedump event: the statedump
		 * lttng-ust runs when the program registers (every mapped object's ELF read) would
		 * be pure cost. With it, the base-address statedump is what resolves the libc
		 * wrapper's `ip` to a function and line (dps memory, doc/memory-predict.md). */
		if (!r->opts->memory) {
			setenv("LTTNG_UST_WITHOUT_BADDR_STATEDUMP", "1", 0);
		}
		setenv("LTTNG_UST_WITHOUT_PROCNAME_STATEDUMP", "1", 0);
		dps_subprocess_mark_exec();
		execvp(r->opts->cmd[0], r->opts->cmd);
		e = errno;
		if (write(exec_pipe[1], &e, sizeof(e)) < 0) {
			_exit(127);
		}
		_exit(127);
	}
	free(preload);
	close(exec_pipe[1]);
	/* Ctrl-C goes to the command; the trace is still finished properly. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	before = dps_load_sample_take();
	do {
		got = read(exec_pipe[0], &exec_errno, sizeof(exec_errno));
	} while (got < 0 && errno == EINTR);
	close(exec_pipe[0]);
	while (wait4(r->child, &r->child_status, 0, &ru) < 0) {
		if (errno != EINTR) {
			break;
		}
	}
	after = dps_load_sample_take();
	r->load =
	    dps_load_between(&before, &after, timeval_ns(&ru.ru_utime) + timeval_ns(&ru.ru_stime));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (got == (ssize_t)sizeof(exec_errno)) {
		dps_diag_setf(r->diag, "cannot run %s: %s", r->opts->cmd[0], strerror(exec_errno));
		return DPS_ERROR;
	}
	return DPS_OK;
}

static enum dps_status make_output(struct recording *r)
{
	const char *out = r->opts->out;
	char def[64];
	char *abs;

	if (!out) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(def, sizeof(def), "dps-trace-%Y%m%d-%H%M%S", &tm);
		out = def;
	}
	if (mkdir(out, 0755)) {
		if (errno == EEXIST) {
			dps_diag_setf(r->diag, "%s exists: give a new directory with -o", out);
			return DPS_ERR_INVAL;
		}
		dps_diag_setf(r->diag, "cannot create %s: %s", out, strerror(errno));
		return DPS_ERROR;
	}
	abs = realpath(out, NULL);
	if (!abs) {
		dps_diag_setf(r->diag, "%s: %s", out, strerror(errno));
		return DPS_ERROR;
	}
	r->out_abs = abs;
	return DPS_OK;
}

/* Decides where kernel events come from (*kernel_src), before anything is created. */
static enum dps_status choose_kernel(struct recording *r, const char **kernel_src)
{
	const struct dps_record_options *o = r->opts;
	const char *why;

	*kernel_src = "none";
	if (o->kernel == DPS_RECORD_KERNEL_OFF) {
		return DPS_OK;
	}
	if (dps_record__lttng_kernel_available()) {
		r->lttng_kernel = true;
		*kernel_src = "lttng";
	} else if (!(why = dps_record__perf_problem())) {
		*kernel_src = "perf";
	} else {
		/* A UST-only trace of a real program cannot tell running from blocked time: it
		 * is asked for by name (--no-kernel), never handed out as a success by default. */
		dps_diag_setf(r->diag,
			      "no kernel scheduling events: the LTTng kernel tracer is not "
			      "available and %s; --no-kernel records UST only",
			      why);
		return DPS_ERROR;
	}
	return DPS_OK;
}

enum dps_status dps_record_run(const struct dps_record_options *opts,
			       struct dps_record_result *result, struct dps_diag *diag)
{
	struct recording r = {.opts = opts, .diag = diag, .perf_ctl = -1, .perf_ack = -1};
	const char *kernel_src = "none";
	enum dps_status rc;

	*result = (struct dps_record_result){.kernel_src = "none"};
	if (!opts->cmd || !opts->cmd[0]) {
		dps_diag_setf(diag, "expected a command to run");
		return DPS_ERR_INVAL;
	}
	if (!opts->ust && opts->kernel == DPS_RECORD_KERNEL_OFF) {
		dps_diag_setf(diag, "--no-ust and --no-kernel: nothing to record");
		return DPS_ERR_INVAL;
	}
	if (opts->sync && !opts->ust) {
		dps_diag_setf(diag, "--sync needs UST (drop --no-ust)");
		return DPS_ERR_INVAL;
	}
	if (opts->memory && !opts->ust) {
		dps_diag_setf(diag, "--memory needs UST (drop --no-ust)");
		return DPS_ERR_INVAL;
	}
	/* The command exists, before anything is created (a missing one used to leave a
	 * trace of nothing and exit 0). */
	if (!dps_subprocess_runnable(opts->cmd[0], diag)) {
		return DPS_ERR_INVAL;
	}
	/* What can be recorded here, before creating anything. */
	if (opts->ust && !dps_subprocess_in_path("lttng")) {
		dps_diag_setf(diag, "the lttng command is not installed (Debian: apt-get install "
				    "lttng-tools)");
		return DPS_ERROR;
	}
	if (opts->ust || opts->kernel != DPS_RECORD_KERNEL_OFF) {
		rc = dps_record__ensure_sessiond(&r);
		if (rc && opts->ust) {
			return rc;
		}
		dps_diag_clear(diag);
	}
	rc = choose_kernel(&r, &kernel_src);
	if (rc) {
		return rc;
	}
	/* --sync: the synchronization probe is there (found last: nothing to free above) */
	if (opts->sync) {
		rc = dps_record__syncprobe(&r.syncprobe, diag);
		if (rc) {
			return rc;
		}
	}
	rc = make_output(&r);
	if (rc) {
		free(r.syncprobe);
		return rc;
	}
	/* The session first, then perf: a command started right after `lttng start` burned
	 * 4 ms more CPU (the replay round trip, 6 runs each: lttng-ust's registration with a
	 * session daemon still busy with the start), so perf's own start (0.3 s) is not
	 * overlapped with the session's. */
	if (opts->ust || r.lttng_kernel) {
		rc = dps_record__setup_session(&r);
		if (rc) {
			goto end;
		}
	}
	if (!strcmp(kernel_src, "perf")) {
		rc = dps_record__spawn_perf(&r);
		rc = rc ? rc : dps_record__enable_perf(&r);
		if (rc) {
			goto end;
		}
	}
	dps_record__say(&r, "recording %s (kernel: %s, ust: %s%s) into %s", opts->cmd[0],
			kernel_src, opts->ust ? "yes" : "no", opts->memory ? ", heap" : "",
			r.out_abs);
	rc = run_command(&r);
	/* perf writes its data while the session stops: each takes a few hundred ms */
	dps_record__signal_perf(&r);
	dps_record__teardown_session(&r);
	rc = rc ? rc : dps_record__stop_perf(&r);
	if (rc) {
		goto end;
	}
	dps_record__write_info(&r, kernel_src);
	if (dps_load_is_under_load(&r.load) && !opts->no_load_note) {
		fprintf(stderr,
			"dps record: note: %s ran under load (other processes used %.0f %% of the "
			"%d CPUs, steal %.1f %%): its timings include that; record on a quiet "
			"machine to measure the program alone\n",
			opts->cmd[0], r.load.others_pct, r.load.cpus, r.load.steal_pct);
	}
	if (WIFEXITED(r.child_status) && WEXITSTATUS(r.child_status)) {
		fprintf(stderr, "dps record: warning: %s exited with status %d\n", opts->cmd[0],
			WEXITSTATUS(r.child_status));
	} else if (WIFSIGNALED(r.child_status)) {
		fprintf(stderr, "dps record: warning: %s was killed by signal %d\n", opts->cmd[0],
			WTERMSIG(r.child_status));
	}
	*result = (struct dps_record_result){
	    .trace = r.out_abs,
	    .pid = r.child,
	    .wait_status = r.child_status,
	    .kernel_src = kernel_src,
	};
	r.out_abs = NULL;
end:
	dps_record__teardown_session(&r);
	dps_record__kill_perf(&r);
	free(r.perf_data);
	free(r.out_abs);
	free(r.syncprobe);
	return rc;
}

void dps_record_result_fini(struct dps_record_result *result)
{
	if (result) {
		free(result->trace);
		result->trace = NULL;
	}
}
