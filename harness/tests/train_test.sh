#!/bin/bash
# vramlab train end to end, on a tiny problem (two small traces of the repository):
#  - a run killed with SIGKILL and resumed from its checkpoint ends with exactly the weights
#    and log of an uninterrupted run (it loses at most the generation it was in);
#  - `mpirun -np 2 vramlab train --mpi` gives exactly the single-process result;
#  - a damaged checkpoint and a missing budget are refused with a clear message.
# Usage: train_test.sh VRAMLAB SOURCE_DIR
set -eu -o pipefail
vramlab=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problem=("$src/../traces/nederland1.bin" "$src/tests/data/glsmoke-barts-2.51.vrl" --vram 2,24
         --population 6 --mc-after 100 --seed 3 -j 1 -q)
fail() { echo "FAIL: $*"; exit 1; }

# The uninterrupted run.
"$vramlab" train "${problem[@]}" --generations 150 -o "$work/whole.txt" --json "$work/whole.json"

# Killed with SIGKILL once its checkpoint is past generation 20, then resumed.
"$vramlab" train "${problem[@]}" --generations 150 --checkpoint "$work/ck.json" \
	-o "$work/killed.txt" &
pid=$!
gen=0
for _ in $(seq 1 600); do
	sleep 0.02
	gen=$(sed -n 's/^ "generation": \([0-9]*\),$/\1/p' "$work/ck.json" 2>/dev/null || true)
	[ -n "$gen" ] && [ "$gen" -ge 20 ] && break
done
kill -9 $pid 2>/dev/null || fail "the run ended before it could be killed (generation $gen)"
wait $pid 2>/dev/null && fail "the killed run exited 0" || true
killed_at=$(sed -n 's/^ "generation": \([0-9]*\),$/\1/p' "$work/ck.json")
[ "$killed_at" -lt 150 ] || fail "killed after the last generation"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$work/ck.json" ||
	fail "the checkpoint left by kill -9 is not valid JSON (not written atomically)"
"$vramlab" train "${problem[@]}" --generations 150 --checkpoint "$work/ck.json" --resume \
	-o "$work/resumed.txt" --json "$work/resumed.json"
cmp "$work/whole.txt" "$work/resumed.txt" || fail "resumed weights differ from the uninterrupted run's"
strip='import json,sys; print([(g["generation"],g["best"],g["mean"],g["evaluations"]) for g in json.load(open(sys.argv[1]))["generations"]])'
[ "$(python3 -c "$strip" "$work/whole.json")" = "$(python3 -c "$strip" "$work/resumed.json")" ] ||
	fail "resumed log differs from the uninterrupted run's"
echo "ok: killed at generation $killed_at, resumed: the same weights and log as an uninterrupted run"

# The trained network's C header (Mesa's form) gives the simulator's scores on fixed inputs.
"$vramlab" weights export --c-header --weights "$work/whole.txt" >"$work/trained.h"
cc -O2 -ffp-contract=off -Wall -Werror -I"$work" -DWEIGHTS_HEADER='"trained.h"' \
	-o "$work/header_check" "$src/tests/score_header_check.c"
"$vramlab" weights vectors --weights "$work/whole.txt" | "$work/header_check"
# ... and the check can fail: another network's vectors against this header.
"$vramlab" weights vectors --weights "$src/weights/handset.txt" | "$work/header_check" 2>/dev/null &&
	fail "the header check accepted another network's scores"
echo "ok: the exported C header scores the fixed inputs as the simulator does"

# MPI: two processes, the same result as one.
if "$vramlab" train --help | grep -- --mpi >/dev/null && command -v mpirun >/dev/null; then
	"$vramlab" train "${problem[@]}" --generations 12 -o "$work/one.txt"
	# Under AddressSanitizer (make test-asan), Open MPI's own allocations still held at
	# MPI_Finalize would read as leaks: leak checking is off for this run only.
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpirun --oversubscribe -np 2 "$vramlab" train --mpi "${problem[@]}" --generations 12 \
		-o "$work/two.txt"
	cmp "$work/one.txt" "$work/two.txt" || fail "mpirun -np 2 differs from one process"
	echo "ok: mpirun -np 2 gives the single-process weights"
else
	fail "no MPI: vramlab was built without it or mpirun is missing (ci/install-deps.sh)"
fi

# Bad input: clear messages, exit status 1 or 2, no crash.
echo '{"schema": "vramlab-train-checkpoint", "signature": 5' >"$work/bad.json"
out=$("$vramlab" train "${problem[@]}" --generations 3 --checkpoint "$work/bad.json" --resume 2>&1) &&
	fail "a damaged checkpoint was accepted"
grep -q "bad.json: not a checkpoint" <<<"$out" || fail "damaged checkpoint: $out"
out=$("$vramlab" train "${problem[@]}" 2>&1) && fail "a run without a budget was accepted"
grep -q -- "--generations or --minutes" <<<"$out" || fail "no budget: $out"
echo "ok: bad checkpoints and missing budgets are refused"
