// Package testenv gives integration tests a real headless Neovim with real
// language servers. It never skips: a missing dependency fails the test with
// the command that installs it (make deps).
package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/workspace"
)

var pathOnce sync.Once

// RepoRoot returns the repository root (the folder holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "lua", "nvbridge")); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the nvbridge repository root")
		}
		dir = parent
	}
}

// Require puts .deps/bin first on PATH (so `go test` works without make)
// and fails the test when a command is missing.
func Require(t testing.TB, commands ...string) {
	t.Helper()
	pathOnce.Do(func() {
		bin := filepath.Join(RepoRoot(t), ".deps", "bin")
		os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	for _, c := range commands {
		if _, err := exec.LookPath(c); err != nil {
			t.Fatalf("%s is not installed: run `make deps` (installs it under .deps/)", c)
		}
	}
}

// ParserDir is the tree-sitter parsers' folder `make deps` builds
// (.deps/parser); it fails the test when a parser is missing.
func ParserDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), ".deps", "parser")
	for _, name := range []string{"python", "typescript", "tsx"} {
		if _, err := os.Stat(filepath.Join(dir, name+".so")); err != nil {
			t.Fatalf("the tree-sitter parser %s is not built: run `make deps` (builds .deps/parser/%s.so)", name, name)
		}
	}
	return dir
}

// Timeout bounds a test's waits: Context gives a whole test (all its
// subtests) this budget (NVBRIDGE_TEST_TIMEOUT overrides it). It is a
// safety net, not a measure: on a 2-core machine at load 20 (other work
// beside the suite) the refactoring tests, whose subtests share one
// context, needed more than a minute, with the old code as with the new.
func Timeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("NVBRIDGE_TEST_TIMEOUT")); err == nil {
		return d
	}
	return 3 * time.Minute
}

// Context returns a context bounded by Timeout and cancelled at cleanup.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout())
	t.Cleanup(cancel)
	return ctx
}

