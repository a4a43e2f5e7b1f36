#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A game timedemo through SDL: Debian's openarena 0.8.8 (ioquake3), demo088-test1 cut to its
# first 300 demo messages (300 timedemo frames and the loading screen's 38), opengl1
# renderer, 640x480, SDL's offscreen video driver made a GBM window by
# mesa/tests/openarena.sh's EGL wrapper, no sound. That script installs the game and runs it
# on the shim OA_SHIM with the Mesa prefix MESA_PREFIX.
# usage: openarena-300.sh
. "$(dirname "$0")/common.sh"
OA_SHIM="$shim" MESA_PREFIX="$prefix" RADEON_GPU_ID="${RADEON_GPU_ID:-BARTS}" \
	timeout 300 "$root/mesa/tests/openarena.sh" --short 300 --log "$work/game.log" </dev/null
# The shim's lines (its summary among them) are in the game's log, which goes with $work.
grep '^vradeon:' "$work/game.log" || die "no vradeon summary in the game's log"
