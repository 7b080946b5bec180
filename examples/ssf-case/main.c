/* SPDX-License-Identifier: MIT */
/*
 * route-planner: the SSF case study's real program (doc/ssf.md, "Case study").
 *
 * main builds a map and a queue of requests; --workers threads take requests from the queue
 * and plan each with plan_route() (route.c, the component under study) inside the local stub
 * region "compute"; a writer thread prints the routes in request order to a paced sink that
 * takes one result every --sink-us (a rate-limited feed: its cost is fixed, whatever the
 * planner does). The makespan is the slower of the two stages: the workers' planning, or the
 * sink's n x sink-us. With c the CPU time of one plan at work scale 1 and W workers on W
 * cores, the planner is the bottleneck above the knee at work scale W x sink-us / c.
 *
 * The region: in original mode the planner runs, and with DPS_SSF_MODE=record its result is
 * saved as the object "rID" (one name per request, so the restore finds a request's own
 * result whatever thread order the run takes), or checked with DPS_SSF_MODE=check. Stubbed
 * (DPS_STUB_MODE flat, idle, busy), the result is restored from the recording instead, and the
 * stub spends nothing, the recorded time asleep, or t_PSF of CPU. The output is the same
 * bytes in every mode.
 *
 * Concurrency: one mutex guards the queue, the result slots and the timing sums; workers
 * signal `done` per result, the writer waits for the next slot in order. Every thread is
 * joined before main prints the timing and exits.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dps/ssf.h>
#include <dps/stub.h>

#include "route.h"

/* generated from route.o's DWARF by dps ssf gen (CMakeLists.txt), after the types */
#include "route-ssf.h"

#define MAX_WORKERS 64

struct options {
	unsigned requests;
	unsigned workers;
	double work_scale;
	unsigned sink_us;
	unsigned seed;
	bool timing;
};

/* Per-call sums of the region's parts, nanoseconds (--timing). */
struct timing {
	uint64_t calls;
	uint64_t compute_cpu;
	uint64_t save_cpu;
	uint64_t save_wall;
	uint64_t restore_cpu;
	uint64_t restore_wall;
	uint64_t region_cpu;
	uint64_t region_wall;
};

struct planner {
	const struct options *opt; /* borrowed */
	struct map map;
	struct request *reqs; /* owned: opt->requests of them */
	pthread_mutex_t lock;
	pthread_cond_t done;	 /* a slot was filled */
	unsigned next;		 /* the queue's head: the next request to plan */
	struct result **results; /* owned, with each result: the slots, by request id */
	bool *ready;		 /* owned: slot filled (a NULL result is a filled slot) */
	struct timing timing;
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Exits the program on an SSF failure: the output would be wrong, not slower. */
static void fail_ssf(const char *what, const char *name)
{
	fprintf(stderr, "route-planner: %s %s: %s\n", what, name, dps_ssf_last_error());
	exit(1);
}

/* The region around the component: planned (and recorded or checked), or restored. */
static struct result *plan_in_region(struct planner *pl, const struct request *req,
				     struct timing *t)
{
	uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), wall0 = clock_ns(CLOCK_MONOTONIC);
	struct result *r = NULL;
	uint64_t c, w;
	char name[24];

	snprintf(name, sizeof(name), "r%u", req->id);
	DPS_STUB_BEGIN("compute")
	r = plan_route(&pl->map, req, pl->opt->work_scale);
	c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	w = clock_ns(CLOCK_MONOTONIC);
	t->compute_cpu += c - cpu0;
	if (dps_ssf_mode() == DPS_SSF_RECORD && route_ssf_save_result(name, r)) {
		fail_ssf("cannot record", name);
	}
	if (dps_ssf_mode() == DPS_SSF_CHECK && route_ssf_check_result(name, r)) {
		fail_ssf("differs from the recording:", name);
	}
	t->save_cpu += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c;
	t->save_wall += clock_ns(CLOCK_MONOTONIC) - w;
	DPS_STUB_ELSE
	if (route_ssf_load_result(name, &r)) {
		fail_ssf("cannot restore", name);
	}
	t->restore_cpu += clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	t->restore_wall += clock_ns(CLOCK_MONOTONIC) - wall0;
	DPS_STUB_END("compute")
	t->region_cpu += clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	t->region_wall += clock_ns(CLOCK_MONOTONIC) - wall0;
	t->calls++;
	return r;
}

