#!/bin/bash
# SPDX-License-Identifier: MIT
#
# apt-private.sh [OPTIONS] STATE SUITES PACKAGE VERSION
#
# Fetch a Debian package through a private apt state in STATE and print, as the last line of
# stdout, the path of its .deb (or, with --source, of its .dsc, the other files beside it).
# The system's apt configuration is read (for the mirror's URI) and never written: the private
# state has its own sources list (SUITES, main, on the mirror the machine's apt sources name for
# Debian itself), lists, package cache and archives; apt checks every file's hash against the
# suite's signed release file (keyring of debian-archive-keyring).  Shared by
# kernel/fetch-sid-source.sh (sid's linux-source-7.x) and mesa/fetch-25.sh (Mesa 25.0's source
# and a newer meson from bookworm-backports).
#
# VERSION is a Debian version (7.2.13-1) or an upstream one (25.0.7: any Debian revision of
# it, the newest the mirror serves).  Order: the pinned version already in STATE; else the
# pinned version if the mirror still serves it; else a fallback the options name, with a
# NOTICE on stderr (a mirror that moved on is not an error by itself); when the mirror cannot
# be read, the newest fallback in STATE, with a NOTICE.  Exit 2 when nothing can be had.
#
#   --types 'deb deb-src'   the sources list's types (default deb; the same for every call on
#                           one STATE, or each call would fetch the lists again)
#   --source                the source package (apt-get source --download-only into
#                           STATE/sources), not a binary package (STATE/archives)
#   --newest-pkg PREFIX     fallback: the newest package named PREFIX* at its candidate version
#   --range MIN[,BELOW]     fallback: the newest version v of PACKAGE with MIN <= v (< BELOW)
#   --label NAME            what messages begin with (default: PACKAGE)

set -eu -o pipefail

types=deb source=0 newest_pkg= range= label=
while [ $# -gt 0 ]; do
	case $1 in
	--types) types=$2; shift 2 ;;
	--source) source=1; shift ;;
	--newest-pkg) newest_pkg=$2; shift 2 ;;
	--range) range=$2; shift 2 ;;
	--label) label=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "apt-private.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 4 ]; then
	echo "usage: apt-private.sh [--types T] [--source] [--newest-pkg P | --range MIN[,BELOW]] [--label L] STATE SUITES PACKAGE VERSION" >&2
	exit 2
fi
state=$1 suites=$2 pkg=$3 version=$4
label=${label:-$pkg}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/cache" "$state/etc"
[ $source = 0 ] || mkdir -p "$state/sources"

say() { echo "$label: $*" >&2; }

# Does Debian version $1 of package $2 match the pin (exactly, or as its upstream version)?
pinned() { [ "$2" = "$pkg" ] && { [ "$1" = "$version" ] || [ "${1%-*}" = "$version" ]; }; }
# Is Debian version $1 of package $2 an acceptable fallback?
fallback() {
	if [ -n "$newest_pkg" ]; then
		[ "${2#"$newest_pkg"}" != "$2" ]
	elif [ -n "$range" ]; then
		[ "$2" = "$pkg" ] && dpkg --compare-versions "$1" ge "${range%%,*}" &&
			{ [ "${range#*,}" = "$range" ] || [ -z "${range#*,}" ] ||
			  dpkg --compare-versions "$1" lt "${range#*,}"; }
	else
		false
	fi
}

