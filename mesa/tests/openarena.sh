#!/bin/bash
# SPDX-License-Identifier: MIT
#
# OpenArena's timedemo (Debian's openarena, demo088-test1 from
# openarena-088-data) through an r600g Mesa prefix over the radeon no-op DRM
# shim, headless: SDL's offscreen video driver (an EGL pbuffer on the
# EGL_PLATFORM_DEVICE_EXT display), no sound, a throw-away game home.
#
# usage: openarena.sh [options] [PREFIX] [-- GAME_ARGS...]
#   PREFIX             Mesa install prefix (default $MESA_PREFIX, else
#                      ${VRAMLAB_CACHE:-$HOME/.cache/vramlab}/mesa-25-prefix, Mesa 25)
#   --short [N]        the first N demo messages only, about a frame each
#                      (default 300: 300 frames, 2-5 s in all); for `make test`
#   --full             the whole demo: 3398 frames, 7-10 s in all  [default]
#   --log FILE         the game's output (stdout and stderr, Mesa's and the
#                      shim's included); default
#                      ${VRAMLAB_CACHE:-$HOME/.cache/vramlab}/openarena/openarena-MODE.log
#   --renderer R       ioquake3 renderer: opengl1 (default: the classic
#                      renderer OpenArena 0.8.8 shipped) or opengl2 (GLSL,
#                      FBOs; Debian's ioquake3 default)
#   --size WxH         resolution (default 640x480)
#   --present P        gbm (default): SDL's EGL is tests/egl_gbm_present.c,
#                      which turns SDL's pbuffer into a GBM window surface so
#                      each eglSwapBuffers ends a frame in the driver;
#                      pbuffer: SDL's own pbuffer, whose swaps do nothing
#   --timeout S        give up after S seconds (default 600)
#   --no-install       fail instead of installing openarena when missing
#   --keep-home        keep the game's temporary home directory (printed)
#   -- GAME_ARGS       passed to the game last (e.g. +set r_picmip 0)
# Environment: MESA_PREFIX, OA_MODE (short|full), OA_FRAMES, OA_LOG,
# OA_RENDERER, OA_SIZE, OA_PRESENT, OA_TIMEOUT, OA_SHIM (the DRM shim to preload: default the
# prefix's radeon no-op shim; the virtual radeon's for vradeon/); RADEON_GPU_ID (default BARTS); the
# rest of the caller's environment reaches the game unchanged
# (RADEON_BO_TRACE, R600_DEBUG, RADEON_SHIM_BO_SCORES, RADEON_SHIM_CS_STATS,
# RADEON_BO_SCORE..., and LD_PRELOAD / LD_LIBRARY_PATH, which the shim and
# the prefix are put in front of).
#
# Prints one line, then exits 0:
#   openarena: frames=N seconds=S fps=F min_ms=.. avg_ms=.. max_ms=.. sd_ms=.. \
#       wall_s=.. user_s=.. sys_s=.. mode=.. renderer=.. present=.. size=.. log=..
# (frames, seconds, fps and the frame times are the game's own timedemo
# report; wall/user/sys cover the whole game process, start-up included).
# Exits 1 when the game fails (error, crash, timeout, no timedemo report),
# 2 on bad usage.  Installs openarena with apt-get (apt-get update first
# when apt knows no candidate or the install fails) when it is missing and
# we are root.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/../../ci/safe-write.sh" # the EGL wrapper: built whole

me=openarena.sh
cache=${VRAMLAB_CACHE:-$HOME/.cache/vramlab}
prefix=${MESA_PREFIX:-$cache/mesa-25-prefix}
mode=${OA_MODE:-full}
frames=${OA_FRAMES:-300}
log=${OA_LOG:-}
renderer=${OA_RENDERER:-opengl1}
present=${OA_PRESENT:-gbm}
size=${OA_SIZE:-640x480}
timeout_s=${OA_TIMEOUT:-600}
install=1
keep_home=0
game_args=()
DEMO=demo088-test1
DEMO_EXT=dm_71          # the protocol Debian's wrapper sets (com_protocol 71)

