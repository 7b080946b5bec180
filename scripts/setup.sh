#!/usr/bin/env bash
# dps set-up on a fresh Debian 12 machine, in one command:
#   scripts/setup.sh test   installs what is missing, builds (preset dev) and runs every test
#                           but the long campaigns (ctest label long: fuzzing, the whole
#                           damaged-trace corpus, ...; doc/testing.md): about 5 minutes on 2 cores
#                           --all: every test, the campaigns too (CI runs them)
#                           --long: the campaigns only
#   scripts/setup.sh demo   installs, builds, and runs the main job end to end on a bundled
#                           real trace: analyze -> generate -> build -> run traced -> compare
#                           -> HTML report (dps replay), then the what-if curve of one of its
#                           threads (dps whatif), then a memory-use prediction (dps memory):
#                           scripts/demo.sh, each part a heading and its "Report: PATH" last
# Options: --preset NAME (dev, asan, release), --no-install, --all, --long (test only).
# Needs root (or sudo) for apt-get, tracefs and perf's kernel scheduler capture.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
what=${1:-test}
shift || true
preset=dev
install=1
labels=(-LE long)
while [ $# -gt 0 ]; do
    case "$1" in
    --preset) preset=$2; shift 2 ;;
    --no-install) install=0; shift ;;
    --all) labels=(); shift ;;
    --long) labels=(-L long); shift ;;
    *) echo "setup.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

sudo_cmd=()
if [ "$(id -u)" != 0 ]; then
    sudo_cmd=(sudo)
fi

# Debian packages the project needs; installed only when missing. slurm-wlm (slurmctld,
# slurmd), slurm-client (sbatch, sinfo), munge and iproute2 (ss): the one-node cluster of
# tests/cluster/slurm.sh; parallel (GNU parallel): the parallel.sh of dps whatif --plan.
packages=(cmake make gcc pkg-config lttng-tools liblttng-ust-dev liblttng-ctl-dev
          libbabeltrace2-dev babeltrace2 liburcu-dev libcriterion-dev libglib2.0-dev
          linux-perf chromium python3 procps util-linux time clang-format xz-utils
          clang libclang-rt-14-dev zstd pandoc man-db libdw-dev libjson-glib-dev heaptrack
          valgrind slurm-wlm slurm-client munge iproute2 parallel)
if [ "$install" = 1 ]; then
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup.sh: installing ${missing[*]}"
        # Another apt-get (unattended upgrades, a second checkout's set-up) holds dpkg's lock
        # for a while: wait for it rather than fail.
        "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 \
            install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

# perf sched record needs tracefs.
if ! mountpoint -q /sys/kernel/tracing 2>/dev/null; then
    "${sudo_cmd[@]}" mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi

jobs=$(nproc)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"

case "$what" in
test)
    # One test more than there are cores: the tests that run beside each other wait too (for
    # the session daemon, a recording's start and end, Chromium, the signals of the
    # interruption tests), and a third one fills those waits. The tests that need the machine
    # to themselves still run alone (RUN_SERIAL; doc/testing.md, "What runs beside what").
    ctest --preset "$preset" -j "$((jobs + 1))" ${labels[@]+"${labels[@]}"}
    ;;
demo)
    # three parts, each one heading and, last, "Report: PATH" (scripts/demo.sh)
    scripts/demo.sh "build/$preset" "${DPS_DEMO_OUT:-$here/out/demo}"
    ;;
build)
    ;;
*)
    echo "setup.sh: unknown action '$what' (test, demo, build)" >&2
    exit 2
    ;;
esac
