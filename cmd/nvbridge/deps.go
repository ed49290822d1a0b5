package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

// depsBin is the checkout's .deps/bin, set by `make install`
// (-ldflags "-X main.depsBin=..."): an installed binary keeps using the
// Neovim and servers that `make deps` installed.
var depsBin = ""

// DepsEnv overrides where the private Neovim and servers are: a folder, or
// "off" to use only what PATH holds.
const DepsEnv = "NVBRIDGE_DEPS"

// privateDeps returns the folder of `make deps`'s Neovim and language
// servers that this binary uses before PATH, and how it was chosen; "" when
// there is none.
func privateDeps() (dir, how string) {
	switch v := os.Getenv(DepsEnv); {
	case v == "off" || v == "none":
		return "", "$" + DepsEnv + "=" + v
	case v != "":
		return v, "$" + DepsEnv
	}
	if depsBin != "" && isDir(depsBin) {
		return depsBin, "set by make install"
	}
	// A binary built in a checkout (go build -o nvbridge ./cmd/nvbridge, or
	// make build) sits next to its .deps.
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			if d := filepath.Join(filepath.Dir(exe), ".deps", "bin"); isDir(d) {
				return d, "next to the binary"
			}
		}
	}
	return "", ""
}

// parserDir is the folder of the tree-sitter parsers `make deps` builds
// (.deps/parser, beside the private deps' bin), "" when there is none.
func parserDir() string {
	dir, _ := privateDeps()
	if dir == "" {
		return ""
	}
	if p := filepath.Join(filepath.Dir(dir), "parser"); isDir(p) {
		return p
	}
	return ""
}

// usePrivateDeps puts privateDeps first on PATH, for Neovim and for the
// language servers Neovim starts.
func usePrivateDeps() {
	dir, _ := privateDeps()
	if dir == "" {
		return
	}
	path := os.Getenv("PATH")
	if first, _, _ := strings.Cut(path, string(os.PathListSeparator)); first == dir {
		return
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+path)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// versionCommands are the programs nvbridge's embedded mode may start: the
// language registry's servers, the debug adapters, and what servers need.
func versionCommands() []string {
	var out []string
	for _, s := range lang.ServerSpecs() {
		out = append(out, s.Cmd[0])
	}
	return append(out, "dlv", "node", "go")
}

// runVersion prints the version and which Neovim and servers nvbridge
// would use (PATH after usePrivateDeps).
func runVersion(stdout io.Writer) int {
	usePrivateDeps()
	fmt.Fprintf(stdout, "nvbridge %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	dir, how := privateDeps()
	if dir != "" {
		fmt.Fprintf(stdout, "private deps: %s (%s; searched first)\n", dir, how)
	} else if how != "" {
		fmt.Fprintf(stdout, "private deps: none (%s)\n", how)
	} else {
		fmt.Fprintf(stdout, "private deps: none (only PATH; make install or $%s names them)\n", DepsEnv)
	}
	if p, err := exec.LookPath("nvim"); err != nil {
		fmt.Fprintln(stdout, "nvim: not found (make deps installs one; or pass --nvim-cmd)")
	} else {
		out, _ := exec.Command(p, "--headless", "--version").Output()
		first, _, _ := strings.Cut(string(out), "\n")
		if first == "" {
			first = "does not start"
		}
		fmt.Fprintf(stdout, "nvim: %s (%s)\n", p, strings.TrimSpace(first))
	}
	if p := parserDir(); p != "" {
		fmt.Fprintf(stdout, "tree-sitter parsers: %s\n", p)
	} else {
		fmt.Fprintln(stdout, "tree-sitter parsers: none of nvbridge's (make deps builds them; Neovim's own are used)")
	}
	for _, c := range versionCommands() {
		if p, err := exec.LookPath(c); err == nil {
			fmt.Fprintf(stdout, "%s: %s\n", c, p)
		} else {
			fmt.Fprintf(stdout, "%s: not found\n", c)
		}
	}
	fmt.Fprintln(stdout, "languages verified by nvbridge's tests (make matrix; README):")
	for _, row := range lang.Matrix() {
		fmt.Fprintf(stdout, "  %s\n", row.Summary())
	}
	return 0
}
