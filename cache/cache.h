/* SPDX-License-Identifier: MIT */
/*
 * dps cache (doc/cache.md): a command's data-cache figures per function, captured from
 * Valgrind's cache simulator (cachegrind), the source for machines without a PMU. Three steps,
 * each a function: the cache geometry this machine has (geometry.c: sysfs, else glibc's
 * sysconf), the command run under cachegrind with that geometry (capture.c), and cachegrind's
 * output file read into per-function totals (cg-parse.c); output.c writes the result file
 * (`dps-cache 1`) and the table, result-read.c reads it back, and apply.c puts a capture's
 * figures on an action set's runs (dps cache apply).
 *
 * Every function returns a status of enum dps_status (DPS_OK 0, errors negative) and fills a
 * struct dps_diag (NULL allowed) for the caller to print; none prints or exits.
 */
#ifndef DPS_CACHE_CACHE_H
#define DPS_CACHE_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <glib.h>

struct dps_diag;

/* One simulated cache: what cachegrind's --D1 and --LL take. */
struct cache_level {
	unsigned level;	     /* 1, 2, 3 (0: unknown, read back from cachegrind's desc: lines) */
	uint64_t size_bytes; /* 0: not known */
	unsigned assoc;	     /* ways */
	unsigned line_bytes;
};

/* The geometry a capture simulates. */
struct cache_geometry {
	struct cache_level d1; /* size_bytes 0: cachegrind chooses (its CPUID reading) */
	struct cache_level ll; /* the last level cachegrind can simulate; 0: it chooses */
	char source[64];       /* where it came from: "sysfs", "sysconf", "cachegrind" */
	char note[256];	       /* levels left out and why ("L3 ... associativity unknown"), or "" */
};

/*
 * This machine's data-cache geometry: /sys/devices/system/cpu/cpu0/cache/index* when the
 * kernel has it, else glibc's sysconf(_SC_LEVEL1_DCACHE_SIZE, ...) (its CPUID reading). D1 is
 * level 1's data cache; LL the highest level whose geometry cachegrind can simulate (every
 * figure known, the set count a power of two); a level left out is named in g->note. A
 * geometry neither source gives stays 0 (cachegrind then chooses its own). Always DPS_OK.
 */
int cache_geometry_detect(struct cache_geometry *g);
/* Reads the geometry from a sysfs cache directory (the index* directories of dir, read by
 * libdps's dps_cache_levels_sysfs; NULL: this machine's); for tests and cache_geometry_detect.
 * Returns DPS_OK, or DPS_ERR_NOENT when dir has no data or unified level. */
int cache_geometry_from_sysfs(struct cache_geometry *g, const char *dir);
/* Whether cachegrind can simulate level (every figure over 0, the line a power of two, the
 * set count size / (assoc * line) a whole power of two). */
bool cache_level_simulable(const struct cache_level *level);
/* "48 KiB 12-way 64 B" into buf (or "chosen by cachegrind" when size_bytes is 0). */
void cache_level_format(const struct cache_level *level, char *buf, size_t len);
/* "2 MiB", "48 KiB" or "1000 B" (the largest unit that divides s) into buf. */
void cache_size_format(uint64_t s, char *buf, size_t len);

/* The figures dps keeps of a function or a whole program. */
struct cache_counts {
	uint64_t instructions; /* Ir */
	uint64_t loads;	       /* Dr */
	uint64_t stores;       /* Dw */
	uint64_t d1_misses;    /* D1mr + D1mw */
	uint64_t ll_misses;    /* DLmr + DLmw */
};

/* Where a miss curve's knee is (dps cache capture --footprint, footprint.c). */
enum cache_footprint_kind {
	CACHE_FOOTPRINT_NONE,  /* no curve captured */
	CACHE_FOOTPRINT_AT,    /* bytes: the smallest LL size whose misses are within 1 % of the
				* curve's drop to its floor (the working set is at most that, and
				* more than the size below) */
	CACHE_FOOTPRINT_BELOW, /* no LL miss at the smallest size: bytes is the smallest size */
	CACHE_FOOTPRINT_ABOVE, /* more than bytes: misses that do not drop up to the largest
				* size (data reused farther apart, or touched once; bytes is the
				* largest size), or that drop only at it (bytes is the size
				* before it: no larger size shows the floor) */
};

