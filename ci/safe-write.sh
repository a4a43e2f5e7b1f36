# SPDX-License-Identifier: MIT
# safe-write.sh: how a bash script of vramlab writes a file (docs/cli.md, "How outputs are
# written"; the Python side is harness/python/vramlab_safe_write.py). Sourced:
#
#   safe_write_begin VAR TARGET   sets VAR to a new temporary file beside TARGET's real file
#                                 (mktemp: made exclusively, random name); removed at exit
#                                 unless committed
#   safe_write_commit TMP TARGET  TMP becomes TARGET: fsynced, TARGET's mode (and owner, as
#                                 root) kept, renamed over it, the directory fsynced; a TARGET
#                                 that is a device or a FIFO is written in place instead; a
#                                 symlink stays, its target is replaced; a new file gets
#                                 0666 less the umask (and the execute bits TMP has)
#
# Never `cmd >"$out.tmp"; mv "$out.tmp" "$out"`: a planted $out.tmp symlink is written through
# (as root), and a Ctrl-C leaves the .tmp behind. A script with an EXIT trap of its own calls
# safe_write_cleanup from it (begin installs one only where there is none).

safe_write_tmps=()

safe_write_cleanup() {
	local _sw_t
	for _sw_t in "${safe_write_tmps[@]}"; do rm -f -- "$_sw_t"; done
	safe_write_tmps=()
}

safe_write_begin() {
	# locals prefixed: printf -v must reach the caller's VAR, whatever its name
	local _sw_real _sw_dir _sw_tmp
	_sw_real=$(realpath -m -- "$2") # a symlink's target is what gets replaced
	if [ -d "$_sw_real" ]; then
		echo "$2: cannot write: it is a directory" >&2
		return 1
	fi
	_sw_dir=$(dirname -- "$_sw_real")
	_sw_tmp=$(mktemp "$_sw_dir/.$(basename -- "$_sw_real").XXXXXX" 2>/dev/null) || {
		echo "$2: cannot write: no new file can be made in $_sw_dir" >&2
		return 1
	}
	safe_write_tmps+=("$_sw_tmp")
	[ -n "$(trap -p EXIT)" ] || trap safe_write_cleanup EXIT
	printf -v "$1" '%s' "$_sw_tmp"
}

safe_write_commit() {
	local tmp=$1 real keep=() _sw_t
	real=$(realpath -m -- "$2")
	if [ -d "$real" ]; then
		echo "$2: cannot write: it is a directory" >&2
		return 1
	elif [ -e "$real" ] && [ ! -f "$real" ]; then
		# /dev/null, /dev/stdout, a FIFO: written in place, never renamed over
		cat -- "$tmp" >"$real"
		rm -f -- "$tmp"
	else
		if [ -f "$real" ]; then
			if [ "$(id -u)" = 0 ]; then chown --reference="$real" -- "$tmp"; fi
			chmod --reference="$real" -- "$tmp"
		else
			# mktemp made it 0600: a new file's mode, with the execute bits a linker gave it
			chmod "$(printf '%o' $(((0666 | (0$(stat -c %a -- "$tmp") & 0111)) & ~$(umask))))" \
				-- "$tmp"
		fi
		sync -- "$tmp"
		mv -f -- "$tmp" "$real"
		sync -- "$(dirname -- "$real")"
	fi
	for _sw_t in "${safe_write_tmps[@]}"; do [ "$_sw_t" = "$tmp" ] || keep+=("$_sw_t"); done
	safe_write_tmps=("${keep[@]}")
}
