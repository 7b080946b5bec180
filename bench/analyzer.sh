#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Analyzer throughput and memory, side by side with babeltrace2's dummy sink (decoding alone:
# the floor) on the same traces, in one run. Targets (../shared/design.md, issue 10): within
# 15 % of the dummy sink; memory independent of the number of events and of actions (the
# sched-messaging trace < 60 MB, the 10 M-event ping-pong < 100 MB RSS); the parallel decoding
# (--decode-jobs) below the single-threaded dummy sink. Writes bench/results/analyzer.md.
#
#   bench/analyzer.sh [BUILD_DIR]       (default: $DPS_BUILD_DIR, else build/dev)
#   REPS=5 bench/analyzer.sh            (runs of each command; the default: 5)
# The default run takes about 25 min on a busy 2-CPU host (13 min with REPS=1): 8 min of
# recording, most of it perf data convert on the ping-pong (35 k events/s), then about 2.5 min
# per round of commands, 1.5 of them on the ping-pong.
#   RESULT=/tmp/x.md REPS=1 CASES=messaging,pingpong bench/analyzer.sh     (a quick try)
#   RESULT=/tmp/x.md REPS=2 PIPE_LOOPS=50000 MALLOCS=100000 MESSAGING_LOOPS=500 \
#       PINGPONG_ROUNDS=2000 bench/analyzer.sh                  (small traces, about 1 min)
#
# Traces: many-threads (tests/data, lttng-modules 2.8), and four recorded here, two with
# dps record:
#   pipe       `perf bench sched pipe -l PIPE_LOOPS` (millions of scheduler events, 2 threads)
#   ust        a malloc/free loop under the LTTng-UST libc wrapper (MALLOCS pairs)
# and two action-dense ones with perf sched record and perf data convert --to-ctf (what
# dps record does, perf at real-time priority: see record_perf):
#   messaging  `perf bench sched messaging -t -g 10 -l MESSAGING_LOOPS` (issue 10's trace:
#              about 2.2 M events, 400 threads, 1.7 M actions at 5000 loops)
#   pingpong   dps-bench-pingpong -p PINGPONG_PAIRS -r PINGPONG_ROUNDS (bench/pingpong.c:
#              thread pairs passing a token through pipes; about 8 events and 7.5 actions per
#              round trip: 12 M events, 11 M actions at 64 pairs x 24000 rounds)
# CASES=a,b,... keeps only those (default: all five). For each trace the busy process is
# selected (--pid: the recorded command) and each command of its row set runs REPS times,
# interleaved: dps analyze --pid, with -o SET, with -o SET --decode-jobs N (when dps analyze
# has that option; N = DECODE_JOBS, default the number of CPUs), the process list, and
# babeltrace2 TRACE -c sink.utils.dummy. Needs root (perf) and a session daemon (dps record
# starts one). Traces and sets live in WORKDIR (default /dev/shm when it has 6 GB free: the
# ping-pong trace takes about 2.5 GB while it is converted, and /tmp is slow with many small
# files), removed at the end.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
pingpong=$build/bench/dps-bench-pingpong
if [ ! -x "$dps" ] || [ ! -x "$pingpong" ]; then
    echo "analyzer.sh: no dps or dps-bench-pingpong in $build (build first, or pass the build dir)" >&2
    exit 2
fi
if [ -z "${WORKDIR:-}" ]; then
    WORKDIR=/tmp
    if [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge $((6 * 1024 * 1024)) ] 2>/dev/null; then
        WORKDIR=/dev/shm
    fi
fi
work=$(mktemp -d "$WORKDIR/dps-bench-analyzer-XXXXXX")
trap 'rm -rf "$work"' EXIT

