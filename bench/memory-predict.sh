#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memory-use prediction checked against real runs (doc/memory-predict.md, issue 15):
#   two real programs whose heap grows with the input in different ways (bench/mp-wordidx.c:
#   a word index, hash table of entries with posting lists; bench/mp-tree.c: a parser building
#   a tree, with a phase that frees most of what it holds), each recorded with
#   dps record --memory at three small sizes, profiled (dps memory profile), and predicted at
#   4x and 16x the largest size (dps memory predict --size N), ours and the paper's plain
#   ratios; the real runs at those sizes measured by outside witnesses:
#     - heaptrack's "peak heap memory consumption" (it counts the requested sizes, like dps,
#       and also the ~0.1 MB that lttng-ust and the loader allocate, which dps leaves out);
#     - at 4x, the heap curve of the libc wrapper's events recomputed here by a few lines of
#       Python from babeltrace2's text (not dps's reconstruction): its peak and its
#       time-weighted average from the program's first heap event to its last, lttng-ust's
#       own allocations and frees and other processes (record.info's pid) left out as dps
#       does.
# Targets (issue 15): peak within 10 % at 4x and 20 % at 16x, average within 10 % at 4x, at
# least 90 % of the peak bytes attributed to a named class (a source line or a dps_mem_class).
#
# Usage: bench/memory-predict.sh [BUILD_DIR]     (default: build/dev; configured if missing)
# Writes bench/results/memory-predict.md. Needs lttng-tools, babeltrace2, heaptrack.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$src/build/dev}}
out=$src/bench/results/memory-predict.md
work=$(mktemp -d /tmp/dps-bench-mempredict.XXXXXX)
trap 'rm -rf "$work"' EXIT

for tool in heaptrack heaptrack_print babeltrace2 python3; do
    command -v "$tool" >/dev/null || { echo "memory-predict.sh: $tool not found (apt-get install heaptrack babeltrace2 python3)" >&2; exit 1; }
done
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target dps dps-bench-mp-wordidx dps-bench-mp-tree >/dev/null
dps=$build/cli/dps

# heaptrack's peak of PROG N, in bytes (heaptrack_print's units are powers of 1000).
heaptrack_peak() {
    local prog=$1 n=$2 f
    rm -f "$work"/ht.*
    heaptrack -o "$work/ht" "$prog" "$n" >/dev/null 2>&1
    f=$(find "$work" -maxdepth 1 \( -name 'ht.*zst' -o -name 'ht.*gz' \) | head -1)
    heaptrack_print -f "$f" 2>/dev/null | awk '/^peak heap memory consumption:/ {
        v = $5; u = substr(v, length(v)); n = v + 0
        m = (u == "K") ? 1e3 : (u == "M") ? 1e6 : (u == "G") ? 1e9 : 1
        printf "%.0f\n", n * m }'
}

# The libc wrapper's curve of a recording, recomputed: "peak avg" in bytes.
wrapper_curve() {
    local pid
    pid=$(awk '$1 == "pid" { print $2 }' "$1/record.info")
    babeltrace2 --clock-seconds -c flt.lttng-utils.debug-info "$1/ust" 2>/dev/null | python3 -c '
import re, sys
live, total, peak, area, t0, last = {}, 0, 0, 0.0, None, None
ev = re.compile(r"^\[([0-9.]+)\].*lttng_ust_libc:(\w+):.*vpid = (\d+),.*bin = \"([^\"]*)\".*\}, \{ (.*) \}$")
for line in sys.stdin:
    m = ev.match(line)
    if not m or m.group(3) != sys.argv[1]:
        continue
    t, kind, binary, fields = float(m.group(1)), m.group(2), m.group(4), m.group(5)
    f = dict(kv.split(" = ") for kv in fields.split(", "))
    if "liblttng-ust" in binary:
        continue
    if t0 is None:
        t0 = last = t
    area += total * (t - last)
    last = t
    def drop(p):
        global total
        total -= live.pop(p, 0)
    if kind == "free":
        drop(f["ptr"])
        continue
    if kind == "realloc":
        drop(f["in_ptr"])
        size, ptr = int(f["size"]), f["ptr"]
    elif kind == "calloc":
        size, ptr = int(f["nmemb"]) * int(f["size"]), f["ptr"]
    elif kind == "posix_memalign":
        size, ptr = int(f["size"]), f["out_ptr"]
    else:
        size, ptr = int(f["size"]), f["ptr"]
    if int(ptr, 16) == 0:
        continue
    drop(ptr)
    live[ptr] = size
    total += size
    peak = max(peak, total)
print(peak, area / (last - t0) if last and last > t0 else total)
' "$pid"
}

pct() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%+.1f %%' % (100 * (a - b) / b) if b else '-')" "$1" "$2"; }
mb() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / 1e6))" "$1"; }
jq_num() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$1" "$2"; }

