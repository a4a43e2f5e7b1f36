#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Bring a live trace's description (traces/live/NAME.md) up to date with its recording.

usage: describe.py VRAMLAB NAME.md TRACE COUNTERS.json MESA_VERSION PATCHES SECONDS

Rewrites the bullets a recording decides and leaves the rest (what the program is, the notes,
the command) as written: "**Driver:**" (Mesa MESA_VERSION with the series
`patches/PATCHES-fixes` and `patches/PATCHES`), "**GPU id:**" (the trace header's KMS
version), "**Contents:**" (`vramlab trace stats`: buffers, submissions, relocations, CPU maps,
frames, file bytes) and "**The live run at N MiB**" (the live counters: evictions, MiB out of
VRAM, modelled transfer, the recording time). The file is replaced whole or not at all.
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "harness",
                                "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)


def die(msg):
    print(f"describe.py: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout


def n(x):
    return f"{x:,}"


def bullets(text):
    """The file as (head, [bullet, ...], tail): a bullet is a '- ' line and its indented lines."""
    lines = text.split("\n")
    first = next((i for i, l in enumerate(lines) if l.startswith("- ")), None)
    if first is None:
        die("no bullet list")
    out, i = [], first
    while i < len(lines) and lines[i].startswith("- "):
        b = [lines[i]]
        i += 1
        # indented lines, and blank lines inside the bullet (before its code block)
        while i < len(lines) and (lines[i].startswith("  ") or
                                  (lines[i] == "" and i + 1 < len(lines) and
                                   lines[i + 1].startswith("  "))):
            b.append(lines[i])
            i += 1
        out.append(b)
    return lines[:first], out, lines[i:]


def main():
    if len(sys.argv) != 8:
        die(__doc__.strip().split("\n")[2])
    vramlab, md, trace, counters, mesa, patches, seconds = sys.argv[1:]
    st = json.loads(run([vramlab, "trace", "stats", "--json", trace]))["traces"][0]
    kms = re.search(r"^# kms: (\S+)$", run([vramlab, "trace", "show", trace]), re.M)
    if not kms:
        die(f"{trace}: no KMS version in its header")
    try:
        with open(counters) as f:
            live = json.load(f)
        live = {k: live[k] for k in ("evictions", "evicted_bytes", "transfer_ms")}
    except (OSError, ValueError, KeyError, TypeError) as e:
        die(f"{counters}: not the live counters of a run ({e})")
    size = re.search(r"-(\d+)mib\.vrl$", trace)
    if not size:
        die(f"{trace}: not named NAME-barts-NMIB.vrl")
    if not re.fullmatch(r"\d+", seconds):
        die(f"SECONDS {seconds!r}: not a whole number")
    vram = int(size.group(1))
    driver = (f"- **Driver:** Mesa {mesa} (Debian) with `patches/{patches}-fixes` and "
              f"`patches/{patches}`,\n  r600g, Mesa's scoring on "
              "(`RADEON_BO_SCORE=1`, compiled-in `harness/weights/trained-kernel.txt` weights).")
    gpu = f"- **GPU id:** BARTS (PCI 1002:6720, `RADEON_GPU_ID=BARTS`), KMS {kms.group(1)}."
    contents = (f"- **Contents:** {n(st['buffers'])} buffers, {n(st['cs'])} submissions "
                f"({n(st['reads'] + st['writes'])} relocations), every one with scores,\n"
                f"  {n(st['cpu_ops'])} CPU maps, {n(st['frames'])} frames; "
                f"{n(os.path.getsize(trace))} bytes.")
    run_line = (f"- **The live run at {vram} MiB** (min-max + key): {n(live['evictions'])} evictions, "
                f"{live['evicted_bytes'] / 2**20:.1f} MiB out of VRAM,\n"
                f"  {n(round(live['transfer_ms']))} ms of modelled transfer; live == replayed. "
                f"Recorded in {seconds} s (2 cores).")
    try:
        with open(md) as f:
            head, items, tail = bullets(f.read())
    except (OSError, UnicodeDecodeError) as e:
        die(f"{md}: {e}")
    new, seen = [], set()
    for b in items:
        for key, repl in (("- **Driver:**", driver), ("- **GPU id:**", gpu),
                          ("- **Contents:**", contents), ("- **The live run at", run_line)):
            if b[0].startswith(key):
                b = repl.split("\n")
                seen.add(key)
                # a description written without the live run gets one after the contents
                if key == "- **Contents:**" and not any(
                        x[0].startswith("- **The live run at") for x in items):
                    b += run_line.split("\n")
                break
        new.append(b)
    missing = {"- **Driver:**", "- **GPU id:**", "- **Contents:**"} - seen
    if missing:
        die(f"{md}: no {', '.join(sorted(missing))} bullet")
    try:
        safe.write_text(md, "\n".join(head + [l for b in new for l in b] + tail))
    except safe.CannotWrite as e:
        die(str(e))


if __name__ == "__main__":
    main()
