#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real program's memory-bound threads replayed with and without cache stubs (issue 28's
# item 4; doc/cache.md, "A real program"): `xz -T2` compresses 8 MiB of generated text in
# 2 MiB blocks; its two workers run LZMA's match finder over an 8 MiB dictionary (xz's default
# preset), the memory-bound component; the main thread reads the input and writes the output.
#
#   real     xz itself, RUNS times
#   plain    the set dps record --sync and dps analyze make, played (no cache figures)
#   cache    the same set with the capture's figures on the two workers (`dps cache capture`
#            of the same command under cachegrind, the whole program's figures: xz's encoder
#            is in liblzma, whose functions are not the program's; `dps cache apply --thread`
#            for each worker, so the main thread's share of the figures goes to them too)
#   outcome  cache, played with --cache-outcome (the accesses' cost over a quiet cache's is
#            added to each run: doc/cache.md, "Outcome")
#
# Witness: the kernel's CPU accounting of each thread (perf record -e sched:sched_stat_runtime,
# summed per thread; the main thread is the one whose id is the process's, the workers the
# others, without the threads of liblzma's and dps's own that ran under 1 ms) and the wall time
# from spawn to exit, taken here. The conditions run interleaved, RUNS rounds; median [min, max].
#
#   bench/cache-real.sh [BUILD_DIR]     (default: $DPS_BUILD_DIR, else build/dev)
# Environment: RUNS (default 5); OUT (default bench/results/cache-real.md). Needs root
# (dps record's perf), xz, valgrind and perf. About 6 minutes on an idle 2-core machine.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=${DPS:-$build/cli/dps}
if [ ! -x "$dps" ]; then
    echo "cache-real.sh: no dps at $dps (build first, pass the build dir, or set DPS)" >&2
    exit 2
fi
for tool in xz valgrind perf; do
    command -v "$tool" >/dev/null || {
        echo "cache-real.sh: $tool not found (scripts/setup.sh installs it)" >&2
        exit 2
    }
done
if [ "$(id -u)" != 0 ]; then
    echo "cache-real.sh: needs root: dps record's kernel scheduling comes from perf" >&2
    exit 2
fi
work=$(mktemp -d /tmp/dps-bench-cache-real-XXXXXX)
trap 'rm -rf "$work"' EXIT

PYTHONPATH="$here/bench" python3 - "$dps" "$work" "${RUNS:-5}" "${OUT:-$here/bench/results/cache-real.md}" <<'EOF'
import os, platform, re, statistics, subprocess, sys, time
from xz_input import say as say_as, write_text

dps, work, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


def say(msg):
    say_as("cache-real", msg)


def run(argv, **kw):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode:
        sys.exit("cache-real: %s failed (exit %d):\n%s" % (" ".join(argv), r.returncode, r.stderr))
    return r


def witness(name, argv):
    """argv under perf's sched_stat_runtime: (wall ms, main ms, [worker ms, ...] largest first)"""
    data = os.path.join(work, name + ".data")
    t = time.monotonic()
    run(["perf", "record", "-q", "-e", "sched:sched_stat_runtime", "-o", data, "--"] + argv)
    wall = (time.monotonic() - t) * 1000.0
    s = run(["perf", "script", "-i", data, "-F", "pid,tid,trace"]).stdout
    per, pid = {}, None
    for line in s.splitlines():
        m = re.match(r"\s*(\d+)/(\d+)\s.*runtime=(\d+)", line)
        if not m:
            continue
        p, tid, ns = int(m.group(1)), int(m.group(2)), int(m.group(3))
        per[(p, tid)] = per.get((p, tid), 0) + ns
    # the program's process: the one with the most CPU (perf's own and sh's are small)
    procs = {}
    for (p, tid), ns in per.items():
        procs[p] = procs.get(p, 0) + ns
    pid = max(procs, key=procs.get)
    main = per.get((pid, pid), 0) / 1e6
    workers = sorted((ns / 1e6 for (p, tid), ns in per.items() if p == pid and tid != pid
                      and ns >= 1e6), reverse=True)
    os.unlink(data)
    return wall, main, workers


# 8 MiB of text from a fixed seed: words of a small vocabulary
data = os.path.join(work, "in.txt")
write_text(data, 8 << 20)
# xz writes in.txt.xz beside its input (-k keeps the input, -f overwrites the output): no
# output on stdout, where dps cache capture prints its table
xz = ["xz", "-T2", "--block-size=2MiB", "-kf", data]
load0 = " ".join(open("/proc/loadavg").read().split()[:3])

say("dps record --sync")
trace = os.path.join(work, "trace")
run([dps, "record", "-q", "--sync", "-o", trace, "--"] + xz)
setdir = os.path.join(work, "set")
an = run([dps, "analyze", trace, "-o", setdir]).stdout
# the recording's busy time per thread, what the sets replay: "id tid comm parent busy_ms ..."
busy = {}
for line in an.splitlines():
    f = line.split()
    if len(f) >= 5 and f[0].isdigit() and re.match(r"^[0-9.]+$", f[4]):
        busy[int(f[0])] = float(f[4])
