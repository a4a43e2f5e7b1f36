#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of vramlab-hw without a Radeon: --dry-run prints every command in order and changes
nothing; the refusal without a radeon device; verify against /proc/cmdline and module
parameters (fake files); the grub edit, its backup and restore."""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import stat
import tempfile
import unittest

HW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vramlab-hw")


def hw(*args, env=None):
    r = subprocess.run([sys.executable, HW, *args], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout, r.stderr


class DryRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.grub = os.path.join(self.tmp.name, "grub")
        self.grub_text = ('GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet radeon.vramlimit=128"\n'
                          'GRUB_CMDLINE_LINUX=""\n')
        with open(self.grub, "w") as f:
            f.write(self.grub_text)

    def tearDown(self):
        self.tmp.cleanup()

    def test_refuses_without_radeon(self):
        rc, out, err = hw("--dry-run", "prepare", "--vramlimit", "256")
        self.assertNotEqual(rc, 0)
        self.assertIn("no radeon device on this machine", err)
        self.assertIn("--allow-no-radeon", err)

    def test_prepare_prints_every_command_in_order_and_changes_nothing(self):
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "prepare", "--vramlimit", "256",
                          "--grub", self.grub)
        self.assertEqual(rc, 0, err)
        cmds = [l for l in out.splitlines() if l.startswith("+ ")]
        order = ["kernel deb", "dpkg -i", "edit " + self.grub, "update-grub", "mesa build",
                 "mkdir -p /opt/vramlab/mesa", "cp -a"]
        pos = [next(i for i, c in enumerate(cmds) if o in c) for o in order]
        self.assertEqual(pos, sorted(pos), cmds)
        # the diff shows the new command line, the old vramlimit replaced
        self.assertIn('+GRUB_CMDLINE_LINUX_DEFAULT="quiet radeon.vramlimit=256 '
                      'radeon.topdown_threshold=0 radeon.bo_score=0 radeon.evict_window=0 '
                      'radeon.move_budget_mbps=0 radeon.move_budget_ms=200 radeon.lab_cs_end=0"', out)
        self.assertIn('-GRUB_CMDLINE_LINUX_DEFAULT="quiet radeon.vramlimit=128"', out)
        with open(self.grub) as f:
            self.assertEqual(f.read(), self.grub_text)  # dry run: unchanged

    def test_run_matrix(self):
        res = os.path.join(self.tmp.name, "results")
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "run", "--results", res,
                          "--pts", "/nonexistent/phoronix-test-suite")
        self.assertEqual(rc, 0, err)
        runs = [l for l in out.splitlines() if "batch-benchmark" in l]
        self.assertEqual(len(runs), 12 * 2)  # the thesis's 12 tests x baseline, scoring
        self.assertTrue(all("FORCE_TIMES_TO_RUN=3" in l for l in runs))
        # interleaved configurations, result identifiers per configuration
        self.assertIn("TEST_RESULTS_IDENTIFIER=baseline", runs[0])
        self.assertIn("TEST_RESULTS_IDENTIFIER=scoring", runs[1])
        self.assertIn("RADEON_BO_SCORE=1", runs[1])
        self.assertNotIn("LD_LIBRARY_PATH", runs[0])  # the baseline is the system's Mesa
        # batch mode runs every option combination unless told not to: the runner turns that
        # off first and names every option of every profile (PTS's pts_test_run_manager)
        lines = out.splitlines()
        cfg = next(k for k, l in enumerate(lines) if "user-config-set" in l)
        self.assertLess(cfg, next(k for k, l in enumerate(lines) if "batch-benchmark" in l))
        self.assertIn("RunAllTestCombinations=FALSE", lines[cfg])
        self.assertIn("PRESET_OPTIONS='xonotic.auto-resolution=1920 x 1080;"
                      "xonotic.effects-quality=Ultimate'", runs[-1])
        self.assertIn("PRESET_OPTIONS='openarena.resolution=1920 x 1080'", runs[2])
        self.assertIn("batch-benchmark pts/padman", runs[4])  # World of Padman's profile
        self.assertIn("nexuiz.hdr-rendering=Yes;nexuiz.play-sound=Off", runs[0])
        # counters before and after each run, in order
        lines = out.splitlines()
        i = next(k for k, l in enumerate(lines) if "batch-benchmark" in l)
        self.assertIn("radeon_mm_stats", lines[i - 1])
        self.assertIn(".before.txt", lines[i - 1])
        self.assertIn(".after.txt", lines[i + 1])
        self.assertIn("not installed", out)  # says how to install PTS
        self.assertFalse(os.path.exists(res))  # dry run: nothing made

    def test_run_tests_and_resolution(self):
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "run", "--results", "x", "--pts",
                          "/nonexistent/pts", "--resolution", "1024x768", "--tests",
                          "xonotic:xonotic.effects-quality=Low,pts/openarena:resolution=800 x 600")
        self.assertEqual(rc, 0, err)
        runs = [l for l in out.splitlines() if "batch-benchmark" in l]
        self.assertEqual(len(runs), 4)
        self.assertIn("PRESET_OPTIONS='xonotic.auto-resolution=1024 x 768;"
                      "xonotic.effects-quality=Low'", runs[0])
        self.assertIn("PRESET_OPTIONS='openarena.resolution=800 x 600'", runs[2])
        self.assertIn("xonotic-low-baseline.before.txt", out)
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "run", "--results", "x", "--pts",
                          "/nonexistent/pts", "--resolution", "big")
        self.assertNotEqual(rc, 0)
        self.assertIn("--resolution 'big': give WIDTHxHEIGHT", err)

    def test_run_needs_three_runs_and_known_configs(self):
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "run", "--results", "x", "--runs", "2")
        self.assertEqual(rc, 2)  # usage, one line, before anything is printed
        self.assertIn("--runs: 2 is outside 3..1000", err)
        self.assertEqual(out, "")
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "run", "--results", "x",
                          "--configs", "baseline,magic")
        self.assertIn("unknown configuration 'magic'", err)

    def test_missing_pts_without_dry_run(self):
        rc, out, err = hw("--allow-no-radeon", "run", "--results", self.tmp.name,
                          "--pts", "/nonexistent/pts")
        self.assertNotEqual(rc, 0)
        self.assertIn("not installed", err)
        self.assertIn("install-sh", err)

    def test_verify(self):
        params = os.path.join(self.tmp.name, "params")
        os.mkdir(params)
        # bo_score is a bool parameter: sysfs shows N or Y
        for p, v in (("vramlimit", "256"), ("topdown_threshold", "0"), ("bo_score", "N"),
                     ("evict_window", "0"), ("move_budget_mbps", "0"), ("move_budget_ms", "200"),
                     ("lab_cs_end", "0")):
            with open(os.path.join(params, p), "w") as f:
                f.write(v + "\n")
        cmdline = os.path.join(self.tmp.name, "cmdline")
        with open(cmdline, "w") as f:
            f.write("BOOT_IMAGE=/vmlinuz root=/dev/sda1 radeon.vramlimit=256 "
                    "radeon.topdown_threshold=0 radeon.bo_score=0 radeon.evict_window=0 "
                    "radeon.move_budget_mbps=0 radeon.move_budget_ms=200 radeon.lab_cs_end=0\n")
        rc, out, err = hw("--allow-no-radeon", "verify", "--vramlimit", "256",
                          "--proc-cmdline", cmdline, "--sys-params", params)
        self.assertEqual(rc, 0, err)
        self.assertIn("are as prepared", out)
        with open(os.path.join(params, "bo_score"), "w") as f:
            f.write("Y\n")
        rc, out, err = hw("--allow-no-radeon", "verify", "--vramlimit", "128",
                          "--proc-cmdline", cmdline, "--sys-params", params)
        self.assertNotEqual(rc, 0)
        self.assertIn("radeon.vramlimit=256, want 128", err)
        self.assertIn("bo_score: Y, want 0", err)


class PrepareDryRun(unittest.TestCase):
    """prepare's dry run on a grub file of its own: prepare() its output, prepared() the
    output and the command line it would boot."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.grub = os.path.join(self.tmp.name, "grub")
        with open(self.grub, "w") as f:
            f.write('GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n')

    def tearDown(self):
        self.tmp.cleanup()

    def prepare(self, *opts):
        return hw("--dry-run", "--allow-no-radeon", "prepare", "--vramlimit", "64",
                  "--grub", self.grub, *opts)

    def prepared(self, *opts):
        rc, out, err = self.prepare(*opts)
        self.assertEqual(rc, 0, err)
        line = next(l for l in out.splitlines() if l.startswith("+GRUB_CMDLINE_LINUX_DEFAULT"))
        return out, line.split('"')[1].split()


