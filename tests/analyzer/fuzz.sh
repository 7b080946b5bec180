#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the analyzer core with libFuzzer (clang, ASan+UBSan) for SECONDS (default 60).
#   tests/analyzer/fuzz.sh [SECONDS]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
out=$(mktemp -d /tmp/dps-fuzz-core-XXXXXX)
clang -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
    -I"$here/analyzer" -I"$here/common" -I"$here/runtime/include" \
    $(pkg-config --cflags glib-2.0) \
    "$here/tests/analyzer/fuzz-core.c" "$here"/analyzer/{core,threads,sched,memory,dps-events,select,joins,actions,result}.c \
    "$here"/common/{actset,actset-parse,actset-write,diag,text-out}.c \
    $(pkg-config --libs glib-2.0) -o "$out/fuzz-core"
mkdir -p "$out/corpus"
"$out/fuzz-core" -max_total_time="$secs" -max_len=4096 "$out/corpus"
echo "fuzz.sh: no crash in $secs s; corpus in $out/corpus"
