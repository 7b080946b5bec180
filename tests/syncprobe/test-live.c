/* SPDX-License-Identifier: MIT */
/*
 * Live: each of this folder's programs recorded with `dps record --sync` (the probe preloaded,
 * dps_sync:* enabled), its dps_sync events read back with babeltrace2 (sync-events.c). What
 * the programs did is known from their own code, so the events are checked by count, by field
 * and by the orders the primitives guarantee (a barrier's round ends after all its arrivals,
 * a lock's holders never overlap, a pipe delivers no byte before it was written). No timing:
 * the timeouts are only bounded by what the program asked for.
 *
 * Each program also checks its own results under the probe (exit 0 in record.info): the
 * traced path of every wrapper must return and set errno as the real call does.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "dps-test.h"
#include "sync-events.h"

/* The events of one thread that are name, in order, in a new array (g_ptr_array_free). */
static GPtrArray *of_thread(const struct sync_trace *t, int64_t vtid, const char *name)
{
	GPtrArray *a = g_ptr_array_new();

	for (size_t i = 0; i < t->n; i++) {
		if (t->events[i].vtid == vtid && (!name || sync_is(&t->events[i], name))) {
			g_ptr_array_add(a, &t->events[i]);
		}
	}
	return a;
}

/* The distinct threads that emitted an event, in a new array of int64_t (g_array_free). */
static GArray *threads_of(const struct sync_trace *t)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(int64_t));

	for (size_t i = 0; i < t->n; i++) {
		bool seen = false;

		for (guint k = 0; k < a->len && !seen; k++) {
			seen = g_array_index(a, int64_t, k) == t->events[i].vtid;
		}
		if (!seen) {
			g_array_append_val(a, t->events[i].vtid);
		}
	}
	return a;
}

/*
 * A barrier of parties on key: in the trace's order, every end comes after all the begins of
 * its round (ends so far <= parties * whole rounds begun so far), and each thread alternates
 * begin, end. Returns the number of begins.
 */
static size_t check_barrier_order(const struct sync_trace *t, uint64_t key, size_t parties)
{
	size_t begins = 0, ends = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct sync_event *e = &t->events[i];

		if (!strncmp(e->name, "barrier_wait_", 13) && sync_field_u64(e, "barrier") == key) {
			if (sync_is(e, "barrier_wait_begin")) {
				begins++;
			} else {
				ends++;
				cr_assert_leq(ends, begins / parties * parties,
					      "barrier 0x%" PRIx64 ": end %zu before its round's "
					      "%zu arrivals (%zu begun)",
					      key, ends, parties, begins);
			}
		}
	}
	return begins;
}

/* Each thread's begin and end of prefix (prefix_begin, prefix_end) alternate, begin first,
 * on the same object field. */
static void check_pairs(const struct sync_trace *t, const char *begin, const char *end,
			const char *field)
{
	GArray *threads = threads_of(t);

	for (guint k = 0; k < threads->len; k++) {
		GPtrArray *ev = of_thread(t, g_array_index(threads, int64_t, k), NULL);
		const struct sync_event *open = NULL;

		for (guint i = 0; i < ev->len; i++) {
			const struct sync_event *e = ev->pdata[i];

			if (sync_is(e, begin)) {
				cr_assert_null(open, "%s twice without %s", begin, end);
				open = e;
			} else if (sync_is(e, end)) {
				cr_assert_not_null(open, "%s without %s", end, begin);
				cr_assert_eq(sync_field_u64(e, field), sync_field_u64(open, field));
				open = NULL;
			}
		}
		cr_assert_null(open, "%s never ended", begin);
		g_ptr_array_free(ev, TRUE);
	}
	g_array_free(threads, TRUE);
}

