# SPDX-License-Identifier: MIT
"""The trace directories the analyzer's Python tests read (decode-jobs.py, bt-plugin.py)."""
import os


def traces(dirs):
    """The traces of each directory, in name order; one named like a trace of an earlier
    directory is passed over: tests/data/traces holds byte-for-byte copies of
    ../shared/traces (its README.md files say where from), read once. A directory that is not
    there is passed over, said on stdout."""
    seen = set()
    for d in dirs:
        if not os.path.isdir(d):
            print("%s: not there, passed over" % d)
            continue
        for name in sorted(os.listdir(d)):
            if not os.path.isdir(os.path.join(d, name)):
                continue
            if name in seen:
                print("%s: a copy of the trace %s already read, passed over"
                      % (os.path.join(d, name), name))
                continue
            seen.add(name)
            yield os.path.join(d, name)
