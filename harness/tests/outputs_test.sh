#!/bin/bash
# How vramlab writes its outputs (docs/cli.md, "How outputs are written"), for every kind of
# writer: the JSON of a run (sim --json), a text file (weights export -o), a trace (trace
# convert) and the trainer's checkpoint. An output never replaces a device, a link or a file
# that was not named; an interrupted run leaves the old file or none.
# Usage: outputs_test.sh VRAMLAB_BINARY HARNESS_SOURCE_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2")
trace=$src/../traces/nexuiz1.bin
big=$src/../traces/supertuxkart2.bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }

# Each writer, as "NAME:ARGS with @O@ for the output"
writers=(
	"sim-json:sim --vram 64 --json @O@ $trace"
	"weights-export:weights export --weights $src/weights/handset.txt -o @O@"
	"trace-convert:trace convert --to text $trace @O@"
	"train-checkpoint:train --population 4 --generations 1 --vram 64 --checkpoint @O@ $trace"
)
run() { # run WRITER OUTPUT: the writer's command with OUTPUT (which may be ""), quiet
	local -a words argv=()
	read -r -a words <<<"${1#*:}"
	for x in "${words[@]}"; do
		[ "$x" = @O@ ] && argv+=("$2") || argv+=("$x")
	done
	"$bin" "${argv[@]}" >/dev/null 2>"$work/err"
}
kind() { stat -c %F "$1"; }

