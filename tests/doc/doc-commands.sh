#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs every command shown in README.md and doc/*.md and checks its exit status (ctest:
# doc-commands). Usage: tests/doc/doc-commands.sh [--list] [PAGE.md...]
#   --list   print the commands as they would run (after the rules below), run nothing
#
# What is a command (the convention doc/architecture.md states):
#   - every line of a ```sh block; a line ending in \ continues on the next; blank lines and
#     lines that are only a comment are not commands;
#   - in a ```console block, the lines that start with "$ " (the rest is output, not checked);
#   - other fences (```text for synopses, output and diagrams; ```c, ```json, ```cmake) hold
#     no commands;
#   - a ```c block preceded by the line <!-- doc-commands: file NAME --> is written to NAME
#     before the page's commands run (the page then compiles it).
# A command must exit 0, or N when it ends in the comment "# exit N".
#
# How they run: each page in its own temporary directory, its commands in order in one bash
# (an export holds for the next lines), stdin /dev/null. The directory holds a symlink to each
# top-level entry of the source tree but build/ and out/ (examples/, tests/, ... as from the root),
# build/dev -> the build under test, and prog.c and ./myprog, the small two-thread program
# tests/doc/prog.c. dps of the build under test is first on PATH; EDITOR is
# tests/doc/halve-runs.sh (halves every run of the .act files it is given).
# The test runs as root, as the docs' sudo lines do, and is skipped (77) in a sanitized build
# (DPS_SANITIZE=1 from ctest).
#
# Rules:
#   skipped: scripts/setup.sh and apt-get lines (they install packages; CI runs setup.sh
#            itself) and bench/ lines (benchmarks run for minutes on an idle machine: by hand);
#   "sudo " and "sudo -E " are dropped from the start of a command;
#   substitutions (literal, where the docs name something only the reader has):
#            /opt/dps          -> $PWD/opt/dps (an install prefix inside the page directory)
#            set/4712.act      -> set/<root id>.act (the README's example thread id)
#            --thread 4712     -> --thread <root id> (the same, for dps whatif)
#            hot_fn            -> worker (the README's example function: ./myprog's thread's)
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${DPS_BUILD_DIR:-$src/build/dev}
list_only=false
pages=()
for arg in "$@"; do
    case "$arg" in
    --list) list_only=true ;;
    *) pages+=("$arg") ;;
    esac
