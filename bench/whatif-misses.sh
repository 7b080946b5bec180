#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `dps whatif --sweep misses` checked against the real program changed the same way (issue
# 28's item 2; doc/whatif.md, "Sweeping the misses"). bench/cache/hitrate.cc is a service
# whose lookup thread answers LOOKUPS queries, a share MISS/1000 of them reading a random entry
# of a 64 MiB table (a miss to memory) and the rest its first 8 KiB (hits), while a compute
# thread does COMPUTE rounds of arithmetic beside it; main joins both. MISS is the knob that
# scales the lookup thread's misses and keeps its accesses, as --thread-cache-scale does.
#
#   prediction  the program recorded at MISS0 (dps record), analyzed (dps analyze), its data-
#               cache figures captured under cachegrind (dps cache capture) and put on the
#               lookup thread's runs (dps cache apply --thread-comm lookup --function F, F the
#               thread's function as cachegrind names it: g++ inlines serve into it),
#               then dps whatif --sweep misses over the scales MISS/MISS0
#   real        the program itself at each MISS, RUNS times, the points interleaved
#   linearity   the capture again at MISS0/2: the lookup's misses at half the knob (the real
#               knob scales them as the stub's does, or the comparison is not like for like)
#
# Witness: the wall time from spawn to exit, taken here for the real program and by dps
# whatif (from outside, exec to exit) for the stub. Compared: each point's change from the
# recorded knob (scale 1), the stub's against the program's, and where each curve stops
# falling. Median [min, max] of RUNS.
#
#   bench/whatif-misses.sh [BUILD_DIR]     (default: $DPS_BUILD_DIR, else build/dev)
# Environment: RUNS (default 5); MISS0, the recorded knobs, comma-separated (default 500,200:
# half the lookups missing, and a fifth); OUT (default bench/results/whatif-misses.md). Needs
# root (dps record's perf), g++, valgrind and perf. About 2 minutes on an idle 2-core machine.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=${DPS:-$build/cli/dps}
if [ ! -x "$dps" ]; then
    echo "whatif-misses.sh: no dps at $dps (build first, pass the build dir, or set DPS)" >&2
    exit 2
fi
for tool in g++ valgrind perf; do
    command -v "$tool" >/dev/null || {
        echo "whatif-misses.sh: $tool not found (scripts/setup.sh installs it)" >&2
        exit 2
    }
done
if [ "$(id -u)" != 0 ]; then
    echo "whatif-misses.sh: needs root: dps record's kernel scheduling comes from perf" >&2
    exit 2
fi
work=$(mktemp -d /tmp/dps-bench-whatif-misses-XXXXXX)
trap 'rm -rf "$work"' EXIT
g++ -O2 -g -Wall -Wextra -o "$work/hitrate" "$here/bench/cache/hitrate.cc" -pthread

PYTHONPATH="$here/bench" python3 - "$dps" "$work" "${RUNS:-5}" "${MISS0:-500,200}" \
    "${OUT:-$here/bench/results/whatif-misses.md}" <<'EOF'
import json, os, platform, re, statistics, subprocess, sys, time
from xz_input import say as say_as

dps, work, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[5]
miss0s = [int(m) for m in sys.argv[4].split(",")]
prog = os.path.join(work, "hitrate")
LOOKUPS = 16000000
COMPUTE = 120000000
SCALES = [0, 0.25, 0.5, 0.75, 1, 1.25]
# the lookup thread's function as cachegrind names it (g++ -O2 inlines serve into the thread's
# lambda)
FUNC = "std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#1}> > >::_M_run()"


def say(msg):
    say_as("whatif-misses", msg)


def run(argv, **kw):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode:
        sys.exit("whatif-misses: %s failed (exit %d):\n%s" % (" ".join(argv), r.returncode,
                                                             r.stderr[-3000:]))
    return r


def args(miss):
    return [prog, str(miss), str(LOOKUPS), str(COMPUTE)]


def wall(argv):
    t0 = time.monotonic()
    subprocess.run(argv, check=True)
    return (time.monotonic() - t0) * 1e3


def stats(v):
    return statistics.median(v), min(v), max(v)


def lookup_ll(capture):
    """The lookup function's LL misses in a capture's result file (function I L S D1 LL NAME)."""
    with open(capture) as f:
        for line in f:
            if line.startswith("function ") and line.rstrip("\n").endswith(FUNC):
                return int(line.split()[5])
    sys.exit("whatif-misses: no function %s in %s" % (FUNC, capture))


