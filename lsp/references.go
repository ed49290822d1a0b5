package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/progress"
)

// DefaultMaxReferences bounds a references answer when the caller gives no
// bound (truncated says when it cut).
const DefaultMaxReferences = 200

// ReferencesOptions tune References.
type ReferencesOptions struct {
	// IncludeDeclaration counts the declaration as a reference.
	IncludeDeclaration bool
	// MaxResults bounds the references returned (0 = DefaultMaxReferences).
	MaxResults int
	// Offset skips that many references of the ordered list (paging).
	Offset int
}

// Reference is one use of a symbol inside a file group.
type Reference struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line" brief:"omit"`
	EndColumn int    `json:"end_column" brief:"omit"`
	Context   string `json:"context" brief:"omit"`
}

// FileReferences are the references in one file, in position order.
type FileReferences struct {
	File string `json:"file,omitempty"`
	// URI names a non-file document (untitled:, jdt://) instead of File.
	URI              string `json:"uri,omitempty"`
	OutsideWorkspace bool   `json:"outside_workspace,omitempty"`
	// Sensitive: a file the workspace policy protects; its lines are not shown.
	Sensitive  bool        `json:"sensitive,omitempty"`
	Count      int         `json:"count"`
	References []Reference `json:"references"`
}

// ReferencesResult answers find_references.
type ReferencesResult struct {
	Symbol             string `json:"symbol,omitempty"`
	From               string `json:"from"`
	Server             string `json:"server"`
	IncludeDeclaration bool   `json:"include_declaration"`
	// Total is how many references the server found; Returned how many are
	// listed (fewer when truncated).
	Total     int  `json:"total"`
	Returned  int  `json:"returned"`
	FileCount int  `json:"file_count"`
	Truncated bool `json:"truncated"`
	// Offset is where the page starts in the ordered list; NextOffset
	// where the next one does (absent on the last page).
	Offset     int              `json:"offset"`
	NextOffset *int             `json:"next_offset,omitempty"`
	Files      []FileReferences `json:"files"`
	// Incomplete says why the answer may be partial (the server was still
	// analysing the file); absent when it is complete.
	Incomplete string `json:"incomplete,omitempty"`
}

// References returns the uses of the symbol at t in file, grouped by file
// (files in path order, references in position order).
func (c *Client) References(ctx context.Context, file string, t Target, opts ReferencesOptions) (ReferencesResult, error) {
	if err := checkLimit(&opts.MaxResults, "max_results", DefaultMaxReferences); err != nil {
		return ReferencesResult{}, err
	}
	progress.Report(ctx, 0, 0, "asking for the references")
	a, err := c.read(ctx, file, t, readRequest{method: protocol.MethodTextDocumentReferences, block: 1,
		params: func(at protocol.TextDocumentPositionParams) any {
			return protocol.ReferenceParams{TextDocumentPositionParams: at,
				Context: protocol.ReferenceContext{IncludeDeclaration: opts.IncludeDeclaration}}
		}})
	if err != nil {
		return ReferencesResult{}, err
	}
	locs, err := DecodeLocations(a.raw)
	if err != nil {
		return ReferencesResult{}, undecodable(a.pos.server, protocol.MethodTextDocumentReferences, err)
	}
	return c.referencesFrom(ctx, a.pos, opts, locs, a.texts)
}

// referencesAt asks for the references at pos (opts checked).
func (c *Client) referencesAt(ctx context.Context, pos position, opts ReferencesOptions) (ReferencesResult, error) {
	params := protocol.ReferenceParams{
		TextDocumentPositionParams: pos.params(),
		Context:                    protocol.ReferenceContext{IncludeDeclaration: opts.IncludeDeclaration},
	}
	progress.Report(ctx, 0, 0, "asking "+pos.server.Name+" for the references of "+pos.symbol())
	locs, err := requestAs(ctx, c, pos.doc, pos.server, protocol.MethodTextDocumentReferences, params, DecodeLocations)
	if err != nil {
		return ReferencesResult{}, err
	}
	return c.referencesFrom(ctx, pos, opts, locs, nil)
}

// referencesFrom shapes the answer locs to references at pos; known holds
// the lines of the loaded buffers they name, when already read (nil: not).
func (c *Client) referencesFrom(ctx context.Context, pos position, opts ReferencesOptions, locs []protocol.Location, known map[string]map[int]string) (ReferencesResult, error) {
	wanted := map[string][]int{}
	addLocationLines(wanted, locs)
	texts, err := c.linesWith(ctx, known, wanted)
	if err != nil {
		return ReferencesResult{}, err
	}
	all := c.toolLocationsFrom(texts, pos.server.OffsetEncoding, locs)
	all = SortLocations(all)
	out := ReferencesResult{Symbol: pos.symbol(), From: pos.where(), Server: pos.server.Name, Incomplete: pos.unanalysed,
		IncludeDeclaration: opts.IncludeDeclaration, Total: len(all), Files: []FileReferences{}}
	kept := all
	if opts.Offset > 0 {
		kept = kept[min(opts.Offset, len(kept)):]
		out.Offset = opts.Offset
	}
	if len(kept) > opts.MaxResults {
		kept = kept[:opts.MaxResults]
		out.Truncated = true
	}
	if next := opts.Offset + len(kept); next < len(all) {
		out.NextOffset = &next
	}
	out.Returned = len(kept)
	out.Files = groupByFile(kept)
	files := map[string]bool{}
	for _, l := range all {
		files[l.File+"\x00"+l.URI] = true
	}
	out.FileCount = len(files)
	return out, nil
}

// groupByFile groups sorted locations by file, keeping their order.
func groupByFile(locs []Location) []FileReferences {
	out := []FileReferences{}
	for _, l := range locs {
		if len(out) == 0 || out[len(out)-1].File != l.File || out[len(out)-1].URI != l.URI {
			out = append(out, FileReferences{File: l.File, URI: l.URI, OutsideWorkspace: l.OutsideWorkspace, Sensitive: l.Sensitive})
		}
		g := &out[len(out)-1]
		g.References = append(g.References, Reference{
			Line: l.Line, Column: l.Column, EndLine: l.EndLine, EndColumn: l.EndColumn, Context: l.Context,
		})
		g.Count++
	}
	return out
}
