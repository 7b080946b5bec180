/* SPDX-License-Identifier: MIT */
/*
 * Futex words (doc/sync.md, "Futex words"): every lock, barrier, semaphore and condition
 * variable of a program ends in the futex syscall when a thread must sleep, whatever library
 * made it (glibc, libgomp, libstdc++, Rust's std, Go). dps record records its entries (the
 * word's address, the operation, its value) and exits; this file reads the protocol of each
 * word the probe did not explain (calls inside the probe's own calls and the words of the
 * mutexes the pthread wrapper saw are explained) from the pattern of its waits and wakes:
 *
 *   barrier    every wake wakes all (val >= 2, glibc's and libgomp's INT_MAX), and between
 *              two wakes every party but the waker waited, the same parties each round,
 *              and more than one thread was the waker: re-enacted as a barrier of those
 *              parties (each arrival where its wait or wake began, the call its own);
 *   broadcast  every wake wakes all but always from one thread (a barrier whose last
 *              arriver never changed, or an event broadcast): kept as recorded wake-ups;
 *   partial    a barrier's pattern with rounds where a party never waited in the kernel
 *              (libgomp's waiters spin before they sleep): its arrivals are not all seen;
 *   lock       the threads that wake it also wait on it (a mutex, a spinlock with a futex
 *              fallback): who waits depends on who comes first;
 *   event      one set of threads waits, another wakes (a semaphore, a flag, a condition
 *              variable's signal without the probe): a dependency in one direction.
 *
 * A word nobody woke with a syscall (pthread_join's wait on the thread's id, which the
 * kernel ends at the exit) says nothing. Only barriers become objects; for the others the
 * set keeps the recorded wake-ups, and actions.c counts the waits kept on each kind of word
 * per pair of threads (the result's pins), so that dps whatif can say when the order they
 * pin may change with a component's speed.
 */
#include <stdlib.h>
#include <string.h>

#include "sync-internal.h"

/* linux/futex.h's commands (the low bits of op; flags above) */
#define FUTEX_CMD_MASK_ 0x7f
#define FUTEX_PRIVATE_FLAG_ 128
#define FUTEX_CLOCK_REALTIME_ 256
enum {
	F_WAIT = 0,
	F_WAKE = 1,
	F_REQUEUE = 3,
	F_CMP_REQUEUE = 4,
	F_WAKE_OP = 5,
	F_LOCK_PI = 6,
	F_UNLOCK_PI = 7,
	F_TRYLOCK_PI = 8,
	F_WAIT_BITSET = 9,
	F_WAKE_BITSET = 10,
	F_WAIT_REQUEUE_PI = 11,
	F_CMP_REQUEUE_PI = 12,
	F_LOCK_PI2 = 13,
};

/* A wake's val at or above this wakes every waiter. */
#define WAKE_ALL_MIN 2

struct futex_call {
	uint64_t entry_ns, exit_ns;
	uint64_t uaddr;
	int64_t pid;
	size_t ctx;
	int32_t cmd;
	uint32_t val;
	int64_t ret;
	bool explained;
};

/* A word's waits, per thread, for the lookup of a block's word (analyzer__futex_kind_at). */
struct wait_ref {
	uint64_t entry_ns, exit_ns;
	uint32_t kind; /* enum analyzer_pin_kind */
};

static bool is_wait(int32_t cmd)
{
	return cmd == F_WAIT || cmd == F_WAIT_BITSET || cmd == F_WAIT_REQUEUE_PI ||
	       cmd == F_LOCK_PI || cmd == F_LOCK_PI2 || cmd == F_TRYLOCK_PI;
}

static bool is_pi(int32_t cmd)
{
	return cmd == F_LOCK_PI || cmd == F_LOCK_PI2 || cmd == F_TRYLOCK_PI || cmd == F_UNLOCK_PI ||
	       cmd == F_CMP_REQUEUE_PI || cmd == F_WAIT_REQUEUE_PI;
}

