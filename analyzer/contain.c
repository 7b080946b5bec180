/* SPDX-License-Identifier: MIT */
/*
 * The parent's side of a contained decoder: starting each child, watching it (progress,
 * memory, the search for the stream a decoder outgrew its memory on), reading its batches
 * and merging stream groups. The child's side is contain-child.c, the wire between them
 * contain-wire.h.
 *
 * The decoder in a child process. libbabeltrace2 2.0.4 loops forever on some truncated
 * metadata and aborts on some corrupted streams; in dps's own process either would hang or
 * kill dps without a word. So the source (bt-source.c) runs in a forked child and sends the
 * neutral events through a pipe, in batches; the parent feeds them to the core. Decoding and
 * analysis then run on different cores.
 *
 * Concurrency: a parent and its decoders. The events go through shared memory: N_SLOTS
 * batches, each filled by the child and read in place by the parent (no copy through the
 * kernel). A slot changes hands by messages: the child sends EVENTS {slot, count} on the pipe
 * once it has filled it, the parent gives it back on a socket (free_fd) once it has consumed
 * it (a socket, not a pipe: MSG_NOSIGNAL, so a dead child does not SIGPIPE the parent). The
 * child also keeps a small status in shared memory (struct analyzer_decode_status: the trace,
 * stream and packet offset it is at, and a beat counter it increments as it makes progress).
 * The parent reads the pipe; when nothing comes, it looks at the beat and at the child's page
 * faults and reads (decoder_activity): both unchanged for the watchdog period, the child is
 * killed (SIGKILL) and the status says where it stalled. A child that dies (a signal, or an
 * exit before its END) is reported with the same location. The status is read only once the
 * child is dead.
 *
 * Wire format: messages { uint32 type, uint32 length } + payload. EVENTS carries a slot and a
 * count; in the slot, the events as struct analyzer_event with each string pointer replaced by
 * 1 + its offset in the slot's strings (0 = NULL).
 *
 * Stream groups (analyzer_contained_open's jobs > 1): the traces' stream files are split into
 * groups of similar size, each shown to babeltrace2 as a view (a temporary directory of
 * symlinks: the metadata and the group's files), each group decoded by its own child as
 * above. The parent merges the children's events by (ts, order key): the key is the place
 * babeltrace2's muxer gives a stream among the trace's streams at equal times (bt-source.c,
 * compute_stream_key), so the merge gives the events in the order one decoder on every stream
 * gives them; the fields one decoder skips for a thread it described already are dropped in
 * that order too (analyzer_known_filter). The groups and their views: groups.c.
 *
 * Termination: the child _exit()s after END or ERROR (no atexit handlers of the parent: a
 * test runner's, stdio buffers copied at fork); it dies with the parent (PR_SET_PDEATHSIG),
 * and on a write to a closed pipe. analyzer_contained_close kills and reaps it.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>
#include <glib.h>

#include <dps/dps-status.h>

#include "bt-source.h"
#include "contain-wire.h"
#include "contain.h"
#include "groups.h"

/* The parent looks at the decoder's beat this often while it waits. */
#define POLL_MS 200

/* One decoding child and what the parent holds of it. */
struct decoder {
	pid_t pid;			    /* the decoder; 0 once reaped */
	int fd;				    /* owned: the pipe's read end */
	int free_fd;			    /* owned: the socket that gives slots back */
	struct analyzer_decoder_shared *sh; /* owned: shared mapping */
	struct analyzer_decode_status *st;  /* borrowed: &sh->st */
	int32_t held;			    /* the slot being consumed, -1 none */
	int64_t timeout_ns;
	unsigned char *buf; /* owned: the message being consumed */
	size_t cap;
	const struct analyzer_event *events; /* borrowed from sh: the current batch */
	const uint64_t *keys;
	const char *strings;
	size_t n_events, next;
	bool ended;
	uint64_t last_beat; /* the beat plus the decoder's activity, last seen */
	int64_t last_change_ns;
	uint64_t memory_limit_kib; /* its anonymous memory may not grow past this */
	bool over_memory;	   /* killed for growing past it */
	int64_t last_memory_check_ns;
};

