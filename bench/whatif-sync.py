#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dps whatif checked against real programs (issue 13, item 2; issue 24, item 4); driven by
bench/whatif-sync.sh.

For each program of bench/sync/ and each of its variants (with dps's annotations; without them,
recorded with --sync; kernel: without them, recorded without --sync):
  1. the real sweep: the program run with its component's work scaled by S (--scale ID=S), for
     every S of the sweep, RUNS times each, all the runs of a program in one shuffled order; the
     makespan is the wall time from posix_spawn to wait4, read here on CLOCK_MONOTONIC;
  2. the recording: the program once at scale 1 under `dps record` (--sync when the build has
     it and the variant wants it), and `dps whatif TRACE --thread-comm COMPONENT --stub busy` over the
     same scales;
  3. the comparison: the error of dps's median against the real median per point, the worst,
     and the knee of each curve, both read by dps whatif's own fit (bench/sync/fit-curve.c);
     the verdict: met, unclear (a doubt, or the noise: dps whatif answered "unclear") or
     WRONG.
Writes the results page, an SVG per program and variant (both curves) and keeps dps whatif's
HTML report beside it. --real-only runs step 1 alone and prints its medians. See doc/whatif.md,
"Checked against real programs".
"""
import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

T0 = time.monotonic()
STEP_TIMEOUT = 1800

# The programs: binary, the component (its --scale id and its thread name, what dps whatif
# --thread-comm selects), the line the program prints, whether it was held out (never used to tune
# dps or the bench), and the variants it has (VARIANTS; "annotated" only where an annotation
# describes its primitive). Optional: "args" (the program's own options), "record_args" (more
# `dps record` options) and "whatif_args" (more `dps whatif` options, e.g. a selection).
ALL = ["annotated", "plain", "kernel"]
NO_ANNOT = ["plain", "kernel"]
PROGRAMS = {
    "pipeline": {
        "bin": "dps-sync-pipeline", "id": 2, "comm": "stage2", "held_out": False,
        "variants": ALL,
        "line": r"^sync-pipeline: items=\d+ sum=\d+ annot=(dps|none)$",
        "what": "three stages, two bounded queues (capacity 4) under a mutex and two condition "
                "variables each, 300 items; work per item 0.5, 1 and 0.25 units",
        "component": "the middle stage (stage2)",
    },
    "pool": {
        "bin": "dps-sync-pool", "id": 1, "comm": "worker1", "held_out": False,
        "variants": ALL,
        "line": r"^sync-pool: tasks=\d+ sum=\d+ annot=(dps|none)$",
        "what": "main prepares 64 tasks of uneven sizes (2 to 14 units) into a bounded shared "
                "queue (capacity 4, one mutex, two condition variables); 2 workers take them",
        "component": "one worker (worker1)",
    },
    "forkjoin": {
        "bin": "dps-sync-forkjoin", "id": 1, "comm": "part1", "held_out": False,
        "variants": ALL,
        "line": r"^sync-forkjoin: threads=\d+ rounds=\d+ check=[0-9a-f]+ annot=(dps|none)$",
        "what": "2 threads, 60 rounds separated by a pthread barrier; each thread's work in a "
                "round (1.25 to 8.75 units) depends on the values of the round before, so the "
                "last to arrive changes from round to round and with the scale",
        "component": "thread 1 (part1)",
    },
    "timedwait": {
        "bin": "dps-sync-timedwait", "id": 1, "comm": "worker1", "held_out": True,
        "variants": ALL,
        "line": r"^sync-timedwait: chunks=\d+ annot=(dps|none) timeouts=\d+$",
        "what": "main waits for its 2 workers' chunks with pthread_cond_timedwait and a 300 ms "
                "timeout (as xz's main thread), writes each chunk out, updates its progress on a "
                "timeout; worker0 6 chunks of 40 units, worker1 3 chunks of 140 units",
        "component": "worker 1 (worker1)",
    },
    "ticks": {
        "bin": "dps-sync-timedwait", "id": 1, "comm": "worker1", "held_out": True,
        "variants": ALL,
        "args": ["--timeout-ms", "40"],
        "line": r"^sync-timedwait: chunks=\d+ annot=(dps|none) timeouts=\d+$",
        "what": "timedwait with a 40 ms timeout (`--timeout-ms 40`): main's waits time out "
                "several times per chunk of worker1 before its signal ends one, a loop of ticks "
                "as xz's main thread's while a worker compresses a block",
        "component": "worker 1 (worker1)",
    },
    # Issue 24: one synchronization primitive each, written as real code uses it.
    "barrier": {
        "bin": "dps-sync-barrier", "id": 1, "comm": "worker1", "held_out": False,
        "variants": ALL,
        "line": r"^sync-barrier: rounds=\d+ check=[0-9a-f]+ annot=(dps|none)$",
        "what": "main and 2 workers on one pthread barrier of 3 parties, crossed twice a round "
                "for 50 rounds: main prepares the round alone (2 units), the workers process it "
                "(worker0 3.6 to 4.4 units, worker1 3 to 7 units depending on the data)",
        "component": "worker 1 (worker1)",
    },
    "sempool": {
        "bin": "dps-sync-sempool", "id": 1, "comm": "worker1", "held_out": False,
        "variants": ALL,
        "line": r"^sync-sempool: workers=\d+ slots=\d+ tasks=\d+ sum=\d+ annot=(dps|none)$",
        "what": "3 workers serve 48 requests each, 3 ms apart (a sleep); the main part of a "
                "task inside one of 2 slots of a POSIX semaphore (sem_wait, work, sem_post), "
                "0.25 units of bookkeeping outside; tasks of 1.5 to 4.5 units (worker0, "
                "worker2) and 2 to 6 units (worker1)",
        "component": "worker 1 (worker1)",
    },
    "rwcache": {
        "bin": "dps-sync-rwcache", "id": 2, "comm": "writer", "held_out": False,
        "variants": NO_ANNOT,
        "line": r"^sync-rwcache: readers=\d+ lookups=\d+ refreshes=\d+ annot=none$",
        "what": "a cache under glibc's default pthread_rwlock_t (readers preferred): 2 readers "
                "of 200 requests 1 ms apart (a sleep; 0.4 units under the read lock, 0.6 "
                "outside), one writer of 40 refreshes, each after a 4 ms sleep (7 units "
                "outside, 1 under the write lock); no annotation exists for it",
        "component": "the writer (writer)",
    },
    "omp-static": {
        "bin": "dps-sync-omp-static", "id": 1, "comm": "omp1", "held_out": False,
        "variants": NO_ANNOT,
        "line": r"^sync-omp-static: rounds=\d+ items=\d+ check=[0-9a-f]+ annot=none$",
        "what": "OpenMP (libgomp), one parallel region of 2 threads, 40 rounds: the master's "
                "serial part (1 unit, `omp master` and a barrier), `omp for schedule(static)` "
                "over 16 items of a triangular loop (thread 1's half 1.4 times thread 0's), an "
                "`omp critical` merge per thread",
        "component": "OpenMP thread 1 (omp1)",
    },
    "omp-dynamic": {
        "bin": "dps-sync-omp-dynamic", "id": 1, "comm": "omp1", "held_out": False,
        "variants": NO_ANNOT,
        "line": r"^sync-omp-dynamic: rounds=\d+ items=\d+ check=[0-9a-f]+ annot=none$",
        "what": "OpenMP (libgomp), 40 rounds of serial code (1 unit) and a `parallel for "
                "schedule(dynamic, 1) num_threads(2)` over 12 items of 0.4 to 2.6 units with a "
                "reduction: a faster thread takes more of the items",
        "component": "OpenMP thread 1 (omp1)",
    },
    "cxxpipe": {
        "bin": "dps-sync-cxxpipe", "id": 2, "comm": "stage2", "held_out": False,
        "variants": ALL,
        "line": r"^sync-cxxpipe: items=\d+ sum=\d+ annot=(dps|none)$",
        "what": "C++17: three std::thread stages, two bounded std::deque queues (capacity 4) "
                "under a std::mutex and two std::condition_variable each, 300 items; work per "
                "item 1, 0.8 and 0.1 units",
        "component": "the middle stage (stage2)",
    },
    "pipethreads": {
        "bin": "dps-sync-pipethreads", "id": 1, "comm": "consumer", "held_out": False,
        "variants": NO_ANNOT,
        "line": r"^sync-pipethreads: records=\d+ check=[0-9a-f]+ annot=none$",
        "what": "two threads through a pipe(2): the producer computes 400 records of 256 bytes "
                "(0.7 units each) and writes them, the consumer reads each whole and computes "
                "on it (1 unit)",
        "component": "the consumer thread (consumer)",
    },
    "pipeprocs": {
        "bin": "dps-sync-pipeprocs", "id": 1, "comm": "consumer", "held_out": False,
        "variants": NO_ANNOT,
        "whatif_args": ["--follow-children"],
        "line": r"^sync-pipeprocs: records=\d+ child=ok annot=none$",
        "what": "two processes through a pipe(2): the parent forks a child (no exec), writes "
                "400 records of 256 bytes (1 unit each), the child reads and computes on each "
                "(0.8 units); the parent waits for the child (`dps whatif --follow-children`)",
        "component": "the child process (consumer)",
    },
    "semring": {
        "bin": "dps-sync-semring", "id": 1, "comm": "consumer", "held_out": True,
        "variants": ALL,
        "line": r"^sync-semring: items=\d+ sum=\d+ annot=(dps|none)$",
        "what": "the classic bounded buffer: a producer and a consumer, a ring of 8 slots under "
                "two POSIX semaphores (empty = 8, full = 0), 400 items; 0.6 units to produce "
                "one, 1 to consume it",
        "component": "the consumer (consumer)",
    },
    "atomicpool": {
        "bin": "dps-sync-atomicpool", "id": 1, "comm": "worker1", "held_out": True,
        "variants": ALL,
        "line": r"^sync-atomicpool: items=\d+ sum=\d+ annot=(dps|none)$",
        "what": "2 workers take 80 items of 1.25 to 8.75 units from one atomic counter "
                "(atomic_fetch_add, never blocking); worker0 first builds its own index (240 "
                "units)",
        "component": "worker 1 (worker1)",
    },
    "ompcrit": {
        "bin": "dps-sync-ompcrit", "id": 0, "comm": "omp0", "held_out": True,
        "variants": NO_ANNOT,
        "line": r"^sync-ompcrit: rounds=\d+ items=\d+ check=[0-9a-f]+ annot=none$",
        "what": "OpenMP (libgomp), one parallel region of 2 threads, 40 rounds of `omp for "
                "schedule(static)` over 16 items (thread 1's half 1.2 times thread 0's), each "
                "item merged in an `omp critical` section (0.2 units)",
        "component": "OpenMP thread 0, the main thread (omp0)",
    },
    "barrier2": {
        "bin": "dps-sync-barrier2", "id": 1, "comm": "worker1", "held_out": True,
        "variants": ALL,
        "line": r"^sync-barrier2: rounds=\d+ check=[0-9a-f]+ annot=(dps|none)$",
        "what": "2 workers, 70 rounds ended by a pthread barrier; worker0 5 units a round, "
                "worker1 3 to 5 units depending on the round before's values; main only creates "
                "and joins them",
        "component": "worker 1 (worker1)",
    },
}
# The variants: which binary ("suffix"), and whether dps records it with --sync (the pthread
# wrapper and the condition-variable probe). "kernel" is the plain binary recorded with the
# kernel's events only: dps infers what it can from the scheduling and the futex syscalls.
VARIANTS = {
    "annotated": {"suffix": "", "label": "with annotations", "sync": True},
    "plain": {"suffix": "-plain", "label": "without annotations (automatic capture only: "
              "`dps record --sync`)", "sync": True},
    "kernel": {"suffix": "-plain", "label": "kernel events only (`dps record` without --sync, "
               "no annotations)", "sync": False},
}
TARGET_ERR = {"annotated": 3.0, "plain": 5.0, "kernel": 5.0}


def say(msg):
    print("whatif-sync [%6.1f s] %s" % (time.monotonic() - T0, msg), file=sys.stderr, flush=True)


class StepError(Exception):
    pass


def run_step(argv, log, stdout=None):
    """Runs one dps step; its stderr (and stdout unless given) go to LOG. Raises StepError."""
    with open(log, "ab") as lf:
        lf.write(("\n$ %s\n" % " ".join(argv)).encode())
        lf.flush()
        try:
            p = subprocess.run(argv, stdout=stdout if stdout is not None else lf, stderr=lf,
                               timeout=STEP_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise StepError("`%s` timed out after %d s (log %s)" %
                            (" ".join(argv[:3]), STEP_TIMEOUT, log))
    if p.returncode != 0:
        tail = open(log, errors="replace").read().strip().splitlines()[-3:]
        raise StepError("`%s` failed with status %d (log %s): %s" %
                        (" ".join(argv[:3]), p.returncode, log, " | ".join(tail)))


# ---------------------------------------------------------------- the real program, timed

def cpu_jiffies():
    """(busy, steal) jiffies of the whole machine, from /proc/stat's cpu line."""
    f = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = f[:7]
    steal = f[7] if len(f) > 7 else 0
    return user + nice + system + irq + softirq + steal, steal


