/* SPDX-License-Identifier: MIT */
/*
 * Calibration functions (CF): measure this machine, save and load the result.
 *
 * The file (its cpu.* section) is calfile.c's; doc/runtime.md describes every key.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>

#include "calfile.h"
#include "runtime-internal.h"

/* The agreement criterion: repeats of the loop-rate measurement must agree within this
 * spread ((max - min) / median); otherwise the round is measured again. */
#define WORK_SPREAD_MAX_PCT 1.0
#define WORK_SPREAD_MAX_PCT_QUICK 3.0
#define WORK_ROUNDS_MAX 6
#define WORK_ROUNDS_MAX_QUICK 2

struct measure_plan {
	uint64_t warmup_ns;
	uint64_t work_chunk_ns;
	size_t work_repeats;
	size_t work_rounds;
	double work_spread_max;
	size_t clock_reads;
	size_t cputime_reads;
	size_t overhead_calls;
	size_t thread_repeats;
	const uint64_t *sleep_points;
	size_t n_sleep_points;
	uint64_t sleep_budget_ns; /* per point; repeats = budget / request, clamped */
	size_t sleep_repeats_min, sleep_repeats_max;
};

static const uint64_t sleep_points_full[] = {
    10000,   20000,   50000,	100000,	  200000,   500000,    1000000,
    2000000, 5000000, 10000000, 20000000, 50000000, 100000000,
};
static const uint64_t sleep_points_quick[] = {10000, 100000, 1000000};

static const struct measure_plan plan_full = {
    .warmup_ns = 100000000,
    .work_chunk_ns = 20000000,
    .work_repeats = 9,
    .work_rounds = WORK_ROUNDS_MAX,
    .work_spread_max = WORK_SPREAD_MAX_PCT,
    .clock_reads = 20000,
    .cputime_reads = 2000,
    .overhead_calls = 20000,
    .thread_repeats = 50,
    .sleep_points = sleep_points_full,
    .n_sleep_points = sizeof(sleep_points_full) / sizeof(sleep_points_full[0]),
    .sleep_budget_ns = 100000000,
    .sleep_repeats_min = 5,
    .sleep_repeats_max = 50,
};

/* Quick: what a program measures at start when it has no file. It runs on the thread that then
 * plays the root, inside the recorded run, so it is kept to a few tens of ms and starts no
 * thread (probe threads would show up in the trace as extra children of the root); the thread
 * costs keep their defaults. */
static const struct measure_plan plan_quick = {
    .warmup_ns = 2000000,
    .work_chunk_ns = 500000,
    .work_repeats = 5,
    .work_rounds = WORK_ROUNDS_MAX_QUICK,
    .work_spread_max = WORK_SPREAD_MAX_PCT_QUICK,
    .clock_reads = 2000,
    .cputime_reads = 200,
    .overhead_calls = 1000,
    .thread_repeats = 0,
    .sleep_points = sleep_points_quick,
    .n_sleep_points = sizeof(sleep_points_quick) / sizeof(sleep_points_quick[0]),
    .sleep_budget_ns = 5000000,
    .sleep_repeats_min = 5,
    .sleep_repeats_max = 10,
};

double dps_calibration_sleep_overshoot_ns(const struct dps_calibration *cal, uint64_t req_ns)
{
	size_t n = cal->n_sleep_points;

	if (!n) {
		return 0;
	}
	if (req_ns <= cal->sleep_req_ns[0]) {
		return cal->sleep_overshoot_ns[0];
	}
	for (size_t i = 1; i < n; i++) {
		if (req_ns <= cal->sleep_req_ns[i]) {
			double x0 = (double)cal->sleep_req_ns[i - 1];
			double x1 = (double)cal->sleep_req_ns[i];
			double y0 = cal->sleep_overshoot_ns[i - 1];
			double y1 = cal->sleep_overshoot_ns[i];

			return y0 + (y1 - y0) * ((double)req_ns - x0) / (x1 - x0);
		}
	}
	return cal->sleep_overshoot_ns[n - 1];
}

/*
 * Measurement
 */
static void describe_machine(char *buf, size_t len)
{
	struct utsname u;
	char model[128] = "unknown CPU";
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!strncmp(line, "model name", 10) && colon) {
				snprintf(model, sizeof(model), "%.100s", colon + 2);
				model[strcspn(model, "\n")] = '\0';
				break;
			}
		}
		fclose(f);
	}
	if (uname(&u)) {
		snprintf(buf, len, "%s", model);
		return;
	}
	snprintf(buf, len, "%.32s %.16s %.72s", u.nodename, u.machine, model);
}

