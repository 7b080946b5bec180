#!/bin/sh
# SPDX-License-Identifier: MIT
# The tests' scratch space (tests/CMakeLists.txt, the fixture test_tmpdir): made empty before the
# tests that use it, removed after them unless DPS_TEST_KEEP_TMP is set (to look at what a
# failed test left). Usage: tmpdir.sh make|remove DIR
set -eu
case "$1" in
make)
    rm -rf -- "$2"
    mkdir -p -- "$2"
    ;;
remove)
    if [ -n "${DPS_TEST_KEEP_TMP:-}" ]; then
        echo "tmpdir.sh: kept $2 (DPS_TEST_KEEP_TMP)"
    else
        rm -rf -- "$2"
    fi
    ;;
*)
    echo "usage: tmpdir.sh make|remove DIR" >&2
    exit 2
    ;;
esac
