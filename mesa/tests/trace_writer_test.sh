#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The BO trace writer (RADEON_BO_TRACE) must never hang, stop or corrupt the
# program it traces.  Runs r600g over the radeon no-op DRM shim:
#   killed   SIGKILL mid-run: the trace reads back up to a recent frame
#   exit     exit() from another thread, from a signal handler on another
#            thread, and from a handler on the rendering thread itself (the
#            trace lock may be held): the program ends within the timeout
#            and the trace reads back (with END, or up to a frame).  A
#            program that hangs waiting on a lock in libc's own memory
#            (exit() in a handler that interrupted malloc, which deadlocks
#            any program) is counted, not failed; a hang anywhere else fails
#   teardown the winsys destroyed by an atexit handler (as SDL_Quit does):
#            the trace ends there, with every frame; the same with the trace
#            lock held by the exiting thread: the program ends (the trace
#            keeps its header); the winsys's library unloaded with the
#            winsys alive (1000 times): the trace ends at exit, complete
#            (the meson tests radeon-drm-cs-exit-* and -dlclose, run here
#            for their traces)
#   fork     a child forked mid-run calls exit(): the parent's trace is
#            exact (every frame, one END, nothing of the child)
#   disk     writes fail past 64 KiB (a file size limit, EFBIG, as a full
#            disk would): the program finishes, the trace reads back up to
#            the frame the message names, and the records dropped are
#            counted; past 1 KiB, the first block fails: the file keeps its
#            header
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
      LD_LIBRARY_PATH="$prefix/lib" RADEON_GPU_ID=BARTS RADEON_SHIM_BO_SCORES=1
      RADEON_BO_SCORE=1)
one() { ls "$out"/$1.*.vrl 2>/dev/null | sed -n 1p; }

# killed: the file is decodable up to a frame handed to the writer (at most
# 50 ms before the kill).
# The kill comes 0.5 s after the tenth frame (--ready), not after a fixed
# sleep: on a loaded machine a second may not reach the first frame.
rm -f "$out"/killed.*.vrl "$out/killed.ready"
"${shim[@]}" RADEON_BO_TRACE="$out/killed.%p.vrl" "$glsmoke" --gbm --frames 100000000 \
	--ready "$out/killed.ready" >/dev/null 2>&1 & pid=$!
"$here/wait_ready.sh" "$out/killed.ready" $pid || { kill -9 $pid; fail "glsmoke never drew"; }
sleep 0.5; kill -9 $pid; wait $pid 2>/dev/null || true
check "$(one killed)" --truncated --min-frames 1 | sed -n 1p
[ "$(stat -c %a "$(one killed)")" = 600 ] || fail "trace mode $(stat -c %a "$(one killed)"), not 600"
echo "trace-writer: mode: 0600"

# exit, three ways.  RADEON_THREAD=0: with the submission thread, an exit
# in a handler that interrupted util_queue_add_job deadlocks in Mesa's own
# u_queue exit handler, trace or not.  A crash of the program at exit
# (exit() with the main thread still drawing tears libraries down under it)
# is allowed; a hang or an unreadable trace is not.
# Where a hung program's main thread waits: the mapping that holds the
# futex it sleeps on (futex is syscall 202 on x86-64).
hang_site() {
	local nr addr range path a lo hi
	read -r nr addr _ </proc/$1/syscall || { echo "unknown"; return; }
	[ "$nr" = 202 ] || { echo "syscall $nr"; return; }
	a=$((addr))
	while read -r range _ _ _ _ path; do
		lo=$((16#${range%-*})) hi=$((16#${range#*-}))
		if [ "$a" -ge "$lo" ] && [ "$a" -lt "$hi" ]; then
			echo "${path:-anonymous memory}"; return
		fi
	done </proc/$1/maps
	echo "unknown"
}

for mode in thread handler render-handler; do
	crashes=0 libc_hangs=0
	for i in $(seq 1 "$repeat"); do
		rm -f "$out"/exit.*.vrl
		# stderr closed around the run: bash's notices of a crash at
		# exit are counted below instead.
		site= st=0
		{
			"${shim[@]}" RADEON_THREAD=0 RADEON_BO_TRACE="$out/exit.%p.vrl" \
				"$glsmoke" --gbm --frames 100000000 --exit $mode $((150 + 37 * i)) \
				>/dev/null 2>"$out/exit.err" & pid=$!
			for _ in $(seq 1 200); do kill -0 $pid || break; sleep 0.1; done
			if kill -0 $pid; then
				site=$(hang_site $pid)
				kill -9 $pid; wait $pid || true
			else
				set +e; wait $pid; st=$?; set -e
			fi
		} 2>/dev/null
		case $site in
		"") [ $st = 0 ] || crashes=$((crashes + 1)) ;;
		*/libc.so*) libc_hangs=$((libc_hangs + 1)) ;;
		*) fail "exit $mode run $i: hung (killed after 20 s), waiting on a lock in $site" ;;
		esac
		check "$(one exit)" --maybe-truncated --min-frames 1 >/dev/null ||
			fail "exit $mode run $i: unreadable trace"
	done
	echo "trace-writer: exit $mode: $repeat runs, none hung in the driver, every trace" \
		"readable ($crashes crashed at exit; $libc_hangs hung in libc's malloc lock)"
