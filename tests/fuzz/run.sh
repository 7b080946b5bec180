#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets (the fuzz preset: clang, ASan+UBSan) and runs each for SECONDS
# (default 30), as many at once as there are cores (DPS_FUZZ_JOBS). doc/testing.md says what
# each target feeds.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]     targets: actset manifest calfile record-info
#                                               analyzer-core streams ssf-decode profile
#                                               cachegrind cache-result cache-costs
#                                               (default: all)
# Each starts from its committed seeds (tests/fuzz/corpus/TARGET, read only) and the corpus of
# earlier runs (BUILD/work/corpus/TARGET, where new inputs go). Exits 1 if any target crashed,
# leaked, hit undefined behaviour or timed out, after saying where the reproducer is; 77 (a
# skip for ctest) when clang's libFuzzer is missing. DPS_FUZZ_BUILD overrides the build
# directory (default build/fuzz).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-30}
[ $# -gt 0 ] && shift
all=(actset manifest calfile record-info analyzer-core streams ssf-decode profile cachegrind
    cache-result cache-costs)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
build=${DPS_FUZZ_BUILD:-$src/build/fuzz}
work=$build/work

case "$secs" in
'' | *[!0-9]*)
    echo "run.sh: expected SECONDS as a whole number, got '$secs'" >&2
    exit 2
    ;;
esac
for t in "${targets[@]}"; do
    case " ${all[*]} " in
    *" $t "*) ;;
    *)
        echo "run.sh: unknown target '$t' (expected one of: ${all[*]})" >&2
        exit 2
        ;;
    esac
done

# Largest input per target: a few hundred lines of text; 170 events for the analyzer; the
# SSF corpus recording (10 KB) for ssf-decode; a profile of three runs (8 KB) for profile;
# three stream files' first 4 KiB (what streams.c reads of each) and four indexes for streams.
max_len() {
    case "$1" in
    record-info) echo 1024 ;;
    ssf-decode | profile | streams | cachegrind) echo 16384 ;;
    *) echo 4096 ;;
    esac
}

if ! command -v clang >/dev/null ||
    ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
    clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
    echo "run.sh: clang with libFuzzer not found (scripts/setup.sh installs clang and libclang-rt-14-dev); skipped" >&2
    exit 77
fi
if [ -z "${DPS_FUZZ_BUILD:-}" ]; then
    (cd "$src" && cmake --preset fuzz >/dev/null && cmake --build --preset fuzz -j2 >/dev/null)
else
    cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DDPS_FUZZ=ON -DBUILD_TESTING=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" --target dps-fuzz -j2 >/dev/null
fi

# Two targets at a time on two cores (DPS_FUZZ_JOBS, default the number of cores): each has a
# core of its own for its SECONDS, as when they ran one after the other, in half the time.
jobs=${DPS_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in
'' | *[!0-9]* | 0)
    echo "run.sh: expected DPS_FUZZ_JOBS as a positive whole number, got '$jobs'" >&2
    exit 2
    ;;
esac
# The harnesses write each input to a file: on tmpfs (/dev/shm) when there is one, since on a
# disk file system rewriting a file flushes it (ext4's auto_da_alloc), 50 times slower.
tmp=$(mktemp -d /dev/shm/dps-fuzz-XXXXXX 2>/dev/null || mktemp -d "$work/tmp-XXXXXX")
# A run stopped (ctest's timeout, ^C) stops its fuzzers too.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fuzz_one TARGET: runs it for SECONDS and writes its line of the table (and, when it failed,
# where the reproducer is) to $tmp/TARGET.result; its exit status in $tmp/TARGET.rc.
fuzz_one() {
    local t=$1 corpus=$work/corpus/$1 artifacts=$work/artifacts/$1 log=$work/$1.log
    local rc=0 execs cov ft result unit
    local seeds=()
    mkdir -p "$corpus" "$artifacts" "$tmp/$t"
    [ -d "$src/tests/fuzz/corpus/$t" ] && seeds=("$src/tests/fuzz/corpus/$t")
    # -error_exitcode=1: libFuzzer's default (77) would read as a skip to ctest.
    TMPDIR=$tmp/$t "$build/tests/fuzz/fuzz-$t" -max_total_time="$secs" -max_len="$(max_len "$t")" \
        -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    if [ "$rc" = 0 ]; then
        result="ok ($secs s)"
    else
        unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        result="FAILED (exit $rc): reproducer ${unit:-none written}; log $log"
    fi
    {
        printf '%-14s %10s %8s %8s %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$result"
        if [ "$rc" != 0 ]; then
            grep -m 3 -E 'ERROR: |runtime error:|^==[0-9]+==' "$log" | sed 's/^/    /' || true
            echo "    reproduce: $build/tests/fuzz/fuzz-$t ${unit:-INPUT}"
        fi
    } >"$tmp/$t.result"
    echo "$rc" >"$tmp/$t.rc"
}

running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait

# The table in the targets' order; a target that left no status (its shell killed) failed.
failed=0
printf '%-14s %10s %8s %8s %s\n' target execs cov ft result
for t in "${targets[@]}"; do
    if [ -s "$tmp/$t.result" ]; then
        cat "$tmp/$t.result"
    else
        printf '%-14s %10s %8s %8s %s\n' "$t" ? ? ? "FAILED: no result (log $work/$t.log)"
    fi
    [ "$(cat "$tmp/$t.rc" 2>/dev/null)" = 0 ] || failed=1
done
exit "$failed"
