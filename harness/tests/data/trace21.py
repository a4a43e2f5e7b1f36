"""A writer of small hand-made vramlab v2.1 traces (uncompressed; harness/docs/trace-v2.md) for
the test data scripts (make_edge_trace.py, make_dup_trace.py) and cli_test.sh."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)

VRAM, GTT, CPU = 1, 2, 4


def uleb(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7F | 0x80)
        v >>= 7
    b.append(v)
    return b


class Trace:
    def __init__(self, header):
        self.out = bytearray(b"vrltrace" + bytes([2, 1]) + len(header).to_bytes(4, "little") +
                             header)
        self.records = 0
        self.nid = 0
        self.last = {}  # the last score written per buffer

    def rec(self, tag, *fields, dt=100):
        self.out.append(tag)
        self.out.extend(uleb(dt))
        for f in fields:
            self.out.extend(f if isinstance(f, (bytes, bytearray)) else uleb(f))
        self.records += 1

    def create(self, size, domain=VRAM, dt=100):
        self.rec(0 | domain << 4, self.nid, size, 0, dt=dt)
        self.nid += 1
        return self.nid - 1

    def cs(self, relocs, scores=None, dt=100):
        """relocs: (id, read, write, prio); scores: a list, or None for no score chunk."""
        body = bytearray()
        for i, (bid, rd, wd, prio) in enumerate(relocs):
            s = None if scores is None else scores[i]
            changed = s is not None and self.last.get(bid, 0xFFFFFFFF) != s
            body.extend(uleb(bid))
            body.append(rd | wd << 3 | (0x40 if changed else 0))
            body.append(prio)
            if changed:
                body.extend(uleb(s))
                self.last[bid] = s
        self.rec(8, 0, 1 if scores is not None else 0, len(relocs), body, dt=dt)

    def write(self, path):
        self.out.append(15)
        self.out.extend(uleb(0))
        self.out.extend(uleb(self.records))
        safe.write_bytes(path, bytes(self.out))
