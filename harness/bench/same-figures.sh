#!/bin/bash
# SPDX-License-Identifier: MIT
# same-figures.sh OLD NEW [DIR]: do two vramlab binaries give the same figures?  A speed change
# to the models must not change one number: this replays a grid that reaches every policy, both
# kernel paths, both readings of dead ids, pinned boards and submission periods (ensembles), the
# timeline, the thesis model's policies and the live corpus with each binary, and compares the
# JSON with the run times removed (`seconds`, `replays`: what a speed change may change).
#
#   harness/bench/same-figures.sh /path/to/old/vramlab harness/build/vramlab
#
# DIR (default: a new temporary directory, removed unless a case differs) keeps both sides'
# JSON.  Exit 0 when every case is equal, 1 when one differs (named, with its first differing
# lines), 2 on a usage error.  SAME_FIGURES_REUSE_OLD=1 with a DIR keeps the old side's JSON
# from an earlier run there (the old binary is then only checked to exist).  SAME_FIGURES_ONLY=RE
# runs only the cases whose name matches the extended regular expression RE (thesis: ^thesis).  About 5 minutes per binary on 2 cores.
set -euo pipefail

usage() { echo "usage: $0 OLD_VRAMLAB NEW_VRAMLAB [DIR]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
old=$1 new=$2
for b in "$old" "$new"; do
	[ -x "$b" ] && [ -f "$b" ] || { echo "$0: $b: not an executable file" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$here/../shared/traces/thesis
live=$here/traces/live
[ -d "$corpus" ] || { echo "$0: $corpus: the shared corpus is missing" >&2; exit 2; }
if [ $# -eq 3 ]; then
	dir=$3 keep=1
	mkdir -p -- "$dir"
else
	dir=$(mktemp -d) keep=0
fi

# name | vramlab arguments; every case writes --json
all_cases=(
	"kernel-repair|sim --model kernel --on-destroyed repair --vram 32,64,128,256 $corpus"
	"kernel-skip|sim --model kernel --on-destroyed skip --vram 64,256 $corpus"
	"kernel-6.14|sim --model kernel --kernel 6.14 --on-destroyed repair --policies lru,fit,window,guard --vram 32,64,128,256 $corpus"
	"kernel-scan4|sim --model kernel --on-destroyed repair --scan-max 4 --cold-ms 50 --policies lru,window,window-idle,window+budget --vram 64,128 $corpus"
	"kernel-predict-bound|sim --model kernel --on-destroyed repair --scan-max 96 --policies window-predict,window-predict+admit --vram 32,64,256 $corpus"
	"kernel-evict|sim --model kernel --too-big evict --on-destroyed repair --policies lru,fit,window --vram 32 $corpus"
	"kernel-live|sim --model kernel --on-destroyed repair $live"
	"kernel-live-sizes|sim --model kernel --on-destroyed repair --vram 6,8,12,16,32 $live"
	"ensemble|sim --model kernel --on-destroyed repair --ensemble 16 --gtt-cost 0.1,1,4 --baselines 6.14:lru --policies lru,6.14+fix:lru,minmax+key,fit,window,guard,window-idle+guard --vram 64 $corpus/nexuiz1.bin $corpus/supertuxkart2.bin"
	"ensemble-live|sim --model kernel --on-destroyed repair --ensemble 16 --gtt-cost 1 --policies lru,fit,window,window+guard $live/doom-barts-12mib.vrl $live/openarena-300-barts-32mib.vrl"
	"timeline|sim --model kernel --on-destroyed repair --timeline 5000 --policies lru,minmax,window --vram 64 $corpus/nexuiz1.bin"
	"thesis|sim --model thesis --weights $here/harness/weights/handset.txt --policies lru,minmax,score,score-age,gdsf,belady,minmax+score --vram 64,128,256,512 $corpus"
	"thesis-sizes|sim --model thesis --threads 1 --weights $here/harness/weights/trained-kernel.txt --policies score,score-age,minmax+score --vram 64,128,256,384,512,1024,1536,2048,4096 $corpus"
	"decide|decide --corpus $corpus/nexuiz1.bin --corpus $corpus/hl1.bin --corpus $corpus/dub1.bin --live $live/doom-barts-12mib.vrl --live $live/sdl-barts-9mib.vrl --vram 16,32,64 --live-vram 4,8,12 --policies lru,6.14+fix:lru,fit,window,guard,minmax,minmax+key,window-idle+guard,budget,window+budget,6.14+fix:window,key --baselines 6.14:lru --on-destroyed repair --ensemble 8 --gtt-cost 0.1,1,4 --weights $here/harness/weights/trained-kernel.txt"
)
cases=()
for c in "${all_cases[@]}"; do
	[[ ${c%%|*} =~ ${SAME_FIGURES_ONLY:-.} ]] && cases+=("$c")
done
[ ${#cases[@]} -gt 0 ] || { echo "$0: no case matches SAME_FIGURES_ONLY=$SAME_FIGURES_ONLY" >&2; exit 2; }

run_side() { # BINARY SIDE
	local c name args
	for c in "${cases[@]}"; do
		name=${c%%|*} args=${c#*|}
		# the old side's figures from an earlier run into the same DIR serve again
		if [ "$2" = old ] && [ "${SAME_FIGURES_REUSE_OLD:-0}" = 1 ] && [ -s "$dir/$name.old.json" ]; then
			continue
		fi
		# shellcheck disable=SC2086 # args is a word list by design
		"$1" $args --quiet --json "$dir/$name.$2.json" >/dev/null
		printf '  %-18s %s\n' "$name" "$2" >&2
	done
}

echo "same-figures: old $old" >&2
run_side "$old" old
echo "same-figures: new $new" >&2
run_side "$new" new

strip='walk(if type == "object" then del(.seconds, .replays, .entries_per_second) else . end)'
bad=0
for c in "${cases[@]}"; do
	name=${c%%|*}
	if ! diff <(jq -S "$strip" "$dir/$name.old.json") <(jq -S "$strip" "$dir/$name.new.json") \
		>"$dir/$name.diff"; then
		echo "DIFFERS: $name (first lines of $dir/$name.diff):"
		sed -n 1,12p "$dir/$name.diff"
		bad=1
	else
		rm -f -- "$dir/$name.diff"
	fi
done
if [ $bad -eq 0 ]; then
	echo "same-figures: all ${#cases[@]} cases equal"
	[ $keep -eq 1 ] || rm -rf -- "$dir"
	exit 0
fi
echo "same-figures: some cases differ; both sides are in $dir"
exit 1