struct analyzer_contained {
	struct decoder *dec; /* owned: n_dec decoders */
	size_t n_dec;
	bool has_sched;
	char *description; /* owned */
	GPtrArray *skips;  /* owned: char * (g_free) */
	/* Stream groups: the plan, the merge's state (the decoder being drained while it stays
	 * before every other's head), each trace's last event time, the `known` table. */
	struct analyzer_groups *plan;
	struct decoder *cur;
	uint64_t second_ts, second_key;
	uint64_t *last_ts;
	uint8_t *known;
	bool progress, progress_shown;
	uint64_t n_merged, next_progress;
	int64_t t0_ns;
	/* to find the stream of a decoder that outgrew its memory (locate_runaway) */
	char **paths; /* owned: n_paths copies of the inputs */
	size_t n_paths;
	int64_t timeout_ns;
};

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/*
 * The parent
 */
static const char *signal_name(int sig)
{
	const char *abbrev = sigabbrev_np(sig);
	static char buf[32];

	snprintf(buf, sizeof(buf), "SIG%s", abbrev ? abbrev : "?");
	return buf;
}

/* Where the decoder was: ", stream S, packet N at byte O, after N events". */
static void locate(const struct analyzer_decode_status *st, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (st->stream[0]) {
		len += (size_t)snprintf(buf + len, size - len, ", stream %s", st->stream);
		if (st->n_packet && len < size) {
			len += (size_t)snprintf(buf + len, size - len, ", packet %" PRIu64,
						st->n_packet);
			if (st->packet_offset != UINT64_MAX && len < size) {
				len += (size_t)snprintf(buf + len, size - len, " at byte %" PRIu64,
							st->packet_offset);
			}
		}
	}
	if (len < size) {
		snprintf(buf + len, size - len, ", after %" PRIu64 " events", st->n_events);
	}
}

/* The decoders reaped so far by this process: the sum of their peak RSS (KiB). */
static long reaped_rss_kib;

long analyzer_contained_reaped_rss_kib(void)
{
	return reaped_rss_kib;
}

/* waitpid, and the child's peak RSS added to reaped_rss_kib. */
static void reap(pid_t pid, int *ws)
{
	struct rusage ru;
	pid_t r;

	while ((r = wait4(pid, ws, 0, &ru)) < 0 && errno == EINTR) {
	}
	if (r == pid) {
		reaped_rss_kib += ru.ru_maxrss;
	}
}

/* Reaps the decoder; says why it ended without finishing. Returns DPS_ERROR. */
static int decoder_gone(struct decoder *d, struct dps_diag *diag)
{
	char where[2200];
	int ws = 0;

	if (d->pid > 0) {
		reap(d->pid, &ws);
	}
	d->pid = 0;
	locate(d->st, where, sizeof(where));
	if (WIFSIGNALED(ws)) {
		dps_diag_setf(diag,
			      "%s: babeltrace2 crashed (%s) while %s%s: the trace is damaged "
			      "there",
			      d->st->trace, signal_name(WTERMSIG(ws)), d->st->step, where);
	} else {
		dps_diag_setf(diag,
			      "%s: the trace decoder ended unexpectedly (exit status %d) while "
			      "%s%s",
			      d->st->trace, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, d->st->step,
			      where);
	}
	return DPS_ERROR;
}

/* Kills and reaps a running decoder; where it was into where. */
static void decoder_kill(struct decoder *d, char *where, size_t size)
{
	kill(d->pid, SIGKILL);
	reap(d->pid, NULL);
	d->pid = 0;
	locate(d->st, where, size);
}

/* Kills a decoder that made no progress for the watchdog period. Returns DPS_ERROR. */
static int decoder_stalled(struct decoder *d, struct dps_diag *diag)
{
	char where[2200];

	decoder_kill(d, where, sizeof(where));
	dps_diag_setf(diag,
		      "%s: babeltrace2 made no progress for %.1f s while %s%s: stopped (the "
		      "trace is likely damaged there, e.g. truncated metadata; "
		      "DPS_DECODE_TIMEOUT=SECONDS sets the wait)",
		      d->st->trace, (double)d->timeout_ns / 1e9, d->st->step, where);
	return DPS_ERROR;
}

