/* SPDX-License-Identifier: MIT */
/*
 * What the synchronization bench programs share (bench/whatif-sync.sh, doc/whatif.md,
 * "Checked against real programs"): CPU work in units of a fixed loop count, the command line's
 * work knobs (`--scale ID=S`, `--unit N`), thread names, and a bounded FIFO queue under one
 * mutex with two condition variables, annotated for dps.
 *
 * The work is a loop of integer multiply-adds, not a calibrated duration: scaling a thread's
 * work by S in the real program scales its CPU time by S, whatever the machine's speed, which
 * is what `dps whatif` does to the thread's recorded run time.
 */
#ifndef SYNC_BENCH_COMMON_H
#define SYNC_BENCH_COMMON_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* C++ programs of the bench (cxxpipe.cc) link common.c too. */
#ifdef __cplusplus
extern "C" {
#endif

/* Component ids a program can scale with --scale ID=S (0 .. SB_MAX_IDS - 1). */
#define SB_MAX_IDS 64

struct sb_common {
	const char *prog;	  /* borrowed: argv[0]'s base name, for messages */
	double scale[SB_MAX_IDS]; /* work factor per component id, 1 unless --scale set it */
	unsigned long unit;	  /* loop iterations per work unit (--unit) */
};

/* Defaults: every scale 1, the default unit (about 1.3 ms on the bench machine). */
void sb_common_init(struct sb_common *c, const char *argv0);

/*
 * Takes one of the shared options: OPT is 's' (--scale ID=S) or 'u' (--unit N) with its
 * argument. Returns 0, or -1 after printing why ARG is bad (the caller exits 2).
 */
int sb_common_option(struct sb_common *c, int opt, const char *arg);

/* Parses a non-negative number from ARG into *out; -1 (nothing printed) when it is not one. */
int sb_parse_double(const char *arg, double *out);

/* Parses a positive integer up to MAX; -1 (nothing printed) when it is not one. */
int sb_parse_count(const char *arg, unsigned long max, unsigned long *out);

/*
 * Parses "W0,W1,..." (numbers >= 0) into OUT[0 .. MAX - 1]. Returns how many it read, or -1
 * (nothing printed) when one is not such a number or there are more than MAX.
 */
int sb_parse_list(const char *arg, double *out, int max);

/*
 * splitmix64's finalizer over A, B and ROUND: the programs' data-dependent values, the same
 * sequence in every run whatever the speeds.
 */
uint64_t sb_mix(uint64_t a, uint64_t b, uint64_t round);

/* A value in [0, 1) from the top 53 bits of V. */
double sb_fraction(uint64_t v);

/* The fractional part of I × the golden ratio: an uneven but evenly spread sequence in [0, 1). */
double sb_golden(unsigned long i);

/* Spends UNITS work units of CPU (UNITS × c->unit loop iterations). */
void sb_work(const struct sb_common *c, double units);

/* Writes all LEN bytes of BUF to FD (a pipe), through short writes and EINTR. Returns 0, or -1
 * with errno set. */
int sb_write_all(int fd, const void *buf, size_t len);

/*
 * Reads one whole record of LEN bytes from FD into BUF, looping as a read may return less.
 * Returns 1, 0 at the end of the stream (nothing read), -1 on an error or a stream that ends
 * inside a record.
 */
int sb_read_record(int fd, void *buf, size_t len);

/* Names the calling thread "NAME" (what `dps whatif --thread-comm` selects), best effort. */
void sb_name_thread(const char *name);

/*
 * A bounded FIFO of longs: one mutex, "not full" and "not empty" condition variables.
 * sb_queue_put blocks while full, sb_queue_take while empty; each tells dps right after the
 * item went in or out, still under the mutex, so a take's dps_consume can never come before
 * the dps_produce of the item it took.
 */
struct sb_queue {
	pthread_mutex_t mutex;
	pthread_cond_t not_full;
	pthread_cond_t not_empty;
	long *items; /* owned: the ring, capacity slots */
	unsigned capacity;
	unsigned head;	/* index of the oldest item */
	unsigned count; /* items held */
};

/* Returns 0, or -1 when the ring cannot be allocated. */
int sb_queue_init(struct sb_queue *q, unsigned capacity);
void sb_queue_destroy(struct sb_queue *q);
void sb_queue_put(struct sb_queue *q, long item);
long sb_queue_take(struct sb_queue *q);

#ifdef __cplusplus
}
#endif

#endif
