#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs the KUnit suites of the DRM memory allocator on the booted kernel
# and reports each of their test cases as one KTAP line:
#
#   drm_mm*   drm_mm's suite, module drm_mm_test (CONFIG_DRM_KUNIT_TEST)
#   ttm_*     TTM's suites, the modules of drivers/gpu/drm/ttm/tests
#             (CONFIG_DRM_TTM_KUNIT_TEST)
#   radeon_*  radeon's VRAM placement and eviction suites, the modules of
#             drivers/gpu/drm/radeon/tests (CONFIG_DRM_RADEON_KUNIT_TEST);
#             they need no Radeon, and loading radeon.ko runs none of them
#
# KUnit runs the suites of a module when it is loaded and keeps the KTAP
# of each suite's last run in /sys/kernel/debug/kunit/<suite>/results
# (CONFIG_KUNIT_DEBUGFS).  The script loads those modules, runs again
# through /sys/kernel/debug/kunit/<suite>/run the suites that were there
# before (built in, or in a module loaded earlier), reports every suite
# whose name matches one of the patterns of DRM_ALLOCATOR_SUITES (default
# "drm_mm* ttm_* radeon_*"), so that new suites need no change here, and
# unloads what it loaded.  A parameterised case is one line, with its
# parameters counted.  A pattern that matches no suite is one skipped line.
#
# Exit status: 0 when every case passed or was skipped; 1 when a case
# failed or a module was there but did not load or unload; 4 (skip) when
# no suite could be loaded.

DIR="$(dirname "$(readlink -f "$0")")"
KTAP_HELPERS="$DIR/../../kselftest/ktap_helpers.sh"
if [ ! -r "$KTAP_HELPERS" ]; then
	echo "$KTAP_HELPERS not found [SKIP]"
	exit 4
fi
. "$KTAP_HELPERS"

# ktap_helpers.sh echoes descriptions unquoted: no pathname expansion
set -f
PATH="$PATH:/sbin:/usr/sbin"

SUITES="${DRM_ALLOCATOR_SUITES:-drm_mm* ttm_* radeon_*}"
KUNIT_DIR=/sys/kernel/debug/kunit
MOD_DIR="/lib/modules/$(uname -r)"
TTM_TEST_DIR="$MOD_DIR/kernel/drivers/gpu/drm/ttm/tests"
RADEON_TEST_DIR="$MOD_DIR/kernel/drivers/gpu/drm/radeon/tests"
# Lines of a failed case's log shown as diagnostics
MAX_LOG_LINES=40

# The modules that hold the suites, in the order they are loaded
test_modules()
{
	echo drm_mm_test
	for d in "$TTM_TEST_DIR" "$RADEON_TEST_DIR"; do
		for f in $(ls "$d" 2>/dev/null); do
			case "$f" in
			*.ko|*.ko.*) echo "${f%%.ko*}" ;;
			esac
		done
	done
}

# The suites that match a pattern, in the order of the patterns
matching_suites()
{
	all=$(ls "$KUNIT_DIR" 2>/dev/null)
	seen=" "
	for pattern in $SUITES; do
		for s in $all; do
			case "$s" in
			$pattern)
				case "$seen" in
				*" $s "*) ;;
				*) seen="$seen$s "; echo "$s" ;;
				esac
				;;
			esac
		done
	done
}

loaded_modules()
{
	cut -d' ' -f1 /proc/modules 2>/dev/null
}

