#!/bin/bash
# vramlab decide --mpi: `mpirun -np 2` gives exactly the single-process table and JSON (the
# run time aside), and an error on any process fails the run with its message.
# Usage: decide_mpi_test.sh VRAMLAB SOURCE_DIR
set -eu -o pipefail
vramlab=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v mpirun >/dev/null || fail "no mpirun (ci/install-deps.sh installs OpenMPI)"
"$vramlab" decide --help | grep -- --mpi >/dev/null || fail "vramlab was built without MPI"
mpi=(mpirun --oversubscribe -np 2)
[ "$(id -u)" = 0 ] && mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)
export OMPI_MCA_rmaps_base_oversubscribe=1
# OpenMPI's own allocations are reported as leaks under AddressSanitizer (train_test.sh too)
mpi=(env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "${mpi[@]}")
args=(decide --corpus "$src/../traces" --live "$src/../traces/live" --vram 64,128 --live-vram 8,12
      --policies lru,window,window+guard --ensemble 2 --gtt-cost 0.1,1 --threads 1 --quiet)
"$vramlab" "${args[@]}" --json "$work/one.json" >"$work/one.txt"
"${mpi[@]}" "$vramlab" "${args[@]}" --mpi --json "$work/two.json" >"$work/two.txt"
strip() { grep -v -e '"seconds"' -e ' replays of ' "$1"; }
cmp <(strip "$work/one.txt") <(strip "$work/two.txt") || fail "the table differs with 2 processes"
cmp <(strip "$work/one.json") <(strip "$work/two.json") || fail "the JSON differs with 2 processes"
grep -q '"verdicts"' "$work/two.json" || fail "no verdicts in the JSON"
echo "ok: mpirun -np 2 vramlab decide --mpi gives the single-process table and JSON"

# A damaged trace on the second process (the second of three in name order): the run fails, naming it, and writes nothing.
mkdir "$work/corpus"
cp "$src/../traces/nederland1.bin" "$src/../traces/nexuiz1.bin" "$work/corpus/"
head -c 1000 "$src/../traces/supertuxkart2.bin" >"$work/corpus/new-broken.bin"
if "${mpi[@]}" "$vramlab" decide --corpus "$work/corpus" --vram 64 --policies lru,window --ensemble 1 \
	--threads 1 --quiet --mpi --json "$work/bad.json" >"$work/bad.txt" 2>"$work/bad.err"; then
	fail "a damaged trace did not fail the run"
fi
grep -q "new-broken.bin" "$work/bad.err" || fail "the error does not name the trace: $(cat "$work/bad.err")"
[ ! -e "$work/bad.json" ] || fail "a failed run wrote its JSON"
echo "ok: an error on another process fails the run with its message"
