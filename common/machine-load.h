/* SPDX-License-Identifier: MIT */
/*
 * How busy the machine was while something of ours ran: the CPUs' time from /proc/stat
 * (busy, idle, stolen by the hypervisor) between two samples, minus the CPU time of our own
 * work. A replay judged on a busy machine measures the machine as much as the replay; these
 * figures let a comparison say so next to its error instead of calling it the tool's error.
 */
#ifndef DPS_COMMON_MACHINE_LOAD_H
#define DPS_COMMON_MACHINE_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One reading of /proc/stat's "cpu" line and the clock. */
struct dps_load_sample {
	bool ok;	      /* false when /proc/stat could not be read */
	double t_s;	      /* CLOCK_MONOTONIC */
	uint64_t busy_ticks;  /* user + nice + system + irq + softirq */
	uint64_t total_ticks; /* every column up to steal */
	uint64_t steal_ticks;
	long ticks_per_s;
	int cpus;
};

/* The load between two samples. */
struct dps_load {
	bool known; /* both samples were read */
	int cpus;
	double wall_s;	   /* between the samples */
	double busy_pct;   /* of all CPUs' time, ours included */
	double own_pct;	   /* our own work's CPU time, of all CPUs' time */
	double others_pct; /* busy_pct - own_pct: everything else that ran */
	double steal_pct;  /* taken by the hypervisor */
};

/* A comparison made with others above this share of the CPUs, or this much steal, is marked
 * as made under load. */
#define DPS_LOAD_OTHERS_PCT_MAX 10.0
#define DPS_LOAD_STEAL_PCT_MAX 2.0

struct dps_load_sample dps_load_sample_take(void);
/* The load from a to b, own_cpu_ns the CPU time our work used meanwhile (0: none of ours). */
struct dps_load dps_load_between(const struct dps_load_sample *a, const struct dps_load_sample *b,
				 uint64_t own_cpu_ns);
/* Whether the figures say the machine was busy enough to move timings. */
bool dps_load_is_noisy(const struct dps_load *l);

/* A work-loop rate that moves more than this between a calibration's repeats is noise. */
#define DPS_CALIBRATION_SPREAD_PCT_MAX 5.0

/* The CPU time this process has used so far (all its threads), ns. */
uint64_t dps_load_self_cpu_ns(void);

/*
 * After a calibration: when its loop rate spread over DPS_CALIBRATION_SPREAD_PCT_MAX or the
 * machine was busy meanwhile (l, NULL: unknown), a warning on out prefixed "who: " that says
 * which figure and what it means for the run modes. Returns whether it warned.
 */
bool dps_load_warn_calibration(FILE *out, const char *who, double spread_pct,
			       const struct dps_load *l);

#endif /* DPS_COMMON_MACHINE_LOAD_H */
