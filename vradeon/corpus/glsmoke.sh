#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The project's own GL program: mesa/tests/glsmoke.c (GLES 3 over GBM: vertex buffers,
# texture uploads, an FBO with depth/stencil, a 4x MSAA resolve, readbacks), each frame a
# GBM window swap. GLSMOKE names the binary (the vradeon Makefile builds it against the
# Mesa prefix).
# usage: glsmoke.sh [FRAMES]   (default 60)
. "$(dirname "$0")/common.sh"
frames=${1:-60}
glsmoke=${GLSMOKE:-$cache/vradeon/glsmoke}
[ -x "$glsmoke" ] || die "no glsmoke at $glsmoke (make -C vradeon build)"
on_vradeon timeout 120 "$glsmoke" --gbm --frames "$frames" </dev/null
