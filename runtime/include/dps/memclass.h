/* SPDX-License-Identifier: MIT */
/*
 * Annotations for memory-use prediction (dps memory, doc/memory-predict.md): a program linked
 * with libdps can name the class of an allocation, mark where its phases begin and say how big
 * its input is. Each call fires one `dps` UST event (dps:mem_class, dps:phase, dps:mem_size)
 * and costs nothing more when no session records them. Depends on nothing but the C library.
 */
#ifndef DPS_MEMCLASS_H
#define DPS_MEMCLASS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The allocation at ptr (just returned by malloc, calloc, realloc...) is of class name; ptr is
 * returned, so it can wrap the allocation: p = dps_mem_class(malloc(n), "struct node"). */
void *dps_mem_class(void *ptr, const char *name);

/* A phase named name begins here; the previous phase ends. */
void dps_phase(const char *name);

/* This run's input size (words, lines, bytes: the unit the prediction will be asked in). */
void dps_mem_size(uint64_t size);

/* A typed allocation: DPS_MEM_NEW(struct node) is a malloc of one struct node of class
 * "struct node". */
#define DPS_MEM_NEW(type) ((type *)dps_mem_class(malloc(sizeof(type)), #type))

#ifdef __cplusplus
}
#endif

#endif /* DPS_MEMCLASS_H */
