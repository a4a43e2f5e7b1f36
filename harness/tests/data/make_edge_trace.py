#!/usr/bin/python3
"""Writes edge-cases.raw: a small hand-made v2.1 trace (uncompressed) of what the
kernel model must get right beyond what game traces exercise: a zero-size create,
a buffer larger than VRAM, GTT-only and VRAM|GTT buffers, a buffer named twice
in one CS with two scores, a CS naming a refused buffer and one with a CPU
domain (both rejected), CPU maps, high relocation priorities, destroys under
pressure.  `vramlab trace convert edge-cases.raw edge-cases.vrl` compresses it.
"""
import sys

VRAM, GTT, CPU = 1, 2, 4
out = bytearray()
records = 0


def uleb(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7F | 0x80)
        v >>= 7
    b.append(v)
    return b


def rec(tag, *fields, dt=100):
    global records
    out.append(tag)
    out.extend(uleb(dt))
    for f in fields:
        out.extend(f if isinstance(f, (bytes, bytearray)) else uleb(f))
    records += 1


nid = 0


def create(size, domain=VRAM):
    global nid
    rec(0 | domain << 4, nid, size, 0)
    nid += 1
    return nid - 1


last = {}


def cs(relocs, scores=None):
    """relocs: (id, read, write, prio); scores: list or None."""
    body = bytearray()
    for i, (bid, rd, wd, prio) in enumerate(relocs):
        s = None if scores is None else scores[i]
        changed = s is not None and last.get(bid, 0xFFFFFFFF) != s
        body.extend(uleb(bid))
        body.append(rd | wd << 3 | (0x40 if changed else 0))
        body.append(prio)
        if changed:
            body.extend(uleb(s))
            last[bid] = s
    rec(8, 0, 1 if scores is not None else 0, len(relocs), body)


hdr = b"application=edge-cases\nsource=harness/tests/data/make_edge_trace.py\n"
out += b"vrltrace" + bytes([2, 1]) + len(hdr).to_bytes(4, "little") + hdr
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
out.append(15)
out.extend(uleb(0))
out.extend(uleb(records))
open(sys.argv[1] if len(sys.argv) > 1 else "edge-cases.raw", "wb").write(out)
