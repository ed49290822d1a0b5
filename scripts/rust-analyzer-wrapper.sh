#!/bin/sh
# Installed by scripts/deps.sh as .deps/bin/rust-analyzer. Runs Debian trixie's
# rust-analyzer, unpacked into .deps/rust-analyzer, through trixie's own dynamic loader
# and libraries: it needs a newer glibc and libstdc++ than bookworm's (as Neovim does,
# scripts/nvim-wrapper.sh). The processes it starts (cargo, rustc) use the system loader.
prefix=$(cd "$(dirname "$0")/../rust-analyzer" && pwd) || exit 127
found=
for ld in "$prefix"/usr/lib/*-linux-gnu/ld-linux*.so.*; do
	[ -x "$ld" ] && found=$ld && break
done
if [ -z "$found" ]; then
	echo "rust-analyzer wrapper: no loader under $prefix/usr/lib; rerun: bash scripts/deps.sh" >&2
	exit 127
fi
exec "$found" --library-path "$(dirname "$found")" "$prefix/usr/bin/rust-analyzer" "$@"
