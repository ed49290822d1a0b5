package lsp_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
)

// Helpers of the structure tests (call/type hierarchy, understand_symbol,
// prepare_change, analyze_dependencies).

func stIntp(i int) *int { return &i }

// at is a target by symbol name on a 1-based line.
func stAt(line int, symbol string) lsp.Target { return lsp.Target{Line: line, Symbol: symbol} }

// where renders an entry as "name@file:line:column".
func stWhere(e lsp.HierarchyEntry) string {
	return fmt.Sprintf("%s@%s:%d:%d", e.Name, e.File, e.Line, e.Column)
}

func stCallNames(entries []lsp.CallEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

func stFindCall(t *testing.T, entries []lsp.CallEntry, name string) lsp.CallEntry {
	t.Helper()
	for _, e := range entries {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no entry %q among %v", name, stCallNames(entries))
	return lsp.CallEntry{}
}

func stSites(e lsp.CallEntry) []string {
	out := make([]string, 0, len(e.CallSites))
	for _, s := range e.CallSites {
		out = append(out, fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Column))
	}
	return out
}

func stEqualStrings(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func stWantCode(t *testing.T, err error, code apierr.Code) *apierr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	e := apierr.As(err)
	if e.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	if e.Remediation == "" {
		t.Fatalf("error %v has no remediation", err)
	}
	return e
}

// eventually retries check until it returns nil or ctx ends. Language
// servers that index the workspace in the background (pyright, tsserver)
// answer incompletely right after they start and give no event to wait on;
// the tests wait for the server to see a known fact before asserting.
func stEventually(ctx context.Context, t *testing.T, what string, check func() error) {
	t.Helper()
	delay := 50 * time.Millisecond
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, err)
		case <-time.After(delay):
		}
		if delay < time.Second {
			delay *= 2
		}
	}
}
