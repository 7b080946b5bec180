#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Analyses as jobs (ctest: test-analyze-plan; doc/cluster.md, "Analyses as jobs"): a directory
# of three traces planned with dps analyze --plan, one job each, run through the generated
# parallel.sh (GNU parallel, here), then --collect. The two dps record traces select their
# recorded command by themselves, as plain dps analyze does; tracefile-rotation-sched has no
# record.info and no selection, so its job fails, and collect names it (exit 1, 0 with
# --allow-missing). The sets are byte for byte those of plain dps analyze; a set deleted is
# named missing; --compare runs compare's comparison; a bad plan line is exit 2 with file:line.
set -u -o pipefail
LC_ALL=C
export LC_ALL

src=$(cd "$(dirname "$0")/../.." && pwd)
dps=${DPS_BIN:-$src/build/dev/cli/dps}
bad=0
say() {
    echo "test-analyze-plan: $*" >&2
    bad=1
}
if ! command -v parallel >/dev/null; then
    echo "test-analyze-plan: GNU parallel is not installed (scripts/setup.sh installs it)" >&2
    [ -n "${CI:-}" ] && exit 1
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dps-analyze-plan.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/traces"
for t in perf-idle-cpu1 record-live-prog tracefile-rotation-sched; do
    cp -r "$src/tests/data/traces/$t" "$tmp/traces/"
done

# the plan: one job per trace of the directory, in order
"$dps" analyze --plan "$tmp/plan" "$tmp/traces" > "$tmp/plan.out" 2>&1 ||
    say "dps analyze --plan: exit $? $(cat "$tmp/plan.out")"
for f in plan slurm.sbatch parallel.sh results; do
    [ -e "$tmp/plan/$f" ] || say "the plan has no $f"
done
[ "$(grep -c '^job ' "$tmp/plan/plan")" = 3 ] || say "not 3 jobs: $(cat "$tmp/plan/plan")"
head -1 "$tmp/plan/plan" | grep -qx 'dps-analyze-plan 1' || say "the plan's first line"
sb=$tmp/plan/slurm.sbatch
bash -n "$sb" || say "slurm.sbatch is not valid bash"
grep -qx '#SBATCH --array=0-2' "$sb" || say "slurm.sbatch's array: $(grep array "$sb")"
grep -qx '#SBATCH --exclusive' "$sb" || say "slurm.sbatch is not --exclusive"
grep -q 'analyze --run-one' "$sb" || say "slurm.sbatch does not run dps analyze --run-one"
"$dps" analyze --plan "$tmp/plan2" --slurm-partition debug --slurm-shared \
    "$tmp/traces/perf-idle-cpu1" "$tmp/traces/record-live-prog" > /dev/null 2>&1 ||
    say "--plan with two traces: exit $?"
grep -qx '#SBATCH --partition=debug' "$tmp/plan2/slurm.sbatch" || say "no --partition line"
grep -q '^#SBATCH --exclusive' "$tmp/plan2/slurm.sbatch" && say "--slurm-shared still --exclusive"

# the jobs through GNU parallel: one fails (no selection), so parallel.sh says so
"$tmp/plan/parallel.sh" > "$tmp/parallel.out" 2>&1 && say "parallel.sh: exit 0 with a failed job"
grep -q 'job 2 (tracefile-rotation-sched) failed on ' "$tmp/parallel.out" ||
    say "the failed job does not say so: $(tail -3 "$tmp/parallel.out")"
grep -q '^status failed$' "$tmp/plan/results/tracefile-rotation-sched.status" ||
    say "no failed status: $(cat "$tmp/plan/results/tracefile-rotation-sched.status")"

# the sets are plain dps analyze's, byte for byte
for t in perf-idle-cpu1 record-live-prog; do
    "$dps" analyze "$tmp/traces/$t" -o "$tmp/plain-$t" > /dev/null 2>&1 || say "plain dps analyze $t: exit $?"
    diff -r "$tmp/plain-$t" "$tmp/plan/results/$t" >&2 || say "the set of $t is not plain dps analyze's"
done

