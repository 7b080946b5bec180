#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest bench-sync-programs: bench/whatif-sync.sh's real programs (bench/sync/) at a tiny size,
# in the variants each has: each exits 0 and prints its one result line, whose figures depend on
# the program's input only, never on the work scale (a scaled run prints the same line); bad
# usage exits 2; the annotated variant says "annot=dps" exactly when libdps has <dps/annotate.h>;
# dps-sync-fit-curve finds a known knee. Not a timing test: the figures are in the bench.
#
#   tests/bench/sync-programs.sh BIN_DIR SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
bad=0
fail() {
    echo "sync-programs.sh: $*" >&2
    bad=1
}

if [ -e "$src/runtime/include/dps/annotate.h" ]; then
    annot=dps
else
    annot=none
fi
export LTTNG_UST_REGISTER_TIMEOUT=0

# check NAME VARIANT EXPECTED_LINE ARGS...: runs the program at scale 1 and with its
# component at 0.5 and at 2; each run must exit 0 and print EXPECTED_LINE alone.
check() {
    local prog=$1 variant=$2 want=$3
    shift 3
    local exe=$bin/dps-sync-$prog
    [ "$variant" = plain ] && exe=$exe-plain
    if [ ! -x "$exe" ]; then
        fail "$exe: not built"
        return
    fi
    for scale in 1 0.5 2; do
        local out status=0
        out=$("$exe" --unit 2000 --scale 1="$scale" "$@" 2>&1) || status=$?
        if [ "$status" != 0 ]; then
            fail "$exe --scale 1=$scale $*: exit $status: $out"
        elif [ "$out" != "$want" ]; then
            fail "$exe --scale 1=$scale $*: printed \"$out\", want \"$want\""
        fi
    done
    for wrong in "--scale 1" "--scale 99=1" "--scale 1=-2" "--unit 0" "--nonsense" "extra"; do
        local status=0
        # shellcheck disable=SC2086 # the wrong arguments are split on purpose
        "$exe" $wrong >/dev/null 2>&1 || status=$?
        if [ "$status" != 2 ]; then
            fail "$exe $wrong: exit $status, want 2 (bad usage)"
        fi
    done
}

for variant in annotated plain; do
    a=$annot
    [ "$variant" = plain ] && a=none
    # 20 items: 0 + 1 + ... + 19 through three stages, whatever stage 2's speed.
    check pipeline "$variant" "sync-pipeline: items=20 sum=190 annot=$a" --items 20 --capacity 2
    check pipeline "$variant" "sync-pipeline: items=7 sum=21 annot=$a" --items 7 --capacity 1
    # 12 tasks over 3 workers: every task done once, whoever took it.
    check pool "$variant" "sync-pool: tasks=12 sum=66 annot=$a" --tasks 12 --workers 3
    # The values depend on the rounds and threads only, not on who arrived last.
    check forkjoin "$variant" "sync-forkjoin: threads=2 rounds=5 check=991567306dab369d annot=$a" \
        --rounds 5
    check forkjoin "$variant" "sync-forkjoin: threads=3 rounds=4 check=3d7b333526c98a84 annot=$a" \
        --threads 3 --rounds 4
    # Tiny chunks come far under the 300 ms timeout: no wait times out.
    check timedwait "$variant" "sync-timedwait: chunks=5 annot=$a timeouts=0" \
        --chunks 3,2 --chunk-work 2,3
    # Issue 24's programs with an annotation, one primitive each (the held-out ones too).
    check barrier "$variant" "sync-barrier: rounds=5 check=6aefc5ac51611f2f annot=$a" --rounds 5
    # 3 (4) workers' tasks 0..11 through 2 slots (1), whoever waited.
    check sempool "$variant" "sync-sempool: workers=3 slots=2 tasks=12 sum=66 annot=$a" --tasks 4
    check sempool "$variant" "sync-sempool: workers=4 slots=1 tasks=12 sum=66 annot=$a" \
        --workers 4 --slots 1 --tasks 3 --task-work 1,2
    check cxxpipe "$variant" "sync-cxxpipe: items=20 sum=190 annot=$a" --items 20 --capacity 2
    check semring "$variant" "sync-semring: items=20 sum=190 annot=$a" --items 20 --slots 3
    check semring "$variant" "sync-semring: items=7 sum=21 annot=$a" --items 7 --slots 1
    # Items 0..9, each taken once from the atomic counter, whichever worker took it.
    check atomicpool "$variant" "sync-atomicpool: items=10 sum=45 annot=$a" --items 10
    check barrier2 "$variant" "sync-barrier2: rounds=5 check=991567306dab369d annot=$a" \
        --rounds 5
done
# The programs no annotation describes: without annotations only.
check rwcache plain "sync-rwcache: readers=2 lookups=20 refreshes=5 annot=none" \
    --lookups 10 --refreshes 5 --period-ms 1
check rwcache plain "sync-rwcache: readers=3 lookups=21 refreshes=9 annot=none" \
    --readers 3 --lookups 7 --refreshes 9 --period-ms 0
# OpenMP: the results depend on the items only, not on which thread ran them.
check omp-static plain "sync-omp-static: rounds=3 items=5 check=d0f68d50279c5ddd annot=none" \
    --rounds 3 --items 5
check omp-dynamic plain "sync-omp-dynamic: rounds=3 items=7 check=07b9ac667a5c53cd annot=none" \
    --rounds 3 --items 7
check ompcrit plain "sync-ompcrit: rounds=3 items=5 check=e0d889d1bef91a9a annot=none" \
    --rounds 3 --items 5
# 300 records of 256 bytes overflow the pipe's 64 KiB: the writer blocks on a full pipe.
check pipethreads plain "sync-pipethreads: records=10 check=d50c05dac7c1f8ce annot=none" \
    --records 10
check pipethreads plain "sync-pipethreads: records=300 check=11a14bdd3a2ddd8d annot=none" \
    --records 300
check pipeprocs plain "sync-pipeprocs: records=300 child=ok annot=none" --records 300

# The fit: flat at 10 ms up to 2 ms of t_PSF, then a slope of 1.
fit=$(printf '%s\n' "0 10000000 -" "1000000 10000000 -" "2000000 10000000 -" \
    "3000000 11000000 -" "4000000 12000000 -" "5000000 13000000 -" "6000000 14000000 -" |
    "$bin/dps-sync-fit-curve") || fail "dps-sync-fit-curve failed: $fit"
case $fit in
*'"kind": "limited", "knee": true, "t_limit_ns": 2000000,'*) ;;
*) fail "dps-sync-fit-curve: want a knee at 2000000 ns, got: $fit" ;;
esac
status=0
echo "1 2" | "$bin/dps-sync-fit-curve" >/dev/null 2>&1 || status=$?
[ "$status" = 2 ] || fail "dps-sync-fit-curve on a line without a spread: exit $status, want 2"

# The driver at least compiles (it runs only in the bench).
python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$src/bench/whatif-sync.py" ||
    fail "bench/whatif-sync.py does not compile"
exit "$bad"
