#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Folding short blocks (issue 10, item 4): replay fidelity of the rules for blocks shorter
# than --min-block, measured by an outside witness (the kernel: wall clock around the stub's
# process, its rusage, perf's sched_stat_runtime), never by dps's own tracepoints.
#   - fold (default): `--min-block 20us`, a short sleep gets no action, its time is carried to
#     the thread's next block (doc/analyzer.md, "Folding");
#   - keep: `--min-block 0`, every block is its own `sleep`, played by the runtime's
#     compensated sleep (doc/runtime.md, "Sleep and its compensation");
#   - fold-cal: `--min-block` the calibration's min_block_ns (the sleeps this machine cannot
#     play as sleeps), what `dps analyze --calibration` folds.
# The decision and the figures: doc/analyzer.md, "Folding short blocks: measured".
# Writes bench/results/folding.md. Needs root (perf).
#
#   bench/folding.sh [BUILD_DIR]        (default: $DPS_BUILD_DIR, else build/dev)
#   RUNS=2 WORKLOADS="pipe futex" KEEP=1 bench/folding.sh
#
# Environment: RUNS (replays of each stub per rule, default 5), WORKLOADS (default
# "zstd pipe futex pipeline"), KEEP=1 (keep the work directory), WORK (use this work
# directory, kept), OUT (results file); REPORT_ONLY=1 with WORK: rewrite the results file from
# WORK/results.json, measuring nothing.
#
# For each workload: record it once (`dps record -q --no-ust`, perf sched), take the original's
# figures from that recording's kernel accounting (per-thread CPU = sched_stat_runtime sums,
# `dps analyze --json` busy_ns; makespan = the root thread's lifetime), then for each rule
# analyze, build the stub and run it RUNS times, the rules interleaved: once plain (wall time
# from exec to exit around the process, process CPU from its rusage) and once under
# `perf record -e sched:sched_stat_runtime -e sched:sched_process_fork` (per-thread CPU; the
# stub's threads are matched to the set's by their place in the creation tree).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
if [ ! -x "$dps" ]; then
    echo "folding.sh: no dps executable at $dps (build first, or pass the build dir)" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "folding.sh: needs root: the kernel scheduling comes from perf" >&2
    exit 2
fi
for tool in perf python3 gcc zstd; do
    if ! command -v "$tool" >/dev/null; then
        echo "folding.sh: $tool is missing (scripts/setup.sh installs the project's packages)" >&2
        exit 2
    fi
done

if [ -n "${WORK:-}" ]; then
    work=$WORK
    mkdir -p "$work"
else
    work=$(mktemp -d /tmp/dps-bench-folding-XXXXXX)
    if [ "${KEEP:-0}" != 1 ]; then
        trap 'rm -rf "$work"' EXIT
    fi
fi

# The futex ping-pong: two processes take turns through a process-shared mutex and condition
# variable, a few µs of work per turn. The recorded process is one side: its blocks are woken
# by the other process, which is not selected, so they are `sleep`s (not waits), almost all
# shorter than 20 µs.
cat >"$work/futex-pingpong.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int turn;
};

static void work(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

static void play(struct shared *s, int me, long rounds)
{
	for (long r = 0; r < rounds; r++) {
		work(3000);
		pthread_mutex_lock(&s->mu);
		while (s->turn != me)
			pthread_cond_wait(&s->cv, &s->mu);
		s->turn = !me;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pid_t child;

	if (s == MAP_FAILED)
		return 1;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&s->mu, &ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&s->cv, &ca);
	child = fork();
	if (child < 0)
		return 1;
	play(s, child == 0, rounds);
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	return 0;
}
EOF
# The pipeline: a producer process writes 4 KiB chunks into a pipe with ~10 µs of work
# between them; the recorded process reads them on its main thread (short blocks woken by the
# producer, which is not selected: `sleep`s) and hands each to a worker thread through a
# condition variable (`wake`/`wait`): short sleeps between dependencies, where moving their time
# moves the wakes.
cat >"$work/pipeline.c" <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 4096

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long queued, done_reading;

static void work(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!queued && !done_reading)
			pthread_cond_wait(&cv, &mu);
		if (!queued) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		queued--;
		pthread_mutex_unlock(&mu);
		work(2000);
	}
}

