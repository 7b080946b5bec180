#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# simgen scale: generate (dps gen) and build (dps build) a 1,000,000-action set; target: the
# generated program builds in <= 15 s (../shared/design.md). Writes bench/results/simgen.md.
#
#   bench/simgen.sh [BUILD_DIR]        (default: $DPS_BUILD_DIR, else build/dev)
#   REPS=5 ACTIONS=1000000 bench/simgen.sh
#   RESULT=/tmp/x.md ACTIONS=20000 bench/simgen.sh   (a quick try that leaves the results alone)
#
# Floors measured in the same run: for generation, loading and validating the set alone
# (dps gen --check: no generator can be faster than reading its input); for the build, the C
# compiler alone on the generated file (cc -O2 -c), which the table-driven layout keeps small.
# Peer layout, same run: the same tables with the kinds spelled as enum names (DPS_ACT_RUN...),
# the more obvious way to write them, compiled the same way.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
if [ ! -x "$dps" ]; then
    echo "simgen.sh: no dps executable at $dps (build first, or pass the build dir)" >&2
    exit 2
fi
work=$(mktemp -d /tmp/dps-bench-simgen-XXXXXX)
trap 'rm -rf "$work"' EXIT

REPS=${REPS:-5} ACTIONS=${ACTIONS:-1000000} CC=${CC:-cc} \
python3 - "$dps" "$work" "$here/runtime/include" "${RESULT:-$here/bench/results/simgen.md}" <<'PY'
import os, platform, random, subprocess, sys, time

dps, work, include, result = sys.argv[1:5]
reps = int(os.environ["REPS"])
n_actions = int(os.environ["ACTIONS"])
cc = os.environ["CC"]
n_threads = 16

# The set: a root that starts 15 threads and joins them; every thread alternates runs and
# sleeps with sub-microsecond fractions, and some heap/stack pairs, like an analyzed trace.
setdir = os.path.join(work, "million")
os.mkdir(setdir)
rng = random.Random(42)
per = n_actions // n_threads
total = 0
for t in range(n_threads):
    tid = 1000 + t
    lines = ["dps-actions 1"]
    body = per - (2 * (n_threads - 1) if t == 0 else 0)
    if t == 0:
        lines += ["create %d" % (1000 + c) for c in range(1, n_threads)]
    if t == n_threads - 1:
        body += n_actions - per * n_threads
    i = 0
    while i < body:
        k = i % 50
        if k == 10 and i + 1 < body:
            lines.append("heap +%d" % (4096 * rng.randint(1, 64)))
        elif k == 11:
            lines.append("heap -%d" % 4096)
        elif k % 2 == 0:
            lines.append("run %d.%03d" % (rng.randint(1, 2000), rng.randint(0, 999)))
        else:
            lines.append("sleep %d" % rng.randint(1, 5000))
        i += 1
    if t == 0:
        lines += ["join %d" % (1000 + c) for c in range(1, n_threads)]
    total += len(lines) - 1
    with open(os.path.join(setdir, "%d.act" % tid), "w") as f:
        f.write("\n".join(lines) + "\n")
# heap pairs may leave a balance: harmless for generation and compilation.