Test(syncprobe_live, barrier_rounds_arrive_and_leave_one_barrier, .timeout = 120)
{
	struct sync_trace t = sync_trace_record("syncprobe-barrier-prog", "3 5");
	uint64_t barrier = sync_out_value(&t, "barrier");

	cr_assert_eq(sync_count(&t, "barrier_init", NULL, 0), 1);
	for (size_t i = 0; i < t.n; i++) {
		if (!strncmp(t.events[i].name, "barrier_", 8)) {
			cr_assert_eq(sync_field_u64(&t.events[i], "barrier"), barrier,
				     "%s names another barrier", t.events[i].name);
		}
		if (sync_is(&t.events[i], "barrier_init")) {
			cr_assert_eq(sync_field_i64(&t.events[i], "parties"), 3);
		}
	}
	cr_assert_eq(sync_count(&t, "barrier_wait_begin", NULL, 0), 15);
	cr_assert_eq(sync_count(&t, "barrier_wait_end", NULL, 0), 15);
	/* one PTHREAD_BARRIER_SERIAL_THREAD per round, 0 for the others */
	cr_assert_eq(sync_count(&t, "barrier_wait_end", "result", PTHREAD_BARRIER_SERIAL_THREAD),
		     5);
	cr_assert_eq(sync_count(&t, "barrier_wait_end", "result", 0), 10);
	cr_assert_eq(check_barrier_order(&t, barrier, 3), 15);
	check_pairs(&t, "barrier_wait_begin", "barrier_wait_end", "barrier");
	sync_trace_fini(&t);
}

#define ITEMS 20

Test(syncprobe_live, semaphore_waits_say_their_timeout_and_result, .timeout = 120)
{
	struct sync_trace t = sync_trace_record("syncprobe-sem-prog", G_STRINGIFY(ITEMS));
	uint64_t sem = sync_out_value(&t, "sem");
	size_t posts = 0, taken = 0, timed = 0;

	cr_assert_eq(sync_count(&t, "sem_init", NULL, 0), 1);
	cr_assert_eq(sync_count(&t, "sem_init", "value", 0), 1);
	/* the waits: ITEMS untimed, two tries, three timed (two time out, one past its
	 * deadline takes the unit posted before it) */
	cr_assert_eq(sync_count(&t, "sem_wait_begin", NULL, 0), ITEMS + 5);
	cr_assert_eq(sync_count(&t, "sem_wait_begin", "timeout_ns", -1), ITEMS);
	for (size_t i = 0; i < t.n; i++) {
		const struct sync_event *e = &t.events[i];

		if (!strncmp(e->name, "sem_", 4)) {
			cr_assert_eq(sync_field_u64(e, "sem"), sem, "%s names another semaphore",
				     e->name);
		}
		if (sync_is(e, "sem_wait_begin") && sync_field_i64(e, "timeout_ns") != -1) {
			int64_t ns = sync_field_i64(e, "timeout_ns");

			cr_assert(ns >= 0 && ns <= 20 * 1000000, "timeout_ns %" PRId64, ns);
			timed++;
		}
		/* a unit is taken only once posted */
		if (sync_is(e, "sem_post_begin")) {
			posts++;
		} else if (sync_is(e, "sem_wait_end") && sync_field_i64(e, "result") == 0) {
			taken++;
			cr_assert_leq(taken, posts, "a wait took a unit nobody had posted");
		}
	}
	cr_assert_eq(timed, 5);
	cr_assert_eq(sync_count(&t, "sem_wait_end", NULL, 0), ITEMS + 5);
	cr_assert_eq(sync_count(&t, "sem_wait_end", "result", 0), ITEMS + 2);
	cr_assert_eq(sync_count(&t, "sem_wait_end", "result", EAGAIN), 1);
	cr_assert_eq(sync_count(&t, "sem_wait_end", "result", ETIMEDOUT), 2);
	cr_assert_eq(sync_count(&t, "sem_post_begin", NULL, 0), ITEMS + 2);
	cr_assert_eq(sync_count(&t, "sem_post_end", "result", 0), ITEMS + 2);
	check_pairs(&t, "sem_wait_begin", "sem_wait_end", "sem");
	check_pairs(&t, "sem_post_begin", "sem_post_end", "sem");
	sync_trace_fini(&t);
}

#define RW_ROUNDS 10
#define RW_READERS 2

