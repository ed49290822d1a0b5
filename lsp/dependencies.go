package lsp

// analyze_dependencies: a file's imports and the workspace files importing
// it. Imports are read, in order of preference, with tree-sitter where
// Neovim has the language's parser and nvbridge a query (Neovim 0.10
// bundles c and lua), with the server's textDocument/documentLink (gopls
// links import paths), or with a small per-language scanner: Go's own
// parser (go/parser, imports only), and line scanners for Python
// (import / from ... import, parenthesised and continued lines) and
// TypeScript/JavaScript (import ... from, export ... from, import(),
// require()). Importers are found by scanning the workspace's files of the
// same language the same way and resolving their imports.

import (
	"context"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
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

// rawImport is an import found in a file, before resolution: 0-based line,
// byte column.
type rawImport struct {
	path   string
	line   int
	col    int
	system bool // C's <header.h>
	// names are Python's from-import names (candidate submodules).
	names []string
}

// depLanguage describes how one language's imports are read and resolved.
type depLanguage struct {
	name       string
	exts       []string
	treeSitter string // tree-sitter language, "" when none
}

var depLanguages = []depLanguage{
	{name: "go", exts: []string{".go"}},
	{name: "python", exts: []string{".py", ".pyi"}},
	{name: "typescript", exts: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}},
	{name: "lua", exts: []string{".lua"}, treeSitter: "lua"},
	{name: "c", exts: []string{".c", ".h"}, treeSitter: "c"},
}

func languageOf(file string) (depLanguage, bool) {
	ext := strings.ToLower(filepath.Ext(file))
	for _, l := range depLanguages {
		for _, e := range l.exts {
			if e == ext {
				return l, true
			}
		}
	}
	return depLanguage{}, false
}

