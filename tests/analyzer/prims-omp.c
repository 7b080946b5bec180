/* SPDX-License-Identifier: MIT */
/*
 * OpenMP for test-prims-live.c (issue 24): a team of 2 ("omp0", the main thread, and "omp1")
 * runs 8 rounds of a `schedule(static)` loop of two items, omp0's item 2 ms of CPU and omp1's
 * 4 ms, each round ending at the loop's implicit barrier; then a `schedule(dynamic)` loop of
 * 20 items of 1 to 3 ms. Built with gcc -fopenmp: libgomp's GOMP_* calls, which the probe of
 * `dps record --sync` wraps.
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>

#include "spin.h"

int main(void)
{
	long sum = 0;

#pragma omp parallel num_threads(2) reduction(+ : sum)
	{
		pthread_setname_np(pthread_self(), omp_get_thread_num() ? "omp1" : "omp0");
		for (int r = 0; r < 8; r++) {
#pragma omp for schedule(static)
			for (int i = 0; i < 2; i++) {
				spin_us(i ? 4000 : 2000);
				sum += i;
			}
		}
#pragma omp for schedule(dynamic, 1)
		for (int i = 0; i < 20; i++) {
			spin_us(1000L * (1 + i % 3));
			sum += i;
		}
	}
	printf("prims-omp: sum=%ld\n", sum);
	return 0;
}