Test(syncprobe_live, rwlock_holders_never_overlap_and_tries_fail, .timeout = 120)
{
	struct sync_trace t = sync_trace_record("syncprobe-rwlock-prog", G_STRINGIFY(RW_ROUNDS));
	uint64_t rwlock = sync_out_value(&t, "rwlock");
	int64_t writer = 0;
	size_t readers = 0, timed = 0;

	/* read side: the readers' rounds, two tries (one fails), one timed (times out) */
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_begin", NULL, 0), RW_READERS * RW_ROUNDS + 3);
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_begin", "timeout_ns", -1),
		     RW_READERS * RW_ROUNDS);
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_end", "result", 0), RW_READERS * RW_ROUNDS + 1);
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_end", "result", EBUSY), 1);
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_end", "result", ETIMEDOUT), 1);
	/* write side: main's rounds and its hold, one try (fails), one clockwrlock (times out) */
	cr_assert_eq(sync_count(&t, "rwlock_wrlock_begin", NULL, 0), RW_ROUNDS + 3);
	cr_assert_eq(sync_count(&t, "rwlock_wrlock_begin", "timeout_ns", -1), RW_ROUNDS + 1);
	cr_assert_eq(sync_count(&t, "rwlock_wrlock_end", "result", 0), RW_ROUNDS + 1);
	cr_assert_eq(sync_count(&t, "rwlock_wrlock_end", "result", EBUSY), 1);
	cr_assert_eq(sync_count(&t, "rwlock_wrlock_end", "result", ETIMEDOUT), 1);
	cr_assert_eq(sync_count(&t, "rwlock_unlock_begin", NULL, 0),
		     RW_READERS * RW_ROUNDS + RW_ROUNDS + 2);
	cr_assert_eq(sync_count(&t, "rwlock_unlock_end", "result", 0),
		     RW_READERS * RW_ROUNDS + RW_ROUNDS + 2);

	/* held from an acquisition's end to the holder's unlock's begin: a writer alone */
	for (size_t i = 0; i < t.n; i++) {
		const struct sync_event *e = &t.events[i];

		if (strncmp(e->name, "rwlock_", 7)) {
			continue;
		}
		cr_assert_eq(sync_field_u64(e, "rwlock"), rwlock);
		if (sync_is(e, "rwlock_rdlock_begin") || sync_is(e, "rwlock_wrlock_begin")) {
			int64_t ns = sync_field_i64(e, "timeout_ns");

			timed += ns != -1 && ns != 0;
			cr_assert(ns >= -1 && ns <= 20 * 1000000, "timeout_ns %" PRId64, ns);
		} else if (sync_is(e, "rwlock_wrlock_end") && sync_field_i64(e, "result") == 0) {
			cr_assert(!writer && !readers, "a writer got a held rwlock");
			writer = e->vtid;
		} else if (sync_is(e, "rwlock_rdlock_end") && sync_field_i64(e, "result") == 0) {
			cr_assert(!writer, "a reader got a write-locked rwlock");
			readers++;
		} else if (sync_is(e, "rwlock_unlock_begin")) {
			if (writer) {
				cr_assert_eq(writer, e->vtid,
					     "unlocked by a thread not holding it");
				writer = 0;
			} else {
				cr_assert_gt(readers, 0, "unlock of an rwlock nobody held");
				readers--;
			}
		}
	}
	/* the timed ones (tries are 0) asked for 20 ms: at most that, 0 when already past */
	cr_assert_leq(timed, 2);
	check_pairs(&t, "rwlock_rdlock_begin", "rwlock_rdlock_end", "rwlock");
	check_pairs(&t, "rwlock_wrlock_begin", "rwlock_wrlock_end", "rwlock");
	check_pairs(&t, "rwlock_unlock_begin", "rwlock_unlock_end", "rwlock");
	sync_trace_fini(&t);
}

/* One pipe's bytes: written, read, reads at the end of file; every read delivers no more than
 * the writes had begun to give, nothing is read after the end of file, and no call failed. */
struct pipe_sums {
	int64_t written, read, eofs;
	GArray *readers, *writers; /* owned: the vpids that read, that wrote */
};

static void add_pid(GArray *a, int64_t pid)
{
	for (guint i = 0; i < a->len; i++) {
		if (g_array_index(a, int64_t, i) == pid) {
			return;
		}
	}
	g_array_append_val(a, pid);
}

static struct pipe_sums pipe_sums(const struct sync_trace *t, uint64_t ino)
{
	struct pipe_sums s = {.readers = g_array_new(FALSE, FALSE, sizeof(int64_t)),
			      .writers = g_array_new(FALSE, FALSE, sizeof(int64_t))};
	int64_t offered = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct sync_event *e = &t->events[i];

