#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fetch-sid-source.sh CACHE PACKAGE VERSION
#
# Find Debian sid's PACKAGE (linux-source-7.2) at VERSION in a private apt
# state under CACHE/apt-sid and print the path of its .deb as the last line
# of stdout.  The system's apt configuration is read (for the mirror's URI)
# and never written: the private state has its own sources list, lists,
# package cache and archives; apt checks the package's hash against the
# signed sid release file (keyring of debian-archive-keyring).
#
# Order: the pinned .deb already in CACHE/apt-sid/archives; else the pinned
# version if the mirror still serves it; else the newest linux-source-7.*
# sid serves, with a notice on stderr (sid keeps only its newest package,
# so a moved sid is not an error by itself).  Exit 2 when nothing can be had
# (no network and no cached .deb).

set -eu -o pipefail

cache=$1 pkg=$2 version=$3
state=$cache/apt-sid
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/cache" "$state/etc"

deb_of() { echo "$state/archives/${1}_${2}_all.deb"; }

if [ -s "$(deb_of "$pkg" "$version")" ]; then
	echo "linux-source: $pkg $version (pinned, in the cache)" >&2
	deb_of "$pkg" "$version"
	exit 0
fi

# The mirror the machine's apt sources name for Debian itself (not -security)
mirror=
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
	[ -z "$mirror" ] || break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/ && $i !~ /security/) { print $i; exit } }' \
		/etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
	echo "linux-source: no Debian mirror in the machine's apt sources" >&2
	exit 2
fi
echo "deb [signed-by=$keyring] ${mirror%/} sid main" >"$state/etc/sources.list"

apt_opts=(-q -o "Dir::Etc::SourceList=$state/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
	  -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
	  -o "Dir::Cache::Archives=$state/archives" -o Dir::Etc::Preferences=/dev/null
	  -o Dir::Etc::PreferencesParts=/dev/null -o APT::Sandbox::User=root)

if ! apt-get "${apt_opts[@]}" update >"$state/update.log" 2>&1 ||
   grep -q '^[WE]: Failed to fetch' "$state/update.log"; then
	echo "linux-source: apt-get update of sid failed ($state/update.log)" >&2
	cached=$(ls "$state/archives/${pkg%-*}"-7.*_all.deb 2>/dev/null | sort -V | tail -1 || true)
	if [ -n "$cached" ]; then
		echo "linux-source: NOTICE: using the cached $(basename "$cached") instead of $pkg $version" >&2
		echo "$cached"
		exit 0
	fi
	exit 2
fi

want=$pkg ver=$version
# (apt-cache show exits 0 for a version it does not know: ask madison)
if ! apt-cache "${apt_opts[@]}" madison "$pkg" 2>/dev/null | awk -v v="$version" '$3 == v { f = 1 } END { exit !f }'; then
	# The newest linux-source-7.N sid serves, at its candidate version
	want=$(apt-cache "${apt_opts[@]}" pkgnames linux-source-7. | sort -V | tail -1)
	if [ -z "$want" ]; then
		echo "linux-source: sid serves no linux-source-7.*" >&2
		exit 2
	fi
	ver=$(apt-cache "${apt_opts[@]}" policy "$want" | awk '/Candidate:/ { print $2 }')
	echo "linux-source: NOTICE: sid no longer serves $pkg $version; using $want $ver" >&2
fi
if [ ! -s "$(deb_of "$want" "$ver")" ]; then
	(cd "$state/archives" && apt-get "${apt_opts[@]}" download "$want=$ver" >&2)
fi
echo "linux-source: $want $ver (from sid)" >&2
deb_of "$want" "$ver"