for w in "${writers[@]}"; do
	name=${w%%:*}
	d=$work/$name
	mkdir "$d"

	# A character device is written in place, never replaced by a regular file (a checkpoint,
	# read back by --resume, must be a regular file: refused)
	if [ "$name" = train-checkpoint ]; then
		mknod "$d/null" c 1 3 2>/dev/null || mkfifo "$d/null"
		run "$w" "$d/null" && bad "$name: a device or FIFO checkpoint: exit 0"
		grep -q "is not a regular file" "$work/err" && ok || bad "$name: device: $(cat "$work/err")"
	elif mknod "$d/null" c 1 3 2>/dev/null; then
		run "$w" "$d/null" || bad "$name: device: $(cat "$work/err")"
		[ "$(kind "$d/null")" = "character special file" ] && ok ||
			bad "$name: the device node became a $(kind "$d/null")"
	else
		skipped "$name: device: mknod needs root"
	fi

	# A symlink is kept; its target is the file replaced.
	echo old >"$d/target"
	ln -s target "$d/link"
	run "$w" "$d/link" || bad "$name: symlink: $(cat "$work/err")"
	[ -L "$d/link" ] && [ "$(readlink "$d/link")" = target ] && [ "$(cat "$d/target")" != old ] &&
		ok || bad "$name: the symlink was replaced, or its target not written"

	# Names planted beside the output (the fixed temporary names of old) are never followed.
	echo "the victim's bytes" >"$d/victim"
	for planted in out.tmp "out.tmp.$$" out.vramlab-tmp; do
		ln -s victim "$d/$planted"
	done
	run "$w" "$d/out" || bad "$name: planted links: $(cat "$work/err")"
	[ "$(cat "$d/victim")" = "the victim's bytes" ] && ok ||
		bad "$name: a planted link's target was written"
	[ -f "$d/out" ] && [ ! -L "$d/out" ] && ok || bad "$name: out is not a regular file"

	# An existing file keeps its mode (and, as root, its owner).
	echo old >"$d/kept"
	chmod 640 "$d/kept"
	[ "$(id -u)" = 0 ] && chown 4321:4321 "$d/kept"
	run "$w" "$d/kept" || bad "$name: mode: $(cat "$work/err")"
	[ "$(stat -c %a "$d/kept")" = 640 ] && ok || bad "$name: mode $(stat -c %a "$d/kept"), not 640"
	if [ "$(id -u)" = 0 ]; then
		[ "$(stat -c %u:%g "$d/kept")" = 4321:4321 ] && ok ||
			bad "$name: owner $(stat -c %u:%g "$d/kept"), not 4321:4321"
	fi

	# A FIFO gets the bytes, read by another process, and stays a FIFO.
	mkfifo "$d/fifo"
	if [ "$name" != train-checkpoint ]; then
		timeout 60 cat "$d/fifo" >"$d/from-fifo" &
		reader=$!
		run "$w" "$d/fifo" || bad "$name: fifo: $(cat "$work/err")"
		wait "$reader"
		[ -p "$d/fifo" ] && [ -s "$d/from-fifo" ] && ok ||
			bad "$name: the FIFO was replaced or got nothing"
	fi

	# A directory that takes no file: refused before any work, one line, nothing made.
	mkdir "$d/ro"
	args=${w#*:}
	if [ "$(id -u)" = 0 ]; then
		# as root a mode does not stop a write: a read-only mount in a mount namespace of its own
		# shellcheck disable=SC2086
		if unshare -m sh -c "mount --bind '$d/ro' '$d/ro' && mount -o remount,bind,ro '$d/ro' &&
			exec '$bin' ${args//@O@/$d/ro/x}" >/dev/null 2>"$work/err"; then
			bad "$name: read-only: exit 0"
		elif grep -q "mount\|unshare" "$work/err"; then
			skipped "$name: read-only: no mount namespace here ($(head -1 "$work/err"))"
		else
			[ "$(wc -l <"$work/err")" = 1 ] && grep -q "$d/ro/x: cannot write" "$work/err" &&
				ok || bad "$name: read-only: $(cat "$work/err")"
		fi
	else
		chmod 555 "$d/ro"
		run "$w" "$d/ro/x" && bad "$name: read-only: exit 0"
		grep -q "$d/ro/x: cannot write" "$work/err" && ok || bad "$name: read-only: $(cat "$work/err")"
	fi
	[ -z "$(ls -A "$d/ro")" ] && ok || bad "$name: read-only: left $(ls -A "$d/ro")"
	# and nothing but what was named is left anywhere
	left=$(ls -A "$d" | grep -v -x -e null -e target -e link -e victim -e out -e kept -e fifo \
		-e from-fifo -e ro -e out.tmp -e "out.tmp.$$" -e out.vramlab-tmp)
	[ -z "$left" ] && ok || bad "$name: left behind: $left"
done

# An empty name is refused (it wrote nothing and said nothing), for each kind of output option
for w in "${writers[@]}"; do
	(cd "$work" && run "$w" "") && bad "${w%%:*} '': exit 0"
	grep -q "an empty file name" "$work/err" && [ "$(wc -l <"$work/err")" = 1 ] && ok ||
		bad "${w%%:*} '': $(cat "$work/err")"
done

# Interrupted (SIGINT or SIGTERM, after 0.3 s): one line, 130 or 143, the old file kept, no
# temporary file left. A Python parent, since a shell's background job ignores SIGINT. On a
# fast machine the signal can land after the output was renamed into place (the run is then
# done but for its exit): the file must then be the whole new one, as an uninterrupted run
# writes it.
"$bin" trace repair --to text "$big" "$work/whole.txt" >/dev/null 2>&1 || bad "the reference run failed"
for sig in INT TERM; do
	d=$work/interrupt-$sig
	mkdir "$d"
	echo old >"$d/out.txt"
	got=$(/usr/bin/python3 - "$bin" "$big" "$d/out.txt" "$sig" <<'PY'
import signal, subprocess, sys, time
bin_, trace, out, sig = sys.argv[1:]
# text is the slowest output to write: the run is still going at 0.3 s
p = subprocess.Popen([bin_, "trace", "repair", "--to", "text", trace, out],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
time.sleep(0.3)
p.send_signal(getattr(signal, "SIG" + sig))
_, err = p.communicate()
print(p.returncode, repr(err))
PY
)
	want=$([ $sig = INT ] && echo 130 || echo 143)
	[ "$got" = "$want 'vramlab: interrupted\\n'" ] && ok || bad "interrupt $sig: $got"
	{ [ "$(cat "$d/out.txt")" = old ] || cmp -s "$d/out.txt" "$work/whole.txt"; } &&
		[ "$(ls -A "$d")" = out.txt ] && ok ||
		bad "interrupt $sig: left $(ls -A "$d") ($(head -c 40 "$d/out.txt" | tr '\n' ' '))"
done

echo "outputs: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
