#!/bin/bash
# vramlab decide replays every grouping (trace, submission period) of several traces on
# several threads, and fills the runs it does not replay from others (key policies without
# scores, 6.14 + fixes, eviction rules that never evicted, boards that pin the same BOs).
# Whatever the order runs finish in, each trace's figures are those of a decide on that trace
# alone, on one thread or on three (a scheduler that drops or misplaces a grouping fails it).
# Usage: decide_pipeline_test.sh VRAMLAB SOURCE_DIR
set -eu -o pipefail
vramlab=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v jq >/dev/null || fail "no jq"
traces=(nederland1.bin nexuiz1.bin supertuxkart2.bin)
mkdir "$work/all"
for t in "${traces[@]}"; do
	mkdir "$work/${t%.bin}"
	ln -s "$(cd "$src/../traces" && pwd)/$t" "$work/all/$t"
	ln -s "$(cd "$src/../traces" && pwd)/$t" "$work/${t%.bin}/$t"
done
args=(decide --vram 32,64 --policies lru,key,fit,window,6.14+fix:lru,window+guard --ensemble 4
      --gtt-cost 1 --pcie-gbps 4 --quiet)
runs() { jq -S -c '.runs[]' "$1" | sort; }
for threads in 1 3; do
	"$vramlab" "${args[@]}" --corpus "$work/all" --threads "$threads" --json "$work/all-$threads.json" >/dev/null 2>>"$work/log"
done
for t in "${traces[@]}"; do
	"$vramlab" "${args[@]}" --corpus "$work/${t%.bin}" --threads 1 --json "$work/$t.json" >/dev/null 2>>"$work/log"
	runs "$work/$t.json"
done | sort >"$work/alone.runs"
[ "$(wc -l <"$work/alone.runs")" = $((3 * 2 * 6 * 4)) ] || fail "not every run is in the JSON"
for threads in 1 3; do
	cmp <(runs "$work/all-$threads.json") "$work/alone.runs" ||
		fail "$threads thread(s): the traces' runs together differ from each trace's alone"
done
echo "ok: decide's runs over three traces are each trace's alone, on 1 and 3 threads"
