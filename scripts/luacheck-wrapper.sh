#!/bin/sh
# Installed by scripts/deps.sh as .deps/bin/luacheck. Runs Debian bookworm's luacheck,
# unpacked with the Lua 5.1 interpreter and the modules it needs (argparse,
# LuaFileSystem) into .deps/luacheck: that interpreter, its modules found there only
# (LUA_PATH, LUA_CPATH), its libraries first on the library path (for it alone; the
# system is untouched).
prefix=$(cd "$(dirname "$0")/../luacheck" && pwd) || exit 127
found=
for lib in "$prefix"/usr/lib/*-linux-gnu; do
	[ -d "$lib/lua/5.1" ] && found=$lib && break
done
if [ -z "$found" ]; then
	echo "luacheck wrapper: no Lua modules under $prefix/usr/lib; rerun: bash scripts/deps.sh luacheck" >&2
	exit 127
fi
LUA_PATH="$prefix/usr/share/lua/5.1/?.lua;$prefix/usr/share/lua/5.1/?/init.lua"
LUA_CPATH="$found/lua/5.1/?.so"
LD_LIBRARY_PATH="$found${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LUA_PATH LUA_CPATH LD_LIBRARY_PATH
exec "$prefix/usr/bin/lua5.1" "$prefix/usr/bin/luacheck" "$@"
