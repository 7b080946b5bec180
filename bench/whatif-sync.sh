#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dps whatif checked against real programs (issue 13, item 2; doc/whatif.md, "Checked against
# real programs"): for each program of bench/sync/ (a pipeline with bounded queues, a thread
# pool, a fork-join with a barrier, and two held-out timed condition waits, 300 ms and 40 ms)
# and one component,
# the real program's makespan with the component's work scaled 0.25x to 2x (median of RUNS
# runs per point, timed from outside) against dps whatif's prediction from one recording at
# scale 1; with annotations and without. Writes bench/results/whatif-sync.md and, beside it,
# whatif-sync/NAME-VARIANT.svg (both curves) and NAME-VARIANT-whatif.html (dps whatif's report).
# Needs root (dps record's perf sched record). Takes about 15 minutes on an idle 2-core machine.
#
#   bench/whatif-sync.sh [BUILD_DIR]          (default: $DPS_BUILD_DIR, else build/dev)
#   DPS=/usr/bin/dps bench/whatif-sync.sh     (another dps; the programs still come from BUILD_DIR)
#   TINY=1 OUT=/tmp/ws.md bench/whatif-sync.sh   (a check that it works: 1 run, 50x less work)
#
# Environment: DPS (the dps to check; default BUILD_DIR/cli/dps, else dps on PATH); PROGRAMS
# (default "pipeline pool forkjoin timedwait ticks"); VARIANTS (default "annotated plain"); RUNS
# (real runs per point, default 7); REPEAT (dps whatif --repeat, default RUNS); UNIT (the
# programs' --unit: loop iterations per work unit, default theirs); TINY=1 (RUNS=1, UNIT=20000);
# OUT (results page, default bench/results/whatif-sync.md; the plots go beside it); WORK (work
# directory, kept; default a fresh /tmp one, removed unless KEEP=1); REPORT_ONLY=1 with WORK=DIR:
# rewrite the page from DIR's saved measurements.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
bin=$build/bench/sync
if [ -z "${DPS:-}" ]; then
    if [ -x "$build/cli/dps" ]; then
        DPS=$build/cli/dps
    else
        DPS=$(command -v dps || true)
    fi
fi
if [ -z "$DPS" ] || [ ! -x "$DPS" ]; then
    echo "whatif-sync.sh: no dps (build first, pass the build dir, or set DPS)" >&2
    exit 2
fi
if [ ! -x "$bin/dps-sync-fit-curve" ]; then
    echo "whatif-sync.sh: no bench programs in $bin (cmake --build --preset dev first)" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ] && [ "${REPORT_ONLY:-0}" != 1 ]; then
    echo "whatif-sync.sh: needs root: dps record's kernel scheduling comes from perf" >&2
    exit 2
fi
if [ "${TINY:-0}" = 1 ]; then
    RUNS=${RUNS:-1}
    UNIT=${UNIT:-20000}
fi

if [ -n "${WORK:-}" ]; then
    work=$WORK
    mkdir -p "$work"
else
    work=$(mktemp -d /tmp/dps-bench-whatif-sync-XXXXXX)
    if [ "${KEEP:-0}" != 1 ]; then
        trap 'rm -rf "$work"' EXIT
    fi
fi

report_only=()
if [ "${REPORT_ONLY:-0}" = 1 ]; then
    report_only=(--report-only)
fi
python3 "$here/bench/whatif-sync.py" --dps "$(realpath "$DPS")" --bin "$bin" \
    --fit "$bin/dps-sync-fit-curve" --work "$work" \
    --out "${OUT:-$here/bench/results/whatif-sync.md}" \
    --programs "${PROGRAMS:-pipeline pool forkjoin timedwait ticks}" \
    --variants "${VARIANTS:-annotated plain}" --runs "${RUNS:-7}" --repeat "${REPEAT:-0}" \
    --unit "${UNIT:-}" "${report_only[@]}"
