package lsp_test

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestNavigationRoundTrips: a warm navigation call costs a fixed, small
// number of round trips to Neovim, whatever the size of the files. A read
// of one request is one (read.lua): the open, the wait for the servers,
// the request and the lines its answer shows. Others open (open_wait),
// send their requests, then read every line the answer needs in one. Each
// round trip is Neovim latency on top of the server's.
func TestNavigationRoundTrips(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	process := lsp.Target{Line: 33, Symbol: "Process"}
	calls := []struct {
		name string
		want int64
		// shared: how many of them are starts made together, which may
		// share one round trip (nvim/starts.go) or not, as they queue.
		shared int64
		call   func() error
	}{
		{"find_references", 1, 0, func() error {
			_, err := client.References(ctx, "orders/orders.go", process, lsp.ReferencesOptions{IncludeDeclaration: true})
			return err
		}},
		{"find_definition", 1, 0, func() error {
			_, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
			return err
		}},
		// The open, the hover and where its symbol is declared (asked
		// together: the workspace policy's check, lsp/redact.go).
		{"hover", 1, 0, func() error {
			_, err := client.Hover(ctx, "orders/orders.go", process)
			return err
		}},
		// The open, the prepare request, once it answered the first
		// level's request of each direction, and the lines of every entry
		// (read.lua's chain).
		{"incoming calls, depth 1", 1, 0, func() error {
			_, err := client.CallHierarchy(ctx, "orders/orders.go", process, lsp.CallHierarchyOptions{Direction: lsp.DirectionIncoming, Depth: 1})
			return err
		}},
		{"both directions, depth 1", 1, 0, func() error {
			_, err := client.CallHierarchy(ctx, "orders/orders.go", process, lsp.CallHierarchyOptions{Depth: 1})
			return err
		}},
		// The same, then the second level's requests (one per caller of
		// Process, started together) and nothing more: none of them has a
		// caller, so the entries are the first level's, whose lines the
		// read brought.
		{"incoming calls, depth 2", 4, 2, func() error {
			_, err := client.CallHierarchy(ctx, "orders/orders.go", process, lsp.CallHierarchyOptions{Direction: lsp.DirectionIncoming, Depth: 2})
			return err
		}},
		// The open, the request, one read of the symbols' lines (their
		// columns convert from the server's units to characters).
		{"document symbols", 3, 0, func() error {
			_, err := client.Symbols(ctx, lsp.SymbolsQuery{File: "orders/orders.go"})
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); err != nil { // warm: files opened, servers ready
				t.Fatal(err)
			}
			before := s.RoundTrips()
			if err := c.call(); err != nil {
				t.Fatal(err)
			}
			if got := s.RoundTrips() - before; got > c.want || got < c.want-c.shared {
				t.Fatalf("%s took %d round trips to Neovim, want %d (%d of them may be shared)", c.name, got, c.want, c.shared)
			}
		})
	}
}