# Records of one suite's results file, tab-separated, one per line:
#   case <status> <description> <reason>   status: pass, fail or skip
#   diag <text>                            a failed case's log
#   suite <KUnit's status> <plan> <cases seen>
#   log <text>                             the suite's own log
parse_results()
{
	awk -v suite="$1" -v max="$MAX_LOG_LINES" '
	# Splits a result line into r_fail, r_skip, r_reason and r_name
	function result(line,  n, d) {
		r_fail = (line ~ /^not ok /)
		sub(/^(not )?ok [0-9]+ /, "", line)
		r_skip = 0
		r_reason = ""
		n = index(line, " # ")
		if (n > 0) {
			d = substr(line, n + 3)
			line = substr(line, 1, n - 1)
			if (d ~ /^SKIP/) {
				r_skip = 1
				sub(/^SKIP ?/, "", d)
				r_reason = d
			}
		}
		r_name = line
	}
	BEGIN {
		plan = -1; cases = 0; status = "missing"
		np = 0; npass = 0; nfail = 0; nskip = 0; nlog = 0; failed = ""
		preason = ""
	}
	/^    1\.\.[0-9]+$/ && plan < 0 { plan = substr($0, 8) + 0; next }
	/^        (not )?ok [0-9]+ / {
		result(substr($0, 9))
		np++
		if (r_fail) {
			nfail++
			failed = failed (failed == "" ? "" : ", ") r_name
		} else if (r_skip) {
			nskip++
			if (preason == "")
				preason = r_reason
		} else {
			npass++
		}
		next
	}
	/^    (not )?ok [0-9]+ / {
		result(substr($0, 5))
		desc = suite "." r_name
		if (np > 0) {
			desc = desc " (" np " params"
			if (nskip > 0)
				desc = desc ", " nskip " skipped"
			if (nfail > 0)
				desc = desc ", " nfail " failed"
			desc = desc ")"
		}
		st = r_fail ? "fail" : (r_skip ? "skip" : "pass")
		# KUnit gives a case whose parameters all skipped no reason
		if (r_skip && r_reason == "")
			r_reason = preason
		printf "case\t%s\t%s\t%s\n", st, desc, r_reason
		if (st == "fail") {
			if (failed != "")
				printf "diag\tfailed parameters: %s\n", failed
			for (i = 1; i <= nlog && i <= max; i++)
				printf "diag\t%s\n", lines[i]
			if (nlog > max)
				printf "diag\t(%d more lines)\n", nlog - max
		}
		cases++
		np = 0; npass = 0; nfail = 0; nskip = 0; nlog = 0; failed = ""
		preason = ""
		next
	}
	/^(not )?ok [0-9]+ / { status = ($0 ~ /^not /) ? "fail" : "pass"; next }
	/^ *KTAP version/ || /^ *# Subtest:/ || /^[ \t]*$/ || /^1\.\.1$/ { next }
	{
		line = $0
		sub(/^ *(# )?/, "", line)
		lines[++nlog] = line
	}
	END {
		for (i = 1; i <= nlog && i <= max; i++)
			printf "log\t%s\n", lines[i]
		printf "suite\t%s\t%d\t%d\n", status, plan, cases
	}' "$KUNIT_DIR/$1/results"
}

tab=$(printf '\t')

# Turns the records of parse_results into result and diagnostic lines of
# this script's own TAP, kept in $out until the plan is known
suite_report()
{
	suite_log=""
	while IFS="$tab" read -r kind a b c; do
		case "$kind" in
		case) echo "$a$tab$b$tab$c" >>"$out/results" ;;
		diag) echo "diag$tab$a" >>"$out/results" ;;
		log) suite_log="$suite_log$a
" ;;
		suite)
			# a suite that did not run all its cases (its init failed,
			# or KUnit is disabled) is a failure, with its own log
			if [ "$b" -lt 0 ] || [ "$c" -lt "$b" ]; then
				echo "fail$tab$1 (ran $c of $b cases, suite $a)$tab" \
					>>"$out/results"
				echo "$suite_log" | while read -r l; do
					[ -n "$l" ] && echo "diag$tab$l"
				done >>"$out/results"
			fi
			;;
		esac
	done
}

taint_letters()
{
	# kernel/panic.c's taint_flags, bit 0 first
	flags=PFSRMBUDAWCIOELKXTN
	i=0
	letters=""
	while [ $i -lt ${#flags} ]; do
		if [ $(($1 >> i & 1)) = 1 ]; then
			letters="$letters$(echo "$flags" | cut -c$((i + 1)))"
		fi
		i=$((i + 1))
	done
	echo "$letters"
}

ktap_print_header

if [ ! -d "$KUNIT_DIR" ] && [ -d /sys/kernel/debug ]; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
fi
if [ ! -d "$KUNIT_DIR" ]; then
	ktap_skip_all "no $KUNIT_DIR: KUnit's debugfs missing" \
		"(CONFIG_KUNIT, CONFIG_KUNIT_DEBUGFS, CONFIG_DEBUG_FS)"
	exit "$KSFT_SKIP"
fi

out=$(mktemp -d) || ktap_exit_fail_msg "mktemp failed"
trap 'rm -rf "$out"' EXIT
: >"$out/results"

taint_before=$(cat /proc/sys/kernel/tainted 2>/dev/null || echo 0)
modules_before=$(loaded_modules)
suites_before=$(matching_suites)

# Load the modules; KUnit runs their suites as each one is loaded
for m in $(test_modules); do
	if [ -d "/sys/module/$m" ]; then
		# loaded as a dependency of an earlier one: nothing to say
		case " $(echo $modules_before) " in
		*" $m "*) ktap_print_msg "$m: loaded before" ;;
		*) grep -q "^$m " /proc/modules ||
			ktap_print_msg "$m: built in" ;;
		esac
		continue
	fi
	if msg=$(modprobe "$m" 2>&1); then
		ktap_print_msg "loaded $m"
	elif modinfo "$m" >/dev/null 2>&1; then
		ktap_print_msg "modprobe $m: $msg"
		echo "fail${tab}load module $m$tab" >>"$out/results"
	else
		ktap_print_msg "no module $m"
	fi
