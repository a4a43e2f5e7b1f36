#!/usr/bin/python3
"""Writes bursts.raw: a small hand-made v2.1 trace (uncompressed) of buffers used in bursts
(four submissions in a row, then a gap of twenty), four groups out of phase, beside buffers
used every third submission, under pressure: the pattern radeon.evict_predict's gap
prediction is for (harness/src/kmodel/reuse.h; spin1 in the shared corpus).  In the 7.2 lab's
replay (kernel/linux-7.2.mk, REPLAY72_TRACES) its predicted cases evict other BOs with the gap
prediction than without it.  `vramlab trace convert bursts.raw bursts.vrl` compresses it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace21 import VRAM, Trace  # noqa: E402

t = Trace(b"application=bursts\nsource=harness/tests/data/make_burst_trace.py\n")
K = 1024
bursty = [t.create(256 * K) for _ in range(8)]
steady = [t.create((128 + 64 * (i % 3)) * K) for i in range(6)]
for n in range(240):
    relocs = []
    for g in range(4):  # group g bursts at submissions 6g .. 6g + 3 of every 24
        if (n - 6 * g) % 24 < 4:
            relocs += [(b, VRAM, 0, 0) for b in bursty[2 * g:2 * g + 2]]
    if n % 3 == 2:
        relocs += [(s, VRAM, 0, 0) for s in steady[(n // 3) % 2::2]]
    if relocs:
        t.cs(relocs)
    if n % 24 == 23:
        t.rec(5)  # FRAME
t.write(sys.argv[1] if len(sys.argv) > 1 else "bursts.raw")
