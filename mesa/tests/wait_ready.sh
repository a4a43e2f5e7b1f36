#!/bin/bash
# SPDX-License-Identifier: MIT
# wait_ready.sh FILE PID [SECONDS]: wait until FILE exists (glsmoke --ready FILE: the
# program is past its setup and drawing) while PID lives, at most SECONDS (120).
# Exit 0 when it is there; 1, with a message, when PID ended first or time ran out: a
# test that then stops PID would test its setup, not what it means to.
file=$1 pid=$2 limit=${3:-120}
[ -n "$file" ] && [ -n "$pid" ] || { echo "usage: wait_ready.sh FILE PID [SECONDS]" >&2; exit 2; }
for ((i = 0; i < limit * 10; i++)); do
	[ -e "$file" ] && exit 0
	kill -0 "$pid" 2>/dev/null || { echo "wait_ready: process $pid ended before $file appeared" >&2; exit 1; }
	sleep 0.1
done
echo "wait_ready: $file did not appear in $limit s (process $pid still running)" >&2
exit 1
