#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Table of ttm_evict_cost's lines: the base kernel against the series.

usage: evict-cost.py [--base-name NAME] BASE_LOG [SERIES_LOG] [--json FILE]
       evict-cost.py --hold UM_JSON X86_64_JSON

The first form lists every case of one platform (the series' rows only with
SERIES_LOG) and writes them as JSON.  The second prints, from the JSON of
both platforms, the time per walk or scan and per entry: TTM's walk with the
window off (per BO it evicts), the series' window scan (where no window
exists it visits every LRU entry under lru_lock and the manager's lock) and
a driver's walk of the LRU cursor (design A1, per BO it returns).
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "harness", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)

# entries= and ps_per_entry= since the 7.2 port: optional, older logs lack them
# " ordered" after the window: the scan in a driver's order (radeon.evict_predict), 7.2;
# " escalating": that order goes on to 4096 entries where its bound held no window;
# " own": fillers held with the evictor's ticket; " repack": the order lets them in (7.2's
# radeon.evict_repack)
LINE = re.compile(r"evict-cost case=(\S+) vram=(\d+) window=(\d+)( ordered)?( escalating)?"
                  r"( own)?( repack)? "
                  r"fillers=(\d+) "
                  r"evicted=(\d+) ns_min=(\d+) ns_median=(\d+) ns_max=(\d+)"
                  r"(?: entries=(\d+) ps_per_entry=(\d+))?")
A1 = re.compile(r"evict-cost-a1 case=(\S+) vram=(\d+) fillers=(\d+) entries=(\d+) "
                r"ns_min=(\d+) ns_median=(\d+) ns_max=(\d+) ps_per_entry=(\d+)")


def parse(path, kernel):
    rows = []
    with open(path, errors="replace") as f:
        for no, line in enumerate(f, 1):
            m = LINE.search(line)
            if m:
                (case, vram, window, ordered, escalating, own, repack, fillers, evicted, lo,
                 med, hi, ent, ps) = m.groups()
                rows.append({"family": "validate", "kernel": kernel, "case": case,
                             "vram_pages": int(vram), "window": int(window),
                             "ordered": bool(ordered), "escalating": bool(escalating),
                             "own": bool(own), "repack": bool(repack),
                             "fillers": int(fillers), "evicted": int(evicted),
                             "ns_min": int(lo), "ns_median": int(med), "ns_max": int(hi),
                             "entries": int(ent) if ent else None,
                             "ps_per_entry": int(ps) if ps else None, "line": no})
                continue
            m = A1.search(line)
            if m:
                case, vram, fillers, ent, lo, med, hi, ps = m.groups()
                rows.append({"family": "a1", "kernel": kernel, "case": case,
                             "vram_pages": int(vram), "window": 0, "fillers": int(fillers),
                             "evicted": 0, "ns_min": int(lo), "ns_median": int(med),
                             "ns_max": int(hi), "entries": int(ent),
                             "ps_per_entry": int(ps), "line": no})
    if not rows:
        sys.exit(f"{path}: no 'evict-cost case=' line: did the suite run?")
    return rows


def mib(pages):
    return f"{pages * 4 // 1024}Mi"


def listing(a):
    rows = parse(a.logs[0], a.base_name)
    if len(a.logs) > 1:
        rows += parse(a.logs[1], "series")
    walk = {(r["case"], r["vram_pages"]): r for r in rows
            if r["kernel"] == a.base_name and r["family"] == "validate" and r["window"] == 0}
    print(f"{'case':10} {'VRAM':>7} {'kernel':7} {'window':>6} {'fillers':>7} {'evicted':>7} "
          f"{'median us':>10} {'min..max us':>17} {'vs ' + a.base_name:>8}")
    for r in rows:
        if r["family"] != "validate":
            continue
        base = walk.get((r["case"], r["vram_pages"]))
        pct = ((r["ns_median"] / base["ns_median"] - 1) * 100
               if base and base["ns_median"] else None)
        r["vs_unpatched_pct"] = pct
        vs = "-" if pct is None else f"{pct:+.1f}%"
        suffix = "oe" if r.get("escalating") else "o" if r.get("ordered") else ""
        suffix += "r" if r.get("repack") else "h" if r.get("own") else ""
        window = f"{r['window']}{suffix}" if r["window"] else "walk"
        print(f"{r['case']:10} {mib(r['vram_pages']):>7} {r['kernel']:7} "
              f"{window:>6} {r['fillers']:>7} {r['evicted']:>7} "
              f"{r['ns_median'] / 1000:>10.1f} "
              f"{r['ns_min'] / 1000:>8.1f}..{r['ns_max'] / 1000:<8.1f} {vs:>8}")
    cursor = [r for r in rows if r["family"] == "a1"]
    if cursor:
        print(f"{'A1 cursor':10} {'VRAM':>7} {'kernel':7} {'entries':>14} "
              f"{'median us':>10} {'min..max us':>17} {'ns/entry':>8}")
    for r in cursor:
        print(f"{r['case']:10} {mib(r['vram_pages']):>7} {r['kernel']:7} {r['entries']:>14} "
              f"{r['ns_median'] / 1000:>10.1f} "
              f"{r['ns_min'] / 1000:>8.1f}..{r['ns_max'] / 1000:<8.1f} "
              f"{r['ps_per_entry'] / 1000:>8.1f}")
    if a.json:
        safe.write_text(a.json, json.dumps(rows, indent=1))


