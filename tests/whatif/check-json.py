#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The schema of dps whatif --json (doc/whatif.md, "JSON"), read from stdin: every key, its
# type, and the relations between them (scales ascending, t_PSF = scale x t_busy, or sweeping
# the misses t_PSF ascending through t_busy at scale 1, min <= median <= max, one run per
# repetition). Usage: check-json.py REPEAT N_POINTS [KIND...]
# (KIND: the kinds accepted; any when none is given). Exit 0, or 1 with what is wrong.
import json
import sys

repeat, n_points = int(sys.argv[1]), int(sys.argv[2])
kinds = sys.argv[3:] or ["total", "limited", "none", "unclear"]
d = json.load(sys.stdin)
errors = []


def need(cond, what):
    if not cond:
        errors.append(what)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def point(p, where):
    for k in ("scale", "t_psf_ns", "t_sut_ns", "runs_ns", "noise_ns", "others_pct", "steal_pct", "loaded",
              "timelines"):
        need(k in p, f"{where}: no {k}")
    if errors:
        return
    s = p["t_sut_ns"]
    need(all(is_int(s.get(k)) for k in ("median", "min", "max")), f"{where}: t_sut_ns ints")
    need(0 < s["min"] <= s["median"] <= s["max"], f"{where}: min <= median <= max")
    need(len(p["runs_ns"]) == repeat, f"{where}: {len(p['runs_ns'])} runs, want {repeat}")
    need(all(s["min"] <= r <= s["max"] for r in p["runs_ns"]), f"{where}: runs in [min, max]")
    need(isinstance(p["loaded"], bool), f"{where}: loaded is a bool")
    need(p["timelines"] is None or p["timelines"].endswith("/report.html"),
         f"{where}: timelines is null or a report")


