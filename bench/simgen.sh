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
    """Wall seconds and max RSS (KiB) of one command; fails loudly."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status != 0:
        sys.exit("simgen.sh: %s failed (%d): %s" % (" ".join(argv), status, err))
    return dt, ru.ru_maxrss

def stats(xs):
    s = sorted(xs)
    med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    p90 = s[min(len(s) - 1, int(0.9 * len(s) + 0.999999) - 1)]
    return med, p90

src = os.path.join(work, "million.c")
prog = os.path.join(work, "million-prog")
files = sorted(os.path.join(setdir, f) for f in os.listdir(setdir))
rows = {"gen": [], "build": [], "cc": [], "check": [], "enum": [], "build1": []}
peer = os.path.join(work, "million-enum.c")
kinds = ["RUN", "SLEEP", "CREATE", "JOIN", "WAIT", "WAKE", "HEAP", "STACK"]
# Streamed through sed: reading 40 MB into this process would inflate the children's max RSS
# (Linux keeps the forked image's high-water mark across exec).
sed = ["sed", "-E"]
for i, k in enumerate(kinds):
    sed += ["-e", r"s/^(\t\{[-0-9A-Z_]+, )%d, /\1DPS_ACT_%s, /" % (i + 1, k)]
rss = {"gen": 0, "cc": 0}
for r in range(reps):
    dt, m = timed([dps, "gen", setdir, "-o", src]); rows["gen"].append(dt); rss["gen"] = max(rss["gen"], m)
    dt, m = timed([cc, "-std=gnu11", "-O2", "-I" + include, "-c", src, "-o", src + ".o"])
    rows["cc"].append(dt); rss["cc"] = max(rss["cc"], m)
    if r == 0:
        with open(src) as f, open(peer, "w") as g:
            subprocess.run(sed, stdin=f, stdout=g, check=True)
    dt, _ = timed([cc, "-std=gnu11", "-O2", "-I" + include, "-c", peer, "-o", peer + ".o"])
    rows["enum"].append(dt)
    dt, _ = timed([dps, "build", setdir, "-o", prog]); rows["build"].append(dt)
    dt, _ = timed([dps, "build", setdir, "-o", prog, "-j", "1"]); rows["build1"].append(dt)
    dt, _ = timed([dps, "gen", setdir, "--check"]); rows["check"].append(dt)
    print("simgen.sh: rep %d/%d: gen %.2f s, cc -c %.2f s (enum peer %.2f s), build %.2f s (-j 1: %.2f s)" %
          (r + 1, reps, rows["gen"][-1], rows["cc"][-1], rows["enum"][-1], rows["build"][-1], rows["build1"][-1]), file=sys.stderr)

size_mb = os.path.getsize(src) / 1e6
set_mb = sum(os.path.getsize(f) for f in files) / 1e6
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
g, b, c, w, e, b1 = (stats(rows[k]) for k in ("gen", "build", "cc", "check", "enum", "build1"))

out = []
out.append("# simgen scale benchmark\n")
out.append("Produced by `bench/simgen.sh` (%s). Do not edit by hand.\n" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
out.append("- machine: %s, %d CPUs, %s, load average at start %s" % (cpu, os.cpu_count(), platform.platform(), " ".join(load)))
out.append("- compiler: %s" % ccver)
out.append("- set: %d actions in %d threads (%.1f MB of .act files); generated C: %.1f MB" % (total, n_threads, set_mb, size_mb))
out.append("- %d repetitions; p90 is the nearest-rank 90th percentile\n" % reps)
out.append("| step | median | p90 | per action (median) | floor (median) | ratio to floor |")
out.append("|---|---|---|---|---|---|")
out.append("| `dps gen` (load, validate, write C) | %.2f s | %.2f s | %.0f ns | `dps gen --check` (load + validate only): %.2f s | %.2fx |" %
           (g[0], g[1], g[0] / total * 1e9, w[0], g[0] / w[0]))
out.append("| `dps build` (gen + parallel cc -O2 -c of the parts + link) | %.2f s | %.2f s | %.1f us | `cc -O2 -c` of the generated file: %.2f s | %.2fx |" %
           (b[0], b[1], b[0] / total * 1e6, c[0], b[0] / c[0]))
out.append("| `dps build -j 1` (gen + one cc -O2 of one file) | %.2f s | %.2f s | %.1f us | `cc -O2 -c` of the generated file: %.2f s | %.2fx |" %
           (b1[0], b1[1], b1[0] / total * 1e6, c[0], b1[0] / c[0]))
out.append("| peer layout: the same tables with enum names, `cc -O2 -c` | %.2f s | %.2f s | %.1f us | plain integers (ours), `cc -O2 -c`: %.2f s | %.2fx |" %
           (e[0], e[1], e[0] / total * 1e6, c[0], e[0] / c[0]))
out.append("")
if total >= 1000000:
    out.append("Target: a million actions build in <= 15 s. Measured median: %.2f s = %.0f %% of the target (%s)." %
               (b[0], b[0] / 15 * 100, "met" if b[1] <= 15 else "NOT met at p90"))
else:
    out.append("Smaller than the target's million actions (ACTIONS=%d): not a target figure." % total)
# No peak-RSS figure: a child forked from this harness inherits its high-water mark across
# exec, so ru_maxrss would report the harness, not dps gen.
with open(result, "w") as f:
    f.write("\n".join(out) + "\n")
print("\n".join(out))
PY
