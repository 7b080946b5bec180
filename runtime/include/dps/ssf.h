/* SPDX-License-Identifier: MIT */
/*
 * SSF, simulated software functionality (doc/ssf.md): record a C component's results in a test
 * run, restore them later in place of the component, or check the component against them.
 *
 * The type descriptions (struct dps_ssf_schema) come from `dps ssf gen`, which reads the
 * program's DWARF and writes them as static tables with typed wrappers around the calls below;
 * a hand-written schema works the same way. The library walks the tables: one engine for
 * saving, restoring, checking and (in `dps ssf decode`) printing.
 *
 * Thread safety: every call takes one process-wide lock; the file is one per process.
 * Errors: every call returning an int returns DPS_OK or a negative enum dps_status; the
 * message of the last error of the calling thread is dps_ssf_last_error().
 */
#ifndef DPS_SSF_H
#define DPS_SSF_H

#include <stddef.h>
#include <stdint.h>

#include <dps/dps-status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a type is; the numbers are the file format's (doc/ssf.md), never renumbered. */
enum dps_ssf_kind {
	DPS_SSF_INT = 1,	  /* signed integer of size 1, 2, 4 or 8 */
	DPS_SSF_UINT = 2,	  /* unsigned integer, _Bool, of size 1, 2, 4 or 8 */
	DPS_SSF_FLOAT = 3,	  /* float, double, long double: its bytes */
	DPS_SSF_ENUM = 4,	  /* an integer of size 1, 2, 4 or 8 with named values */
	DPS_SSF_STRUCT = 5,	  /* members */
	DPS_SSF_UNION = 6,	  /* members; which one is live comes from the member's cases */
	DPS_SSF_ARRAY = 7,	  /* count elements of type target */
	DPS_SSF_POINTER = 8,	  /* to object(s) of type target, or NULL */
	DPS_SSF_STRING = 9,	  /* char *, NUL-terminated, or NULL */
	DPS_SSF_OPAQUE_NULL = 10, /* not recorded; restored as zero bytes (a NULL pointer) */
	DPS_SSF_OPAQUE_SKIP = 11, /* not recorded; restoring leaves the destination's bytes */
};

/* A named value of an enum. */
struct dps_ssf_enumerator {
	const char *name;
	int64_t value;
};

/* Which member of a union is live when the tag member holds value. */
struct dps_ssf_case {
	int64_t value;
	uint32_t member; /* index in the union's members */
};

struct dps_ssf_member {
	const char *name;
	uint32_t type;	     /* index in the schema's types */
	uint32_t offset;     /* bytes from the start of the struct or union */
	uint16_t bit_offset; /* bit-field: first bit, from offset, least significant first */
	uint16_t bit_size;   /* bit-field: width; 0 for an ordinary member */
	/* A pointer member: 1 + index of the sibling integer member holding its element count
	 * (the annotation `length`); 0 for a pointer to one object. */
	uint32_t count_member;
	/* A union member: 1 + index of the sibling member whose value selects the live member
	 * (the annotation `tag`), with its cases; 0 otherwise. */
	uint32_t tag_member;
	uint32_t n_cases;
	const struct dps_ssf_case *cases;
};

struct dps_ssf_type {
	uint8_t kind;	  /* enum dps_ssf_kind */
	const char *name; /* its C spelling: "struct conn", "unsigned int", "struct node *" */
	uint32_t size;	  /* sizeof */
	uint32_t target;  /* ARRAY: element type; POINTER: pointed-to type */
	uint32_t count;	  /* ARRAY: number of elements */
	uint32_t n_members;
	const struct dps_ssf_member *members;
	uint32_t n_enumerators;
	const struct dps_ssf_enumerator *enumerators;
};

/* The types one generated header describes. */
struct dps_ssf_schema {
	const char *name;
	uint32_t n_types;
	const struct dps_ssf_type *types;
};

enum dps_ssf_mode {
	DPS_SSF_OFF = 0,     /* no file; save/load/check fail with DPS_ERROR */
	DPS_SSF_RECORD = 1,  /* dps_ssf_save appends to the file */
	DPS_SSF_RESTORE = 2, /* dps_ssf_load reads what was recorded */
	DPS_SSF_CHECK = 3,   /* dps_ssf_check compares live objects with what was recorded */
};

/*
 * Opens path in mode (RECORD truncates it). Called once; a second open first closes. Returns
 * DPS_ERR_NOENT/DPS_ERR_IO when the file cannot be opened, DPS_ERR_INVAL (with the offset
 * in the message) when a file to restore or check is not an SSF file.
 */
int dps_ssf_open(enum dps_ssf_mode mode, const char *path);
/*
 * The mode; the first call of any dps_ssf_ function without dps_ssf_open reads the
 * environment once: DPS_SSF_MODE (record, restore, check; unset or "off": off) and
 * DPS_SSF_FILE (default "dps.ssf").
 */
enum dps_ssf_mode dps_ssf_mode(void);
/* Writes what is buffered and closes; accepts being called when nothing is open. */
int dps_ssf_close(void);

/* Starts the next test run and returns its number (the first is 1; 0 holds saves made
 * before any run starts). Restore and check read the run of the same number. */
uint32_t dps_ssf_run_begin(void);
/* The current test run. */
uint32_t dps_ssf_run(void);

/*
 * RECORD: appends the object *obj of schema type (obj NULL: a NULL record, addInfo bit 0) as
 * name in the current run. Several saves of one name in a run are kept in order.
 */
int dps_ssf_save(const struct dps_ssf_schema *schema, uint32_t type, const char *name,
		 const void *obj);
/*
 * RESTORE: the next record of name in the current run, into *dst:
 *  1. *dst not NULL, data recorded: *dst is overwritten (its pointer members get new memory);
 *  2. *dst NULL, data recorded: *dst = a new object (malloc; the caller frees it, and what
 *     its pointers lead to, as it would the original's);
 *  3. *dst NULL, NULL recorded: *dst stays NULL, DPS_OK;
 *  4. *dst not NULL, NULL recorded: DPS_ERR_INVAL naming the object and the run (nothing is
 *     overwritten: the caller decides what becomes of its object).
 * No record of name left in the run: DPS_ERR_NOENT naming the object and the run.
 */
int dps_ssf_load(const struct dps_ssf_schema *schema, uint32_t type, const char *name, void **dst);
/*
 * CHECK: compares obj with the next record of name in the current run. DPS_ERR_RANGE when
 * they differ, with the first differing member by name in the message
 * ("conn.peer.port: recorded 80, got 81").
 */
int dps_ssf_check(const struct dps_ssf_schema *schema, uint32_t type, const char *name,
		  const void *obj);

/* The calling thread's last error message ("" after success); never NULL. */
const char *dps_ssf_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* DPS_SSF_H */