PIPE_LOOPS=${PIPE_LOOPS:-700000}
MALLOCS=${MALLOCS:-1500000}
MESSAGING_LOOPS=${MESSAGING_LOOPS:-5000}
PINGPONG_PAIRS=${PINGPONG_PAIRS:-64}
PINGPONG_ROUNDS=${PINGPONG_ROUNDS:-24000}
CASES=${CASES:-many-threads,pipe,ust,messaging,pingpong}
bench_start=$(date +%s)

wanted() {
    case ",$CASES," in *",$1,"*) return 0 ;; esac
    return 1
}

# perf_lost NAME: perf's warning if it lost events while recording $work/NAME (empty if none)
perf_lost() {
    grep -i "lost" "$work/$1/perf.log" | tr -s ' \n' ' ' || true
}

# record_perf NAME CMD...: `perf sched record` then `perf data convert --to-ctf`, as dps record
# does, but perf runs SCHED_FIFO: with hundreds of busy threads on 2 CPUs, a perf at normal
# priority gets a thread's share of a CPU, its buffers overflow and it loses most events
# (77 % of a ping-pong's through dps record). The command runs at normal priority, started
# once perf is up; its pid goes to $work/NAME/pid.
record_perf() {
    local name=$1 dir=$work/$1 perf_pid cmd_pid status=0 t0=$SECONDS
    shift
    echo "analyzer.sh: recording $* (perf sched, SCHED_FIFO)" >&2
    mkdir "$dir"
    chrt -f 10 perf sched record -k CLOCK_MONOTONIC -m 16M -e sched:sched_process_exit \
        -e sched:sched_process_exec -o "$dir/perf.data" >"$dir/perf.log" 2>&1 &
    perf_pid=$!
    for _ in $(seq 100); do
        [ -s "$dir/perf.data" ] && break
        sleep 0.1
    done
    sleep 1 # perf writes its header before it enables the events
    "$@" >/dev/null &
    cmd_pid=$!
    wait "$cmd_pid" || status=$?
    kill -INT "$perf_pid"
    wait "$perf_pid" || true
    if [ "$status" != 0 ]; then
        echo "analyzer.sh: $* failed (exit $status)" >&2
        exit 1
    fi
    echo "$cmd_pid" > "$dir/pid"
    echo "analyzer.sh: recorded in $((SECONDS - t0)) s; converting to CTF" >&2
    perf data convert --to-ctf "$dir/perf" -i "$dir/perf.data" >>"$dir/perf.log" 2>&1
    rm -f "$dir/perf.data"
    echo "analyzer.sh: converted, $((SECONDS - t0)) s in all" >&2
}

if wanted pipe; then
    echo "analyzer.sh: recording perf bench sched pipe -l $PIPE_LOOPS (dps record)" >&2
    "$dps" record -q --no-ust -o "$work/pipe" -- perf bench sched pipe -l "$PIPE_LOOPS" >/dev/null
    rm -f "$work/pipe/perf.data"
fi
if wanted ust; then
    cat > "$work/mallocs.c" <<EOF
#include <stdlib.h>
int main(void)
{
	for (long i = 0; i < $MALLOCS; i++) {
		char *volatile p = malloc(64 + (i & 255));
		p[0] = 1;
		free(p);
	}
	return 0;
}
EOF
    ${CC:-cc} -O1 -o "$work/mallocs" "$work/mallocs.c"
    echo "analyzer.sh: recording $MALLOCS malloc/free pairs (LTTng UST, libc wrapper)" >&2
    "$dps" record -q --no-kernel --memory -o "$work/ust" -- "$work/mallocs"
fi
if wanted messaging; then
    record_perf messaging perf bench sched messaging -t -g 10 -l "$MESSAGING_LOOPS"
fi
if wanted pingpong; then
    record_perf pingpong "$pingpong" -p "$PINGPONG_PAIRS" -r "$PINGPONG_ROUNDS"
fi
lost=""
for name in pipe messaging pingpong; do
    if [ -f "$work/$name/perf.log" ] && [ -n "$(perf_lost "$name")" ]; then
        echo "analyzer.sh: warning: perf lost events on $name: $(perf_lost "$name")" >&2
        lost="$lost$name: $(perf_lost "$name");"
    fi
