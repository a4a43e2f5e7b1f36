#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fetch.sh CACHE SRC VERSION RANGE
#
# Debian 13's (trixie's) libdrm source at VERSION (an upstream version: the newest Debian
# revision of it trixie serves), through the private apt state CACHE/apt-trixie that
# ../mesa/fetch-25.sh uses for Mesa 25 (../ci/apt-private.sh: its own sources list, lists and
# archives; the system's apt configuration is only read; apt checks every file against the
# suite's signed release file).  When the mirror has moved on: the cache, else the newest
# libdrm in RANGE (MIN,BELOW), with a NOTICE; a mirror that moved on is not a failure.
#
# The source is unpacked with dpkg-source (Debian's patches applied, as apt-get source does)
# into SRC and committed pristine (tag vramlab-base), once: again only when another source
# package is fetched.  Debian 12's own libdrm tree (make -C libdrm with apt-get source, before
# 2.4.124) lives elsewhere and is not touched.  Prints SRC; exit 2 when no source can be had.

set -eu -o pipefail

[ $# -eq 4 ] || { echo "usage: $0 CACHE SRC VERSION RANGE" >&2; exit 2; }
cache=$1 src=$2 version=$3 range=$4
here=$(cd "$(dirname "$0")" && pwd)
fetch=$here/../ci/apt-private.sh
label=libdrm-$version

# The same --types as mesa/fetch-25.sh on this state, or each would fetch the lists again
dsc=$("$fetch" --types deb-src --source --range "$range" --label "$label" \
	"$cache/apt-trixie" trixie libdrm "$version" | tail -1) || {
	echo "$label: no libdrm $version source could be had (neither served nor cached)" >&2; exit 2; }

pkg=$(basename "$dsc" .dsc)
"$here/../ci/unpack-dsc.sh" "$label" "$dsc" "$src" libdrm
echo "$label: $src at vramlab-base = $pkg (pinned: libdrm $version)" >&2
echo "$src"
