#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cover letter of the mailed series, from measured numbers only.

usage:
  cover-letter.py collect OUT.json [--kunit KUNIT.json] [--bisect BISECT.log]
                  [--selftest TAP] [--evict-cost DIR] [--decide DECIDE.json]
                  [--series DIR] [--lab DIR]
      Reads what the kernel targets measured and merges it into OUT.json
      (kernel/results/v3.json): every source given replaces its section.
  cover-letter.py fill COVER_LETTER TEMPLATE NUMBERS.json [--check]
      Fills (or, with --check, checks) the placeholders of a `git format-patch --cover-letter` file:
      the subject and body come from TEMPLATE, whose {name} fields are the
      numbers of NUMBERS.json; an unknown {name} is an error.
  cover-letter.py readme README.md TEMPLATE NUMBERS.json [--check]
      Writes (or, with --check, compares) the block between the markers
      <!-- v3-numbers:begin --> and <!-- v3-numbers:end --> of README.md:
      the same numbers as the cover letter, so the two cannot drift.

Errors name the file and what is missing; the exit status is 1.
"""
import argparse
import json
import os
import re

import numbers_text  # kernel/numbers_text.py, beside this script
import vramlab_safe_write as safe  # harness/python, put on the path by numbers_text

BEGIN = "<!-- v3-numbers:begin -->"
END = "<!-- v3-numbers:end -->"


def die(msg):
    numbers_text.die("cover-letter.py", msg)


def load_json(path):
    return numbers_text.load_json("cover-letter.py", path)


# KUnit JSON (kunit.py --json): nested groups of test cases
def kunit_counts(path):
    counts = {"total": 0, "passed": 0, "skipped": 0, "failed": 0}

    def walk(group):
        for case in group.get("test_cases", []):
            counts["total"] += 1
            counts[{"PASS": "passed", "SKIP": "skipped"}.get(case.get("status"), "failed")] += 1
        for sub in group.get("sub_groups", []):
            walk(sub)

    walk(load_json(path))
    if not counts["total"]:
        die(f"{path}: no test cases")
    return counts


# each-patch-kunit.sh's bisect.txt: "patch N/M: run R passed P skipped S failed F"
BISECT_RE = re.compile(r"^patch (\d+)/(\d+): run (\d+) passed (\d+) skipped (\d+) failed (\d+)")


def bisect_counts(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = BISECT_RE.match(line)
            if m:
                rows.append([int(x) for x in m.groups()])
    if not rows:
        die(f"{path}: no 'patch N/M: run ...' lines")
    return rows


def tap_counts(path):
    c = {"ok": 0, "not_ok": 0, "skip": 0, "families": {}}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^(not ok|ok) \d+ (\S+)(.*)$", line.rstrip("\n"))
            if not m:
                continue
            fam = m.group(2).split(".")[0].split(":")[0]
            fam = "drm_mm" if fam.startswith("drm_mm") else fam.split("_")[0]
            if "# SKIP" in m.group(3):
                c["skip"] += 1
            elif m.group(1) == "ok":
                c["ok"] += 1
                c["families"][fam] = c["families"].get(fam, 0) + 1
            else:
                c["not_ok"] += 1
    if not c["ok"] + c["not_ok"] + c["skip"]:
        die(f"{path}: no TAP result lines")
    return c


# One run of the lab tool: struct sizes and the timed cases per platform.
# Runs accumulate (the newest last, at most EVICT_COST_RUNS): timings under
# emulation vary by +-10% from run to run, so one run says little.
EVICT_COST_RUNS = 4


def evict_cost(d, old):
    struct_sizes = {}
    sizes = os.path.join(d, "struct-sizes.txt")
    with open(sizes, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            if len(p) != 3 or not p[2].isdigit():
                die(f"{sizes}:{n}: want 'KERNEL STRUCT BYTES'")
            struct_sizes.setdefault(p[1], {})[p[0]] = int(p[2])
    keys = ("kernel", "case", "window", "evicted", "ns_median", "vs_unpatched_pct")
    cases = {arch: [{k: r[k] for k in keys}
                    for r in load_json(os.path.join(d, f"evict-cost-{arch}.json"))]
             for arch in ("um", "x86_64")}
    # the same run collected again is not a second run
    runs = [r for r in (old or {}).get("runs", []) if r != cases]
    return {"struct_sizes": struct_sizes, "runs": (runs + [cases])[-EVICT_COST_RUNS:]}


def decide_verdicts(path):
    j = load_json(path)
    if "verdicts" not in j:
        die(f"{path}: no 'verdicts' (not vramlab decide --json output?)")
    # the mailed series is for 6.12: its rows against stock 6.12 (version 2 also has 6.14's)
    first = j.get("config", {}).get("policies", ["lru"])[0]
    v = [{k: r[k] for k in ("group", "vram_mib", "policy", "verdict",
                            "worst_band_median_change_pct", "worst_trace",
                            "worst_trace_median_change_pct")}
         for r in j["verdicts"] if r.get("baseline", first) == first]
    med = {}
    for r in j.get("summary", []):
        if r.get("baseline", first) != first:
            continue
        if r["band"]["gtt_factor"] == 1 and r["band"]["pcie_gbps"] == 8:
            med[f'{r["group"]}/{r["vram_mib"]}/{r["policy"]}'] = r["transfer_change_pct"]["median"]
    return {"verdicts": v, "median_x1": med, "replays": j.get("replays"),
            "seconds": j.get("seconds")}


# The mailed parts (kernel/Makefile's MAIL_SERIES) and where each goes
PART_TREES = {"drm-misc": "drm-misc-next", "radeon": "amd-gfx (radeon)",
              "kselftest": "linux-kselftest"}


def patch_subjects(d, parts=None):
    """The subjects of a directory's patches, in order; with `parts`, also each patch's part
    (NAME in N-NAME-NNNN-*.patch)."""
    subs = []
    for name in sorted(os.listdir(d)):
        m = re.match(r"^(?:\d-([a-z-]+)-)?(\d{4})-.*\.patch$", name)
        if not m or m.group(2) == "0000":
            continue
        if parts is not None:
            parts.append(m.group(1) or "")
        with open(os.path.join(d, name), encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"^Subject: \[[^\]]*\] (.*(?:\n .*)*)", text, re.M)
        if not m:
            die(f"{d}/{name}: no Subject")
        subs.append(" ".join(m.group(1).split()))
    return subs


def collect(a):
    data = load_json(a.out) if os.path.exists(a.out) else {}
    if a.kunit:
        data["kunit"] = {"counts": kunit_counts(a.kunit)}
    if a.bisect:
        data["bisect"] = bisect_counts(a.bisect)
    if a.selftest:
        data["selftest"] = tap_counts(a.selftest)
    if a.evict_cost:
        data["evict_cost"] = evict_cost(a.evict_cost, data.get("evict_cost"))
    if a.decide:
        data["decide"] = decide_verdicts(a.decide)
    if a.series:
        parts = []
        data["series"] = patch_subjects(a.series, parts)
        data["series_parts"] = parts
    if a.lab:
        data["lab"] = patch_subjects(a.lab)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    safe.write_text(a.out, json.dumps(data, indent=1, sort_keys=True) + "\n")


def pct(x):
    return f"{x:+.1f}%"


# The {name} fields a template may use, computed from the numbers
def fields(data):
    need = ("kunit", "bisect", "selftest", "evict_cost", "decide", "series", "lab")
    for k in need:
        if k not in data:
            die(f"numbers: no '{k}' section; run the target that measures it "
                "and `make -C kernel numbers`")
    f = {}
    k = data["kunit"]["counts"]
    f.update({f"kunit_{n}": v for n, v in k.items()})
    nm = len(data["series"])
    rows = {r[0]: r for r in data["bisect"]}
    if nm not in rows or len(rows) != nm + len(data["lab"]):
        die(f"numbers: bisect has {len(rows)} patches, the series {nm} + lab {len(data['lab'])}")
    last = rows[nm]
    f.update({"mailed_kunit_total": last[2], "mailed_kunit_passed": last[3],
              "mailed_kunit_skipped": last[4], "mailed_kunit_failed": last[5],
              "bisect_patches": len(rows),
              "bisect_failed": sum(1 for r in rows.values() if r[5])})
    s = data["selftest"]
    f.update({"selftest_ok": s["ok"], "selftest_not_ok": s["not_ok"], "selftest_skip": s["skip"],
              "selftest_families": ", ".join(f"{n} {c}" for n, c in sorted(s["families"].items()))})
    ss = data["evict_cost"]["struct_sizes"]
    lines = []
    for st in sorted(ss):
        b, m = ss[st].get("base"), ss[st].get("series")
        if b is None or m is None:
            die(f"numbers: struct {st} lacks base or series size")
        lines.append(f"  struct {st:<22} {b:>4} -> {m:>4} bytes ({m - b:+d})")
    f["struct_sizes"] = "\n".join(lines)
    runs = data["evict_cost"]["runs"]
    f["cost_runs"] = len(runs)
    for arch in ("um", "x86_64"):
        # the cases that evict hundreds of BOs: milliseconds, not timer noise
        off = [r["vs_unpatched_pct"] for run in runs for r in run[arch]
               if r["kernel"] == "series" and r["window"] == 0 and r["evicted"] >= 100]
        if not off:
            die(f"numbers: evict_cost {arch} has no series rows with the window off")
        f[f"cost_off_{arch}"] = f"{min(off):+.1f}% to {max(off):+.1f}%"
        # unpatched 6.12 against itself: how much one case's median moves between runs
        spread = []
        for case in {r["case"] for run in runs for r in run[arch]}:
            ms = [r["ns_median"] for run in runs for r in run[arch]
                  if r["kernel"] == "6.12" and r["case"] == case and r["evicted"] >= 100]
            if len(ms) > 1:
                spread.append((max(ms) / min(ms) - 1) * 100)
        f[f"cost_base_spread_{arch}"] = f"{max(spread):.0f}%" if spread else "n/a (one run)"
        fit = {(r["kernel"], r["window"]): r for r in runs[-1][arch]
               if r["case"] == "fit-256"}
        walk, win = fit.get(("6.12", 0)), fit.get(("series", 1024))
        if walk and win:
            f[f"cost_fit256_{arch}"] = (f"{walk['ns_median'] / 1e6:.2f} ms, {walk['evicted']} "
                                        f"evictions -> {win['ns_median'] / 1e6:.2f} ms, "
                                        f"{win['evicted']} evictions")
        else:
            die(f"numbers: evict_cost {arch} lacks the fit-256 walk or window row")
    d = data["decide"]
    table = []
    for v in d["verdicts"]:
        if v["policy"] == "lru" or v["group"] == "corpus":
            continue
        key = f'{v["group"]}/{v["vram_mib"]}/{v["policy"]}'
        m = d["median_x1"].get(key)
        table.append(f'  {v["group"]:<7} {v["vram_mib"]:>4} MiB  {v["policy"]:<14} '
                     f'{pct(m) if m is not None else "?":>8}  {v["verdict"]:<10} '
                     f'worst {v["worst_trace"]} {pct(v["worst_trace_median_change_pct"])}')
    f["decide_table"] = "\n".join(table)
    f["decide_replays"] = d.get("replays")
    robust = {}
    for v in d["verdicts"]:
        if v["group"] == "clean" and v["policy"] != "lru":
            robust.setdefault(v["policy"], []).append(v["verdict"] == "robust win")
    f["decide_default_verdict"] = "; ".join(
        f"{p}: robust at {sum(r)} of {len(r)} sizes" for p, r in sorted(robust.items()))
    f["series_count"] = nm
    f["lab_count"] = len(data["lab"])
    parts = data.get("series_parts") or [""] * nm
    lines, n = [], 0
    for i, (part, t) in enumerate(zip(parts, data["series"])):
        if i == 0 or part != parts[i - 1]:
            n = 0
            if part:
                lines.append(("" if i == 0 else "\n") + f"To {PART_TREES.get(part, part)}:")
        n += 1
        lines.append(f"{n}. {t}")
    f["series_list"] = "\n".join(lines)
    f["lab_list"] = "\n".join(f"  {t}" for t in data["lab"])
    return f


def render(template_path, numbers_path):
    with open(template_path, encoding="utf-8") as fh:
        tpl = fh.read()
    f = fields(load_json(numbers_path))
    missing = sorted(set(re.findall(r"\{(\w+)\}", tpl)) - set(f))
    if missing:
        die(f"{template_path}: unknown fields {', '.join(missing)}")
    return tpl.format(**f)


def fill(a):
    text = render(a.template, a.numbers).split("\n")
    subject, body = text[0].strip(), "\n".join(text[1:]).strip("\n")
    with open(a.cover, encoding="utf-8") as fh:
        cover = fh.read()
    if a.check:
        if subject not in cover or body not in cover:
            die(f"{a.cover}: not what {a.template} and {a.numbers} give; run `make -C kernel export`")
        print(f"{a.cover}: up to date with {a.numbers}")
        return
    for marker in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
        if marker not in cover:
            die(f"{a.cover}: no '{marker}'")
    cover = cover.replace("*** SUBJECT HERE ***", subject, 1)
    cover = cover.replace("*** BLURB HERE ***", body, 1)
    safe.write_text(a.cover, cover)


def readme(a):
    block = "```\n" + render(a.template, a.numbers).rstrip("\n") + "\n```\n"
    with open(a.readme, encoding="utf-8") as fh:
        text = fh.read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        die(f"{a.readme}: no {BEGIN} ... {END} block")
    new = text[:i + len(BEGIN)] + "\n" + block + text[j:]
    numbers_text.write_or_check(
        "cover-letter.py", a.readme, text, new, a.check, f"{a.readme}: v3 numbers block up to date",
        f"{a.readme}: the v3 numbers block is not what {a.numbers} gives; "
        "run `make -C kernel numbers`")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out")
    for opt in ("kunit", "bisect", "selftest", "evict-cost", "decide", "series", "lab"):
        c.add_argument("--" + opt)
    c.set_defaults(run=collect)
    for name, target, run in (("fill", "cover", fill), ("readme", "readme", readme)):
        p = sub.add_parser(name)
        for arg in (target, "template", "numbers"):
            p.add_argument(arg)
        p.add_argument("--check", action="store_true")
        p.set_defaults(run=run)
    a = ap.parse_args()
    a.run(a)


if __name__ == "__main__":
    main()
