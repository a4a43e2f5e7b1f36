# SPDX-License-Identifier: MIT
#
# Which Mesa the project builds, tests and records through, and where its trees live (all in
# the cache, outside the clone).  Included by mesa/Makefile and vradeon/Makefile.
#
#   MESA=25.0 (default)  Debian 13's Mesa 25.0.7 (fetch-25.sh: a private apt state, pinned
#                        below), the series in ../patches/mesa-25.0-fixes and mesa-25.0,
#                        meson 1.7 from bookworm-backports (Mesa 25.0 needs >= 1.1)
#   MESA=22.3            Debian 12's Mesa 22.3.6 (apt-get source), the series in
#                        ../patches/mesa-22.3-fixes and mesa-22.3, Debian 12's meson: what
#                        the live corpus of traces/live/22.3 was recorded through

VRAMLAB_CACHE ?= $(HOME)/.cache/vramlab
MESA          ?= 25.0
MESA_ROOT     := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)

ifeq ($(MESA),25.0)
# The one place Mesa 25 is pinned: Debian 13's Mesa (an upstream version: trixie's newest
# Debian revision of it) and bookworm-backports' meson.  A mirror that moved on gives the
# cache, else the newest 25.0.x (meson >= 1.1) with a NOTICE (fetch-25.sh,
# ../ci/apt-private.sh).
MESA_VERSION  := 25.0.7
MESA_RANGE    := 25.0~,25.1~
MESON_VERSION := 1.7.0
MESON_MIN     := 1.1
MESA_TREE     := mesa-25
MESA_PATCHES  := mesa-25.0
# meson from the unpacked package: its modules first on PYTHONPATH, for meson itself and for
# ninja's re-runs of it when a meson.build changes (else Debian 12's meson 1.0 answers).
MESON_ENV     := PYTHONPATH=$(VRAMLAB_CACHE)/meson-bpo/root/usr/lib/python3/dist-packages
MESON         := $(MESON_ENV) $(VRAMLAB_CACHE)/meson-bpo/bin/meson
NINJA         := $(MESON_ENV) ninja
# What else differs (mesa/Makefile, vradeon/Makefile): the feature series' version, meson's
# spelling of the glvnd option, the shim fixes the piglit baseline needs (device id, GEM_MMAP,
# GEM_BUSY), the patches patch-cost builds (fix 3 the baseline; fixes 4-7, 9 and 13 and
# feature 1 change only the shim, features 5-6 only tests and docs), fix 13's shim test, the
# libraries Mesa's drm-shim links (libmesa_format folded into libmesa_util, blake3 added), the
# virtual radeon's directory in the cache and the build
MESA_SERIES_VERSION := v4
MESA_GLVND    := enabled
MESA_BASE_NPATCHES := 3
MESA_PATCH_COST_POINTS := 3 8 10 11 12 15 16 17
MESA_SHIM_TESTS_EXTRA := prime-cap
MESA_SHIM_LIBS := src/util/blake3/libblake3.a
VRADEON_DIR   := vradeon
else ifeq ($(MESA),22.3)
MESA_VERSION  := 22.3.6
MESA_TREE     := mesa
MESA_PATCHES  := mesa-22.3
MESON         := meson
NINJA         := ninja
MESA_SERIES_VERSION := v3
MESA_GLVND    := true
# fix 4 the baseline (the r600-only shim build, its sysfs files, GEM_MMAP, GEM_BUSY); fixes
# 5-8 and 10 and feature 1 change only the shim
MESA_BASE_NPATCHES := 4
MESA_PATCH_COST_POINTS := 4 9 11 12 13 14 16 17 18
MESA_SHIM_TESTS_EXTRA :=
MESA_SHIM_LIBS := src/util/format/libmesa_format.a
VRADEON_DIR   := vradeon-22.3
else
$(error MESA=$(MESA): the project builds Mesa 25.0 (the default) or 22.3)
endif

MESA_SRC      := $(VRAMLAB_CACHE)/$(MESA_TREE)
MESA_BUILD    := $(VRAMLAB_CACHE)/$(MESA_TREE)-build
MESA_PREFIX   := $(VRAMLAB_CACHE)/$(MESA_TREE)-prefix
