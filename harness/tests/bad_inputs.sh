#!/bin/bash
# SPDX-License-Identifier: MIT
# bad_inputs.sh VRAMLAB SOURCE_DIR: every case of bad_inputs.txt (its header says what a case
# must do). Prints one line per failing case and a count; exit 1 if any failed.
set -uo pipefail
vramlab=$1 src=$2
table=$src/tests/bad_inputs.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/bad_inputs.XXXXXX")
trap 'rm -rf "$work"' EXIT
T=$src/../traces/nederland1.bin
L=$src/../traces/live/glsmoke-barts-6mib.vrl
ln -s "$T" "$work/link.bin" # @S@: the sample trace by another path
printf 'started @0\n0x20 created, size 2144734584, prio 0, @2\n0x20 read @5\n' >"$work/imp.txt" # @I@
n=0 bad=0
while IFS= read -r line; do
	[[ $line =~ ^# || -z $line ]] && continue
	n=$((n + 1))
	IFS='|' read -r want first cmd <<<"$line"
	want=${want// /}; first=${first# }; first=${first% }; cmd=${cmd# }
	d=$work/case$n; mkdir -p "$d"
	echo '[]' >"$work/list.json" # a JSON that is no object
	cmd=${cmd//@T@/$T}; cmd=${cmd//@L@/$L}; cmd=${cmd//@C@/$src/../traces}; cmd=${cmd//@D@/$d}
	cmd=${cmd//@J@/$work/list.json}; first=${first//@D@/$d}; first=${first//@J@/$work/list.json}
	cmd=${cmd//@S@/$work/link.bin}; cmd=${cmd//@I@/$work/imp.txt}
	first=${first//@T@/$T}; first=${first//@L@/$L}; first=${first//@C@/$src/../traces}
	first=${first//@S@/$work/link.bin}; first=${first//@I@/$work/imp.txt}
	read -r -a argv <<<"$cmd"
	case ${argv[0]} in
	hw) run=(/usr/bin/python3 "$src/hw/vramlab-hw" "${argv[@]:1}") ;;
	trace-cut) # trace-cut IN OUT BYTES -- ARGS: the first BYTES of IN as OUT, then vramlab ARGS
		head -c "${argv[3]}" "${argv[1]}" >"${argv[2]}"; run=("$vramlab" "${argv[@]:5}") ;;
	*) run=("$vramlab" "${argv[@]}") ;;
	esac
	"${run[@]}" >/dev/null 2>"$work/err" </dev/null
	got=$?
	rm -f "$d/cut.vrl" # the case's own input
	lines=$(wc -l <"$work/err")
	msg=$(head -1 "$work/err")
	left=$(find "$d" -mindepth 1 | sed -n '1,3p' | tr '\n' ' ')
	why=""
	[ "$got" -ge 128 ] && why="crashed (status $got)"
	[ -z "$why" ] && [ "$got" != "$want" ] && why="exit $got, want $want"
	[ -z "$why" ] && [ "$lines" != 1 ] && why="$lines lines on stderr, want 1"
	[ -z "$why" ] && [[ $msg != "$first"* ]] && why="first line \"$msg\", want \"$first...\""
	[ -z "$why" ] && [ -n "$left" ] && why="left behind: $left"
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		echo "FAIL: $cmd: $why"
	fi
done <"$table"
echo "bad inputs: $n cases, $((n - bad)) as expected"
[ "$bad" = 0 ] && [ "$n" -gt 20 ]
