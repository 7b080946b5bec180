/* SPDX-License-Identifier: MIT */
/* /proc/stat between two samples (machine-load.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "machine-load.h"

struct dps_load_sample dps_load_sample_take(void)
{
	struct dps_load_sample s = {.ticks_per_s = sysconf(_SC_CLK_TCK),
				    .cpus = (int)sysconf(_SC_NPROCESSORS_ONLN)};
	unsigned long long v[8] = {0}; /* user nice system idle iowait irq softirq steal */
	struct timespec ts;
	char line[512];
	FILE *f = fopen("/proc/stat", "r");

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s.t_s = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	if (!f) {
		return s;
	}
	if (fgets(line, sizeof(line), f) &&
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) >= 4) {
		s.busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6];
		s.steal_ticks = v[7];
		s.total_ticks = s.busy_ticks + v[3] + v[4] + v[7];
		s.ok = s.ticks_per_s > 0 && s.cpus > 0;
	}
	fclose(f);
	return s;
}

struct dps_load dps_load_between(const struct dps_load_sample *a, const struct dps_load_sample *b,
				 uint64_t own_cpu_ns)
{
	struct dps_load l = {0};
	double total;

	if (!a->ok || !b->ok || b->total_ticks <= a->total_ticks) {
		return l;
	}
	total = (double)(b->total_ticks - a->total_ticks);
	l.known = true;
	l.cpus = b->cpus;
	l.wall_s = b->t_s - a->t_s;
	l.busy_pct = 100.0 * (double)(b->busy_ticks - a->busy_ticks) / total;
	l.steal_pct = 100.0 * (double)(b->steal_ticks - a->steal_ticks) / total;
	/* The ticks are coarse (10 ms): our own share is measured in ns and converted. */
	l.own_pct = 100.0 * ((double)own_cpu_ns * 1e-9 * (double)b->ticks_per_s) / total;
	if (l.own_pct > l.busy_pct) {
		l.own_pct = l.busy_pct;
	}
	l.others_pct = l.busy_pct - l.own_pct;
	return l;
}

bool dps_load_is_under_load(const struct dps_load *l)
{
	return l->known &&
	       (l->others_pct > DPS_LOAD_OTHERS_PCT_MAX || l->steal_pct > DPS_LOAD_STEAL_PCT_MAX);
}

uint64_t dps_load_self_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru)) {
		return 0;
	}
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

bool dps_load_warn_calibration(FILE *out, const char *who, double spread_pct,
			       const struct dps_load *l)
{
	bool loaded = l && dps_load_is_under_load(l);
	bool spread = spread_pct > DPS_CALIBRATION_SPREAD_PCT_MAX;

	if (!spread && !loaded) {
		return false;
	}
	fprintf(out, "%s: warning: %s:", who,
		loaded ? "calibrated under load" : "the calibration is unsteady");
	if (loaded) {
		fprintf(out, " other processes used %.0f %% of the %d CPUs, steal %.1f %%;",
			l->others_pct, l->cpus, l->steal_pct);
	}
	if (spread) {
		fprintf(out,
			" the work-loop rate moved %.1f %% between repeats (steady: <= %.0f %%);",
			spread_pct, DPS_CALIBRATION_SPREAD_PCT_MAX);
	}
	fprintf(out, " work mode will be off by as much, cpu mode (the default) is not; "
		     "calibrate again on a quiet machine for work mode and the sleep figures\n");
	return true;
}

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) && errno == EINTR) {
	}
}

/* The load over one window of s seconds, our own process idle meanwhile. */
static struct dps_load window_load(double s)
{
	struct dps_load_sample a = dps_load_sample_take();
	uint64_t cpu0 = dps_load_self_cpu_ns();
	struct dps_load_sample b;

	sleep_s(s);
	b = dps_load_sample_take();
	return dps_load_between(&a, &b, dps_load_self_cpu_ns() - cpu0);
}

enum dps_quiet dps_load_wait_quiet(struct dps_quiet_wait *w, const char *what, FILE *out,
				   struct dps_load *last)
{
	struct dps_load_sample t0 = dps_load_sample_take();
	struct dps_load l = {0};
	double waited = 0;
	bool said = false;

	if (!(w->max_s > 0) || w->gave_up) {
		return DPS_QUIET_OFF;
	}
	for (;;) {
		double left = w->max_s - waited;

		l = window_load(left < DPS_LOAD_QUIET_WINDOW_S ? left : DPS_LOAD_QUIET_WINDOW_S);
		waited = dps_load_sample_take().t_s - t0.t_s;
		/* /proc/stat unreadable: nothing to wait for */
		if (!l.known || !dps_load_is_under_load(&l)) {
			break;
		}
		if (waited >= w->max_s - 0.01) {
			w->gave_up = true;
			fprintf(out,
				"%s: --wait-quiet: the machine did not get quiet in %.0f s (other "
				"processes use %.0f %% of the %d CPUs, steal %.1f %%; quiet: under "
				"%.0f %% and %.0f %%); %s under load, and no more waiting\n",
				w->who, w->max_s, l.others_pct, l.cpus, l.steal_pct,
				DPS_LOAD_OTHERS_PCT_MAX, DPS_LOAD_STEAL_PCT_MAX, what);
			break;
		}
		if (!said && !w->quiet) {
			fprintf(out,
				"%s: waiting up to %.0f s for a quiet machine before %s (other "
				"processes use %.0f %% of the %d CPUs, steal %.1f %%)\n",
				w->who, w->max_s, what, l.others_pct, l.cpus, l.steal_pct);
		}
		said = true;
	}
	if (last) {
		*last = l;
	}
	if (w->gave_up) {
		return DPS_QUIET_GAVE_UP;
	}
	if (said && !w->quiet) {
		fprintf(out, "%s: the machine is quiet after %.1f s\n", w->who, waited);
	}
	return DPS_QUIET_YES;
}
