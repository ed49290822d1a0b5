#!/bin/sh
# Installed by scripts/deps.sh as .deps/bin/clangd. Runs the private clangd 14 unpacked
# from Debian bookworm's packages into .deps/clangd, with its libraries first on the
# library path (for clangd alone; the system is untouched). The real executable is run
# by its own path: clangd finds its builtin headers (stddef.h ...) relative to it.
prefix=$(cd "$(dirname "$0")/../clangd" && pwd) || exit 127
found=
for exe in "$prefix"/usr/lib/llvm-*/bin/clangd; do
	[ -x "$exe" ] && found=$exe && break
done
if [ -z "$found" ]; then
	echo "clangd wrapper: no clangd under $prefix/usr/lib; rerun: bash scripts/deps.sh" >&2
	exit 127
fi
LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
exec "$found" "$@"
