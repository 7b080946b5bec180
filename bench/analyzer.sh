#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Analyzer throughput and memory, side by side with babeltrace2's dummy sink (decoding alone:
# the floor) on the same traces, in one run. Targets (../shared/design.md): within 15 % of the
# dummy sink; memory independent of the number of events (10 M events < 100 MB RSS).
# Writes bench/results/analyzer.md.
#
#   bench/analyzer.sh [BUILD_DIR]       (default: $DPS_BUILD_DIR, else build/dev)
#   REPS=5 PIPE_LOOPS=700000 MALLOCS=1500000 bench/analyzer.sh
#   RESULT=/tmp/x.md PIPE_LOOPS=50000 MALLOCS=100000 REPS=2 bench/analyzer.sh   (a quick try)
#
# Traces: many-threads (tests/data, lttng-modules 2.8), and two recorded here with dps record:
# a perf sched trace of `perf bench sched pipe` (millions of scheduler events) and an LTTng-UST
# trace of a malloc/free loop under the libc wrapper. For each: dps analyze of the busy process
# (--pid), dps analyze with no selection (the process list: per-thread state only), and
# babeltrace2 TRACE -c sink.utils.dummy. Needs root (perf) and a session daemon (dps record
# starts one).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
if [ ! -x "$dps" ]; then
    echo "analyzer.sh: no dps executable at $dps (build first, or pass the build dir)" >&2
    exit 2
fi
work=$(mktemp -d /tmp/dps-bench-analyzer-XXXXXX)
trap 'rm -rf "$work"' EXIT

PIPE_LOOPS=${PIPE_LOOPS:-700000}
MALLOCS=${MALLOCS:-1500000}

echo "analyzer.sh: recording perf bench sched pipe -l $PIPE_LOOPS (perf sched)" >&2
"$dps" record -q --no-ust -o "$work/pipe" -- perf bench sched pipe -l "$PIPE_LOOPS" >/dev/null

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

REPS=${REPS:-5} python3 - "$dps" "$work" "$here" "${RESULT:-$here/bench/results/analyzer.md}" <<'PY'
import json, os, platform, subprocess, sys, time

dps, work, here, result = sys.argv[1:5]
reps = int(os.environ["REPS"])

def pid_of(trace):
    for line in open(os.path.join(trace, "record.info")):
        if line.startswith("pid "):
            return int(line.split()[1])
    raise SystemExit("no pid in record.info")

cases = [
    ("many-threads (LTTng kernel 2.8)", os.path.join(here, "tests/data/traces/many-threads"), 2673),
    ("perf sched pipe (perf-CTF, this machine)", os.path.join(work, "pipe"), pid_of(os.path.join(work, "pipe"))),
    ("malloc/free loop (LTTng UST, this machine)", os.path.join(work, "ust"), pid_of(os.path.join(work, "ust"))),
]

def run(cmd):
    """wall seconds and peak RSS (KiB) of one command, measured by /usr/bin/time so the RSS is
    the command's own (a fork of this Python process would report Python's size). dps decodes
    in a child process: /usr/bin/time sees only the larger of the two, so dps reports both
    (DPS_RSS_REPORT) and their sum is taken (an upper bound: their peaks may not coincide)."""
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

rows = []
for name, trace, pid in cases:
    out = subprocess.run([dps, "analyze", trace, "--pid", str(pid), "--json", "--no-progress"],
                         capture_output=True, text=True, check=True)
    info = json.loads(out.stdout)
    events = info["events"]
    cmds = {
        "dps analyze --pid": [dps, "analyze", trace, "--pid", str(pid), "-q", "--no-progress"],
        "dps analyze --pid -o SET": [dps, "analyze", trace, "--pid", str(pid), "-q",
                                     "--no-progress", "-o", os.path.join(work, "set")],
        "dps analyze (list)": [dps, "analyze", trace, "--list", "--no-progress"],
        "babeltrace2 -c sink.utils.dummy": ["babeltrace2", trace, "-c", "sink.utils.dummy"],
    }
    meas = {k: ([], []) for k in cmds}
    for _ in range(reps):
        # interleaved, so load changes hit all three alike
        for k, c in cmds.items():
            wall, rss, code = run(c)
            ok = code == 0
            if not ok:
                raise SystemExit(f"{k} on {trace}: exit {code}")
            meas[k][0].append(wall)
            meas[k][1].append(rss)
    floor, floor90 = stats(meas["babeltrace2 -c sink.utils.dummy"][0])
    for k in cmds:
        med, p90 = stats(meas[k][0])
        rss_med, rss90 = stats(meas[k][1])
        rows.append((name, events, k, med, p90, events / med / 1e6, med / floor,
                     rss_med / 1024, rss90 / 1024, len(info["threads"])))

try:
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
except Exception:
    cpu = platform.processor()
bt = subprocess.run(["babeltrace2", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
with open(result, "w") as f:
    f.write("# Analyzer throughput and memory\n\n")
    f.write("Produced by `bench/analyzer.sh` (one command; re-run it to update this file).\n\n")
    f.write(f"- machine: {platform.node()}, {os.cpu_count()} CPUs, {cpu}, Linux {platform.release()}\n")
    f.write(f"- {bt}; {reps} runs of each command, interleaved; wall time of the whole "
            "process (start-up, trace opening and, for dps, writing the action set included)\n")
    f.write("- floor: `babeltrace2 TRACE -c sink.utils.dummy` on the same trace in the same run "
            "(decoding only); ratio = median wall / floor's median wall (target <= 1.15)\n")
    f.write("- memory: peak RSS (ru_maxrss); for dps, that of the dps process plus that of its "
            "decoder child (babeltrace2 runs in a child process with a watchdog since issue 16; "
            "the sum is an upper bound of the two together)\n\n")
    f.write("| trace | events | command | median s | p90 s | M events/s | ratio to floor | "
            "RSS median MB | RSS p90 MB |\n|---|---:|---|---:|---:|---:|---:|---:|---:|\n")
    for name, events, k, med, p90, meps, ratio, rss, rss90, nth in rows:
        f.write(f"| {name} | {events:,} | {k} | {med:.3f} | {p90:.3f} | {meps:.2f} | "
                f"{ratio:.2f} | {rss:.1f} | {rss90:.1f} |\n")
    f.write("\n`--pid` selects the busy process of each trace (2673, sched-pipe, the malloc loop):"
            " its timeline and actions are kept, so its memory grows with its actions; the "
            "process list (no selection) keeps per-thread state only. `-o SET` adds building, "
            "validating and writing the action set (one file per thread: 8,001 for "
            "many-threads).\n")
print(open(result).read())
PY
