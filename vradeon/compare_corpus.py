#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compare two recordings of the live corpus, e.g. through Mesa 22.3 and through Mesa 25.

usage: compare_corpus.py VRAMLAB OLD_DIR NEW_DIR [--md FILE] [--json FILE]

Pairs the traces of OLD_DIR and NEW_DIR by program (the file name before "-barts"), reads
what each program did (`vramlab trace stats`: buffers, submissions, CPU maps, frames) and
replays both at the VRAM size the NEW trace was recorded at in the kernel model, stock 6.12
(lru) and the 6.14-7.2 path (6.14:lru): bytes allocated, evictions and MiB evicted per frame,
modelled transfer time per frame.  Prints a table; --md writes it as Markdown, --json every
figure.  A trace in one directory only is listed, never silently dropped.
"""

import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "harness", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)

POLICIES = ("lru", "6.14:lru")


def die(msg):
    print(f"compare_corpus: {msg}", file=sys.stderr)
    sys.exit(2)


def traces(d):
    out = {}
    for f in sorted(os.listdir(d)):
        m = re.match(r"(.+?)-barts-(\d+)mib\.vrl$", f)
        if m:
            out[m.group(1)] = (os.path.join(d, f), int(m.group(2)))
    if not out:
        die(f"{d}: no NAME-barts-NMIB.vrl traces")
    return out


def run_json(cmd):
    """The JSON a vramlab command prints on stdout."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def figures(vramlab, path, vram):
    st = run_json([vramlab, "trace", "stats", "--json", path])["traces"][0]
    sim = run_json([vramlab, "sim", "--model", "kernel", "--quiet", "--threads", "1",
                    "--policies", ",".join(POLICIES), "--vram", str(vram), "--json", "-", path])
    fig = {k: st[k] for k in ("buffers", "cs", "cpu_ops", "frames", "reads", "writes")}
    fig["file_bytes"] = os.path.getsize(path)
    frames = max(st["frames"], 1)
    for r in sim["results"]:
        p = r["policy"]
        fig["allocated_mib"] = r["mem"]["system"]["bytes_out"] / 2**20
        fig[p] = {
            "evictions": r["evictions"],
            "evictions_per_frame": r["evictions"] / frames,
            "mib_evicted_per_frame": r["evicted_bytes"] / 2**20 / frames,
            "transfer_ms_per_frame": r["transfer_ms"] / frames,
        }
    return fig


def pct(old, new):
    if old == 0:
        return "new" if new else "="
    return f"{100.0 * (new - old) / old:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vramlab")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--md")
    ap.add_argument("--json")
    a = ap.parse_args()
    old, new = traces(a.old), traces(a.new)
    rows, out = [], {}
    for name in sorted(set(old) | set(new)):
        if name not in old or name not in new:
            rows.append(f"| {name} | only in {'the new' if name in new else 'the old'} recording |"
                        + " |" * 9)
            continue
        vram = new[name][1]
        o = figures(a.vramlab, old[name][0], vram)
        n = figures(a.vramlab, new[name][0], vram)
        out[name] = {"vram_mib": vram, "old": o, "new": n}
        cells = [f"{name}", f"{vram}",
                 f"{o['buffers']} → {n['buffers']} ({pct(o['buffers'], n['buffers'])})",
                 f"{o['cs']} → {n['cs']} ({pct(o['cs'], n['cs'])})",
                 f"{o['frames']} → {n['frames']}",
                 f"{o['allocated_mib']:.1f} → {n['allocated_mib']:.1f} "
                 f"({pct(o['allocated_mib'], n['allocated_mib'])})"]
        for p in POLICIES:
            cells.append(f"{o[p]['evictions_per_frame']:.2f} → {n[p]['evictions_per_frame']:.2f}")
            cells.append(f"{o[p]['mib_evicted_per_frame']:.3f} → {n[p]['mib_evicted_per_frame']:.3f}")
        rows.append("| " + " | ".join(cells) + " |")
        print(f"{name}: done", file=sys.stderr)
    head = ("| program | MiB | buffers | submissions | frames | MiB allocated | "
            "evictions/frame 6.12 | MiB out/frame 6.12 | evictions/frame 6.14-7.2 | "
            "MiB out/frame 6.14-7.2 |\n|" + "---|" * 10)
    table = head + "\n" + "\n".join(rows) + "\n"
    print(table, end="")
    try:
        if a.md:
            safe.write_text(a.md, table)
        if a.json:
            safe.write_text(a.json, json.dumps(out, indent=1, sort_keys=True) + "\n")
    except safe.CannotWrite as e:
        die(str(e))


if __name__ == "__main__":
    main()