done

REPS=${REPS:-5} DECODE_JOBS=${DECODE_JOBS:-$(nproc)} BENCH_START=$bench_start CASES=$CASES \
PIPE_LOOPS=$PIPE_LOOPS MALLOCS=$MALLOCS MESSAGING_LOOPS=$MESSAGING_LOOPS \
PINGPONG_PAIRS=$PINGPONG_PAIRS PINGPONG_ROUNDS=$PINGPONG_ROUNDS WORKDIR=$WORKDIR PERF_LOST=$lost \
python3 - "$dps" "$work" "$here" "${RESULT:-$here/bench/results/analyzer.md}" <<'PY'
import filecmp, json, os, platform, re, subprocess, sys, time

dps, work, here, result = sys.argv[1:5]
env = os.environ
reps = int(env["REPS"])
jobs = int(env["DECODE_JOBS"])
wanted = env["CASES"].split(",")

def pid_of(trace):
    if os.path.exists(os.path.join(trace, "pid")):
        return int(open(os.path.join(trace, "pid")).read())
    for line in open(os.path.join(trace, "record.info")):
        if line.startswith("pid "):
            return int(line.split()[1])
    raise SystemExit("no pid in record.info")

# The parallel decoding row exists once dps analyze has the option: the script runs before
# and after it lands.
helptext = subprocess.run([dps, "analyze", "--help"], capture_output=True, text=True).stdout
has_jobs = "--decode-jobs" in helptext

# Commands, by key: (label, argv from (trace, pid, set directory)). A new row is one entry
# here and its key in the cases' lists below.
def analyze(trace, *args):
    return [dps, "analyze", trace, "--no-progress"] + list(args)

COMMANDS = {
    "pid": ("dps analyze --pid",
            lambda t, p, s: analyze(t, "--pid", str(p), "-q")),
    "set": ("dps analyze --pid -o SET" + (" --decode-jobs 1" if has_jobs else ""),
            lambda t, p, s: analyze(t, "--pid", str(p), "-q", "-o", s,
                                    *(["--decode-jobs", "1"] if has_jobs else []))),
    "set-jobs": (f"dps analyze --pid -o SET --decode-jobs {jobs}",
                 lambda t, p, s: analyze(t, "--pid", str(p), "-q", "-o", s,
                                         "--decode-jobs", str(jobs))),
    "list": ("dps analyze (list)",
             lambda t, p, s: analyze(t, "--list")),
    "floor": ("babeltrace2 -c sink.utils.dummy",
              lambda t, p, s: ["babeltrace2", t, "-c", "sink.utils.dummy"]),
}
SPARSE = ["pid", "set"] + (["set-jobs"] if has_jobs else []) + ["list", "floor"]
DENSE = ["list", "set"] + (["set-jobs"] if has_jobs else []) + ["floor"]

# Issue 10's targets, printed beside the figures: (max ratio to the floor, max RSS MB or None).
def dense_targets(rss_mb):
    return {"set": (1.15, rss_mb), "set-jobs": (1.0, None)}

def recorded(name):
    t = os.path.join(work, name)
    return t, pid_of(t)

cases = []
if "many-threads" in wanted:
    cases.append(("many-threads (LTTng kernel 2.8)",
                  os.path.join(here, "tests/data/traces/many-threads"), 2673, SPARSE, {}))
if "pipe" in wanted:
    cases.append(("perf sched pipe (perf-CTF, this machine)", *recorded("pipe"), SPARSE, {}))
if "ust" in wanted:
    cases.append(("malloc/free loop (LTTng UST, this machine)", *recorded("ust"), SPARSE, {}))
if "messaging" in wanted:
    cases.append(("sched messaging -t -g 10 (perf-CTF, this machine)", *recorded("messaging"),
                  DENSE, dense_targets(60)))
