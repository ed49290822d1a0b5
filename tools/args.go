package tools

import "github.com/nvbridge/nvbridge/lsp"

// Argument pieces shared by tools; embedded so every tool names them alike.

// fileArg names a file.
type fileArg struct {
	File string `json:"file" jsonschema:"path of the file, relative to the workspace root"`
}

// positionArgs name a position: a line and either a column or a symbol.
type positionArgs struct {
	File   string `json:"file" jsonschema:"path of the file, relative to the workspace root"`
	Line   int    `json:"line" jsonschema:"1-based line number"`
	Column *int   `json:"column,omitempty" jsonschema:"0-based column in characters; optional when symbol is given"`
	Symbol string `json:"symbol,omitempty" jsonschema:"name of the symbol on that line, used instead of column (e.g. Process)"`
}

func (p positionArgs) target() lsp.Target {
	return lsp.Target{Line: p.Line, Column: p.Column, Symbol: p.Symbol}
}