int main(int argc, char **argv)
{
	long chunks = argc > 1 ? atol(argv[1]) : 10000;
	static char buf[CHUNK];
	int fd[2];
	pthread_t w;
	pid_t child;

	if (pipe(fd))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(fd[0]);
		for (long i = 0; i < chunks; i++) {
			work(8000);
			if (write(fd[1], buf, CHUNK) != CHUNK)
				_exit(1);
		}
		_exit(0);
	}
	close(fd[1]);
	pthread_create(&w, NULL, worker, NULL);
	for (;;) {
		ssize_t n = read(fd[0], buf, CHUNK);

		if (n <= 0)
			break;
		work(500);
		pthread_mutex_lock(&mu);
		queued++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	done_reading = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(w, NULL);
	waitpid(child, NULL, 0);
	return 0;
}
EOF
mkdir -p "$work/bin"
${CC:-gcc} -O1 -pthread -o "$work/bin/futex-pingpong" "$work/futex-pingpong.c"
${CC:-gcc} -O1 -pthread -o "$work/bin/pipeline" "$work/pipeline.c"

REPORT_ONLY=${REPORT_ONLY:-0} RUNS=${RUNS:-5} WORKLOADS=${WORKLOADS:-zstd pipe futex pipeline} python3 - "$dps" "$work" "$here" \
    "${OUT:-$here/bench/results/folding.md}" <<'PY'
import json, os, platform, random, re, statistics, subprocess, sys, time

dps, work, here, out = sys.argv[1:5]
runs = int(os.environ["RUNS"])
wanted = os.environ["WORKLOADS"].replace(",", " ").split()
t_start = time.monotonic()
# fold and keep are the two rules of issue 10; fold-cal folds at the calibration's min_block
# (what `dps analyze --calibration` does by default): the sleeps this machine cannot play.
RULES = [("fold", "20us"), ("keep", "0"), ("fold-cal", None)]


def say(msg):
    print(f"folding.sh: [{time.monotonic() - t_start:6.0f} s] {msg}", file=sys.stderr, flush=True)


def sh(cmd, log, **kw):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        return subprocess.run(cmd, stdout=kw.pop("stdout", f), stderr=f, check=True, **kw)


def make_zstd_input(path):
    """~30 MB of seeded pseudo-random words: compressible, the same every run."""
    if os.path.exists(path):
        return
    r = random.Random(42)
    words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9)))
             for _ in range(5000)]
    n = 0
    with open(path, "w") as f:
        while n < 30 * 1024 * 1024:
            line = " ".join(r.choice(words) for _ in range(12)) + "\n"
            f.write(line)
            n += len(line)


WORKLOADS = {
    "zstd": ("`zstd -T2 -12` of 30 MB of seeded text (main + 4 threads)",
             lambda: ["zstd", "-q", "-T2", "-12", "-f", "-o", "/dev/null",
                      os.path.join(work, "zstd.in")]),
    "pipe": ("`perf bench sched pipe -l 20000`, the parent process: its peer is a child "
             "process, not selected, so every round trip is a `sleep`",
             lambda: ["perf", "bench", "sched", "pipe", "-l", "20000"]),
    "futex": ("futex ping-pong: 2 processes alternate through a process-shared condition "
              "variable, ~3 µs of work a turn, 20000 turns; the parent process",
              lambda: [os.path.join(work, "bin", "futex-pingpong"), "20000"]),
    "pipeline": ("pipeline: a producer process writes 20000 chunks of 4 KiB into a pipe; the "
                 "recorded process reads them (main thread) and hands each to a worker thread "
                 "(condition variable)",
                 lambda: [os.path.join(work, "bin", "pipeline"), "20000"]),
}


def loadavg():
    return open("/proc/loadavg").read().split()[:3]


