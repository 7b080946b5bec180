/* SPDX-License-Identifier: MIT */
/*
 * The contained decoder's side (contain.c has the parent's and the protocol): in a forked
 * child, the source (bt-source.c) decodes the traces and this file sends the neutral events
 * to the parent in batches, each in a slot of the shared mapping, with its strings copied
 * into the slot (a pointer becomes 1 + its offset there). It exits when its work is sent or
 * when the parent is gone (a write to a closed pipe, PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <glib.h>

#include <dps/dps-status.h>

#include "contain-wire.h"

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			_exit(1); /* the parent is gone */
		}
		p += n;
		len -= (size_t)n;
	}
}

static void send_msg(int fd, uint32_t type, const void *a, size_t a_len, const void *b,
		     size_t b_len)
{
	struct msg_head h = {type, (uint32_t)(a_len + b_len)};
	struct iovec iov[3] = {{&h, sizeof(h)}, {(void *)a, a_len}, {(void *)b, b_len}};
	size_t total = sizeof(h) + a_len + b_len;
	ssize_t n;

	do {
		n = writev(fd, iov, 3);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		_exit(1);
	}
	if ((size_t)n < total) {
		/* the rest, the slow way */
		GByteArray *rest = g_byte_array_new();

		g_byte_array_append(rest, (const guint8 *)&h, sizeof(h));
		g_byte_array_append(rest, a, (guint)a_len);
		g_byte_array_append(rest, b, (guint)b_len);
		write_all(fd, rest->data + n, total - (size_t)n);
		g_byte_array_free(rest, TRUE);
	}
}

static void send_str(int fd, uint32_t type, const char *s)
{
	send_msg(fd, type, s, strlen(s) + 1, NULL, 0);
}

static void send_error(int fd, int status, const char *msg)
{
	int32_t st = status;

	send_msg(fd, MSG_ERROR, &st, sizeof(st), msg, strlen(msg) + 1);
}

struct batch {
	struct slot *slot; /* borrowed: in the shared mapping, NULL before the first */
	uint32_t index, n;
	size_t strings_len;
};

/* A string's place in the batch: 1 + its offset, 0 for NULL. */
static const char *put_str(struct batch *b, const char *s)
{
	size_t off = b->strings_len, len;

	if (!s) {
		return NULL;
	}
	len = strnlen(s, MAX_STRING - 1);
	memcpy(b->slot->strings + off, s, len);
	b->slot->strings[off + len] = '\0';
	b->strings_len += len + 1;
	return (const char *)(uintptr_t)(off + 1);
}

/* Waits for a slot the parent gave back. */
static void take_slot(int free_fd, struct analyzer_decoder_shared *sh, struct batch *b)
{
	uint32_t index;
	ssize_t n;

	do {
		n = read(free_fd, &index, sizeof(index));
	} while (n < 0 && errno == EINTR);
	if (n != sizeof(index) || index >= N_SLOTS) {
		_exit(1); /* the parent is gone */
	}
	b->slot = &sh->slots[index];
	b->index = index;
	b->n = 0;
	b->strings_len = 0;
}

static void flush(int fd, int free_fd, struct analyzer_decoder_shared *sh, struct batch *b)
{
	uint32_t msg[2] = {b->index, b->n};

	if (!b->n) {
		return;
	}
	send_msg(fd, MSG_EVENTS, msg, sizeof(msg), NULL, 0);
	take_slot(free_fd, sh, b);
}

void analyzer__run_decoder(int fd, int free_fd, const struct analyzer_decoder_input *input,
			   struct analyzer_decoder_shared *sh)
{
	struct analyzer_decode_status *st = &sh->st;
	struct batch b = {0};
	struct analyzer_source *src = NULL;
	struct dps_diag diag = {""};
	struct analyzer_event ev;
	uint32_t has_sched;
	int status;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (input->views) {
		status = analyzer_source_open_views(input->views, input->n_views, input->progress,
						    st, &src, &diag);
	} else {
		status = analyzer_source_open(input->paths, input->n_paths, input->progress, st,
					      &src, &diag);
	}
	if (status) {
		send_error(fd, status, diag.msg);
		_exit(0);
	}
	has_sched = analyzer_source_has_sched(src);
	send_msg(fd, MSG_OPEN, &has_sched, sizeof(has_sched),
		 analyzer_source_borrow_description(src),
		 strlen(analyzer_source_borrow_description(src)) + 1);
	for (size_t i = 0; i < analyzer_source_skip_count(src); i++) {
		send_str(fd, MSG_SKIP, analyzer_source_borrow_skip(src, i));
	}
	take_slot(free_fd, sh, &b);
	while ((status = analyzer_source_next(src, &ev, &diag)) == ANALYZER_SOURCE_EVENT) {
		struct analyzer_event *e = &b.slot->ev[b.n];

		*e = ev;
		e->ctx_comm = put_str(&b, ev.ctx_comm);
		e->raw.s[0] = put_str(&b, ev.raw.s[0]);
		e->raw.s[1] = put_str(&b, ev.raw.s[1]);
		if (input->views) {
			b.slot->key[b.n] = analyzer_source_order_key(src);
			if (b.slot->key[b.n] == UINT64_MAX) {
				dps_diag_setf(&diag,
					      "%s: its streams cannot be ordered across stream "
					      "groups (a stream class or stream id too large): use "
					      "--decode-jobs 1",
					      st->trace);
				status = DPS_ERROR;
				break;
			}
		}
		b.n++;
		if (b.n == BATCH_EVENTS || b.strings_len >= BATCH_STRINGS) {
			flush(fd, free_fd, sh, &b);
		}
	}
	flush(fd, free_fd, sh, &b);
	if (status < 0) {
		send_error(fd, status, diag.msg);
	} else {
		send_msg(fd, MSG_END, NULL, 0, NULL, 0);
	}
	_exit(0);
}