/* A function's (or the whole program's) last-level misses at each of the profile's curve
 * sizes, and the knee read from them. */
struct cache_footprint {
	enum cache_footprint_kind kind;
	uint64_t bytes;	     /* see the kinds; 0 with CACHE_FOOTPRINT_NONE */
	uint64_t *ll_misses; /* owned: one per size of the profile's curve; NULL: none */
};

struct cache_function {
	char *name;		    /* owned: cachegrind's fn= name */
	char *file;		    /* owned: the fl= file it first appeared under */
	struct cache_counts counts; /* summed over every fl=/fn= section of that name */
	struct cache_footprint footprint;
};
/* Frees f and what it owns (a profile's functions array's free function). */
void cache_function_free(void *f);

/* One capture, read from cachegrind's output file or from a result file (`dps-cache 1`). */
struct cache_profile {
	char *cmd;	       /* owned: the cmd: line's command */
	char *source;	       /* owned: the result file's source; NULL: cachegrind's own file */
	char *geometry_source; /* owned: the result file's geometry-source; NULL: not known */
	struct cache_level d1; /* from the desc: lines (what was simulated) */
	struct cache_level ll;
	struct cache_counts total; /* the summary: line */
	GPtrArray *functions;	   /* owned: struct cache_function *, owned, in file order */
	/* the LL sizes of a miss curve (dps cache capture --footprint), ascending, the same
	 * ways and line as ll; n_curve 0: none (a result file of version 1, cachegrind's file) */
	uint64_t *curve_bytes; /* owned */
	size_t n_curve;
	struct cache_footprint total_footprint; /* the whole program's curve */
};

/*
 * Reads cachegrind's output file at path (its text format: desc:, cmd:, events:, fl=/fn=
 * sections of "LINE COUNT..." lines, summary:) into *out (a new profile; destroy it with
 * cache_profile_destroy). The events must include Ir, Dr, Dw, D1mr, D1mw, DLmr and DLmw (a run
 * with --cache-sim=yes); the summary must equal the sum of the counts. Returns DPS_OK,
 * DPS_ERR_NOENT (no such file), DPS_ERR_IO, DPS_ERR_INVAL (diag: "path:line:col: what was
 * expected"), DPS_ERR_RANGE (a count over 2^64), DPS_ERR_NOMEM. *out is NULL on error.
 */
int cache_profile_read(const char *path, struct cache_profile **out, struct dps_diag *diag);
void cache_profile_destroy(struct cache_profile *p);
/*
 * Reads a result file of dps cache capture -o (`dps-cache 1`, doc/cache.md "The result file")
 * into *out, the same profile cachegrind's file gives (its functions those the file lists).
 * Returns DPS_OK, DPS_ERR_NOENT (no such file), DPS_ERR_IO, DPS_ERR_INVAL (diag:
 * "path:line:col: what was expected"; another version, a line cut short, no `end`),
 * DPS_ERR_RANGE (a count over 2^64). *out is NULL on error.
 */
int cache_result_read(const char *path, struct cache_profile **out, struct dps_diag *diag);
/* A capture as a user names it: a result file (its first line, blanks and comments aside,
 * `dps-cache ...`) through cache_result_read, anything else as cachegrind's output file
 * (cache_profile_read). Returns their statuses. */
int cache_capture_read(const char *path, struct cache_profile **out, struct dps_diag *diag);
/* The function named name, or NULL. Borrowed from p. */
const struct cache_function *cache_profile_borrow_function(const struct cache_profile *p,
							   const char *name);

/* What to capture. */
struct cache_capture_options {
	char *const *argv;		   /* borrowed: the command, NULL-terminated */
	const struct cache_geometry *geom; /* borrowed: the geometry to simulate */
	const char *valgrind;		   /* borrowed: the valgrind to run; NULL: "valgrind" */
	bool quiet; /* the command's output discarded (the footprint's runs after the first) */
};