/* Loops per µs of thread CPU time (immune to preemption, which only delays wall time). */
static double measure_loop_rate(uint64_t loops)
{
	uint64_t c0 = dps__cputime_ns();
	uint64_t c1;

	dps_work_loops(loops);
	c1 = dps__cputime_ns();
	return c1 > c0 ? (double)loops * (double)DPS_NS_PER_US / (double)(c1 - c0) : 0;
}

/* Warm-up: spin until two consecutive probes (min_ns / 5 each) agree within 2 % (the
 * frequency governor has ramped up), at least min_ns and at most 10 x min_ns. Returns the last
 * rate. */
static double warm_up(uint64_t min_ns)
{
	uint64_t t0 = dps__now_ns();
	uint64_t loops = 100000;
	double probe_us = (double)min_ns / 5 / (double)DPS_NS_PER_US; /* >= 5 probes */
	double prev = 0, rate = 0;

	for (;;) {
		uint64_t now;

		rate = measure_loop_rate(loops);
		now = dps__now_ns();
		if (rate > 0) {
			loops = (uint64_t)(rate * probe_us);
		}
		if (now - t0 >= min_ns && prev > 0 && fabs(rate - prev) <= 0.02 * prev) {
			break;
		}
		if (now - t0 >= 10 * min_ns) {
			break;
		}
		prev = rate;
	}
	return rate;
}

static void measure_work(struct dps_calibration *cal, const struct measure_plan *plan)
{
	double rates[16], sorted[16];
	double best_median = 0, best_spread = INFINITY;
	uint64_t loops;
	double rate = warm_up(plan->warmup_ns);

	if (!(rate > 0)) {
		rate = 1000;
	}
	loops = (uint64_t)(rate * (double)plan->work_chunk_ns / (double)DPS_NS_PER_US);
	for (size_t round = 0; round < plan->work_rounds; round++) {
		double median, spread;

		for (size_t i = 0; i < plan->work_repeats; i++) {
			rates[i] = measure_loop_rate(loops);
			sorted[i] = rates[i];
		}
		median = dps__quantile(sorted, plan->work_repeats, 0.5);
		spread = median > 0 ? 100.0 * (sorted[plan->work_repeats - 1] - sorted[0]) / median
				    : INFINITY;
		if (spread < best_spread) {
			best_spread = spread;
			best_median = median;
		}
		if (spread <= plan->work_spread_max) {
			break;
		}
	}
	cal->work_loops_per_us = best_median;
	cal->work_spread_pct = best_spread;
}

static double measure_clock_read(clockid_t clock, size_t n)
{
	uint64_t t0 = dps__now_ns();
	uint64_t t1;

	for (size_t i = 0; i < n; i++) {
		(void)dps__clock_ns(clock);
	}
	t1 = dps__now_ns();
	return (double)(t1 - t0) / (double)n;
}

static double measure_action_overhead(size_t n)
{
	double per[8];

	/* Best of a few batches: the fixed cost of a zero-length run. Silent: with a session
	 * active its events would flood the program's trace (bench/runtime.sh measures the cost
	 * with tracepoints firing). */
	dps__tls_silent = true;
	for (size_t b = 0; b < 8; b++) {
		uint64_t t0 = dps__now_ns();

		for (size_t i = 0; i < n / 8 + 1; i++) {
			dps__run(0, DPS_RUN_WORK, 0);
		}
		per[b] = (double)(dps__now_ns() - t0) / (double)(n / 8 + 1);
	}
	dps__tls_silent = false;
	return dps__quantile(per, 8, 0.0);
}

struct thread_probe {
	uint64_t started_ns;
	int started;
	int finished;
};