/* The decoder's anonymous resident memory (KiB; /proc/PID/status RssAnon), 0 if unknown. */
static uint64_t decoder_anon_kib(pid_t pid)
{
	char path[64], line[256];
	unsigned long long kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "RssAnon: %llu", &kib) == 1) {
			break;
		}
	}
	fclose(f);
	return (uint64_t)kib;
}

/*
 * The memory bound: a damaged length (a dynamic array's, a string's) makes babeltrace2
 * allocate and fill without end, which the progress watchdog takes for work. Past the bound
 * the decoder is killed and the error names where it was. Returns DPS_OK, or DPS_ERROR (diag
 * says).
 */
static int decoder_check_memory(struct decoder *d, int64_t now, struct dps_diag *diag)
{
	char where[2200];
	uint64_t kib;

	if (now - d->last_memory_check_ns < (int64_t)POLL_MS * 1000000) {
		return DPS_OK;
	}
	d->last_memory_check_ns = now;
	kib = decoder_anon_kib(d->pid);
	if (kib <= d->memory_limit_kib) {
		return DPS_OK;
	}
	decoder_kill(d, where, sizeof(where));
	d->over_memory = true;
	dps_diag_setf(diag,
		      "%s: babeltrace2's memory grew past %" PRIu64 " MiB while %s%s: stopped "
		      "(the trace is likely damaged there, e.g. a corrupted array or string "
		      "length; DPS_DECODE_MEMORY=MIB sets the bound)",
		      d->st->trace, d->memory_limit_kib / 1024, d->st->step, where);
	return DPS_ERROR;
}

/*
 * What the decoder's process did, as one number that grows while it works: its page faults
 * and the bytes it read (/proc). babeltrace2 indexes every stream file before the first event
 * (a long time on a large trace without index files) without coming back to us to beat; that
 * work touches new pages of the files. A loop on metadata touches nothing new.
 */
static uint64_t decoder_activity(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long minflt = 0, majflt = 0, rchar = 0;
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		/* after the name in parentheses: state ppid pgrp session tty tpgid flags minflt
		 * cminflt majflt */
		p = strrchr(buf, ')');
		if (p) {
			sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", &minflt,
			       &majflt);
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "rchar: %llu", &rchar) != 1) {
			rchar = 0;
		}
		fclose(f);
	}
	return (uint64_t)(minflt + majflt + rchar);
}

/* Reads exactly len bytes, watching the decoder. Returns DPS_OK or DPS_ERROR (diag says). */
static int read_exact(struct decoder *d, void *buf, size_t len, struct dps_diag *diag)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = {.fd = d->fd, .events = POLLIN};
		int r = poll(&pfd, 1, POLL_MS);
		ssize_t n;

		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			dps_diag_setf(diag, "cannot wait for the trace decoder: %s",
				      strerror(errno));
			return DPS_ERROR;
		}
		if (decoder_check_memory(d, now_ns(), diag)) {
			return DPS_ERROR;
		}
		if (r == 0) {
			uint64_t beat = d->st->beat + decoder_activity(d->pid);
			int64_t now = now_ns();

			if (beat != d->last_beat) {
				d->last_beat = beat;
				d->last_change_ns = now;
			} else if (now - d->last_change_ns >= d->timeout_ns) {
				return decoder_stalled(d, diag);
			}
			continue;
		}
		n = read(d->fd, p, len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return decoder_gone(d, diag);
		}
		d->last_change_ns = now_ns();
		p += n;
		len -= (size_t)n;
	}
	return DPS_OK;
}