usage() { sed -n '/^# usage:/,/^# Exits/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
die() { echo "$me: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--short)
		mode=short
		if [ $# -gt 1 ] && [[ $2 =~ ^[0-9]+$ ]]; then frames=$2; shift; fi ;;
	--full) mode=full ;;
	--log) [ $# -gt 1 ] || usage; log=$2; shift ;;
	--renderer) [ $# -gt 1 ] || usage; renderer=$2; shift ;;
	--size) [ $# -gt 1 ] || usage; size=$2; shift ;;
	--present) [ $# -gt 1 ] || usage; present=$2; shift ;;
	--timeout) [ $# -gt 1 ] || usage; timeout_s=$2; shift ;;
	--no-install) install=0 ;;
	--keep-home) keep_home=1 ;;
	-h|--help) usage ;;
	--) shift; game_args=("$@"); break ;;
	-*) echo "$me: unknown option $1" >&2; usage ;;
	*) prefix=$1 ;;
	esac
	shift
done
case $mode in short|full) ;; *) echo "$me: mode must be short or full, not '$mode'" >&2; exit 2 ;; esac
case $renderer in opengl1|opengl2) ;; *) echo "$me: renderer must be opengl1 or opengl2" >&2; exit 2 ;; esac
case $present in gbm|pbuffer) ;; *) echo "$me: --present must be gbm or pbuffer, not '$present'" >&2; exit 2 ;; esac
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "$me: --size wants WxH, not '$size'" >&2; exit 2; }
width=${BASH_REMATCH[1]} height=${BASH_REMATCH[2]}
if ! [[ $frames =~ ^[1-9][0-9]*$ ]]; then echo "$me: frame count must be a positive number" >&2; exit 2; fi
[[ $timeout_s =~ ^[0-9]+$ ]] || { echo "$me: --timeout wants seconds" >&2; exit 2; }
[ -n "$log" ] || log=$cache/openarena/openarena-$mode.log

[ -d "$prefix" ] || die "no Mesa prefix at $prefix"
prefix=$(cd "$prefix" && pwd)
shim=${OA_SHIM:-$prefix/lib/libradeon_noop_drm_shim.so}
vendor=$prefix/share/glvnd/egl_vendor.d/50_mesa.json
# The driver: r600_dri.so up to Mesa 24, libgallium-VERSION.so (linked by libEGL_mesa) since 25
driver=$prefix/lib/dri/r600_dri.so
[ -e "$driver" ] || driver=$(ls "$prefix"/lib/libgallium-*.so 2>/dev/null | sed -n 1p)
for f in "$shim" "$vendor" "${driver:-$prefix/lib/libgallium-VERSION.so}"; do
	[ -e "$f" ] || die "$f missing: is $prefix a Mesa prefix built with r600 and -Dtools=drm-shim?"
done

# --- the game ----------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep 'ok installed' >/dev/null; }
if ! installed openarena || [ ! -x /usr/games/openarena ]; then
	[ "$install" = 1 ] || die "openarena is not installed (apt-get install openarena)"
	[ "$(id -u)" = 0 ] || die "openarena is not installed; run as root to install it, or apt-get install openarena"
	echo "$me: installing openarena" >&2
	. "$(dirname "$0")/../../ci/apt-lock.sh"
	apt_lock
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-cache policy openarena 2>/dev/null | grep 'Candidate: [0-9]' >/dev/null; then
		apt-get update -qq
	fi
	apt-get install -y -qq openarena >&2 || { apt-get update -qq && apt-get install -y -qq openarena >&2; } ||
		die "apt-get install openarena failed"
fi
python=/usr/bin/python3
[ -x $python ] || python=$(command -v python3) || die "python3 is needed"