def timed(argv):
    """Wall and CPU seconds (user + system, the command's waited-for children included) of
    one command; fails loudly."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status != 0:
        sys.exit("simgen.sh: %s failed (%d): %s" % (" ".join(argv), status, err))
    return dt, ru.ru_utime + ru.ru_stime

def stats(xs):
    s = sorted(xs)
    med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    p90 = s[min(len(s) - 1, int(0.9 * len(s) + 0.999999) - 1)]
    return med, p90

src = os.path.join(work, "million.c")
prog = os.path.join(work, "million-prog")
peer = os.path.join(work, "million-enum.c")
kinds = ["RUN", "SLEEP", "CREATE", "JOIN", "WAIT", "WAKE", "HEAP", "STACK"]
# Streamed through sed: reading 40 MB into this process would inflate the children's max RSS
# (Linux keeps the forked image's high-water mark across exec).
sed = ["sed", "-E"]
for i, k in enumerate(kinds):
    sed += ["-e", r"s/^(\t\{[-0-9A-Z_]+, )%d, /\1DPS_ACT_%s, /" % (i + 1, k)]
cc_c = [cc, "-std=gnu11", "-O2", "-I" + include, "-c"]
steps = {
    "gen": [dps, "gen", setdir, "-o", src],
    "check": [dps, "gen", setdir, "--check"],
    "cc": cc_c + [src, "-o", src + ".o"],
    "enum": cc_c + [peer, "-o", peer + ".o"],
    "build": [dps, "build", setdir, "-o", prog],
    "build1": [dps, "build", setdir, "-o", prog, "-j", "1"],
}
wall = {k: [] for k in steps}
cpu_s = {k: [] for k in steps}
for r in range(reps):
    for k, argv in steps.items():
        if k == "enum" and r == 0:
            with open(src) as f, open(peer, "w") as g:
                subprocess.run(sed, stdin=f, stdout=g, check=True)
        dt, ct = timed(argv)
        wall[k].append(dt)
        cpu_s[k].append(ct)
    print("simgen.sh: rep %d/%d: " % (r + 1, reps) +
          ", ".join("%s %.2f s" % (k, wall[k][-1]) for k in steps), file=sys.stderr)

size_mb = os.path.getsize(src) / 1e6
set_mb = sum(os.path.getsize(os.path.join(setdir, f)) for f in os.listdir(setdir)) / 1e6
cpu = "unknown"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
load = open("/proc/loadavg").read().split()[:3]
ccver = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
W = {k: stats(v) for k, v in wall.items()}
C = {k: stats(v) for k, v in cpu_s.items()}

def row(what, k, unit, floor_what, f):
    per = W[k][0] / total * (1e9 if unit == "ns" else 1e6)
    return ("| %s | %.2f s | %.2f s | %.2f s | %.0f %s | %s: %.2f s wall, %.2f s CPU | %.2fx | %.2fx |" %
            (what, W[k][0], W[k][1], C[k][0], per, unit, floor_what, W[f][0], C[f][0],
             W[k][0] / W[f][0], C[k][0] / C[f][0]))

out = []
out.append("# simgen scale benchmark\n")
out.append("Produced by `bench/simgen.sh` (%s). Do not edit by hand.\n" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
out.append("- machine: %s, %d CPUs, %s, load average at start %s" % (cpu, os.cpu_count(), platform.platform(), " ".join(load)))
out.append("- compiler: %s" % ccver)
out.append("- set: %d actions in %d threads (%.1f MB of .act files); generated C: %.1f MB" % (total, n_threads, set_mb, size_mb))
out.append("- %d repetitions; medians, p90 = nearest-rank 90th percentile; CPU = user + system of" % reps)
out.append("  the command and the compilers it ran (stable on a busy machine, unlike wall time)\n")
out.append("| step | wall median | wall p90 | CPU median | wall per action | floor or peer (medians) | ratio wall | ratio CPU |")
out.append("|---|---|---|---|---|---|---|---|")
out.append(row("`dps gen` (load, validate, write C)", "gen", "ns", "floor: `dps gen --check` (load + validate only)", "check"))
out.append(row("`dps build` (gen + parallel cc -O2 -c of the parts + link)", "build", "us", "floor: `cc -O2 -c` of the generated file", "cc"))
out.append(row("`dps build -j 1` (gen + cc -O2 of one file + link)", "build1", "us", "floor: `cc -O2 -c` of the generated file", "cc"))
out.append(row("peer layout: the same tables with enum names (`DPS_ACT_RUN`...), `cc -O2 -c`", "enum", "us", "ours (plain integers), `cc -O2 -c`", "cc"))
out.append("")
b = W["build"]
if total >= 1000000:
    out.append("Target: a million actions build in <= 15 s (wall). `dps build` median %.2f s = %.0f %% of the target, p90 %.2f s (%s)." %
               (b[0], b[0] / 15 * 100, b[1], "met" if b[1] <= 15 else "NOT met at p90"))
else:
    out.append("Smaller than the target's million actions (ACTIONS=%d): not a target figure." % total)
with open(result, "w") as f:
    f.write("\n".join(out) + "\n")
print("\n".join(out))
PY
