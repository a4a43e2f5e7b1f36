#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A 2D adventure game's engine: Debian's ScummVM 2.7 (package scummvm) plays the intro of
# Lure of the Temptress (package lure-of-the-temptress, English) through its OpenGL
# graphics mode: the game draws 320x200 frames with the CPU, which ScummVM uploads into a
# texture every frame and draws four times larger, aspect-corrected and filtered, into the
# window (SDL's offscreen driver); AdLib music is emulated into SDL's dummy audio. The
# intro runs on the clock and then waits in the game, so the shim ends it after FRAMES
# frames (VRADEON_EXIT_FRAMES).
# usage: scummvm.sh [FRAMES]   (default 400: some 25 s of the intro)
. "$(dirname "$0")/common.sh"
frames=${1:-400}
need scummvm lure-of-the-temptress
# A config file of its own in the throw-away home: no saved settings.
on_vradeon VRADEON_EXIT_FRAMES="$frames" timeout 120 /usr/games/scummvm \
	--config="$work/scummvm.ini" --gfx-mode=opengl --no-fullscreen --scale-factor=4 \
	--filtering --aspect-ratio --music-driver=adlib \
	-p /usr/share/scummvm/lure-of-the-temptress/en lure </dev/null
