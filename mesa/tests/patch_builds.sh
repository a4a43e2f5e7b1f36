#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Builds Mesa at chosen patches of the series, one install per patch, for a
# per-patch A/B (cost_ab.sh).  One worktree of the Mesa tree and one build
# directory are reused: each patch is checked out in turn and ninja rebuilds
# only what it changed.  Each build is installed with DESTDIR under
# WORK_DIR/prefix/LABEL (the prefix inside is $INNER), and the list of
# LABEL=PREFIX pairs is written to WORK_DIR/points, in series order.
#
# usage: patch_builds.sh SRC_GIT BASE_REF WORK_DIR JOBS "MESON_OPTS" POINT...
#   SRC_GIT     the Mesa tree with the series applied (branch checked out)
#   BASE_REF    the pristine base; POINT n is the n-th commit after it
#   POINT       1-NFIXES are the fixes (label fixNN), then the features
#               (label featN, N = POINT - NFIXES)
# Environment: NFIXES (default 14, 22.3's; 13 on 25.0), PB_MESON and PB_NINJA (commands,
# possibly prefixed with VAR=value, as ../version.mk sets them; default meson, ninja).
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/../../ci/safe-write.sh" # WORK_DIR/points, written whole
[ $# -ge 6 ] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
src=$1 base=$2 work=$3 jobs=$4 opts=$5
shift 5
INNER=/opt/vramlab-ab
nfixes=${NFIXES:-14}
# (not MESON or NINJA: meson reads $NINJA itself to find ninja)
meson=${PB_MESON:-meson} ninja=${PB_NINJA:-ninja}
tree=$work/src build=$work/build
mkdir -p "$work"
mapfile -t commits < <(git -C "$src" rev-list --reverse "$base..HEAD")
[ ${#commits[@]} -gt 0 ] || { echo "patch_builds.sh: no commits after $base" >&2; exit 1; }

if [ ! -e "$tree/.git" ]; then
	rm -rf "$tree"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$tree" "${commits[0]}"
fi

safe_write_begin points_new "$work/points"
for p in "$@"; do
	[[ $p =~ ^[1-9][0-9]*$ ]] && [ "$p" -le ${#commits[@]} ] ||
		{ echo "patch_builds.sh: no patch $p (the series has ${#commits[@]})" >&2; exit 2; }
	c=${commits[$((p - 1))]}
	if [ "$p" -le "$nfixes" ]; then label=$(printf 'fix%02d' "$p"); else label=feat$((p - nfixes)); fi
	git -C "$tree" checkout -q --detach "$c"
	if [ ! -f "$build/build.ninja" ]; then
		# shellcheck disable=SC2086
		env $meson setup "$build" "$tree" $opts --prefix="$INNER" --libdir=lib -Dbuild-tests=false >"$work/setup.log" ||
			{ tail -20 "$work/setup.log" >&2; exit 1; }
	fi
	start=$(date +%s)
	echo "patch_builds: $label ($(git -C "$tree" log -1 --format=%s))" >&2
	env $ninja -C "$build" -j"$jobs" >"$work/build-$label.log" 2>&1 ||
		{ tail -20 "$work/build-$label.log" >&2; exit 1; }
	rm -rf "$work/prefix/$label"
	DESTDIR="$work/prefix/$label" env $meson install -C "$build" --no-rebuild --quiet >/dev/null
	echo "patch_builds: $label built in $(( $(date +%s) - start )) s" >&2
	echo "$label=$work/prefix/$label$INNER" >>"$points_new"
done
safe_write_commit "$points_new" "$work/points"
