/* SPDX-License-Identifier: MIT */
/*
 * simgen: compiles a resolved action set into a C program played by libdps (doc/simgen.md).
 *
 * The program is table-driven: one `static const struct dps_action` table holding every
 * thread's actions, each thread's a run of rows (the paper's one PSF per thread), a thread
 * table naming where each thread's rows begin, a `struct dps_program` and a main() that calls
 * dps_main(). One table, not one per thread, so the compiler's cost follows the actions and
 * not the threads (GCC's identical-code folding compares equal tables pairwise). Only validated
 * numbers and sanitized names from the set ever reach the code, so a hostile comm or path can
 * neither close a comment nor a string.
 *
 * simgen_build_*() turn that source into an executable by running the C compiler against the
 * installed libdps (pkg-config dps) or the one of the build tree dps was built in.
 */
#ifndef DPS_SIMGEN_SIMGEN_H
#define DPS_SIMGEN_SIMGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dps/dps.h>

#include "actset.h"
#include "diag.h"

/* Version of the generated code's layout; printed in every generated file's header. */
#define SIMGEN_VERSION 2

/* Longest sanitized thread name (the kernel's comm is 15 bytes) and program name. */
#define SIMGEN_THREAD_NAME_MAX 15
#define SIMGEN_PROGRAM_NAME_MAX 63

enum simgen_status {
	SIMGEN_OK = 0,
	SIMGEN_ERROR = -1,     /* the compiler or pkg-config failed */
	SIMGEN_ERR_NOENT = -2, /* no libdps found, compiler not found */
	SIMGEN_ERR_IO = -5,    /* cannot write the output */
	SIMGEN_ERR_NOMEM = -12,
	SIMGEN_ERR_INVAL = -22, /* the set is not resolved/valid, bad option */
};

struct simgen_options {
	const char *source_label; /* how the header names the set (NULL: set->dir) */
	const char *program_name; /* NULL: sanitized basename of the set directory */
};

/*
 * Writes the program for set (which must be resolved) to out. Returns SIMGEN_OK,
 * SIMGEN_ERR_INVAL (diag says why) or SIMGEN_ERR_IO when writing failed.
 */
int simgen_write(const struct dps_actset *set, const struct simgen_options *opts, FILE *out,
		 struct dps_diag *diag);

/*
 * Writes the program to path atomically: a temporary file in the same directory, renamed
 * over path only when complete. On error nothing is left behind and path is untouched.
 */
int simgen_write_file(const struct dps_actset *set, const struct simgen_options *opts,
		      const char *path, struct dps_diag *diag);

/*
 * Writes the program split for a parallel build: dir/program.c (header, thread table, main)
 * and dir/part-<k>.c for k < n_parts, each holding one table (actions_part<k>) of the rows of
 * its threads, spread so each part has a similar number of actions (a thread's rows are never
 * split). Used by simgen_build() for big
 * sets; the files are plain fopen'ed (dir is meant to be private). Same statuses as above.
 */
int simgen_write_split(const struct dps_actset *set, const struct simgen_options *opts,
		       const char *dir, size_t n_parts, struct dps_diag *diag);

/*
 * Sanitizers (exposed for tests). Each writes a NUL-terminated string of at most max bytes
 * (plus the NUL) into buf, which must hold max + 1 bytes, and returns buf.
 *  - name: [A-Za-z0-9 _.,:+=@()[]-] kept, every other byte or UTF-8 sequence becomes '_'.
 *  - text: the same set plus '/', for paths in comments ('*' never passes, so no "*" "/").
 * Longer input is cut and ends with "..." (text) or is simply cut (name).
 */
char *simgen_sanitize_name(const char *in, char *buf, size_t max);
char *simgen_sanitize_text(const char *in, char *buf, size_t max);

/* The program's name: opts->program_name, else the set directory's last component, else
 * "dps-sim"; sanitized like a thread name. buf holds max + 1 bytes. */
void simgen_program_name(const struct dps_actset *set, const struct simgen_options *opts, char *buf,
			 size_t max);

/*
 * A resolved set as the player's tables in memory: the tables simgen_write puts in the C
 * program, for dps run to play the set without generating code (program.c).
 */
struct simgen_program {
	struct dps_program prog;	 /* points into the tables below; its names and cache
					  * figures are borrowed from the set and name (both must
					  * outlive it) */
	struct dps_thread_desc *threads; /* owned: one per thread of the set */
	struct dps_action *actions;	 /* owned: every thread's actions, one after another */
	struct dps_object *objects;	 /* owned: the set's objects (format 2) */
	uint32_t *members;		 /* owned: member sets, then task queues' takers */
};

/* Builds *p from set (resolved) named name. Returns DPS_OK, or DPS_ERR_NOMEM with *p empty.
 * Free it with simgen_program_fini (a NULL or empty p too). */
int simgen_program_make(const struct dps_actset *set, const char *name, struct simgen_program *p);
void simgen_program_fini(struct simgen_program *p);

/* How dps build compiles a generated program. */
struct simgen_build_options {
	const char *cc;		   /* NULL: $CC, else "cc" */
	const char *const *cflags; /* extra compiler arguments, NULL-terminated, or NULL */
	const char *keep_source;   /* NULL: the generated C is removed after the build */
	unsigned jobs;		   /* parallel compilers, 0: automatic (see simgen_build) */
	bool verbose;		   /* print the commands run on stderr */
};

/* From this many actions on, dps build compiles the tables in parallel parts by default. */
#define SIMGEN_SPLIT_MIN_ACTIONS 100000

/*
 * Generates set into a temporary C file next to output, compiles and links it against libdps
 * and renames the executable to output. Returns SIMGEN_OK, SIMGEN_ERR_INVAL (bad set),
 * SIMGEN_ERR_NOENT (no libdps), SIMGEN_ERROR (compiler failed; diag has the command and status)
 * or SIMGEN_ERR_IO. A set of SIMGEN_SPLIT_MIN_ACTIONS or more (or bopts->jobs > 1) is written
 * as parts (simgen_write_split) compiled by up to jobs compilers at once (default: one per
 * online CPU, at most 8); the program is the same. keep_source forces a single file.
 */
int simgen_build(const struct dps_actset *set, const struct simgen_options *gopts,
		 const struct simgen_build_options *bopts, const char *output,
		 struct dps_diag *diag);

/*
 * The compiler and linker arguments for libdps, in the order: DPS_PKG_CONFIG_PATH set →
 * pkg-config dps with that path; dps running from its build tree → that tree's libdps;
 * pkg-config dps succeeds → the installed libdps; else the build tree's if it still exists.
 * *cflags and *libs are NULL-terminated vectors owned by the caller (simgen_strv_free).
 * *origin is a static description ("pkg-config", "build tree").
 */
int simgen_libdps_flags(char ***cflags, char ***libs, const char **origin, struct dps_diag *diag);
void simgen_strv_free(char **v);

#endif /* DPS_SIMGEN_SIMGEN_H */
