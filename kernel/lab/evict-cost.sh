#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make -C kernel evict-cost (6.12) and evict-cost-7.2: the time of one failed
# VRAM allocation in the base and with the series (window eviction off and
# on), and on 7.2 the time of a driver's walk of VRAM's LRU through TTM's
# cursor (design A1), from ttm_evict_cost_test.c in a production-like
# config, on two platforms: User Mode Linux (native speed, no SMP) and an
# x86_64 SMP kernel under qemu-system-x86_64 (software emulation unless
# VRAMLAB_KVM=1: nested KVM fails on the machines we have, so its times only
# compare with each other).
#
# usage: evict-cost.sh KVER KDIR CACHE OUT JOBS BASE_REV SERIES_REV
#   worktrees CACHE/linux-KVER-cost-{base,series} of the git tree KDIR, build
#   directories and logs in OUT.  The series runs only if SERIES_REV exists
#   and has ttm_range_man_set_evict_window(); else the base alone.
# EVICT_COST_ARCHS="um" for User Mode Linux alone (default "um x86_64"), and
# EVICT_COST_SERIES_ONLY=1 for the series alone: a quick look at one change
# of the series, with no base to compare to and no struct sizes.
set -euo pipefail

kver=$1 kdir=$2 cache=$3 out=$4 jobs=$5 base_rev=$6 series_rev=$7
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
start=$(date +%s)
mkdir -p "$out"

qemu_args="-smp 2"
if [ "${VRAMLAB_KVM:-0}" = 1 ]; then
	qemu_args="-enable-kvm -cpu host -smp 2"
else
	# 7.2's kunit.py asks for -accel kvm before tcg (6.12's for none); where /dev/kvm exists
	# but nested KVM does not work, the guest stops on an "emulation failure"
	# and qemu hangs until the timeout.  A qemu first in PATH drops every
	# accelerator but TCG.
	mkdir -p "$out/bin"
	cat >"$out/bin/qemu-system-x86_64" <<-'EOF'
	#!/bin/bash
	# evict-cost.sh: TCG only (written by evict-cost.sh)
	args=()
	while [ $# -gt 0 ]; do
		if [ "$1" = -accel ] && [ "${2:-}" != tcg ]; then shift 2; continue; fi
		args+=("$1"); shift
	done
	exec /usr/bin/qemu-system-x86_64 "${args[@]}"
	EOF
	chmod +x "$out/bin/qemu-system-x86_64"
	export PATH="$out/bin:$PATH"
fi

base=$(git -C "$kdir" rev-parse --verify "$base_rev^{commit}")
archs=(${EVICT_COST_ARCHS:-um x86_64})
for arch in "${archs[@]}"; do
	case $arch in um|x86_64) ;; *) echo "evict-cost: EVICT_COST_ARCHS: no arch '$arch' (um, x86_64)" >&2; exit 2 ;; esac
done
kinds=(base)
series=
if series=$(git -C "$kdir" rev-parse -q --verify "$series_rev^{commit}"); then
	if git -C "$kdir" grep ttm_range_man_set_evict_window "$series" -- \
		include/drm/ttm/ttm_range_manager.h >/dev/null; then
		kinds+=(series)
	else
		echo "evict-cost: $series_rev has no ttm_range_man_set_evict_window(): the base alone"
	fi
else
	echo "evict-cost: no $series_rev in $kdir: the base alone"
