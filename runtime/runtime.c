/* SPDX-License-Identifier: MIT */
/*
 * The PSFs (run, sleep) and the global state dps_init() sets up. The hot paths here never log
 * and never allocate: they read the calibration, spin or sleep, and fire their tracepoints.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "dps_tp.h"
#include "runtime-internal.h"

struct dps_calibration dps__calibration;
__thread uint64_t dps__tls_id;
__thread bool dps__tls_silent;
__thread uint64_t dps__tls_run_t0_ns, dps__tls_run_t1_ns;

static __thread bool tls_prepared;
/* cpu mode: the loop rate this thread last observed (loops per µs of CPU); 0 = calibration. */
static __thread double tls_loop_rate;

void dps__forget_thread_rate(void)
{
	tls_loop_rate = 0;
}

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialized; /* read without the lock only through __atomic loads */
static struct dps_config config;

/* Below this remaining CPU time, one more CLOCK_THREAD_CPUTIME_ID read costs more than it
 * saves; in multiples of the calibrated read cost. */
#define CPU_MODE_LAST_CHUNK_READS 2.0
/* Chunks aim this fraction of what remains so that a loop rate that dropped since the last
 * measurement (frequency scaling, a busy sibling hyperthread: +-25 % on the reference VM)
 * or time the hypervisor steals from the vCPU (counted as the thread's CPU time) still lands
 * short of the target and the next read corrects it. */
#define CPU_MODE_CHUNK_FRACTION 0.75
/* A chunk, at most (ns of CPU by the rate last observed). */
#define CPU_MODE_MAX_CHUNK_NS 1000000.0

const char *dps_run_mode_name(enum dps_run_mode mode)
{
	switch (mode) {
	case DPS_RUN_WORK:
		return "work";
	case DPS_RUN_CPU:
		return "cpu";
	case DPS_RUN_WALL:
		return "wall";
	}
	return "unknown";
}

int dps_run_mode_parse(const char *name, enum dps_run_mode *mode)
{
	static const enum dps_run_mode modes[] = {DPS_RUN_WORK, DPS_RUN_CPU, DPS_RUN_WALL};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (name && !strcmp(name, dps_run_mode_name(modes[i]))) {
			*mode = modes[i];
			return DPS_OK;
		}
	}
	return DPS_ERR_INVAL;
}

void dps_config_default(struct dps_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->calibration_path = NULL;
	cfg->mode = DPS_RUN_CPU;
	cfg->run_scale = 1.0;
	cfg->sleep_scale = 1.0;
	cfg->quiet = false;
}

void dps__thread_prepare(void)
{
	if (tls_prepared) {
		return;
	}
	/* Timer slack is per thread (inherited at creation); the default 50 µs would dominate
	 * every short sleep. */
	prctl(PR_SET_TIMERSLACK,
	      dps__calibration.timer_slack_ns ? dps__calibration.timer_slack_ns : 1UL, 0, 0, 0);
	tls_prepared = true;
}

static void emit_calibration(const struct dps_calibration *cal)
{
	uint64_t overshoot[DPS_SLEEP_OVERSHOOT_POINTS];

	for (size_t i = 0; i < cal->n_sleep_points; i++) {
		overshoot[i] = cal->sleep_overshoot_ns[i] > 0
				   ? (uint64_t)(cal->sleep_overshoot_ns[i] + 0.5)
				   : 0;
	}
	lttng_ust_tracepoint(dps, calibration, cal, overshoot);
}

/*
 * Order: explicit path, then DPS_CALIBRATION (a path, or "override" for the deterministic
 * defaults), then a quick measurement. A file with missing keys still loads; its message is
 * passed on in err so the caller can warn.
 */
static int load_calibration(const struct dps_config *cfg, struct dps_calibration *cal, char *err,
			    size_t errlen)
{
	const char *path = cfg->calibration_path;

	if (!path || !*path) {
		path = getenv("DPS_CALIBRATION");
	}
	if (path && !strcmp(path, "override")) {
		dps_calibration_default(cal);
		return DPS_OK;
	}
	if (path && *path) {
		return dps_calibration_load(path, cal, err, errlen);
	}
	return dps_calibration_measure(cal, true);
}

