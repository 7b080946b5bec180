#!/bin/sh
# SPDX-License-Identifier: MIT
# The tests' scratch space (tests/CMakeLists.txt, the fixture test_tmpdir): made empty before the
# tests that use it, removed after them unless DPS_TEST_KEEP_TMP is set (to look at what a
# failed test left). Usage: tmpdir.sh make|remove DIR
set -eu

# The small file systems the full-disk tests mount below DIR (dps_test_mount_tmpfs): a test
# killed before its own unmount (a timeout, a crash) left one mounted, and rm -rf stops at it
# ("Device or resource busy"), the mount kept for good. Deepest first.
unmount_below() {
    [ -d "$1" ] || return 0
    awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
        while IFS= read -r m; do
            umount -- "$m" || umount -l -- "$m" || echo "tmpdir.sh: could not unmount $m" >&2
        done
}

case "$1" in
make)
    unmount_below "$2"
    rm -rf -- "$2"
    mkdir -p -- "$2"
    ;;
remove)
    if [ -n "${DPS_TEST_KEEP_TMP:-}" ]; then
        echo "tmpdir.sh: kept $2 (DPS_TEST_KEEP_TMP)"
    else
        unmount_below "$2"
        rm -rf -- "$2"
    fi
    ;;
*)
    echo "usage: tmpdir.sh make|remove DIR" >&2
    exit 2
    ;;
esac
