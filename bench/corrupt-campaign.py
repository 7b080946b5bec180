#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A random campaign of damaged traces against dps analyze (issue 26: "damaged traces never
silent"), on traces the project did not record. Writes bench/results/corrupt-campaign.md and
its per-run table corrupt-campaign.tsv.

    bench/corrupt-campaign.py [--dps DPS] [--traces DIR] [--runs N] [--seed S] [--jobs J]
                              [--timeout SECONDS] [--mem-mb MB] [--work DIR] [--out FILE]

Defaults: build/dev/cli/dps, ../shared/traces (LTTng kernel and UST traces recorded on other
machines by other people: see its README), 400 runs, seed 26, 2 jobs, 60 s and 2048 MB of
address space per process (RLIMIT_AS, inherited by the decoders), dps's own bound on a
decoder's memory at 512 MiB (DPS_DECODE_MEMORY), work in /dev/shm. About 4 minutes on a busy
2-CPU host.

Each run damages one copy of one trace in one random way (a stream file's bytes flipped,
zeroed, truncated, a block repeated, the file emptied, deleted or copied; a packet header or
context's bytes flipped; an index file flipped, truncated or deleted; the metadata truncated,
flipped or deleted; see KINDS), then runs, as a user would, with the decoders' watchdog at 5 s
and their memory bound at 512 MiB:

    dps analyze COPY --list --no-progress
    dps analyze COPY --pid P [--follow-children] --json -q --no-progress -o SET

and compares the process list, the JSON and every file of the set with the undamaged trace's
(the copy's path replaced by the trace's). Each run is one of:

  crash          dps killed by a signal, or a sanitizer's report
  hang           a command outlives the timeout, or hits the address-space limit (a decoder
                 that allocates without bound past dps's own memory bound: "out of memory",
                 "failed to allocate"); the limit makes it stop instead of taking the machine.
                 A decoder dps stops at its memory bound ("babeltrace2's memory grew past")
                 is detected damage, counted apart
  detected       exit 1 or 2 with a message naming the trace, or exit 0 with the "incomplete"
                 warning (a partial result; then --strict must refuse it: exit 1)
  no effect      exit 0, no warning, every output the undamaged trace's
  silent         exit 0, no warning, an output differs; split by where the damaged bytes are:
                 "event bytes" when every damaged byte is inside the events of packets (after
                 the packet context, before the content's end, per the undamaged trace's
                 index) or in their padding (never read): a different but valid value CTF
                 cannot detect (no checksums); else "silent (framing)", which must not happen
  undetected error  an error that does not name the trace (a failure as well)

