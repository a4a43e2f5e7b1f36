#!/bin/bash
# SPDX-License-Identifier: MIT
#
# libdrm's radeon_drm.h must carry the kernel's uapi hunk line for line: the
# lines our libdrm series adds to include/drm/radeon_drm.h must be exactly
# the lines the kernel series adds to include/uapi/drm/radeon_drm.h (what
# `make headers_install` copies).  Both sides are read from the patch files,
# so no kernel tree is needed.
#
# usage: check-uapi-sync.sh LIBDRM_PATCHDIR KERNEL_PATCHDIR...
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 LIBDRM_PATCHDIR KERNEL_PATCHDIR..." >&2; exit 2; }
libdrm=$1
shift

# The added lines of FILE in the patches of the directories given
added() {
	local file=$1
	shift
	local d p
	for d in "$@"; do
		for p in "$d"/[0-9]*.patch; do
			[ -e "$p" ] || continue
			awk -v f="$file" '
				/^diff --git / { on = ($3 == "a/" f) }
				on && /^\+/ && !/^\+\+\+ / { print substr($0, 2) }' "$p"
		done
	done
}

want=$(added include/uapi/drm/radeon_drm.h "$@")
got=$(added include/drm/radeon_drm.h "$libdrm")
[ -n "$want" ] || { echo "check-uapi-sync: no kernel patch adds to include/uapi/drm/radeon_drm.h"; exit 1; }
if [ "$want" != "$got" ]; then
	echo "check-uapi-sync: libdrm's radeon_drm.h hunk differs from the kernel's uapi hunk:"
	diff <(echo "$want") <(echo "$got") | head -40 || true
	exit 1
fi
echo "check-uapi-sync: libdrm's radeon_drm.h adds exactly the kernel's $(echo "$want" | wc -l) uapi lines"
