#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dps analyze on every member of the damaged-trace corpus (tests/data/corrupt/make-corpus.py).

    corrupt-corpus.py [--quick] DPS TRACES_DIR WORK_DIR [MEMBER_SUBSTRING]

Builds the corpus into WORK_DIR/corpus, runs `dps analyze MEMBER --list` on each (and on each
pristine base, for its figures) and holds every member to doc/analyzer.md's promise:

  - never killed by a signal, never a hang (a run that outlives the test's own timeout), never
    a sanitizer's report (under the asan preset);
  - exit 1 or 2: the message names the member's trace;
  - exit 0: either the damage is reported (the "incomplete" warning: a skip, a partial mark)
    or the figures are those of the pristine trace; a silent change of the figures fails a
    structural member and is counted for a payload member (a flipped byte inside an event is
    a different value no reader can detect: CTF has no checksum);
  - a "named" member (damage babeltrace2 reads without a word: a stream file missing or
    copied, a damaged count of lost events) must be reported with the text its `says` column
    gives, even when the figures do not change, and refused with it under --strict (exit 1).

--quick: only the first member of each base trace and kind of damage (52 of the 258 members:
every kind on every base, one seeded offset or position each); the whole corpus is the
ctest labelled long.

Prints one line per outcome class and the failures; exits 1 on any failure.
"""
import collections
import concurrent.futures
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE = os.path.join(HERE, "..", "data", "corrupt", "make-corpus.py")
RUN_TIMEOUT_S = 120  # far above the decoder's watchdog (DPS_DECODE_TIMEOUT below)


def analyze(dps, path, *extra):
    env = dict(os.environ, DPS_DECODE_TIMEOUT="3")
    try:
        p = subprocess.run([dps, "analyze", path, "--list", "--no-progress", *extra], env=env,
                           capture_output=True, timeout=RUN_TIMEOUT_S)
        return p.returncode, p.stdout.decode(errors="replace"), \
            p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", ""


def main():
    args = sys.argv[1:]
    quick = bool(args) and args[0] == "--quick"
    if quick:
        args = args[1:]
    if len(args) not in (3, 4):
        sys.exit("usage: corrupt-corpus.py [--quick] DPS TRACES_DIR WORK_DIR [MEMBER_SUBSTRING]")
    dps, traces, work = args[:3]
    only = args[3] if len(args) == 4 else None
    corpus = os.path.join(work, "corpus")
    subprocess.run([sys.executable, MAKE, traces, corpus], check=True)
    rows = []
    with open(os.path.join(corpus, "corpus.tsv")) as f:
        for line in f:
            if not line.startswith("#"):
                rows.append(line.rstrip("\n").split("\t"))
    if only:
        rows = [r for r in rows if only in r[0]]
    if quick:
        seen = set()
        rows = [r for r in rows if (r[1], r[2]) not in seen and not seen.add((r[1], r[2]))]
    bases = {}
    for base in sorted({r[1] for r in rows}):
        rc, out, err = analyze(dps, os.path.join(traces, base))
        if rc != 0:
            sys.exit("corrupt-corpus.py: the pristine %s fails (%s): %s" % (base, rc, err))
        bases[base] = out

    def run(row):
        path = os.path.join(corpus, row[0])
        strict = analyze(dps, path, "--strict") if row[5] == "named" else None
        return row, analyze(dps, path), strict

    outcomes = collections.Counter()
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for row, (rc, out, err), strict in pool.map(run, rows):
            name, base, kind, rel, detail, cls, says = row
            says = says.replace("MEMBER", os.path.join(corpus, name))
            first = err.strip().splitlines()[-1] if err.strip() else ""
            if rc is None:
                verdict, bad = "hang", True
            elif "ERROR: AddressSanitizer" in err or "runtime error:" in err:
                verdict, bad = "sanitizer report", True
            elif rc < 0:
                verdict, bad = "signal %d" % -rc, True
            elif rc in (1, 2):
                verdict, bad = "located error (exit %d)" % rc, name not in err
                if "made no progress" in err:
                    verdict = "located error: decoder stalled, stopped"
                elif "babeltrace2 crashed" in err:
                    verdict = "located error: decoder crashed"
                if bad:
                    verdict = "error without the trace's name (exit %d)" % rc
            elif rc == 0 and "incomplete" in err:
                verdict, bad = "reported skip/partial", False
            elif rc == 0 and out == bases[base]:
                verdict, bad = "no effect", False
            elif rc == 0:
                verdict, bad = "silent change", cls == "structural"
            else:
                verdict, bad = "exit %d" % rc, True
            if cls == "named" and not bad:
                if says not in err:
                    verdict, bad = "not named (%s)" % verdict, True
                elif strict[0] != 1 or says not in strict[2]:
                    verdict, bad = "named, but --strict gave exit %s" % strict[0], True
                    first = strict[2].strip()
                else:
                    verdict = "named, refused by --strict"
            outcomes[(kind, verdict)] += 1
            if bad:
                failures.append("%s (%s %s: %s): %s\n    %s" % (name, kind, rel, detail,
                                                             verdict, first))
    print("corrupt-corpus.py: %d members" % len(rows))
    for (kind, verdict), n in sorted(outcomes.items()):
        print("  %-14s %-40s %4d" % (kind, verdict, n))
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
