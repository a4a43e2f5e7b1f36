#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""check_ioctl_counters.py COUNTERS.json: what the model counted for vradeon_ioctl_test."""
import json
import sys

j = json.load(open(sys.argv[1]))
want = {"creates": 2, "creates_refused": 1, "cs": 1, "cs_rejected": 0, "cpu_maps": 1,
        "destroys": 2}
bad = {k: (j[k], v) for k, v in want.items() if j[k] != v}
if bad or j["evictions"] < 1:
    sys.exit(f"{sys.argv[1]}: the model counted {bad} (got, want), evictions {j['evictions']}")
print(f"ioctl: the model counted 2 creates (1 refused), 1 CS, 1 CPU map, 2 destroys, "
      f"{j['evictions']} evictions")