done

# teardown: the traces of the meson tests' three ways out, run again here.
# The winsys test over the shim, without a driver
cs_shim=(env LD_PRELOAD="$prefix/lib/libradeon_noop_drm_shim.so" RADEON_GPU_ID=BARTS
	 RADEON_SHIM_BO_SCORES=1 RADEON_BO_SCORE=1)
cs_test() {
	"${cs_shim[@]}" RADEON_SHIM_STRICT=1 \
		RADEON_BO_TRACE="$out/$1.%p.vrl" timeout 60 "$tests/radeon-drm-cs-test" "$@" \
		>/dev/null 2>"$out/$1.err" || { cat "$out/$1.err"; fail "$1: the test failed"; }
}
rm -f "$out"/exit-atexit.* "$out"/exit-locked.* "$out"/dlclose.*
cs_test exit-atexit
check "$(one exit-atexit)" --frames 10 >/dev/null || fail "exit-atexit: trace incomplete"
cs_test exit-locked
check "$(one exit-locked)" --maybe-truncated >/dev/null || fail "exit-locked: header lost"
cs_test dlclose "$tests/libradeon-drm-cs-test-module.so"
check "$(one dlclose)" --frames 10000 >/dev/null || fail "dlclose: trace incomplete"
echo "trace-writer: teardown: at exit, complete (10 frames); with the lock held, the" \
	"program ends and the header is kept; unloaded 1000 times live, complete at exit"

# fork
rm -f "$out"/fork.*.vrl
"${shim[@]}" RADEON_BO_TRACE="$out/fork.%p.vrl" "$glsmoke" --gbm --frames 60 --fork-at 30 \
	>/dev/null 2>&1 || fail "fork: the program failed"
[ "$(ls "$out"/fork.*.vrl | wc -l)" = 1 ] || fail "fork: $(ls "$out"/fork.*.vrl | wc -l) trace files"
check "$(one fork)" --frames 60 | sed -n '2p;1s/,.*//p' | sed 's/^/trace-writer: fork: /'

