#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xz's waiting loop replayed (issue 13; doc/sync.md, "Timed waits in a loop"): `xz -T2`
# compresses 16 MiB of generated text in 4 MiB blocks; its main thread waits for the two
# compressing workers on a condition variable with a 300 ms timeout, so the recording holds
# loops of timed-out waits that a worker's signal ends. Recorded once with `dps record --sync`,
# analyzed, and the set played with every thread at scale 1 and at 0.1 (`dps run --scale`).
# xz is CPU-bound: with every thread 10x faster its makespan would be about a tenth. Before the
# loops were read as one wait, each timeout was a fixed 300 ms sleep and the replay at 0.1 stayed
# near the recorded makespan.
# Witness: each run's wall time from spawn to exit, taken here (not by dps). The real xz's own
# makespan (untraced) is measured the same way, for the stub at scale 1.
#
#   bench/whatif-xz.sh [BUILD_DIR]     (default: $DPS_BUILD_DIR, else build/dev)
# Environment: RUNS (runs per point, default 3); OUT (default bench/results/whatif-xz.md).
# Needs root (dps record's perf) and xz. Takes about 2 minutes on an idle 2-core machine.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=${DPS:-$build/cli/dps}
if [ ! -x "$dps" ]; then
    echo "whatif-xz.sh: no dps at $dps (build first, pass the build dir, or set DPS)" >&2
    exit 2
fi
if ! command -v xz >/dev/null; then
    echo "whatif-xz.sh: xz not found (apt-get install xz-utils)" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "whatif-xz.sh: needs root: dps record's kernel scheduling comes from perf" >&2
    exit 2
fi
work=$(mktemp -d /tmp/dps-bench-whatif-xz-XXXXXX)
trap 'rm -rf "$work"' EXIT

PYTHONPATH="$here/bench" python3 - "$dps" "$work" "${RUNS:-3}" "${OUT:-$here/bench/results/whatif-xz.md}" <<'EOF'
import json, os, platform, statistics, subprocess, sys, time
from xz_input import say as say_as, write_text

dps, work, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


def say(msg):
    say_as("whatif-xz", msg)


def timed(argv):
    t = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.monotonic() - t) * 1000.0


# 16 MiB of text from a fixed seed: words of a small vocabulary, so xz has work to do
data = os.path.join(work, "in.txt")
write_text(data, 16 << 20)
xz = ["xz", "-T2", "--block-size=4MiB", "-kfc", data]
load0 = " ".join(open("/proc/loadavg").read().split()[:3])

say("the real xz, untraced, %d runs" % runs)
real = [timed(["sh", "-c", 'exec "$@" > /dev/null', "sh"] + xz) for _ in range(runs)]
say("dps record --sync")
trace = os.path.join(work, "trace")
subprocess.run([dps, "record", "-q", "--sync", "-o", trace, "--", "sh", "-c",
                'exec "$@" > /dev/null', "sh"] + xz, check=True, stdout=subprocess.DEVNULL)
setdir = os.path.join(work, "set")
a = subprocess.run([dps, "analyze", trace, "-q", "-o", setdir, "--json"], check=True,
                   stdout=subprocess.PIPE, text=True)
stats = json.loads(a.stdout)
total = stats["total"]
acts = {}
for name in os.listdir(setdir):
    if name.endswith(".act"):
        for line in open(os.path.join(setdir, name)):
            k = line.split()[0]
            acts[k] = acts.get(k, 0) + 1
long_sleeps = timed_waits = 0
for name in os.listdir(setdir):
    if name.endswith(".act"):
        for line in open(os.path.join(setdir, name)):
            if line.startswith("sleep ") and float(line.split()[1]) >= 100000:
                long_sleeps += 1
            timed_waits += line.startswith("wait ") and " timeout " in line
points = {}
for s in (1.0, 0.1):
    say("dps run --scale %g, %d runs" % (s, runs))
    points[s] = [timed([dps, "run", setdir, "--scale", "%g" % s, "--quiet", "--no-summary"])
                 for _ in range(runs)]
load1 = " ".join(open("/proc/loadavg").read().split()[:3])


def med(v):
    return statistics.median(v)


def row(name, v):
    return "| %s | %.0f | %.0f | %.0f |" % (name, med(v), min(v), max(v))


ratio = med(points[0.1]) / med(points[1.0])
w = []
w.append("# xz's waiting loop replayed: every thread 10x faster\n")
w.append("Produced by `bench/whatif-xz.sh` (%s UTC). Do not edit by hand. Method: the script's "
         "header; doc/sync.md, \"Timed waits in a loop\".\n" %
         time.strftime("%Y-%m-%d %H:%M", time.gmtime()))
w.append("- machine: %d CPUs, %s; load average at start %s, at the end %s" %
         (os.cpu_count(), platform.platform(), load0, load1))
w.append("- program: `xz -T2 --block-size=4MiB` on 16 MiB of generated text (main and two "
         "compressing workers; main waits on a condition variable with a 300 ms timeout)")
w.append("- recording: `dps record --sync`; %d runs per point, wall time from spawn to exit "
         "measured by this script\n" % runs)
w.append("The set: %d timed-out waits read as ticks of a waiting loop (`n_ticks`), %d `wait`, "
         "%d `wait ... timeout`, %d sleeps of 100 ms or more left.\n" %
         (total["n_ticks"], acts.get("wait", 0) - timed_waits, timed_waits, long_sleeps))
w.append("| run | median ms | min | max |")
w.append("|---|---|---|---|")
w.append(row("real xz, untraced", real))
w.append(row("dps run, every thread at 1", points[1.0]))
w.append(row("dps run, every thread at 0.1", points[0.1]))
w.append("")
w.append("- the replay at 0.1 takes %.1f %% of the replay at 1 (%+.1f %%); xz being CPU-bound, "
         "a program 10x faster would take about 10 %%" % (100 * ratio, 100 * (ratio - 1)))
w.append("- the stub at 1 against the real xz: %+.1f %%" %
         (100 * (med(points[1.0]) / med(real) - 1)))
with open(out, "w") as f:
    f.write("\n".join(w) + "\n")
say("written %s: at 0.1 %.1f %% of the makespan at 1" % (out, 100 * ratio))
EOF
