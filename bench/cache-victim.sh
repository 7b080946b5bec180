#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The co-running victim (doc/cache.md, "Checked by a co-running victim"; issue 28's check (b)):
# a victim thread walking a fixed working set in the last-level cache is slowed by an original
# kernel by X %; the cache stub playing that kernel's captured figures with the same CPU time
# must slow it by X +- 2 points, and a register-only run of the same CPU time by about 0.
#
# The victim (dps-bench-cache-victim victim) chases pointers in a random cycle over VICTIM_WS
# bytes (default: half of the last level dps detects, the level the stub aims at; 512 KiB of
# the 1 MiB level 2 on the AMD VMs of 2026-11-29, 1 MiB of the 2 MiB level 2 on the Intel ones
# since). On the AMD VMs the two vCPUs shared no cache level a co-runner could be seen through
# (a 64 MiB stream on the other CPU left the victim's time unchanged, at 512 KiB and at 4 MiB);
# the Intel ones share their L3 only, beyond the private L2 the victim's set is in. So victim
# and co-runners are pinned to the same CPU (sched_setaffinity;
# taskset for the kernels) and time-share it, in turns the victim sets: a co-runner runs for
# 1.5 ms (about a time slice of this kernel's scheduler) while the others are stopped
# (SIGSTOP), then the victim walks its set 8 times, timed, and refills what the co-runner pushed
# out.
#
# Per kernel (stream, chase, matmul, hash) and working set (SIZES, default a quarter of the last
# level, the last level and 16 MiB: below, at and above it), six conditions, interleaved turn by
# turn (alone, original, stub, stubgeo, plain, alone2, alone, ...) for TRIAL_SECONDS, the victim's figure per condition its turns' mean ns
# per access without the slowest and fastest tenth; ROUNDS such trials:
#   alone     the victim alone on the CPU (it sleeps the co-runner's turn)
#   original  after a turn of the kernel itself (dps-bench-cache-KERNEL --ws WS, repeating)
#   stub      after a turn of dps_cache_play of the kernel's figures: its `dps cache capture
#             --footprint` figures (loads + stores, stores, D1 and LL misses, and the
#             footprint that sizes the stub's warm region) for UNIT_NS of its CPU time
#             (the kernel's own CPU time per repetition, measured natively), played again and
#             again
#   stubgeo   the same stub without the footprint: its warm region sized from the geometry
#             alone (the stub of before --footprint), paired with stub in the same rounds
#   plain     after a turn of dps_run_ns(UNIT_NS, DPS_RUN_CPU) again and again: a plain `run`
#   alone2    alone again: alone vs alone2 is the re-run floor
# The slowdown of a condition in a round is its ns per access over that round's `alone`.
#
# Usage: bench/cache-victim.sh [BUILD_DIR]   (default build/dev; about 10 min)
# Environment: VICTIM_WS, SIZES, KERNELS, ROUNDS (8), TRIAL_SECONDS (2),
# CPU (1), UNIT_NS (2000000).
# Writes bench/results/cache-victim.md, cache-victim.tsv (every trial), cache-victim-figures.tsv
# (each row's captured figures, footprint and the stub's unit) and cache-victim.svg.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$src/build/dev}}
results=$src/bench/results
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target dps dps-bench-cache-stream dps-bench-cache-chase \
    dps-bench-cache-matmul dps-bench-cache-hash dps-bench-cache-victim dps-bench-cache-stub >/dev/null