done

# Run again the suites that were there before: their results may be old
for s in $suites_before; do
	if [ -w "$KUNIT_DIR/$s/run" ]; then
		ktap_print_msg "running $s again"
		echo 1 >"$KUNIT_DIR/$s/run"
	fi
done

found=$(matching_suites)
for s in $found; do
	parse_results "$s" | suite_report "$s"
done

# A family of suites that is not there at all is one skipped line
for pattern in $SUITES; do
	n=0
	for s in $found; do
		case "$s" in
		$pattern) n=$((n + 1)) ;;
		esac
	done
	if [ $n = 0 ]; then
		echo "skip${tab}suites $pattern${tab}no such KUnit suite:" \
			"module absent or its tests not built" >>"$out/results"
	fi
done

taint_after=$(cat /proc/sys/kernel/tainted 2>/dev/null || echo 0)
new_taint=$((taint_after & ~taint_before))
if [ "$new_taint" != 0 ]; then
	ktap_print_msg "kernel tainted while the suites ran: $(taint_letters "$new_taint")" \
		"(N: KUnit ran; W: a warning, D: an oops, see dmesg)"
fi

# Unload what was loaded, users first, then what they used
new_modules=""
for m in $(loaded_modules); do
	case " $(echo $modules_before) " in
	*" $m "*) ;;
	*) new_modules="$new_modules $m" ;;
	esac
done
unloaded=0
pass=0
while [ -n "$new_modules" ] && [ $pass -lt 20 ]; do
	left=""
	for m in $new_modules; do
		refs=$(awk -v m="$m" '$1 == m { print $3 }' /proc/modules)
		if [ -z "$refs" ]; then
			continue
		elif [ "$refs" = 0 ] && rmmod "$m" 2>/dev/null; then
			unloaded=$((unloaded + 1))
			continue
		fi
		left="$left $m"
	done
	new_modules=$left
	pass=$((pass + 1))
done
[ $unloaded = 0 ] || ktap_print_msg "unloaded the $unloaded modules loaded"
for m in $new_modules; do
	ktap_print_msg "could not unload $m"
	echo "fail${tab}unload module $m$tab" >>"$out/results"
done

# Nothing to run is a skip, unless a module failed to load
if [ -z "$found" ] && ! grep -q '^fail' "$out/results"; then
	ktap_skip_all "no KUnit suite matches $SUITES: modules drm_mm_test," \
		"drivers/gpu/drm/{ttm,radeon}/tests absent or built without" \
		"CONFIG_DRM_KUNIT_TEST, CONFIG_DRM_TTM_KUNIT_TEST," \
		"CONFIG_DRM_RADEON_KUNIT_TEST, or KUnit disabled (kunit.enable=0," \
		"CONFIG_KUNIT_DEFAULT_ENABLED=n)"
	exit "$KSFT_SKIP"
fi

ktap_set_plan "$(grep -c -v '^diag' "$out/results")"
while IFS="$tab" read -r status desc reason; do
	case "$status" in
	pass) ktap_test_pass "$desc" ;;
	fail) ktap_test_fail "$desc" ;;
	skip)
		# ktap_test_skip() has no room for the reason
		__ktap_test ok "$desc" "SKIP $reason"
		KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
		;;
	diag) ktap_print_msg "$desc${reason:+ $reason}" ;;
	esac
done <"$out/results"
ktap_finished