// Dependencies answers analyze_dependencies for file.
func (c *Client) Dependencies(ctx context.Context, file string) (DependenciesResult, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return DependenciesResult{}, err
	}
	lang, ok := languageOf(doc.Path)
	if !ok {
		names := make([]string, 0, len(depLanguages))
		for _, l := range depLanguages {
			names = append(names, l.name)
		}
		return DependenciesResult{}, apierr.Errorf(apierr.Unsupported,
			"analyze_dependencies reads imports of "+strings.Join(names, ", ")+" files; find_references shows other uses",
			"no import reader for %s (filetype %q)", doc.Rel, doc.Buffer.Filetype)
	}
	out := DependenciesResult{File: doc.Rel, Language: lang.name, Imports: []Import{}, Importers: []Importer{}}
	d := &depScan{c: c, root: c.Session.Root().Dir(), lang: lang}
	if lang.treeSitter != "" {
		d.ts = c.treeSitterSupports(ctx, lang.treeSitter)
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
		imp := Import{Path: r.path, Line: r.line + 1, Column: r.col, External: true}
		if !r.system {
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
	switch lang.name {
	case "go":
		out.Notes = append(out.Notes, "Go importers import the package (the folder), not one file: every file of "+out.Package+" is imported by them")
	case "typescript":
		out.Notes = append(out.Notes, "bare specifiers (packages) and tsconfig path aliases are reported as external")
	case "c":
		out.Notes = append(out.Notes, "#include <...> headers are reported as external (system or -I paths are not known)")
	}
	if truncated {
		out.Notes = append(out.Notes, fmt.Sprintf("the workspace scan stopped after %d files: importers may be missing", maxScannedFiles))
	}
	return out, nil
}

// depScan reads and resolves imports of one language in the workspace.
type depScan struct {
	c    *Client
	root string
	lang depLanguage
	ts   bool // imports are read with tree-sitter
	// Go: the module holding the file.
	modPath, modDir string
}

func (c *Client) treeSitterSupports(ctx context.Context, lang string) bool {
	var ok bool
	if err := c.Session.Call(ctx, "nvbridge.structure", "supports", &ok, lang); err != nil {
		return false
	}
	return ok
}

// fileImports reads the imports of the document's current text.
func (d *depScan) fileImports(ctx context.Context, doc *Document) ([]rawImport, string, string, error) {
	if d.ts {
		var raw string
		if err := d.c.Session.Call(ctx, "nvbridge.structure", "imports", &raw, doc.Buffer.Bufnr, doc.Path, d.lang.treeSitter); err != nil {
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
	if d.lang.name == "go" {
		if server, err := doc.ServerFor(protocol.MethodTextDocumentDocumentLink); err == nil {
			found, err := d.c.goImportLinks(ctx, doc, server, lines)
			if err == nil {
				return found, SourceDocumentLink, "", nil
			}
			return scanImports("go", text), SourceScanner, "documentLink failed (" + apierr.As(err).Message + "); read with go/parser", nil
		}
	}
	return scanImports(d.lang.name, text), SourceScanner, "", nil
}

func decodeTSImports(raw string) ([]rawImport, error) {
	var failed struct {
		Err string `json:"err"`
	}
	if strings.HasPrefix(strings.TrimSpace(raw), "{\"err\"") && json.Unmarshal([]byte(raw), &failed) == nil && failed.Err != "" {
		return nil, fmt.Errorf("%s", failed.Err)
	}
	var list []struct {
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Col    int    `json:"col"`
		System bool   `json:"system"`
	}
	if err := decodeList(json.RawMessage(raw), &list); err != nil {
		return nil, err
	}
	out := make([]rawImport, len(list))
	for i, l := range list {
		out[i] = rawImport{path: l.Path, line: l.Line, col: l.Col, system: l.System}
	}
	return out, nil
}

// goImportLinks reads Go imports from gopls's document links: a link whose
// text is a quoted string naming the end of its pkg.go.dev target is an
// import path (links in comments are URLs and are skipped).
func (c *Client) goImportLinks(ctx context.Context, doc *Document, server Server, lines []string) ([]rawImport, error) {
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
	var out []rawImport
	for _, l := range links {
		n := int(l.Range.Start.Line)
		if n >= len(lines) || l.Range.End.Line != l.Range.Start.Line {
			continue
		}
		text := lines[n]
		a, _ := UnitsToByte(text, int(l.Range.Start.Character), server.OffsetEncoding)
		b, _ := UnitsToByte(text, int(l.Range.End.Character), server.OffsetEncoding)
		if a < 1 || b >= len(text) || b <= a {
			continue
		}
		quoted := (text[a-1] == '"' && text[b] == '"') || (text[a-1] == '`' && text[b] == '`')
		p := text[a:b]
		if !quoted || !strings.HasSuffix(strings.SplitN(l.Target, "#", 2)[0], "/"+p) {
			continue
		}
		out = append(out, rawImport{path: p, line: n, col: a})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
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
		imps[i].Column = ByteToChar(texts[abs][im.Line-1], im.Column)
	}
	return nil
}

// scanImports reads imports with the language's scanner.
func scanImports(lang, text string) []rawImport {
	switch lang {
	case "go":
		return scanGo(text)
	case "python":
		return scanPython(text)
	case "typescript":
		return scanTS(text)
	}
	return nil
}

// scanGo reads a Go file's imports with go/parser (imports only, so a file
// with errors further down still answers).
func scanGo(text string) []rawImport {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", text, parser.ImportsOnly)
	if f == nil && err != nil {
		return nil
	}
	var out []rawImport
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		pos := fset.Position(spec.Path.Pos())
		out = append(out, rawImport{path: p, line: pos.Line - 1, col: pos.Column}) // column after the quote
	}
	return out
}

var (
	pyImport = regexp.MustCompile(`^(\s*)import\s+(.+)$`)
	pyFrom   = regexp.MustCompile(`^(\s*)from\s+(\.*[\p{L}\p{N}_.]*)\s+import\s+(.+)$`)
	pyName   = regexp.MustCompile(`^\s*([\p{L}_][\p{L}\p{N}_]*(?:\s*\.\s*[\p{L}_][\p{L}\p{N}_]*)*)`)
)

// scanPython reads import statements: import a.b [as c], d; from .m import
// x, y; from m import (x,\n y); backslash continuations. Text inside
// triple-quoted strings and after # is ignored.
func scanPython(text string) []rawImport {
	lines := strings.Split(text, "\n")
	var out []rawImport
	inString := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if inString != "" {
			if strings.Contains(line, inString) {
				inString = ""
			}
			continue
		}
		code := stripPyComment(line)
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(code, q)%2 == 1 {
				inString = q
			}
		}
		if inString != "" && !strings.HasPrefix(strings.TrimSpace(code), "import") && !strings.HasPrefix(strings.TrimSpace(code), "from") {
			continue
		}
		// Join continuation lines: open parentheses or a trailing backslash.
		stmt, start := code, i
		for (strings.Count(stmt, "(") > strings.Count(stmt, ")") || strings.HasSuffix(strings.TrimSpace(stmt), "\\")) && i+1 < len(lines) {
			i++
			stmt = strings.TrimSuffix(strings.TrimSpace(stmt), "\\") + " " + stripPyComment(lines[i])
		}
		if m := pyFrom.FindStringSubmatchIndex(stmt); m != nil {
			mod := stmt[m[4]:m[5]]
			var names []string
			for _, n := range strings.Split(strings.Trim(strings.TrimSpace(stmt[m[6]:m[7]]), "()"), ",") {
				if f := strings.Fields(n); len(f) > 0 && f[0] != "*" {
					names = append(names, f[0])
				}
			}
			out = append(out, rawImport{path: mod, line: start, col: m[4], names: names})
			continue
		}
		if m := pyImport.FindStringSubmatchIndex(stmt); m != nil && start == i {
			at := m[4]
			for _, part := range strings.Split(stmt[m[4]:m[5]], ",") {
				if n := pyName.FindStringSubmatchIndex(part); n != nil {
					name := strings.Join(strings.Fields(part[n[2]:n[3]]), "")
					out = append(out, rawImport{path: name, line: start, col: at + n[2]})
				}
				at += len(part) + 1
			}
		}
	}
	return out
}