done
if [ ${#pages[@]} = 0 ]; then
    pages=("$src/README.md" "$src"/doc/*.md)
fi
if ! $list_only && [ "$(id -u)" != 0 ]; then
    echo "doc-commands: needs root (the docs record with dps record and lttng)" >&2
    exit 77
fi
if ! $list_only && [ "${DPS_SANITIZE:-0}" = 1 ]; then
    # libdps and the stack probe are sanitized: the plain cc programs of runtime.md and
    # memory.md cannot link or preload them (the dev build runs the docs).
    echo "doc-commands: skipped in a sanitized build" >&2
    exit 77
fi
if ! $list_only && [ ! -x "$build/cli/dps" ]; then
    echo "doc-commands: no dps in $build/cli (set DPS_BUILD_DIR)" >&2
    exit 1
fi

# Substitutions: pairs of literal "from" and "to".
subst_from=('/opt/dps' 'set/4712.act' '--thread 4712' 'hot_fn')
subst_to=('$PWD/opt/dps' 'set/$(sed -n "s/^root //p" set/manifest).act'
          '--thread $(sed -n "s/^root //p" set/manifest)' 'worker')

# Prints the page's commands as lines "C<TAB>LINE<TAB>EXPECTED<TAB>COMMAND" and its file
# blocks as "F<TAB>LINE<TAB>NAME", writing each file block's text to DIR/NAME (DIR empty:
# nothing written).
extract() {
    awk -v dir="$2" '
    function emit(line, text,    expect) {
        expect = 0
        if (match(text, /#[ \t]*exit[ \t]+[0-9]+[ \t]*$/)) {
            expect = substr(text, RSTART, RLENGTH)
            gsub(/[^0-9]/, "", expect)
        }
        printf "C\t%d\t%d\t%s\n", line, expect, text
    }
    /^[ \t]*```/ {
        if (fence == "") {
            fence = $0
            sub(/^[ \t]*```/, "", fence)
            sub(/[ \t].*$/, "", fence)
            if (fence == "") {
                fence = "none"
            }
            file = (fence == "c" && pending_file != "") ? pending_file : ""
            if (file != "") {
                printf "F\t%d\t%s\n", NR, file
                if (dir != "") {
                    printf "" > (dir "/" file)
                }
            }
            pending_file = ""
            next
        }
        if (cont != "") {
            emit(cont_line, cont)
            cont = ""
        }
        if (file != "" && dir != "") {
            close(dir "/" file)
        }
        fence = ""
        file = ""
        next
    }
    fence == "" {
        if ($0 ~ /^<!-- doc-commands: file [^ ]+ -->[ \t]*$/) {
            pending_file = $4
        } else if ($0 !~ /^[ \t]*$/) {
            pending_file = ""
        }
        next
    }
    file != "" {
        if (dir != "") {
            print > (dir "/" file)
        }
        next
    }
    fence == "sh" || fence == "console" {
        text = $0
        if (cont == "") {
            if (fence == "console") {
                if (text !~ /^\$ /) {
                    next
                }
                text = substr(text, 3)
            }
            sub(/^[ \t]+/, "", text)
            if (text == "" || text ~ /^#/) {
                next
            }
            cont_line = NR
        }
        if (text ~ /\\$/) {
            cont = cont substr(text, 1, length(text) - 1)
            next
        }
        emit(cont_line, cont text)
        cont = ""
    }
    ' "$1"
}

# The command as it runs, or nothing when a rule skips it.
rewrite() {
    local cmd=$1 i

    cmd=${cmd#sudo -E }
    cmd=${cmd#sudo }
    case "$cmd" in
    scripts/setup.sh* | apt-get* | bench/* | *=*\ sudo\ -E\ bench/* | *=*\ bench/*) return ;;
    esac
    for i in "${!subst_from[@]}"; do
        cmd=${cmd//"${subst_from[$i]}"/"${subst_to[$i]}"}
    done
    printf '%s' "$cmd"
}

work=
if ! $list_only; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/dps-doc-commands.XXXXXX") || exit 1
    trap 'rm -rf "$work"' EXIT
    results=$work/results
    : > "$results"
    cc -O2 -pthread "$src/tests/doc/prog.c" -o "$work/myprog" || exit 1
fi

total=0
for page in "${pages[@]}"; do
    name=$(basename "$page" .md)
    rel=${page#"$src"/}
    dir=
    if ! $list_only; then
        dir=$work/$name
        mkdir -p "$dir/build"
        for entry in "$src"/*; do
            # not build/ (the one under test is linked below) nor out/ (the demo's output:
            # the README's commands write their own out/ here)
            case "$(basename "$entry")" in
            build | out) ;;
            *) ln -s "$entry" "$dir/" ;;
            esac
        done
        ln -s "$build" "$dir/build/dev"
        cp "$src/tests/doc/prog.c" "$dir/prog.c"
        cp "$work/myprog" "$dir/myprog"
    fi
    script=$(mktemp "${TMPDIR:-/tmp}/dps-doc-page.XXXXXX")
    {
        echo 'doc_check() {'
        echo '    if [ "$1" = "$3" ]; then r=ok; else r=FAILED; fi'
        echo '    printf "doc-commands: %s: %s: exit %s (expected %s): %s\n" "$r" "$2" "$1" "$3" "$4" >&2'
        echo '    echo "$r $2" >> "$DOC_RESULTS"'
        echo '}'
    } > "$script"
    while IFS=$'\t' read -r kind line expect text; do
        if [ "$kind" != C ]; then
            continue
        fi
        cmd=$(rewrite "$text")
        if [ -z "$cmd" ]; then
            $list_only && printf '%s:%s: (skipped) %s\n' "$rel" "$line" "$text"
            continue
        fi
        total=$((total + 1))
        if $list_only; then
            printf '%s:%s: [exit %s] %s\n' "$rel" "$line" "$expect" "$cmd"
            continue
        fi
        printf 'printf "doc-commands: %%s\\n" %q >&2\n' "$rel:$line: $cmd" >> "$script"
        printf '%s\n' "$cmd" >> "$script"
        printf 'doc_check $? %q %q %q\n' "$rel:$line" "$expect" "$text" >> "$script"
        # A session the page creates is gone at its end even when its destroy line failed
        # or never ran, so that the next run can create it again.
        if [[ "$cmd" =~ ^lttng\ create\ ([A-Za-z0-9_-]+) ]]; then
            printf 'lttng list %q >/dev/null 2>&1 && lttng destroy %q >/dev/null\n' \
                "${BASH_REMATCH[1]}" "${BASH_REMATCH[1]}" >> "$script.end"
        fi
    done < <(extract "$page" "$dir")
    [ -f "$script.end" ] && cat "$script.end" >> "$script"
    rm -f "$script.end"
    if ! $list_only; then
        (cd "$dir" && PATH="$build/cli:$PATH" EDITOR="$src/tests/doc/halve-runs.sh" \
            DOC_RESULTS="$results" bash "$script" < /dev/null)
    fi
    rm -f "$script"
done

if $list_only; then
    echo "doc-commands: $total commands"
    exit 0
fi
failed=$(grep -c '^FAILED' "$results")
ran=$(wc -l < "$results")
echo "doc-commands: $ran of $total commands ran, $failed failed"
grep '^FAILED' "$results" | sed 's/^FAILED /doc-commands: failed: /'
[ "$failed" = 0 ] && [ "$ran" = "$total" ]
