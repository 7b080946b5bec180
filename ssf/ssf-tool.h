/* SPDX-License-Identifier: MIT */
/*
 * The SSF tools (doc/ssf.md): `dps ssf gen` (DWARF -> C type descriptions, gen.c, with the
 * user's annotations, annot.c) and `dps ssf decode` (an SSF file -> text, print.c).
 * Both return a status (enum dps_status: DPS_OK or a DPS_ERR_*) and fill a dps_diag; cli/ maps
 * them to exit codes.
 */
#ifndef DPS_SSF_SSF_TOOL_H
#define DPS_SSF_SSF_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <dps/dps-status.h>

#include "diag.h"

/* What gen does with members it cannot follow (function pointers, void *, FILE *). */
enum ssf_gen_opaque {
	SSF_GEN_OPAQUE_NULL = 0, /* restored as NULL */
	SSF_GEN_OPAQUE_SKIP = 1, /* restoring leaves the destination's value */
};

struct ssf_gen_options {
	const char *const *types; /* borrowed: "struct conn", "conn_t", "int" */
	size_t n_types;
	const char *annotations; /* borrowed: path of the annotation file, or NULL */
	const char *prefix;	 /* borrowed: a C identifier for every generated name */
	enum ssf_gen_opaque opaque;
	FILE *report; /* borrowed, may be NULL: one line per opaque member and note */
};

/*
 * Reads the DWARF of the ELF file at path and writes the header to out. Returns DPS_OK;
 * DPS_ERR_INVAL (bad input: no DWARF, type not found, a member needing an annotation the file
 * does not give, a bad annotation; diag says which and how to fix it); DPS_ERR_NOENT/IO;
 * DPS_ERR_NOMEM. Nothing is written to out on error.
 */
int ssf_gen(const char *path, const struct ssf_gen_options *o, FILE *out, struct dps_diag *diag);

/* True for [A-Za-z_][A-Za-z0-9_]*. */
bool ssf_tool_is_ident(const char *s);

enum ssf_decode_form {
	SSF_DECODE_LISTING = 0, /* the paper's Listing 3: "1;5;conn;17;struct conn;0;" */
	SSF_DECODE_NAMED = 1,	/* "conn.fd = 3", nested values indented */
};

/*
 * Decodes the SSF file at path to out. DPS_OK; DPS_ERR_INVAL with "path: offset N: expected
 * ..." in diag; DPS_ERR_NOENT/IO; DPS_ERR_NOMEM. What was printed before an error stays.
 */
int ssf_decode_file(const char *path, enum ssf_decode_form form, FILE *out, struct dps_diag *diag);
/* The same over bytes in memory (the fuzzer's entry); takes a copy. */
int ssf_decode_bytes(const void *bytes, size_t len, const char *label, enum ssf_decode_form form,
		     FILE *out, struct dps_diag *diag);

#endif /* DPS_SSF_SSF_TOOL_H */
