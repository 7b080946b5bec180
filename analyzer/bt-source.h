/* SPDX-License-Identifier: MIT */
/*
 * The event source (bt-source.c): CTF traces read with libbabeltrace2 and handed out one
 * neutral event (event.h) at a time, in timestamp order across every trace found below the
 * given paths. The analyzer (analyzer.c) owns the loop that feeds the events to the core.
 */
#ifndef DPS_ANALYZER_BT_SOURCE_H
#define DPS_ANALYZER_BT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "event.h"

struct analyzer_source;

/*
 * Where the decoder is, for a watchdog in another process (contain.c): the source writes it
 * (in shared memory), the parent reads it without a lock only to say where decoding stopped
 * (after the decoder died or was killed, so nothing moves under the reader then). Offsets are
 * UINT64_MAX when unknown.
 */
struct analyzer_decode_status {
	volatile uint64_t beat;		 /* incremented at each step of progress */
	volatile uint64_t n_events;	 /* events decoded so far */
	volatile uint64_t n_packet;	 /* packets of the current stream begun so far */
	volatile uint64_t packet_offset; /* byte offset of the current packet in its stream */
	char trace[1024];		 /* the trace being read */
	char stream[1024];		 /* its stream of the last packet begun, "" unknown */
	char step[64];			 /* "opening it (...)", "reading its packets" */
};

/* What analyzer_source_next returns besides an error status (< 0). */
enum analyzer_source_next_status {
	ANALYZER_SOURCE_END = 0,   /* every trace read to its end */
	ANALYZER_SOURCE_EVENT = 1, /* *ev holds the next event */
};

/*
 * Finds the CTF traces below paths (borrowed) and opens a babeltrace2 graph for each.
 * progress: show a progress line on stderr when it is a terminal. status (borrowed, may be
 * NULL): where the decoder is, kept up to date until analyzer_source_close. What is found and
 * not read (empty stream files, stream files without metadata, missing ones) is not an error:
 * it is listed by analyzer_source_skip_count/analyzer_source_borrow_skip. Returns DPS_OK and
 * *out (close it with analyzer_source_close); DPS_ERROR when babeltrace2 refuses a trace
 * (diag: its causes on one line) or a stream file is a copy of another (babeltrace2 would read
 * both: views leave it out, analyzer_source_open_views), DPS_ERR_INVAL/DPS_ERR_NOENT for a
 * path that holds no trace, DPS_ERR_NOMEM. *out is NULL on error.
 */
int analyzer_source_open(const char *const *paths, size_t n_paths, bool progress,
			 struct analyzer_decode_status *status, struct analyzer_source **out,
			 struct dps_diag *diag);

/*
 * Decoding a stream group (contain.c): each view is a directory holding a trace's metadata and
 * some of its stream files (symlinks), read as the trace. Fields a source reading everything
 * would skip for a thread it already described are read all the same (the merge of the groups
 * drops them: analyzer_known_filter), and each event has an order key
 * (analyzer_source_order_key). Messages name the trace and its files, not the view.
 */
/* A stream file in a view: read whole (piece 0 at offset 0), or a piece of it (the view's
 * index lists some of its packets: groups.c): the piece's rank, where it starts. */
struct analyzer_view_file {
	uint32_t piece;
	uint64_t offset; /* its first packet's byte offset in the file */
	uint64_t packet; /* the packets before it */
};

struct analyzer_source_view {
	const char *dir;	  /* the view */
	const char *trace;	  /* the trace it shows, as found (analyzer_find_traces) */
	const char *const *files; /* every stream file name of the trace, sorted (strcmp) */
	const struct analyzer_view_file *info; /* by file, as files */
	size_t n_files;
};

/* As analyzer_source_open, on views (borrowed, and their strings, while the source lives);
 * nothing is skipped: the caller looked for the traces. */
int analyzer_source_open_views(const struct analyzer_source_view *views, size_t n_views,
			       bool progress, struct analyzer_decode_status *status,
			       struct analyzer_source **out, struct dps_diag *diag);

/*
 * The order of the event last returned by a source on views among the events of every stream
 * group at the same time: events sorted by (ts, this key) are in the order one source on
 * every stream gives them (babeltrace2's muxer: stream class id, then stream id; the trace's
 * index first). UINT64_MAX when it cannot be told (ids out of bounds).
 */
uint64_t analyzer_source_order_key(const struct analyzer_source *src);

/* tids below this have a byte in a `known` table (the kernel's pid_max limit is 2^22). */
#define ANALYZER_KNOWN_MAX (1u << 22)

/*
 * For the merge of stream groups, in the order of all events: drops what a source reading
 * every trace leaves unread for a thread it already described (its context's pid and name, a
 * switch's next_comm), and notes what the event tells. table: ANALYZER_KNOWN_MAX bytes,
 * zeroed at the start.
 */
void analyzer_known_filter(uint8_t *table, struct analyzer_event *e);

/* What the source found and will not read, one message each ("PATH: empty stream file ...");
 * borrowed, valid while src lives. */
size_t analyzer_source_skip_count(const struct analyzer_source *src);
const char *analyzer_source_borrow_skip(const struct analyzer_source *src, size_t i);

/*
 * The next event into *ev: ANALYZER_SOURCE_EVENT, ANALYZER_SOURCE_END, or DPS_ERROR (a trace
 * cannot be read further; diag says which and why) / DPS_ERR_NOMEM. The strings *ev points
 * to are the source's, valid until the next call or analyzer_source_close.
 */
int analyzer_source_next(struct analyzer_source *src, struct analyzer_event *ev,
			 struct dps_diag *diag);

/* Whether the traces hold kernel scheduling events (LTTng kernel or perf). */
bool analyzer_source_has_sched(const struct analyzer_source *src);

/* The trace paths, space-separated (borrowed: valid while src lives). */
const char *analyzer_source_borrow_description(const struct analyzer_source *src);

/* Closes the graphs and frees src; accepts NULL. */
void analyzer_source_close(struct analyzer_source *src);

/*
 * babeltrace2's own plugin `name` (ctf, utils, lttng-utils) into *out (a new reference):
 * loaded once per process, from its file in babeltrace2's system plugin directory when it is
 * there (loading every module of that directory would run any other plugin's constructors),
 * else searched for the way the babeltrace2 command does. Returns 0, or -1 with babeltrace2's
 * error set.
 */
struct bt_plugin;
int analyzer_bt_plugin_find(const char *name, const struct bt_plugin **out);

/*
 * Loads ctf and utils in this process, before a decoder is forked: the decoder then never
 * calls the dynamic loader. A fork copies the loader's locks as they are, and another thread
 * of dps (LTTng-UST's listener, walking the loaded objects for a session's state dump) may
 * hold one: a dlopen in the child would wait for it forever (seen in CI, under load, with
 * sessions starting beside).
 */
void analyzer_bt_plugins_preload(void);

#endif /* DPS_ANALYZER_BT_SOURCE_H */
