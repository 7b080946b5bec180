#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cache stub's own CPU time against the kernels it plays (doc/cache.md, "The cache stub";
# issue 28): for each row of bench/results/cache-victim-figures.tsv (a kernel at a working set,
# and its captured figures for UNIT_NS of the kernel's own CPU time), dps-bench-cache-stub
# plays the figures RUNS times on CPU 1; the median of its kernel's CPU time over UNIT_NS is
# the row's figure (1: the stub keeps to the kernel's pace; 4: it takes four times the
# kernel's CPU time for the same accesses and misses). BASE (a commit) builds the stub of that
# commit in a scratch worktree and measures it in the same run, row by row, beside this one.
#
# Usage: BASE=58a4b43 bench/cache-stub-cost.sh [BUILD_DIR]   (default build/dev; a minute,
# plus the base's build)
# Writes bench/results/cache-stub-cost.md.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$src/build/dev}}
figures=$src/bench/results/cache-victim-figures.tsv
out=$src/bench/results/cache-stub-cost.md
runs=${RUNS:-5}
unit_ns=${UNIT_NS:-2000000}
cpu=${CPU:-1}
work=$(mktemp -d /tmp/dps-bench-stub-cost.XXXXXX)
cleanup() {
    if [ -n "${BASE:-}" ] && [ -d "$work/base" ]; then
        git -C "$src" worktree remove --force "$work/base" >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

[ -f "$figures" ] || {
    echo "cache-stub-cost.sh: $figures not found: run bench/cache-victim.sh first" >&2
    exit 1
}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target dps-bench-cache-stub >/dev/null
stubs=("$build/bench/dps-bench-cache-stub")
# a tree with changes not committed is HEAD+
names=("$(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet HEAD -- runtime || echo +)")
if [ -n "${BASE:-}" ]; then
    echo "cache-stub-cost.sh: building the stub of $BASE" >&2
    git -C "$src" worktree add --detach "$work/base" "$BASE" >/dev/null 2>&1
    cmake -S "$work/base" -B "$work/base-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DBUILD_TESTING=OFF >/dev/null
    cmake --build "$work/base-build" -j2 --target dps-bench-cache-stub >/dev/null
    stubs+=("$work/base-build/bench/dps-bench-cache-stub")
    names+=("$(git -C "$src" rev-parse --short "$BASE")")
fi

# median kernel_cpu_ns of RUNS plays of the figures by stub $1
play() {
    local stub=$1
    shift
    for _ in $(seq "$runs"); do
        taskset -c "$cpu" "$stub" "$@" | sed -n 's/^kernel_cpu_ns \([0-9]*\) .*/\1/p'
    done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

rows=$work/rows.tsv
tail -n +2 "$figures" | while IFS=$'\t' read -r kernel ws _ _ _ _ _ _ acc st d1 ll footprint _; do
    line="$kernel	$ws	$acc	$d1	$ll	$footprint"
    for s in "${stubs[@]}"; do
        ns=$(play "$s" "$acc" "$st" "$d1" "$ll" 0 "${footprint:-0}")
        line="$line	$ns"
    done
    echo "cache-stub-cost.sh: $line" >&2
    echo "$line"
done > "$rows"

{
    echo "# The cache stub's own CPU time"
    echo
    echo "\`bench/cache-stub-cost.sh\` ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, \`$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')\`; the geometry libdps detects: \`$("$build/bench/dps-bench-cache-stub" --geometry)\`)."
    echo "Each row: a kernel's captured figures for $((unit_ns / 1000)) µs of its own CPU time"
    echo "(bench/results/cache-victim-figures.tsv) and its footprint, played by \`dps-bench-cache-stub\` $runs times on CPU $cpu;"
    echo "the median of the stub kernel's CPU time over $((unit_ns / 1000)) µs. 1: the stub keeps to the"
    echo "kernel's pace; above 1, it takes that many times the kernel's CPU time for the same"
    echo "accesses and misses (\`over\` in a set). Stubs: ${names[*]} (the first is this tree's)."
    echo
    printf "| kernel | working set | accesses | D1 misses | LL misses | footprint |"
    for n in "${names[@]}"; do printf " %s: CPU / kernel's |" "$n"; done
    echo
    printf "|---|---|---|---|---|---|"
    for _ in "${names[@]}"; do printf -- "---|"; done
    echo
    awk -F'\t' -v unit="$unit_ns" '{
        ws = $2 >= 1048576 ? ($2 / 1048576) " MiB" : ($2 / 1024) " KiB"
        fp = $6 >= 1048576 ? ($6 / 1048576) " MiB" : ($6 / 1024) " KiB"
        printf "| %s | %s | %s | %s | %s | %s |", $1, ws, $3, $4, $5, fp
        for (i = 7; i <= NF; i++) printf " %.2f x |", $i / unit
        printf "\n"
    }' "$rows"
} > "$out"
echo "cache-stub-cost.sh: wrote $out" >&2
