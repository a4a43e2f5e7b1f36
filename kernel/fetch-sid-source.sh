#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fetch-sid-source.sh CACHE PACKAGE VERSION
#
# Find Debian sid's PACKAGE (linux-source-7.2) at VERSION in a private apt
# state under CACHE/apt-sid and print the path of its .deb as the last line
# of stdout (../ci/apt-private.sh: the system's apt configuration is only
# read; apt checks the package's hash against sid's signed release file).
#
# Order: the pinned .deb already in CACHE/apt-sid/archives; else the pinned
# version if the mirror still serves it; else the newest linux-source-7.*
# sid serves, with a notice on stderr (sid keeps only its newest package,
# so a moved sid is not an error by itself).  Exit 2 when nothing can be had
# (no network and no cached .deb).

set -eu -o pipefail

cache=$1 pkg=$2 version=$3
exec "$(dirname "$0")/../ci/apt-private.sh" --newest-pkg "${pkg%.*}." --label linux-source \
	"$cache/apt-sid" sid "$pkg" "$version"
