#!/bin/sh
# Installed by scripts/deps.sh as .deps/bin/nvim. Runs the private Neovim unpacked from
# Debian trixie's packages into .deps/nvim. That nvim needs a newer glibc than the
# system's, so it is started through trixie's own dynamic loader with trixie's libraries
# (the system is untouched; processes nvim spawns use the system loader as usual).
# VIMRUNTIME must be set: nvim derives its runtime from v:progpath, which is the loader.
# exec keeps stdin/stdout attached, so `nvim --embed` works through this wrapper.
prefix=$(cd "$(dirname "$0")/../nvim" && pwd) || exit 127
found=
for ld in "$prefix"/usr/lib/*-linux-gnu/ld-linux*.so.*; do
	[ -x "$ld" ] && found=$ld && break
done
if [ -z "$found" ]; then
	echo "nvim wrapper: no loader under $prefix/usr/lib; rerun: bash scripts/deps.sh" >&2
	exit 127
fi
VIMRUNTIME="$prefix/usr/share/nvim/runtime"
export VIMRUNTIME
exec "$found" --library-path "$(dirname "$found")" "$prefix/usr/bin/nvim" "$@"
