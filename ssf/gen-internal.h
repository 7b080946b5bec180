/* SPDX-License-Identifier: MIT */
/*
 * What dps ssf gen builds from DWARF (gen.c) and writes out as C (emit.c): the types reached
 * from the named ones, numbered breadth first, each with its members and their annotations.
 */
#ifndef DPS_SSF_GEN_INTERNAL_H
#define DPS_SSF_GEN_INTERNAL_H

#include <elfutils/libdw.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include <dps/ssf.h>

#include "ssf-tool.h"

struct gcase {
	int64_t value;
	uint32_t member;
};

struct gmember {
	char *name; /* owned */
	uint32_t type;
	uint64_t offset;
	unsigned bit_offset, bit_size;
	uint32_t count_member, tag_member; /* 1 + index, 0 none */
	GArray *cases;			   /* owned: struct gcase, or NULL */
	char *note;			   /* owned: a comment for the reader, or NULL */
	Dwarf_Die die;
};

struct gtype {
	enum dps_ssf_kind kind;
	char *name;   /* owned: the spelling in the file */
	char *c_name; /* owned: a spelling C accepts in sizeof(), or NULL (anonymous, pointer) */
	char *key;    /* owned: identity for sharing one entry */
	uint64_t size;
	uint32_t target, count;
	GArray *members;     /* owned: struct gmember (struct, union) */
	GArray *enumerators; /* owned: struct dps_ssf_enumerator, names owned */
	Dwarf_Die die;
	bool done; /* members read */
};

struct gen {
	Dwarf *dw;
	GPtrArray *types;  /* owned: struct gtype */
	GHashTable *index; /* key -> 1 + index (keys borrowed from the types) */
	GPtrArray *annots; /* owned */
	const struct ssf_gen_options *o;
	GString *missing; /* members needing an annotation, one line each */
	unsigned n_missing;
	bool any_bitfield;
	struct dps_diag *diag;
};

static inline struct gtype *type_at(struct gen *g, uint32_t i)
{
	return g_ptr_array_index(g->types, i);
}

/* Writes the header for the types in g, with wrappers for the roots (one per --type). */
void ssf_gen_emit(struct gen *g, FILE *out, const uint32_t *roots);

#endif /* DPS_SSF_GEN_INTERNAL_H */
