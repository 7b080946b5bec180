#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# One CLI vocabulary (ctest: cli-options): every command of cli/commands.def answers --help,
# and no concept is spelled two ways across the commands' --help:
#   - a short letter stands for one long option in every command (-m is --min-block, not
#     --memory somewhere else);
#   - a long option has the same short letter, or none, in every command that has it;
#   - the canonical spellings below: each alternate is refused wherever it appears, and the
#     canonical option's text says what it means (--comm names the process, --no-progress is
#     about the progress line).
# Options are read as the bash completion reads them (cli/dps.bash-completion): a line of
# --help that starts with blanks and a dash, its option column up to two blanks. And every
# option the scripts of bench/ and scripts/ pass to dps is one its command has
# (script-options.py). Prints every difference; exit 1 if any.
set -u -o pipefail
LC_ALL=C
export LC_ALL

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${DPS_BUILD_DIR:-$src/build/dev}
dps=${DPS_BIN:-$build/cli/dps}
bad=0
say() {
    echo "cli-options: $*" >&2
    bad=1
}

# canonical option; what its text must say (an awk regex; empty: anything); alternates refused
canonical='
--comm;process;--process --process-comm --proc --pname --name-of-process
--pid;process;--process-id --proc-id
--tid;thread;--thread-id
--follow-children;child;--follow --follow-forks --children
--min-block;block;--min-block-ns --minblock --fold
--calibration;calibrat;--calib --cal --calibration-file
--keep-tracer-threads;ust;--keep-tracer --tracer-threads
--strict;incomplete;--pedantic
--no-progress;progress;--progress --no-progress-bar --quiet-progress --hide-progress
--json;JSON;--json-file --json-out --output-json --format-json
--output;;--out --outdir --output-dir --output-file
--quiet;less|no ;--silent
--verbose;;--debug-output
--help;;--usage
'

# Options exempt from "the same short letter everywhere": command option why. dps run's options
# after DIR are the stub's (runtime/include/dps/knobs.def), long names only.
exempt='
run --quiet the stub knob: long names only
'

if [ ! -x "$dps" ]; then
    echo "cli-options: no $dps (build first)" >&2
    exit 1
fi
commands=$(sed -n 's/^DPS_COMMAND(\([a-z0-9_-]*\),.*/\1/p' "$src/cli/commands.def")
[ -n "$commands" ] || say "cli/commands.def lists no command"
listed=$("$dps" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')

# One line per option of each command's --help: command, short letter ("" none), long
# option ("" none), the text on the option's line.
table=$(
    for cmd in $commands; do
        grep -qx "$cmd" <<<"$listed" || say "dps --help does not list '$cmd' (cli/commands.def)"
        if ! help=$("$dps" "$cmd" --help 2>&1); then
            say "dps $cmd --help: exit status not 0"
            continue
        fi
        awk -v cmd="$cmd" '
            /^[ \t]+-/ {
                line = $0
                sub(/^[ \t]+/, "", line)
                n = index(line, "  ")
                col = n ? substr(line, 1, n - 1) : line
                text = n ? substr(line, n) : ""
                sub(/^ +/, "", text)
                nw = split(col, w, / +/)
                short = ""
                for (i = 1; i <= nw; i++) {
                    more = sub(/,$/, "", w[i])
                    if (w[i] ~ /^--[A-Za-z][A-Za-z0-9-]*(\[=[^]]*\])?$/) {
                        sub(/\[=.*$/, "", w[i])
                        printf "%s\t%s\t%s\t%s\n", cmd, short, w[i], text
                        short = ""
                    } else if (w[i] ~ /^-[A-Za-z0-9]$/) {
                        short = w[i]
                    } else if (!more) {
                        break # a value name that ends the column
                    }
                }
                if (short != "") {
                    printf "%s\t%s\t\t%s\n", cmd, short, text
                }
            }' <<<"$help"
    done
)
[ -n "$table" ] || say "no command lists an option"

# Says each line of $2 (nothing when empty); $1 names the check, which failed to run when its
# awk did (status $3).
report() {
    [ "$3" = 0 ] || say "$1: the check itself failed (awk exit $3)"
    while IFS= read -r line; do
        [ -z "$line" ] || say "$line"
    done <<<"$2"
}

# a short letter bound to two long options; a long option with two short letters (or one in
# one command and none in another)
out=$(awk -F '\t' -v exempt="$exempt" '
    BEGIN {
        n = split(exempt, e, "\n")
        for (i = 1; i <= n; i++) {
            if (split(e[i], f, " ") >= 2) {
                skip[f[1] SUBSEP f[2]] = 1
            }
        }
    }
    ($1 SUBSEP $3) in skip { next }
    $2 != "" && $3 != "" {
        if (($2 in long) && long[$2] != $3) {
            printf "%s is %s in dps %s and %s in dps %s\n", $2, long[$2], where[$2], $3, $1
        } else if (!($2 in long)) {
            long[$2] = $3
            where[$2] = $1
        }
    }
    $3 != "" {
        s = $2 == "" ? "no short letter" : $2
        if (($3 in short) && short[$3] != s && !seen[$3 SUBSEP s]++) {
            printf "%s has %s in dps %s and %s in dps %s\n", $3, short[$3], swhere[$3], s, $1
        } else if (!($3 in short)) {
            short[$3] = s
            swhere[$3] = $1
        }
    }' <<<"$table")
report "short letters" "$out" $?

# the canonical spellings: no alternate anywhere, and the canonical option's text says its
# meaning wherever it has a text on its line
while IFS=';' read -r want meaning alternates; do
    [ -n "$want" ] || continue
    out=$(awk -F '\t' -v w="$want" -v m="$meaning" -v alts=" $alternates " '
        index(alts, " " $3 " ") && !said[$1 SUBSEP $3]++ {
            printf "dps %s: %s is spelled %s in dps\n", $1, $3, w
        }
        m != "" && $3 == w && $4 != "" && $4 !~ m {
            printf "dps %s: %s means something else here (\"%s\"); its text says /%s/ in dps\n",
                $1, w, $4, m
        }' <<<"$table")
    report "$want" "$out" $?
done <<<"$canonical"

# the options the benchmark and set-up scripts pass, which no other test runs
mapfile -t scripts < <(ls "$src"/bench/*.sh "$src"/bench/*.py "$src"/scripts/*.sh 2>/dev/null)
[ "${#scripts[@]}" -gt 0 ] || say "no script in bench/ or scripts/"
out=$("${DPS_PYTHON:-python3}" "$src/tests/cli/script-options.py" "${scripts[@]}" <<<"$table")
st=$?
[ "$st" -le 1 ] || say "script options: the check itself failed (exit $st)"
report "script options" "$out" 0
# and the check finds an option that is not there (the call bench/cache.sh made)
planted=$(mktemp --suffix=.sh "${TMPDIR:-/tmp}/dps-cli-options.XXXXXX")
# shellcheck disable=SC2016 # the script's own text, not expanded
printf '"$dps" cache capture -o "$w/k.cache" -f kernel -- \\\n    prog\n' >"$planted"
out=$("${DPS_PYTHON:-python3}" "$src/tests/cli/script-options.py" "$planted" <<<"$table")
grep -q "has no option -f" <<<"$out" || say "script options: a planted -f of dps cache was not found ($out)"
rm -f "$planted"

if [ "$bad" = 0 ]; then
    echo "cli-options: $(wc -w <<<"$commands") commands, $(cut -f3 <<<"$table" | sort -u | wc -l) long options, one spelling each"
fi
exit "$bad"
