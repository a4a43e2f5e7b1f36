#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build ttm.ko and radeon.ko for x86_64 (defconfig, DRM_RADEON=m) and check
# that the series adds no W=1 warning to the C files it touches.
#
# usage: build-modules.sh KDIR BUILD JOBS BASE_REF [each]
#
#   KDIR      the patched tree (a git checkout, series applied)
#   BUILD     directory for build output (out of tree)
#   JOBS      make -j
#   BASE_REF  the pristine base (git tag) to compare warnings against
#   each      instead: build ttm.ko and radeon.ko at every patch of the series
set -euo pipefail

KDIR=$1 BUILD=$2 JOBS=$3 BASE=$4 MODE=${5:-}
MODS="drivers/gpu/drm/ttm/ttm.ko drivers/gpu/drm/radeon/radeon.ko"

configure() {	# $1 source tree, $2 output directory
	local src=$1 out=$2
	mkdir -p "$out"
	[ -f "$out/.config" ] && return 0
	make -s -C "$src" O="$out" defconfig
	"$src/scripts/config" --file "$out/.config" \
		-e MODULES -m DRM -m DRM_RADEON -m DRM_I915 \
		-d DEBUG_INFO -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		-d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE
	make -s -C "$src" O="$out" olddefconfig
	grep -q '^CONFIG_DRM_RADEON=m' "$out/.config"
	grep -q '^CONFIG_DRM_TTM=m' "$out/.config"
}

# A worktree of $KDIR at $1, in $2 (reused between runs)
worktree_at() {
	local rev=$1 dir=$2
	if [ ! -e "$dir/.git" ]; then
		rm -rf "$dir"
		git -C "$KDIR" worktree prune
		git -C "$KDIR" worktree add -q --detach "$dir" "$rev"
	else
		git -C "$dir" checkout -q --detach "$rev"
	fi
}

# W=1 warnings of the given objects, without line numbers, sorted
warnings_of() {	# $1 log file, rest: source files
	local log=$1; shift
	local f
	for f in "$@"; do
		grep -E "^([^ ]*/)?$f:[0-9]+(:[0-9]+)?: warning:" "$log" |
			sed -E "s#^([^ ]*/)?($f):[0-9]+(:[0-9]+)?: #\\2: #" || true
	done | sort
}

if [ "$MODE" = each ]; then
	tree="$(dirname "$KDIR")/each"
	out="$BUILD/each-x86_64"
	worktree_at "$BASE" "$tree"
	configure "$tree" "$out"
	rc=0
	for rev in $(git -C "$KDIR" rev-list --reverse "$BASE..HEAD"); do
		git -C "$tree" checkout -q --detach "$rev"
		subj=$(git -C "$tree" log -1 --format=%s)
		start=$(date +%s)
		if make -s -C "$tree" O="$out" -j"$JOBS" $MODS >"$out/build.log" 2>&1; then
			echo "builds ($(( $(date +%s) - start ))s): $subj"
		else
			echo "FAILS: $subj"; tail -20 "$out/build.log"; rc=1
		fi
	done
	exit $rc
fi

out="$BUILD/modules-x86_64"
configure "$KDIR" "$out"

# C files the series touches; their objects are rebuilt every time so that
# their W=1 warnings are in the log
mapfile -t touched < <(git -C "$KDIR" diff --name-only "$BASE..HEAD" -- '*.c')
for f in "${touched[@]}"; do rm -f "$out/${f%.c}.o"; done

start=$(date +%s)
make -C "$KDIR" O="$out" -j"$JOBS" W=1 $MODS 2>&1 | tee "$out/build.log" | grep -E 'warning:|error:|LD \[M\]' || true
[ "${PIPESTATUS[0]}" = 0 ]
echo "modules built in $(( $(date +%s) - start ))s:"
# 6.12 links the module objects for a single .ko target and leaves the .ko
# to modpost; the linked objects are what this checks
ls -l "$out/drivers/gpu/drm/ttm/ttm.o" "$out/drivers/gpu/drm/radeon/radeon.o"

# Of those, the ones this configuration compiles
mapfile -t touched < <(for f in "${touched[@]}"; do
	[ -f "$out/${f%.c}.o" ] && echo "$f"; done)

# The same objects at the base, with W=1, for comparison (cached)
base_tree="$(dirname "$KDIR")/base"
base_out="$BUILD/modules-x86_64-base"
worktree_at "$BASE" "$base_tree"
configure "$base_tree" "$base_out"
objs=()
for f in "${touched[@]}"; do
	[ -f "$base_tree/$f" ] && objs+=("${f%.c}.o") && rm -f "$base_out/${f%.c}.o"
done
make -s -C "$base_tree" O="$base_out" -j"$JOBS" W=1 "${objs[@]}" >"$base_out/build.log" 2>&1

new=$(comm -13 <(warnings_of "$base_out/build.log" "${touched[@]}") \
	       <(warnings_of "$out/build.log" "${touched[@]}"))
echo "W=1 on touched files (${touched[*]}):"
if [ -n "$new" ]; then
	echo "NEW WARNINGS:"; echo "$new"; exit 1
fi
echo "  no new warnings ($(warnings_of "$out/build.log" "${touched[@]}" | wc -l) pre-existing ones, unchanged)"
