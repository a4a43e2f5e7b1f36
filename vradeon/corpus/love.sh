#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A scripted scene: Debian's LOVE 11.4 (package love: Lua over SDL2 and OpenGL) runs
# corpus/love/main.lua, a 2D scene of sprite batches, particles, meshes, text and canvases
# that remakes a texture every 20 frames and its canvases every 120; frames, not the clock,
# drive it, and it quits after FRAMES.
# usage: love.sh [FRAMES]   (default 3600: a minute of scene time)
. "$(dirname "$0")/common.sh"
frames=${1:-3600}
need love
on_vradeon /usr/bin/love "$here/love" "$frames" </dev/null
