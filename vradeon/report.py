#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""report.py [-o PREFIX] RUN.json...

Reads the virtual radeon's counters (VRADEON_COUNTERS) of live runs, each named
PROGRAM-VRAM-CONFIG.json (for example openarena-32-minmax+key.json), and writes one table
(stdout, and PREFIX.md), PREFIX.csv, PREFIX.json and PREFIX.png (evictions, MiB moved and
frame-time p99 per program, VRAM size and configuration). Frame times are the shim's model:
the frame's measured CPU time plus the kernel model's transfer time for that frame."""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "harness", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)

COLUMNS = ["program", "vram_mib", "config", "frames", "cs", "evictions", "mib_moved",
           "transfer_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "stutter"]


def load(path):
    name = os.path.basename(path)[:-len(".json")]
    try:
        program, vram, config = name.split("-", 2)
        vram = int(vram)
    except ValueError:
        sys.exit(f"{path}: name it PROGRAM-VRAM-CONFIG.json (VRAM in MiB)")
    try:
        j = json.load(open(path))
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"{path}: {e}")
    if j.get("schema") != "vramlab-kmodel-live":
        sys.exit(f"{path}: not the virtual radeon's counters (schema {j.get('schema')!r})")
    ft = j["frame_times"]
    return {"program": program, "vram_mib": vram, "config": config, "frames": j["frames"],
            "cs": j["cs"], "evictions": j["evictions"],
            "mib_moved": (j["bytes_to_vram"] + j["bytes_from_vram"]) / 2**20,
            "transfer_ms": j["transfer_ms"], "p50_ms": ft["p50_ms"], "p95_ms": ft["p95_ms"],
            "p99_ms": ft["p99_ms"], "max_ms": ft["max_ms"], "stutter": ft["stutter"]}


def table(rows):
    head = ("| program | VRAM | config | frames | evictions | MiB moved | transfer ms "
            "| p50 ms | p95 ms | p99 ms | max ms | stutter |")
    out = [head, "|" + "---|" * 12]
    for r in rows:
        out.append(f"| {r['program']} | {r['vram_mib']} MiB | {r['config']} | {r['frames']} "
                   f"| {r['evictions']:,} | {r['mib_moved']:.1f} | {r['transfer_ms']:.1f} "
                   f"| {r['p50_ms']:.2f} | {r['p95_ms']:.2f} | {r['p99_ms']:.2f} "
                   f"| {r['max_ms']:.1f} | {r['stutter']} |")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted({(r["program"], r["vram_mib"]) for r in rows})
    configs = list(dict.fromkeys(r["config"] for r in rows))
    metrics = [("evictions", "evictions"), ("mib_moved", "MiB moved"),
               ("transfer_ms", "modelled transfer time"), ("p99_ms", "frame time p99")]
    # Relative to the first configuration (lru) of the same program and size: the programs'
    # scales differ by orders of magnitude.
    base = {(r["program"], r["vram_mib"]): r for r in rows if r["config"] == configs[0]}
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.5 * len(metrics), 4))
    width = 0.8 / max(1, len(configs))
    for ax, (key, label) in zip(axes, metrics):
        for k, c in enumerate(configs):
            vals = []
            for g in groups:
                v = next((r[key] for r in rows if (r["program"], r["vram_mib"]) == g
                          and r["config"] == c), 0)
                b = base.get(g, {}).get(key, 0)
                vals.append(v / b if b else 0)
            ax.bar([i + k * width for i in range(len(groups))], vals, width, label=c)
        ax.set_xticks([i + width * (len(configs) - 1) / 2 for i in range(len(groups))])
        ax.set_xticklabels([f"{p}\n{v} MiB" for p, v in groups])
        ax.set_title(f"{label} (x {configs[0]})")
        ax.axhline(1.0, color="grey", linewidth=0.8)
    axes[0].legend()
    fig.suptitle("virtual radeon: live runs through the kernel model")
    fig.tight_layout()
    safe.savefig(fig, path, dpi=100)


def main():
    args = sys.argv[1:]
    prefix = None
    if len(args) >= 2 and args[0] == "-o":
        prefix, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    rows = sorted((load(p) for p in args), key=lambda r: (r["program"], r["vram_mib"], r["config"]))
    text = table(rows)
    print(text)
    if prefix:
        safe.write_text(prefix + ".md", text + "\n")
        with safe.open_output(prefix + ".csv", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)
        with safe.open_output(prefix + ".json") as f:
            json.dump({"schema": "vramlab-vradeon-report", "version": 1, "runs": rows}, f, indent=1)
        plot(rows, prefix + ".png")
        print(f"report: {prefix}.md .csv .json .png")


if __name__ == "__main__":
    main()
