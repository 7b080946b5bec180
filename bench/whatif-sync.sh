#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dps whatif checked against real programs (issue 13, item 2; issue 24, item 4; doc/whatif.md,
# "Checked against real programs"): for each program of bench/sync/ and one component, the real
# program's makespan with the component's work scaled 0.25x to 2x (median of RUNS runs per
# point, timed from outside) against dps whatif's prediction from one recording at scale 1; in
# up to three variants: with annotations, without (recorded with --sync), and kernel (the
# program without annotations recorded without --sync: the kernel's events only). The
# programs: a pipeline with bounded queues, a thread pool, a fork-join with a barrier, two
# timed condition waits (300 ms and 40 ms, held out), and one primitive each as real code uses
# it: a barrier of 3 parties, a semaphore-limited pool, a read-write-locked cache, OpenMP
# static and dynamic loops, a C++ std::thread pipeline, a pipe between two threads and
# between two processes; held out: a bounded buffer on two semaphores, an atomic-counter pool,
# an OpenMP critical section, a barrier of two workers. Writes bench/results/whatif-sync.md
# and, beside it, whatif-sync/NAME-VARIANT.svg (both curves) and NAME-VARIANT-whatif.html
# (dps whatif's report). Needs root (dps record's perf sched record). About 15 minutes per 5
# programs in two variants on an idle 2-core machine.
#
#   bench/whatif-sync.sh [BUILD_DIR]          (default: $DPS_BUILD_DIR, else build/dev)
#   DPS=/usr/bin/dps bench/whatif-sync.sh     (another dps; the programs still come from BUILD_DIR)
#   TINY=1 OUT=/tmp/ws.md bench/whatif-sync.sh   (a check that it works: 1 run, 50x less work)
#   REAL_ONLY=1 RUNS=3 SCALES="0.25 0.5 1 1.5 2" bench/whatif-sync.sh
#                                             (the real programs alone, medians printed; no dps)
#
# Environment: DPS (the dps to check; default BUILD_DIR/cli/dps, else dps on PATH); PROGRAMS
# (default all of them, bench/whatif-sync.py's table); VARIANTS (default "annotated plain"; add
# "kernel"; a program runs those it has); RUNS (real runs per point, default 7); REPEAT (dps
# whatif --repeat, default RUNS); UNIT (the programs' --unit: loop iterations per work unit,
# default theirs); TINY=1 (RUNS=1, UNIT=20000); OUT (results page, default
# bench/results/whatif-sync.md; the plots go beside it); WORK (work directory, kept; default a
# fresh /tmp one, removed unless KEEP=1); REPORT_ONLY=1 with WORK=DIR: rewrite the page from
# DIR's saved measurements; REAL_ONLY=1: the real programs only, their medians on stdout, with
# SCALES (default the sweep's 0.25 to 2 by 0.25); RETRIES (a real run during which other
# processes used over 10 % of the CPUs is run again, up to RETRIES times; default 0); MERGE=1
# with WORK=DIR: the PROGRAMS run now replace theirs in DIR's saved results, the others' stay.
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
if [ "$(id -u)" != 0 ] && [ "${REPORT_ONLY:-0}" != 1 ] && [ "${REAL_ONLY:-0}" != 1 ]; then
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

mode=()
if [ "${REPORT_ONLY:-0}" = 1 ]; then
    mode=(--report-only)
elif [ "${REAL_ONLY:-0}" = 1 ]; then
    mode=(--real-only --scales "${SCALES:-}" --retries "${RETRIES:-0}")
else
    mode=(--retries "${RETRIES:-0}")
    if [ "${MERGE:-0}" = 1 ]; then
        mode+=(--merge)
    fi
fi
if [ -n "${PROGRAMS:-}" ]; then
    mode+=(--programs "$PROGRAMS")
fi
python3 "$here/bench/whatif-sync.py" --dps "$(realpath "$DPS")" --bin "$bin" \
    --fit "$bin/dps-sync-fit-curve" --work "$work" \
    --out "${OUT:-$here/bench/results/whatif-sync.md}" \
    --variants "${VARIANTS:-annotated plain}" --runs "${RUNS:-7}" --repeat "${REPEAT:-0}" \
    --unit "${UNIT:-}" "${mode[@]}"