for k in ("answer", "gap_pct", "input", "input_kind", "component", "busy_ns", "threads", "repeat", "mode", "seed",
          "wall_s", "machine", "window", "points", "flat", "idle", "original", "original_sut_ns", "recorded_sut_ns", "pins", "flat_sut_ns",
          "idle_sut_ns", "t_reduced_cus_ns", "t_reduced_sut_ns", "kind", "fit_kind", "unclear", "t_min_sut_ns",
          "t_limit_ns", "t_limit_scale", "t_limit_range_ns", "slope", "fit_error",
          "fit_reason", "conclusions", "caveats", "loaded_points", "loaded_references",
          "candidates", "critical_span_ns", "sweep", "misses"):
    need(k in d, f"no key {k}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
need(d["repeat"] == repeat, "repeat")
need(isinstance(d["window"].get("from"), str) and isinstance(d["window"].get("to"), str),
     "window: from and to")
need(is_int(d["busy_ns"]) and d["busy_ns"] > 0, "busy_ns > 0")
need(len(d["points"]) == n_points, f"{len(d['points'])} points, want {n_points}")
need(d["sweep"] in ("cpu", "misses"), f"sweep {d['sweep']}")
misses = d["sweep"] == "misses"
if misses:
    m = d["misses"]
    need(all(is_int(m.get(k)) for k in ("runs", "accesses", "d1_misses", "ll_misses", "cost_ns")),
         "misses: its figures")
    need(m["runs"] > 0 and m["ll_misses"] <= m["d1_misses"] <= m["accesses"], "misses: figures")
    need(d["flat"] is None and d["idle"] is None, "sweeping the misses: busy stub only")
else:
    need(d["misses"] is None, "misses null sweeping the CPU")
for i, p in enumerate(d["points"]):
    point(p, f"points[{i}]")
    if misses:
        # the component's CPU at the misses' scale: its recorded CPU at 1, the misses' cost
        # (linear in the scale, the caps aside) either side
        want = d["busy_ns"] + (p["scale"] - 1) * d["misses"]["cost_ns"]
        need(p["scale"] > 1 or abs(p["t_psf_ns"] - max(0, want)) <= 2 + 1e-6 * d["busy_ns"],
             f"points[{i}]: t_psf = busy + (scale - 1) x the misses' cost")
        need(p["scale"] < 1 or p["t_psf_ns"] <= want + 2, f"points[{i}]: t_psf capped")
    else:
        need(abs(p["t_psf_ns"] - p["scale"] * d["busy_ns"]) <= 1,
             f"points[{i}]: t_psf = scale x busy")
    if i:
        need(p["scale"] > d["points"][i - 1]["scale"], f"points[{i}]: scales ascend")
        need(p["t_psf_ns"] >= d["points"][i - 1]["t_psf_ns"], f"points[{i}]: t_psf ascends")
for ref in ("flat", "idle", "original"):
    if d[ref] is not None:
        point(d[ref], ref)
        need(d[ref + "_sut_ns"] == d[ref]["t_sut_ns"]["median"], f"{ref}_sut_ns is its median")
need(d["kind"] in kinds, f"kind {d['kind']}, want one of {kinds}")
need(isinstance(d["component"]["ids"], list)
     and (d["component"]["ids"] or d["input_kind"] == "command"), "component ids")
# the answer: the fit's kind, or unclear when a doubt stands (each a check, a reason, a way out)
need(isinstance(d["unclear"], list), "unclear is a list")
for i, u in enumerate(d["unclear"]):
    need(u.get("check") in ("order", "shared-work", "unmodelled", "original", "partial",
                            "miss-cost"),
         f"unclear[{i}]: check {u.get('check')}")
    need(isinstance(u.get("reason"), str) and u["reason"], f"unclear[{i}]: a reason")
    need(isinstance(u.get("way_out"), str) and u["way_out"], f"unclear[{i}]: a way out")
need(d["kind"] == ("unclear" if d["unclear"] else d["fit_kind"]),
     f"kind {d['kind']}: the fit's {d['fit_kind']} unless a doubt stands")
# the answer in one sentence, as the kind says
a = d["answer"]
need(isinstance(a, str) and a.endswith("."), "answer: a sentence")
if d["kind"] == "unclear":
    need(a.startswith("Unclear: "), f"answer of an unclear study: {a}")
elif misses and d["kind"] == "total":
    need("cache misses hold the program up all the way" in a, f"answer of a total bottleneck: {a}")
elif misses and d["kind"] == "none":
    need("cache misses do not move the program" in a, f"answer of no bottleneck: {a}")
elif misses and d["kind"] == "limited":
    need(a.startswith("Cutting ") or "cache misses do not hold the program up" in a,
         f"answer of a limited bottleneck: {a}")
elif d["kind"] == "total":
    need("total bottleneck" in a, f"answer of a total bottleneck: {a}")
elif d["kind"] == "none":
    need("does not move the program" in a, f"answer of no bottleneck: {a}")
elif d["kind"] == "limited":
    need(a.startswith("Making ") or "not what holds the program up" in a,
         f"answer of a limited bottleneck: {a}")
need((d["gap_pct"] is None) == (d["recorded_sut_ns"] is None), "gap_pct with recorded_sut_ns")
# a trace's threads ranked by the critical path, the component's marked; none for a set
need(isinstance(d["candidates"], list), "candidates: a list")
if d["input_kind"] == "trace":
    need(any(c["in_component"] for c in d["candidates"]), "the component among the candidates")
    need(sum(c["critical_ns"] for c in d["candidates"]) <= d["critical_span_ns"],
         "the candidates' path within its length")
    top = [c["critical_ns"] for c in d["candidates"][:10]]
    need(top == sorted(top, reverse=True), "ranked by the critical path")
# the knee is the curve's, whatever the answer
if d["fit_kind"] == "limited":
    need(is_int(d["t_limit_ns"]) and d["t_limit_ns"] >= 0, "t_limit_ns with a knee")
    # the scale is printed with 6 significant digits: a knee off the grid's round values
    # (0.588333) is that close, not to the ns
    # (sweeping the misses: the misses' scale whose CPU the knee is)
    at = (d["busy_ns"] + (d["t_limit_scale"] - 1) * d["misses"]["cost_ns"] if misses
          else d["t_limit_scale"] * d["busy_ns"])
    need(abs(at - d["t_limit_ns"]) <= max(2, 1e-5 * d["busy_ns"]), "t_limit_scale")
    lo, hi = d["t_limit_range_ns"]
    need(lo <= d["t_limit_ns"] <= hi, "the knee in its range")
else:
    need(d["t_limit_ns"] is None and d["t_limit_scale"] is None, "no knee without limited")
need(all(k in d["fit_error"] for k in ("rms_ns", "relative", "noise_ns")), "fit_error keys")
need(isinstance(d["conclusions"], list) and isinstance(d["caveats"], list), "lists")
need(d["input_kind"] in ("trace", "set", "command"), "input_kind")
if errors:
    print("\n".join(errors))
    sys.exit(1)
# the figures a caller may want, one line: the kind, the knee's scale, how many points ran loaded
loaded = len(d["loaded_points"]) + len(d["loaded_references"])
print(f"kind={d['kind']} t_limit_scale={d['t_limit_scale']} busy_ns={d['busy_ns']} loaded={loaded} "
      f"t_limit_ns={d['t_limit_ns']} fit_kind={d['fit_kind']}")