class Modes(PrepareDryRun):
    def cmdline(self, *opts):
        return self.prepared(*opts)[1]

    def test_a_mode_sets_its_parameters_and_an_option_overrides_it(self):
        words = self.cmdline("--mode", "window+budget")
        for w in ("radeon.topdown_threshold=0", "radeon.bo_score=0", "radeon.evict_window=1024",
                  "radeon.move_budget_mbps=1000", "radeon.move_budget_ms=200"):
            self.assertIn(w, words)
        words = self.cmdline("--mode", "window+budget", "--move-budget-mbps", "500")
        self.assertIn("radeon.move_budget_mbps=500", words)
        self.assertIn("radeon.evict_window=1024", words)
        words = self.cmdline("--mode", "stock")
        for w in ("radeon.topdown_threshold=0", "radeon.bo_score=0", "radeon.evict_window=0",
                  "radeon.move_budget_mbps=0", "radeon.lab_cs_end=0"):
            self.assertIn(w, words)
        # the 6.14 A/B: stock 6.14's submission path against the fix (lab emulation)
        for mode, end in (("6.14", "1"), ("6.14+fix", "2"), ("6.14:window", "1")):
            words = self.cmdline("--mode", mode)
            self.assertIn("radeon.lab_cs_end=" + end, words)
            self.assertIn("radeon.bo_score=0", words)
        self.assertIn("radeon.evict_window=1024", self.cmdline("--mode", "6.14+fix:window"))

    def test_out_of_range_parameters_are_refused_by_name(self):
        for opt, bad in (("--evict-window", "1025"), ("--move-budget-mbps", "-1"),
                         ("--lab-cs-end", "3"), ("--lab-cs-end", "-1"),
                         ("--move-budget-ms", "0"), ("--move-budget-ms", "10001"),
                         ("--evict-window", "x")):
            rc, out, err = hw("--dry-run", "--allow-no-radeon", "prepare", "--vramlimit", "64",
                              "--grub", self.grub, opt, bad)
            self.assertEqual(rc, 2, (opt, bad))
            self.assertIn(opt, err)
        for args in (("prepare", "--vramlimit", "-1"),
                     ("prepare", "--vramlimit", "64", "--kernel-deb", "/nonexistent.deb"),
                     ("calibrate", "--sizes", "abc"), ("calibrate", "--move-sizes", "1M,x"),
                     ("calibrate", "--over", "-2")):
            rc, out, err = hw("--dry-run", "--allow-no-radeon", *args, "--grub", self.grub) \
                if args[0] == "prepare" else hw("--dry-run", "--allow-no-radeon", *args)
            self.assertEqual(rc, 2, (args, err))
            self.assertIn(args[-2], err)
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "prepare", "--vramlimit", "64",
                          "--grub", self.grub, "--mode", "lru")
        self.assertEqual(rc, 2)
        self.assertIn("invalid choice", err)

    def test_run_names_the_results_by_the_booted_mode(self):
        params = os.path.join(self.tmp.name, "params")
        os.mkdir(params)
        values = {"topdown_threshold": 0, "bo_score": "N", "evict_window": 1024,
                  "move_budget_mbps": 0, "move_budget_ms": 200, "lab_cs_end": 0}
        for p, v in values.items():
            with open(os.path.join(params, p), "w") as f:
                f.write(f"{v}\n")
        res = os.path.join(self.tmp.name, "results")
        args = ("--dry-run", "--allow-no-radeon", "run", "--results", res, "--tests",
                "openarena", "--pts", "/nonexistent/pts", "--sys-params", params)
        rc, out, err = hw(*args)
        self.assertEqual(rc, 0, err)
        self.assertIn("the booted kernel's mode: window", out)
        self.assertIn("TEST_RESULTS_NAME=vramlab-vramlimit-unknown-window", out)
        with open(os.path.join(params, "move_budget_mbps"), "w") as f:
            f.write("1000\n")
        rc, out, err = hw(*args)
        self.assertIn("the booted kernel's mode: window+budget", out)
        for p, v in (("move_budget_mbps", 0), ("evict_window", 0), ("lab_cs_end", 1)):
            with open(os.path.join(params, p), "w") as f:
                f.write(f"{v}\n")
        rc, out, err = hw(*args)
        self.assertIn("TEST_RESULTS_NAME=vramlab-vramlimit-unknown-6.14 ", out)
        with open(os.path.join(params, "move_budget_mbps"), "w") as f:
            f.write("7\n")
        rc, out, err = hw(*args)
        self.assertIn("the booted kernel's mode: custom", out)
        os.remove(os.path.join(params, "evict_window"))
        rc, out, err = hw(*args)
        self.assertIn("the booted kernel's mode: unknown", out)


