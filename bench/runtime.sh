#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The runtime benchmark: run accuracy per mode, sleep overshoot before/after compensation,
# per-action overhead with and without an active LTTng session, thread create/join cost.
# One command; writes bench/results/runtime.md. Run it on an idle machine (as root, or with a
# session daemon the user can reach, for the traced part).
#   bench/runtime.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/bench-runtime}
DRIFT_RUNS=${DRIFT_RUNS:-5}
out=$src/bench/results/runtime.md
tmp=$(mktemp -d)
session=dps-bench-runtime-$$
cleanup() {
    lttng destroy "$session" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j2 --target dps-runtime-static dps >/dev/null
# shellcheck disable=SC2046
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/runtime/include" "$src/bench/runtime-bench.c" \
    "$build/runtime/libdps.a" $(pkg-config --libs lttng-ust) -lpthread -lm \
    -o "$build/runtime-bench"
bench=$build/runtime-bench

# The bench pins itself to the last CPU; calibrate there too (vCPUs of a VM can differ).
last_cpu=$(($(nproc) - 1))
echo "runtime.sh: calibrating (dps calibrate on CPU $last_cpu)" >&2
taskset -c "$last_cpu" "$build/cli/dps" calibrate -o "$tmp/machine.cal" 2>/dev/null

{
    echo "# Runtime benchmark (bench/runtime.sh)"
    echo
    echo "Generated $(date -u +%Y-%m-%dT%H:%M:%SZ) by \`bench/runtime.sh\`. Figures are medians and"
    echo "90th percentiles; the machine was not necessarily idle (other builds may have run)."
    echo
    echo "## Machine"
    echo
    echo "- $(uname -srm), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "- clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown),"\
         "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- calibration used (\`dps calibrate\`, pinned to the benchmark's CPU):"
    echo
    echo '```'
    grep -v '^#' "$tmp/machine.cal"
    echo '```'
    echo
} > "$tmp/head.md"

echo "runtime.sh: run accuracy" >&2
"$bench" accuracy --calibration "$tmp/machine.cal" > "$tmp/accuracy.md"
echo "runtime.sh: sleep overshoot" >&2
"$bench" sleep --calibration "$tmp/machine.cal" > "$tmp/sleep.md"
echo "runtime.sh: per-action overhead" >&2
"$bench" overhead-header > "$tmp/overhead.md"
# Any session enabling dps:* (other users' tests on a shared machine) makes the "no session"
# row fire its tracepoints too: say so in the row.
count_sessions() { lttng list 2>/dev/null | grep -cE '^ *[0-9]+\) ' || true; }
before=$(count_sessions)
"$bench" overhead --calibration "$tmp/machine.cal" --label "no session" > "$tmp/nosession.md"
after=$(count_sessions)
if [ "${before:-0}" != 0 ] || [ "${after:-0}" != 0 ]; then
    sed -i "s/^| no session |/| no session of ours (other sessions active: ${before}, ${after}) |/" \
        "$tmp/nosession.md"
fi
cat "$tmp/nosession.md" >> "$tmp/overhead.md"
traced="session unavailable"
if lttng create "$session" --output="$tmp/trace" >/dev/null 2>&1 &&
    lttng enable-channel -u big -s "$session" --subbuf-size=4M --num-subbuf=8 >/dev/null 2>&1 &&
    lttng enable-event -u 'dps:*' -c big -s "$session" >/dev/null 2>&1 &&
    lttng add-context -u -c big -t vtid -t vpid -t procname -s "$session" >/dev/null 2>&1 &&
    lttng start "$session" >/dev/null 2>&1; then
    "$bench" overhead --calibration "$tmp/machine.cal" --label "session active" >> "$tmp/overhead.md"
    lttng stop "$session" >/dev/null 2>&1 || true
    traced="recorded"
else
    echo "| session active | (no LTTng session daemon reachable) | | | | | |" >> "$tmp/overhead.md"
fi
echo >> "$tmp/overhead.md"
echo "runtime.sh: threads" >&2
"$bench" threads --calibration "$tmp/machine.cal" > "$tmp/threads.md"

# The floor of *work* mode: a fixed loop count is only as steady as the CPU's own speed. The
# same calibration repeated a few times on the same CPU shows how much that speed moves here.
echo "runtime.sh: work-loop rate drift (dps calibrate x $((DRIFT_RUNS)))" >&2
rates=$(grep '^cpu.work_loops_per_us' "$tmp/machine.cal" | cut -d' ' -f2)
for _ in $(seq $((DRIFT_RUNS - 1))); do
    taskset -c "$last_cpu" "$build/cli/dps" calibrate -o "$tmp/drift.cal" 2>/dev/null
    rates="$rates $(grep '^cpu.work_loops_per_us' "$tmp/drift.cal" | cut -d' ' -f2)"
done
{
    echo "## Work-loop rate drift (the floor of *work* mode)"
    echo
    echo "\`dps calibrate\` run $DRIFT_RUNS times back to back on CPU $last_cpu (each keeps the median of"
    echo "repeats that agree within 1 %). *work* mode plays a loop count fixed by one calibration, so its"
    echo "error can be no smaller than how far the loop rate moves between calibrations."
    echo
    echo "| runs | loops/us min | median | max | (max - min) / median |"
    echo "|---|---|---|---|---|"
    echo "$rates" | tr ' ' '\n' | sort -g | awk -v n="$DRIFT_RUNS" '
        { v[NR] = $1 }
        END { med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
              printf "| %d | %.1f | %.1f | %.1f | %.1f %% |\n", n, v[1], med, v[NR],
                     100 * (v[NR] - v[1]) / med }'
    echo
} > "$tmp/drift.md"

mkdir -p "$(dirname "$out")"
cat "$tmp/head.md" "$tmp/accuracy.md" "$tmp/sleep.md" "$tmp/overhead.md" "$tmp/threads.md" \
    "$tmp/drift.md" > "$out"
echo "runtime.sh: wrote $out (traced part: $traced)" >&2