def timed_run(argv, env, out_path, err_path):
    """One run of the real program: (wall ns from spawn to exit, exit status, others' share of
    the CPUs in %, steal in %). The parent's clock, as dps whatif times its stubs."""
    hz = os.sysconf("SC_CLK_TCK")
    ncpu = os.cpu_count() or 1
    acts = [(os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
            (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
    busy0, steal0 = cpu_jiffies()
    t0 = time.monotonic_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=acts)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.monotonic_ns()
    busy1, steal1 = cpu_jiffies()
    wall_s = (t1 - t0) / 1e9
    child_s = ru.ru_utime + ru.ru_stime
    others = max(0.0, (busy1 - busy0) / hz - child_s) / (wall_s * ncpu) * 100
    steal = (steal1 - steal0) / hz / (wall_s * ncpu) * 100
    return t1 - t0, os.waitstatus_to_exitcode(status), others, steal


def noise_of(runs):
    """dps whatif's per-point noise: 1.4826 x the MAD, (max - min) / 2 under 3 runs."""
    if len(runs) < 3:
        return (max(runs) - min(runs)) / 2
    med = statistics.median(runs)
    return 1.4826 * statistics.median(abs(r - med) for r in runs)


def summarize(runs, others):
    med = statistics.median(runs)
    return {"median": med, "min": min(runs), "max": max(runs), "runs_ns": runs,
            "noise_ns": noise_of(runs), "others_pct": statistics.median(others),
            "loaded": statistics.median(others) > 10}


def real_sweep(name, prog, bins, scales, extra, rng, retries=0):
    """Every (binary, scale, repetition) of one program in one shuffled order, so a drift of
    the machine spreads over the points instead of bending a curve. BINS maps a key (the
    variants' binary suffix: two variants of one binary share its runs) to the binary. With
    RETRIES, a run during which other processes used over 10 % of the CPUs is run again, up to
    RETRIES times (a shared machine's quiet moments; --real-only)."""
    env = dict(os.environ)
    # dps whatif starts its stubs so; a UST-linked real program (the annotated variant) gets the
    # same, or a running session daemon would add its registration wait to one side only.
    env.setdefault("LTTNG_UST_REGISTER_TIMEOUT", "0")
    jobs = [(k, s, r) for k in bins for s in scales for r in range(ARGS.runs)]
    rng.shuffle(jobs)
    runs = {(k, s): [] for k in bins for s in scales}
    others = {(k, s): [] for k in bins for s in scales}
    out = os.path.join(ARGS.work, "%s.out" % name)
    err = os.path.join(ARGS.work, "%s.err" % name)
    for i, (k, s, _) in enumerate(jobs):
        argv = [bins[k], "--scale", "%d=%g" % (prog["id"], s)] + extra
        for _ in range(retries + 1):
            ns, code, oth, _ = timed_run(argv, env, out, err)
            if oth <= 10 or code != 0:
                break
        text = open(out, errors="replace").read().strip()
        if code != 0 or not re.match(prog["line"], text):
            raise StepError("%s exited %d, printed %r (stderr: %s)" %
                            (" ".join(argv), code, text,
                             open(err, errors="replace").read().strip()[-300:]))
        runs[(k, s)].append(ns)
        others[(k, s)].append(oth)
        if (i + 1) % 20 == 0:
            say("%s: %d/%d real runs" % (name, i + 1, len(jobs)))
    return {k: {str(s): summarize(runs[(k, s)], others[(k, s)]) for s in scales}
            for k in bins}


def annot_of(binary, extra):
    """What the variant's binary says about its annotations ("dps" or "none")."""
    p = subprocess.run([binary, "--scale", "0=1"] + extra, stdout=subprocess.PIPE, text=True,
                       timeout=STEP_TIMEOUT)
    m = re.search(r"annot=(\w+)", p.stdout)
    return m.group(1) if m else "?"


# ---------------------------------------------------------------- dps's side

def record_supports_sync():
    p = subprocess.run([ARGS.dps, "record", "--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return "--sync" in p.stdout


def predict(name, prog, variant, binary, extra, calib, use_sync):
    """Records the program once at scale 1 and sweeps it with dps whatif. Returns its JSON."""
    d = os.path.join(ARGS.work, "%s-%s" % (name, variant))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    log = os.path.join(d, "steps.log")
    trace = os.path.join(d, "trace")
    cmd = [ARGS.dps, "record", "-q", "-o", trace] + (["--sync"] if use_sync else [])
    cmd += prog.get("record_args", [])
    run_step(cmd + ["--", binary, "--scale", "%d=1" % prog["id"]] + extra, log)
    html = os.path.join(ARGS.plots, "%s-%s-whatif.html" % (name, variant))
    out = os.path.join(d, "whatif.json")
    with open(out, "wb") as f:
        run_step([ARGS.dps, "whatif", trace, "--thread-comm", prog["comm"], "--stub", "busy",
                  "--from", str(ARGS.scales[0]), "--to", str(ARGS.scales[-1]),
                  "--step", str(ARGS.step), "--repeat", str(ARGS.repeat), "--calibration", calib,
                  "--seed", "1", "-q", "--json", "--html", html] + prog.get("whatif_args", []),
                 log, stdout=f)
    with open(out) as f:
        return json.load(f)


def fit_curve(points, busy_ns):
    """dps whatif's fit on (scale, summary) points, x in t_PSF ns = scale x busy_ns."""
    lines = []
    for s, p in points:
        spread = "%.0f" % p["noise_ns"] if len(p["runs_ns"]) > 1 else "-"
        lines.append("%.0f %.0f %s" % (s * busy_ns, p["median"], spread))
    r = subprocess.run([ARGS.fit], input="\n".join(lines) + "\n", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return {"kind": "unclear", "knee": False, "t_limit_ns": None,
                "reason": r.stderr.strip()}
    return json.loads(r.stdout)


def dps_reading(pred):
    """What dps whatif's fit made of its curve: "fit_kind" when the JSON has it (a dps that can
    answer "unclear" keeps its fit's reading there), else "kind"."""
    return pred.get("fit_kind") or pred["kind"]


def unclear_reasons(pred):
    """[(reason, way out)] when dps whatif answered "unclear", else []. A dps without the
    "unclear" list answers so only when its fit refused: its fit_reason is the reason."""
    if pred.get("kind") != "unclear":
        return []
    items = pred.get("unclear") or []
    if not items:
        return [(pred.get("fit_reason", "-"), None)]
    return [(u.get("reason", "-"), u.get("way_out")) for u in items]


VERDICTS = ("met", "unclear: a doubt", "unclear: noise", "WRONG")


def verdict_of(variant, res):
    """"met" (error and knee targets met), "unclear: a doubt" (dps said what the set holds
    that the speed would move), "unclear: noise" (dps's fit could not read its curve), or
    "WRONG" (a confident answer whose worst error or knee misses its target)."""
    c = res["cmp"]
    if res["whatif"].get("kind") == "unclear":
        return "unclear: a doubt" if res["whatif"].get("unclear") else "unclear: noise"
    wst = c["worst"]
    err_ok = wst is not None and abs(wst["err_pct"]) <= TARGET_ERR[variant]
    return "met" if err_ok and c["knee_ok"] else "WRONG"


def compare(real, pred):
    """Per point errors and both knees, for one program and variant."""
    busy = pred["busy_ns"]
    by_scale = {round(p["scale"], 6): p for p in pred["points"]}
    rows = []
    for s in ARGS.scales:
        r = real[str(s)]
        p = by_scale.get(round(s, 6))
        if p is None:
            continue
        pm = p["t_sut_ns"]["median"]
        rows.append({"scale": s, "real": r, "pred": {
            "median": pm, "min": p["t_sut_ns"]["min"], "max": p["t_sut_ns"]["max"],
            "noise_ns": p.get("noise_ns", 0), "loaded": p.get("loaded", False),
            "others_pct": p.get("others_pct", 0)},
            "err_pct": (pm - r["median"]) / r["median"] * 100})
    real_fit = fit_curve([(row["scale"], row["real"]) for row in rows], busy)
    real_knee = (real_fit["t_limit_ns"] / busy if real_fit.get("knee") and busy else None)
    dps_knee = pred.get("t_limit_scale")
    # The curve's own reading: when dps answers "unclear", fit_kind (a newer dps) still says
    # what its fit saw; the knees are compared on that.
    reading = dps_reading(pred)
    if real_knee is not None and dps_knee is not None:
        knee_ok = abs(real_knee - dps_knee) <= ARGS.step + 1e-9
        knee_text = "%.2f vs %.2f: %s" % (real_knee, dps_knee,
                                          "within one step" if knee_ok else "MISSED")
    elif real_fit["kind"] == reading and reading in ("total", "none"):
        knee_ok = True
        knee_text = "no knee in either (both %s)" % reading
    else:
        knee_ok = False
        knee_text = "real %s%s, dps %s%s: MISSED" % (
            real_fit["kind"], "" if real_knee is None else " at %.2f" % real_knee,
            reading, "" if dps_knee is None else " at %.2f" % dps_knee)
    worst = max(rows, key=lambda row: abs(row["err_pct"])) if rows else None
    return {"rows": rows, "real_fit": real_fit, "real_knee": real_knee, "dps_knee": dps_knee,
            "knee_ok": knee_ok, "knee_text": knee_text,
            "worst": None if worst is None else {"scale": worst["scale"],
                                                  "err_pct": worst["err_pct"]}}


# ---------------------------------------------------------------- the figure

def svg_plot(title, cmp, path):
    """Both curves against the scale: real (blue) and dps (orange), min-max bars, knees."""
    w, h, ml, mr, mt, mb = 640, 390, 70, 20, 50, 50
    rows = cmp["rows"]
    ys = [v for row in rows for side in ("real", "pred") for v in (row[side]["min"],
                                                                   row[side]["max"])]
    lo, hi = min(ys) / 1e6, max(ys) / 1e6
    pad = (hi - lo) * 0.08 or 1
    lo, hi = max(0.0, lo - pad), hi + pad
    x0, x1 = 0.0, max(ARGS.scales) + 0.125
    sx = lambda s: ml + (s - x0) / (x1 - x0) * (w - ml - mr)
    sy = lambda ms: h - mb - (ms - lo) / (hi - lo) * (h - mt - mb)
    esc = lambda t: t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (w, h),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="16" font-size="13">%s</text>' % esc(title),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (ml, h - mb, w - mr, h - mb),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (ml, mt, ml, h - mb)]
    for s in ARGS.scales:
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (sx(s), h - mb + 16, s))
    o.append('<text x="%d" y="%d" text-anchor="middle">work scale of the component '
             '(t_PSF / t_busy)</text>' % ((ml + w - mr) // 2, h - 12))
    for i in range(6):
        v = lo + (hi - lo) * i / 5
        o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' %
                 (ml - 6, sy(v) + 4, "%.0f" % v if hi - lo > 20 else "%.1f" % v))
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' %
                 (ml, sy(v), w - mr, sy(v)))
    o.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">'
             'makespan ms (exec to exit)</text>' % ((mt + h - mb) // 2, (mt + h - mb) // 2))
    for side, color, dx in (("real", "#1f77b4", -3), ("pred", "#ff7f0e", 3)):
        pts = []
        for row in rows:
            p = row[side]
            x = sx(row["scale"]) + dx
            o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>' %
                     (x, sy(p["min"] / 1e6), x, sy(p["max"] / 1e6), color))
            pts.append("%.1f,%.1f" % (x, sy(p["median"] / 1e6)))
            o.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>' %
                     (x, sy(p["median"] / 1e6), color))
        o.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>' %
                 (" ".join(pts), color))
    for knee, color, label in ((cmp["real_knee"], "#1f77b4", "real knee"),
                               (cmp["dps_knee"], "#ff7f0e", "dps knee")):
        if knee is not None:
            o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" '
                     'stroke-dasharray="5,4"/>' % (sx(knee), mt, sx(knee), h - mb, color))
            o.append('<text x="%.1f" y="%d" fill="%s">%s %.2f</text>' %
                     (sx(knee) + 4, mt + 14 + (14 if label == "dps knee" else 0), color, label,
                      knee))
    o.append('<text x="%d" y="36" fill="#1f77b4">&#9679; real program (median, min-max)'
             '</text>' % ml)
    o.append('<text x="%d" y="36" fill="#ff7f0e">&#9679; dps whatif (median, min-max)'
             '</text>' % (ml + 240))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def draw(name, variant, cmp):
    svg_plot("%s, %s: makespan against %s's work scale" % (name, variant,
                                                          PROGRAMS[name]["comm"]),
             cmp, os.path.join(ARGS.plots, "%s-%s.svg" % (name, variant)))


# ---------------------------------------------------------------- the page

def ms(ns):
    return "-" if ns is None else "%.1f" % (ns / 1e6)


def write_report(d):
    out = []
    w = out.append
    meta = d["meta"]
    w("# dps whatif against real programs: synchronization\n")
    w("Produced by `bench/whatif-sync.sh` (%s UTC). Do not edit by hand. Method: "
      "doc/whatif.md, \"Checked against real programs\".\n" % meta["date"])
    w("- machine: %s, %d CPUs, %s; load average at start %s, at the end %s" %
      (meta["cpu"], meta["ncpu"], meta["platform"], meta["load0"], meta["load1"]))
    if meta.get("rerun"):
        w("- run again on this date (`MERGE=1`): %s" % meta["rerun"])
    w("- dps: `%s`; recording: %s" % (
        meta["dps"],
        "`dps record --sync` for the variants annotated and plain (synchronization captured "
        "by dps's probes), `dps record` for the variant kernel (the kernel's scheduling and "
        "futex events only)" if meta["sync"] else
        "`dps record` (this dps has no `--sync`: kernel scheduling and UST only, the replay "
        "re-enacts the recorded wake-ups)"))
    if meta["annotations"] is None:
        w("- annotations: the variant annotated was not measured (variants asked for: %s)" %
          ", ".join(meta.get("variants", [])))
    else:
        w("- annotations: %s" % (
            "<dps/annotate.h> found, the annotated variants link libdps" if meta["annotations"]
            else "this build's libdps has no <dps/annotate.h>: the annotated binaries are the "
            "same as the plain ones and were not run; only the variants without annotations "
            "are measured"))
    w("- real program: %d runs per point, makespan from posix_spawn to wait4 on the parent's "
      "CLOCK_MONOTONIC, every run of a program in one shuffled order (seed %d); dps whatif: "
      "`--stub busy --repeat %d`, one calibration, seed 1" %
      (d["runs"], d["seed"], d["repeat"]))
    w("- scales %s; program options `%s`" % (", ".join("%g" % s for s in d["scales"]),
                                             " ".join(d["extra"]) or "(defaults)"))
    w("- error = (dps median - real median) / real median; targets: worst |error| <= 3 %% with "
      "annotations, <= 5 %% without (plain, kernel); the knee (dps whatif's fit on each curve) "
      "within one step (%g)" % d["step"])
    w("- verdict: met (both targets met); unclear: a doubt (dps whatif answered `unclear` and "
      "said what its set holds fixed that the component's speed would move, and the way out: "
      "quoted below); unclear: noise (its fit could not read its own curve: the noise could hide "
      "a knee); WRONG (a confident answer that misses a target)\n")
    if d["failures"]:
        w("**Failures:**\n")
        for what, why in d["failures"]:
            w("- %s: %s" % (what, why))
        w("")
    for held, head in ((False, "Programs of the bench"),
                       (True, "Held out (never used to tune dps or this bench)")):
        names = [n for n in d["programs"] if PROGRAMS[n]["held_out"] == held]
        if not names:
            continue
        w("## Summary: %s\n" % head)
        w("| program | component | variant | worst error | at scale | error target | real knee "
          "| dps knee | knee target | loaded points (real, dps) | dps answer | verdict |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        counts = {v: 0 for v in VERDICTS}
        for n in names:
            for v, res in d["results"].get(n, {}).items():
                c = res["cmp"]
                wst = c["worst"]
                ok = wst is not None and abs(wst["err_pct"]) <= TARGET_ERR[v]
                n_real = sum(1 for row in c["rows"] if row["real"]["loaded"])
                n_dps = sum(1 for row in c["rows"] if row["pred"]["loaded"])
                verdict = verdict_of(v, res)
                counts[verdict] += 1
                w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d, %d of %d | %s | %s |" % (
                    n, PROGRAMS[n]["comm"], v,
                    "-" if wst is None else "%+.1f %%" % wst["err_pct"],
                    "-" if wst is None else "%g" % wst["scale"],
                    "met" if ok else "MISSED (%.0f %%)" % TARGET_ERR[v],
                    c["real_fit"]["kind"] + ("" if c["real_knee"] is None
                                             else " %.2f" % c["real_knee"]),
                    dps_reading(res["whatif"]) + ("" if c["dps_knee"] is None
                                                  else " %.2f" % c["dps_knee"]),
                    "met" if c["knee_ok"] else "MISSED", n_real, n_dps, len(c["rows"]),
                    res["whatif"].get("kind", "-"), verdict))
        w("")
        w("%d met, %d unclear with a doubt, %d unclear for the noise, %d wrong (of %d).\n" % (
            counts["met"], counts["unclear: a doubt"], counts["unclear: noise"],
            counts["WRONG"], sum(counts.values())))
        w("A loaded point ran while other processes used over 10 % of the CPUs: its figures "
          "measure that machine as much as the program.\n")
    for n in d["programs"]:
        prog = PROGRAMS[n]
        w("## %s%s\n" % (n, " (held out)" if prog["held_out"] else ""))
        w("%s. Component: %s, `--scale %d=S` in the real program, `dps whatif --thread-comm %s` on "
          "the recording.\n" % (prog["what"][0].upper() + prog["what"][1:], prog["component"],
                                prog["id"], prog["comm"]))
        for v, res in d["results"].get(n, {}).items():
            c = res["cmp"]
            wi = res["whatif"]
            w("### %s, %s\n" % (n, VARIANTS[v]["label"]))
            w("Recorded once at scale 1: t_busy of %s %s ms; the recorded process %s ms from "
              "exec to its last thread's end (traced); dps's stub at scale 1 %s ms; the real "
              "program at scale 1 %s ms (untraced).\n" % (
                  prog["comm"], ms(wi["busy_ns"]), ms(wi.get("recorded_sut_ns")),
                  ms(wi.get("original_sut_ns")),
                  ms(res["real"].get("1", res["real"].get("1.0", {})).get("median"))))
            w("| scale | real median ms | min | max | spread | others % | dps median ms | min "
              "| max | error |")
            w("|---|---|---|---|---|---|---|---|---|---|")
            for row in c["rows"]:
                r, p = row["real"], row["pred"]
                w("| %g | %s | %s | %s | %.1f %% | %.0f%s | %s | %s | %s | %+.1f %% |" % (
                    row["scale"], ms(r["median"]), ms(r["min"]), ms(r["max"]),
                    100 * (r["max"] - r["min"]) / r["median"], r["others_pct"],
                    " loaded" if r["loaded"] else "", ms(p["median"]), ms(p["min"]),
                    ms(p["max"]), row["err_pct"]))
            w("")
            rf = c["real_fit"]
            w("- worst error %s; knee: %s" % (
                "-" if c["worst"] is None else "%+.1f %% at scale %g" % (c["worst"]["err_pct"],
                                                                         c["worst"]["scale"]),
                c["knee_text"]))
            w("- the real curve read by dps whatif's fit: %s (%s)" % (rf["kind"], rf["reason"]))
            w("- dps whatif's fit: %s (%s)" % (dps_reading(wi), wi.get("fit_reason", "-")))
            for reason, way_out in unclear_reasons(wi):
                w("- unclear: %s%s" % (reason, "" if not way_out else " (way out: %s)" % way_out))
            w("- verdict: %s" % verdict_of(v, res))
            for cav in wi.get("caveats", []):
                w("- dps whatif's caveat: %s" % cav)
            if wi.get("loaded_points"):
                w("- dps whatif's loaded points: %s" % ", ".join(
                    str(x) for x in wi["loaded_points"]))
            w("")
            w("![%s, %s: real and predicted makespan](whatif-sync/%s-%s.svg)\n" % (
                n, v, n, v))
            w("dps whatif's own report: [whatif-sync/%s-%s-whatif.html]"
              "(whatif-sync/%s-%s-whatif.html)\n" % (n, v, n, v))
    return "\n".join(out) + "\n"


