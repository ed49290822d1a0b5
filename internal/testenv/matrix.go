package testenv

// The language matrix's tests' side (lang/matrix.go): a test that verified a
// tool for a language through nvbridge says so with Verified (or
// VerifiedUnsupported); once the test has passed, its cell is checked
// against the committed lang/matrix.json, or, under `make matrix`
// (NVBRIDGE_MATRIX_OUT), written out for the generator
// (matrix_test.go: TestMatrix -update-matrix). MatrixMain fails a full run
// of a package whose committed cells were not all verified again.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
)

// MatrixRecord is one verified cell, as a test saw it.
type MatrixRecord struct {
	Language string `json:"language"`
	// Server is the language server, or for start_debug_session the debug
	// adapter.
	Server  string `json:"server"`
	Version string `json:"version,omitempty"`
	Tool    string `json:"tool"`
	Result  string `json:"result"`
	// Test is "PACKAGE TestName/subtest".
	Test string `json:"test"`
}

// DebugTool is the tool whose cell names the debug adapter.
const DebugTool = "start_debug_session"

var (
	matrixMu  sync.Mutex
	recorded  []MatrixRecord
	matrixOut = os.Getenv("NVBRIDGE_MATRIX_OUT")
)

// Verified records that the running test verified tools for language
// through server (version as the test saw it): the cell counts once the
// test has passed.
func Verified(t testing.TB, language, server, version string, tools ...string) {
	t.Helper()
	record(t, language, server, version, lang.MatrixVerified, tools)
}

// VerifiedUnsupported records that the running test checked that tools
// answer UNSUPPORTED naming server.
func VerifiedUnsupported(t testing.TB, language, server, version string, tools ...string) {
	t.Helper()
	record(t, language, server, version, lang.MatrixUnsupported, tools)
}

func record(t testing.TB, language, server, version, result string, tools []string) {
	t.Helper()
	if version == "" {
		t.Fatalf("matrix: no version for %s", server)
	}
	test := packageName(t) + " " + t.Name()
	t.Cleanup(func() {
		if t.Failed() || t.Skipped() {
			return
		}
		for _, tool := range tools {
			r := MatrixRecord{Language: language, Server: server, Version: version, Tool: tool, Result: result, Test: test}
			matrixMu.Lock()
			recorded = append(recorded, r)
			matrixMu.Unlock()
			if matrixOut != "" {
				appendRecord(t, r)
			} else if problem := committedProblem(r); problem != "" {
				t.Errorf("the language matrix (lang/matrix.json) is stale: %s; run `make matrix`", problem)
			}
		}
	})
}

func packageName(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Base(dir)
}

// appendRecord adds one JSON line to NVBRIDGE_MATRIX_OUT (one write: the
// test binaries of several packages append to it at once).
func appendRecord(t testing.TB, r MatrixRecord) {
	line, _ := json.Marshal(r)
	f, err := os.OpenFile(matrixOut, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("matrix: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Errorf("matrix: %v", err)
	}
}

// committedProblem says how the committed matrix disagrees with a verified
// cell, "" when it agrees.
func committedProblem(r MatrixRecord) string {
	for _, row := range lang.Matrix() {
		if row.Language != r.Language {
			continue
		}
		server, version := row.Server, row.Version
		if r.Tool == DebugTool {
			server, version = row.Debugger, row.DebuggerVersion
		}
		if server != r.Server || version != r.Version {
			return fmt.Sprintf("%s's %s is %s %s there, the test ran %s %s", r.Language, r.Tool, server, version, r.Server, r.Version)
		}
		// Several tests may verify one cell; it names one of them (and a
		// full run checks that one: MatrixMain).
		cell, ok := row.Tools[r.Tool]
		if !ok || cell.Result != r.Result {
			return fmt.Sprintf("%s's %s is %+v there, %s verified %s", r.Language, r.Tool, cell, r.Test, r.Result)
		}
		return ""
	}
	return "it has no row for " + r.Language
}

// MatrixMain runs the package's tests (from its TestMain) and, after a
// full run that passed, fails it when a cell of the committed matrix
// attributed to this package was not verified again: a cell stays only
// while its test still verifies it.
func MatrixMain(m *testing.M) int {
	code := m.Run()
	if code != 0 || matrixOut != "" || filtered() {
		return code
	}
	dir, err := os.Getwd()
	if err != nil {
		return code
	}
	pkg := filepath.Base(dir)
	seen := map[string]bool{}
	for _, r := range recorded {
		seen[r.Language+"\x00"+r.Tool+"\x00"+r.Result+"\x00"+r.Test] = true
	}
	var stale []string
	for _, row := range lang.Matrix() {
		for tool, cell := range row.Tools {
			if strings.HasPrefix(cell.Test, pkg+" ") && !seen[row.Language+"\x00"+tool+"\x00"+cell.Result+"\x00"+cell.Test] {
				stale = append(stale, fmt.Sprintf("%s %s (%s, by %s)", row.Language, tool, cell.Result, cell.Test))
			}
		}
	}
	if len(stale) == 0 {
		return code
	}
	sort.Strings(stale)
	fmt.Fprintf(os.Stderr, "FAIL: the language matrix (lang/matrix.json) claims what no test of this run verified; run `make matrix`:\n  %s\n",
		strings.Join(stale, "\n  "))
	return 1
}

// filtered reports whether the run selected tests (-run, -skip): then not
// every cell's test ran.
func filtered() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return true
		}
	}
	return false
}

