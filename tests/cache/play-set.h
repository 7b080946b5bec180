/* SPDX-License-Identifier: MIT */
/*
 * A set's cache figures played under the cache simulator, for the tests of tests/cache/ that
 * check them (test-cache-set, test-cache-apply): `dps build` makes a program of the set, the
 * capture's own code runs it under the real cachegrind with the geometry it simulates given
 * to libdps through DPS_CACHE_GEOMETRY (under Valgrind a program reads Valgrind's CPUID, not
 * the machine's) and the deterministic calibration (no measurement under the simulator).
 */
#ifndef DPS_TESTS_CACHE_PLAY_SET_H
#define DPS_TESTS_CACHE_PLAY_SET_H

#include "cache.h"

/* The cache stub's kernel figures (cache_play_kernel's: every run's accesses, summed) when
 * the program made of set, at prog, runs under cachegrind with knob and value among its
 * options (NULL: none). Fails the test on an error; skips (fails in CI) without valgrind, and
 * in a sanitized build, whose programs cannot run under Valgrind. */
struct cache_counts cache_test_play_set(const char *set, const char *prog, const char *knob,
					const char *value);

#endif /* DPS_TESTS_CACHE_PLAY_SET_H */