		if (strncmp(e->name, "pipe_", 5) || sync_field_u64(e, "pipe") != ino) {
			continue;
		}
		if (sync_is(e, "pipe_write_begin")) {
			offered += sync_field_i64(e, "count");
		} else if (sync_is(e, "pipe_write_end")) {
			cr_assert_geq(sync_field_i64(e, "result"), 0, "a write failed");
			s.written += sync_field_i64(e, "result");
			add_pid(s.writers, e->vpid);
		} else if (sync_is(e, "pipe_read_end")) {
			int64_t r = sync_field_i64(e, "result");

			cr_assert_geq(r, 0, "a read failed");
			cr_assert_eq(s.eofs, 0, "a read after the end of file");
			s.read += r;
			s.eofs += r == 0;
			cr_assert_leq(s.read, offered, "read bytes no write had begun to give");
			add_pid(s.readers, e->vpid);
		}
	}
	return s;
}

static void pipe_sums_fini(struct pipe_sums *s)
{
	g_array_free(s->readers, TRUE);
	g_array_free(s->writers, TRUE);
}

#define PIPE_BYTES 200000

Test(syncprobe_live, a_pipe_between_threads_carries_what_was_written, .timeout = 120)
{
	struct sync_trace t =
	    sync_trace_record("syncprobe-pipe-prog", "threads " G_STRINGIFY(PIPE_BYTES));
	uint64_t ino[2];
	struct pipe_sums first, second;

	cr_assert_eq(sync_out_values(&t, "pipe", ino, 2), 2, "%s", t.out);
	cr_assert_neq(ino[0], ino[1]);
	/* every pipe event names one of the two pipes */
	for (size_t i = 0; i < t.n; i++) {
		if (!strncmp(t.events[i].name, "pipe_", 5)) {
			uint64_t p = sync_field_u64(&t.events[i], "pipe");

			cr_assert(p == ino[0] || p == ino[1], "pipe 0x%" PRIx64 ": no such pipe",
				  p);
		}
	}
	first = pipe_sums(&t, ino[0]);
	cr_assert_eq(first.written, PIPE_BYTES);
	/* all of it, once: the file read later on the read end's number added nothing */
	cr_assert_eq(first.read, PIPE_BYTES);
	cr_assert_eq(first.eofs, 1);
	second = pipe_sums(&t, ino[1]);
	cr_assert_eq(second.written, 100);
	cr_assert_eq(second.read, 100);
	cr_assert_eq(second.eofs, 1);
	/* at least the 4096-byte reads the bytes need and the end of file; begins and ends
	 * pair up */
	cr_assert_geq(sync_count(&t, "pipe_read_end", NULL, 0), PIPE_BYTES / 4096 + 2);
	check_pairs(&t, "pipe_read_begin", "pipe_read_end", "pipe");
	check_pairs(&t, "pipe_write_begin", "pipe_write_end", "pipe");
	pipe_sums_fini(&first);
	pipe_sums_fini(&second);
	sync_trace_fini(&t);
}

/* pipe-prog's fork or exec mode: the parent writes, its child (another process) reads */
static void pipe_between_processes(const char *mode)
{
	char *args = dps_test_strf("%s %d", mode, PIPE_BYTES);
	struct sync_trace t = sync_trace_record("syncprobe-pipe-prog", args);
	uint64_t ino = sync_out_value(&t, "pipe");
	struct pipe_sums s = pipe_sums(&t, ino);

	cr_assert_eq(s.written, PIPE_BYTES);
	cr_assert_eq(s.read, PIPE_BYTES);
	cr_assert_eq(s.eofs, 1);
	/* the parent wrote, its child (another process) read */
	cr_assert_eq(s.writers->len, 1);
	cr_assert_eq(g_array_index(s.writers, int64_t, 0), t.pid);
	cr_assert_eq(s.readers->len, 1);
	cr_assert_neq(g_array_index(s.readers, int64_t, 0), t.pid);
	/* and in the child, nothing of the tracer's own registration (its semaphore) */
	cr_assert_eq(sync_count(&t, "sem_wait_end", NULL, 0), 0);
	cr_assert_eq(sync_count(&t, "sem_post_begin", NULL, 0), 0);
	pipe_sums_fini(&s);
	sync_trace_fini(&t);
	g_free(args);
}