# disk: a 64 KiB tmpfs fills up; header: a 4 KiB one, which the first
# block of records overflows: radeon-drm-cs-test threads-shared makes
# thousands of records and no frame, so its first write is a full block
# (the shim's 4 GiB memfd rules out a file size limit, which would be the
# way without root).
small_disk() { # NAME KIB COMMAND...: run COMMAND tracing onto a KIB tmpfs
	local name=$1 kib=$2
	shift 2
	mkdir -p "$out/small"
	mount -t tmpfs -o size=${kib}k tmpfs "$out/small" || return 1
	set +e
	env RADEON_BO_TRACE="$out/small/$name.%p.vrl" "$@" >/dev/null 2>"$out/$name.err"
	st=$?
	set -e
	cp "$(one small/$name)" "$out/$name.vrl"; umount "$out/small"
	[ $st = 0 ] || { cat "$out/$name.err"; fail "$name: the program failed (status $st)"; }
}
if [ "$(id -u)" = 0 ] && small_disk disk 64 "${shim[@]}" "$glsmoke" --gbm --frames 20000; then
	msg=$(grep 'No space left on device; trace stopped' "$out/disk.err") ||
		{ cat "$out/disk.err"; fail "disk: no message"; }
	frame=$(sed -n 's/.*readable up to frame \([0-9]*\) .*/\1/p' <<<"$msg")
	kept=$(sed -n 's/.*bytes, \([0-9]*\) records).*/\1/p' <<<"$msg")
	got=$(check "$out/disk.vrl" --truncated)
	[ -n "$frame" ] && [ "$frame" = "$(sed -n 's/.*after \([0-9]*\) complete frames/\1/p' <<<"$got")" ] ||
		fail "disk: the message says frame $frame, the file holds: $got"
	# Every record made and not in the file is counted.
	drop=$(grep -o '[0-9]* of [0-9]* records and .* records dropped' "$out/disk.err") ||
		{ cat "$out/disk.err"; fail "disk: no count of the records dropped"; }
	read -r in_file _ made _ <<<"$drop"
	dropped=$(sed -n 's/.* \([0-9]*\) records dropped/\1/p' <<<"$drop")
	[ "$in_file" = "$kept" ] && [ $((made - in_file)) = "$dropped" ] && [ "$dropped" -gt 0 ] ||
		fail "disk: counts disagree: '$msg' / '$drop'"
	echo "trace-writer: disk: the program finished; the trace stops at frame $frame, as" \
		"it says; $in_file of $made records kept, $dropped counted as dropped"

	small_disk header 4 "${cs_shim[@]}" timeout 120 "$tests/radeon-drm-cs-test" threads-shared
	grep -q 'readable up to frame 0 ' "$out/header.err" ||
		{ cat "$out/header.err"; fail "header: no message"; }
	check "$out/header.vrl" --truncated >/dev/null || fail "header: the header is lost"
	echo "trace-writer: header: the first block's write failed; the file holds the" \
		"header ($(stat -c %s "$out/header.vrl") bytes)"
else
	echo "trace-writer: disk, header: SKIP (needs root to mount a small tmpfs)"
fi

# setuid
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	d=$(mktemp -d /tmp/vramlab-setuid.XXXXXX); chmod 1777 "$d"
	cp "$tests/radeon-drm-cs-test-shim-linked" "$d/t"; chmod 4755 "$d/t"
	run() { setpriv --reuid=nobody --regid=nogroup --clear-groups env RADEON_GPU_ID=BARTS \
		RADEON_SHIM_BO_SCORES=1 RADEON_BO_SCORE=1 RADEON_SHIM_SCORE_LOG="$d/log" \
		RADEON_BO_TRACE="$d/s.%p.vrl" "$d/t" secure 2>&1; }
	o=$(run) || { echo "$o"; rm -rf "$d"; fail "setuid: the test failed"; }
	if grep -q 'AT_SECURE=1' <<<"$o"; then
		n=$(find "$d" -name "s.*.vrl" | wc -l)
		rm -f "$d"/s.*.vrl "$d/log"
		# The control: the same binary, not setuid, run by root, traces.
		chmod 0755 "$d/t"
		env RADEON_GPU_ID=BARTS RADEON_SHIM_BO_SCORES=1 RADEON_BO_SCORE=1 \
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
"${shim[@]}" RADEON_BO_TRACE_TEXT=1 "$glsmoke" --gbm --frames 2 2>"$out/text.txt" >/dev/null
grep -q '^started @' "$out/text.txt" && grep -q '^finished @' "$out/text.txt" ||
	fail "text: no started/finished lines in $out/text.txt"
[ "$(grep -c '^frame @' "$out/text.txt")" = 2 ] ||
	fail "text: $out/text.txt does not have the 2 frames drawn"
echo "trace-writer: text: $(grep -c ' created, size ' "$out/text.txt") creates," \
	"$(grep -c ' read @' "$out/text.txt") reads, $(grep -c '^frame @' "$out/text.txt") frames"
echo "trace-writer: pass"
