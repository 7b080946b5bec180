#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tree's structural rules (doc/architecture.md), checked by ctest (test: tree-rules):
#  1. layers point one way: a folder includes only headers of the folders below it;
#  2. no C file over 1000 lines without a reason written at its top ("Over 1000 lines: ...");
#  3. a test skips only through dps_test_require or dps_test_skip_build (tests/lib/dps-test.h);
#  4. CMake lists name their sources: no file(GLOB ...);
#  5. inside analyzer/, the core's files that keep the threads call one way (core-internal.h);
#  6. the map names every production C file (doc/architecture.md or its folder's page).
# Prints every violation and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
say() {
    echo "check-tree.sh: $*" >&2
    bad=1
}

# 1. Which folders' headers each folder may include (besides its own). The order of the
# pipeline: trace -> analyzer -> action set (common) -> simgen -> program (runtime) -> trace;
# compare reads what the analyzer gives; replay drives them all; export shows runs (a replay's
# too) to other tools; whatif sweeps the stub and replays the points asked for; cli is the
# thin main.
# The table is doc/architecture.md's ("Layers"): the doc is the rule, not a copy of it.
declare -A allowed=()
in_table=0
while IFS= read -r line; do
    case "$line" in
    '<!-- tree-rules: includes -->') in_table=1 ;;
    '<!-- /tree-rules -->') in_table=0 ;;
    *)
        [ "$in_table" = 1 ] || continue
        [[ "$line" =~ ^\|\ \`([a-z]+)/\`\ \|\ ([^|]*)\| ]] || continue
        deps=${BASH_REMATCH[2]%%(*}
        read -r -a words <<<"${deps//,/ }"
        allowed[${BASH_REMATCH[1]}]="${words[*]} ${BASH_REMATCH[1]}"
        ;;
    esac
done <doc/architecture.md
# Production folders: every top-level folder with C code but the tests, benches and examples.
mapfile -t prod_dirs < <(git ls-files '*.c' '*.h' | grep -v '^tests/\|^bench/\|^examples/' |
    grep / | cut -d/ -f1 | sort -u)
if [ "${#allowed[@]}" -eq 0 ]; then
    say "doc/architecture.md has no include table between <!-- tree-rules: includes --> and <!-- /tree-rules -->"
fi
for dir in "${prod_dirs[@]}"; do
    [ -n "${allowed[$dir]:-}" ] || say "$dir/ has C code and no row in doc/architecture.md's include table"
done
# Header name -> folder, for the project's own headers.
declare -A owner=()
while IFS= read -r h; do
    dir=${h%%/*}
    owner[${h##*/}]=$dir
done < <(git ls-files '*.h' | grep -v '^tests/\|^bench/\|^examples/')
for dir in "${!allowed[@]}"; do
    [ -d "$dir" ] || continue
    # bash's own string operations, no process per line: a sed and a basename for each of
    # ~2000 includes took most of the check's 50 s
    while IFS= read -r line; do
        file=${line%%:*}
        inc=${line#*#include [<\"]}
        inc=${inc%%[>\"]*}
        base=${inc##*/}
        from=${owner[$base]:-}
        # <dps/...> is the runtime's public header directory
        if [[ "$inc" == dps/* ]]; then
            from=runtime
        fi
        [ -n "$from" ] || continue
        case " ${allowed[$dir]} $dir " in
        *" $from "*) ;;
        *) say "$file includes $inc ($from/): $dir/ may include only ${allowed[$dir]}" ;;
        esac
    done < <(git grep -n -E '^#include [<"]' -- "$dir/*.c" "$dir/*.h" | sed -E 's/^([^:]+):[0-9]+:/\1:/')
done
# common/ holds the tools' shared code; it takes its types from the dependency-free headers,
# never from libdps's API header.
if git grep -n -E '#include <dps/dps\.h>' -- 'common/*' >/dev/null; then
    say "common/ includes <dps/dps.h>; use the dependency-free headers (dps/dps-status.h, dps/dps-action.h)"
fi

# 2. Long files say why (one wc for all files, its last line the total).
while read -r n f; do
    [ "$f" != total ] || continue
    if [ "$n" -gt 1000 ] && ! head -n 40 "$f" | grep -q 'Over 1000 lines:'; then
        say "$f has $n lines and no 'Over 1000 lines: <reason>' at its top"
    fi
done < <(git ls-files -z '*.c' '*.h' ':!:tests/data/**' | xargs -0 wc -l)

# 3. A test skips through dps_test_require (tests/lib/dps-test.h): skipped locally, failed where
# CI is set, since ctest counts a skipped test as passed (doc/testing.md, "Skips").
if git grep -n 'cr_skip' -- 'tests/*.c' 'tests/*.h' ':!:tests/lib/*'; then
    say "a test calls cr_skip* itself; use dps_test_require (or dps_test_skip_build) instead"
fi

# 4. No globbed sources.
if git grep -n -i 'file *( *GLOB' -- '*CMakeLists.txt'; then
    say "CMake lists must name their files (no file(GLOB))"
fi
# 5. The analyzer core's files share one header (core-internal.h), so rule 1 cannot tell them
# apart: their calls are checked instead. Each of these files may use only the analyzer__
# functions of the files named here (its own and the header's inline ones aside): the spill
# store, the thread table, the selection, the joins, the scheduler, from the bottom up, and the
# read-back at the end beside the scheduler. A use is the function's name outside comments; a
# function belongs to the analyzer/ C file that defines it. The files above them (core.c,
# output.c, ...) may call any of them.
declare -A core_calls=(
    [spill]=""
    [threads]="spill"
    [select]="threads spill"
    [joins]="select threads spill"
    [sched]="joins select threads spill"
    [readback]="joins select threads spill"
)
declare -A defined_in=()
while IFS= read -r line; do
    file=${line%%:*}
    fn=$(grep -oE 'analyzer__[A-Za-z0-9_]+\($' <<<"${line%%(*}(" || true)
    [ -n "$fn" ] || continue # a call on a line that defines another function
    defined_in[${fn%(}]=$(basename "$file" .c)
done < <(git grep -E '^[A-Za-z][^;]*[ *]analyzer__[A-Za-z0-9_]+\(' -- 'analyzer/*.c' | grep -v ';$')
for f in "${!core_calls[@]}"; do
    src=analyzer/$f.c
    [ -f "$src" ] || continue
    if git grep -n -E '^#include "' -- "$src" | grep -v '"core-internal.h"' >&2; then
        say "$src includes a header of the core's upper files; it may include only core-internal.h"
    fi
    while IFS= read -r fn; do
        to=${defined_in[$fn]:-}
        if [ -z "$to" ] || [ "$to" = "$f" ]; then continue; fi
        case " ${core_calls[$f]} " in
        *" $to "*) ;;
        *)
            may=${core_calls[$f]:+only $(sed -E 's/([a-z-]+)/\1.c/g' <<<"${core_calls[$f]}")}
            say "$src uses $fn ($to.c): $f.c may call ${may:-no other file of the core}"
            ;;
        esac
    done < <(perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "$src" | grep -oE 'analyzer__[A-Za-z0-9_]+' | sort -u)
done

# 6. The map names every production C file: as `file.c`, `folder/file.c`, its stem (`diag`) or
# a pattern (`cmd-*.c`), on doc/architecture.md or on the pages its folder's row names.
declare -A folder_pages=()
while IFS= read -r line; do
    [[ "$line" =~ ^\|\ \`([a-z]+)/\`\ \|.*\|\ ([^|]*)\ \|$ ]] || continue
    pages=""
    for w in ${BASH_REMATCH[2]//,/ }; do
        [[ "$w" == *.md ]] && [ -f "doc/$w" ] && pages+=" doc/$w"
    done
    folder_pages[${BASH_REMATCH[1]}]=$pages
done < <(sed -n '/^## The folders/,/^## /p' doc/architecture.md)
declare -A named=()
for dir in "${prod_dirs[@]}"; do
    named[$dir]=$(cat doc/architecture.md ${folder_pages[$dir]:-} | grep -oE '`[^`]+`' | tr -d '`' |
        sort -u | tr '\n' ' ')
done
while IFS= read -r f; do
    dir=${f%%/*}
    base=${f##*/}
    rel=${f#*/}
    ok=0
    for t in ${named[$dir]:-}; do
        # shellcheck disable=SC2053 # a token with * is a pattern
        if [ "$t" = "$base" ] || [ "$t" = "$f" ] || [ "$t" = "$rel" ] || [ "$t" = "${base%.c}" ] ||
            { [[ "$t" == *"*"* ]] && [[ "$base" == $t ]]; }; then
            ok=1
            break
        fi
    done
    [ "$ok" = 1 ] || say "$f is named nowhere in the map: name it in doc/architecture.md's $dir/ row or on its page (${folder_pages[$dir]:-none})"
done < <(git ls-files '*.c' | grep -v '^tests/\|^bench/\|^examples/')
exit "$bad"
