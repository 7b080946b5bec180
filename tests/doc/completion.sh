#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The bash completion (cli/dps.bash-completion; ctest: bash-completion), driven as bash drives
# it (COMP_WORDS, COMP_CWORD, then _dps): the commands, every option of every command's
# --help, literal values (--mode, --format, --opt=VALUE), an optional value (--wait-quiet[=SECONDS]), the command after dps record's --.
# Prints each wrong completion; exit 1 if any.
set -u
LC_ALL=C
export LC_ALL

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${DPS_BUILD_DIR:-$src/build/dev}
dps=${DPS_BIN:-$build/cli/dps}
# shellcheck source=../../cli/dps.bash-completion
source "$src/cli/dps.bash-completion"
bad=0

# What bash would offer for the words (the last one is being completed), sorted, one a line.
offers() {
    COMP_WORDS=("$dps" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _dps 2>/dev/null
    printf '%s\n' "${COMPREPLY[@]}" | sort -u | sed '/^$/d'
}
# expect WANT WORDS...: the offers are exactly WANT (space-separated)
expect() {
    local want got
    want=$(tr ' ' '\n' <<<"$1" | sort -u | sed '/^$/d')
    shift
    got=$(offers "$@")
    if [ "$got" != "$want" ]; then
        echo "completion: dps $* <TAB>: offered '$(echo $got)', expected '$(echo $want)'" >&2
        bad=1
    fi
}
# includes WORD WORDS...: the offers include WORD
includes() {
    local word=$1
    shift
    if ! offers "$@" | grep -qx -- "$word"; then
        echo "completion: dps $* <TAB>: '$word' not offered" >&2
        bad=1
    fi
}

commands=$(_dps_commands "$dps")
expect "$commands --help --version" ""
expect "export" ex
expect "--decode-jobs" analyze trace --dec
expect "cpu wall work" run set --mode ""
expect "work" replay trace --mode=wo
expect "work" replay trace --mode = wo
expect "cpu wall work" replay trace --mode =
expect "perfetto" export trace --format ""
expect "--orig-comm --orig-pid --orig-tid" compare a b --orig
includes bash record -o t -- ba
# an optional value is only ever joined to its option: the next word is not it
expect "--force" replay trace --wait-quiet --forc
expect "" replay trace --wait-quiet=
includes --wait-quiet whatif trace --wai
# every option of every command, nothing else
for cmd in $commands; do
    expect "$(_dps_help_options "$dps" "$cmd" | cut -f1 | tr '\n' ' ')" "$cmd" -
done
[ "$bad" = 0 ] && echo "completion: $(wc -w <<<"$commands") commands and their options complete"
exit "$bad"
