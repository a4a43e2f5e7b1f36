#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A Wayland compositor: Debian's weston 10 with its headless backend and GL renderer (an EGL
# pbuffer on the surfaceless platform, 1920x1080) composites its desktop shell (background,
# panel) and five of weston's demo clients (simple-shm, smoke and simple-damage animate on
# every frame, two flowers are still): each client's shared-memory buffer is a texture
# updated as it draws. Weston repaints until told to stop, so the shim ends it after FRAMES
# repaints (VRADEON_EXIT_FRAMES); only weston records (VRADEON_PROGRAM), not the shell
# helper it starts. The clients draw with the CPU and are not on the shim.
# usage: weston.sh [FRAMES]   (default 600: 10 s of 60 Hz repaints)
. "$(dirname "$0")/common.sh"
frames=${1:-600}
need weston
sock=vramlab-$$
cat >"$work/weston.ini" <<INI
[core]
idle-time=0
require-input=false
[shell]
background-color=0xff203050
panel-position=top
clock-format=none
animation=none
INI
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
# (timeout: a stuck run is an error, status 124, not a hang)
on_vradeon VRADEON_EXIT_FRAMES="$frames" VRADEON_PROGRAM=weston timeout 120 weston \
	--backend=headless-backend.so --use-gl --width=1920 --height=1080 \
	--config="$work/weston.ini" --socket="$sock" --log="$work/weston.log" </dev/null &
weston=$!
for _ in $(seq 100); do [ -S "$work/run/$sock" ] && break; kill -0 $weston 2>/dev/null || break; sleep 0.1; done
[ -S "$work/run/$sock" ] || { cat "$work/weston.log" >&2; die "weston did not start"; }
for c in weston-simple-shm weston-smoke weston-flower weston-simple-damage weston-flower; do
	env -u DISPLAY HOME="$work" XDG_RUNTIME_DIR="$work/run" WAYLAND_DISPLAY="$sock" "$c" \
		</dev/null >"$work/$c.log" 2>&1 &
	pids+=($!)
done
# The shim ends weston after FRAMES repaints, with status 0.
rc=0; wait $weston || rc=$?
grep -iE "error|fail" "$work/weston.log" >&2 || true
[ $rc = 0 ] || die "weston failed (exit status $rc)"
echo "weston: $frames repaints"
