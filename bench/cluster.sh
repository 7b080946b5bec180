#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One what-if study three ways (issue 29; doc/cluster.md): run here as one command, planned and
# run through a one-node SLURM cluster on this machine (tests/cluster/slurm.sh; `sbatch --wait`
# of the plan's slurm.sbatch, then --collect), and planned and run through GNU parallel here
# (the plan's parallel.sh, then --collect). The study: the demo's, `dps whatif` of sed in
# examples/traces/sed-gzip (sed | gzip, recorded with dps record), the same seed and
# calibration on every route. Witness: each route's wall time taken here (from the plan's end
# to the collect's end for the planned ones), the answers as each route's JSON gives them.
#
#   bench/cluster.sh [BUILD_DIR]     (default: $DPS_BUILD_DIR, else build/dev)
# Environment: REPEAT (repetitions per point, default 3); OUT (default
# bench/results/cluster.md). Needs root, slurm-wlm, munge and GNU parallel (scripts/setup.sh
# installs them). About 2 minutes on an idle 2-core machine.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=${DPS:-$build/cli/dps}
out=${OUT:-$here/bench/results/cluster.md}
repeat=${REPEAT:-3}
if [ ! -x "$dps" ]; then
    echo "cluster.sh: no dps at $dps (build first, pass the build dir, or set DPS)" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "cluster.sh: needs root (slurmd runs the array tasks as their user)" >&2
    exit 2
fi
for tool in slurmctld slurmd sbatch munged parallel; do
    command -v "$tool" >/dev/null || {
        echo "cluster.sh: $tool not installed (scripts/setup.sh installs it)" >&2
        exit 2
    }
done
# /tmp: the daemons' socket paths must stay short (slurm.sh refuses a long directory)
work=$(mktemp -d /tmp/dps-bench-cluster-XXXXXX)
chmod 755 "$work" # munged: every directory above its socket searchable by all
cleanup() {
    "$here/tests/cluster/slurm.sh" down "$work/cluster" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
say() { echo "cluster [$(date +%T)] $*" >&2; }

trace=$here/examples/traces/sed-gzip
study=("$trace" -f --thread 11419 --step 0.25 --repeat "$repeat" --seed 11)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
now() { date +%s.%N; }

say "calibrating once for every route"
"$dps" calibrate --quick -o "$work/calibration" 2>/dev/null

say "the study here, one command"
t0=$(now)
"$dps" whatif "${study[@]}" -q --calibration "$work/calibration" --json >"$work/local.json"
t_local=$(echo "$(now) - $t0" | bc)

say "planned for SLURM: the one-node cluster up"
mkdir -p "$work/cluster"
env_line=$("$here/tests/cluster/slurm.sh" up "$work/cluster")
export "${env_line?}"
"$dps" whatif "${study[@]}" -q --calibration "$work/calibration" --plan "$work/slurm-plan" >/dev/null
t0=$(now)
sbatch --wait "$work/slurm-plan/slurm.sbatch" >"$work/sbatch.out" 2>&1 ||
    { cat "$work/sbatch.out" >&2; exit 1; }
"$dps" whatif --collect "$work/slurm-plan" --json >"$work/slurm.json" 2>"$work/slurm.err"
t_slurm=$(echo "$(now) - $t0" | bc)
"$here/tests/cluster/slurm.sh" down "$work/cluster" >/dev/null

say "planned for GNU parallel, run here"
"$dps" whatif "${study[@]}" -q --calibration "$work/calibration" --plan "$work/par-plan" >/dev/null
t0=$(now)
"$work/par-plan/parallel.sh" >"$work/parallel.out" 2>&1 || { cat "$work/parallel.out" >&2; exit 1; }
"$dps" whatif --collect "$work/par-plan" --json >"$work/parallel.json" 2>"$work/parallel.err"
t_par=$(echo "$(now) - $t0" | bc)
load1=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work" "$out" "$t_local" "$t_slurm" "$t_par" "$load0" "$load1" "$repeat" \
    "$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'EOF'
import json, os, platform, sys, time
work, out, t_local, t_slurm, t_par, load0, load1, repeat, commit = sys.argv[1:]
rows = []
for name, f, t in (("here, one command", "local.json", t_local),
                   ("SLURM, one node (sbatch --wait, --collect)", "slurm.json", t_slurm),
                   ("GNU parallel here (parallel.sh, --collect)", "parallel.json", t_par)):
    d = json.load(open(os.path.join(work, f)))
    one = next((p for p in d["points"] if abs(p["scale"] - 1.0) < 1e-9), None)
    knee = d.get("t_limit_scale")
    loaded = sum(1 for p in d["points"] if p.get("loaded"))
    rows.append("| %s | %.1f s | %s | %s | %s | %d of %d | %s |" % (
        name, float(t), d["kind"], "%.3f" % knee if knee is not None else "-",
        "%.3f ms" % (one["t_sut_ns"]["median"] / 1e6) if one else "-", loaded,
        len(d["points"]), (d.get("fit_reason") or "")[:200].replace("|", "/")))
with open(out, "w") as o:
    o.write("# One what-if study here, through SLURM and through GNU parallel\n\n")
    o.write("Produced by `bench/cluster.sh` (measured %s). Do not edit by hand; what the "
            "routes are: [doc/cluster.md](../../doc/cluster.md).\n\n" %
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    o.write("- machine: %s, %d CPUs (nproc), kernel %s; dps at commit %s\n" %
            (platform.machine(), os.cpu_count(), platform.release(), commit))
    o.write("- load average at start %s, at end %s\n" % (load0, load1))
    o.write("- the study: `dps whatif examples/traces/sed-gzip -f --thread 11419 --step 0.25 "
            "--repeat %s --seed 11`, one quick calibration for every route; SLURM: the "
            "one-node cluster of tests/cluster/slurm.sh on this machine, one array task per run, "
            "`--exclusive`\n" % repeat)
    o.write("- time: the route's wall time taken by the bench (for a plan: from submitting its "
            "runs to the end of --collect; the planning itself, analysis and build, is the same "
            "on every route and left out)\n\n")
    o.write("| route | time | answer | knee (scale) | t_SUT at 1x (median) | points under load "
            "| the fit says |\n")
    o.write("|---|---|---|---|---|---|---|\n")
    o.write("\n".join(rows) + "\n")
EOF
say "results written to $out"
cat "$out"