void analyzer__on_futex(struct analyzer_core *core, const struct analyzer_event *ev, size_t ctx)
{
	struct athread *t;
	struct athread_calls *c;
	struct futex_call fc;

	core->seen_futex = true;
	/* a syscall as any other for the wake-ups' rule (sched.c), whether or not the trace
	 * has the others: only a thread in a syscall wakes another */
	ctx = analyzer__syscall_thread(core, ev, ctx);
	if (ctx == NO_T) {
		return;
	}
	t = analyzer__thread_at(core, ctx);
	c = &t->calls;
	t->sched.in_syscall = ev->kind == ANALYZER_EV_FUTEX_ENTRY;
	if (ev->kind == ANALYZER_EV_FUTEX_ENTRY) {
		c->in_futex = t->tracked && ev->futex.uaddr > 0;
		c->futex_ts = ev->ts;
		c->futex_uaddr = (uint64_t)ev->futex.uaddr;
		c->futex_op = (int32_t)(uint32_t)ev->futex.op;
		c->futex_val = (uint32_t)ev->futex.val;
		c->futex_explained = analyzer__sync_in_call(core, ctx);
		return;
	}
	if (!c->in_futex) {
		return;
	}
	c->in_futex = false;
	if (!c->futex_explained && ((c->futex_op & FUTEX_CMD_MASK_) == F_WAIT ||
				    (c->futex_op & FUTEX_CMD_MASK_) == F_WAIT_BITSET)) {
		c->last_wait_from = c->futex_ts;
		c->last_wait_to = ev->ts;
		c->last_wait_uaddr = c->futex_uaddr;
	}
	fc = (struct futex_call){.entry_ns = c->futex_ts,
				 .exit_ns = ev->ts,
				 .uaddr = c->futex_uaddr,
				 .pid = t->pid,
				 .ctx = ctx,
				 .cmd = c->futex_op & FUTEX_CMD_MASK_,
				 .val = c->futex_val,
				 .ret = ev->futex.uaddr, /* the exit's ret sits in that slot */
				 .explained = c->futex_explained};
	if (!core->futex_calls) {
		core->futex_calls = g_array_new(FALSE, FALSE, sizeof(struct futex_call));
	}
	g_array_append_val(core->futex_calls, fc);
}

static gint by_word_then_time(gconstpointer a, gconstpointer b)
{
	const struct futex_call *x = a, *y = b;

	if (x->pid != y->pid) {
		return x->pid < y->pid ? -1 : 1;
	}
	if (x->uaddr != y->uaddr) {
		return x->uaddr < y->uaddr ? -1 : 1;
	}
	return x->entry_ns < y->entry_ns ? -1 : x->entry_ns > y->entry_ns;
}

/* The calls of one word: calls[first, first + n). */
struct word {
	const struct futex_call *calls;
	size_t n;
};

#define MAX_PARTIES 64
#define EAGAIN_RET (-11)

/* What the rounds of a word whose wakes all wake every waiter say (barrier_rounds). */
struct rounds {
	size_t n_parties; /* the threads that waited or woke, at most MAX_PARTIES */
	size_t n_rounds;  /* wakes */
	bool complete;	  /* every party waited or woke in every round */
	size_t n_wakers;  /* distinct threads that woke the others */
};

/* The party index of thread ctx (added when new), or MAX_PARTIES when there are too many. */
static size_t party_of(size_t *parties, size_t *n, size_t ctx)
{
	for (size_t i = 0; i < *n; i++) {
		if (parties[i] == ctx) {
			return i;
		}
	}
	if (*n == MAX_PARTIES) {
		return MAX_PARTIES;
	}
	parties[*n] = ctx;
	return (*n)++;
}

/*
 * The rounds of word w, a round being the waits since the last wake and the wake that ends
 * them: false when a wake wakes fewer than all (no barrier). A wait that found the word
 * changed (EAGAIN) right after a wake, by a thread missing from the round that wake ended,
 * arrived in that round (it was late to the syscall, not to the barrier).
 */
static bool barrier_rounds(const struct word *w, struct rounds *r)
{
	size_t parties[MAX_PARTIES], wakers[MAX_PARTIES];
	uint64_t cur = 0, prev = 0, *masks;
	size_t n_masks = 0;

	*r = (struct rounds){.complete = true};
	masks = g_new0(uint64_t, w->n + 1);
	for (size_t i = 0; i < w->n; i++) {
		const struct futex_call *c = &w->calls[i];
		size_t p = party_of(parties, &r->n_parties, c->ctx);

		if (p == MAX_PARTIES) {
			g_free(masks);
			return false;
		}
		if (is_wait(c->cmd)) {
			if (c->ret == EAGAIN_RET && n_masks && !(prev & (1ull << p)) &&
			    !(cur & (1ull << p))) {
				prev |= 1ull << p;
				masks[n_masks - 1] = prev;
			} else {
				cur |= 1ull << p;
			}
			continue;
		}
		if (c->val < WAKE_ALL_MIN || (cur & (1ull << p))) {
			g_free(masks);
			return false; /* a wake of one, or a waker that waited in its own round */
		}
		cur |= 1ull << p;
		if (party_of(wakers, &r->n_wakers, c->ctx) == MAX_PARTIES) {
			g_free(masks);
			return false;
		}
		masks[n_masks++] = cur;
		prev = cur;
		cur = 0;
	}
	r->n_rounds = n_masks;
	for (size_t k = 0; k < n_masks; k++) {
		r->complete &= (size_t)__builtin_popcountll(masks[k]) == r->n_parties;
	}
	g_free(masks);
	return r->n_parties >= 2 && r->n_rounds > 0;
}

