package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// get_project_structure and read_file {include_imports} over MCP on a real
// Neovim with gopls.
func TestProjectStructureAndImportsGo(t *testing.T) {
	root := testenv.CopySample(t, "go")
	for p, content := range map[string]string{
		".gitignore":         "build/\n*.tmp\n",
		"build/out.bin":      "x",
		"orders/scratch.tmp": "x",
		".env":               "TOKEN=1",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, t.Logf))

	t.Run("structure", func(t *testing.T) {
		res := mcpCall(t, c, "get_project_structure", `{"max_depth":1,"show_hidden":true}`)
		if e := toolError(t, res); e != nil {
			t.Fatal(e)
		}
		got := content(t, res)
		var names []string
		children, _ := at(got, "root.children")
		for _, ch := range children.([]any) {
			names = append(names, ch.(map[string]any)["name"].(string))
		}
		listed := strings.Join(names, " ")
		for _, want := range []string{"orders", "payment", "main.go", "go.mod", ".gitignore"} {
			if !strings.Contains(" "+listed+" ", " "+want+" ") {
				t.Errorf("%s not listed: %s", want, listed)
			}
		}
		for _, never := range []string{"build", ".env"} {
			if strings.Contains(" "+listed+" ", " "+never+" ") {
				t.Errorf("%s listed (ignored or sensitive): %s", never, listed)
			}
		}
		if v, _ := at(got, "sensitive"); v != float64(1) {
			t.Errorf("sensitive = %v, want 1 (.env)", v)
		}
		if v, _ := at(got, "ignored"); v != float64(2) {
			t.Errorf("ignored = %v, want 2 (build/, orders/scratch.tmp)", v)
		}
		if text, _ := res.Content[0].(mcp.TextContent); !strings.Contains(text.Text, "orders/") {
			t.Errorf("summary lacks the tree: %v", res.Content)
		}
		wantError(t, mcpCall(t, c, "get_project_structure", `{"path":"../"}`), apierr.InvalidParameter, "outside")
		wantError(t, mcpCall(t, c, "get_project_structure", `{"path":"main.go"}`), apierr.InvalidParameter, "not a folder")
	})

	t.Run("include_imports", func(t *testing.T) {
		res := mcpCall(t, c, "read_file", `{"file":"main.go","start_line":1,"end_line":3,"include_imports":true,"max_imports":3}`)
		if e := toolError(t, res); e != nil {
			t.Fatal(e)
		}
		got := content(t, res)
		if v, _ := at(got, "imports.truncated"); v != true {
			t.Errorf("imports.truncated = %v, want true (main.go uses more than 3 imported symbols)", v)
		}
		want := []struct{ symbol, file, decl string }{
			{"config.LoadConfig", "config/config.go", "func LoadConfig("},
			{"log.Fatal", "", "func Fatal("},
			{"orders.Order", "orders/orders.go", "type Order struct"},
		}
		for i, w := range want {
			prefix := "imports.symbols." + string(rune('0'+i))
			if v, _ := at(got, prefix+".symbol"); v != w.symbol {
				t.Errorf("%s.symbol = %v, want %s", prefix, v, w.symbol)
				continue
			}
			file, _ := at(got, prefix+".definitions.0.file")
			decl, _ := at(got, prefix+".definitions.0.declaration")
			if w.file != "" && file != w.file {
				t.Errorf("%s defined in %v, want %s", w.symbol, file, w.file)
			}
			if w.file == "" {
				if outside, _ := at(got, prefix+".definitions.0.outside_workspace"); outside != true {
					t.Errorf("%s: definition not marked outside the workspace: %v", w.symbol, file)
				}
			}
			if s, _ := decl.(string); !strings.Contains(s, w.decl) {
				t.Errorf("%s declaration %q lacks %q", w.symbol, decl, w.decl)
			}
		}
		wantError(t, mcpCall(t, c, "read_file", `{"file":"main.go","max_imports":3}`), apierr.InvalidParameter, "include_imports")
		wantError(t, mcpCall(t, c, "read_file", `{"file":"main.go","include_imports":true,"max_imports":1000}`), apierr.InvalidParameter, "max_imports")
	})
}

// Python's from-imports and TypeScript's named imports resolve each name to
// its definition in the workspace.
func TestReadFileIncludeImportsPythonTS(t *testing.T) {
	for _, tc := range []struct {
		sample, file string
		want         map[string]string // symbol → file of its definition
	}{
		{"python", "shop/app.py", map[string]string{"load_config": "shop/config.py", "visit": "shop/graph.py", "process": "shop/orders.py"}},
		{"ts", "src/main.ts", map[string]string{"loadConfig": "src/config.ts", "visit": "src/graph.ts", "normalize": "src/text.ts"}},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			s, client := testenv.Embedded(t, testenv.CopySample(t, tc.sample))
			c := mcpClient(t, tools.NewEnv(s, client, t.Logf))
			res := mcpCall(t, c, "read_file", `{"file":"`+tc.file+`","end_line":2,"include_imports":true,"max_imports":50}`)
			if e := toolError(t, res); e != nil {
				t.Fatal(e)
			}
			syms, _ := at(content(t, res), "imports.symbols")
			found := map[string]string{}
			for _, raw := range syms.([]any) {
				sym := raw.(map[string]any)
				file, _ := at(sym, "definitions.0.file")
				f, _ := file.(string)
				found[sym["symbol"].(string)] = f
			}
			for symbol, file := range tc.want {
				if found[symbol] != file {
					t.Errorf("%s defined in %q, want %s (all: %v)", symbol, found[symbol], file, found)
				}
			}
		})
	}
}
