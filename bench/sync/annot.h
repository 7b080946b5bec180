/* SPDX-License-Identifier: MIT */
/*
 * The bench programs' view of dps's annotation API (issue 13, doc/whatif.md, "Checked against
 * real programs"): the calls of <dps/annotate.h> when libdps has that header and the
 * program is built with annotations, otherwise the same calls as no-ops. So one source
 * builds both variants the bench compares: "with annotations" (SYNC_BENCH_ANNOTATED 1, linked
 * with libdps) and "without" (-DSYNC_BENCH_NO_ANNOT, no libdps at all: what dps sees of it is
 * only what it captures by itself).
 */
#ifndef SYNC_BENCH_ANNOT_H
#define SYNC_BENCH_ANNOT_H

#if !defined(SYNC_BENCH_NO_ANNOT) && defined(__has_include)
#if __has_include(<dps/annotate.h>)
#include <dps/annotate.h>
#define SYNC_BENCH_ANNOTATED 1
#endif
#endif

#ifndef SYNC_BENCH_ANNOTATED
#define SYNC_BENCH_ANNOTATED 0

/* The calls only describe an object, never touch it: as no-ops they change nothing. */
static inline void dps_queue_init(const void *obj, unsigned capacity)
{
	(void)obj;
	(void)capacity;
}

static inline void dps_produce(const void *obj)
{
	(void)obj;
}

static inline void dps_consume(const void *obj)
{
	(void)obj;
}

static inline void dps_barrier_init(const void *obj, unsigned parties)
{
	(void)obj;
	(void)parties;
}

static inline void dps_arrive(const void *obj)
{
	(void)obj;
}

static inline void dps_pool_take(const void *obj)
{
	(void)obj;
}
#endif

/* What the program's result line says about the variant, so a run shows what it measured. */
#define SYNC_BENCH_ANNOT_NAME (SYNC_BENCH_ANNOTATED ? "dps" : "none")

#endif
