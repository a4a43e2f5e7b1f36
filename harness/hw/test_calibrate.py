#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of `vramlab-hw calibrate` and calibrate_gl without a Radeon (harness/docs/cost-file.md,
"Calibration"): the plan (--dry-run), the cost file derived from raw measurements (and loaded by
the harness's own parser), the refusals of what cannot be trusted, and calibrate_gl itself on
llvmpipe (Debian's Mesa), where timer queries work but there is no GTT, VRAM or radeon_mm_stats.

Usage: test_calibrate.py [CALIBRATE_GL VRAMLAB REPO] [unittest options]
  (or CALIBRATE_GL, VRAMLAB, REPO in the environment; without CALIBRATE_GL: the tests that do
  not need the program; without VRAMLAB and REPO: no load by `vramlab sim`)"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.join(HERE, "vramlab-hw")
if __name__ == "__main__" and len(sys.argv) >= 4 and not sys.argv[1].startswith("-"):
    os.environ.update(zip(("CALIBRATE_GL", "VRAMLAB", "REPO"), sys.argv[1:4]))
    del sys.argv[1:4]
PROGRAM = os.environ.get("CALIBRATE_GL")
VRAMLAB = os.environ.get("VRAMLAB")
REPO = os.environ.get("REPO")
LLVMPIPE = {"LIBGL_ALWAYS_SOFTWARE": "1", "GALLIUM_DRIVER": "llvmpipe",
            "EGL_PLATFORM": "surfaceless"}


def load_hw():
    """vramlab-hw as a module, for the calls no command line can make exactly."""
    loader = importlib.machinery.SourceFileLoader("vramlab_hw", HW)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("vramlab_hw", loader))
    loader.exec_module(module)
    return module


HW_MODULE = load_hw()
sys.path.insert(0, HERE)
from test_vramlab_hw import hw  # noqa: E402  (the runner, as the dry-run tests call it)


def program(*args):
    r = subprocess.run([PROGRAM, *args], capture_output=True, text=True,
                       env=dict(os.environ, **LLVMPIPE), timeout=120)
    return r.returncode, r.stdout, r.stderr


def fake_sysfs(root):
    """/sys/class/drm with one card driven by radeon (an HD 6870 on a PCIe 2.0 x16 link)."""
    dev = os.path.join(root, "drm", "card0", "device")
    os.makedirs(dev)
    os.makedirs(os.path.join(root, "drivers", "radeon"))
    os.symlink(os.path.join(root, "drivers", "radeon"), os.path.join(dev, "driver"))
    for name, text in (("vendor", "0x1002"), ("device", "0x6738"),
                       ("current_link_speed", "5.0 GT/s PCIe"), ("current_link_width", "16"),
                       ("power_dpm_force_performance_level", "auto"),
                       ("power_dpm_state", "balanced"), ("power_method", "dpm")):
        with open(os.path.join(dev, name), "w") as f:
            f.write(text + "\n")
    return os.path.join(root, "drm")


# Synthetic measurements with known answers: reads shader-limited at 20 GB/s from VRAM plus
# 500 ns; GTT reads costing RATIO[kind] reads at PCIe instead of VRAM speed; moves at PCIE GB/s
# and LATENCY_US each, on top of 1000 ns a use.
PCIE, LATENCY_US = 6.0, 30.0
RATIO = {"vertex": 1.2, "texture": 2.0, "rt": 0.9}
SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 32 << 20]
MOVE_RUNS = ((256 << 10, 1024, 30000), (1 << 20, 256, 7600), (4 << 20, 64, 1900))


