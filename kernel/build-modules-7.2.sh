#!/bin/bash
# SPDX-License-Identifier: MIT
#
# x86_64 W=1 builds of the C files the 7.2 series touches, at the base and at every
# patch of the series, in a worktree of its own; fails on a build error or on a W=1
# warning the base does not have.  At each patch it also checks that every radeon
# function or object the KUnit module (radeon_cs_test.o) uses is exported to it, which
# a single-object build cannot show (modpost would need all of vmlinux and drm).
#
# usage: build-modules-7.2.sh KDIR BUILD JOBS BASE_REF
set -euo pipefail

KDIR=$1 BUILD=$2 JOBS=$3 BASE=$4
tree="$(dirname "$KDIR")/linux-7.2-each"
out="$BUILD/x86_64"
mkdir -p "$BUILD"

if [ ! -e "$tree/.git" ]; then
	rm -rf "$tree"
	git -C "$KDIR" worktree prune
	git -C "$KDIR" worktree add -q --detach "$tree" "$BASE"
fi
git -C "$tree" checkout -q -f --detach "$BASE"

if [ ! -f "$out/.config" ]; then
	mkdir -p "$out"
	make -s -C "$tree" O="$out" defconfig
	"$tree/scripts/config" --file "$out/.config" \
		-e MODULES -m DRM -m DRM_RADEON -m KUNIT -m DRM_RADEON_KUNIT_TEST \
		-d DEBUG_INFO -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		-d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE
	make -s -C "$tree" O="$out" olddefconfig
	grep -q '^CONFIG_DRM_RADEON=m' "$out/.config"
fi
start=$(date +%s)
make -s -C "$tree" O="$out" -j"$JOBS" prepare >"$BUILD/prepare.log" 2>&1 ||
	{ tail -20 "$BUILD/prepare.log"; exit 1; }
echo "modules-7.2: x86_64 build directory prepared ($(( $(date +%s) - start ))s)"

mapfile -t revs < <(git -C "$KDIR" rev-list --reverse "$BASE..HEAD")
mapfile -t files < <(git -C "$KDIR" diff --name-only "$BASE..HEAD" -- '*.c')

# W=1 warnings of the objects of $files present at the checked-out revision, without
# line numbers, sorted; the build log in $1
build_at() {
	local log=$1 f objs=()

	for f in "${files[@]}"; do
		rm -f "$out/${f%.c}.o"
		[ -f "$tree/$f" ] && objs+=("${f%.c}.o")
	done
	[ ${#objs[@]} -gt 0 ] || return 0
	if [ -f "$tree/drivers/gpu/drm/radeon/tests/Makefile" ] &&
	   ! grep -q '^CONFIG_DRM_RADEON_KUNIT_TEST=m' "$out/.config"; then
		"$tree/scripts/config" --file "$out/.config" -m DRM_RADEON_KUNIT_TEST
		make -s -C "$tree" O="$out" olddefconfig
	fi
	make -C "$tree" O="$out" -j"$JOBS" W=1 "${objs[@]}" >"$log" 2>&1 ||
		{ tail -30 "$log"; return 1; }
	for f in "${files[@]}"; do
		grep -E "^([^ ]*/)?$f:[0-9]+(:[0-9]+)?: warning:" "$log" |
			sed -E "s#^([^ ]*/)?($f):[0-9]+(:[0-9]+)?: #\\2: #" || true
	done | sort >"$log.warnings"
}

# The radeon symbols the test module uses must be exported to it
exports_ok() {
	local obj="$out/drivers/gpu/drm/radeon/tests/radeon_cs_test.o" sym bad=0

	[ -f "$obj" ] || return 0
	for sym in $(nm -u "$obj" | awk '{ print $2 }'); do
		grep -qsE "^[a-z].*[ *]$sym(\(| =|;|\[)" "$tree"/drivers/gpu/drm/radeon/*.c || continue
		grep -qsE "EXPORT_SYMBOL[A-Z_]*\($sym\)" "$tree"/drivers/gpu/drm/radeon/*.c && continue
		echo "  radeon_cs_test.o uses $sym, which radeon does not export"; bad=1
	done
	return $bad
}

build_at "$BUILD/base.log"
echo "modules-7.2: base: $(wc -l <"$BUILD/base.log.warnings") W=1 warnings in ${files[*]}"
rc=0
for rev in "${revs[@]}"; do
	git -C "$tree" checkout -q -f --detach "$rev"
	subj=$(git -C "$tree" log -1 --format=%s)
	start=$(date +%s)
	if ! build_at "$BUILD/patch.log"; then
		echo "FAILS: $subj"; rc=1; continue
	fi
	new=$(comm -13 "$BUILD/base.log.warnings" "$BUILD/patch.log.warnings")
	if [ -n "$new" ]; then
		echo "NEW W=1 WARNINGS: $subj"; echo "$new"; rc=1
	elif ! exports_ok; then
		echo "MISSING EXPORTS: $subj"; rc=1
	else
		echo "builds, no new W=1 warning ($(( $(date +%s) - start ))s): $subj"
	fi
done
exit $rc