def study(miss0):
    """One recording at miss0, its sweep and the real program: the section's lines."""
    trace, setdir, cset, cap, cap_half = (os.path.join(work, "%s-%d" % (n, miss0)) for n in
                                          ("trace", "set", "cset", "cap", "cap-half"))
    say("dps record (MISS %d)" % miss0)
    run([dps, "record", "-q", "-o", trace, "--"] + args(miss0))
    run([dps, "analyze", trace, "-o", setdir])
    say("dps cache capture at MISS %d and %d (under cachegrind, a minute or two)" % (miss0, miss0 // 2))
    run([dps, "cache", "capture", "--function", FUNC, "-o", cap, "--"] + args(miss0))
    run([dps, "cache", "capture", "--function", FUNC, "-o", cap_half, "--"] + args(miss0 // 2))
    applied = run([dps, "cache", "apply", setdir, cap, "--thread-comm", "lookup", "--function", FUNC,
                   "--allow-over", "-o", cset])
    say("dps whatif --sweep misses (%d points x %d runs)" % (len(SCALES), runs))
    w = run([dps, "whatif", cset, "--thread-comm", "lookup", "--sweep", "misses", "--from", "0",
             "--to", str(SCALES[-1]), "--step", "0.25", "--repeat", str(runs), "--json", "-q"])
    study = json.loads(w.stdout)
    say("the real program at %d knob values x %d runs, interleaved" % (len(SCALES), runs))
    real = {s: [] for s in SCALES}
    for r in range(runs):
        for s in SCALES:
            real[s].append(wall(args(round(s * miss0))))

    pred = {p["scale"]: p["t_sut_ns"] for p in study["points"]}
    ll, ll_half = lookup_ll(cap), lookup_ll(cap_half)
    r1, p1 = stats(real[1])[0], pred[1]["median"] / 1e6
    rows = []
    for s in SCALES:
        rm, rlo, rhi = stats(real[s])
        if s in pred:
            pm, plo, phi = (pred[s][k] / 1e6 for k in ("median", "min", "max"))
            dr, dp = rm - r1, pm - p1
            ratio = "%.2f" % (dp / dr) if abs(dr) > 1e-9 else "–"
            rows.append("| %.2f | %d | %.1f [%.1f, %.1f] | %+.1f | %.1f [%.1f, %.1f] | %+.1f | %+.1f | %s |" % (
                s, round(s * miss0), rm, rlo, rhi, dr, pm, plo, phi, dp, dp - dr, ratio))
        else:
            rows.append("| %.2f | %d | %.1f [%.1f, %.1f] | %+.1f | (past the sweep's cap) | | | |" % (
                s, round(s * miss0), rm, rlo, rhi, rm - r1))

    w_ = []
    w_.append("## Recorded at MISS %d\n" % miss0)
    w_.append("- program: `bench/cache/hitrate.cc` MISS LOOKUPS %d COMPUTE %d; recorded at "
              "MISS %d (scale 1)" % (LOOKUPS, COMPUTE, miss0))
    w_.append("- the knob scales the lookup's misses: its function's LL misses %d at MISS %d, %d at MISS "
              "%d (%.3f of them; 0.5 is linear)" % (ll, miss0, ll_half, miss0 // 2,
                                                      ll_half / ll if ll else float("nan")))
    w_.append("- the stub's cost of the lookup's misses (all of them, the quiet cache's): %.1f ms "
              "for %d D1 and %d LL misses" % (study["misses"]["cost_ns"] / 1e6,
                                               study["misses"]["d1_misses"],
                                               study["misses"]["ll_misses"]))
    w_.append("")
    w_.append("| scale | MISS | real, ms | real change | stub (dps whatif), ms | stub change | "
              "change's error | stub / real change |")
    w_.append("|---|---|---|---|---|---|---|---|")
    w_ += rows
    w_.append("")
    w_.append("dps whatif's answer: %s" % study["answer"])
    w_.append("")
    w_.append("The stub's curve alone (the fit, not backed): %s; %s" % (
        study["fit_kind"], " ".join(study["conclusions"])))
    w_.append("")
    w_.append("`dps cache apply`'s summary:\n")
    w_.append("```")
    w_.append(re.sub(r"/tmp/dps-bench-whatif-misses-\w+/", "WORK/",
                     (applied.stdout + applied.stderr).strip()))
    w_.append("```")
    w_.append("")
    return w_


w_all = ["# `dps whatif --sweep misses` against the real program changed the same way\n",
         "Produced by `bench/whatif-misses.sh` (%s UTC). Do not edit by hand. Method: the "
         "script's header; doc/whatif.md, \"Sweeping the misses\".\n" %
         time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
         "- machine: %s, %d CPUs" % (platform.node(), os.cpu_count()),
         "- witness: the wall time from spawn to exit (the real program: taken here; the "
         "stub: dps whatif's, from outside); %d runs a point; median [min, max], ms" % runs,
         "- a point's change: its time less the time at scale 1 (the recorded knob), the "
         "real program's and the stub's; the change's error: the stub's less the real one",
         ""]
for m in miss0s:
    w_all += study(m)
os.makedirs(os.path.dirname(out), exist_ok=True)
with open(out, "w") as f:
    f.write("\n".join(w_all) + "\n")
print("\n".join(w_all))
EOF
