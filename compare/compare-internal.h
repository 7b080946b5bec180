/* SPDX-License-Identifier: MIT */
/* Helpers shared by the compare sources and its tests (not part of the public API). */
#ifndef DPS_COMPARE_INTERNAL_H
#define DPS_COMPARE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer.h"
#include "text-out.h"

struct compare_result;

/* Model builders (also used by tests and bench/memory-replay.c to hand-build analyzer
 * results). compare_model_add_thread appends a thread (comm copied; parent an index or
 * ANALYZER_NO_THREAD for the root, which also sets res->root) and returns its index, or
 * ANALYZER_NO_THREAD on ENOMEM; the others return DPS_OK or DPS_ERR_NOMEM. */
size_t compare_model_add_thread(struct analyzer_result *res, uint64_t id, const char *comm,
				size_t parent);
enum dps_status compare_model_add_segment(struct analyzer_thread *th, uint64_t begin, uint64_t end,
					  enum analyzer_seg_kind kind, uint32_t other);
enum dps_status compare_model_add_mark(struct analyzer_thread *th, uint64_t ts,
				       enum analyzer_mark_kind kind, uint32_t other);
enum dps_status compare_model_add_mem(struct analyzer_thread *th, uint64_t ts, int64_t heap,
				      int64_t stack);

/* Fills res->threads with the rows of the two sides' threads (res->side[*].model and
 * .excluded set), depth-first over the creation tree, and each side's row_of. Returns DPS_OK,
 * DPS_ERR_NOMEM, or DPS_ERR_INVAL on a malformed tree. */
enum dps_status compare_match_trees(struct compare_result *res);

/* A thread's display name: its comm, or "(unnamed)". */
const char *compare_thread_name(const struct analyzer_thread *th);

/* The run parameters (res->run, run-info.c): the JSON's "run" member, a line with its
 * trailing comma, and the report's "Run parameters" section. */
void compare_write_run_json(FILE *out, const struct compare_result *res);
void compare_write_run_html(FILE *out, const struct compare_result *res);

/* The one statement of the load under which the runs were recorded (output.c), for the
 * table and the report: which run, how much the others used, what it does to the headline
 * figure and what to do; NULL when neither run was recorded under load. g_free. */
char *compare_load_statement(const struct compare_result *res);
/* With a change (res->run->change), its effect in words: "thread 2 at 0.50x: the program
 * takes 412.30 ms instead of 695.33 ms (-40.70 %)"; NULL without one. g_free. */
char *compare_effect_statement(const struct compare_result *res);

#endif /* DPS_COMPARE_INTERNAL_H */
