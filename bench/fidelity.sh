#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Replay fidelity: record real multithreaded workloads with `dps record`, replay each with dps
# (`dps replay`) and with `perf sched replay` (on the perf recording of the very same run), and
# compare per-thread CPU time and makespan against the original. Writes
# bench/results/fidelity.md. Method: doc/fidelity.md. Needs root (perf sched record).
#
#   bench/fidelity.sh [BUILD_DIR]          (default: $DPS_BUILD_DIR, else build/dev)
#   WORKLOADS="xz sort" RUNS=1 KEEP=1 bench/fidelity.sh build/dev
#
# Environment: WORKLOADS (default "xz pigz sort gcc zstd make pipeline python handoff lockpool
# pingsleep"; the last three are programs of the build, bench/fidelity/); RUNS (repetitions of
# each workload, default 3; the table shows the median over runs); KEEP=1 (keep the work
# directory with every trace, action set and report; its path is printed at the end); WORK
# (work directory, kept; default a fresh /tmp one); OUT (results file, default
# bench/results/fidelity.md);
# REPORT_ONLY=1 with WORK=DIR: rewrite the results file from DIR's saved measurements.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
dps=$build/cli/dps
if [ ! -x "$dps" ]; then
    echo "fidelity.sh: no dps executable at $dps (build first, or pass the build dir)" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "fidelity.sh: needs root: the kernel scheduling comes from perf sched record" >&2
    exit 2
fi
for tool in perf python3 xz sort gcc zstd make; do
    if ! command -v "$tool" >/dev/null; then
        echo "fidelity.sh: $tool is missing (scripts/setup.sh installs the project's packages)" >&2
        exit 2
    fi
done
# pigz is only a workload, not a dependency of dps: install it here when missing.
if ! command -v pigz >/dev/null && command -v apt-get >/dev/null; then
    echo "fidelity.sh: installing pigz (a workload of this benchmark)" >&2
    apt-get install -y -q pigz >/dev/null || echo "fidelity.sh: could not install pigz" >&2
fi

if [ -n "${WORK:-}" ]; then
    work=$WORK
    mkdir -p "$work"
else
    work=$(mktemp -d /tmp/dps-bench-fidelity-XXXXXX)
fi
if [ "${KEEP:-0}" != 1 ] && [ -z "${WORK:-}" ]; then
    trap 'rm -rf "$work"' EXIT
fi

python3 "$here/bench/fidelity.py" --dps "$dps" --work "$work" \
    --out "${OUT:-$here/bench/results/fidelity.md}" --source "$here" \
    --workloads "${WORKLOADS:-xz pigz sort gcc zstd make pipeline python handoff lockpool pingsleep}" \
    --runs "${RUNS:-3}" \
    ${REPORT_ONLY:+--report-only}
