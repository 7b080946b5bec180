/* SPDX-License-Identifier: MIT */
/*
 * The probe of the `dps_stack` provider and its tracepoint definitions, both in
 * libdps-stackprobe.so so that preloading or linking that one library is all it takes.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "dps_stack_tp.h"
