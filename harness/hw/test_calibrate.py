#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of `vramlab-hw calibrate` and calibrate_gl without a Radeon (harness/docs/cost-file.md,
"Calibration"): the plan (--dry-run), the cost file derived from raw measurements (and loaded by
the harness's own parser), the refusals of what cannot be trusted, and calibrate_gl itself on
llvmpipe (Debian's Mesa), where timer queries work but there is no GTT, VRAM or radeon_mm_stats.

Usage: test_calibrate.py [CALIBRATE_GL VRAMLAB REPO]   (without them: the tests that need
neither the program nor the harness binary)"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.join(HERE, "vramlab-hw")
PROGRAM = VRAMLAB = REPO = None
LLVMPIPE = {"LIBGL_ALWAYS_SOFTWARE": "1", "GALLIUM_DRIVER": "llvmpipe",
            "EGL_PLATFORM": "surfaceless"}


def hw(*args, env=None):
    r = subprocess.run([sys.executable, HW, *args], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout, r.stderr


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
                       ("current_link_speed", "5.0 GT/s PCIe"), ("current_link_width", "16")):
        with open(os.path.join(dev, name), "w") as f:
            f.write(text + "\n")
    return os.path.join(root, "drm")


# Synthetic measurements with known answers: reads shader-limited at 20 GB/s from VRAM plus
# 500 ns; GTT reads costing RATIO[kind] reads at PCIe instead of VRAM speed; moves at PCIE GB/s
# and LATENCY_US each, on top of 1000 ns a use.
PCIE, LATENCY_US = 6.0, 30.0
RATIO = {"vertex": 1.2, "texture": 2.0, "rt": 0.7}
SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 32 << 20]


def synthetic(zero_read=False, unmoved=False, renderer="AMD BARTS (DRM 2.51.0 / 6.12.0-vramlab)",
              latency_us=LATENCY_US):
    vram = max(s / (500 + s / 20) for s in SIZES)
    gap = 1 / PCIE - 1 / vram
    recs = [{"record": "box", "card": "card0", "pci_id": "1002:6738", "kernel": "6.12.0-vramlab",
             "pcie_link": "5.0 GT/s PCIe x16", "vram_mib": 128},
            {"record": "context", "renderer": renderer, "vendor": "X.Org",
             "gl_version": "4.5 (Core Profile) Mesa 22.3.6", "time_elapsed_bits": 64,
             "timestamp_bits": 64}]
    for kind, ratio in RATIO.items():
        for s in SIZES:
            tv = 500 + s / 20
            for domain, t in (("vram", tv), ("gtt", tv + ratio * s * gap)):
                q = [0 if zero_read and kind == "texture" and s == SIZES[2] else round(t)] * 3
                recs.append({"record": "read", "kind": kind, "domain": domain,
                             "usage": "GL_STATIC_DRAW" if domain == "vram" else "GL_STREAM_DRAW",
                             "bytes": s, "uses_per_query": 1, "query_ns": q,
                             "ns_per_use": float(q[1])})
    for size, buffers, moves in ((256 << 10, 1024, 30000), (4 << 20, 64, 1900)):
        uses = buffers * 20
        recs.append({"record": "move", "phase": "fit", "buffer_bytes": size,
                     "buffers": buffers // 5, "frames": 20, "uses": uses // 5,
                     "gpu_ns": uses // 5 * 1000, "cpu_ns": uses // 5 * 1100, "moves": 0,
                     "bytes_moved": 0, "evictions": 0, "threshold_kept": 0})
        m = 0 if unmoved else moves
        extra = m * size / PCIE + m * latency_us * 1000
        recs.append({"record": "move", "phase": "over", "buffer_bytes": size,
                     "buffers": buffers, "frames": 20, "uses": uses,
                     "gpu_ns": round(uses * 1000 + extra), "cpu_ns": uses * 1100 + extra,
                     "moves": m, "bytes_moved": m * size, "evictions": m // 2,
                     "threshold_kept": 0})
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
                 "write " + out.replace(".json", ".raw.jsonl.partial"),
                 "__EGL_VENDOR_LIBRARY_FILENAMES=/opt/vramlab/mesa/share/glvnd",
                 "mv ", "write " + out]
        pos = [next(i for i, c in enumerate(cmds) if o in c) for o in order]
        self.assertEqual(pos, sorted(pos), cmds)
        run = next(c for c in cmds if "--moves" in c)
        for part in ("--mm-stats /sys/kernel/debug/dri/0/radeon_mm_stats", "--vram-mib 128",
                     "--move-sizes 256K,4M", "--sizes 64K,256K,1M,4M,16M,32M",
                     "--kinds vertex,texture,rt"):
            self.assertIn(part, run)
        self.assertEqual(os.listdir(self.dir), ["sys"])  # nothing written, nothing built
        rc, so2, se = hw("calibrate", "--dry-run", "--out", out, "--sysfs", sysfs,
                         "--vram-mib", "128", env={"VRAMLAB_CACHE": cache})
        self.assertEqual((rc, so2), (0, so), se)  # --dry-run after the subcommand too
        self.assertEqual(os.listdir(self.dir), ["sys"])

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
        if VRAMLAB:  # the harness's own parser takes it
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
        self.assertIn("two buffer sizes at least", se)
        rc, so, se = hw("calibrate", "--from-raw", self.raw(synthetic()[0]), "--out", out,
                        "--vram-gbps", "2")
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


@unittest.skipUnless(len(sys.argv) > 1 or os.environ.get("CALIBRATE_GL"),
                     "needs a built calibrate_gl")
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
            f.write("bo_score 0\nthreshold_kept 0\n"
                    "type evictions evicted_bytes moves_in bytes_in moves_out bytes_out\n"
                    "system 0 0 0 0 0 0\ngtt 0 0 0 0 0 0\nvram 3 4 5 6 7 8\n")
            f.flush()
            rc, so, se = program("--no-reads", "--moves", "--vram-mib", "4", "--mm-stats",
                                 f.name, "--frames", "2", "--move-sizes", "256K,1M")
            self.assertEqual(rc, 1)
            self.assertIn("the move counters of " + f.name + " did not move", se)
            self.assertIn('"phase": "fit"', so)  # the fitting run, then the refusal
            self.assertNotIn('"phase": "over"', so)

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
    if len(sys.argv) >= 4:
        PROGRAM, VRAMLAB, REPO = sys.argv[1:4]
        del sys.argv[1:4]
    unittest.main()
