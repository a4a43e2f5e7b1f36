#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""folds.py: the predicted window's constants chosen with each game left out (issue 50).

Two pairs of constants were chosen on the whole corpus: `--constants size-reads` (the
default), window-predict's size exponent (0, 1/2 or 1) and predicted admission's read weight
(1 or 2), scored on window-predict+admit; `--constants gap`, the gap prediction's ratio (3 or
4) and its counter's threshold (0 = always, 1, 2), scored on window-predict; `--constants
overdue`; `--constants predictor`, the plain prediction's uses before a period (2, 3, 4) and
its change of regime (16, 64, 256); and `--constants escalate-move` (a bounded scan's
escalation, 0 or 4096 entries, and
a move's fixed cost in pages in the victims' order, 0, 40 or 128; `--constants escalate`,
the escalation alone); `--constants unused`, the submissions after which a BO never named
since its creation is the first victim (0 = off, 64, 256, 1024; an opt-in, off as shipped). Here each pair
is chosen again once per game, on the other games only, and the game left out is scored with
the choice it never saw: leave-one-game-out folds. A game is a trace's name without its take
number (nexuiz1 and nexuiz2 are one game).

    folds.py --vramlab harness/build/vramlab --out DIR
             [--constants size-reads|gap|overdue|predictor|escalate-move|escalate|unused]
             [--ensemble 4] [--vram 32,64,128,256] [--gtt-cost 0.1,1,4] TRACE...

For every setting, one `vramlab sim --model kernel --ensemble N` of lru and the policy
(DIR/setting-A-B.json, DIR/gap-A-B.json, reused when it exists and matches the run); then
the folds. A setting's training score is the mean, over sizes and GTT bands, of the median
over the training traces of each trace's median change against lru (lower is better). Writes
DIR/folds.json and prints each game's choice, then per size and GTT band the median over the
traces of their change with the setting their own fold chose, beside the shipped setting's
(exponent 1/2, two reads; ratio 4, threshold 2): the constants' honest figures.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import vramlab_safe_write as safe  # noqa: E402

# Per pair of constants: the policy scored, the alternatives measured when the constants were
# chosen, the shipped setting, the sim options, the runs' file prefix and the shipped words
Constants = collections.namedtuple("Constants",
                                   "policy settings shipped options prefix shipped_words")
CONSTANTS = {
    # (size exponent in halves, reads)
    "size-reads": Constants("window-predict+admit", [(e, r) for e in (0, 1, 2) for r in (1, 2)], (1, 2),
                   ("--predict-size-exp", "--admit-reads"), "setting",
                   "size exponent 1/2, two reads"),
    # (gap ratio, counter threshold)
    "gap": Constants("window-predict", [(g, t) for g in (3, 4) for t in (0, 1, 2)], (4, 1),
            ("--predict-gap-ratio", "--predict-gap-trust"), "gap", "gap ratio 4, threshold 1"),
    # (an overdue BO idle past its bursts' intervals: one gap ahead or as far as idle, the
    # counter's threshold)
    "overdue": Constants("window-predict", [(o, t) for o in ("idle", "gap") for t in (1, 2)], ("gap", 1),
                ("--predict-overdue", "--predict-gap-trust"), "overdue",
                "overdue one gap ahead, threshold 1"),
    # (a scan bounded without a window: the walk (0) or on to 4096 entries; pages a move's
    # fixed cost adds to each size in the victims' order)
    "escalate-move": Constants("window-predict", [(e, m) for e in (0, 4096) for m in (0, 40, 128)],
                      (4096, 0), ("--predict-escalate", "--predict-move-pages"), "escalate",
                      "escalate to 4096, no move pages"),
    # The plain prediction's (uses before a BO's mean interval is its period: 2, 3 or 4; a last
    # interval this many times shorter is a change of regime: 16, 64 or 256), chosen one trace
    # at a time on bastion1 and stargazer1 (docs/window-predict.md, "The rule")
    "predictor": Constants("window-predict", [(u, g) for u in (2, 3, 4) for g in (16, 64, 256)],
                  (3, 64), ("--predict-trusted", "--predict-regime"), "predictor",
                  "a period after 3 uses, a regime change at a 64th"),
    # A BO never named since its creation, for this many submissions, goes first (0: off, the
    # shipped; 64, 256, 1024), with the shipped escalation
    "unused": Constants("window-predict", [(u, 4096) for u in (0, 64, 256, 1024)], (0, 4096),
               ("--predict-unused", "--predict-escalate"), "unused",
               "no never-named rule"),
    # The escalation alone (no move pages): two settings, cheap enough for 16 boards
    "escalate": Constants("window-predict", [(0, 0), (4096, 0)], (4096, 0),
                 ("--predict-escalate", "--predict-move-pages"), "escalate",
                 "escalate to 4096"),
}
DEFAULT = CONSTANTS["size-reads"]
POLICY = DEFAULT.policy  # the default pair's policy (load_run()'s)


def game_of(trace):
    """nexuiz1.bin -> nexuiz, fr-063_1.bin -> fr-063: the name without its take number."""
    stem = os.path.basename(trace)
    stem = stem[:stem.index(".")] if "." in stem else stem
    game = re.sub(r"_?\d+$", "", stem)
    return game or stem


def name(setting, spec=DEFAULT):
    return f"{spec.prefix}-{setting[0]}-{setting[1]}"


def load_run(path, policy=POLICY):
    """One sim --ensemble JSON: {(trace, vram, gtt_factor): median change %} for `policy`."""
    try:
        with open(path, encoding="utf-8") as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: cannot read: {e}")
    out = {}
    try:
        # the clean corpus (no impossible creates) when the run has one, as the docs report
        groups = {s["group"] for s in j["summary"]}
        group = "clean" if "clean" in groups else "corpus"
        for s in j["summary"]:
            if s["policy"] != policy or s["baseline"] != "lru" or s["group"] != group:
                continue
            for t in s["per_trace"]:
                key = (t["trace"], int(s["vram_mib"]), float(s["band"]["gtt_factor"]))
                out[key] = float(t["median"])
    except (KeyError, TypeError, ValueError) as e:
        raise SystemExit(f"{path}: not a sim --ensemble result with {policy} against lru: {e!r}")
    if not out:
        raise SystemExit(f"{path}: no {policy} rows")
    return out


def run_setting(a, spec, setting, traces):
    path = os.path.join(a.out, name(setting, spec) + ".json")
    meta_path = path + ".args"
    args = [a.vramlab, "sim", "--model", "kernel", "--policies", f"lru,{spec.policy}",
            "--vram", a.vram, "--ensemble", str(a.ensemble), "--gtt-cost", a.gtt_cost,
            "--on-destroyed", "repair", spec.options[0], str(setting[0]),
            spec.options[1], str(setting[1]), "--quiet", "--json", path] + traces
    if os.path.exists(path) and os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            if f.read() == json.dumps(args[1:]):
                return load_run(path, spec.policy)
    print(f"folds: {name(setting, spec)}: {' '.join(args[1:6])} ... ({len(traces)} traces)",
          file=sys.stderr, flush=True)
    r = subprocess.run(args, stdout=subprocess.DEVNULL, check=False)
    if r.returncode:
        raise SystemExit(f"folds: {name(setting, spec)}: vramlab exited {r.returncode}")
    safe.write_text(meta_path, json.dumps(args[1:]))
    return load_run(path, spec.policy)


def score(rows, traces):
    """Mean over cells (size, band) of the median over `traces` of their changes."""
    cells = sorted({(v, g) for (_, v, g) in rows})
    meds = []
    for v, g in cells:
        vals = [rows[(t, v, g)] for t in traces if (t, v, g) in rows]
        if vals:
            meds.append(statistics.median(vals))
    return statistics.fmean(meds) if meds else float("inf")


def folds(runs, spec=DEFAULT):
    """runs: {setting: rows}. One fold per game: the setting the other games choose."""
    traces = sorted({t for rows in runs.values() for (t, _, _) in rows})
    games = sorted({game_of(t) for t in traces})
    if len(games) < 2:
        raise SystemExit("folds: at least two games are needed")
    out = []
    for g in games:
        held = [t for t in traces if game_of(t) == g]
        train = [t for t in traces if game_of(t) != g]
        scores = {s: score(rows, train) for s, rows in runs.items()}
        best = min(sorted(scores), key=lambda s: scores[s])
        out.append({"game": g, "traces": held, "chosen": list(best),
                    "train_score": {name(s, spec): round(v, 4)
                                    for s, v in sorted(scores.items())},
                    "held_out": {name(s, spec): {f"{v}M x{f:g}": rows[(t, v, f)]
                                                 for (t, v, f) in sorted(rows) if t in held}
                                 for s, rows in runs.items() if s in (best, spec.shipped)}})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vramlab", required=True)
    ap.add_argument("--out", required=True, help="directory for the runs and folds.json")
    ap.add_argument("--constants", choices=sorted(CONSTANTS), default="size-reads",
                    help="which pair of constants to fold (default: size-reads)")
    ap.add_argument("--ensemble", type=int, default=4)
    ap.add_argument("--vram", default="32,64,128,256")
    ap.add_argument("--gtt-cost", default="0.1,1,4")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    if not 1 <= a.ensemble <= 16:
        ap.error("--ensemble: 1..16")
    spec = CONSTANTS[a.constants]
    shipped = spec.shipped
    safe.check_makedirs(a.out)
    os.makedirs(a.out, exist_ok=True)
    runs = {s: run_setting(a, spec, s, a.traces) for s in spec.settings}
    result = folds(runs, spec)
    shipped_chosen = sum(1 for f in result if tuple(f["chosen"]) == shipped)
    # Each trace scored by the setting its fold chose, against the shipped setting: the
    # median over the traces per size and band, as the decision table's cells
    chosen_of = {t: tuple(f["chosen"]) for f in result for t in f["traces"]}
    cells = sorted({(v, g) for rows in runs.values() for (_, v, g) in rows})
    table = []
    for v, g in cells:
        folded = [runs[chosen_of[t]][(t, v, g)] for t in chosen_of if (t, v, g) in runs[shipped]]
        kept = [runs[shipped][(t, v, g)] for t in chosen_of if (t, v, g) in runs[shipped]]
        table.append({"vram_mib": v, "gtt_factor": g,
                      "folds_median_pct": round(statistics.median(folded), 4),
                      "shipped_median_pct": round(statistics.median(kept), 4),
                      "folds_worst_pct": round(max(folded), 4),
                      "shipped_worst_pct": round(max(kept), 4)})
    print(f"{'game':16} {'chosen on the others':22}")
    for f in result:
        print(f"{f['game']:16} {name(tuple(f['chosen']), spec):22}")
    print(f"\n{'VRAM':>6} {'GTT':>5} {'folds: median':>14} {'shipped':>9} "
          f"{'folds: worst trace':>19} {'shipped':>9}")
    for r in table:
        print(f"{r['vram_mib']:>5}M {r['gtt_factor']:>4g}x {r['folds_median_pct']:>+13.1f}% "
              f"{r['shipped_median_pct']:>+8.1f}% {r['folds_worst_pct']:>+18.1f}% "
              f"{r['shipped_worst_pct']:>+8.1f}%")
    print(f"folds: {shipped_chosen} of {len(result)} folds choose the shipped setting "
          f"({spec.shipped_words})")
    out_name = "folds.json" if a.constants == "size-reads" else f"folds-{a.constants}.json"
    safe.write_text(os.path.join(a.out, out_name),
                    json.dumps({"settings": [name(s, spec) for s in spec.settings],
                                "shipped": name(shipped, spec), "ensemble": a.ensemble,
                                "constants": a.constants, "policy": spec.policy,
                                "cells": table, "folds": result}, indent=1) + "\n")

if __name__ == "__main__":
    main()
