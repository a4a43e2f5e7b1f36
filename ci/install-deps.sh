#!/bin/bash
# Installs the Debian packages the harness needs, only those missing.
# Usage: ci/install-deps.sh [extra packages...]
exec "$(dirname "$0")/apt-need.sh" cmake make g++ pkg-config zlib1g-dev libzstd-dev libdeflate-dev zstd \
	libcli11-dev nlohmann-json3-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev clang \
	libclang-rt-14-dev python3-matplotlib \
	libnlopt-dev libopenmpi-dev openmpi-bin chromium \
	libegl-dev libgl-dev libopengl-dev libegl-mesa0 libgl1-mesa-dri patch "$@"
