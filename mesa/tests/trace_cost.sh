#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What RADEON_BO_TRACE costs a program that makes many records: OpenArena's
# whole timedemo (ioquake3's opengl2 renderer orphans a buffer per draw:
# about 2.8 M records) through the series with scores on (the shim taking
# them), with and without a trace, alternated RUNS times each, under `perf
# record -F 4000`.  Per run it prints the trace's size and, as shares of the
# process's samples: the writer thread ("radeon-trace"), the trace code on
# the game's own threads (record encoding in r600_dri.so), and every
# pthread mutex lock and unlock on the game's threads (the trace takes its
# lock once per buffer event and per CS).  Then the medians, and the
# trace's cost: writer + code + (lock share traced - lock share not).
# Timing is information here, not a pass/fail test.
#
# usage: trace_cost.sh PREFIX OUT_DIR [RUNS]
set -euo pipefail
prefix=$1 out=$2 runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
command -v perf >/dev/null || { echo "trace_cost.sh: needs perf (linux-perf)" >&2; exit 2; }
mkdir -p "$out"
unset RADEON_BO_TRACE RADEON_BO_TRACE_TEXT
export RADEON_SHIM_BO_SCORES=1 RADEON_BO_SCORE=1
: >"$out/trace-cost.txt"
for r in $(seq 1 "$runs"); do
	for side in off on; do
		rm -f "$out"/trace.*
		trace=()
		[ $side = on ] && trace=(RADEON_BO_TRACE="$out/trace.%p")
		env "${trace[@]}" perf record -q -F 4000 -o "$out/$side.data" -- \
			bash "$here/openarena.sh" --full --renderer opengl2 "$prefix" \
			--log "$out/$side.log" >"$out/$side.oa" 2>&1
		fps=$(sed -n 's/.* fps=\([0-9.]*\) .*/\1/p' "$out/$side.oa")
		bytes=0
		[ $side = on ] && bytes=$(stat -c %s "$out"/trace.*)
		shares=$($py "$here/perf_share.py" "$out/$side.data" ioquake3,radeon-trace \
			'writer=^radeon-trace' \
			'code=^ioquake3\S*\s+\S+\s+(radeon_bo_trace\w*|trace_\w+|put_u\w+|text_line) \(.*r600_dri\.so\)' \
			'locks=^ioquake3\S*\s+\S+\s+\S*(pthread_mutex_(un)?lock|lll_)' | tail -1)
		echo "run $r $side fps=$fps bytes=$bytes $shares" | tee -a "$out/trace-cost.txt"
	done
done
$py - "$out/trace-cost.txt" <<'PY'
import json, re, statistics, sys
rows = {"on": [], "off": []}
for line in open(sys.argv[1]):
    m = re.match(r"run \d+ (\w+) fps=([\d.]+) bytes=(\d+) (\{.*\})", line)
    if m:
        d = json.loads(m.group(4))
        rows[m.group(1)].append((float(m.group(2)), int(m.group(3)), d["writer"], d["code"], d["locks"]))
med = {k: [statistics.median(c) for c in zip(*v)] for k, v in rows.items()}
print("side  fps     trace MB  writer%%  code%%  locks%%   (medians of %d runs)" % len(rows["on"]))
for k in ("off", "on"):
    f, b, w, c, l = med[k]
    print("%-4s %6.1f %8.1f %8.3f %6.3f %7.3f" % (k, f, b / 1e6, w, c, l))
on, off = med["on"], med["off"]
cost = on[2] + on[3] + (on[4] - off[4])
print("trace cost: writer %.2f%% + code %.2f%% + locks %+.2f%% = %.2f%% of the process's CPU"
      % (on[2], on[3], on[4] - off[4], cost))
print(json.dumps({"runs": len(rows["on"]), "trace_bytes": on[1], "writer": on[2], "code": on[3],
                  "locks_delta": on[4] - off[4], "total": cost, "fps_on": on[0], "fps_off": off[0]}))
PY
