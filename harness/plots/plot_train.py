#!/usr/bin/python3
"""Plots `vramlab train --json` logs: best and mean fitness per generation (left), and best
fitness against CPU hours (right), one line per log, so that optimizers run on the same budget
can be compared side by side. Fitness: 1 is LRU, lower is better (docs/training.md). Runs
with Debian's python3 (python3-matplotlib). Usage: plot_train.py OUT.png LOG.json..."""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    for path in sys.argv[2:]:
        try:
            with open(path) as f:
                j = json.load(f)
            gens = j["generations"]
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"{path}: not a vramlab train log: {e}")
        label = f'{j["method"]} (seed {j["seed"]})'
        g = [x["generation"] for x in gens]
        best = [x["best"] for x in gens]
        mean = [x["mean"] if x["mean"] is not None else math.nan for x in gens]
        line, = ax1.plot(g, best, label=f"{label} best")
        ax1.plot(g, mean, linestyle=":", color=line.get_color(), label=f"{label} mean of survivors")
        ax2.plot([x["cpu_seconds"] / 3600 for x in gens], best, color=line.get_color(), label=label)
    for ax in (ax1, ax2):
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_ylabel("fitness (LRU = 1, lower is better)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    ax1.set_xlabel("generation (NLopt: every population/2 evaluations)")
    ax2.set_xlabel("CPU hours")
    ax1.set_title("training progress")
    ax2.set_title("best network per CPU hour")
    fig.tight_layout()
    try:
        safe.savefig(fig, sys.argv[1], dpi=100)
    except OSError as e:
        sys.exit(f"plot_train.py: {e}")
    print(f"plot: {sys.argv[1]}")


if __name__ == "__main__":
    main()
