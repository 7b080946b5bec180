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
  stream-missing        a stream file deleted, its LTTng index (index/NAME.idx) left
  stream-missing-index  a stream file deleted with its index, the stream instance id of a CPU
                        below the largest (LTTng index 1.1): a gap in the instance ids
  stream-copy           a stream file copied beside it (NAME.copy)
  stream-copy-index     the same with its index copied (index/NAME.copy.idx)
  stream-discard        LTTng: the packet context's events_discarded (bytes 72..79) of a
                        stream's second packet set to 0x13 << 48: babeltrace2 reports
                        5348024557502464 events discarded (a first packet's count it does not
                        give: a damaged one is a loss of unknown size, not told from a real one)
  stream-seq            the same with its packet_seq_num (bytes 64..71): as many packets lost

OUT_DIR/corpus.tsv lists, per member: name, base trace, kind, damaged file (relative to the
member), detail, the class the test holds it to (doc/analyzer.md, "Damaged traces"), and what
the warning or error must say: "structural" (a located error or a reported skip, never a
silent change), "named" (the report must hold the text of the last column, where "MEMBER"
stands for the member's path: damage babeltrace2 reads without a word, found by dps itself)
or "payload" (bytes inside events may change values no reader can tell from real ones: never a
crash or a hang, and a silent change is counted, not failed). A trace without an index
(perf-CTF) gets no stream-missing member: a deleted stream file leaves nothing to tell it by.
Running it twice gives the same corpus.
"""
import os
import random
import shutil
import struct
import sys

# The bases: small traces of every kind (LTTng kernel with rotated files, UST, perf-CTF, a
# dps record directory with perf + UST sub-traces).
BASES = ["ls-ust", "tracefile-rotation-sched", "perf-idle-cpu1", "record-live-prog"]
SEED = 20261124
META_FRACTIONS = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99]
N_META_RANDOM = 4
N_STREAM_EACH = 3
# A trace whose stream files hold several packets each (lttng-modules 2.8, index 1.0): for the
# damaged counts of lost events or packets in the middle of a file only.
DISCARD_BASES = ["many-threads"]


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


def index_instance(base_dir, stream):
    """The stream instance id of a stream file's LTTng index 1.1, None without one."""
    d, f = os.path.split(os.path.join(base_dir, stream))
    try:
        with open(os.path.join(d, "index", f + ".idx"), "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if len(data) < 16 + 72:
        return None
    magic, major, minor, entry = struct.unpack(">IIII", data[:16])
    if magic != 0xC1F1DCC1 or major != 1 or minor < 1 or entry < 72:
        return None
    return struct.unpack(">Q", data[16 + 56:16 + 64])[0]


def second_packet(base_dir, streams, indexed):
    """(file, byte offset, the stream's first file) of the second packet of the first
    multi-packet LTTng stream: a later entry of a file's index, or the first packet of the file
    that follows it in a rotated stream (CHANNEL_CPU_N, N + 1). None without one."""
    for st in sorted(indexed):
        d, f = os.path.split(os.path.join(base_dir, st))
        with open(os.path.join(d, "index", f + ".idx"), "rb") as fh:
            data = fh.read()
        magic, major, minor, entry = struct.unpack(">IIII", data[:16])
        if magic != 0xC1F1DCC1 or entry < 56:
            continue
        if len(data) >= 16 + 2 * entry:
            return st, struct.unpack(">Q", data[16 + entry:16 + entry + 8])[0], st
        stem, _, n = st.rpartition("_")
        rotated = stem.rpartition("_")[2].isdigit()  # CHANNEL_CPU_N, not CHANNEL_CPU
        if rotated and n == "0" and "%s_1" % stem in streams:
            return "%s_1" % stem, 0, st
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make-corpus.py TRACES_DIR OUT_DIR")
    traces, out = sys.argv[1], sys.argv[2]
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    rng = random.Random(SEED)
    # the kinds added later draw from their own generator: the older members stay as they were
    rng2 = random.Random(SEED + 1)
    rows = []
    picked = {}  # base -> (streams, by_size, chosen, lttng) of the first loop

    def member(base, kind, rel, detail, cls, damage, says=""):
        name = "%s.%s.%03d" % (base, kind, len(rows))
        dst = os.path.join(out, name)
        clone(os.path.join(traces, base), dst)
        target = os.path.join(dst, rel)
        damage(target)
        rows.append((name, base, kind, rel, detail, cls, says))

    def index_of(path):
        d, f = os.path.split(path)
        return os.path.join(d, "index", f + ".idx")

    def discard_members(base, base_dir, streams, indexed):
        """stream-discard and stream-seq at the second packet of an LTTng stream."""
        second = second_packet(base_dir, streams, indexed)
        if not second:
            return
        st, off, first = second
        for kind, field, what in (("stream-discard", 72, "events_discarded"),
                                  ("stream-seq", 64, "packet_seq_num")):
            def damage(p, at=off + field + 6):
                d = own_copy(p)
                d[at] = 0x13  # the field's 7th byte (little-endian): 0x13 << 48
                write(p, d)
            member(base, kind, st, "%s of the packet at byte %d: + 0x13 << 48" % (what, off),
                   "named", damage, "the stream of MEMBER/%s: a damaged packet context" % first)

    def copy_beside(p, with_index=False):
        with open(p, "rb") as f:
            write(p + ".copy", f.read())
        if with_index:
            with open(index_of(p), "rb") as f:
                write(index_of(p + ".copy"), f.read())

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
        picked[base] = (streams, by_size, chosen, lttng)

    # Damage babeltrace2 reads without a word (issue 26): streams missing or there twice, a
    # packet context's count of lost events. After the others: their names stay as they were.
    for base in BASES + DISCARD_BASES:
        base_dir = os.path.join(traces, base)
        if base in DISCARD_BASES:
            streams = trace_files(base_dir)[1]
            indexed = [st for st in streams
                       if os.path.exists(index_of(os.path.join(base_dir, st)))]
            discard_members(base, base_dir, streams, indexed)
            continue
        streams, by_size, chosen, lttng = picked[base]
        largest = by_size[0]
        indexed = [st for st in streams
                   if os.path.exists(index_of(os.path.join(base_dir, st)))]
        for st in sorted(set(chosen) & set(indexed)):
            member(base, "stream-missing", st, "deleted, its index left", "named", os.unlink,
                   "MEMBER/%s: stream file missing" % st)
        insts = [(index_instance(base_dir, st), st) for st in indexed]
        insts = [(i, st) for i, st in insts if i is not None]
        below = sorted(st for i, st in insts if i < max(i for i, _ in insts)) if insts else []
        if below:
            st = rng2.choice(below)
            inst = index_instance(base_dir, st)
            # every other stream file of that instance (rotated files) goes too
            same = [s for s in indexed if index_instance(base_dir, s) == inst]

            def delete_instance(p, same=same):
                member_dir = p[:len(p) - len(st)]
                for s in same:
                    os.unlink(os.path.join(member_dir, s))
                    os.unlink(index_of(os.path.join(member_dir, s)))
            member(base, "stream-missing-index", st,
                   "deleted with its index (instance %d: %s)" % (inst, " ".join(same)),
                   "named", delete_instance, "stream instance %d of stream class" % inst)
        for st in (largest, rng2.choice(sorted(set(streams) - {largest}) or [largest])):
            member(base, "stream-copy", st + ".copy", "a copy of %s" % st, "named",
                   lambda p, st=st: copy_beside(p[:-len(".copy")]),
                   "MEMBER/%s.copy: a copy of the stream file" % st)
        if largest in indexed:
            member(base, "stream-copy-index", largest + ".copy",
                   "a copy of %s and of its index" % largest, "named",
                   lambda p: copy_beside(p[:-len(".copy")], True),
                   "MEMBER/%s.copy: a copy of the stream file" % largest)
        if lttng:
            discard_members(base, base_dir, streams, indexed)

    with open(os.path.join(out, "corpus.tsv"), "w") as f:
        f.write("# member\tbase\tkind\tfile\tdetail\tclass\tsays\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print("make-corpus.py: %d members in %s" % (len(rows), out))


if __name__ == "__main__":
    main()
