#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What the clairvoyant window's victims look like, from `vramlab labels` CSV files.

usage: labels_summary.py [--json OUT] LABELS.csv...

Per trace and VRAM size: decisions, candidates and victims per placed decision, where the
victims stood in TTM's eviction order (the share among the walk's first 10% of candidates),
and, for each feature the kernel sees, how well it alone separates victims from the BOs the
oracle kept (ROC AUC over all placed decisions' rows: 1.0 ranks every victim above every kept
BO, 0.5 is chance; a feature where lower means victim is counted reversed). Over all rows,
the rank correlation (Spearman) of idle time with the time to next use: how far recency
predicts reuse. Standard library only; the JSON is written as every vramlab output is
(vramlab_safe_write).
"""
import argparse
import csv
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vramlab_safe_write  # noqa: E402

# feature: True when a higher value should mean "victim"
FEATURES = {"idle_us": True, "age_us": True, "pages": True, "lru_rank": False, "uses": False,
            "returns": False}
COLUMNS = ["trace", "vram_mib", "decision", "outcome", "placed_id", "placed_pages",
           "placed_next_in", "now_us", "id", "lru_rank", "pages", "start", "priority", "uses",
           "returns", "idle_us", "age_us", "next_in", "next_in_us", "predicted_in", "victim",
           "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"]


KEEP = ("decision", "outcome", "victim", "next_in_us") + tuple(FEATURES)


def ranks(values):
    """Average ranks (1-based), ties sharing their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def auc(scores, labels):
    """Mann-Whitney: the chance that a random victim scores above a random kept BO."""
    pos = sum(labels)
    neg = len(labels) - pos
    if not pos or not neg:
        return None
    r = ranks(scores)
    s = sum(ri for ri, y in zip(r, labels) if y)
    return (s - pos * (pos + 1) / 2) / (pos * neg)


def spearman(x, y):
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else None


def read(paths):
    runs = defaultdict(list)
    for path in paths:
        with open(path, newline="") as f:
            rd = csv.reader(f)
            head = next(rd, None)
            if head != COLUMNS:
                sys.exit(f"{path}: line 1: not a vramlab labels header")
            for n, row in enumerate(rd, start=2):
                if len(row) != len(COLUMNS):
                    sys.exit(f"{path}: line {n}: {len(row)} fields, not {len(COLUMNS)}")
                r = dict(zip(COLUMNS, row))
                try:
                    for k in ("vram_mib", "decision", "lru_rank", "pages", "uses", "returns",
                              "idle_us", "age_us", "victim"):
                        r[k] = int(r[k])
                    r["next_in_us"] = int(r["next_in_us"]) if r["next_in_us"] else None
                except ValueError as e:
                    sys.exit(f"{path}: line {n}: {e}")
                if r["victim"] not in (0, 1) or r["outcome"] not in ("placed", "nofit", "bypass"):
                    sys.exit(f"{path}: line {n}: victim or outcome out of range")
                # only what the summary reads: a live corpus has millions of rows
                runs[(r["trace"], r["vram_mib"])].append({k: r[k] for k in KEEP})
    return runs


def summarize(rows):
    decisions = defaultdict(list)
    for r in rows:
        decisions[(r["decision"], r["outcome"])].append(r)
    placed = [d for (k, o), d in decisions.items() if o == "placed"]
    prow = [r for d in placed for r in d]
    labels = [r["victim"] for r in prow]
    early = 0
    for d in placed:  # the walk's first tenth of the candidates
        by_rank = sorted(d, key=lambda r: r["lru_rank"])
        early += sum(r["victim"] for r in by_rank[:max(1, len(d) // 10)])
    nv = sum(labels)
    out = {
        "decisions": len(decisions),
        "placed": len(placed),
        "candidates_per_placed": len(prow) / len(placed) if placed else None,
        "victims_per_placed": nv / len(placed) if placed else None,
        "victims_in_first_tenth_of_lru": early / nv if nv else None,
        "auc": {},
    }
    for f, higher in FEATURES.items():
        a = auc([r[f] if higher else -r[f] for r in prow], labels)
        out["auc"][f] = a
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.json:
        vramlab_safe_write.check_writable(a.json)
    runs = read(a.csv)
    if not runs:
        sys.exit("no rows")
    res = {"schema": "vramlab-labels-summary", "version": 1, "runs": []}
    feats = list(FEATURES)
    print(f"{'trace':24} {'MiB':>5} {'placed':>7} {'cand':>6} {'vict':>5} {'LRU10%':>7} "
          + " ".join(f"{f[:8]:>8}" for f in feats))
    for (trace, vram), rows in sorted(runs.items()):
        s = summarize(rows)
        res["runs"].append({"trace": trace, "vram_mib": vram, **s})
        fmt = lambda v, spec: format(v, spec) if v is not None else "-"  # noqa: E731
        print(f"{trace:24} {vram:>5} {s['placed']:>7} {fmt(s['candidates_per_placed'], '6.0f')} "
              f"{fmt(s['victims_per_placed'], '5.1f')} {fmt(s['victims_in_first_tenth_of_lru'], '7.0%')} "
              + " ".join(f"{fmt(s['auc'][f], '8.2f')}" for f in feats))
    everything = [r for rows in runs.values() for r in rows if r["next_in_us"] is not None]
    rho = spearman([r["idle_us"] for r in everything], [r["next_in_us"] for r in everything])
    res["spearman_idle_vs_next_use"] = rho
    print(f"AUC: victims against kept BOs, placed decisions; Spearman(idle, time to next use) "
          f"over {len(everything)} rows: {rho:.2f}" if rho is not None else "")
    if a.json:
        vramlab_safe_write.write_text(a.json, json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
