#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What builds of Mesa cost with everything off, in instructions: glsmoke
# (GBM, FRAMES frames) through each build over one shim, under valgrind's
# callgrind, RUNS times each, with the winsys's submission thread off
# (RADEON_THREAD=false: one thread, so the counts repeat to within 0.02%).
# Instruction counts do not move with the machine's load, which on a shared 2-core machine moves OpenArena's frame
# rate by +-30% between identical runs (cost_ab.sh).  Prints per build the
# instructions per frame of the whole program and of the code the series
# touches (the radeon winsys, util_queue, strtod), the series' statistics,
# score and trace code (0 when off), and each median's change from the
# build above; also OUT_DIR/cost-instructions.json.
#
# usage: cost_instructions.sh OUT_DIR FRAMES RUNS GLSMOKE SHIM LABEL=PREFIX...
set -euo pipefail
[ $# -ge 6 ] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
out=$1 frames=$2 runs=$3 glsmoke=$4 shim=$5
shift 5
bad() { echo "cost_instructions.sh: $*" >&2; exit 2; }
[[ $frames =~ ^[1-9][0-9]{0,5}$ ]] || bad "FRAMES must be 1 to 999999, not '$frames'"
[[ $runs =~ ^[1-9][0-9]?$ ]] || bad "RUNS must be 1 to 99, not '$runs'"
[ -x "$glsmoke" ] || bad "no glsmoke at $glsmoke"
[ -e "$shim" ] || bad "no shim at $shim"
seen=" "
for a in "$@"; do
	[[ $a == ?*=?* ]] || bad "$a: expected LABEL=PREFIX"
	[ -d "${a#*=}" ] || bad "$a: no prefix ${a#*=}"
	[[ $seen == *" ${a%%=*} "* ]] && bad "${a%%=*}: named twice"
	seen="$seen${a%%=*} "
done
command -v valgrind >/dev/null || "$(dirname "$0")/../../ci/apt-need.sh" valgrind
mkdir -p "$out"
: >"$out/cost-instructions.txt"
for r in $(seq 1 "$runs"); do
	for a in "$@"; do
		label=${a%%=*} p=${a#*=}
		f="$out/$label.$r.cg"
		env -u RADEON_BO_SCORE -u RADEON_BO_TRACE -u RADEON_BO_TRACE_TEXT \
			LD_PRELOAD="$shim" MESA_LOADER_DRIVER_OVERRIDE=r600 \
			__EGL_VENDOR_LIBRARY_FILENAMES="$p/share/glvnd/egl_vendor.d/50_mesa.json" \
			LD_LIBRARY_PATH="$p/lib" LIBGL_DRIVERS_PATH="$p/lib/dri" GBM_BACKENDS_PATH="$p/lib/gbm" \
			RADEON_GPU_ID=BARTS RADEON_SHIM_BO_SCORES=1 RADEON_THREAD=false \
			valgrind --tool=callgrind --callgrind-out-file="$f" \
			"$glsmoke" --gbm --frames "$frames" >"$out/$label.log" 2>&1 ||
			{ echo "cost_instructions: $label failed:" >&2; tail -5 "$out/$label.log" >&2; exit 1; }
		grep -q "^$frames frames" "$out/$label.log" ||
			{ echo "cost_instructions: $label drew no $frames frames" >&2; exit 1; }
		echo "$r $label $f" >>"$out/cost-instructions.txt"
		echo "cost_instructions: run $r, $label" >&2
	done
done
/usr/bin/python3 - "$out" "$frames" "$@" <<'PY'
import json, re, statistics, subprocess, sys
out, frames, builds = sys.argv[1], int(sys.argv[2]), [a.split("=", 1)[0] for a in sys.argv[3:]]
groups = {
    "winsys": re.compile(r"winsys/radeon/drm/"),
    "u_queue": re.compile(r"util/u_queue"),
    "strtod": re.compile(r"util/strtod"),
    "series": re.compile(r"radeon_bo_(stats|score|trace|track|untrack)|radeon_drm_cs_account|radeon_bo_cpu_used"),
}
rows = {b: [] for b in builds}
for line in open(out + "/cost-instructions.txt"):
    _, label, f = line.split()
    ann = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", "--inclusive=no", f],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    total, sums = None, dict.fromkeys(groups, 0)
    for l in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", l)
        if not m:
            continue
        n, what = int(m.group(1).replace(",", "")), m.group(2)
        if "PROGRAM TOTALS" in what:
            total = n
            continue
        for g, rx in groups.items():
            if rx.search(what):
                sums[g] += n
    rows[label].append(dict(total=total, **sums))
res, prev = [], None
print("%-8s %14s %12s %10s %9s %8s  %s" % ("build", "Ir/frame", "winsys", "u_queue", "strtod",
                                         "series", "change from the build above (median)"))
for b in builds:
    med = {k: statistics.median(r[k] for r in rows[b]) / frames for k in rows[b][0]}
    spread = (max(r["total"] for r in rows[b]) - min(r["total"] for r in rows[b])) / frames
    wspread = (max(r["winsys"] for r in rows[b]) - min(r["winsys"] for r in rows[b])) / frames
    m = dict(label=b, runs=len(rows[b]), total_spread=spread, winsys_spread=wspread, **med)
    ch = ""
    if prev:
        m["total_change"] = med["total"] - prev["total"]
        m["winsys_change"] = med["winsys"] - prev["winsys"]
        ch = "total %+.0f, winsys %+.0f Ir/frame" % (m["total_change"], m["winsys_change"])
    print("%-8s %14.0f %12.0f %10.0f %9.1f %8.0f  %s" % (b, med["total"], med["winsys"],
          med["u_queue"], med["strtod"], med["series"], ch))
    res.append(m)
    prev = m
print("(instructions per frame, all threads; medians of %d runs; a build's runs differ by up "
      "to %.0f Ir/frame in all, %.0f in the winsys)" % (
          len(rows[builds[0]]), max(r["total_spread"] for r in res),
          max(r["winsys_spread"] for r in res)))
json.dump(res, open(out + "/cost-instructions.json", "w"), indent=1)
PY
