/* SPDX-License-Identifier: MIT */
/* What the files of whatif/ share: the sweep runner (sweep.c) and the writers' helpers. */
#ifndef DPS_WHATIF_WHATIF_INTERNAL_H
#define DPS_WHATIF_WHATIF_INTERNAL_H

#include <dps/knobs.h>
#include <glib.h>

#include "machine-load.h"
#include "whatif.h"

struct dps_steps;

/* How the sweep runs the stub. */
struct whatif_runner {
	const char *stub;	 /* borrowed: the built stub */
	const char *calibration; /* borrowed: its calibration file */
	const char *mode;	 /* borrowed: --mode, NULL: the stub's default */
	const char *err_path;	 /* borrowed: where the stub's stderr goes (the last run's) */
	const uint64_t *ids;	 /* borrowed: the component */
	size_t n_ids;
	unsigned repeat;
	uint64_t seed;
	struct dps_steps *steps; /* borrowed: the study's, told how many runs are done */
	/* the SUT time's window; times_path (borrowed): where the stub writes its threads' times
	 * (DPS_THREAD_TIMES) when an edge is a thread's, else NULL */
	struct whatif_edge from, to;
	const char *times_path;
	/* in situ (insitu.c): the real program instead of the stub, NULL-terminated; regions
	 * ("a,b") and the SSF recording its points restore from (borrowed) */
	const char *const *command;
	const char *regions, *ssf_path;
	struct dps_quiet_wait *wait; /* borrowed: --wait-quiet, NULL: none */
	enum whatif_sweep sweep;     /* what a busy point's scale multiplies */
	const char *cache_costs;     /* borrowed: DPS_CACHE_COSTS for every run, NULL: none */
};

/*
 * The stub's knobs for point p of a study of the threads ids (n_ids): none for the original,
 * --thread-idle ID for the idle stub, --thread-scale ID=SCALE for the others; sweeping the
 * misses, --cache-outcome for every point and --thread-cache-scale ID=SCALE for the busy
 * ones. Added to k (dps_knobs_default'ed by the caller, who frees it with dps_knobs_fini).
 * The one builder of the sweep's runs (sweep.c) and of the points replayed for their
 * timelines (timelines.c).
 */
enum dps_status whatif_point_knobs(const uint64_t *ids, size_t n_ids, enum whatif_sweep sweep,
				   const struct whatif_point *p, struct dps_knobs *k);

struct dps_actset;

/*
 * misses.c, --sweep misses: r->misses from the runs of the component's threads (mark: the
 * set's threads in it) that carry cache figures, and the quiet costs of their footprints
 * measured here. DPS_OK; DPS_ERR_INVAL when no run of the component has figures (diag: how to
 * put a capture's on them); DPS_ERROR when the costs cannot be measured (diag).
 */
enum dps_status whatif_misses_prepare(struct whatif_result *r, const struct dps_actset *set,
				      const bool *mark, struct dps_diag *diag);
/* r's costs as DPS_CACHE_COSTS's text (g_free), NULL when the sweep is not the misses'. */
char *whatif_misses_costs_text(const struct whatif_result *r);
/* The component's CPU time with its misses x times the recorded ones (x = 1: busy_ns). */
uint64_t whatif_misses_t_psf(const struct whatif_result *r, double x);
void whatif_misses_fini(struct whatif_misses *m);
/* The busy sweep's scale at a t_PSF of t_ns (the knee's): t_ns / busy_ns sweeping the CPU
 * time; the misses' scale whose t_PSF it is, sweeping the misses (their cost linear in it). */
double whatif_scale_at(const struct whatif_result *r, double t_ns);

/* In situ: the command, its regions and where the recording goes (all borrowed). */
struct whatif_insitu {
	const char *const *command; /* NULL-terminated */
	const char *regions;	    /* "a,b" */
	const char *work;	    /* record.out and record.err go here */
	const char *ssf_path;
};

/* What dps whatif -- CMD refuses before any work: no command, no or bad --region, the
 * replay's options. DPS_OK or DPS_ERR_INVAL (diag). */
enum dps_status whatif_insitu_check(const struct whatif_options *o, struct dps_diag *diag);
/* The regions given, once each, in their order: "a,b" (g_free). */
char *whatif_insitu_regions(const struct whatif_options *o);

/*
 * Runs the command once in original mode with SSF recording, and sums the named regions'
 * recorded CPU time into *busy_ns (*n_regions_run: how many times they ran). DPS_OK;
 * DPS_ERROR when the run fails (diag: its status and last message); DPS_ERR_INVAL when the
 * command cannot be started, wrote no recording or ran none of the regions (diag lists the
 * regions it ran).
 */
enum dps_status whatif_insitu_record(const struct whatif_insitu *in, uint64_t *busy_ns,
				     uint64_t *n_regions_run, struct dps_diag *diag);
/* env with point p's stub settings for the real program (g_environ_setenv: env is taken). */
char **whatif_insitu_env(char **env, const struct whatif_runner *run, const struct whatif_point *p);

struct dps_load;
struct dps_actset;
struct analyzer_result;