func stripPyComment(line string) string {
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '#':
			return line[:i]
		}
	}
	return line
}

var (
	tsBlockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	tsLineComment  = regexp.MustCompile(`(?m)^\s*//.*$`)
	tsImportRes    = []*regexp.Regexp{
		// import x from 'm'; import {a, b} from 'm'; import * as n from 'm'; import type ...
		regexp.MustCompile(`\bimport\s+(?:type\s+)?[\p{L}\p{N}_$*{}\s,]+?\s+from\s*['"]([^'"\n]+)['"]`),
		// import 'm' (side effects)
		regexp.MustCompile(`\bimport\s*['"]([^'"\n]+)['"]`),
		// export * from 'm'; export {a} from 'm'
		regexp.MustCompile(`\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+[\p{L}\p{N}_$]+)?|\{[^}]*\})\s*from\s*['"]([^'"\n]+)['"]`),
		// require('m'), import('m')
		regexp.MustCompile(`\b(?:require|import)\s*\(\s*['"]([^'"\n]+)['"]\s*\)`),
	}
)

// scanTS reads TypeScript/JavaScript imports: import ... from, side-effect
// imports, export ... from, require() and import(). Comments are blanked
// first (keeping offsets).
func scanTS(text string) []rawImport {
	blank := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, s)
	}
	code := tsBlockComment.ReplaceAllStringFunc(text, blank)
	code = tsLineComment.ReplaceAllStringFunc(code, blank)
	seen := map[int]bool{}
	var out []rawImport
	for _, re := range tsImportRes {
		for _, m := range re.FindAllStringSubmatchIndex(code, -1) {
			at := m[2]
			if seen[at] {
				continue
			}
			seen[at] = true
			line := strings.Count(code[:at], "\n")
			col := at - (strings.LastIndex(code[:at], "\n") + 1)
			out = append(out, rawImport{path: code[m[2]:m[3]], line: line, col: col})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].line != out[j].line {
			return out[i].line < out[j].line
		}
		return out[i].col < out[j].col
	})
	return out
}

// resolve returns the workspace files (or, for Go, the package folder) an
// import of from names, most specific first; none when it is external.
func (d *depScan) resolve(from string, r rawImport) []string {
	switch d.lang.name {
	case "go":
		return d.resolveGo(from, r.path)
	case "python":
		return d.resolvePython(from, r)
	case "typescript":
		return existing(tsCandidates(filepath.Dir(from), r.path))
	case "lua":
		var cands []string
		rel := filepath.FromSlash(strings.ReplaceAll(r.path, ".", "/"))
		for _, base := range d.luaBases(from) {
			cands = append(cands, filepath.Join(base, rel+".lua"), filepath.Join(base, rel, "init.lua"))
		}
		return existing(cands)
	case "c":
		p := filepath.FromSlash(r.path)
		return existing([]string{filepath.Join(filepath.Dir(from), p), filepath.Join(d.root, p), filepath.Join(d.root, "include", p)})
	}
	return nil
}

func existing(cands []string) []string {
	var out []string
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			out = append(out, filepath.Clean(c))
		}
	}
	return out
}

// goModule finds the module holding dir (go.mod upward, inside the root).
func (d *depScan) goModule(dir string) {
	if d.modDir != "" {
		return
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
					d.modPath, d.modDir = strings.Trim(f[1], `"`), dir
					return
				}
			}
		}
		parent := filepath.Dir(dir)
		if dir == d.root || parent == dir || !strings.HasPrefix(parent, d.root) {
			return
		}
		dir = parent
	}
}

func (d *depScan) resolveGo(from, imp string) []string {
	d.goModule(filepath.Dir(from))
	if d.modPath == "" || (imp != d.modPath && !strings.HasPrefix(imp, d.modPath+"/")) {
		return nil
	}
	dir := filepath.Join(d.modDir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(imp, d.modPath), "/")))
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return []string{dir}
	}
	return nil
}

// pythonBases are the folders absolute imports resolve from: the root and
// root/src.
func (d *depScan) pythonBases() []string {
	return []string{d.root, filepath.Join(d.root, "src")}
}

