/* SPDX-License-Identifier: MIT */
/*
 * A producer and a consumer on a bounded queue (a mutex and two condition variables), both
 * annotated with dps/annotate.h, for the live test of `dps record --sync`: the consumer is
 * slower, so the producer blocks on the full queue; both meet at a barrier at the end.
 * argv[1]: items (default 20). Built with SYNC_PROG_PLAIN, the annotations are no-ops: what
 * dps sees is the mutex and the condition variables' waits and signals alone.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

#ifdef SYNC_PROG_PLAIN
#define dps_queue_init(obj, capacity) ((void)(obj), (void)(capacity))
#define dps_barrier_init(obj, parties) ((void)(obj), (void)(parties))
#define dps_produce(obj) ((void)(obj))
#define dps_consume(obj) ((void)(obj))
#define dps_arrive(obj) ((void)(obj))
#else
#include <dps/annotate.h>
#endif

#define CAP 2

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_full, not_empty;
	int n;
} q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
static pthread_barrier_t done;
static int items = 20;

static void *consumer(void *arg)
{
	(void)arg;
	for (int i = 0; i < items; i++) {
		pthread_mutex_lock(&q.lock);
		while (!q.n) {
			pthread_cond_wait(&q.not_empty, &q.lock);
		}
		q.n--;
		dps_consume(&q);
		pthread_cond_signal(&q.not_full);
		pthread_mutex_unlock(&q.lock);
		spin_us(2000);
	}
	dps_arrive(&done);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t c;

	if (argc > 1) {
		items = atoi(argv[1]);
	}
	dps_queue_init(&q, CAP);
	dps_barrier_init(&done, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&c, NULL, consumer, NULL);
	for (int i = 0; i < items; i++) {
		spin_us(200);
		pthread_mutex_lock(&q.lock);
		while (q.n == CAP) {
			pthread_cond_wait(&q.not_full, &q.lock);
		}
		q.n++;
		dps_produce(&q);
		pthread_cond_signal(&q.not_empty);
		pthread_mutex_unlock(&q.lock);
	}
	dps_arrive(&done);
	pthread_barrier_wait(&done);
	pthread_join(c, NULL);
	return 0;
}
