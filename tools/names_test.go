package tools_test

// Names instead of positions (issue 33) over MCP with real gopls, pyright
// and typescript-language-server: every position tool takes name; its
// answer equals the file+line form's plus resolved; an ambiguous name
// lists its candidates; a multibyte name lands on its exact column.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// nameCase is one language's sample, an extra file with a multibyte name,
// and the names to resolve.
type nameCase struct {
	sample, server string
	// wide is a file written into the copy: a type or class Café with a
	// method größe, called after multibyte text on the same line.
	wideFile, wide string
	// names: name -> the file+line+symbol form it must equal.
	names map[string]string
	// ambiguous is a name several declarations have, with the files:lines
	// its candidates must list.
	ambiguous  string
	candidates []string
	// wideName resolves to wideAt (file:line:column, column in characters).
	wideName, wideAt string
	// notFound qualifies a top-level function by a class it is not in.
	notFound string
	// searches are three workspace symbol searches, each finding its
	// first declaration in the file named.
	searches [3][2]string
}

var nameCases = []nameCase{
	{
		sample: "go", server: "gopls",
		wideFile: "text/wide.go",
		wide:     "package text\n\n// Café has a multibyte name.\ntype Café struct{}\n\n// Größe is a method with one.\nfunc (Café) Größe() int { return 1 }\n\nvar größte = len(\"héllo 世界 🎉\") + Café{}.Größe()\n",
		names: map[string]string{
			"orders.Process": `{"file":"orders/orders.go","line":33,"symbol":"Process"}`,
			"Total.Add":      `{"file":"orders/orders.go","line":45,"symbol":"Add"}`,
			"text.Normalize": `{"file":"text/normalize.go","line":7,"symbol":"Normalize"}`,
		},
		ambiguous: "Normalize", candidates: []string{"orders/orders.go:56", "text/normalize.go:7"},
		wideName: "Café.Größe", wideAt: "text/wide.go:7:12",
		notFound: "Total.Process",
		searches: [3][2]string{{"Process", "orders/orders.go"}, {"Card", "payment/card.go"}, {"LoadConfig", "config/config.go"}},
	},
	{
		sample: "python", server: "pyright",
		wideFile: "shop/wide.py",
		wide:     "class Café:\n    \"\"\"A multibyte name.\"\"\"\n\n    def größe(self) -> int:\n        return 1\n\n\ngrößte = len(\"héllo 世界 🎉\") + Café().größe()\n",
		names: map[string]string{
			"shop.orders.process":      `{"file":"shop/orders.py","line":37,"symbol":"process"}`,
			"PremiumCard.charge":       `{"file":"shop/methods/card.py","line":27,"symbol":"charge"}`,
			"shop.methods.Card.charge": `{"file":"shop/methods/card.py","line":11,"symbol":"charge"}`,
		},
		ambiguous: "charge", candidates: []string{"shop/methods/card.py:11", "shop/methods/card.py:27"},
		wideName: "shop.wide.Café.größe", wideAt: "shop/wide.py:4:8",
		notFound: "Card.process",
		searches: [3][2]string{{"process", "shop/orders.py"}, {"PremiumCard", "shop/methods/card.py"}, {"load_config", "shop/config.py"}},
	},
	{
		sample: "ts", server: "typescript-language-server",
		wideFile: "src/wide.ts",
		wide:     "export class Café {\n  größe(): number {\n    return 1;\n  }\n}\n\nexport const größte = \"héllo 世界 🎉\".length + new Café().größe();\n",
		names: map[string]string{
			"orders.process":     `{"file":"src/orders.ts","line":25,"symbol":"process"}`,
			"Card.charge":        `{"file":"src/methods/card.ts","line":9,"symbol":"charge"}`,
			"PremiumCard.charge": `{"file":"src/methods/card.ts","line":23,"symbol":"charge"}`,
		},
		ambiguous: "charge", candidates: []string{"src/methods/card.ts:9", "src/methods/card.ts:23"},
		wideName: "Café.größe", wideAt: "src/wide.ts:2:2",
		notFound: "Card.process",
		searches: [3][2]string{{"processBatch", "src/orders.ts"}, {"PremiumCard", "src/methods/card.ts"}, {"loadConfig", "src/config.ts"}},
	},
}