/* Reads the next message into d->buf: its type in *type, its length in *len. */
static int read_msg(struct decoder *d, uint32_t *type, size_t *len, struct dps_diag *diag)
{
	struct msg_head h;
	int status;

	status = read_exact(d, &h, sizeof(h), diag);
	if (status) {
		return status;
	}
	if (h.len + 1 > d->cap) {
		unsigned char *p = realloc(d->buf, (size_t)h.len + 1);

		if (!p) {
			dps_diag_setf(diag, "out of memory reading the trace decoder's events");
			return DPS_ERR_NOMEM;
		}
		d->buf = p;
		d->cap = (size_t)h.len + 1;
	}
	status = read_exact(d, d->buf, h.len, diag);
	if (status) {
		return status;
	}
	d->buf[h.len] = '\0'; /* every string payload ends inside */
	*type = h.type;
	*len = h.len;
	return DPS_OK;
}

/* An error the decoder reported (babeltrace2's causes): where it was, when the message does
 * not say it already. */
static int take_error(struct decoder *d, size_t len, struct dps_diag *diag)
{
	int32_t status = DPS_ERROR;
	const char *msg = "";
	char where[2200];

	if (len >= sizeof(status)) {
		memcpy(&status, d->buf, sizeof(status));
		msg = (const char *)d->buf + sizeof(status);
	}
	where[0] = '\0';
	if (d->st->stream[0] && !strstr(msg, d->st->stream)) {
		locate(d->st, where, sizeof(where));
	}
	dps_diag_setf(diag, "%s%s%s%s", msg, where[0] ? " (at" : "", where[0] ? where + 1 : "",
		      where[0] ? ")" : "");
	return status < 0 ? status : DPS_ERROR;
}

/* One message that is not a batch of events. Returns DPS_OK, or an error status. */
static int take_msg(struct analyzer_contained *c, struct decoder *d, uint32_t type, size_t len,
		    struct dps_diag *diag)
{
	switch (type) {
	case MSG_SKIP:
		g_ptr_array_add(c->skips, g_strdup((const char *)d->buf));
		return DPS_OK;
	case MSG_ERROR:
		return take_error(d, len, diag);
	case MSG_END:
		d->ended = true;
		return DPS_OK;
	default:
		dps_diag_setf(diag, "the trace decoder sent a bad message (type %" PRIu32 ")",
			      type);
		return DPS_ERROR;
	}
}

/*
 * Makes d's next event available (d->next < d->n_events), or d->ended: gives the consumed
 * slot back and reads the next batch. Returns DPS_OK or an error status (diag says).
 */
static int next_batch(struct analyzer_contained *c, struct decoder *d, struct dps_diag *diag)
{
	while (d->next == d->n_events && !d->ended) {
		uint32_t type, msg[2];
		size_t len;
		int status;

		if (d->held >= 0) {
			uint32_t index = (uint32_t)d->held;

			/* the events and strings of the slot are no longer used: give it back (a
			 * dead decoder is noticed on the pipe); the decoder may have waited for it
			 * as long as the other decoders kept the parent busy */
			d->held = -1;
			d->n_events = d->next = 0;
			(void)!send(d->free_fd, &index, sizeof(index), MSG_NOSIGNAL);
			d->last_change_ns = now_ns();
		}
		status = read_msg(d, &type, &len, diag);
		if (status) {
			return status;
		}
		if (type != MSG_EVENTS) {
			status = take_msg(c, d, type, len, diag);
			if (status) {
				return status;
			}
			continue;
		}
		memcpy(msg, d->buf, len < sizeof(msg) ? len : sizeof(msg));
		if (len != sizeof(msg) || msg[0] >= N_SLOTS || msg[1] > BATCH_EVENTS) {
			dps_diag_setf(diag, "the trace decoder sent a bad batch of events");
			return DPS_ERROR;
		}
		d->held = (int32_t)msg[0];
		d->events = d->sh->slots[msg[0]].ev;
		d->keys = d->sh->slots[msg[0]].key;
		d->strings = d->sh->slots[msg[0]].strings;
		d->n_events = msg[1];
		d->next = 0;
	}
	return DPS_OK;
}

