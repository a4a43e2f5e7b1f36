#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""check_cost_run.py VRAMLAB RUN COST_FILE same|different

RUN.json and RUN.kernel.vrl are a virtual radeon run made with VRADEON_COST=COST_FILE. Checks
that the run charged the file's costs: its JSON names the file and its four costs; every
frame's time is its CPU time plus its transfer time; the run's transfer time is that of the
file's costs applied to its own counters. Then replays the run's trace with the built-in costs
(no --cost): with `same` (COST_FILE equal to the built-in costs, harness/costs/default.json)
the transfer time must be equal to the bit, with `different` larger or smaller, as the
file's costs are."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare_counters import replay  # noqa: E402


def transfer_ms(r, c):
    """The kernel model's formula (kernel_model.h transfer_time_us) on a run's counters."""
    pcie, vram = c["pcie_gbps"] * 1e3, c["vram_gbps"] * 1e3
    moved = r["bytes_to_vram"] + r["bytes_from_vram"]
    us = moved / pcie + r["moves"] * c["move_latency_us"] + \
        c["gtt_reads_per_use"] * r["gtt_access_bytes"] * (1 / pcie - 1 / vram)
    return us / 1000


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in ("same", "different"):
        sys.exit(__doc__)
    vramlab, run, cost_path, mode = sys.argv[1:]
    live = json.load(open(run + ".json"))
    cost = json.load(open(cost_path))
    bad = []
    if live["config"].get("cost_file") != cost_path:
        bad.append(f"config.cost_file is {live['config'].get('cost_file')!r}, not {cost_path}")
    for k in ("pcie_gbps", "vram_gbps", "move_latency_us", "gtt_reads_per_use"):
        if live.get("costs", {}).get(k) != cost[k]:
            bad.append(f"costs.{k}: {live.get('costs', {}).get(k)}, the file says {cost[k]}")
    want = transfer_ms(live, cost)
    if abs(live["transfer_ms"] - want) > 1e-6 * max(1.0, want):
        bad.append(f"transfer_ms {live['transfer_ms']} is not the file's costs on the run's "
                   f"counters ({want})")
    if not live["per_frame"]:
        bad.append("no frames")
    for i, f in enumerate(live["per_frame"]):
        if abs(f["time_us"] - f["cpu_us"] - f["transfer_us"]) > 1e-6 * max(1.0, f["time_us"]):
            bad.append(f"frame {i}: time {f['time_us']} us is not CPU {f['cpu_us']} + "
                       f"transfer {f['transfer_us']}")
            break
    config = dict(live["config"], cost_file=None)
    builtin = replay(vramlab, run, config)["transfer_ms"]
    if mode == "same" and builtin != live["transfer_ms"]:
        bad.append(f"the built-in costs give {builtin} ms, the file {live['transfer_ms']} ms")
    if mode == "different" and builtin == live["transfer_ms"]:
        bad.append(f"the file's costs give the built-in transfer time, {builtin} ms")
    if bad:
        sys.exit(f"{run}: VRADEON_COST={cost_path}:\n  " + "\n  ".join(bad))
    print(f"VRADEON_COST {os.path.basename(cost_path)}: transfer {live['transfer_ms']:.3f} ms "
          f"(built-in costs: {builtin:.3f} ms), frame p50/p99 "
          f"{live['frame_times']['p50_ms']:.3f}/{live['frame_times']['p99_ms']:.3f} ms")


if __name__ == "__main__":
    main()
