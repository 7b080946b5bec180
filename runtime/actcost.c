/* SPDX-License-Identifier: MIT */
/*
 * dps's own CPU cost of each kind of action on this machine, for dps calibrate (the file's
 * cpu.action_cost_ns table, doc/runtime.md). The player plays small sets in which a thread
 * does nothing but that action, n times, and the thread's CPU clock over its play divided by n
 * is the cost: what the replay of a recording spends on its own beyond the recorded runs. The
 * costs that matter are those of blocking actions, so the sets make them block as a replay's
 * do: a sleeper woken by a thread that naps between its wakes, a queue of one taken from by a
 * thread that finds it empty, a barrier of two where one thread always comes first. Measured
 * under a tracing session with the dps events enabled (dps calibrate run by dps record), the
 * costs go to the traced column.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lttng/ust-events.h>

#include "dps_tp.h"
#include "runtime-internal.h"

/* the napping thread's sleep between two of its actions: long enough for the other thread to
 * block first, short enough for thousands in well under a second */
#define NAP_NS 50000

struct costset {
	struct dps_thread_desc threads[2];
	struct dps_action *acts[2];
	struct dps_object obj;
	struct dps_program prog;
};

/* A two-thread set: thread 0 creates thread 1, plays n times [nap, a0] and joins it; thread 1
 * plays n times a1. Returns DPS_OK or DPS_ERR_NOMEM. */
static int costset_init(struct costset *cs, size_t n, struct dps_action a0, struct dps_action a1,
			const struct dps_object *obj)
{
	size_t k = 0;

	memset(cs, 0, sizeof(*cs));
	cs->acts[0] = calloc(2 * n + 2, sizeof(struct dps_action));
	cs->acts[1] = calloc(n ? n : 1, sizeof(struct dps_action));
	if (!cs->acts[0] || !cs->acts[1]) {
		free(cs->acts[0]);
		free(cs->acts[1]);
		return DPS_ERR_NOMEM;
	}
	cs->acts[0][k++] = (struct dps_action){.kind = DPS_ACT_CREATE, .arg = 1};
	for (size_t i = 0; i < n; i++) {
		cs->acts[0][k++] = (struct dps_action){.kind = DPS_ACT_SLEEP, .arg = NAP_NS};
		cs->acts[0][k++] = a0;
		cs->acts[1][i] = a1;
	}
	cs->acts[0][k++] = (struct dps_action){.kind = DPS_ACT_JOIN, .arg = 1};
	for (size_t t = 0; t < 2; t++) {
		cs->threads[t] = (struct dps_thread_desc){
		    .id = t + 1, .name = "dps-calibrate", .actions = cs->acts[t]};
	}
	cs->threads[0].n_actions = k;
	cs->threads[1].n_actions = n;
	cs->prog = (struct dps_program){
	    .name = "action costs", .threads = cs->threads, .n_threads = 2, .root = 0};
	if (obj) {
		cs->obj = *obj;
		cs->prog.objects = &cs->obj;
		cs->prog.n_objects = 1;
	}
	return DPS_OK;
}

static void costset_fini(struct costset *cs)
{
	free(cs->acts[0]);
	free(cs->acts[1]);
}

/* Plays prog quietly; the CPU of each of its first two threads into cpu[]. */
static int play_costs(const struct dps_program *prog, uint64_t cpu[2])
{
	struct dps_play_options opts;
	struct dps_play_result res;
	int ret;

	dps_play_options_default(&opts);
	opts.summary = false;
	ret = dps_play(prog, &opts, &res);
	if (!ret) {
		for (size_t t = 0; t < 2 && t < res.n_threads; t++) {
			cpu[t] = res.threads[t].cpu_ns;
		}
	}
	dps_play_result_fini(&res);
	return ret;
}

/* Per action of thread 1 (n of them), and of thread 0 less its naps (nap_ns each), in ns. */
static int measure_pair(size_t n, struct dps_action a0, struct dps_action a1,
			const struct dps_object *obj, double nap_ns, double *cost0, double *cost1)
{
	struct costset cs;
	uint64_t cpu[2] = {0, 0};
	int ret = costset_init(&cs, n, a0, a1, obj);

	if (ret) {
		return ret;
	}
	ret = play_costs(&cs.prog, cpu);
	costset_fini(&cs);
	if (ret) {
		return ret;
	}
	if (cost0) {
		double c = ((double)cpu[0] - nap_ns * (double)n) / (double)n;

		*cost0 = c > 0 ? c : 0;
	}
	if (cost1) {
		*cost1 = (double)cpu[1] / (double)n;
	}
	return DPS_OK;
}

/* One thread: n times the actions of body (nb of them, n * nb actions). */
static int measure_alone(size_t n, const struct dps_action *body, size_t nb,
			 const struct dps_object *obj, double *cost)
{
	struct dps_action *acts = calloc(n * nb > 0 ? n * nb : 1, sizeof(*acts));
	struct dps_thread_desc t = {.id = 1, .name = "dps-calibrate", .actions = acts};
	struct dps_program prog = {
	    .name = "action costs", .threads = &t, .n_threads = 1, .objects = obj};
	uint64_t cpu[2] = {0, 0};
	int ret;

	if (!acts) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&acts[i * nb], body, nb * sizeof(*body));
	}
	t.n_actions = n * nb;
	prog.n_objects = obj ? 1 : 0;
	ret = play_costs(&prog, cpu);
	free(acts);
	if (!ret) {
		*cost = (double)cpu[0] / (double)n;
	}
	return ret;
}

