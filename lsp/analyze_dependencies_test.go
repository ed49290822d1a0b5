package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func stImports(imps []lsp.Import) string {
	var out []string
	for _, i := range imps {
		s := fmt.Sprintf("%s@%d:%d", i.Path, i.Line, i.Column)
		if i.Resolved != "" {
			s += "=" + i.Resolved
		}
		if i.External {
			s += "(ext)"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func stImporters(imps []lsp.Importer) string {
	var out []string
	for _, i := range imps {
		out = append(out, fmt.Sprintf("%s:%d:%d %s", i.File, i.Line, i.Column, i.Import))
	}
	return strings.Join(out, "; ")
}

func TestDependenciesGopls(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("orders: imports by documentLink, importers of the package", func(t *testing.T) {
		res, err := client.Dependencies(ctx, "orders/orders.go")
		if err != nil {
			t.Fatal(err)
		}
		if res.ImportsSource != lsp.SourceDocumentLink || res.ImportersSource != lsp.SourceScanner || res.Language != "go" {
			t.Fatalf("sources %q %q language %q", res.ImportsSource, res.ImportersSource, res.Language)
		}
		if got := stImports(res.Imports); got != "errors@5:2(ext) strings@6:2(ext)" {
			t.Errorf("imports = %s", got)
		}
		if res.Package != "example.com/shop/orders" {
			t.Errorf("package = %q", res.Package)
		}
		if got := stImporters(res.Importers); got != "main.go:10:2 example.com/shop/orders; refactor/pricing.go:7:2 example.com/shop/orders" {
			t.Errorf("importers = %s", got)
		}
		if res.ScannedFiles < 30 || res.Truncated {
			t.Errorf("scanned %d truncated %v", res.ScannedFiles, res.Truncated)
		}
	})

	t.Run("main.go: workspace packages resolve to folders", func(t *testing.T) {
		res, err := client.Dependencies(ctx, "main.go")
		if err != nil {
			t.Fatal(err)
		}
		want := "fmt@5:2(ext) log@6:2(ext) example.com/shop/config@8:2=config example.com/shop/graph@9:2=graph " +
			"example.com/shop/orders@10:2=orders example.com/shop/payment@11:2=payment example.com/shop/refactor@12:2=refactor " +
			"example.com/shop/text@13:2=text example.com/shop/widgets@14:2=widgets"
		if got := stImports(res.Imports); got != want {
			t.Errorf("imports =\n%s\nwant\n%s", got, want)
		}
		if len(res.Importers) != 0 {
			t.Errorf("importers of package main = %s", stImporters(res.Importers))
		}
	})
}

func TestDependenciesScanners(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver", "typescript-language-server")
	t.Run("python", func(t *testing.T) {
		root := testenv.CopySample(t, "python")
		_, client := testenv.Embedded(t, root)
		ctx := testenv.Context(t)
		res, err := client.Dependencies(ctx, "shop/orders.py")
		if err != nil {
			t.Fatal(err)
		}
		if res.ImportsSource != lsp.SourceScanner || res.ImportersSource != lsp.SourceScanner || res.Package != "shop.orders" {
			t.Fatalf("sources %q %q package %q", res.ImportsSource, res.ImportersSource, res.Package)
		}
		if got := stImports(res.Imports); got != "__future__@3:5(ext) dataclasses@5:5(ext) typing@6:5(ext)" {
			t.Errorf("imports = %s", got)
		}
		want := "shop/__init__.py:3:5 shop.orders; shop/app.py:8:5 shop.orders; shop/extract.py:7:5 shop.orders; tests/test_orders.py:3:5 shop.orders"
		if got := stImporters(res.Importers); got != want {
			t.Errorf("importers =\n%s\nwant\n%s", got, want)
		}
		res, err = client.Dependencies(ctx, "shop/app.py")
		if err != nil {
			t.Fatal(err)
		}
		want = "shop@3:5=shop/text.py shop.config@4:5=shop/config.py shop.extract@5:5=shop/extract.py shop.graph@6:5=shop/graph.py " +
			"shop.methods@7:5=shop/methods/__init__.py shop.orders@8:5=shop/orders.py"
		if got := stImports(res.Imports); got != want {
			t.Errorf("app.py imports =\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("typescript", func(t *testing.T) {
		root := testenv.CopySample(t, "ts")
		_, client := testenv.Embedded(t, root)
		ctx := testenv.Context(t)
		res, err := client.Dependencies(ctx, "src/orders.ts")
		if err != nil {
			t.Fatal(err)
		}
		if res.ImportsSource != lsp.SourceScanner || len(res.Imports) != 0 {
			t.Fatalf("source %q imports %s", res.ImportsSource, stImports(res.Imports))
		}
		want := "src/extract.ts:2:27 ./orders; src/imports.ts:5:48 ./orders; src/main.ts:7:37 ./orders"
		if got := stImporters(res.Importers); got != want {
			t.Errorf("importers =\n%s\nwant\n%s", got, want)
		}
		res, err = client.Dependencies(ctx, "src/methods/card.ts")
		if err != nil {
			t.Fatal(err)
		}
		if got := stImports(res.Imports); got != "../payment@1:46=src/payment.ts" {
			t.Errorf("card.ts imports = %s", got)
		}
	})
}

func stWrite(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDependenciesTreeSitter(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	stWrite(t, root, "lua/app/init.lua", "local ünïcode = require('app.util')\nlocal other = require \"app.other\"\nlocal json = require('dkjson')\nlocal ok = pcall(require, 'app.nope')\n")
	stWrite(t, root, "lua/app/util.lua", "return {}\n")
	stWrite(t, root, "lua/app/other.lua", "local util = require(\"app.util\")\nreturn {}\n")
	stWrite(t, root, "src/main.c", "#include <stdio.h>\n#include \"util.h\"\nint main(void) { return 0; }\n")
	stWrite(t, root, "src/util.h", "int util(void);\n")
	stWrite(t, root, "src/util.c", "#include \"util.h\"\nint util(void) { return 1; }\n")
	stWrite(t, root, "notes.txt", "plain text\n")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("lua", func(t *testing.T) {
		res, err := client.Dependencies(ctx, "lua/app/init.lua")
		if err != nil {
			t.Fatal(err)
		}
		if res.ImportsSource != lsp.SourceTreeSitter || res.ImportersSource != lsp.SourceTreeSitter {
			t.Fatalf("sources %q %q", res.ImportsSource, res.ImportersSource)
		}
		// Columns in characters: "local ünïcode = require('" is 25 characters, 27 bytes.
		if got := stImports(res.Imports); got != "app.util@1:25=lua/app/util.lua app.other@2:23=lua/app/other.lua dkjson@3:22(ext)" {
			t.Errorf("imports = %s", got)
		}
		res, err = client.Dependencies(ctx, "lua/app/util.lua")
		if err != nil {
			t.Fatal(err)
		}
		if got := stImporters(res.Importers); got != "lua/app/init.lua:1:25 app.util; lua/app/other.lua:1:22 app.util" {
			t.Errorf("importers = %s", got)
		}
	})

	t.Run("c", func(t *testing.T) {
		res, err := client.Dependencies(ctx, "src/main.c")
		if err != nil {
			t.Fatal(err)
		}
		if res.ImportsSource != lsp.SourceTreeSitter {
			t.Fatalf("source %q", res.ImportsSource)
		}
		if got := stImports(res.Imports); got != "stdio.h@1:10(ext) util.h@2:10=src/util.h" {
			t.Errorf("imports = %s", got)
		}
		res, err = client.Dependencies(ctx, "src/util.h")
		if err != nil {
			t.Fatal(err)
		}
		if got := stImporters(res.Importers); got != "src/main.c:2:10 util.h; src/util.c:1:10 util.h" {
			t.Errorf("importers = %s", got)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.Dependencies(ctx, "notes.txt")
		stWantCode(t, err, apierr.Unsupported)
		_, err = client.Dependencies(ctx, "missing.lua")
		stWantCode(t, err, apierr.ResourceNotFound)
	})
}
