/* SPDX-License-Identifier: MIT */
/*
 * How much the machine was used while something of ours ran: the CPUs' time from /proc/stat
 * (busy, idle, stolen by the hypervisor) between two samples, minus the CPU time of our own
 * work. A replay judged under load measures the machine as much as the replay; these figures
 * let a comparison say so next to its error instead of calling it the tool's error, and let a
 * command wait for a quiet machine before it measures (--wait-quiet).
 *
 * One word for it in every output: "under load" (the terminal, the JSON's under_load keys,
 * the reports).
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
/* Whether the figures say the machine was under load: enough others to move timings. */
bool dps_load_is_under_load(const struct dps_load *l);

/* A work-loop rate that moves more than this between a calibration's repeats is noise. */
#define DPS_CALIBRATION_SPREAD_PCT_MAX 5.0

/* The CPU time this process has used so far (all its threads), ns. */
uint64_t dps_load_self_cpu_ns(void);

/*
 * After a calibration: when its loop rate spread over DPS_CALIBRATION_SPREAD_PCT_MAX or the
 * machine was under load meanwhile (l, NULL: unknown), a warning on out prefixed "who: " that says
 * which figure and what it means for the run modes. Returns whether it warned.
 */
bool dps_load_warn_calibration(FILE *out, const char *who, double spread_pct,
			       const struct dps_load *l);

/*
 * --wait-quiet[=SECONDS] (dps replay, dps whatif): before a measurement, wait until the
 * machine is quiet, that is not under load over a window of DPS_LOAD_QUIET_WINDOW_S read
 * from /proc/stat. A wait that runs out says so and the command goes on under load; the later
 * waits of that command are then skipped (the machine stays under load, and each wait would
 * add its SECONDS to every measured step).
 */
#define DPS_LOAD_WAIT_QUIET_DEFAULT_S 60.0
#define DPS_LOAD_QUIET_WINDOW_S 0.5

struct dps_quiet_wait {
	double max_s;	 /* one wait's limit, s; <= 0: no waiting */
	const char *who; /* borrowed: the messages' prefix ("dps replay") */
	bool quiet;	 /* say only that a wait ran out, not that one starts or ended */
	bool gave_up;	 /* set when a wait ran out: the later ones are skipped */
};

enum dps_quiet {
	DPS_QUIET_OFF = 0, /* no waiting: max_s <= 0, or an earlier wait ran out */
	DPS_QUIET_YES,	   /* the machine is quiet, at once or after a wait */
	DPS_QUIET_GAVE_UP, /* still under load after max_s: said on out */
};

/*
 * Waits (w->max_s at most) for a quiet machine before what ("recording the stub"), saying on
 * out when it starts waiting, when the machine got quiet after a wait, and when it did not
 * ("... did not get quiet in 60 s ...: recording the stub under load"). Our own process is
 * idle meanwhile, so what it measures is others' use. Returns what happened; *last (NULL: not
 * wanted) gets the last window's load.
 */
enum dps_quiet dps_load_wait_quiet(struct dps_quiet_wait *w, const char *what, FILE *out,
				   struct dps_load *last);

#endif /* DPS_COMMON_MACHINE_LOAD_H */
