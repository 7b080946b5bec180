#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where the default test run's time goes (doc/testing.md, "Where the time goes"): each test of
# `ctest -LE long`, run alone one after the other, with the CPU it used (user + system of
# ctest and every process it waited for, by /usr/bin/time; the session daemon's and consumer's
# own CPU are not counted) and its wall time. The sum of the CPU of the tests that run beside
# each other, halved, is what two cores would need if nothing were lost between them.
#
#   bench/test-cpu.sh [BUILD_DIR]   (default: $DPS_BUILD_DIR, else build/dev; built)
# Environment: OUT (default bench/results/test-cpu.tsv). About 8 minutes on 2 cores; run it
# on a quiet machine.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${DPS_BUILD_DIR:-$here/build/dev}}
out=${OUT:-$here/bench/results/test-cpu.tsv}
one=$(mktemp)
trap 'rm -f "$one"' EXIT
cd "$build"
{
    echo "# bench/test-cpu.sh, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, commit $(git -C "$here" rev-parse --short HEAD)"
    printf 'test\tcpu_s\twall_s\tserial\texit\n'
} > "$out.tmp"
serial=$(ctest -N -LE long --show-only=json-v1 | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    p = {x["name"]: x["value"] for x in t.get("properties", [])}
    print(t["name"], 1 if p.get("RUN_SERIAL") else 0)')
while read -r t s; do
    case $t in test_tmpdir_* | lttng_sessiond_*) continue ;; esac
    rc=0
    /usr/bin/time -f "%U %S %e" -o "$one" ctest -R "^$t\$" > /dev/null 2>&1 || rc=$?
    read -r u y e < "$one"
    printf '%s\t%.1f\t%.1f\t%s\t%s\n' "$t" "$(echo "$u + $y" | bc)" "$e" "$s" "$rc" >> "$out.tmp"
done <<< "$serial"
mv "$out.tmp" "$out"
awk -F'\t' 'NR > 2 { c[$4] += $2; w[$4] += $3; if ($5 != 0) bad = bad " " $1 }
    END { printf "beside each other: %.0f s CPU, %.0f s wall alone (%.0f s on two cores)\n", c[0], w[0], c[0] / 2;
          printf "alone: %.0f s CPU, %.0f s wall\n", c[1], w[1];
          if (bad) print "failed (see ctest -R NAME):" bad }' "$out"
