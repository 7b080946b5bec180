/* SPDX-License-Identifier: MIT */
/*
 * Local CPU stubs (dps/stub.h, doc/ssf.md): regions of the real program run, skipped or
 * preceded by a PSF, by a mode set from outside. The CPU time a region used is an SSF entry
 * of its own (a one-type schema of libdps), so the recording that restores the region's
 * results also says how long the region ran. Regions are per thread (a small stack of open
 * ones in thread-local storage); the mode is process-wide, read once.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dps/dps.h>
#include <dps/ssf.h>
#include <dps/stub.h>

#include "clock.h"
#include "dps_tp.h"
#include "ssf-codec.h"

#define STUB_MAX_NESTING 8

static const struct dps_ssf_type stub_types[] = {
    {.kind = DPS_SSF_UINT, .name = "uint64_t", .size = 8},
};
static const struct dps_ssf_schema stub_schema = {"dps_stub", 1, stub_types};

static pthread_once_t stub_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t stub_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	enum dps_stub_mode mode;
	uint64_t busy_ns; /* > 0: t_PSF as a time */
	double busy_pct;  /* else: percentage of the recorded time */
	char error[200];  /* why the environment was refused */
	char *regions;	  /* owned, NULL: every region; else ",a,b," the regions the mode is for
			   * (DPS_STUB_REGIONS), the others run as they are */
} stub = {DPS_STUB_ORIGINAL, 0, 100.0, "", NULL};

static __thread struct {
	const char *name; /* borrowed from the caller: its string must outlive the region */
	uint64_t cpu0_ns;
} open_regions[STUB_MAX_NESTING];
static __thread unsigned n_open;

/* "2ms", "500us", "800ns", "1s", "1.5ms" -> ns; "50%" -> *pct. False when malformed. */
static bool parse_busy(const char *s, uint64_t *ns, double *pct)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"%", -1}};
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v) || v < 0) {
		return false;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			if (units[i].ns < 0) {
				*ns = 0;
				*pct = v;
			} else {
				*ns = (uint64_t)(v * units[i].ns);
				*pct = 0;
			}
			return v * (units[i].ns < 0 ? 1 : units[i].ns) < 1e18;
		}
	}
	return false;
}

static void read_environment(void)
{
	static const char *const names[] = {"original", "flat", "idle", "busy", "psf"};
	const char *mode = getenv("DPS_STUB_MODE"), *busy = getenv("DPS_STUB_BUSY");
	const char *regions = getenv("DPS_STUB_REGIONS");
	size_t i = 0;

	pthread_mutex_lock(&stub_lock);
	if (regions && *regions) {
		size_t n = strlen(regions) + 3;

		stub.regions = malloc(n);
		if (stub.regions) {
			snprintf(stub.regions, n, ",%s,", regions);
		}
	}
	if (mode && *mode) {
		while (i < 5 && strcmp(mode, names[i])) {
			i++;
		}
		if (i == 5) {
			snprintf(stub.error, sizeof(stub.error),
				 "DPS_STUB_MODE: expected original, flat, idle, busy or psf");
		} else {
			stub.mode = (enum dps_stub_mode)i;
		}
	}
	if (busy && *busy && !parse_busy(busy, &stub.busy_ns, &stub.busy_pct)) {
		snprintf(stub.error, sizeof(stub.error),
			 "DPS_STUB_BUSY: expected a duration (2ms, 500us, 800ns, 1s) or a "
			 "percentage (50%%)");
	}
	pthread_mutex_unlock(&stub_lock);
}

/* The mode for region name: DPS_STUB_REGIONS, when set, limits the mode to the regions it
 * lists; the others run as they are. Called with stub_lock held. */
static enum dps_stub_mode mode_for_locked(const char *name)
{
	char key[300];

	if (!stub.regions || !name) {
		return stub.mode;
	}
	snprintf(key, sizeof(key), ",%s,", name);
	return strstr(stub.regions, key) ? stub.mode : DPS_STUB_ORIGINAL;
}

static enum dps_stub_mode region_mode(const char *name)
{
	enum dps_stub_mode m;

	pthread_once(&stub_once, read_environment);
	pthread_mutex_lock(&stub_lock);
	m = mode_for_locked(name);
	pthread_mutex_unlock(&stub_lock);
	return m;
}

enum dps_stub_mode dps_stub_mode(void)
{
	enum dps_stub_mode m;

	pthread_once(&stub_once, read_environment);
	pthread_mutex_lock(&stub_lock);
	m = stub.mode;
	pthread_mutex_unlock(&stub_lock);
	return m;
}

int dps_stub_set(enum dps_stub_mode mode, uint64_t busy_ns, double busy_pct)
{
	if ((unsigned)mode > DPS_STUB_PSF || !isfinite(busy_pct) || busy_pct < 0) {
		return ssf_fail(DPS_ERR_INVAL, "dps_stub_set: bad mode or percentage");
	}
	pthread_once(&stub_once, read_environment);
	pthread_mutex_lock(&stub_lock);
	stub.mode = mode;
	stub.busy_ns = busy_ns;
	stub.busy_pct = busy_pct;
	stub.error[0] = 0;
	pthread_mutex_unlock(&stub_lock);
	return DPS_OK;
}