def human(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} us"


def what(r):
    """The row of the lock-hold table a case belongs to, or None."""
    if r.get("entries") is None:
        return None
    if r["family"] == "a1":
        return "A1 LRU cursor walk"
    if r["window"] == 0:
        return "TTM walk, window off"
    # a quarter of the fillers held by the evictor's submission; with the repack callback
    # a second pass over every entry, which finds no window either
    if r.get("own"):
        if not r["case"].startswith("nofit"):
            return None
        again = ", the repack's second pass" if r.get("repack") else ""
        return (f"window scan, driver's order, N = {r['window']} escalating to 4096, "
                f"a quarter held{again}")
    # no window exists: an escalating scan visits its bound, then 4096 entries
    if r["case"].startswith("nofit") and r.get("escalating"):
        return f"window scan, driver's order, N = {r['window']} escalating to 4096"
    # no window exists and the bound exceeds the LRU: the scan visits every entry
    if r["case"].startswith("nofit") and r["window"] >= r["fillers"]:
        order = ", driver's order" if r.get("ordered") else ""
        return f"window scan{order}, N = {r['window']}"
    return None


def hold(paths):
    plats = {}
    for p in paths:
        with open(p, encoding="utf-8") as f:
            rows = json.load(f)
        m = re.search(r"evict-cost-(\w+)\.json$", p)
        plat = m.group(1) if m else os.path.basename(p)
        plats[plat] = {(r["case"], r["vram_pages"], what(r), r["kernel"]): r
                       for r in rows if what(r)}
    # the layouts the A1 walk was timed on
    layouts = {k[:2] for rows in plats.values() for k in rows if k[2].startswith("A1")}
    keys = sorted({k for rows in plats.values() for k in rows if k[:2] in layouts},
                  key=lambda k: (k[0], k[1], k[2][:2] != "TT", k[2][:2] == "A1", k[3]))
    head = " | ".join(f"{n} per walk | {n} per entry" for n in plats)
    print(f"| layout | VRAM | what | kernel | LRU entries | {head} |")
    print("|" + "---|" * (5 + 2 * len(plats)))
    for k in keys:
        cells, entries = [], "-"
        for rows in plats.values():
            r = rows.get(k)
            if r is None:
                cells += ["-", "-"]
                continue
            entries = str(r["entries"])
            if k[2].startswith("TTM"):
                # the walk evicts what it visits: per BO evicted (nofit: every LRU entry)
                per = f"{r['ns_median'] / r['evicted']:.0f} ns" if r["evicted"] else "-"
            else:
                per = f"{r['ps_per_entry'] / 1000:.0f} ns"
            cells += [human(r["ns_median"]), per]
        print(f"| {k[0]} | {mib(k[1])} | {k[2]} | {k[3]} | {entries} | {' | '.join(cells)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="*")
    ap.add_argument("--base-name", default="6.12")
    ap.add_argument("--json")
    ap.add_argument("--hold", nargs=2, metavar=("UM_JSON", "X86_64_JSON"))
    a = ap.parse_args()
    if a.hold:
        hold(a.hold)
    elif 1 <= len(a.logs) <= 2:
        listing(a)
    else:
        ap.error("one or two logs, or --hold")


if __name__ == "__main__":
    main()
