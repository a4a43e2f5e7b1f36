#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a vramlab v2 trace (harness/docs/trace-v2.md) written by Mesa's
RADEON_BO_TRACE and print its record counts.  Independent of the harness,
so the Mesa side can be tested on its own; `vramlab trace stats` is the
reference reader.  Reads the uncompressed files Mesa writes (v2.3) and
zstd-compressed ones (older Mesa, `vramlab trace convert`), which need the
zstd command.

usage: check_trace.py TRACE [--frames N] [--min-frames N] [--min-scores N]
                            [--min-cs N] [--scores-every-cs] [--no-scores]
                            [--min-high-prio N] [--truncated | --maybe-truncated]
                            [--same-records-as OTHER]

--frames N: exactly N FRAME records; --scores-every-cs: every CS record says
a score chunk was sent; --no-scores: none does; --min-high-prio N: at least
N buffers used with high priority (v2.2: a relocation with prio bit 4, a
depth/stencil or MSAA use; v2.0-2.1: created with high priority and used).
--truncated: the trace must stop early (a killed program, a full disk):
no END, perhaps a cut record or zstd frame; the counts are those up to its
last complete FRAME record.  --maybe-truncated: either (a program that
may or may not reach its exit handlers).  Otherwise a trace without END is
an error.  --same-records-as OTHER: OTHER (raw or zstd) holds the same
version and byte for byte the same records (the headers may differ): the
harness's writer, fed TRACE's events, codes them as Mesa did.
"""
import subprocess
import sys

NAMES = {0: "create", 1: "read", 2: "write", 3: "destroy", 4: "cpu",
         5: "frame", 6: "score", 7: "context", 8: "cs", 15: "end"}


def fail(path, off, msg):
    sys.exit("%s: offset %d: %s" % (path, off, msg))


class Truncated(Exception):
    pass


def load(path, truncated_ok):
    """The trace's bytes: as they are, or decompressed when zstd made them."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x28\xb5\x2f\xfd":
        # A cut zstd frame decodes up to the cut, and zstd then fails.
        data = subprocess.run(["zstd", "-dcq", path], check=not truncated_ok,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL if truncated_ok else None).stdout
    return data


def records_of(data):
    """What follows the magic, the version and the header."""
    return data[14 + int.from_bytes(data[10:14], "little"):]