/* The threads the options may name (component.c): a set's, or an analysis's before its set is
 * written; n of them, ids and comms owned (whatif_names_fini), the comms' strings borrowed
 * from the set or the result (NULL: none). */
struct whatif_names {
	size_t n;
	uint64_t *ids;
	const char **comms;
};

struct whatif_names whatif_names_of_set(const struct dps_actset *set);
struct whatif_names whatif_names_of_result(const struct analyzer_result *res);
void whatif_names_fini(struct whatif_names *nm);
/*
 * Whether every thread o names (--thread, --thread-comm) and r's window edges name is one of nm's
 * (where: the set or trace they are of, for the message). DPS_OK, or DPS_ERR_INVAL with diag
 * naming the first that is not and listing those there are.
 */
enum dps_status whatif_check_names(const struct whatif_options *o, const struct whatif_result *r,
				   const struct whatif_names *nm, const char *where,
				   struct dps_diag *diag);

/*
 * Runs every repetition of the n points (their kind and scale set, runs_ns empty) in one
 * random order and fills each point's runs, median, min, max and load figures, and
 * *sweep_load with the machine's load over all the runs. Returns DPS_OK, DPS_ERROR when a stub
 * run fails (diag: its status and last message).
 */
enum dps_status whatif_sweep_run(const struct whatif_runner *run, struct whatif_point *const *pts,
				 size_t n, struct dps_load *sweep_load, struct dps_diag *diag);

/* The stub's argument vector for point p (g_ptr_array_free(v, TRUE) frees it, NULL-ended):
 * the point's knobs, and the runner's own (its calibration, quiet, the mode). */
GPtrArray *whatif_stub_argv(const struct whatif_runner *run, const struct whatif_point *p);

/* One run measured from outside (whatif_run_one): its SUT time, /proc/stat before and after,
 * the stub's CPU time (rusage) to take out of the others' share. */
struct whatif_one {
	uint64_t sut_ns;
	struct dps_load_sample before, after;
	uint64_t child_cpu_ns;
};

/*
 * Runs point p once, timed from outside exactly as the sweep times each repetition (sweep.c:
 * the local sweep and a plan's runs, plan.c, both run through it); envp is the environment
 * the stub gets (the sweep's, LTTNG_UST_REGISTER_TIMEOUT set). Returns DPS_OK with *one
 * filled; DPS_ERROR when the stub cannot start, fails or its window cannot be read (diag: its
 * status and last message).
 */
enum dps_status whatif_run_one(const struct whatif_runner *run, char **envp,
			       const struct whatif_point *p, struct whatif_one *one,
			       struct dps_diag *diag);
/* One repetition of one point: pt indexes the sweep's points, rep counts from 0. */
struct whatif_job {
	size_t pt;
	unsigned rep;
};

/* Every repetition of n points in the order seed gives them (g_free): the local sweep's order
 * and a plan's run list are this one list. */
struct whatif_job *whatif_run_order(size_t n, unsigned repeat, uint64_t seed);
/* Whether a point whose runs' load (summed) is point ran under load, given the whole sweep's:
 * a point's own runs shorter than half a second must agree with the sweep's figure. */
bool whatif_point_loaded(const struct dps_load *point, const struct dps_load *sweep);
/* Median, min, max and noise of a point's n_runs (1 at least). */
void whatif_point_summarize(struct whatif_point *p);

/* points.c: the busy sweep's count of points (0: an empty range). */
size_t whatif_sweep_count(const struct whatif_options *o);

/* The points one study runs (points.c): pts (owned array, borrowed points of the result),
 * and the busy points at scale 0 and 1 when the sweep has them (measured once, copied into
 * the flat and original stubs once the runs are in). */
struct whatif_point_list {
	struct whatif_point **pts;
	size_t n;
	struct whatif_point *at0, *at1;
};

/* r's points (r->points, flat, idle, original; busy_ns and in_situ set) made from o's stubs
 * and range, into pl (whatif_point_list_fini). */
void whatif_points_make(const struct whatif_options *o, struct whatif_result *r,
			struct whatif_point_list *pl);
/* Once the runs are in: the shared points copied, the points under load counted. */
void whatif_points_done(struct whatif_result *r, const struct whatif_point_list *pl);
void whatif_point_list_fini(struct whatif_point_list *pl); /* accepts an empty one */
/* The fit on the busy points that have runs (UNCLEAR with the reason when there are none). */
void whatif_fit_result(struct whatif_result *r);
/* whatif.txt, whatif.json and report.html into dir. DPS_OK, or DPS_ERR_IO (diag). */
enum dps_status whatif_write_outputs(const struct whatif_result *r, const char *dir,
				     struct dps_diag *diag);
/* whatif.c: whether dir is a dps whatif output (its marker file), replaceable whole. */
bool whatif_is_output_dir(const char *dir);

