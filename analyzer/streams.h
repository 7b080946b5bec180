/* SPDX-License-Identifier: MIT */
/*
 * The stream files of a trace checked against each other and against the trace's LTTng index
 * (streams.c): what babeltrace2 reads without a word when a stream file is missing or is
 * there twice. No babeltrace2 here.
 */
#ifndef DPS_ANALYZER_STREAMS_H
#define DPS_ANALYZER_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/*
 * What an LTTng index file (TRACE/index/NAME.idx) says of its stream file, from its header
 * and its first and last entries only. ids: an index 1.1 or later, whose entries give the
 * stream class id, the stream instance id and each packet's sequence number; without them
 * (index 1.0) those members are 0.
 */
struct analyzer_index_summary {
	uint32_t major, minor;
	uint64_t n_packets;
	bool ids;
	uint64_t stream_id, instance_id;
	uint64_t first_seq, last_seq;
	uint64_t first_begin, last_end; /* the packets' timestamps, in clock cycles */
};

/*
 * Reads the summary of the index file at path. Returns true when it is an LTTng index (magic
 * 0xC1F1DCC1, major 1, entries of at least 7 fields, a whole number of them); false when it
 * cannot be read or is not one (*out is then zeroed).
 */
bool analyzer_index_read(const char *path, struct analyzer_index_summary *out);

/*
 * Checks the stream files of the trace in directory trace (borrowed): appends to skips
 * (char *, g_free) one message per finding, each naming the trace's files, and to left_out
 * (char *, g_free; may be NULL) the path of each stream file that must not be read (a copy of
 * another). Findings:
 *  - TRACE/index/NAME.idx without a file TRACE/NAME: a stream file missing;
 *  - two stream files whose first packets are the same, byte for byte: one is a copy, left out
 *    (the one without an index, else the one whose name is not like the others', else the
 *    later name);
 *  - two stream files whose indexes (1.1) give the same first packet (stream class and instance
 *    ids, sequence number, time): the later one is a duplicate, left out;
 *  - stream instance ids of a stream class absent between others (LTTng numbers each channel's
 *    streams by CPU): streams missing with their index files.
 * Reads at most the first 4 KiB of each stream file and the header and two entries of each
 * index; never fails (a file it cannot read is passed over: babeltrace2 says what it cannot
 * read).
 */
void analyzer_streams_check(const char *trace, GPtrArray *skips, GPtrArray *left_out);

#endif /* DPS_ANALYZER_STREAMS_H */
