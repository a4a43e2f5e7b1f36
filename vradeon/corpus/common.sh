# SPDX-License-Identifier: MIT
#
# Sourced by every vradeon/corpus/*.sh: what puts one program on the virtual radeon (the
# patched Mesa prefix of ../mesa, the shim preloaded, r600g as BARTS, as vradeon/Makefile's
# RUN_ENV), no display, no sound, and a throw-away home, so that a run depends on nothing of
# the user's. The caller's VRADEON_* and RADEON_BO_* variables reach the program unchanged.
set -euo pipefail
me=$(basename "$0")
die() { echo "$me: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${VRAMLAB_CACHE:-$HOME/.cache/vramlab}
prefix=${MESA_PREFIX:-$cache/mesa-25-prefix}
shim=${VRADEON_SHIM:-$root/harness/build/vradeon/libvradeon_drm_shim.so}
[ -e "$shim" ] || die "no shim at $shim (make -C vradeon build)"
# r600_dri.so up to Mesa 24, libgallium-VERSION.so since 25
[ -e "$prefix/lib/dri/r600_dri.so" ] || ls "$prefix"/lib/libgallium-*.so >/dev/null 2>&1 ||
	die "no r600 Mesa in $prefix (make -C mesa build)"

# Debian packages, installed only when missing (the project's one installer).
need() { "$root/ci/apt-need.sh" "$@" >&2 || die "could not install $*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vradeon-$me.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -m 700 "$work/run"

# LIBGL_DRIVERS_PATH, GBM_BACKENDS_PATH: libEGL_mesa and libgbm would otherwise load their
# driver (r600_dri.so up to Mesa 24, dri_gbm.so since 25) from the prefix they were
# built for. SDL's offscreen driver is an EGL pbuffer on the device platform.
run_env=(
	HOME="$work" XDG_RUNTIME_DIR="$work/run" LANG=C.UTF-8
	LD_PRELOAD="$shim" LD_LIBRARY_PATH="$prefix/lib" LIBGL_DRIVERS_PATH="$prefix/lib/dri"
	GBM_BACKENDS_PATH="$prefix/lib/gbm"
	MESA_LOADER_DRIVER_OVERRIDE=r600 RADEON_GPU_ID="${RADEON_GPU_ID:-BARTS}"
	__EGL_VENDOR_LIBRARY_FILENAMES="$prefix/share/glvnd/egl_vendor.d/50_mesa.json"
	SDL_VIDEODRIVER=offscreen SDL_AUDIODRIVER=dummy
)
# on_vradeon CMD...: CMD on the virtual radeon, with no display to fall back to.
on_vradeon() { env -u DISPLAY -u WAYLAND_DISPLAY "${run_env[@]}" "$@"; }