# What STATE holds: "VERSION PACKAGE PATH" lines (file names carry the version without epoch)
cached() {
	local f b
	if [ $source = 1 ]; then
		for f in "$state"/sources/*.dsc; do
			[ -s "$f" ] || continue
			b=$(basename "$f" .dsc)
			echo "${b#*_} ${b%%_*} $f"
		done
	else
		for f in "$state"/archives/*.deb; do
			[ -s "$f" ] || continue
			b=$(basename "$f" .deb)
			b=${b%_*}
			echo "${b#*_} ${b%%_*} $f"
		done
	fi
}
# The newest of "VERSION PACKAGE [PATH]" lines on stdin that $1 (pinned or fallback) accepts
newest() {
	local v p rest best= line=
	while read -r v p rest; do
		"$1" "$v" "$p" || continue
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v line="$v $p $rest"
		fi
	done
	[ -n "$line" ] && echo "$line"
}

# Print the cached file of a "VERSION PACKAGE PATH" line $1 and exit, saying $2 (%s: what it is)
use_cached() {
	set -- $1 "$2"
	say "$(printf "$4" "$2 $1")"
	echo "$3"
	exit 0
}

hit=$(cached | newest pinned || true)
[ -z "$hit" ] || use_cached "$hit" '%s (pinned, in the cache)'

# The mirror the machine's apt sources name for Debian itself (not -security); APT_PRIVATE_MIRROR
# overrides it (a test of the offline fallback names an address nothing answers on)
mirror=${APT_PRIVATE_MIRROR:-}
for f in /etc/apt/sources.list.d/*.sources; do
	[ -z "$mirror" ] && [ -f "$f" ] || continue
	mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
	[ -z "$mirror" ] || break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/ && $i !~ /security/) { print $i; exit } }' \
		/etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
	say "no Debian mirror in the machine's apt sources"
	exit 2
fi
: >"$state/etc/sources.list.tmp"
for t in $types; do
	for s in ${suites//,/ }; do
		echo "$t [signed-by=$keyring] ${mirror%/} $s main" >>"$state/etc/sources.list.tmp"
	done
done
mv "$state/etc/sources.list.tmp" "$state/etc/sources.list"

apt_opts=(-q -o "Dir::Etc::SourceList=$state/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
	  -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
	  -o "Dir::Cache::Archives=$state/archives" -o Dir::Etc::Preferences=/dev/null
	  -o Dir::Etc::PreferencesParts=/dev/null -o APT::Sandbox::User=root)

if ! apt-get "${apt_opts[@]}" update >"$state/update.log" 2>&1 ||
   grep '^[WE]: Failed to fetch' "$state/update.log" >/dev/null; then
	say "apt-get update of $suites failed ($state/update.log)"
	hit=$(cached | newest fallback || true)
	[ -z "$hit" ] || use_cached "$hit" "NOTICE: using the cached %s instead of $pkg $version"
	exit 2
fi

# What the mirror serves: "VERSION PACKAGE" lines (madison lists every suite's version)
served() {
	local p
	if [ $source = 1 ]; then
		apt-cache "${apt_opts[@]}" showsrc "$1" 2>/dev/null |
			awk -v p="$1" '/^Package:/ { n = $2 } /^Version:/ && n == p { print $2, n }'
	else
		for p in "$@"; do
			apt-cache "${apt_opts[@]}" madison "$p" 2>/dev/null |
				awk -F'|' -v p="$p" '$3 ~ /Packages/ { gsub(/ /, "", $2); print $2, p }'
		done
	fi
}

hit=$(served "$pkg" | newest pinned || true)
if [ -z "$hit" ]; then
	if [ -n "$newest_pkg" ]; then
		hit=$(served $(apt-cache "${apt_opts[@]}" pkgnames "$newest_pkg") | newest fallback || true)
	else
		hit=$(served "$pkg" | newest fallback || true)
	fi
	if [ -z "$hit" ]; then
		say "$suites serves neither $pkg $version nor a fallback${newest_pkg:+ ($newest_pkg*)}${range:+ ($pkg in $range)}"
		exit 2
	fi
	set -- $hit
	say "NOTICE: $suites no longer serves $pkg $version; using $2 $1"
fi
set -- $hit
ver=$1 want=$2
if [ $source = 1 ]; then
	dsc=$state/sources/${want}_${ver#*:}.dsc
	if [ ! -s "$dsc" ]; then
		(cd "$state/sources" && apt-get "${apt_opts[@]}" source --download-only -o APT::Get::Only-Source=true "$want=$ver" >&2)
	fi
	say "$want $ver (source, from $suites)"
	echo "$dsc"
else
	deb=$(ls "$state/archives/${want}_${ver#*:}"_*.deb 2>/dev/null | sed -n 1p || true)
	if [ -z "$deb" ]; then
		(cd "$state/archives" && apt-get "${apt_opts[@]}" download "$want=$ver" >&2)
		deb=$(ls "$state/archives/${want}_${ver#*:}"_*.deb | sed -n 1p)
	fi
	say "$want $ver (from $suites)"
	echo "$deb"
fi
