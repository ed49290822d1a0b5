package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// secretMark is in every text of the denied files below (values, doc
// comments, parameter names, default values, names of what they call):
// no MCP result about their symbols may contain it.
const secretMark = "s3cr3t"

// writeFiles writes files (path relative to root: content).
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// withheldCall calls a tool whose answer is about a symbol declared in a
// denied file: it must succeed, match its output schema, say sensitive
// with where the symbol is declared and the deny pattern (at path in the
// structured content: "" for the top level), and hold the secret nowhere,
// neither in the structured content nor in the text.
func withheldCall(t *testing.T, c *client.Client, name, args, path, file, pattern string) map[string]any {
	t.Helper()
	res := callOK(t, c, name, args)
	checkOutputSchema(t, name, res)
	whole, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(whole)), secretMark) {
		t.Errorf("%s %s: the result holds the denied file's text: %s", name, args, whole)
	}
	got := content(t, res)
	section := any(got)
	if path != "" {
		section, _ = at(got, path)
	}
	m, _ := section.(map[string]any)
	withheld, _ := m["withheld"].(string)
	if m["sensitive"] != true || !strings.Contains(withheld, file) || !strings.Contains(withheld, pattern) {
		t.Errorf("%s %s: %q does not say sensitive, naming %s and %s: %s", name, args, path, file, pattern, whole)
	}
	return got
}

// shownCall calls a tool about a symbol declared in an allowed file: its
// text must be there (found at path, containing want), nothing withheld.
func shownCall(t *testing.T, c *client.Client, name, args, path, want string) {
	t.Helper()
	res := callOK(t, c, name, args)
	got := content(t, res)
	v, _ := at(got, path)
	if s, _ := v.(string); !strings.Contains(s, want) {
		t.Errorf("%s %s: %s = %q, want it to contain %q", name, args, path, v, want)
	}
	if got["sensitive"] != nil || got["withheld"] != nil {
		t.Errorf("%s %s: withheld for an allowed symbol: %v", name, args, got)
	}
}

