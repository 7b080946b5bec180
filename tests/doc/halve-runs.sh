#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The EDITOR of tests/doc/doc-commands.sh: the what-if the docs describe ("halve a thread's run
# times") done to each .act file given. A file that does not exist fails, as it would in an
# editor the reader then saves nothing from.
set -eu
for f in "$@"; do
    [ -f "$f" ] || { echo "halve-runs: $f: no such action file" >&2; exit 1; }
    awk '$1 == "run" && match($2, /^[0-9.]+/) {
        v = sprintf("%.3f", substr($2, 1, RLENGTH) / 2)
        sub(/\.?0+$/, "", v)
        $2 = v substr($2, RLENGTH + 1)
    }
    { print }' "$f" > "$f.halved"
    mv "$f.halved" "$f"
done
