#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dps whatif's known answers and one real program's sweep (doc/whatif.md); writes
# bench/results/whatif.md.
#
#   bench/whatif.sh [BUILD_DIR]        (default: $DPS_BUILD_DIR, else build/dev)
#   REPEAT=5 bench/whatif.sh
#   RESULT=/tmp/x.md bench/whatif.sh   (a try that leaves the results alone)
#
# 1. The closed-form knee: two independent threads joined by main (tests/whatif/sets/two:
#    40 ms and 20 ms; sets/knee: 200 ms and 100 ms); sweeping the long one in the stub's
#    default cpu mode, the knee is where its CPU time equals the other's, scale 0.5. Target:
#    within 3 % of t_busy and within one sweep step (0.1).
# 2. The other two kinds on the same set: the long thread above the knee (0.75 to 1.5) is a
#    total bottleneck, the short one over 0 to 1.5 none.
# 3. A real program: the bundled xz -T2 trace (a dps record trace), one compressing worker
#    swept, all stubs; the outside witness's figures (t_SUT per point, its spread, the load).
# 4. In the real program (dps whatif --region long -- tests/whatif/insitu-prog): a thread
#    whose local stub region burns 60 ms of CPU against one burning 30 ms; the knee at 0.5,
#    same target as 1.
# Run it as root on an otherwise idle machine: it warns, and says which points were loaded.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
if [ ! -x "$dps" ]; then
    echo "whatif.sh: no dps executable at $dps (build first, or pass the build dir)" >&2
    exit 2
fi
work=$(mktemp -d /tmp/dps-bench-whatif-XXXXXX)
trap 'rm -rf "$work"' EXIT
result=${RESULT:-$here/bench/results/whatif.md}
repeat=${REPEAT:-5}
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

"$dps" calibrate -o "$work/cal" >/dev/null 2>"$work/cal.err" || { cat "$work/cal.err" >&2; exit 1; }
sets=$here/tests/whatif/sets
run() { # NAME ARGS...: dps whatif ARGS --json into $work/NAME.json, the text into NAME.txt
    local name=$1
    shift
    echo "whatif.sh: $name" >&2
    "$dps" whatif --repeat "$repeat" --calibration "$work/cal" --seed 1 -q --json "$@" \
        >"$work/$name.json"
    python3 - "$work/$name.json" >"$work/$name.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps({k: d[k] for k in ("kind", "t_limit_ns", "t_limit_scale", "busy_ns")}))
PY
}
run two-knee "$sets/two" --thread-comm long
run knee-knee "$sets/knee" --thread-comm long
run two-total "$sets/two" --thread-comm long --stub busy --from 0.75 --to 1.5 --step 0.15
run two-none "$sets/two" --thread-comm short --stub busy
run xz "$here/examples/traces/xz-T2" --thread 23703 --html "$work/xz.html"
run insitu --region long -- "$build/tests/whatif/whatif-insitu-prog"

load_end=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work" "$result" "$repeat" "$load_start" "$load_end" <<'PY'
import json, os, platform, sys, time

work, result, repeat, load_start, load_end = sys.argv[1:6]
load = lambda n: json.load(open(os.path.join(work, n + ".json")))
cpu = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
ms = lambda ns: "-" if ns is None else "%.3f" % (ns / 1e6)
out = []
w = out.append
w("# dps whatif benchmark\n")
w("Produced by `bench/whatif.sh` (%s UTC). Do not edit by hand.\n"
  % time.strftime("%Y-%m-%d %H:%M", time.gmtime()))
w("- machine: %s, %d CPUs, %s, load average at start %s, at the end %s" %
  (cpu, os.cpu_count(), platform.platform(), load_start, load_end))
w("- %s repetitions per point, stub mode cpu (the default), one calibration for all, seed 1;"
  " t_SUT is the stub's wall time from exec to exit, read by dps whatif around "
  "posix_spawn/wait4\n" % repeat)

w("## 1. The closed-form knee\n")
w("Two independent threads joined by main; sweeping the long one (0 to 1.5 by 0.1), the "
  "knee is at scale 0.5 (its CPU time equals the short one's). Target: within 3 % of "
  "t_busy and one step.\n")
w("| set | t_busy | kind | t_limit | scale | error (of t_busy) | placed within | fit error | "
  "loaded points | target |")
w("|---|---|---|---|---|---|---|---|---|---|")
ok_all = True
for name, label in (("two-knee", "40 ms vs 20 ms"), ("knee-knee", "200 ms vs 100 ms"),
                    ("insitu", "in situ: a region of 60 ms vs 30 ms (section 4)")):
    d = load(name)
    k = d["t_limit_scale"]
    err = None if k is None else abs(k - 0.5)
    ok = d["kind"] == "limited" and err is not None and err <= 0.03 and err <= 0.1
    ok_all &= ok
    rng = d["t_limit_range_ns"]
    w("| %s | %s ms | %s | %s ms | %s | %s | %s | %s ms rms (%.1f %%) | %d | %s |" % (
        label, ms(d["busy_ns"]), d["kind"], ms(d["t_limit_ns"]),
        "-" if k is None else "%.3f" % k, "-" if err is None else "%.1f %%" % (100 * err),
        "-" if not rng else "%s-%s ms" % (ms(rng[0]), ms(rng[1])),
        ms(d["fit_error"]["rms_ns"]), 100 * d["fit_error"]["relative"],
        len(d["loaded_points"]), "met" if ok else "MISSED"))
