/* SPDX-License-Identifier: MIT */
/* The memory-prediction annotations (dps/memclass.h): one tracepoint each. */
#include <stdint.h>

#include <dps/memclass.h>

#include "dps_tp.h"

void *dps_mem_class(void *ptr, const char *name)
{
	if (ptr) {
		lttng_ust_tracepoint(dps, mem_class, ptr, name ? name : "");
	}
	return ptr;
}

void dps_phase(const char *name)
{
	lttng_ust_tracepoint(dps, phase, name ? name : "");
}

void dps_mem_size(uint64_t size)
{
	lttng_ust_tracepoint(dps, mem_size, size);
}
