#!/bin/bash
# SPDX-License-Identifier: MIT
# thesis-vs-hotbos.sh TRAINER [VRAMLAB [TRACE...]]: the thesis model's speed against the
# thesis's own simulator, on one core, same traces, same network, same work.
#
# TRAINER is the thesis's `trainer` (github.com/clbr/hotbos, src/), built by the caller; this
# script fetches and builds nothing.  Its benchmark mode (-b) replays every trace at the nine
# VRAM sizes with min-max placement at 512 KiB and the network in ./magic.h; `vramlab sim
# --policies minmax+score --threshold 512K` at the same sizes is the same run (docs/models.md).
# Both read the same weights (VRAMLAB_WEIGHTS, default harness/weights/handset.txt, written as
# the trainer's header) and the same trace files; both decode the gzip'd traces inside the
# timed run (vramlab with its decoded-trace cache off).  Each side runs RUNS times (default 3)
# pinned to one core (taskset -c CPU, default 1; OMP_NUM_THREADS=1, --threads 1); the best
# time of each and the ratio are printed.
#
#   harness/bench/thesis-vs-hotbos.sh /path/to/hotbos/src/trainer
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 TRAINER [VRAMLAB [TRACE...]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
trainer=$(realpath -- "$1")
vramlab=$(realpath -- "${2:-$here/harness/build/vramlab}")
shift $(($# >= 2 ? 2 : 1))
corpus=$here/../shared/traces/thesis
traces=("$@")
[ ${#traces[@]} -gt 0 ] || traces=("$corpus/dub1.bin" "$corpus/nederland1.bin" \
	"$corpus/nexuiz1.bin" "$corpus/supertuxkart2.bin")
weights=${VRAMLAB_WEIGHTS:-$here/harness/weights/handset.txt}
runs=${RUNS:-3}
cpu=${CPU:-1}
for f in "$trainer" "$vramlab"; do
	[ -x "$f" ] && [ -f "$f" ] || { echo "$0: $f: not an executable file" >&2; exit 2; }
done
for f in "${traces[@]}" "$weights"; do
	[ -r "$f" ] && [ -f "$f" ] || { echo "$0: $f: not a readable file" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
mkdir "$work/data"
: >"$work/data/INDEX" # the trainer looks for data/INDEX, then reads every *.bin beside it
for t in "${traces[@]}"; do
	cp -- "$t" "$work/data/$(basename -- "$t")" # a copy: the trainer skips symlinks
done

# vramlab's weights (118 numbers: in_w[9], in_b[9], 9 x (w[9], b), out w[9], b) as the
# trainer's #defines
awk '!/^[[:space:]]*#/ { for (i = 1; i <= NF; i++) v[n++] = $i }
END {
	if (n != 118) { print "weights: " n " numbers, not 118" > "/dev/stderr"; exit 1 }
	print "#ifndef MAGIC_H\n#define MAGIC_H"
	for (i = 0; i < 9; i++) printf "#define input%dw %.9g\n#define input%db %.9g\n", i, v[i], i, v[9 + i]
	for (h = 0; h < 9; h++) {
		for (w = 0; w < 9; w++) printf "#define hidden%dw%d %.9g\n", h, w, v[18 + h * 10 + w]
		printf "#define hidden%db %.9g\n", h, v[18 + h * 10 + 9]
	}
	for (w = 0; w < 9; w++) printf "#define outputw%d %.9g\n", w, v[108 + w]
	printf "#define outputb %.9g\n#endif\n", v[117]
}' "$weights" >"$work/magic.h"
cp "$work/magic.h" "$work/xono3_magic.h" # read at start by every mode

best() { # COMMAND...: the best wall time of $runs runs, in nanoseconds
	local b=0 t s
	for _ in $(seq "$runs"); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; return 1; }
		t=$(($(date +%s%N) - s))
		if [ "$b" -eq 0 ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}

echo "traces: ${traces[*]##*/}; 9 sizes (64-4096 MiB); min-max at 512 KiB + $(basename "$weights"); one core (cpu $cpu), best of $runs" >&2
th=$(cd "$work" && OMP_NUM_THREADS=1 best taskset -c "$cpu" "$trainer" -b)
vl=$(VRAMLAB_TRACE_CACHE=0 best taskset -c "$cpu" "$vramlab" sim --model thesis \
	--policies minmax+score --threshold 512K --weights "$weights" --threads 1 --quiet \
	--vram 64,128,256,384,512,1024,1536,2048,4096 "${traces[@]}")
awk -v th="$th" -v vl="$vl" 'BEGIN {
	printf "thesis trainer -b: %.3f s\nvramlab sim:       %.3f s\nratio:             %.2fx\n", th / 1e9, vl / 1e9, th / vl
}'
