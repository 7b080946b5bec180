/* SPDX-License-Identifier: MIT */
/*
 * The wire between a contained decoder (contain-child.c, a forked child) and the parent that
 * watches it and merges its events (contain.c): the messages on the pipe, the shared mapping
 * of event slots and the decoder's status, and what a decoder is asked to read. Internal to
 * those two files; contain.c's header comment describes the protocol.
 */
#ifndef DPS_ANALYZER_CONTAIN_WIRE_H
#define DPS_ANALYZER_CONTAIN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt-source.h"
#include "event.h"

enum msg_type {
	MSG_OPEN = 1, /* payload: uint32 has_sched, the description (NUL-terminated) */
	MSG_SKIP,     /* payload: one skip message */
	MSG_EVENTS,   /* payload: uint32 slot, uint32 n: the events are in the slot */
	MSG_ERROR,    /* payload: int32 status, the message */
	MSG_END,
};

struct msg_head {
	uint32_t type;
	uint32_t len;
};

/* A batch: this many events or this many bytes of strings, whichever comes first. */
#define BATCH_EVENTS 2048
#define BATCH_STRINGS (64 * 1024)
/* A longer string is cut (names are at most 16 bytes, exec's filename a path). */
#define MAX_STRING 4096
#define N_SLOTS 8

struct slot {
	struct analyzer_event ev[BATCH_EVENTS];
	uint64_t key[BATCH_EVENTS]; /* stream groups: each event's order key */
	char strings[BATCH_STRINGS + 3 * MAX_STRING];
};

/* The shared mapping. */
struct analyzer_decoder_shared {
	struct analyzer_decode_status st;
	struct slot slots[N_SLOTS];
};

/* What a decoder reads: the traces below paths, or views of stream groups. */
struct analyzer_decoder_input {
	const char *const *paths;
	size_t n_paths;
	const struct analyzer_source_view *views; /* NULL: paths */
	size_t n_views;
	bool progress;
};

/* The child's side: opens the input, sends OPEN, the skips, the events in slots and END or
 * ERROR on fd, takes slots back from free_fd; never returns (_exit). */
__attribute__((noreturn)) void analyzer__run_decoder(int fd, int free_fd,
						     const struct analyzer_decoder_input *input,
						     struct analyzer_decoder_shared *sh);

#endif
