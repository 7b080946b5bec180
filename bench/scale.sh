#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scale by threads (issue 26, item 6): sets of 20,000 and 100,000 short threads, played by
# `dps run` and by the stub `dps build` makes of them, and the build itself. Writes
# bench/results/scale.md.
#
#   bench/scale.sh [BUILD_DIR]                  (default: $DPS_BUILD_DIR, else build/dev)
#   BEFORE_REV=97ea994 bench/scale.sh           also measures dps at that revision (before/after)
#   SIZES="2000" RESULT=/tmp/x.md bench/scale.sh  (a quick try that leaves the results alone)
#   REPS=3 (default): runs of `dps run` and of the stub per figure, the median shown (a play's
#   peak RSS now and then jumps by 16 MiB, before and after alike); builds run once
#
# Two shapes of set, the threads' bodies the same (run 10 us), the root running 20 us after each
# create:
#   late  the root creates every thread and joins them all at the end, as a recording of a
#         program that starts short tasks and joins them late: a handful alive at once, every
#         thread ended long before its join;
#   seq   the root creates a thread and joins it, then the next: two alive at once.
# 4 actions a thread: 20,000 threads are one file for dps build (under 100,000 actions, the
# issue's 47 s), 100,000 are compiled in parallel parts.
# Figures per dps: peak resident set (GNU time's maximum resident set of that command alone,
# its compilers' for dps build: /usr/bin/time, Debian package time) and wall time of `dps run`, of `dps build` (with its CPU: user +
# system of dps and the compilers) and of the stub; the size of the generated C. With
# BEFORE_REV, the revision is exported (git archive) and its dps and libdps built in a
# temporary directory (-j2), then both are measured on the same sets.
#
# The machine: the script waits (up to QUIET_WAIT s, default 600) for the CPUs to be under 30 %
# busy before it starts, and writes what it saw then and at the end (busy %, load average, the
# busiest other processes) into the results: build times move with the other users of a shared
# machine; peak resident sets hardly do.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
if [ ! -x "$dps" ]; then
    echo "scale.sh: no dps executable at $dps (build first, or pass the build dir)" >&2
    exit 2
fi
if [ ! -x /usr/bin/time ]; then
    echo "scale.sh: /usr/bin/time is missing (Debian package time): it measures the peak RSS" >&2
    exit 2
fi
work=$(mktemp -d /dev/shm/dps-bench-scale-XXXXXX 2>/dev/null || mktemp -d /tmp/dps-bench-scale-XXXXXX)
trap 'rm -rf "$work"' EXIT

labels=("after")
dpses=("$dps")
if [ -n "${BEFORE_REV:-}" ]; then
    before_src=$work/before-src
    mkdir -p "$before_src"
    echo "scale.sh: building dps at $BEFORE_REV in $before_src" >&2
    git -C "$here" archive "$BEFORE_REV" | tar -x -C "$before_src"
    (cd "$before_src" && cmake --preset dev >/dev/null &&
        cmake --build build/dev -j2 --target dps dps-runtime >/dev/null)
    labels=("before ($(git -C "$here" rev-parse --short "$BEFORE_REV"))" "after")
    dpses=("$before_src/build/dev/cli/dps" "$dps")
