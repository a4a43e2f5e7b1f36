#!/bin/bash
# Installs the Debian packages named that are not installed yet (apt-get update first); does
# nothing, and needs no network, when all are there. Shared by every Makefile of the project.
# Usage: ci/apt-need.sh [--no-recommends] PACKAGE...
set -euo pipefail
opts=()
if [ "${1:-}" = --no-recommends ]; then
	opts+=(--no-install-recommends)
	shift
fi
find_missing()
{
	missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'ok installed' >/dev/null || missing+=("$p")
	done
}
find_missing "$@"
[ ${#missing[@]} -eq 0 ] && exit 0
. "$(dirname "$0")/apt-lock.sh"
apt_lock
# a suite beside this one may have installed them while this one waited
find_missing "$@"
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${opts[@]}" "${missing[@]}"