/* The barrier object of word w and its parties' arrivals: each wait's and wake's call a
 * point of its thread (the waits after the last wake, a round the trace cut, none). */
static void make_barrier(struct analyzer_core *core, const struct word *w, size_t n_parties)
{
	struct sync_obj *o =
	    analyzer__sync_obj(core, w->calls[0].pid, w->calls[0].uaddr, DPS_OBJ_BARRIER, NS_FUTEX);
	size_t last_wake = w->n;

	if (!o) {
		return;
	}
	o->probe = true;
	o->capacity = n_parties;
	while (last_wake > 0 && is_wait(w->calls[last_wake - 1].cmd)) {
		last_wake--;
	}
	for (size_t i = 0; i < last_wake; i++) {
		const struct futex_call *c = &w->calls[i];
		struct analyzer_sync_point *p = analyzer__sync_point(
		    core, c->ctx, c->entry_ns, ANALYZER_EV_SYNC_ARRIVE, o, 0, NULL);

		if (p) {
			p->end_ns = c->exit_ns;
			p->probe = true;
		}
	}
}

/* What word w is (enum analyzer_pin_kind); ANALYZER_PIN_BARRIER: made a barrier object. */
static uint32_t classify(struct analyzer_core *core, const struct word *w,
			 struct analyzer_futex_figures *fig)
{
	struct rounds r;
	bool any_wake = false, any_wait = false, wake_all = true, pi = false;
	GHashTable *waiters = g_hash_table_new(g_direct_hash, g_direct_equal);
	bool shared = false;

	for (size_t i = 0; i < w->n; i++) {
		const struct futex_call *c = &w->calls[i];

		pi |= is_pi(c->cmd);
		if (is_wait(c->cmd)) {
			any_wait = true;
			g_hash_table_add(waiters, GSIZE_TO_POINTER(c->ctx + 1));
		} else {
			any_wake = true;
			wake_all &= c->val >= WAKE_ALL_MIN;
		}
	}
	for (size_t i = 0; i < w->n; i++) {
		if (!is_wait(w->calls[i].cmd) &&
		    g_hash_table_contains(waiters, GSIZE_TO_POINTER(w->calls[i].ctx + 1))) {
			shared = true;
		}
	}
	g_hash_table_destroy(waiters);
	if (!any_wait || !any_wake) {
		return ANALYZER_PIN_NOT_FUTEX; /* a join's word, or wakes of nobody */
	}
	fig->n_words++;
	if (pi) {
		fig->n_lock++;
		return ANALYZER_PIN_LOCK;
	}
	if (wake_all && barrier_rounds(w, &r)) {
		if (r.complete && r.n_wakers >= 2) {
			make_barrier(core, w, r.n_parties);
			fig->n_barrier++;
			return ANALYZER_PIN_BARRIER;
		}
		if (!r.complete) {
			fig->n_partial++;
			return ANALYZER_PIN_PARTIAL;
		}
		fig->n_broadcast++;
		return ANALYZER_PIN_BROADCAST;
	}
	if (shared) {
		fig->n_lock++;
		return ANALYZER_PIN_LOCK;
	}
	fig->n_event++;
	return ANALYZER_PIN_EVENT;
}

#define ETIMEDOUT_RET (-110)

/* One timed-out wait of a kept thread (waiter) on a word kept thread waker wakes: the
 * result's pin (result indexes, as actions.c's). */
static void add_timeout_pin(struct analyzer_core *core, const struct athread *waiter,
			    const struct athread *waker, uint64_t blocked_ns)
{
	struct analyzer_pin pin = {.waiter = waiter->res_idx,
				   .waker = waker->res_idx,
				   .kind = ANALYZER_PIN_TIMEOUT,
				   .n = 1,
				   .blocked_ns = blocked_ns};

	if (!core->pins) {
		core->pins = g_array_new(FALSE, FALSE, sizeof(struct analyzer_pin));
	}
	for (guint i = 0; i < core->pins->len; i++) {
		struct analyzer_pin *p = &g_array_index(core->pins, struct analyzer_pin, i);

		if (p->waiter == pin.waiter && p->waker == pin.waker && p->kind == pin.kind) {
			p->n++;
			p->blocked_ns += blocked_ns;
			return;
		}
	}
	g_array_append_val(core->pins, pin);
}

/*
 * The waits of word w that timed out, each against every other thread that wakes the word: a
 * timed wait that timed out is a fixed sleep in the set (no thread ended it), but the word's
 * waker, faster or slower, would have ended it sooner or let it time out again (a loop of
 * timed waits the probe did not see: a condition variable without --sync).
 */