class Kernel72(PrepareDryRun):
    """prepare, verify and run for the 7.2 series' kernel (make -C kernel deb-7.2): its own
    parameters, its modes, admission's GTT cost from a cost file, and what it refuses."""

    P72 = ("evict_window", "evict_predict", "evict_admit", "evict_unused")
    COST = ('{"format": "vramlab-cost", "version": 1, "source": "measured", "card": "HD 6870",\n'
            ' "pcie_gbps": 6.0, "vram_gbps": 100, "move_latency_us": 30, "gtt_reads_per_use": %s}\n')

    def cmdline(self, *opts):
        return self.prepared(*opts)

    def cost(self, text, name=None):
        path = os.path.join(self.tmp.name, name or f"card{len(os.listdir(self.tmp.name))}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_a_7_2_mode_builds_the_7_2_package_and_sets_only_its_parameters(self):
        out, words = self.cmdline("--mode", "7.2:window-predict+unused")
        self.assertIn("kernel deb-7.2", out)
        self.assertNotIn("kernel deb\n", out)
        self.assertEqual(words, ["quiet", "radeon.vramlimit=64", "radeon.evict_window=1024",
                                 "radeon.evict_predict=1", "radeon.evict_admit=0",
                                 "radeon.evict_unused=1024"])
        self.assertIn("verify --kernel 7.2 --vramlimit 64 --evict-window 1024", out)
        # --kernel 7.2 alone: every rule off (stock 7.2 with the fixes)
        out, words = self.cmdline("--kernel", "7.2")
        self.assertEqual(words[2:], [f"radeon.{p}=0" for p in self.P72])
        out, words = self.cmdline("--mode", "7.2:window", "--evict-window", "256")
        self.assertIn("radeon.evict_window=256", words)
        # without --kernel or a 7.2 mode, the 6.12 lab kernel as before
        out, words = self.cmdline()
        self.assertIn("radeon.topdown_threshold=0", words)
        self.assertNotIn("radeon.evict_predict=0", words)

    def test_admission_takes_the_cards_gtt_cost(self):
        for mode in ("7.2:window-predict+admit", "7.2:window-predict+admit+unused"):
            rc, out, err = self.prepare("--mode", mode)
            self.assertEqual(rc, 1, err)
            self.assertIn("--cost card.json", err)
            self.assertNotIn("+ make", out)  # refused before anything is built
        card = self.cost(self.COST % 1.5)
        out, words = self.cmdline("--mode", "7.2:window-predict+admit", "--cost", card)
        self.assertIn("radeon.evict_admit=1500", words)
        self.assertIn("radeon.evict_unused=0", words)
        out, words = self.cmdline("--mode", "7.2:window-predict+admit", "--evict-admit", "250")
        self.assertIn("radeon.evict_admit=250", words)
        # rounded as the model's gtt_read_permille() (lround: halves away from zero), not as
        # Python's round() (halves to even: 62 and 312)
        for g, admit in ((0.0625, 63), (0.3125, 313), (0.01, 10), (100, 100000)):
            self.assertIn(f"radeon.evict_admit={admit}", self.cmdline(
                "--mode", "7.2:window-predict+admit", "--cost", self.cost(self.COST % g))[1])
        # what the kernel model's cost-file reader refuses (harness/docs/cost-file.md)
        good = self.COST % 1.5
        for text, what in (
                ('{"format": "vramlab-cost",\n "version": }', "byte 39 (line 2, column 13)"),
                ('{"card": "Ré",\n "version": }', "byte 28 (line 2, column 13)"),
                ('[1, 2]', "not a cost file"),
                (good.replace('"vramlab-cost"', '"vramlab-sim"'), "format: 'vramlab-sim'"),
                (good.replace('"version": 1', '"version": 2'), "version: 2 is not supported"),
                (good.replace('"version": 1', '"version": 1.0'), "version: 1.0 is not"),
                (good.replace('"version": 1', '"version": true'), "version: True is not"),
                (good.replace('"measured"', '"guessed"'), "source: 'guessed'"),
                (good.replace('"HD 6870"', '7'), "card: must be a string"),
                (good.replace('"gtt_reads_per_use": 1.5', '"gtt_reads_per_use": true'),
                 "gtt_reads_per_use: True is not a number"),
                (good.replace('1.5', '"1.5"'), "gtt_reads_per_use: '1.5' is not a number"),
                (good.replace(', "gtt_reads_per_use": 1.5', ''), "gtt_reads_per_use: missing"),
                (good.replace('1.5', '0.0004'), "gtt_reads_per_use: 0.0004 is out of range"),
                (good.replace('1.5', '101'), "gtt_reads_per_use: 101 is out of range 0.01..100"),
                (good.replace('1.5', 'NaN'), "NaN is not JSON"),
                (good.replace('1.5', '1e999'), "gtt_reads_per_use: inf is out of range"),
                (good.replace('"vram_gbps": 100', '"vram_gbps": 4'), "vram_gbps: 4 is below"),
                (good.replace('"move_latency_us": 30', '"move_latency_us": 0'),
                 "move_latency_us: 0 is out of range 0.1..10000")):
            bad = self.cost(text, "bad.json")
            rc, out, err = self.prepare("--mode", "7.2:window-predict+admit", "--cost", bad)
            self.assertEqual(rc, 1, text)
            self.assertIn(f"--cost {bad}: ", err)
            self.assertIn(what, err)
            self.assertNotIn("+ make", out)
        with open(self.cost("", "bin.json"), "wb") as f:
            f.write(b'{"format": "vramlab-cost", "notes": "\xff"}')
        rc, out, err = self.prepare("--kernel", "7.2", "--cost", f.name)
        self.assertIn("byte 37: not UTF-8", err)
        rc, out, err = self.prepare("--mode", "7.2:window-predict+admit", "--cost", card,
                                    "--evict-admit", "5")
        self.assertIn("give one", err)

    def test_a_switch_of_kernels_leaves_no_parameter_of_the_other(self):
        with open(self.grub, "w") as f:
            f.write('GRUB_CMDLINE_LINUX_DEFAULT="quiet radeon.bo_score=1 radeon.lab_cs_end=2 '
                    'radeon.topdown_threshold=512 radeon.audio=1"\n')
        words = self.cmdline("--mode", "7.2:window")[1]
        self.assertEqual(words, ["quiet", "radeon.audio=1", "radeon.vramlimit=64",
                                 "radeon.evict_window=1024", "radeon.evict_predict=0",
                                 "radeon.evict_admit=0", "radeon.evict_unused=0"])
        with open(self.grub, "w") as f:
            f.write('GRUB_CMDLINE_LINUX_DEFAULT="radeon.evict_predict=1 radeon.evict_unused=9"\n')
        words = self.cmdline("--mode", "window")[1]
        self.assertFalse([w for w in words if "predict" in w or "unused" in w], words)

    def test_prepare_installs_the_newest_package_built(self):
        cache = os.path.join(self.tmp.name, "cache")
        build = os.path.join(cache, "build-7.2")
        os.makedirs(build)
        for i, rev in enumerate(("10", "9", "11")):
            deb = os.path.join(build, f"linux-image-7.2.13-vramlab_7.2.13-{rev}_amd64.deb")
            open(deb, "w").close()
            os.utime(deb, (1000 + i, 1000 + i))
        open(os.path.join(build, "linux-image-7.2.13-vramlab-dbg_7.2.13-12_amd64.deb"),
             "w").close()
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "prepare", "--vramlimit", "64",
                          "--grub", self.grub, "--kernel", "7.2", env={"VRAMLAB_CACHE": cache})
        self.assertEqual(rc, 0, err)
        self.assertIn("+ dpkg -i " + os.path.join(build, "linux-image-7.2.13-vramlab_7.2.13-11"),
                      out)

    def test_what_the_other_kernel_has_or_radeon_would_ignore_is_refused(self):
        for opts, what in ((("--kernel", "7.2", "--bo-score", "1"), "--bo-score: the 7.2 kernel"),
                           (("--mode", "7.2:window", "--lab-cs-end", "1"), "--lab-cs-end"),
                           (("--evict-predict", "1"), "--evict-predict: the 6.12 kernel"),
                           (("--mode", "window", "--evict-unused", "9"), "--evict-unused"),
                           (("--mode", "7.2", "--kernel", "6.12"), "--mode 7.2 is a mode of"),
                           (("--cost", __file__), "--cost sets radeon.evict_admit"),
                           (("--kernel", "7.2", "--evict-predict", "1"),
                            "radeon.evict_predict=1 needs radeon.evict_window"),
                           (("--mode", "7.2:window", "--evict-unused", "5"),
                            "radeon.evict_unused=5 needs radeon.evict_predict"),
                           (("--mode", "7.2:window", "--evict-admit", "5"),
                            "radeon.evict_admit=5 needs radeon.evict_predict")):
            rc, out, err = self.prepare(*opts)
            self.assertEqual(rc, 1, (opts, err))
            self.assertIn(what, err)
        for opt, bad in (("--evict-admit", "100001"), ("--evict-unused", "1048577"),
                         ("--evict-predict", "2"), ("--kernel", "6.14")):
            rc, out, err = self.prepare(opt, bad)
            self.assertEqual(rc, 2, (opt, bad))
            self.assertIn(opt, err)

    def params(self, **values):
        params = os.path.join(self.tmp.name, "params")
        os.makedirs(params, exist_ok=True)
        for p, v in values.items():
            with open(os.path.join(params, p), "w") as f:
                f.write(f"{v}\n")
        return params

    def test_verify_reads_a_bool_parameter_as_sysfs_shows_it(self):
        params = self.params(vramlimit=64, evict_window=1024, evict_predict="Y", evict_admit=0,
                             evict_unused=1024)
        cmdline = os.path.join(self.tmp.name, "cmdline")
        with open(cmdline, "w") as f:
            f.write("root=/dev/sda1 radeon.vramlimit=64 radeon.evict_window=1024 "
                    "radeon.evict_predict=1 radeon.evict_admit=0 radeon.evict_unused=1024\n")
        args = ("--allow-no-radeon", "verify", "--vramlimit", "64", "--mode",
                "7.2:window-predict+unused", "--proc-cmdline", cmdline, "--sys-params", params)
        rc, out, err = hw(*args)
        self.assertEqual(rc, 0, err)
        self.assertIn("ok: radeon.evict_predict = Y", out)
        self.params(evict_predict="N")
        rc, out, err = hw(*args)
        self.assertEqual(rc, 1)
        self.assertIn("evict_predict: N, want 1", err)
        os.remove(os.path.join(params, "evict_unused"))  # not the series' 7.2 kernel
        rc, out, err = hw(*args)
        self.assertEqual(rc, 1)
        self.assertIn("is this the series' 7.2 kernel", err)

    def test_run_names_a_7_2_mode_and_reads_no_move_counters(self):
        res = os.path.join(self.tmp.name, "results")
        params = self.params(evict_window=1024, evict_predict="Y", evict_admit=1500,
                             evict_unused=0)
        args = ("--dry-run", "--allow-no-radeon", "run", "--results", res, "--tests",
                "openarena", "--pts", "/nonexistent/pts", "--sys-params", params)
        rc, out, err = hw(*args)
        self.assertEqual(rc, 0, err)
        self.assertIn("the booted kernel's mode: 7.2:window-predict+admit\n", out)
        self.assertIn("TEST_RESULTS_NAME=vramlab-vramlimit-unknown-7.2:window-predict+admit ",
                      out)
        self.assertNotIn("+ cat", out)
        self.assertIn("and the traces; `vramlab report`", out)
        self.params(evict_unused=1024)
        self.assertIn("mode: 7.2:window-predict+admit+unused\n", hw(*args)[1])
        self.params(evict_admit=0, evict_unused=7)
        self.assertIn("mode: 7.2:custom\n", hw(*args)[1])
        self.params(evict_window=0, evict_predict="N", evict_unused=0)
        self.assertIn("mode: 7.2\n", hw(*args)[1])
        # the 6.12 lab kernel's counters are still read around each run
        params6 = os.path.join(self.tmp.name, "p6")
        os.mkdir(params6)
        for p in ("topdown_threshold", "bo_score", "evict_window", "move_budget_mbps",
                  "move_budget_ms", "lab_cs_end"):
            with open(os.path.join(params6, p), "w") as f:
                f.write("N\n" if p == "bo_score" else "0\n")
        rc, out, err = hw(*args[:-1], params6)
        self.assertIn("the booted kernel's mode: stock", out)
        self.assertEqual(out.count("+ cat /sys/kernel/debug/dri/0/radeon_mm_stats"), 4)