ll=$("$build/bench/dps-bench-cache-stub" --geometry | cut -d' ' -f3)
victim_ws=${VICTIM_WS:-$((ll / 2))}
read -r -a sizes <<<"${SIZES:-$((ll / 4)) $ll 16777216}"
read -r -a kernels <<<"${KERNELS:-stream chase matmul hash}"
rounds=${ROUNDS:-8}
seconds=${TRIAL_SECONDS:-2}
delay=0.5 # the co-runners' own set-up, before the victim starts
corunner_seconds=$(echo "$delay + $seconds + 0.3" | bc)
cpu=${CPU:-1}
unit_ns=${UNIT_NS:-2000000}
work=$(mktemp -d /tmp/dps-bench-cache-victim.XXXXXX)
corunners=()
cleanup() {
    for pid in "${corunners[@]}"; do
        kill -CONT "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

dps=$build/cli/dps
victim=$build/bench/dps-bench-cache-victim
command -v valgrind >/dev/null || {
    echo "cache-victim.sh: valgrind not found (scripts/setup.sh installs it)" >&2
    exit 1
}

# As bench/cache.sh: passes so that every size moves at least 4 MiB; matmul 8 tiles.
reps_for() {
    local kernel=$1 ws=$2
    if [ "$kernel" = matmul ]; then
        echo 8
    else
        local r=$((4194304 / ws))
        echo $((r < 1 ? 1 : r))
    fi
}

# kernel_cpu KERNEL WS REPS: the kernel function's CPU ns (its own cpu_ns=, set-up excluded),
# the least of two runs.
kernel_cpu() {
    local best="" t
    for _ in 1 2; do
        t=$("$build/bench/dps-bench-cache-$1" --ws "$2" --reps "$3" | sed -n 's/.*cpu_ns=//p')
        if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
    done
    echo "$best"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
date_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
tsv=$work/trials.tsv
meta=$work/meta.tsv
printf 'kernel\tws\tround\tcondition\tns_per_access\tload1\tnote\n' >"$tsv"
printf 'kernel\tws\treps\taccesses\tstores\td1\tll\tkernel_cpu_ns\tunit_acc\tunit_st\tunit_d1\tunit_ll\tfootprint\n' >"$meta"
for kernel in "${kernels[@]}"; do
    for ws in "${sizes[@]}"; do
        reps=$(reps_for "$kernel" "$ws")
        "$dps" cache capture --footprint -o "$work/k.cache" --function "kernel_$kernel" -- \
            "$build/bench/dps-bench-cache-$kernel" --ws "$ws" --reps "$reps" \
            >/dev/null 2>"$work/err" || {
            cat "$work/err" >&2
            exit 1
        }
        read -r _ _ ld st d1 ll _ < <(grep " kernel_$kernel\$" "$work/k.cache")
        # the curve line after the function's: curve KNEE BYTES MISSES...
        read -r _ _ foot _ < <(grep -A1 " kernel_$kernel\$" "$work/k.cache" | grep '^curve ')
        # the kernel's CPU time for those reps, natively: timed over enough reps for 0.2 s
        t=$(kernel_cpu "$kernel" "$ws" "$reps")
        mult=$(((200000000 + t - 1) / (t > 0 ? t : 1)))
        mult=$((mult < 1 ? 1 : mult))
        t=$(kernel_cpu "$kernel" "$ws" $((reps * mult)))
        # the figures for UNIT_NS of the kernel's CPU time
        read -r ua us u1 u2 < <(awk -v a=$((ld + st)) -v s="$st" -v m1="$d1" -v m2="$ll" \
            -v t="$t" -v m="$mult" -v u="$unit_ns" 'BEGIN {
                f = u * m / t; ua = int(a * f + 0.5); if (ua < 1) ua = 1
                printf "%d %d %d %d\n", ua, int(s * f + 0.5), int(m1 * f + 0.5), int(m2 * f + 0.5) }')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kernel" "$ws" "$reps" \
            $((ld + st)) "$st" "$d1" "$ll" $((t / mult)) "$ua" "$us" "$u1" "$u2" "${foot:-0}" >>"$meta"
        echo "cache-victim.sh: $kernel ws=$ws: $ua accesses, $u1 D1 and $u2 LL misses per" \
            "$unit_ns ns of CPU; footprint ${foot:-none}" >&2
        for round in $(seq 1 "$rounds"); do
            taskset -c "$cpu" "$build/bench/dps-bench-cache-$kernel" --ws "$ws" \
                --reps 4000000000 >/dev/null &
            original=$!
            corunners=("$original")
            "$victim" stub --seconds "$corunner_seconds" --cpu "$cpu" ${foot:+--footprint "$foot"} \
                "$ua" "$us" "$u1" "$u2" "$unit_ns" >"$work/stub" &
            stub=$!
            corunners+=("$stub")
            # the same stub without the footprint (its warm region from the geometry), in the
            # same rounds: a paired check of what the footprint changes
            "$victim" stub --seconds "$corunner_seconds" --cpu "$cpu" \
                "$ua" "$us" "$u1" "$u2" "$unit_ns" >"$work/stubgeo" &
            stubgeo=$!
            corunners+=("$stubgeo")
            "$victim" plain --seconds "$corunner_seconds" --cpu "$cpu" "$unit_ns" >"$work/plain" &
            plain=$!
            corunners+=("$plain")
            sleep "$delay"
            "$victim" victim --ws "$victim_ws" --seconds "$seconds" --cpu "$cpu" \
                --slots "0,$original,$stub,$stubgeo,$plain,0" >"$work/victim"
            kill "$original"
            wait "$original" 2>/dev/null || true
            wait "$stub" "$stubgeo" "$plain"
            corunners=()
            # victim ws W turn_ns T passes P slot0 turns N mean M median X trimmed Y slot1 ...
            read -r -a f <"$work/victim"
            # stub plays N cpu_ns T over O kernel_cpu_ns K
            note=$(awk '{printf "plays=%s cpu_ns=%s over=%s kernel_cpu_ns=%s", $3, $5, $7, $9}' \
                "$work/stub")
            i=0
            for cond in alone original stub stubgeo plain alone2; do
                # slot i: fields 7 + 9 * i .. (slotI turns N mean M median X trimmed Y)
                b=$((7 + 9 * i))
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kernel" "$ws" "$round" "$cond" \
                    "${f[$((b + 8))]}" "$(cut -d' ' -f1 /proc/loadavg)" \
                    "turns=${f[$((b + 2))]} mean=${f[$((b + 4))]} median=${f[$((b + 6))]}$([ "$cond" = stub ] && echo " $note")" \
                    >>"$tsv"
                i=$((i + 1))
            done
            echo "cache-victim.sh: $kernel ws=$ws round $round:" \
                "$(tail -n 6 "$tsv" | cut -f4,5 | tr '\t\n' '= ')" >&2
        done
    done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

name=cache-victim
cp "$tsv" "$results/$name.tsv"
cp "$meta" "$results/$name-figures.tsv"
python3 "$src/bench/cache-victim.py" --trials "$tsv" --meta "$meta" \
    --md "$results/$name.md" --svg "$results/$name.svg" \
    --info "date=$date_start" --info "load_start=$load_start" --info "load_end=$load_end" \
    --info "victim_ws=$victim_ws" --info "cpu=$cpu" --info "seconds=$seconds" \
    --info "rounds=$rounds" --info "unit_ns=$unit_ns" --info "nproc=$(nproc)" \
    --info "geometry=$("$build/bench/dps-bench-cache-stub" --geometry)"
echo "cache-victim.sh: wrote $results/$name.md" >&2