if "pingpong" in wanted:
    cases.append((f"ping-pong, {env['PINGPONG_PAIRS']} pairs (perf-CTF, this machine)",
                  *recorded("pingpong"), DENSE, dense_targets(100)))

def run(cmd):
    """wall seconds and peak RSS (KiB) of one command, measured by /usr/bin/time so the RSS is
    the command's own (a fork of this Python process would report Python's size). dps decodes
    in a child process: /usr/bin/time sees only the larger of the two, so dps reports both
    (DPS_RSS_REPORT) and their sum is taken (an upper bound: their peaks may not coincide).
    DPS_RSS_REPORT's children figure is the sum of the peaks of every decoder dps reaped
    (with --decode-jobs they run side by side)."""
    tf = os.path.join(work, "time.out")
    rf = os.path.join(work, "rss.out")
    if os.path.exists(rf):
        os.unlink(rf)
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, DPS_RSS_REPORT=rf))
    wall = time.monotonic() - t0
    rss = int(open(tf).read().strip().splitlines()[-1])
    if os.path.exists(rf):
        rss = sum(int(x) for x in open(rf).read().split())
    return wall, rss, p.returncode

def stats(xs):
    xs = sorted(xs)
    med = xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
    p90 = xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]
    return med, p90

ACTION = re.compile(rb"^[ \t]*(run|sleep|create|join|wait|wake|heap|stack)[ \t]", re.M)

def count_actions(setdir):
    """Action lines of a written set (the header and comments are not actions)."""
    n = 0
    for f in os.listdir(setdir):
        if f.endswith(".act"):
            with open(os.path.join(setdir, f), "rb") as fh:
                n += len(ACTION.findall(fh.read()))
    return n

def same_sets(a, b):
    """The two sets' action files are byte for byte the same (the manifests name the command)."""
    fa = sorted(f for f in os.listdir(a) if f.endswith(".act"))
    fb = sorted(f for f in os.listdir(b) if f.endswith(".act"))
    if fa != fb:
        return False
    match, mismatch, errors = filecmp.cmpfiles(a, b, fa, shallow=False)
    return not mismatch and not errors

rows = []
notes = []
for name, trace, pid, keys, targets in cases:
    print(f"analyzer.sh: measuring {name}", file=sys.stderr)
    out = subprocess.run([dps, "analyze", trace, "--pid", str(pid), "--json", "--no-progress"],
                         capture_output=True, text=True, check=True)
    info = json.loads(out.stdout)
    events = info["events"]
    sets = {k: os.path.join(work, "set-" + k) for k in keys}
    cmds = {k: COMMANDS[k][1](trace, pid, sets[k]) for k in keys}
    meas = {k: ([], []) for k in keys}
    for _ in range(reps):
        # interleaved, so load changes hit all commands alike
        for k, c in cmds.items():
            wall, rss, code = run(c)
            if code != 0:
                raise SystemExit(f"{' '.join(c)}: exit {code}")
            meas[k][0].append(wall)
            meas[k][1].append(rss)
    actions = {k: count_actions(sets[k]) for k in keys if os.path.isdir(sets[k])}
    if "set" in actions and "set-jobs" in actions:
        same = same_sets(sets["set"], sets["set-jobs"])
        notes.append(f"{name}: the --decode-jobs set is "
                     f"{'identical to' if same else 'DIFFERENT from'} the single-threaded one")
    for k in keys:
        if os.path.isdir(sets[k]):
            subprocess.run(["rm", "-rf", sets[k]], check=True)
    floor = stats(meas["floor"][0])[0]
    for k in keys:
        med, p90 = stats(meas[k][0])
        rss_med, rss90 = stats(meas[k][1])
        target = ""
        if k in targets:
            rmax, mmax = targets[k]
            ok = med / floor <= rmax and (mmax is None or rss90 / 1024 < mmax)
            target = f"<= {rmax:.2f}x" + (f", < {mmax} MB" if mmax else "")
            target += ": met" if ok else ": not met"
        rows.append((name, events, actions.get(k), COMMANDS[k][0], med, p90,
                     events / med / 1e6, med / floor, rss_med / 1024, rss90 / 1024, target))
    print(f"analyzer.sh: {name}: {events:,} events, {len(info['threads'])} threads selected",
          file=sys.stderr)

