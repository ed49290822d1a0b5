package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// TestErrorsOverMCP: the error paths of issue 2, each a structured tool
// error (code, message, remediation) over the protocol, on one Neovim with
// gopls. (A request that times out, a crash and bad replies are in
// internal/fakelsp, which scripts a fake server.)
func TestErrorsOverMCP(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	outside := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.go"), "package secret\n")
	write(filepath.Join(root, "notes.rb"), "puts 'hello'\n")
	write(filepath.Join(root, "notes.txt"), "hello\n")
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "escape.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, t.Logf))

	cases := []struct {
		name, tool, args string
		code             apierr.Code
		fragments        []string
	}{
		{"dotdot", "read_file", `{"file":"../outside.go"}`, apierr.InvalidParameter, []string{"outside the workspace root"}},
		{"dotdot inside a path", "find_definition", `{"file":"orders/../../x.go","line":1,"column":0}`, apierr.InvalidParameter, []string{"outside the workspace root"}},
		{"absolute outside", "get_buffer_info", `{"file":"/etc/passwd"}`, apierr.InvalidParameter, []string{"outside the workspace root"}},
		{"symlink to a file outside", "read_file", `{"file":"escape.go"}`, apierr.InvalidParameter, []string{"escape.go", "outside the workspace root"}},
		{"symlinked folder outside", "get_buffer_info", `{"file":"linkdir/secret.go"}`, apierr.InvalidParameter, []string{"outside the workspace root"}},
		{"symlinked folder, new file", "read_file", `{"file":"linkdir/new.go"}`, apierr.InvalidParameter, []string{"outside the workspace root"}},
		{"missing file", "read_file", `{"file":"nope.go"}`, apierr.ResourceNotFound, []string{"nope.go"}},
		{"empty path", "read_file", `{"file":""}`, apierr.InvalidParameter, nil},
		{"line past the end (read)", "read_file", `{"file":"main.go","start_line":1000}`, apierr.InvalidParameter, []string{"1000", "main.go"}},
		{"line past the end (position)", "find_definition", `{"file":"main.go","line":1000,"symbol":"Process"}`, apierr.InvalidParameter, []string{"line 1000", "main.go"}},
		{"line zero", "get_hover_info", `{"file":"main.go","line":0,"column":0}`, apierr.InvalidParameter, []string{"line 0"}},
		{"column past the end", "find_references", `{"file":"main.go","line":27,"column":500}`, apierr.InvalidParameter, []string{"500"}},
		{"symbol not on the line", "find_definition", `{"file":"main.go","line":27,"symbol":"Nowhere"}`, apierr.ResourceNotFound, []string{"Nowhere"}},
		{"no server for ruby", "find_definition", `{"file":"notes.rb","line":1,"symbol":"puts"}`, apierr.Unsupported, []string{"no language server", "notes.rb"}},
		{"no server for text", "get_hover_info", `{"file":"notes.txt","line":1,"symbol":"hello"}`, apierr.Unsupported, []string{"no language server", "notes.txt"}},
		{"overlapping edits", "edit_buffer", `{"file":"widgets/w01.go","edits":[{"line_start":3,"line_end":5,"new_text":"x"},{"line_start":4,"line_end":4,"new_text":"y"}]}`, apierr.InvalidParameter, []string{"overlap", "nothing was changed"}},
		{"edit past the end", "edit_buffer", `{"file":"widgets/w01.go","edits":[{"line_start":30,"line_end":31,"new_text":"x"}]}`, apierr.InvalidParameter, []string{"widgets/w01.go", "8 lines"}},
		{"edit outside the root", "edit_buffer", `{"file":"../x.go","edits":[{"line_start":1,"line_end":0,"new_text":"x"}]}`, apierr.InvalidParameter, []string{"outside the workspace root"}},
		{"unknown changeset", "apply_changeset", `{"changeset_id":"nope"}`, apierr.ResourceNotFound, []string{"nope"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, mcpCall(t, c, tc.tool, tc.args), tc.code, tc.fragments...)
		})
	}

	t.Run("still serving, nothing changed", func(t *testing.T) {
		res := mcpCall(t, c, "read_file", `{"file":"main.go","start_line":1,"end_line":1}`)
		if e := toolError(t, res); e != nil {
			t.Fatalf("%s: %s", e.Code, e.Message)
		}
		res = mcpCall(t, c, "get_buffer_info", `{"file":"widgets/w01.go","include_content":false}`)
		if e := toolError(t, res); e != nil || content(t, res)["is_modified"] != false {
			t.Fatalf("widgets/w01.go after refused edits: %v %v", e, res.StructuredContent)
		}
	})

	t.Run("server lacks the capability", func(t *testing.T) {
		// gopls serves no monikers: the capability check refuses before
		// anything is sent, naming the server.
		ctx := testenv.Context(t)
		doc, err := client.Open(ctx, "main.go")
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.RequestFor(ctx, doc, protocol.MethodMoniker, map[string]any{}, nil)
		if apierr.CodeOf(err) != apierr.Unsupported {
			t.Fatalf("moniker on gopls: %v, want UNSUPPORTED", err)
		}
		if e := apierr.As(err); !contains(e.Message, "gopls", protocol.MethodMoniker) || e.Remediation == "" {
			t.Fatalf("error does not name the server and method: %+v", e)
		}
	})
}

// TestUnsupportedCapabilityPyright: pyright has no textDocument/implementation;
// find_implementations says so, naming pyright, instead of answering nothing.
func TestUnsupportedCapabilityPyright(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, t.Logf))
	res := mcpCall(t, c, "find_implementations", `{"file":"shop/payment.py","line":12,"symbol":"PaymentMethod"}`)
	wantError(t, res, apierr.Unsupported, "pyright", "textDocument/implementation")
}

func contains(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