/* Takes d's next event (next_batch made it available) into *ev, its strings resolved. */
static void take_event(struct decoder *d, struct analyzer_event *ev)
{
	*ev = d->events[d->next++];
	if (ev->ctx_comm) {
		ev->ctx_comm = d->strings + ((uintptr_t)ev->ctx_comm - 1);
	}
	for (size_t i = 0; i < ANALYZER_EV_STRS; i++) {
		if (ev->raw.s[i]) {
			ev->raw.s[i] = d->strings + ((uintptr_t)ev->raw.s[i] - 1);
		}
	}
}

static int64_t timeout_from_env(int64_t timeout_ns)
{
	const char *env = getenv("DPS_DECODE_TIMEOUT");
	char *end;
	double s;

	if (timeout_ns > 0) {
		return timeout_ns;
	}
	if (env && *env) {
		s = strtod(env, &end);
		if (end != env && !*end && s > 0 && s < 1e6) {
			return (int64_t)(s * 1e9);
		}
		fprintf(stderr,
			"dps: warning: DPS_DECODE_TIMEOUT='%s' is not a number of "
			"seconds: using 10 s\n",
			env);
	}
	return ANALYZER_DEFAULT_DECODE_TIMEOUT_NS;
}

/* The memory bound of one decoder (KiB): DPS_DECODE_MEMORY (MiB), or the default. */
static uint64_t memory_limit_from_env(void)
{
	const char *env = getenv("DPS_DECODE_MEMORY");
	char *end;
	double mib;

	if (env && *env) {
		mib = strtod(env, &end);
		if (end != env && !*end && mib >= 1 && mib < 1e9) {
			return (uint64_t)(mib * 1024);
		}
		fprintf(stderr,
			"dps: warning: DPS_DECODE_MEMORY='%s' is not a number of MiB: using "
			"%d MiB\n",
			env, ANALYZER_DEFAULT_DECODE_MEMORY_MIB);
	}
	return (uint64_t)ANALYZER_DEFAULT_DECODE_MEMORY_MIB * 1024;
}

/* Forks a decoder on input. Returns DPS_OK or DPS_ERROR (diag says). */
static int decoder_start(struct decoder *d, const struct analyzer_decoder_input *input,
			 int64_t timeout_ns, struct dps_diag *diag)
{
	int fds[2] = {-1, -1}, socks[2] = {-1, -1};
	int status = DPS_ERROR;

	d->timeout_ns = timeout_ns;
	d->memory_limit_kib = memory_limit_from_env();
	d->sh =
	    mmap(NULL, sizeof(*d->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (d->sh == MAP_FAILED) {
		d->sh = NULL;
		dps_diag_setf(diag, "cannot map the trace decoder's status: %s", strerror(errno));
		goto end;
	}
	d->st = &d->sh->st; /* zeroed, as any new anonymous mapping */
	snprintf(d->st->step, sizeof(d->st->step), "looking for traces");
	/* named before the decoder knows its traces: a stall while it looks names the input */
	if (input->n_paths) {
		snprintf(d->st->trace, sizeof(d->st->trace), "%s%s", input->paths[0],
			 input->n_paths > 1 ? " (and the other inputs)" : "");
	}
	d->st->packet_offset = UINT64_MAX;
	if (pipe2(fds, O_CLOEXEC) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, socks)) {
		dps_diag_setf(diag, "cannot create a pipe for the trace decoder: %s",
			      strerror(errno));
		goto end;
	}
	/* every slot free at the start (a few bytes: the socket takes them without blocking) */
	for (uint32_t i = 0; i < N_SLOTS; i++) {
		if (send(socks[0], &i, sizeof(i), MSG_NOSIGNAL) != sizeof(i)) {
			dps_diag_setf(diag, "cannot start the trace decoder: %s", strerror(errno));
			goto end;
		}
	}
	fflush(NULL);
	d->pid = fork();
	if (d->pid < 0) {
		d->pid = 0;
		dps_diag_setf(diag, "cannot start the trace decoder: %s", strerror(errno));
		goto end;
	}
	if (d->pid == 0) {
		close(fds[0]);
		close(socks[0]);
		analyzer__run_decoder(fds[1], socks[1], input, d->sh);
	}
	d->fd = fds[0];
	d->free_fd = socks[0];
	fds[0] = socks[0] = -1;
	d->last_change_ns = now_ns();
	status = DPS_OK;
end:
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0) {
			close(fds[i]);
		}
		if (socks[i] >= 0) {
			close(socks[i]);
		}
	}
	return status;
}

