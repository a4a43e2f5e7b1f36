#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Doom: Debian's dsda-doom (package prboom-plus) with its OpenGL renderer, the first demo of
# Freedoom: Phase 2 (package freedoom) as a timedemo: every game tic drawn once, as fast as
# it goes, the same tics on every run; the game quits at the demo's end.
# usage: doom.sh [DEMO]   (a demo lump of freedoom2.wad: DEMO1 (default), DEMO2, DEMO3)
. "$(dirname "$0")/common.sh"
demo=${1:-DEMO1}
need prboom-plus freedoom
"$here/wadlump.py" /usr/share/games/doom/freedoom2.wad "$demo" "$work/demo.lmp"
# -geom 800x600w: a window (SDL's offscreen pbuffer) of that size; no sound, music, mouse.
on_vradeon /usr/games/dsda-doom -iwad /usr/share/games/doom/freedoom2.wad -vidmode gl \
	-geom 800x600w -nosound -nomusic -nomouse -timedemo "$work/demo.lmp" </dev/null