fi
if [ "${EVICT_COST_SERIES_ONLY:-0}" = 1 ]; then
	[ ${#kinds[@]} = 2 ] || { echo "evict-cost: EVICT_COST_SERIES_ONLY=1 but no series" >&2; exit 1; }
	kinds=(series)
fi

for kind in "${kinds[@]}"; do
	rev=$([ "$kind" = base ] && echo "$base" || echo "$series")
	tree=$cache/linux-$kver-cost-$kind
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
	# What this tree's TTM has, for the suite to use
	flags=
	[ "$kind" = base ] && flags+=" -DTTM_EVICT_COST_NO_WINDOW"
	hdr=$tree/include/drm/ttm/ttm_bo.h
	grep 'void ttm_bo_fini(' "$hdr" >/dev/null && flags+=" -DTTM_EVICT_COST_BO_FINI"
	grep 'ttm_bo_lru_cursor_init(' "$hdr" >/dev/null && flags+=" -DTTM_EVICT_COST_LRU_CURSOR"
	grep 'ttm_range_man_set_evict_order(' "$tree/include/drm/ttm/ttm_range_manager.h" \
		>/dev/null && flags+=" -DTTM_EVICT_COST_ORDER"
	grep -E '^[[:space:]]unsigned int escalate;' "$tree/include/drm/ttm/ttm_range_manager.h" \
		>/dev/null && flags+=" -DTTM_EVICT_COST_ESCALATE"
	grep -E 'bool \(\*repack\)\(' "$tree/include/drm/ttm/ttm_range_manager.h" \
		>/dev/null && flags+=" -DTTM_EVICT_COST_REPACK"
	echo "CFLAGS_ttm_evict_cost_test.o :=$flags" >>"$mk"
	for arch in "${archs[@]}"; do
		log=$out/$kind-$arch.log
		s=$(date +%s)
		echo "evict-cost: $kind on $arch ($(git -C "$tree" log -1 --format='%h %s' | cut -c1-50))"
		args=(--kunitconfig="$here/kunitconfig.cost")
		if [ "$arch" = x86_64 ]; then
			args+=(--kunitconfig="$here/kunitconfig.cost.x86_64" --qemu_args="$qemu_args")
		fi
		(cd "$tree" && nice -n 10 "$python" tools/testing/kunit/kunit.py run --arch="$arch" \
			--build_dir="$out/$kind-$arch" --jobs="$jobs" --timeout=3000 \
			"${args[@]}" --raw_output=all 'ttm_evict_cost') >"$log" 2>&1 || true
		# the suite's own line (a case's is indented), after a console time stamp
		# if any: ok only if every case of the suite passed
		if ! grep -E '(^|\] )ok 1 ttm_evict_cost[[:space:]]*$' "$log" >/dev/null; then
			grep -E 'not ok|Expected|evict-cost|error' "$log" | sed -n '1,20p'
			echo "evict-cost: the $kind suite did not pass on $arch (log: $log)"
			exit 1
		fi
		echo "evict-cost: $kind on $arch passed ($(( $(date +%s) - s )) s)"
	done
done
if [ ${#kinds[@]} = 1 ] && [ "${kinds[0]}" = series ] || [ ${#archs[@]} = 1 ]; then
	for arch in "${archs[@]}"; do
		echo "== $arch (${kinds[*]} alone)"
		for kind in "${kinds[@]}"; do
			"$python" "$here/evict-cost.py" --base-name "$kver-$kind" "$out/$kind-$arch.log" \
				--json "$out/evict-cost-$kind-$arch.json"
		done
	done
	echo "evict-cost: ${kinds[*]} on ${archs[*]} in $(( $(date +%s) - start )) s"
	exit 0
fi
# Struct sizes on x86_64 (pahole over two TTM objects rebuilt with -g; the next
# kunit.py run rebuilds them without): what every TTM driver pays in memory.
sizes=$out/struct-sizes.txt
: >"$sizes"
for kind in "${kinds[@]}"; do
	b=$out/$kind-x86_64
	nice -n 10 make -s -C "$cache/linux-$kver-cost-$kind" O="$b" ARCH=x86_64 KCFLAGS=-g \
		-j"$jobs" drivers/gpu/drm/ttm/ttm_resource.o drivers/gpu/drm/ttm/ttm_range_manager.o
	for s in ttm_resource ttm_buffer_object ttm_resource_manager ttm_resource_cursor \
		 ttm_lru_bulk_move ttm_range_manager; do
		o=$b/drivers/gpu/drm/ttm/ttm_resource.o
		[ "$s" = ttm_range_manager ] && o=$b/drivers/gpu/drm/ttm/ttm_range_manager.o
		n=$(pahole -C "$s" "$o" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p' | sed -n 1p)
		echo "$kind $s ${n:-?}" >>"$sizes"
	done
done
echo "== struct sizes, x86_64 (bytes): $kver -> series"
awk '$1 == "base" { b[$2] = $3 } $1 == "series" { s[$2] = $3 }
     END { for (k in b) printf "%-22s %5s -> %5s\n", k, b[k], (k in s) ? s[k] : "-" }' "$sizes" | sort
for arch in um x86_64; do
	echo "== $arch"
	logs=("$out/base-$arch.log")
	[ ${#kinds[@]} = 2 ] && logs+=("$out/series-$arch.log")
	"$python" "$here/evict-cost.py" --base-name "$kver" "${logs[@]}" \
		--json "$out/evict-cost-$arch.json"
done
if grep 'evict-cost-a1 ' "$out/base-um.log" >/dev/null; then
	echo "== lock hold per scan and per LRU entry"
	"$python" "$here/evict-cost.py" --hold "$out/evict-cost-um.json" "$out/evict-cost-x86_64.json"
fi
echo "evict-cost: ${kinds[*]} on um and x86_64 in $(( $(date +%s) - start )) s"
