package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// symbolKinds names LSP SymbolKind values (1-based) as words.
var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enum_member", "struct", "event", "operator", "type_parameter"}

// SymbolKindName returns the word for an LSP SymbolKind ("function",
// "struct"...), or "unknown".
func SymbolKindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "unknown"
}

// SymbolKindNames lists every kind word, for validation messages.
func SymbolKindNames() []string { return append([]string(nil), symbolKinds[1:]...) }

// DefaultMaxSymbols bounds a workspace symbol answer when the caller gives
// no bound.
const DefaultMaxSymbols = 100

// Symbol is one declaration, flattened from the server's tree or list.
type Symbol struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty" brief:"omit"`
	File   string `json:"file,omitempty"`
	// URI is set instead of File for a non-file document (untitled:, jdt://).
	URI string `json:"uri,omitempty"`
	// Line and Column point at the symbol's name (usable as another tool's
	// position); EndLine and EndColumn end its whole declaration when the
	// server says where that ends, else its name.
	Line      int `json:"line"`
	Column    int `json:"column"`
	EndLine   int `json:"end_line"`
	EndColumn int `json:"end_column"`
	// Container is the path of enclosing symbols ("Card" for Card.charge,
	// "Outer.Inner" deeper), or the server's container name.
	Container        string `json:"container,omitempty"`
	OutsideWorkspace bool   `json:"outside_workspace,omitempty"`
}

// SymbolsQuery says which symbols get_symbols wants.
type SymbolsQuery struct {
	// File lists the document's symbols when Query is empty; with Query it
	// picks the language server that searches the workspace.
	File string
	// Query searches the workspace (workspace/symbol).
	Query string
	// Kinds keeps only these kinds (words as SymbolKindName gives them).
	Kinds []string
	// MaxResults bounds the answer (0: all of a document's symbols, or
	// DefaultMaxSymbols for a workspace search).
	MaxResults int
	// IncludeExternal keeps workspace search results outside the workspace
	// (the standard library, dependencies), listed after the workspace's.
	IncludeExternal bool
}

// SymbolsResult answers get_symbols.
type SymbolsResult struct {
	// Scope is "document" or "workspace".
	Scope   string   `json:"scope"`
	File    string   `json:"file,omitempty"`
	Query   string   `json:"query,omitempty"`
	Servers []string `json:"servers"`
	// Opened lists files opened to start a language server for a workspace
	// search (none was attached to an open buffer).
	Opened []string `json:"opened,omitempty"`
	// ExternalOmitted counts workspace search results outside the workspace
	// left out (IncludeExternal was false).
	ExternalOmitted int `json:"external_omitted,omitempty"`
	// SensitiveOmitted counts workspace search results in files the
	// workspace policy protects (.env, keys, .git/...), left out.
	SensitiveOmitted int `json:"sensitive_omitted,omitempty"`
	// NotReady lists servers that had not finished analysing their open
	// file within the wait bound: their answer may miss symbols.
	NotReady []string `json:"not_ready,omitempty"`
	// Total is how many symbols matched (after the filters); Symbols may
	// hold fewer when Truncated.
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
	Symbols   []Symbol `json:"symbols"`
}