Needs only dps and Python 3. Exits 1 when a crash, a hang that is not the memory limit, a
silent change outside event bytes, an undetected error or a partial result --strict accepts
occurred.
"""
import argparse
import collections
import concurrent.futures
import datetime
import os
import random
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# kind: weight (of 100)
KINDS = {
    "stream-flip": 25,     # 1 to 8 bytes of a stream file, one random bit each
    "stream-zero": 7,      # a block of 64, 512 or 4096 bytes zeroed
    "stream-trunc": 7,     # cut at a random offset
    "stream-dup-block": 6,  # a block of 64 or 4096 bytes repeated in place
    "stream-empty": 3,     # emptied
    "stream-delete": 10,   # deleted (its index, if any, left)
    "stream-copy": 6,      # copied beside it under another name
    "header-flip": 9,      # 1 to 3 bytes of a packet's header or context
    "index-flip": 5,       # 1 to 4 bytes of an index file
    "index-trunc": 2,
    "index-delete": 2,
    "meta-trunc": 6,
    "meta-flip": 8,        # 1 to 8 bytes of the metadata file
    "meta-delete": 4,
}

# The process each trace's analysis selects (the one its README describes); others: the first
# listed with a known pid.
SELECT = {
    "ls-ust": ["--pid", "5035"],
    "many-threads": ["--pid", "2673"],
    "pacman": ["--pid", "9855", "--follow-children"],
    "tracefile-rotation-sched": ["--pid", "6742"],
}

INDEX_MAGIC = 0xC1F1DCC1
# dps's bound on a decoder's memory (analyzer/contain.c), below the address-space limit
DECODE_MEMORY_MIB = 512


def trace_files(base):
    """(metadata paths, stream paths, index paths), relative to base, sorted."""
    metas, streams, indexes = [], [], []
    for root, dirs, files in os.walk(base):
        dirs.sort()
        rel = os.path.relpath(root, base)
        if os.path.basename(root) == "index":
            indexes += [os.path.normpath(os.path.join(rel, f)) for f in sorted(files)]
        elif "metadata" in files:
            metas.append(os.path.normpath(os.path.join(rel, "metadata")))
            streams += [os.path.normpath(os.path.join(rel, f)) for f in sorted(files)
                        if f != "metadata" and not f.startswith(".")]
    return metas, streams, indexes


def read_index(path):
    """[(offset, packet bytes, content bytes)] of an LTTng index, [] without one."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    if len(data) < 16:
        return []
    magic, major, _, entry = struct.unpack(">IIII", data[:16])
    if magic != INDEX_MAGIC or major != 1 or entry < 24:
        return []
    out = []
    for off in range(16, len(data) - entry + 1, entry):
        o, size, content = struct.unpack(">QQQ", data[off:off + 24])
        out.append((o, size // 8, content // 8))
    return out


def context_bytes(base, stream):
    """The bytes of an LTTng packet's header and context: 84 with packet_seq_num (2.8+),
    76 without; what it reads of the metadata as text (LTTng's is packetized: its text
    between packet headers is searched as it is)."""
    with open(os.path.join(base, os.path.dirname(stream), "metadata"), "rb") as f:
        meta = f.read()
    return 84 if b"packet_seq_num" in meta else 76


class Damage:
    """One random damage of one trace: what, where, and the bytes it touched."""

    def __init__(self, rng, base, name):
        self.base, self.name = base, name
        metas, streams, indexes = trace_files(base)
        self.kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
        if self.kind.startswith("index-") and not indexes:
            self.kind = "stream-flip"
        self.positions = None  # stream-flip, stream-zero: the damaged bytes
        if self.kind.startswith("meta-"):
            self.file = rng.choice(metas)
        elif self.kind.startswith("index-"):
            self.file = rng.choice(indexes)
        else:
            self.file = rng.choice(streams)
        size = os.path.getsize(os.path.join(base, self.file))
        k = self.kind
        if k in ("stream-flip", "meta-flip", "index-flip"):
            n = rng.randint(1, {"stream-flip": 8, "meta-flip": 8, "index-flip": 4}[k])
            self.positions = sorted(rng.sample(range(size), min(n, size)))
            self.bits = [1 << rng.randrange(8) for _ in self.positions]
            self.detail = "bytes %s" % ",".join(map(str, self.positions))
        elif k == "stream-zero":
            n = rng.choice([64, 512, 4096])
            off = rng.randrange(0, max(1, size - n))
            self.positions = list(range(off, min(size, off + n)))
            self.detail = "%d bytes at %d" % (n, off)
        elif k in ("stream-trunc", "meta-trunc", "index-trunc"):
            self.cut = rng.randrange(0, size)
            self.detail = "at %d of %d" % (self.cut, size)
        elif k == "stream-dup-block":
            self.n = rng.choice([64, 4096])
            self.off = rng.randrange(0, max(1, size - self.n))
            self.detail = "%d bytes at %d repeated" % (self.n, self.off)
        elif k == "stream-copy":
            self.copy = rng.choice(["%s.copy", "%s~", "%s.1", "copy-of-%s"]) % \
                os.path.basename(self.file)
            self.detail = "copied to %s" % self.copy
        elif k == "header-flip":
            pkts = read_index(self.index_of(self.file)) or [(0, size, size)]
            off, _, _ = rng.choice(pkts)
            ctx = context_bytes(base, self.file)
            n = rng.randint(1, 3)
            self.positions = sorted(rng.sample(range(off, min(size, off + ctx)), n))
            self.bits = [1 << rng.randrange(8) for _ in self.positions]
            self.detail = "packet at %d: bytes %s" % (off, ",".join(map(str, self.positions)))
        else:
            self.detail = "removed"

    def index_of(self, stream):
        d, f = os.path.split(os.path.join(self.base, stream))
        return os.path.join(d, "index", f + ".idx")

    def apply(self, member):
        """Damages member (a hard-linked copy of the trace): the damaged file is a new one."""
        path = os.path.join(member, self.file)
        k = self.kind
        if k.endswith("-delete"):
            os.unlink(path)
            return
        with open(path, "rb") as f:
            data = bytearray(f.read())
        if k == "stream-copy":
            write(os.path.join(os.path.dirname(path), self.copy), data)
            return
        if k in ("stream-flip", "meta-flip", "index-flip", "header-flip"):
            for p, b in zip(self.positions, self.bits):
                data[p] ^= b
        elif k == "stream-zero":
            for p in self.positions:
                data[p] = 0
        elif k in ("stream-trunc", "meta-trunc", "index-trunc"):
            data = data[:self.cut]
        elif k == "stream-dup-block":
            blk = data[self.off:self.off + self.n]
            data = data[:self.off + self.n] + blk + data[self.off + self.n:]
        elif k == "stream-empty":
            data = bytearray()
        write(path, data)

    def in_event_bytes(self):
        """Whether the damaged bytes that can change anything are all inside the events of a
        packet (after its context, before its content's end), per the undamaged trace's
        index; those in a packet's padding (after its content) are never read."""
        if self.kind not in ("stream-flip", "stream-zero") or not self.positions:
            return False
        pkts = read_index(self.index_of(self.file))
        if not pkts:
            return False
        ctx = context_bytes(self.base, self.file)
        events = 0
        for p in self.positions:
            if any(o + ctx <= p < o + content for o, _, content in pkts):
                events += 1
            elif not any(o + content <= p < o + size for o, size, content in pkts):
                return False
        return events > 0


def write(path, data):
    """A new file at path, never written through a hard link to the undamaged trace."""
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)


def clone(src, dst):
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            s, d = os.path.join(root, f), os.path.join(dst, rel, f)
            try:
                os.link(s, d)
            except OSError:
                shutil.copy2(s, d)


def limit(mem_mb):
    def preexec():
        b = mem_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (b, b))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return preexec


