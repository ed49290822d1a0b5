package lsp

// analyze_dependencies: a file's imports and the workspace files importing
// it. Imports are read, in order of preference, with tree-sitter where
// Neovim has the language's parser and the registry (package lang) a query
// (Neovim 0.10 bundles c and lua), with gopls's textDocument/documentLink,
// or with the language's scanner (lang.ImportSyntax.Parse). Importers are
// found by scanning the workspace's files of the same language the same
// way and resolving their imports (lang.ImportSyntax.Resolve).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// Where imports were read from.
const (
	SourceTreeSitter   = "tree-sitter"
	SourceDocumentLink = "documentLink"
	SourceScanner      = "scanner"
)

// maxScannedFiles bounds the workspace files read looking for importers.
const maxScannedFiles = 5000

// Import is one import of the file.
type Import struct {
	// Path is the import as written: "example.com/shop/orders",
	// "./orders", "shop.orders", "app.util", "util.h".
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Resolved is the workspace file or folder (a Go package) it names.
	Resolved string `json:"resolved,omitempty"`
	// External: outside the workspace (standard library, a dependency, a
	// system header) or not found in it.
	External bool `json:"external"`
}

// Importer is a workspace file importing the file (or, in Go, its
// package).
type Importer struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Import is the import as written there.
	Import string `json:"import"`
}

// DependenciesResult answers analyze_dependencies.
type DependenciesResult struct {
	File     string `json:"file"`
	Language string `json:"language"`
	// Package is what importers import: a Go package's import path, a
	// Python module's dotted name, else the file itself.
	Package string   `json:"package,omitempty"`
	Imports []Import `json:"imports"`
	// ImportsSource and ImportersSource say how each list was read:
	// "tree-sitter", "documentLink" or "scanner".
	ImportsSource   string     `json:"imports_source"`
	Importers       []Importer `json:"importers"`
	ImportersSource string     `json:"importers_source"`
	// ScannedFiles counts the workspace files read for importers; Truncated
	// says the scan stopped at its bound.
	ScannedFiles int      `json:"scanned_files"`
	Truncated    bool     `json:"truncated"`
	Notes        []string `json:"notes,omitempty"`
}

// Dependencies answers analyze_dependencies for file.
func (c *Client) Dependencies(ctx context.Context, file string) (DependenciesResult, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return DependenciesResult{}, err
	}
	l := lang.ForFile(doc.Path)
	if l == nil || (l.Imports.Parse == nil && l.Imports.TreeSitter == "") {
		var names []string
		for _, o := range lang.All() {
			if o.Imports.Parse != nil || o.Imports.TreeSitter != "" {
				names = append(names, o.Name)
			}
		}
		return DependenciesResult{}, apierr.Errorf(apierr.Unsupported,
			"analyze_dependencies reads imports of "+strings.Join(names, ", ")+" files; find_references shows other uses",
			"no import reader for %s (filetype %q)", doc.Rel, doc.Buffer.Filetype)
	}
	out := DependenciesResult{File: doc.Rel, Language: l.Name, Imports: []Import{}, Importers: []Importer{}}
	d := &depScan{c: c, scope: lang.NewScope(c.Session.Root().Dir()), lang: l}
	if l.Imports.TreeSitter != "" {
		d.ts = c.treeSitterSupports(ctx, l.Imports)
	}

	raws, source, note, err := d.fileImports(ctx, doc)
	if err != nil {
		return DependenciesResult{}, err
	}
	out.ImportsSource = source
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	for _, r := range raws {
		imp := Import{Path: r.Path, Line: r.Line + 1, Column: r.Col, External: true}
		if !r.System {
			if res := d.resolve(doc.Path, r); len(res) > 0 {
				imp.Resolved, imp.External = c.Session.Root().Rel(res[0]), false
			}
		}
		out.Imports = append(out.Imports, imp)
	}
	// Columns in characters: the import lines' text converts them.
	if err := c.charColumns(ctx, doc.Path, out.Imports); err != nil {
		return DependenciesResult{}, err
	}

	out.Package = d.packageName(doc.Path)
	importers, scanned, truncated, err := d.importers(ctx, doc.Path)
	if err != nil {
		return DependenciesResult{}, err
	}
	out.Importers, out.ScannedFiles, out.Truncated = importers, scanned, truncated
	out.ImportersSource = SourceScanner
	if d.ts {
		out.ImportersSource = SourceTreeSitter
	}
	if l.Imports.Note != "" {
		out.Notes = append(out.Notes, strings.ReplaceAll(l.Imports.Note, "{package}", out.Package))
	}
	if truncated {
		out.Notes = append(out.Notes, fmt.Sprintf("the workspace scan stopped after %d files: importers may be missing", maxScannedFiles))
	}
	return out, nil
}

