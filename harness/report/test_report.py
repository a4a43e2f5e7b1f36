#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of vramlab-report on realistic files (tests/data/report: a PTS result file written
after PTS's result-file.xsd, a MangoHud-style frame-time CSV, a plain one, radeon_mm_stats
before/after, two virtual-radeon runs) plus a kernel-model result, fragmentation timelines of
both models, a training log made by the vramlab binary and a calibration (`vramlab-hw
calibrate --from-raw` on synthetic measurements). The page is opened in headless Chromium: it must load without console
errors and with every figure. Usage: test_report.py VRAMLAB SOURCE_DIR"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

VRAMLAB, SRC = sys.argv[1], sys.argv[2]
REPORT = os.path.join(SRC, "report", "vramlab-report")
DATA = os.path.join(SRC, "tests", "data", "report")
PY = "/usr/bin/python3"  # Debian's, with python3-matplotlib


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Report(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        sim = os.path.join(cls.tmp, "sim.json")
        subprocess.run([VRAMLAB, "sim", "--model", "kernel", "--policies", "lru,minmax,minmax+key",
                        "--vram", "2,8", "--json", sim, os.path.join(SRC, "..", "traces", "nederland1.bin")],
                       check=True, capture_output=True)
        # fragmentation timelines, both models, with two min-max thresholds
        cls.frag = {}
        for model in ("thesis", "kernel"):
            cls.frag[model] = os.path.join(cls.tmp, f"frag-{model}.json")
            subprocess.run([VRAMLAB, "sim", "--model", model, "--policies",
                            "lru,minmax@64K,minmax@256K", "--vram", "16,32", "--timeline", "50",
                            "--json", cls.frag[model],
                            os.path.join(SRC, "..", "traces", "nederland1.bin"),
                            os.path.join(SRC, "..", "traces", "nexuiz1.bin")],
                           check=True, capture_output=True)
        # the decision table: a thesis trace and a live one, two sizes, an ensemble of 3
        cls.decide = os.path.join(cls.tmp, "decide.json")
        subprocess.run([VRAMLAB, "decide", "--quiet", "--corpus",
                        os.path.join(SRC, "..", "traces", "nexuiz1.bin"), "--live",
                        os.path.join(SRC, "..", "traces", "live", "glsmoke-barts-6mib.vrl"),
                        "--vram", "4,32", "--live-vram", "4,32", "--ensemble", "3", "--gtt-cost", "1,4",
                        "--baselines", "6.14:lru", "--json", cls.decide],
                       check=True, capture_output=True)
        log = os.path.join(cls.tmp, "train.json")
        subprocess.run([VRAMLAB, "train", os.path.join(SRC, "..", "traces", "nederland1.bin"),
                        "--vram", "2", "--population", "4", "--generations", "2", "-q", "-o",
                        os.path.join(cls.tmp, "w.txt"), "--json", log], check=True)
        # frame times from logs and from a Mesa trace's FRAME records (60 frames: 59 times)
        ft = os.path.join(cls.tmp, "frametimes")
        shutil.copytree(os.path.join(DATA, "frametimes"), ft)
        shutil.copy(os.path.join(SRC, "..", "traces", "live", "glsmoke-barts-6mib.vrl"),
                    os.path.join(ft, "xonotic-low-scoring.4242.vrl"))
        # a calibration: vramlab-hw calibrate's cost file from synthetic raw measurements
        sys.path.insert(0, os.path.join(SRC, "hw"))
        import test_calibrate
        raw = os.path.join(cls.tmp, "card.raw.jsonl")
        with open(raw, "w") as f:
            for rec in test_calibrate.synthetic()[0]:
                f.write(json.dumps(rec) + "\n")
        cls.calibration = os.path.join(cls.tmp, "card.json")
        subprocess.run([PY, os.path.join(SRC, "hw", "vramlab-hw"), "calibrate", "--from-raw", raw,
                        "--out", cls.calibration], check=True, capture_output=True)
        cls.out = os.path.join(cls.tmp, "out")
        cls.inputs = ["--calibration", cls.calibration, "--pts", os.path.join(DATA, "composite.xml"),
                      "--frametimes", ft, "--vramlab", VRAMLAB,
                      "--counters", os.path.join(DATA, "counters"),
                      "--live", os.path.join(DATA, "live", "glsmoke-6-lru.json"),
                      "--live", os.path.join(DATA, "live", "glsmoke-6-minmax+key.json"),
                      "--sim-kernel", sim, "--gain-vram", "2", "--train", log,
                      "--fragmentation", cls.frag["thesis"],
                      "--fragmentation", cls.frag["kernel"], "--decide", cls.decide]
        r = subprocess.run([PY, REPORT, "-o", cls.out] + cls.inputs, capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(cls.out, "report.json")) as f:
            cls.report = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def row(self, test, config):
        return next(r for r in self.report["tables"]["pts"]
                    if r["test"].startswith(test) and r["config"] == config)

    def test_bad_inputs_are_one_line_and_leave_no_directory(self):
        bad = os.path.join(self.tmp, "bad.json")
        for body, want in (('{"schema": "vramlab-decide", "version": 2}', "no field 'config'"),
                           ('{"schema": "vramlab-decide", "version": 3}', "version 3 is not"),
                           ('{"schema": "vramlab-decide", "version": 2, "config": 7}',
                            "wrong type")):
            with open(bad, "w") as f:
                f.write(body)
            out = os.path.join(self.tmp, "never")
            r = subprocess.run(["/usr/bin/python3", REPORT, "-o", out, "--decide", bad],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(want, r.stderr)
            self.assertNotIn("Traceback", r.stderr)
            self.assertFalse(os.path.exists(out), "an empty output directory was left")
        r = subprocess.run(["/usr/bin/python3", REPORT, "-o", bad, "--decide", self.decide],
                           capture_output=True, text=True)
        self.assertIn("exists and is not a directory", r.stderr)

    def test_interrupt_is_one_line_and_leaves_whole_files(self):
        """SIGINT (130) or SIGTERM (143) at several moments: one line, no traceback; a
        directory the run made is gone; in an existing one every file is whole (the old page
        or a new one) and no temporary file is left."""
        for signum, delay in ((signal.SIGINT, 0.3), (signal.SIGINT, 1.5),
                              (signal.SIGINT, 5.0), (signal.SIGTERM, 1.5)):
            for existing in (False, True):
                out = os.path.join(self.tmp, f"cut-{signum}-{delay}-{existing}")
                if existing:
                    os.mkdir(out)
                    with open(os.path.join(out, "index.html"), "w") as f:
                        f.write("<html>old</html>\n")
                p = subprocess.Popen([PY, REPORT, "-o", out] + self.inputs,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                time.sleep(delay)
                p.send_signal(signum)
                _, err = p.communicate(timeout=120)
                what = f"{signal.Signals(signum).name} after {delay} s"
                if p.returncode == 0:
                    continue  # done before the signal: nothing to check
                self.assertEqual(p.returncode, 128 + signum, (what, err))
                self.assertEqual(err, "vramlab-report: interrupted\n", what)
                if not existing:
                    self.assertFalse(os.path.exists(out), f"{what}: {out} left")
                    continue
                left = os.listdir(out)
                self.assertEqual([n for n in left if n.startswith(".")], [], what)
                with open(os.path.join(out, "index.html")) as f:
                    page = f.read()
                self.assertTrue(page == "<html>old</html>\n" or page.endswith("</html>\n"),
                                what)
                for name in left:
                    if name.endswith(".png"):
                        with open(os.path.join(out, name), "rb") as f:
                            self.assertTrue(f.read().endswith(b"IEND\xaeB`\x82"), (what, name))
                    if name.endswith(".svg"):
                        with open(os.path.join(out, name)) as f:
                            self.assertTrue(f.read().rstrip().endswith("</svg>"), (what, name))

    def test_pts_statistics(self):
        b, s = self.row("OpenArena", "baseline"), self.row("OpenArena", "scoring")
        self.assertAlmostEqual(b["mean"], 60.0)
        self.assertAlmostEqual(b["sd"], 1.0)
        self.assertEqual(b["runs"], 3)
        self.assertAlmostEqual(s["diff"], 2.0)
        # Welch: df = 4, t(0.975, 4) = 2.776, half-width 2.776 * sqrt(1/3 + 1/3)
        self.assertAlmostEqual(s["ci95"], 2.776 * (2 / 3) ** 0.5, places=6)
        self.assertAlmostEqual(s["diff_pct"], 2 / 60 * 100)
        x = self.row("Xonotic", "scoring")
        self.assertLess(x["diff"], 0)
        self.assertIn("Effects Quality: Low", x["test"])

    def test_counters_and_frame_times(self):
        b, s = self.row("OpenArena", "baseline"), self.row("OpenArena", "scoring")
        self.assertAlmostEqual(b["evictions_per_run"], 100.0)  # (400 - 100) / 3 runs
        self.assertAlmostEqual(s["evictions_per_run"], 70.0)
        self.assertEqual(b["frames"], 6)
        self.assertAlmostEqual(b["p50_ms"], 16.6)
        self.assertAlmostEqual(b["max_ms"], 34.0)
        self.assertEqual(b["stutter"], 1)  # 34.0 > 2 x 16.6
        self.assertEqual(s["stutter"], 0)
        self.assertEqual(self.row("Xonotic", "scoring")["frames"], 59)

    def test_outputs(self):
        figs = self.report["figures"]
        for f in ("pts-scores", "live", "sim-gain", "train"):
            self.assertIn(f, figs)
        self.assertTrue(any(f.startswith("frametimes-openarena") for f in figs))
        for f in figs:
            for ext in ("png", "svg"):
                self.assertGreater(os.path.getsize(os.path.join(self.out, f"{f}.{ext}")), 1000)
        for t in ("pts", "live", "sim_gain", "train", "fragmentation", "swap_improvement"):
            self.assertTrue(os.path.exists(os.path.join(self.out, f"{t}.csv")))
        self.assertEqual(len(self.report["tables"]["live"]), 2)

    def test_decision_table(self):
        with open(self.decide) as f:
            j = json.load(f)
        rows = self.report["tables"]["decide"]
        # groups x sizes x baselines x the four other policies: the thesis trace is clean, so
        # clean = corpus; the baselines stock 6.12 (lru) and stock 6.14 (6.14:lru)
        self.assertEqual(len(rows), 3 * 2 * 2 * 4)
        for f in ("decide-corpus", "decide-clean", "decide-live", "decide-traces-live",
                  "decide-live-vs-6.14-lru", "decide-traces-corpus-vs-6.14-lru"):
            self.assertIn(f, self.report["figures"])
        runs = {(r["trace"], r["vram_mib"], r["policy"], r["variation"]): r for r in j["runs"]}
        cfg = j["config"]
        for row in rows:
            # the median change is recomputed from the raw runs: totals per variation, paired
            band = cfg["bands"][-1]
            pcie, vram = band["pcie_gbps"] * 1e3, cfg["vram_gbps"] * 1e3
            traces = [t["trace"] for t in j["traces"]
                      if (t["group"] == "live") == (row["group"] == "live")
                      and (row["group"] != "clean" or t["clean"])]
            def cost(p, v):
                tot = 0.0
                for t in traces:
                    r = runs[(t, row["vram_mib"], p, v)]
                    tot += (r["moved_bytes"] / pcie + r["moves"] * cfg["move_latency_us"] +
                            band["gtt_factor"] * cfg.get("gtt_reads_per_use", 1) *
                            r["gtt_bytes"] * (1 / pcie - 1 / vram))
                return tot
            ratios = sorted(cost(row["policy"], v) / cost(row["baseline"], v)
                            for v in range(cfg["ensemble"]))
            self.assertAlmostEqual(row[f"transfer_pct {band['label']}"], (ratios[1] - 1) * 100,
                                   places=3)
            self.assertIn(row["verdict"], ("robust win", "neutral", "mixed", "loss"))
            if row["verdict"] == "robust win":
                self.assertLessEqual(row["worst_trace_pct"], 5)
        # the live trace has frames: frame-time p99 per band
        live = [r for r in rows if r["group"] == "live"]
        self.assertTrue(all(any(k.startswith("frame_p99_pct") for k in r) for r in live))

    def test_decision_table_with_move_latency_bands(self):
        # decide --move-latency-us 5,40: each band recomputed from the raw runs at its own
        # latency, and each row's verdict per latency in its own column, in the latencies'
        # numeric order
        js = os.path.join(self.tmp, "decide-lat.json")
        subprocess.run([VRAMLAB, "decide", "--quiet", "--corpus",
                        os.path.join(SRC, "..", "traces", "nexuiz1.bin"), "--vram", "32",
                        "--ensemble", "3", "--gtt-cost", "1", "--policies", "lru,window",
                        "--move-latency-us", "5,40", "--json", js],
                       check=True, capture_output=True)
        out = os.path.join(self.tmp, "out-lat")
        r = subprocess.run([PY, REPORT, "-o", out, "--decide", js], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "report.json")) as f:
            rows = json.load(f)["tables"]["decide"]
        with open(js) as f:
            j = json.load(f)
        cfg = j["config"]
        self.assertEqual([b["move_latency_us"] for b in cfg["bands"]], [5, 40])
        runs = {(r["trace"], r["policy"], r["variation"]): r for r in j["runs"]}
        verdicts = {(v["group"], v["policy"]): v for v in j["verdicts"]}
        self.assertTrue(rows)
        for row in rows:
            for band in cfg["bands"]:
                pcie, vram = band["pcie_gbps"] * 1e3, cfg["vram_gbps"] * 1e3
                def cost(p, v):
                    r = runs[("nexuiz1.bin", p, v)]
                    return (r["moved_bytes"] / pcie + r["moves"] * band["move_latency_us"] +
                            band["gtt_factor"] * r["gtt_bytes"] * (1 / pcie - 1 / vram))
                ratios = sorted(cost(row["policy"], v) / cost(row["baseline"], v)
                                for v in range(cfg["ensemble"]))
                self.assertAlmostEqual(row[f"transfer_pct {band['label']}"],
                                       (ratios[1] - 1) * 100, places=3)
            by = verdicts[(row["group"], row["policy"])]["by_move_latency"]
            self.assertEqual(row["verdict per move latency"],
                             f"5 us: {by['5']}, 40 us: {by['40']}")

    def test_fragmentation_figures_7_to_16(self):
        figs = self.report["figures"]
        for model in ("thesis", "kernel"):
            for f in ("16M", "32M", "thresholds"):
                self.assertIn(f"frag-{model}-{f}", figs)
        # swapping % is the share of operations that evicted: the simulator's own count
        with open(self.frag["thesis"]) as f:
            sim = json.load(f)["results"]
        rows = {(r["vram_mib"], r["policy"]): r for r in self.report["tables"]["fragmentation"]
                if r["model"] == "thesis model"}
        for v in (16, 32):
            for p in ("lru", "minmax@64K", "minmax@256K"):
                runs = [r for r in sim if r["vram_mib"] == v and r["policy"] == p]
                ev = sum(r["eviction_events"] for r in runs)
                ops = sum(r["entries"] for r in runs)
                self.assertEqual(rows[(v, p)]["operations"], ops)
                self.assertAlmostEqual(rows[(v, p)]["swapping_pct"], 100.0 * ev / ops)
                self.assertEqual(rows[(v, p)]["holes_peak"],
                                 max(max(r["timeline"]["holes_max"]) for r in runs))
        self.assertGreater(rows[(16, "lru")]["swapping_pct"], 0)
        imp = {(r["vram_mib"], r["policy"]): r["swapping_improvement_pct"]
               for r in self.report["tables"]["swap_improvement"] if r["model"] == "thesis model"}
        b, x = rows[(16, "lru")]["swapping_pct"], rows[(16, "minmax@64K")]["swapping_pct"]
        self.assertAlmostEqual(imp[(16, "minmax@64K")], (b - x) / b * 100)
        self.assertNotIn((16, "lru"), imp)

    def test_fragmentation_needs_timelines(self):
        r = subprocess.run([PY, REPORT, "-o", os.path.join(self.tmp, "o3"),
                            "--fragmentation", os.path.join(self.tmp, "sim.json")],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("sim.json: no timelines: run `vramlab sim` with --timeline N", r.stderr)

    def test_through_the_vramlab_command(self):
        out = os.path.join(self.tmp, "via-vramlab")
        r = subprocess.run([VRAMLAB, "report", "-o", out, "--train",
                            os.path.join(self.tmp, "train.json")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "index.html")))

    def test_calibration(self):
        t = self.report["tables"]
        costs = {r["cost"]: r for r in t["calibration"]}
        self.assertAlmostEqual(costs["pcie_gbps"]["measured"], 6.0, places=2)
        self.assertEqual(costs["pcie_gbps"]["built in"], 8.0)
        self.assertAlmostEqual(costs["pcie_gbps"]["measured / built in"], 0.75, places=3)
        self.assertAlmostEqual(costs["move_latency_us"]["measured"], 30.0, places=2)
        self.assertAlmostEqual(costs["gtt_reads_per_use"]["measured"], (1.2 + 2.0 + 0.9) / 3,
                               places=3)
        self.assertEqual(costs["card"]["measured"], "AMD BARTS [1002:6738]")
        self.assertEqual(len(t["calibration_reads"]), 3 * 6)  # kinds x sizes
        tex = [r for r in t["calibration_reads"] if r["kind"] == "texture"]
        self.assertAlmostEqual(tex[0]["kind's reads per use"], 2.0, places=3)
        self.assertTrue(all(r["gtt_us"] > r["vram_us"] for r in tex))
        self.assertEqual([r["buffer bytes"] for r in t["calibration_moves"]],
                         [256 << 10, 1 << 20, 4 << 20])
        for r in t["calibration_moves"]:  # the fit goes through the synthetic points
            self.assertAlmostEqual(r["fit ms"], r["extra ms"], places=3)
            self.assertAlmostEqual(r["residual"], 0, places=4)
        self.assertEqual(t["calibration_notes"], [{"note": "(none)"}])
        for f in ("calib-reads", "calib-moves"):
            self.assertIn(f, self.report["figures"])
        with open(os.path.join(self.out, "index.html")) as f:
            page = f.read()
        self.assertIn("Calibration: the measured cost file against the built-in costs", page)
        self.assertLess(page.index("id='calibration_reads'"), page.index("calib-reads.png"))
        # the runner's notes are on the page: an APU's flat GTT reads, raised to the bound
        import test_calibrate
        raw = os.path.join(self.tmp, "apu.raw.jsonl")
        with open(raw, "w") as f:
            for rec in test_calibrate.synthetic(
                    renderer="AMD PALM (DRM 2.50.0 / 6.12.0-vramlab)",
                    ratio={k: 0.001 for k in ("vertex", "texture", "rt")})[0]:
                f.write(json.dumps(rec) + "\n")
        apu = os.path.join(self.tmp, "apu.json")
        subprocess.run([PY, os.path.join(SRC, "hw", "vramlab-hw"), "calibrate", "--from-raw", raw,
                        "--out", apu], check=True, capture_output=True)
        o5 = os.path.join(self.tmp, "o5")
        r = subprocess.run([PY, REPORT, "-o", o5, "--calibration", apu], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(o5, "index.html")) as f:
            page5 = f.read()
        self.assertIn("<h2 id='calibration_notes'>Calibration: the runner's notes and warnings", page5)
        self.assertIn("raised to the bound 0.01 (PALM is an APU: GTT and VRAM are the same "
                      "memory)", page5)
        # a cost file without measurements is not a calibration result
        r = subprocess.run([PY, REPORT, "-o", os.path.join(self.tmp, "o4"), "--calibration",
                            os.path.join(SRC, "costs", "default.json")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("default.json: a cost file without measurements: not a calibration result",
                      r.stderr)

    def report_module(self):
        """vramlab-report as a module (a script without .py: loaded by path)."""
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("vramlab_report", REPORT)
        rep = importlib.util.module_from_spec(importlib.util.spec_from_loader("vramlab_report",
                                                                              loader))
        loader.exec_module(rep)
        return rep

    def decide_page(self, name, extra):
        """A decide JSON made with EXTRA, its page, its report.json."""
        js, out = os.path.join(self.tmp, f"{name}.json"), os.path.join(self.tmp, name)
        subprocess.run([VRAMLAB, "decide", "--quiet", "--corpus",
                        os.path.join(SRC, "..", "traces", "nexuiz1.bin"), "--live",
                        os.path.join(SRC, "..", "traces", "live", "glsmoke-barts-6mib.vrl"),
                        "--json", js] + extra, check=True, capture_output=True)
        r = subprocess.run([PY, REPORT, "-o", out, "--decide", js], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "index.html")) as f, \
             open(os.path.join(out, "report.json")) as g:
            return f.read(), json.load(g)

    def assert_users_words(self, report):
        """No "boot 6.14:lru on 6.12": what one runs, boots and is judged against in README.md's
        words, the model's names (KERNEL:rule, lru) only in their own columns."""
        internal = re.compile(r"\d:[a-z]|\blru\b|\bfix:")
        for table in ("what_to_boot", "decide"):
            for row in report["tables"][table]:
                for col in ("you run", "boot", "against"):
                    self.assertNotRegex(row[col], internal, (table, col, row))

    def test_decide_page_says_what_it_is(self):
        """The page names its table's size from the JSON (the setup's: 1 + 1 traces, 3 boards,
        2 bands; the demo's is 3 + 10, 4 boards), says it is smaller than README.md's, how dead
        buffer ids were read and that nothing was measured; README.md's words for what to boot."""
        with open(os.path.join(self.out, "index.html")) as f:
            page = f.read()
        self.assertIn("<b>A small table</b>: 1 shared game trace (1 clean) at 4-32 MiB and 1 live "
                      "program at 4-32 MiB, ensembles of 3 boards, 2 cost bands", page)
        self.assertIn("README.md's \"What to boot\" is the full one (21 clean game traces", page)
        self.assertIn("Dead buffer ids (events on destroyed ids, a defect of the thesis's converter "
                      "in the shared traces): skipped (<code>--on-destroyed skip</code>); "
                      "README.md's table reads them repaired", page)
        self.assertIn("Nothing here was measured on a Radeon card: every figure is modelled", page)
        self.assert_users_words(self.report)
        boot = {(r["you run"], r["boot"], r["against"]) for r in self.report["tables"]["what_to_boot"]}
        self.assertIn(("6.12 LTS", "radeon.topdown_threshold (min-max placement)", "stock 6.12"), boot)
        self.assertIn(("6.14 to 7.2", "nothing (stock: least recently placed)", "stock 6.12"), boot)
        # the demo's policies, repaired as the demo reads them: the words of README.md's table
        page, report = self.decide_page("demo-like", [
            "--vram", "32", "--live-vram", "6", "--ensemble", "2", "--gtt-cost", "1,2",
            "--policies", "lru,6.14+fix:lru,window,6.14:window,6.14+fix:window",
            "--baselines", "6.14:lru", "--on-destroyed", "repair"])
        self.assertIn("ensembles of 2 boards, 2 cost bands", page)
        self.assertIn("repaired (<code>--on-destroyed repair</code>), as README.md's table reads "
                      "them.", page)
        self.assert_users_words(report)
        boot = {(r["you run"], r["boot"], r["against"]): r
                for r in report["tables"]["what_to_boot"]}
        for row in (("6.12 LTS", "nothing (stock: LRU order)", ""),
                    ("6.12 LTS", "radeon.evict_window=1024 (window eviction)", "stock 6.12"),
                    ("6.14 to 7.2", "nothing (stock: least recently placed)", "stock 6.12"),
                    ("6.14 to 7.2", "the two fixes (patches/linux-7.2/)", "stock 7.2"),
                    ("6.14 to 7.2", "the fixes, then radeon.evict_window=1024 (window eviction)",
                     "the fixes (= 6.12's order)"),
                    ("6.14 to 7.2", "radeon.evict_window=1024 (window eviction) without the fixes",
                     "stock 7.2")):
            self.assertIn(row, boot)
        self.assertEqual(boot[row]["model's names"], "6.14:window vs 6.14:lru")  # a detail
        self.assertNotIn("boot 6.14:lru", page)

    def test_decide_note_of_the_full_table(self):
        """The same code words the full table's page (make decide): the size from its JSON."""
        rep = self.report_module()
        bands = [{"label": f"gtt {x}x, PCIe {p} GB/s"} for x in (1, 2, 4) for p in (4, 8)]
        traces = ([{"group": "corpus", "clean": k < 21} for k in range(27)] +
                  [{"group": "live", "clean": True} for _ in range(10)])
        j = {"config": {"ensemble": 16, "bands": bands, "vram_mib": [32, 64, 128, 256],
                        "live_vram_mib": [6, 8, 12, 16, 32], "on_destroyed": "repair",
                        "vram_gbps": 232.0, "move_latency_us": 20.0,
                        "costs": {"source": "assumed"}}, "traces": traces}
        note = rep.decide_note(j)
        self.assertIn("<b>The full table</b>: 27 shared game traces (21 clean) at 32-256 MiB and "
                      "10 live programs at 6-32 MiB, ensembles of 16 boards, 6 cost bands", note)
        self.assertIn("Nothing here was measured on a Radeon card", note)
        j["config"]["costs"] = {"source": "measured", "card": "AMD BARTS [1002:6738]"}
        self.assertIn("a cost file measured on AMD BARTS [1002:6738]; every figure is still "
                      "modelled", rep.decide_note(j))

    def test_symlog_labels_do_not_run_together(self):
        """The per-trace figures' symlog axes: labels at 0, +-10%, +-100%, ... only, none of them
        overlapping (matplotlib's own put 10^0, 0 and -10^0 on top of each other)."""
        rep = self.report_module()
        import matplotlib.pyplot as plt
        for values in ([-15.0, 0.5, 1420.9], [-2.0, 0.1, 3.0], [-60.0, 123.0], [0.0]):
            fig, ax = plt.subplots(figsize=(10, 2.6))
            ax.plot(range(len(values)), values, "o")
            rep.symlog_percent(ax, values)
            fig.canvas.draw()
            labels = [(t.get_text(), t.get_window_extent()) for t in ax.get_yticklabels()
                      if t.get_visible() and t.get_text()]
            texts = [t for t, _ in labels]
            self.assertIn("0", texts, values)
            self.assertIn("+10%", texts, values)
            self.assertIn("-10%", texts, values)
            if max(values) > 1000:
                self.assertIn("+1,000%", texts)
            for (a, ba), (b, bb) in zip(labels, labels[1:]):
                self.assertFalse(ba.overlaps(bb), (values, a, b))
            plt.close(fig)

    def test_bad_input_names_file(self):
        bad = os.path.join(self.tmp, "bad.xml")
        with open(bad, "w") as f:
            f.write("<PhoronixTestSuite><Result><Title>T</Title><Data><Entry><Identifier>a"
                    "</Identifier><RawString>1:x:3</RawString></Entry></Data></Result>"
                    "</PhoronixTestSuite>")
        r = subprocess.run([PY, REPORT, "-o", os.path.join(self.tmp, "o2"), "--pts", bad],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("bad.xml: Result 1 (T), entry 'a'", r.stderr)

    def browse(self, page):
        exe = chromium()
        if not exe:
            self.fail("no chromium (ci/install-deps.sh installs Debian's chromium)")
        r = subprocess.run([exe, "--headless=new", "--no-sandbox", "--disable-gpu",
                            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                            "--dump-dom", "file://" + page], capture_output=True, text=True,
                           timeout=120)
        console = [l for l in r.stderr.splitlines() if "CONSOLE" in l]
        return r.stdout, console

    def test_page_in_headless_chromium(self):
        dom, console = self.browse(os.path.join(self.out, "index.html"))
        self.assertEqual(console, [], console)
        n = len(self.report["figures"])
        self.assertIn(f'data-figures="ok {n}"', dom)
        # ... and the check can fail: a page whose figure is gone
        broken = os.path.join(self.tmp, "broken")
        shutil.copytree(self.out, broken)
        os.remove(os.path.join(broken, "train.png"))
        dom, console = self.browse(os.path.join(broken, "index.html"))
        self.assertIn('data-figures="missing train"', dom)
        self.assertTrue(any("figures missing: train" in l for l in console), console)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
