#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The SSF case study checked against reality (doc/ssf.md, "Case study"); writes
# bench/results/ssf.md.
#
#   bench/ssf.sh [BUILD_DIR]            (default: $DPS_BUILD_DIR, else build/dev)
#   RESULT=/tmp/x.md bench/ssf.sh       (a try that leaves the results alone)
#   RUNS=1 REPEAT=1 STEP=0.5 REQUESTS=40 SINK_US=500 TIMING_RUNS=1 RESULT=/tmp/x.md \
#       bench/ssf.sh                    (a few seconds: proves the pipeline, measures nothing)
#
# The program is examples/ssf-case's route-planner (REQUESTS requests, WORKERS workers, a sink
# taking one result every SINK_US): its planner runs in the local stub region "compute".
# (a) the component's time, original (the planner) against restored (SSF, flat stub), per
#     call, from the program's own --timing (thread CPU time; TIMING_RUNS runs, median);
# (b) the record overhead per object (the save's CPU and wall time), the bytes per object and
#     the file's size; the output of record, check and the restores in flat, idle and busy
#     mode compared byte for byte with the original's;
# (c) the in-situ sweep: dps whatif --region compute --step STEP --repeat REPEAT -- PROG, and
#     its knee;
# (d) the real program swept with --work-scale S at the sweep's scales, RUNS runs per point
#     (median, min, max; wall time from exec to exit timed here, around posix_spawn and
#     waitpid, as dps whatif times its runs), the error per point between the in-situ
#     prediction and the real makespan (target: within 3 % at every point), and the knee of
#     the real curve against dps's.
# Defaults: RUNS=7 REPEAT=5 STEP=0.25 REQUESTS=200 WORKERS=2 SINK_US=2500 TIMING_RUNS=5;
# 2 to 3 minutes on a 2-CPU machine. Run it on an otherwise idle machine: the load is recorded.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
prog=$build/examples/ssf-case/route-planner
for f in "$dps" "$prog"; do
    if [ ! -x "$f" ]; then
        echo "ssf.sh: no $f (build first, or pass the build dir)" >&2
        exit 2
    fi
done
work=$(mktemp -d /tmp/dps-bench-ssf-XXXXXX)
trap 'rm -rf "$work"' EXIT
export RESULT=${RESULT:-$here/bench/results/ssf.md}
export RUNS=${RUNS:-7} REPEAT=${REPEAT:-5} STEP=${STEP:-0.25} REQUESTS=${REQUESTS:-200}
export WORKERS=${WORKERS:-2} SINK_US=${SINK_US:-2500} TIMING_RUNS=${TIMING_RUNS:-5}
# the program's own settings come from the bench, not from the caller's environment
unset DPS_STUB_MODE DPS_STUB_BUSY DPS_STUB_REGIONS DPS_SSF_MODE DPS_SSF_FILE

"$dps" calibrate -o "$work/cal" >/dev/null 2>"$work/cal.err" || { cat "$work/cal.err" >&2; exit 1; }

python3 - "$dps" "$prog" "$work" <<'PY'
import json, os, platform, statistics, subprocess, sys, time

dps, prog, work = sys.argv[1:4]
env = os.environ
runs, repeat, step = int(env["RUNS"]), int(env["REPEAT"]), float(env["STEP"])
timing_runs = int(env["TIMING_RUNS"])
args = ["--requests", env["REQUESTS"], "--workers", env["WORKERS"], "--sink-us", env["SINK_US"]]
requests, workers, sink_us = int(env["REQUESTS"]), int(env["WORKERS"]), int(env["SINK_US"])
ssf = os.path.join(work, "route.ssf")
load_start = open("/proc/loadavg").read().split()[:3]


def say(msg):
    print("ssf.sh: " + msg, file=sys.stderr, flush=True)


def run(extra_env, extra_args=(), out="/dev/null"):
    """Runs the program once; returns its --timing figures (dict of ints)."""
    e = dict(os.environ, **extra_env)
    with open(out, "wb") as o:
        p = subprocess.run([prog, *args, *extra_args, "--timing"], env=e, stdout=o,
                           stderr=subprocess.PIPE, check=False)
    if p.returncode:
        sys.exit("ssf.sh: %s failed (%d): %s" % (prog, p.returncode, p.stderr.decode()))
    line = [l for l in p.stderr.decode().splitlines() if l.startswith("timing ")][-1]
    return {k: int(v) for k, v in (f.split("=") for f in line.split()[1:])}


def wall(extra_args):
    """The program's wall time from exec to exit, in ns, timed from outside."""
    devnull = os.open("/dev/null", os.O_RDWR)
    fa = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
          (os.POSIX_SPAWN_DUP2, devnull, 2)]
    argv = [prog, *args, *extra_args]
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(prog, argv, os.environ, file_actions=fa)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    os.close(devnull)
    if os.waitstatus_to_exitcode(status):
        sys.exit("ssf.sh: %s failed" % " ".join(argv))
    return t1 - t0


def med(xs):
    return statistics.median(xs)


