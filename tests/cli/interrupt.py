#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Interruptions leave nothing behind (doc/record.md, "Interruptions").

record, replay, whatif and analyze are each interrupted at random points (a fixed seed,
DPS_INTERRUPT_SEED to change it) by SIGINT to the process group (a ^C), SIGTERM and SIGKILL to
dps alone, and SIGKILL to the process group. After each, within a few seconds, nothing they
started may be left: no process (whatever runs in the test's directory: perf, the stub, the
recorded command, a decoder, a compiler, dps's guardian), no LTTng session named after the dps
process, no temporary (.NAME.tmp-PID-*, .dps-build-*, dps-decode-*, dps-whatif-*; TMPDIR is the
test's directory).

Then the case a guardian cannot cover: dps and its guardian killed together. The next dps command
must remove what they left (the session, the temporaries) and say so.

Usage: interrupt.py [--points N] [--part signals|guardian] DPS SOURCE_DIR WORK_DIR
  --points N   random points per command and signal (default 2: the campaign, ctest's
               interruptions-campaign, label long; ctest's interruptions takes 1)
  --part P     only the interruptions (signals) or only the guardian cases (default both).
               The guardian cases need no other dps recording beside them: the next dps
               command's sweep is what they check, and another test's dps record sweeps the
               same session daemon (it once removed the case's session, saying so in its own
               output); ctest runs them under the lock lttng, the signals beside the others.

With one point, replay is given a quick calibration made once (its own calibration, 3-4 s of
every replay, is the campaign's to interrupt): the quick run takes half the time.
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

ARGS = sys.argv[1:]
POINTS = 2
PART = None
while ARGS[:1] in (["--points"], ["--part"]):
    if ARGS[0] == "--points":
        POINTS = int(ARGS[1])
    elif ARGS[1] in ("signals", "guardian"):
        PART = ARGS[1]
    else:
        sys.exit(f"interrupt.py: --part {ARGS[1]}: expected signals or guardian")
    ARGS = ARGS[2:]
DPS, SRC, WORK = ARGS[0], ARGS[1], os.path.abspath(ARGS[2])
SEED = int(os.environ.get("DPS_INTERRUPT_SEED", "26"))
TEMP = re.compile(r"^(\..*\.tmp-\d+-|\.dps-build-|dps-decode-|dps-whatif-)")
failures = []


def foreign(session):
    """A session whose dps record (dps-record-PID-...) is alive outside WORK: another
    checkout's tests or a benchmark recording meanwhile (as root every dps shares one session
    daemon), never one of this test's (what they leave has no live owner, or one in WORK)."""
    pid = session.split("-")[2]
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    return not (cwd == WORK or cwd.startswith(WORK + "/"))


def lttng_sessions():
    out = subprocess.run(["lttng", "list"], capture_output=True, text=True).stdout
    return {s for s in re.findall(r"dps-record-\d+-\d+", out) if not foreign(s)}


def our_processes():
    """Processes whose working directory is in WORK (everything dps starts inherits it)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            comm = open(f"/proc/{pid}/comm").read().strip()
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (cwd == WORK or cwd.startswith(WORK + "/")):
            found.append(f"{comm} (pid {pid})")
    return found


def temporaries():
    found = []
    for root, dirs, files in os.walk(WORK):
        for name in dirs + files:
            if TEMP.match(name):
                found.append(os.path.join(root, name))
    return found


def leftovers(sessions_before):
    return (our_processes(), sorted(lttng_sessions() - sessions_before), temporaries())


def settle(sessions_before, timeout=15.0):
    """What is left once the guardian had time to act (it stops perf, waits up to 2 s)."""
    deadline = time.monotonic() + timeout
    while True:
        left = leftovers(sessions_before)
        if not any(left) or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def clean_work():
    for name in os.listdir(WORK):
        path = os.path.join(WORK, name)
        if name in ("prog.sh", "calibration"):
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    os.makedirs(os.path.join(WORK, "tmp"), exist_ok=True)


def commands(calibration):
    traces = os.path.join(SRC, "tests", "data", "traces")
    prog = os.path.join(WORK, "prog.sh")
    given = ["--calibration", calibration] if calibration else []
    return {
        "record": [DPS, "record", "-o", "rec", "--", "sh", prog],
        "replay": [DPS, "replay", os.path.join(traces, "record-live-prog"), "-o", "rp"] + given,
        "whatif": [DPS, "whatif", os.path.join(SRC, "examples", "traces", "sed-gzip"), "-f",
                   "--thread", "11419", "--step", "0.5", "--repeat", "1", "-o", "wf"],
        "analyze": [DPS, "analyze", os.path.join(traces, "many-threads"), "--comm",
                    "multithread", "-q", "--no-progress", "-o", "an", "--decode-jobs", "2"],
    }


def start(argv):
    env = dict(os.environ, TMPDIR=os.path.join(WORK, "tmp"))
    return subprocess.Popen(argv, cwd=WORK, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def duration(argv):
    """How long the command runs uninterrupted here (the random points fall inside). Once, in
    CI's ASan pass, the session daemon was gone in the middle of the first recording (another
    was started by the next dps record): a reference run that lost the daemon is run again,
    said, since what this test checks is what interruptions leave, not the daemon."""
    clean_work()
    t0 = time.monotonic()
    p = start(argv)
    _, err = p.communicate(timeout=600)
    if p.returncode != 0 and b"No session daemon is available" in err:
        print(f"{argv[1]}: the session daemon was gone during the uninterrupted run; once "
              f"more", flush=True)
        clean_work()
        t0 = time.monotonic()
        p = start(argv)
        _, err = p.communicate(timeout=600)
    if p.returncode != 0:
        failures.append(f"{argv[1]}: uninterrupted run failed ({p.returncode}): "
                        f"{err.decode(errors='replace')[-400:]}")
    return time.monotonic() - t0


def interrupt(name, argv, how, delay, sessions_before):
    clean_work()
    p = start(argv)
    time.sleep(delay)
    if how == "SIGINT to the group":
        os.killpg(p.pid, signal.SIGINT)
    elif how == "SIGTERM":
        p.send_signal(signal.SIGTERM)
    elif how == "SIGKILL":
        p.kill()
    else:
        os.killpg(p.pid, signal.SIGKILL)
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        try:
            # dps's guardian (its own session) may still hold dps's stderr open
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.wait()
            err = b""
        failures.append(f"{name}, {how} at {delay:.2f} s: dps or what it left holding its "
                        f"stderr did not end within 120 s")
    procs, sessions, temps = settle(sessions_before)
    # a replay that failed (its stub got the ^C) keeps its run's files on purpose and names
    # them (doc/replay.md): not a leftover once said
    kept = [os.path.realpath(os.path.join(WORK, k)) for k in
            re.findall(r"this run's files are in (\S+?),", err.decode(errors="replace"))]
    temps = [t for t in temps
             if not any(os.path.realpath(t) == k or os.path.realpath(t).startswith(k + "/")
                        for k in kept)]
    what = []
    if procs:
        what.append("processes " + ", ".join(procs))
    if sessions:
        what.append("LTTng sessions " + ", ".join(sessions))
    if temps:
        what.append("temporaries " + ", ".join(temps))
    if what:
        failures.append(f"{name}, {how} at {delay:.2f} s left " + "; ".join(what))
        # clean up for the next case
        for s in sessions:
            subprocess.run(["lttng", "destroy", s], capture_output=True)
        for pr in procs:
            pid = int(pr.rsplit("pid ", 1)[1].rstrip(")"))
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    status = "clean" if not what else "LEFT"
    print(f"{name:8} {how:22} at {delay:5.2f} s: exit {p.returncode:4}, {status}", flush=True)


def guardian_of(pid):
    """The dps-guard process started by pid (its cmdline is dps's, its comm dps-guard)."""
    mine = open(f"/proc/{pid}/cmdline", "rb").read()
    for other in os.listdir("/proc"):
        try:
            if (other.isdigit() and open(f"/proc/{other}/comm").read().strip() == "dps-guard"
                    and open(f"/proc/{other}/cmdline", "rb").read() == mine):
                return int(other)
        except OSError:
            continue
    return None


def killed_with_guardian(argv, delay, sessions_before):
    """dps and its guardian killed: the next dps command removes what they left."""
    clean_work()
    present = lttng_sessions()  # a new session, not one an earlier attempt's guardian removes
    p = start(argv)
    deadline = time.monotonic() + delay
    while not lttng_sessions() - present and time.monotonic() < deadline:
        time.sleep(0.05)
    # dps creates its session, then hands it to its guardian: under ASan that took long
    # enough for a session to be seen before the guardian was (CI's ASan pass, this stop)
    guard = guardian_of(p.pid)
    wait_until = time.monotonic() + 3.0
    while guard is None and p.poll() is None and time.monotonic() < wait_until:
        time.sleep(0.02)
        guard = guardian_of(p.pid)
    if guard:
        os.kill(guard, signal.SIGKILL)
    p.kill()
    p.communicate()
    time.sleep(1.0)
    procs, sessions, temps = leftovers(sessions_before)
    if procs:
        failures.append("record killed with its guardian left processes " + ", ".join(procs))
    if not guard or not (sessions or temps):
        print(f"guardian case: nothing to sweep (guardian {guard}, sessions {sessions}, "
              f"temporaries {temps})")
        return bool(guard)
    # the next commands: a record creates a session (sweeps sessions); writing the same
    # output sweeps its temporaries
    nxt = start([DPS, "record", "-o", "rec2", "--", "true"])
    _, err = nxt.communicate(timeout=120)
    err = err.decode(errors="replace")
    _, sessions_after, temps_after = leftovers(sessions_before)
    for s in sessions:
        if s in sessions_after:
            failures.append(f"the next dps left session {s} of the killed one")
        elif f"destroyed LTTng session {s}, left by an interrupted dps" not in err:
            failures.append(f"the next dps removed {s} without saying so: {err[-300:]}")
    for t in temps:
        if t in temps_after:
            failures.append(f"the next dps left {t} of the killed one")
    print(f"guardian case: the next dps removed {len(sessions)} session(s), "
          f"{len(temps)} temporary(ies)")
    return True


def analyze_killed_with_guardian(argv, sessions_before):
    """dps analyze and its guardian killed while their temporaries exist: the next analyze
    into the same output removes them (the views in TMPDIR, the output's temporary)."""
    clean_work()
    p = start(argv)
    deadline = time.monotonic() + 10
    while len(temporaries()) < 2 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    guard = guardian_of(p.pid) if p.poll() is None else None
    if guard:
        os.kill(guard, signal.SIGKILL)
    p.kill()
    p.communicate()
    temps = temporaries()
    if not guard or not temps:
        print(f"analyze guardian case: nothing to sweep (guardian {guard}, {temps})")
        return False
    nxt = start(argv)
    _, err = nxt.communicate(timeout=120)
    err = err.decode(errors="replace")
    for t in temps:
        if os.path.exists(t):
            failures.append(f"the next dps analyze left {t} of the killed one")
        elif not re.search(r"removed \S*" + re.escape(os.path.basename(t)) +
                           r", left by an interrupted dps", err):
            failures.append(f"the next dps analyze removed {t} without saying so: {err[-300:]}")
    print(f"analyze guardian case: the next dps removed {len(temps)} temporaries")
    return True


def main():
    os.makedirs(WORK, exist_ok=True)
    for name in os.listdir(WORK):
        path = os.path.join(WORK, name)
        shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.unlink(path)
    with open(os.path.join(WORK, "prog.sh"), "w") as f:
        f.write("i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done\n")
    rnd = random.Random(SEED)
    sessions_before = lttng_sessions()
    calibration = None
    if POINTS == 1:
        calibration = os.path.join(WORK, "calibration")
        subprocess.run([DPS, "calibrate", "--quick", "-o", calibration], check=True, cwd=WORK,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cmds = commands(calibration)
    hows = ["SIGINT to the group", "SIGTERM", "SIGKILL", "SIGKILL to the group"]
    for name, argv in (cmds.items() if PART != "guardian" else ()):
        d = duration(argv)
        print(f"{name}: {d:.1f} s uninterrupted", flush=True)
        for how in hows:
            for _ in range(POINTS):
                interrupt(name, argv, how, rnd.uniform(0.1, max(0.2, d * 0.9)),
                          sessions_before)
    if PART == "signals":
        return finish()
    swept = False
    for delay in (3.0, 5.0):
        if killed_with_guardian([DPS, "record", "-o", "rec", "--", "sleep", "6"], delay,
                                sessions_before):
            swept = True
            break
    if not swept:
        failures.append("the guardian case never found a guardian to kill")
    if not any(analyze_killed_with_guardian(cmds["analyze"], sessions_before)
               for _ in range(5)):
        failures.append("the analyze guardian case never caught its temporaries")
    return finish()


def finish():
    clean_work()
    if failures:
        print(f"\n{len(failures)} failure(s) (seed {SEED}, {POINTS} point(s) each):")
        for f in failures:
            print("  " + f)
        return 1
    print(f"\nevery interruption left nothing behind (seed {SEED})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
