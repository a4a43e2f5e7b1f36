#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Share of a program's CPU samples in named code, from `perf script`.

usage: perf_share.py PERF_DATA COMM_PREFIX[,COMM_PREFIX...] GROUP=REGEX...

Reads `perf script -F comm,ip,sym,dso` of PERF_DATA, keeps the samples of
threads whose name starts with a COMM_PREFIX (a game, its driver threads,
the trace writer), and prints, per GROUP, the share of those samples whose
line ("comm ip sym (dso)") matches REGEX (Python re.search), then one JSON
line with the same numbers.
"""
import json
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    data, comms = sys.argv[1], tuple(sys.argv[2].split(","))
    groups = []
    for g in sys.argv[3:]:
        name, _, rx = g.partition("=")
        if not rx:
            sys.exit("perf_share.py: %s: expected GROUP=REGEX" % g)
        groups.append((name, re.compile(rx)))
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym,dso"],
                         check=True, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    total = 0
    hits = {name: 0 for name, _ in groups}
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith(comms):
            continue
        total += 1
        for name, rx in groups:
            if rx.search(line):
                hits[name] += 1
    if not total:
        sys.exit("perf_share.py: %s: no samples of %s*" % (data, sys.argv[2]))
    res = {"samples": total}
    for name, _ in groups:
        res[name] = 100.0 * hits[name] / total
        print("%-12s %6.3f%% (%d of %d samples)" % (name, res[name], hits[name], total))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
