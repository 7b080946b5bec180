#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The demo a fresh clone runs (scripts/setup.sh demo -> scripts/demo.sh), checked for what a
# user must get (issue 25): three parts, each with one heading ("== k/3 ... ==") and its
# output ending with "Report: PATH" of a page that exists; no stub's own per-thread table; each
# step line saying its own duration. ctest: demo. Usage: tests/doc/demo.sh BUILD_DIR
# Needs root (dps record's kernel scheduler capture): skipped (77) otherwise, unless CI.
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: tests/doc/demo.sh BUILD_DIR}
if [ "$(id -u)" != 0 ]; then
    if [ -n "${CI:-}" ]; then
        echo "demo: CI must run the demo as root" >&2
        exit 1
    fi
    echo "demo: needs root (dps record's kernel scheduler capture)" >&2
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dps-test-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() {
    echo "demo: $*" >&2
    fail=1
}

if ! "$src/scripts/demo.sh" "$build" "$work/out" >"$work/stdout" 2>"$work/stderr"; then
    cat "$work/stdout" "$work/stderr" >&2
    echo "demo: scripts/demo.sh failed" >&2
    exit 1
fi
headings=$(grep -c '^== [1-3]/3 .* ==$' "$work/stdout")
[ "$headings" = 3 ] || bad "$headings headings, 3 due"
# each part: the lines from its heading to the next (or the end); the last non-empty one
for k in 1 2 3; do
    last=$(awk -v k="$k" '
        /^== [1-3]\/3 / { part = substr($2, 1, 1) + 0; next }
        part == k && NF { last = $0 }
        END { print last }' "$work/stdout")
    case "$last" in
    "Report: "*)
        page=${last#Report: }
        [ -s "$page" ] || bad "part $k: its report $page is not there"
        ;;
    "skipped in an ASan build"*) [ "$k" = 3 ] || bad "part $k skipped" ;;
    *) bad "part $k ends with '$last', not 'Report: PATH'" ;;
    esac
    reports=$(awk -v k="$k" '/^== [1-3]\/3 / { part = substr($2, 1, 1) + 0; next }
        part == k && /^Report: / { n++ } END { print n + 0 }' "$work/stdout")
    [ "$reports" -le 1 ] || bad "part $k has $reports Report: lines"
done
# the what-if part answers in one sentence: sed's knee, or an unclear answer with its reason (a
# machine under load, noise); never another confident kind, never the paper's notation first
answer=$(awk '/^== 2\/3 / { on = 1; next } /^== 3\/3 / { on = 0 } on && /^Answer: / { print; exit }' \
    "$work/stdout")
case "$answer" in
"Answer: Making thread 11419 (sed) faster pays until it needs 0."*"x its recorded CPU time"*) ;;
"Answer: Unclear: "*) echo "demo: the what-if could not answer here: $answer" >&2 ;;
*) bad "the what-if's answer is '$answer', not a knee of sed (or unclear)" ;;
esac
if grep -q 'run_req_ms' "$work/stdout" "$work/stderr"; then
    bad "the stub's own per-thread table is printed"
fi
# the step lines, "[k/n] what (X s)": the replay's five, X its own duration (they add up to no
# more than the demo took)
steps=$(grep -cE '^\[[1-5]/5\] .* \([0-9.]+ s\)$' "$work/stderr")
[ "$steps" -ge 5 ] || bad "$steps step lines of dps replay and dps whatif, 5 or more due"
if [ "$fail" != 0 ]; then
    echo "--- stdout" >&2
    cat "$work/stdout" >&2
    echo "--- stderr" >&2
    cat "$work/stderr" >&2
fi
exit "$fail"