def run(cmd, timeout, mem_mb):
    """(exit status, stdout, stderr); exit None when it outlived timeout (then it and its
    decoders, its session, are killed)."""
    env = dict(os.environ, DPS_DECODE_TIMEOUT="5", DPS_DECODE_MEMORY=str(DECODE_MEMORY_MIB))
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limit(mem_mb), start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.communicate()
        return None, "", ""
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def outputs(dps, trace, select, work, timeout, mem_mb):
    """The two commands on trace: [(rc, out, err)] and the set's files {name: text}."""
    lst = run([dps, "analyze", trace, "--list", "--no-progress"], timeout, mem_mb)
    out_dir = os.path.join(work, "set")
    shutil.rmtree(out_dir, ignore_errors=True)
    ana = run([dps, "analyze", trace, *select, "--json", "-q", "--no-progress", "-o", out_dir,
               "--force"], timeout, mem_mb)
    files = {}
    if os.path.isdir(out_dir):
        for f in sorted(os.listdir(out_dir)):
            with open(os.path.join(out_dir, f), "rb") as fh:
                files[f] = fh.read().decode(errors="replace")
    shutil.rmtree(out_dir, ignore_errors=True)
    return [lst, ana], files


MEMORY_WORDS = ("out of memory", "failed to allocate", "cannot allocate memory")


