#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tests of folds.py's games, scores and folds, on made-up runs (no vramlab run)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import folds  # noqa: E402


def rows(values):
    """{trace: change} at one size and band -> a run's rows"""
    return {(t, 64, 1.0): v for t, v in values.items()}


class Folds(unittest.TestCase):
    def test_a_game_is_the_name_without_its_take(self):
        self.assertEqual(folds.game_of("nexuiz1.bin"), "nexuiz")
        self.assertEqual(folds.game_of("dir/nexuiz2.bin"), "nexuiz")
        self.assertEqual(folds.game_of("fr-063_1.bin"), "fr-063")
        self.assertEqual(folds.game_of("trine2_1.bin"), "trine2")
        self.assertEqual(folds.game_of("471110_1.bin"), "471110")
        self.assertEqual(folds.game_of("glxgears2.bin"), "glxgears")

    def test_each_game_is_scored_by_what_the_others_choose(self):
        # setting A wins on a and b, B only on c: the folds that leave c or b out choose A
        # (better on the majority left), the one that leaves a's two traces out B
        a, b = (0, 1), (1, 2)
        runs = {a: rows({"a1.bin": -30, "a2.bin": -30, "b1.bin": -20, "c1.bin": 10}),
                b: rows({"a1.bin": -10, "a2.bin": -10, "b1.bin": -5, "c1.bin": -40})}
        out = {f["game"]: f for f in folds.folds(runs)}
        self.assertEqual(sorted(out), ["a", "b", "c"])
        self.assertEqual(out["c"]["chosen"], list(a))
        self.assertEqual(out["c"]["traces"], ["c1.bin"])
        self.assertEqual(out["b"]["chosen"], list(a))
        # without a's two traces the median over b and c is -5 for A and -22.5 for B
        self.assertEqual(out["a"]["chosen"], list(b))

    def test_a_run_that_is_not_an_ensemble_table_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.json")
            with open(p, "w", encoding="utf-8") as f:
                json.dump({"results": []}, f)
            with self.assertRaises(SystemExit) as e:
                folds.load_run(p)
            self.assertIn("x.json", str(e.exception))
            with open(p, "w", encoding="utf-8") as f:
                f.write("{")
            with self.assertRaises(SystemExit) as e:
                folds.load_run(p)
            self.assertIn("cannot read", str(e.exception))

    def test_the_clean_group_is_read_when_there_is_one(self):
        band = {"gtt_factor": 1.0}
        j = {"summary": [{"group": g, "policy": folds.POLICY, "baseline": "lru",
                          "vram_mib": 64, "band": band,
                          "per_trace": [{"trace": "a1.bin", "median": m}]}
                         for g, m in (("corpus", 5.0), ("clean", -7.0))]}
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "r.json")
            with open(p, "w", encoding="utf-8") as f:
                json.dump(j, f)
            self.assertEqual(folds.load_run(p), {("a1.bin", 64, 1.0): -7.0})

    def test_each_pair_ships_one_of_its_settings_and_the_gap_pairs_are_the_models(self):
        for policy, settings, shipped, options, prefix, _ in folds.CONSTANTS.values():
            self.assertIn(shipped, settings)
            self.assertEqual(len(options), 2)
        # the shipped gap constants are reuse.h's (and radeon's: docs/window-predict.md)
        src = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "src", "kmodel",
                           "reuse.h")
        with open(src, encoding="utf-8") as f:
            text = f.read()
        ratio, trust = folds.CONSTANTS["gap"][2]
        self.assertIn(f"kGapRatio = {ratio};", text)
        self.assertIn(f"kGapTrust = {trust};", text)
        # and the overdue rule's with the threshold it was chosen with
        overdue, trust2 = folds.CONSTANTS["overdue"][2]
        self.assertEqual(trust2, trust)
        self.assertIn(f"kOverdueGap = {'true' if overdue == 'gap' else 'false'};", text)


if __name__ == "__main__":
    unittest.main()