static void *worker_main(void *arg)
{
	struct planner *pl = arg;
	struct timing t = {0};

	for (;;) {
		struct result *r;
		unsigned id;

		pthread_mutex_lock(&pl->lock);
		id = pl->next < pl->opt->requests ? pl->next++ : UINT32_MAX;
		pthread_mutex_unlock(&pl->lock);
		if (id == UINT32_MAX) {
			break;
		}
		r = plan_in_region(pl, &pl->reqs[id], &t);
		pthread_mutex_lock(&pl->lock);
		pl->results[id] = r;
		pl->ready[id] = true;
		pthread_cond_broadcast(&pl->done);
		pthread_mutex_unlock(&pl->lock);
	}
	pthread_mutex_lock(&pl->lock);
	pl->timing.calls += t.calls;
	pl->timing.compute_cpu += t.compute_cpu;
	pl->timing.save_cpu += t.save_cpu;
	pl->timing.save_wall += t.save_wall;
	pl->timing.restore_cpu += t.restore_cpu;
	pl->timing.restore_wall += t.restore_wall;
	pl->timing.region_cpu += t.region_cpu;
	pl->timing.region_wall += t.region_wall;
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

static const char *const mode_names[3] = {"road", "bridge", "ferry"};

/* The rest of the program: what it makes of a result. */
static void print_result(FILE *out, const struct request *req, const struct result *r)
{
	const struct summary *s;

	if (!r) {
		fprintf(out, "R%u (%d,%d)->(%d,%d): no route\n", req->id, req->from.x, req->from.y,
			req->to.x, req->to.y);
		return;
	}
	s = &r->summary;
	fprintf(out, "%s: %u min, %u steps, %u legs, box (%d,%d)-(%d,%d)", r->label, s->minutes,
		s->steps, s->n_legs, s->box[0].x, s->box[0].y, s->box[1].x, s->box[1].y);
	for (int m = 0; m < 3; m++) {
		if (s->by_mode[m]) {
			fprintf(out, ", %s %u", mode_names[m], s->by_mode[m]);
		}
	}
	fprintf(out, "%s%s\n", r->note ? "; " : "", r->note ? r->note : "");
	for (const struct leg *l = r->legs; l; l = l->next) {
		fprintf(out, "  %-5s %-6s (%d,%d)->(%d,%d) %u min\n", l->heading,
			mode_names[l->mode], l->from.x, l->from.y, l->to.x, l->to.y, l->minutes);
	}
}

/* The sink: one result per sink_us at most, the next starting when both it and the sink are
 * ready (an absolute deadline, so the pace does not drift with the sleeps' wake-up lag). */
static void *writer_main(void *arg)
{
	struct planner *pl = arg;
	uint64_t free_at = clock_ns(CLOCK_MONOTONIC);

	for (unsigned id = 0; id < pl->opt->requests; id++) {
		struct result *r;
		struct timespec ts;
		uint64_t now;

		pthread_mutex_lock(&pl->lock);
		while (!pl->ready[id]) {
			pthread_cond_wait(&pl->done, &pl->lock);
		}
		r = pl->results[id];
		pl->results[id] = NULL;
		pthread_mutex_unlock(&pl->lock);
		print_result(stdout, &pl->reqs[id], r);
		fflush(stdout);
		result_free(r);
		now = clock_ns(CLOCK_MONOTONIC);
		free_at = (free_at > now ? free_at : now) + (uint64_t)pl->opt->sink_us * 1000u;
		ts.tv_sec = (time_t)(free_at / 1000000000u);
		ts.tv_nsec = (long)(free_at % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
		}
	}
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: route-planner [--requests N] [--workers W] [--work-scale S] [--sink-us U]\n"
	    "                     [--seed N] [--timing]\n"
	    "  plans N requests (200) on W worker threads (2), each plan with S times the\n"
	    "  search effort (1); a writer prints them in order, one every U us (2500).\n"
	    "  --timing: the region's mean times per call on stderr. Environment: DPS_STUB_MODE,\n"
	    "  DPS_STUB_BUSY, DPS_SSF_MODE, DPS_SSF_FILE (doc/ssf.md).\n");
}

