/* SPDX-License-Identifier: MIT */
/*
 * Task queues found in the actions (tasks.c; doc/sync.md, "Task queues"): an annotated queue
 * that several threads take from, where every stretch a taker runs between two of its takes
 * is work another thread could run for it (runs, sleeps, balanced locks, puts, arrives,
 * wakes given in its name). The
 * manifest then lists who took each item, and the player hands item k's stretch to whoever
 * takes it: a consumer made faster takes more of the work, as in the real program.
 */
#ifndef DPS_ANALYZER_TASKS_H
#define DPS_ANALYZER_TASKS_H

#include <stdint.h>

#include "actset.h"
#include "diag.h"

struct analyzer_tasks;
/* One thread's view while its actions are made: the stretches open since its takes. */
struct analyzer_task_thread;

/* The state of one analysis (NULL on ENOMEM), freed with analyzer_tasks_destroy. */
struct analyzer_tasks *analyzer_tasks_create(void);
void analyzer_tasks_destroy(struct analyzer_tasks *tk);

/* Starts watching thread id's actions (NULL on ENOMEM: the thread then counts as one whose
 * stretches cannot move, so no queue it takes from becomes a task queue). */
struct analyzer_task_thread *analyzer_tasks_thread_begin(struct analyzer_tasks *tk, uint64_t id);
/* Each action the thread gets, in order; ts: when a take happened (0 for other kinds). */
void analyzer_tasks_action(struct analyzer_task_thread *tt, uint32_t kind, int64_t arg,
			   uint64_t ts);
void analyzer_tasks_thread_end(struct analyzer_task_thread *tt);

/* Declares the task queues in set (resolved; objects sorted by id): each queue taken from by
 * two threads or more, all of whose stretches can move, gets its takers in take order.
 * Returns DPS_OK or DPS_ERR_NOMEM. */
int analyzer_tasks_declare(struct analyzer_tasks *tk, struct dps_actset *set);

#endif /* DPS_ANALYZER_TASKS_H */
