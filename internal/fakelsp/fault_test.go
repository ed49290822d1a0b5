package fakelsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

func TestMain(m *testing.M) {
	fakelsp.MaybeServe() // the fake server is this binary re-executed
	os.Exit(m.Run())
}

// callTool runs one tool's handler as the MCP server would and returns its
// structured content as JSON plus the error code ("" on success).
func callTool(ctx context.Context, t *testing.T, env *tools.Env, name, args string) (map[string]any, apierr.Code, string) {
	t.Helper()
	tool, ok := tools.Find(env, name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := tool.Handler(ctx, req)
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, body, err)
	}
	if !res.IsError {
		return out, "", ""
	}
	var e struct {
		Error apierr.Error `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" {
		t.Fatalf("%s: isError without a structured error: %s", name, body)
	}
	return out, e.Error.Code, e.Error.Message
}

// TestFaults drives a scripted fake server (serving the "text" filetype)
// beside real gopls in one embedded Neovim: a hung request times out and is
// cancelled at the server, error replies and a crash become structured
// errors promptly, and every fault leaves nvbridge serving.
func TestFaults(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.md"), []byte("hello world\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	// Server-made edits that must never be applied: overlapping ones (for
	// notes.txt) and ones past the end of the file (for notes.md).
	overlapping := fmt.Sprintf(`{"changes":{%q:[`+
		`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"newText":"bye"},`+
		`{"range":{"start":{"line":0,"character":3},"end":{"line":0,"character":8}},"newText":"x"}]}}`,
		string(uri.File(filepath.Join(real, "notes.txt"))))
	outOfRange := fmt.Sprintf(`{"changes":{%q:[`+
		`{"range":{"start":{"line":40,"character":0},"end":{"line":40,"character":5}},"newText":"bye"}]}}`,
		string(uri.File(filepath.Join(real, "notes.md"))))
	spec2, err := fakelsp.Spec("fakelsp-md", []string{"markdown"}, fakelsp.Script{Methods: map[string]string{
		protocol.MethodTextDocumentRename: fakelsp.RawPrefix + outOfRange,
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Hover is the probe reading the fake's log: it asks for the definition
	// too (where the symbol is declared, for the workspace policy), so the
	// request left hanging is workspace/symbol.
	spec, err := fakelsp.Spec("fakelsp", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		protocol.MethodTextDocumentRename:         fakelsp.RawPrefix + overlapping,
		protocol.MethodWorkspaceSymbol:            fakelsp.Hang,
		protocol.MethodTextDocumentDefinition:     fakelsp.OK,
		protocol.MethodTextDocumentHover:          fakelsp.Log,
		protocol.MethodTextDocumentImplementation: fakelsp.ErrorPrefix + "-32801",
		protocol.MethodTextDocumentDocumentSymbol: fakelsp.RawPrefix + `{"not":"symbols"}`,
		protocol.MethodTextDocumentReferences:     fakelsp.Crash,
		protocol.MethodTextDocumentSignatureHelp:  fakelsp.ErrorPrefix + "-32601",
		protocol.MethodTextDocumentCompletion:     fakelsp.ErrorPrefix + "-32800",
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, client := testenv.EmbeddedWith(t, root, nvim.Options{ExtraServers: []nvim.ServerSpec{spec, spec2}})
	env := tools.NewEnv(s, client, t.Logf)
	ctx := testenv.Context(t)

	gopls := func(t *testing.T) {
		t.Helper()
		out, code, msg := callTool(ctx, t, env, "find_definition", `{"file":"main.go","line":27,"symbol":"Process"}`)
		if code != "" {
			t.Fatalf("gopls after the fault: %s %s", code, msg)
		}
		locs, _ := out["locations"].([]any)
		if len(locs) != 1 || locs[0].(map[string]any)["file"] != "orders/orders.go" {
			t.Fatalf("gopls after the fault: %v", out)
		}
	}

	t.Run("fake attached", func(t *testing.T) {
		out, code, msg := callTool(ctx, t, env, "get_buffer_info", `{"file":"notes.txt","include_content":false}`)
		if code != "" {
			t.Fatal(code, msg)
		}
		servers, _ := out["language_servers"].([]any)
		if len(servers) != 1 || servers[0].(map[string]any)["name"] != "fakelsp" {
			t.Fatalf("servers of notes.txt = %v, want fakelsp", out["language_servers"])
		}
	})

	var hungID string
	t.Run("hung request times out and is cancelled", func(t *testing.T) {
		// The caller's deadline bounds the request (nothing is timed here:
		// the fake never answers, so only the deadline can end the call).
		// On a busy machine the deadline can end the call before its
		// request was sent (the open and the wait for the server took it
		// all): then again with a longer one.
		var log []byte
		var m []string
		for _, deadline := range []time.Duration{2 * time.Second, 10 * time.Second} {
			short, cancel := context.WithTimeout(ctx, deadline)
			_, code, msg := callTool(short, t, env, "get_symbols", `{"file":"notes.txt","query":"hello"}`)
			cancel()
			if code != apierr.Timeout {
				t.Fatalf("code = %q (%s), want TIMEOUT", code, msg)
			}
			// The fake logs every message it received; hover answers with
			// the log. Neovim writes $/cancelRequest before the hover
			// request on the same pipe, so the log already holds it.
			out, code, msg := callTool(ctx, t, env, "get_hover_info", `{"file":"notes.txt","line":2,"symbol":"second"}`)
			if code != "" {
				t.Fatalf("hover after the timeout: %s %s", code, msg)
			}
			log, _ = json.Marshal(out)
			if m = regexp.MustCompile(`workspace/symbol id=(\d+)`).FindStringSubmatch(string(log)); m != nil {
				break
			}
			t.Logf("the call timed out before its request reached the fake, after %v", deadline)
		}
		if m == nil {
			t.Fatalf("the fake never received the workspace/symbol request: %s", log)
		}
		hungID = m[1]
		if !strings.Contains(string(log), "$/cancelRequest id="+hungID) {
			t.Fatalf("the fake did not receive $/cancelRequest for request %s: %s", hungID, log)
		}
	})

	t.Run("gopls unaffected by the timeout", gopls)

	t.Run("error reply", func(t *testing.T) {
		_, code, msg := callTool(ctx, t, env, "find_implementations", `{"file":"notes.txt","line":1,"symbol":"world"}`)
		if code != apierr.OperationFailed || !strings.Contains(msg, "fakelsp") {
			t.Fatalf("got %s %q, want OPERATION_FAILED naming fakelsp", code, msg)
		}
	})

	t.Run("method not found reply", func(t *testing.T) {
		_, code, msg := callTool(ctx, t, env, "get_signature_help", `{"file":"notes.txt","line":1,"column":2}`)
		if code != apierr.Unsupported || !strings.Contains(msg, "fakelsp") || !strings.Contains(msg, "signatureHelp") {
			t.Fatalf("got %s %q, want UNSUPPORTED naming fakelsp and the method", code, msg)
		}
	})

	t.Run("request cancelled reply", func(t *testing.T) {
		_, code, msg := callTool(ctx, t, env, "get_completions", `{"file":"notes.txt","line":1,"column":2}`)
		// Neovim drops the callback of a RequestCancelled reply; the bridge
		// must notice the reply (the message names the server, not the
		// caller's deadline, which is far away).
		if code != apierr.Timeout || !strings.Contains(msg, "fakelsp cancelled") {
			t.Fatalf("got %s %q, want TIMEOUT saying fakelsp cancelled the request", code, msg)
		}
	})

	t.Run("malformed result", func(t *testing.T) {
		_, code, msg := callTool(ctx, t, env, "get_symbols", `{"file":"notes.txt"}`)
		if code != apierr.OperationFailed {
			t.Fatalf("got %s %q, want OPERATION_FAILED for an undecodable answer", code, msg)
		}
		t.Logf("malformed: %s %s", code, msg)
	})

	for _, c := range []struct{ name, file, want string }{
		{"overlapping edits from the server", "notes.txt", "overlap"},
		{"edits past the end from the server", "notes.md", "notes.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, preview := range []string{"true", "false"} {
				_, code, msg := callTool(ctx, t, env, "rename_symbol",
					`{"file":"`+c.file+`","line":1,"symbol":"hello","new_name":"bye","preview":`+preview+`}`)
				// A bad answer from the server, not from the caller.
				if code != apierr.OperationFailed || !strings.Contains(msg, c.want) {
					t.Fatalf("preview=%s: got %q %q, want OPERATION_FAILED mentioning %q", preview, code, msg, c.want)
				}
				t.Logf("preview=%s: %s %s", preview, code, msg)
			}
			out, code, msg := callTool(ctx, t, env, "get_buffer_info", `{"file":"`+c.file+`"}`)
			if code != "" || out["is_modified"] != false || out["content"] != "hello world\nsecond line\n" {
				t.Fatalf("%s after the refused edits: %v %s %s", c.file, out, code, msg)
			}
		})
	}

	t.Run("crash mid-request", func(t *testing.T) {
		// Restarts held (a delay no test reaches) to see the answer while
		// the fake is down; released in "restarted after the crash".
		if err := s.SetServerRestartDelay(ctx, 3600*1000); err != nil {
			t.Fatal(err)
		}
		// A hang would end in TIMEOUT at the test's deadline: the code
		// proves the crash was reported when it happened.
		_, code, msg := callTool(ctx, t, env, "find_references", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
		if code != apierr.OperationFailed || !strings.Contains(msg, "fakelsp") {
			t.Fatalf("got %s %q, want OPERATION_FAILED naming fakelsp", code, msg)
		}
		t.Logf("crash: %s %s", code, msg)
	})

	t.Run("after the crash", func(t *testing.T) {
		// Not "install a language server": the server is installed, it
		// crashed, and the answer says so and how.
		_, code, msg := callTool(ctx, t, env, "find_definition", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
		if code != apierr.PreconditionFailed || !strings.Contains(msg, "fakelsp") || !strings.Contains(msg, "exited with code 3") {
			t.Fatalf("got %s %q, want PRECONDITION_FAILED naming fakelsp and its exit code", code, msg)
		}
		t.Logf("after the crash: %s %s", code, msg)
	})

	t.Run("restarted after the crash", func(t *testing.T) {
		if err := s.SetServerRestartDelay(ctx, 0); err != nil {
			t.Fatal(err)
		}
		out, code, msg := callTool(ctx, t, env, "get_hover_info", `{"file":"notes.txt","line":2,"symbol":"second"}`)
		if code != "" {
			t.Fatalf("hover after the restart: %s %s", code, msg)
		}
		// A fresh fake: its log starts with the new initialize and holds
		// none of the old requests.
		log, _ := json.Marshal(out)
		if !strings.Contains(string(log), "initialize") || strings.Contains(string(log), "textDocument/references") {
			t.Fatalf("hover after the restart answered from %s", log)
		}
	})

	t.Run("gopls unaffected by the crash", gopls)
}
