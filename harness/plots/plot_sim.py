#!/usr/bin/python3
"""Plots a `vramlab sim --json` result: cost and evictions of each policy relative to the
baseline (the first policy), per VRAM size, summed over traces. Runs with Debian's python3
(python3-matplotlib). Usage: plot_sim.py RESULT.json OUT.png"""
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        j = json.load(f)
    policies = j["config"]["policies"]
    sizes = j["config"]["vram_mib"]
    cost = defaultdict(int)
    evictions = defaultdict(int)
    for r in j["results"]:
        cost[(r["vram_mib"], r["policy"])] += r["cost"]
        evictions[(r["vram_mib"], r["policy"])] += r["evictions"]
    base = policies[0]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 8), sharex=True)
    width = 0.8 / max(1, len(policies) - 1)
    xs = range(len(sizes))
    for k, p in enumerate(policies[1:]):
        # the change of cost, positive = worse (as every vramlab table)
        change = [100.0 * (cost[(v, p)] - cost[(v, base)]) / cost[(v, base)] if cost[(v, base)] else 0
                  for v in sizes]
        ev = [100.0 * (evictions[(v, p)] - evictions[(v, base)]) / evictions[(v, base)]
              if evictions[(v, base)] else 0 for v in sizes]
        off = [x - 0.4 + width * (k + 0.5) for x in xs]
        ax1.bar(off, change, width, label=p)
        ax2.bar(off, ev, width, label=p)
    ax1.axhline(0, color="black", linewidth=0.8)
    ax2.axhline(0, color="black", linewidth=0.8)
    ax1.set_ylabel(f"cost: % change vs {base} (+ = worse)")
    ax2.set_ylabel(f"evictions: % change vs {base}")
    ax2.set_xticks(list(xs))
    ax2.set_xticklabels([f"{v} MiB" for v in sizes])
    ax2.set_xlabel("VRAM size")
    ax1.legend()
    ax1.set_title(f"{j['config']['traces']} traces, events on destroyed ids: "
                  f"{j['config']['on_destroyed']}")
    fig.tight_layout()
    try:
        safe.savefig(fig, sys.argv[2], dpi=100)
    except OSError as e:
        sys.exit(f"plot_sim.py: {e}")
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