/*
 * Runs the command under `valgrind --tool=cachegrind --cache-sim=yes --D1=... --LL=...`
 * (the levels of opts->geom that are known) with its output file and Valgrind's own messages in
 * a temporary directory, and reads the file into *out. The command's standard output and error
 * go where ours go. *exit_status gets the command's exit status (cachegrind passes it on).
 * Returns DPS_OK (also when the command failed: see *exit_status), DPS_ERR_NOENT (valgrind not
 * found: diag says to install it), DPS_ERROR (valgrind ran and wrote no output: diag gives the
 * last line of its log), or cache_profile_read's errors. *out is NULL on error.
 */
int cache_capture_run(const struct cache_capture_options *opts, struct cache_profile **out,
		      int *exit_status, struct dps_diag *diag);
/* The command line cache_capture_run runs for opts, with out_file as cachegrind's output and
 * log_file as Valgrind's log (a NULL-terminated vector; g_strfreev it). */
char **cache_capture_argv(const struct cache_capture_options *opts, const char *out_file,
			  const char *log_file);

/*
 * The footprint (footprint.c, doc/cache.md "The footprint"): a miss-ratio curve of the last
 * level from more cachegrind runs of the command, at LL sizes from the largest power-of-two
 * fraction of ll above L1D up to CACHE_CURVE_ABOVE doublings of ll (the same ways and line, so
 * every size has a power-of-two number of sets), and each function's knee.
 */
#define CACHE_CURVE_ABOVE 4
#define CACHE_CURVE_MAX 24

/* The curve's sizes for geometry g (ll known) into sizes (at most CACHE_CURVE_MAX), ascending,
 * ll among them. Returns how many (0: ll not known, or no size above L1D). */
size_t cache_curve_sizes(const struct cache_geometry *g, uint64_t *sizes);
/* The knee of misses[0..n) at sizes[0..n) into fp's kind and bytes (not its ll_misses). */
void cache_footprint_knee(const uint64_t *sizes, const uint64_t *misses, size_t n,
			  struct cache_footprint *fp);
/* A callback per cachegrind run of the curve (i of n, at ll_bytes), for progress; may be NULL. */
typedef void (*cache_curve_progress)(size_t i, size_t n, uint64_t ll_bytes, void *data);
/*
 * Adds the curve to p, a capture of opts (its run at opts->geom's LL): runs the command again
 * under cachegrind at each other size of cache_curve_sizes, and gives every function of p and
 * the whole program their LL misses at each size and their knee (a function a run did not see
 * missed 0 times in it). Returns DPS_OK; DPS_ERR_INVAL when the geometry has no curve (diag
 * says why); cache_capture_run's errors, or DPS_ERROR when the command failed in a run (diag
 * names the size). p keeps no curve on error.
 */
int cache_footprint_capture(const struct cache_capture_options *opts, struct cache_profile *p,
			    cache_curve_progress progress, void *data, struct dps_diag *diag);
/* "at", "below", "above" or "none": a kind's word in the result file. */
const char *cache_footprint_kind_word(enum cache_footprint_kind kind);
/* "2 MiB", "<= 64 KiB", "> 32 MiB" or "-" for fp into buf. */
void cache_footprint_format(const struct cache_footprint *fp, char *buf, size_t len);

/* "cachegrind, simulated D1 48 KiB 12-way 64 B, LL 1 MiB 8-way 64 B" into buf. */
void cache_profile_describe(const struct cache_profile *p, char *buf, size_t len);

/*
 * Writes the result file (`dps-cache 1`, doc/cache.md "The result file") of p to f: the
 * source, the command, the geometry (and where it came from, geom may be NULL), the whole
 * program, and the functions names[0..n) (every one must be in p: cache_table_print checks),
 * or, with n 0, every function with a data access. Returns DPS_OK or DPS_ERR_IO.
 */
int cache_result_write(FILE *f, const struct cache_profile *p, const struct cache_geometry *geom,
		       const char *const *names, size_t n);
/*
 * Prints the table to f: a line naming the source and the geometry, then one row per function
 * (names: those, n of them; n 0: the top functions by data accesses, at most 15) and the
 * whole program. Returns DPS_OK, or DPS_ERR_NOENT when a name is not in p (diag names it;
 * nothing is printed).
 */
