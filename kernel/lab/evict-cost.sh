#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make -C kernel evict-cost: the time of one failed VRAM allocation in an
# unpatched 6.12 and with the series (window eviction off and on), from
# ttm_evict_cost_test.c in a production-like config, on two platforms:
# User Mode Linux (native speed, no SMP) and an x86_64 SMP kernel under
# qemu-system-x86_64 (software emulation unless VRAMLAB_KVM=1: nested KVM
# fails on the machines we have, so its times only compare with each other).
#
# usage: evict-cost.sh KDIR CACHE OUT JOBS BASE_TAG
set -euo pipefail

kdir=$1 cache=$2 out=$3 jobs=$4 base=$5
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
mkdir -p "$out"

qemu_args="-smp 2"
[ "${VRAMLAB_KVM:-0}" = 1 ] && qemu_args="-enable-kvm -cpu host -smp 2"

series=$(git -C "$kdir" rev-parse "${EVICT_COST_REV:-HEAD}")
for kind in base series; do
	rev=$([ $kind = base ] && echo "$base" || echo "$series")
	tree=$cache/linux-6.12-cost-$kind
	if [ ! -d "$tree" ]; then
		git -C "$kdir" worktree add -q --detach "$tree" "$rev" >/dev/null 2>&1
	else
		git -C "$tree" checkout -q -f --detach "$rev"
	fi
	# The lab suite goes into the tree's TTM tests, only in these copies
	cp "$here/ttm_evict_cost_test.c" "$tree/drivers/gpu/drm/ttm/tests/"
	mk=$tree/drivers/gpu/drm/ttm/tests/Makefile
	git -C "$tree" checkout -q -- drivers/gpu/drm/ttm/tests/Makefile
	echo 'obj-$(CONFIG_DRM_TTM_KUNIT_TEST) += ttm_evict_cost_test.o' >>"$mk"
	if [ $kind = base ]; then
		echo 'CFLAGS_ttm_evict_cost_test.o := -DTTM_EVICT_COST_NO_WINDOW' >>"$mk"
	fi
	for arch in um x86_64; do
		log=$out/$kind-$arch.log
		echo "evict-cost: $kind on $arch ($(git -C "$tree" log -1 --format='%h %s' | cut -c1-50))"
		args=(--kunitconfig="$here/kunitconfig.cost")
		[ $arch = x86_64 ] && args+=(--kunitconfig="$here/kunitconfig.cost.x86_64" \
					   --qemu_args="$qemu_args")
		(cd "$tree" && $python tools/testing/kunit/kunit.py run --arch=$arch \
			--build_dir="$out/$kind-$arch" --jobs="$jobs" --timeout=3000 \
			"${args[@]}" --raw_output=all 'ttm_evict_cost') >"$log" 2>&1 || true
		grep -q '^ *ok 1 ttm_evict_cost' "$log" || {
			grep -E 'not ok|Expected|evict-cost|error' "$log" | sed -n '1,20p'
			echo "evict-cost: the $kind suite did not pass on $arch (log: $log)"
			exit 1
		}
	done
done
# Struct sizes on x86_64 (pahole over three TTM objects rebuilt with -g; the next
# kunit.py run rebuilds them without): what every TTM driver pays in memory.
sizes=$out/struct-sizes.txt
: >"$sizes"
for kind in base series; do
	b=$out/$kind-x86_64
	make -s -C "$cache/linux-6.12-cost-$kind" O="$b" ARCH=x86_64 KCFLAGS=-g \
		drivers/gpu/drm/ttm/ttm_resource.o drivers/gpu/drm/ttm/ttm_range_manager.o
	for s in ttm_resource ttm_buffer_object ttm_resource_manager ttm_resource_cursor \
		 ttm_lru_bulk_move ttm_range_manager; do
		o=$b/drivers/gpu/drm/ttm/ttm_resource.o
		[ $s = ttm_range_manager ] && o=$b/drivers/gpu/drm/ttm/ttm_range_manager.o
		n=$(pahole -C $s "$o" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p' | sed -n 1p)
		echo "$kind $s ${n:-?}" >>"$sizes"
	done
done
echo "== struct sizes, x86_64 (bytes): 6.12 -> series"
awk '$1 == "base" { b[$2] = $3 } $1 == "series" { printf "%-22s %5s -> %5s\n", $2, b[$2], $3 }' "$sizes"
for arch in um x86_64; do
	echo "== $arch"
	$python "$here/evict-cost.py" "$out/base-$arch.log" "$out/series-$arch.log" \
		--json "$out/evict-cost-$arch.json"
done