int dps_init(const struct dps_config *cfg, char *err, size_t errlen)
{
	struct dps_config defaults;
	struct dps_calibration cal;
	int ret = DPS_OK;

	if (err && errlen) {
		err[0] = '\0';
	}
	if (!cfg) {
		dps_config_default(&defaults);
		cfg = &defaults;
	}
	pthread_mutex_lock(&init_lock);
	if (initialized) {
		goto end;
	}
	ret = load_calibration(cfg, &cal, err, errlen);
	if (ret) {
		goto end;
	}
	dps__calibration = cal;
	config = *cfg;
	config.calibration_path = NULL; /* borrowed from the caller; not kept */
	tls_prepared = false;
	dps__thread_prepare();
	emit_calibration(&dps__calibration);
	__atomic_store_n(&initialized, true, __ATOMIC_RELEASE);
end:
	pthread_mutex_unlock(&init_lock);
	return ret;
}

void dps__ensure_init(void)
{
	char err[256];

	if (__atomic_load_n(&initialized, __ATOMIC_ACQUIRE)) {
		return;
	}
	if (dps_init(NULL, err, sizeof(err))) {
		/* DPS_CALIBRATION names a bad file: run on the defaults rather than not at all;
		 * the caller that wanted to know called dps_init() itself. */
		struct dps_config cfg;

		dps_config_default(&cfg);
		pthread_mutex_lock(&init_lock);
		if (!initialized) {
			dps_calibration_default(&dps__calibration);
			config = cfg;
			dps__thread_prepare();
			emit_calibration(&dps__calibration);
			__atomic_store_n(&initialized, true, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&init_lock);
	}
}

const struct dps_calibration *dps_calibration_borrow(void)
{
	dps__ensure_init();
	return &dps__calibration;
}

void dps__spin_until(uint64_t deadline_ns)
{
	while (dps__now_ns() < deadline_ns) {
#if defined(__x86_64__) || defined(__i386__)
		/* A pause keeps the sibling hyperthread fed while we spin. */
		__asm__ __volatile__("pause" ::: "memory");
#else
		__asm__ __volatile__("" ::: "memory");
#endif
	}
}

/* a + b, saturated: a run or sleep of ~2^64 ns lasts "forever", it does not wrap to nothing */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t loops_for_ns(double loops_per_us, double ns)
{
	double loops = ns * loops_per_us / (double)DPS_NS_PER_US;

	return loops > 0 ? (uint64_t)(loops + 0.5) : 0;
}

/*
 * cpu mode: busy until this thread consumed ns of CPU time. Reading the thread CPU clock costs
 * ~0.2-0.6 µs, so the loop runs in calibrated chunks (each aiming short of what remains, the
 * rate corrected by what the previous chunk really cost, and remembered per thread) and reads
 * the clock only between chunks; the last chunk, too small to be worth a read, is run on the
 * rate alone.
 */
/* Burns ns of the thread's CPU from c0, a reading of its clock just taken (one read less per
 * run: a read costs 1.6 us on some VMs, where a replayed round trip holds a few). */
static void run_cpu_from(uint64_t c0, uint64_t ns)
{
	double read_ns =
	    dps__calibration.cputime_read_ns > 1 ? dps__calibration.cputime_read_ns : 1;
	double rate = tls_loop_rate > 0 ? tls_loop_rate : dps__calibration.work_loops_per_us;
	uint64_t used = 0;

	while (used < ns) {
		double rem = (double)(ns - used), chunk;
		uint64_t loops;
		uint64_t c1;

		if (rem <= read_ns / 2) {
			break;
		}
		if (rem <= CPU_MODE_LAST_CHUNK_READS * read_ns) {
			dps_work_loops(loops_for_ns(rate, rem));
			break;
		}
		chunk = (rem - read_ns) * CPU_MODE_CHUNK_FRACTION;
		/* The first chunk of a run measures the rate first: the calibrated or last rate
		 * may be far off now (a busy hyperthread sibling, a sanitizer): played on it, a
		 * 0.75 chunk overshot a 30 ms run by 80 %. The later ones stay as short: the
		 * rate can also drop by half in the middle of a chunk (the host's other
		 * hyperthread getting busy, time stolen from the vCPU and counted as the
		 * thread's), and a 0.75 chunk of a 20 ms run then overshot it by 7 ms (1 run in
		 * 30 beside busy cores); 1 ms chunks bound that to a fraction of a millisecond,
		 * for two clock reads per millisecond of run. */
		if (chunk > CPU_MODE_MAX_CHUNK_NS) {
			chunk = CPU_MODE_MAX_CHUNK_NS;
		}
		loops = loops_for_ns(rate, chunk);
		c1 = dps__cputime_ns();
		dps_work_loops(loops);
		used = dps__cputime_ns() - c0;
		/* Correct the rate from a chunk long enough to measure (the clock reads are
		 * inside the interval, so short chunks would read low). */
		if (loops && used > 0) {
			uint64_t spent = c0 + used - c1;

			if (spent > 20 * read_ns) {
				rate = (double)loops * (double)DPS_NS_PER_US / (double)spent;
				tls_loop_rate = rate;
			}
		}
	}
}

static void run_cpu(uint64_t ns)
{
	run_cpu_from(dps__cputime_ns(), ns);
}

void dps__run_cpu_rate(uint64_t ns)
{
	double rate = tls_loop_rate > 0 ? tls_loop_rate : dps__calibration.work_loops_per_us;

	dps_work_loops(loops_for_ns(rate, (double)ns));
}

void dps__run_cpu_until(uint64_t cpu_target_ns)
{
	uint64_t now = dps__cputime_ns();

	if (cpu_target_ns > now) {
		run_cpu_from(now, cpu_target_ns - now);
	}
}

uint64_t dps__run(uint64_t ns, enum dps_run_mode mode, uint32_t line)
{
	return dps__run_budget(ns, mode, 0, line, NULL);
}

uint64_t dps__run_budget(uint64_t ns, enum dps_run_mode mode, uint64_t cpu_target_ns, uint32_t line,
			 uint64_t *cpu_ns)
{
	uint64_t id = dps__tls_id;
	uint64_t t0, t1;

	if (!dps__tls_silent) {
		lttng_ust_tracepoint(dps, run_begin, id, ns, 0, (int)mode, line);
	}
	t0 = dps__now_ns();
	switch (mode) {
	case DPS_RUN_CPU:
		if (cpu_target_ns) {
			uint64_t now = dps__cputime_ns();

			/* Behind the budget only: a run that the costs since the last one
			 * already used up is skipped, and the debt goes to the next. */
			if (cpu_target_ns > now) {
				run_cpu_from(now, cpu_target_ns - now);
			}
			if (cpu_ns) {
				*cpu_ns = cpu_target_ns > now ? cpu_target_ns - now : 0;
			}
		} else {
			run_cpu(ns);
		}
		break;
	case DPS_RUN_WALL:
		dps__spin_until(add_sat(t0, ns));
		break;
	case DPS_RUN_WORK:
	default:
		dps_work_loops(loops_for_ns(dps__calibration.work_loops_per_us, (double)ns));
		break;
	}
	t1 = dps__now_ns();
	dps__tls_run_t0_ns = t0;
	dps__tls_run_t1_ns = t1;
	if (!dps__tls_silent) {
		lttng_ust_tracepoint(dps, run_end, id, ns, t1 - t0, (int)mode, line);
	}
	return t1 - t0;
}

/*
 * Sleeps until (deadline - expected overshoot) with 1 ns timer slack, then spins the rest on
 * CLOCK_MONOTONIC: the kernel's wake-up latency is paid inside the request instead of after it.
 * Requests shorter than the expected overshoot are spun entirely.
 */
uint64_t dps__sleep(uint64_t ns, uint32_t line)
{
	uint64_t id = dps__tls_id;
	uint64_t t0, t1, deadline;
	double overshoot;

	dps__thread_prepare();
	lttng_ust_tracepoint(dps, sleep_begin, id, ns, 0, line);
	t0 = dps__now_ns();
	deadline = add_sat(t0, ns);
	overshoot = dps_calibration_sleep_overshoot_ns(&dps__calibration, ns);
	if ((double)ns > overshoot) {
		uint64_t wake = deadline - (uint64_t)overshoot;
		struct timespec ts = {
		    .tv_sec = (time_t)(wake / DPS_NS_PER_S),
		    .tv_nsec = (long)(wake % DPS_NS_PER_S),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
			/* a signal: sleep on to the same absolute time */
		}
	}
	dps__spin_until(deadline);
	t1 = dps__now_ns();
	lttng_ust_tracepoint(dps, sleep_end, id, ns, t1 - t0, line);
	return t1 - t0;
}

/*
 * In cpu mode the player takes whatever CPU a thread spends outside its runs out of its next
 * run, so the CPU a sleep costs (the system call, the wake-up, the tracepoints: 15-35 us on a
 * VM) shortens the next run's wall time by as much. A sleep that ended on its deadline would
 * make every sleep-and-run cycle end early by that cost; the recording's sleep is the time the
 * thread was off the CPU (doc/analyzer.md), so this one keeps the thread off the CPU for ns.
 * Right after a run, the next run should begin ns plus the CPU the sleep costs after that
 * run's end: the sleep wakes then, less the lateness expected, and spins nothing (a spin's CPU
 * is on the thread's clock as much as on the wall, so it cannot make up for an early wake-up,
 * only move CPU out of the next run). Counted from the sleep's own start instead, the part of
 * the cost spent outside the sleep (the tracepoints and the player between the run and the
 * sleep, and after it) was off-CPU time on top: 10-15 us a cycle, 8 ms over a recorded
 * sleeper's 545 naps (a hand analysis of one pingsleep replay's trace, 2026-11-30;
 * bench/fidelity.sh measures the replays' wall time). The expected cost is what the player
 * measured between the thread's runs around its earlier sleeps (no clock read of its own: a
 * CPU clock read costs 1.4 us on the bench VM, which a napping thread's short runs must then
 * absorb); the expected lateness the calibration's median, corrected by what the thread's
 * sleeps meet: here the next run's start against when it was due (dps__sleep_learn_gap), or,
 * for a sleep after another action, its own wake-up.
 */
uint64_t dps__sleep_off_cpu(uint64_t ns, uint32_t line, struct dps__sleep_learned *l)
{
	uint64_t id = dps__tls_id;
	uint64_t t0, t1, wake, from, due;
	struct timespec ts;
	double table, early, step;
	bool blocks, compensated = false;

	dps__thread_prepare();
	lttng_ust_tracepoint(dps, sleep_begin, id, ns, 0, line);
	t0 = dps__now_ns();
	table =
	    dps_calibration_sleep_overshoot_ns(&dps__calibration, ns) - dps__sleep_margin_ns(ns);
	early = table + l->late_adj_ns;
	from = l->run_end_ns && l->run_end_ns <= t0 ? l->run_end_ns : t0;
	due = add_sat(from, add_sat(ns, l->cost_ns));
	wake = due;
	if (from != t0) {
		/* After a run, early may be below 0 too (the wake-ups came early): a correction
		 * that stopped at 0 stopped learning, and every sleep after was late by the
		 * kernel's whole lateness. */
		double at = (double)wake - early;

		if (at > (double)t0 && at < 1.8e19) {
			wake = (uint64_t)at;
			compensated = true;
		}
	} else if (early > 0 && (double)(wake - t0) > early) {
		/* shorter than the kernel's median overshoot: uncompensated, late by about that */
		wake -= (uint64_t)early;
		compensated = true;
	}
	l->due_ns = 0;
	ts.tv_sec = (time_t)(wake / DPS_NS_PER_S);
	ts.tv_nsec = (long)(wake % DPS_NS_PER_S);
	blocks = wake > dps__now_ns();
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
		/* a signal: sleep on to the same absolute time */
	}
	t1 = dps__now_ns();
	lttng_ust_tracepoint(dps, sleep_end, id, ns, t1 - t0, line);
	if (from != t0) {
		/* after a run: the next run's start says how late this one was */
		if (blocks && compensated) {
			l->due_ns = due;
		}
		return t1 - t0;
	}
	/* The kernel's lateness now, against the table's: the table was measured once (by dps
	 * calibrate, or at start on a machine that may have been busier or quieter then), and a
	 * sleep that woke early by the difference would end early with nothing to make it up.
	 * Each sleep moves the correction by at most an eighth of the lateness expected (and
	 * 1 us), so one preempted wake-up cannot set it. */
	if (blocks) {
		double err = (double)(t1 - wake) - (table > 0 ? table : 0) - l->late_adj_ns;

		step = (early > 0 ? early : 0) / 8 + 1000.0;
		l->late_adj_ns += err > step ? step : err < -step ? -step : err;
	}
	return t1 - t0;
}

void dps__sleep_learn_gap(struct dps__sleep_learned *l, uint64_t run_t0_ns)
{
	double err;

	if (!l->due_ns) {
		return;
	}
	err = (double)run_t0_ns - (double)l->due_ns;
	err = err > 100000.0 ? 100000.0 : err < -100000.0 ? -100000.0 : err;
	l->late_adj_ns += err / 8;
	l->due_ns = 0;
}

static uint64_t scale_ns(uint64_t ns, double scale)
{
	double v = (double)ns * scale;

	if (scale == 1.0) {
		return ns;
	}
	if (!(v > 0)) {
		return 0;
	}
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)(v + 0.5);
}

uint64_t dps_run_ns(uint64_t ns, enum dps_run_mode mode)
{
	dps__ensure_init();
	return dps__run(scale_ns(ns, config.run_scale), mode, 0);
}

uint64_t dps_sleep_ns(uint64_t ns)
{
	dps__ensure_init();
	return dps__sleep(scale_ns(ns, config.sleep_scale), 0);
}
