/* SPDX-License-Identifier: MIT */
/*
 * The stub's knobs as a typed value: the options of generated programs and `dps run`, and
 * the what-if interface the tools drive them with. Each knob is one line of <dps/knobs.def>;
 * the struct, the parser, the formatter and the --help lines all come from that table.
 *
 * Carry a struct dps_knobs, parse into it one option at a time (dps_knobs_parse), check it
 * against a program's threads (dps_knobs_check), and turn it into arguments only when a stub
 * is run (dps_knobs_to_argv). Numbers are read and written in the C locale's form.
 */
#ifndef DPS_KNOBS_H
#define DPS_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dps/dps.h>

#ifdef __cplusplus
extern "C" {
#endif

/* knobs.def's flags */
#define DPS_KNOB_WHATIF 1u /* changes on purpose what is played */
#define DPS_KNOB_REPLAY 2u /* dps replay takes it and passes it on as given */

enum dps_knob_shape {
	DPS_KNOB_SHAPE_FLAG,	     /* no value: bool */
	DPS_KNOB_SHAPE_RUN_MODE,     /* work|cpu|wall: enum dps_run_mode */
	DPS_KNOB_SHAPE_HEAP_MODE,    /* curve|alloc: enum dps_heap_mode */
	DPS_KNOB_SHAPE_PATH,	     /* a file: const char *, borrowed from the parsed text */
	DPS_KNOB_SHAPE_SCALE,	     /* X, a finite number >= 0: double */
	DPS_KNOB_SHAPE_THREAD_SCALE, /* ID=X, once per thread or more: struct dps_knob_threads */
	DPS_KNOB_SHAPE_THREAD,	     /* ID, once per thread or more: struct dps_knob_threads */
};

/* One entry of a per-thread knob: the thread's action-set id, its factor (1 for THREAD). */
struct dps_knob_thread {
	uint64_t id;
	double x;
};

/* The entries of a per-thread knob in the order given (a later one for the same thread
 * wins); owned by the struct dps_knobs that holds them. */
struct dps_knob_threads {
	struct dps_knob_thread *v;
	size_t n;
};

#define DPS_KNOB_TYPE_FLAG bool
#define DPS_KNOB_TYPE_RUN_MODE enum dps_run_mode
#define DPS_KNOB_TYPE_HEAP_MODE enum dps_heap_mode
#define DPS_KNOB_TYPE_PATH const char *
#define DPS_KNOB_TYPE_SCALE double
#define DPS_KNOB_TYPE_THREAD_SCALE struct dps_knob_threads
#define DPS_KNOB_TYPE_THREAD struct dps_knob_threads

/* DPS_KNOB_ID_<field>: a knob's index in dps_knobs_table */
enum dps_knob_id {
#define DPS_KNOB(field, name, shape, arg, flags, deflt, help) DPS_KNOB_ID_##field,
#include <dps/knobs.def>
#undef DPS_KNOB
	DPS_KNOB_COUNT
};

/* One line of knobs.def. */
struct dps_knob_info {
	const char *name; /* without "--" */
	enum dps_knob_shape shape;
	const char *arg;   /* the value as --help names it, "" for a flag */
	unsigned flags;	   /* DPS_KNOB_WHATIF, DPS_KNOB_REPLAY */
	const char *deflt; /* the value when not given, as text; NULL: zero, none */
	const char *help;  /* "\n" between lines */
};

extern const struct dps_knob_info dps_knobs_table[DPS_KNOB_COUNT];

/* The knobs' values; given has bit (1u << DPS_KNOB_ID_<field>) for each knob set by
 * dps_knobs_parse (or by hand: set the bit too). Free with dps_knobs_fini. */
struct dps_knobs {
	uint32_t given;
#define DPS_KNOB(field, name, shape, arg, flags, deflt, help) DPS_KNOB_TYPE_##shape field;
#include <dps/knobs.def>
#undef DPS_KNOB
};

/* Every knob at its default, none given. */
void dps_knobs_default(struct dps_knobs *k);
/* Frees the per-thread entries; k is then at its defaults again. NULL ok. */
void dps_knobs_fini(struct dps_knobs *k);
/* The knob named name ("--scale" or "scale"), or -1. */
int dps_knobs_find(const char *name);
/*
 * One option into k: name with or without "--", value its text (NULL for a flag; a flag's
 * value is refused). A PATH's value is borrowed. Returns DPS_OK; DPS_ERR_NOENT for a name no
 * knob has; DPS_ERR_INVAL for a bad value, err then says "--NAME: expected WHAT, got 'VALUE'";
 * DPS_ERR_NOMEM. k is unchanged on error.
 */
int dps_knobs_parse(struct dps_knobs *k, const char *name, const char *value, char *err,
		    size_t errlen);
/* Appends one entry to the per-thread knob id (THREAD_SCALE or THREAD) and marks it given.
 * Returns DPS_OK, DPS_ERR_INVAL (not a per-thread knob), DPS_ERR_NOMEM. */
int dps_knobs_add_thread(struct dps_knobs *k, enum dps_knob_id id, uint64_t thread, double x);
/*
 * Whether k can be played: its scales finite and >= 0, and, with prog, every thread a
 * per-thread knob names one of prog's (by its action-set id). Returns DPS_OK, or
 * DPS_ERR_INVAL with err "--thread-scale: no thread with id 99 in this program".
 */
int dps_knobs_check(const struct dps_knobs *k, const struct dps_program *prog, char *err,
		    size_t errlen);
/*
 * The given knobs whose flags include all of all_of, as a stub's arguments: "--NAME" and,
 * unless a flag, its value, in knobs.def's order, a per-thread knob once per entry; numbers
 * in their shortest form that reads back the same. NULL-terminated, *argc (may be NULL)
 * strings; NULL when out of memory. Free with dps_knobs_argv_free.
 */
char **dps_knobs_to_argv(const struct dps_knobs *k, unsigned all_of, size_t *argc);
void dps_knobs_argv_free(char **argv); /* NULL ok */
/*
 * --help lines of the knobs whose flags include all of all_of and none of none_of, in
 * knobs.def's order: indent spaces, "--NAME ARG", the help from column (a continuation line
 * there too; an option too long for its column gets its help on the next line).
 */
void dps_knobs_print_help(FILE *out, unsigned all_of, unsigned none_of, int indent, int column);

#ifdef __cplusplus
}
#endif

#endif /* DPS_KNOBS_H */