/* --timelines (timelines.c): which points are replayed recorded, and how. */
struct whatif_timelines_job {
	struct whatif_result *result; /* borrowed: the points, the component */
	const char *list;	      /* borrowed: "all" or the comma-separated points */
	const char *work;	      /* borrowed: the work directory (OUTDIR's temporary) */
	const char *outdir;	      /* borrowed: OUTDIR, what work becomes */
	const char *trace, *set_dir, *calibration, *mode, *comm; /* borrowed */
	int64_t pid, tid, min_block_ns;
	bool follow_children, strict;
	struct dps_steps *steps;     /* borrowed: the study's, told how many points are done */
	struct dps_quiet_wait *wait; /* borrowed: --wait-quiet, NULL: none */
};

/*
 * Whether every item of list is "all", "flat", "idle", "original" or a scale of the sweep
 * (from + k x step up to to, n points): 0, or -1 with the first bad item in *bad (g_free).
 */
int whatif_timelines_check(const char *list, double from, double to, double step, size_t n,
			   char **bad);
/* Replays the listed points into work/timelines/ and sets their timelines; DPS_OK, or the
 * failed replay's status (diag names the point). */
enum dps_status whatif_timelines_run(const struct whatif_timelines_job *job, struct dps_diag *diag);

/* The writers' sentences (output.c), each array of g_strdup'ed strings freed with
 * g_ptr_array_free(v, TRUE): the paper's conclusions, the caveats; the points run under load
 * as "scale 0.30, idle" (g_free), NULL when none. */
GPtrArray *whatif_conclusions(const struct whatif_result *r);
GPtrArray *whatif_caveats(const struct whatif_result *r);
char *whatif_loaded_points(const struct whatif_result *r);
/* answer.c: the answer in one sentence; the recorded program against the stub at 1x in one
 * (NULL when the recorded time is unknown). g_free both. */
char *whatif_answer(const struct whatif_result *r);
/* candidates.c: r->candidates from the analysis (r->ids already set). */
void whatif_fill_candidates(struct whatif_result *r, const struct analyzer_result *ares);
/* The component's share of the recorded critical path in one sentence (g_free), NULL
 * without candidates. */
char *whatif_critical_line(const struct whatif_result *r);
char *whatif_gap(const struct whatif_result *r);

/*
 * The doubts a set and its analysis show before any stub runs (doubts.c): recorded wake-ups
 * between the component (mark: the set's threads in it) and another thread whose order its
 * speed may change, threads that look like they share work through memory, synchronization
 * the probe saw and no action re-enacts. ares: the trace's analysis (its pins, timelines and
 * what the probe saw), NULL for a set input (the set's own waits are read then).
 */
void whatif_doubts_before(struct whatif_result *r, const struct dps_actset *set,
			  const struct analyzer_result *ares, const bool *mark);
/* After the sweep: the stub at scale 1 against the recorded program; then the answer's kind. */
void whatif_doubts_after(struct whatif_result *r);
void whatif_doubts_fini(struct whatif_result *r);
/* One more doubt (reason and way_out g_strdup'ed, taken). */
void whatif_doubt_add(struct whatif_result *r, enum whatif_doubt_kind kind, char *reason,
		      char *way_out);

/* ns as milliseconds with 3 decimals, into buf (32 bytes). */
const char *whatif_ms(double ns, char *buf, size_t len);

/* The last line of the file at path (a run's stderr), for a failure's message (g_free). */
char *whatif_last_line(const char *path);

/* plan.c: what --plan refuses (in situ, --timelines, no directory). DPS_OK or DPS_ERR_INVAL. */
enum dps_status whatif_plan_check(const struct whatif_options *o, struct dps_diag *diag);

/* What the plan is written from (all borrowed): the study's options and its result before
 * the runs, the work directory (OUTDIR's temporary) that holds the stub and the calibration,
 * and the set to copy into it (NULL: work/set is there already, an analyzed trace's). */
struct whatif_plan_job {
	const struct whatif_options *opts;
	struct whatif_result *result;
	const char *work;
	const struct dps_actset *set;
};

/* The plan file, results/, nodes/ and the wrappers into job->work. DPS_OK, DPS_ERR_IO (diag). */
enum dps_status whatif_plan_write(const struct whatif_plan_job *job, struct dps_diag *diag);

/* A plan read back (whatif_plan_load): the options that make its points again, the result
 * as it was before the runs (pre: owned), the calibration's fingerprint and loop rate, and the
 * runs in order (owned). */
struct whatif_plan {
	char *dir;
	struct whatif_options o; /* from, to, step, stubs, repeat, seed, mode, wait_quiet_s */
	char *window_from, *window_to;
	struct whatif_result pre;
	char *fingerprint;
	double loops_per_us;
	size_t n_points;
	struct whatif_job *runs;
	size_t n_runs, n_read;
};

/* DPS_OK, or DPS_ERR_INVAL with diag "DIR/plan:LINE: expected ..."; whatif_plan_fini always. */
enum dps_status whatif_plan_load(const char *dir, struct whatif_plan *p, struct dps_diag *diag);
void whatif_plan_fini(struct whatif_plan *p);
/* The first 16 hex digits of the file's SHA-256 (g_free); NULL when it cannot be read. */
char *whatif_plan_fingerprint(const char *path);

#endif /* DPS_WHATIF_WHATIF_INTERNAL_H */
