/* SPDX-License-Identifier: MIT */
/*
 * The OpenMP program of test-syncprobe-live (gcc -fopenmp; GCC 12's calls in brackets):
 *
 *   region 1, `parallel num_threads(TEAM)` [GOMP_parallel]:
 *     `single nowait` noting the team's size [GOMP_single_start]
 *     `for schedule(static)` over N_STATIC   [inlined; its end: GOMP_barrier]
 *     `critical`, once per thread             [GOMP_critical_start/end]
 *     `for schedule(dynamic, CHUNK)` over N_DYNAMIC
 *                                             [GOMP_loop_nonmonotonic_dynamic_start/next,
 *                                              GOMP_loop_end]
 *     `sections` of SECTIONS sections        [GOMP_sections_start/next, GOMP_sections_end]
 *     `for schedule(runtime)`, the runtime schedule set to static
 *                                             [GOMP_loop_maybe_nonmonotonic_runtime_start/
 *                                              next, GOMP_loop_end]
 *     `single` creating one `task`            [GOMP_single_start, GOMP_task, GOMP_barrier]
 *   region 2, `parallel for schedule(dynamic, CHUNK2) num_threads(TEAM)` over N_COMBINED
 *                                             [GOMP_parallel_loop_nonmonotonic_dynamic,
 *                                              GOMP_loop_nonmonotonic_dynamic_next,
 *                                              GOMP_loop_end_nowait]
 *   region 3, `parallel sections num_threads(TEAM)` of SECTIONS2 sections
 *                                             [GOMP_parallel_sections, GOMP_sections_next,
 *                                              GOMP_sections_end_nowait]
 *   region 4, `parallel reduction(task, +: ...) num_threads(TEAM)`, a `single` making N_TASKS
 *             tasks `in_reduction`             [GOMP_parallel_reductions (libgomp reads the
 *                                              region's data itself), GOMP_single_start,
 *                                              GOMP_task, GOMP_barrier]
 *
 * The loops add with `atomic` (one instruction: no GOMP_atomic_start) rather than a
 * reduction clause, which would make GCC keep the combined loop out of GOMP_parallel_loop_*.
 * Every result is checked (the regions' data passes through the probe's trampoline): the
 * sums of the loops, each section and the task run once, the critical section's count, the
 * team's size. Exits 1 when one is wrong; prints "team N".
 */
#include <omp.h>
#include <stdio.h>

#define TEAM 4
#define N_STATIC 1000
#define N_DYNAMIC 100
#define CHUNK 7
#define SECTIONS 3
#define N_RUNTIME 40
#define N_COMBINED 60
#define CHUNK2 4
#define SECTIONS2 2
#define N_TASKS 10

static long sum_of(long n)
{
	return n * (n - 1) / 2;
}

int main(void)
{
	long s_static = 0, s_dynamic = 0, s_runtime = 0, s_combined = 0, s_tasks = 0;
	int in_critical = 0, sections[SECTIONS] = {0}, sections2[SECTIONS2] = {0};
	int task_ran = 0, team = 0, failures = 0;

	omp_set_schedule(omp_sched_static, 0);
#pragma omp parallel num_threads(TEAM)
	{
#pragma omp single nowait
		team = omp_get_num_threads();
#pragma omp for schedule(static)
		for (long i = 0; i < N_STATIC; i++) {
#pragma omp atomic
			s_static += i;
		}
#pragma omp critical
		in_critical++;
#pragma omp for schedule(dynamic, CHUNK)
		for (long i = 0; i < N_DYNAMIC; i++) {
#pragma omp atomic
			s_dynamic += i;
		}
#pragma omp sections
		{
#pragma omp section
			sections[0]++;
#pragma omp section
			sections[1]++;
#pragma omp section
			sections[2]++;
		}
#pragma omp for schedule(runtime)
		for (long i = 0; i < N_RUNTIME; i++) {
#pragma omp atomic
			s_runtime += i;
		}
#pragma omp single
		{
#pragma omp task shared(task_ran)
			task_ran++;
		}
	}
#pragma omp parallel for schedule(dynamic, CHUNK2) num_threads(TEAM)
	for (long i = 0; i < N_COMBINED; i++) {
#pragma omp atomic
		s_combined += i;
	}
#pragma omp parallel sections num_threads(TEAM)
	{
#pragma omp section
		sections2[0]++;
#pragma omp section
		sections2[1]++;
	}
#pragma omp parallel num_threads(TEAM) reduction(task, + : s_tasks)
	{
#pragma omp single
		for (long i = 0; i < N_TASKS; i++) {
#pragma omp task in_reduction(+ : s_tasks)
			s_tasks += i;
		}
	}

	printf("team %d\n", team);
	failures += team != TEAM;
	failures += s_static != sum_of(N_STATIC) || s_dynamic != sum_of(N_DYNAMIC);
	failures += s_runtime != sum_of(N_RUNTIME) || s_combined != sum_of(N_COMBINED);
	failures += s_tasks != sum_of(N_TASKS);
	failures += in_critical != team || task_ran != 1;
	for (int i = 0; i < SECTIONS; i++) {
		failures += sections[i] != 1;
	}
	for (int i = 0; i < SECTIONS2; i++) {
		failures += sections2[i] != 1;
	}
	if (failures) {
		fprintf(stderr, "omp-prog: %d wrong results\n", failures);
	}
	return failures ? 1 : 0;
}
