#!/bin/bash
# SPDX-License-Identifier: MIT
#
# An apitrace replay: Debian's apitrace records dsda-doom's OpenGL timedemo of Freedoom:
# Phase 1's first demo (packages prboom-plus, freedoom) over Mesa's radeon no-op shim, not
# the virtual radeon, so the recording is not counted; then `eglretrace --headless`
# (waffle's surfaceless EGL) replays every call on the virtual radeon. A replay re-creates
# the program's GL objects from the call stream, without the game's own CPU work between.
# usage: apitrace.sh [DEMO]   (a demo lump of freedoom1.wad, default DEMO1)
. "$(dirname "$0")/common.sh"
demo=${1:-DEMO1}
need apitrace prboom-plus freedoom
"$here/wadlump.py" /usr/share/games/doom/freedoom1.wad "$demo" "$work/demo.lmp"
noop=$prefix/lib/libradeon_noop_drm_shim.so
[ -e "$noop" ] || die "no radeon no-op shim in $prefix"
# (the later LD_PRELOAD wins: the no-op shim instead of ours)
on_vradeon LD_PRELOAD="$noop" apitrace trace --api egl -o "$work/doom.trace" \
	/usr/games/dsda-doom -iwad /usr/share/games/doom/freedoom1.wad -vidmode gl -geom 800x600w \
	-nosound -nomusic -nomouse -timedemo "$work/demo.lmp" </dev/null >"$work/record.log" 2>&1 ||
	{ tail -5 "$work/record.log" >&2; die "the recording failed"; }
echo "apitrace: recorded $(stat -c %s "$work/doom.trace") bytes"
on_vradeon WAFFLE_PLATFORM=surfaceless_egl eglretrace --headless "$work/doom.trace" </dev/null
