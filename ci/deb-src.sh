#!/bin/bash
# Makes `apt-get source PACKAGE` work: enables the deb-src entries of the configured Debian
# mirrors (deb822 .sources files or sources.list) when PACKAGE's source is not known yet.
# Usage: ci/deb-src.sh PACKAGE
set -euo pipefail
apt-cache showsrc "$1" 2>/dev/null | grep '^Version:' >/dev/null && exit 0
. "$(dirname "$0")/apt-lock.sh"
apt_lock
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	$sudo sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
done
if [ -f /etc/apt/sources.list ] && ! grep -q '^deb-src' /etc/apt/sources.list; then
	grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $sudo tee -a /etc/apt/sources.list >/dev/null
fi
$sudo apt-get update -qq