/* Reads a started decoder's messages up to its OPEN (skips first). Returns DPS_OK or an error
 * status (diag says). */
static int decoder_opened(struct analyzer_contained *c, struct decoder *d, bool *has_sched,
			  char **description, struct dps_diag *diag)
{
	for (;;) {
		uint32_t type;
		size_t len;
		int status = read_msg(d, &type, &len, diag);

		if (status) {
			return status;
		}
		if (type == MSG_OPEN && len > sizeof(uint32_t)) {
			uint32_t sched;

			memcpy(&sched, d->buf, sizeof(sched));
			*has_sched = sched != 0;
			*description = g_strdup((const char *)d->buf + sizeof(sched));
			return DPS_OK;
		}
		status = take_msg(c, d, type, len, diag);
		if (status) {
			return status;
		}
	}
}

static void decoder_close(struct decoder *d)
{
	if (d->fd >= 0) {
		close(d->fd);
	}
	if (d->free_fd >= 0) {
		close(d->free_fd);
	}
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		reap(d->pid, NULL);
	}
	if (d->sh) {
		munmap(d->sh, sizeof(*d->sh));
	}
	free(d->buf);
}

/* The number of decoders when the caller leaves it to dps: one per online CPU. */
static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int analyzer_contained_open(const char *const *paths, size_t n_paths, int jobs, bool progress,
			    int64_t timeout_ns, struct analyzer_contained **out,
			    struct dps_diag *diag)
{
	struct analyzer_contained *c = g_new0(struct analyzer_contained, 1);
	int status;

	*out = NULL;
	c->skips = g_ptr_array_new_with_free_func(g_free);
	timeout_ns = timeout_from_env(timeout_ns);
	c->paths = g_new0(char *, n_paths + 1);
	for (size_t i = 0; i < n_paths; i++) {
		c->paths[i] = g_strdup(paths[i]);
	}
	c->n_paths = n_paths;
	c->timeout_ns = timeout_ns;
	if (jobs <= 0) {
		jobs = default_jobs();
	}
	if (n_paths) { /* with jobs 1 too: a copy of a stream file is left out by a view */
		status =
		    analyzer_groups_plan(paths, n_paths, (size_t)jobs, &c->plan, c->skips, diag);
		if (status) {
			goto error;
		}
	}
	c->n_dec = c->plan ? c->plan->n_groups : 1;
	analyzer_bt_plugins_preload();
	c->dec = g_new0(struct decoder, c->n_dec);
	for (size_t i = 0; i < c->n_dec; i++) {
		c->dec[i].fd = c->dec[i].free_fd = -1;
		c->dec[i].held = -1;
	}
	for (size_t i = 0; i < c->n_dec; i++) {
		struct analyzer_decoder_input input = {paths, n_paths, NULL, 0, progress};

		if (c->plan) {
			input.views = c->plan->views + i * c->plan->traces->len;
			input.n_views = c->plan->traces->len;
			input.progress = false; /* the parent's: every group's events */
		}
		status = decoder_start(&c->dec[i], &input, timeout_ns, diag);
		if (status) {
			goto error;
		}
	}
	/* skips and the traces' nature come before any event */
	for (size_t i = 0; i < c->n_dec; i++) {
		bool sched = false;
		char *description = NULL;

		status = decoder_opened(c, &c->dec[i], &sched, &description, diag);
		if (status) {
			goto error;
		}
		c->has_sched = c->has_sched || sched;
		if (!c->description) {
			c->description = description;
		} else {
			g_free(description);
		}
	}
	if (c->plan) {
		c->known = calloc(ANALYZER_KNOWN_MAX, 1);
		c->last_ts = calloc(c->plan->traces->len, sizeof(*c->last_ts));
		if (!c->known || !c->last_ts) {
			dps_diag_setf(diag, "out of memory");
			status = DPS_ERR_NOMEM;
			goto error;
		}
		c->progress = progress && isatty(STDERR_FILENO);
		c->next_progress = 1u << 18;
		c->t0_ns = now_ns();
	}
	*out = c;
	return DPS_OK;
error:
	analyzer_contained_close(c);
	return status;
}

