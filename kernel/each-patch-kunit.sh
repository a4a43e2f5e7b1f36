#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every patch of the series on its own: check out each commit after the
# base in a worktree, build the UML KUnit kernel (one build directory, so
# each step rebuilds only what the patch touched) and run the same suites
# with the same kernel command line.  Config options a commit does not
# define yet (the tests of later patches) are left out at that commit.
#
# usage: each-patch-kunit.sh KDIR BUILD JOBS BASE_REF KARGS KUNITCONFIG...
#
# Prints one line per patch (tests run, passed, failed, seconds) and a
# summary; exits 1 at the first patch that does not build or fails a test.
set -euo pipefail

KDIR=$1 BUILD=$2 JOBS=$3 BASE=$4 KARGS=$5
shift 5
CONFIGS=("$@")
tree="$(dirname "$KDIR")/$(basename "$KDIR")-bisect"
PYTHON=${PYTHON:-/usr/bin/python3}

mapfile -t commits < <(git -C "$KDIR" rev-list --reverse "$BASE..HEAD")
[ ${#commits[@]} -gt 0 ] || { echo "no patches after $BASE"; exit 1; }

if [ ! -e "$tree/.git" ]; then
	rm -rf "$tree"
	git -C "$KDIR" worktree prune
	git -C "$KDIR" worktree add -q --detach "$tree" "${commits[0]}"
fi
mkdir -p "$BUILD"

# The fragment $1 without options $tree does not define
defined_only() {
	local line sym
	while IFS= read -r line; do
		sym=$(sed -nE 's/^CONFIG_([A-Za-z0-9_]+)=.*/\1/p' <<<"$line")
		if [ -n "$sym" ] && ! grep -rqsxE --include='Kconfig*' \
				"(menu)?config $sym" "$tree"; then
			echo "# $line (not defined at this commit)"
			continue
		fi
		echo "$line"
	done <"$1"
}

# "Ran N" or "passed: N" of kunit.py's summary line, 0 when absent
count() { grep -oE "$1:? [0-9]+" <<<"$summary" | grep -oE '[0-9]+' || echo 0; }

: >"$BUILD/bisect.txt"
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	git -C "$tree" checkout -q --detach "$c"
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	args=(--kunitconfig=drivers/gpu/drm/tests --kunitconfig=drivers/gpu/drm/ttm/tests)
	i=0
	for f in "${CONFIGS[@]}"; do
		defined_only "$f" >"$BUILD/frag$i"
		args+=(--kunitconfig="$BUILD/frag$i")
		i=$((i + 1))
	done
	start=$(date +%s)
	log="$BUILD/patch-$n.log"
	if (cd "$tree" && "$PYTHON" tools/testing/kunit/kunit.py run \
		--build_dir="$BUILD/um" --jobs="$JOBS" --timeout=900 \
		"${args[@]}" --kernel_args "$KARGS") >"$log" 2>&1; then
		status=ok
	else
		status=FAILED
	fi
	summary=$(grep -E 'Testing complete\. Ran' "$log" | tail -1 |
		  sed -E 's/.*Testing complete\. //' || true)
	printf '%d/%d %-7s %-66s %s (%ds)\n' "$n" "${#commits[@]}" "$status" \
		"$subject" "${summary:-no test run, see $log}" \
		$(($(date +%s) - start))
	# The same, for machines (kernel/cover-letter.py collect --bisect)
	printf 'patch %d/%d: run %s passed %s skipped %s failed %s\n' "$n" "${#commits[@]}" \
		"$(count Ran)" "$(count passed)" "$(count skipped)" \
		"$(( $(count failed) + $(count crashed) + $(count errors) ))" >>"$BUILD/bisect.txt"
	if [ "$status" != ok ]; then
		echo "patch $n of ${#commits[@]} fails on its own; log: $log"
		exit 1
	fi
done
echo "all ${#commits[@]} patches build and pass KUnit on their own"