// Symbols lists a document's symbols or searches the workspace's.
//
// Workspace searches go to every language server attached to an open buffer
// that supports workspace/symbol (each searches its own project), results
// inside the workspace first, each server's ranking kept. When file is
// given, its servers are used instead. When no open buffer has such a
// server, nvbridge opens one source file per language whose root marker
// (go.work/go.mod; pyproject.toml, setup.py, setup.cfg, requirements.txt,
// pyrightconfig.json; tsconfig.json, jsconfig.json, package.json) sits in
// the workspace root, the shallowest such file (then by path), which starts
// that language's server; Opened lists them. Before asking a server, it
// waits for the server's first analysis of the buffer it is asked through
// (awaitAnalysis): servers answer an empty list while still loading.
// pyright (diagnosticMode openFilesOnly) searches only the files it has
// parsed: open files and the modules they import.
func (c *Client) Symbols(ctx context.Context, q SymbolsQuery) (SymbolsResult, error) {
	kinds, err := kindFilter(q.Kinds)
	if err != nil {
		return SymbolsResult{}, err
	}
	// 0 stays 0 (all of a document's symbols) until a query defaults it.
	if err := checkLimit(&q.MaxResults, "max_results", 0); err != nil {
		return SymbolsResult{}, err
	}
	q.Query = strings.TrimSpace(q.Query)
	var out SymbolsResult
	var flat []FlatSymbol
	switch {
	case q.Query != "":
		if q.MaxResults == 0 {
			q.MaxResults = DefaultMaxSymbols
		}
		out, flat, err = c.workspaceSymbols(ctx, q)
	case q.File != "":
		out, flat, err = c.documentSymbols(ctx, q.File)
	default:
		return SymbolsResult{}, apierr.New(apierr.InvalidParameter, "neither file nor query was given",
			"pass file to list a file's symbols, or query to search the workspace by name")
	}
	if err != nil {
		return SymbolsResult{}, err
	}
	root := c.Session.Root()
	keep := flat[:0]
	for _, s := range flat {
		if kinds != nil && !kinds[SymbolKindName(s.Kind)] {
			continue
		}
		if out.Scope == "workspace" && !q.IncludeExternal && !root.Contains(PathOf(s.URI)) {
			out.ExternalOmitted++
			continue
		}
		if out.Scope == "workspace" && root.Sensitive(PathOf(s.URI)) {
			out.SensitiveOmitted++
			continue
		}
		keep = append(keep, s)
	}
	if out.Scope == "workspace" {
		sort.SliceStable(keep, func(a, b int) bool {
			return root.Contains(PathOf(keep[a].URI)) && !root.Contains(PathOf(keep[b].URI))
		})
	}
	out.Total = len(keep)
	if q.MaxResults > 0 && len(keep) > q.MaxResults {
		keep = keep[:q.MaxResults]
		out.Truncated = true
	}
	if out.Symbols, err = c.toolSymbols(ctx, keep); err != nil {
		return SymbolsResult{}, err
	}
	return out, nil
}

func kindFilter(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	valid := map[string]bool{}
	for _, k := range SymbolKindNames() {
		valid[k] = true
	}
	out := map[string]bool{}
	for _, n := range names {
		k := strings.ToLower(strings.TrimSpace(n))
		if !valid[k] {
			return nil, apierr.Errorf(apierr.InvalidParameter, "kinds are words among: "+strings.Join(SymbolKindNames(), ", "),
				"unknown symbol kind %q", n)
		}
		out[k] = true
	}
	return out, nil
}

// DeclaredSymbols returns the symbols the server declares in file (its
// textDocument/documentSymbol answer), flattened: a nested symbol names its
// container. Positions are the server's (LSP, in its encoding).
func (c *Client) DeclaredSymbols(ctx context.Context, file string) ([]FlatSymbol, error) {
	_, flat, err := c.documentSymbols(ctx, file)
	return flat, err
}

func (c *Client) documentSymbols(ctx context.Context, file string) (SymbolsResult, []FlatSymbol, error) {
	doc, _, err := c.openAt(ctx, file, -1, navigationMethods)
	if err != nil {
		return SymbolsResult{}, nil, err
	}
	return c.documentSymbolsOf(ctx, doc)
}