/* (ts, key) before (ts2, key2). */
static bool before(uint64_t ts, uint64_t key, uint64_t ts2, uint64_t key2)
{
	return ts < ts2 || (ts == ts2 && key < key2);
}

/* The decoder whose head comes first into c->cur (NULL: all ended), the next one's head into
 * c->second_ts/second_key. */
static int pick_decoder(struct analyzer_contained *c, struct dps_diag *diag)
{
	struct decoder *best = NULL;
	uint64_t best_ts = 0, best_key = 0;

	c->second_ts = c->second_key = UINT64_MAX;
	for (size_t i = 0; i < c->n_dec; i++) {
		struct decoder *d = &c->dec[i];
		uint64_t ts, key;
		int status = next_batch(c, d, diag);

		if (status) {
			return status;
		}
		if (d->next == d->n_events) {
			continue; /* ended */
		}
		ts = d->events[d->next].ts;
		key = d->keys[d->next];
		if (!best || before(ts, key, best_ts, best_key)) {
			if (best) {
				c->second_ts = best_ts;
				c->second_key = best_key;
			}
			best = d;
			best_ts = ts;
			best_key = key;
		} else if (before(ts, key, c->second_ts, c->second_key)) {
			c->second_ts = ts;
			c->second_key = key;
		}
	}
	c->cur = best;
	return DPS_OK;
}

static void show_progress(struct analyzer_contained *c, bool last)
{
	uint64_t n = 0;
	double el;

	if (last) {
		if (c->progress_shown) {
			fprintf(stderr, "\r\033[K");
		}
		return;
	}
	el = (double)(now_ns() - c->t0_ns) / 1e9;
	if (el < 1.0) {
		return;
	}
	for (size_t i = 0; i < c->n_dec; i++) {
		n += c->dec[i].st->n_events;
	}
	c->progress_shown = true;
	fprintf(stderr, "\rdps analyze: %" PRIu64 " events read (%.1f M/s)", n, n / el / 1e6);
}

/* The next event of the stream groups' merge. */
static int merge_next(struct analyzer_contained *c, struct analyzer_event *ev,
		      struct dps_diag *diag)
{
	struct decoder *d = c->cur;
	uint64_t key;
	size_t trace;
	int status;

	if (d) {
		status = next_batch(c, d, diag);
		if (status) {
			return status;
		}
	}
	if (!d || d->next == d->n_events ||
	    !before(d->events[d->next].ts, d->keys[d->next], c->second_ts, c->second_key)) {
		status = pick_decoder(c, diag);
		if (status) {
			return status;
		}
		if (!c->cur) {
			if (c->progress) {
				show_progress(c, true);
			}
			return ANALYZER_SOURCE_END;
		}
		d = c->cur;
	}
	key = d->keys[d->next];
	take_event(d, ev);
	trace = (size_t)(key >> 52);
	if (ev->kind == ANALYZER_EV_DISCARDED) {
		if (ev->flags & ANALYZER_EVF_TS_LAST) {
			/* the trace's last event, of every group */
			ev->flags &= ~ANALYZER_EVF_TS_LAST;
			ev->ts = c->last_ts[trace];
			ev->discarded.end_ts = (int64_t)c->last_ts[trace];
		}
	} else {
		c->last_ts[trace] = ev->ts;
	}
	analyzer_known_filter(c->known, ev);
	if (c->progress && ++c->n_merged >= c->next_progress) {
		c->next_progress = c->n_merged + (1u << 18);
		show_progress(c, false);
	}
	return ANALYZER_SOURCE_EVENT;
}

/* Reads a decoder's messages to its END, giving every batch back unread. Returns DPS_OK or
 * an error status (diag says). */
