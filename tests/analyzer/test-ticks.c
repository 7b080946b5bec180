/* SPDX-License-Identifier: MIT */
/*
 * Loops of timed waits (analyzer/ticks.c): which condition waits of a thread's synchronization
 * points are ticks of a waiting loop (timed out, then waited again soon on the same mutex, up
 * to a wait a signal ended) and which end one; and the cases that must stay as recorded: a
 * loop no signal ends, a long stretch between two waits, another mutex, a wake or a put
 * between, an untimed wait that timed out (impossible, but read from a trace).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include <glib.h>

#include "core-internal.h"
#include "ticks.h"

#define MS 1000000ULL
#define TIMEOUT (300 * MS)

static GArray *points;

static void setup(void)
{
	points = g_array_new(FALSE, FALSE, sizeof(struct analyzer_sync_point));
}

static void teardown(void)
{
	g_array_free(points, TRUE);
}

static void add(uint64_t ts, uint32_t kind, uint32_t obj, int64_t arg)
{
	struct analyzer_sync_point p = {.ts_ns = ts, .kind = kind, .obj = obj, .arg = arg};

	g_array_append_val(points, p);
}

/* A condition wait on mutex obj from t to t + len, with that timeout and result; a lock and
 * unlock of the mutex 10 us after it (the loop's pass). Returns the begin's index. */
static guint wait_at(uint64_t t, uint64_t len, uint32_t obj, int64_t timeout, int64_t result)
{
	guint i = points->len;

	add(t, ANALYZER_EV_SYNC_COND_WAIT_BEGIN, obj, timeout);
	add(t + len, ANALYZER_EV_SYNC_COND_WAIT_END, obj, result);
	add(t + len + 5000, ANALYZER_EV_SYNC_UNLOCK, obj, 0);
	add(t + len + 10000, ANALYZER_EV_SYNC_LOCK_ACQ, obj, 0);
	return i;
}

static long find(const struct analyzer_mark *marks, size_t n_marks, uint8_t **roles)
{
	long n = analyzer_ticks_find(points, marks, n_marks, roles);

	cr_assert_geq(n, 0);
	return n;
}

TestSuite(ticks, .init = setup, .fini = teardown);

Test(ticks, a_loop_of_timeouts_that_a_signal_ends_is_its_last_wait)
{
	guint w[4];
	uint8_t *roles;

	w[0] = wait_at(0, TIMEOUT, 1, (int64_t)TIMEOUT, ETIMEDOUT);
	w[1] = wait_at(TIMEOUT + MS, TIMEOUT, 1, (int64_t)TIMEOUT, ETIMEDOUT);
	w[2] = wait_at(2 * TIMEOUT + 2 * MS, 100 * MS, 1, (int64_t)TIMEOUT, 0);
	/* a lone wait a signal ended: no loop, stays `wait W timeout D` */
	w[3] = wait_at(3 * TIMEOUT, 100 * MS, 1, (int64_t)TIMEOUT, 0);
	cr_assert_eq(find(NULL, 0, &roles), 2);
	cr_assert_not_null(roles);
	cr_expect_eq(roles[w[0]], ANALYZER_TICK_TIMEOUT);
	cr_expect_eq(roles[w[1]], ANALYZER_TICK_TIMEOUT);
	cr_expect_eq(roles[w[2]], ANALYZER_TICK_END);
	cr_expect_eq(roles[w[3]], ANALYZER_TICK_NONE);
	free(roles);
}

Test(ticks, a_loop_no_signal_ends_stays)
{
	uint8_t *roles;

	wait_at(0, TIMEOUT, 1, (int64_t)TIMEOUT, ETIMEDOUT);
	wait_at(TIMEOUT + MS, TIMEOUT, 1, (int64_t)TIMEOUT, ETIMEDOUT);
	add(2 * TIMEOUT + 2 * MS, ANALYZER_EV_SYNC_UNLOCK, 1, 0);
	cr_assert_eq(find(NULL, 0, &roles), 0);
	cr_expect_null(roles);
}

/* Each of these between a timed-out wait and a wait a signal ends breaks the loop. */
static void expect_broken(void (*between)(uint64_t from, uint64_t to), uint64_t gap,
			  uint32_t second_obj, const struct analyzer_mark *marks, size_t n_marks)
{
	uint8_t *roles;
	uint64_t end = TIMEOUT + 10000;

	wait_at(0, TIMEOUT, 1, (int64_t)TIMEOUT, ETIMEDOUT);
	if (between) {
		between(end + 1000, end + gap - 1000);
	}
	wait_at(end + gap, 50 * MS, second_obj, (int64_t)TIMEOUT, 0);
	cr_assert_eq(find(marks, n_marks, &roles), 0);
	cr_expect_null(roles);
}

static void a_put(uint64_t from, uint64_t to)
{
	(void)to;
	add(from, ANALYZER_EV_SYNC_PRODUCE, 2, 0);
}

Test(ticks, a_long_stretch_between_breaks_it)
{
	expect_broken(NULL, TIMEOUT / 10 + MS, 1, NULL, 0);
}

Test(ticks, another_mutex_breaks_it)
{
	expect_broken(NULL, MS, 2, NULL, 0);
}

Test(ticks, a_put_between_breaks_it)
{
	expect_broken(a_put, MS, 1, NULL, 0);
}

Test(ticks, a_wake_between_breaks_it)
{
	struct analyzer_mark wake = {.ts_ns = TIMEOUT + 10000 + MS / 2, .kind = ANALYZER_MARK_WAKE};

	expect_broken(NULL, MS, 1, &wake, 1);
}

Test(ticks, a_short_stretch_with_other_locks_keeps_it)
{
	uint8_t *roles;
	guint last;

	wait_at(0, TIMEOUT, 1, (int64_t)TIMEOUT, ETIMEDOUT);
	add(TIMEOUT + 20000, ANALYZER_EV_SYNC_LOCK_ACQ, 3, 0);
	add(TIMEOUT + 30000, ANALYZER_EV_SYNC_UNLOCK, 3, 0);
	last = wait_at(TIMEOUT + MS, 50 * MS, 1, (int64_t)TIMEOUT, 0);
	cr_assert_eq(find(NULL, 0, &roles), 1);
	cr_expect_eq(roles[last], ANALYZER_TICK_END);
	free(roles);
}

Test(ticks, an_untimed_wait_is_no_tick)
{
	uint8_t *roles;

	wait_at(0, TIMEOUT, 1, -1, ETIMEDOUT);
	wait_at(TIMEOUT + MS, 50 * MS, 1, (int64_t)TIMEOUT, 0);
	cr_assert_eq(find(NULL, 0, &roles), 0);
	cr_expect_null(roles);
}