// documentSymbolsOf is documentSymbols of a document this call has opened.
func (c *Client) documentSymbolsOf(ctx context.Context, doc *Document) (SymbolsResult, []FlatSymbol, error) {
	server, err := serverFor(doc, protocol.MethodTextDocumentDocumentSymbol, "")
	if err != nil {
		return SymbolsResult{}, nil, err
	}
	params := protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc.URI}}
	ask := func() ([]FlatSymbol, error) {
		return requestAs(ctx, c, doc, server, protocol.MethodTextDocumentDocumentSymbol, params,
			func(raw json.RawMessage) ([]FlatSymbol, error) {
				return decodeSymbols(raw, doc.URI, server.OffsetEncoding)
			})
	}
	flat, err := ask()
	if err != nil {
		return SymbolsResult{}, nil, err
	}
	// Most servers answer from the opened text at once; some answer an
	// empty list until they have analysed the file (bash-language-server
	// analyses what was opened before its initialization ended only once
	// that ends). An empty answer is asked again after the server's first
	// analysis of the buffer (its first publish); a full one costs no wait.
	if len(flat) == 0 {
		c.analysedMu.Lock()
		analysed := c.analysed[analysisKey{doc.Buffer.Bufnr, server.ID}]
		c.analysedMu.Unlock()
		if !analysed {
			if _, err := c.awaitAnalysis(ctx, doc.Buffer.Bufnr, server); err != nil {
				return SymbolsResult{}, nil, err
			}
			if flat, err = ask(); err != nil {
				return SymbolsResult{}, nil, err
			}
		}
	}
	return SymbolsResult{Scope: "document", File: doc.Rel, Servers: []string{server.Name}}, flat, nil
}

// symbolClient is a running client, with a buffer to send requests through.
type symbolClient struct {
	ID             int    `json:"id"`
	Name           string `json:"name"`
	OffsetEncoding string `json:"offset_encoding"`
	RootDir        any    `json:"root_dir"`
	Bufnr          int    `json:"bufnr"`
}

func (c *Client) workspaceSymbols(ctx context.Context, q SymbolsQuery) (SymbolsResult, []FlatSymbol, error) {
	out := SymbolsResult{Scope: "workspace", Query: q.Query, Servers: []string{}}
	var clients []symbolClient
	if q.File != "" {
		doc, err := c.Open(ctx, q.File)
		if err != nil {
			return SymbolsResult{}, nil, err
		}
		out.File = doc.Rel
		if _, err := serverFor(doc, protocol.MethodWorkspaceSymbol, ""); err != nil {
			return SymbolsResult{}, nil, err
		}
		for _, s := range doc.Servers {
			if s.Supports(protocol.MethodWorkspaceSymbol) {
				clients = append(clients, symbolClient{ID: s.ID, Name: s.Name, OffsetEncoding: string(s.OffsetEncoding), Bufnr: doc.Buffer.Bufnr})
			}
		}
	} else {
		var err error
		if clients, err = c.runningClients(ctx, protocol.MethodWorkspaceSymbol); err != nil {
			return SymbolsResult{}, nil, err
		}
		if len(clients) == 0 {
			for _, f := range c.markerFiles() {
				doc, err := c.Open(ctx, f)
				if err != nil {
					return SymbolsResult{}, nil, err
				}
				out.Opened = append(out.Opened, doc.Rel)
			}
			if clients, err = c.runningClients(ctx, protocol.MethodWorkspaceSymbol); err != nil {
				return SymbolsResult{}, nil, err
			}
		}
		if len(clients) == 0 {
			return SymbolsResult{}, nil, apierr.Errorf(apierr.Unsupported,
				"pass file (a source file of the language to search) so its language server starts, or install the language server for this workspace (make deps installs gopls, pyright and typescript-language-server)",
				"no language server supporting %s is attached to an open buffer, and no root marker in %s names a language to start one for",
				protocol.MethodWorkspaceSymbol, c.Session.Root().Dir())
		}
	}
	var flat []FlatSymbol
	for _, cl := range clients {
		doc := &Document{Buffer: nvim.BufferState{Bufnr: cl.Bufnr}}
		server := Server{ID: cl.ID, Name: cl.Name, OffsetEncoding: preview.Encoding(cl.OffsetEncoding)}
		ready, err := c.awaitAnalysis(ctx, cl.Bufnr, server)
		if err != nil {
			return SymbolsResult{}, nil, err
		}
		if !ready {
			out.NotReady = append(out.NotReady, cl.Name)
		}
		got, err := requestAs(ctx, c, doc, server, protocol.MethodWorkspaceSymbol, protocol.WorkspaceSymbolParams{Query: q.Query},
			func(raw json.RawMessage) ([]FlatSymbol, error) { return decodeSymbols(raw, "", server.OffsetEncoding) })
		if err != nil {
			return SymbolsResult{}, nil, err
		}
		out.Servers = append(out.Servers, cl.Name)
		flat = append(flat, got...)
	}
	return out, flat, nil
}