def load_hw():
    """vramlab-hw as a module: prepare's grub edit and restore without running update-grub."""
    loader = importlib.machinery.SourceFileLoader("vramlab_hw", HW)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("vramlab_hw", loader))
    loader.exec_module(module)
    return module


class BootConfig(unittest.TestCase):
    """prepare keeps a backup of the boot configuration; restore puts it back; their dry runs
    (before or after the command's name) change nothing, also where there is no grub file."""
    ORIG = 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet splash"\n'

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.grub = os.path.join(self.tmp.name, "grub")
        self.backup = self.grub + ".vramlab-orig"
        with open(self.grub, "w") as f:
            f.write(self.ORIG)
        os.chmod(self.grub, 0o640)
        self.mod = load_hw()
        ran, said = self.ran, self.said = [], []

        class Recording(self.mod.Box):
            def run(self, argv, env=None, check=True, stdout=None):
                ran.append(argv)  # update-grub is not run here
                return 0

            def say(self, text):
                said.append(text)
        self.box = Recording(False)
        self.args = type("Args", (), {"grub": self.grub})

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, path):
        with open(path) as f:
            return f.read()

    def test_prepare_keeps_the_first_backup_with_its_mode(self):
        self.mod.edit_grub(self.args, self.box, {"vramlimit": 256})
        self.assertEqual(self.read(self.backup), self.ORIG)
        self.assertIn("radeon.vramlimit=256", self.read(self.grub))
        for path in (self.grub, self.backup):
            self.assertEqual(oct(stat.S_IMODE(os.stat(path).st_mode)), oct(0o640), path)
        self.mod.edit_grub(self.args, self.box, {"vramlimit": 128})  # a second prepare
        self.assertEqual(self.read(self.backup), self.ORIG)  # still the configuration before
        self.assertIn("radeon.vramlimit=128", self.read(self.grub))
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["grub", "grub.vramlab-orig"])

    def test_a_planted_backup_name_is_never_written_through(self):
        victim = os.path.join(self.tmp.name, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        os.symlink(victim, self.backup)
        self.mod.edit_grub(self.args, self.box, {"vramlimit": 256})
        self.assertEqual(self.read(victim), "precious\n")
        self.assertIn(f"+ keep {self.backup} (an earlier prepare's: {self.grub} before vramlab)",
                      self.said)

    def test_restore_undoes_prepare(self):
        self.mod.edit_grub(self.args, self.box, {"vramlimit": 256})
        self.mod.restore(self.args, self.box)
        self.assertEqual(self.read(self.grub), self.ORIG)
        self.assertEqual(oct(stat.S_IMODE(os.stat(self.grub).st_mode)), oct(0o640))
        self.assertFalse(os.path.lexists(self.backup))
        self.assertEqual(self.ran, [["update-grub"]])

    def test_restore_dry_run_prints_the_diff_and_changes_nothing(self):
        self.mod.edit_grub(self.args, self.box, {"vramlimit": 256})
        edited = self.read(self.grub)
        for args in (("--dry-run", "restore", "--grub", self.grub),
                     ("restore", "--dry-run", "--grub", self.grub)):
            rc, out, err = hw(*args)
            self.assertEqual(rc, 0, err)
            self.assertIn(f"+ edit {self.grub}:", out)
            self.assertIn('-GRUB_CMDLINE_LINUX_DEFAULT="quiet splash radeon.vramlimit=256"', out)
            self.assertIn('+GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"', out)
            self.assertIn(f"+ rm {self.backup}", out)
            self.assertIn("+ update-grub", out)
            self.assertEqual(self.read(self.grub), edited)
            self.assertEqual(self.read(self.backup), self.ORIG)

    def test_restore_without_a_backup_says_so(self):
        rc, out, err = hw("--dry-run", "restore", "--grub", self.grub)
        self.assertEqual(rc, 1)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("nothing to restore", err)

    def test_dry_run_without_grub_says_what_it_would_do(self):
        none = os.path.join(self.tmp.name, "none", "grub")
        rc, out, err = hw("--dry-run", "--allow-no-radeon", "prepare", "--vramlimit", "256",
                          "--grub", none)
        self.assertEqual(rc, 0, err)
        self.assertIn(f"{none}: No such file or directory here", out)
        self.assertIn("radeon.vramlimit=256", out)
        for cmd in (f"+ cp -p {none} {none}.vramlab-orig", f"+ edit {none}", "+ update-grub",
                    "+ cp -a"):
            self.assertIn(cmd, out)
        self.assertEqual(os.listdir(self.tmp.name), ["grub"])

    def test_dry_run_after_the_subcommand(self):
        common = ("--vramlimit", "256", "--grub", self.grub)
        rc, before, err = hw("--dry-run", "--allow-no-radeon", "prepare", *common)
        self.assertEqual(rc, 0, err)
        rc, after, err = hw("prepare", "--dry-run", "--allow-no-radeon", *common)
        self.assertEqual((rc, after), (0, before), err)
        self.assertEqual(self.read(self.grub), self.ORIG)
        res = os.path.join(self.tmp.name, "results")
        rc, before, err = hw("--dry-run", "--allow-no-radeon", "run", "--results", res,
                             "--pts", "/nonexistent/pts")
        self.assertEqual(rc, 0, err)
        rc, after, err = hw("run", "--dry-run", "--allow-no-radeon", "--results", res,
                            "--pts", "/nonexistent/pts")
        self.assertEqual((rc, after), (0, before), err)
        self.assertFalse(os.path.exists(res))

    def test_refused_at_parse_time_like_the_real_run(self):
        for args, opt in ((("run", "--results", "/proc/x"), "--results"),
                          (("calibrate", "--out", "/proc/x"), "--out"),
                          (("run", "--results", self.tmp.name, "--tests", "nonsense"), "--tests"),
                          (("run", "--results", self.tmp.name, "--configs", "baseline,baseline"),
                           "--configs")):
            rc, out, err = hw("--dry-run", "--allow-no-radeon", *args)
            self.assertEqual(rc, 2, (args, out))
            self.assertEqual(err.count("\n"), 1, err)
            self.assertIn(f"argument {opt}: ", err)
            self.assertEqual(out, "")

    def test_help_counts_every_entry_visited(self):
        rc, out, err = hw("prepare", "--help")
        self.assertEqual(rc, 0)
        self.assertNotIn("candidates per scan", out)
        self.assertIn("LRU entries a scan visits", " ".join(out.split()))


if __name__ == "__main__":
    unittest.main()