// TestSensitiveDeclarationsGo: with secret/** denied, what gopls says
// about symbols declared there (a constant's value and doc, a function's
// signature and doc, a package's doc, what a function calls) is withheld
// from hover, understand_symbol, signature help and completion, said so
// with where and why; the same tools still show the text of symbols
// declared in allowed files.
func TestSensitiveDeclarationsGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	writeFiles(t, root, map[string]string{
		".nvbridge.json": `{"deny": ["secret/**"]}`,
		"secret/secret.go": `// Package secret holds pkgdoc-s3cr3t.
package secret

// Token is tokdoc-s3cr3t.
const Token = "value-s3cr3t" // trailing-s3cr3t

// Sign signs with signdoc-s3cr3t.
func Sign(msg string, keyS3cr3t string) string { return mixS3cr3t(msg, keyS3cr3t) + Token }

func mixS3cr3t(a, b string) string { return a + b }
`,
		"leak.go": `package main

import "example.com/shop/secret"

func leak() string {
	v := secret.Token
	return secret.Sign(v, "k")
}

func leakLines() string {
	return secret.Sign(
		"a",
		"b")
}
`,
	})
	s, lspClient := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, lspClient, t.Logf))
	const file, pattern = "secret/secret.go", "secret/**"

	t.Run("hover", func(t *testing.T) {
		got := withheldCall(t, c, "get_hover_info", `{"file":"leak.go","line":6,"symbol":"Token"}`, "", file, pattern)
		if got["found"] != true || got["contents"] != "" {
			t.Errorf("found %v, contents %q: want found with the contents left out", got["found"], got["contents"])
		}
		// The package name's definition is its import: followed to the
		// package's files, where its doc is.
		withheldCall(t, c, "get_hover_info", `{"file":"leak.go","line":6,"symbol":"secret"}`, "", file, pattern)
		shownCall(t, c, "get_hover_info", `{"file":"main.go","line":27,"symbol":"Process"}`, "contents", "Process validates o and computes its total.")
		// Declared in the file asked about (followed once, to itself).
		shownCall(t, c, "get_hover_info", `{"file":"orders/orders.go","line":39,"symbol":"Add"}`, "contents", "Add accumulates one line into the total.")
	})

	t.Run("understand_symbol", func(t *testing.T) {
		got := withheldCall(t, c, "understand_symbol", `{"file":"leak.go","line":6,"symbol":"Token"}`, "", file, pattern)
		for _, section := range []string{"definition", "hover"} {
			if w, _ := at(got, section+".withheld"); w == nil {
				t.Errorf("the %s section does not say what it withholds: %v", section, got[section])
			}
		}
		if refs, _ := at(got, "references.total"); refs != float64(2) {
			t.Errorf("references.total = %v, want 2 (the use and Sign's): where stays shown", refs)
		}
		// A function: its callees are what its body says.
		got = withheldCall(t, c, "understand_symbol", `{"file":"leak.go","line":7,"symbol":"Sign"}`, "", file, pattern)
		if w, _ := at(got, "calls.withheld"); w == nil {
			t.Errorf("the calls section does not withhold Sign's callees: %v", got["calls"])
		}
		shownCall(t, c, "understand_symbol", `{"file":"main.go","line":27,"symbol":"Process"}`, "hover.contents", "Process validates o and computes its total.")
	})

	t.Run("signature help", func(t *testing.T) {
		got := withheldCall(t, c, "get_signature_help", `{"file":"leak.go","line":7,"column":20}`, "", file, pattern)
		if sigs, _ := got["signatures"].([]any); got["found"] != true || len(sigs) != 0 {
			t.Errorf("found %v, signatures %v: want found with the signatures left out", got["found"], got["signatures"])
		}
		// The call opens two lines above the position.
		withheldCall(t, c, "get_signature_help", `{"file":"leak.go","line":13,"column":3}`, "", file, pattern)
		shownCall(t, c, "get_signature_help", `{"file":"main.go","line":27,"column":30}`, "signatures.0.documentation", "Process validates o")
	})

	t.Run("completion", func(t *testing.T) {
		got := withheldCall(t, c, "get_completions", `{"file":"leak.go","line":6,"symbol":"Token"}`, "", file, pattern)
		if item, _ := at(got, "items.0"); item == nil {
			t.Fatalf("no completion items: %v", got)
		}
		withheldCall(t, c, "get_completions", `{"file":"leak.go","line":6,"symbol":"Token"}`, "items.0", file, pattern)
		if label, _ := at(got, "items.0.label"); label != "Token" {
			t.Errorf("the item is kept, its text left out: label %v, want Token", label)
		}
		shownCall(t, c, "get_completions", `{"file":"main.go","line":27,"symbol":"Process"}`, "items.0.documentation", "Process validates o")
	})
}

// TestSensitiveDeclarationsPython: the same with pyright: a module's
// constant and its docstring, a function's default value and docstring,
// the module's own docstring.
func TestSensitiveDeclarationsPython(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	writeFiles(t, root, map[string]string{
		".nvbridge.json": `{"deny": ["shop/secret/**"]}`,
		"shop/secret/__init__.py": `"""Module moddoc-s3cr3t."""

TOKEN = "value-s3cr3t"
"""tokdoc-s3cr3t"""


def sign(msg: str, key: str = "default-s3cr3t") -> str:
    """Sign with signdoc-s3cr3t."""
    return msg + key + TOKEN
`,
		"shop/leak.py": `from shop import secret
from shop.secret import TOKEN, sign


def leak() -> str:
    v = TOKEN
    return sign(v, secret.TOKEN)
`,
	})
	s, lspClient := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, lspClient, t.Logf))
	const file, pattern = "shop/secret/__init__.py", "shop/secret/**"

	withheldCall(t, c, "get_hover_info", `{"file":"shop/leak.py","line":6,"symbol":"TOKEN"}`, "", file, pattern)
	withheldCall(t, c, "get_hover_info", `{"file":"shop/leak.py","line":7,"symbol":"secret"}`, "", file, pattern)
	withheldCall(t, c, "get_signature_help", `{"file":"shop/leak.py","line":7,"column":16}`, "", file, pattern)
	withheldCall(t, c, "understand_symbol", `{"file":"shop/leak.py","line":7,"symbol":"sign"}`, "", file, pattern)
	shownCall(t, c, "get_hover_info", `{"file":"shop/app.py","line":14,"symbol":"process"}`, "contents", "Validate order and compute its total.")
	shownCall(t, c, "get_signature_help", `{"file":"shop/app.py","line":14,"column":20}`, "signatures.0.documentation", "Validate order")
}
