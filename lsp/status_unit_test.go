package lsp

import (
	"slices"
	"testing"
)

// TestServerStatusStates: how a client's report becomes a state (the real
// ready and crashed states are tested over MCP in tools/status_test.go; an
// indexing server is a window no test can hold open with a real one).
func TestServerStatusStates(t *testing.T) {
	pct := 40.0
	methods := map[string]bool{"textDocument/definition": true, "textDocument/references": true}
	cases := []struct {
		name string
		cl   clientWire
		work []workWire
		want string
		text []string
	}{
		{"starting", clientWire{Name: "gopls"}, nil, StateStarting, nil},
		{"indexing by progress", clientWire{Name: "gopls", Initialized: true}, []workWire{{Title: "Loading packages...", Percentage: &pct}}, StateIndexing, []string{"Loading packages... 40%"}},
		{"diagnosing is ready", clientWire{Name: "gopls", Initialized: true}, []workWire{{Title: "diagnosing didChange"}}, StateReady, []string{"diagnosing didChange"}},
		{"indexing after attach", clientWire{Name: "clangd", Initialized: true, Indexing: true}, nil, StateIndexing, nil},
		{"ready", clientWire{Name: "gopls", Initialized: true, Methods: methods}, nil, StateReady, nil},
		{"stopped", clientWire{Name: "gopls", Initialized: true, Stopped: true, Indexing: true}, nil, StateStopped, nil},
	}
	for _, c := range cases {
		s := serverStatus(c.cl, c.work)
		if s.State != c.want || !slices.Equal(s.Work, c.text) {
			t.Errorf("%s: %+v, want state %s work %v", c.name, s, c.want, c.text)
		}
	}
	s := serverStatus(clientWire{Name: "x", Initialized: true, Methods: methods}, nil)
	if !slices.Contains(s.Tools, "find_definition") || !slices.Contains(s.Unsupported, "rename_symbol") || slices.Contains(s.Tools, "rename_symbol") {
		t.Errorf("tools %v unsupported %v", s.Tools, s.Unsupported)
	}
}
