# SPDX-License-Identifier: MIT
"""The dps options the benchmark and set-up scripts pass, checked against the commands' --help
(cli-options, tests/cli/options.sh): a script that calls an option a command no longer has
fails only when someone runs it, which no test does (bench/cache.sh called `dps cache capture
-f` for a day after the option was renamed).

stdin: the option table of options.sh (command, short letter, long option, text; tab-separated).
argv: the files to read. Shell: a line (joined with its continuations) that runs "$dps" CMD,
its words up to the end of the command (`--`, a pipe, a redirection, `;`, `&&`, `||`, `)`).
Python: a list that starts with dps or ARGS.dps and a quoted command, its quoted strings on the
same logical line. A word that starts with a dash and is not a number is an option: a long one
(up to `=`) must be in the command's --help, a short one too. Prints `FILE:LINE: ...` for each
unknown option; exit 1 if any.
"""
import re
import shlex
import sys

known = {}
for row in sys.stdin:
    f = row.rstrip("\n").split("\t")
    if len(f) >= 3:
        known.setdefault(f[0], set()).update(x for x in (f[1], f[2]) if x)

END = {"--", "|", "||", "&&", ";", ")", "&"}
bad = 0


def check(path, line, cmd, words):
    global bad
    if cmd not in known:
        return
    for w in words:
        if w in END or w.startswith((">", "<", "2>", "1>")):
            break
        if not w.startswith("-") or re.match(r"^-[0-9.]", w) or w == "-":
            continue
        opt = w.split("=", 1)[0]
        if opt not in known[cmd]:
            print("%s:%d: dps %s has no option %s (dps %s --help)" % (path, line, cmd, opt, cmd))
            bad = 1


for path in sys.argv[1:]:
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        print("%s: cannot read: %s" % (path, e))
        bad = 1
        continue
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start = i
        logical = lines[i]
        while logical.endswith("\\") and i + 1 < len(lines):
            i += 1
            logical = logical[:-1] + " " + lines[i]
        i += 1
        if path.endswith(".py"):
            for m in re.finditer(r"\[\s*(?:ARGS\.)?dps\s*,\s*\"([a-z]+)\"((?:\s*,\s*(?:\"[^\"]*\"|[A-Za-z_.]+))*)",
                                 logical):
                words = re.findall(r"\"([^\"]*)\"", m.group(2))
                check(path, start + 1, m.group(1), words)
            continue
        for m in re.finditer(r"\"\$\{?dps\}?\"\s+([a-z]+)(.*)", logical):
            try:
                words = shlex.split(m.group(2), comments=True)
            except ValueError:
                words = m.group(2).split()
            check(path, start + 1, m.group(1), words)
sys.exit(bad)
