#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A by-hand try beside bench/cache-victim.sh (doc/cache.md, "Checked by a co-running victim",
# "What they show"): does the cache stub slow the victim less because its cold region (four
# times dps's last level, 4 MiB here) is held by the real L3 behind it? The same turns as
# cache-victim.sh, with one more co-runner: the stub told a 32 MiB last level by
# DPS_CACHE_GEOMETRY (a 128 MiB cold region). Slots: alone, original, stub, stub with the
# 128 MiB region, plain; 3.5 s for the co-runners' set-up (the big region's takes about 1 s of
# CPU), then 2 s of turns; TRIALS trials (4). Prints each trial's slowdowns over alone and
# each stub's plays.
#
# Usage: bench/cache-victim-cold.sh KERNEL WS ACCESSES STORES D1_MISSES LL_MISSES [BUILD_DIR]
#   the figures of one play as bench/cache-victim.sh gives them to the stub (the unit_* columns
#   of the cache-victim-figures.tsv it writes), e.g. the run doc/cache.md quotes:
#   bench/cache-victim-cold.sh stream 16777216 10752851 5376425 672061 672061
set -euo pipefail

[ $# -ge 6 ] || {
    grep '^# Usage' -A 3 "$0" >&2
    exit 2
}
src=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 ws=$2
figures=("$3" "$4" "$5" "$6")
build=${7:-${DPS_BUILD_DIR:-$src/build/dev}}
bench=$build/bench
victim=$bench/dps-bench-cache-victim
cpu=${CPU:-1}
unit_ns=2000000
work=$(mktemp -d /tmp/dps-bench-cache-victim-cold.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill -CONT "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq 1 "${TRIALS:-4}"); do
    taskset -c "$cpu" "$bench/dps-bench-cache-$kernel" --ws "$ws" --reps 4000000000 >/dev/null &
    original=$!
    "$victim" stub --seconds 5.8 --cpu "$cpu" "${figures[@]}" "$unit_ns" >"$work/stub" &
    stub=$!
    DPS_CACHE_GEOMETRY="49152,12,64 33554432,16,64" \
        "$victim" stub --seconds 5.8 --cpu "$cpu" "${figures[@]}" "$unit_ns" >"$work/stub-big" &
    big=$!
    "$victim" plain --seconds 5.8 --cpu "$cpu" "$unit_ns" >/dev/null &
    plain=$!
    pids=("$original" "$stub" "$big" "$plain")
    sleep 3.5
    "$victim" victim --ws 524288 --seconds 2 --cpu "$cpu" \
        --slots "0,$original,$stub,$big,$plain" | grep -o 'trimmed [0-9.]*' |
        awk -v k="$kernel" -v ws="$ws" '{ v[NR] = $2 } END {
            printf "%s %s alone %.3f original %+.1f%% stub %+.1f%% stub-128MiB %+.1f%% plain %+.1f%%\n",
                k, ws, v[1], 100 * (v[2] / v[1] - 1), 100 * (v[3] / v[1] - 1),
                100 * (v[4] / v[1] - 1), 100 * (v[5] / v[1] - 1) }'
    kill "$original"
    wait "$original" 2>/dev/null || true
    wait "$stub" "$big" "$plain"
    pids=()
    echo "   stub: $(cat "$work/stub")"
    echo "   stub-128MiB: $(cat "$work/stub-big")"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
