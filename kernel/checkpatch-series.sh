#!/bin/bash
# SPDX-License-Identifier: MIT
# checkpatch.pl --strict of TREE on each patch (cover letters skipped): a line of counts per
# patch, then its messages. Fails on an error, and with FAIL_ON=error,check on a check too.
# Usage: checkpatch-series.sh TREE IGNORE_TYPES PATCH...   (IGNORE_TYPES: checkpatch --ignore)
set -uo pipefail
tree=$1 ignore=$2
shift 2
rc=0
for p in "$@"; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	out=$(cd "$tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q --terse \
		--ignore "$ignore" "$p") || true
	e=$(grep -c ': ERROR:' <<<"$out" || true)
	w=$(grep -c ': WARNING:' <<<"$out" || true)
	c=$(grep -c ': CHECK:' <<<"$out" || true)
	printf '%-60s errors %s warnings %s checks %s\n' "$(basename "$p")" "$e" "$w" "$c"
	out=$(grep -v "^total:" <<<"$out" || true)
	[ -z "$out" ] || sed "s|^$p:|    line |" <<<"$out"
	[ "$e" = 0 ] || rc=1
	[[ ${FAIL_ON:-error} != *check* ]] || [ "$c" = 0 ] || rc=1
done
exit $rc