# (a), (b): the component's times, the record overhead, the file, the outputs
say("the component's times (%d runs per mode)" % timing_runs)
orig_out = os.path.join(work, "original.txt")
t_orig = [run({}, out=orig_out) for _ in range(timing_runs)]
t_rec = [run({"DPS_SSF_MODE": "record", "DPS_SSF_FILE": ssf},
             out=os.path.join(work, "record.txt")) for _ in range(timing_runs)]
ssf_size = os.path.getsize(ssf)
restore_env = {"DPS_SSF_MODE": "restore", "DPS_SSF_FILE": ssf}
t_flat = [run(dict(restore_env, DPS_STUB_MODE="flat"), out=os.path.join(work, "flat.txt"))
          for _ in range(timing_runs)]
same = {}
for mode in ("idle", "busy"):
    run(dict(restore_env, DPS_STUB_MODE=mode), out=os.path.join(work, mode + ".txt"))
run({"DPS_SSF_MODE": "check", "DPS_SSF_FILE": ssf}, out=os.path.join(work, "check.txt"))
original_bytes = open(orig_out, "rb").read()
for mode in ("record", "check", "flat", "idle", "busy"):
    same[mode] = open(os.path.join(work, mode + ".txt"), "rb").read() == original_bytes
dec = subprocess.run([dps, "ssf", "decode", ssf], capture_output=True, text=True, check=True)
lines = dec.stdout.splitlines()
entries = results = nulls = 0
data_sizes = []
for i, l in enumerate(lines):
    f = l.split(";")
    # an entry's head line: run;size of name;name;size of type;type;addInfo; (sizes count NUL)
    if (len(f) == 7 and f[6] == "" and f[1].isdigit() and f[3].isdigit() and
            int(f[1]) == len(f[2]) + 1 and int(f[3]) == len(f[4]) + 1):
        entries += 1
        if f[4] == "struct result":
            results += 1
            if f[5] == "1":
                nulls += 1
            elif i + 1 < len(lines):
                data_sizes.append(int(lines[i + 1].split(";")[0]))
compute_ns = med([t["compute_cpu_ns"] for t in t_orig])
restore_ns = med([t["restore_cpu_ns"] for t in t_flat])
restore_wall_ns = med([t["restore_wall_ns"] for t in t_flat])
save_ns = med([t["save_cpu_ns"] for t in t_rec])
save_wall_ns = med([t["save_wall_ns"] for t in t_rec])
rec_region_ns = med([t["region_cpu_ns"] - t["compute_cpu_ns"] for t in t_rec])

# (c): the in-situ sweep
say("dps whatif --region compute --step %g --repeat %d" % (step, repeat))
wj = os.path.join(work, "whatif.json")
with open(wj, "w") as o:
    subprocess.run([dps, "whatif", "--region", "compute", "--step", str(step), "--repeat",
                    str(repeat), "--calibration", os.path.join(work, "cal"), "--seed", "1",
                    "-q", "--json", "-o", os.path.join(work, "whatif"), "--", prog, *args],
                   stdout=o, check=True)
d = json.load(open(wj))
scales = [p["scale"] for p in d["points"]]

# (d): the real program, its work actually changed; the rounds interleave the scales so a
# drift of the machine spreads over every point
say("the real program at %d scales, %d runs each" % (len(scales), runs))
real = {s: [] for s in scales}
for r in range(runs):
    for s in scales:
        real[s].append(wall(["--work-scale", repr(s)]))
load_end = open("/proc/loadavg").read().split()[:3]


def knee(xs, ys):
    """The two-segment fit (flat up to the knee, then a line), least squares over a fine grid
    of knee positions: the knee's scale, the floor, the slope (ns per unit of scale)."""
    best = None
    lo, hi = min(xs), max(xs)
    for i in range(0, 401):
        k = lo + (hi - lo) * i / 400
        # y = a + b * max(0, x - k): linear least squares in (a, b)
        u = [max(0.0, x - k) for x in xs]
        n, su, sy = len(xs), sum(u), sum(ys)
        suu = sum(v * v for v in u)
        suy = sum(v * y for v, y in zip(u, ys))
        det = n * suu - su * su
        if det <= 0:
            continue
        b = (n * suy - su * sy) / det
        a = (sy - b * su) / n
        sse = sum((a + b * v - y) ** 2 for v, y in zip(u, ys))
        if best is None or sse < best[0]:
            best = (sse, k, a, b)
    return best[1:] if best else (None, None, None)


pred = [p["t_sut_ns"]["median"] for p in d["points"]]
realm = [med(real[s]) for s in scales]
errs = [(p - r) / r * 100 for p, r in zip(pred, realm)]
k_real = knee(scales, realm)
k_pred = knee(scales, pred)
c_rec = d["busy_ns"] / requests  # the planner's CPU time per call in the recording
k_design = workers * sink_us * 1000 / c_rec

cpu = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
ms = lambda ns: "-" if ns is None else "%.3f" % (ns / 1e6)
us = lambda ns: "%.1f" % (ns / 1e3)
out = []
w = out.append
w("# SSF case study, checked against reality\n")
w("Produced by `bench/ssf.sh` (%s UTC). Do not edit by hand.\n"
  % time.strftime("%Y-%m-%d %H:%M", time.gmtime()))
