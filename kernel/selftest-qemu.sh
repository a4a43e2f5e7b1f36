#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make -C kernel selftest-qemu: the KUnit suites of drm_mm, TTM and radeon,
# run by loading their modules (kernel/kselftest/drm_allocator.sh, our runner
# in a kselftest's layout; the mailed series proposes none), on a minimal
# x86_64 kernel booted under qemu-system-x86_64.
#
# 1. configures KDIR with O=BUILD/selftest-x86_64: `make allnoconfig` with
#    kernel/config.selftest-x86_64 and kernel/kselftest/config
#    (KCONFIG_ALLCONFIG), and checks that every option asked for is set;
# 2. builds bzImage and the modules (the suites and radeon);
# 3. makes an initramfs with gen_init_cpio: Debian's static busybox, the
#    stripped modules, the runner and the tree's ktap_helpers.sh, and an
#    /init that runs it on the serial console and reboots (qemu runs with
#    -no-reboot, so it exits: the kernel has no ACPI to power off with);
# 4. boots it (TCG; KVM with VRAMLAB_KVM=1), console in
#    BUILD/selftest-x86_64.log, its TAP in BUILD/selftest-x86_64.tap;
# 5. fails unless the TAP is complete (its plan matches its results), has
#    no `not ok`, every skip says why, and cases of drm_mm, ttm_ and
#    radeon_ suites passed; prints the counts per family.
# Every step is skipped when its inputs did not change: a second run boots.
#
# usage: selftest-qemu.sh KDIR BUILD JOBS
# environment: SELFTEST_KARGS  kernel command line added for the suites
#                              (default: the radeon parameters make kunit uses)
#              SELFTEST_CONFIG  a config fragment applied last (its values win)
#              SELFTEST_TIMEOUT  seconds qemu may run (default 600)
#              VRAMLAB_KVM=1     use KVM
set -euo pipefail

[ $# = 3 ] || { echo "usage: $0 KDIR BUILD JOBS" >&2; exit 2; }
kdir=$(cd "$1" && pwd)
build=$2
jobs=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ci/safe-write.sh" # the configuration and the initramfs: whole or not at all
kargs=${SELFTEST_KARGS-radeon.vramlimit=256 radeon.topdown_threshold=512 radeon.bo_score=1}
timeout_s=${SELFTEST_TIMEOUT:-600}

# The runner of the allocator's KUnit suites as modules: vramlab's own tooling (the mailed
# series proposes no such kselftest, docs/series.md), with the tree's ktap_helpers.sh
runner=$here/kselftest/drm_allocator.sh
ktap=tools/testing/selftests/kselftest/ktap_helpers.sh
mkdir -p "$build/selftest-x86_64"
build=$(cd "$build" && pwd)
out=$build/selftest-x86_64
log=$build/selftest-x86_64.log
tap=$build/selftest-x86_64.tap
kmake=(make --no-print-directory -C "$kdir" O="$out" ARCH=x86_64)

say() { echo "selftest-qemu: $*"; }
since() { echo $(($(date +%s) - $1)); }
t_start=$(date +%s)

if [ ! -f "$kdir/$ktap" ]; then
	say "$kdir has no $ktap"
	exit 1
fi

# 1. Configuration: redone only when a fragment changed
frag=$out/selftest.config
safe_write_begin frag_new "$frag"
# both fragments, each option once (the last value wins)
cat "$here/config.selftest-x86_64" "$here/kselftest/config" ${SELFTEST_CONFIG:+"$SELFTEST_CONFIG"} |
	grep -E '^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set' | tac |
	awk '{ match($0, /CONFIG_[A-Za-z0-9_]+/); k = substr($0, RSTART, RLENGTH) } !seen[k]++' |
	tac >"$frag_new"
if [ -f "$out/.config" ] && cmp -s "$frag_new" "$frag"; then
	rm -f "$frag_new"
else
	say "configuring: allnoconfig + kernel/config.selftest-x86_64 + kernel/kselftest/config${SELFTEST_CONFIG:+ + $SELFTEST_CONFIG}"
	"${kmake[@]}" -s KCONFIG_ALLCONFIG="$frag_new" allnoconfig
	safe_write_commit "$frag_new" "$frag"
fi
missing=()
while IFS= read -r opt; do
	case "$opt" in
	CONFIG_*=*) grep -qxF "$opt" "$out/.config" || missing+=("$opt") ;;
	esac
