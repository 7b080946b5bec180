#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Main-memory stubs, proof of concept like the memory-stub paper's section 5:
#   (a) a real program with a known heap/stack pattern (examples/memory/mempattern.c), recorded
#       with dps record --memory (LTTng UST libc wrapper + dps_stack probe), analyzed to an
#       action set; once with short pauses, once with long ones (a curve of seconds, like the
#       paper's 4.8 s);
#   (b) the ls-ust trace (lttng_ust_libc + lttng_ust_cyg_profile) analyzed to an action set;
#   (c) a synthetic random walk (600 points 2 ms apart, changes of any size: recorded frames
#       are multiples of 16 bytes, this is not);
# then every thread's heap/stack curve is replayed by the stub, measured at every point (heap
# with mallinfo2, stack with the stack pointer), against the desired curve; the paper's
# algorithm as printed (no compensation) is the floor measured in the same run.
#
# Usage: bench/memory.sh [BUILD_DIR]     (default: build/dev; configured if missing)
# Writes bench/results/memory.md and bench/results/memory-curves.html.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$src/build/dev}}
runs=${DPS_BENCH_RUNS:-5}
out=$src/bench/results/memory.md
html=$src/bench/results/memory-curves.html
work=$(mktemp -d /tmp/dps-bench-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target dps memory-pattern dps-bench-memory-replay >/dev/null
dps=$build/cli/dps

# The replay is measured with glibc's per-thread cache off (doc/memory.md: it keeps freed
# chunks counted as in use); the calibration is measured the same way.
export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
"$dps" calibrate --memory -o "$work/memory.cal" 2>/dev/null
export DPS_MEM_CALIBRATION=$work/memory.cal

notes=()
# Records the pattern program with pause $2 us into set $1.
record_pattern() {
    local name=$1 pause=$2 pid
    env -u GLIBC_TUNABLES "$dps" record --memory -q -o "$work/rec-$name" -- \
        "$build/examples/memory/memory-pattern" "$pause" >/dev/null
    pid=$(awk '$1 == "pid" { print $2 }' "$work/rec-$name/record.info")
    if ! "$dps" analyze "$work/rec-$name" --pid "$pid" -o "$work/$name" -q 2>"$work/err"; then
        # The memory curves come from the UST part alone; kernel scheduling only splits the
        # time between points into run and sleep, which the replay adds up anyway.
        notes+=("$name: dps analyze of the whole recording failed ($(head -c 200 "$work/err")); analyzed its UST part.")
        "$dps" analyze "$work/rec-$name/ust" --pid "$pid" -o "$work/$name" -q
    fi
}
record_pattern pattern 2000
record_pattern pattern-long 50000

# The whole pipeline on the pattern: its action set played by dps run (the player calls the
# same stubs), recorded the same way, compared with the original by dps compare, whose HTML
# report draws the memory curves side by side. UST only on both sides: with the kernel part,
# the LTTng listener threads of the original and of dps run itself are threads too, and the
# memory curves would be compared across threads that do not correspond.
compare_pattern() {
    local pid sim_pid
    pid=$(awk '$1 == "pid" { print $2 }' "$work/rec-pattern/record.info")
    "$dps" analyze "$work/rec-pattern/ust" --pid "$pid" -o "$work/pattern-ust" -q \
        >/dev/null 2>&1 || return 1
    "$dps" record --no-kernel -q -o "$work/sim-pattern" -- "$dps" run "$work/pattern-ust" \
        --mode wall >/dev/null 2>&1 || return 1
    sim_pid=$(awk '$1 == "pid" { print $2 }' "$work/sim-pattern/record.info")
    "$dps" compare "$work/rec-pattern/ust" "$work/sim-pattern/ust" --orig-pid "$pid" \
        --sim-pid "$sim_pid" --html "$src/bench/results/memory-compare.html" \
        >"$work/compare.txt" 2>&1
}
if ! compare_pattern; then
    notes+=("dps run + dps compare of the pattern failed: $(tail -c 300 "$work/compare.txt" 2>/dev/null)")
fi

lsust=$src/tests/data/traces/ls-ust
[ -d "$lsust" ] || lsust=/work/shared/traces/ls-ust
# The copy in tests/data has a README next to the streams, which a CTF reader would take for
# a stream: analyze the trace files only.
mkdir "$work/ls-ust-trace"
cp -r "$lsust"/. "$work/ls-ust-trace"/
rm -f "$work/ls-ust-trace"/README*
"$dps" analyze "$work/ls-ust-trace" --pid 5035 -o "$work/ls-ust" -q

"$build/bench/dps-bench-memory-replay" --runs "$runs" --html "$html" pattern="$work/pattern" \
    pattern-long="$work/pattern-long" ls-ust="$work/ls-ust" synthetic=@synthetic >"$work/rows.md"

cal() { awk -v k="mem.$1" '$1 == k { print $2 }' "$work/memory.cal"; }
cyc=$(cal cycles_per_ns)
row() { # name, paper cycles (or -), our key
    local ns
    ns=$(cal "$3")
    awk -v n="$1" -v p="$2" -v ns="$ns" -v c="$cyc" 'BEGIN {
        pn = (p == "-") ? "-" : sprintf("%.1f", p / 2.26);
        printf("| %s | %s | %s | %.1f | %.0f |\n", n, p, pn, ns, ns * c) }'
}