def classify(results, files, pristine, member, trace):
    """(verdict, the message that tells) of one damaged run."""
    (p_runs, p_files) = pristine
    verdicts = []
    for (rc, out, err), (prc, pout, perr) in zip(results, p_runs):
        last = err.strip().splitlines()[-1] if err.strip() else ""
        low = err.lower()
        if rc is None:
            verdicts.append(("hang", "timeout"))
        elif "ERROR: AddressSanitizer" in err or "runtime error:" in err:
            verdicts.append(("crash", "sanitizer"))
        elif any(w in low for w in MEMORY_WORDS):
            verdicts.append(("hang", "memory limit: " + last))
        elif rc < 0:
            verdicts.append(("crash", "signal %d" % -rc))
        elif rc in (1, 2):
            verdicts.append(("detected", last) if member in err else
                            ("undetected error", last))
        elif rc == 0 and "incomplete" in err:
            verdicts.append(("partial", last))
        elif rc == 0:
            same = out.replace(member, trace) == pout
            verdicts.append(("same" if same else "changed", ""))
        else:
            verdicts.append(("undetected error", "exit %d: %s" % (rc, last)))
    order = ["crash", "hang", "undetected error", "detected", "partial", "changed", "same"]
    worst = min(verdicts, key=lambda v: order.index(v[0]))
    if worst[0] == "same":
        for f in set(files) | set(p_files):
            if files.get(f, "").replace(member, trace) != p_files.get(f, ""):
                return "changed", "set file %s" % f
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dps", default=os.path.join(ROOT, "build", "dev", "cli", "dps"))
    ap.add_argument("--traces", default=os.path.join(ROOT, "..", "shared", "traces"))
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--mem-mb", type=int, default=2048)
    ap.add_argument("--work", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "corrupt-campaign.md"))
    a = ap.parse_args()
    dps = os.path.abspath(a.dps)
    traces = os.path.abspath(a.traces)
    names = sorted(d for d in os.listdir(traces)
                   if os.path.isdir(os.path.join(traces, d)) and trace_files(
                       os.path.join(traces, d))[0])
    work = tempfile.mkdtemp(prefix="dps-campaign-", dir=a.work)
    t0 = datetime.datetime.now()
    try:
        pristine, select = {}, {}
        for n in names:
            base = os.path.join(traces, n)
            if n in SELECT:
                select[n] = SELECT[n]
            else:
                rc, out, _ = run([dps, "analyze", base, "--list", "--no-progress"],
                                 a.timeout, a.mem_mb)
                pids = [line.split()[0] for line in out.splitlines()[1:]
                        if line[:1].isdigit()]
                select[n] = ["--pid", pids[0]] if pids else []
            wd = os.path.join(work, "pristine-" + n)
            os.makedirs(wd)
            runs, files = outputs(dps, base, select[n], wd, a.timeout, a.mem_mb)
            for rc, _, err in runs:
                if rc != 0 or err.strip():
                    sys.exit("corrupt-campaign.py: the undamaged %s gives exit %s: %s"
                             % (n, rc, err.strip()))
            pristine[n] = (runs, files)
        rng = random.Random(a.seed)
        plan = []
        for i in range(a.runs):
            n = rng.choice(names)
            plan.append((i, n, Damage(rng, os.path.join(traces, n), n)))

        def one(item):
            i, n, dmg = item
            member = os.path.join(work, "m%04d-%s" % (i, n))
            clone(os.path.join(traces, n), member)
            dmg.apply(member)
            wd = member + ".work"
            os.makedirs(wd)
            runs, files = outputs(dps, member, select[n], wd, a.timeout, a.mem_mb)
            verdict, why = classify(runs, files, pristine[n], member,
                                    os.path.join(traces, n))
            strict = None
            if verdict == "partial":
                rc, _, err = run([dps, "analyze", member, "--list", "--no-progress",
                                  "--strict"], a.timeout, a.mem_mb)
                strict = rc
            if verdict == "changed":
                verdict = "silent: event bytes" if dmg.in_event_bytes() else \
                    "silent (framing)"
            elif verdict == "same":
                verdict = "no effect"
            why = why.replace(member, "TRACE")
            shutil.rmtree(member, ignore_errors=True)
            shutil.rmtree(wd, ignore_errors=True)
            return i, n, dmg, verdict, why, strict

        rows = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for r in pool.map(one, plan):
                rows.append(r)
                i, n, dmg, verdict, why, strict = r
                print("%4d %-26s %-17s %-28s %s" % (i, n, dmg.kind, verdict, why[:100]),
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(a, dps, traces, rows, t0)


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %s"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def group(verdict):
    if verdict in ("detected", "partial"):
        return "detected"
    return verdict


def report(a, dps, traces, rows, t0):
    by = collections.Counter(group(v) for _, _, _, v, _, _ in rows)
    by_kind = collections.defaultdict(collections.Counter)
    for _, n, dmg, v, _, _ in rows:
        by_kind[dmg.kind][v] += 1
    cols = ["detected", "partial", "no effect", "silent: event bytes", "silent (framing)",
            "hang", "crash", "undetected error"]
    strict_bad = [r for r in rows if r[3] == "partial" and r[5] != 1]
    failures = [r for r in rows if r[3] in ("silent (framing)", "crash", "undetected error")
                or (r[3] == "hang" and not r[4].startswith("memory limit"))] + strict_bad
    minutes = (datetime.datetime.now() - t0).total_seconds() / 60
    tsv = os.path.splitext(a.out)[0] + ".tsv"
    with open(tsv, "w") as f:
        f.write("# run\ttrace\tkind\tfile\tdetail\tverdict\tstrict_exit\tmessage\n")
        for i, n, dmg, v, why, strict in rows:
            f.write("\t".join(map(str, (i, n, dmg.kind, dmg.file, dmg.detail, v,
                                        "" if strict is None else strict,
                                        why.replace("\t", " ")))) + "\n")
    with open(a.out, "w") as f:
        w = f.write
        w("# Damaged traces: a random campaign\n\n")
        w("Produced by `bench/corrupt-campaign.py` (issue 26, \"damaged traces never silent\"); "
          "the per-run table is [corrupt-campaign.tsv](corrupt-campaign.tsv).\n\n")
        w("- command: `bench/corrupt-campaign.py --runs %d --seed %d --jobs %d --timeout %g "
          "--mem-mb %d`\n" % (a.runs, a.seed, a.jobs, a.timeout, a.mem_mb))
        w("- dps: %s\n" % git_commit())
        w("- traces: %s (%s): recorded by others on other machines, not by the project\n"
          % (os.path.relpath(traces, ROOT) if traces.startswith(os.path.dirname(ROOT))
             else traces, ", ".join(sorted({r[1] for r in rows}))))
        w("- each run: one random damage of one trace's copy, then `dps analyze COPY --list` "
          "and `dps analyze COPY --pid P --json -o SET` (decoders' watchdog 5 s; %g s and "
          "%d MB of address space per process), compared with the undamaged trace's "
          "outputs; dps's bound on a decoder's memory at %d MiB; a partial result is also "
          "run with `--strict`, which must refuse it\n"
          % (a.timeout, a.mem_mb, DECODE_MEMORY_MIB))
        w("- took %.1f min on %d CPUs\n\n" % (minutes, os.cpu_count() or 0))
        w("| | runs |\n|---|---:|\n")
        w("| corruptions | %d |\n" % len(rows))
        w("| crashes | %d |\n" % by["crash"])
        w("| hangs (timeout) | %d |\n" % sum(1 for r in rows if r[3] == "hang"
                                             and not r[4].startswith("memory limit")))
        w("| hangs (the memory limit hit: a decoder allocating without bound) | %d |\n"
          % sum(1 for r in rows if r[3] == "hang" and r[4].startswith("memory limit")))
        w("| silent changes outside event bytes | %d |\n" % by["silent (framing)"])
        w("| silent changes from event bytes (flipped or zeroed inside events: CTF cannot "
          "detect) | %d |\n" % by["silent: event bytes"])
        w("| errors that do not name the trace | %d |\n" % by["undetected error"])
        w("| detected: an error naming the trace | %d (of which stopped by dps's memory bound "
          "on a decoder: %d) |\n"
          % (sum(1 for r in rows if r[3] == "detected"),
             sum(1 for r in rows if r[3] == "detected" and "memory grew past" in r[4])))
        w("| detected: a partial result, with a warning | %d (refused by --strict: %d) |\n"
          % (sum(1 for r in rows if r[3] == "partial"),
             sum(1 for r in rows if r[3] == "partial" and r[5] == 1)))
        w("| no effect on any output | %d |\n\n" % by["no effect"])
        w("By kind of damage:\n\n| kind | %s |\n|---|%s\n" % (
            " | ".join(cols), "---:|" * len(cols)))
        for k in KINDS:
            if by_kind[k]:
                w("| %s | %s |\n" % (k, " | ".join(str(by_kind[k][c]) for c in cols)))
        w("\n")
        notable = [r for r in rows if r[3] not in ("detected", "partial", "no effect")]
        if notable:
            w("Every run that was not detected and changed something, or hung:\n\n")
            w("| run | trace | kind | file | detail | verdict | message |\n"
              "|---:|---|---|---|---|---|---|\n")
            for i, n, dmg, v, why, _ in notable:
                w("| %d | %s | %s | %s | %s | %s | %s |\n" % (
                    i, n, dmg.kind, dmg.file, dmg.detail[:60], v,
                    why.replace("|", "\\|")[:200]))
            w("\n")
        w("Failures (a crash, a timeout, a silent change outside event bytes, an error without "
          "the trace's name, a partial result --strict accepts): %d\n" % len(failures))
    print("corrupt-campaign.py: %d runs; wrote %s and %s" % (len(rows), a.out, tsv))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