try:
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
except Exception:
    cpu = platform.processor()
bt = subprocess.run(["babeltrace2", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
minutes = (time.time() - int(env["BENCH_START"])) / 60
with open(result, "w") as f:
    f.write("# Analyzer throughput and memory\n\n")
    f.write("Produced by `bench/analyzer.sh` (one command; re-run it to update this file).\n\n")
    f.write(f"- machine: {platform.node()}, {os.cpu_count()} CPUs, {cpu}, Linux {platform.release()}\n")
    f.write(f"- {bt}; {reps} runs of each command, interleaved; wall time of the whole "
            "process (start-up, trace opening and, for dps, writing the action set included); "
            f"traces and sets in {env['WORKDIR']}; the whole bench took {minutes:.0f} min "
            "(recording included)\n")
    f.write("- floor: `babeltrace2 TRACE -c sink.utils.dummy` on the same trace in the same run "
            "(decoding only); ratio = median wall / floor's median wall (target <= 1.15)\n")
    f.write("- memory: peak RSS (ru_maxrss); for dps, that of the dps process plus that of its "
            "decoder child (babeltrace2 runs in a child process with a watchdog since issue 16; "
            "the sum is an upper bound of the two together)\n")
    f.write("- actions: the action lines of the set written by that command (`run`, `wait`, "
            "...; not the header); target: issue 10's, met when the median ratio and the p90 "
            "RSS are within it\n\n")
    f.write("| trace | events | actions | command | median s | p90 s | M events/s | "
            "ratio to floor | RSS median MB | RSS p90 MB | target |\n"
            "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n")
    for name, events, actions, k, med, p90, meps, ratio, rss, rss90, target in rows:
        acts = f"{actions:,}" if actions is not None else ""
        f.write(f"| {name} | {events:,} | {acts} | {k} | {med:.3f} | {p90:.3f} | {meps:.2f} | "
                f"{ratio:.2f} | {rss:.1f} | {rss90:.1f} | {target} |\n")
    f.write("\n`--pid` selects the busy process of each trace (2673, sched-pipe, the malloc loop, "
            "sched-messaging, the ping-pong): its timeline and actions are kept, so its memory "
            "grows with its actions; the process list (no selection) keeps per-thread state "
            "only. `-o SET` adds building, validating and writing the action set (one file per "
            "thread: 8,001 for many-threads). The dense traces (sched messaging: "
            f"`perf bench sched messaging -t -g 10 -l {env['MESSAGING_LOOPS']}`; ping-pong: "
            f"`dps-bench-pingpong -p {env['PINGPONG_PAIRS']} -r {env['PINGPONG_ROUNDS']}`, "
            "bench/pingpong.c) write about one action per event.\n")
    if env["PERF_LOST"]:
        f.write(f"\nperf lost events while recording ({env['PERF_LOST']}): those traces are "
                "incomplete (the figures still measure decoding and analysis).\n")
    if "pingpong" in wanted and dict((r[0], r[1]) for r in rows).get(cases[-1][0], 0) < 10e6:
        f.write("\nThe ping-pong trace has fewer than 10 M events (issue 10 asks for at least "
                "10 M): raise PINGPONG_ROUNDS.\n")
    if not has_jobs:
        f.write("\n`dps analyze` has no `--decode-jobs` yet: no parallel decoding row.\n")
    for n in notes:
        f.write(f"\n{n}.\n")
print(open(result).read())
print(f"analyzer.sh: {minutes:.1f} min in all", file=sys.stderr)
PY
