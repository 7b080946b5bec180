#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The one-node SLURM cluster (tests/cluster/slurm.sh) runs an sbatch job array, as the script of
# `dps whatif --plan DIR` will be run: ctest cluster-slurm. Brings the cluster up in a temporary
# directory, submits `sbatch --array=0-3 --wait` whose tasks each write their index and host
# name, checks the 4 files, takes the cluster down, brings it up again in the same directory
# (down leaves it reusable) and down for good. Needs root and slurm-wlm + munge: skipped (77)
# without them, failed instead when CI is set (doc/testing.md, "Skips").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/slurm.sh
name="cluster-slurm"

skip() {
    if [ -n "${CI:-}" ]; then
        echo "$name: $*; CI is set, where a test may not skip" >&2
        exit 1
    fi
    echo "$name: skipped: $*" >&2
    exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (slurmd runs the jobs as their users)"
for tool in slurmctld slurmd sbatch sinfo munged; do
    command -v "$tool" >/dev/null ||
        skip "$tool not installed (apt-get install slurm-wlm munge; scripts/setup.sh installs them)"
done

# The clusters of earlier runs killed before their trap (a ctest timeout): each directory names
# its test's pid; a directory whose test is gone is taken down and removed.
for old in /tmp/dps-test-slurm-*; do
    [ -f "$old/owner" ] || continue
    owner=$(cat "$old/owner")
    if [[ "$owner" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$owner/cmdline" 2>/dev/null |
        grep -q slurm-smoke; then
        continue
    fi
    echo "$name: taking down the cluster a killed run left in $old" >&2
    "$cluster" down "$old" || true
    rm -rf "$old"
done

# /tmp: the daemons' socket paths must stay short (slurm.sh refuses a long DIR)
work=$(mktemp -d /tmp/dps-test-slurm-XXXXXX)
echo $$ >"$work/owner"
cleanup() {
    "$cluster" down "$work" || true
    "$cluster" down "$work-gone" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "$name: $*" >&2
    for log in "$work"/log/*.log; do
        [ -s "$log" ] || continue
        echo "--- last lines of $log:" >&2
        tail -n 15 "$log" >&2
    done
    exit 1
}

env_line=$("$cluster" up "$work") || fail "the cluster did not start"
[[ "$env_line" == SLURM_CONF=* ]] || fail "slurm.sh up printed '$env_line', not SLURM_CONF=..."
export "${env_line?}"
"$cluster" status "$work" >/dev/null || fail "slurm.sh status says the cluster that came up is not up"

mkdir -p "$work/out"
cat >"$work/task.sh" <<'EOF'
#!/bin/bash
echo "$SLURM_ARRAY_TASK_ID $(hostname)" >"task-$SLURM_ARRAY_TASK_ID"
EOF
# --wait: sbatch returns when every task has ended, with the highest exit status of them
timeout 180 sbatch --array=0-3 --wait --chdir="$work/out" --output="$work/out/slurm-%A_%a.out" \
    --job-name=dps-smoke "$work/task.sh" >"$work/sbatch.out" 2>&1 ||
    { cat "$work/sbatch.out" >&2; fail "sbatch --array=0-3 --wait failed or took over 180 s"; }
host=$(hostname)
for i in 0 1 2 3; do
    f=$work/out/task-$i
    [ -f "$f" ] || fail "array task $i wrote no $f"
    [ "$(cat "$f")" = "$i $host" ] || fail "array task $i wrote '$(cat "$f")', not '$i $host'"
done
n=$(find "$work/out" -name 'task-*' | wc -l)
[ "$n" = 4 ] || fail "$n task files, not 4"

# A planned what-if study submitted as its plan says (doc/cluster.md): dps whatif --plan, then
# `sbatch --wait DIR/slurm.sbatch`, --collect, against the same study run here (same kind, knee
# within one step; a reading the noise or the load refused is said, never another answer).
dps=${DPS_BIN:-}
if [ -n "$dps" ]; then
    src=$(cd "$here/../.." && pwd)
    py=${DPS_PYTHON:-python3}
    study=("$src/tests/whatif/sets/knee" --thread-comm long --stub busy --from 0 --to 1
           --step 0.25 --repeat 3 --mode wall --seed 7)
    "$dps" whatif "${study[@]}" -q --plan "$work/plan" >"$work/plan.out" 2>&1 ||
        { cat "$work/plan.out" >&2; fail "dps whatif --plan failed"; }
    t0=$(date +%s)
    timeout 600 sbatch --wait "$work/plan/slurm.sbatch" >"$work/sbatch-plan.out" 2>&1 ||
        { cat "$work/sbatch-plan.out" >&2; fail "sbatch --wait of the plan's slurm.sbatch failed"; }
    t1=$(date +%s)
    "$dps" whatif --collect "$work/plan" --json >"$work/collect.json" 2>"$work/collect.err" ||
        { cat "$work/collect.err" >&2; fail "dps whatif --collect failed"; }
    "$dps" whatif "${study[@]}" -q --calibration "$work/plan/calibration" --json \
        >"$work/local.json" 2>/dev/null || fail "the same study run here failed"
    t2=$(date +%s)
    read -r ck cknee creason < <("$py" -c 'import json,sys; d=json.load(sys.stdin); print(d["kind"], d["t_limit_scale"], d["fit_reason"].replace(" ", "_"))' <"$work/collect.json")
    read -r lk lknee lreason < <("$py" -c 'import json,sys; d=json.load(sys.stdin); print(d["kind"], d["t_limit_scale"], d["fit_reason"].replace(" ", "_"))' <"$work/local.json")
    echo "$name: through SLURM: $ck, knee at scale $cknee ($((t1 - t0)) s for 15 array tasks);" \
        "here: $lk, knee at scale $lknee ($((t2 - t1)) s)"
    grep -q '"check": "partial"' "$work/collect.json" && fail "the SLURM study is partial: $(cat "$work/collect.err")"
    if [ "$ck" = unclear ] || [ "$lk" = unclear ]; then
        for r in "$ck:$creason" "$lk:$lreason"; do
            case "$r" in
            unclear:*noise* | unclear:*load*) ;;
            unclear:*) fail "unclear for another reason than noise or load: $r" ;;
            esac
        done
        echo "$name: note: the noise refused a reading (SLURM: $creason; here: $lreason)"
    else
        [ "$ck" = "$lk" ] || fail "the SLURM study reads $ck, the local one $lk"
        "$py" -c "import sys; sys.exit(0 if abs($cknee - $lknee) <= 0.25 + 1e-9 else 1)" ||
            fail "the knees $cknee (SLURM) and $lknee (here) are more than a step apart"
    fi
fi

# The traces of several hosts analyzed as jobs (doc/cluster.md, "Analyses as jobs"): dps analyze
# --plan, the plan's slurm.sbatch, --collect; each set as plain dps analyze writes it.
if [ -n "$dps" ]; then
    mkdir -p "$work/traces"
    for t in perf-idle-cpu1 record-live-prog; do
        cp -r "$src/tests/data/traces/$t" "$work/traces/"
    done
    "$dps" analyze --plan "$work/aplan" "$work/traces" >"$work/aplan.out" 2>&1 ||
        { cat "$work/aplan.out" >&2; fail "dps analyze --plan failed"; }
    timeout 300 sbatch --wait "$work/aplan/slurm.sbatch" >"$work/sbatch-aplan.out" 2>&1 ||
        { cat "$work/sbatch-aplan.out" >&2; fail "sbatch --wait of the analyses' slurm.sbatch failed"; }
    "$dps" analyze --collect "$work/aplan" >"$work/acollect.out" 2>&1 ||
        { cat "$work/acollect.out" >&2; fail "dps analyze --collect failed"; }
    for t in perf-idle-cpu1 record-live-prog; do
        "$dps" analyze "$work/traces/$t" -q -o "$work/plain-$t" >/dev/null 2>&1 ||
            fail "plain dps analyze of $t failed"
        diff -r "$work/plain-$t" "$work/aplan/results/$t" >/dev/null ||
            fail "the set of $t analyzed through SLURM differs from plain dps analyze's"
    done
    echo "$name: 2 traces analyzed as SLURM array tasks, their sets as plain dps analyze's"
fi

"$cluster" down "$work" || fail "slurm.sh down failed"
if "$cluster" status "$work" >/dev/null; then
    fail "slurm.sh status says the cluster is still up after down"
fi
env_line=$("$cluster" up "$work") || fail "the cluster did not start a second time in the same directory"
"$cluster" down "$work" || fail "slurm.sh down failed the second time"
echo "$name: 4 array tasks ran on $host; up, down, up and down again in $work"

# A cluster whose directory was removed under it (a killed test's clean-up): down still stops
# its daemons, found by their command lines, and leaves no directory behind.
gone="$work-gone"
"$cluster" up "$gone" >/dev/null || fail "the cluster did not start in $gone"
mapfile -t pids < <(cat "$gone"/run/*.pid)
rm -rf "$gone"
"$cluster" down "$gone" 2>/dev/null || fail "slurm.sh down of a removed directory failed"
for pid in "${pids[@]}"; do
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$gone/"; then
        fail "slurm.sh down of a removed directory left pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
    fi
done
[ ! -e "$gone" ] || fail "slurm.sh down of a removed directory left $gone"
echo "$name: down stopped the daemons of a cluster whose directory was removed"
