/* SPDX-License-Identifier: MIT */
/*
 * The LTTng session of a recording, set up with the lttng CLI: a session daemon started when
 * none answers, a UST channel with dps's events and the vtid/vpid/procname contexts, and a
 * kernel channel with the scheduler events when the LTTng kernel tracer is there; stopped
 * and destroyed through liblttng-ctl.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "guard.h"
#include "record-internal.h"
#include "subprocess.h"

/* Runs lttng; on failure the diag says what and lttng's last line. */
static enum dps_status lttng(struct recording *r, const char *what, const char *const argv[])
{
	const struct dps_subprocess_options o = {.capture_stderr = true};
	char *out = NULL;
	int rc = dps_subprocess_run((char *const *)argv, &o, &out);

	if (rc) {
		dps_diag_setf(r->diag, "%s failed (lttng exit %d): %s", what, rc,
			      dps_subprocess_last_line(out));
	}
	free(out);
	return rc ? DPS_ERROR : DPS_OK;
}

/* Runs a tool quietly; true when it exits 0. */
static bool succeeds(const char *const argv[], char **out)
{
	const struct dps_subprocess_options o = {.capture_stderr = true};
	char *buf = NULL;
	int rc = dps_subprocess_run((char *const *)argv, &o, &buf);

	if (out) {
		*out = buf;
	} else {
		free(buf);
	}
	return rc == 0;
}

enum dps_status dps_record__ensure_sessiond(struct recording *r)
{
	const char *list[] = {"lttng", "list", NULL};
	const char *start[] = {"lttng-sessiond", "--daemonize", NULL};
	char *out = NULL;

	if (succeeds(list, NULL)) {
		return DPS_OK;
	}
	if (!dps_subprocess_in_path("lttng-sessiond")) {
		dps_diag_setf(r->diag, "no LTTng session daemon runs and lttng-sessiond is not "
				       "installed (Debian: apt-get install lttng-tools)");
		return DPS_ERROR;
	}
	dps_record__say(r, "starting an LTTng session daemon");
	if (!succeeds(start, &out)) {
		dps_diag_setf(r->diag, "cannot start lttng-sessiond: %s",
			      dps_subprocess_last_line(out));
		free(out);
		return DPS_ERROR;
	}
	free(out);
	for (int i = 0; i < 100; i++) {
		out = NULL;
		if (succeeds(list, &out)) {
			free(out);
			return DPS_OK;
		}
		if (i < 99) {
			free(out);
		}
		usleep(50 * 1000);
	}
	dps_diag_setf(r->diag, "the session daemon does not answer: %s",
		      dps_subprocess_last_line(out));
	free(out);
	return DPS_ERROR;
}

bool dps_record__lttng_kernel_available(void)
{
	const char *argv[] = {"lttng", "list", "-k", NULL};

	return dps_subprocess_in_path("lttng") && succeeds(argv, NULL);
}

enum dps_status dps_record__setup_session(struct recording *r)
{
	char out_opt[4200];
	enum dps_status rc;