rows=()
details=()
for spec in "wordidx 25000 50000 100000" "tree 5000 10000 20000"; do
    read -r name s1 s2 s3 <<<"$spec"
    prog=$build/bench/dps-bench-mp-$name
    traces=()
    for s in "$s1" "$s2" "$s3"; do
        "$dps" record -q --memory --no-kernel -o "$work/$name-$s" -- "$prog" "$s" 2>/dev/null
        traces+=("$work/$name-$s")
    done
    "$dps" memory profile "${traces[@]}" -o "$work/$name.json" >"$work/$name-profile.txt"
    for mult in 4 16; do
        n=$((s3 * mult))
        "$dps" memory predict "$work/$name.json" --size "$n" --json >"$work/pred.json"
        "$dps" memory predict "$work/$name.json" --size "$n" >"$work/pred-$name-$n.txt"
        peak=$(jq_num "$work/pred.json" "d['peak_bytes']")
        lo=$(jq_num "$work/pred.json" "d['peak_range'][0]")
        hi=$(jq_num "$work/pred.json" "d['peak_range'][1]")
        avg=$(jq_num "$work/pred.json" "d['avg_bytes']")
        ppeak=$(jq_num "$work/pred.json" "d['paper']['peak_bytes']")
        pavg=$(jq_num "$work/pred.json" "d['paper']['avg_bytes']")
        # the share of the peak phase's bytes in classes with a name: a source line or a
        # dps_mem_class name (not a bare address or a library)
        named=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ph = max(d["phases"], key=lambda p: p["peak_bytes"])["name"]
cl = [c for c in d["classes"] if c["phase"] == ph]
tot = sum(c["peak_bytes"] for c in cl)
ok = sum(c["peak_bytes"] for c in cl if ".c:" in c["name"] or not (c["name"].startswith("0x") or "(" in c["name"] or "+0x" in c["name"]))
print("%.1f" % (100 * ok / tot if tot else 0))' "$work/pred.json")
        ht=$(heaptrack_peak "$prog" "$n")
        wpeak=- wavg=-
        if [ "$mult" = 4 ]; then
            "$dps" record -q --memory --no-kernel -o "$work/real-$name-$n" -- "$prog" "$n" 2>/dev/null
            read -r wpeak wavg < <(wrapper_curve "$work/real-$name-$n")
        fi
        row="| $name | $n (${mult}x) | $(mb "$peak") [$(mb "$lo") .. $(mb "$hi")] | $(mb "$ppeak") | $(mb "$ht") | $(pct "$peak" "$ht") | $(pct "$ppeak" "$ht")"
        if [ "$wpeak" != - ]; then
            row+=" | $(mb "$wpeak") | $(pct "$peak" "$wpeak") | $(mb "$avg") | $(mb "$pavg") | $(mb "$wavg") | $(pct "$avg" "$wavg") | $(pct "$pavg" "$wavg")"
        else
            row+=" | - | - | $(mb "$avg") | $(mb "$pavg") | - | - | -"
        fi
        row+=" | $named % |"
        rows+=("$row")
        details+=("### $name at $n ($mult x $s3)" "" '```text' "$(cat "$work/pred-$name-$n.txt")" '```' "")
        rm -rf "$work/real-$name-$n"
    done
    details+=("### $name: the profile ($s1, $s2, $s3)" "" '```text' "$(cat "$work/$name-profile.txt")" '```' "")
done

{
    echo "# Memory-use prediction against real runs (\`bench/memory-predict.sh\`)"
    echo
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) CPUs ($(uname -r)); $(heaptrack --version 2>/dev/null | head -1)."
    echo "Each program recorded with \`dps record --memory\` at three sizes, profiled, predicted with"
    echo "\`dps memory predict --size N\` at 4x and 16x the largest. MB = 10^6 bytes."
    echo
    echo "- **ours**: the fitted prediction and its range; **paper**: the plain ratios (Murphy & Saenko)."
    echo "- **heaptrack**: its peak of the real run (includes ~0.1 MB that lttng-ust and the loader"
    echo "  allocate, which dps leaves out); **wrapper**: the libc wrapper's curve of a recording of"
    echo "  the real run at 4x, recomputed from babeltrace2's text (peak and time-weighted average)."
    echo "- errors are (predicted - witness) / witness; **named**: the share of the peak phase's"
    echo "  predicted bytes in classes named by a source line or dps_mem_class."
    echo "- targets: peak within 10 % at 4x and 20 % at 16x, average within 10 % at 4x, named >= 90 %."
    echo
    echo "| program | N | ours: peak MB [range] | paper: peak MB | heaptrack peak MB | ours vs heaptrack | paper vs heaptrack | wrapper peak MB | ours vs wrapper | ours: avg MB | paper: avg MB | wrapper avg MB | ours avg vs wrapper | paper avg vs wrapper | named |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "## Details"
    echo
    printf '%s\n' "${details[@]}"
} >"$out"
echo "memory-predict.sh: wrote $out"
