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
# Batches of files, one clang-format each, on every core: one process per file spent most of
# the check starting clang-format (~300 files: 50 s on 2 cores, now a few). clang-format
# names each unformatted file in its "FILE:LINE:COL: error: code should be clang-formatted".
out=$(printf '%s\0' "${files[@]}" |
    xargs -0 -n 32 -P "$(nproc)" "$fmt" --style=file --dry-run -Werror 2>&1) && exit 0
bad=$(sed -n -E 's/^(.*):[0-9]+:[0-9]+: error: code should be clang-formatted.*/\1/p' <<<"$out" |
    sort -u)
if [ -z "$bad" ]; then
    # clang-format failed otherwise (an unreadable file, a bad .clang-format): say what it said
    echo "$out" >&2
    exit 1
fi
while IFS= read -r f; do
    echo "format.sh: $f is not formatted (scripts/format.sh rewrites it)" >&2
done <<<"$bad"
exit 1
