#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""check_ioctl_counters.py COUNTERS.json LOG: what the shim and its model counted for
vradeon_ioctl_test. LOG holds the test's "expect: ..." line and the shim's "vradeon: KMS ..."
summary; both must give the same CS figures, and the model must have seen every accepted CS."""
import json
import re
import sys

counters, log = sys.argv[1], open(sys.argv[2]).read()
pat = r"(\d+) CS \((\d+) with scores, (\d+) rejected, (\d+) with an ignored score chunk\)"
want = re.search(r"^expect: " + pat, log, re.M)
got = re.search(r"^vradeon: KMS 2\.\d+, (?:takes BO scores|stock), " + pat, log, re.M)
if not want or not got:
    sys.exit(f"{sys.argv[2]}: no 'expect:' or no 'vradeon:' summary line")
if want.groups() != got.groups():
    sys.exit(f"{sys.argv[2]}: the shim counted {got.group(0)!r}, the test expected {want.group(0)!r}")

j = json.load(open(counters))
want_model = {"creates": 3, "creates_refused": 1, "cs": int(want.group(1)), "cs_rejected": 0,
              "cpu_maps": 1, "destroys": 3}
bad = {k: (j[k], v) for k, v in want_model.items() if j[k] != v}
if bad or j["evictions"] < 1:
    sys.exit(f"{counters}: the model counted {bad} (got, want), evictions {j['evictions']}")
print(f"ioctl: shim and model agree: {got.group(0)}; 3 creates (1 refused), 1 CPU map, "
      f"3 destroys, {j['evictions']} evictions")
