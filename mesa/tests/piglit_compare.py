#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the per-test results of two piglit runs (baseline, patched).

    piglit_compare.py BASE_RESULTS PATCHED_RESULTS [--list TEST_LIST]

Each argument is a piglit results directory (results.json, .json.bz2,
.json.gz or .json.xz) or such a file.  Pixel results mean nothing over the
no-op drm shim, so what is compared is the status of each test (pass, fail,
warn, crash, timeout, skip, ...).  Exits 1, listing every difference, when
a test differs or is missing from one side (or from the list); 0 otherwise.
"""

import argparse
import bz2
import collections
import gzip
import json
import lzma
import os
import sys

OPENERS = {'.bz2': bz2.open, '.gz': gzip.open, '.xz': lzma.open, '.json': open}


def load(path):
    if os.path.isdir(path):
        for name in ('results.json', 'results.json.bz2', 'results.json.gz',
                     'results.json.xz'):
            if os.path.exists(os.path.join(path, name)):
                path = os.path.join(path, name)
                break
        else:
            sys.exit(f'{path}: no piglit results file')
    opener = OPENERS.get(os.path.splitext(path)[1], open)
    with opener(path, 'rt') as f:
        tests = json.load(f)['tests']
    return {name: t['result'] for name, t in tests.items()}


def read_list(path):
    with open(path) as f:
        stripped = (line.split('#')[0].strip() for line in f)
        return [t for t in stripped if t]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('base')
    ap.add_argument('patched')
    ap.add_argument('--list', help='the test list both runs used')
    args = ap.parse_args()

    base = load(args.base)
    new = load(args.patched)
    names = set(base) | set(new)
    if args.list:
        names |= set(read_list(args.list))

    diffs = []
    for name in sorted(names):
        a = base.get(name, 'missing')
        b = new.get(name, 'missing')
        if a != b:
            diffs.append((name, a, b))

    def summary(res):
        c = collections.Counter(res.values())
        return ', '.join(f'{n} {k}' for k, n in sorted(c.items()))

    print(f'piglit baseline: {len(base)} tests: {summary(base)}')
    print(f'piglit patched:  {len(new)} tests: {summary(new)}')
    if diffs:
        print(f'piglit: {len(diffs)} tests differ (baseline -> patched):')
        for name, a, b in diffs:
            print(f'  {name}: {a} -> {b}')
        return 1
    print(f'piglit: all {len(names)} tests give the same result on both drivers')
    return 0


if __name__ == '__main__':
    sys.exit(main())
