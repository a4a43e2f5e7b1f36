#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What builds of Mesa cost a user who turns nothing on: OpenArena's whole
# timedemo through each build with scoring and tracing off, RUNS rounds,
# each round running every build once (the order rotated by one build per
# round, so that no build always runs first), under `perf record -F 4000`.
# Prints per run the game's frame rate, its CPU time (user + sys, start-up
# included), and the share of its samples in the radeon winsys and in the
# series' statistics code (0 with both off: nothing calls it); then per
# build the medians and ranges, and the median's change from the build
# before it (the cost of the patches between them).  Also writes
# OUT_DIR/cost-ab.json.
#
# usage: cost_ab.sh OUT_DIR RUNS RENDERER LABEL=PREFIX...
#   LABEL=PREFIX   a Mesa install prefix and its name, in series order
# Environment: OA_SHIM, when set, is the DRM shim every build runs over (so
# that patches to the shim, which is not Mesa's cost on a real card, stay
# out of the comparison); otherwise each prefix's own shim.
set -euo pipefail
[ $# -ge 5 ] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
out=$1 runs=$2 renderer=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
bad() { echo "cost_ab.sh: $*" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]?$ ]] || bad "RUNS must be 1 to 99, not '$runs'"
labels=() prefixes=()
for a in "$@"; do
	[[ $a == ?*=?* ]] || bad "$a: expected LABEL=PREFIX"
	[ -d "${a#*=}" ] || bad "$a: no prefix ${a#*=}"
	for l in "${labels[@]}"; do [ "$l" != "${a%%=*}" ] || bad "${a%%=*}: named twice"; done
	labels+=("${a%%=*}") prefixes+=("${a#*=}")
done
mkdir -p "$out"
unset RADEON_BO_SCORE RADEON_BO_TRACE RADEON_BO_TRACE_TEXT
export RADEON_SHIM_BO_SCORES=1
n=${#labels[@]}
: >"$out/cost-ab.txt"
for r in $(seq 1 "$runs"); do
	for k in $(seq 0 $((n - 1))); do
		i=$(( (k + r - 1) % n ))
		label=${labels[$i]} p=${prefixes[$i]}
		echo "cost_ab: round $r/$runs, $label" >&2
		perf record -q -F 4000 -o "$out/$label.data" -- \
			bash "$here/openarena.sh" --full --renderer "$renderer" "$p" \
			--log "$out/$label.log" >"$out/$label.oa" 2>&1 ||
			{ echo "cost_ab: $label failed:" >&2; tail -5 "$out/$label.oa" >&2; exit 1; }
		fps=$(sed -n 's/.* fps=\([0-9.]*\) .*/\1/p' "$out/$label.oa")
		cpu=$(sed -n 's/.* user_s=\([0-9.]*\) sys_s=\([0-9.]*\) .*/\1 \2/p' "$out/$label.oa" |
			awk '{printf "%.2f", $1 + $2}')
		share=$(/usr/bin/python3 "$here/perf_share.py" "$out/$label.data" ioquake3 \
			'winsys=radeon_drm_|radeon_bo_|radeon_winsys_|radeon_cs_' \
			'stats=radeon_bo_stats|radeon_drm_cs_account|radeon_bo_track|radeon_bo_untrack|radeon_bo_cpu_used|radeon_bo_score|radeon_bo_create_score|radeon_bo_trace' |
			tail -1)
		echo "run $r $label fps=$fps cpu_s=$cpu $share" | tee -a "$out/cost-ab.txt"
	done
done
/usr/bin/python3 - "$out/cost-ab.txt" "$out/cost-ab.json" "${labels[@]}" <<'PY'
import json, re, statistics, sys
txt, js, labels = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {l: [] for l in labels}
for line in open(txt):
    m = re.match(r"run \d+ (\S+) fps=([\d.]+) cpu_s=([\d.]+) (\{.*\})", line)
    if m:
        d = json.loads(m.group(4))
        rows[m.group(1)].append((float(m.group(2)), float(m.group(3)), d["winsys"], d["stats"]))
res = []
print("%-10s %16s %18s %8s %7s  %s" % ("build", "fps (range)", "cpu_s (range)", "winsys%", "stats%",
                                     "median change from the build above"))
prev = None
for l in labels:
    fps, cpu, ws, st = (list(c) for c in zip(*rows[l]))
    m = dict(label=l, runs=len(fps), fps=statistics.median(fps), fps_min=min(fps), fps_max=max(fps),
             cpu_s=statistics.median(cpu), cpu_min=min(cpu), cpu_max=max(cpu),
             winsys_pct=statistics.median(ws), stats_pct=statistics.median(st))
    change = ""
    if prev:
        m["fps_change_pct"] = 100 * (m["fps"] / prev["fps"] - 1)
        m["cpu_change_pct"] = 100 * (m["cpu_s"] / prev["cpu_s"] - 1)
        change = "fps %+.1f%%, cpu %+.1f%%" % (m["fps_change_pct"], m["cpu_change_pct"])
    print("%-10s %6.1f (%.0f-%.0f) %6.2f (%.2f-%.2f) %8.3f %7.3f  %s" % (
        l, m["fps"], m["fps_min"], m["fps_max"], m["cpu_s"], m["cpu_min"], m["cpu_max"],
        m["winsys_pct"], m["stats_pct"], change))
    res.append(m)
    prev = m
json.dump(res, open(js, "w"), indent=1)
PY
