#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Print what ninja builds for `all` in a Mesa build directory, without the programs that
only the tests of some meson suites run.

usage: build-targets.py BUILD_DIR SUITE...

A SUITE is a meson test suite as `meson test --no-suite` takes it ("mesa:compiler").  The
programs left out are those the suites' tests run or depend on and no other test does,
and that are not installed.  With no SUITE, `all` is printed.  A suite that names no test
is an error: Mesa moved its tests, and the list in mesa/Makefile must follow.

`make -C mesa build` builds Mesa's own unit tests only for the components the series
touches: the compiler's tests (nir_tests alone is a third of a cold build's CPU time)
test code no patch of ours changes.
"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().split("\n\n")[1])
    build = os.path.abspath(sys.argv[1])
    skip = set(sys.argv[2:])
    out = subprocess.run(["ninja", "-C", build, "-t", "query", "all"], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    # "all:", "  input: phony", then the inputs indented by four, then "  outputs:"
    try:
        start = out.index("  input: phony") + 1
    except ValueError:
        sys.exit(f"build-targets.py: {build}: ninja's `all` is not a phony target")
    default = []
    for line in out[start:]:
        if not line.startswith("    "):
            break
        default.append(line.strip())
    if not skip:
        print("\n".join(default))
        return
    info = os.path.join(build, "meson-info")
    with open(os.path.join(info, "intro-tests.json")) as f:
        tests = json.load(f)
    with open(os.path.join(info, "intro-targets.json")) as f:
        targets = {t["id"]: t for t in json.load(f)}

    def suites(test):
        return set(test["suite"])

    found = set()
    drop, keep = set(), set()
    for t in tests:
        hit = suites(t) & skip
        found |= hit
        (drop if hit else keep).update(t.get("depends", []))
    missing = skip - found
    if missing:
        sys.exit(f"build-targets.py: {build}: no test in suite(s) {', '.join(sorted(missing))}")
    left_out = set()
    for tid in drop - keep:
        t = targets.get(tid)
        if t and t["type"] == "executable" and not t.get("installed"):
            left_out.update(os.path.relpath(p, build) for p in t["filename"])
    print("\n".join(p for p in default if p not in left_out))


if __name__ == "__main__":
    main()
