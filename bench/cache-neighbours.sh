#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --cache-outcome checked against the real program changed the same way (doc/cache.md,
# "Outcome"; issue 28's item 4 on a validation program): what a memory-bound thread's cache
# behaviour costs its neighbour.
#
# The program (bench/cache/neighbours.c, dps-bench-cache-neighbours) is a two-stage pipeline on
# one CPU (taskset -c CPU): a thread "scanner" sums the next stretch of an array of SCAN_WS
# bytes and hands over (a POSIX semaphore) to a thread "lookup", which probes a 512 KiB hash
# table and hands back, 2,000 times. The witness is the kernel's CPU accounting of each thread
# (perf record -e sched:sched_stat_runtime, summed per thread name).
#
#   real      the program at SCAN_WS = 16 MiB (the scanner's stretches push the table out of
#             the 2 MiB last level) and at 16 KiB (they do not), RUNS times each: the real
#             cost to the lookup thread, real Δ = lookup CPU at 16 MiB − at 16 KiB
#   replay    the program at 16 MiB recorded (dps record), analyzed, captured under
#             cachegrind with --footprint (scan_pass, lookup_batch), the figures applied to each
#             thread (dps cache apply), and the stub played with --cache-outcome, RUNS times:
#             with the scanner's figures (stub MO) and without them (stub O: the scanner a
#             plain run of its CPU time); predicted Δ = lookup CPU in MO − in O
#   diag      stub MO with the lookup's footprint set to the table's 512 KiB by hand (the
#             capture's is the whole process's: cachegrind simulates one cache for all threads,
#             so the scanner's data are in the lookup's miss curve)
#
# Usage: bench/cache-neighbours.sh [BUILD_DIR]   (default build/dev; about 4 min)
# Environment: RUNS (5), CPU (1). Writes bench/results/cache-neighbours.md.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$src/build/dev}}
out=$src/bench/results/cache-neighbours.md
runs=${RUNS:-5}
cpu=${CPU:-1}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target dps dps-runtime dps-bench-cache-neighbours \
    dps-bench-cache-stub >/dev/null
dps=$build/cli/dps
prog=$build/bench/dps-bench-cache-neighbours
work=$(mktemp -d /tmp/dps-bench-neighbours.XXXXXX)
trap 'rm -rf "$work"' EXIT
for tool in valgrind perf taskset; do
    command -v "$tool" >/dev/null || {
        echo "cache-neighbours.sh: $tool not found (scripts/setup.sh installs it)" >&2
        exit 1
    }
done
args=(--table-ws 524288 --lookups 4000000 --scan-elems 100000000 --rounds 2000)

# witness NAME CMD...: runs CMD on CPU $cpu under perf, prints "scanner_ms lookup_ms" (the
# kernel's sched_stat_runtime of the threads so named, summed)
witness() {
    local name=$1
    shift
    taskset -c "$cpu" perf record -q -e sched:sched_stat_runtime -o "$work/$name.data" -- "$@" \
        >"$work/$name.out" 2>"$work/$name.err" || {
        cat "$work/$name.err" >&2
        exit 1
    }
    perf script -i "$work/$name.data" -F event,trace 2>/dev/null | awk '
        { for (i = 1; i <= NF; i++) { if ($i ~ /^comm=/) c = substr($i, 6); if ($i ~ /^runtime=/) r = substr($i, 9) }
          t[c] += r }
        END { printf "%.3f %.3f\n", t["scanner"] / 1e6, t["lookup"] / 1e6 }'
}

