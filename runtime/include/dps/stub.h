/* SPDX-License-Identifier: MIT */
/*
 * Local CPU stubs in the real program (doc/ssf.md, "Local CPU stubs"): a region of code that
 * runs as it is, or is skipped while the program restores its results with SSF (dps/ssf.h)
 * and spends, in place of the region, nothing (flat), the recorded CPU time asleep (idle) or
 * a chosen CPU time (busy); or, the paper's step 2, a chosen CPU time before the region that
 * then runs as it is (psf).
 *
 *	DPS_STUB_BEGIN("compute")
 *		r = compute(key);                       the original code
 *		conn_ssf_save_result("r", r);           record mode: its results
 *	DPS_STUB_ELSE
 *		conn_ssf_load_result("r", &r);          its results, restored
 *	DPS_STUB_END("compute")
 *
 * The mode is set from outside, read once: DPS_STUB_MODE (original, flat, idle, busy, psf;
 * default original) and DPS_STUB_BUSY (busy and psf: a duration "2ms", "500us", "800ns",
 * "1s", or a percentage of the recorded CPU time "50%"; default 100%), or by dps_stub_set();
 * DPS_STUB_REGIONS (comma-separated region names, default all) limits the mode to the regions
 * it lists, the others running as they are. DPS_STUB_STRICT=1 (set by dps whatif -- CMD) makes
 * a failed dps_stub_end fatal: the message on stderr, _exit(DPS_STUB_STRICT_EXIT), so a stub
 * that could not spend its time is never timed as a fast one.
 * In original mode with SSF recording, the end of each region saves the CPU time the region
 * used as the SSF entry "NAME__cpu_ns"; the other modes read it back when SSF restores.
 * Every begin and end fires dps:stub_begin / dps:stub_end (doc/tracepoints.md), so the time
 * of the region and of the whole program are measured from a trace.
 *
 * Region names are C identifiers. Regions nest (up to 8 per thread) and are per thread.
 */
#ifndef DPS_STUB_H
#define DPS_STUB_H

#include <stdbool.h>
#include <stdint.h>

#include <dps/dps-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The exit status of a process whose region failed under DPS_STUB_STRICT=1. */
#define DPS_STUB_STRICT_EXIT 70

/* The numbers are the dps:stub_begin event's `mode` field. */
enum dps_stub_mode {
	DPS_STUB_ORIGINAL = 0, /* run the region */
	DPS_STUB_FLAT = 1,     /* skip it, spend nothing */
	DPS_STUB_IDLE = 2,     /* skip it, sleep the recorded CPU time */
	DPS_STUB_BUSY = 3,     /* skip it, spend t_PSF of CPU */
	DPS_STUB_PSF = 4,      /* spend t_PSF of CPU, then run the region */
};

/* The mode (the environment read on first use). */
enum dps_stub_mode dps_stub_mode(void);
/* Sets the mode from a call; busy_ns > 0 is t_PSF as a time, else busy_pct of the recorded
 * CPU time (100: as much as the region used). DPS_OK or DPS_ERR_INVAL. */
int dps_stub_set(enum dps_stub_mode mode, uint64_t busy_ns, double busy_pct);

/* Begins region name; true when the region's own code must run (original, psf). */
bool dps_stub_begin(const char *name);
/*
 * Ends region name: measures it (original), or spends what the mode says. DPS_OK;
 * DPS_ERR_INVAL for an end without its begin or a bad mode in the environment;
 * DPS_ERR_NOENT when idle or busy-by-percentage has no recorded time to go by (nothing was
 * spent); the message is dps_ssf_last_error().
 */
int dps_stub_end(const char *name);

/* The three read as the braces they stand for. */
/* clang-format off */
#define DPS_STUB_BEGIN(name) if (dps_stub_begin(name)) {
#define DPS_STUB_ELSE } else {
#define DPS_STUB_END(name) } dps_stub_end(name);
/* clang-format on */

#ifdef __cplusplus
}
#endif

#endif /* DPS_STUB_H */
