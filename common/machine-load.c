/* SPDX-License-Identifier: MIT */
/* /proc/stat between two samples (machine-load.h). */
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

bool dps_load_is_noisy(const struct dps_load *l)
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
	bool noisy = l && dps_load_is_noisy(l);

	if (spread_pct <= DPS_CALIBRATION_SPREAD_PCT_MAX && !noisy) {
		return false;
	}
	fprintf(out, "%s: warning: the machine was noisy during calibration:", who);
	if (spread_pct > DPS_CALIBRATION_SPREAD_PCT_MAX) {
		fprintf(out,
			" the work-loop rate moved %.1f %% between repeats (quiet: <= %.0f %%);",
			spread_pct, DPS_CALIBRATION_SPREAD_PCT_MAX);
	}
	if (noisy) {
		fprintf(out, " other processes used %.0f %% of the %d CPUs, steal %.1f %%;",
			l->others_pct, l->cpus, l->steal_pct);
	}
	fprintf(out, " work mode will be off by as much, cpu mode (the default) is not; "
		     "calibrate again on a quiet machine for work mode and the sleep figures\n");
	return true;
}