echo "cache-neighbours.sh: recording, analyzing, capturing (about a minute)" >&2
taskset -c "$cpu" "$dps" record -o "$work/rec" -- "$prog" --scan-ws 16777216 "${args[@]}" \
    >/dev/null 2>"$work/record.err" || {
    cat "$work/record.err" >&2
    exit 1
}
"$dps" analyze "$work/rec" -o "$work/set" >"$work/analyze.txt" 2>&1
# the recording's busy time per thread (what the stubs replay): id tid comm parent busy_ms ...
recorded=$(awk '$3 == "scanner" && $4 ~ /^[0-9]+$/ {s = $5} $3 == "lookup" && $4 ~ /^[0-9]+$/ {l = $5}
    END {printf "%s %s", s, l}' "$work/analyze.txt")
"$dps" cache capture --footprint -o "$work/cap" --function scan_pass --function lookup_batch \
    -- "$prog" --scan-ws 16777216 "${args[@]}" >"$work/capture.txt" 2>"$work/capture.err" || {
    cat "$work/capture.err" >&2
    exit 1
}
"$dps" cache apply "$work/set" "$work/cap" --thread-comm lookup --function lookup_batch \
    -o "$work/setO" >"$work/applyO.txt" 2>&1
"$dps" cache apply "$work/setO" "$work/cap" --thread-comm scanner --function scan_pass \
    --allow-over -o "$work/setMO" >"$work/applyMO.txt" 2>&1
cp -r "$work/setMO" "$work/setMOf"
lookup_id=$(awk '$1 == "thread" && /comm "lookup"/ {print $2}' "$work/setMOf/manifest")
sed -i 's/ footprint [0-9]*$/ footprint 524288/' "$work/setMOf/$lookup_id.act"
for s in O MO MOf; do
    "$dps" build "$work/set$s" -o "$work/stub$s" >/dev/null 2>&1
done
lookup_fp=$(grep -A1 " lookup_batch$" "$work/cap" | awk '/^curve/ {print $2, $3}')
scan_fp=$(grep -A1 " scan_pass$" "$work/cap" | awk '/^curve/ {print $2, $3}')

tsv=$work/runs.tsv
printf 'run\tcondition\tscanner_ms\tlookup_ms\n' >"$tsv"
# the quiet cache's costs --cache-outcome measures (ns an access: load store warm cold), for
# no footprint and for the lookup's
costs="$("$build/bench/dps-bench-cache-stub" --costs 0) / $("$build/bench/dps-bench-cache-stub" \
    --costs "$(awk '{print $2}' <<<"$lookup_fp")")"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
date_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
for r in $(seq 1 "$runs"); do
    # interleaved, so that the machine's drift falls on every condition alike
    for cond in real16M real16K stubMO stubO stubMOf; do
        case $cond in
        real16M) set -- "$prog" --scan-ws 16777216 "${args[@]}" ;;
        real16K) set -- "$prog" --scan-ws 16384 "${args[@]}" ;;
        *) set -- "$work/$cond" --cache-outcome --no-summary ;;
        esac
        read -r sc lk < <(witness "$cond-$r" "$@")
        printf '%s\t%s\t%s\t%s\n' "$r" "$cond" "$sc" "$lk" >>"$tsv"
        echo "cache-neighbours.sh: run $r $cond: scanner $sc ms, lookup $lk ms" >&2
    done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
cp "$tsv" "$src/bench/results/cache-neighbours.tsv"

python3 - "$tsv" "$out" "$date_start" "$load_start" "$load_end" "$runs" "$lookup_fp" \
    "$scan_fp" "$(nproc)" "$recorded" "$costs" <<'EOF'
import csv, statistics, sys
tsv, out, date, l0, l1, runs, lfp, sfp, nproc, recorded, costs = sys.argv[1:]
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
def vals(cond, k):
    return [float(r[k]) for r in rows if r["condition"] == cond]
def cell(xs):
    return f"{statistics.median(xs):.1f} [{min(xs):.1f}, {max(xs):.1f}]"
def delta(a, b):
    # the median of the runs' differences (each run's conditions ran back to back)
    d = [x - y for x, y in zip(vals(a, "lookup_ms"), vals(b, "lookup_ms"))]
    return statistics.median(d), min(d), max(d)
real = delta("real16M", "real16K")
pred = delta("stubMO", "stubO")
diag = delta("stubMOf", "stubO")
w = []
w.append("# --cache-outcome against the real program: a scanner's cost to its neighbour")
w.append("")
w.append(f"`bench/cache-neighbours.sh` (doc/cache.md, \"Outcome\"), {date}, {nproc} CPUs, the "
         f"program and the stubs on one CPU; load (1, 5, 15 min) {l0} at the start, {l1} at the end. "
         "Witness: the kernel's `sched_stat_runtime` per thread (perf). "
         f"{runs} runs of each condition, interleaved; median [min, max], in ms of CPU.")
w.append("")
w.append(f"The capture's footprints: lookup_batch {lfp}, scan_pass {sfp} (the knee's kind and bytes).")
w.append("")
w.append(f"The quiet cache's costs the stubs measure (`dps-bench-cache-stub --costs`, ns an access: "
         f"load, store, warm miss, cold miss), without a footprint / with the lookup's: {costs}.")
w.append("")
w.append("| condition | scanner CPU | lookup CPU |")
w.append("|---|---|---|")
rs, rl = (recorded.split() + ["–", "–"])[:2]
w.append(f"| the recording the stubs replay (`dps analyze`'s busy time) | {rs} | {rl} |")
names = {"real16M": "real, scanner over 16 MiB", "real16K": "real, scanner over 16 KiB",
         "stubMO": "stub with both threads' figures (MO)",
         "stubO": "stub with the lookup's figures only (O)",
         "stubMOf": "MO, the lookup's footprint set to 512 KiB by hand"}
for c in ("real16M", "real16K", "stubMO", "stubO", "stubMOf"):
    w.append(f"| {names[c]} | {cell(vals(c, 'scanner_ms'))} | {cell(vals(c, 'lookup_ms'))} |")
w.append("")
w.append("| the scanner's cost to the lookup thread | median [min, max] ms | against real |")
w.append("|---|---|---|")
for name, d in (("real: 16 MiB − 16 KiB", real), ("predicted: MO − O", pred),
                ("MO with the footprint by hand − O", diag)):
    ratio = f"{d[0] / real[0]:.2f} x" if real[0] else "–"
    w.append(f"| {name} | {d[0]:+.1f} [{d[1]:+.1f}, {d[2]:+.1f}] | {ratio} |")
w.append("")
w.append("Every run: `cache-neighbours.tsv`.")
open(out, "w").write("\n".join(w) + "\n")
EOF
echo "cache-neighbours.sh: wrote $out" >&2