// runningClients lists the clients attached to loaded buffers that support
// method ("" for any), each with one of its buffers.
func (c *Client) runningClients(ctx context.Context, method string) ([]symbolClient, error) {
	var raw string
	if err := c.Session.WorkspaceClients(ctx, &raw, method); err != nil {
		return nil, err
	}
	var all []symbolClient
	if err := decodeList(json.RawMessage(raw), &all); err != nil {
		return nil, fmt.Errorf("decode clients: %w", err)
	}
	// Attached to a user's Neovim, other projects' servers may be running:
	// keep those whose root is inside the workspace or contains it.
	root := c.Session.Root()
	out := all[:0]
	for _, cl := range all {
		dir, _ := cl.RootDir.(string)
		if dir == "" || root.Contains(dir) || strings.HasPrefix(root.Dir()+string(filepath.Separator), filepath.Clean(dir)+string(filepath.Separator)) {
			out = append(out, cl)
		}
	}
	return out, nil
}

// markerWalkLimit bounds the folders visited looking for a source file.
const markerWalkLimit = 2000

// markerFiles picks, for each language whose root marker is in the
// workspace root, its shallowest source file (then by path; in the
// folders its project file names first, lang.Language.SourceDirs), as paths
// relative to the root.
func (c *Client) markerFiles() []string {
	dir := c.Session.Root().Dir()
	var out []string
	for _, l := range lang.All() {
		present := false
		for _, name := range l.Markers {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				present = true
				break
			}
		}
		if !present {
			continue
		}
		f := ""
		if l.SourceDirs != nil {
			for _, sub := range l.SourceDirs(dir) {
				if f = shallowestFile(filepath.Join(dir, filepath.FromSlash(sub)), l.Extensions); f != "" {
					f = path.Join(sub, f)
					break
				}
			}
		}
		if f == "" {
			f = shallowestFile(dir, l.Extensions)
		}
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// shallowestFile returns the source file with one of exts closest to dir
// (ties broken by path), skipping hidden, vendored and generated folders.
func shallowestFile(dir string, exts []string) string {
	best, bestDepth, visited := "", 0, 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		depth := strings.Count(rel, string(filepath.Separator))
		if d.IsDir() {
			if p != dir {
				name := d.Name()
				if strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "__pycache__" || name == "testdata" {
					return filepath.SkipDir
				}
			}
			visited++
			if visited > markerWalkLimit || (best != "" && depth >= bestDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(p)
		for _, e := range exts {
			if ext == e && !strings.HasSuffix(p, ".d.ts") {
				if best == "" || depth < bestDepth || (depth == bestDepth && filepath.ToSlash(rel) < best) {
					best, bestDepth = filepath.ToSlash(rel), depth
				}
			}
		}
		return nil
	})
	return best
}

// FlatSymbol is a symbol from either answer shape (DocumentSymbol or
// SymbolInformation), still in LSP positions.
type FlatSymbol struct {
	Name      string
	Kind      int
	Detail    string
	Container string
	URI       protocol.DocumentURI
	// Range is the whole declaration; Selection the name (nil when the
	// server gave only one range).
	Range     protocol.Range
	Selection *protocol.Range
	Enc       preview.Encoding
}

type symbolWire struct {
	Name           string              `json:"name"`
	Kind           int                 `json:"kind"`
	Detail         string              `json:"detail"`
	ContainerName  string              `json:"containerName"`
	Range          *protocol.Range     `json:"range"`
	SelectionRange *protocol.Range     `json:"selectionRange"`
	Children       []symbolWire        `json:"children"`
	Location       *symbolLocationWire `json:"location"`
}

type symbolLocationWire struct {
	URI   protocol.DocumentURI `json:"uri"`
	Range *protocol.Range      `json:"range"`
}

// decodeSymbols decodes a documentSymbol or workspace/symbol answer: null,
// DocumentSymbol[] (a tree, flattened depth first with the enclosing names
// joined by "." as Container) or SymbolInformation[] / WorkspaceSymbol[]
// (flat, with locations; a WorkspaceSymbol location may lack a range). doc
// is the URI DocumentSymbols belong to; enc the server's encoding.
func decodeSymbols(raw json.RawMessage, doc protocol.DocumentURI, enc preview.Encoding) ([]FlatSymbol, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte("{}")) {
		return nil, nil
	}
	var items []symbolWire
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("decode symbols: %w", err)
	}
	var out []FlatSymbol
	var walk func(items []symbolWire, path []string)
	walk = func(items []symbolWire, path []string) {
		for _, it := range items {
			switch {
			case it.Location != nil: // SymbolInformation / WorkspaceSymbol
				s := FlatSymbol{Name: it.Name, Kind: it.Kind, Container: it.ContainerName, URI: it.Location.URI, Enc: enc}
				if it.Location.Range != nil {
					s.Range = *it.Location.Range
				}
				out = append(out, s)
			case it.Range != nil: // DocumentSymbol
				out = append(out, FlatSymbol{Name: it.Name, Kind: it.Kind, Detail: it.Detail, URI: doc, Range: *it.Range,
					Selection: it.SelectionRange, Container: strings.Join(path, "."), Enc: enc})
				if len(it.Children) > 0 {
					walk(it.Children, append(append([]string(nil), path...), it.Name))
				}
			}
		}
	}
	walk(items, nil)
	return out, nil
}