{
    echo "# Main-memory stubs: desired vs measured (bench/memory.sh)"
    echo
    echo "Machine: $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; $(date -u '+%Y-%m-%d %H:%M UTC'); runs per curve: $runs."
    echo
    echo "Each thread's recorded heap/stack curve is replayed by \`dps_mem_stub_play\` and measured"
    echo "at every point: heap = mallinfo2 (uordblks + hblkhd) change minus the calibrated"
    echo "heap_overhead, stack = stack-pointer depth minus the calibrated stack_offset. \"heap raw\" is"
    echo "the mallinfo2 change without the overhead model (allocator chunk headers and rounding)."
    echo "Time overhead = (replayed - desired) / desired total time of the curve, in runs without the"
    echo "per-point measurement (it costs about as much as the gap between points of a dense curve);"
    echo "median and p90 over the runs. The floor is the paper's algorithm as printed (one alloca of the asked bytes per"
    echo "rise, no compensation), measured in the same run. Targets: heap 0 B, stack <= 64 B, time"
    echo "<= 0.1 %. \"synthetic\" is a fixed random walk with stack and heap changes of any size"
    echo "(recorded frames are multiples of 16 bytes), 600 points 2 ms apart."
    echo
    cat "$work/rows.md"
    echo
    for n in "${notes[@]+"${notes[@]}"}"; do echo "Note: $n"; echo; done
    echo "Curves (the paper's Figure 3): bench/results/memory-curves.html."
    echo
    if [ -s "$work/compare.txt" ]; then
        echo "The pattern's action set (from the UST part of its recording) played by"
        echo "\`dps run --mode wall\` (the player, same stubs), recorded, and compared with the original"
        echo "by \`dps compare\` (report: bench/results/memory-compare.html); its memory lines:"
        echo
        echo '```'
        grep -E '^(heap|stack) ' "$work/compare.txt" || true
        echo '```'
        echo
    fi
    echo "## Calibration on this machine next to the paper's (dps calibrate --memory)"
    echo
    echo "Paper: Core 2 Duo P8400 (2.26 GHz), cycles; ns = cycles / 2.26. This machine: ns measured,"
    echo "cycles = ns x the TSC rate ($(printf '%.3f' "$cyc") cycles/ns)."
    echo
    echo "| constant | paper cycles | paper ns | this machine ns | this machine cycles |"
    echo "|---|---|---|---|---|"
    row "time_basic (per point)" 126775 time_basic_ns
    row "time_heap alloc, page fault (eq. 5)" 3722 heap_alloc_fault_ns
    row "time_heap alloc, no fault (eq. 5)" 94 heap_alloc_nofault_ns
    row "time_heap use, per iteration (eq. 6)" 69 heap_use_iter_ns
    row "time_heap use, per extra fault (eq. 6)" 3252 heap_use_fault_ns
    row "time_stack alloc (eq. 7)" 48 stack_alloc_ns
    row "time_stack alloc, first fault (here)" - stack_alloc_fault_ns
    row "time_stack use, base (eq. 8)" 61 stack_use_base_ns
    row "time_stack use, per fault (eq. 8)" 3358 stack_use_fault_ns
    row "sleep lateness (delays wake this early)" - sleep_late_ns
    echo
    echo "time_basic squared coefficient of variation: $(cal time_basic_scv) (paper 0.009)."
    echo
    echo "| bytes | paper | this machine |"
    echo "|---|---|---|"
    echo "| heap_overhead, no heap / with heap | 32 / 40 | stub $(cal heap_offset_bytes); block: chunk = max($(cal heap_chunk_min_bytes), align_up(x + $(cal heap_chunk_header_bytes), $(cal heap_chunk_align_bytes))), mmapped + $(cal heap_mmap_header_bytes) to a page; model misses $(cal heap_model_misses) of 1100 sizes |"
    echo "| stack_offset | 216 | $(cal stack_offset_bytes) |"
    echo "| stack_overhead (per frame) | 64 | $(cal stack_overhead_bytes) |"
    echo "| alloca granularity | - | align_up(a + $(cal stack_alloca_extra_bytes), $(cal stack_align_bytes)) |"
} >"$out"
echo "bench/memory.sh: wrote $out and $html"
