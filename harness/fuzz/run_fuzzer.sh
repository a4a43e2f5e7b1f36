#!/bin/sh
# Runs one libFuzzer target for a bounded time from its seed corpus (left untouched: new inputs go
# to a scratch directory). Usage: run_fuzzer.sh FUZZER SEED_DIR SECONDS
set -eu
fuzzer=$1 seeds=$2 seconds=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # crash-* files land here and are printed by libFuzzer itself
exec "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
	"$work" "$seeds"
