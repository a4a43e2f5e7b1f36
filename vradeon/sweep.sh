#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Live == replayed, swept: every program of corpus/ on the virtual radeon at every
# MiB of a range, with stock settings (bottom-up, LRU, Mesa's scoring off) on Linux 6.12's
# submission path and on 6.14+'s, each run's kernel-view trace replayed by `vramlab sim
# --model kernel` under the run's own configuration (compare_counters.py): every figure and
# the placement digest must be equal. A program stops going up at the first size where it
# evicts nothing (no pressure there; nothing to check above it).
#
# usage: sweep.sh [-o DIR] NAME:LO-HI...     e.g. sweep.sh sdl:4-10 doom:6-24
#   NAME      a script of corpus/ (glsmoke, doom, love, sdl, openarena-300, ...)
#   LO-HI     the VRAM sizes in MiB, 1..4096
#   -o DIR    logs, counters and traces (default ${VRAMLAB_CACHE:-~/.cache/vramlab}/vradeon/sweep)
# Environment: SWEEP_KERNELS (default "6.12 6.14": VRADEON_LAB_CS_END 0 and 1), VRAMLAB,
# VRADEON_SHIM, MESA_PREFIX, GLSMOKE (corpus/glsmoke.sh). Writes DIR/sweep.csv (one line per
# run); prints a line per run and a summary; exits 1 if any run differs or fails, 2 on bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cache=${VRAMLAB_CACHE:-$HOME/.cache/vramlab}
out=$cache/vradeon/sweep
vramlab=${VRAMLAB:-$root/harness/build/vramlab}
usage() { echo "usage: sweep.sh [-o DIR] NAME:LO-HI...   ($*)" >&2; exit 2; }
. "$root/ci/safe-write.sh" # sweep.csv: written whole, through a temporary file of mktemp's

[ "${1:-}" = -o ] && { [ $# -ge 2 ] || usage "-o needs a directory"; out=$2; shift 2; }
[ $# -ge 1 ] || usage "no program given"
spec_re='^([a-z0-9_-]+):([0-9]+)-([0-9]+)$'
for spec in "$@"; do
	[[ $spec =~ $spec_re ]] || usage "'$spec' is not NAME:LO-HI"
	name=${BASH_REMATCH[1]}; lo=${BASH_REMATCH[2]}; hi=${BASH_REMATCH[3]}
	[ -x "$here/corpus/$name.sh" ] || usage "no corpus/$name.sh"
	((lo >= 1 && hi <= 4096 && lo <= hi)) || usage "'$spec': sizes must be 1 <= LO <= HI <= 4096"
done
kernels=${SWEEP_KERNELS:-6.12 6.14}
for k in $kernels; do
	case $k in 6.12|6.14|6.14+fix) ;; *) usage "SWEEP_KERNELS: '$k' is not 6.12, 6.14 or 6.14+fix" ;; esac
done
[ -x "$vramlab" ] || { echo "sweep.sh: no $vramlab (make build)" >&2; exit 1; }
mkdir -p "$out"
csv=$out/sweep.csv
safe_write_begin csv_tmp "$csv"
echo "program,kernel,vram_mib,cs,evictions,bytes_out_of_vram,equal" >"$csv_tmp"

runs=0 bad=0 t0=$(date +%s)
for spec in "$@"; do
	[[ $spec =~ $spec_re ]]
	name=${BASH_REMATCH[1]}; lo=${BASH_REMATCH[2]}; hi=${BASH_REMATCH[3]}
	for k in $kernels; do
		end=0; [ "$k" = 6.14 ] && end=1; [ "$k" = 6.14+fix ] && end=2
		for ((v = lo; v <= hi; v++)); do
			b=$out/$name-$k-$v; rm -f "$b".*
			if ! VRADEON_VRAM_MB=$v VRADEON_LAB_CS_END=$end VRADEON_COUNTERS=$b.json \
				VRADEON_TRACE=$b.kernel.vrl "$here/corpus/$name.sh" >"$b.log" 2>&1; then
				echo "sweep: $name $k $v MiB: the program failed (log: $b.log)"
				bad=$((bad + 1)); runs=$((runs + 1)); continue
			fi
			runs=$((runs + 1))
			if res=$(/usr/bin/python3 "$here/compare_counters.py" "$vramlab" "$b" 2>&1); then
				eq=1; echo "sweep: $name $k $v MiB: $res"
			else
				eq=0; bad=$((bad + 1)); echo "sweep: $name $k $v MiB: $res"
			fi
			/usr/bin/python3 - "$b.json" "$name" "$k" "$v" "$eq" >>"$csv_tmp" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
print(",".join([sys.argv[2], sys.argv[3], sys.argv[4], str(j["cs"]), str(j["evictions"]),
                str(j["bytes_from_vram"]), sys.argv[5]]))
EOF
			if [ "$eq" = 1 ]; then
				ev=$(tail -1 "$csv_tmp" | cut -d, -f5) # this run's evictions, just written
				rm -f "$b.kernel.vrl" # kept only where it differs
				[ "$ev" = 0 ] && break # no pressure from here up
			fi
		done
	done
done
safe_write_commit "$csv_tmp" "$csv"
echo "sweep: $runs runs, $((runs - bad)) live == replayed, $bad not, in $(($(date +%s) - t0)) s ($csv)"
[ "$bad" = 0 ]
