/* SPDX-License-Identifier: MIT */
/*
 * The probe of the `dps` provider, and the tracepoint definitions: both live here so that
 * linking this object (statically, into libdps) is all a program needs.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "dps_tp.h"