// CopySample copies testdata/samples/NAME into a fresh temp folder, so tests
// may edit it, and returns the copy's path.
func CopySample(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join(RepoRoot(t), "testdata", "samples", name)
	dst := filepath.Join(t.TempDir(), name)
	err := CopyDir(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// SampleRootPlaceholder stands for the sample copy's absolute path in a
// sample's compile_commands.json: a compilation database names absolute
// folders (clangd 14 does not resolve a relative "directory"), so the
// committed one is a template that CopyDir fills in, as a build tool (CMake,
// bear) would generate it.
const SampleRootPlaceholder = "@SAMPLE_ROOT@"

// CopyDir copies the tree at src to dst (regular files and folders),
// filling SampleRootPlaceholder in compile_commands.json files with dst.
func CopyDir(src, dst string) error {
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == "compile_commands.json" {
			quoted, _ := json.Marshal(absDst)
			data = bytes.ReplaceAll(data, []byte(SampleRootPlaceholder), quoted[1:len(quoted)-1])
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Isolate points Neovim's and the servers' per-user folders into the test's
// temp dir, so tests neither read nor write the developer's config.
func Isolate(t testing.TB) {
	// The real user cache dir, read before XDG_CACHE_HOME is redirected.
	userCache, cacheErr := os.UserCacheDir()
	// Not t.TempDir: a process outside our control (a server's detached
	// helper, or a go command it started) may still write there while the
	// dir is removed, and t.TempDir fails the test for that. Removal is
	// best effort; nothing asserted lives here.
	base, err := os.MkdirTemp("", "nvbridge-xdg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		dir := filepath.Join(base, strings.ToLower(strings.TrimPrefix(v, "XDG_")))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(v, dir)
	}
	// Go telemetry off for the servers: gopls otherwise starts a telemetry
	// process that leaves our process group on purpose (setsid) and writes
	// into the config dir while the test removes it.
	modeDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "go", "telemetry")
	if err := os.MkdirAll(modeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(modeDir, "mode"), []byte("off"), 0o644); err != nil {
		t.Fatal(err)
	}
	// gopls keeps its file cache under the user cache dir; sharing one across
	// tests keeps them fast and is harmless. (Inside the test's temp dir it
	// would also race with gopls's last writes when the dir is removed.)
	// (A second Isolate in one test keeps the first one's choices: by then
	// the user cache dir already points into the temp dir.)
	if cacheErr == nil && os.Getenv("GOPLSCACHE") == "" {
		t.Setenv("GOPLSCACHE", filepath.Join(userCache, "gopls-nvbridge-test"))
		// Likewise the Go build cache (go build, and gopls's go list): a
		// fresh one per test would rebuild everything each time.
		if os.Getenv("GOCACHE") == "" {
			t.Setenv("GOCACHE", filepath.Join(userCache, "go-build"))
		}
	}
}

// Embedded starts an embedded Neovim rooted at root and closes it at cleanup.
func Embedded(t testing.TB, root string) (*nvim.Session, *lsp.Client) {
	t.Helper()
	return EmbeddedWith(t, root, nvim.Options{})
}

// EmbeddedWith is Embedded with more session options (e.g. ExtraServers);
// Root and Logf are set here.
func EmbeddedWith(t testing.TB, root string, opts nvim.Options) (*nvim.Session, *lsp.Client) {
	t.Helper()
	Require(t, "nvim")
	Isolate(t)
	r, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	opts.Root, opts.Logf = r, t.Logf
	if opts.ParserDir == "" {
		opts.ParserDir = ParserDir(t)
	}
	s, err := nvim.Open(Context(t), opts)
	if err != nil {
		t.Fatalf("start embedded Neovim: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	DumpTraceOnFailure(t, s)
	return s, lsp.NewClient(s)
}

// Reconciles is how many times the session's Neovim reconciled a buffer
// with its file (buffers.lua's count): a test of what a read looks at
// compares it before and after.
func Reconciles(t testing.TB, s *nvim.Session) int {
	t.Helper()
	var n int
	if err := s.ExecLua(Context(t), "return require('nvbridge.buffers').reconciles", &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Listening starts a separate headless Neovim listening on a unix socket (as
// a user's Neovim would be) and returns its address.
func Listening(t testing.TB, root string, extraArgs ...string) string {
	t.Helper()
	Require(t, "nvim")
	Isolate(t)
	sock := filepath.Join(t.TempDir(), "nvim.sock")
	args := append([]string{"--headless", "--clean", "-n", "-i", "NONE", "--listen", sock}, extraArgs...)
	cmd := exec.Command("nvim", args...)
	cmd.Dir = root
	// A process group of its own, so cleanup also ends the servers it
	// starts before the temp dirs they write into are removed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		nvim.EndProcessGroup(cmd.Process.Pid, 0)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(Timeout())
	for {
		// The socket file exists before Neovim listens on it: only a
		// connection that succeeds says it is ready.
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatal("Neovim did not listen on its socket")
		}
		time.Sleep(10 * time.Millisecond) // a socket gives no event to wait on
	}
}

// Attached connects to the Neovim at addr, rooted at root.
func Attached(t testing.TB, addr, root string) (*nvim.Session, *lsp.Client) {
	t.Helper()
	r, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := nvim.Open(Context(t), nvim.Options{Addr: addr, Root: r, Logf: t.Logf, ParserDir: ParserDir(t)})
	if err != nil {
		t.Fatalf("attach to Neovim at %s: %v", addr, err)
	}
	t.Cleanup(func() { s.Close() })
	DumpTraceOnFailure(t, s)
	return s, lsp.NewClient(s)
}

// DumpTraceOnFailure logs the session's recent RPC and LSP exchanges
// (nvim.Session.Trace) when the test has failed, before the session closes.
func DumpTraceOnFailure(t testing.TB, s *nvim.Session) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		var b strings.Builder
		_ = s.WriteTrace(&b)
		t.Logf("recent exchanges with Neovim (oldest first, at most %d):\n%s", nvim.TraceSize, b.String())
	})
}

// UserLSPConfig returns arguments for Listening that configure language
// servers the way a user's own config does: a FileType autocmd per server
// that calls vim.lsp.start with the given client name, rooted by markers.
// nvbridge attached to that Neovim must use these clients.
func UserLSPConfig(t testing.TB, clientName string) []string {
	t.Helper()
	return UserLSPConfigWith(t, clientName, "{}")
}

// UserLSPConfigWith is UserLSPConfig with the client's gopls settings (a
// Lua table constructor, e.g. "{ gopls = { verboseWorkDoneProgress = true } }").
func UserLSPConfigWith(t testing.TB, clientName, settings string) []string {
	t.Helper()
	const initLua = `
local name = %q
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(ev)
    vim.lsp.start({ name = name, cmd = { 'gopls' }, root_dir = vim.fs.root(ev.buf, { 'go.mod' }), settings = %s })
  end,
})
`
	path := filepath.Join(t.TempDir(), "init.lua")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(initLua, clientName, settings)), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"-c", "luafile " + path}
}

// traceLua records the LSP traffic of every client of the Neovim it runs in
// (method, publishDiagnostics versions and counts, $/progress kinds, log
// messages), with milliseconds since it was installed, by wrapping the LSP
// log's debug function (Neovim logs each message sent and received there).
const traceLua = `
_G.nvbridge_trace = {}
local t0 = vim.uv.hrtime()
local function rec(dir, msg)
  local m = msg.method or ('reply ' .. tostring(msg.id))
  local p, extra = msg.params or {}, ''
  if msg.method == 'textDocument/publishDiagnostics' then
    extra = string.format(' version=%s n=%d %s', tostring(p.version), #(p.diagnostics or {}), tostring(p.uri):match('[^/]*$'))
  elseif msg.method == '$/progress' then
    local v = p.value or {}
    extra = string.format(' %s %s %s', tostring(v.kind), tostring(v.title or ''), tostring(v.message or ''))
  elseif msg.method == 'window/logMessage' then
    extra = ' ' .. tostring(p.message):sub(1, 120):gsub('\n', ' ')
  elseif msg.method == 'textDocument/didOpen' then
    extra = ' version=' .. tostring(p.textDocument and p.textDocument.version)
  end
  table.insert(_G.nvbridge_trace, string.format('%8.1f ms %s %s%s', (vim.uv.hrtime() - t0) / 1e6, dir, m, extra))
end
local log = require('vim.lsp.log')
vim.lsp.set_log_level('DEBUG')
log.debug = function(what, msg)
  if type(msg) == 'table' and (what == 'rpc.receive' or what == 'rpc.send') then
    rec(what == 'rpc.send' and '->' or '<-', msg)
  end
  return true
end
`

// TraceLSP records the LSP traffic between the session's Neovim and its
// language servers from now on, and logs it when the test fails: what the
// servers sent, and when, is what a failed wait needs explained.
func TraceLSP(t testing.TB, s *nvim.Session) {
	t.Helper()
	if err := s.ExecLua(Context(t), traceLua, nil); err != nil {
		t.Fatalf("install the LSP trace: %v", err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var lines []string
		if err := s.ExecLua(ctx, "return _G.nvbridge_trace", &lines); err != nil {
			t.Logf("LSP trace unavailable: %v", err)
			return
		}
		t.Logf("LSP traffic:\n%s", strings.Join(lines, "\n"))
	})
}
