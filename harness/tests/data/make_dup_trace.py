#!/usr/bin/python3
"""Writes duplicates.raw: a small hand-made v2.1 trace (uncompressed) of submissions that
name a buffer twice, the one input on which Linux 6.12's and 6.14's submission paths differ
beyond the LRU order (6.12 validates a buffer's first entry only, 6.14 every entry; the fix
moves every entry to the LRU tail): the same domain twice around another buffer of the same
size (A, B, A), VRAM then GTT, GTT then a VRAM write, under pressure from buffers created and
destroyed as it goes.  `vramlab trace convert duplicates.raw duplicates.vrl` compresses it.
Mesa's winsys never names a buffer twice; this is what another client of the ioctl can do.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace21 import GTT, VRAM, Trace  # noqa: E402

t = Trace(b"application=duplicates\nsource=harness/tests/data/make_dup_trace.py\n")
rec, create = t.rec, t.create


def cs(relocs):
    t.cs(relocs)  # no score chunk


K = 1024
a, b = create(256 * K), create(256 * K)
c = create(512 * K)
d = create(1024 * K)
g = create(128 * K, GTT)
fill = []
for i in range(60):
    cs([(a, VRAM, 0, 0), (b, VRAM, 0, 0), (a, VRAM, 0, 0)])      # A, B, A: same size
    if i % 2:
        cs([(c, VRAM, 0, 0), (c, GTT, 0, 0), (d, VRAM, 0, 0)])   # VRAM, then GTT
    else:
        cs([(g, GTT, 0, 0), (g, 0, VRAM, 1), (d, VRAM, 0, 0)])   # GTT, then a VRAM write
    fill.append(create((256 + 128 * (i % 4)) * K))             # pressure
    cs([(f, VRAM, 0, 0) for f in fill[-3:]])
    if len(fill) > 6:
        rec(3, fill.pop(0))
    if i % 10 == 9:
        rec(5)  # FRAME
t.write(sys.argv[1] if len(sys.argv) > 1 else "duplicates.raw")