home=$(mktemp -d "${TMPDIR:-/tmp}/vramlab-openarena.XXXXXX")
game_pid=
# SIGTERM first (ioquake3 shuts down cleanly, most of the time); its signal
# handler can deadlock when the signal lands inside the driver, so SIGKILL
# after 5 s.
stop_game() {
	[ -n "$game_pid" ] || return 0
	kill "$game_pid" 2>/dev/null || true
	local _
	for _ in $(seq 25); do
		kill -0 "$game_pid" 2>/dev/null || break
		sleep 0.2
	done
	kill -9 "$game_pid" 2>/dev/null || true
	wait "$game_pid" 2>/dev/null || true
	game_pid=
}
cleanup() {
	stop_game
	safe_write_cleanup
	if [ "$keep_home" = 1 ]; then echo "$me: game home kept in $home" >&2; else rm -rf "$home"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
gamehome=$home/.openarena
mkdir -p "$gamehome/baseoa/demos" "$(dirname "$log")"

# The short section: the demo's first N messages (a demo is a sequence of
# <int32 sequence, int32 length, length bytes> records ended by -1 -1; each
# message is one frame in a timedemo), in the game home, which is searched
# before the game's packs.
demo=$DEMO
if [ "$mode" = short ]; then
	demo=vramlab-short
	$python - "$DEMO.$DEMO_EXT" "$frames" "$gamehome/baseoa/demos/$demo.$DEMO_EXT" <<'EOF' ||
import glob, struct, sys, zipfile
name, n, out = "demos/" + sys.argv[1], int(sys.argv[2]), sys.argv[3]
for pk3 in sorted(glob.glob("/usr/lib/openarena/baseoa/*.pk3"), reverse=True):
    with zipfile.ZipFile(pk3) as z:
        if name in z.namelist():
            data = z.read(name)
            break
else:
    sys.exit("openarena.sh: %s is in no pack of /usr/lib/openarena/baseoa" % name)
off = count = 0
while count < n and off + 8 <= len(data):
    seq, length = struct.unpack_from("<ii", data, off)
    if length < 0:
        break
    off += 8 + length
    count += 1
if count < n:
    sys.exit("openarena.sh: %s has only %d messages" % (name, count))
with open(out, "wb") as f:
    f.write(data[:off] + struct.pack("<ii", -1, -1))
EOF
	die "could not cut the demo"
fi

# --- the run ------------------------------------------------------------------
# LIBGL_DRIVERS_PATH, GBM_BACKENDS_PATH: libEGL_mesa and libgbm otherwise load r600_dri.so
# (up to Mesa 24) and dri_gbm.so (25) from the paths compiled into them (the prefix they were
# built for, not necessarily this one).
run_env=(
	HOME="$home"
	SDL_VIDEODRIVER=offscreen
	SDL_AUDIODRIVER=dummy
	LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}"
	LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	LIBGL_DRIVERS_PATH="$prefix/lib/dri"
	GBM_BACKENDS_PATH="$prefix/lib/gbm"
	MESA_LOADER_DRIVER_OVERRIDE=r600
	__EGL_VENDOR_LIBRARY_FILENAMES="$vendor"
	RADEON_GPU_ID="${RADEON_GPU_ID:-BARTS}"
)
# Real swaps: SDL's EGL is our wrapper (egl_gbm_present.c), which makes the
# pbuffer a GBM window surface, so that each frame ends in the driver as on
# a desktop (r600's end-of-frame flush); --present pbuffer leaves SDL's
# pbuffer alone (its swaps reach no driver).
# Built once into the cache (again when its source is newer): it needs only
# gbm.h and libgbm.so.1, the same in every prefix.
if [ "$present" = gbm ]; then
	present_src=$(dirname "$(readlink -f "$0")")/egl_gbm_present.c
	present_lib=$cache/openarena/egl_gbm_present.so
	if [ ! "$present_lib" -nt "$present_src" ]; then
		mkdir -p "$cache/openarena"
		safe_write_begin present_tmp "$present_lib"
		cc -shared -fPIC -O2 -Wall -I"$prefix/include" -o "$present_tmp" "$present_src" \
			-L"$prefix/lib" -lgbm -ldl -lpthread ||
			die "could not build egl_gbm_present.so (cc, and gbm.h in $prefix/include)"
		safe_write_commit "$present_tmp" "$present_lib"
	fi
	run_env+=(SDL_VIDEO_EGL_DRIVER="$present_lib")
