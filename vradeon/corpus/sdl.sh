#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A toolkit demo: SDL 2.26's testsprite2 (package libsdl2-tests) on SDL's 2D renderer over
# OpenGL ("opengl": textured quads batched into vertex buffers), 2000 moving sprites with
# additive blending and cycling colour and alpha, in two windows (two contexts, each with
# its own textures). It draws until told to stop, so the shim ends it after FRAMES frames
# (VRADEON_EXIT_FRAMES; a frame is one window's SDL_RenderPresent()).
# usage: sdl.sh [FRAMES]   (default 600: 300 of each window)
. "$(dirname "$0")/common.sh"
frames=${1:-600}
need libsdl2-tests
t=/usr/libexec/installed-tests/SDL2
# testsprite2 loads icon.bmp from the current directory; timeout: a stuck run is an error.
cd "$t"
on_vradeon VRADEON_EXIT_FRAMES="$frames" timeout 120 "$t/testsprite2" --renderer opengl \
	--geometry 1024x768 --windows 2 --blend add --cyclecolor --cyclealpha 2000 </dev/null