/* Thread 0 creates m empty threads, joining each right after its create when join. */
static int measure_threads_played(size_t m, bool join, double *cost)
{
	struct dps_thread_desc *t = calloc(m + 1, sizeof(*t));
	struct dps_action *acts = calloc(2 * m > 0 ? 2 * m : 1, sizeof(*acts));
	struct dps_program prog = {.name = "action costs", .threads = t, .n_threads = m + 1};
	uint64_t cpu[2] = {0, 0};
	size_t k = 0;
	int ret;

	if (!t || !acts) {
		free(t);
		free(acts);
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 1; i <= m; i++) {
		acts[k++] = (struct dps_action){.kind = DPS_ACT_CREATE, .arg = (int64_t)i};
		if (join) {
			acts[k++] = (struct dps_action){.kind = DPS_ACT_JOIN, .arg = (int64_t)i};
		}
		t[i] = (struct dps_thread_desc){.id = i + 1, .name = "dps-calibrate"};
	}
	t[0] = (struct dps_thread_desc){
	    .id = 1, .name = "dps-calibrate", .actions = acts, .n_actions = k};
	ret = play_costs(&prog, cpu);
	free(t);
	free(acts);
	if (!ret) {
		*cost = (double)cpu[0] / (double)m;
	}
	return ret;
}

/* n of each action: the play takes about n x (NAP_NS + the wake's latency) x 4, under a second */
#define COST_ACTIONS 2000

int dps_calibration_measure_action_costs(struct dps_calibration *cal)
{
	const size_t n = COST_ACTIONS;
	const struct dps_object mutex = {.id = 1, .kind = DPS_OBJ_MUTEX};
	const struct dps_object queue = {.id = 1, .kind = DPS_OBJ_QUEUE, .capacity = 1};
	const struct dps_object barrier = {.id = 1, .kind = DPS_OBJ_BARRIER, .capacity = 2};
	const struct dps_action nap = {.kind = DPS_ACT_SLEEP, .arg = NAP_NS};
	const struct dps_action lock_unlock[] = {{.kind = DPS_ACT_LOCK, .arg = 0},
						 {.kind = DPS_ACT_UNLOCK, .arg = 0}};
	size_t m = n / 10 ? n / 10 : 1;
	double c[DPS_COST_N] = {0};
	double pair = 0, create_join = 0;
	bool traced = lttng_ust_tracepoint_enabled(dps, wait_begin);
	int ret;

	ret = measure_alone(n, &nap, 1, NULL, &c[DPS_COST_SLEEP]);
	if (!ret) {
		/* thread 1 waits: it is blocked when thread 0, after its nap, wakes it */
		ret = measure_pair(n, (struct dps_action){.kind = DPS_ACT_WAKE, .arg = 1},
				   (struct dps_action){.kind = DPS_ACT_WAIT, .arg = 0}, NULL,
				   c[DPS_COST_SLEEP], &c[DPS_COST_WAKE], &c[DPS_COST_WAIT]);
	}
	if (!ret) {
		/* a queue of one: the taker finds it empty and blocks, the put finds room */
		ret = measure_pair(n, (struct dps_action){.kind = DPS_ACT_PUT, .arg = 0},
				   (struct dps_action){.kind = DPS_ACT_TAKE, .arg = 0}, &queue,
				   c[DPS_COST_SLEEP], &c[DPS_COST_PUT], &c[DPS_COST_TAKE]);
	}
	if (!ret) {
		/* a barrier of two: thread 1 arrives first and blocks; the arrival that blocks */
		ret = measure_pair(n, (struct dps_action){.kind = DPS_ACT_ARRIVE, .arg = 0},
				   (struct dps_action){.kind = DPS_ACT_ARRIVE, .arg = 0}, &barrier,
				   c[DPS_COST_SLEEP], NULL, &c[DPS_COST_ARRIVE]);
	}
	if (!ret) {
		/* uncontended: the pair's cost, split evenly */
		ret = measure_alone(n, lock_unlock, 2, &mutex, &pair);
		c[DPS_COST_LOCK] = c[DPS_COST_UNLOCK] = pair / 2;
	}
	if (!ret) {
		ret = measure_threads_played(m, false, &c[DPS_COST_CREATE]);
	}
	if (!ret) {
		ret = measure_threads_played(m, true, &create_join);
		c[DPS_COST_JOIN] =
		    create_join > c[DPS_COST_CREATE] ? create_join - c[DPS_COST_CREATE] : 0;
	}
	if (ret) {
		return ret;
	}
	for (unsigned k = 0; k < DPS_COST_N; k++) {
		/* never 0: 0 means "not measured" in the file */
		double v = c[k] > 0.1 ? c[k] : 0.1;

		if (traced) {
			cal->action_cost_traced_ns[k] = v;
		} else {
			cal->action_cost_ns[k] = v;
		}
	}
	return DPS_OK;
}
