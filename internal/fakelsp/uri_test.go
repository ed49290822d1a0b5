package fakelsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

// TestNonFileURIs: a server answering with locations in documents that are
// not files (untitled:, jdt://, deno:) must neither end the process (it
// once panicked in understand_symbol's section goroutines) nor produce a Go
// stack trace as the answer (find_definition): every tool returning
// locations reports them by uri, without file.
func TestNonFileURIs(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	fileURI := "file://" + filepath.Join(real, "notes.txt")
	at := func(u string, line int) string {
		return `{"uri":"` + u + `","range":{"start":{"line":` + itoa(line) + `,"character":2},"end":{"line":` + itoa(line) + `,"character":7}}}`
	}
	spec, err := fakelsp.Spec("fakelsp", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		protocol.MethodTextDocumentDefinition:     fakelsp.RawPrefix + `[` + at("jdt://contents/java.base/java/lang/String.class", 40) + `]`,
		protocol.MethodTextDocumentReferences:     fakelsp.RawPrefix + `[` + at("untitled:Untitled-1", 0) + `,` + at(fileURI, 1) + `,` + at("deno:/https/deno.land/x/mod.ts", 3) + `]`,
		protocol.MethodTextDocumentImplementation: fakelsp.RawPrefix + `[{"targetUri":"deno:/https/deno.land/x/impl.ts","targetRange":{"start":{"line":1,"character":0},"end":{"line":1,"character":4}}}]`,
		protocol.MethodTextDocumentHover:          fakelsp.OK,
		protocol.MethodWorkspaceSymbol:            fakelsp.RawPrefix + `[{"name":"hello","kind":12,"location":` + at("untitled:Untitled-2", 5) + `}]`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, client := testenv.EmbeddedWith(t, root, nvim.Options{ExtraServers: []nvim.ServerSpec{spec}})
	env := tools.NewEnv(s, client, t.Logf)
	ctx := testenv.Context(t)

	noStack := func(t *testing.T, out map[string]any) {
		t.Helper()
		body, _ := json.Marshal(out)
		if strings.Contains(string(body), "goroutine ") || strings.Contains(string(body), ".go:") {
			t.Fatalf("a Go stack in the answer: %s", body)
		}
	}

	t.Run("find_definition", func(t *testing.T) {
		out, code, msg := callTool(ctx, t, env, "find_definition", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
		if code != "" {
			t.Fatalf("%s %s", code, msg)
		}
		noStack(t, out)
		locs, _ := out["locations"].([]any)
		if len(locs) != 1 {
			t.Fatalf("locations = %v", out["locations"])
		}
		l := locs[0].(map[string]any)
		if l["uri"] != "jdt://contents/java.base/java/lang/String.class" || l["file"] != nil || l["line"] != 41.0 || l["outside_workspace"] != true {
			t.Fatalf("location = %v, want the jdt:// uri at line 41 without file", l)
		}
	})

	t.Run("find_references", func(t *testing.T) {
		out, code, msg := callTool(ctx, t, env, "find_references", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
		if code != "" {
			t.Fatalf("%s %s", code, msg)
		}
		noStack(t, out)
		files, _ := out["files"].([]any)
		var got []string
		for _, f := range files {
			m := f.(map[string]any)
			got = append(got, str(m["file"])+"|"+str(m["uri"]))
		}
		want := []string{"|deno:/https/deno.land/x/mod.ts", "|untitled:Untitled-1", "notes.txt|"}
		if strings.Join(got, " ") != strings.Join(want, " ") || out["total"] != 3.0 {
			t.Fatalf("files = %v (total %v), want %v", got, out["total"], want)
		}
	})

	t.Run("find_implementations", func(t *testing.T) {
		out, code, msg := callTool(ctx, t, env, "find_implementations", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
		if code != "" {
			t.Fatalf("%s %s", code, msg)
		}
		locs, _ := out["locations"].([]any)
		if len(locs) != 1 || locs[0].(map[string]any)["uri"] != "deno:/https/deno.land/x/impl.ts" {
			t.Fatalf("locations = %v", out["locations"])
		}
	})

	t.Run("get_symbols workspace", func(t *testing.T) {
		out, code, msg := callTool(ctx, t, env, "get_symbols", `{"query":"hello","include_external":true}`)
		if code != "" {
			t.Fatalf("%s %s", code, msg)
		}
		body, _ := json.Marshal(out)
		if !strings.Contains(string(body), `"uri":"untitled:Untitled-2"`) {
			t.Fatalf("symbols = %s, want the untitled: one by uri", body)
		}
	})

	t.Run("understand_symbol", func(t *testing.T) {
		out, code, msg := callTool(ctx, t, env, "understand_symbol", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
		if code != "" {
			t.Fatalf("%s %s", code, msg)
		}
		noStack(t, out)
		def, _ := out["definition"].(map[string]any)
		if def == nil || def["uri"] != "jdt://contents/java.base/java/lang/String.class" {
			t.Fatalf("definition = %v", out["definition"])
		}
		refs, _ := out["references"].(map[string]any)
		if refs == nil || refs["total"] != 3.0 {
			t.Fatalf("references = %v", out["references"])
		}
	})

	t.Run("still serving", func(t *testing.T) {
		_, code, msg := callTool(ctx, t, env, "get_hover_info", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
		if code != "" {
			t.Fatalf("%s %s", code, msg)
		}
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func str(v any) string { s, _ := v.(string); return s }
