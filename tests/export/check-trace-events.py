#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a Chrome/Perfetto JSON trace-event file against the format's documented fields
("Trace Event Format", Google; Perfetto's JSON importer), as dps export writes it
(doc/export.md). Usage:

    check-trace-events.py FILE [--processes N] [--min-threads N] [--min-slices N]
                               [--min-flows N] [--min-flow-cat CAT=N]... [--min-counters N]
                               [--name-prefix P]...

Exit 0 when the file is valid and has what the options ask for; 1 with one line per problem
("FILE: event #N: ..."). What it checks:
  - the top level: an object whose keys Perfetto reads (displayTimeUnit before traceEvents);
  - every event has the keys its phase requires, with the right types ("ph", "pid", "tid",
    "ts" in us, "dur" >= 0 for X, "id" for flows, numeric "args" for counters, a name and
    args for metadata); no other phase than M, X, s, f, C;
  - per track (pid, tid): X slices in time order, and two slices either nest or do not
    overlap; per counter (pid, name): strictly increasing timestamps;
  - every flow start has one finish with the same id, cat and name, not earlier, and each
    binds to a slice of its own track (the "s" and a "f" with "bp":"e" to the slice around
    it, another "f" to a slice beginning at or after it);
  - every pid has a process_name and every track with events a thread_name.
Times are compared exactly (decimal), as written.
"""
import argparse
import bisect
import itertools
import json
import sys
from collections import defaultdict
from decimal import Decimal

TOP_KEYS = {"traceEvents", "displayTimeUnit", "otherData", "metadata", "systemTraceEvents"}
METADATA = {
    "process_name": ("name", str),
    "process_labels": ("labels", str),
    "process_sort_index": ("sort_index", int),
    "thread_name": ("name", str),
    "thread_sort_index": ("sort_index", int),
}


class Checker:
    def __init__(self, path):
        self.path = path
        self.problems = []

    def bad(self, where, msg):
        self.problems.append(f"{self.path}: {where}: {msg}")


def is_num(v):
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def is_id(v):
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**32


def check_fields(ck, i, ev):
    """The keys of ev's phase; returns False when the event cannot be used further."""
    where = f"event #{i}"
    if not isinstance(ev, dict):
        ck.bad(where, "not an object")
        return False
    ph = ev.get("ph")
    if ph not in ("M", "X", "s", "f", "C"):
        ck.bad(where, f"phase {ph!r}: expected M, X, s, f or C")
        return False
    ok = True
    for key in ("pid", "tid"):
        if not is_id(ev.get(key)):
            ck.bad(where, f"{ph}: '{key}' must be an integer id, got {ev.get(key)!r}")
            ok = False
    if not isinstance(ev.get("name"), str) or not ev["name"]:
        ck.bad(where, f"{ph}: 'name' must be a non-empty string")
        ok = False
    if ph != "M":
        ts = ev.get("ts")
        if not is_num(ts) or ts < 0:
            ck.bad(where, f"{ph}: 'ts' must be a number of us >= 0, got {ts!r}")
            ok = False
    if ph == "X":
        dur = ev.get("dur")
        if not is_num(dur) or dur < 0:
            ck.bad(where, f"X: 'dur' must be a number of us >= 0, got {dur!r}")
            ok = False
    elif ph in ("s", "f"):
        if not is_id(ev.get("id")) and not isinstance(ev.get("id"), str):
            ck.bad(where, f"{ph}: 'id' must be an integer or a string")
            ok = False
        if not isinstance(ev.get("cat"), str):
            ck.bad(where, f"{ph}: 'cat' must be a string (flows pair by id, cat and name)")
            ok = False
        if "bp" in ev and ev["bp"] != "e":
            ck.bad(where, f"{ph}: 'bp' must be \"e\" when present, got {ev['bp']!r}")
            ok = False
    elif ph == "C":
        args = ev.get("args")
        if not isinstance(args, dict) or not args or not all(is_num(v) for v in args.values()):
            ck.bad(where, "C: 'args' must be an object of numbers")
            ok = False
    elif ph == "M":
        name = ev.get("name")
        if name not in METADATA:
            ck.bad(where, f"M: unknown metadata {name!r}")
            return False
        key, typ = METADATA[name]
        args = ev.get("args")
        if not isinstance(args, dict) or not isinstance(args.get(key), typ):
            ck.bad(where, f"M {name}: 'args' must hold '{key}' ({typ.__name__})")
            ok = False
    return ok


def check_slices(ck, slices):
    """slices: track -> [(ts, end, index)] in file order."""
    for track, sl in slices.items():
        for a, b in zip(sl, sl[1:]):
            if b[0] < a[0]:
                ck.bad(f"event #{b[2]}", f"X on track {track}: ts {b[0]} before the previous "
                       f"slice's {a[0]} (event #{a[2]})")
        stack = []
        for ts, end, i in sorted(sl, key=lambda s: (s[0], -s[1], s[2])):
            while stack and stack[-1][1] <= ts:
                stack.pop()
            if stack and end > stack[-1][1]:
                ck.bad(f"event #{i}", f"X on track {track}: [{ts}, {end}] overlaps "
                       f"[{stack[-1][0]}, {stack[-1][1]}] (event #{stack[-1][2]}) without "
                       "nesting in it")
            stack.append((ts, end, i))


class Track:
    """A track's slices sorted by start, with what binds() asks of them made once: their
    starts, and the latest end among the first k slices (a flow event inside any slice that
    starts at or before it). Once a list and a scan per flow event: 10 s on 8,000 threads."""

    def __init__(self, sl):
        self.starts = [s[0] for s in sl]
        self.max_end = list(itertools.accumulate((s[1] for s in sl), max))


def binds(track, ts, enclosing):
    """Whether a flow event at ts on a track (a Track) has its slice."""
    if enclosing:
        k = bisect.bisect_right(track.starts, ts)
        return k > 0 and track.max_end[k - 1] >= ts
    return bisect.bisect_left(track.starts, ts) < len(track.starts)


def check(path, opts):
    ck = Checker(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        top = json.loads(text, parse_float=Decimal)
        # the top level's key order (Perfetto reads displayTimeUnit only before the events)
        keys = json.loads(text, object_pairs_hook=lambda pairs: [k for k, _ in pairs])
    except (OSError, ValueError) as e:
        ck.bad("file", f"not JSON: {e}")
        return ck
    if not isinstance(top, dict):
        ck.bad("top level", "expected an object with traceEvents")
        return ck
    for k in keys:
        if k not in TOP_KEYS:
            ck.bad("top level", f"key {k!r}: Perfetto stops reading at a key it does not know")
    if "traceEvents" not in keys:
        ck.bad("top level", "no traceEvents")
        return ck
    if "displayTimeUnit" in keys and keys.index("displayTimeUnit") > keys.index("traceEvents"):
        ck.bad("top level", "displayTimeUnit after traceEvents: Perfetto ignores it there")
    events = top["traceEvents"]
    if not isinstance(events, list):
        ck.bad("traceEvents", "not an array")
        return ck

    slices = defaultdict(list)
    counters = defaultdict(list)
    flows = defaultdict(lambda: {"s": [], "f": []})
    named_pids, named_tracks, used_tracks = set(), set(), set()
    for i, ev in enumerate(events):
        if not check_fields(ck, i, ev):
            continue
        track = (ev["pid"], ev["tid"])
        ph = ev["ph"]
        if ph == "M":
            if ev["name"] == "process_name":
                named_pids.add(ev["pid"])
            elif ev["name"] == "thread_name":
                named_tracks.add(track)
            continue
        used_tracks.add(track)
        if ph == "X":
            slices[track].append((ev["ts"], ev["ts"] + ev["dur"], i))
        elif ph == "C":
            counters[(ev["pid"], ev["name"])].append((ev["ts"], i))
        else:
            flows[(ev["id"], ev["cat"], ev["name"])][ph].append((ev, i))

    check_slices(ck, slices)
    for key, pts in counters.items():
        for a, b in zip(pts, pts[1:]):
            if b[0] <= a[0]:
                ck.bad(f"event #{b[1]}", f"C {key}: ts {b[0]} not after {a[0]} (event #{a[1]})")
    tracks = {t: Track(sorted(sl)) for t, sl in slices.items()}
    for key, fl in flows.items():
        if len(fl["s"]) != 1 or len(fl["f"]) != 1:
            where = fl["s"][0][1] if fl["s"] else fl["f"][0][1]
            ck.bad(f"event #{where}", f"flow {key}: {len(fl['s'])} start(s) and "
                   f"{len(fl['f'])} finish(es), expected one of each")
            continue
        (s, si), (f, fi) = fl["s"][0], fl["f"][0]
        if f["ts"] < s["ts"]:
            ck.bad(f"event #{fi}", f"flow {key}: finishes at {f['ts']}, before its start "
                   f"{s['ts']}")
        for ev, i, enclosing in ((s, si, True), (f, fi, f.get("bp") == "e")):
            tr = tracks.get((ev["pid"], ev["tid"]), Track([]))
            if not binds(tr, ev["ts"], enclosing):
                ck.bad(f"event #{i}", f"flow {key}: no slice of track "
                       f"{(ev['pid'], ev['tid'])} to bind to at {ev['ts']}")
    for pid in sorted({t[0] for t in used_tracks} - named_pids):
        ck.bad("metadata", f"pid {pid} has events and no process_name")
    for track in sorted(used_tracks - named_tracks):
        if track in slices:
            ck.bad("metadata", f"track {track} has slices and no thread_name")

    n_slices = sum(len(s) for s in slices.values())
    n_flows = sum(1 for fl in flows.values() if fl["s"] and fl["f"])
    n_counters = sum(len(c) for c in counters.values())
    expect = [
        ("processes", len(named_pids), opts.processes, "=="),
        ("threads", len(named_tracks), opts.min_threads, ">="),
        ("slices", n_slices, opts.min_slices, ">="),
        ("flows", n_flows, opts.min_flows, ">="),
        ("counter points", n_counters, opts.min_counters, ">="),
    ]
    for what, got, want, op in expect:
        if want is None:
            continue
        if (op == "==" and got != want) or (op == ">=" and got < want):
            ck.bad("content", f"{got} {what}, expected {op} {want}")
    for spec in opts.min_flow_cat or []:
        cat, _, want = spec.partition("=")
        got = sum(1 for (i, c, n), fl in flows.items() if c == cat and fl["s"] and fl["f"])
        if not want.isdigit() or got < int(want):
            ck.bad("content", f"{got} flows of cat {cat!r}, expected >= {want}")
    names = [ev["args"]["name"] for ev in events
             if isinstance(ev, dict) and ev.get("ph") == "M" and ev.get("name") == "process_name"
             and isinstance(ev.get("args"), dict)]
    for prefix in opts.name_prefix or []:
        if not any(isinstance(n, str) and n.startswith(prefix) for n in names):
            ck.bad("content", f"no process named {prefix!r}...: {names}")
    ck.summary = (f"{len(named_pids)} processes, {len(named_tracks)} threads, {n_slices} slices, "
                  f"{n_flows} flows, {n_counters} counter points")
    return ck


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--processes", type=int)
    ap.add_argument("--min-threads", type=int)
    ap.add_argument("--min-slices", type=int)
    ap.add_argument("--min-flows", type=int)
    ap.add_argument("--min-counters", type=int)
    ap.add_argument("--min-flow-cat", action="append", metavar="CAT=N")
    ap.add_argument("--name-prefix", action="append")
    opts = ap.parse_args()
    ck = check(opts.file, opts)
    for p in ck.problems[:50]:
        print(p)
    if len(ck.problems) > 50:
        print(f"{opts.file}: ... and {len(ck.problems) - 50} more problems")
    if ck.problems:
        return 1
    print(f"{opts.file}: valid: {ck.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
