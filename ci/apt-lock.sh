# Sourced by the scripts that run apt-get install or update: apt_lock takes the project's lock
# on Debian's package tools, held until the shell exits, so that suites running side by side
# (make test) install one at a time instead of failing on dpkg's lock.
apt_lock()
{
	local dir=${VRAMLAB_CACHE:-$HOME/.cache/vramlab}
	mkdir -p "$dir"
	exec 9>>"$dir/apt.lock"
	flock 9
}
