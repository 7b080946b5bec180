#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The babeltrace2 sink component sink.dps.actions writes dps analyze's action set, byte for byte.

    bt-plugin.py [--quick] BABELTRACE2 PLUGIN_DIR DPS UNIFY_CLOCKS WORK_DIR TRACES_DIR...

For every trace below each TRACES_DIR (a directory per trace; a TRACES_DIR that is not there
is passed over: ../shared/traces is not in every checkout) and each of its processes with the
most CPU (up to MAX_PIDS, real pids), runs

    dps analyze TRACE --pid P -o A
    babeltrace2 --plugin-path=PLUGIN_DIR TRACE -c sink.dps.actions -p 'pid=P,path="B",source="S"'

(--quick: the one process with the most CPU per trace; S: the source line dps analyze wrote: babeltrace2 does not tell a component the paths it
reads) and compares every file of A and B. A dps record trace that babeltrace2 cannot read as
one trace (perf and UST on two clocks: recorded before dps record gave them one) is copied
into WORK_DIR and given one clock (UNIFY_CLOCKS, analyzer_unify_clocks), then compared: the
kernel and UST events of one process together. Then the parameters: tid and comm select as
--tid and --comm do; min-block as --min-block; without `source` only the manifest's source
line differs; and each bad parameter (missing path, a pid that is not a number, an unknown
parameter, a bad min-block, a path that may not be replaced) fails babeltrace2 (non-zero exit)
with a message naming it, before anything is written; no selection lists the processes and
fails. Any difference fails the test.

The module itself must not bring LTTng-UST (no lttng_ust symbol, no liblttng-ust among its
needed libraries): babeltrace2 and dps's decoders load it, and a tracepoint provider it
registered would take LTTng-UST's lock in a decoder forked while another thread of dps held it
(a hang, seen in CI).