// depScan reads and resolves imports of one language in the workspace.
type depScan struct {
	c     *Client
	scope *lang.Scope
	lang  *lang.Language
	ts    bool // imports are read with tree-sitter
}

func (c *Client) treeSitterSupports(ctx context.Context, syn lang.ImportSyntax) bool {
	var ok bool
	if err := c.Session.TreeSitterSupports(ctx, &ok, syn.TreeSitter, syn.Query); err != nil {
		return false
	}
	return ok
}

// fileImports reads the imports of the document's current text.
func (d *depScan) fileImports(ctx context.Context, doc *Document) ([]lang.Import, string, string, error) {
	if d.ts {
		var raw string
		if err := d.c.Session.TreeSitterImports(ctx, &raw, doc.Buffer.Bufnr, doc.Path, d.lang.Imports.TreeSitter, d.lang.Imports.Query); err != nil {
			return nil, "", "", err
		}
		found, err := decodeTSImports(raw)
		if err == nil {
			return found, SourceTreeSitter, "", nil
		}
	}
	lines, err := d.c.Session.Lines(ctx, doc.Buffer.Bufnr, 0, -1)
	if err != nil {
		return nil, "", "", err
	}
	text := strings.Join(lines, "\n")
	// gopls links import paths: the server reads them best.
	if d.lang.Imports.Linked {
		if server, err := doc.ServerFor(protocol.MethodTextDocumentDocumentLink); err == nil {
			found, err := d.c.goImportLinks(ctx, doc, server, lines)
			if err == nil {
				return found, SourceDocumentLink, "", nil
			}
			return d.scan(text), SourceScanner, "documentLink failed (" + apierr.As(err).Message + "); read with go/parser", nil
		}
	}
	return d.scan(text), SourceScanner, "", nil
}

// tsImport is an import structure.lua read with tree-sitter (JSON,
// nvbridge.TSImport).
type tsImport struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Col    int    `json:"col"`
	System bool   `json:"system"`
}

func decodeTSImports(raw string) ([]lang.Import, error) {
	var failed struct {
		Err string `json:"err"`
	}
	if strings.HasPrefix(strings.TrimSpace(raw), "{\"err\"") && json.Unmarshal([]byte(raw), &failed) == nil && failed.Err != "" {
		return nil, fmt.Errorf("%s", failed.Err)
	}
	var list []tsImport
	if err := decodeList(json.RawMessage(raw), &list); err != nil {
		return nil, err
	}
	out := make([]lang.Import, len(list))
	for i, l := range list {
		out[i] = lang.Import{Path: l.Path, Line: l.Line, Col: l.Col, System: l.System}
	}
	return out, nil
}

// goImportLinks reads Go imports from gopls's document links: a link whose
// text is a quoted string naming the end of its pkg.go.dev target is an
// import path (links in comments are URLs and are skipped).
func (c *Client) goImportLinks(ctx context.Context, doc *Document, server Server, lines []string) ([]lang.Import, error) {
	var raw json.RawMessage
	params := protocol.DocumentLinkParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc.URI}}
	if err := c.Request(ctx, doc, server, protocol.MethodTextDocumentDocumentLink, params, &raw); err != nil {
		return nil, err
	}
	var links []struct {
		Range  protocol.Range `json:"range"`
		Target string         `json:"target"`
	}
	if err := decodeList(raw, &links); err != nil {
		return nil, fmt.Errorf("%s: decode document links: %w", server.Name, err)
	}
	var out []lang.Import
	for _, l := range links {
		n := int(l.Range.Start.Line)
		if n >= len(lines) || l.Range.End.Line != l.Range.Start.Line {
			continue
		}
		text := lines[n]
		a, _ := preview.UnitsToByte(text, int(l.Range.Start.Character), server.OffsetEncoding)
		b, _ := preview.UnitsToByte(text, int(l.Range.End.Character), server.OffsetEncoding)
		if a < 1 || b >= len(text) || b <= a {
			continue
		}
		quoted := (text[a-1] == '"' && text[b] == '"') || (text[a-1] == '`' && text[b] == '`')
		p := text[a:b]
		if !quoted || !strings.HasSuffix(strings.SplitN(l.Target, "#", 2)[0], "/"+p) {
			continue
		}
		out = append(out, lang.Import{Path: p, Line: n, Col: a})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out, nil
}

