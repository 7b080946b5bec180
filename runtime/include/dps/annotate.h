/* SPDX-License-Identifier: MIT */
/*
 * Annotations: what a program's synchronization *is*, for what a trace cannot show (doc/sync.md).
 *
 * A trace shows the waits that happened; it cannot show that a consumer which found an item
 * ready still took one from a queue of 4, so that a replay where the producer is slower must
 * block it. A program says so with these calls, placed beside its own synchronization; the
 * analyzer turns them into the objects and the put/take/arrive actions of format version 2
 * (doc/action-format.md), which the stub enforces.
 *
 * Each call emits one LTTng-UST event of the `dps` provider with the object's address (`obj`,
 * an integer of pointer width). None blocks, none touches the object (only its address is
 * read), and each costs a test of a flag when no session records the event. Link with libdps:
 * cc prog.c $(pkg-config --cflags --libs dps).
 *
 *	pthread_mutex_lock(&q->lock);
 *	while (q->n == q->cap)
 *		pthread_cond_wait(&q->not_full, &q->lock);
 *	q->items[q->tail++ % q->cap] = item;
 *	q->n++;
 *	dps_produce(q);                 // right after the real put
 *	pthread_cond_signal(&q->not_empty);
 *	pthread_mutex_unlock(&q->lock);
 */
#ifndef DPS_ANNOTATE_H
#define DPS_ANNOTATE_H

#ifdef __cplusplus
extern "C" {
#endif

/* obj is a queue or a semaphore holding at most capacity items (0 = unbounded); call once,
 * before any produce or consume on it. */
void dps_queue_init(const void *obj, unsigned capacity);
/* One item was put into obj: call right after the real put, still under the queue's mutex; for
 * a semaphore, right *before* sem_post (after it, the thread it wakes could take the item and
 * say so first: the trace would show a take from an empty queue). */
void dps_produce(const void *obj);
/* One item was taken from obj: call right after the real take (a sem_wait). */
void dps_consume(const void *obj);
/* obj is a barrier of parties threads; call once, before any arrive. */
void dps_barrier_init(const void *obj, unsigned parties);
/* The caller arrives at barrier obj: call right before pthread_barrier_wait. */
void dps_arrive(const void *obj);
/*
 * obj is a pool of work the threads share through memory, not through a lock or a queue (an
 * atomic counter of the next item, a work index): call each time the thread takes an item
 * from it, right after the take, and once more when it finds the pool empty (the attempt that
 * ends its share). A faster thread then takes more of the items in a replay, as it would in
 * the program:
 *
 *	for (;;) {
 *		long i = atomic_fetch_add(&next, 1);
 *		dps_pool_take(&next);           // also for the i >= n that ends the loop
 *		if (i >= n)
 *			break;
 *		work(i);
 *	}
 */
void dps_pool_take(const void *obj);

#ifdef __cplusplus
}
#endif

#endif /* DPS_ANNOTATE_H */
