#!/usr/bin/env bash
# The demo of `scripts/setup.sh demo` (README.md), on a build that exists:
#   scripts/demo.sh BUILD_DIR [OUT]      (OUT: out/demo; the build's preset: BUILD_DIR's name)
# Three parts: the main job end to end on a bundled real trace (dps replay), the what-if curve
# of sed in another (sed | gzip, dps whatif), a memory-use prediction (dps memory). Each prints
# one heading and ends with the line "Report: PATH" of the page to open; ctest's `demo` runs it.
# Needs root (or a tracing group) for the kernel's scheduler events.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: scripts/demo.sh BUILD_DIR [OUT]}
out=${2:-$here/out/demo}
dps=$build/cli/dps

heading() {
    printf '\n== %s ==\n\n' "$*"
}

heading "1/3 dps replay: xz -T2, recorded on 2 cores, replayed and compared (doc/replay.md)"
"$dps" replay "$here/examples/traces/xz-T2" --comm xz -o "$out"

# the CPU-stub study (doc/whatif.md) of sed in a real two-process pipeline (sed | gzip through a
# pipe, recorded with dps record --sync: examples/traces/sed-gzip/README.md), with the 0.5 point's
# timelines beside the original's: about 15 s on 2 cores
heading "2/3 dps whatif: sed | gzip, what if sed ran faster or slower? (doc/whatif.md)"
"$dps" whatif "$here/examples/traces/sed-gzip" -f --thread 11419 --step 0.25 --repeat 3 \
    --timelines 0.5 -o "$out/whatif" --html "$out/whatif.html"

# memory-use prediction (doc/memory-predict.md): the bench's word index recorded at three small
# sizes, profiled, and its heap predicted at 4x the largest: about 4 s. Not in an ASan build:
# the LTTng libc wrapper dps record --memory preloads refuses ASan programs.
heading "3/3 dps memory: a word index's heap at 4x its largest recorded input" \
    "(doc/memory-predict.md)"
if grep -q '^DPS_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    echo "skipped in an ASan build: the LTTng libc wrapper refuses ASan programs"
    exit 0
fi
mem=$out/memory
rm -rf "$mem"
mkdir -p "$mem"
for n in 25000 50000 100000; do
    "$dps" record -q --memory --no-kernel -o "$mem/wordidx-$n" -- \
        "$build/bench/dps-bench-mp-wordidx" "$n"
done
"$dps" memory profile "$mem"/wordidx-{25000,50000,100000} -o "$mem/profile.json" \
    --html "$out/memory-profile.html" >/dev/null
"$dps" memory predict "$mem/profile.json" --size 400000 --html "$out/memory-predict.html"
