#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The BO trace writer (RADEON_BO_TRACE) must never hang, stop or corrupt the
# program it traces.  Runs r600g over the radeon no-op DRM shim:
#   killed   SIGKILL mid-run: the trace reads back up to a recent frame
#   exit     exit() from another thread, from a signal handler on another
#            thread, and from a handler on the rendering thread itself (the
#            trace lock may be held): the program ends within the timeout
#            and the trace reads back (with END, or up to a frame)
#   fork     a child forked mid-run calls exit(): the parent's trace is
#            exact (every frame, one END, nothing of the child)
#   disk     a 64 KiB tmpfs fills up: the program finishes, the trace reads
#            back up to the frame the message names (skips without root)
#   setuid   a setuid-root copy of the winsys test, run by nobody, ignores
#            RADEON_BO_TRACE; the same copy without the bit writes it
#            (skips without root, or on a nosuid /tmp)
#   mode     traces are created 0600
#   text     RADEON_BO_TRACE_TEXT=1 prints the text form to stderr
#
# usage: trace_writer_test.sh PREFIX WINSYS_TEST_DIR GLSMOKE OUT_DIR [REPEAT]
# REPEAT (default 5) runs of each exit mode.  Exit 0 when all pass.
set -euo pipefail

prefix=$1 tests=$2 glsmoke=$3 out=$4 repeat=${5:-5}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
check() { $py "$here/check_trace.py" "$@"; }
fail() { echo "trace-writer: FAIL: $*" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

shim=(env LD_PRELOAD="$prefix/lib/libradeon_noop_drm_shim.so"
      MESA_LOADER_DRIVER_OVERRIDE=r600
      __EGL_VENDOR_LIBRARY_FILENAMES="$prefix/share/glvnd/egl_vendor.d/50_mesa.json"
      LD_LIBRARY_PATH="$prefix/lib" RADEON_GPU_ID=BARTS RADEON_SHIM_KMS_MINOR=51
      RADEON_BO_SCORE=1)
one() { ls "$out"/$1.*.vrl 2>/dev/null | head -1; }

# killed: the file is decodable up to a frame handed to the writer (at most
# 50 ms before the kill).
rm -f "$out"/killed.*.vrl
"${shim[@]}" RADEON_BO_TRACE="$out/killed.%p.vrl" "$glsmoke" --gbm --frames 100000000 \
	>/dev/null 2>&1 & pid=$!
sleep 1; kill -9 $pid; wait $pid 2>/dev/null || true
check "$(one killed)" --truncated --min-frames 1 | sed -n 1p
[ "$(stat -c %a "$(one killed)")" = 600 ] || fail "trace mode $(stat -c %a "$(one killed)"), not 600"
echo "trace-writer: mode: 0600"

# exit, three ways.  RADEON_THREAD=0: with the submission thread, an exit
# in a handler that interrupted util_queue_add_job deadlocks in Mesa's own
# u_queue exit handler, trace or not.  A crash of the program at exit
# (exit() with the main thread still drawing tears libraries down under it)
# is allowed; a hang or an unreadable trace is not.
for mode in thread handler render-handler; do
	crashes=0
	for i in $(seq 1 "$repeat"); do
		rm -f "$out"/exit.*.vrl
		set +e
		timeout 20 "${shim[@]}" RADEON_THREAD=0 RADEON_BO_TRACE="$out/exit.%p.vrl" \
			"$glsmoke" --gbm --frames 100000000 --exit $mode $((150 + 37 * i)) \
			>/dev/null 2>"$out/exit.err"
		st=$?
		set -e
		[ $st = 124 ] && fail "exit $mode run $i: hung (killed after 20 s)"
		[ $st = 0 ] || crashes=$((crashes + 1))
		check "$(one exit)" --maybe-truncated --min-frames 1 >/dev/null ||
			fail "exit $mode run $i: unreadable trace"
	done
	echo "trace-writer: exit $mode: $repeat runs, none hung, every trace readable" \
		"($crashes crashed at exit)"
done

# fork
rm -f "$out"/fork.*.vrl
"${shim[@]}" RADEON_BO_TRACE="$out/fork.%p.vrl" "$glsmoke" --gbm --frames 60 --fork-at 30 \
	>/dev/null 2>&1 || fail "fork: the program failed"
[ "$(ls "$out"/fork.*.vrl | wc -l)" = 1 ] || fail "fork: $(ls "$out"/fork.*.vrl | wc -l) trace files"
check "$(one fork)" --frames 60 | sed -n '2p;1s/,.*//p' | sed 's/^/trace-writer: fork: /'

# disk
if [ "$(id -u)" = 0 ] && mkdir -p "$out/small" && mount -t tmpfs -o size=64k tmpfs "$out/small" 2>/dev/null; then
	set +e
	"${shim[@]}" RADEON_BO_TRACE="$out/small/disk.%p.vrl" "$glsmoke" --gbm --frames 20000 \
		>/dev/null 2>"$out/disk.err"
	st=$?
	set -e
	cp "$(one small/disk)" "$out/disk.vrl"; umount "$out/small"
	[ $st = 0 ] || { cat "$out/disk.err"; fail "disk: the program failed (status $st)"; }
	msg=$(grep 'No space left on device; trace stopped' "$out/disk.err") ||
		{ cat "$out/disk.err"; fail "disk: no message"; }
	frame=$(sed -n 's/.*readable up to frame \([0-9]*\) .*/\1/p' <<<"$msg")
	got=$(check "$out/disk.vrl" --truncated | sed -n 's/.*after \([0-9]*\) complete frames/\1/p')
	[ -n "$frame" ] && [ "$frame" = "$got" ] || fail "disk: the message says frame $frame, the file holds $got"
	echo "trace-writer: disk: the program finished; the trace stops at frame $got, as it says"
else
	echo "trace-writer: disk: SKIP (needs root to mount a small tmpfs)"
fi

# setuid
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	d=$(mktemp -d /tmp/vramlab-setuid.XXXXXX); chmod 1777 "$d"
	cp "$tests/radeon-drm-cs-test-shim-linked" "$d/t"; chmod 4755 "$d/t"
	run() { setpriv --reuid=nobody --regid=nogroup --clear-groups env RADEON_GPU_ID=BARTS \
		RADEON_SHIM_KMS_MINOR=51 RADEON_BO_SCORE=1 RADEON_SHIM_SCORE_LOG="$d/log" \
		RADEON_BO_TRACE="$d/s.%p.vrl" "$d/t" secure 2>&1; }
	o=$(run) || { echo "$o"; rm -rf "$d"; fail "setuid: the test failed"; }
	if grep -q 'AT_SECURE=1' <<<"$o"; then
		n=$(find "$d" -name "s.*.vrl" | wc -l)
		rm -f "$d"/s.*.vrl "$d/log"
		# The control: the same binary, not setuid, run by root, traces.
		chmod 0755 "$d/t"
		env RADEON_GPU_ID=BARTS RADEON_SHIM_KMS_MINOR=51 RADEON_BO_SCORE=1 \
			RADEON_SHIM_SCORE_LOG="$d/log" RADEON_BO_TRACE="$d/s.%p.vrl" \
			"$d/t" secure >/dev/null 2>&1 || { rm -rf "$d"; fail "setuid: the control run failed"; }
		m=$(find "$d" -name "s.*.vrl" | wc -l)
		rm -rf "$d"
		[ "$n" = 0 ] || fail "setuid: a setuid program wrote $n trace(s)"
		[ "$m" = 1 ] || fail "setuid: the control run wrote $m traces, expected 1"
		echo "trace-writer: setuid: ignored (the same binary, not setuid, traces)"
	else
		rm -rf "$d"
		echo "trace-writer: setuid: SKIP (no secure mode: /tmp is mounted nosuid?)"
	fi
else
	echo "trace-writer: setuid: SKIP (needs root and a nobody user)"
fi

# text
"${shim[@]}" RADEON_BO_TRACE_TEXT=1 "$glsmoke" --frames 2 2>"$out/text.txt" >/dev/null
grep -q '^started @' "$out/text.txt" && grep -q '^finished @' "$out/text.txt" ||
	fail "text: no started/finished lines in $out/text.txt"
echo "trace-writer: text: $(grep -c ' created, size ' "$out/text.txt") creates," \
	"$(grep -c ' read @' "$out/text.txt") reads, $(grep -c '^frame @' "$out/text.txt") frames"
echo "trace-writer: pass"
