#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A game replay: Debian's Neverball 1.6 (SDL2, OpenGL with vertex buffers, reflections and
# shadows) plays back the replay its data ships for the title screen (gui/demo1.nbr). The
# replay runs on the clock and then waits at its end screen, so the shim ends the game
# after FRAMES frames (VRADEON_EXIT_FRAMES).
# usage: neverball.sh [FRAMES] [REPLAY]   (default 12000, gui/demo1.nbr)
. "$(dirname "$0")/common.sh"
frames=${1:-12000}
replay=${2:-/usr/share/games/neverball/gui/demo1.nbr}
need neverball
# The game's settings (its config file in the throw-away home): a 1024x768 window, no vsync,
# every effect on.
mkdir -p "$work/.neverball"
printf '%s\n' "fullscreen 0" "width 1024" "height 768" "vsync 0" "reflection 1" "shadow 1" \
	"background 1" "textures 1" "mipmap 1" "multisample 0" "audio_buff 2048" \
	>"$work/.neverball/neverballrc"
on_vradeon VRADEON_EXIT_FRAMES="$frames" timeout 120 /usr/games/neverball --replay "$replay" </dev/null