// charColumns converts the imports' byte columns (as read) to characters.
func (c *Client) charColumns(ctx context.Context, abs string, imps []Import) error {
	wanted := map[string][]int{}
	for _, im := range imps {
		wanted[abs] = append(wanted[abs], im.Line-1)
	}
	texts, err := c.Lines(ctx, wanted)
	if err != nil {
		return err
	}
	for i, im := range imps {
		imps[i].Column = preview.ByteToChar(texts[abs][im.Line-1], im.Column)
	}
	return nil
}

// scan reads imports with the language's scanner (none when it has no
// scanner).
func (d *depScan) scan(text string) []lang.Import {
	if d.lang.Imports.Parse == nil {
		return nil
	}
	return d.lang.Imports.Parse(text)
}

// resolve returns the workspace files (or, for Go, the package folder) an
// import of from names, most specific first; none when it is external.
func (d *depScan) resolve(from string, r lang.Import) []string {
	if d.lang.Imports.Resolve == nil {
		return nil
	}
	return d.lang.Imports.Resolve(d.scope, from, r)
}

// packageName is what importers of file import.
func (d *depScan) packageName(file string) string {
	if d.lang.Imports.ImportName != nil {
		return d.lang.Imports.ImportName(d.scope, file)
	}
	return d.c.Session.Root().Rel(file)
}

// importers scans the workspace's files of the language for imports that
// resolve to target (for Go: to its folder, from another folder).
func (d *depScan) importers(ctx context.Context, target string) ([]Importer, int, bool, error) {
	files, truncated := d.workspaceFiles(target)
	want := target
	if d.lang.Imports.Folder {
		want = filepath.Dir(target)
	}
	byFile := map[string][]lang.Import{}
	if d.ts {
		var raw string
		if err := d.c.Session.TreeSitterImportsOfFiles(ctx, &raw, files, d.lang.Imports.TreeSitter, d.lang.Imports.Query); err != nil {
			return nil, 0, false, err
		}
		var decoded map[string][]tsImport
		if err := json.Unmarshal([]byte(raw), &decoded); err != nil && strings.TrimSpace(raw) != "[]" {
			return nil, 0, false, fmt.Errorf("decode imports: %w", err)
		}
		for p, list := range decoded {
			for _, l := range list {
				byFile[p] = append(byFile[p], lang.Import{Path: l.Path, Line: l.Line, Col: l.Col, System: l.System})
			}
		}
	} else {
		for _, f := range files {
			if ctx.Err() != nil {
				return nil, 0, false, ctx.Err()
			}
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			byFile[f] = d.scan(string(data))
		}
	}
	root := d.c.Session.Root()
	var out []Importer
	for f, imps := range byFile {
		if d.lang.Imports.Folder && filepath.Dir(f) == want {
			continue // the same package
		}
		for _, imp := range imps {
			if imp.System {
				continue
			}
			for _, res := range d.resolve(f, imp) {
				if res == want {
					line := lineOf(f, imp.Line)
					out = append(out, Importer{File: root.Rel(f), Line: imp.Line + 1, Column: preview.ByteToChar(line, imp.Col), Import: imp.Path})
					break
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Importer) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	if out == nil {
		out = []Importer{}
	}
	return out, len(files), truncated, nil
}

// lineOf reads one line of a file (for column conversion).
func lineOf(file string, n int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n < 0 || n >= len(lines) {
		return ""
	}
	return lines[n]
}

// workspaceFiles lists the workspace's files of the language (target
// excluded), skipping hidden, vendored and generated folders (and Go's
// testdata), up to maxScannedFiles.
func (d *depScan) workspaceFiles(target string) ([]string, bool) {
	var out []string
	truncated := false
	_ = filepath.WalkDir(d.scope.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			if p != d.scope.Root && d.lang.SkipDir(e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if p == target {
			return nil
		}
		if lang.ForFile(p) == d.lang {
			if len(out) >= maxScannedFiles {
				truncated = true
				return filepath.SkipAll
			}
			out = append(out, p)
		}
		return nil
	})
	return out, truncated
}
