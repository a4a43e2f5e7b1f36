#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What the series costs a user who turns nothing on: OpenArena's whole
# timedemo through unpatched 22.3.6's winsys (the piglit baseline build:
# the shim patches only) and through the series with scoring and tracing
# off, alternated RUNS times each, under `perf record -F 4000`.  Prints per
# run the game's frame rate, its CPU time, and the share of its samples in
# the radeon winsys and in the series' statistics code (which must be 0:
# with both off nothing calls it), then the medians.
#
# usage: zero_cost_ab.sh BASE_PREFIX PREFIX OUT_DIR [RUNS] [RENDERER]
set -euo pipefail
base=$1 patched=$2 out=$3 runs=${4:-3} renderer=${5:-opengl2}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
unset RADEON_BO_SCORE RADEON_BO_TRACE RADEON_BO_TRACE_TEXT
export RADEON_SHIM_KMS_MINOR=51
: >"$out/zero-cost.txt"
for r in $(seq 1 "$runs"); do
	for side in base patched; do
		p=$base; [ $side = patched ] && p=$patched
		perf record -q -F 4000 -o "$out/zero-$side.data" -- \
			bash "$here/openarena.sh" --full --renderer "$renderer" "$p" \
			--log "$out/zero-$side.log" >"$out/zero-$side.oa" 2>&1
		fps=$(sed -n 's/.* fps=\([0-9.]*\) .*/\1/p' "$out/zero-$side.oa")
		cpu=$(sed -n 's/.* user_s=\([0-9.]*\) sys_s=\([0-9.]*\) .*/\1 \2/p' "$out/zero-$side.oa" |
			awk '{printf "%.2f", $1 + $2}')
		share=$(/usr/bin/python3 "$here/perf_share.py" "$out/zero-$side.data" ioquake3 \
			'winsys=radeon_drm_|radeon_bo_|radeon_winsys_|radeon_cs_' \
			'stats=radeon_bo_stats|radeon_drm_cs_account|radeon_bo_track|radeon_bo_untrack|radeon_bo_cpu_used|radeon_bo_score|radeon_bo_create_score|radeon_bo_trace' |
			tail -1)
		echo "run $r $side fps=$fps cpu_s=$cpu $share" | tee -a "$out/zero-cost.txt"
	done
done
/usr/bin/python3 - "$out/zero-cost.txt" <<'PY'
import json, re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"run \d+ (\w+) fps=([\d.]+) cpu_s=([\d.]+) (\{.*\})", line)
    if m:
        d = json.loads(m.group(4))
        rows.setdefault(m.group(1), []).append((float(m.group(2)), float(m.group(3)), d["winsys"], d["stats"]))
print("side      fps     cpu_s  winsys%%  stats%%   (medians of %d runs)" % len(rows["base"]))
for side in ("base", "patched"):
    cols = list(zip(*rows[side]))
    print("%-8s %6.1f %7.2f %7.3f %7.3f" % (side, *(statistics.median(c) for c in cols)))
PY
