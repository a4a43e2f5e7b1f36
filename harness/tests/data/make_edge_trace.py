#!/usr/bin/python3
"""Writes edge-cases.raw: a small hand-made v2.1 trace (uncompressed) of what the
kernel model must get right beyond what game traces exercise: a zero-size create,
a buffer larger than VRAM, GTT-only and VRAM|GTT buffers, a buffer named twice
in one CS with two scores, a CS naming a refused buffer and one with a CPU
domain (both rejected), CPU maps, high relocation priorities, destroys under
pressure.  `vramlab trace convert edge-cases.raw edge-cases.vrl` compresses it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace21 import CPU, GTT, VRAM, Trace  # noqa: E402

t = Trace(b"application=edge-cases\nsource=harness/tests/data/make_edge_trace.py\n")
rec, create, cs = t.rec, t.create, t.cs
K, M = 1024, 1024 * 1024
a = create(1 * M)
zero = create(0)
g = create(256 * K, GTT)
vg = create(2 * M, VRAM | GTT)
b = create(4 * M)
mid = create(600 * K)
huge = create(64 * M)
cs([(a, VRAM, 0, 3), (b, 0, VRAM, 0), (mid, VRAM, 0, 0), (g, 0, GTT, 1),
    (vg, VRAM | GTT, 0, 0)], [0x10000000, 0xFFFFFFFF, 0x80000000, 5, 7])
cs([(a, VRAM, 0, 0), (a, 0, VRAM, 2), (huge, VRAM, 0, 0)], [9, 0xF0000000, 1])
cs([(zero, VRAM, 0, 0)])
cs([(b, CPU, 0, 0)])
rec(4, b)
rec(4, g)
rec(3, mid)
c = create(1 * M)
bufs = [a, vg, b, huge, c]
for i in range(40):
    rel = []
    for j, bid in enumerate(bufs):
        if (i + j) % 3 == 0:
            continue
        rel.append((bid, VRAM, VRAM if (i + j) % 4 == 0 else 0, (i * 7 + j) % 16))
    cs(rel, [(i * 0x9E3779B9 + j * 0x7F4A7C15) & 0xFFFFFFFF for j in range(len(rel))]
       if i % 2 else None)
    if i == 20:
        d = create(3 * M)
        bufs.append(d)
    if i == 30:
        rec(3, vg)
        bufs.remove(vg)
rec(5)  # FRAME
t.write(sys.argv[1] if len(sys.argv) > 1 else "edge-cases.raw")