def main():
    args = sys.argv[1:]
    path = args[0]
    min_frames = int(args[args.index("--min-frames") + 1]) if "--min-frames" in args else 0
    min_scores = int(args[args.index("--min-scores") + 1]) if "--min-scores" in args else 0
    frames = int(args[args.index("--frames") + 1]) if "--frames" in args else None
    min_cs = int(args[args.index("--min-cs") + 1]) if "--min-cs" in args else 0
    min_high = int(args[args.index("--min-high-prio") + 1]) if "--min-high-prio" in args else 0
    truncated_ok = "--truncated" in args or "--maybe-truncated" in args
    data = load(path, truncated_ok)
    if "--same-records-as" in args:
        other_path = args[args.index("--same-records-as") + 1]
        other = load(other_path, False)
        a, b = records_of(data), records_of(other)
        if data[8:10] != other[8:10] or a != b:
            at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            fail(path, at, "records differ from %s's (versions %s and %s, %d and %d bytes)"
                 % (other_path, data[8:10].hex(), other[8:10].hex(), len(a), len(b)))
    pos = 0

    def uleb():
        nonlocal pos
        v = shift = 0
        for i in range(10):
            if pos >= len(data):
                raise Truncated()
            b = data[pos]
            pos += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return v
        fail(path, pos, "uleb longer than 10 bytes")

    if data[:8] != b"vrltrace":
        fail(path, 0, "bad magic")
    version = int.from_bytes(data[8:10], "little")
    hdr_len = int.from_bytes(data[10:14], "little")
    if version not in (2, 2 | 1 << 8, 2 | 2 << 8, 2 | 3 << 8) or hdr_len > 1 << 20:
        fail(path, 8, "version %d, header %d bytes" % (version, hdr_len))
    header = data[14:14 + hdr_len].decode()
    pos = 14 + hdr_len
    counts = {}
    creates = 0
    dead = set()
    high = set()
    high_used = set()
    cs_scored = cs_unscored = 0
    records = 0
    us = 0
    ended = False
    v23 = version >> 8 >= 3
    last_use = {}  # v2.3: a buffer's last relocation bytes
    prev_score = 0  # v2.3: the last score written

    def buffer_id(bits):
        """v2.3: an id or a count back from the newest buffer (bit 0), above
        `bits` low bits; returns (id, the bits between)."""
        code = uleb()
        if not v23:
            return code, 0
        v = code >> bits
        return (creates - 1 - v if code & 1 else v), (code >> 1) & ((1 << (bits - 1)) - 1)
    try:
        while True:
            off = pos
            if pos >= len(data):
                raise Truncated()
            tag = data[pos]
            pos += 1
            no_dt = v23 and tag & 0x80
            typ, dom = tag & 15, (tag & 0x7f if no_dt else tag) >> 4
            if typ not in NAMES or dom > 7:
                fail(path, off, "corrupt tag 0x%02x" % tag)
            us += 0 if no_dt else uleb()
            if typ == 15:
                count = uleb()
                if count != records:
                    fail(path, off, "END count %d, %d records" % (count, records))
                if pos != len(data):
                    fail(path, pos, "data after END")
                ended = True
                break
            records += 1
            counts[NAMES[typ]] = counts.get(NAMES[typ], 0) + 1
            if typ == 0:
                if v23:
                    # implicit id; size code bit 1 = pages, bit 0 = flags follow
                    bid, code = creates, uleb()
                    flags = uleb() if code & 1 else 0
                else:
                    bid, size, flags = uleb(), uleb(), uleb()
                if bid != creates or flags > 3:
                    fail(path, off, "create id %d (expected %d), flags %d" % (bid, creates, flags))
                if flags & 1:
                    high.add(bid)
                creates += 1
            elif typ in (1, 2, 3, 4, 6):
                bid = buffer_id(1)[0]
                if bid < 0 or bid >= creates or bid in dead:
                    fail(path, off, "%s of id %d (%d creates, dead: %s)" %
                         (NAMES[typ], bid, creates, bid in dead))
                if typ == 3:
                    dead.add(bid)
                if typ == 6 and uleb() > 0xffffffff:
                    fail(path, off, "score above 2^32-1")
            elif typ == 7:
                uleb()
            elif typ == 8:
                ring, flags, n = uleb(), uleb(), uleb()
                if dom or flags > 3 or ring > 4 or n > 1 << 20:
                    fail(path, off, "CS ring %d, flags %d, %d relocations" % (ring, flags, n))
                if flags & 1:
                    cs_scored += 1
                else:
                    cs_unscored += 1
                for _ in range(n):
                    bid, repeat = buffer_id(2)
                    if bid < 0 or bid >= creates or bid in dead:
                        fail(path, off, "CS uses id %d (%d creates, dead: %s)" %
                             (bid, creates, bid in dead))
                    if repeat:
                        # v2.3: the buffer's last relocation again, no score
                        if bid not in last_use:
                            fail(path, off, "CS repeats the last use of id %d, which has none"
                                 % bid)
                        doms, prio = last_use[bid]
                    else:
                        doms, prio = data[pos], data[pos + 1]
                        pos += 2
                        last_use[bid] = (doms & ~0x40, prio)
                    # v2.2: prio bit 4 = a high-priority use (depth/stencil, MSAA).
                    if bid in high or (version >> 8 >= 2 and prio & 0x10):
                        high_used.add(bid)
                    if (doms & 0x80 or prio > (31 if version >> 8 >= 2 else 15)
                            or (doms & 0x40 and not flags & 1)):
                        fail(path, off, "CS relocation domains 0x%x prio %d" % (doms, prio))
                    if doms & 0x40:
                        score = uleb()
                        if v23:
                            # v2.3: zigzag difference from the previous score written
                            score = prev_score + (-(score >> 1) - 1 if score & 1 else score >> 1)
                            prev_score = score
                        if not 0 <= score <= 0xffffffff:
                            fail(path, off, "score %d out of range" % score)
    except (Truncated, IndexError):
        if not truncated_ok:
            fail(path, pos, "truncated (no END)")
        print("%s: stops at offset %d of %d decoded bytes, after %d complete frames"
              % (path, off, len(data), counts.get("frame", 0)))
    if "--truncated" in args and ended:
        sys.exit("%s: has END, expected a trace that stops early" % path)

    print("%s: ok: %d records, %.3f s, header: %s" %
          (path, records, us / 1e6, " ".join(header.split("\n")).strip()))
    print("  " + ", ".join("%s %d" % (k, counts.get(k, 0)) for k in
                           ("create", "read", "write", "cpu", "destroy", "score", "frame",
                            "cs", "context")))
    print("  CS with a score chunk %d, without %d; high-priority buffers used %d"
          % (cs_scored, cs_unscored, len(high_used)))
    if frames is not None and counts.get("frame", 0) != frames:
        sys.exit("%s: %d frames, expected exactly %d" % (path, counts.get("frame", 0), frames))
    if counts.get("cs", 0) < min_cs:
        sys.exit("%s: %d CS records, expected at least %d" % (path, counts.get("cs", 0), min_cs))
    if "--scores-every-cs" in args and (cs_unscored or not cs_scored):
        sys.exit("%s: %d CS records without a score chunk" % (path, cs_unscored))
    if "--no-scores" in args and cs_scored:
        sys.exit("%s: %d CS records with a score chunk" % (path, cs_scored))
    if len(high_used) < min_high:
        sys.exit("%s: %d high-priority buffers used, expected at least %d"
                 % (path, len(high_used), min_high))
    if counts.get("frame", 0) < min_frames:
        sys.exit("%s: %d frames, expected at least %d" % (path, counts.get("frame", 0), min_frames))
    if counts.get("score", 0) < min_scores:
        sys.exit("%s: %d scores, expected at least %d" % (path, counts.get("score", 0), min_scores))


if __name__ == "__main__":
    main()
