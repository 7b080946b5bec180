/* SPDX-License-Identifier: MIT */
/*
 * Recording a command the way dps analyze wants it (doc/record.md): an LTTng session for UST
 * (dps:*, dps_stack:*, the libc wrapper's heap events with memory, contexts vtid/vpid/procname)
 * and kernel scheduling (the LTTng kernel tracer when there is one, else perf sched record
 * converted to CTF), all in one trace directory with a record.info that says what was run.
 *
 *   TRACE/            the output directory
 *     ust/uid/...     LTTng UST
 *     kernel/         LTTng kernel scheduler events, when the LTTng kernel tracer is there
 *     perf/           else: perf sched record -k CLOCK_MONOTONIC, converted to CTF
 *     perf.data       (kept: perf sched replay/latency can read it)
 *     record.info     pid of the command, its exit status, what was recorded
 *
 * Files: record.c (the whole recording, the traced child), session.c (the LTTng session
 * through the lttng CLI), perf.c (perf sched record and its conversion), record-info.c
 * (record.info, written and read).
 */
#ifndef DPS_RECORD_RECORD_H
#define DPS_RECORD_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include <dps/dps-status.h>

#include "diag.h"

enum dps_record_kernel {
	DPS_RECORD_KERNEL_AUTO = 0, /* when it can be had (LTTng, else perf), else a warning */
	DPS_RECORD_KERNEL_ON,	    /* required: fail without it */
	DPS_RECORD_KERNEL_OFF,	    /* none */
};

struct dps_record_options {
	const char *out; /* borrowed: the directory to create; NULL: dps-trace-DATE-TIME */
	enum dps_record_kernel kernel;
	bool ust;	   /* an LTTng UST session (default true) */
	bool memory;	   /* preload the LTTng libc wrapper (heap events); needs ust */
	bool sync;	   /* preload the LTTng pthread wrapper (mutex events); needs ust */
	bool quiet;	   /* no progress lines on stderr */
	bool no_load_note; /* no note when the command ran under load: the caller says it where
			    * it matters (dps replay, next to the comparison's error) */
	char *const *cmd;  /* borrowed: the command and its arguments, NULL-terminated */
};

struct dps_record_result {
	char *trace;		/* owned: the trace directory, absolute */
	int64_t pid;		/* the command's pid */
	int wait_status;	/* the command's, as waitpid(2) gives it */
	const char *kernel_src; /* static: "lttng", "perf" or "none" */
};

void dps_record_options_default(struct dps_record_options *opts);

/*
 * Records opts->cmd. Progress and warnings (the command failed, no kernel events could be had)
 * go to stderr prefixed "dps record:"; a failure is in diag. Returns DPS_OK (result filled: free
 * it with dps_record_result_fini), DPS_ERR_INVAL for options that cannot work together or an
 * output directory that exists, DPS_ERROR when a tracer cannot be set up or run, DPS_ERR_NOMEM.
 * The command's own exit status is not a failure: it is in result->wait_status.
 */
enum dps_status dps_record_run(const struct dps_record_options *opts,
			       struct dps_record_result *result, struct dps_diag *diag);
void dps_record_result_fini(struct dps_record_result *result); /* accepts NULL */

/*
 * The pid that dps record wrote into TRACE/record.info ("pid N"): a trace made by dps record
 * selects its own process. Returns DPS_OK and *pid; DPS_ERR_NOENT when there is no such file
 * (not a dps record directory: not an error for the callers); DPS_ERR_INVAL when the file is
 * malformed (a line that is not "key value", a bad pid, exit_status, kernel, ust or memory
 * value, no pid line), diag saying "path:line:col: ..." .
 */
enum dps_status dps_record_info_read(const char *trace, int64_t *pid, struct dps_diag *diag);

/* dps_record_info_read's pid, or false for no file or a malformed one. */
bool dps_record_info_pid(const char *trace, int64_t *pid);

/*
 * How much others used the machine while dps record ran the command (the load_* lines of
 * TRACE/record.info, read by dps_record_info_read's reader; common/machine-load.h):
 * load->known is false when the trace has no such lines (an older dps, another recorder) or
 * its record.info is malformed. Returns load->known.
 */
struct dps_load;
bool dps_record_info_load(const char *trace, struct dps_load *load);

/*
 * What perf said about events it lost while dps record ran (the perf_lost line of
 * TRACE/record.info) into buf (len bytes): true when it lost some, and the trace is then
 * incomplete; false when it lost none, or for no file or a malformed one.
 */
bool dps_record_info_lost(const char *trace, char *buf, size_t len);

/* The command dps record ran (the command line of TRACE/record.info, its words joined by
 * spaces) into buf (len bytes): true when there is one; false for no file or a malformed one. */
bool dps_record_info_command(const char *trace, char *buf, size_t len);

#endif /* DPS_RECORD_RECORD_H */