// toolSymbols converts symbols to tool positions, reading the lines they
// start and end on in one call.
func (c *Client) toolSymbols(ctx context.Context, flat []FlatSymbol) ([]Symbol, error) {
	wanted := map[string][]int{}
	for _, s := range flat {
		p := PathOf(s.URI)
		wanted[p] = append(wanted[p], int(s.Range.Start.Line), int(s.Range.End.Line))
		if s.Selection != nil {
			wanted[p] = append(wanted[p], int(s.Selection.Start.Line), int(s.Selection.End.Line))
		}
	}
	for p := range wanted {
		sort.Ints(wanted[p])
		wanted[p] = dedupInts(wanted[p])
	}
	texts, err := c.Lines(ctx, wanted)
	if err != nil {
		return nil, err
	}
	root := c.Session.Root()
	out := make([]Symbol, len(flat))
	for i, s := range flat {
		p := PathOf(s.URI)
		lines := texts[p]
		col := func(pos protocol.Position) int {
			return preview.UnitsToChar(lines[int(pos.Line)], int(pos.Character), s.Enc)
		}
		name := s.Range
		if s.Selection != nil {
			name = *s.Selection
		}
		if p == "" {
			// A non-file URI: no text, so the server's own units.
			name := s.Range
			if s.Selection != nil {
				name = *s.Selection
			}
			out[i] = Symbol{Name: s.Name, Kind: SymbolKindName(s.Kind), Detail: s.Detail, URI: string(s.URI),
				Line: int(name.Start.Line) + 1, Column: int(name.Start.Character),
				EndLine: int(s.Range.End.Line) + 1, EndColumn: int(s.Range.End.Character),
				Container: s.Container, OutsideWorkspace: true}
			continue
		}
		sym := Symbol{Name: s.Name, Kind: SymbolKindName(s.Kind), Detail: s.Detail, File: root.Rel(p),
			Line: int(name.Start.Line) + 1, Column: col(name.Start),
			EndLine: int(s.Range.End.Line) + 1, EndColumn: col(s.Range.End),
			Container: s.Container, OutsideWorkspace: !root.Contains(p)}
		if s.Selection == nil {
			// One range only (SymbolInformation): it often spans the whole
			// declaration; point at the name when it is on the first line.
			sym.Column = nameColumn(lines[int(name.Start.Line)], sym.Column, s.Name)
		}
		out[i] = sym
	}
	return out, nil
}

// nameColumn returns the character column where name (its last dotted
// segment) occurs as a word on text at or after from, else from.
func nameColumn(text string, from int, name string) int {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || text == "" {
		return from
	}
	fromByte, err := preview.CharToByte(text, from)
	if err != nil {
		return from
	}
	for _, b := range symbolColumns(text, name) {
		if b >= fromByte {
			return preview.ByteToChar(text, b)
		}
	}
	return from
}