def real_only(programs, variants, extra, rng):
    """--real-only: the real side alone (no dps, no root), its medians printed per program and
    binary, to see the curves' shapes before recording anything."""
    failures = 0
    print("real makespan, median of %d runs (min-max), ms; scales %s" % (
        ARGS.runs, " ".join("%g" % s for s in ARGS.scales)))
    for name in programs:
        prog = PROGRAMS[name]
        keys = {}
        for v in variants:
            if v in prog["variants"]:
                keys.setdefault(VARIANTS[v]["suffix"], v)
        bins = {k: os.path.join(ARGS.bin, prog["bin"] + k) for k in keys}
        try:
            real = real_sweep(name, prog, bins, ARGS.scales, extra + prog.get("args", []), rng,
                              retries=ARGS.retries)
        except Exception as e:
            say("%s FAILED: %s: %s" % (name, type(e).__name__, e))
            failures += 1
            continue
        for k, v in keys.items():
            print("%-12s %-9s %s" % (name, "plain" if k else "annotated", "  ".join(
                "%g: %.0f (%.0f-%.0f%s)" % (s, real[k][str(s)]["median"] / 1e6,
                                           real[k][str(s)]["min"] / 1e6,
                                           real[k][str(s)]["max"] / 1e6,
                                           ", loaded" if real[k][str(s)]["loaded"] else "")
                for s in ARGS.scales)), flush=True)
    return 1 if failures else 0


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--dps", required=True)
    ap.add_argument("--bin", required=True, help="directory of the dps-sync-* programs")
    ap.add_argument("--fit", required=True, help="the dps-sync-fit-curve program")
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--programs", default=" ".join(PROGRAMS))
    ap.add_argument("--variants", default="annotated plain")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=0, help="dps whatif --repeat (default RUNS)")
    ap.add_argument("--unit", default="", help="the programs' --unit (a smaller size)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--merge", action="store_true",
                    help="keep the other programs' results of WORK's results.json: rerun some")
    ap.add_argument("--real-only", action="store_true",
                    help="run only the real programs and print their medians (no dps)")
    ap.add_argument("--retries", type=int, default=0,
                    help="run a loaded real run again, up to this many times")
    ap.add_argument("--scales", dest="scales_text", default="",
                    help="with --real-only: the scales to run (default the sweep's)")
    ARGS = ap.parse_args()
    ARGS.step = 0.25
    ARGS.scales = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
    if ARGS.scales_text.strip():
        # dps whatif sweeps a regular grid: other scales are for the real side alone.
        if not ARGS.real_only:
            sys.exit("whatif-sync: --scales goes with --real-only")
        ARGS.scales = [float(v) for v in ARGS.scales_text.split()]
    ARGS.repeat = ARGS.repeat or ARGS.runs
    ARGS.work = os.path.abspath(ARGS.work)
    os.makedirs(ARGS.work, exist_ok=True)
    ARGS.plots = os.path.join(os.path.dirname(os.path.abspath(ARGS.out)), "whatif-sync")
    os.makedirs(ARGS.plots, exist_ok=True)
    saved = os.path.join(ARGS.work, "results.json")
    if ARGS.report_only:
        with open(saved) as f:
            d = json.load(f)
        ARGS.scales, ARGS.step = d["scales"], d["step"]
        for name, by_variant in d["results"].items():
            for v, res in by_variant.items():
                draw(name, v, res["cmp"])
        with open(ARGS.out, "w") as f:
            f.write(write_report(d))
        say("rewrote %s and its plots from %s" % (ARGS.out, saved))
        return 0
    programs = [p for p in ARGS.programs.split() if p]
    variants = [v for v in ARGS.variants.split() if v]
    for p in programs:
        if p not in PROGRAMS:
            sys.exit("whatif-sync: unknown program %s (known: %s)" % (p, " ".join(PROGRAMS)))
    for v in variants:
        if v not in VARIANTS:
            sys.exit("whatif-sync: unknown variant %s (known: %s)" % (v, " ".join(VARIANTS)))
    extra = ["--unit", ARGS.unit] if ARGS.unit else []
    if ARGS.real_only:
        return real_only(programs, variants, extra, random.Random(ARGS.seed))
    load0 = " ".join(open("/proc/loadavg").read().split()[:3])
    use_sync = record_supports_sync()
    say("work directory %s; dps record %s; %d real runs per point, dps whatif --repeat %d" %
        (ARGS.work, "--sync (but for the variant kernel)" if use_sync else
         "(no --sync in this dps: plain)", ARGS.runs, ARGS.repeat))
    calib = os.path.join(ARGS.work, "calibration")
    say("calibrating libdps once for every dps whatif (dps calibrate)")
    run_step([ARGS.dps, "calibrate", "-o", calib], os.path.join(ARGS.work, "calibrate.log"),
             stdout=subprocess.DEVNULL)
    rng = random.Random(ARGS.seed)
    annotations = None
    failures = []
    results = {}
    for name in programs:
        prog = PROGRAMS[name]
        todo = [v for v in variants if v in prog["variants"]]
        if len(todo) < len(variants):
            say("%s: no variant %s (it has %s)" % (name, ", ".join(
                v for v in variants if v not in todo), ", ".join(prog["variants"])))
        bins = {v: os.path.join(ARGS.bin, prog["bin"] + VARIANTS[v]["suffix"]) for v in todo}
        pextra = extra + prog.get("args", [])
        try:
            if "annotated" in todo and annot_of(bins["annotated"], pextra) != "dps":
                # No <dps/annotate.h> in this libdps: the "annotated" binary is the plain one.
                annotations = False
                todo.remove("annotated")
            elif "annotated" in todo:
                annotations = True
            if not todo:
                continue
            say("%s: real sweep (%s)" % (name, ", ".join(todo)))
            # plain and kernel run the same binary: its real runs serve both.
            real_by_bin = real_sweep(name, prog, {VARIANTS[v]["suffix"]: bins[v] for v in todo},
                                     ARGS.scales, pextra, rng, retries=ARGS.retries)
            real = {v: real_by_bin[VARIANTS[v]["suffix"]] for v in todo}
        except Exception as e:  # one program's failure must not stop the others
            say("%s FAILED: %s: %s" % (name, type(e).__name__, e))
            failures.append((name, "%s: %s" % (type(e).__name__, e)))
            continue
        results[name] = {}
        for v in todo:
            try:
                say("%s, %s: dps record and dps whatif" % (name, v))
                wi = predict(name, prog, v, bins[v], pextra, calib,
                             use_sync and VARIANTS[v]["sync"])
                cmp = compare(real[v], wi)
                draw(name, v, cmp)
                results[name][v] = {"real": real[v], "whatif": wi, "cmp": cmp}
                say("%s, %s: worst error %s, knee %s; dps answered %s: %s" % (
                    name, v, "-" if cmp["worst"] is None else "%+.1f %%" %
                    cmp["worst"]["err_pct"], cmp["knee_text"], wi.get("kind", "-"),
                    verdict_of(v, results[name][v])))
            except Exception as e:
                say("%s, %s FAILED: %s: %s" % (name, v, type(e).__name__, e))
                failures.append(("%s, %s" % (name, v), "%s: %s" % (type(e).__name__, e)))
    cpu = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    meta = {"date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "cpu": cpu,
            "ncpu": os.cpu_count(), "platform": platform.platform(), "load0": load0,
            "load1": " ".join(open("/proc/loadavg").read().split()[:3]), "dps": ARGS.dps,
            "sync": use_sync, "annotations": annotations, "variants": variants}
    d = {"meta": meta, "runs": ARGS.runs, "repeat": ARGS.repeat, "seed": ARGS.seed,
         "scales": ARGS.scales, "step": ARGS.step, "extra": extra, "programs": programs,
         "results": results, "failures": failures}
    if ARGS.merge and os.path.exists(saved):
        # the programs run now replace theirs; the others keep the earlier run's figures
        with open(saved) as f:
            old = json.load(f)
        for name, by_variant in old["results"].items():
            if name not in results:
                results[name] = by_variant
        d["programs"] = [n for n in PROGRAMS if n in results]
        d["failures"] = [fl for fl in old.get("failures", []) if fl[0].split(",")[0]
                         not in programs] + failures
        meta["rerun"] = "%s (the others: %s)" % (" ".join(programs),
                                                 old["meta"].get("date", "?"))
    with open(saved, "w") as f:
        json.dump(d, f)
    with open(ARGS.out, "w") as f:
        f.write(write_report(d))
    say("results written to %s (plots in %s); %.0f s" % (ARGS.out, ARGS.plots,
                                                         time.monotonic() - T0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
