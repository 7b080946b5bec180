/* SPDX-License-Identifier: MIT */
/*
 * A program with known behaviour for the live record -> analyze test (test-live.c):
 *   main:     run 20 ms, create A, create B, join A, join B, run 10 ms
 *   worker-a: 3 x (run 10 ms, sleep 20 ms), malloc 1 MiB, lock M, run 10 ms (B waits), unlock,
 *             free
 *   worker-b: 3 x (run 10 ms, sleep 20 ms), lock M once A holds it (blocks until A unlocks),
 *             run 10 ms, unlock
 * "run" is CPU time of the thread (CLOCK_THREAD_CPUTIME_ID), read rarely so the trace is not
 * flooded with sched_stat_runtime.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int a_holds;

static atomic_int b_tid;

/* Whether worker-b sleeps (state S in /proc/self/task/TID/stat) after announcing itself. */
static int b_blocked(void)
{
	char path[64], buf[256], *close_paren;
	int tid = atomic_load(&b_tid), ok = 0;
	FILE *f;

	if (!tid) {
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f) {
		return 0;
	}
	if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')) &&
	    close_paren[1] == ' ') {
		ok = close_paren[2] == 'S';
	}
	fclose(f);
	return ok;
}

static long cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

static void run_ms(long ms)
{
	long end = cpu_us() + ms * 1000L;

	while (cpu_us() < end) {
		for (volatile int i = 0; i < 20000; i++) {
		}
	}
}

static void *worker(void *arg)
{
	int is_a = arg != NULL;
	char *volatile p = NULL;

	pthread_setname_np(pthread_self(), is_a ? "worker-a" : "worker-b");
	for (int i = 0; i < 3; i++) {
		run_ms(10);
		usleep(20000);
	}
	if (is_a) {
		p = malloc(1 << 20);
		memset(p, 1, 1 << 20);
		pthread_mutex_lock(&m);
		atomic_store(&a_holds, 1);
		run_ms(10);
		/* B must have blocked on M: on a loaded machine B's polling sleep can outlast
		 * the 10 ms, and then B never waits. Its state in /proc says when it sleeps in
		 * the lock (it sleeps nowhere else once b_tid is set). */
		while (!b_blocked()) {
			usleep(200);
		}
		pthread_mutex_unlock(&m);
		free(p);
	} else {
		while (!atomic_load(&a_holds)) {
			usleep(500);
		}
		atomic_store(&b_tid, gettid());
		pthread_mutex_lock(&m);
		run_ms(10);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	run_ms(20);
	pthread_create(&a, NULL, worker, (void *)1);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	run_ms(10);
	return 0;
}