func TestNamesInsteadOfPositions(t *testing.T) {
	for _, tc := range nameCases {
		t.Run(tc.sample, func(t *testing.T) {
			testenv.Require(t, "nvim", tc.server)
			root := testenv.CopySample(t, tc.sample)
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(tc.wideFile)), []byte(tc.wide), 0o644); err != nil {
				t.Fatal(err)
			}
			s, lc := testenv.Embedded(t, root)
			env := tools.NewEnv(s, lc, t.Logf)
			t.Cleanup(env.Close)
			c := mcpClient(t, env)

			for name, form := range tc.names {
				t.Run("find_references "+name, func(t *testing.T) {
					byName := nameEventually(t, c, "find_references", `{"name":`+quote(name)+`}`)
					resolved, _ := byName["resolved"].(map[string]any)
					if resolved == nil || resolved["name"] != name || resolved["how"] == "" {
						t.Fatalf("resolved = %v", byName["resolved"])
					}
					delete(byName, "resolved")
					byLine := okContent(t, c, "find_references", form)
					if !reflect.DeepEqual(byName, byLine) {
						t.Fatalf("by name:\n%v\nby file and line:\n%v", byName, byLine)
					}
				})
			}

			t.Run("ambiguous lists the candidates", func(t *testing.T) {
				res := mcpCall(t, c, "get_hover_info", `{"name":`+quote(tc.ambiguous)+`}`)
				e := toolError(t, res)
				if e.Code != apierr.Ambiguous {
					t.Fatalf("%s: %s", e.Code, e.Message)
				}
				raw, _ := json.Marshal(e.Details)
				var d struct {
					Matches []struct {
						File string `json:"file"`
						Line int    `json:"line"`
						Kind string `json:"kind"`
					} `json:"matches"`
				}
				if err := json.Unmarshal(raw, &d); err != nil {
					t.Fatal(err)
				}
				got := map[string]bool{}
				for _, m := range d.Matches {
					if m.Kind == "" {
						t.Errorf("candidate %s:%d has no kind", m.File, m.Line)
					}
					got[m.File+":"+strconv.Itoa(m.Line)] = true
				}
				for _, want := range tc.candidates {
					if !got[want] {
						t.Errorf("candidates %s miss %s", raw, want)
					}
				}
				if !strings.Contains(e.Remediation, "file and line") {
					t.Errorf("remediation %q", e.Remediation)
				}
			})

			t.Run("file narrows an ambiguous name", func(t *testing.T) {
				// With file, the declarations in that file are the ones
				// meant; candidates all in one file stay AMBIGUOUS.
				file, _, _ := strings.Cut(tc.candidates[0], ":")
				oneFile := true
				for _, c := range tc.candidates {
					oneFile = oneFile && strings.HasPrefix(c, file+":")
				}
				args := `{"name":` + quote(tc.ambiguous) + `,"file":` + quote(file) + `}`
				if oneFile {
					if e := toolError(t, mcpCall(t, c, "get_hover_info", args)); e.Code != apierr.Ambiguous {
						t.Fatalf("%s: %s (want AMBIGUOUS: every candidate is in %s)", e.Code, e.Message, file)
					}
					return
				}
				got := nameEventually(t, c, "get_hover_info", args)
				r := got["resolved"].(map[string]any)["symbol"].(map[string]any)
				if at := r["file"].(string) + ":" + strconv.Itoa(int(r["line"].(float64))); at != tc.candidates[0] {
					t.Fatalf("%s with file %s resolved to %s, want %s", tc.ambiguous, file, at, tc.candidates[0])
				}
			})

			t.Run("multibyte name, exact column", func(t *testing.T) {
				got := nameEventually(t, c, "find_definition", `{"name":`+quote(tc.wideName)+`}`)
				r := got["resolved"].(map[string]any)["symbol"].(map[string]any)
				at := r["file"].(string) + ":" + strconv.Itoa(int(r["line"].(float64))) + ":" + strconv.Itoa(int(r["column"].(float64)))
				if at != tc.wideAt {
					t.Fatalf("%s resolved to %s, want %s", tc.wideName, at, tc.wideAt)
				}
				// The references include the call after the emoji, found
				// from the position the name gave.
				refs := nameEventually(t, c, "find_references", `{"name":`+quote(tc.wideName)+`}`)
				if n, _ := refs["total"].(float64); n < 2 {
					t.Fatalf("references of %s: %v", tc.wideName, refs)
				}
			})

			t.Run("understand_symbol by name and by query", func(t *testing.T) {
				for name := range tc.names {
					u := nameEventually(t, c, "understand_symbol", `{"query":`+quote(name)+`,"max_references":1}`)
					v := nameEventually(t, c, "understand_symbol", `{"name":`+quote(name)+`,"max_references":1}`)
					if !reflect.DeepEqual(u["symbol"], v["symbol"]) {
						t.Fatalf("%s: query gave %v, name %v", name, u["symbol"], v["symbol"])
					}
				}
			})

			t.Run("batch", func(t *testing.T) {
				var qs []string
				for _, q := range tc.searches {
					qs = append(qs, quote(q[0]))
				}
				var names []string
				for name := range tc.names {
					names = append(names, quote(name))
				}
				names = append(names, quote(tc.ambiguous), quote(tc.notFound))
				args := `{"searches":[` + strings.Join(qs, ",") + `],"names":[` + strings.Join(names, ",") + `],"ask":"references","max_references":3}`
				// Eventually: until every search finds its symbol (a
				// server still indexing finds fewer).
				var got map[string]any
				ctx := testenv.Context(t)
				for {
					got = okContent(t, c, "batch", args)
					missing := ""
					for i, q := range tc.searches {
						first := mustAt(t, got, "searches."+strconv.Itoa(i))
						if first.(map[string]any)["query"] != q[0] {
							t.Fatalf("search %d is %v, want %s", i, first, q[0])
						}
						found := false
						syms, _ := first.(map[string]any)["symbols"].([]any)
						for _, s := range syms {
							sm := s.(map[string]any)
							found = found || sm["name"] == q[0] && sm["file"] == q[1]
						}
						if !found {
							missing = q[0]
						}
					}
					if missing == "" {
						break
					}
					select {
					case <-ctx.Done():
						t.Fatalf("search %s never found its symbol: %v", missing, got)
					case <-time.After(200 * time.Millisecond):
					}
				}
				syms := mustAt(t, got, "symbols").([]any)
				if len(syms) != len(names) || got["failed"] != float64(2) {
					t.Fatalf("symbols %v failed %v", syms, got["failed"])
				}
				for i, s := range syms {
					sm := s.(map[string]any)
					want, _ := strconv.Unquote(names[i])
					if sm["name"] != want {
						t.Fatalf("entry %d is keyed %v, want %s", i, sm["name"], want)
					}
					switch want {
					case tc.ambiguous:
						if e, _ := sm["error"].(map[string]any); e == nil || e["code"] != string(apierr.Ambiguous) {
							t.Errorf("%s: %v", want, sm)
						}
					case tc.notFound:
						if e, _ := sm["error"].(map[string]any); e == nil || e["code"] != string(apierr.ResourceNotFound) {
							t.Errorf("%s: %v", want, sm)
						}
					default:
						// Each equals find_references' answer by name.
						one := okContent(t, c, "find_references", `{"name":`+names[i]+`,"max_results":3}`)
						delete(one, "resolved")
						if !reflect.DeepEqual(sm["references"], one) {
							t.Errorf("%s: batch %v\nalone %v", want, sm["references"], one)
						}
					}
				}
				many := make([]string, 11)
				for i := range many {
					many[i] = `"x"`
				}
				wantError(t, mcpCall(t, c, "batch", `{"searches":[`+strings.Join(many, ",")+`]}`), apierr.InvalidParameter, "at most")
			})

			t.Run("brief", func(t *testing.T) {
				var name string
				for n := range tc.names {
					if name == "" || n < name {
						name = n
					}
				}
				for _, tool := range []string{"find_references", "find_definition", "understand_symbol", "get_call_hierarchy"} {
					args := `{"name":` + quote(name) + `}`
					fullRes := callOK(t, c, tool, args)
					briefRes := callOK(t, c, tool, strings.TrimSuffix(args, "}")+`,"detail":"brief"}`)
					checkOutputSchema(t, tool, fullRes)
					checkOutputSchema(t, tool, briefRes)
					full, short := content(t, fullRes), content(t, briefRes)
					// brief is full without the text beyond the essentials,
					// and nothing else.
					omitted := map[string]bool{"context": true, "source": true, "declaration": true, "detail": true, "documentation": true, "contents": true,
						"end_line": true, "end_column": true}
					stripped := stripKeys(full, omitted).(map[string]any)
					if !reflect.DeepEqual(stripped, short) {
						t.Errorf("%s: brief\n%v\nfull without text\n%v", tool, short, stripped)
					}
					if hasKey(short, omitted) {
						t.Errorf("%s: brief keeps text: %v", tool, short)
					}
					fullBytes, briefBytes := resultBytes(t, fullRes), resultBytes(t, briefRes)
					if briefBytes >= fullBytes {
						t.Errorf("%s: brief %d bytes, full %d", tool, briefBytes, fullBytes)
					}
					t.Logf("%s %s: full %d bytes, brief %d", tool, name, fullBytes, briefBytes)
				}
				wantError(t, mcpCall(t, c, "find_references", `{"name":`+quote(name)+`,"detail":"short"}`), apierr.InvalidParameter, "detail")
			})

			t.Run("bad input", func(t *testing.T) {
				wantError(t, mcpCall(t, c, "find_references", `{"name":"orders.NoSuchThing"}`), apierr.ResourceNotFound, "no symbol named")
				wantError(t, mcpCall(t, c, "find_references", `{"name":`+quote(tc.notFound)+`}`), apierr.ResourceNotFound, "no symbol named")
				wantError(t, mcpCall(t, c, "find_references", `{"name":"x","line":3}`), apierr.InvalidParameter, "both given")
				wantError(t, mcpCall(t, c, "find_references", `{"name":"x","at":"cursor"}`), apierr.InvalidParameter, "both given")
				wantError(t, mcpCall(t, c, "find_references", `{}`), apierr.InvalidParameter, "or name")
			})
		})
	}
}