done <"$frag"
if [ ${#missing[@]} -gt 0 ]; then
	say "the configuration lacks ${missing[*]} (unmet dependencies in $kdir?)"
	rm -f "$frag"
	exit 1
fi

# 2. Kernel and modules
say "building bzImage and modules in $out (-j$jobs; log build.log)"
t_build=$(date +%s)
"${kmake[@]}" -j"$jobs" bzImage modules >"$out/build.log" 2>&1 &
make_pid=$!
n=0
while kill -0 "$make_pid" 2>/dev/null; do
	sleep 1
	n=$((n + 1))
	if [ $((n % 30)) = 0 ]; then
		say "  building: $(grep -c '^  CC' "$out/build.log" || true) files compiled, $(since "$t_build") s"
	fi
done
if ! wait "$make_pid"; then
	grep -E 'error|Error' "$out/build.log" | sed -n '1,20p'
	say "the build failed (log: $out/build.log)"
	exit 1
fi
built=$(grep -c '^  CC' "$out/build.log" || true)
build_s=$(since "$t_build")
say "built in $build_s s ($built files compiled)"

# 3. The initramfs, made again only when one of its inputs changed
kver=$("${kmake[@]}" -s kernelrelease)
cpio=$out/initramfs.cpio
sig=$( (
	echo "$kver"
	find "$out" -path "$out/initramfs" -prune -o -name '*.ko' -printf '%P %T@\n' | sort
	sha256sum "$runner" "$here/kselftest/config" "$kdir/$ktap" /bin/busybox "$0"
) | sha256sum | cut -d' ' -f1)
t_initramfs=$(date +%s)
if [ -f "$cpio" ] && [ "$(cat "$cpio.sig" 2>/dev/null)" = "$sig" ]; then
	say "initramfs up to date"
else
	say "making the initramfs: busybox, modules of $kver, the kselftest"
	if ldd /bin/busybox >/dev/null 2>&1; then
		say "/bin/busybox is not static: install busybox-static"
		exit 1
	fi
	stage=$out/initramfs
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp}
	"${kmake[@]}" -s INSTALL_MOD_PATH="$stage" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	rm -f "$stage/lib/modules/$kver/build" "$stage/lib/modules/$kver/source"
	# The layout a kselftest install has: the runner finds ../../kselftest/ktap_helpers.sh
	mkdir -p "$stage/kselftest/drivers/gpu" "$stage/kselftest/kselftest"
	cp "$runner" "$stage/kselftest/drivers/gpu/drm_allocator.sh"
	cp "$kdir/$ktap" "$stage/kselftest/kselftest/ktap_helpers.sh"
	cp /bin/busybox "$stage/bin/busybox"
	cat >"$stage/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs debugfs /sys/kernel/debug
echo "vramlab-selftest: begin $(uname -r) uptime $(cut -d' ' -f1 /proc/uptime)"
cd /kselftest/drivers/gpu && ./drm_allocator.sh
rc=$?
echo "vramlab-selftest: end rc=$rc uptime $(cut -d' ' -f1 /proc/uptime)"
reboot -f
EOF
	chmod 755 "$stage/init"
	gen=$out/usr/gen_init_cpio
	if [ ! -x "$gen" ]; then
		gen=$out/gen_init_cpio
		cc -O2 -o "$gen" "$kdir/usr/gen_init_cpio.c"
	fi
	{
		echo "nod /dev/console 0600 0 0 c 5 1"
		(cd "$stage" && find . -mindepth 1 | sort) | while IFS= read -r p; do
			p=${p#.}
			if [ -L "$stage$p" ]; then
				echo "slink $p $(readlink "$stage$p") 0777 0 0"
			elif [ -d "$stage$p" ]; then
				echo "dir $p 0755 0 0"
			else
				echo "file $p $stage$p $(stat -c %a "$stage$p") 0 0"
			fi
		done
	} >"$out/initramfs.list"
	safe_write_begin cpio_tmp "$cpio"
	"$gen" "$out/initramfs.list" >"$cpio_tmp"
	safe_write_commit "$cpio_tmp" "$cpio"
	echo "$sig" >"$cpio.sig"
	say "initramfs: $(du -h "$cpio" | cut -f1), $(find "$stage" -name '*.ko' | wc -l) modules, $(since "$t_initramfs") s"
fi

# 4. Boot
qemu=(qemu-system-x86_64 -nographic -no-reboot -smp 2 -m 1G
      -kernel "$out/arch/x86/boot/bzImage" -initrd "$cpio"
      -append "console=ttyS0 panic=-1 $kargs")
[ -f /usr/share/qemu/qboot.rom ] && qemu+=(-bios qboot.rom)
accel=TCG
if [ "${VRAMLAB_KVM:-0}" = 1 ]; then
	qemu+=(-enable-kvm -cpu host)
	accel=KVM
else
	qemu+=(-accel tcg)
fi
say "booting under qemu-system-x86_64 ($accel, timeout $timeout_s s, console: $log)"
t_boot=$(date +%s)
set +e
timeout "$timeout_s" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' | tee "$log" |
	grep --line-buffered -E '^(# |vramlab-selftest:)|Kernel panic|\] (BUG|WARNING):' |
	sed -u 's/^/  | /'
qemu_rc=${PIPESTATUS[0]}
set -e
boot_s=$(since "$t_boot")
if [ "$qemu_rc" = 124 ]; then
	say "qemu did not finish in $timeout_s s (SELFTEST_TIMEOUT)"
elif [ "$qemu_rc" != 0 ]; then
	say "qemu exited with $qemu_rc"
fi

# 5. The verdict, from the TAP between the markers (kernel lines dropped)
sed -n '/^vramlab-selftest: begin/,/^vramlab-selftest: end/p' "$log" | grep -v '^\[' >"$tap" || true
# lockdep's and the atomic-sleep check's reports (the debug config) fail the
# run like a BUG: "BUG: sleeping function called from invalid context" is
# one, lockdep's come as "WARNING: possible ..." and the like
problems=$(grep -cE 'Kernel panic|\] (BUG|Oops)|\] WARNING: (possible|inconsistent lock|suspicious RCU|bad unlock|held lock freed|lock held when)' \
	"$log" || true)
warnings=$(grep -cE '\] WARNING:' "$log" || true)
rc=0
awk -v problems="$problems" '
function family(desc) {
	if (desc ~ /^drm_mm/) return "drm_mm"
	if (desc ~ /^ttm_/) return "ttm_"
	if (desc ~ /^radeon_/) return "radeon_"
	return "other"
}
BEGIN { plans = 0; n = 0; bad = 0; split("drm_mm ttm_ radeon_ other", fam, " ") }
/^vramlab-selftest: begin/ { t0 = $NF }
/^vramlab-selftest: end/ { end = $0; t1 = $NF; sub(/.*rc=/, "", end); sub(/ .*/, "", end) }
/^TAP version/ { header = 1 }
/^1\.\.[0-9]+/ { plans++; plan = substr($1, 4) + 0 }
/^(not )?ok [0-9]+/ {
	notok = ($1 == "not")
	num = notok ? $3 : $2
	desc = $0
	sub(/^(not )?ok [0-9]+ /, "", desc)
	reason = ""
	skip = 0
	if ((i = index(desc, " # SKIP")) > 0) {
		skip = 1
		reason = substr(desc, i + 7)
		sub(/^ +/, "", reason)
		desc = substr(desc, 1, i - 1)
	}
	n++
	if (num != n && !misnumbered++) {
		printf "result %d is numbered %s\n", n, num
		bad = 1
	}
	f = family(desc)
	if (notok) {
		fail[f]++
		printf "FAILED: %s\n", desc
		bad = 1
	} else if (skip) {
		skipped[f]++
		if (reason == "") {
			printf "skipped without a reason: %s\n", desc
			bad = 1
		} else if (nskip++ < 20) {
			printf "skipped: %s (%s)\n", desc, reason
		}
	} else {
		pass[f]++
	}
}
END {
	if (!header) { print "no TAP header"; bad = 1 }
	if (plans != 1) { printf "%d plans\n", plans; bad = 1 }
	else if (plan != n) { printf "plan 1..%d but %d results\n", plan, n; bad = 1 }
	if (end == "") { print "the kselftest did not finish"; bad = 1 }
	else if (end != 0) { printf "the kselftest exited with %s\n", end; bad = 1 }
	if (problems > 0) { printf "%d panic/BUG/Oops/lockdep lines in the console log\n", problems; bad = 1 }
	printf "%-8s %6s %6s %6s\n", "suites", "pass", "skip", "fail"
	for (i = 1; i <= 4; i++) {
		f = fam[i]
		if (i == 4 && pass[f] + skipped[f] + fail[f] == 0)
			continue
		printf "%-8s %6d %6d %6d\n", f, pass[f], skipped[f], fail[f]
		tp += pass[f]; ts += skipped[f]; tf += fail[f]
		if (i < 4 && pass[f] == 0) {
			printf "no %s case passed\n", f
			bad = 1
		}
	}
	printf "%-8s %6d %6d %6d\n", "total", tp, ts, tf
	if (t0 != "" && t1 != "")
		printf "kernel uptime: %s s at the start of the kselftest, %s s at its end\n", t0, t1
	exit bad
}' "$tap" | sed 's/^/  /' || rc=1
[ "$warnings" = 0 ] || say "note: $warnings WARNING lines in $log"
say "times: build $build_s s, boot and tests $boot_s s ($accel), total $(since "$t_start") s"
if [ $rc != 0 ]; then
	say "FAILED (TAP: $tap, console: $log)"
	exit 1
fi
say "passed (TAP: $tap)"
