#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `dps record` costs around the command it records (doc/record.md, "What a recording
# costs"): the wall time of `dps record -q -- true`, from its exec to its exit, beside the
# same tools driven by hand one after the other (an LTTng session with dps's UST
# channel, created, started, stopped and destroyed with the lttng CLI; `perf sched record` of
# `true` with dps's events; `perf data convert --to-ctf`), and beside another build of dps
# when one is given (the commit before a change). Witness: each command's wall time taken
# here (python's monotonic clock around the child).
#
#   bench/record.sh [BUILD_DIR [BASE_BUILD_DIR]]   (default: $DPS_BUILD_DIR, else build/dev)
# Environment: RUNS (default 9); OUT (default bench/results/record.md). Needs root (perf
# sched record system-wide) and a machine without the LTTng kernel tracer for the perf
# path (with it, dps records the kernel with LTTng and the perf rows do not apply). About a
# minute.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
base=${2:-}
out=${OUT:-$here/bench/results/record.md}
runs=${RUNS:-9}
for b in "$build" ${base:+"$base"}; do
    if [ ! -x "$b/cli/dps" ]; then
        echo "record.sh: no dps at $b/cli/dps (build first or pass the build dir)" >&2
        exit 2
    fi
done
if [ "$(id -u)" != 0 ]; then
    echo "record.sh: needs root (perf sched record records every CPU)" >&2
    exit 2
fi
work=$(mktemp -d /tmp/dps-bench-record-XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$build" "$base" "$work" "$out" "$runs" "$(git -C "$here" rev-parse --short HEAD)" <<'EOF'
import os, shutil, statistics, subprocess, sys, time

build, base, work, out, runs, commit = sys.argv[1:7]
runs = int(runs)
null = subprocess.DEVNULL


def timed(argv):
    t = time.monotonic()
    r = subprocess.run(argv, stdout=null, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        sys.exit(f"record.sh: {' '.join(argv)} failed ({r.returncode}): {r.stderr[-400:]}")
    return time.monotonic() - t


def dps_record(dps):
    def one(i):
        trace = f"{work}/t{i}"
        dt = timed([dps, "record", "-q", "-o", trace, "--", "true"])
        shutil.rmtree(trace)
        return dt
    return one


def by_hand(i):
    """The peer: the tools dps drives, one after the other, as a user would type them."""
    s, trace = f"dps-bench-record-{os.getpid()}-{i}", f"{work}/h{i}"
    lt = ["lttng"]
    dt = timed(lt + ["create", s, f"--output={trace}"])
    dt += timed(lt + ["enable-channel", "-u", "-s", s, "--subbuf-size=1M", "--num-subbuf=8", "dps"])
    dt += timed(lt + ["enable-event", "-u", "-s", s, "-c", "dps", "dps:*"])
    dt += timed(lt + ["add-context", "-u", "-s", s, "-c", "dps", "-t", "vtid", "-t", "vpid"])
    dt += timed(lt + ["start", s])
    dt += timed(["perf", "sched", "record", "-m", "16M", "-k", "CLOCK_MONOTONIC",
                 "-o", f"{work}/p{i}.data", "--", "true"])
    dt += timed(lt + ["stop", s])
    dt += timed(lt + ["destroy", s])
    dt += timed(["perf", "data", "convert", "--to-ctf", f"{trace}/perf", "-i", f"{work}/p{i}.data"])
    shutil.rmtree(trace)
    os.unlink(f"{work}/p{i}.data")
    return dt


rows = [("dps record -q -- true (this build)", dps_record(f"{build}/cli/dps"))]
if base:
    rows.append(("dps record -q -- true (base build)", dps_record(f"{base}/cli/dps")))
rows.append(("the same tools by hand, one after the other", by_hand))
# interleaved, so a drift of the machine spreads over every row
times = {name: [] for name, _ in rows}
for i in range(runs):
    for name, fn in rows:
        times[name].append(fn(i))
        print(f"record.sh: run {i + 1}/{runs}: {name}: {times[name][-1]:.3f} s", file=sys.stderr)

byhand = statistics.median(times[rows[-1][0]])
load = open("/proc/loadavg").read().split()[:3]
with open(out, "w") as f:
    f.write("# What dps record costs around the command (bench/record.sh)\n\n")
    f.write(f"- dps at commit {commit}; {runs} runs per row, interleaved; load average at the "
            f"end {' '.join(load)}\n")
    f.write(f"- command: `bench/record.sh BUILD{' BASE_BUILD' if base else ''}` (as root)\n")
    f.write("- witness: the wall time of each command from its start to its exit, taken by "
            "the bench (python's monotonic clock); the recorded command is `true`, so all of "
            "it is the recording's own cost\n\n")
    f.write("| what | median (s) | fastest (s) | slowest (s) | / by hand |\n|---|---:|---:|---:|---:|\n")
    for name, _ in rows:
        xs = times[name]
        f.write(f"| {name} | {statistics.median(xs):.3f} | {min(xs):.3f} | {max(xs):.3f} | "
                f"{statistics.median(xs) / byhand:.2f} |\n")
print(open(out).read())
EOF