manifest = open(os.path.join(setdir, "manifest")).read()
root = int(re.search(r"^root (\d+)", manifest, re.M).group(1))
threads = [int(t) for t in re.findall(r"^thread (\d+) ", manifest, re.M)]
workers = [t for t in threads if t != root]
say("the set: root %d, workers %s" % (root, workers))

say("dps cache capture (xz under cachegrind, about a minute)")
cap = os.path.join(work, "cap")
c = run([dps, "cache", "capture", "-o", cap, "--"] + xz, stdin=subprocess.DEVNULL)
capture_head = [l for l in c.stdout.splitlines() if l.startswith(("source", "total"))]
cset = os.path.join(work, "cset")
argv = [dps, "cache", "apply", setdir, cap, "--allow-over", "-o", cset]
for w in workers:
    argv += ["--thread", str(w)]
applied = run(argv)
apply_text = (applied.stdout + applied.stderr).strip()
stubs = {}
for name, s in (("plain", setdir), ("cache", cset)):
    stubs[name] = os.path.join(work, "stub-" + name)
    run([dps, "build", s, "-o", stubs[name]])

conds = {
    "real": xz,
    "plain": [stubs["plain"], "--no-summary"],
    "cache": [stubs["cache"], "--no-summary"],
    "outcome": [stubs["cache"], "--cache-outcome", "--no-summary"],
}
res = {k: [] for k in conds}
for r in range(runs):
    for k, argv in conds.items():
        res[k].append(witness("%s-%d" % (k, r), argv))
        w, m, ws = res[k][-1]
        say("round %d %s: wall %.0f ms, main %.1f ms, workers %s ms" %
            (r + 1, k, w, m, " ".join("%.1f" % x for x in ws)))
load1 = " ".join(open("/proc/loadavg").read().split()[:3])


def med(v):
    return statistics.median(v)


def cell(v):
    return "%.1f [%.1f, %.1f]" % (med(v), min(v), max(v))


def err(v, ref):
    return "%+.1f %%" % (100.0 * (med(v) / med(ref) - 1)) if med(ref) else "–"


cols = {k: {"wall": [x[0] for x in v], "main": [x[1] for x in v],
            "workers": [sum(x[2][:2]) for x in v], "n": [len(x[2]) for x in v]}
        for k, v in res.items()}
names = {"real": "xz itself", "plain": "the set, no cache figures",
         "cache": "the set, the workers' cache figures",
         "outcome": "the same, `--cache-outcome`"}
w = []
w.append("# A real program's memory-bound threads replayed with and without cache stubs\n")
w.append("Produced by `bench/cache-real.sh` (%s UTC). Do not edit by hand. Method: the "
         "script's header; doc/cache.md, \"A real program\".\n" %
         time.strftime("%Y-%m-%d %H:%M", time.gmtime()))
w.append("- machine: %d CPUs, %s; load average at the start %s, at the end %s" %
         (os.cpu_count(), platform.platform(), load0, load1))
w.append("- program: `xz -T2 --block-size=2MiB` on 8 MiB of generated text: the main thread "
         "and two compressing workers (LZMA's match finder over an 8 MiB dictionary)")
w.append("- witness: the kernel's `sched_stat_runtime` summed per thread (perf), the wall time "
         "from spawn to exit; %d rounds, the conditions interleaved; median [min, max], ms" % runs)
w.append("- the capture: " + "; ".join(capture_head))
w.append("")
w.append("`dps cache apply`'s summary:\n")
w.append("```text\n%s\n```\n" % apply_text)
w.append("| condition | main thread CPU | workers' CPU (the two largest) | wall | "
         "main vs xz | workers vs xz | wall vs xz |")
w.append("|---|---|---|---|---|---|---|")
w.append("| the recording (`dps analyze`'s busy time, traced) | %s | %s | – | – | – | – |" % (
    "%.1f" % busy[root] if root in busy else "–",
    "%.1f" % sum(busy.get(t, 0) for t in workers) if workers else "–"))
for k in conds:
    cc = cols[k]
    w.append("| %s | %s | %s | %s | %s | %s | %s |" % (
        names[k], cell(cc["main"]), cell(cc["workers"]), cell(cc["wall"]),
        err(cc["main"], cols["real"]["main"]), err(cc["workers"], cols["real"]["workers"]),
        err(cc["wall"], cols["real"]["wall"])))
w.append("")
w.append("Worker threads over 1 ms of CPU seen per run: %s." %
         ", ".join("%s %s" % (k, sorted(set(cols[k]["n"]))) for k in conds))
with open(out, "w") as f:
    f.write("\n".join(w) + "\n")
say("written %s" % out)
EOF
