/* SPDX-License-Identifier: MIT */
/*
 * xz's pattern, for the live test of `dps record --sync`'s condition-variable probe: the main
 * thread waits on a condition variable with a long timeout (300 ms, on CLOCK_MONOTONIC as xz
 * does), and a worker ends each wait early: after every unit of work (a few ms of CPU) it
 * signals under the mutex. No annotation: the mutex and the condition variable are all.
 * argv[1]: units (default 20), argv[2]: CPU time of a unit in us (default 5000), argv[3]: the
 * timeout in ms (default 300; shorter than a unit, main's waits time out and wait again: a
 * loop of ticks, as xz's while a worker compresses a long block).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond;
static int done, units = 20;
static long unit_us = 5000, timeout_ms = 300;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < units; i++) {
		spin_us(unit_us);
		pthread_mutex_lock(&lock);
		done++;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_condattr_t attr;
	pthread_t w;
	int seen = 0;

	if (argc > 1) {
		units = atoi(argv[1]);
	}
	if (argc > 2) {
		unit_us = atol(argv[2]);
	}
	if (argc > 3) {
		timeout_ms = atol(argv[3]);
	}
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&cond, &attr);
	pthread_create(&w, NULL, worker, NULL);
	pthread_mutex_lock(&lock);
	while (seen < units) {
		struct timespec until;

		while (done == seen) {
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += timeout_ms / 1000;
			until.tv_nsec += timeout_ms % 1000 * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&cond, &lock, &until);
		}
		seen = done;
		/* what the main thread does with a finished unit, under the lock */
		spin_us(100);
	}
	pthread_mutex_unlock(&lock);
	pthread_join(w, NULL);
	return 0;
}
