#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The numbers of Linux 6.14's lost LRU order, from one decision table, in the places that
quote them: the top README's "What to boot" table, docs/linux-6.14.md and the fix's commit
message (../patches/linux-7.2/1-radeon-0001-*). One file holds them (results/lru-6.14.json), so the text cannot
drift from the table.

usage:
  lru-614.py collect DECIDE.json OUT.json
      The rows of a `vramlab decide --json` run (version 2, baselines lru and 6.14:lru) that
      the text quotes: per group and size, 6.14 against 6.12 (the regression), the fix and
      window eviction against both kernels; the band "x1 8G" (the model's GTT charge, PCIe
      8 GB/s) and the verdict over every band.
  lru-614.py readme FILE.md NUMBERS.json [--check]
  lru-614.py front README.md NUMBERS.json [--check]
  lru-614.py patch PATCH NUMBERS.json [--check]
      Write (or, with --check, compare) the block between <!-- lru-6.14:begin --> and
      <!-- lru-6.14:end --> of FILE.md (docs/linux-6.14.md: every row), the front page's
      "what to boot" table between <!-- boot:begin --> and <!-- boot:end --> of README.md,
      or the text between "Measured" and the Fixes: tag of PATCH.

Errors name the file and what is wrong; the exit status is 1.
"""
import argparse
import json
import re

import numbers_text  # kernel/numbers_text.py, beside this script
import vramlab_safe_write as safe  # harness/python, put on the path by numbers_text

BEGIN, END = "<!-- lru-6.14:begin -->", "<!-- lru-6.14:end -->"
FRONT_BEGIN, FRONT_END = "<!-- boot:begin -->", "<!-- boot:end -->"
BAND = "gtt 1x, PCIe 8 GB/s"
# (policy, baseline) pairs the text quotes, with their names there
PAIRS = [("6.14:lru", "lru", "6.14 vs 6.12 (the regression)"),
         ("6.14+fix:lru", "6.14:lru", "the fix vs 6.14"),
         ("6.14+fix:lru", "lru", "the fix vs 6.12"),
         ("6.14:window", "6.14:lru", "window on 6.14 vs 6.14"),
         ("6.14+fix:window", "6.14:lru", "fix + window vs 6.14"),
         ("window", "lru", "window vs 6.12")]


def die(msg):
    numbers_text.die("lru-614.py", msg)


def load(path):
    return numbers_text.load_json("lru-614.py", path)


def name(trace):
    return re.sub(r"\.(bin|vrl)$", "", trace)


def collect(a):
    j = load(a.decide)
    if j.get("schema") != "vramlab-decide" or j.get("version") != 2:
        die(f"{a.decide}: not a version-2 `vramlab decide --json` result")
    bases = [b["policy"] for b in j["config"].get("baselines", [])]
    if bases[:2] != ["lru", "6.14:lru"]:
        die(f"{a.decide}: the baselines are {bases}, not lru and 6.14:lru")
    band = {(r["group"], r["vram_mib"], r["policy"], r["baseline"]): r for r in j["summary"]
            if r["band"]["label"] == BAND}
    verdict = {(v["group"], v["vram_mib"], v["policy"], v["baseline"]): v for v in j["verdicts"]}
    rows = []
    for (g, mib, pol, base), v in verdict.items():
        if (pol, base) not in {(p, b) for p, b, _ in PAIRS} or g == "corpus":
            continue
        r = band.get((g, mib, pol, base))
        if r is None:
            die(f"{a.decide}: no {BAND} row for {g} {mib} MiB {pol} vs {base}")
        t = r["transfer_change_pct"]
        per = sorted(r["per_trace"], key=lambda x: x["median"])
        rows.append({"group": g, "vram_mib": mib, "policy": pol, "baseline": base,
                     "median": t["median"], "q1": t["q1"], "q3": t["q3"],
                     "verdict": v["verdict"],
                     "worse5": sum(x["median"] > 5 for x in per),
                     "better5": sum(x["median"] < -5 for x in per),
                     "worst": [name(per[-1]["trace"]), per[-1]["median"]],
                     "best": [name(per[0]["trace"]), per[0]["median"]]})
    traces = {g: sum(1 for t in j["traces"] if (t["group"] == "live") == (g == "live")
                     and (g != "clean" or t["clean"])) for g in ("clean", "live")}
    out = {"policies": j["config"]["policies"], "baselines": bases,
           "vram_mib": j["config"]["vram_mib"], "live_vram_mib": j["config"]["live_vram_mib"],
           "replays": j.get("replays"), "band": BAND, "ensemble": j["config"]["ensemble"],
           "on_destroyed": j["config"]["on_destroyed"], "traces": traces,
           "bands": [b["label"] for b in j["config"]["bands"]], "rows": rows}
    safe.write_text(a.out, json.dumps(out, indent=1) + "\n")


def pct(x):
    return f"{0.0 if abs(x) < 0.05 else x:+.1f}%"  # no "-0.0%"


def readme_block(n):
    rows = {(r["group"], r["vram_mib"], r["policy"], r["baseline"]): r for r in n["rows"]}
    lines = []
    for g, title in (("clean", f"{n['traces']['clean']} clean shared traces"),
                     ("live", f"{n['traces']['live']} live traces")):
        sizes = sorted({r["vram_mib"] for r in n["rows"] if r["group"] == g})
        lines.append(f"| {title} | " + " | ".join(f"{s} MiB" for s in sizes) + " |")
        lines.append("|---|" + "---|" * len(sizes))
        for pol, base, name in PAIRS:
            cells = []
            for s in sizes:
                r = rows.get((g, s, pol, base))
                if r is None:
                    die(f"numbers: no row {g} {s} MiB {pol} vs {base}")
                cell = f"{pct(r['median'])} {r['verdict']}"
                if (pol, base) == ("6.14:lru", "lru"):
                    cell = (f"**{pct(r['median'])}** [{pct(r['q1'])}, {pct(r['q3'])}] "
                            f"{r['verdict']}; {r['worse5']} / {r['better5']}; worst "
                            f"{r['worst'][0]} {pct(r['worst'][1])}")
                cells.append(cell)
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(f"Transfer time, change against the baseline named (positive = worse): the "
                 f"median over an ensemble of {n['ensemble']} boards at the model's GTT charge "
                 f"and PCIe 8 GB/s, then the verdict over all "
                 f"{len(n['bands'])} cost bands; for the regression also its quartiles, the "
                 f"traces whose own median is more than 5% worse / better, and the worst trace "
                 f"(`kernel/results/lru-6.14.json`, from `make decide DECIDE_DESTROYED="
                 f"{n['on_destroyed']} DECIDE_VRAM=32,64,128,256 DECIDE_LIVE_VRAM=6,8,12,16,32`).")
    return "\n".join(lines)


# The front page's answer: (kernel you run, what to boot, policy, baseline, what the row is
# against); None = the reference row.
# The 6.14-7.2 rows are the model's drm_exec path, which the KUnit replay proves on 7.2.13's own
# code (make -C kernel replay-7.2), window eviction included (the series' patches 2-drm-misc
# 0003-0004, with the fixes).
BOOT = [("6.12 LTS", "nothing (stock: LRU order)", None, None, ""),
        ("6.12 LTS", "`radeon.evict_window=1024` (window eviction, opt-in)", "window", "lru",
         "stock 6.12"),
        ("6.14 to 7.2", "nothing (stock: least recently placed)", "6.14:lru", "lru",
         "stock 6.12"),
        ("6.14 to 7.2", "**the two fixes** (`patches/linux-7.2/`; `vramlab-hw fix-module`)",
         "6.14+fix:lru", "6.14:lru", "stock 7.2"),
        ("6.14 to 7.2", "the series and `radeon.evict_window=1024` (window eviction, opt-in)",
         "6.14+fix:window", "6.14:lru", "stock 7.2")]


def span(rows):
    """min..max of the medians and how many sizes each verdict had."""
    if not rows:
        die("numbers: no rows for a front-page cell")
    lo, hi = min(r["median"] for r in rows), max(r["median"] for r in rows)
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    order = ["robust win", "mixed", "neutral", "loss"]
    verd = ", ".join(f"{counts[v]} {v}" for v in order if v in counts)
    return f"{pct(lo)} to {pct(hi)}; {verd}" if lo != hi else f"{pct(lo)}; {verd}"


def front_block(n):
    rows = n["rows"]
    sizes = {g: sorted({r["vram_mib"] for r in rows if r["group"] == g}) for g in ("clean", "live")}
    def cell(g, pol, base):
        if pol is None:
            return "the reference"
        return span([r for r in rows if r["group"] == g and r["policy"] == pol
                     and r["baseline"] == base])
    lines = ["| you run | boot | against | "
             f"{n['traces']['clean']} clean game traces, {sizes['clean'][0]}-{sizes['clean'][-1]} MiB | "
             f"{n['traces']['live']} live programs, {sizes['live'][0]}-{sizes['live'][-1]} MiB |",
             "|---|---|---|---|---|"]
    for kern, boot, pol, base, against in BOOT:
        lines.append(f"| {kern} | {boot} | {against} | {cell('clean', pol, base)} | "
                     f"{cell('live', pol, base)} |")
    lines += ["", f"Modelled transfer time (time moving buffers plus GPU reads from GTT), change "
              f"against the kernel named, **negative = better**: the range of the medians over "
              f"the VRAM sizes (ensembles of {n['ensemble']} boards, in the band "
              f"\"{n['band']}\": GTT reads at PCIe speed), then "
              f"how many sizes had each verdict over all {len(n['bands'])} cost bands. From "
              f"`kernel/results/lru-6.14.json` (`make -C kernel lru-numbers`); every row by size: "
              f"`docs/linux-6.14.md`."]
    return "\n".join(lines)


def patch_block(n):
    rows = {(r["group"], r["vram_mib"], r["policy"], r["baseline"]): r for r in n["rows"]}
    def reg(g):
        return [rows[k] for k in sorted(rows) if k[0] == g and k[2:] == ("6.14:lru", "lru")]
    out = ["Measured with vramlab's model of radeon and TTM, which a KUnit replay of",
           "the same traces through this kernel's own radeon and TTM code (v7.2.13,",
           "with and without this fix and the next) matches counter for counter:",
           "the change of modelled transfer time without the fix, median of",
           f"{n['ensemble']} board variations, GTT reads charged at PCIe 2.0 speed,",
           "positive = worse:", ""]
    for g, name in (("clean", f"{n['traces']['clean']} game traces of a 2014 study"),
                    ("live", f"{n['traces']['live']} Mesa r600g captures of GL programs")):
        out.append(f"  {name}:")
        for r in reg(g):
            out.append(f"    {r['vram_mib']:>3} MiB VRAM  {pct(r['median']):>7}  "
                       f"({r['worse5']} >5% worse, {r['better5']} better; "
                       f"worst {r['worst'][0]} {pct(r['worst'][1])})")
    out += ["", "In parentheses: the traces more than 5% worse or better on their own.",
            "With the fix the model gives 6.12's figures again on every trace.",
            "No Radeon card has run this patch or this kernel here."]
    return "\n".join(out)


def replace_between(text, start_re, end_re, body, path):
    m = re.search(start_re, text, re.S)
    e = re.search(end_re, text[m.end():], re.S) if m else None
    if not m or not e:
        die(f"{path}: no block between {start_re!r} and {end_re!r}")
    return text[:m.end()] + body + text[m.end() + e.start():]


def fill(a, which):
    n = load(a.numbers)
    old = numbers_text.read_text("lru-614.py", a.file)
    if which == "readme":
        new = replace_between(old, re.escape(BEGIN), re.escape(END), "\n" + readme_block(n) + "\n",
                              a.file)
    elif which == "front":
        new = replace_between(old, re.escape(FRONT_BEGIN), re.escape(FRONT_END),
                              "\n" + front_block(n) + "\n", a.file)
        # the front page's prose quotes the same table: its counts must be the JSON's
        for quote in (f"{n['ensemble']} boards and {len(n['bands'])} cost bands",
                      f"the {n['traces']['clean']} of the thesis's"):
            if quote not in re.sub(r"\s+", " ", new):
                die(f"{a.file}: the text no longer says \"{quote}\" ({a.numbers} does)")
    else:
        new = replace_between(old, r"\n\n(?=Measured |@MEASURED@)", r"\n\nFixes: ",
                              patch_block(n), a.file)
    numbers_text.write_or_check("lru-614.py", a.file, old, new, a.check,
                                f"{a.file}: up to date with {a.numbers}",
                                f"{a.file}: not up to date with {a.numbers} (run without --check)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("collect")
    p.add_argument("decide")
    p.add_argument("out")
    for cmd in ("readme", "front", "patch"):
        p = sub.add_parser(cmd)
        p.add_argument("file")
        p.add_argument("numbers")
        p.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.cmd == "collect":
        collect(a)
    else:
        fill(a, a.cmd)


if __name__ == "__main__":
    main()
