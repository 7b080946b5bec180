#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Derives a corpus of damaged traces from tests/data/traces, reproducibly (fixed seeds).

    make-corpus.py TRACES_DIR OUT_DIR

Each member is OUT_DIR/<name>/: a copy of one trace of TRACES_DIR (unchanged files are hard
links, so the corpus costs little more than the damaged files) with one kind of damage:

  meta-trunc    the metadata file cut at an offset (fixed fractions and seeded random ones)
  meta-missing  a (sub-)trace's metadata file removed
  meta-flip     bytes of the metadata flipped
  stream-empty  a stream file emptied (size 0)
  stream-trunc  a stream file cut at a seeded offset
  stream-flip   bytes of a stream file flipped (seeded positions)
  stream-zero   a block of a stream file zeroed
  stream-dup    a block of a stream file duplicated in place (the file grows)
  stream-abort  little-endian CTF streams (LTTng, perf-CTF): the top byte of the first
                packet's content_size set to 0x94,
                which makes babeltrace2 2.0.4 abort (an assertion in msg-iter.c)

OUT_DIR/corpus.tsv lists, per member: name, base trace, kind, damaged file (relative to the
member), detail, and the class the test holds it to (doc/analyzer.md, "Damaged traces"):
"structural" (a located error or a reported skip, never a silent change) or "payload" (bytes
inside events may change values no reader can tell from real ones: never a crash or a hang,
and a silent change is counted, not failed). Running it twice gives the same corpus.
"""
import os
import random
import shutil
import sys

# The bases: small traces of every kind (LTTng kernel with rotated files, UST, perf-CTF, a
# dps record directory with perf + UST sub-traces).
BASES = ["ls-ust", "tracefile-rotation-sched", "perf-idle-cpu1", "record-live-prog"]
SEED = 20261124
META_FRACTIONS = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99]
N_META_RANDOM = 4
N_STREAM_EACH = 3


def trace_files(base_dir):
    """(metadata paths, stream paths) relative to base_dir, sorted."""
    metas, streams = [], []
    for root, dirs, files in os.walk(base_dir):
        dirs.sort()
        rel_root = os.path.relpath(root, base_dir)
        if "metadata" in files:
            metas.append(os.path.normpath(os.path.join(rel_root, "metadata")))
            for f in sorted(files):
                if f != "metadata":
                    streams.append(os.path.normpath(os.path.join(rel_root, f)))
    return sorted(metas), sorted(streams)


def clone(src, dst):
    """dst: a tree of hard links to src's files (copies where links are refused)."""
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            s, d = os.path.join(root, f), os.path.join(dst, rel, f)
            try:
                os.link(s, d)
            except OSError:
                shutil.copy2(s, d)


def own_copy(path):
    """Replaces a hard link by a private copy, so that damaging it spares the others."""
    with open(path, "rb") as f:
        data = f.read()
    write(path, data)
    return bytearray(data)


def write(path, data):
    """A new file at path: never written through a hard link to the pristine trace."""
    if os.path.lexists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make-corpus.py TRACES_DIR OUT_DIR")
    traces, out = sys.argv[1], sys.argv[2]
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    rng = random.Random(SEED)
    rows = []

    def member(base, kind, rel, detail, cls, damage):
        name = "%s.%s.%03d" % (base, kind, len(rows))
        dst = os.path.join(out, name)
        clone(os.path.join(traces, base), dst)
        target = os.path.join(dst, rel)
        damage(target)
        rows.append((name, base, kind, rel, detail, cls))

    for base in BASES:
        base_dir = os.path.join(traces, base)
        metas, streams = trace_files(base_dir)
        for meta in metas:
            size = os.path.getsize(os.path.join(base_dir, meta))
            offsets = [int(size * f) for f in META_FRACTIONS]
            offsets += [rng.randrange(1, size) for _ in range(N_META_RANDOM)]
            for off in offsets:
                member(base, "meta-trunc", meta, "at %d of %d" % (off, size), "structural",
                       lambda p, off=off: write(p, own_copy(p)[:off]))
            member(base, "meta-missing", meta, "removed", "structural", os.unlink)
            for _ in range(2):
                pos = sorted(rng.sample(range(size), 8))

                def flip(p, pos=pos):
                    d = own_copy(p)
                    for i in pos:
                        d[i] ^= 0xFF
                    write(p, d)
                member(base, "meta-flip", meta, "bytes %s" % ",".join(map(str, pos)),
                       "payload", flip)
        # the largest stream files (they hold the events) and one more at random
        by_size = sorted(streams, key=lambda s: (-os.path.getsize(os.path.join(base_dir, s)), s))
        chosen = by_size[:2] + [rng.choice(streams)]
        with open(os.path.join(base_dir, by_size[0]), "rb") as f:
            lttng = f.read(4) == bytes([0xC1, 0x1F, 0xFC, 0xC1])  # little-endian magic
        if lttng:
            def abort(p):
                d = own_copy(p)
                d[55] = 0x94  # LTTng packet context: content_size is bytes 48..55
                write(p, d)
            member(base, "stream-abort", by_size[0], "byte 55 = 0x94", "structural", abort)
        for st in chosen:
            size = os.path.getsize(os.path.join(base_dir, st))
            member(base, "stream-empty", st, "emptied (was %d bytes)" % size, "structural",
                   lambda p: write(p, b""))
            for _ in range(N_STREAM_EACH):
                off = rng.randrange(1, size)
                member(base, "stream-trunc", st, "at %d of %d" % (off, size), "structural",
                       lambda p, off=off: write(p, own_copy(p)[:off]))
            for _ in range(N_STREAM_EACH):
                pos = sorted(rng.sample(range(size), 4))

                def flip(p, pos=pos):
                    d = own_copy(p)
                    for i in pos:
                        d[i] ^= 1 << rng.randrange(8)
                    write(p, d)
                member(base, "stream-flip", st, "bytes %s" % ",".join(map(str, pos)),
                       "payload", flip)
            for _ in range(N_STREAM_EACH):
                n = rng.choice([64, 512, 4096])
                off = rng.randrange(0, max(1, size - n))

                def zero(p, off=off, n=n):
                    d = own_copy(p)
                    d[off:off + n] = bytes(len(d[off:off + n]))
                    write(p, d)
                member(base, "stream-zero", st, "%d bytes at %d" % (n, off), "payload", zero)
            for _ in range(N_STREAM_EACH):
                n = rng.choice([64, 4096])
                off = rng.randrange(0, max(1, size - n))

                def dup(p, off=off, n=n):
                    d = own_copy(p)
                    write(p, d[:off + n] + d[off:off + n] + d[off + n:])
                member(base, "stream-dup", st, "%d bytes at %d repeated" % (n, off),
                       "structural", dup)

    with open(os.path.join(out, "corpus.tsv"), "w") as f:
        f.write("# member\tbase\tkind\tfile\tdetail\tclass\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print("make-corpus.py: %d members in %s" % (len(rows), out))


if __name__ == "__main__":
    main()
