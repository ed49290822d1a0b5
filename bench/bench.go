// Package bench measures what nvbridge adds on top of a language server: a
// trivial Go -> Neovim round trip, and find_references through nvbridge
// (Go -> Neovim's LSP client -> gopls and back) versus the same request sent
// straight to gopls over stdio. The Go benchmarks are in bench_test.go
// (`make bench`); cmd/sidebyside prints both figures and their ratio.
package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/bench/side"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/workspace"
)

// The measured request: references of orders.Process, declared at
// orders/orders.go:33 col 5 (testdata/samples/README.md): 5 references
// including the declaration.
const (
	refFile   = "orders/orders.go"
	refLine   = 33 // 1-based
	refColumn = 5  // 0-based; ASCII line, so the same in every encoding
	refSymbol = "Process"
	// WantReferences is how many references gopls finds there.
	WantReferences = 5
)

// Fixture is an embedded Neovim with gopls and, beside it, a gopls driven
// directly over stdio, both on one copy of the Go sample.
type Fixture struct {
	Root    string
	Session *nvim.Session
	Client  *lsp.Client
	Direct  *side.Straight

	doc     *lsp.Document
	params  protocol.ReferenceParams
	cleanup []func()
}

// RepoRoot finds the repository root (go.mod beside lua/nvbridge) from the
// working directory upwards.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "lua", "nvbridge")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the nvbridge repository")
		}
		dir = parent
	}
}

// Setup copies the Go sample, starts both sides and warms them up (the
// first requests wait for gopls to load the workspace), checking that both
// find the WantReferences references.
func Setup(ctx context.Context) (f *Fixture, err error) {
	repo, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	// make deps installs nvim and gopls under .deps/bin.
	os.Setenv("PATH", filepath.Join(repo, ".deps", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range []string{"nvim", "gopls", "go"} {
		if _, err := exec.LookPath(c); err != nil {
			return nil, fmt.Errorf("%s is not installed: run `make deps`", c)
		}
	}
	f = &Fixture{}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	tmp, err := os.MkdirTemp("", "nvbridge-bench-")
	if err != nil {
		return nil, err
	}
	f.cleanup = append(f.cleanup, func() { os.RemoveAll(tmp) })
	f.Root = filepath.Join(tmp, "go")
	if err := testenv.CopyDir(filepath.Join(repo, "testdata", "samples", "go"), f.Root); err != nil {
		return nil, err
	}
	root, err := workspace.New(f.Root)
	if err != nil {
		return nil, err
	}
	if f.Session, err = nvim.Open(ctx, nvim.Options{Root: root}); err != nil {
		return nil, err
	}
	f.cleanup = append(f.cleanup, func() { f.Session.Close() })
	f.Client = lsp.NewClient(f.Session)
	if f.Direct, err = side.StartStraight(ctx, f.Root); err != nil {
		return nil, err
	}
	f.cleanup = append(f.cleanup, func() { f.Direct.Close() })

	if f.doc, err = f.Client.Open(ctx, refFile); err != nil {
		return nil, err
	}
	f.params = protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(root.Dir(), refFile))},
			Position:     protocol.Position{Line: refLine - 1, Character: refColumn},
		},
		Context: protocol.ReferenceContext{IncludeDeclaration: true},
	}
	if err := f.Direct.Open(ctx, refFile); err != nil {
		return nil, err
	}
	// Warm up: the first answers wait for (or may precede) the workspace
	// load; repeat until both sides see every reference.
	for _, side := range []struct {
		name string
		run  func(context.Context) (int, error)
	}{{"nvbridge", f.ReferencesNvbridge}, {"via Neovim", f.ReferencesViaNeovim}, {"direct", f.ReferencesDirect}} {
		deadline := time.Now().Add(60 * time.Second)
		for {
			n, err := side.run(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s references: %w", side.name, err)
			}
			if n == WantReferences {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%s references: %d, want %d", side.name, n, WantReferences)
			}
			time.Sleep(100 * time.Millisecond) // warm-up only, never measured
		}
	}
	return f, nil
}

// Close stops everything Setup started.
func (f *Fixture) Close() {
	for i := len(f.cleanup) - 1; i >= 0; i-- {
		f.cleanup[i]()
	}
	f.cleanup = nil
}

// RoundTrip is the cheapest Go -> Neovim -> Go call: nvim_exec_lua("return 1").
func (f *Fixture) RoundTrip(ctx context.Context) error {
	var one int
	if err := f.Session.ExecLua(ctx, "return 1", &one); err != nil {
		return err
	}
	if one != 1 {
		return fmt.Errorf("got %d", one)
	}
	return nil
}

// ReferencesNvbridge is find_references' domain function: reconcile the
// buffer with the disk, locate the symbol, ask gopls through Neovim, group
// the answer by file with each source line. Returns the reference count.
func (f *Fixture) ReferencesNvbridge(ctx context.Context) (int, error) {
	res, err := f.Client.References(ctx, refFile, lsp.Target{Line: refLine, Symbol: refSymbol},
		lsp.ReferencesOptions{IncludeDeclaration: true})
	return res.Total, err
}

// ReferencesViaNeovim sends the bare textDocument/references request
// through Neovim's LSP client (no reconcile, no shaping): the transport
// cost of the bridge alone.
func (f *Fixture) ReferencesViaNeovim(ctx context.Context) (int, error) {
	server, err := f.doc.ServerFor(protocol.MethodTextDocumentReferences)
	if err != nil {
		return 0, err
	}
	var locs []protocol.Location
	err = f.Client.Request(ctx, f.doc, server, protocol.MethodTextDocumentReferences, f.params, &locs)
	return len(locs), err
}

// ReferencesDirect sends the same request straight to gopls.
func (f *Fixture) ReferencesDirect(ctx context.Context) (int, error) {
	var locs []protocol.Location
	_, err := f.Direct.Conn.Call(ctx, protocol.MethodTextDocumentReferences, f.params, &locs)
	return len(locs), err
}

// Result is one side-by-side measurement.
type Result struct {
	Name    string
	NsPerOp float64
	N       int
}

// Report renders results with each one's ratio to base (a name among them).
func Report(results []Result, base string) string {
	var baseNs float64
	for _, r := range results {
		if r.Name == base {
			baseNs = r.NsPerOp
		}
	}
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "%-34s %12.0f ns/op (%6.3f ms)  n=%-6d", r.Name, r.NsPerOp, r.NsPerOp/1e6, r.N)
		if baseNs > 0 && r.Name != base {
			fmt.Fprintf(&b, "  x%.2f vs %s", r.NsPerOp/baseNs, base)
		}
		b.WriteString("\n")
	}
	return b.String()
}