static void *probe_thread(void *arg)
{
	struct thread_probe *p = arg;

	p->started_ns = dps__now_ns();
	__atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&p->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Median cost of pthread_create until the thread runs, and of joining an ended thread. */
static int measure_threads(struct dps_calibration *cal, size_t n)
{
	double create[64], join[64];
	int ret = DPS_OK;

	if (n > 64) {
		n = 64;
	}
	for (size_t i = 0; i < n; i++) {
		struct thread_probe p = {0};
		pthread_t th;
		uint64_t t0, t1;

		t0 = dps__now_ns();
		if (pthread_create(&th, NULL, probe_thread, &p)) {
			ret = DPS_ERROR;
			n = i;
			break;
		}
		while (!__atomic_load_n(&p.finished, __ATOMIC_ACQUIRE)) {
			sched_yield();
		}
		create[i] = (double)(p.started_ns - t0);
		/* Let the thread really exit so the join measures the join, not the wait. */
		t1 = dps__now_ns() + 50000;
		dps__spin_until(t1);
		t0 = dps__now_ns();
		pthread_join(th, NULL);
		join[i] = (double)(dps__now_ns() - t0);
	}
	cal->thread_create_ns = dps__quantile(create, n, 0.5);
	cal->thread_join_ns = dps__quantile(join, n, 0.5);
	return ret;
}

/*
 * The overshoot to compensate from n samples of a sleep of req ns: the median plus a margin of
 * 5 us and 0.05 % of the request. A sleep wakes that long before its deadline and spins the
 * rest, so it ends on the deadline unless the kernel is later than its median by more than the
 * margin: the median of the compensated overshoot stays under the 5 us target
 * (doc/runtime.md) while a typical sleep spins only the margin and the spread below the median.
 * The kernel's spread grows with the sleep's length (on this project's VMs 30 us at 1 ms,
 * 60 us and more at 10-100 ms) while the spin's share of the sleep shrinks, hence the
 * proportional part (55 us at 100 ms, 5.5 us at 1 ms). The 90th percentile used before made
 * every sleep spin its distance to the tail: 50-75 us of CPU per 1 ms sleep, which a thread
 * napping thousands of times between 40 us runs could not give back (the player takes a
 * sleep's spin out of the next run in cpu mode).
 */
double dps__sleep_margin_ns(uint64_t req_ns)
{
	return 5000.0 + 0.0005 * (double)req_ns;
}

static double robust_overshoot(double *over, size_t n, uint64_t req)
{
	return dps__quantile(over, n, 0.5) + dps__sleep_margin_ns(req);
}

/* Raw clock_nanosleep overshoot with the timer slack in force, per requested duration (see
 * robust_overshoot for what is stored). */
static void measure_sleep(struct dps_calibration *cal, const struct measure_plan *plan)
{
	double over[64];

	cal->n_sleep_points = plan->n_sleep_points;
	for (size_t p = 0; p < plan->n_sleep_points; p++) {
		uint64_t req = plan->sleep_points[p];
		size_t reps = (size_t)(plan->sleep_budget_ns / req);

		if (reps < plan->sleep_repeats_min) {
			reps = plan->sleep_repeats_min;
		}
		if (reps > plan->sleep_repeats_max) {
			reps = plan->sleep_repeats_max;
		}
		if (reps > 64) {
			reps = 64;
		}
		for (size_t i = 0; i < reps; i++) {
			struct timespec ts = {
			    .tv_sec = (time_t)(req / DPS_NS_PER_S),
			    .tv_nsec = (long)(req % DPS_NS_PER_S),
			};
			uint64_t t0 = dps__now_ns();

			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
			over[i] = (double)(dps__now_ns() - t0) - (double)req;
		}
		cal->sleep_req_ns[p] = req;
		cal->sleep_overshoot_ns[p] = robust_overshoot(over, reps, req);
		if (cal->sleep_overshoot_ns[p] < 0) {
			cal->sleep_overshoot_ns[p] = 0;
		}
	}
}

int dps_calibration_measure(struct dps_calibration *cal, bool quick)
{
	const struct measure_plan *plan = quick ? &plan_quick : &plan_full;
	int old_slack;
	double min_block;
	int ret = DPS_OK;

	memset(cal, 0, sizeof(*cal));
	cal->format_version = DPS_CALIBRATION_FORMAT_VERSION;
	describe_machine(cal->machine, sizeof(cal->machine));
	cal->timer_slack_ns = 1;
	old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl(PR_SET_TIMERSLACK, (unsigned long)cal->timer_slack_ns, 0, 0, 0);

	measure_work(cal, plan);
	cal->clock_read_ns = measure_clock_read(CLOCK_MONOTONIC, plan->clock_reads);
	cal->cputime_read_ns = measure_clock_read(CLOCK_THREAD_CPUTIME_ID, plan->cputime_reads);
	cal->action_overhead_ns = measure_action_overhead(plan->overhead_calls);
	if (plan->thread_repeats) {
		ret = measure_threads(cal, plan->thread_repeats);
	} else {
		struct dps_calibration def;

		dps_calibration_default(&def);
		cal->thread_create_ns = def.thread_create_ns;
		cal->thread_join_ns = def.thread_join_ns;
	}
	measure_sleep(cal, plan);
	if (!ret && plan->thread_repeats) {
		/* the quick plan starts no thread (it runs inside a recorded run) */
		ret = dps_calibration_measure_action_costs(cal);
	}

	/* Blocks shorter than twice the shortest sleep's overshoot cannot be replayed as sleeps
	 * faithfully; the analyzer folds them into runs by default. */
	min_block = 2 * cal->sleep_overshoot_ns[0];
	if (min_block < 10000) {
		min_block = 10000;
	}
	cal->min_block_ns = (uint64_t)(ceil(min_block / 1000.0) * 1000.0);
	cal->overridden = false;
	if (old_slack > 0) {
		prctl(PR_SET_TIMERSLACK, (unsigned long)old_slack, 0, 0, 0);
	}
	return ret;
}