def analyze_json(trace, pid, extra=()):
    p = subprocess.run([dps, "analyze", trace, "--pid", str(pid), "--json", "--no-progress",
                        *extra], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def count_actions(setdir):
    kinds = {}
    for name in os.listdir(setdir):
        if not name.endswith(".act"):
            continue
        for line in open(os.path.join(setdir, name)):
            w = line.split("#", 1)[0].split()
            if w and w[0] != "dps-actions":
                kinds[w[0]] = kinds.get(w[0], 0) + 1
    return kinds


def strip_zero_sleeps(setdir):
    """`--min-block 0` writes a `sleep 0` before every wait and join (the carried time, zero,
    is >= the threshold): not a block of the program, so not part of the rule measured."""
    n = 0
    for name in os.listdir(setdir):
        if not name.endswith(".act"):
            continue
        path = os.path.join(setdir, name)
        lines = open(path).readlines()
        kept = [l for l in lines if l.split("#", 1)[0].split() != ["sleep", "0"]]
        if len(kept) != len(lines):
            n += len(lines) - len(kept)
            open(path, "w").writelines(kept)
    return n


def duration_ns(text):
    for unit, f in (("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * f
    return float(text) * 1e3


def overshoot_table(cal):
    return sorted((float(l.split()[1]), float(l.split()[2])) for l in open(cal)
                  if l.startswith("cpu.sleep_overshoot_ns "))


def overshoot(table, ns):
    """doc/runtime.md: linear between the table's points, flat outside them."""
    if not table:
        return 0.0
    if ns <= table[0][0]:
        return table[0][1]
    for (x0, y0), (x1, y1) in zip(table, table[1:]):
        if ns <= x1:
            return y0 + (y1 - y0) * (ns - x0) / (x1 - x0)
    return table[-1][1]


def sleep_sums(setdir, table):
    """All the set's sleeps, and those shorter than their calibrated overshoot: the runtime
    spins those entirely (doc/runtime.md), so they burn CPU instead of blocking."""
    total = spun = 0.0
    for name in os.listdir(setdir):
        if name.endswith(".act"):
            for line in open(os.path.join(setdir, name)):
                w = line.split("#", 1)[0].split()
                if w[:1] == ["sleep"]:
                    ns = duration_ns(w[1])
                    total += ns
                    if ns < overshoot(table, ns):
                        spun += ns
    return total, spun


def set_tree(setdir, root):
    """The set's creation tree: id -> ids it creates, in order."""
    kids = {}
    for name in os.listdir(setdir):
        if name.endswith(".act"):
            tid = int(name[:-4])
            kids[tid] = [int(l.split()[1]) for l in open(os.path.join(setdir, name))
                         if l.split()[:1] == ["create"]]
    return kids


def run_plain(stub, cal):
    t0 = time.monotonic()
    p = subprocess.Popen([stub, "--calibration", cal, "--no-summary", "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        raise RuntimeError(f"{stub} exited with status {status}")
    return wall * 1e9, (ru.ru_utime + ru.ru_stime) * 1e9


FORK = re.compile(r"sched_process_fork: comm=(.*) pid=(\d+) child_comm=(.*) child_pid=(\d+)")
RUNTIME = re.compile(r"sched_stat_runtime: comm=(.*) pid=(\d+) runtime=(\d+)")


def run_perf(stub, cal, data, log):
    """Per-tid CPU (sched_stat_runtime sums) and the fork tree of one run of the stub."""
    sh(["perf", "record", "-q", "-e", "sched:sched_stat_runtime", "-e",
        "sched:sched_process_fork", "-o", data, "--", stub, "--calibration", cal,
        "--no-summary", "--quiet"], log)
    txt = subprocess.run(["perf", "script", "-i", data, "-F", "pid,event,trace"],
                         capture_output=True, text=True, check=True).stdout
    cpu, forks, comms, pid = {}, [], {}, None
    for line in txt.splitlines():
        m = RUNTIME.search(line)
        if m:
            tid = int(m.group(2))
            cpu[tid] = cpu.get(tid, 0) + int(m.group(3))
            comms.setdefault(tid, set()).add(m.group(1))
            if pid is None:
                pid = int(line.split()[0])
            continue
        m = FORK.search(line)
        if m:
            forks.append((int(m.group(2)), m.group(3), int(m.group(4))))
            if pid is None:
                pid = int(line.split()[0])
    os.unlink(data)
    return cpu, forks, comms, pid


def match_threads(kids, root, forks, comms, pid, stubname):
    """set id -> stub tid: the stub's root is its process's main thread; each thread creates
    its children in the order of its `create` actions. lttng-ust's listener threads are
    started before main by the stub's root under the executable's name (the player names
    each thread after the original before it creates any), and later call themselves
    NAME-ust: they are left out."""
    children = {}
    for parent, child_comm, child in forks:
        if child_comm == stubname[:15] or any(c.endswith("-ust") for c in comms.get(child, ())):
            continue
        children.setdefault(parent, []).append(child)
    m, todo = {root: pid}, [root]
    while todo:
        sid = todo.pop()
        got = children.get(m[sid], [])
        for i, c in enumerate(kids.get(sid, [])):
            if i < len(got):
                m[c] = got[i]
                todo.append(c)
    return m


def pct(x, ref):
    return (x - ref) / ref * 100.0 if ref else float("nan")


cal = os.path.join(work, "cal")


def measure():
    results = {"workloads": {}, "load_start": loadavg(), "runs": runs}
    say("calibrating (dps calibrate), shared by every stub")
    sh([dps, "calibrate", "-o", cal], os.path.join(work, "calibrate.log"), stdout=subprocess.DEVNULL)
    mb_cal = [l.split()[1] for l in open(cal) if l.startswith("cpu.min_block_ns ")][0]
    RULES[2] = ("fold-cal", mb_cal + "ns")
    results["rules"] = RULES
    # What every stub costs beyond its actions (loader, lttng-ust, calibration file, exit): the
    # wall time of a one-action stub, so the makespan errors can be read against it.
    base = os.path.join(work, "base-set")
    os.makedirs(base, exist_ok=True)
    open(os.path.join(base, "1.act"), "w").write("run 1\n")
    sh([dps, "build", base, "-o", os.path.join(work, "base-stub")], os.path.join(work, "base.log"),
       stdout=subprocess.DEVNULL)
    results["base_wall_ns"] = [run_plain(os.path.join(work, "base-stub"), cal)[0]
                               for _ in range(max(runs, 3))]
    say(f"a one-action stub takes {statistics.median(results['base_wall_ns']) / 1e6:.1f} ms")
    for w in wanted:
        if w not in WORKLOADS:
            raise SystemExit(f"folding.sh: unknown workload {w} (known: {' '.join(WORKLOADS)})")
        desc, cmd = WORKLOADS[w]
        wd = os.path.join(work, w)
        os.makedirs(wd, exist_ok=True)
        log = os.path.join(wd, "bench.log")
        if w == "zstd":
            make_zstd_input(os.path.join(work, "zstd.in"))
        say(f"{w}: recording {' '.join(cmd())}")
        rec = os.path.join(wd, "rec")
        sh([dps, "record", "-q", "--no-ust", "-o", rec, "--", *cmd()], log)
        pid = int([l.split()[1] for l in open(os.path.join(rec, "record.info"))
                   if l.startswith("pid ")][0])
        orig = analyze_json(rec, pid, ["--min-block", "20us"])
        root = [t for t in orig["threads"] if t["parent"] is None][0]
        o = {
            "desc": desc, "pid": pid,
            "makespan_ns": root["end_ns"] - root["start_ns"],
            "root_waiting_ns": root["waiting_ns"],
            "cpu_ns": sum(t["busy_ns"] for t in orig["threads"]),
            "busy_exact": all(t["busy_exact"] for t in orig["threads"]),
            "threads": {str(t["id"]): t["busy_ns"] for t in orig["threads"]},
            "n_threads": len(orig["threads"]),
            "short_blocks": sum(t["n_folded"] for t in orig["threads"]),
            "rules": {},
        }
        stubs = {}
        for rule, mb in RULES:
            setdir = os.path.join(wd, "set-" + rule)
            a = json.loads(subprocess.run([dps, "analyze", rec, "--pid", str(pid), "--min-block", mb,
                                           "--json", "--no-progress", "-o", setdir],
                                          capture_output=True, text=True, check=True).stdout)
            zero = strip_zero_sleeps(setdir) if mb == "0" else 0
            stub = os.path.join(wd, "stub-" + rule)
            sh([dps, "build", setdir, "-o", stub], log, stdout=subprocess.DEVNULL)
            kinds = count_actions(setdir)
            sleep_ns, spun_ns = sleep_sums(setdir, overshoot_table(cal))
            o["rules"][rule] = {"min_block": mb, "actions": sum(kinds.values()), "kinds": kinds,
                                "n_folded": a["total"]["n_folded"], "zero_sleeps_dropped": zero,
                                "sleep_ns": sleep_ns, "spun_ns": spun_ns,
                                "makespan_ns": [], "cpu_ns": [], "thread_err": [], "matched": []}
            stubs[rule] = (stub, set_tree(setdir, root["id"]))
        o["identical"] = all(
            open(os.path.join(wd, "set-fold", n)).read() == open(os.path.join(wd, "set-keep", n)).read()
            for n in os.listdir(os.path.join(wd, "set-fold")) if n.endswith(".act"))
        say(f"{w}: pid {pid}, {o['n_threads']} threads, {o['short_blocks']} blocks under 20 us; "
            f"actions: " + ", ".join(f"{r} {o['rules'][r]['actions']}" for r, _ in RULES))
        for i in range(runs):
            for rule, _ in RULES:
                stub, kids = stubs[rule]
                r = o["rules"][rule]
                wall, cpu = run_plain(stub, cal)
                r["makespan_ns"].append(wall)
                r["cpu_ns"].append(cpu)
                tcpu, forks, comms, spid = run_perf(stub, cal, os.path.join(wd, "perf.data"), log)
                m = match_threads(kids, root["id"], forks, comms, spid, os.path.basename(stub))
                errs = {}
                for sid, ocpu in o["threads"].items():
                    if ocpu > 0:
                        tid = m.get(int(sid))
                        errs[sid] = abs(pct(tcpu.get(tid, 0), ocpu)) if tid else 100.0
                r["thread_err"].append(errs)
                r["matched"].append(len(m))
                say(f"{w}: run {i + 1}/{runs} {rule}: wall {wall / 1e6:.1f} ms "
                    f"(orig {o['makespan_ns'] / 1e6:.1f}), CPU {cpu / 1e6:.1f} ms "
                    f"(orig {o['cpu_ns'] / 1e6:.1f}), {len(m)}/{o['n_threads']} threads matched")
        results["workloads"][w] = o
    results["load_end"] = loadavg()
    results["elapsed_s"] = time.monotonic() - t_start
    json.dump(results, open(os.path.join(work, "results.json"), "w"), indent=1)


if os.environ["REPORT_ONLY"] != "1":
    measure()
results = json.load(open(os.path.join(work, "results.json")))
RULES = results["rules"]
runs = results["runs"]


def med_spread(xs):
    return statistics.median(xs), min(xs), max(xs)


def fmt_ms(xs):
    med, lo, hi = med_spread(xs)
    return f"{med:+.1f} % [{lo:+.1f}, {hi:+.1f}]"


try:
    cpu_name = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")][0]
except Exception:
    cpu_name = platform.processor()
calv = {l.split()[0]: l.split()[1:] for l in open(cal) if l.strip() and not l.startswith("#")}
overshoot10 = [v[1] for k, v in ((l.split()[0], l.split()[1:]) for l in open(cal)
                                 if l.startswith("cpu.sleep_overshoot_ns 10000 "))]
busy = float(results["load_start"][0]) > os.cpu_count() * 0.5 or \
    float(results["load_end"][0]) > os.cpu_count() * 0.5
pingpong = os.path.exists(os.path.join(here, "bench", "pingpong")) or \
    os.path.exists(os.path.join(here, "bench", "pingpong.c"))
with open(out, "w") as f:
    if busy:
        f.write("> **Provisional**: measured on a busy shared host (load average "
                f"{' '.join(results['load_start'])} at start, {' '.join(results['load_end'])} at "
                f"end, {os.cpu_count()} CPUs). Re-run `bench/folding.sh` on a quiet machine "
                "for figures worth quoting.\n\n")
    f.write("# Folding short blocks: replay fidelity of the rules\n\n")
    f.write("Produced by `bench/folding.sh` (one command, root; re-run it to update this "
            "file). Method: doc/analyzer.md, \"Folding short blocks: measured\".\n\n")
    f.write(f"- machine: {platform.node()}, {os.cpu_count()} CPUs, {cpu_name}, Linux "
            f"{platform.release()}; load average {' '.join(results['load_start'])} at start, "
            f"{' '.join(results['load_end'])} at end; {results['elapsed_s']:.0f} s in all\n")
    f.write(f"- {runs} replays of each stub per rule, the rules interleaved; one calibration "
            f"(`dps calibrate`) for every stub: min_block {calv.get('cpu.min_block_ns', ['?'])[0]}"
            f" ns, overshoot of a 10 µs sleep {float(overshoot10[0]) / 1e3 if overshoot10 else 0:.1f} µs\n")
    f.write("- rules: **fold** = `--min-block 20us` (a short sleep gets no action, its time is "
            "carried to the next block); **keep** = `--min-block 0` (every block is a `sleep`; "
            "the `sleep 0` that `--min-block 0` writes before each wait/join is dropped, counted "
            "under *0-sleeps dropped*); **fold-cal** = `--min-block` the calibration's "
            f"`cpu.min_block_ns` ({RULES[2][1]}: what `dps analyze --calibration` folds)\n")
    f.write("- original: the recording's kernel accounting (CPU = `sched_stat_runtime` sums per "
            "thread, process CPU their sum, makespan = the root thread's lifetime); replay: wall "
            "time from exec to exit around the stub's process, process CPU from its rusage, "
            "per-thread CPU from `perf record -e sched:sched_stat_runtime` in a second run "
            "(threads matched by their place in the creation tree, lttng-ust's listeners left "
            "out)\n")
    f.write("- errors are (replay − original) / original: median over the runs "
            "[min, max]; per-thread CPU error is |error| over the threads with CPU, median of "
            "the runs' medians and the worst thread of any run\n")
    f.write(f"- a one-action stub (`run 1`) takes "
            f"{statistics.median(results['base_wall_ns']) / 1e6:.1f} ms from exec to exit "
            "(median): the start-up and exit every replay's makespan includes\n")
    if not pingpong:
        f.write("- `bench/pingpong` (branch `dense`) is not in this tree: not measured\n")
    f.write("\n| workload | blocks < 20 µs | rule | actions (sleeps) | makespan error | "
            "process CPU error | per-thread CPU error median / worst |\n"
            "|---|---:|---|---:|---:|---:|---:|\n")
    for w, o in results["workloads"].items():
        for rule, _ in RULES:
            r = o["rules"][rule]
            ms = [pct(x, o["makespan_ns"]) for x in r["makespan_ns"]]
            cs = [pct(x, o["cpu_ns"]) for x in r["cpu_ns"]]
            per_run = [statistics.median(e.values()) for e in r["thread_err"] if e]
            worst = max((max(e.values()) for e in r["thread_err"] if e), default=float("nan"))
            th = (f"{statistics.median(per_run):.1f} % / {worst:.1f} %" if per_run else "n/a")
            f.write(f"| {w} | {o['short_blocks']:,} | {rule} | {r['actions']:,} "
                    f"({r['kinds'].get('sleep', 0):,}) | {fmt_ms(ms)} | {fmt_ms(cs)} | {th} |\n")
    f.write("\n| workload | what | original makespan ms (root preempted) | uncontended ms "
            "| original CPU ms | threads | all CPU exact | fold and keep sets identical | "
            "0-sleeps dropped |\n|---|---|---:|---:|---:|---:|---|---|---:|\n")
    for w, o in results["workloads"].items():
        f.write(f"| {w} | {o['desc']} | {o['makespan_ns'] / 1e6:.1f} "
                f"({o['root_waiting_ns'] / 1e6:.1f}) | "
                f"{(o['makespan_ns'] - o['root_waiting_ns']) / 1e6:.1f} | "
                f"{o['cpu_ns'] / 1e6:.1f} | {o['n_threads']} | "
                f"{'yes' if o['busy_exact'] else 'no'} | {'yes' if o['identical'] else 'no'} | "
                f"{o['rules']['keep']['zero_sleeps_dropped']:,} |\n")
    f.write("\nThe rules side by side, run by run (the rules of one run are measured one after "
            "the other, so they share the machine's load): *− fold* is the difference of a "
            "rule's makespan from fold's in the same run; *spun* is the part of the set's "
            "sleeps shorter than their calibrated overshoot, which the runtime spins entirely "
            "(doc/runtime.md): the player's CPU budget takes that CPU out of the thread's "
            "following runs, so it is blocked time the replay loses.\n\n"
            "| workload | rule | makespan ms (median) | − fold ms, median [min, max] | "
            "process CPU ms (median) | sleeps ms | spun ms |\n"
            "|---|---|---:|---:|---:|---:|---:|\n")
    for w, o in results["workloads"].items():
        fo = o["rules"]["fold"]
        for rule, _ in RULES:
            r = o["rules"][rule]
            d = [(k - g) / 1e6 for k, g in zip(r["makespan_ns"], fo["makespan_ns"])]
            f.write(f"| {w} | {rule} | {statistics.median(r['makespan_ns']) / 1e6:.1f} | "
                    f"{statistics.median(d):+.1f} [{min(d):+.1f}, {max(d):+.1f}] | "
                    f"{statistics.median(r['cpu_ns']) / 1e6:.1f} | "
                    f"{r['sleep_ns'] / 1e6:.1f} | {r['spun_ns'] / 1e6:.1f} |\n")
    f.write("\n*root preempted*: the time the original's root thread was runnable but not "
            "running (contention while it was recorded). A replay does not play it, so it is "
            "inside the makespan error of every rule alike; *uncontended* is the makespan "
            "without it. *fold and keep sets identical*: the two "
            "rules gave the same action files (no block under 20 µs but the `sleep 0`s dropped): the "
            "difference between their rows is run-to-run noise.\n")
print(open(out).read())
PY
