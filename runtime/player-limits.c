/* SPDX-License-Identifier: MIT */
/*
 * How many threads a program can have alive at once, and why a thread could not be started.
 *
 * A play holds a thread's stack and task only while the thread is alive (player.c detaches a
 * thread that ends with nobody joining it), so what counts against the system's limits is the
 * set's concurrency, not its number of threads: a recording of 100,000 short threads, each
 * ended before the next began, plays with a handful alive. When pthread_create fails all the
 * same, the message says how many threads the set can have alive at once, from its creates
 * and joins alone, and names a limit (vm.max_map_count, kernel.threads-max, RLIMIT_NPROC, the
 * cgroup's pids.max) only when that many would cross it; otherwise the limits are not the
 * set's, and the message says so instead of blaming them.
 *
 * The count is an upper bound that needs no timing: a thread is counted from its creation to
 * the end of a join of it (it has ended by then), or to the end of the play when nobody joins
 * it. Computed only when a creation failed, in time and memory linear in the actions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "player-internal.h"

#define NO_PARENT SIZE_MAX

/*
 * The peak of each thread's subtree (the threads it creates, theirs, and so on): while thread
 * t plays, its subtree has at most 1 + the sum over the children it created so far of their
 * subtree's peak (a child it has joined already: only the rest of the child's subtree, which
 * the child did not join). The children first, so the threads are taken in the reverse of the
 * order the root's creates reach them (breadth first: no recursion, a chain of 100,000
 * creates is as deep as it is long).
 */
size_t dps__program_max_alive(const struct dps_program *prog)
{
	size_t n = prog && prog->threads ? prog->n_threads : 0;
	size_t *order = NULL, *peak = NULL, *rest = NULL, *parent = NULL;
	unsigned char *seen = NULL; /* 1: created by its parent so far, 2: and joined by it */
	size_t n_order = 0, max = 0;

	if (!n || prog->root >= n) {
		return 0;
	}
	order = malloc(n * sizeof(*order));
	peak = calloc(n, sizeof(*peak));
	rest = calloc(n, sizeof(*rest));
	parent = malloc(n * sizeof(*parent));
	seen = calloc(n, sizeof(*seen));
	if (!order || !peak || !rest || !parent || !seen) {
		goto end; /* 0: unknown */
	}
	for (size_t t = 0; t < n; t++) {
		parent[t] = NO_PARENT;
	}
	parent[prog->root] = prog->root;
	order[n_order++] = prog->root;
	for (size_t k = 0; k < n_order; k++) {
		const struct dps_thread_desc *d = &prog->threads[order[k]];

		for (size_t i = 0; i < d->n_actions; i++) {
			const struct dps_action *a = &d->actions[i];
			size_t c = (size_t)a->arg;

			/* a thread created twice (a set validation refuses) is counted once */
			if (a->kind == DPS_ACT_CREATE && a->arg >= 0 && c < n &&
			    parent[c] == NO_PARENT) {
				parent[c] = order[k];
				order[n_order++] = c;
			}
		}
	}
	for (size_t k = n_order; k-- > 0;) {
		size_t t = order[k];
		const struct dps_thread_desc *d = &prog->threads[t];
		size_t open = 1, top = 1;

		for (size_t i = 0; i < d->n_actions; i++) {
			const struct dps_action *a = &d->actions[i];
			size_t c = (size_t)a->arg;

			if (a->arg < 0 || c >= n || parent[c] != t) {
				continue;
			}
			if (a->kind == DPS_ACT_CREATE && !seen[c]) {
				seen[c] = 1;
				open += peak[c];
				top = open > top ? open : top;
			} else if (a->kind == DPS_ACT_JOIN && seen[c] == 1) {
				/* its own child, joined: the child has ended (rest[c] < peak[c]:
				 * the child counts itself in its peak), what it left alive goes on
				 */
				seen[c] = 2;
				open -= peak[c] - rest[c];
			}
		}
		peak[t] = top;
		rest[t] = open - 1;
	}
	max = peak[prog->root];
end:
	free(order);
	free(peak);
	free(rest);
	free(parent);
	free(seen);
	return max;
}

/* A number from a /proc/sys file (or a cgroup's), or -1 ("max" and the unreadable). */
static long read_proc_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1) {
			v = -1;
		}
		fclose(f);
	}
	return v;
}

/* The memory mappings of this process (lines of /proc/self/maps), or -1. */
static long count_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;

	if (!f) {
		return -1;
	}
	while ((c = getc(f)) != EOF) {
		n += c == '\n';
	}
	fclose(f);
	return n;
}

/* The pids.max of this process's cgroup (version 2), or -1 when there is none ("max"). */
static long read_cgroup_pids_max(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[512], path[600];
	long v = -1;

	if (!f) {
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s/pids.max", line + 3);
			v = read_proc_long(path);
			break;
		}
	}
	fclose(f);
	return v;
}

/* Appends to buf (len bytes, *n used) like snprintf, never past its end. */
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n >= len) {
		return;
	}
	va_start(ap, fmt);
	w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n += w > 0 ? (size_t)w : 0;
	if (*n >= len) {
		*n = len - 1;
	}
}

void dps__player_describe_create_failure(char *buf, size_t len, const struct dps_program *prog,
					 size_t idx, int err, size_t alive)
{
	size_t max = dps__program_max_alive(prog);
	struct rlimit nproc = {0};
	long maps = count_mappings();
	long max_maps = read_proc_long("/proc/sys/vm/max_map_count");
	long threads_max = read_proc_long("/proc/sys/kernel/threads-max");
	long pids_max = read_cgroup_pids_max();
	/* what the rest of the process maps: all but the live threads' stacks and guards */
	long others = maps > 2 * (long)alive ? maps - 2 * (long)alive : 0;
	size_t n = 0, named = 0;

	if (!len) {
		return;
	}
	buf[0] = '\0';
	getrlimit(RLIMIT_NPROC, &nproc);
	append(buf, len, &n,
	       "thread %" PRIu64 " could not be started (pthread_create: %s) with %zu threads of "
	       "the play alive",
	       prog->threads[idx].id, strerror(err), alive);
	if (!max) {
		return; /* out of memory for the count: nothing more is known */
	}
	/* short: the whole message fits dps_play_result's detail with every limit named */
	append(buf, len, &n, "; by its creates and joins, the set has at most %zu alive at once",
	       max);
	/* each thread costs two mappings, its stack and its guard, and a task */
	if (max_maps >= 0 && maps >= 0 && others + 2 * (long)max > max_maps) {
		append(buf, len, &n, "%s vm.max_map_count %ld (2 mappings a thread, %ld others)",
		       named++ ? "," : ", more than", max_maps, others);
	}
	if (threads_max >= 0 && (long)max > threads_max) {
		append(buf, len, &n, "%s kernel.threads-max %ld", named++ ? "," : ", more than",
		       threads_max);
	}
	if (nproc.rlim_cur != RLIM_INFINITY && (rlim_t)max > nproc.rlim_cur) {
		append(buf, len, &n, "%s RLIMIT_NPROC %llu (ulimit -u)",
		       named++ ? "," : ", more than", (unsigned long long)nproc.rlim_cur);
	}
	if (pids_max >= 0 && (long)max > pids_max) {
		append(buf, len, &n, "%s the cgroup's pids.max %ld", named++ ? "," : ", more than",
		       pids_max);
	}
	if (named) {
		append(buf, len, &n, " allow%s", named > 1 ? "" : "s");
	} else {
		append(buf, len, &n,
		       ", within the system's thread limits: the machine lacked memory or tasks "
		       "for another reason (other processes, the memory in use)");
	}
}