w("- machine: %s, %d CPUs, %s; load average at start %s, at the end %s; during the in-situ "
  "sweep others used %s %% of the CPUs, steal %s %%" %
  (cpu, os.cpu_count(), platform.platform(), " ".join(load_start), " ".join(load_end),
   d["machine"]["others_pct"], d["machine"]["steal_pct"]))
w("- program: `examples/ssf-case` route-planner %s (the planner in the local stub region "
  "`compute`; a sink taking one result every %d us)" % (" ".join(args), sink_us))
w("- settings: RUNS=%d REPEAT=%d STEP=%g TIMING_RUNS=%d\n" % (runs, repeat, step, timing_runs))

w("## (a) The component: original against restored\n")
w("Per call, the median over %d runs of each run's mean (the program's `--timing`, thread CPU "
  "time):\n" % timing_runs)
w("| | per call |")
w("|---|---:|")
w("| original: `plan_route()` at work scale 1 | %s ms |" % ms(compute_ns))
w("| restored: `route_ssf_load_result()`, flat stub (CPU) | %s us |" % us(restore_ns))
w("| restored, wall time | %s us |" % us(restore_wall_ns))
w("| restore is faster by | %.0f x |\n" % (compute_ns / max(restore_ns, 1)))
w("The restore's figure includes, spread over the calls, reading the whole file at the first "
  "one (libdps reads it at open).\n")

w("## (b) Recording\n")
w("| | |")
w("|---|---:|")
w("| save of one result (`route_ssf_save_result`), CPU | %s us |" % us(save_ns))
w("| the same, wall (one write and flush per record) | %s us |" % us(save_wall_ns))
w("| the region's overhead in record mode (save + the stub's own `compute__cpu_ns` entry), CPU "
  "| %s us |" % us(rec_region_ns))
w("| entries in the file | %d (%d results, %d of them NULL; %d CPU times) |" %
  (entries, results, nulls, entries - results))
w("| data of one non-NULL result (sizeOfData), mean | %.0f bytes |" %
  (statistics.mean(data_sizes) if data_sizes else 0))
w("| file size | %d bytes (%.0f bytes per request) |\n" % (ssf_size, ssf_size / max(requests, 1)))
w("Output byte-identical with the original's: " +
  ", ".join("%s %s" % (m, "yes" if v else "NO") for m, v in same.items()) + ".\n")

w("## (c) The in-situ sweep\n")
w("`dps whatif --region compute --step %g --repeat %d -- route-planner %s`: t_busy^CUS %s ms "
  "(%s ms per call); kind **%s**, knee at scale %s (t_min^SUT %s ms, slope %s); flat %s ms, "
  "idle %s ms, original %s ms.\n" %
  (step, repeat, " ".join(args), ms(d["busy_ns"]), ms(c_rec), d["kind"],
   "-" if d["t_limit_scale"] is None else "%.3f" % d["t_limit_scale"], ms(d["t_min_sut_ns"]),
   "-" if d["slope"] is None else "%.2f" % d["slope"], ms(d["flat_sut_ns"]),
   ms(d["idle_sut_ns"]), ms(d["original_sut_ns"])))
for c in d["conclusions"]:
    w("- " + c)
w("")

w("## (d) The real program, its work changed\n")
w("Each scale S ran `route-planner --work-scale S` %d times (the planner's search passes "
  "times S), timed from exec to exit here; the prediction is the in-situ busy stub's median "
  "at S.\n" % runs)
w("| S | predicted ms | real ms (median) | real min | real max | error |")
w("|---:|---:|---:|---:|---:|---:|")
for s, p, r, e in zip(scales, pred, realm, errs):
    w("| %.2f | %s | %s | %s | %s | %+.2f %% |" %
      (s, ms(p), ms(r), ms(min(real[s])), ms(max(real[s])), e))
worst = max(abs(e) for e in errs)
w("\nWorst error %.2f %% (target: within 3 %% at every point): **%s**.\n" %
  (worst, "met" if worst <= 3 else "missed"))
w("Knees (the same two-segment fit, flat then a line, on both medians): real %s, in-situ "
  "prediction %s; dps whatif's own fit %s; by design W x sink / c = %d x %d us / %s ms = %.3f."
  % ("-" if k_real[0] is None else "%.3f" % k_real[0],
     "-" if k_pred[0] is None else "%.3f" % k_pred[0],
     "-" if d["t_limit_scale"] is None else "%.3f" % d["t_limit_scale"],
     workers, sink_us, ms(c_rec), k_design))
w("The in-situ `original` point (the region's own code, SSF off) took %s ms; the real program "
  "at scale 1 here %s ms.\n" % (ms(d["original_sut_ns"]),
                                ms(med(real[1.0]) if 1.0 in real else None)))
open(env["RESULT"], "w").write("\n".join(out))
say("wrote " + env["RESULT"])
print("\n".join(out))
PY