// nameEventually calls a tool until it succeeds: a server still indexing
// the workspace answers workspace/symbol with fewer symbols; the bound is
// the test's context.
func nameEventually(t *testing.T, c *client.Client, tool, args string) map[string]any {
	t.Helper()
	ctx := testenv.Context(t)
	delay := 50 * time.Millisecond
	for {
		res := mcpCall(t, c, tool, args)
		if !res.IsError {
			return content(t, res)
		}
		e := toolError(t, res)
		if e.Code != apierr.ResourceNotFound {
			t.Fatalf("%s %s: %s: %s", tool, args, e.Code, e.Message)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s %s: %s: %s", tool, args, e.Code, e.Message)
		case <-time.After(delay):
		}
		if delay < time.Second {
			delay *= 2
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// stripKeys is v (decoded JSON) without the keys named, at any depth.
func stripKeys(v any, names map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if !names[k] {
				out[k] = stripKeys(e, names)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripKeys(e, names)
		}
		return out
	}
	return v
}

// hasKey reports whether decoded JSON holds one of the keys named.
func hasKey(v any, names map[string]bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if names[k] || hasKey(e, names) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasKey(e, names) {
				return true
			}
		}
	}
	return false
}

// resultBytes is a result's size on the wire: its text and structured
// content.
func resultBytes(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}