	snprintf(r->session, sizeof(r->session), "dps-record-%ld-%ld", (long)getpid(),
		 (long)time(NULL));
	snprintf(out_opt, sizeof(out_opt), "--output=%s", r->out_abs);
	{
		const char *argv[] = {"lttng", "create", r->session, out_opt, NULL};

		/* sessions of a dps killed with its guardian (common/guard.h) */
		dps_guard_sweep_sessions();
		/* Named to the guardian before it is made: named after, a SIGKILL while the
		 * guardian started (its first name; two forks) left the session (the interruption
		 * campaign, 0.19 s into a recording). */
		dps_guard_session(r->session);
		rc = lttng(r, "creating the LTTng session", argv);
		if (rc) {
			dps_guard_release_session(r->session);
			return rc;
		}
		r->session_created = true;
	}
	if (r->opts->ust) {
		const char *chan[] = {"lttng",
				      "enable-channel",
				      "-u",
				      "-s",
				      r->session,
				      "--subbuf-size=1M",
				      "--num-subbuf=8",
				      "dps",
				      NULL};
		/* --sync: the pthread wrapper's mutex events and the synchronization probe's
		 * (the annotations are dps:*) */
		const char *ev[] = {
		    "lttng",
		    "enable-event",
		    "-u",
		    "-s",
		    r->session,
		    "-c",
		    "dps",
		    r->opts->sync ? "dps:*,dps_stack:*,lttng_ust_libc:*,lttng_ust_cyg_profile:*,"
				    "lttng_ust_cyg_profile_fast:*,lttng_ust_pthread:*,dps_sync:*"
				  : "dps:*,dps_stack:*,lttng_ust_libc:*,lttng_ust_cyg_profile:*,"
				    "lttng_ust_cyg_profile_fast:*",
		    NULL};
		const char *ctx[] = {"lttng", "add-context", "-u",	 "-s",	 r->session,
				     "-c",    "dps",	     "-t",	 "vtid", "-t",
				     "vpid",  "-t",	     "procname", NULL};
		/* With --memory: the caller's address of every libc wrapper event (the `ip`
		 * context) and the statedump and dlopen events that map it to a binary, so
		 * babeltrace2's debug-info filter names the allocation site (dps memory). */
		const char *mem_ev[] = {
		    "lttng",	"enable-event",
		    "-u",	"-s",
		    r->session, "-c",
		    "dps",	"lttng_ust_statedump:*,lttng_ust_dl:*,lttng_ust_lib:*",
		    NULL};
		char vuid[32];
		const char *track[] = {"lttng", "track", "-u", "-s", r->session, vuid, NULL};
		const char *mem_ctx[] = {"lttng", "add-context", "-u", "-s", r->session,
					 "-c",	  "dps",	 "-t", "ip", NULL};

		snprintf(vuid, sizeof(vuid), "--vuid=%ld", (long)getuid());
		rc = lttng(r, "creating the UST channel", chan);
		rc = rc ? rc : lttng(r, "enabling the UST events", ev);
		rc = rc ? rc : lttng(r, "adding the vtid/vpid/procname contexts", ctx);
		/* Only this user's processes: the session daemon of root records the programs of
		 * every user that load lttng-ust, and another user's events with dps's probes (a
		 * stub or `dps run` of that user's) came as a second trace, ust/uid/UID, which
		 * babeltrace2 refused to read with the first ("UUIDs don't match"). The recorded
		 * command runs as this user; one that changes its user is left out from then on
		 * (doc/record.md). */
		rc = rc ? rc : lttng(r, "keeping the UST channel to this user's processes", track);
		if (r->opts->memory) {
			rc = rc ? rc : lttng(r, "enabling the UST statedump events", mem_ev);
			rc = rc ? rc : lttng(r, "adding the ip context", mem_ctx);
		}
		if (rc) {
			return rc;
		}
	}
	if (r->lttng_kernel) {
		const char *chan[] = {
		    "lttng",	      "enable-channel", "-k", "-s", r->session, "--subbuf-size=4M",
		    "--num-subbuf=8", "dpsk",		NULL};
		const char *ev[] = {"lttng",
				    "enable-event",
				    "-k",
				    "-s",
				    r->session,
				    "-c",
				    "dpsk",
				    "sched_switch,sched_waking,sched_wakeup,sched_wakeup_new,"
				    "sched_process_fork,sched_process_exit,sched_process_exec,"
				    "sched_stat_runtime,lttng_statedump_process_state",
				    NULL};

		/* wait4 and waitid, entry (their pid) and exit: a wait for any child is a `join
		 * any` (doc/sync.md). Without them the analysis joins in the recorded order.
		 * futex, entry (its word, operation and value) and exit: what every lock,
		 * barrier and semaphore of a program ends in, whatever library made it
		 * (analyzer/futex.c). Without them a recorded wait's primitive is unknown. */
		const char *waits[] = {
		    "lttng",	 "enable-event",       "-k", "-s", r->session, "-c", "dpsk",
		    "--syscall", "wait4,waitid,futex", NULL};
		char *out = NULL;

		rc = lttng(r, "creating the kernel channel", chan);
		rc = rc ? rc : lttng(r, "enabling the kernel scheduler events", ev);
		if (rc) {
			return rc;
		}
		if (!succeeds(waits, &out)) {
			fprintf(stderr,
				"dps record: warning: the wait4/waitid/futex syscall events cannot "
				"be enabled (%s): waits for any child are replayed in the recorded "
				"order, and the synchronization behind a wait is unknown\n",
				dps_subprocess_last_line(out));
		}
		free(out);
	}
	{
		const char *argv[] = {"lttng", "start", r->session, NULL};

		return lttng(r, "starting the session", argv);
	}
}

/* How often the stopped session's data is asked about, and for how long at most (the lttng
 * CLI asks every 200 ms, a fifth of a short recording). */
#define DATA_POLL_US 5000
#define DATA_POLL_MAX 12000 /* 60 s */

/*
 * lttng stop and lttng destroy, through liblttng-ctl. The stop is waited for until the
 * session's data is readable on disk. The destruction is only asked for: the session is
 * gone from the daemon's list at once, and the daemon's own teardown (half a second on the
 * reference machine, which `lttng destroy` waits for) writes nothing more to the trace
 * (tried: every file's size and time the same after it).
 */
void dps_record__teardown_session(struct recording *r)
{
	int ret;

	if (!r->session_created) {
		return;
	}
	ret = lttng_stop_tracing_no_wait(r->session);
	if (ret < 0 && ret != -LTTNG_ERR_TRACE_ALREADY_STOPPED) {
		fprintf(stderr, "dps record: warning: stopping the session: %s\n",
			lttng_strerror(ret));
	}
	for (int i = 0; ret >= 0 && (ret = lttng_data_pending(r->session)) == 1; i++) {
		if (i == DATA_POLL_MAX) {
			fprintf(stderr,
				"dps record: warning: the session's data was still being "
				"written after %d s: the trace may lack its last events\n",
				DATA_POLL_MAX * DATA_POLL_US / 1000000);
			break;
		}
		usleep(DATA_POLL_US);
	}
	if (ret < 0 && ret != -LTTNG_ERR_TRACE_ALREADY_STOPPED) {
		fprintf(stderr, "dps record: warning: waiting for the session's data: %s\n",
			lttng_strerror(ret));
	}
	ret = lttng_destroy_session_no_wait(r->session);
	r->session_created = false;
	if (ret < 0) {
		/* the guardian keeps it and tries again when dps ends */
		fprintf(stderr, "dps record: warning: destroying the session: %s\n",
			lttng_strerror(ret));
		return;
	}
	dps_guard_release_session(r->session);
}
