#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The man pages against the command (ctest: man-pages): every command of `dps --help` has its
# page (BUILD/doc/man/dps-CMD.1, made from doc/man/dps-CMD.1.md), every page source its command,
# dps.1 lists every command, and each page's OPTIONS list the options of its `--help`, no more
# and no fewer. Options are read from both sides by the bash completion's parser
# (cli/dps.bash-completion, _dps_parse_options): in --help, the option column; in a page, the
# term of each entry (the line after .TP) of the OPTIONS section, subsections included. Each
# page must also render without a groff warning. Prints every difference; exit 1 if any.
set -u
LC_ALL=C
export LC_ALL

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${DPS_BUILD_DIR:-$src/build/dev}
dps=${DPS_BIN:-$build/cli/dps}
mandir=${DPS_MAN_DIR:-$build/doc/man}
# shellcheck source=../../cli/dps.bash-completion
source "$src/cli/dps.bash-completion"
bad=0
say() {
    echo "man-pages: $*" >&2
    bad=1
}

# The terms of a page's section (OPTIONS, COMMANDS), one per line, as plain text.
section_terms() {
    awk -v want="$2" '
        /^\.SH / { on = ($2 == want) }
        on && prev == ".TP" { print }
        { prev = $0 }' "$1" |
        sed -e 's/\\f\[[A-Z]*\]//g' -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\\[en\]/--/g'
}
man_options() {
    section_terms "$1" OPTIONS | sed 's/^/  /' | _dps_parse_options | cut -f1 | sort -u
}
help_options() {
    _dps_help_options "$dps" "$@" | cut -f1 | sort -u
}
# Says what one list has and the other lacks.
differ() {
    local what=$1 a=$2 b=$3 only
    only=$(comm -23 <(echo "$a") <(echo "$b") | tr '\n' ' ')
    [ -z "$only" ] || say "$what: in --help, not in the man page: $only"
    only=$(comm -13 <(echo "$a") <(echo "$b") | tr '\n' ' ')
    [ -z "$only" ] || say "$what: in the man page, not in --help: $only"
}
renders() {
    local warn
    warn=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null)
    [ -z "$warn" ] || say "$1: groff warns: $warn"
}

if [ ! -x "$dps" ] || [ ! -d "$mandir" ]; then
    echo "man-pages: no $dps or no $mandir (build first; DPS_MAN=ON)" >&2
    exit 1
fi
commands=$(_dps_commands "$dps" | sort -u)
[ -n "$commands" ] || say "dps --help lists no command"

# dps.1: its options and its COMMANDS
if [ -f "$mandir/dps.1" ]; then
    differ "dps" "$(help_options)" "$(man_options "$mandir/dps.1")"
    listed=$(section_terms "$mandir/dps.1" COMMANDS | awk '{ print $1 }' | sort -u)
    differ "dps: commands" "$commands" "$listed"
    renders "$mandir/dps.1"
else
    say "no $mandir/dps.1"
fi
for cmd in $commands; do
    page=$mandir/dps-$cmd.1
    if [ ! -f "$page" ]; then
        say "dps $cmd has no man page: write doc/man/dps-$cmd.1.md"
        continue
    fi
    differ "dps $cmd" "$(help_options "$cmd")" "$(man_options "$page")"
    renders "$page"
done
# no page for a command that is gone
for f in "$src"/doc/man/dps-*.1.md; do
    name=$(basename "$f" .1.md)
    grep -qx "${name#dps-}" <<<"$commands" || say "$f: no command '${name#dps-}' in dps --help"
done
[ "$bad" = 0 ] && echo "man-pages: $(wc -w <<<"$commands") commands, their pages and options agree"
exit "$bad"
