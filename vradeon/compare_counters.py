#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""compare_counters.py LIVE.json REPLAY.json [--frames N]

LIVE is what the virtual radeon's kernel model counted while the program ran
(VRADEON_COUNTERS); REPLAY is `vramlab sim --model kernel --json` of the kernel-view trace
the same run recorded (VRADEON_TRACE), one result. Every figure must be equal; with
--frames N, the live run must also have counted N frames (those of Mesa's own trace)."""
import json
import sys

KEYS = ["evictions", "evicted_bytes", "bytes_to_vram", "bytes_from_vram", "moves", "cs",
        "cs_rejected", "creates", "creates_refused", "cpu_maps", "destroys", "frames",
        "gtt_accesses", "gtt_access_bytes", "threshold_cs", "threshold_bos", "stamp", "digest"]


def main():
    frames = None
    if len(sys.argv) == 5 and sys.argv[3] == "--frames":
        frames = int(sys.argv[4])
    elif len(sys.argv) != 3:
        sys.exit(__doc__)
    live = json.load(open(sys.argv[1]))
    replay = json.load(open(sys.argv[2]))
    if live.get("schema") != "vramlab-kmodel-live":
        sys.exit(f"{sys.argv[1]}: not the virtual radeon's counters")
    results = replay.get("results", [])
    if len(results) != 1:
        sys.exit(f"{sys.argv[2]}: {len(results)} results, expected 1")
    r = results[0]
    diff = [f"{k}: live {live.get(k)} replay {r.get(k)}" for k in KEYS if live.get(k) != r.get(k)]
    if abs(live["transfer_ms"] - r["transfer_ms"]) > 1e-9 * max(1.0, abs(r["transfer_ms"])):
        diff.append(f"transfer_ms: live {live['transfer_ms']} replay {r['transfer_ms']}")
    if frames is not None and live["frames"] != frames:
        diff.append(f"frames: live {live['frames']}, Mesa's trace {frames}")
    if diff:
        sys.exit(f"{sys.argv[1]} != {sys.argv[2]}:\n  " + "\n  ".join(diff))
    print(f"live == replay: {live['cs']} CS, {live['evictions']} evictions, "
          f"{live['bytes_from_vram']} bytes out of VRAM, {live['frames']} frames, "
          f"transfer {live['transfer_ms']:.3f} ms")


if __name__ == "__main__":
    main()
