#!/bin/sh
# Installed by scripts/deps.sh as .deps/bin/lldb-dap. Runs lldb-dap from Debian bookworm's
# lldb-19, unpacked into .deps/lldb, with its libraries (liblldb, LLVM 19) first on the
# library path (the system is untouched). The real executable is run by its own path:
# lldb finds lldb-server (which starts the debuggee) beside it.
prefix=$(cd "$(dirname "$0")/../lldb" && pwd) || exit 127
found=
for exe in "$prefix"/usr/lib/llvm-*/bin/lldb-dap; do
	[ -x "$exe" ] && found=$exe && break
done
if [ -z "$found" ]; then
	echo "lldb-dap wrapper: no lldb-dap under $prefix/usr/lib; rerun: bash scripts/deps.sh" >&2
	exit 127
fi
LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
exec "$found" "$@"
