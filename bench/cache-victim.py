#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The co-running victim's report (bench/cache-victim.sh, doc/cache.md "Checked by a
co-running victim"): every trial's ns per access read back, the slowdown of each condition
over its round's `alone`, medians and spread per kernel and working set, the stub's gap to the
original in points and whether it is within 2; a Markdown table and a self-contained SVG."""

import argparse
import csv
import statistics

CONDS = ("original", "stub", "stubgeo", "plain", "alone2")
COLOURS = {"original": "#c0392b", "stub": "#2874a6", "stubgeo": "#85c1e9", "plain": "#7f8c8d",
           "alone2": "#d4ac0d"}


def human(b):
    b = int(b)
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB"


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def note_field(note, key):
    for part in note.split():
        k, _, v = part.partition("=")
        if k == key:
            return float(v)
    return 0.0


def summarise(trials, meta):
    rows = []
    for m in meta:
        key = (m["kernel"], m["ws"])
        mine = [t for t in trials if (t["kernel"], t["ws"]) == key]
        by_round = {}
        for t in mine:
            by_round.setdefault(t["round"], {})[t["condition"]] = t
        slow = {c: [] for c in CONDS}
        gaps = []
        geo_gaps = []
        alone = []
        over = plays = stub_cpu = stub_kernel = 0.0
        for r in by_round.values():
            if "alone" not in r:
                continue
            base = float(r["alone"]["ns_per_access"])
            alone.append(base)
            for c in CONDS:
                if c in r:
                    slow[c].append(100 * (float(r[c]["ns_per_access"]) / base - 1))
            if "stub" in r and "original" in r:
                gaps.append(100 * (float(r["stub"]["ns_per_access"]) -
                                   float(r["original"]["ns_per_access"])) / base)
            if "stubgeo" in r and "original" in r:
                geo_gaps.append(100 * (float(r["stubgeo"]["ns_per_access"]) -
                                       float(r["original"]["ns_per_access"])) / base)
            if "stub" in r:
                n = r["stub"]["note"]
                over += note_field(n, "over")
                plays += note_field(n, "plays")
                stub_cpu += note_field(n, "cpu_ns")
                stub_kernel += note_field(n, "kernel_cpu_ns")
        acc = int(m["accesses"])
        rows.append({
            "kernel": m["kernel"], "ws": m["ws"], "alone": alone, "slow": slow, "gaps": gaps,
            "geo_gaps": geo_gaps,
            "d1_pct": 100 * int(m["d1"]) / acc if acc else 0,
            "ll_pct": 100 * int(m["ll"]) / acc if acc else 0,
            "unit": (m["unit_acc"], m["unit_d1"], m["unit_ll"]),
            "footprint": int(m.get("footprint") or 0),
            "over": over / plays if plays else 0,
            "kernel_share": stub_kernel / stub_cpu if stub_cpu else 0,
            "cpu_play": stub_cpu / plays if plays else 0,
        })
    return rows


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def cell(xs):
    if not xs:
        return "–"
    return f"{med(xs):+.1f} [{min(xs):+.1f}, {max(xs):+.1f}]"


def write_md(rows, info, path, svg_name):
    unit = int(info["unit_ns"])
    floor = [x for r in rows for x in r["slow"]["alone2"]]
    out = []
    w = out.append
    w("# The co-running victim")
    w("")
    w("`bench/cache-victim.sh` (issue 28's check (b), doc/cache.md \"Checked by a co-running")
    w(f"victim\"), {info['date']}, {info['nproc']} CPUs; the geometry libdps detects "
      f"(D1 bytes, ways, LL bytes, ways, line, source): `{info['geometry']}`.")
    w(f"Machine load (1, 5, 15 min) at the start: {info['load_start']}; at the end: "
      f"{info['load_end']} (other sessions build and test on this machine).")
    w("")
    w("The stub's warm region is sized from the kernel's captured footprint (`dps cache "
      "capture --footprint`: the knee of its LL miss curve, column `footprint`), at least "
      "twice L1D and at most half the last level; `stubgeo` is the same stub without it, "
      "its warm region sized from the geometry alone (sqrt(L1D x LL lines), the stub of "
      "before the footprint), in the same rounds.")
    w("")
    ll = int(info['geometry'].split()[2])
    w(f"The victim chases pointers over {human(info['victim_ws'])} (in the {human(ll)} last "
      f"level dps detects) on CPU {info['cpu']}. The co-runners are pinned to the same CPU "
      "(the two vCPUs share no cache level where a co-runner shows) and take turns with the "
      "victim: a co-runner runs 1.5 ms (the others stopped by SIGSTOP), then the victim walks "
      "its set 8 times, timed. The turns go alone, original, stub, stubgeo, plain, alone2, "
      "alone, ... "
      f"for {info['seconds']} s a round, {info['rounds']} rounds; a condition's figure in a "
      "round is its turns' mean ns per access without the slowest and fastest tenth. "
      "Slowdown: a condition's figure over the same round's `alone`, in %; median [min, max] "
      "over the rounds. stub − original: the median of the rounds' differences, in points of "
      "the victim's alone time; **holds** when within 2. "
      f"The stub plays the kernel's captured figures for {int(info['unit_ns']) // 1000} µs of "
      "the kernel's CPU time a play (`unit`: accesses, D1, LL misses a play); plain is "
      "`dps_run_ns` of the same time (a plain `run`). over: the stub's plays whose accesses "
      "alone took longer than the unit; kernel share: the stub's accesses' part of its CPU; "
      "stub CPU a play: its CPU time per play in units (above 1: its accesses alone take "
      "longer than the kernel's CPU time, and it makes that many times fewer misses a second "
      "of CPU than the kernel).")
    w("")
    w(f"Re-run floor (alone2 over alone, all rows): median {med(floor):+.1f} %, "
      f"[{min(floor):+.1f}, {max(floor):+.1f}]." if floor else "No floor measured.")
    w("")
    w("| kernel | working set | footprint | D1 miss % | LL miss % | victim alone ns/access | "
      "original % | "
      "stub % | stubgeo % | plain % | alone2 % (floor) | stub − original (points) | holds | "
      "stubgeo − original (points) | unit | over | kernel share | stub CPU a play |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        g = med(r["gaps"]) if r["gaps"] else float("nan")
        holds = "yes" if abs(g) <= 2 else "no"
        foot = human(r["footprint"]) if r["footprint"] else "–"
        w(f"| {r['kernel']} | {human(r['ws'])} | {foot} | {r['d1_pct']:.2f} | {r['ll_pct']:.2f} | "
          f"{med(r['alone']):.2f} | {cell(r['slow']['original'])} | {cell(r['slow']['stub'])} | "
          f"{cell(r['slow']['stubgeo'])} | "
          f"{cell(r['slow']['plain'])} | {cell(r['slow']['alone2'])} | "
          f"{g:+.1f} [{min(r['gaps']):+.1f}, {max(r['gaps']):+.1f}] | {holds} | "
          f"{cell(r['geo_gaps'])} | "
          f"{' / '.join(r['unit'])} | {100 * r['over']:.0f} % | {100 * r['kernel_share']:.0f} % | "
          f"{r['cpu_play'] / unit:.2f} x |")
    w("")
    both = [r for r in rows if r["gaps"] and r["geo_gaps"]]
    if both:
        closer = sum(abs(med(r["gaps"])) < abs(med(r["geo_gaps"])) for r in both)
        w(f"Median over the rows of stub − original: {med([med(r['gaps']) for r in both]):+.1f} "
          f"points; of stubgeo − original: {med([med(r['geo_gaps']) for r in both]):+.1f}. "
          f"The stub with the footprint is the closer of the two to the original in {closer} "
          f"rows of {len(both)}; within 2 points in "
          f"{sum(abs(med(r['gaps'])) <= 2 for r in both)}.")
        w("")
    w(f"Every trial: `cache-victim.tsv`. The plot: [`{svg_name}`]({svg_name}).")
    w("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def write_svg(rows, path):
    bw, gap, left, top, height = 9, 14, 60, 30, 260
    groups = len(rows)
    width = left + groups * (len(CONDS) * bw + gap) + 20
    vals = [x for r in rows for c in CONDS for x in r["slow"][c]] or [0]
    lo, hi = min(min(vals), -5), max(max(vals), 5)
    span = hi - lo

    def y(v):
        return top + height * (hi - v) / span

    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 100}" '
         'font-family="sans-serif" font-size="10">',
         f'<text x="{left}" y="16" font-size="12">Victim slowdown (% of its alone time): '
         'median, whiskers min–max over rounds</text>']
    step = 10 if span < 120 else 50
    t = -((-int(lo)) // step) * step  # the first line inside the plot, not below it
    while t <= hi:
        s.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
                 f'stroke="{"#000" if t == 0 else "#ddd"}"/>')
        s.append(f'<text x="{left - 4}" y="{y(t) + 3:.1f}" text-anchor="end">{t}</text>')
        t += step
    for i, r in enumerate(rows):
        x0 = left + i * (len(CONDS) * bw + gap) + gap / 2
        for j, c in enumerate(CONDS):
            xs = r["slow"][c]
            if not xs:
                continue
            m = med(xs)
            x = x0 + j * bw
            s.append(f'<rect x="{x:.1f}" y="{min(y(m), y(0)):.1f}" width="{bw - 1}" '
                     f'height="{abs(y(m) - y(0)):.1f}" fill="{COLOURS[c]}"/>')
            s.append(f'<line x1="{x + bw / 2 - 0.5:.1f}" x2="{x + bw / 2 - 0.5:.1f}" '
                     f'y1="{y(min(xs)):.1f}" y2="{y(max(xs)):.1f}" stroke="#000"/>')
        label = f"{r['kernel']} {human(r['ws'])}"
        cx = x0 + len(CONDS) * bw / 2
        s.append(f'<text x="{cx:.1f}" y="{top + height + 12}" text-anchor="end" '
                 f'transform="rotate(-40 {cx:.1f} {top + height + 12})">{label}</text>')
    for j, c in enumerate(CONDS):
        s.append(f'<rect x="{left + 90 * j}" y="{top + height + 82}" width="10" height="10" '
                 f'fill="{COLOURS[c]}"/><text x="{left + 90 * j + 14}" '
                 f'y="{top + height + 91}">{c}</text>')
    s.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(s) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--svg", required=True)
    ap.add_argument("--info", action="append", default=[])
    a = ap.parse_args()
    info = dict(kv.split("=", 1) for kv in a.info)
    rows = summarise(read(a.trials), read(a.meta))
    write_md(rows, info, a.md, a.svg.rsplit("/", 1)[-1])
    write_svg(rows, a.svg)


if __name__ == "__main__":
    main()
