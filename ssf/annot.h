/* SPDX-License-Identifier: MIT */
/*
 * The annotation file of `dps ssf gen -a FILE` (doc/ssf.md, "Annotations"): what DWARF cannot
 * say about a member, one line each:
 *   length TYPE.MEMBER = COUNT_MEMBER    a pointer to COUNT_MEMBER elements
 *   one TYPE.MEMBER                      a pointer to one element
 *   tag TYPE.MEMBER = TAG_MEMBER         a union selected by TAG_MEMBER
 *   case TYPE.MEMBER VALUE = ALTERNATIVE when TAG_MEMBER == VALUE, ALTERNATIVE is live
 *   opaque TYPE.MEMBER null|skip         not recorded; restored as NULL, or left alone
 * TYPE is "struct NAME", "union NAME" or a typedef name; '#' starts a comment.
 */
#ifndef DPS_SSF_ANNOT_H
#define DPS_SSF_ANNOT_H

#include <glib.h>
#include <stdbool.h>

#include "diag.h"

enum ssf_annot_kind {
	SSF_ANNOT_LENGTH,
	SSF_ANNOT_ONE,
	SSF_ANNOT_TAG,
	SSF_ANNOT_CASE,
	SSF_ANNOT_OPAQUE,
};

struct ssf_annot {
	enum ssf_annot_kind kind;
	char *type;   /* owned: "struct conn" */
	char *member; /* owned */
	char *arg;    /* owned: LENGTH/TAG: the sibling member; CASE: the alternative; OPAQUE:
		       * "null" or "skip"; else NULL */
	char *value;  /* owned: CASE: the tag value as written (a number or an enumerator) */
	unsigned line;
	bool used;
};

/* Parses path into *out (a new GPtrArray of struct ssf_annot, freeing its elements). DPS_OK,
 * DPS_ERR_INVAL with "path:line: expected ..." in diag, DPS_ERR_NOENT/IO. */
int ssf_annot_load(const char *path, GPtrArray **out, struct dps_diag *diag);

/* The first annotation of kind for type.member (NULL: none), marked used. */
struct ssf_annot *ssf_annot_find(GPtrArray *annots, enum ssf_annot_kind kind, const char *type,
				 const char *member);

#endif /* DPS_SSF_ANNOT_H */