fi
# nextdemo quit: the game quits when the demo ends (after printing its
# timedemo report); com_hunkmegs: the default 128 is too small for this demo
# with the opengl2 renderer (Hunk_Alloc fails while loading it).
cvars=(
	+set fs_homepath "$gamehome"
	+set s_initsound 0
	+set com_hunkmegs 256
	+set cl_renderer "$renderer"
	+set r_fullscreen 0 +set r_mode -1
	+set r_customwidth "$width" +set r_customheight "$height"
	+set r_swapInterval 0
	+set in_joystick 0
	+set nextdemo quit
	+set timedemo 1
	"${game_args[@]}"
	+demo "$demo"
)
: >"$log"
t0=$(date +%s.%N)
env -u DISPLAY -u WAYLAND_DISPLAY "${run_env[@]}" /usr/games/openarena "${cvars[@]}" >"$log" 2>&1 </dev/null &
game_pid=$!
# Watch the game: a dropped error (a missing file, a demo of another
# protocol) sends ioquake3 back to its menu, where it would stay forever.
# Only what was written since the last look is read (R600_DEBUG=bostats
# makes the log large), from a little before it, not to miss a line cut in two.
status=
seen=0
deadline=$(( $(date +%s) + timeout_s ))
while kill -0 "$game_pid" 2>/dev/null; do
	logsize=$(stat -c %s "$log")
	if [ "$logsize" -gt "$seen" ]; then
		from=$(( seen > 256 ? seen - 256 : 0 ))
		# (head reads the file and tail and grep, without -q, read to the end: no SIGPIPE
		# to fail the pipeline while the log grows)
		if head -c "$logsize" "$log" | tail -c +$(( from + 1 )) | grep '^ERROR: ' >/dev/null; then
			status="game error"; break
		fi
		seen=$logsize
	fi
	if [ "$(date +%s)" -ge "$deadline" ]; then status="timeout after ${timeout_s} s"; break; fi
	sleep 0.2
done
if [ -n "$status" ]; then
	stop_game
	grep -E '^ERROR: ' "$log" >&2 || true
	die "$status (log: $log)"
fi
rc=0
wait "$game_pid" || rc=$?
game_pid=
t1=$(date +%s.%N)
# CPU time of this script's children (the game, start-up included, and the
# few helpers above), from bash's `times` (second line: user and system).
# `times` must run in this shell, not in a subshell (whose children are not
# the game).
times >"$home/times"
read -r cuser csys < <(sed -n 2p "$home/times")
tosec() { awk -v t="$1" 'BEGIN { n = split(t, a, /[ms]/); printf "%.2f", a[1] * 60 + a[2] }'; }

# "3398 frames 8.3 seconds 407.5 fps 1.0/2.5/34.0/2.5 ms" (ioquake3's CL_DemoCompleted)
report=$(grep -E '^[0-9]+ frames [0-9.]+ seconds [0-9.]+ fps ' "$log" | tail -n 1 || true)
if [ "$rc" != 0 ] || [ -z "$report" ] || grep -q '^ERROR: ' "$log"; then
	grep -E '^ERROR: |Segmentation|Assertion|^\*\*\*' "$log" | head -n 5 >&2 || true
	[ -n "$report" ] || echo "$me: no timedemo report in the game's output" >&2
	die "the game failed (exit status $rc; log: $log)"
fi
read -r nframes _ secs _ fps _ times_ms _ <<<"$report"
IFS=/ read -r tmin tavg tmax tsd <<<"$times_ms"
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
echo "openarena: frames=$nframes seconds=$secs fps=$fps min_ms=$tmin avg_ms=$tavg max_ms=$tmax sd_ms=$tsd" \
	"wall_s=$wall user_s=$(tosec "$cuser") sys_s=$(tosec "$csys") mode=$mode renderer=$renderer present=$present size=$size log=$log"
