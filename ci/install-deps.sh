#!/bin/bash
# Installs the Debian packages the harness needs, only those missing (apt-get update first).
# Usage: ci/install-deps.sh [extra packages...]
set -euo pipefail
pkgs=(cmake make g++ pkg-config zlib1g-dev libzstd-dev zstd libcli11-dev nlohmann-json3-dev
	libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev python3-matplotlib "$@")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
