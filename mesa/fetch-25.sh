#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fetch-25.sh CACHE MESA_VERSION MESA_RANGE MESON_VERSION MESON_MIN
#
# Issue 48's first step, not part of `make test`: Debian 13's (trixie's) Mesa source at
# MESA_VERSION (an upstream version: the newest Debian revision of it trixie serves) and
# bookworm-backports' meson at MESON_VERSION, both through private apt states in the cache
# (../ci/apt-private.sh: CACHE/apt-trixie, CACHE/apt-bookworm-backports; the system's apt
# configuration is only read, apt checks every file's hash against the signed release file).
# When the mirror has moved on: the cache, else the newest Mesa in MESA_RANGE (MIN,BELOW) or
# meson >= MESON_MIN, with a NOTICE.
#
# The Mesa source is unpacked with dpkg-source (Debian's patches applied, as apt-get source
# does) into CACHE/mesa-25 and committed pristine (tag vramlab-base), once: again only when
# another source package is fetched.  meson is unpacked (dpkg-deb -x, never installed) into
# CACHE/meson-bpo, run as CACHE/meson-bpo/bin/meson.  Exit 2 when either cannot be had.

set -eu -o pipefail

cache=$1 mesa_version=$2 mesa_range=$3 meson_version=$4 meson_min=$5
here=$(cd "$(dirname "$0")" && pwd)
fetch=$here/../ci/apt-private.sh
src=$cache/mesa-25 mesondir=$cache/meson-bpo

dsc=$("$fetch" --types deb-src --source --range "$mesa_range" --label mesa-25 \
	"$cache/apt-trixie" trixie mesa "$mesa_version" | tail -1) || {
	echo "mesa-25: no Mesa $mesa_version source could be had (no network, nothing cached)" >&2; exit 2; }
deb=$("$fetch" --range "$meson_min" --label meson \
	"$cache/apt-bookworm-backports" bookworm-backports meson "$meson_version" | tail -1) || {
	echo "mesa-25: no meson >= $meson_min could be had from bookworm-backports" >&2; exit 2; }

# Mesa: unpack and commit once per source package
pkg=$(basename "$dsc" .dsc)
"$here/../ci/unpack-dsc.sh" mesa-25 "$dsc" "$src" mesa
echo "mesa-25: $src at vramlab-base = $pkg (pinned: Mesa $mesa_version)" >&2

# meson: unpack once per package; a wrapper finds its modules
mpkg=$(basename "$deb" .deb)
if [ "$(cat "$mesondir/package" 2>/dev/null)" != "$mpkg" ]; then
	rm -rf "$mesondir" "$mesondir.tmp"
	mkdir -p "$mesondir.tmp/bin"
	dpkg-deb -x "$deb" "$mesondir.tmp/root"
	cat >"$mesondir.tmp/bin/meson" <<'WRAP'
#!/bin/sh
# meson from a Debian package unpacked beside this directory (mesa/fetch-25.sh), not installed
root=$(dirname "$(dirname "$(readlink -f "$0")")")/root
PYTHONPATH=$root/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH} exec /usr/bin/python3 "$root/usr/bin/meson" "$@"
WRAP
	chmod +x "$mesondir.tmp/bin/meson"
	echo "$mpkg" >"$mesondir.tmp/package"
	mv "$mesondir.tmp" "$mesondir"
fi
mv_version=$("$mesondir/bin/meson" --version)
dpkg --compare-versions "$mv_version" ge "$meson_min" || {
	echo "mesa-25: $mesondir/bin/meson is $mv_version, Mesa 25 needs >= $meson_min" >&2; exit 1; }
echo "mesa-25: meson $mv_version ($mpkg) in $mesondir/bin/meson" >&2
echo "$src"
