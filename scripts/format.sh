#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tree's one C style (.clang-format, the Debian clang-format the set-up installs), also for
# the bench's one C++ file (bench/sync/cxxpipe.cc):
#   scripts/format.sh          rewrites every tracked C and C++ file in place
#   scripts/format.sh --check  lists the files that differ and exits 1 (ctest: format)
# Left alone, with the reason: tracepoint provider headers (tracepoints/*_tp.h), whose
# LTTNG_UST_TRACEPOINT_EVENT macros read as a table only when laid out by hand, and the traces
# under tests/data.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then
    check=1
fi
fmt=${CLANG_FORMAT:-clang-format}
if ! command -v "$fmt" >/dev/null; then
    echo "format.sh: $fmt not found (Debian package clang-format; scripts/setup.sh installs it)" >&2
    exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cc' ':!:tests/data/**' ':!:tracepoints/*_tp.h' \
    2>/dev/null ||
    find . \( -name '*.[ch]' -o -name '*.cc' \) -not -path './tests/data/*' -not -path './build/*' \
        -not -name '*_tp.h')
if [ "$check" = 0 ]; then
    "$fmt" -i --style=file "${files[@]}"
    exit 0
fi
bad=0
for f in "${files[@]}"; do
    if ! "$fmt" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "format.sh: $f is not formatted (scripts/format.sh rewrites it)" >&2
        bad=1
    fi
done
exit "$bad"
