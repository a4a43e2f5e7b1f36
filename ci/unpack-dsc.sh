#!/bin/bash
# SPDX-License-Identifier: MIT
#
# unpack-dsc.sh LABEL DSC SRC WHAT
#
# A Debian source package (DSC, fetched and hash-checked by apt-private.sh) unpacked with
# dpkg-source (Debian's patches applied, as apt-get source does) into SRC and committed there
# pristine (message "WHAT VERSION (... source, pristine)", tag vramlab-base), once: again only
# when another source package is named (SRC/.git/vramlab-package records which). Messages
# start with LABEL. Shared by mesa/fetch-25.sh and libdrm/fetch.sh.
set -eu -o pipefail
[ $# = 4 ] || { sed -n 's/^# unpack-dsc.sh /usage: unpack-dsc.sh /p' "$0" >&2; exit 2; }
label=$1 dsc=$2 src=$3 what=$4
git_id=(-c user.name="$(git config --global user.name || echo vramlab)"
	-c user.email="$(git config --global user.email || echo vramlab@localhost)")
pkg=$(basename "$dsc" .dsc)
if [ "$(cat "$src/.git/vramlab-package" 2>/dev/null)" = "$pkg" ] &&
   git -C "$src" rev-parse -q --verify refs/tags/vramlab-base >/dev/null 2>&1; then
	exit 0
fi
[ ! -d "$src" ] || echo "$label: NOTICE: replacing $src ($(cat "$src/.git/vramlab-package" 2>/dev/null || echo 'no package')) with $pkg" >&2
echo "$label: unpacking $pkg into $src" >&2
rm -rf "$src" "$src.tmp"
mkdir -p "$src.tmp"
dpkg-source -q -x "$dsc" "$src.tmp/src" >"$src.tmp/dpkg-source.log" 2>&1 || {
	cat "$src.tmp/dpkg-source.log" >&2; exit 1; }
mv "$src.tmp/src" "$src"
rm -rf "$src.tmp" "$src/.pc"
git -C "$src" init -q -b master
git -C "$src" "${git_id[@]}" add -A -f
git -C "$src" "${git_id[@]}" commit -q -m "$what ${pkg#*_} (Debian source, pristine)"
git -C "$src" tag vramlab-base
echo "$pkg" >"$src/.git/vramlab-package"