static int drain(struct decoder *d, struct dps_diag *diag)
{
	for (;;) {
		uint32_t type, msg[2];
		size_t len;
		int32_t status = read_msg(d, &type, &len, diag);

		if (status) {
			return status;
		}
		switch (type) {
		case MSG_EVENTS:
			memcpy(msg, d->buf, len < sizeof(msg) ? len : sizeof(msg));
			(void)!send(d->free_fd, &msg[0], sizeof(msg[0]), MSG_NOSIGNAL);
			break;
		case MSG_ERROR:
			return take_error(d, len, diag);
		case MSG_END:
			return DPS_OK;
		default:
			break; /* OPEN, SKIP */
		}
	}
}

/*
 * After a decoder outgrew its memory bound: the event it was at may be in another stream
 * than the one babeltrace2 was decoding (its muxer reads every stream ahead). So each stream
 * file (or part of a large one) is decoded alone under the same bound; the first that grows
 * past it replaces diag's message, which then names the right stream file and offset.
 */
static void locate_runaway(struct analyzer_contained *c, struct dps_diag *diag)
{
	GPtrArray *skips = g_ptr_array_new_with_free_func(g_free);
	struct analyzer_groups *plan = NULL;
	struct dps_diag scratch = {""};

	if (analyzer_groups_plan((const char *const *)c->paths, c->n_paths, 1u << 20, &plan, skips,
				 &scratch) ||
	    !plan) {
		goto end;
	}
	for (size_t i = 0; i < plan->n_groups; i++) {
		struct decoder d = {.fd = -1, .free_fd = -1, .held = -1};
		struct analyzer_decoder_input input = {(const char *const *)c->paths, c->n_paths,
						       plan->views + i * plan->traces->len,
						       plan->traces->len, false};
		bool found;

		if (!decoder_start(&d, &input, c->timeout_ns, &scratch)) {
			(void)drain(&d, &scratch);
		}
		found = d.over_memory;
		decoder_close(&d);
		if (found) {
			dps_diag_setf(diag, "%s", scratch.msg);
			break;
		}
	}
end:
	analyzer_groups_free(plan);
	g_ptr_array_unref(skips);
}

int analyzer_contained_next(struct analyzer_contained *c, struct analyzer_event *ev,
			    struct dps_diag *diag)
{
	struct decoder *d = &c->dec[0];
	int status;

	if (c->plan) {
		status = merge_next(c, ev, diag);
	} else {
		status = next_batch(c, d, diag);
	}
	if (status < 0) {
		for (size_t i = 0; i < c->n_dec; i++) {
			if (c->dec[i].over_memory) {
				locate_runaway(c, diag);
				break;
			}
		}
		return status;
	}
	if (c->plan) {
		return status;
	}
	if (d->next == d->n_events) {
		return ANALYZER_SOURCE_END;
	}
	take_event(d, ev);
	return ANALYZER_SOURCE_EVENT;
}

bool analyzer_contained_has_sched(const struct analyzer_contained *c)
{
	return c->has_sched;
}

const char *analyzer_contained_borrow_description(const struct analyzer_contained *c)
{
	return c->description;
}

size_t analyzer_contained_skip_count(const struct analyzer_contained *c)
{
	return c->skips->len;
}

const char *analyzer_contained_borrow_skip(const struct analyzer_contained *c, size_t i)
{
	return g_ptr_array_index(c->skips, i);
}

size_t analyzer_contained_decoders(const struct analyzer_contained *c)
{
	return c->n_dec;
}

void analyzer_contained_close(struct analyzer_contained *c)
{
	if (!c) {
		return;
	}
	for (size_t i = 0; i < c->n_dec; i++) {
		decoder_close(&c->dec[i]);
	}
	/* the decoders are dead: nothing reads the views any more */
	analyzer_groups_free(c->plan);
	g_ptr_array_free(c->skips, TRUE);
	g_free(c->description);
	g_strfreev(c->paths);
	g_free(c->dec);
	free(c->known);
	free(c->last_ts);
	g_free(c);
}
