#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""compare_counters.py VRAMLAB RUN [--frames N]

RUN.json is what the virtual radeon's kernel model counted while the program ran
(VRADEON_COUNTERS); RUN.kernel.vrl the kernel-view trace the same run recorded
(VRADEON_TRACE). The trace is replayed with `VRAMLAB sim --model kernel` under the run's own
configuration (the VRAM size, top-down threshold, key order and window the live counters
record, and the cost file it ran with), and every figure must be equal; with --frames N, the live run must also have counted
N frames (those of Mesa's own trace)."""
import json
import subprocess
import sys

KEYS = ["evictions", "evicted_bytes", "bytes_to_vram", "bytes_from_vram", "moves", "cs",
        "cs_rejected", "creates", "creates_refused", "cpu_maps", "destroys", "frames",
        "gtt_accesses", "gtt_access_bytes", "threshold_cs", "threshold_bos", "stamp", "digest"]


def replay(vramlab, run, config):
    mib, rest = divmod(config["vram_bytes"], 1 << 20)
    if rest:
        sys.exit(f"{run}.json: VRAM of {config['vram_bytes']} bytes is not whole MiB")
    topdown = config["topdown_kib"]
    scan = config.get("evict_window", 0)
    mbps = config.get("move_budget_mbps", 0)
    # (min-max, key order, window eviction, move budget) -> the kernel model's policy
    policies = {(False, False, False, False): "lru", (True, False, False, False): "minmax",
                (False, True, False, False): "key", (True, True, False, False): "minmax+key",
                (False, False, True, False): "window", (False, False, False, True): "budget",
                (False, False, True, True): "window+budget",
                (True, False, True, True): "minmax+window+budget",
                (False, True, True, False): "window+key",
                (False, True, True, True): "window+budget+key"}
    key = (topdown > 0, bool(config["bo_score"]), scan > 0, mbps > 0)
    predict, admit = config.get("evict_predict", 0), config.get("evict_admit", 0)
    if predict:  # VRADEON_EVICT_PREDICT: the predicted window, alone in the policy table
        if key != (False, False, True, False):
            sys.exit(f"{run}.json: no kernel-model policy has the predicted window with "
                     f"min-max {key[0]}, key order {key[1]} or the move budget {key[3]}")
        policies = {key: "window-predict+admit" if admit else "window-predict"}
    if key not in policies:
        sys.exit(f"{run}.json: no kernel-model policy has min-max {key[0]}, key order {key[1]}, "
                 f"window eviction {key[2]} and the move budget {key[3]} together")
    cmd = [vramlab, "sim", "--model", "kernel", "--policies", policies[key], "--vram", str(mib),
           "--json", "-", run + ".kernel.vrl"]
    if config["bo_score"]:  # the key's window (sim refuses an option no policy uses)
        cmd[6:6] = ["--window", str(config["window"])]
    if topdown:
        cmd[6:6] = ["--threshold", f"{topdown}K"]
    if scan:
        cmd[6:6] = ["--scan-max", str(scan)]
    if predict and admit:  # VRADEON_EVICT_ADMIT: the same GTT charge for admission
        cmd[6:6] = ["--admit-permille", str(admit)]
    unused = config.get("evict_unused", 0)
    if predict and unused:  # VRADEON_EVICT_UNUSED: never-named BOs first after as many
        cmd[6:6] = ["--predict-unused", str(unused)]
    if predict and config.get("evict_repack", 0):  # VRADEON_EVICT_REPACK: the repack
        cmd[6:6] = ["--predict-repack"]
    if mbps:
        cmd[6:6] = ["--budget-mbps", str(mbps), "--budget-cap-ms", str(config["move_budget_ms"])]
    # a BO larger than VRAM: as the live model did (a shim before "too_big" always refused)
    cmd[6:6] = ["--too-big", config.get("too_big", "refuse")]
    if config.get("kernel", "6.12") != "6.12":  # VRADEON_LAB_CS_END: the same submission path
        cmd[6:6] = ["--kernel", config["kernel"]]
    if config.get("cost_file"):  # VRADEON_COST: the replay charges the same costs
        cmd[6:6] = ["--cost", config["cost_file"]]
    out = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{run}.kernel.vrl: the replay failed: {out.stderr.strip() or out.returncode}")
    if "warning" in out.stderr:
        sys.exit(f"{run}.kernel.vrl: {out.stderr.strip()}")
    results = json.loads(out.stdout)["results"]
    if len(results) != 1:
        sys.exit(f"{run}.kernel.vrl: {len(results)} results, expected 1")
    return results[0]


def main():
    args = sys.argv[1:]
    frames = None
    if len(args) == 4 and args[2] == "--frames":
        frames = int(args[3])
    elif len(args) != 2:
        sys.exit(__doc__)
    vramlab, run = args[0], args[1]
    live = json.load(open(run + ".json"))
    if live.get("schema") != "vramlab-kmodel-live":
        sys.exit(f"{run}.json: not the virtual radeon's counters")
    r = replay(vramlab, run, live["config"])
    diff = [f"{k}: live {live.get(k)} replay {r.get(k)}" for k in KEYS if live.get(k) != r.get(k)]
    if abs(live["transfer_ms"] - r["transfer_ms"]) > 1e-9 * max(1.0, abs(r["transfer_ms"])):
        diff.append(f"transfer_ms: live {live['transfer_ms']} replay {r['transfer_ms']}")
    if frames is not None and live["frames"] != frames:
        diff.append(f"frames: live {live['frames']}, Mesa's trace {frames}")
    if diff:
        sys.exit(f"{run}: live != replayed:\n  " + "\n  ".join(diff))
    print(f"live == replay: {live['cs']} CS, {live['evictions']} evictions, "
          f"{live['bytes_from_vram']} bytes out of VRAM, {live['frames']} frames, "
          f"transfer {live['transfer_ms']:.3f} ms")


if __name__ == "__main__":
    main()