/* A child forked without exec is traced as its own process (dps record --sync preloads
 * LTTng-UST's fork helper; without it the child's events keep its parent's vpid). */
Test(syncprobe_live, a_pipe_to_a_forked_child_names_one_inode_in_both, .timeout = 120)
{
	pipe_between_processes("fork");
}

Test(syncprobe_live, a_pipe_to_an_executed_child_names_one_inode_in_both, .timeout = 120)
{
	pipe_between_processes("exec");
}

/* omp-prog.c's shape */
#define TEAM 4
#define REGIONS 4
/* region 1's static loop, dynamic loop, sections, runtime loop, single; region 4's single */
#define TEAM_BARRIERS 6

/* pool_take events of one key */
struct pool {
	uint64_t key;
	size_t got, empty;
};

static int by_got(const void *a, const void *b)
{
	const struct pool *x = a, *y = b;

	return x->got != y->got ? (x->got < y->got ? -1 : 1) : 0;
}

/* The slot of an OpenMP barrier key: 0 the start's (d), 1 the end's (b), 2 the team's. */
static int key_slot(uint64_t key, uint64_t d, uint64_t b)
{
	if (key == d) {
		return 0;
	}
	return key == b ? 1 : 2;
}

Test(syncprobe_live, openmp_regions_barriers_pools_and_critical, .timeout = 120)
{
	struct sync_trace t = sync_trace_record("syncprobe-omp-prog", "");
	GPtrArray *main_barriers = g_ptr_array_new();
	uint64_t d = 0, b = 0, tk = 0, lock = 0;
	struct pool pools[8];
	size_t n_pools = 0, locked = 0;
	bool inited[3] = {false};
	int64_t holder = 0;
	GArray *threads;

	cr_assert_eq(sync_out_value(&t, "team"), TEAM);
	/* the main thread's first barrier is its first region's start, its last its last
	 * region's end */
	for (size_t i = 0; i < t.n; i++) {
		if (t.events[i].vtid == t.pid && sync_is(&t.events[i], "barrier_wait_begin")) {
			g_ptr_array_add(main_barriers, &t.events[i]);
		}
	}
	cr_assert_gt(main_barriers->len, 2);
	d = sync_field_u64(main_barriers->pdata[0], "barrier");
	b = sync_field_u64(main_barriers->pdata[main_barriers->len - 1], "barrier");
	g_ptr_array_free(main_barriers, TRUE);
	cr_assert_neq(d, b);

	/* three keys, each a barrier of the team's size, inited before any wait on it */
	for (size_t i = 0; i < t.n; i++) {
		const struct sync_event *e = &t.events[i];
		uint64_t key;

		if (strncmp(e->name, "barrier_", 8)) {
			continue;
		}
		key = sync_field_u64(e, "barrier");
		if (sync_is(e, "barrier_init")) {
			cr_assert_eq(sync_field_i64(e, "parties"), TEAM);
			if (key != d && key != b) {
				cr_assert(!tk || tk == key, "a fourth barrier key");
				tk = key;
			}
			inited[key_slot(key, d, b)] = true;
		} else {
			cr_assert(key == d || key == b || key == tk, "a wait on 0x%" PRIx64, key);
			cr_assert(inited[key_slot(key, d, b)],
				  "a wait on 0x%" PRIx64 " before its init", key);
		}
	}
	cr_assert_neq(tk, 0);
	cr_assert_eq(sync_count(&t, "barrier_init", NULL, 0), 3 * REGIONS * TEAM);

	/* start: every thread of every region, begin and end back to back (not a real wait:
	 * no order between threads); team barriers: 5 per thread of region 1 */
	for (size_t i = 0; i + 1 < t.n; i++) {
		const struct sync_event *e = &t.events[i];

		if (sync_is(e, "barrier_wait_begin") && sync_field_u64(e, "barrier") == d) {
			GPtrArray *ev = of_thread(&t, e->vtid, NULL);
			guint k = 0;

			while (ev->pdata[k] != e) {
				k++;
			}
			cr_assert_lt(k + 1, ev->len);
			cr_assert(sync_is(ev->pdata[k + 1], "barrier_wait_end") &&
				  sync_field_u64(ev->pdata[k + 1], "barrier") == d);
			g_ptr_array_free(ev, TRUE);
		}
	}
	cr_assert_eq(sync_count(&t, "barrier_wait_begin", "barrier", (int64_t)d), REGIONS * TEAM);
	cr_assert_eq(sync_count(&t, "barrier_wait_end", "barrier", (int64_t)d), REGIONS * TEAM);
	cr_assert_eq(check_barrier_order(&t, tk, TEAM), TEAM_BARRIERS * TEAM);
	cr_assert_eq(sync_count(&t, "barrier_wait_end", "barrier", (int64_t)tk),
		     TEAM_BARRIERS * TEAM);
	cr_assert_eq(check_barrier_order(&t, b, TEAM), REGIONS * TEAM);
	/* the end barrier: the master leaves it when the region returns, a worker when it
	 * enters its next region: each worker's last one stays open */
	threads = threads_of(&t);
	cr_assert_geq(threads->len, TEAM);
	for (guint k = 0; k < threads->len; k++) {
		int64_t tid = g_array_index(threads, int64_t, k);
		GPtrArray *ev = of_thread(&t, tid, NULL);
		long open = 0;

		for (guint i = 0; i < ev->len; i++) {
			const struct sync_event *e = ev->pdata[i];

			if (!strncmp(e->name, "barrier_wait_", 13) &&
			    sync_field_u64(e, "barrier") == b) {
				open += sync_is(e, "barrier_wait_begin") ? 1 : -1;
				cr_assert(open == 0 || open == 1);
			}
		}
		cr_assert_eq(open, tid == t.pid ? 0 : 1, "thread %" PRId64, tid);
		g_ptr_array_free(ev, TRUE);
	}
	g_array_free(threads, TRUE);

	/* pools: region 1's dynamic loop (100 by 7) and sections (3), region 2's combined loop
	 * (60 by 4), region 3's combined sections (2); not the runtime loop (static) */
	for (size_t i = 0; i < t.n; i++) {
		const struct sync_event *e = &t.events[i];
		uint64_t key;
		size_t p;

		if (!sync_is(e, "pool_take")) {
			continue;
		}
		key = sync_field_u64(e, "pool");
		cr_assert(key >> 63, "pool key 0x%" PRIx64, key);
		for (p = 0; p < n_pools && pools[p].key != key; p++) {
		}
		if (p == n_pools) {
			cr_assert_lt(n_pools, 8);
			pools[n_pools++] = (struct pool){.key = key};
		}
		if (sync_field_i64(e, "got")) {
			pools[p].got++;
		} else {
			pools[p].empty++;
		}
	}
	cr_assert_eq(n_pools, 4);
	qsort(pools, n_pools, sizeof(pools[0]), by_got);
	cr_assert_eq(pools[0].got, 2);
	cr_assert_eq(pools[1].got, 3);
	cr_assert_eq(pools[2].got, 15);
	cr_assert_eq(pools[3].got, 15);
	/* one empty take per thread and pool, its last take of that pool */
	threads = threads_of(&t);
	for (size_t p = 0; p < n_pools; p++) {
		cr_assert_eq(pools[p].empty, TEAM, "pool 0x%" PRIx64 ": %zu empty takes",
			     pools[p].key, pools[p].empty);
		for (guint k = 0; k < threads->len; k++) {
			GPtrArray *ev =
			    of_thread(&t, g_array_index(threads, int64_t, k), "pool_take");
			size_t empty = 0;

			for (guint i = 0; i < ev->len; i++) {
				if (sync_field_u64(ev->pdata[i], "pool") != pools[p].key) {
					continue;
				}
				cr_assert_eq(empty, 0, "a take after the pool was found empty");
				empty += sync_field_i64(ev->pdata[i], "got") == 0;
			}
			cr_assert_eq(empty, 1, "pool 0x%" PRIx64 ": %zu empty takes in a thread",
				     pools[p].key, empty);
			g_ptr_array_free(ev, TRUE);
		}
	}
	g_array_free(threads, TRUE);

	/* critical: once per thread, one lock, held by one thread at a time */
	cr_assert_eq(sync_count(&t, "lock_begin", NULL, 0), TEAM);
	cr_assert_eq(sync_count(&t, "lock_end", "result", 0), TEAM);
	cr_assert_eq(sync_count(&t, "unlock_begin", NULL, 0), TEAM);
	cr_assert_eq(sync_count(&t, "unlock_end", NULL, 0), TEAM);
	for (size_t i = 0; i < t.n; i++) {
		const struct sync_event *e = &t.events[i];

		if (sync_is(e, "lock_begin") || sync_is(e, "lock_end") ||
		    sync_is(e, "unlock_begin") || sync_is(e, "unlock_end")) {
			lock = lock ? lock : sync_field_u64(e, "lock");
			cr_assert_eq(sync_field_u64(e, "lock"), lock);
		}
		if (sync_is(e, "lock_end")) {
			cr_assert_eq(holder, 0, "two threads in the critical section");
			holder = e->vtid;
			locked++;
		} else if (sync_is(e, "unlock_begin")) {
			cr_assert_eq(holder, e->vtid);
			holder = 0;
		}
	}
	cr_assert_eq(locked, TEAM);
	check_pairs(&t, "lock_begin", "lock_end", "lock");
	check_pairs(&t, "unlock_begin", "unlock_end", "lock");

	/* the task: reported once */
	cr_assert_eq(sync_count(&t, "unmodelled", NULL, 0), 1);
	for (size_t i = 0; i < t.n; i++) {
		if (sync_is(&t.events[i], "unmodelled")) {
			cr_assert_str_eq(sync_field(&t.events[i], "what"), "\"omp task\" }");
		}
	}
	sync_trace_fini(&t);
}