def synthetic(zero_read=False, unmoved=False, renderer="AMD BARTS (DRM 2.50.0 / 6.12.0-vramlab)",
              latency_us=LATENCY_US, ratio=None):
    ratio_of = dict(RATIO, **(ratio or {}))
    vram = max(s / (500 + s / 20) for s in SIZES)
    gap = 1 / PCIE - 1 / vram
    recs = [{"record": "box", "card": "card0", "pci_id": "1002:6738", "kernel": "6.12.0-vramlab",
             "pcie_link": "5.0 GT/s PCIe x16", "vram_mib": 128,
             "dpm": {"power_dpm_force_performance_level": "auto", "power_dpm_state": "balanced"},
             "radeon_params": {"vramlimit": "128", "move_budget_mbps": "0", "bo_score": "1"}},
            {"record": "context", "renderer": renderer, "vendor": "X.Org",
             "gl_version": "4.5 (Core Profile) Mesa 22.3.6", "time_elapsed_bits": 64,
             "timestamp_bits": 64}]
    for kind, ratio in ratio_of.items():
        for s in SIZES:
            tv = 500 + s / 20
            for domain, t in (("vram", tv), ("gtt", tv + ratio * s * gap)):
                q = [0 if zero_read and kind == "texture" and s == SIZES[2] else round(t)] * 3
                recs.append({"record": "read", "kind": kind, "domain": domain,
                             "usage": "GL_STATIC_DRAW" if domain == "vram" else "GL_STREAM_DRAW",
                             "bytes": s, "uses_per_query": 1, "query_ns": q,
                             "ns_per_use": float(q[1])})
    for size, buffers, moves in MOVE_RUNS:
        uses = buffers * 20
        recs.append({"record": "move", "phase": "fit", "buffer_bytes": size,
                     "buffers": buffers // 5, "frames": 20, "uses": uses // 5,
                     "gpu_ns": uses // 5 * 1000, "cpu_ns": uses // 5 * 1500, "moves": 0,
                     "bytes_moved": 0, "evictions": 0, "gtt_evictions": 0,
                     "threshold_kept": 0})
        m = 0 if unmoved else moves
        extra = m * size / PCIE + m * latency_us * 1000
        recs.append({"record": "move", "phase": "over", "buffer_bytes": size,
                     "buffers": buffers, "frames": 20, "uses": uses,
                     "gpu_ns": round(uses * 1000 + extra), "cpu_ns": 1.5 * (uses * 1000 + extra),
                     "moves": m, "bytes_moved": m * size, "evictions": m // 2,
                     "gtt_evictions": 0, "threshold_kept": 0})
    recs.append({"record": "done"})
    return recs, vram


