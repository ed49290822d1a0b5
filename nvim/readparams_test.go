package nvim_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestReadRequestAsGoWroteIt: a read's request goes to the server with
// its params as the Go side wrote them, the character of the server's
// encoding in its place (read.lua does not decode and encode them again:
// vim.json.encode writes a URI's slashes as \/), and with Neovim's LSP log
// at debug level, which logs the request as a table, as that table. The
// also request (hover's definition) is at the same position, written as
// the hover's params are, and the answers are the same either way.
func TestReadRequestAsGoWroteIt(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	src, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Split(string(src), "\n")[26]
	character := strings.Index(line, "Process")
	target := lsp.Target{Line: 27, Symbol: "Process"}
	// The first read opens the file and waits for gopls (in steps); the
	// next ones are reads in one call.
	want, err := client.Definition(ctx, "main.go", target)
	if err != nil {
		t.Fatal(err)
	}
	// Records the requests' messages written to the server (the
	// connection's transport, as _compat.rpc_request finds it).
	const record = `
local b = ...
local c = vim.lsp.get_clients({ bufnr = b })[1]
local request = c.rpc.request
for i = 1, debug.getinfo(request, 'u').nups do
  local name, conn = debug.getupvalue(request, i)
  if name == 'client' then
    local write = conn.transport.write
    vim.g.nvbridge_test_sent = {}
    conn.transport.write = function(msg)
      if msg:find('"method":"textDocument\\?/[dh]') then
        local sent = vim.g.nvbridge_test_sent
        table.insert(sent, msg)
        vim.g.nvbridge_test_sent = sent
      end
      return write(msg)
    end
    return true
  end
end
return false`
	var found bool
	if err := s.ExecLua(ctx, record, &found, bufnr(t, s, filepath.Join(root, "main.go"))); err != nil || !found {
		t.Fatalf("recording gopls's requests: %v (connection found: %v)", err, found)
	}
	uri := "file://" + root + "/main.go"
	for _, level := range []string{"WARN", "DEBUG"} {
		if err := s.ExecLua(ctx, "vim.g.nvbridge_test_sent = {}; vim.lsp.set_log_level((...))", nil, level); err != nil {
			t.Fatal(err)
		}
		got, err := client.Definition(ctx, "main.go", target)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Locations) == 0 || len(want.Locations) == 0 || got.Locations[0] != want.Locations[0] {
			t.Errorf("log level %s: definition %+v, before %+v", level, got.Locations, want.Locations)
		}
		if _, err := client.Hover(ctx, "main.go", target); err != nil {
			t.Fatal(err)
		}
		var sent []string
		if err := s.ExecLua(ctx, "return vim.g.nvbridge_test_sent", &sent); err != nil {
			t.Fatal(err)
		}
		type message struct {
			Method string `json:"method"`
			Params struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Position struct {
					Line      int `json:"line"`
					Character int `json:"character"`
				} `json:"position"`
			} `json:"params"`
		}
		var methods []string
		for _, msg := range sent {
			_, body, _ := strings.Cut(msg, "\r\n\r\n")
			var m message
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("log level %s: %v: %s", level, err, msg)
			}
			methods = append(methods, m.Method)
			p := m.Params
			if p.TextDocument.URI != uri || p.Position.Line != 26 || p.Position.Character != character {
				t.Errorf("log level %s: %s at %s %d:%d, want %s 26:%d", level, m.Method, p.TextDocument.URI, p.Position.Line, p.Position.Character, uri, character)
			}
			// Written as Go wrote it (the hover's definition too: the
			// same params), without debug logging; encoded by vim.json
			// with it.
			asGo := strings.Contains(body, `"params":{"textDocument":{"uri":"`+uri+`"},"position":{"line":26,"character":`)
			if asGo != (level == "WARN") {
				t.Errorf("log level %s: request %d (%s) was written %s", level, len(methods), m.Method, body)
			}
		}
		if strings.Join(methods, " ") != "textDocument/definition textDocument/hover textDocument/definition" {
			t.Errorf("log level %s: requests %v, want definition, then hover with definition", level, methods)
		}
	}
}
