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
else ifeq ($(MESA),22.3)
MESA_VERSION  := 22.3.6
MESA_TREE     := mesa
MESA_PATCHES  := mesa-22.3
MESON         := meson
NINJA         := ninja
else
$(error MESA=$(MESA): the project builds Mesa 25.0 (the default) or 22.3)
endif

MESA_SRC      := $(VRAMLAB_CACHE)/$(MESA_TREE)
MESA_BUILD    := $(VRAMLAB_CACHE)/$(MESA_TREE)-build
MESA_PREFIX   := $(VRAMLAB_CACHE)/$(MESA_TREE)-prefix
