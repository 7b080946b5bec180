# SPDX-License-Identifier: MIT
"""What bench/whatif-xz.sh and bench/cache-real.sh share: xz's input and their progress lines."""
import random
import sys
import time

_T0 = time.monotonic()


def say(name, msg):
    """A progress line on stderr: the bench's name and the seconds since it started."""
    print("%s [%6.1f s] %s" % (name, time.monotonic() - _T0, msg), file=sys.stderr, flush=True)


def write_text(path, size):
    """size bytes (at least) of text from a fixed seed: lines of 12 words of a vocabulary of
    5,000, so that xz has work to do and every run compresses the same input."""
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(5000)]
    with open(path, "w") as f:
        n = 0
        while n < size:
            line = " ".join(rng.choice(words) for _ in range(12)) + "\n"
            f.write(line)
            n += len(line)