/* The entry name of a region's CPU time: "NAME__cpu_ns". */
static int time_entry(const char *name, char *buf, size_t len)
{
	if (!ssf_is_ident(name) || (size_t)snprintf(buf, len, "%s__cpu_ns", name) >= len) {
		return ssf_fail(DPS_ERR_INVAL, "stub region \"%s\": expected a C identifier",
				name ? name : "(null)");
	}
	return DPS_OK;
}

/* t_PSF: the configured time, or the percentage of the region's recorded CPU time. */
static int psf_ns(const char *name, uint64_t busy_ns, double pct, uint64_t *out)
{
	char entry[300];
	uint64_t recorded = 0;
	void *dst = &recorded;
	int ret;

	*out = busy_ns;
	if (busy_ns || pct == 0) {
		return DPS_OK;
	}
	ret = time_entry(name, entry, sizeof(entry));
	if (!ret && dps_ssf_mode() != DPS_SSF_RESTORE) {
		ret = ssf_fail(DPS_ERR_NOENT,
			       "stub region %s: no recorded CPU time (DPS_SSF_MODE is not restore)",
			       name);
	}
	ret = ret ? ret : dps_ssf_load(&stub_schema, 0, entry, &dst);
	if (!ret) {
		*out = (uint64_t)((double)recorded * pct / 100.0);
	}
	return ret;
}

/* DPS_STUB_STRICT=1: a region whose end fails ends the process (dps/stub.h). */
static bool strict(void)
{
	const char *v = getenv("DPS_STUB_STRICT");

	return v && !strcmp(v, "1");
}

bool dps_stub_begin(const char *name)
{
	enum dps_stub_mode mode = region_mode(name);
	uint64_t busy_ns, t;
	double pct;

	lttng_ust_tracepoint(dps, stub_begin, name ? name : "", (int)mode);
	if (mode == DPS_STUB_PSF) {
		pthread_mutex_lock(&stub_lock);
		busy_ns = stub.busy_ns;
		pct = stub.busy_pct;
		pthread_mutex_unlock(&stub_lock);
		if (!psf_ns(name, busy_ns, pct, &t) && t) {
			dps_run_ns(t, DPS_RUN_CPU);
		}
	}
	if (n_open < STUB_MAX_NESTING) {
		open_regions[n_open].name = name;
		open_regions[n_open].cpu0_ns = dps__cputime_ns();
	}
	n_open++;
	return mode == DPS_STUB_ORIGINAL || mode == DPS_STUB_PSF;
}

int dps_stub_end(const char *name)
{
	enum dps_stub_mode mode = region_mode(name);
	uint64_t cpu_ns = 0, spent = 0, busy_ns;
	char entry[300];
	double pct;
	int ret = DPS_OK;

	pthread_mutex_lock(&stub_lock);
	busy_ns = stub.busy_ns;
	pct = stub.busy_pct;
	if (stub.error[0]) {
		ret = ssf_fail(DPS_ERR_INVAL, "%s", stub.error);
	}
	pthread_mutex_unlock(&stub_lock);
	if (!n_open ||
	    (n_open <= STUB_MAX_NESTING && (!name || !open_regions[n_open - 1].name ||
					    strcmp(open_regions[n_open - 1].name, name)))) {
		return ssf_fail(DPS_ERR_INVAL, "stub region %s: an end without its begin",
				name ? name : "(null)");
	}
	n_open--;
	if (n_open < STUB_MAX_NESTING) {
		cpu_ns = dps__cputime_ns() - open_regions[n_open].cpu0_ns;
	}
	switch (mode) {
	case DPS_STUB_ORIGINAL:
	case DPS_STUB_PSF:
		if (dps_ssf_mode() == DPS_SSF_RECORD && !ret) {
			ret = time_entry(name, entry, sizeof(entry));
			ret = ret ? ret : dps_ssf_save(&stub_schema, 0, entry, &cpu_ns);
		}
		break;
	case DPS_STUB_IDLE:
		ret = ret ? ret : psf_ns(name, 0, 100.0, &spent);
		if (!ret && spent) {
			dps_sleep_ns(spent);
		}
		break;
	case DPS_STUB_BUSY:
		ret = ret ? ret : psf_ns(name, busy_ns, pct, &spent);
		if (!ret && spent) {
			dps_run_ns(spent, DPS_RUN_CPU);
		}
		break;
	case DPS_STUB_FLAT:
		break;
	}
	lttng_ust_tracepoint(dps, stub_end, name, (int)mode, cpu_ns, spent);
	if (ret && strict()) {
		/* a study timing this run (dps whatif -- CMD) must not take a stub that spent
		 * nothing for a fast one: the run fails, saying why */
		fprintf(stderr, "dps: stub region %s: %s\n", name ? name : "(null)",
			dps_ssf_last_error());
		fflush(stderr);
		_exit(DPS_STUB_STRICT_EXIT);
	}
	return ret;
}