static void pin_timeouts(struct analyzer_core *core, const struct word *w)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct futex_call *c = &w->calls[i];
		const struct athread *waiter = core->th[c->ctx];

		if (!is_wait(c->cmd) || c->ret != ETIMEDOUT_RET || !waiter->kept) {
			continue;
		}
		for (size_t k = 0; k < w->n; k++) {
			const struct athread *waker = core->th[w->calls[k].ctx];
			bool seen = false;

			if (is_wait(w->calls[k].cmd) || w->calls[k].ctx == c->ctx || !waker->kept) {
				continue;
			}
			/* each waker once */
			for (size_t j = 0; j < k && !seen; j++) {
				seen =
				    !is_wait(w->calls[j].cmd) && w->calls[j].ctx == w->calls[k].ctx;
			}
			if (!seen) {
				add_timeout_pin(core, waiter, waker, c->exit_ns - c->entry_ns);
			}
		}
	}
}

static void free_refs(gpointer p)
{
	g_array_free(p, TRUE);
}

/* Thread ctx's waits, for the lookup (made on first use). */
static GArray *refs_of(struct analyzer_core *core, size_t ctx)
{
	GArray *a;

	if (!core->futex_waits) {
		core->futex_waits =
		    g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_refs);
	}
	a = g_hash_table_lookup(core->futex_waits, GSIZE_TO_POINTER(ctx + 1));
	if (!a) {
		a = g_array_new(FALSE, FALSE, sizeof(struct wait_ref));
		g_hash_table_insert(core->futex_waits, GSIZE_TO_POINTER(ctx + 1), a);
	}
	return a;
}

static gint by_entry(gconstpointer a, gconstpointer b)
{
	const struct wait_ref *x = a, *y = b;

	return x->entry_ns < y->entry_ns ? -1 : x->entry_ns > y->entry_ns;
}

int analyzer__futex_infer(struct analyzer_core *core, const size_t *order, size_t n)
{
	GArray *calls = core->futex_calls;
	GHashTableIter it;
	gpointer v;

	(void)order;
	(void)n;
	if (!calls || !calls->len) {
		return DPS_OK;
	}
	g_array_sort(calls, by_word_then_time);
	for (size_t i = 0; i < calls->len;) {
		const struct futex_call *c = &g_array_index(calls, struct futex_call, i);
		struct word w = {.calls = c, .n = 0};
		bool explained = false;
		uint32_t kind;

		while (i + w.n < calls->len && c[w.n].pid == c->pid && c[w.n].uaddr == c->uaddr) {
			explained |= c[w.n].explained;
			w.n++;
		}
		i += w.n;
		/* the probe's calls, a mutex the pthread wrapper saw: theirs */
		if (explained || analyzer__sync_find(core, c->pid, c->uaddr, NS_MUTEX)) {
			core->futex_fig.n_explained++;
			continue;
		}
		kind = classify(core, &w, &core->futex_fig);
		if (kind == ANALYZER_PIN_NOT_FUTEX) {
			continue;
		}
		pin_timeouts(core, &w);
		for (size_t k = 0; k < w.n; k++) {
			struct wait_ref r = {
			    .entry_ns = c[k].entry_ns, .exit_ns = c[k].exit_ns, .kind = kind};

			if (is_wait(c[k].cmd)) {
				g_array_append_val(refs_of(core, c[k].ctx), r);
			}
		}
	}
	if (core->futex_waits) {
		g_hash_table_iter_init(&it, core->futex_waits);
		while (g_hash_table_iter_next(&it, NULL, &v)) {
			g_array_sort(v, by_entry);
		}
	}
	g_array_free(calls, TRUE);
	core->futex_calls = NULL;
	return core->status;
}

uint32_t analyzer__futex_kind_at(const struct analyzer_core *core, size_t ctx, uint64_t begin_ns,
				 uint64_t end_ns)
{
	const GArray *a;
	size_t lo = 0, hi;

	if (!core->seen_futex) {
		return ANALYZER_PIN_UNKNOWN;
	}
	a = core->futex_waits ? g_hash_table_lookup(core->futex_waits, GSIZE_TO_POINTER(ctx + 1))
			      : NULL;
	if (!a) {
		return ANALYZER_PIN_NOT_FUTEX;
	}
	/* the last wait that began at or before the block */
	hi = a->len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g_array_index(a, struct wait_ref, mid).entry_ns <= begin_ns) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo && g_array_index(a, struct wait_ref, lo - 1).exit_ns >= end_ns) {
		return g_array_index(a, struct wait_ref, lo - 1).kind;
	}
	return ANALYZER_PIN_NOT_FUTEX;
}

void analyzer__futex_destroy(struct analyzer_core *core)
{
	if (core->futex_calls) {
		g_array_free(core->futex_calls, TRUE);
		core->futex_calls = NULL;
	}
	if (core->futex_waits) {
		g_hash_table_destroy(core->futex_waits);
		core->futex_waits = NULL;
	}
}