/* 0, or 2 after a message (bad usage). */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
	    {"requests", required_argument, NULL, 'n'},
	    {"workers", required_argument, NULL, 'w'},
	    {"work-scale", required_argument, NULL, 's'},
	    {"sink-us", required_argument, NULL, 'u'},
	    {"seed", required_argument, NULL, 'r'},
	    {"timing", no_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	*o = (struct options){200, 2, 1.0, 2500, 1, false};
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		char *end = NULL;
		unsigned long v = 0;

		errno = 0;
		if (c == 'n' || c == 'w' || c == 'u' || c == 'r') {
			v = strtoul(optarg, &end, 10);
		} else if (c == 's') {
			o->work_scale = strtod(optarg, &end);
		}
		if (end && (*end || end == optarg || errno || v > 10000000)) {
			fprintf(stderr, "route-planner: bad value '%s'\n", optarg);
			return 2;
		}
		switch (c) {
		case 'n':
			o->requests = (unsigned)v;
			break;
		case 'w':
			o->workers = (unsigned)v;
			break;
		case 'u':
			o->sink_us = (unsigned)v;
			break;
		case 'r':
			o->seed = (unsigned)v;
			break;
		case 's':
			break;
		case 't':
			o->timing = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !o->workers || o->workers > MAX_WORKERS || o->work_scale < 0 ||
	    o->work_scale > 1000) {
		fprintf(stderr,
			"route-planner: bad usage (1 to %d workers, work scale 0 to 1000)\n",
			MAX_WORKERS);
		return 2;
	}
	return 0;
}

static void print_timing(const struct timing *t)
{
	uint64_t n = t->calls ? t->calls : 1;

	fprintf(stderr,
		"timing calls=%llu compute_cpu_ns=%llu save_cpu_ns=%llu save_wall_ns=%llu "
		"restore_cpu_ns=%llu restore_wall_ns=%llu region_cpu_ns=%llu region_wall_ns=%llu\n",
		(unsigned long long)t->calls, (unsigned long long)(t->compute_cpu / n),
		(unsigned long long)(t->save_cpu / n), (unsigned long long)(t->save_wall / n),
		(unsigned long long)(t->restore_cpu / n), (unsigned long long)(t->restore_wall / n),
		(unsigned long long)(t->region_cpu / n), (unsigned long long)(t->region_wall / n));
}

int main(int argc, char **argv)
{
	pthread_t workers[MAX_WORKERS], writer;
	struct planner pl = {0};
	struct options opt;
	unsigned started = 0;
	int ret = parse_options(argc, argv, &opt);

	if (ret) {
		return ret;
	}
	pl.opt = &opt;
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.done, NULL);
	ret = 1;
	if (map_build(&pl.map, opt.seed)) {
		fprintf(stderr, "route-planner: out of memory\n");
		goto destroy_lock;
	}
	pl.reqs = requests_make(&pl.map, opt.requests, opt.seed);
	pl.results = calloc(opt.requests ? opt.requests : 1, sizeof(*pl.results));
	pl.ready = calloc(opt.requests ? opt.requests : 1, sizeof(*pl.ready));
	if (!pl.reqs || !pl.results || !pl.ready) {
		fprintf(stderr, "route-planner: out of memory\n");
		goto free_planner;
	}
	if (pthread_create(&writer, NULL, writer_main, &pl)) {
		fprintf(stderr, "route-planner: cannot start the writer\n");
		goto free_planner;
	}
	while (started < opt.workers &&
	       !pthread_create(&workers[started], NULL, worker_main, &pl)) {
		started++;
	}
	if (!started) {
		/* the writer would wait for ever: nothing can plan */
		fprintf(stderr, "route-planner: cannot start a worker\n");
		exit(1);
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(workers[i], NULL);
	}
	pthread_join(writer, NULL);
	if (opt.timing) {
		print_timing(&pl.timing);
	}
	ret = 0;
free_planner:
	free(pl.ready);
	free(pl.results);
	free(pl.reqs);
	map_free(&pl.map);
destroy_lock:
	pthread_cond_destroy(&pl.done);
	pthread_mutex_destroy(&pl.lock);
	return ret;
}