/* calls-prog's failures, traced: what each failing call returned, and no object for a failed
 * init. */
Test(syncprobe_live, failing_calls_are_traced_with_their_errors, .timeout = 120)
{
	struct sync_trace t = sync_trace_record("syncprobe-calls-prog", "preloaded");

	cr_assert_not_null(strstr(t.out, "all checks passed"), "%s", t.out);
	cr_assert_eq(sync_count(&t, "barrier_init", NULL, 0), 1);
	cr_assert_eq(sync_count(&t, "barrier_init", "parties", 1), 1);
	cr_assert_eq(sync_count(&t, "barrier_wait_end", "result", PTHREAD_BARRIER_SERIAL_THREAD),
		     1);
	cr_assert_eq(sync_count(&t, "sem_init", NULL, 0), 2);
	cr_assert_eq(sync_count(&t, "sem_wait_end", "result", EAGAIN), 1);
	cr_assert_eq(sync_count(&t, "sem_wait_end", "result", ETIMEDOUT), 2);
	cr_assert_eq(sync_count(&t, "sem_wait_end", "result", EINVAL), 2);
	cr_assert_eq(sync_count(&t, "sem_post_end", "result", EOVERFLOW), 1);
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_end", "result", EBUSY), 1);
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_end", "result", EDEADLK), 1);
	cr_assert_eq(sync_count(&t, "rwlock_rdlock_end", "result", EINVAL), 1);
	cr_assert_eq(sync_count(&t, "rwlock_wrlock_end", "result", EBUSY), 1);
	cr_assert_eq(sync_count(&t, "rwlock_wrlock_end", "result", ETIMEDOUT), 1);
	cr_assert_eq(sync_count(&t, "cond_wait_end", "result", ETIMEDOUT), 2);
	cr_assert_eq(sync_count(&t, "cond_wait_end", "result", EINVAL), 1);
	/* pipes: the empty non-blocking read, the write without a reader; a bad descriptor is
	 * no pipe (no event) */
	cr_assert_eq(sync_count(&t, "pipe_read_end", "result", -EAGAIN), 1);
	cr_assert_eq(sync_count(&t, "pipe_write_end", "result", -EPIPE), 1);
	cr_assert_eq(sync_count(&t, "pipe_read_end", "result", -EBADF), 0);
	cr_assert_eq(sync_count(&t, "pipe_read_end", "result", 3), 1); /* __read_chk */
	cr_assert_eq(sync_count(&t, "pipe_read_end", "result", 0), 1); /* after fclose */
	sync_trace_fini(&t);
}
