/* SPDX-License-Identifier: MIT */
/*
 * The probe of the `dps_sync` provider and its tracepoint definitions, both in
 * libdps-syncprobe.so so that preloading that one library is all it takes.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "dps_sync_tp.h"