class Calibrate(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def raw(self, recs, name="card.raw.jsonl"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
        return path

    def test_plan_on_a_radeon_box_changes_nothing(self):
        sysfs = fake_sysfs(os.path.join(self.dir, "sys"))
        out = os.path.join(self.dir, "card.json")
        cache = os.path.join(self.dir, "cache")
        rc, so, se = hw("--dry-run", "calibrate", "--out", out, "--sysfs", sysfs,
                        "--vram-mib", "128", env={"VRAMLAB_CACHE": cache})
        self.assertEqual(rc, 0, se)
        cmds = [l for l in so.splitlines() if l.startswith("+ ")]
        order = [f"cc -O2 -Wall -Werror -o {cache}/calibrate/calibrate_gl",
                 "__EGL_VENDOR_LIBRARY_FILENAMES=/opt/vramlab/mesa/share/glvnd",
                 "write " + out.replace(".json", ".raw.jsonl"), "write " + out]
        pos = [next(i for i, c in enumerate(cmds) if o in c) for o in order]
        self.assertEqual(pos, sorted(pos), cmds)
        run = next(c for c in cmds if "--moves" in c)
        for part in ("--mm-stats /sys/kernel/debug/dri/0/radeon_mm_stats", "--vram-mib 128",
                     "--move-sizes 256K,1M,4M", "--sizes 64K,256K,1M,4M,16M,32M",
                     "--kinds vertex,texture,rt"):
            self.assertIn(part, run)
        self.assertEqual(os.listdir(self.dir), ["sys"])  # nothing written, nothing built
        rc, so2, se = hw("calibrate", "--dry-run", "--out", out, "--sysfs", sysfs,
                         "--vram-mib", "128", env={"VRAMLAB_CACHE": cache})
        self.assertEqual((rc, so2), (0, so), se)  # --dry-run after the subcommand too
        self.assertEqual(os.listdir(self.dir), ["sys"])

    def test_refuses_the_move_runs_on_the_7_2_series(self):
        sysfs = fake_sysfs(os.path.join(self.dir, "sys"))
        params = os.path.join(self.dir, "params")
        os.mkdir(params)
        for p, v in (("vramlimit", "128"), ("evict_window", "1024"), ("evict_predict", "Y"),
                     ("evict_admit", "0"), ("evict_unused", "0")):
            with open(os.path.join(params, p), "w") as f:
                f.write(v + "\n")
        args = ("--dry-run", "calibrate", "--out", os.path.join(self.dir, "card.json"),
                "--sysfs", sysfs, "--sys-params", params)
        rc, so, se = hw(*args)
        self.assertEqual(rc, 1, se)
        self.assertIn("radeon_mm_stats, which the booted 7.2 series has not", se)
        self.assertNotIn("+ cc", so)
        rc, so, se = hw(*args, "--reads-only")
        self.assertEqual(rc, 0, se)

    def test_refuses_without_radeon(self):
        rc, so, se = hw("--dry-run", "calibrate", "--sysfs", os.path.join(self.dir, "none"))
        self.assertNotEqual(rc, 0)
        self.assertIn("no radeon device on this machine", se)
        rc, so, se = hw("--dry-run", "--allow-no-radeon", "calibrate", "--out",
                        os.path.join(self.dir, "c.json"), "--sysfs", os.path.join(self.dir, "n"))
        self.assertEqual(rc, 0, se)
        self.assertIn("the read timings only, as a logic test; no cost file", so)
        self.assertNotIn("--moves", so)
        self.assertFalse(any("write " + os.path.join(self.dir, "c.json") in l
                             for l in so.splitlines()))

    def test_cost_file_from_raw_measurements(self):
        recs, vram = synthetic()
        raw = self.raw(recs)
        out = os.path.join(self.dir, "card.json")
        rc, so, se = hw("calibrate", "--from-raw", raw, "--out", out)
        self.assertEqual(rc, 0, se)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual((doc["format"], doc["version"], doc["source"]),
                         ("vramlab-cost", 1, "measured"))
        self.assertEqual(doc["pci_id"], "1002:6738")
        self.assertEqual(doc["card"], "AMD BARTS [1002:6738]")
        self.assertEqual(doc["pcie_link"], "5.0 GT/s PCIe x16")
        self.assertEqual(doc["kernel"], "6.12.0-vramlab")
        self.assertEqual(doc["mesa"], "4.5 (Core Profile) Mesa 22.3.6")
        # the derivation recovers what the measurements were made of
        self.assertAlmostEqual(doc["pcie_gbps"], PCIE, places=2)
        self.assertAlmostEqual(doc["move_latency_us"], LATENCY_US, places=2)
        self.assertAlmostEqual(doc["vram_gbps"], vram, places=2)
        self.assertAlmostEqual(doc["gtt_reads_per_use"], sum(RATIO.values()) / 3, places=2)
        for k, r in RATIO.items():
            self.assertAlmostEqual(doc["measurements"]["reads"][k]["reads_per_use"], r, places=3)
        self.assertIn("next: make decide COST=" + out, so)
        # weights by kind; a VRAM bandwidth given instead of measured
        rc, so, se = hw("calibrate", "--from-raw", raw, "--out", out, "--kind-weights",
                        "vertex=1,texture=0,rt=0", "--vram-gbps", "134.4")
        self.assertEqual(rc, 0, se)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["vram_gbps"], 134.4)
        gap_measured = 1 / PCIE - 1 / vram
        self.assertAlmostEqual(doc["gtt_reads_per_use"],
                               1.2 * gap_measured / (1 / PCIE - 1 / 134.4), places=3)
        self.assertIn("--vram-gbps", doc["notes"])
        if VRAMLAB and REPO:  # the harness's own parser takes it
            trace = os.path.join(REPO, "traces", "live", "scummvm-barts-6mib.vrl")
            r = subprocess.run([VRAMLAB, "sim", "--model", "kernel", "--vram", "6", "--cost",
                                out, trace], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("costs " + out + " (measured, AMD BARTS [1002:6738])", r.stdout)

    def test_refusals(self):
        out = os.path.join(self.dir, "card.json")
        cases = [
            (dict(zero_read=True), "zero timer result: refusing it"),
            (dict(unmoved=True), "moved nothing (radeon_mm_stats did not move)"),
            (dict(renderer="llvmpipe (LLVM 15.0.6, 256 bits)"),
             "not r600g on a radeon device: not a cost file for a Radeon"),
            (dict(latency_us=-5.0), "do not fit bytes / PCIe + moves x latency"),
        ]
        for kw, msg in cases:
            raw = self.raw(synthetic(**kw)[0])
            rc, so, se = hw("calibrate", "--from-raw", raw, "--out", out)
            self.assertEqual(rc, 1, (kw, se))
            self.assertIn(msg, se, kw)
            self.assertFalse(os.path.exists(out), kw)
        recs = [r for r in synthetic()[0] if r["record"] != "done"]
        rc, so, se = hw("calibrate", "--from-raw", self.raw(recs), "--out", out)
        self.assertIn("no 'done' record", se)
        recs = [r for r in synthetic()[0] if not (r["record"] == "move" and
                                                  r["buffer_bytes"] == 4 << 20)]
        rc, so, se = hw("calibrate", "--from-raw", self.raw(recs), "--out", out)
        self.assertIn("2 move run(s); bandwidth and latency need three buffer sizes at least", se)
        # a VRAM bandwidth given that is not above the fitted PCIe figure: named as given
        rc, so, se = hw("calibrate", "--from-raw", self.raw(synthetic()[0]), "--out", out,
                        "--vram-gbps", "2")
        self.assertEqual(rc, 1, se)
        self.assertIn("the VRAM bandwidth given, --vram-gbps 2, is not above the move bandwidth "
                      "6.00 GB/s", se)
        self.assertNotIn("measured", se)
        # equal to the fitted figure exactly: refused, no division by zero
        recs = synthetic()[0]
        pcie = HW_MODULE.fit_moves([r for r in recs if r["record"] == "move"], "w", [])[0]
        with self.assertRaisesRegex(HW_MODULE.CalibrationError,
                                    "the VRAM bandwidth given, --vram-gbps .*, is not above"):
            HW_MODULE.cost_from_raw(recs, "w", {"vertex": 1}, pcie)
        for given in ("0", "-3", "nan"):
            rc, so, se = hw("calibrate", "--from-raw", self.raw(synthetic()[0]), "--out", out,
                            "--vram-gbps", given)
            self.assertEqual(rc, 2, se)
            self.assertIn(f"--vram-gbps: {given}", se.replace("'", ""))
        # measured VRAM reads slower than the moves: the hint to give --vram-gbps
        recs = synthetic()[0]
        for r in recs:
            if r["record"] == "read" and r["domain"] == "vram":
                r["query_ns"] = [r["bytes"] // 5] * 3
        rc, so, se = hw("calibrate", "--from-raw", self.raw(recs), "--out", out)
        self.assertIn("the fastest VRAM read measured, 5.00 GB/s, is not above the move "
                      "bandwidth 6.00 GB/s", se)
        self.assertIn("give the card's VRAM bandwidth with --vram-gbps", se)
        rc, so, se = hw("calibrate", "--from-raw", self.raw(synthetic()[0]), "--out", out,
                        "--kind-weights", "vertex=1,pixels=2")
        self.assertIn("unknown kind 'pixels'", se)
        with open(os.path.join(self.dir, "bad.jsonl"), "w") as f:
            f.write('{"record": "box"}\nnot json\n')
        rc, so, se = hw("calibrate", "--from-raw", os.path.join(self.dir, "bad.jsonl"),
                        "--out", out)
        self.assertIn("bad.jsonl:2: not a JSON line", se)
        self.assertFalse(os.path.exists(out))

    def derive(self, recs, *args):
        out = os.path.join(self.dir, "card.json")
        if os.path.exists(out):
            os.unlink(out)
        raw = self.raw(recs)
        rc, so, se = hw("calibrate", "--from-raw", raw, "--out", out, *args)
        self.assertNotIn("Traceback", se)
        doc = None
        if rc == 0:
            with open(out) as f:
                doc = json.load(f)
        else:
            self.assertFalse(os.path.exists(out), se)
        return rc, so, se, doc, raw

    def refused(self, recs, msg, *args):
        rc, so, se, doc, raw = self.derive(recs, *args)
        self.assertEqual(rc, 1, (msg, so, se))
        self.assertIn(msg, se.replace(raw, "RAW"))

    @staticmethod
    def run_of(recs, phase, size):
        return next(r for r in recs if r["record"] == "move" and r["phase"] == phase and
                    r["buffer_bytes"] == size)

    def test_move_runs_refused(self):
        # a fitting run that moved: no baseline (line 2 = box, 3 = context, 4.. reads)
        recs = synthetic()[0]
        self.run_of(recs, "fit", 256 << 10)["moves"] = 3
        line = next(i for i, r in enumerate(recs, 1) if r.get("phase") == "fit")
        self.refused(recs, f"RAW:{line}: the fitting run of 262144-byte buffers moved buffers "
                           "(3 moves")
        # an over-committed run faster than its uses: negative extra time
        recs = synthetic()[0]
        r = self.run_of(recs, "over", 1 << 20)
        r["gpu_ns"] = r["uses"] * 1000 - 5000
        self.refused(recs, "the over-committed run of 1048576-byte buffers took -5000 ns more "
                           "than its uses")
        # GTT evictions to system memory; uses kept in GTT by the threshold
        recs = synthetic()[0]
        self.run_of(recs, "over", 4 << 20)["gtt_evictions"] = 5
        self.refused(recs, "evicted 5 buffers from GTT to system memory")
        recs = synthetic()[0]
        r = self.run_of(recs, "over", 256 << 10)
        r["threshold_kept"] = r["uses"] // 50
        self.refused(recs, f"kept {r['uses'] // 50} of {r['uses']} uses in GTT by the move "
                           "threshold (threshold_kept, more than 1%)")
        # one run the two-parameter fit misses by 50% of its extra time
        recs = synthetic()[0]
        r = self.run_of(recs, "over", 1 << 20)
        r["gpu_ns"] += round(0.5 * r["moves"] * ((1 << 20) / PCIE + LATENCY_US * 1000))
        self.refused(recs, "the move runs do not fit bytes / PCIe + moves x latency: the run of "
                           "4194304-byte buffers is -27% off the fit (more than 20%")
        # booted with a move budget; parameters not recorded
        recs = synthetic()[0]
        recs[0]["radeon_params"]["move_budget_mbps"] = "1000"
        self.refused(recs, "RAW:1: booted with radeon.move_budget_mbps=1000")
        recs = synthetic()[0]
        del recs[0]["radeon_params"]
        self.refused(recs, "RAW:1: the booted radeon parameters (radeon_params, from "
                           "/sys/module/radeon/parameters) have no move_budget_mbps")
        # the GPU time spans the CPU's: written, with a warning
        recs = synthetic()[0]
        for r in recs:
            if r.get("phase") == "over":
                r["cpu_ns"] = r["gpu_ns"] * 1.05
        rc, so, se, doc, raw = self.derive(recs)
        self.assertEqual(rc, 0, se)
        self.assertIn("the GPU waited for the CPU's submissions, so the fitted pcie_gbps is an "
                      "effective move throughput", doc["notes"])
        self.assertIn("# note: the over-committed run of 262144-byte buffers: GPU time", so)
        # a good fit: residuals recorded
        rc, so, se, doc, raw = self.derive(synthetic()[0])
        self.assertEqual(rc, 0, se)
        self.assertEqual(len(doc["measurements"]["moves"]), 3)
        for p in doc["measurements"]["moves"]:
            self.assertAlmostEqual(p["residual"], 0, places=4)
            self.assertAlmostEqual(p["fit_ns"], p["extra_ns"], delta=p["extra_ns"] * 1e-4)

    def test_gtt_figures_refused(self):
        # GTT reads that cost nothing more than VRAM reads: refused on a card with VRAM ...
        flat = {k: 0.001 for k in RATIO}
        self.refused(synthetic(ratio=flat)[0], "the rt read of 16777216 bytes in GTT ran at "
                                               "19.94 GB/s, above 1.2x the fitted PCIe figure")
        small = [r for r in synthetic(ratio=flat)[0] if r.get("bytes", 0) < 16 << 20]
        self.refused(small, "is below 0.01: GTT reads cost "
                            "about nothing more than VRAM reads on BARTS, which is not an APU")
        # ... taken, raised to 0.01 with a note, with --allow-flat-gtt or on an APU
        rc, so, se, doc, raw = self.derive(synthetic(ratio=flat)[0], "--allow-flat-gtt")
        self.assertEqual(rc, 0, se)
        self.assertEqual(doc["gtt_reads_per_use"], 0.01)
        self.assertIn("raised to the bound 0.01 (--allow-flat-gtt", doc["notes"])
        apu = "AMD PALM (DRM 2.50.0 / 6.12.0-vramlab)"
        rc, so, se, doc, raw = self.derive(synthetic(ratio=flat, renderer=apu)[0])
        self.assertEqual(rc, 0, se)
        self.assertIn("(PALM is an APU: GTT and VRAM are the same memory)", doc["notes"])
        # a negative figure for one kind, even though the mean is positive
        self.refused([r for r in synthetic(ratio={"rt": -0.2})[0] if r.get("bytes", 0) < 16 << 20],
                     "the rt reads cost -0.2 PCIe reads more per use in GTT than in VRAM: a "
                     "negative figure")
        self.refused(synthetic(ratio={"rt": -0.2}, renderer=apu)[0], "a negative figure")
        rc, so, se, doc, raw = self.derive(synthetic(ratio={"rt": -0.005}, renderer=apu)[0])
        self.assertEqual(rc, 0, se)
        self.assertEqual(doc["measurements"]["reads"]["rt"]["reads_per_use"], 0)
        self.assertIn("rt: measured -0.005 reads per use, within 0.01 of 0, taken as 0", doc["notes"])
        # a 16 MiB "GTT" read faster than the link: not read over PCIe
        recs = synthetic()[0]
        for r in recs:
            if r["record"] == "read" and r["domain"] == "gtt" and r["bytes"] >= 16 << 20:
                r["query_ns"] = [r["bytes"] // 10] * 3
        self.refused(recs, "the rt read of 16777216 bytes in GTT ran at 10.00 GB/s, above "
                           "1.2x the fitted PCIe figure 6.00 GB/s")

    def test_read_records_checked(self):
        recs = synthetic()[0]
        first = next(i for i, r in enumerate(recs) if r["record"] == "read")
        # a spread of 3x: refused
        q = recs[first]["query_ns"]
        recs[first]["query_ns"] = [q[0], q[0], 3 * q[0]]
        self.refused(recs, f"RAW:{first + 1}: the vertex reads of 65536 bytes in vram spread from "
                           f"{q[0]} to {3 * q[0]} ns a query (more than 2x)")
        # no timer results at all
        recs = synthetic()[0]
        recs[first]["query_ns"] = []
        self.refused(recs, f"RAW:{first + 1}: read record: query_ns is [], not a list of timer "
                           "results")
        # a field missing: named with its file and line, no traceback
        recs = synthetic()[0]
        del recs[first]["bytes"]
        self.refused(recs, f"RAW:{first + 1}: read record: bytes is None, not an integer >= 1")
        recs = synthetic()[0]
        line = next(i for i, r in enumerate(recs, 1) if r.get("phase") == "over")
        del recs[line - 1]["uses"]
        self.refused(recs, f"RAW:{line}: move record: uses is None, not an integer >= 1")
        recs = synthetic()[0]
        line = next(i for i, r in enumerate(recs, 1) if r.get("phase") == "fit")
        recs[line - 1]["gpu_ns"] = 0
        self.refused(recs, f"RAW:{line}: gpu_ns is 0, not a positive time")
        recs[line - 1]["cpu_ns"] = 0  # checked first, and never divided by
        self.refused(recs, f"RAW:{line}: cpu_ns is 0, not a positive time")
        recs = synthetic()[0]
        recs[1]["renderer"] = None
        self.refused(recs, "measured on None, not r600g on a radeon device")
        # the timers' counter bits
        for key, msg in (("time_elapsed_bits", "GL_TIME_ELAPSED has 0 counter bits"),
                         ("timestamp_bits", "GL_TIMESTAMP has 0 counter bits")):
            recs = synthetic()[0]
            recs[1][key] = 0
            self.refused(recs, "RAW:2: " + msg)
            del recs[1][key]
            self.refused(recs, f"RAW:2: context record: {key} is None, not an integer")
        # the median of an even number of queries is the mean of the middle two; the spread kept
        recs = synthetic()[0]
        t = recs[first]["query_ns"][0]
        recs[first]["query_ns"] = [t, 3 * t // 2, t, 3 * t // 2]
        rc, so, se, doc, raw = self.derive(recs)
        self.assertEqual(rc, 0, se)
        vertex = doc["measurements"]["reads"]["vertex"]
        self.assertAlmostEqual(vertex["vram_ns"][0], (t + 3 * t // 2) / 2)
        self.assertEqual(vertex["vram_ns_min_max"][0], [t, 3 * t // 2])
        # the VRAM bandwidth comes from reads, never from the rt writes
        recs = synthetic()[0]
        for r in recs:
            if r["record"] == "read" and r["kind"] == "rt" and r["domain"] == "vram":
                r["query_ns"] = [r["bytes"] // 100] * 3
        rc, so, se, doc, raw = self.derive(recs)
        self.assertEqual(rc, 0, se)
        self.assertAlmostEqual(doc["vram_gbps"], synthetic()[1], places=2)

    def test_force_high_clocks(self):
        sysfs = fake_sysfs(os.path.join(self.dir, "sys"))
        level = os.path.join(sysfs, "card0", "device", "power_dpm_force_performance_level")
        params = os.path.join(self.dir, "params")
        os.makedirs(params)
        for name, v in (("vramlimit", "128"), ("move_budget_mbps", "0")):
            with open(os.path.join(params, name), "w") as f:
                f.write(v + "\n")
        out = os.path.join(self.dir, "card.json")
        common = ["--out", out, "--sysfs", sysfs, "--sys-params", params, "--mesa", "system"]
        rc, so, se = hw("--dry-run", "calibrate", *common)
        self.assertEqual(rc, 0, se)
        self.assertNotIn("echo high", so)  # not by default
        rc, so, se = hw("--dry-run", "calibrate", "--force-high-clocks", *common)
        self.assertEqual(rc, 0, se)
        cmds = [l for l in so.splitlines() if l.startswith("+ ")]
        i = next(i for i, c in enumerate(cmds) if "--moves" in c)
        self.assertEqual(cmds[i - 1], f"+ echo high > {level}   (was auto; restored after the "
                                      "run)")
        self.assertEqual(cmds[i + 1], f"+ echo auto > {level}")
        with open(level) as f:
            self.assertEqual(f.read(), "auto\n")
        # a run that fails: the level is restored all the same; the box record has the state
        fake = os.path.join(self.dir, "fake_calibrate_gl")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\necho \"level during the run: $(cat {level})\" >&2\nexit 1\n")
        os.chmod(fake, 0o755)
        rc, so, se = hw("calibrate", "--force-high-clocks", "--program", fake, *common)
        self.assertEqual(rc, 1, se)
        self.assertIn("level during the run: high", se)
        self.assertIn("calibrate_gl refused or failed (exit status 1)", se)
        with open(level) as f:
            self.assertEqual(f.read(), "auto\n")
        with open(out.replace(".json", ".raw.jsonl.partial")) as f:
            box = json.loads(f.readline())
        self.assertEqual(box["dpm"], {"power_dpm_force_performance_level": "auto",
                                      "power_dpm_state": "balanced", "power_method": "dpm"})
        self.assertEqual(box["radeon_params"], {"move_budget_mbps": "0", "vramlimit": "128"})
        self.assertTrue(box["forced_high_clocks"])
        os.unlink(level)
        rc, so, se = hw("calibrate", "--force-high-clocks", "--program", fake, *common)
        self.assertEqual(rc, 1)
        self.assertIn(f"--force-high-clocks: {level} does not exist", se)


@unittest.skipUnless(PROGRAM, "needs a built calibrate_gl (argument or CALIBRATE_GL)")
class Llvmpipe(unittest.TestCase):
    """calibrate_gl on Debian's llvmpipe: its logic and output; what it refuses."""

    def test_reads_print_json_lines(self):
        rc, so, se = program("--sizes", "64K,256K", "--reps", "3")
        self.assertEqual(rc, 0, se)
        recs = [json.loads(l) for l in so.splitlines()]
        self.assertEqual(recs[0]["record"], "context")
        self.assertIn("llvmpipe", recs[0]["renderer"])
        self.assertGreater(recs[0]["time_elapsed_bits"], 0)
        reads = [r for r in recs if r["record"] == "read"]
        self.assertEqual(len(reads), 3 * 2 * 2)  # kinds x sizes x domains
        self.assertEqual({(r["kind"], r["domain"], r["usage"]) for r in reads},
                         {(k, d, u) for k in ("vertex", "texture", "rt")
                          for d, u in (("vram", "GL_STATIC_DRAW"), ("gtt", "GL_STREAM_DRAW"))})
        for r in reads:
            self.assertEqual(len(r["query_ns"]), 3)
            self.assertTrue(all(isinstance(t, int) and t > 0 for t in r["query_ns"]), r)
            self.assertGreater(r["ns_per_use"], 0)
        self.assertEqual(recs[-1], {"record": "done"})

    def test_a_zero_timer_result_is_refused(self):
        rc, so, se = program("--sizes", "64K", "--reps", "3", "--test-timer-ns", "0")
        self.assertEqual(rc, 1)
        self.assertIn("the timer query returned 0 ns", se)
        self.assertNotIn('"record": "read"', so)  # no number printed
        rc, so, se = program("--sizes", "64K", "--reps", "3", "--test-timer-ns", "1500")
        self.assertEqual(rc, 0, se)  # the hook itself: a non-zero fake passes
        self.assertIn('"query_ns": [1500, 1500, 1500]', so)

    def test_no_counter_bits_is_refused(self):
        rc, so, se = program("--sizes", "64K", "--test-counter-bits", "0")
        self.assertEqual(rc, 1)
        self.assertIn("GL_QUERY_COUNTER_BITS of GL_TIME_ELAPSED is 0", se)
        self.assertNotIn('"record": "read"', so)

    def test_moves_without_counters_are_refused(self):
        rc, so, se = program("--no-reads", "--moves", "--vram-mib", "16")
        self.assertEqual(rc, 1)
        self.assertIn("move counters unavailable: no radeon_mm_stats file given", se)
        missing = os.path.join(tempfile.gettempdir(), "vramlab-no-such-radeon_mm_stats")
        rc, so, se = program("--no-reads", "--moves", "--vram-mib", "16", "--mm-stats", missing)
        self.assertEqual(rc, 1)
        self.assertIn(f"move counters unavailable: {missing}: No such file", se)
        with tempfile.NamedTemporaryFile("w", suffix=".stats") as f:
            f.write(self.STATS.format(5))
            f.flush()
            rc, so, se = program("--no-reads", "--moves", "--vram-mib", "4", "--mm-stats",
                                 f.name, "--frames", "2", "--move-sizes", "256K,512K,1M")
            self.assertEqual(rc, 1)
            self.assertIn("the move counters of " + f.name + " did not move", se)
            self.assertIn('"phase": "fit"', so)  # the fitting run, then the refusal
            self.assertNotIn('"phase": "over"', so)

    STATS = ("bo_score 0\nthreshold_kept 0\n"
             "type evictions evicted_bytes moves_in bytes_in moves_out bytes_out\n"
             "system 0 0 0 0 0 0\ngtt 0 0 0 0 0 0\nvram 3 4 {} 6 7 8\n")

    def stats_file(self, d):
        path = os.path.join(d, "radeon_mm_stats")
        with open(path, "w") as f:
            f.write(self.STATS.format(5))
        return path

    def moving(self, path):
        """A thread that rewrites the stats file with a growing vram moves_in until stopped."""
        stop = threading.Event()

        def run():
            n = 5
            while not stop.is_set():
                n += 1
                with open(path + ".tmp", "w") as f:
                    f.write(self.STATS.format(n))
                os.replace(path + ".tmp", path)
                time.sleep(0.0002)
        t = threading.Thread(target=run)
        t.start()
        return stop, t

    def test_timestamps_that_do_not_advance_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            stats = self.stats_file(d)
            rc, so, se = program("--no-reads", "--moves", "--vram-mib", "4", "--mm-stats", stats,
                                 "--frames", "2", "--move-sizes", "256K,512K,1M",
                                 "--test-timer-ns", "1500")
            self.assertEqual(rc, 1, se)
            self.assertIn("fit run of 6 buffers of 262144 bytes: the GPU timestamps did not "
                          "advance (1500 then 1500)", se)
            self.assertNotIn('"record": "move"', so)
            # GL_TIMESTAMP without counter bits: refused before any move run
            rc, so, se = program("--no-reads", "--moves", "--vram-mib", "4", "--mm-stats", stats,
                                 "--move-sizes", "256K,512K,1M", "--test-counter-bits", "0")
            self.assertEqual(rc, 1, se)
            self.assertIn("GL_QUERY_COUNTER_BITS of GL_TIMESTAMP is 0", se)
            self.assertNotIn('"record": "move"', so)

    def test_move_sizes_checked_before_any_gl_work(self):
        with tempfile.TemporaryDirectory() as d:
            stats = self.stats_file(d)
            rc, so, se = program("--moves", "--vram-mib", "4", "--mm-stats", stats,
                                 "--move-sizes", "256K,512K,8M")
            self.assertEqual(rc, 2, se)
            self.assertIn("--move-sizes: 8388608 bytes is too large for 4 MiB of VRAM", se)
            self.assertEqual(so, "")  # no context, no read: nothing ran

    def test_buffers_moving_during_the_timing_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            stats = self.stats_file(d)
            rc, so, se = program("--sizes", "64K", "--kinds", "vertex", "--reps", "3",
                                 "--mm-stats", stats)
            self.assertEqual(rc, 0, se)  # counters still: the reads are printed, checked
            self.assertIn('"placement_checked": true', so)
            stop, t = self.moving(stats)
            try:
                rc, so, se = program("--sizes", "4M", "--kinds", "vertex", "--reps", "3",
                                     "--mm-stats", stats)
                rc2, so2, se2 = program("--no-reads", "--moves", "--vram-mib", "4",
                                        "--mm-stats", stats, "--frames", "20",
                                        "--move-sizes", "256K,512K,1M")
            finally:
                stop.set()
                t.join()
            self.assertEqual(rc, 1, se)
            self.assertIn("vertex reads of 4194304 bytes in vram and gtt: buffers moved while "
                          "their reads were timed", se)
            self.assertNotIn('"record": "read"', so)
            self.assertEqual(rc2, 1, se2)
            self.assertIn("fit run of 6 buffers of 262144 bytes: the fitting run moved buffers",
                          se2)
            self.assertNotIn('"record": "move"', so2)

    def test_a_buffer_texture_beyond_the_driver_limit_is_refused(self):
        rc, so, se = program("--sizes", "4G", "--kinds", "texture")
        self.assertEqual(rc, 1)
        self.assertIn("more than this driver's GL_MAX_TEXTURE_BUFFER_SIZE", se)

    def test_bad_arguments(self):
        for args, msg in ((["--sizes", "3K"], "--sizes: 3K is outside 4K..4G"),
                          (["--kinds", "pixels"], "unknown kind 'pixels'"),
                          (["--reps", "0"], "--reps: '0' is not an integer in 1..64"),
                          (["--no-reads"], "nothing to measure")):
            rc, so, se = program(*args)
            self.assertEqual(rc, 2, args)
            self.assertIn(msg, se)

    def test_runner_reads_only_writes_no_cost_file(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "llvmpipe.json")
            rc, so, se = hw("--allow-no-radeon", "calibrate", "--program", PROGRAM, "--mesa",
                            "system", "--sizes", "64K,256K", "--reps", "3", "--out", out,
                            "--sysfs", os.path.join(d, "none"), env=LLVMPIPE)
            self.assertEqual(rc, 0, se)
            self.assertIn("no cost file is written", so)
            self.assertRegex(so, r"texture  65536 +gtt +[0-9.]+")
            self.assertFalse(os.path.exists(out))
            raw = os.path.join(d, "llvmpipe.raw.jsonl")
            self.assertTrue(os.path.exists(raw))
            # and these timings are never turned into a cost file
            rc, so, se = hw("calibrate", "--from-raw", raw, "--out", out)
            self.assertEqual(rc, 1)
            self.assertIn("not a cost file for a Radeon", se)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