Under ASan (DPS_SANITIZE=1 in the environment), babeltrace2 (not sanitized) loads the plugin
with the ASan runtime preloaded (ASAN_PRELOAD: its path), and a sanitizer's report (a leak
included) fails; without ASAN_PRELOAD the test is skipped (exit 77): babeltrace2 cannot load
an ASan module otherwise ("ASan runtime does not come first in initial library list").
"""
import os
import shutil
import subprocess
import sys

import tracedirs

MAX_PIDS = 3
failures = []


def fail(msg):
    print("FAIL: " + msg)
    failures.append(msg)


def bt(args, env):
    p = subprocess.run([BT, "--plugin-path=" + PLUGIN_DIR, *args], capture_output=True,
                       timeout=600, env=env)
    err = p.stderr.decode(errors="replace")
    if "Sanitizer" in err:
        fail("babeltrace2 %s: a sanitizer's report: %s" % (" ".join(args), err))
    return p.returncode, p.stdout.decode(errors="replace"), err


def analyze(args):
    p = subprocess.run([DPS, "analyze", *args, "--no-progress", "-q"], capture_output=True,
                       timeout=600)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def files(d):
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out[name] = f.read()
    return out


def source_line(d):
    with open(os.path.join(d, "manifest"), "rb") as f:
        for line in f.read().decode().splitlines():
            if line.startswith("source "):
                return line[len("source "):].strip('"')
    return ""


def same_sets(what, a, b, skip_source=False):
    fa, fb = files(a), files(b)
    if sorted(fa) != sorted(fb):
        fail("%s: files differ: dps analyze %s, sink.dps.actions %s" % (what, sorted(fa),
                                                                        sorted(fb)))
        return
    for name in fa:
        x, y = fa[name], fb[name]
        if skip_source and name == "manifest":
            x = b"\n".join(l for l in x.split(b"\n") if not l.startswith(b"source "))
            y = b"\n".join(l for l in y.split(b"\n") if not l.startswith(b"source "))
        if x != y:
            fail("%s: %s differs" % (what, name))


def pids(trace):
    st, out, err = analyze([trace, "--list"])
    res = []
    for line in out.splitlines()[1:]:
        f = line.split()
        if f and f[0].isdigit():
            res.append(f[0])
    return res[:MAX_PIDS]


def compare(trace, sel, params, env, work, skip_source=False):
    """dps analyze with sel (its options) against the plugin with params; True when both ran."""
    a, b = os.path.join(work, "a"), os.path.join(work, "b")
    for d in (a, b):
        shutil.rmtree(d, ignore_errors=True)
    st, out, err = analyze([trace, *sel, "-o", a])
    if st != 0:
        fail("%s %s: dps analyze exit %d: %s" % (trace, sel, st, err))
        return False
    p = ",".join([*params, 'path="%s"' % b] +
                 ([] if skip_source else ['source="%s"' % source_line(a)]))
    st, out, err = bt([trace, "-c", "sink.dps.actions", "-p", p], env)
    what = "%s -p '%s'" % (trace, p)
    if st != 0:
        fail("%s: babeltrace2 exit %d: %s" % (what, st, err))
        return False
    print("ok: %s" % what)
    same_sets(what, a, b, skip_source)
    return True


def bad_param(trace, params, expect, env, work, pre=None):
    """babeltrace2 with a bad parameter: non-zero exit, `expect` in its message, no set."""
    out_dir = os.path.join(work, "bad")
    shutil.rmtree(out_dir, ignore_errors=True)
    if pre:
        pre(out_dir)
    before = files(out_dir) if os.path.isdir(out_dir) else None
    st, out, err = bt([trace, "-c", "sink.dps.actions", "-p",
                       params.replace("OUT", out_dir)], env)
    what = "-p '%s'" % params
    if st == 0:
        fail("%s: exit 0, expected an error" % what)
    if expect not in err:
        fail("%s: message without %r: %s" % (what, expect, err))
    after = files(out_dir) if os.path.isdir(out_dir) else None
    if before != after:
        fail("%s: %s changed: %s -> %s" % (what, out_dir, before, after))
    leftovers = [n for n in os.listdir(work) if n.startswith(".bad")]
    if leftovers:
        fail("%s: temporaries left: %s" % (what, leftovers))
    print("ok: %s -> exit %d, %r" % (what, st, expect))


def foreign_dir(d):
    os.makedirs(d)
    with open(os.path.join(d, "notes.txt"), "w") as f:
        f.write("not an action set\n")


def main():
    global BT, PLUGIN_DIR, DPS, MAX_PIDS
    args = sys.argv[1:]
    if args[:1] == ["--quick"]:
        MAX_PIDS, args = 1, args[1:]
    BT, PLUGIN_DIR, DPS, unify, work = args[:5]
    env = dict(os.environ)
    if os.environ.get("DPS_SANITIZE") == "1":
        if not os.environ.get("ASAN_PRELOAD"):
            print("skipped: the plugin is built with ASan and no ASAN_PRELOAD is given")
            return 77
        env["LD_PRELOAD"] = os.environ["ASAN_PRELOAD"]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    module = os.path.join(PLUGIN_DIR, "babeltrace-plugin-dps.so")
    syms = subprocess.run(["nm", "-D", module], capture_output=True, text=True, check=True)
    ust = [l.split()[-1] for l in syms.stdout.splitlines() if "lttng_ust" in l]
    if ust:
        fail("%s brings LTTng-UST symbols: %s" % (module, ", ".join(ust[:5])))
    needed = subprocess.run(["readelf", "-d", module], capture_output=True, text=True,
                            check=True)
    if "liblttng-ust" in needed.stdout:
        fail("%s needs liblttng-ust" % module)
    traces = list(tracedirs.traces(args[5:]))
    n = 0
    for t in traces:
        # a dps record trace of before analyzer/clocks.c (perf and UST on two clocks) is not
        # one trace for babeltrace2's muxer: dps analyze reads it, babeltrace2 cannot. Only a
        # dps record trace (record.info) is read first by sink.utils.dummy to tell; any other
        # is read by the sink.dps.actions runs below, whose failure fails the test (and by
        # sink.utils.dummy when it lists no process to compare).
        record = os.path.exists(os.path.join(t, "record.info"))
        st, err = 0, ""
        if record:
            st, out, err = bt([t, "-c", "sink.utils.dummy"], env)
        if st != 0 and record:
            copy = os.path.join(work, "unified-" + os.path.basename(t))
            shutil.copytree(t, copy)
            if subprocess.run([unify, copy]).returncode != 0:
                fail("%s: cannot unify its clocks" % t)
                continue
            print("%s: perf and UST on two clocks: compared on %s, given one" % (t, copy))
            t = copy
            st, out, err = bt([t, "-c", "sink.utils.dummy"], env)
        if st != 0:
            fail("%s: babeltrace2 cannot read it: %s" % (t, err))
            continue
        listed = pids(t)
        if not listed and not record:
            st, out, err = bt([t, "-c", "sink.utils.dummy"], env)
            if st != 0:
                fail("%s: babeltrace2 cannot read it: %s" % (t, err))
        for p in listed:
            n += compare(t, ["--pid", p], ["pid=%s" % p], env, work)
    if not n:
        fail("no trace compared")
    # the other parameters, on one kernel trace
    rot = next((t for t in traces if t.endswith("tracefile-rotation-sched")), None)
    if rot:
        compare(rot, ["--tid", "6742"], ["tid=6742"], env, work)
        compare(rot, ["--comm", "git"], ['comm="git"'], env, work)
        compare(rot, ["--pid", "6742", "--min-block", "0.5ms"],
                ["pid=6742", 'min-block="0.5ms"'], env, work)
        compare(rot, ["--pid", "6742", "--min-block", "100"], ["pid=6742", "min-block=100"],
                env, work)
        compare(rot, ["--pid", "6742"], ["pid=6742"], env, work, skip_source=True)
        bad_param(rot, "pid=6742", "Missing parameter `path`", env, work)
        bad_param(rot, 'pid="x",path="OUT"', "Parameter `pid`: expected a non-negative integer",
                  env, work)
        bad_param(rot, 'pid=6742,path="OUT",colour=1', "Unknown parameter `colour`", env,
                  work)
        bad_param(rot, 'pid=6742,path="OUT",min-block="fast"', "Parameter `min-block`", env,
                  work)
        bad_param(rot, 'pid=6742,path="OUT",calibration="/nonexistent/cal"',
                  "Parameter `calibration`", env, work)
        bad_param(rot, 'pid=6742,path="OUT"', "Parameter `path`", env, work, pre=foreign_dir)
        bad_param(rot, 'pid=99999,path="OUT"', "the selection matches no thread", env, work)
        bad_param(rot, 'path="OUT"', "No selection", env, work)
    else:
        fail("tracefile-rotation-sched not found")
    print("%d comparisons, %d failures" % (n, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
