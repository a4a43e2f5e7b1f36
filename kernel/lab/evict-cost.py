#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Table of ttm_evict_cost's lines: unpatched 6.12 against the series.

usage: evict-cost.py BASE_LOG SERIES_LOG [--json FILE]
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "harness", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)

LINE = re.compile(r"evict-cost case=(\S+) vram=(\d+) window=(\d+) fillers=(\d+) "
                  r"evicted=(\d+) ns_min=(\d+) ns_median=(\d+) ns_max=(\d+)")


def parse(path, kernel):
    rows = []
    with open(path, errors="replace") as f:
        for no, line in enumerate(f, 1):
            m = LINE.search(line)
            if not m:
                continue
            case, vram, window, fillers, evicted, lo, med, hi = m.groups()
            rows.append({"kernel": kernel, "case": case, "vram_pages": int(vram),
                         "window": int(window), "fillers": int(fillers),
                         "evicted": int(evicted), "ns_min": int(lo),
                         "ns_median": int(med), "ns_max": int(hi), "line": no})
    if not rows:
        sys.exit(f"{path}: no 'evict-cost case=' line: did the suite run?")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("series")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = parse(a.base, "6.12") + parse(a.series, "series")
    walk = {(r["case"], r["vram_pages"]): r for r in rows
            if r["kernel"] == "6.12" and r["window"] == 0}
    print(f"{'case':10} {'VRAM':>7} {'kernel':7} {'window':>6} {'fillers':>7} {'evicted':>7} "
          f"{'median us':>10} {'min..max us':>17} {'vs 6.12':>8}")
    for r in rows:
        base = walk.get((r["case"], r["vram_pages"]))
        pct = ((r["ns_median"] / base["ns_median"] - 1) * 100
               if base and base["ns_median"] else None)
        r["vs_unpatched_pct"] = pct
        vs = "-" if pct is None else f"{pct:+.1f}%"
        mib = r["vram_pages"] * 4 // 1024
        print(f"{r['case']:10} {mib:>5}Mi {r['kernel']:7} {r['window'] or 'walk':>6} "
              f"{r['fillers']:>7} {r['evicted']:>7} {r['ns_median'] / 1000:>10.1f} "
              f"{r['ns_min'] / 1000:>8.1f}..{r['ns_max'] / 1000:<8.1f} {vs:>8}")
    if a.json:
        safe.write_text(a.json, json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