w("")
w("## 2. Total and none\n")
w("| sweep | kind | want | slope | fit error |")
w("|---|---|---|---|---|")
for name, label, want in (("two-total", "long thread, 0.75 to 1.5", "total"),
                          ("two-none", "short thread, 0 to 1.5", "none")):
    d = load(name)
    ok_all &= d["kind"] == want
    w("| %s | %s | %s | %s | %s ms rms |" % (label, d["kind"], want,
      "-" if d["slope"] is None else "%.3f" % d["slope"], ms(d["fit_error"]["rms_ns"])))
w("")
d = load("xz")
w("## 3. A real program: xz -T2, worker %s swept\n" % d["component"]["label"])
w("The bundled `examples/traces/xz-T2` (a `dps record` trace), the stub built from its "
  "analysis; t_busy %s ms. The outside witness per point:\n" % ms(d["busy_ns"]))
w("| stub | scale | t_PSF ms | t_SUT median ms | min | max | spread | others % | loaded |")
w("|---|---|---|---|---|---|---|---|---|")
rows = [("busy", p) for p in d["points"]]
rows += [(k, d[k]) for k in ("flat", "idle", "original") if d[k]]
for stub, p in rows:
    s = p["t_sut_ns"]
    w("| %s | %.2f | %s | %s | %s | %s | %.1f %% | %.0f | %s |" % (
        stub, p["scale"], "-" if stub == "idle" else ms(p["t_psf_ns"]), ms(s["median"]),
        ms(s["min"]), ms(s["max"]), 100 * (s["max"] - s["min"]) / s["median"],
        p["others_pct"], "yes" if p["loaded"] else ""))
w("")
w("Fit: **%s**; t_min^SUT %s ms, t_limit %s ms (scale %s), slope %s; fit error %s ms rms "
  "(%.1f %%), noise %s ms. %s\n" % (
    d["kind"], ms(d["t_min_sut_ns"]), ms(d["t_limit_ns"]),
    "-" if d["t_limit_scale"] is None else "%.2f" % d["t_limit_scale"],
    "-" if d["slope"] is None else "%.2f" % d["slope"], ms(d["fit_error"]["rms_ns"]),
    100 * d["fit_error"]["relative"], ms(d["fit_error"]["noise_ns"]), d["fit_reason"]))
w("Conclusions, as dps whatif printed them:\n")
for c in d["conclusions"]:
    w("- " + c)
w("")
if d["caveats"]:
    w("Caveats:\n")
    for c in d["caveats"]:
        w("- " + c)
    w("")
w("The machine over the xz sweep: others %.0f %% of the CPUs, steal %.1f %%." %
  (d["machine"]["others_pct"], d["machine"]["steal_pct"]))
w("")
d = load("insitu")
w("## 4. In the real program\n")
w("`dps whatif --region long -- tests/whatif/insitu-prog`: the program itself runs at every "
  "point, its region `long` (60 ms of CPU, a result saved with SSF) stubbed and the result "
  "restored; the other thread burns 30 ms. t_busy^CUS %s ms (recorded); the knee is in the "
  "table of section 1. Per point (the outside witness, the process's wall time):\n"
  % ms(d["busy_ns"]))
w("| stub | scale | t_PSF ms | t_SUT median ms | min | max | loaded |")
w("|---|---|---|---|---|---|---|")
rows = [("busy", p) for p in d["points"]]
rows += [(k, d[k]) for k in ("flat", "idle", "original") if d[k]]
for stub, p in rows:
    s = p["t_sut_ns"]
    w("| %s | %.2f | %s | %s | %s | %s | %s |" % (
        stub, p["scale"], "-" if stub == "idle" else ms(p["t_psf_ns"]), ms(s["median"]),
        ms(s["min"]), ms(s["max"]), "yes" if p["loaded"] else ""))
w("")
names = ("two-knee", "knee-knee", "two-total", "two-none", "xz", "insitu")
n_loaded = sum(len(load(n)["loaded_points"]) for n in names)
n_points = sum(len(load(n)["points"]) for n in names)
w("All targets: %s.%s" % ("met" if ok_all else "NOT met (see the rows marked MISSED)",
  "" if not n_loaded else " %d of the %d busy points ran on a busy machine (others over "
  "10 %% of the CPUs): these figures measure that machine as much as dps whatif; rerun on "
  "a quiet one." % (n_loaded, n_points)))
open(result, "w").write("\n".join(out) + "\n")
print("whatif.sh: wrote %s" % result)
PY
