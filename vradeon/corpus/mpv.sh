#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Video through GL: Debian's libmpv (mpv's OpenGL renderer) driven by mpvgl.c, our host of
# its render API, plays a clip made at record time by Debian's ffmpeg (testsrc2, H.264,
# 1280x720, 30 fps), upscaled to 1920x1080 with mpv's high-quality scalers and debanding.
# usage: mpv.sh [SECONDS]   (the clip's length, default 10: 300 frames)
. "$(dirname "$0")/common.sh"
secs=${1:-10}
need libmpv-dev ffmpeg gcc pkg-config libegl-dev
bin=$cache/vradeon/mpvgl
if [ ! -x "$bin" ] || [ "$here/mpvgl.c" -nt "$bin" ]; then
	mkdir -p "$(dirname "$bin")"
	# shellcheck disable=SC2046 # pkg-config's flags are words to split
	cc -O2 -Wall -Werror -o "$bin" "$here/mpvgl.c" $(pkg-config --cflags --libs mpv egl) -pthread ||
		die "could not build mpvgl"
fi
# One thread: the same bytes on every run (and every machine) for the same ffmpeg.
ffmpeg -v error -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=$secs" \
	-c:v libx264 -preset veryfast -threads 1 -pix_fmt yuv420p "$work/clip.mkv" </dev/null ||
	die "ffmpeg could not make the clip"
on_vradeon "$bin" "$work/clip.mkv" 1920x1080 scale=spline36 cscale=spline36 dscale=mitchell \
	deband=yes