func (d *depScan) resolvePython(from string, r rawImport) []string {
	mod := r.path
	var bases []string
	if strings.HasPrefix(mod, ".") {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		base := filepath.Dir(from)
		for i := 1; i < dots; i++ {
			base = filepath.Dir(base)
		}
		bases = []string{base}
		mod = mod[dots:]
	} else {
		bases = d.pythonBases()
	}
	rel := filepath.FromSlash(strings.ReplaceAll(mod, ".", "/"))
	var cands []string
	for _, base := range bases {
		dir := filepath.Join(base, rel)
		// from pkg import sub: the submodules first (most specific).
		for _, n := range r.names {
			cands = append(cands, filepath.Join(dir, n+".py"), filepath.Join(dir, n, "__init__.py"))
		}
		if mod != "" {
			cands = append(cands, dir+".py", dir+".pyi", filepath.Join(dir, "__init__.py"))
		} else {
			cands = append(cands, filepath.Join(dir, "__init__.py"))
		}
	}
	return existing(cands)
}

// tsCandidates lists the files a relative specifier may name.
func tsCandidates(dir, spec string) []string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return nil
	}
	p := filepath.Join(dir, filepath.FromSlash(spec))
	exts := []string{".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}
	cands := []string{}
	// ESM TypeScript imports name the emitted file: ./x.js is ./x.ts.
	for js, ts := range map[string][]string{".js": {".ts", ".tsx"}, ".mjs": {".mts"}, ".cjs": {".cts"}, ".jsx": {".tsx"}} {
		if strings.HasSuffix(p, js) {
			for _, e := range ts {
				cands = append(cands, strings.TrimSuffix(p, js)+e)
			}
		}
	}
	cands = append(cands, p)
	for _, e := range exts {
		cands = append(cands, p+e)
	}
	for _, e := range exts {
		cands = append(cands, filepath.Join(p, "index"+e))
	}
	return cands
}

// luaBases are the folders require() resolves from: the root, root/lua and
// every "lua" folder above the file.
func (d *depScan) luaBases(from string) []string {
	bases := []string{d.root, filepath.Join(d.root, "lua")}
	for dir := filepath.Dir(from); strings.HasPrefix(dir, d.root) && dir != d.root; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "lua" {
			bases = append(bases, dir)
		}
	}
	return bases
}

// packageName is what importers of file import.
func (d *depScan) packageName(file string) string {
	rel := d.c.Session.Root().Rel(file)
	switch d.lang.name {
	case "go":
		d.goModule(filepath.Dir(file))
		if d.modPath == "" {
			return path.Dir(rel)
		}
		r, err := filepath.Rel(d.modDir, filepath.Dir(file))
		if err != nil || r == "." {
			return d.modPath
		}
		return d.modPath + "/" + filepath.ToSlash(r)
	case "python":
		return packageOf(rel)
	}
	return rel
}

// importers scans the workspace's files of the language for imports that
// resolve to target (for Go: to its folder, from another folder).
func (d *depScan) importers(ctx context.Context, target string) ([]Importer, int, bool, error) {
	files, truncated := d.workspaceFiles(target)
	want := target
	if d.lang.name == "go" {
		want = filepath.Dir(target)
	}
	byFile := map[string][]rawImport{}
	if d.ts {
		var raw string
		if err := d.c.Session.Call(ctx, "nvbridge.structure", "imports_of_files", &raw, files, d.lang.treeSitter); err != nil {
			return nil, 0, false, err
		}
		var decoded map[string][]struct {
			Path   string `json:"path"`
			Line   int    `json:"line"`
			Col    int    `json:"col"`
			System bool   `json:"system"`
		}
		if err := json.Unmarshal([]byte(raw), &decoded); err != nil && strings.TrimSpace(raw) != "[]" {
			return nil, 0, false, fmt.Errorf("decode imports: %w", err)
		}
		for p, list := range decoded {
			for _, l := range list {
				byFile[p] = append(byFile[p], rawImport{path: l.Path, line: l.Line, col: l.Col, system: l.System})
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
			byFile[f] = scanImports(d.lang.name, string(data))
		}
	}
	root := d.c.Session.Root()
	var out []Importer
	for f, imps := range byFile {
		if d.lang.name == "go" && filepath.Dir(f) == want {
			continue // the same package
		}
		for _, imp := range imps {
			if imp.system {
				continue
			}
			for _, res := range d.resolve(f, imp) {
				if res == want {
					line := lineOf(f, imp.line)
					out = append(out, Importer{File: root.Rel(f), Line: imp.line + 1, Column: ByteToChar(line, imp.col), Import: imp.path})
					break
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
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
	_ = filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			name := e.Name()
			if p != d.root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "__pycache__" ||
				(d.lang.name == "go" && name == "testdata")) {
				return filepath.SkipDir
			}
			return nil
		}
		if p == target {
			return nil
		}
		if l, ok := languageOf(p); ok && l.name == d.lang.name {
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