# collect: the failed job named, with its node; exit 1, or 0 with --allow-missing
"$dps" analyze --collect "$tmp/plan" > "$tmp/c.out" 2> "$tmp/c.err"
st=$?
[ $st = 1 ] || say "collect with a failed job: exit $st, want 1"
grep -q "job 2 (tracefile-rotation-sched) failed on $(hostname): .*no selection" "$tmp/c.err" ||
    say "the failed job is not named: $(cat "$tmp/c.err")"
grep -q '^Partial: 1 of 3 jobs' "$tmp/c.out" || say "the output does not say partial: $(cat "$tmp/c.out")"
grep -Eq '^1 +record-live-prog .* ok +3 ' "$tmp/c.out" || say "record-live-prog's row: $(cat "$tmp/c.out")"
"$dps" analyze --collect "$tmp/plan" --allow-missing --compare > "$tmp/c2.out" 2> /dev/null ||
    say "--allow-missing: exit $?"
grep -q '^== record-live-prog against perf-idle-cpu1 ==' "$tmp/c2.out" || say "no comparison"
grep -q '^fidelity error ' "$tmp/c2.out" || say "the comparison is not compare's text"
"$dps" analyze --collect "$tmp/plan" --allow-missing --compare --json \
    --reference record-live-prog > "$tmp/c.json" 2> /dev/null || say "--json: exit $?"
python3 - "$tmp/c.json" <<'PY' || say "collect's JSON: $(head -c 300 "$tmp/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "dps-analyze-collect/1" and d["partial"] and d["reference"] == "record-live-prog"
assert [j["status"] for j in d["jobs"]] == ["ok", "ok", "failed"]
assert len(d["comparisons"]) == 1 and d["comparisons"][0]["schema"] == "dps-compare/1"
PY

# a set deleted: named missing
rm -rf "$tmp/plan/results/perf-idle-cpu1" "$tmp/plan/results/perf-idle-cpu1.status"
"$dps" analyze --collect "$tmp/plan" > "$tmp/c.out" 2> "$tmp/c.err" && say "collect with a missing job: exit 0"
grep -q 'job 0 (perf-idle-cpu1, .*) has no result' "$tmp/c.err" || say "the missing job is not named: $(cat "$tmp/c.err")"
# run again, it is back, the same set
"$dps" analyze --run-one 0 "$tmp/plan" > /dev/null 2>&1 || say "--run-one 0: exit $?"
diff -r "$tmp/plain-perf-idle-cpu1" "$tmp/plan/results/perf-idle-cpu1" >&2 || say "the set run again differs"

# bad input: a bad plan line, an index out of the plan, a reference that is not a job
sed -i 's/^job 1 /job 7 /' "$tmp/plan/plan"
"$dps" analyze --collect "$tmp/plan" > /dev/null 2> "$tmp/f.err"
st=$?
[ $st = 2 ] || say "a bad plan line: exit $st, want 2"
grep -q "$tmp/plan/plan:5: expected job INDEX NAME TRACE" "$tmp/f.err" || say "the bad line is not named: $(cat "$tmp/f.err")"
"$dps" analyze --run-one 3 "$tmp/plan2" > /dev/null 2> "$tmp/f.err"
st=$?
[ $st = 2 ] || say "--run-one out of the plan: exit $st, want 2"
"$dps" analyze --collect "$tmp/plan2" --reference nosuch > /dev/null 2> "$tmp/f.err"
st=$?
[ $st = 2 ] || say "--reference of no job: exit $st, want 2"
"$dps" analyze --run-one 0 "$tmp/plan2" > /dev/null 2>&1 || say "--run-one 0 of plan2: exit $?"
"$dps" analyze --plan "$tmp/plan2" "$tmp/traces/perf-idle-cpu1" > /dev/null 2> "$tmp/f.err"
st=$?
[ $st = 2 ] || say "--plan over results not collected: exit $st, want 2"
grep -q 'collect them first' "$tmp/f.err" || say "--plan over results does not say why: $(cat "$tmp/f.err")"
"$dps" analyze --plan "$tmp/plan3" "$tmp/traces/perf-idle-cpu1" --json > /dev/null 2>&1
[ $? = 2 ] || say "--plan with --json: not exit 2"
exit $bad