int cache_table_print(FILE *f, const struct cache_profile *p, const char *const *names, size_t n,
		      struct dps_diag *diag);

/*
 * dps cache apply (apply.c): a capture's figures put on an action set's runs, so that a set
 * made from a recording carries the cache behaviour the capture measured (format version 4,
 * `run D cache ACCESSES STORES D1_MISSES LL_MISSES`, and version 5's `footprint BYTES` after
 * them when the capture has a curve).
 */

/* What the cache stub's kernel costs an access at most (1.5 to 3.7 instructions under the
 * simulator, its blocks' and rounds' own work included: doc/cache.md "Limits"): a run that
 * cannot hold its accesses at this cost is reported. */
#define CACHE_APPLY_STUB_INSTRUCTIONS 4

struct dps_actset;

struct cache_apply_options {
	const char *capture; /* borrowed: the capture's path, for messages */
	const uint64_t *ids; /* borrowed: the threads named by id (--thread) */
	size_t n_ids;
	const char *const *comms; /* borrowed: the threads named by name (--thread-comm) */
	size_t n_comms;
	const char *const *functions; /* borrowed: whose figures, summed (--function); n 0:
				       * the whole program's */
	size_t n_functions;
	bool allow_over; /* write runs too short for their accesses all the same */
};

/* A run the figures were put on whose accesses need more CPU than it has. */
struct cache_apply_over {
	size_t thread;	   /* index in the set */
	uint32_t line;	   /* the run's line in its file (0: built in memory) */
	uint64_t run_ns;   /* the run's CPU time */
	uint64_t need_ns;  /* what its accesses need at the rate below */
	uint64_t accesses; /* its accesses */
};

/* What cache_apply did, for the summary. */
struct cache_apply_report {
	struct cache_counts figures; /* what was put on the runs (the functions' sum or the
				      * whole program's) */
	/* the footprint put on every run (a capture with --footprint): the whole program's, or
	 * the largest of the functions named (their data may overlap: the largest is the least
	 * their union can be); kind NONE and no footprint without a curve */
	struct cache_footprint footprint; /* ll_misses NULL: borrowed nothing */
	GArray *threads;	    /* owned: size_t, the chosen threads' indexes in the set */
	size_t runs;		    /* the chosen threads' runs */
	size_t runs_with;	    /* of them, given figures (the others' share rounded to 0) */
	size_t replaced;	    /* runs whose figures of before were replaced */
	uint64_t cpu_ns;	    /* the chosen threads' CPU time (their runs) */
	uint64_t set_cpu_ns;	    /* the whole set's */
	double instructions_per_ns; /* the capture's instructions over the set's CPU time */
	GArray *over;		    /* owned: struct cache_apply_over */
	bool all_threads;	    /* no thread was named: every thread with a run */
};

/*
 * Puts the figures of p (the functions named, summed, or the whole program) on the runs of the
 * threads named (none: every thread of the set), in proportion to each run's CPU time, each
 * figure rounded so that the totals are exact and every run's figures are playable (stores
 * and D1 misses at most its accesses, LL misses at most its D1 misses); a run whose share of
 * accesses rounds to 0 gets none, a run that had figures has them replaced. A run whose
 * accesses need more than its CPU time at CACHE_APPLY_STUB_INSTRUCTIONS an access (the
 * instructions a ns measured as the capture's instructions over the set's CPU time) is listed
 * in rep->over. set must be resolved (dps_actset_load_dir). Returns DPS_OK; DPS_ERR_NOENT (a
 * thread or a function not there: diag names it and what there is); DPS_ERR_INVAL (no access
 * to put, no run to put it on, or runs over and !allow_over: diag names the first, its file
 * and line), set then as it was; DPS_ERR_NOMEM, set then partly changed (destroy it). rep is
 * the caller's (cache_apply_report_fini), filled on every return.
 */
int cache_apply(struct dps_actset *set, const struct cache_profile *p,
		const struct cache_apply_options *o, struct cache_apply_report *rep,
		struct dps_diag *diag);
void cache_apply_report_fini(struct cache_apply_report *rep);

#endif /* DPS_CACHE_CACHE_H */
