package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// DeclarationLines is how many source lines a definition carries (fewer
// when a blank line or the file's end comes first).
const DeclarationLines = 5

// SourceLocation is a location with the first lines of what is declared
// there.
type SourceLocation struct {
	Location
	// Declaration holds up to DeclarationLines lines starting at Line, as
	// the servers see them (unsaved changes included).
	Declaration string `json:"declaration,omitempty" brief:"omit"`
}

// LocationsResult answers find_definition and find_implementations.
type LocationsResult struct {
	// Symbol is the identifier at the requested position.
	Symbol string `json:"symbol,omitempty"`
	// From is where the request pointed: file:line:column.
	From      string           `json:"from"`
	Server    string           `json:"server"`
	Count     int              `json:"count"`
	Locations []SourceLocation `json:"locations"`
	// Incomplete says why the answer may be partial (the server was still
	// analysing the file); absent when it is complete.
	Incomplete string `json:"incomplete,omitempty"`
}

// Definition returns where the symbol at t in file is defined
// (textDocument/definition). Locations outside the workspace (the standard
// library, dependencies) are included and marked outside_workspace.
func (c *Client) Definition(ctx context.Context, file string, t Target) (LocationsResult, error) {
	return c.locations(ctx, file, t, protocol.MethodTextDocumentDefinition, "")
}

// Declaration returns where the symbol at t in file is declared
// (textDocument/declaration: a C function's prototype in its header).
func (c *Client) Declaration(ctx context.Context, file string, t Target) (LocationsResult, error) {
	return c.locations(ctx, file, t, protocol.MethodTextDocumentDeclaration, "")
}

// Implementations returns the implementations of the interface, abstract
// member or type at t (textDocument/implementation). A server that does not
// implement the request (pyright) is UNSUPPORTED, never an empty answer.
func (c *Client) Implementations(ctx context.Context, file string, t Target) (LocationsResult, error) {
	return c.locations(ctx, file, t, protocol.MethodTextDocumentImplementation,
		"this server cannot search implementations; find_references on the member lists where it is used, and get_symbols with a query finds same-named definitions (e.g. overrides in subclasses)")
}

func (c *Client) locations(ctx context.Context, file string, t Target, method, hint string) (LocationsResult, error) {
	a, err := c.read(ctx, file, t, readRequest{method: method, hint: hint, block: DeclarationLines,
		params: func(at protocol.TextDocumentPositionParams) any {
			return protocol.DefinitionParams{TextDocumentPositionParams: at}
		}})
	if err != nil {
		return LocationsResult{}, err
	}
	locs, err := DecodeLocations(a.raw)
	if err != nil {
		return LocationsResult{}, undecodable(a.pos.server, method, err)
	}
	return c.locationsFrom(ctx, a.pos, locs, a.texts)
}

// locationsAt sends a definition-like method at pos.
func (c *Client) locationsAt(ctx context.Context, pos position, method string) (LocationsResult, error) {
	params := protocol.DefinitionParams{TextDocumentPositionParams: pos.params()}
	locs, err := requestAs(ctx, c, pos.doc, pos.server, method, params, DecodeLocations)
	if err != nil {
		return LocationsResult{}, err
	}
	return c.locationsFrom(ctx, pos, locs, nil)
}

// locationsFrom shapes the answer locs of a definition-like request at pos;
// known holds the lines of the loaded buffers they name, when already read
// (nil: not).
func (c *Client) locationsFrom(ctx context.Context, pos position, locs []protocol.Location, known map[string]map[int]string) (LocationsResult, error) {
	// The lines to convert the ranges and the declarations' source: one
	// read.
	paths := make([]string, len(locs))
	lines := make([]int, len(locs))
	for i, l := range locs {
		paths[i], lines[i] = PathOf(l.URI), int(l.Range.Start.Line)
	}
	wanted := map[string][]int{}
	addBlockLines(wanted, paths, lines, DeclarationLines)
	addLocationLines(wanted, locs)
	texts, err := c.linesWith(ctx, known, wanted)
	if err != nil {
		return LocationsResult{}, err
	}
	tools := SortLocations(c.toolLocationsFrom(texts, pos.server.OffsetEncoding, locs))
	out := LocationsResult{Symbol: pos.symbol(), From: pos.where(), Server: pos.server.Name,
		Count: len(tools), Locations: make([]SourceLocation, len(tools)), Incomplete: pos.unanalysed}
	paths, lines = make([]string, len(tools)), make([]int, len(tools))
	for i, l := range tools {
		if l.File != "" { // a non-file URI has no source to show
			paths[i] = c.absPath(l.File)
		}
		lines[i] = l.Line - 1
	}
	blocks := blocksFrom(texts, paths, lines, DeclarationLines)
	for i, l := range tools {
		out.Locations[i] = SourceLocation{Location: l, Declaration: blocks[i]}
	}
	return out, nil
}