fi
after_rev=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    after_rev="$after_rev + uncommitted changes"
fi
labels[${#labels[@]}-1]="after ($after_rev)"

LABELS=$(printf '%s\n' "${labels[@]}") DPSES=$(printf '%s\n' "${dpses[@]}") \
SIZES=${SIZES:-"20000 100000"} QUIET_WAIT=${QUIET_WAIT:-600} REPS=${REPS:-3} \
python3 - "$work" "${RESULT:-$here/bench/results/scale.md}" <<'PY'
import os, platform, re, subprocess, sys, time

work, result = sys.argv[1:3]
labels = os.environ["LABELS"].splitlines()
dpses = os.environ["DPSES"].splitlines()
sizes = [int(x) for x in os.environ["SIZES"].split()]
quiet_wait = float(os.environ["QUIET_WAIT"])
reps = int(os.environ["REPS"])
env = dict(os.environ, DPS_CALIBRATION="override")

def cpu_busy(seconds=2.0):
    """The fraction of the CPUs busy over a few seconds (/proc/stat)."""
    def sample():
        v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
        return sum(v), v[3] + v[4]
    t0, i0 = sample()
    time.sleep(seconds)
    t1, i1 = sample()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)

def others():
    """The busiest processes that are not this benchmark's, by CPU over a second."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,pcpu,comm", "--sort=-pcpu"],
                         capture_output=True, text=True).stdout.splitlines()[1:]
    me = str(os.getpid())
    busy = []
    for line in out:
        pid, ppid, pcpu, comm = line.split(None, 3)
        if pid == me or ppid == me or float(pcpu) < 5:
            continue
        busy.append("%s %s%%" % (comm, pcpu))
    return ", ".join(busy[:5]) or "none above 5 %"

def state():
    busy = cpu_busy()
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    return busy, "CPUs %.0f %% busy, load average %s, busiest others: %s" % (busy * 100, load, others())

t_wait = time.monotonic()
busy, start_state = state()
while busy > 0.30 and time.monotonic() - t_wait < quiet_wait:
    print("scale.sh: waiting for a quieter machine: %s" % start_state, file=sys.stderr)
    time.sleep(20)
    busy, start_state = state()
waited = time.monotonic() - t_wait

def make_set(shape, n):
    d = os.path.join(work, "%s-%d" % (shape, n))
    os.mkdir(d)
    body = "run 10\n"
    with open(os.path.join(d, "1.act"), "w") as root:
        for i in range(2, n + 2):
            with open(os.path.join(d, "%d.act" % i), "w") as f:
                f.write(body)
            root.write("create %d\nrun 20\n" % i)
            if shape == "seq":
                root.write("join %d\n" % i)
        if shape == "late":
            for i in range(2, n + 2):
                root.write("join %d\n" % i)
    return d

def measure(argv):
    """Wall seconds, CPU seconds (with the waited-for children), peak RSS in MiB, status, the
    last line of stderr. Through GNU time, which forks the command from its own small image:
    a child forked from this Python process would report Python's resident set as its floor
    (Linux keeps the forked image's high-water mark across exec)."""
    usage = os.path.join(work, "usage")
    t0 = time.monotonic()
    with open(os.path.join(work, "stderr"), "w+") as err:
        p = subprocess.run(["/usr/bin/time", "-o", usage, "-f", "%M %U %S"] + argv,
                           stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=work)
        dt = time.monotonic() - t0
        err.seek(0)
        lines = [l for l in err.read().splitlines() if l.strip()]
    # a command that failed: time writes "Command exited with non-zero status N" first
    rss_kib, user, sys_s = open(usage).read().splitlines()[-1].split()
    return (dt, float(user) + float(sys_s), int(rss_kib) / 1024, p.returncode,
            lines[-1] if lines else "")

def measure_median(argv):
    """measure() reps times: the median wall and peak RSS of the runs that ended well, or the
    first failure."""
    runs = []
    for _ in range(reps):
        m = measure(argv)
        if m[3] != 0:
            return m
        runs.append(m)
    def median(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
    return (median([m[0] for m in runs]), median([m[1] for m in runs]),
            median([m[2] for m in runs]), 0, "")

def why(code, last):
    """A failure, shortened to what stopped it."""
    alive = re.search(r"with (\d+) threads of the play alive", last)
    maps = re.search(r"vm.max_map_count (\d+) \((\d+) mappings in use", last)
    if alive and maps:
        return ("exit %d: thread creation failed with %s alive, %s mappings in use "
                "(vm.max_map_count %s)" % (code, alive.group(1), maps.group(2), maps.group(1)))
    if alive:
        return "exit %d: thread creation failed with %s alive" % (code, alive.group(1))
    return "exit %d: %s" % (code, last[:80])

rows = []
for shape in ("late", "seq"):
    for n in sizes:
        setdir = make_set(shape, n)
        for label, dps in zip(labels, dpses):
            tag = "%s %d, %s" % (shape, n, label)
            src = os.path.join(work, "prog.c")
            g = measure([dps, "gen", setdir, "-o", src])
            c_mb = os.path.getsize(src) / 1e6 if g[3] == 0 else float("nan")
            r = measure_median([dps, "run", setdir, "--no-summary"])
            stub = os.path.join(work, "stub")
            b = measure([dps, "build", setdir, "-o", stub])
            s = measure_median([stub, "--no-summary"]) if b[3] == 0 else None
            rows.append((shape, n, label, r, b, s, c_mb))
            print("scale.sh: %s: run %.1f MiB %.1f s (%s), build %.1f s, stub %s" %
                  (tag, r[2], r[0], why(r[3], r[4]) if r[3] else "ok", b[0],
                   "%.1f MiB %.1f s" % (s[2], s[0]) if s else "not built"), file=sys.stderr)
            for f in (src, stub):
                if os.path.exists(f):
                    os.remove(f)
        subprocess.run(["rm", "-rf", setdir], check=True)

_, end_state = state()
cpu = "unknown"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
max_maps = open("/proc/sys/vm/max_map_count").read().strip()
cc = subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]

def cell_run(r):
    rss = "%.0f MiB" % r[2]
    return ("%s, %.1f s" % (rss, r[0])) if r[3] == 0 else ("**%s** after %.1f s, peak %s" % (why(r[3], r[4]), r[0], rss))

out = []
out.append("# Scale by threads\n")
out.append("Produced by `bench/scale.sh` (%s). Do not edit by hand.\n" %
           time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
out.append("- machine: %s, %d CPUs, %.0f GiB, %s; vm.max_map_count %s; %s" %
           (cpu, os.cpu_count(), mem_gb, platform.platform(), max_maps, cc))
out.append("- machine state at the start (after %.0f s waiting for CPUs under 30 %% busy%s): %s" %
           (waited, "" if busy <= 0.30 else ", not reached", start_state))
out.append("- machine state at the end: %s" % end_state)
out.append("- sets: `late`, the root creates every thread, with a `run 20` (us) after each "
           "create, and joins them all at the end, each thread's body `run 10`: a handful "
           "alive at once, each ended long "
           "before its join; `seq`, the root creates a thread and joins it before the next: two "
           "alive at once. 4 actions a thread: `dps build` compiles 20,000 threads as one file "
           "(under 100,000 actions), 100,000 in parallel parts (one per CPU)")
out.append("- peak RSS: the maximum resident set of that command (GNU time; for `dps build`, its "
           "compilers'); "
           "`DPS_CALIBRATION=override`, `--no-summary`; `dps run` and the stub: median of %d "
           "runs (a play's peak now and then jumps by 16 MiB, before and after alike); `dps "
           "build`: one run\n" % reps)
out.append("| set | dps | `dps run`: peak RSS, wall | generated C | `dps build`: wall (CPU), peak RSS | stub: peak RSS, wall |")
out.append("|---|---|---|---|---|---|")
for shape, n, label, r, b, s, c_mb in rows:
    build = ("%.1f s (%.1f s), %.0f MiB" % (b[0], b[1], b[2])) if b[3] == 0 else "**%s**" % why(b[3], b[4])
    stub = cell_run(s) if s else "not built"
    out.append("| %s, %d threads | %s | %s | %.1f MB | %s | %s |" %
               (shape, n, label, cell_run(r), c_mb, build, stub))
out.append("")
with open(result, "w") as f:
    f.write("\n".join(out) + "\n")
print("\n".join(out))
PY
