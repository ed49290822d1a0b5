// Package syntax reads the syntax of Python and TypeScript (and any language
// Neovim has a tree-sitter parser for) through Neovim's vim.treesitter: parse
// a text or a buffer with a language and run a query, or find the node
// enclosing a position (the call or the declaration there). The Lua half is
// lua/nvbridge/syntax.lua; the parsers come from `make deps`
// (.deps/parser/NAME.so, registered when the session opens:
// nvim.Options.ParserDir). Go code is read with go/parser, not here.
//
// Positions are Neovim's: 0-based rows, byte columns, and byte offsets into
// the parsed text. The package sits beside lsp, above nvim: it imports nvim
// (through Caller), lang and apierr.
package syntax

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
)

// Caller runs lua/nvbridge/syntax.lua's functions; *nvim.Session is one.
type Caller interface {
	SyntaxQuery(ctx context.Context, result any, src any, query string, opts any) error
	SyntaxEnclosing(ctx context.Context, result any, src any, row, col int, types []string, depth int) error
	SyntaxErrors(ctx context.Context, result any, src any, limit int) error
}

// Source is what to parse: a loaded buffer's current text (Bufnr), else
// Text. Lang is the tree-sitter language ("python", "typescript", "tsx").
type Source struct {
	Lang  string `msgpack:"lang"`
	Text  string `msgpack:"text,omitempty"`
	Bufnr int    `msgpack:"bufnr,omitempty"`
}

// Text is a Source for text in language ts.
func Text(ts, text string) Source { return Source{Lang: ts, Text: text} }

// ForFile is a Source for a file's text, its tree-sitter language chosen by
// the language registry (lang.TreeSitterFor); UNSUPPORTED when the file's
// language has no tree-sitter grammar.
func ForFile(path, text string) (Source, error) {
	ts := lang.TreeSitterFor(path)
	if ts == "" {
		return Source{}, apierr.Errorf(apierr.Unsupported, "Go files are read with go/parser; other languages need a tree-sitter grammar in lang/",
			"no tree-sitter language for %s", path)
	}
	return Source{Lang: ts, Text: text}, nil
}

// Node is a syntax node. Children (named ones and those with a field name)
// are filled to the depth asked for.
type Node struct {
	Type      string `msgpack:"type"`
	Field     string `msgpack:"field"`
	Named     bool   `msgpack:"named"`
	StartRow  int    `msgpack:"start_row"`
	StartCol  int    `msgpack:"start_col"`
	EndRow    int    `msgpack:"end_row"`
	EndCol    int    `msgpack:"end_col"`
	StartByte int    `msgpack:"start_byte"`
	EndByte   int    `msgpack:"end_byte"`
	Text      string `msgpack:"text"`
	Children  []Node `msgpack:"children,omitempty"`
}

// Child returns the first child with that field name, nil when none.
func (n *Node) Child(field string) *Node {
	for i := range n.Children {
		if n.Children[i].Field == field {
			return &n.Children[i]
		}
	}
	return nil
}

// NamedChildren returns the named children, comments left out.
func (n *Node) NamedChildren() []Node {
	var out []Node
	for _, c := range n.Children {
		if c.Named && c.Type != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// Contains reports whether the byte offset b lies in the node (its end
// included: a cursor just after a name is on it).
func (n *Node) Contains(b int) bool { return n.StartByte <= b && b <= n.EndByte }

func (n Node) String() string {
	return fmt.Sprintf("%s %d:%d-%d:%d %q", n.Type, n.StartRow, n.StartCol, n.EndRow, n.EndCol, n.Text)
}

// Capture is one captured node of a match.
type Capture struct {
	Name string `msgpack:"name"`
	Node Node   `msgpack:"node"`
}

// Match is one match of a query: its pattern (1-based, in the query's
// order) and its captures in text order.
type Match struct {
	Pattern  int       `msgpack:"pattern"`
	Captures []Capture `msgpack:"captures"`
}

// Get returns the first capture named name, nil when none.
func (m *Match) Get(name string) *Node {
	for i := range m.Captures {
		if m.Captures[i].Name == name {
			return &m.Captures[i].Node
		}
	}
	return nil
}

// All returns every capture named name.
func (m *Match) All(name string) []Node {
	var out []Node
	for _, c := range m.Captures {
		if c.Name == name {
			out = append(out, c.Node)
		}
	}
	return out
}

// QueryOptions narrow a query: Depth levels of children with each captured
// node; rows (0-based, inclusive) to search, when set.
type QueryOptions struct {
	Depth    int
	StartRow *int
	EndRow   *int
}

type queryOpts struct {
	Depth    *int `msgpack:"depth,omitempty"`
	StartRow *int `msgpack:"start_row,omitempty"`
	EndRow   *int `msgpack:"end_row,omitempty"`
}

type queryReply struct {
	Matches []Match        `msgpack:"matches,omitempty"`
	Err     *nvim.LuaError `msgpack:"err,omitempty"`
}

// Query runs a tree-sitter query (data, never Lua source) over src and
// returns its matches in order.
func Query(ctx context.Context, c Caller, src Source, query string, opt QueryOptions) ([]Match, error) {
	var reply queryReply
	o := queryOpts{StartRow: opt.StartRow, EndRow: opt.EndRow}
	if opt.Depth > 0 {
		o.Depth = &opt.Depth
	}
	if err := c.SyntaxQuery(ctx, &reply, src, query, o); err != nil {
		return nil, err
	}
	if reply.Err != nil {
		return nil, reply.Err.APIError()
	}
	return reply.Matches, nil
}

// Captures runs a query and returns every capture named name, in text order.
func Captures(ctx context.Context, c Caller, src Source, query, name string, depth int) ([]Node, error) {
	matches, err := Query(ctx, c, src, query, QueryOptions{Depth: depth})
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, m := range matches {
		out = append(out, m.All(name)...)
	}
	return out, nil
}

type enclosingReply struct {
	Node      *Node          `msgpack:"node,omitempty"`
	Ancestors []string       `msgpack:"ancestors,omitempty"`
	Err       *nvim.LuaError `msgpack:"err,omitempty"`
}

// Enclosing returns the smallest node enclosing (row, col) whose type is
// one of types (any named node when types is empty), with depth levels of
// children, and its ancestors' types (innermost first); nil when no such
// node encloses the position.
func Enclosing(ctx context.Context, c Caller, src Source, row, col int, types []string, depth int) (*Node, []string, error) {
	if types == nil {
		types = []string{}
	}
	var reply enclosingReply
	if err := c.SyntaxEnclosing(ctx, &reply, src, row, col, types, depth); err != nil {
		return nil, nil, err
	}
	if reply.Err != nil {
		return nil, nil, reply.Err.APIError()
	}
	return reply.Node, reply.Ancestors, nil
}

type errorsReply struct {
	Errors []Node         `msgpack:"errors,omitempty"`
	Err    *nvim.LuaError `msgpack:"err,omitempty"`
}

// Errors returns src's syntax errors (ERROR and MISSING nodes), at most
// limit; none when it parses cleanly.
func Errors(ctx context.Context, c Caller, src Source, limit int) ([]Node, error) {
	var reply errorsReply
	if err := c.SyntaxErrors(ctx, &reply, src, limit); err != nil {
		return nil, err
	}
	if reply.Err != nil {
		return nil, reply.Err.APIError()
	}
	return reply.Errors, nil
}
