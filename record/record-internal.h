/* SPDX-License-Identifier: MIT */
/* What the record library's files share (not part of record.h's API). */
#ifndef DPS_RECORD_RECORD_INTERNAL_H
#define DPS_RECORD_RECORD_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "machine-load.h"
#include "record.h"

/* One recording under way. */
struct recording {
	const struct dps_record_options *opts; /* borrowed */
	struct dps_diag *diag;		       /* borrowed */
	char *out_abs;			       /* owned: the trace directory */
	char session[96];
	bool session_created;
	bool lttng_kernel; /* kernel events from LTTng (else perf) */
	pid_t perf_pid;
	bool perf_signalled;	/* told to stop (SIGINT), not yet waited for */
	int perf_ctl, perf_ack; /* perf's control FIFOs, open while perf runs */
	char *perf_data;	/* owned */
	char perf_lost[512];	/* what perf said about events it lost ("" when none) */
	pid_t child;
	int child_status;
	struct dps_load load; /* the machine while the command ran (load_* in record.info) */
	char *syncprobe;      /* owned: --sync's libdps-syncprobe path, NULL without --sync */
};

/* A progress line on stderr unless quiet. */
__attribute__((format(printf, 2, 3))) void dps_record__say(const struct recording *r,
							   const char *fmt, ...);

/* session.c */
enum dps_status dps_record__ensure_sessiond(struct recording *r);
bool dps_record__lttng_kernel_available(void);
enum dps_status dps_record__setup_session(struct recording *r);
/* Stops the session (its data on disk, readable) and destroys it. */
void dps_record__teardown_session(struct recording *r);

/* perf.c */
const char *dps_record__perf_problem(void);
/* perf sched record started with its events off; dps_record__enable_perf turns them on and
 * waits for perf to say so. */
enum dps_status dps_record__spawn_perf(struct recording *r);
enum dps_status dps_record__enable_perf(struct recording *r);
/* Tells perf to stop and write its data, without waiting (its exit overlaps lttng stop). */
void dps_record__signal_perf(struct recording *r);
/* Stops perf (signal_perf if not done), waits for it and converts its data to CTF. */
enum dps_status dps_record__stop_perf(struct recording *r);
void dps_record__kill_perf(struct recording *r);
/* perf's lines about lost events in text (perf record's log, perf data convert's stderr),
 * appended to out (len bytes, NUL-terminated) as one line; false when there are none. */
bool dps_record__perf_lost_lines(const char *text, char *out, size_t len);

/* probes.c: the path of libdps-syncprobe to preload (*path owned by the caller); DPS_ERROR
 * with the places looked at in diag when there is none. */
enum dps_status dps_record__syncprobe(char **path, struct dps_diag *diag);

/* record-info.c */
void dps_record__write_info(const struct recording *r, const char *kernel_src);

#endif /* DPS_RECORD_RECORD_INTERNAL_H */
