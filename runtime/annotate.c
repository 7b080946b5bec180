/* SPDX-License-Identifier: MIT */
/*
 * The annotation API (dps/annotate.h): one `dps` event per call, nothing else. The events are
 * the whole contract with the analyzer (analyzer/sync.c turns them into objects and actions),
 * so no state is kept here and every call is safe from any thread at any time.
 */
#include <stdint.h>

#include <dps/annotate.h>

#include "dps_tp.h"

void dps_queue_init(const void *obj, unsigned capacity)
{
	lttng_ust_tracepoint(dps, queue_init, (uintptr_t)obj, capacity);
}

void dps_produce(const void *obj)
{
	lttng_ust_tracepoint(dps, produce, (uintptr_t)obj);
}

void dps_consume(const void *obj)
{
	lttng_ust_tracepoint(dps, consume, (uintptr_t)obj);
}

void dps_barrier_init(const void *obj, unsigned parties)
{
	lttng_ust_tracepoint(dps, barrier_init, (uintptr_t)obj, parties);
}

void dps_arrive(const void *obj)
{
	lttng_ust_tracepoint(dps, arrive, (uintptr_t)obj);
}

void dps_pool_take(const void *obj)
{
	lttng_ust_tracepoint(dps, pool_take, (uintptr_t)obj);
}