// npmPackages name the npm package of servers that send no serverInfo, and
// the .deps prefix it is installed in.
var npmPackages = map[string][2]string{
	"bash-language-server":        {"npm-servers", "bash-language-server"},
	"yaml-language-server":        {"npm-servers", "yaml-language-server"},
	"vscode-json-language-server": {"npm-servers", "vscode-langservers-extracted"},
	"vscode-css-language-server":  {"npm-servers", "vscode-langservers-extracted"},
	"vscode-html-language-server": {"npm-servers", "vscode-langservers-extracted"},
	"docker-langserver":           {"npm-servers", "dockerfile-language-server-nodejs"},
	"intelephense":                {"npm-servers", "intelephense"},
	"pyright":                     {"npm", "pyright"},
	"typescript-language-server":  {"npm", "typescript-language-server"},
}

// commandVersions say how to ask the servers that send no serverInfo and
// are no npm package for their version.
var commandVersions = map[string]struct {
	cmd []string
	re  *regexp.Regexp
}{
	"rust-analyzer": {[]string{"rust-analyzer", "--version"}, regexp.MustCompile(`^rust-analyzer (\S+)`)},
	"buf":           {[]string{"buf", "--version"}, regexp.MustCompile(`^(\S+)`)},
	"gopls":         {[]string{"gopls", "version"}, regexp.MustCompile(`gopls (v\S+)`)},
	"clangd":        {[]string{"clangd", "--version"}, regexp.MustCompile(`clangd version (\S+)`)},
}

// ServerVersion is the version of a running language server: what it said
// in its initialize answer (serverInfo), else what its command or its npm
// package says.
func ServerVersion(t testing.TB, ctx context.Context, client *lsp.Client, server string) string {
	t.Helper()
	st, err := client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Servers {
		if s.Name == server && s.Version != "" {
			return s.Version
		}
	}
	if v, ok := commandVersions[server]; ok {
		out, err := exec.Command(v.cmd[0], v.cmd[1:]...).Output()
		if m := v.re.FindSubmatch(out); err == nil && m != nil {
			return string(m[1])
		}
		t.Fatalf("%s: %v %q", strings.Join(v.cmd, " "), err, out)
	}
	pkg, ok := npmPackages[server]
	if !ok {
		t.Fatalf("%s sent no version and is no npm package known here (internal/testenv/matrix.go)", server)
	}
	data, err := os.ReadFile(filepath.Join(RepoRoot(t), ".deps", pkg[0], "node_modules", pkg[1], "package.json"))
	if err != nil {
		t.Fatalf("the version of %s: %v", server, err)
	}
	var meta struct{ Version string }
	if err := json.Unmarshal(data, &meta); err != nil || meta.Version == "" {
		t.Fatalf("the version of %s: %v", server, err)
	}
	return meta.Version
}

// adapterVersions say how to ask each debug adapter for its version.
var adapterVersions = map[string]struct {
	cmd []string
	re  *regexp.Regexp
}{
	"dlv":     {[]string{"dlv", "version"}, regexp.MustCompile(`Version: (\S+)`)},
	"debugpy": {[]string{"python3-deps", "-c", "import debugpy; print(debugpy.__version__)"}, regexp.MustCompile(`^(\S+)`)},
}

// AdapterVersion is a debug adapter's version (dlv version, debugpy's
// module; lldb-dap prints none: its LLVM version, from the private
// package's folder).
func AdapterVersion(t testing.TB, adapter string) string {
	t.Helper()
	if adapter == "lldb-dap" {
		dirs, _ := filepath.Glob(filepath.Join(RepoRoot(t), ".deps", "lldb", "usr", "lib", "llvm-*"))
		if len(dirs) != 1 {
			t.Fatalf("lldb-dap: no single .deps/lldb/usr/lib/llvm-* (%v): run `make deps`", dirs)
		}
		return strings.TrimPrefix(filepath.Base(dirs[0]), "llvm-")
	}
	v, ok := adapterVersions[adapter]
	if !ok {
		t.Fatalf("no version command for %s (internal/testenv/matrix.go)", adapter)
	}
	out, err := exec.Command(v.cmd[0], v.cmd[1:]...).Output()
	m := v.re.FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("%s: %v %q", strings.Join(v.cmd, " "), err, out)
	}
	return string(m[1])
}
